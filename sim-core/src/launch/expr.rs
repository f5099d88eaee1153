//! The integer expressions of launch files (`"(n + 255) / 256"`).

use std::collections::BTreeMap;

/// Evaluates an integer expression: `+ - * / %`, parentheses, unary minus,
/// `min(a, b)`, `max(a, b)`, integer literals and variables.
pub fn eval(e: &str, vars: &BTreeMap<String, i64>) -> Result<i64, String> {
    let toks = tokenize(e)?;
    let mut p = Parser {
        toks: &toks,
        i: 0,
        vars,
        depth: 0,
    };
    let v = p.expr()?;
    if p.i != toks.len() {
        return Err(format!("unexpected `{}`", toks[p.i]));
    }
    Ok(v)
}

fn tokenize(e: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = e.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(cs[s..i].iter().collect());
        } else if "+-*/%(),".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

/// The deepest nesting of parentheses, `min`/`max` and unary minus an
/// expression may have.
const MAX_DEPTH: u32 = 64;

struct Parser<'a> {
    toks: &'a [String],
    i: usize,
    vars: &'a BTreeMap<String, i64>,
    /// Nesting so far.
    depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn expr(&mut self) -> Result<i64, String> {
        let mut v = self.term()?;
        while let Some(op) = self.peek() {
            let op = op.to_string();
            if op != "+" && op != "-" {
                break;
            }
            self.i += 1;
            let r = self.term()?;
            v = if op == "+" {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or("overflow")?;
        }
        Ok(v)
    }
    fn term(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        while let Some(op) = self.peek() {
            let op = op.to_string();
            if op != "*" && op != "/" && op != "%" {
                break;
            }
            self.i += 1;
            let r = self.unary()?;
            v = match op.as_str() {
                "*" => v.checked_mul(r).ok_or("overflow")?,
                _ if r == 0 => return Err("division by zero".into()),
                "/" => v.checked_div(r).ok_or("overflow")?,
                _ => v.checked_rem(r).ok_or("overflow")?,
            };
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<i64, String> {
        if self.peek() == Some("-") {
            self.i += 1;
            self.deeper()?;
            let v = self.unary()?.checked_neg().ok_or("overflow")?;
            self.depth -= 1;
            return Ok(v);
        }
        self.atom()
    }
    /// Counts one more level of nesting, refusing more than [`MAX_DEPTH`]
    /// (the parser recurses; a deep enough text would overflow the stack).
    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }
    fn atom(&mut self) -> Result<i64, String> {
        let t = self.peek().ok_or("unexpected end")?.to_string();
        self.i += 1;
        if t == "(" {
            self.deeper()?;
            let v = self.expr()?;
            self.depth -= 1;
            if self.peek() != Some(")") {
                return Err("missing `)`".into());
            }
            self.i += 1;
            return Ok(v);
        }
        if t == "min" || t == "max" {
            if self.peek() != Some("(") {
                return Err(format!("`{t}` needs (a, b)"));
            }
            self.i += 1;
            self.deeper()?;
            let a = self.expr()?;
            if self.peek() != Some(",") {
                return Err(format!("`{t}` needs two arguments"));
            }
            self.i += 1;
            let b = self.expr()?;
            if self.peek() != Some(")") {
                return Err("missing `)`".into());
            }
            self.i += 1;
            self.depth -= 1;
            return Ok(if t == "min" { a.min(b) } else { a.max(b) });
        }
        if let Some(h) = t.strip_prefix("0x") {
            return i64::from_str_radix(h, 16).map_err(|_| format!("bad number `{t}`"));
        }
        if t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return t.parse().map_err(|_| format!("bad number `{t}`"));
        }
        self.vars
            .get(&t)
            .copied()
            .ok_or_else(|| format!("unknown variable `{t}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions() {
        let mut v = BTreeMap::new();
        v.insert("n".to_string(), 1000);
        assert_eq!(eval("(n + 255) / 256", &v), Ok(4));
        assert_eq!(eval("n*n - -1", &v), Ok(1_000_001));
        assert_eq!(eval("max(n % 7, 3)", &v), Ok(6));
        assert!(eval("m", &v).unwrap_err().contains("unknown variable `m`"));
        assert!(eval("n / 0", &v).is_err());
        let min = "(0 - 9223372036854775807 - 1)";
        for e in [
            format!("{min} / (0 - 1)"),
            format!("{min} % (0 - 1)"),
            format!("-{min}"),
        ] {
            assert_eq!(eval(&e, &v), Err("overflow".to_string()), "{e}");
        }
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(eval(&deep, &v).unwrap_err().contains("nested more than 64"));
        assert!(eval(&format!("{}1", "-".repeat(1000)), &v).is_err());
        assert_eq!(
            eval(&format!("{}1{}", "(".repeat(60), ")".repeat(60)), &v),
            Ok(1)
        );
    }
}
