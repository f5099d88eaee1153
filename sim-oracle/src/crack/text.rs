//! Instruction text as the crack sees it: tokens, the coarse signature that tells
//! one form from another, and the token span two texts differ in.

/// Splits instruction text into tokens: runs of `[A-Za-z0-9_]`, or single other
/// characters (spaces included, so that joining the tokens gives the text back).
pub fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        if is_word(b[i]) {
            while i < b.len() && is_word(b[i]) {
                i += 1;
            }
        } else {
            // One UTF-8 character.
            i += 1;
            while i < b.len() && (b[i] & 0xc0) == 0x80 {
                i += 1;
            }
        }
        out.push(&text[start..i]);
    }
    out
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// True for a token that is a number or a numbered register/predicate: `12`,
/// `0x1f`, `R7`, `P3`, `RZ`, `PT`.
pub fn is_numeric(tok: &str) -> bool {
    let b = tok.as_bytes();
    if b.is_empty() {
        return false;
    }
    if tok == "RZ" || tok == "PT" {
        return true;
    }
    if (b[0] == b'R' || b[0] == b'P') && b.len() > 1 && b[1..].iter().all(|c| c.is_ascii_digit()) {
        return true;
    }
    if let Some(h) = tok.strip_prefix("0x") {
        return !h.is_empty() && h.bytes().all(|c| c.is_ascii_hexdigit());
    }
    b.iter().all(|c| c.is_ascii_digit())
}

/// The mnemonic with its modifiers (`ISETP.GE.AND`) and the base mnemonic (`ISETP`),
/// after any predicate guard.
pub fn mnemonic(text: &str) -> (&str, &str) {
    let t = text.trim_start();
    let t = if t.starts_with('@') {
        t.split_once(' ').map(|x| x.1).unwrap_or("")
    } else {
        t
    };
    let full = t.split([' ', ';']).next().unwrap_or("");
    let base = full.split('.').next().unwrap_or("");
    (full, base)
}

/// The operand texts of an instruction, split at top-level commas.
pub fn operands(text: &str) -> Vec<String> {
    let t = text.trim_start();
    let t = if t.starts_with('@') {
        t.split_once(' ').map(|x| x.1).unwrap_or("")
    } else {
        t
    };
    let t = t.trim_end().trim_end_matches(';');
    let Some((_, rest)) = t.split_once(' ') else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    for c in rest.chars() {
        match c {
            '[' | '(' | '{' => depth += 1,
            ']' | ')' | '}' => depth -= 1,
            _ => {}
        }
        if c == ',' && depth == 0 {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The coarse kind of an operand: what stays the same when only field values
/// change. Registers, predicates and numbers lose their values and decorations;
/// memory and constant-bank operands keep only their shape.
pub fn operand_kind(op: &str) -> String {
    let s = op
        .trim_start_matches(['-', '!', '|', '~'])
        .trim_end_matches('|');
    if s.starts_with("c[") {
        // Direct and indexed banks are one kind: an indexed bank with index RZ
        // prints as a direct one (`c[0x3][0x0]`).
        return "C".into();
    }
    if s.starts_with('[') {
        return "M".into();
    }
    if s.starts_with("SR") {
        return "SR".into();
    }
    let first = tokens(s).first().copied().unwrap_or("");
    if first.starts_with('R') && is_numeric(first) {
        return "R".into();
    }
    if first.starts_with('P') && is_numeric(first) {
        return "P".into();
    }
    if is_numeric(first) || first == "+" || first == "INF" || first == "QNAN" || first == "SNAN" {
        return "I".into();
    }
    // Anything else (texture shapes, names): numbers erased.
    tokens(s)
        .iter()
        .map(|t| if is_numeric(t) { "#" } else { t })
        .collect()
}

/// What must stay equal for two texts to be the same form: the base mnemonic and
/// the kinds of the operands.
pub fn signature(text: &str) -> String {
    let (_, base) = mnemonic(text);
    let kinds: Vec<String> = operands(text).iter().map(|o| operand_kind(o)).collect();
    format!("{base} {}", kinds.join(","))
}

/// The token span `[a, b)` of `a_toks` that differs from `b_toks`, and the span
/// `[a, b2)` of `b_toks` that replaces it.
pub fn diff_span(x: &[&str], y: &[&str]) -> (usize, usize, usize) {
    let mut a = 0;
    while a < x.len() && a < y.len() && x[a] == y[a] {
        a += 1;
    }
    let mut s = 0;
    while s < x.len() - a && s < y.len() - a && x[x.len() - 1 - s] == y[y.len() - 1 - s] {
        s += 1;
    }
    (a, x.len() - s, y.len() - s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_and_rejoins() {
        let t = "@!P0 FFMA.FTZ R4, -R0, c[0x0][0x148], |R0|;";
        assert_eq!(tokens(t).concat(), t);
        assert_eq!(mnemonic(t), ("FFMA.FTZ", "FFMA"));
        assert_eq!(operands(t), ["R4", "-R0", "c[0x0][0x148]", "|R0|"]);
        assert_eq!(signature(t), "FFMA R,R,C,R");
    }

    #[test]
    fn span_of_a_register_change() {
        let x = tokens("FFMA R4, R0, R1, R2;");
        let y = tokens("FFMA R4, R8, R1, R2;");
        let (a, b, b2) = diff_span(&x, &y);
        assert_eq!(
            (x[a..b].concat(), y[a..b2].concat()),
            ("R0".to_string(), "R8".to_string())
        );
    }

    #[test]
    fn span_of_an_insertion() {
        let x = tokens("FFMA R4, R0, R1, R2;");
        let y = tokens("FFMA.FTZ R4, R0, R1, R2;");
        let (a, b, b2) = diff_span(&x, &y);
        assert_eq!(a, b);
        assert_eq!(y[a..b2].concat(), ".FTZ");
    }
}
