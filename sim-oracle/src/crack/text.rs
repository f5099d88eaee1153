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
    // Attribute and vertex addresses (`a[R6+0x1]`, `v[0x7c]`) are memory
    // operands of their own space: with base RZ they print the offset alone.
    if let Some((space, _)) = s.split_once('[') {
        if space.len() == 1 && space.bytes().all(|c| c.is_ascii_lowercase()) {
            return format!("{space}M");
        }
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

/// Whether texts with signatures `a` and `b` can be one form's: the same
/// signature, or one with an immediate operand more at the end (an optional
/// operand, omitted when zero: `BPT.TRAP` and `BPT.TRAP 0x1`).
pub fn same_form(a: &str, b: &str) -> bool {
    let more = |x: &str, y: &str| {
        y.strip_prefix(x)
            .is_some_and(|r| r == ",I" || (r == "I" && x.ends_with(' ')))
    };
    a == b || more(a, b) || more(b, a)
}

/// Whether `x` and `y` differ only by an optional last operand: the same text,
/// one with a hexadecimal power of two more at the end of the operands, after a
/// blank if it is the only one, else after `, ` (`NOP.TRIG;` and `NOP.TRIG 0x2;`,
/// `NOP CC.F;` and `NOP CC.F, 0x80;`), as a single bit flip of a zero value
/// prints it.
pub fn optional_operand(x: &str, y: &str) -> bool {
    let (x, y) = if x.len() < y.len() { (x, y) } else { (y, x) };
    let (xt, yt) = (tokens(x), tokens(y));
    let (a, b, b2) = diff_span(&xt, &yt);
    let sep: &[&str] = if operands(x).is_empty() {
        &[" "]
    } else {
        &[",", " "]
    };
    if a != b || b2 != a + sep.len() + 1 || yt[a..b2 - 1] != *sep || xt[a..] != [";"] {
        return false;
    }
    yt[b2 - 1]
        .strip_prefix("0x")
        .and_then(|h| u64::from_str_radix(h, 16).ok())
        .is_some_and(|v| v.is_power_of_two())
}

/// Whether `y` is `x` with the registers of several operands renumbered by one
/// and the same amount: a register printed with its successor, one field (the
/// compare and swap values of `ATOM.CAS R9, [R6], R8, R9`, `R8, R9` to `R9,
/// R10`). The renumbered registers of `x` ascend in the text (the successor
/// follows): a destination and a source both renumbered (`R9, [R6], R8` to
/// `R10, [R6], R9`) are two fields.
pub fn linked_registers(x: &[&str], y: &[&str]) -> bool {
    if x.len() != y.len() {
        return false;
    }
    let reg = |t: &str| t.strip_prefix('R').and_then(|n| n.parse::<i64>().ok());
    let mut delta = None;
    let mut last = None;
    let mut changed = 0;
    for (a, b) in x.iter().zip(y) {
        if a == b {
            continue;
        }
        let (Some(ra), Some(rb)) = (reg(a), reg(b)) else {
            return false;
        };
        if *delta.get_or_insert(rb - ra) != rb - ra || last.is_some_and(|l| ra <= l) {
            return false;
        }
        last = Some(ra);
        changed += 1;
    }
    changed > 1
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

/// The stretches in which two texts differ, as token spans `(a, b, b2)` like
/// [`diff_span`]'s: one, unless the texts have as many tokens and differ in
/// places that a comma separates, each a stretch of its own (a field printed
/// twice: `IMAD32I R8.CC, R4, 0x160, -R8`).
pub fn diff_hunks(x: &[&str], y: &[&str]) -> Vec<(usize, usize, usize)> {
    if x.len() != y.len() {
        return vec![diff_span(x, y)];
    }
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for i in (0..x.len()).filter(|&i| x[i] != y[i]) {
        match out.last_mut() {
            Some(h) if !x[h.1..i].contains(&",") => {
                h.1 = i + 1;
                h.2 = i + 1;
            }
            _ => out.push((i, i + 1, i + 1)),
        }
    }
    if out.is_empty() {
        out.push(diff_span(x, y));
    }
    out
}

/// The stretches of `x` that `y` changes when they are one change repeated in
/// several operands (a field printed twice: `R8` to `R9` in `IMAD32I R8.CC, R4,
/// 0x160, -R8`), else `None`.
pub fn repeated_change(x: &[&str], y: &[&str]) -> Option<Vec<(usize, usize)>> {
    let hs = diff_hunks(x, y);
    let first = hs.first()?;
    let same = hs.len() > 1
        && hs.iter().all(|h| {
            x[h.0..h.1] == x[first.0..first.1]
                && y[h.0..h.2] == y[first.0..first.2]
                && !x[h.0..h.1].contains(&",")
        });
    same.then(|| hs.iter().map(|h| (h.0, h.1)).collect())
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
    fn optional_operands() {
        assert!(optional_operand("BPT.TRAP 0x1;", "BPT.TRAP;"));
        assert!(optional_operand("@P0 NOP.TRIG;", "@P0 NOP.TRIG 0x80;"));
        assert!(!optional_operand("NOP.TRIG;", "NOP.TRIG 0x3;"));
        assert!(optional_operand("NOP CC.F, 0x80;", "NOP CC.F;"));
        assert!(!optional_operand("FOO R0, R1;", "FOO R0, 0x1, R1;"));
        assert!(same_form(
            &signature("BPT.TRAP;"),
            &signature("BPT.CAL 0x3;")
        ));
        assert!(same_form(
            &signature("NOP CC.F;"),
            &signature("NOP CC.F, 0x3;")
        ));
        assert!(!same_form(&signature("FOO R0;"), &signature("FOO R0, R1;")));
    }

    #[test]
    fn a_field_printed_twice_changes_twice() {
        let x = tokens("IMAD32I R8.CC, R4, 0x160, -R8;");
        let y = tokens("IMAD32I R9.CC, R4, 0x160, -R9;");
        let (a, b) = (x.iter().position(|t| *t == "R8").unwrap(), x.len() - 2);
        assert_eq!(repeated_change(&x, &y), Some(vec![(a, a + 1), (b, b + 1)]));
        let z = tokens("IMAD32I R9.CC, R4, 0x160, -R8;");
        assert_eq!(repeated_change(&x, &z), None);
        let w = tokens("IMAD32I R8.CC, R5, 0x161, -R8;");
        assert_eq!(repeated_change(&x, &w), None);
    }

    #[test]
    fn a_register_and_its_successor_are_one_field() {
        // Recorded from nvdisasm 11.8: bit 23 of 0x77880000041c1826.
        let x = tokens("ATOM.E.CAS R9, [R6], R8, R9;");
        let y = tokens("ATOM.E.CAS R9, [R6], R9, R10;");
        assert!(linked_registers(&x, &y));
        let z = tokens("ATOM.E.CAS R9, [R6], R8, RZ;");
        assert!(!linked_registers(&x, &z));
        let w = tokens("ATOM.E.CAS R10, [R6], R9, R9;");
        assert!(!linked_registers(&x, &w));
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
