//! Kepler's floating-point arithmetic, bit-exact: the four rounding modes,
//! flush-to-zero, saturation and the canonical NaN.
//!
//! Round-to-nearest uses the host's IEEE operations (`mul_add` is a fused
//! multiply-add). The directed modes compute the exact result as an unevaluated
//! sum `s + e` of two doubles (error-free transforms: products of two singles
//! are exact in a double, `two_sum` gives the exact sum) and round that once.

use crate::op::Rnd;

/// The NaN every FP32 operation returns (`0x7fffffff`).
pub const NAN32: u32 = 0x7fff_ffff;
/// The NaN every FP64 operation returns.
pub const NAN64: u64 = 0x7fff_ffff_ffff_ffff;

/// Flushes a denormal single to a zero of its sign.
#[inline]
pub fn ftz32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `s + e` exactly, as the rounded sum and its error.
#[inline]
pub fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

fn next_up32(x: f32) -> f32 {
    if x.is_nan() || x == f32::INFINITY {
        return x;
    }
    if x == 0.0 {
        return f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
}

fn next_down32(x: f32) -> f32 {
    -next_up32(-x)
}

/// Rounds the exact value `s + e` (with |e| at most half an ulp of `s` in double)
/// to a single in mode `rnd`.
pub fn round32(s: f64, e: f64, rnd: Rnd) -> f32 {
    if s.is_nan() {
        return f32::from_bits(NAN32);
    }
    let r = s as f32; // nearest, ties to even
    if r.is_infinite() && s.is_finite() {
        // Overflow: directed modes stop at the largest finite value.
        let max = f32::MAX.copysign(r);
        return match rnd {
            Rnd::Rn => r,
            Rnd::Rz => max,
            Rnd::Rm => {
                if r > 0.0 {
                    max
                } else {
                    r
                }
            }
            Rnd::Rp => {
                if r < 0.0 {
                    max
                } else {
                    r
                }
            }
        };
    }
    if s.is_infinite() {
        return r;
    }
    // The exact distance from r to the value: (s - r) is exact (Sterbenz), and
    // the sign of (s - r) + e is the sign of the true remainder.
    let d = s - r as f64;
    let rem = d + e;
    match rnd {
        Rnd::Rn => {
            if e == 0.0 || d == 0.0 {
                return r;
            }
            // Only a value exactly at a midpoint in double can round the wrong way:
            // then e says on which side of it the exact value lies.
            let n = if d > 0.0 { next_up32(r) } else { next_down32(r) };
            if n.is_finite() && d * 2.0 == n as f64 - r as f64 && (d > 0.0) == (e > 0.0) {
                return n;
            }
            r
        }
        Rnd::Rz => {
            if r > 0.0 && rem < 0.0 {
                next_down32(r)
            } else if r < 0.0 && rem > 0.0 {
                next_up32(r)
            } else {
                r
            }
        }
        Rnd::Rm => {
            if rem < 0.0 {
                next_down32(r)
            } else {
                r
            }
        }
        Rnd::Rp => {
            if rem > 0.0 {
                next_up32(r)
            } else {
                r
            }
        }
    }
}

/// Rounds an exact `s + e` to a double in mode `rnd` (`s` already nearest).
pub fn round64(s: f64, e: f64, rnd: Rnd) -> f64 {
    if s.is_nan() {
        return f64::from_bits(NAN64);
    }
    if !s.is_finite() {
        return match rnd {
            Rnd::Rn => s,
            Rnd::Rz => f64::MAX.copysign(s),
            Rnd::Rm if s > 0.0 => f64::MAX,
            Rnd::Rp if s < 0.0 => -f64::MAX,
            _ => s,
        };
    }
    match rnd {
        Rnd::Rn => s,
        Rnd::Rz => {
            if s > 0.0 && e < 0.0 || s < 0.0 && e > 0.0 {
                step64(s, s < 0.0)
            } else {
                s
            }
        }
        Rnd::Rm => {
            if e < 0.0 {
                step64(s, false)
            } else {
                s
            }
        }
        Rnd::Rp => {
            if e > 0.0 {
                step64(s, true)
            } else {
                s
            }
        }
    }
}

fn step64(x: f64, up: bool) -> f64 {
    if x == 0.0 {
        return if up { f64::from_bits(1) } else { -f64::from_bits(1) };
    }
    let b = x.to_bits();
    f64::from_bits(if (x > 0.0) == up { b + 1 } else { b - 1 })
}

/// A single's bits, with every NaN made the canonical one.
#[inline]
pub fn canon32(r: f32) -> u32 {
    if r.is_nan() {
        NAN32
    } else {
        r.to_bits()
    }
}

/// FFMA over a warp's 32 lanes, round-to-nearest, no flush or saturation: the
/// host's fused multiply-add instruction where it has one (detected at run
/// time), else the library's correctly rounded `fmaf`.
#[inline]
pub fn ffma_rn_row(a: &[f32; 32], b: &[f32; 32], c: &[f32; 32], d: &mut [u32; 32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has FMA (checked just above).
            unsafe { ffma_row_fma(a, b, c, d) };
            return;
        }
    }
    for l in 0..32 {
        d[l] = canon32(a[l].mul_add(b[l], c[l]));
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn ffma_row_fma(a: &[f32; 32], b: &[f32; 32], c: &[f32; 32], d: &mut [u32; 32]) {
    for l in 0..32 {
        d[l] = canon32(a[l].mul_add(b[l], c[l]));
    }
}

fn finish32(r: f32, ftz: bool, sat: bool) -> u32 {
    let mut r = r;
    if r.is_nan() {
        return if sat { 0 } else { NAN32 };
    }
    if ftz {
        r = ftz32(r);
    }
    if sat {
        r = r.clamp(0.0, 1.0);
        if r == 0.0 {
            r = 0.0; // -0 saturates to +0
        }
    }
    r.to_bits()
}

/// FADD.
#[inline]
pub fn fadd(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b) = if ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let r = match rnd {
        Rnd::Rn => a + b,
        _ => {
            let (s, e) = two_sum(a as f64, b as f64);
            round32(s, e, rnd)
        }
    };
    finish32(r, ftz, sat)
}

/// FMUL.
#[inline]
pub fn fmul(a: f32, b: f32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b) = if ftz { (ftz32(a), ftz32(b)) } else { (a, b) };
    let r = match rnd {
        Rnd::Rn => a * b,
        _ => round32(a as f64 * b as f64, 0.0, rnd),
    };
    finish32(r, ftz, sat)
}

/// FFMA: `a * b + c`, rounded once.
#[inline]
pub fn ffma(a: f32, b: f32, c: f32, rnd: Rnd, ftz: bool, sat: bool) -> u32 {
    let (a, b, c) = if ftz {
        (ftz32(a), ftz32(b), ftz32(c))
    } else {
        (a, b, c)
    };
    let r = match rnd {
        Rnd::Rn => a.mul_add(b, c),
        _ => {
            let p = a as f64 * b as f64; // exact
            let (s, e) = two_sum(p, c as f64);
            if p.is_infinite() || c.is_infinite() || s.is_nan() {
                a.mul_add(b, c)
            } else {
                round32(s, e, rnd)
            }
        }
    };
    finish32(r, ftz, sat)
}

/// DADD.
pub fn dadd(a: f64, b: f64, rnd: Rnd) -> u64 {
    let (s, e) = two_sum(a, b);
    let r = if rnd == Rnd::Rn || !s.is_finite() {
        s
    } else {
        round64(s, e, rnd)
    };
    canon64(r)
}

/// DMUL.
pub fn dmul(a: f64, b: f64, rnd: Rnd) -> u64 {
    let p = a * b;
    let r = if rnd == Rnd::Rn || !p.is_finite() {
        p
    } else {
        round64(p, a.mul_add(b, -p), rnd)
    };
    canon64(r)
}

/// DFMA.
pub fn dfma(a: f64, b: f64, c: f64, rnd: Rnd) -> u64 {
    let r = a.mul_add(b, c);
    let r = if rnd == Rnd::Rn || !r.is_finite() {
        r
    } else {
        // The remainder (a*b + c) - r, exactly enough for its sign: a*b = p + ep.
        let p = a * b;
        let ep = a.mul_add(b, -p);
        let (s, es) = two_sum(p, c);
        let rem = (s - r) + es + ep;
        round64(r, rem, rnd)
    };
    canon64(r)
}

/// The canonical NaN for a double result.
#[inline]
pub fn canon64(r: f64) -> u64 {
    if r.is_nan() {
        NAN64
    } else {
        r.to_bits()
    }
}

/// Rounds a float to an integral value of the same type.
pub fn round_int(x: f64, irnd: crate::op::IntRnd) -> f64 {
    use crate::op::IntRnd::*;
    match irnd {
        None => x,
        Round => x.round_ties_even(),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Trunc => x.trunc(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directed_rounding_brackets_the_exact_result() {
        // 1 + 2^-30 is not a single: RM gives 1, RP the next single up.
        let a = 1.0f32;
        let b = 2f32.powi(-30);
        assert_eq!(fadd(a, b, Rnd::Rm, false, false), 1.0f32.to_bits());
        assert_eq!(fadd(a, b, Rnd::Rp, false, false), next_up32(1.0).to_bits());
        assert_eq!(fadd(a, b, Rnd::Rz, false, false), 1.0f32.to_bits());
        assert_eq!(fadd(-a, -b, Rnd::Rz, false, false), (-1.0f32).to_bits());
        assert_eq!(fadd(-a, -b, Rnd::Rm, false, false), next_down32(-1.0).to_bits());
        assert_eq!(fadd(a, b, Rnd::Rn, false, false), 1.0f32.to_bits());
    }

    #[test]
    fn fma_rounds_once() {
        // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: a separate multiply would lose 2^-24.
        let a = 1.0 + 2f32.powi(-12);
        let r = f32::from_bits(ffma(a, a, -1.0, Rnd::Rn, false, false));
        assert_eq!(r, 2f32.powi(-11) + 2f32.powi(-24));
        for rnd in [Rnd::Rm, Rnd::Rp, Rnd::Rz] {
            let r = f32::from_bits(ffma(a, a, -1.0, rnd, false, false));
            assert_eq!(r, 2f32.powi(-11) + 2f32.powi(-24));
        }
    }

    #[test]
    fn rn_midpoint_with_a_tiny_tail_rounds_toward_the_tail() {
        // c = 1 + 2^-24 (a single midpoint in double) plus a product of 2^-80:
        // the exact value is just above the midpoint, so RN rounds up.
        let one_plus = 1.0f32;
        let tiny = 2f32.powi(-40);
        let mid = (1.0f64 + 2f64.powi(-24)) as f32; // rounds to 1.0 (tie to even)
        assert_eq!(mid, 1.0);
        let r = round32(1.0 + 2f64.powi(-24), 2f64.powi(-80), Rnd::Rn);
        assert_eq!(r, next_up32(1.0));
        let _ = (one_plus, tiny);
    }

    #[test]
    fn ftz_sat_and_nan() {
        let den = f32::from_bits(1);
        assert_eq!(fmul(den, 1.0, Rnd::Rn, true, false), 0);
        assert_eq!(fmul(den, 1.0, Rnd::Rn, false, false), 1);
        assert_eq!(fadd(2.0, 0.5, Rnd::Rn, false, true), 1.0f32.to_bits());
        assert_eq!(fadd(-2.0, 0.5, Rnd::Rn, false, true), 0);
        assert_eq!(fadd(f32::NAN, 0.5, Rnd::Rn, false, false), NAN32);
        assert_eq!(fadd(f32::NAN, 0.5, Rnd::Rn, false, true), 0);
    }

    #[test]
    fn overflow_in_directed_modes_stops_at_max() {
        let r = fmul(f32::MAX, 2.0, Rnd::Rz, false, false);
        assert_eq!(f32::from_bits(r), f32::MAX);
        let r = fmul(f32::MAX, 2.0, Rnd::Rp, false, false);
        assert_eq!(f32::from_bits(r), f32::INFINITY);
    }
}
