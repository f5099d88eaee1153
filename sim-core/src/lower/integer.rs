//! Lowering the integer instructions: moves, adds, multiplies, shifts, bit
//! fields, logic, comparisons and selects, and the predicate and
//! condition-code ones (`PSETP`, `P2R`, `R2P`, `CSETP`).

use super::*;

/// The [`Kind`] of `cx`'s instruction, its operands set in `op`, if it is one
/// of this family's (`None`: another family's).
pub(super) fn kind(cx: &mut Cx, op: &mut Op) -> Result<Option<Kind>, String> {
    let s = cx.s;
    let ops = &s.operands;
    let m = |x: &str| s.has(x);
    let (mn, sat, bop, cmp, unsigned) = (cx.mn, cx.sat, cx.bop, cx.cmp, cx.unsigned);
    Ok(Some(match mn {
        "MOV" => {
            cx.rd_srcs(op, 1)?;
            Kind::Mov
        }
        "MOV32I" => {
            cx.rd_srcs(op, 1)?;
            Kind::Mov
        }
        "IADD" | "IADD32I" => {
            cx.rd_srcs(op, 2)?;
            Kind::IAdd { x: m("X"), sat }
        }
        "ISUB" => {
            // a - b is a + (-b): the adder's one's complement and carry-in.
            cx.rd_srcs(op, 2)?;
            op.src[1].neg = !op.src[1].neg;
            Kind::IAdd { x: m("X"), sat }
        }
        "ISCADD" | "ISCADD32I" => {
            cx.rd_srcs(op, 2)?;
            let sh = match ops.get(3).map(|o| &o.kind) {
                Some(OpndKind::Int(v)) => *v as u8,
                other => return Err(format!("bad ISCADD shift {}", crate::sass::shown(other))),
            };
            op.imm = sh as i64;
            Kind::IScAdd { shift: sh }
        }
        "IMUL" | "IMUL32I" | "IMAD" | "IMAD32I" => {
            let mad = mn.starts_with("IMAD");
            cx.rd_srcs(op, if mad { 3 } else { 2 })?;
            // Types: `.U32.U32`, `.S32.U32`...: first is a's, second b's; none
            // printed means signed.
            let tys: Vec<bool> = s
                .mods
                .iter()
                .filter_map(|x| match x.as_str() {
                    "U32" => Some(false),
                    "S32" => Some(true),
                    _ => None,
                })
                .collect();
            let (sa, sb) = match tys.as_slice() {
                [] => (true, true),
                [a] => (*a, *a),
                [a, b, ..] => (*a, *b),
            };
            Kind::IMad {
                sa,
                sb,
                hi: m("HI"),
                x: m("X"),
                sat,
                mad,
            }
        }
        "IMADSP" => {
            cx.rd_srcs(op, 3)?;
            let tys: Vec<SubWord> = s
                .mods
                .iter()
                .filter_map(|x| {
                    Some(match x.as_str() {
                        "U32" => SubWord::U32,
                        "S32" => SubWord::S32,
                        "U24" => SubWord::U24,
                        "S24" => SubWord::S24,
                        "U16H0" => SubWord::U16H0,
                        "S16H0" => SubWord::S16H0,
                        "U16H1" => SubWord::U16H1,
                        "S16H1" => SubWord::S16H1,
                        _ => return None,
                    })
                })
                .collect();
            let [ta, tb, tc] = tys.as_slice() else {
                return Err(format!("IMADSP.{} is not modelled", s.mods.join(".")));
            };
            Kind::IMadSp {
                ta: *ta,
                tb: *tb,
                tc: *tc,
            }
        }
        "ISAD" => {
            cx.rd_srcs(op, 3)?;
            Kind::ISad { signed: !unsigned }
        }
        "IMNMX" => {
            cx.rd_srcs(op, 3)?;
            Kind::IMnMx {
                signed: !unsigned,
                xlo: m("XLO"),
                xhi: m("XHI"),
            }
        }
        "ISETP" => {
            cx.setp(op, 3)?;
            Kind::ISetP {
                cmp,
                signed: !unsigned,
                x: m("X"),
                bop,
            }
        }
        "ISET" => {
            cx.rd_srcs(op, 3)?;
            Kind::ISet {
                cmp,
                signed: !unsigned,
                x: m("X"),
                bop,
                bf: m("BF"),
            }
        }
        "ICMP" => {
            cx.rd_srcs(op, 3)?;
            Kind::ICmp {
                cmp,
                signed: !unsigned,
            }
        }
        "LOP" | "LOP32I" => {
            cx.rd_srcs(op, 2)?;
            let o = if m("AND") {
                0
            } else if m("OR") {
                1
            } else if m("XOR") {
                2
            } else if m("PASS_B") {
                3
            } else {
                return Err("LOP without an operation".into());
            };
            Kind::Lop { op: o }
        }
        "SHL" => {
            cx.rd_srcs(op, 2)?;
            Kind::Shl { wrap: m("W") }
        }
        "SHR" => {
            cx.rd_srcs(op, 2)?;
            Kind::Shr {
                signed: !unsigned,
                wrap: m("W"),
            }
        }
        "SHF" => {
            cx.rd_srcs(op, 3)?;
            Kind::Shf {
                right: m("R"),
                wrap: m("W"),
                hi: m("HI"),
                wide: m("U64") || m("S64"),
                signed: m("S64") || m("S32"),
            }
        }
        "BFE" => {
            cx.rd_srcs(op, 2)?;
            Kind::Bfe {
                signed: !unsigned,
                brev: m("BREV"),
            }
        }
        "BFI" => {
            cx.rd_srcs(op, 3)?;
            Kind::Bfi
        }
        "POPC" => {
            // `POPC Rd, Rb` or `POPC Rd, Ra, Rb`.
            if ops.len() == 2 {
                cx.rd_srcs(op, 1)?;
                op.src[1] = op.src[0];
                op.src[0] = Operand {
                    src: Src::Imm(u32::MAX),
                    ..Operand::NONE
                };
            } else {
                cx.rd_srcs(op, 2)?;
            }
            Kind::Popc
        }
        "FLO" => {
            cx.rd_srcs(op, 1)?;
            Kind::Flo {
                signed: !unsigned,
                sh: m("SH"),
            }
        }
        "PRMT" => {
            cx.rd_srcs(op, 3)?;
            let mode = ["F4E", "B4E", "RC8", "ECL", "ECR", "RC16"]
                .iter()
                .position(|x| m(x))
                .map_or(0, |p| p as u8 + 1);
            Kind::Prmt { mode }
        }
        "SEL" => {
            cx.rd_srcs(op, 3)?;
            Kind::Sel
        }
        "PSETP" => {
            cx.setp(op, 2)?;
            // `PSETP.AND.OR P0, PT, P1, P2, P3`: (a bop1 b) bop2 c.
            op.src[2] = cx.conv(4)?;
            let bops: Vec<BoolOp> = s
                .mods
                .iter()
                .filter_map(|x| match x.as_str() {
                    "AND" => Some(BoolOp::And),
                    "OR" => Some(BoolOp::Or),
                    "XOR" => Some(BoolOp::Xor),
                    _ => None,
                })
                .collect();
            let (b1, b2) = match bops.as_slice() {
                [a, b] => (*a, *b),
                [a] => (*a, BoolOp::And),
                _ => (BoolOp::And, BoolOp::And),
            };
            Kind::PSetP { bop1: b1, bop2: b2 }
        }
        "P2R" => {
            // `P2R R0, PR, R0, 0x7f`: the PR operand is verbatim.
            op.d0 = cx.reg(0)?;
            op.src[0] = cx.conv(2)?;
            op.src[1] = cx.conv(3)?;
            Kind::P2R
        }
        "R2P" => {
            // `R2P PR, R0, 0x7f`.
            op.src[0] = cx.conv(1)?;
            op.src[1] = cx.conv(2)?;
            Kind::R2P
        }
        "CSETP" => {
            // `CSETP.NEU.AND P0, PT, CC, PT`.
            op.d0 = cx.pred(0)?;
            op.pred_dst = true;
            op.d1 = cx.pred(1)?;
            let test = s
                .mods
                .first()
                .and_then(|t| cc_test(t))
                .ok_or_else(|| format!("CSETP: unknown test {:?}", s.mods))?;
            op.src[0] = cx.conv(3)?;
            Kind::CSetP { test, bop }
        }
        _ => return Ok(None),
    }))
}
