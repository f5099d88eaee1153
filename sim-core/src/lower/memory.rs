//! Lowering the memory instructions: loads and stores in every space, `LDC`,
//! atomics and reductions, and shared memory's lock pair (`LDSLK`/`STSCUL`).

use super::*;

/// The [`Kind`] of `cx`'s instruction, its operands set in `op`, if it is one
/// of this family's (`None`: another family's).
pub(super) fn kind(cx: &mut Cx, op: &mut Op) -> Result<Option<Kind>, String> {
    let s = cx.s;
    let ops = &s.operands;
    let m = |x: &str| s.has(x);
    let mn = cx.mn;
    Ok(Some(match mn {
        "LD" | "LDG" | "LDS" | "LDL" | "LDU" => {
            op.d0 = cx.reg(0)?;
            let (r, off) = mem(ops.get(1))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8; // 64-bit address in a register pair
            let space = match mn {
                "LD" | "LDU" => Space::Generic,
                "LDG" => Space::GlobalRo,
                "LDS" => Space::Shared,
                _ => Space::Local,
            };
            Kind::Ld { space, w: width(s) }
        }
        "ST" | "STS" | "STL" => {
            let (r, off) = mem(ops.first())?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8;
            op.src[1] = cx.conv(1)?;
            let space = match mn {
                "ST" => Space::Generic,
                "STS" => Space::Shared,
                _ => Space::Local,
            };
            Kind::St { space, w: width(s) }
        }
        "LDC" => {
            op.d0 = cx.reg(0)?;
            op.src[0] = cx.conv(1)?;
            Kind::Ldc { w: width(s) }
        }
        "ATOM" | "RED" | "ATOMS" => {
            let ret = mn != "RED";
            let k0 = if ret {
                op.d0 = cx.reg(0)?;
                1
            } else {
                0
            };
            let (r, off) = mem(ops.get(k0))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.d1 = m("E") as u8;
            op.src[1] = cx.conv(k0 + 1)?;
            if ops.len() > k0 + 2 {
                op.src[2] = cx.conv(k0 + 2)?;
            }
            let aop = [
                ("ADD", AtomOp::Add),
                ("MIN", AtomOp::Min),
                ("MAX", AtomOp::Max),
                ("INC", AtomOp::Inc),
                ("DEC", AtomOp::Dec),
                ("AND", AtomOp::And),
                ("OR", AtomOp::Or),
                ("XOR", AtomOp::Xor),
                ("EXCH", AtomOp::Exch),
                ("CAS", AtomOp::Cas),
            ]
            .iter()
            .find(|(n, _)| m(n))
            .map(|x| x.1)
            .ok_or("atomic without an operation")?;
            let ty = if m("F32") {
                AtomType::F32
            } else if m("S64") {
                AtomType::S64
            } else if m("64") || m("U64") {
                AtomType::U64
            } else if m("S32") {
                AtomType::S32
            } else {
                AtomType::U32
            };
            if (ty == AtomType::F32 && aop != AtomOp::Add)
                || (matches!(ty, AtomType::U64 | AtomType::S64)
                    && matches!(aop, AtomOp::Inc | AtomOp::Dec))
            {
                let name = format!("{mn}.{aop:?}.{ty:?}").to_uppercase();
                return Err(format!("{name} is not modelled"));
            }
            Kind::Atom {
                space: if mn == "ATOMS" {
                    Space::Shared
                } else {
                    Space::Generic
                },
                op: aop,
                ty,
                ret,
            }
        }
        "LDSLK" => {
            // `LDSLK P1, R2, [R3]`.
            op.d1 = cx.pred(0)?;
            op.d0 = cx.reg(1)?;
            let (r, off) = mem(ops.get(2))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            Kind::LdsLk { wide: m("64") }
        }
        "STSCUL" => {
            // `STSCUL P2, [R3], R2`.
            op.d1 = cx.pred(0)?;
            op.d0 = 255;
            let (r, off) = mem(ops.get(1))?;
            op.src[0] = reg_op(r);
            op.imm = off;
            op.src[1] = cx.conv(2)?;
            Kind::StsCul { wide: m("64") }
        }
        _ => return Ok(None),
    }))
}
