//! Lowering control flow (branches, the reconvergence stack, calls, `EXIT`),
//! barriers and fences, and the warp-level instructions (`S2R`, `SHFL`,
//! `VOTE`, `NOP`).

use super::*;

/// The [`Kind`] of `cx`'s instruction, its operands set in `op`, if it is one
/// of this family's (`None`: another family's).
pub(super) fn kind(cx: &mut Cx, op: &mut Op) -> Result<Option<Kind>, String> {
    let s = cx.s;
    let ops = &s.operands;
    let m = |x: &str| s.has(x);
    let mn = cx.mn;
    Ok(Some(match mn {
        "NOP" => Kind::Nop,
        "S2R" => {
            op.d0 = cx.reg(0)?;
            let name = match ops.get(1).map(|o| &o.kind) {
                Some(OpndKind::Special(n)) => n.clone(),
                other => return Err(format!("S2R of {}", crate::sass::shown(other))),
            };
            Kind::S2R {
                sr: sreg(&name)
                    .ok_or_else(|| format!("special register {name} is not modelled"))?,
            }
        }
        "SHFL" => {
            // `SHFL.DOWN P0, R3, R2, 0x1, 0x1f`.
            op.d1 = cx.pred(0)?;
            op.d0 = cx.reg(1)?;
            op.src[0] = cx.conv(2)?;
            op.src[1] = cx.conv(3)?;
            op.src[2] = cx.conv(4)?;
            let mode = if m("IDX") {
                ShflMode::Idx
            } else if m("UP") {
                ShflMode::Up
            } else if m("DOWN") {
                ShflMode::Down
            } else if m("BFLY") {
                ShflMode::Bfly
            } else {
                return Err("SHFL without a mode".into());
            };
            Kind::Shfl { mode }
        }
        "VOTE" => {
            // `VOTE.ANY R0, P1, P0` (register: the ballot; predicate: the vote).
            let (rd, pi) = match ops.first().map(|o| &o.kind) {
                Some(OpndKind::Reg(r)) => (*r, 1),
                _ => (255, 0),
            };
            op.d0 = rd;
            op.d1 = cx.pred(pi)?;
            op.src[0] = cx.conv(pi + 1)?;
            let mode = if m("ALL") {
                VoteMode::All
            } else if m("ANY") {
                VoteMode::Any
            } else if m("EQ") {
                VoteMode::Eq
            } else {
                return Err("VOTE without a mode".into());
            };
            Kind::Vote { mode }
        }
        "BRA" | "SSY" | "PBK" | "PCNT" | "PRET" | "CAL" | "JCAL" => {
            // `BRA CC.NEU, 0xd0`: a condition-code test, then the target.
            let (test, ti) = match ops.first().map(|o| &o.kind) {
                Some(OpndKind::Other(t)) if t.starts_with("CC.") => (
                    cc_test(&t[3..]).ok_or_else(|| format!("unknown condition-code test {t}"))?,
                    1,
                ),
                _ => (CcTest::T, 0),
            };
            op.target = cx.target(ti)?;
            match mn {
                "BRA" => Kind::Bra { cc: test },
                "SSY" => Kind::Ssy,
                "PBK" => Kind::Pbk,
                "PCNT" => Kind::Pcnt,
                "PRET" => Kind::Pret,
                _ => Kind::Cal,
            }
        }
        "BRX" | "JMX" => {
            match ops.first().map(|o| &o.kind) {
                Some(OpndKind::RegJump { reg, offset }) => {
                    op.src[0] = reg_op(*reg);
                    op.imm = *offset;
                }
                Some(OpndKind::Reg(r)) => op.src[0] = reg_op(*r),
                other => return Err(format!("bad indirect target {}", crate::sass::shown(other))),
            }
            if mn == "JMX" {
                return Err("JMX is not modelled".into());
            }
            Kind::Brx
        }
        "BRK" => Kind::Brk,
        "CONT" => Kind::Cont,
        "RET" => Kind::Ret,
        "EXIT" => Kind::Exit,
        "BAR" if m("RED") => {
            // `BAR.RED.POPC R8, P0` / `BAR.RED.POPC R10, R10, P0`: the barrier,
            // an optional thread count, the predicate; `B2R.RESULT` reads the
            // result.
            let n = ops.len();
            if !(2..=3).contains(&n) {
                return Err(format!("BAR.RED with {n} operands"));
            }
            op.src[0] = cx.conv(0)?;
            if n == 3 {
                op.src[1] = cx.conv(1)?;
            }
            op.src[2] = cx.conv(n - 1)?;
            let red = if m("POPC") {
                BarRed::Popc
            } else if m("AND") {
                BarRed::And
            } else if m("OR") {
                BarRed::Or
            } else {
                return Err(format!("BAR.{} is not modelled", s.mods.join(".")));
            };
            Kind::BarRed { red }
        }
        "B2R" if m("RESULT") => {
            // `B2R.RESULT R6` or `B2R.RESULT RZ, P0`.
            op.d0 = cx.reg(0)?;
            op.d1 = if ops.len() > 1 { cx.pred(1)? } else { 7 };
            Kind::B2R
        }
        "BAR" => {
            if !(m("SYNC") || m("ARV")) {
                return Err(format!("BAR.{} is not modelled", s.mods.join(".")));
            }
            op.src[0] = cx.conv(0)?;
            if ops.len() > 1 {
                op.src[1] = cx.conv(1)?;
            }
            Kind::Bar {
                arrive_only: m("ARV"),
            }
        }
        "MEMBAR" | "TEXDEPBAR" | "DEPBAR" | "CCTL" | "CCTLL" => Kind::Fence,
        _ => return Ok(None),
    }))
}
