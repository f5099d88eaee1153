//! Lowering the floating-point instructions: FP32 arithmetic, comparisons and
//! the SFU's `MUFU`/`RRO`, FP64 arithmetic and comparisons, the conversions
//! (`F2F`, `F2I`, `I2F`, `I2I`) and `FCHK`.

use super::*;

/// The [`Kind`] of `cx`'s instruction, its operands set in `op`, if it is one
/// of this family's (`None`: another family's).
pub(super) fn kind(cx: &mut Cx, op: &mut Op) -> Result<Option<Kind>, String> {
    let s = cx.s;
    let ops = &s.operands;
    let m = |x: &str| s.has(x);
    let (mn, rnd, ftz, sat, bop, cmp) = (cx.mn, cx.rnd, cx.ftz, cx.sat, cx.bop, cx.cmp);
    Ok(Some(match mn {
        "FADD" | "FADD32I" => {
            cx.rd_srcs(op, 2)?;
            Kind::FAdd { ftz, sat, rnd }
        }
        "FMUL" | "FMUL32I" => {
            cx.rd_srcs(op, 2)?;
            Kind::FMul { ftz, sat, rnd }
        }
        "FFMA" | "FFMA32I" => {
            cx.rd_srcs(op, 3)?;
            Kind::FFma { ftz, sat, rnd }
        }
        "FMNMX" => {
            cx.rd_srcs(op, 3)?;
            Kind::FMnMx { ftz }
        }
        "FSETP" => {
            cx.setp(op, 3)?;
            Kind::FSetP { cmp, ftz, bop }
        }
        "FSET" => {
            cx.rd_srcs(op, 3)?;
            Kind::FSet {
                cmp,
                ftz,
                bop,
                bf: m("BF"),
            }
        }
        "FCMP" => {
            cx.rd_srcs(op, 3)?;
            Kind::FCmp { cmp, ftz }
        }
        "MUFU" => {
            cx.rd_srcs(op, 1)?;
            let f = [
                ("COS", MufuFn::Cos),
                ("SIN", MufuFn::Sin),
                ("EX2", MufuFn::Ex2),
                ("LG2", MufuFn::Lg2),
                ("RCP", MufuFn::Rcp),
                ("RSQ", MufuFn::Rsq),
                ("RCP64H", MufuFn::Rcp64h),
                ("RSQ64H", MufuFn::Rsq64h),
            ]
            .iter()
            .find(|(n, _)| m(n))
            .map(|x| x.1)
            .ok_or("MUFU without a function")?;
            Kind::Mufu { f }
        }
        "RRO" => {
            cx.rd_srcs(op, 1)?;
            Kind::Rro { ex2: m("EX2") }
        }
        "DADD" => {
            cx.rd_srcs(op, 2)?;
            Kind::DAdd { rnd }
        }
        "DMUL" => {
            cx.rd_srcs(op, 2)?;
            Kind::DMul { rnd }
        }
        "DFMA" => {
            cx.rd_srcs(op, 3)?;
            Kind::DFma { rnd }
        }
        "DMNMX" => {
            cx.rd_srcs(op, 3)?;
            Kind::DMnMx
        }
        "DSETP" => {
            cx.setp(op, 3)?;
            Kind::DSetP { cmp, bop }
        }
        "DSET" => {
            cx.rd_srcs(op, 3)?;
            Kind::DSet {
                cmp,
                bop,
                bf: m("BF"),
            }
        }
        "F2F" | "F2I" | "I2F" | "I2I" => {
            cx.rd_srcs(op, 1)?;
            let tys: Vec<NumType> = s.mods.iter().filter_map(|x| num_type(x)).collect();
            let (dt, st) = match (mn, tys.as_slice()) {
                (_, [d, s2]) => (*d, *s2),
                ("F2F", []) => (NumType::F32, NumType::F32),
                ("F2I", []) => (NumType::S32, NumType::F32),
                ("I2F", []) => (NumType::F32, NumType::S32),
                ("I2I", []) => (NumType::S32, NumType::S32),
                _ => {
                    return Err(format!(
                        "{mn}: cannot tell the types from `.{}`",
                        s.mods.join(".")
                    ))
                }
            };
            let irnd = if m("FLOOR") {
                IntRnd::Floor
            } else if m("CEIL") {
                IntRnd::Ceil
            } else if m("TRUNC") {
                IntRnd::Trunc
            } else if m("ROUND") {
                IntRnd::Round
            } else {
                IntRnd::None
            };
            // A half immediate prints (and decodes) as its value: the F16 source
            // reads 16-bit halves, so hold it as one.
            if st == NumType::F16 {
                if let (Some(OpndKind::Float(_)), Src::Imm(b)) =
                    (ops.get(1).map(|o| &o.kind), op.src[0].src)
                {
                    let h = crate::fp::to_half(f32::from_bits(b) as f64, Rnd::Rn);
                    op.src[0].src = Src::Imm(h);
                }
            }
            match mn {
                "F2F" => Kind::F2F {
                    dt,
                    st,
                    rnd,
                    irnd,
                    ftz,
                    sat,
                },
                "F2I" => Kind::F2I {
                    dt,
                    st,
                    irnd: if irnd == IntRnd::None {
                        IntRnd::Round
                    } else {
                        irnd
                    },
                    ftz,
                },
                "I2F" => Kind::I2F { dt, st, rnd },
                _ => Kind::I2I { dt, st, sat },
            }
        }
        "FCHK" => {
            // `FCHK.DIVIDE P0, Ra, Rb`: whether a / b needs the slow path.
            if !m("DIVIDE") {
                return Err(format!("FCHK.{} is not modelled", s.mods.join(".")));
            }
            op.d0 = cx.pred(0)?;
            op.pred_dst = true;
            op.src[0] = cx.conv(1)?;
            op.src[1] = cx.conv(2)?;
            Kind::FChk
        }
        _ => return Ok(None),
    }))
}
