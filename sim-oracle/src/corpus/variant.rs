//! What counts as a distinct instruction variant: the mnemonic with all its
//! modifiers plus the kind of each operand, predicate guard reduced to present or
//! absent. The corpus is judged by how many variants it covers.

/// Mnemonics whose bare numeric operand is a branch target, not an immediate.
const BRANCHES: &[&str] = &[
    "BRA", "BRX", "JMP", "JMX", "CAL", "JCAL", "SSY", "PBK", "PCNT", "PRET", "PLONGJMP", "BPT",
];

/// The base opcode of a disassembly line: the mnemonic without guard and
/// modifiers (`@P0 ISETP.GE.AND P0, ...` gives `ISETP`).
pub fn base_mnemonic(text: &str) -> &str {
    let (_, mnem, _) = split(text);
    mnem.split('.').next().unwrap_or(mnem)
}

/// Splits `@P0 OP.MOD a, b;` into (guard, mnemonic, operands).
fn split(text: &str) -> (&str, &str, &str) {
    let t = text.trim().trim_end_matches(';').trim();
    let (guard, rest) = match t.strip_prefix('@') {
        Some(_) => match t.split_once(char::is_whitespace) {
            Some((g, r)) => (g, r.trim_start()),
            None => (t, ""),
        },
        None => ("", t),
    };
    match rest.split_once(char::is_whitespace) {
        Some((m, ops)) => (guard, m, ops.trim()),
        None => (guard, rest, ""),
    }
}

/// The variant key of a disassembly line (`@P0 IADD R4.CC, -R0, c[0x0][0x148];` gives
/// `@P IADD R.CC, -R, c[I][I]`).
///
/// The key is the mnemonic with every dot-modifier, then each operand reduced to
/// its kind: `R` for a register (RZ included), `R.CC` and other suffixed forms kept
/// with the suffix, `P` for a predicate (PT included), `!P` for a negated one,
/// `c[I][I]` for a constant-bank operand, `I` for an integer immediate (sign
/// included), `F` for a floating-point immediate, memory operands with their shape
/// (`[R+I]`), special registers by name (`SR_TID.X`), `T` for a branch target, and
/// the operand modifiers `-`, `|..|`, `~`, `!` kept; blanks inside an operand
/// are collapsed to one and dropped next to brackets (`c[0x0] [0x140]` is
/// `c[I][I]`). Any other word (texture
/// geometry such as `2D`, `PR`, `CC`) is kept literally. The guard becomes `@P` if
/// present.
pub fn variant_key(text: &str) -> String {
    let (guard, mnem, ops) = split(text);
    let base = mnem.split('.').next().unwrap_or(mnem);
    let branch = BRANCHES.contains(&base);
    let mut key = String::new();
    if !guard.is_empty() {
        key.push_str("@P ");
    }
    key.push_str(mnem);
    let kinds: Vec<String> = split_operands(ops)
        .iter()
        .map(|o| operand_kind(o, branch))
        .collect();
    if !kinds.is_empty() {
        key.push(' ');
        key.push_str(&kinds.join(", "));
    }
    key
}

/// Splits operands at top-level commas (none sit inside brackets on sm_35, but be
/// safe).
fn split_operands(ops: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in ops.char_indices() {
        match c {
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ops[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = ops[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

fn is_float_literal(s: &str) -> bool {
    let s = s.trim_start_matches(['-', '+']);
    if s.starts_with("0x") {
        return false;
    }
    let upper = s.to_ascii_uppercase();
    if matches!(upper.as_str(), "INF" | "NAN" | "QNAN" | "SNAN") {
        return true;
    }
    s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
}

fn is_hex(s: &str) -> bool {
    let s = s.trim_start_matches(['-', '+']);
    s.strip_prefix("0x")
        .is_some_and(|h| !h.is_empty() && h.chars().all(|c| c.is_ascii_hexdigit()))
}

fn operand_kind(op: &str, branch: bool) -> String {
    if op.starts_with('`') {
        return "T".into();
    }
    if branch && is_hex(op) {
        return "T".into();
    }
    if is_float_literal(op) {
        return "F".into();
    }
    // Walk the operand, replacing each word by its kind and keeping punctuation.
    let mut out = String::new();
    let chars: Vec<char> = op.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            // A '-' glued in front of a hex number is the number's sign.
            if word.starts_with("0x") && out.ends_with('-') {
                let prev = out.chars().rev().nth(1);
                if prev.is_none_or(|p| matches!(p, '[' | '+' | ' ')) {
                    out.pop();
                }
            }
            if word.starts_with("SR_") {
                // Special register: keep its full dotted name.
                let mut name = word;
                while i < chars.len() && chars[i] == '.' {
                    let s = i;
                    i += 1;
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                    name.extend(&chars[s..i]);
                }
                out.push_str(&name);
                continue;
            }
            out.push_str(&word_kind(&word, branch));
            continue;
        }
        if c.is_whitespace() {
            if !out.is_empty() && !out.ends_with([' ', '[']) {
                out.push(' ');
            }
        } else {
            if matches!(c, '[' | ']') && out.ends_with(' ') {
                out.pop();
            }
            out.push(c);
        }
        i += 1;
    }
    out.trim_end().to_string()
}

fn word_kind(w: &str, branch: bool) -> String {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if w == "RZ" || (w.starts_with('R') && digits(&w[1..])) {
        return "R".into();
    }
    if w == "PT" || (w.starts_with('P') && digits(&w[1..])) {
        return "P".into();
    }
    if w.starts_with("0x") {
        return if branch { "T" } else { "I" }.into();
    }
    w.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys() {
        assert_eq!(
            variant_key("@!P0 IADD R4.CC, -R0, c[0x0][0x148];"),
            "@P IADD R.CC, -R, c[I][I]"
        );
        assert_eq!(
            variant_key("ISETP.NE.U32.AND P0, PT, R4, RZ, !PT;"),
            "ISETP.NE.U32.AND P, P, R, R, !P"
        );
        assert_eq!(variant_key("LD.E R0, [R2+0x4];"), "LD.E R, [R+I]");
        assert_eq!(variant_key("LD.E R0, [R2+-0x4];"), "LD.E R, [R+I]");
        assert_eq!(variant_key("FADD R0, -|R1|, 0.5;"), "FADD R, -|R|, F");
        assert_eq!(variant_key("FADD32I R0, R1, -INF;"), "FADD32I R, R, F");
        assert_eq!(variant_key("IADD32I R0, R1, -0x7;"), "IADD32I R, R, I");
        assert_eq!(variant_key("S2R R0, SR_TID.X;"), "S2R R, SR_TID.X");
        assert_eq!(variant_key("@P0 BRA 0x48;"), "@P BRA T");
        assert_eq!(variant_key("BRA `(.L_x_0);"), "BRA T");
        assert_eq!(variant_key("EXIT;"), "EXIT");
        assert_eq!(
            variant_key("I2F.F32.S32.RP R0, |c[0x0] [0x148]|;"),
            "I2F.F32.S32.RP R, |c[I][I]|"
        );
        assert_eq!(variant_key("BRX R0 -0x10;"), "BRX R T");
        assert_eq!(variant_key("FADD R0, R1, +QNAN ;"), "FADD R, R, F");
        assert_eq!(variant_key("LOP.AND R0, ~R1, R2;"), "LOP.AND R, ~R, R");
        assert_eq!(
            base_mnemonic("@P0 ISETP.GE.AND P0, PT, R2, R3, PT;"),
            "ISETP"
        );
    }
}
