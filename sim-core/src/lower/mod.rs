//! Lowering: an instruction's syntax to the [`Op`] the executor runs.
//!
//! Operand order follows nvdisasm's text (destinations first). Anything this
//! does not recognise becomes [`Kind::Unsupported`] with the reason: a kernel
//! that holds such an instruction still loads, and executing it is an error
//! that names the instruction.

use sim_isa::render::Value;

use crate::op::*;
use crate::sass::{OpndKind, Syntax};

mod control;
mod float;
mod integer;
mod memory;

/// Lowers one instruction's syntax. `float_bits` are the exact bits of its float
/// immediates in text order (from the decoded fields); its branch targets
/// are absolute already.
pub fn lower(s: &Syntax, float_bits: &[Value]) -> Result<Op, String> {
    let mut op = Op::filler(Kind::Nop);
    if let Some((p, n)) = s.guard {
        op.guard = (p, n);
    }
    op.sync = s.has("S");
    let mut cx = Cx::new(s, float_bits);
    // Each family lowers its own mnemonics and passes on the others.
    for family in [integer::kind, float::kind, memory::kind, control::kind] {
        if let Some(kind) = family(&mut cx, &mut op)? {
            op.kind = kind;
            return Ok(op);
        }
    }
    Err(format!("{} is not modelled", s.mnemonic))
}

/// One instruction being lowered: its syntax, what its modifiers say, and its
/// float immediates' exact bits, taken in text order as operands convert.
struct Cx<'s, 'f> {
    s: &'s Syntax,
    mn: &'s str,
    fl: std::slice::Iter<'f, Value>,
    rnd: Rnd,
    ftz: bool,
    sat: bool,
    bop: BoolOp,
    cmp: Cmp,
    unsigned: bool,
}

impl<'s, 'f> Cx<'s, 'f> {
    fn new(s: &'s Syntax, float_bits: &'f [Value]) -> Cx<'s, 'f> {
        let m = |x: &str| s.has(x);
        let rnd = if m("RM") {
            Rnd::Rm
        } else if m("RP") {
            Rnd::Rp
        } else if m("RZ") {
            Rnd::Rz
        } else {
            Rnd::Rn
        };
        let bop = if m("OR") {
            BoolOp::Or
        } else if m("XOR") {
            BoolOp::Xor
        } else {
            BoolOp::And
        };
        Cx {
            s,
            mn: s.mnemonic.as_str(),
            fl: float_bits.iter(),
            rnd,
            ftz: m("FTZ"),
            sat: m("SAT"),
            bop,
            cmp: s.mods.iter().find_map(|x| cmp_of(x)).unwrap_or(Cmp::T),
            unsigned: m("U32"),
        }
    }

    /// Operand `i` (beyond the destinations, which each family picks) as a
    /// source.
    fn conv(&mut self, i: usize) -> Result<Operand, String> {
        let o = self
            .s
            .operands
            .get(i)
            .ok_or_else(|| format!("operand {} missing", i + 1))?;
        let sel = o
            .suffix
            .iter()
            .find_map(|x| match x.as_str() {
                "B0" | "H0" => Some(0),
                "B1" | "H1" => Some(1),
                "B2" => Some(2),
                "B3" => Some(3),
                _ => None,
            })
            .unwrap_or(0);
        let src = match &o.kind {
            OpndKind::Reg(r) => Src::Reg(*r),
            OpndKind::Pred(p) => Src::Pred(*p),
            OpndKind::Int(v) => Src::Imm(*v as u32),
            OpndKind::Float(f) => match self.fl.next() {
                Some(Value::F32(b)) => Src::Imm(*b),
                Some(Value::F64(b)) => Src::Imm((*b >> 32) as u32),
                _ => Src::Imm((*f as f32).to_bits()),
            },
            OpndKind::CBank { bank, offset } => Src::Const {
                bank: *bank,
                offset: *offset as u32,
            },
            OpndKind::CIndex { bank, reg, offset } => Src::ConstIdx {
                bank: *bank,
                reg: *reg,
                offset: *offset as i32,
            },
            other => return Err(format!("unexpected operand `{other}`")),
        };
        Ok(Operand {
            src,
            neg: o.neg,
            abs: o.abs,
            not: o.not,
            sel,
        })
    }

    /// Operand `i`, a register.
    fn reg(&self, i: usize) -> Result<u8, String> {
        match self.s.operands.get(i).map(|o| &o.kind) {
            Some(OpndKind::Reg(r)) => Ok(*r),
            other => Err(format!(
                "operand {} should be a register, is {other:?}",
                i + 1
            )),
        }
    }

    /// Operand `i`, a predicate.
    fn pred(&self, i: usize) -> Result<u8, String> {
        match self.s.operands.get(i).map(|o| &o.kind) {
            Some(OpndKind::Pred(p)) => Ok(*p),
            other => Err(format!(
                "operand {} should be a predicate, is {other:?}",
                i + 1
            )),
        }
    }

    /// Whether operand `i` writes the condition code (`.CC`).
    fn dst_cc(&self, i: usize) -> bool {
        self.s
            .operands
            .get(i)
            .is_some_and(|o| o.suffix.iter().any(|x| x == "CC"))
    }

    /// Operand `i`, a branch target, as a slot.
    fn target(&self, i: usize) -> Result<u32, String> {
        match self.s.operands.get(i).map(|o| &o.kind) {
            // A target at a control word means the instruction after it.
            Some(OpndKind::Int(v)) if *v >= 0 && v % 8 == 0 => {
                let slot = (*v / 8) as u32;
                Ok(if slot.is_multiple_of(8) {
                    slot + 1
                } else {
                    slot
                })
            }
            other => Err(format!("bad branch target {}", crate::sass::shown(other))),
        }
    }

    /// The standard shape: a register destination (with `.CC`), then `n`
    /// sources.
    fn rd_srcs(&mut self, op: &mut Op, n: usize) -> Result<(), String> {
        op.d0 = self.reg(0)?;
        op.cc = self.dst_cc(0);
        for k in 0..n {
            op.src[k] = self.conv(k + 1)?;
        }
        Ok(())
    }

    /// A set-predicate's shape: two predicate destinations, then `n`
    /// sources.
    fn setp(&mut self, op: &mut Op, n: usize) -> Result<(), String> {
        op.d0 = self.pred(0)?;
        op.pred_dst = true;
        op.d1 = self.pred(1)?;
        for k in 0..n {
            op.src[k] = self.conv(k + 2)?;
        }
        Ok(())
    }
}

fn reg_op(r: u8) -> Operand {
    Operand {
        src: Src::Reg(r),
        ..Operand::NONE
    }
}

fn mem(o: Option<&crate::sass::Operand>) -> Result<(u8, i64), String> {
    match o.map(|o| &o.kind) {
        Some(OpndKind::Mem { reg, offset }) => Ok((*reg, *offset)),
        other => Err(format!(
            "expected a memory operand, found {}",
            crate::sass::shown(other)
        )),
    }
}

fn width(s: &Syntax) -> Width {
    for x in &s.mods {
        match x.as_str() {
            "U8" => return Width::U8,
            "S8" => return Width::S8,
            "U16" => return Width::U16,
            "S16" => return Width::S16,
            "64" => return Width::B64,
            "128" => return Width::B128,
            _ => {}
        }
    }
    Width::B32
}

fn cmp_of(x: &str) -> Option<Cmp> {
    Some(match x {
        "F" => Cmp::F,
        "LT" => Cmp::Lt,
        "EQ" => Cmp::Eq,
        "LE" => Cmp::Le,
        "GT" => Cmp::Gt,
        "NE" => Cmp::Ne,
        "GE" => Cmp::Ge,
        "T" => Cmp::T,
        "NUM" => Cmp::Num,
        "NAN" => Cmp::Nan,
        "LTU" => Cmp::Ltu,
        "EQU" => Cmp::Equ,
        "LEU" => Cmp::Leu,
        "GTU" => Cmp::Gtu,
        "NEU" => Cmp::Neu,
        "GEU" => Cmp::Geu,
        _ => return None,
    })
}

fn cc_test(x: &str) -> Option<CcTest> {
    Some(match x {
        "T" => CcTest::T,
        "F" => CcTest::F,
        "LT" | "LTU" => CcTest::Lt,
        "EQ" | "EQU" => CcTest::Eq,
        "LE" | "LEU" => CcTest::Le,
        "GT" | "GTU" => CcTest::Gt,
        "NE" | "NEU" => CcTest::Ne,
        "GE" | "GEU" => CcTest::Ge,
        "LO" => CcTest::Lo,
        "LS" => CcTest::Ls,
        "HI" => CcTest::Hi,
        "HS" => CcTest::Hs,
        "OFF" => CcTest::Off,
        "OFT" => CcTest::Oft,
        "SFF" => CcTest::Sff,
        "SFT" => CcTest::Sft,
        "CFF" => CcTest::Cff,
        "CFT" => CcTest::Cft,
        _ => return None,
    })
}

fn num_type(x: &str) -> Option<NumType> {
    Some(match x {
        "U8" => NumType::U8,
        "S8" => NumType::S8,
        "U16" => NumType::U16,
        "S16" => NumType::S16,
        "U32" => NumType::U32,
        "S32" => NumType::S32,
        "U64" => NumType::U64,
        "S64" => NumType::S64,
        "F16" => NumType::F16,
        "F32" => NumType::F32,
        "F64" => NumType::F64,
        _ => return None,
    })
}

fn sreg(name: &str) -> Option<SReg> {
    Some(match name {
        "SR_LANEID" => SReg::LaneId,
        "SR_TID.X" => SReg::TidX,
        "SR_TID.Y" => SReg::TidY,
        "SR_TID.Z" => SReg::TidZ,
        "SR_TID" => SReg::Tid,
        "SR_CTAID.X" => SReg::CtaidX,
        "SR_CTAID.Y" => SReg::CtaidY,
        "SR_CTAID.Z" => SReg::CtaidZ,
        "SR_NTID.X" => SReg::NtidX,
        "SR_NTID.Y" => SReg::NtidY,
        "SR_NTID.Z" => SReg::NtidZ,
        "SR_NCTAID.X" => SReg::NctaidX,
        "SR_NCTAID.Y" => SReg::NctaidY,
        "SR_NCTAID.Z" => SReg::NctaidZ,
        "SR_CLOCKLO" => SReg::ClockLo,
        "SR_CLOCKHI" => SReg::ClockHi,
        "SR_CLOCK" => SReg::Clock64Lo,
        "SR_SMID" => SReg::SmId,
        "SR_VIRTID" => SReg::VirtId,
        "SR_WARPID" => SReg::WarpId,
        "SR_NWARPID" => SReg::NWarpId,
        "SR_GRIDID" => SReg::GridId,
        "SR_EQMASK" | "SR_LANEMASK_EQ" => SReg::LaneMaskEq,
        "SR_LTMASK" | "SR_LANEMASK_LT" => SReg::LaneMaskLt,
        "SR_LEMASK" | "SR_LANEMASK_LE" => SReg::LaneMaskLe,
        "SR_GTMASK" | "SR_LANEMASK_GT" => SReg::LaneMaskGt,
        "SR_GEMASK" | "SR_LANEMASK_GE" => SReg::LaneMaskGe,
        "SR_VIRTCFG" => SReg::VirtCfg,
        "SRZ" | "SR_ZERO" => SReg::Zero,
        "SR_SMEMSZ" => SReg::SmemSz,
        // The functional model's only clock is its instruction count.
        "SR_GLOBALTIMERLO" => SReg::ClockLo,
        "SR_GLOBALTIMERHI" => SReg::ClockHi,
        // Performance-monitor counters: no counters run in the functional model.
        "SR_PM0" | "SR_PM1" | "SR_PM2" | "SR_PM3" | "SR_PM4" | "SR_PM5" | "SR_PM6" | "SR_PM7" => {
            SReg::Zero
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn low(t: &str) -> Op {
        lower(&Syntax::parse(t).unwrap(), &[]).unwrap()
    }

    #[test]
    fn lowers_common_forms() {
        let o = low("@!P1 IMAD.U32.U32.HI.X R10, R3, c[0x0][0x28], R14;");
        assert_eq!(o.guard, (1, true));
        assert_eq!(o.d0, 10);
        assert!(matches!(
            o.kind,
            Kind::IMad {
                sa: false,
                sb: false,
                hi: true,
                x: true,
                mad: true,
                ..
            }
        ));
        assert_eq!(
            o.src[1].src,
            Src::Const {
                bank: 0,
                offset: 0x28
            }
        );
        let o = low("ISETP.GE.AND P0, PT, R0, c[0x0][0x150], PT;");
        assert_eq!((o.d0, o.d1), (0, 7));
        assert!(matches!(
            o.kind,
            Kind::ISetP {
                cmp: Cmp::Ge,
                signed: true,
                ..
            }
        ));
        let o = low("LDS.U.128 R4, [R2+0x10];");
        assert!(matches!(
            o.kind,
            Kind::Ld {
                space: Space::Shared,
                w: Width::B128
            }
        ));
        assert_eq!(o.imm, 0x10);
        let o = low("@P0 BRA 0x68;");
        assert_eq!(o.target, 0x68 / 8);
        let o = low("NOP.S;");
        assert!(o.sync);
        let o = low("STL.128 [R1+0x10], R4;");
        assert_eq!(o.src[1].src, Src::Reg(4));
    }

    #[test]
    fn lowers_the_64_bit_min_max_pair() {
        let o = low("IMNMX.U32.XHI R7.CC, R3, R5, !PT;");
        assert!(matches!(
            o.kind,
            Kind::IMnMx {
                signed: false,
                xlo: false,
                xhi: true
            }
        ));
        assert!(o.cc);
        let o = low("IMNMX.U32.XLO R6, R2, R4, PT;");
        assert!(matches!(
            o.kind,
            Kind::IMnMx {
                signed: false,
                xlo: true,
                xhi: false
            }
        ));
    }

    #[test]
    fn wide_shared_lock_pairs() {
        assert!(matches!(
            low("LDSLK.64 P0, R4, [RZ];").kind,
            Kind::LdsLk { wide: true }
        ));
        assert!(matches!(
            low("STSCUL P0, [R6], R5;").kind,
            Kind::StsCul { wide: false }
        ));
    }

    #[test]
    fn signed_64_bit_atomics() {
        let o = low("ATOM.E.MIN.S64 R2, [R6], R2;");
        assert!(matches!(
            o.kind,
            Kind::Atom {
                op: AtomOp::Min,
                ty: AtomType::S64,
                ..
            }
        ));
    }

    #[test]
    fn half_immediates_are_held_as_halves() {
        let i = sim_isa::decode::decode(
            sim_isa::encode::assemble("F2I.U8.F16 R30, 1;", 8).expect("encodes"),
        )
        .expect("decodes");
        let op = lower(
            &Syntax::parse(&i.text(8)).unwrap(),
            &crate::sass::float_fields(&i, 8),
        )
        .unwrap();
        assert_eq!(op.src[0].src, Src::Imm(0x3c00));
    }

    #[test]
    fn unknown_instructions_are_reasons_not_panics() {
        assert!(lower(&Syntax::parse("FROB R0;").unwrap(), &[]).is_err());
        assert!(lower(&Syntax::parse("IADD R0;").unwrap(), &[]).is_err());
    }
}
