//! The special function unit: `MUFU` (reciprocal, square root, sine, cosine,
//! base-2 exponential and logarithm) and the range reduction `RRO` before it.

use super::operand::*;
use super::{ExecError, Insn};
use crate::fp;
use crate::op::*;

/// `MUFU`: the special function unit's approximation of `f`.
#[inline(always)]
pub(super) fn mufu(i: Insn, f: MufuFn) -> Result<(), ExecError> {
    let s0 = i.op.src[0];
    lanes(i, |[a]| approximate(f, a, &s0))
}

/// `RRO`: the range reduction before `MUFU.SIN`/`COS`/`EX2`.
#[inline(always)]
pub(super) fn rro(i: Insn) -> Result<(), ExecError> {
    // RRO's output feeds only MUFU.SIN/COS/EX2; keeping the value in full
    // precision makes those exact functions of the original argument.
    let s0 = i.op.src[0];
    lanes(i, |[a]| fneg_abs32(a, &s0).to_bits())
}

/// MUFU: the function computed in double and rounded to single; inputs that are
/// denormal are flushed, as the hardware unit does. The hardware is accurate to
/// about 1 ulp (NVIDIA's CUDA guide, intrinsic functions); this is within that.
fn approximate(f: MufuFn, x: u32, o: &Operand) -> u32 {
    let v = fp::ftz32(fneg_abs32(x, o)) as f64;
    let r = match f {
        MufuFn::Cos => v.cos(),
        MufuFn::Sin => v.sin(),
        MufuFn::Ex2 => v.exp2(),
        MufuFn::Lg2 => v.log2(),
        MufuFn::Rcp => 1.0 / v,
        MufuFn::Rsq => 1.0 / v.sqrt(),
        MufuFn::Rcp64h | MufuFn::Rsq64h => {
            let mut hi = x;
            if o.abs {
                hi &= 0x7fff_ffff;
            }
            if o.neg {
                hi ^= 0x8000_0000;
            }
            let d = f64::from_bits((hi as u64) << 32);
            let r = if f == MufuFn::Rcp64h {
                1.0 / d
            } else {
                1.0 / d.sqrt()
            };
            return if r.is_nan() {
                0x7fff_ffff
            } else {
                (r.to_bits() >> 32) as u32
            };
        }
    };
    let r = fp::ftz32(r as f32);
    if r.is_nan() {
        fp::NAN32
    } else {
        r.to_bits()
    }
}
