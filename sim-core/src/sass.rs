//! Reading an instruction's nvdisasm text as syntax: guard, mnemonic, modifiers
//! and operands.
//!
//! The simulator learns what an instruction *means* from the text NVIDIA's
//! disassembler prints for it (which `sim-isa`'s cracked table reproduces
//! exactly), not from bit positions: encodings live only in the table, and the
//! text is the documented, stable interface between the two. This module knows
//! nvdisasm's operand spelling; `lower` gives the pieces their meaning.

use sim_isa::decode::Instruction;
use sim_isa::render::Value;

/// One instruction, as syntax.
#[derive(Debug, Clone, PartialEq)]
pub struct Syntax {
    /// `@P0` / `@!P0`: predicate and negation.
    pub guard: Option<(u8, bool)>,
    /// The base mnemonic, `FFMA`.
    pub mnemonic: String,
    /// The dot-separated modifiers after it, in order: `["FTZ", "RM"]`.
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
}

/// One operand with its decorations.
#[derive(Debug, Clone, PartialEq)]
pub struct Operand {
    pub kind: OpndKind,
    /// A leading `-`.
    pub neg: bool,
    /// A leading `!` (predicates) or `~` (bitwise not).
    pub not: bool,
    /// Inside `|...|`.
    pub abs: bool,
    /// Suffixes after a register: `CC`, `B2`, `H1`, `reuse`...
    pub suffix: Vec<String>,
}

/// What an operand is.
#[derive(Debug, Clone, PartialEq)]
pub enum OpndKind {
    /// `R0`..`R254`; 255 is `RZ`.
    Reg(u8),
    /// `P0`..`P6`; 7 is `PT`.
    Pred(u8),
    /// An integer immediate (also a branch target, printed as an address).
    Int(i64),
    /// A float immediate, as the text's value (the exact bits of a decoded
    /// one reach [`crate::lower::lower`] beside it).
    Float(f64),
    /// `c[bank][offset]`.
    CBank { bank: u8, offset: i64 },
    /// `c[bank][Rn+offset]`.
    CIndex { bank: u8, reg: u8, offset: i64 },
    /// `[Rn+offset]`, `[offset]` (register 255): a memory address.
    Mem { reg: u8, offset: i64 },
    /// `SR_TID.X` and the like, by name.
    Special(String),
    /// `BRX R2 -0x1e8`: register plus offset.
    RegJump { reg: u8, offset: i64 },
    /// Anything else, verbatim (texture operands, `0x0` barrier counts...).
    Other(String),
}

impl std::fmt::Display for OpndKind {
    /// As nvdisasm prints it, near enough for an error: `R3`, `RZ`, `P2`,
    /// `0x10`, `c[0x0][0x140]`, `[R2+0x8]`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let reg = |r: u8| match r {
            255 => "RZ".to_string(),
            r => format!("R{r}"),
        };
        let plus = |o: i64| match o {
            0 => String::new(),
            o if o < 0 => format!("-{:#x}", o.unsigned_abs()),
            o => format!("+{o:#x}"),
        };
        match self {
            OpndKind::Reg(r) => write!(f, "{}", reg(*r)),
            OpndKind::Pred(7) => write!(f, "PT"),
            OpndKind::Pred(p) => write!(f, "P{p}"),
            OpndKind::Int(i) if *i < 0 => write!(f, "-{:#x}", i.unsigned_abs()),
            OpndKind::Int(i) => write!(f, "{i:#x}"),
            OpndKind::Float(x) => write!(f, "{x}"),
            OpndKind::CBank { bank, offset } => write!(f, "c[{bank:#x}][{offset:#x}]"),
            OpndKind::CIndex {
                bank,
                reg: r,
                offset,
            } => {
                write!(f, "c[{bank:#x}][{}{}]", reg(*r), plus(*offset))
            }
            OpndKind::Mem { reg: 255, offset } => write!(f, "[{offset:#x}]"),
            OpndKind::Mem { reg: r, offset } => write!(f, "[{}{}]", reg(*r), plus(*offset)),
            OpndKind::RegJump { reg: r, offset } => write!(f, "{} {offset:#x}", reg(*r)),
            OpndKind::Special(t) | OpndKind::Other(t) => write!(f, "{t}"),
        }
    }
}

/// An operand that may be missing, for an error: `` `R3` `` or `nothing`.
pub fn shown(o: Option<&OpndKind>) -> String {
    o.map_or_else(|| "nothing".to_string(), |k| format!("`{k}`"))
}

/// Why a text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot read operand `{0}`")]
pub struct SyntaxError(pub String);

impl Syntax {
    /// Reads `text` (`@!P0 FFMA.FTZ R3, -R2, R3, c[0x0][0x154];`).
    pub fn parse(text: &str) -> Result<Syntax, SyntaxError> {
        let t = text.trim().trim_end_matches(';').trim();
        let (guard, rest) = match t.strip_prefix('@') {
            Some(r) => {
                let (g, rest) = r.split_once(' ').ok_or_else(|| SyntaxError(t.into()))?;
                let (neg, p) = match g.strip_prefix('!') {
                    Some(p) => (true, p),
                    None => (false, g),
                };
                (
                    Some((pred_num(p).ok_or_else(|| SyntaxError(g.into()))?, neg)),
                    rest.trim_start(),
                )
            }
            None => (None, t),
        };
        let (head, ops) = match rest.split_once(' ') {
            Some((h, o)) => (h, o.trim()),
            None => (rest, ""),
        };
        let mut parts = head.split('.');
        let mnemonic = parts.next().unwrap_or_default().to_string();
        let mods = parts.map(str::to_string).collect();
        let mut operands = Vec::new();
        if !ops.is_empty() {
            for o in split_operands(ops) {
                operands.push(parse_operand(o.trim())?);
            }
        }
        Ok(Syntax {
            guard,
            mnemonic,
            mods,
            operands,
        })
    }

    /// Reads a decoded instruction's text, taking float immediates' exact bits
    /// from the instruction's fields (text loses NaN payloads).
    pub fn of(inst: &Instruction, addr: u64) -> Result<Syntax, SyntaxError> {
        Syntax::parse(&inst.text(addr))
    }

    /// Whether modifier `m` is present.
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

/// The exact IEEE bits of each float immediate of `inst`, in text order.
pub fn float_fields(inst: &Instruction, addr: u64) -> Vec<Value> {
    inst.fields(addr)
        .map(|f| f.value)
        .filter(|v| matches!(v, Value::F32(_) | Value::F64(_)))
        .collect()
}

fn pred_num(p: &str) -> Option<u8> {
    if p == "PT" {
        return Some(7);
    }
    let n: u8 = p.strip_prefix('P')?.parse().ok()?;
    (n < 7).then_some(n)
}

fn reg_num(r: &str) -> Option<u8> {
    if r == "RZ" {
        return Some(255);
    }
    let n: u16 = r.strip_prefix('R')?.parse().ok()?;
    (n < 255).then_some(n as u8)
}

/// Splits on commas outside brackets.
fn split_operands(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in s.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

fn parse_int(s: &str) -> Option<i64> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = i64::from_str_radix(s.strip_prefix("0x")?, 16)
        .ok()
        .or_else(|| {
            u64::from_str_radix(s.strip_prefix("0x")?, 16)
                .ok()
                .map(|u| u as i64)
        })?;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// `R2`, `R2+0x10`, `R2+-0x3`, `0x10`, `-0x4`.
fn parse_addr(s: &str) -> Option<(u8, i64)> {
    let s = s.trim();
    if let Some(off) = parse_int(s) {
        return Some((255, off));
    }
    match s.split_once('+') {
        Some((r, off)) => Some((
            reg_num(r.trim().trim_end_matches(".64"))?,
            parse_int(off.trim())?,
        )),
        None => Some((reg_num(s.trim_end_matches(".64"))?, 0)),
    }
}

fn parse_float(s: &str) -> Option<f64> {
    let t = s.trim();
    match t {
        "+INF" => return Some(f64::INFINITY),
        "-INF" => return Some(f64::NEG_INFINITY),
        "+QNAN" | "-QNAN" | "QNAN" | "SNAN" | "+SNAN" | "-SNAN" => return Some(f64::NAN),
        _ => {}
    }
    // Integers always print in hex; a plain decimal (`3`, `252`) is a float
    // immediate with an integral value.
    if t.starts_with("0x")
        || t.starts_with("-0x")
        || !t.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '+')
    {
        return None;
    }
    t.parse().ok()
}

fn parse_operand(o: &str) -> Result<Operand, SyntaxError> {
    let err = || SyntaxError(o.to_string());
    let mut s = o.trim();
    let mut op = Operand {
        kind: OpndKind::Other(String::new()),
        neg: false,
        not: false,
        abs: false,
        suffix: Vec::new(),
    };
    // Floats first: `-0.5`, `+INF ` must not lose their sign to negation.
    if let Some(f) = parse_float(s) {
        op.kind = OpndKind::Float(f);
        return Ok(op);
    }
    if let Some(r) = s.strip_prefix('-') {
        if parse_int(s).is_none() {
            op.neg = true;
            s = r;
        }
    }
    if let Some(r) = s.strip_prefix('!').or_else(|| s.strip_prefix('~')) {
        op.not = true;
        s = r;
    }
    if s.len() >= 2 && s.starts_with('|') && s.ends_with('|') {
        op.abs = true;
        s = &s[1..s.len() - 1];
    }
    if let Some(v) = parse_int(s) {
        op.kind = OpndKind::Int(v);
        return Ok(op);
    }
    if let Some(rest) = s.strip_prefix("c[") {
        let (bank, rest) = rest.split_once(']').ok_or_else(err)?;
        let bank = parse_int(bank.trim()).ok_or_else(err)? as u8;
        let inner = rest
            .trim()
            .strip_prefix('[')
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(err)?
            .trim();
        op.kind = match parse_int(inner) {
            Some(off) => OpndKind::CBank { bank, offset: off },
            None => {
                let (reg, offset) = parse_addr(inner).ok_or_else(err)?;
                OpndKind::CIndex { bank, reg, offset }
            }
        };
        return Ok(op);
    }
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (reg, offset) = parse_addr(inner).ok_or_else(err)?;
        op.kind = OpndKind::Mem { reg, offset };
        return Ok(op);
    }
    if s.starts_with("SR_") {
        op.kind = OpndKind::Special(s.to_string());
        return Ok(op);
    }
    // `R2 -0x1e8` (indirect branch).
    if let Some((r, off)) = s.split_once(' ') {
        if let (Some(reg), Some(offset)) = (reg_num(r), parse_int(off.trim())) {
            op.kind = OpndKind::RegJump { reg, offset };
            return Ok(op);
        }
    }
    let mut parts = s.split('.');
    let head = parts.next().unwrap_or_default();
    if let Some(r) = reg_num(head) {
        op.kind = OpndKind::Reg(r);
        op.suffix = parts.map(str::to_string).collect();
        return Ok(op);
    }
    if let Some(p) = pred_num(head) {
        op.kind = OpndKind::Pred(p);
        op.suffix = parts.map(str::to_string).collect();
        return Ok(op);
    }
    op.kind = OpndKind::Other(s.to_string());
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operands_print_as_sass_in_errors() {
        let cases = [
            (OpndKind::Reg(3), "R3"),
            (OpndKind::Reg(255), "RZ"),
            (OpndKind::Pred(7), "PT"),
            (OpndKind::Pred(2), "P2"),
            (OpndKind::Int(-16), "-0x10"),
            (
                OpndKind::CBank {
                    bank: 0,
                    offset: 0x140,
                },
                "c[0x0][0x140]",
            ),
            (
                OpndKind::CIndex {
                    bank: 3,
                    reg: 4,
                    offset: -8,
                },
                "c[0x3][R4-0x8]",
            ),
            (OpndKind::Mem { reg: 2, offset: 8 }, "[R2+0x8]"),
            (
                OpndKind::Mem {
                    reg: 255,
                    offset: 0x40,
                },
                "[0x40]",
            ),
            (OpndKind::Special("SR_TID.X".into()), "SR_TID.X"),
        ];
        for (k, text) in cases {
            assert_eq!(k.to_string(), text);
        }
        assert_eq!(shown(Some(&OpndKind::Pred(1))), "`P1`");
        assert_eq!(shown(None), "nothing");
    }

    #[test]
    fn reads_guards_modifiers_and_operands() {
        let s = Syntax::parse("@!P0 FFMA.FTZ.RM R3.CC, -R2, |R3|, -c[0x0][0x154];").unwrap();
        assert_eq!(s.guard, Some((0, true)));
        assert_eq!(s.mnemonic, "FFMA");
        assert_eq!(s.mods, ["FTZ", "RM"]);
        assert_eq!(s.operands[0].kind, OpndKind::Reg(3));
        assert_eq!(s.operands[0].suffix, ["CC"]);
        assert!(s.operands[1].neg);
        assert!(s.operands[2].abs);
        assert_eq!(
            s.operands[3].kind,
            OpndKind::CBank {
                bank: 0,
                offset: 0x154
            }
        );
        assert!(s.operands[3].neg);
    }

    #[test]
    #[allow(clippy::excessive_precision)] // nvdisasm's own digits
    fn reads_memory_constants_floats_and_specials() {
        let s = Syntax::parse("LDL R4, [R1+-0x10];").unwrap();
        assert_eq!(
            s.operands[1].kind,
            OpndKind::Mem {
                reg: 1,
                offset: -0x10
            }
        );
        let s = Syntax::parse("LDC R0, c[0x3][R2+0x8];").unwrap();
        assert_eq!(
            s.operands[1].kind,
            OpndKind::CIndex {
                bank: 3,
                reg: 2,
                offset: 8
            }
        );
        let s = Syntax::parse("FMUL32I R3, R9, -0.63661974668502807617;").unwrap();
        assert_eq!(s.operands[2].kind, OpndKind::Float(-0.63661974668502807617));
        let s = Syntax::parse("FSETP.NEU.AND P0, PT, |R9|, +INF , PT;").unwrap();
        assert_eq!(s.operands[3].kind, OpndKind::Float(f64::INFINITY));
        let s = Syntax::parse("DADD R2, R2, 3;").unwrap();
        assert_eq!(s.operands[2].kind, OpndKind::Float(3.0));
        let s = Syntax::parse("FFMA.RM R8, R0, -252, R7;").unwrap();
        assert_eq!(s.operands[2].kind, OpndKind::Float(-252.0));
        let s = Syntax::parse("S2R R0, SR_TID.X;").unwrap();
        assert_eq!(s.operands[1].kind, OpndKind::Special("SR_TID.X".into()));
        let s = Syntax::parse("IMAD R4, R4, -0x14, R0;").unwrap();
        assert_eq!(s.operands[2].kind, OpndKind::Int(-0x14));
        assert!(!s.operands[2].neg);
        let s = Syntax::parse("LD.E R2, [0xfffffffc];").unwrap();
        assert_eq!(
            s.operands[1].kind,
            OpndKind::Mem {
                reg: 255,
                offset: 0xfffffffc
            }
        );
        let s = Syntax::parse("EXIT;").unwrap();
        assert!(s.operands.is_empty());
        let s = Syntax::parse("ISETP.NE.AND P0, PT, R7, 0x6, !P1;").unwrap();
        assert!(s.operands[4].not);
        assert_eq!(s.operands[4].kind, OpndKind::Pred(1));
    }
}
