//! Conversions between number types: `F2F`, `F2I`, `I2F`, `I2I`.

use super::operand::*;
use super::{ExecError, Insn};
use crate::fp;
use crate::op::*;

/// `F2F`: between half, single and double, or to an integral value (`irnd`).
#[inline(always)]
pub(super) fn f2f(
    i: Insn,
    dt: NumType,
    st: NumType,
    rnd: Rnd,
    irnd: IntRnd,
    ftz: bool,
    sat: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let a32 = read(w, &s[0], env)?;
    let mut d = [0u64; 32];
    for l in 0..32 {
        let x = match st {
            NumType::F64 => fneg_abs64(a[l], &s[0]),
            NumType::F16 => half_to_f32((a32[l] >> (16 * (s[0].sel as u32 & 1))) as u16) as f64,
            _ => {
                let f = fneg_abs32(a32[l], &s[0]);
                (if ftz { fp::ftz32(f) } else { f }) as f64
            }
        };
        let x = fp::round_int(x, irnd);
        let x = if sat { x.clamp(0.0, 1.0) } else { x };
        d[l] = match dt {
            NumType::F64 => fp::canon64(x),
            NumType::F16 => fp::to_half(x, rnd) as u64,
            _ => {
                let r = if irnd == IntRnd::None {
                    fp::round32(x, 0.0, rnd)
                } else {
                    x as f32
                };
                let r = if ftz { fp::ftz32(r) } else { r };
                if r.is_nan() {
                    fp::NAN32 as u64
                } else {
                    r.to_bits() as u64
                }
            }
        };
    }
    if dt == NumType::F64 {
        write64(w, op.d0, &d, m);
    } else {
        let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
        w.set_reg(op.d0, &d32, m);
    }
    Ok(())
}

/// `F2I`: saturating ([`float_to_int`]).
#[inline(always)]
pub(super) fn f2i(
    i: Insn,
    dt: NumType,
    st: NumType,
    irnd: IntRnd,
    ftz: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let a32 = read(w, &s[0], env)?;
    let mut d = [0u64; 32];
    for l in 0..32 {
        let x = if st == NumType::F64 {
            fneg_abs64(a[l], &s[0])
        } else if st == NumType::F16 {
            half_to_f32((a32[l] >> (16 * (s[0].sel as u32 & 1))) as u16) as f64
        } else {
            let f = fneg_abs32(a32[l], &s[0]);
            (if ftz { fp::ftz32(f) } else { f }) as f64
        };
        d[l] = float_to_int(fp::round_int(x, irnd), dt, st == NumType::F64);
    }
    if dt.bits() == 64 {
        write64(w, op.d0, &d, m);
    } else {
        let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
        w.set_reg(op.d0, &d32, m);
    }
    Ok(())
}

/// `I2F`: exact in 128 bits, then one rounding.
#[inline(always)]
pub(super) fn i2f(i: Insn, dt: NumType, st: NumType, rnd: Rnd) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let a32 = read(w, &s[0], env)?;
    let mut d = [0u64; 32];
    for l in 0..32 {
        let v: i128 = int_source(
            if st.bits() == 64 { a[l] } else { a32[l] as u64 },
            st,
            s[0].sel,
        );
        let v = if s[0].neg { -v } else { v };
        let v = if s[0].abs { v.abs() } else { v };
        let s64 = v as f64;
        let e = (v - s64 as i128) as f64;
        d[l] = match dt {
            NumType::F64 => fp::round64(s64, e, rnd).to_bits(),
            _ => fp::round32(s64, e, rnd).to_bits() as u64,
        };
    }
    if dt == NumType::F64 {
        write64(w, op.d0, &d, m);
    } else {
        let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
        w.set_reg(op.d0, &d32, m);
    }
    Ok(())
}

/// `I2I`: between integer widths, saturating with `.SAT`.
#[inline(always)]
pub(super) fn i2i(i: Insn, dt: NumType, st: NumType, sat: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let mut d = [0u32; 32];
    for l in 0..32 {
        let mut v = int_source(a[l] as u64, st, s[0].sel);
        if s[0].neg {
            v = -v;
        }
        if s[0].abs {
            v = v.abs();
        }
        let bits = dt.bits().min(32);
        let (lo, hi): (i128, i128) = if dt.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        let r = if sat { v.clamp(lo, hi) } else { v };
        // A narrow result is zero-extended, signed or not: ptxas follows
        // `I2I.S8.U8.SAT` with a sign-extending `BFE`, and compiles
        // `cvt.u16.s8` (whose .u16 result PTX zero-extends) to a lone
        // `I2I.S16.S8`.
        d[l] = if bits == 32 {
            r as u32
        } else {
            (r as u32) & ((1u32 << bits) - 1)
        };
    }
    w.set_reg(op.d0, &d, m);
    if op.cc {
        // `I2I.S32.S32 RZ.CC, R3` tests a sign for `CSETP`.
        let (z, sg) = zs(&d, m);
        set_cc(w, m, 0, z, sg, 0);
    }
    Ok(())
}

/// An IEEE half's value, exactly (denormals included).
fn half_to_f32(h: u16) -> f32 {
    let sign = (h >> 15) as u32;
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as u32;
    let v = if exp == 0 {
        man as f32 * 2f32.powi(-24)
    } else if exp == 31 {
        if man == 0 {
            f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        (1.0 + man as f32 / 1024.0) * 2f32.powi(exp - 15)
    };
    if sign == 1 {
        -v
    } else {
        v
    }
}

/// An integer source of type `st` taken from `v` (`sel` picks the byte or
/// half-word of a narrow one), sign- or zero-extended.
fn int_source(v: u64, st: NumType, sel: u8) -> i128 {
    let sh = match st.bits() {
        8 => 8 * sel as u32,
        16 => 16 * (sel as u32 & 1),
        _ => 0,
    };
    let v = v >> sh;
    match st {
        NumType::U8 => (v & 0xff) as i128,
        NumType::S8 => v as u8 as i8 as i128,
        NumType::U16 => (v & 0xffff) as i128,
        NumType::S16 => v as u16 as i16 as i128,
        NumType::U32 => (v & 0xffff_ffff) as i128,
        NumType::S32 => v as u32 as i32 as i128,
        NumType::U64 => v as i128,
        _ => v as i64 as i128,
    }
}

/// Float to integer, saturating. NaN gives 0, except from a double or to a
/// 64-bit integer: then `1 << (bits - 1)` (PTX ISA, `cvt`).
fn float_to_int(x: f64, dt: NumType, from_f64: bool) -> u64 {
    if x.is_nan() {
        return if from_f64 || dt.bits() == 64 {
            let v = 1u64 << (dt.bits() - 1);
            if dt.is_signed() && dt.bits() < 32 {
                (v as u32 | !((1u32 << dt.bits()) - 1)) as u64
            } else {
                v
            }
        } else {
            0
        };
    }
    match dt {
        NumType::U8 => x.clamp(0.0, 255.0) as u64,
        NumType::S8 => (x.clamp(-128.0, 127.0) as i64 as u64) & 0xffff_ffff,
        NumType::U16 => x.clamp(0.0, 65535.0) as u64,
        NumType::S16 => (x.clamp(-32768.0, 32767.0) as i64 as u64) & 0xffff_ffff,
        NumType::U32 => x.clamp(0.0, u32::MAX as f64) as u32 as u64,
        NumType::U64 => x.max(0.0) as u64,
        NumType::S64 => x as i64 as u64,
        _ => (x as i32) as u32 as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_to_int_nan() {
        // PTX ISA cvt: 0 from a single to a 32-bit or narrower integer, else 1 << (bits - 1).
        assert_eq!(float_to_int(f64::NAN, NumType::S32, false), 0);
        assert_eq!(float_to_int(f64::NAN, NumType::S64, false), 1 << 63);
        assert_eq!(float_to_int(f64::NAN, NumType::U64, false), 1 << 63);
        assert_eq!(float_to_int(f64::NAN, NumType::S32, true), 0x8000_0000);
        assert_eq!(float_to_int(f64::NAN, NumType::U32, true), 0x8000_0000);
        assert_eq!(float_to_int(f64::NAN, NumType::S16, true), 0xffff_8000);
    }
}
