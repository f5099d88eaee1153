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
            let n = if d > 0.0 {
                next_up32(r)
            } else {
                next_down32(r)
            };
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
        return if up {
            f64::from_bits(1)
        } else {
            -f64::from_bits(1)
        };
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

/// One lane's FFMA (bits in, bits out), round-to-nearest, no flush or
/// saturation, NaN canonical.
#[inline(always)]
fn ffma_lane(a: u32, b: u32, c: u32) -> u32 {
    canon32(f32::from_bits(a).mul_add(f32::from_bits(b), f32::from_bits(c)))
}

/// FFMA over a warp's 32 lanes (the registers' bits), round-to-nearest, no
/// flush or saturation: the host's fused multiply-add instruction where it has
/// one (detected at run time), else the library's correctly rounded `fmaf`.
pub fn ffma_rn_bits(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32], d: &mut [u32; 32]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has FMA (checked just above).
            unsafe { ffma_bits_fma(a, b, c, d) };
            return;
        }
    }
    for l in 0..32 {
        d[l] = ffma_lane(a[l], b[l], c[l]);
    }
}

/// [`ffma_rn_bits`] in place on a warp's register file `regs` (32 lanes a
/// register): `d = a * b + c` in the lanes of `mask`, a source of 255 (RZ)
/// or past the file reading zero, and a destination of 255 or past it
/// written nowhere, as [`crate::warp::Warp::reg`] and `set_reg` have it.
/// One pass with the host's FMA where it has one: no row copied twice. (The
/// routine is chosen at each call; a caller running many chooses it once,
/// [`FfmaRows::host`].)
pub fn ffma_rn_rows(regs: &mut [u32], a: u8, b: u8, c: u8, d: u8, mask: u32) {
    FfmaRows::host().run(regs, a, b, c, d, mask)
}

/// [`ffma_rows`] with the host's vector FMA, eight lanes an instruction, the
/// results kept in vector registers and stored straight into the
/// destination (the lanes of `mask` alone when it is not the whole warp).
/// [`ffma_rn_rows`]'s routine for this host, chosen once (the timing model
/// runs millions of FFMAs a second and asks nothing of the CPU for each).
#[derive(Clone, Copy)]
pub struct FfmaRows(unsafe fn(&mut [u32], u8, u8, u8, u8, u32));

impl FfmaRows {
    /// The vector routine where the CPU has FMA and AVX2, else the portable
    /// one. (The only way to make one: what `run` relies on.)
    pub fn host() -> FfmaRows {
        #[cfg(target_arch = "x86_64")]
        {
            if FfmaRows::vector() {
                return FfmaRows(ffma_rows_fma);
            }
        }
        FfmaRows(ffma_rows_any)
    }

    /// Whether [`FfmaRows::host`] takes the vector routine on this CPU (it
    /// has FMA and AVX2), for reports of the host a run was timed on.
    pub fn vector() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            std::arch::is_x86_feature_detected!("fma")
                && std::arch::is_x86_feature_detected!("avx2")
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// [`ffma_rn_rows`] by the chosen routine.
    #[inline]
    pub fn run(self, regs: &mut [u32], a: u8, b: u8, c: u8, d: u8, mask: u32) {
        // SAFETY: `host` chose the vector routine only where the CPU has
        // what it was built for; the portable one needs nothing.
        unsafe { (self.0)(regs, a, b, c, d, mask) }
    }
}

/// [`ffma_rows`] as an `unsafe fn`, for [`FfmaRows`] (it needs nothing).
unsafe fn ffma_rows_any(regs: &mut [u32], a: u8, b: u8, c: u8, d: u8, mask: u32) {
    ffma_rows(regs, a, b, c, d, mask)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn ffma_rows_fma(regs: &mut [u32], a: u8, b: u8, c: u8, d: u8, mask: u32) {
    use std::arch::x86_64::*;
    static ZERO: [u32; 32] = [0; 32];
    // A source of 255 (RZ) or past the file reads zero, as `ffma_rows` has it.
    let row = |r: u8| -> *const f32 {
        let o = r as usize * 32;
        if r != 255 && o + 32 <= regs.len() {
            regs[o..].as_ptr() as *const f32
        } else {
            ZERO.as_ptr() as *const f32
        }
    };
    let (x, y, z) = (row(a), row(b), row(c));
    // SAFETY: each of `x`, `y`, `z` points at 32 readable lanes (a row of
    // `regs` checked just above, or `ZERO`), and every load below reads
    // eight of them; the caller has AVX2 and FMA (`FfmaRows::host` checked).
    let out: [__m256; 4] = unsafe {
        let canon = _mm256_castsi256_ps(_mm256_set1_epi32(NAN32 as i32));
        std::array::from_fn(|k| {
            let r = _mm256_fmadd_ps(
                _mm256_loadu_ps(x.add(8 * k)),
                _mm256_loadu_ps(y.add(8 * k)),
                _mm256_loadu_ps(z.add(8 * k)),
            );
            // Any NaN result is the canonical one (`canon32`).
            _mm256_blendv_ps(r, canon, _mm256_cmp_ps::<_CMP_UNORD_Q>(r, r))
        })
    };
    let o = d as usize * 32;
    let Some(dst) = regs.get_mut(o..o + 32).filter(|_| d != 255) else {
        return;
    };
    let dst = dst.as_mut_ptr() as *mut f32;
    // SAFETY: `dst` points at the 32 lanes of the destination row, and every
    // store below writes eight of them.
    unsafe {
        if mask == u32::MAX {
            for (k, v) in out.iter().enumerate() {
                _mm256_storeu_ps(dst.add(8 * k), *v);
            }
        } else {
            let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
            for (k, v) in out.iter().enumerate() {
                let m = _mm256_set1_epi32((mask >> (8 * k)) as i32 & 0xff);
                let lanes = _mm256_cmpeq_epi32(_mm256_and_si256(m, bits), bits);
                _mm256_maskstore_ps(dst.add(8 * k), lanes, *v);
            }
        }
    }
}

/// The body of [`ffma_rn_rows`].
#[inline(always)]
fn ffma_rows(regs: &mut [u32], a: u8, b: u8, c: u8, d: u8, mask: u32) {
    static ZERO: [u32; 32] = [0; 32];
    let out = {
        let row = |r: u8| -> &[u32; 32] {
            let o = r as usize * 32;
            match regs.get(o..o + 32) {
                Some(x) if r != 255 => x.try_into().unwrap_or(&ZERO),
                _ => &ZERO,
            }
        };
        let (x, y, z) = (row(a), row(b), row(c));
        let mut out = [0u32; 32];
        for l in 0..32 {
            out[l] = ffma_lane(x[l], y[l], z[l]);
        }
        out
    };
    let o = d as usize * 32;
    if let Some(dst) = regs.get_mut(o..o + 32).filter(|_| d != 255) {
        if mask == u32::MAX {
            dst.copy_from_slice(&out);
        } else {
            for l in crate::warp::Lanes(mask) {
                dst[l] = out[l];
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn ffma_bits_fma(a: &[u32; 32], b: &[u32; 32], c: &[u32; 32], d: &mut [u32; 32]) {
    for l in 0..32 {
        d[l] = ffma_lane(a[l], b[l], c[l]);
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
            exact_zero_sign(
                round32(s, e, rnd),
                s == 0.0 && e == 0.0,
                a as f64,
                b as f64,
                rnd,
            )
        }
    };
    finish32(r, ftz, sat)
}

/// IEEE 754's sign of an exact zero sum `x + y`: +0 in every mode but RM, where
/// it is -0, unless both addends are zeros of one sign. `r` is the rounded sum
/// as computed (whose zero has the host's round-to-nearest sign).
#[inline]
fn exact_zero_sign(r: f32, exact_zero: bool, x: f64, y: f64, rnd: Rnd) -> f32 {
    if exact_zero && rnd == Rnd::Rm && !(x.to_bits() == 0 && y.to_bits() == 0) {
        -0.0
    } else {
        r
    }
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
                exact_zero_sign(round32(s, e, rnd), s == 0.0 && e == 0.0, p, c as f64, rnd)
            }
        }
    };
    finish32(r, ftz, sat)
}

/// DADD.
pub fn dadd(a: f64, b: f64, rnd: Rnd) -> u64 {
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() {
        return canon64(a + b);
    }
    canon64(exact::sum(exact::parts(a), exact::parts(b), rnd))
}

/// DMUL.
pub fn dmul(a: f64, b: f64, rnd: Rnd) -> u64 {
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() || a == 0.0 || b == 0.0 {
        return canon64(a * b);
    }
    canon64(exact::round(exact::product(a, b), rnd))
}

/// DFMA.
pub fn dfma(a: f64, b: f64, c: f64, rnd: Rnd) -> u64 {
    if rnd == Rnd::Rn || !a.is_finite() || !b.is_finite() || !c.is_finite() {
        return canon64(a.mul_add(b, c));
    }
    let p = if a == 0.0 || b == 0.0 {
        exact::Parts::Zero((a.is_sign_negative()) ^ (b.is_sign_negative()))
    } else {
        exact::product(a, b)
    };
    canon64(exact::sum(p, exact::parts(c), rnd))
}

/// A double converted to a half (`F2F.F16`), rounded once; the bits in the low
/// 16 of the result, NaN as `0x7fff`.
pub fn to_half(x: f64, rnd: Rnd) -> u32 {
    exact::half(x, rnd)
}

/// Exact arithmetic on doubles for the directed rounding modes: values as an
/// integer mantissa times a power of two, rounded once. (The host's error-free
/// transforms are not exact when a product or a remainder underflows.)
mod exact {
    use super::Rnd;

    /// A finite value: a signed zero, or `m * 2^e`.
    #[derive(Clone, Copy)]
    pub enum Parts {
        Zero(bool),
        Num(bool, u128, i32),
    }

    pub fn parts(x: f64) -> Parts {
        let b = x.to_bits();
        let neg = b >> 63 == 1;
        let exp = ((b >> 52) & 0x7ff) as i32;
        let frac = (b & ((1u64 << 52) - 1)) as u128;
        match (exp, frac) {
            (0, 0) => Parts::Zero(neg),
            (0, f) => Parts::Num(neg, f, -1074),
            (e, f) => Parts::Num(neg, f | 1 << 52, e - 1075),
        }
    }

    /// The exact product of two finite non-zero doubles.
    pub fn product(a: f64, b: f64) -> Parts {
        match (parts(a), parts(b)) {
            (Parts::Num(n1, m1, e1), Parts::Num(n2, m2, e2)) => {
                Parts::Num(n1 ^ n2, m1 * m2, e1 + e2)
            }
            _ => Parts::Zero(a.is_sign_negative() ^ b.is_sign_negative()),
        }
    }

    /// `x + y` rounded once; an exact zero sum is -0 in RM, else +0, unless both
    /// are zeros of one sign.
    pub fn sum(x: Parts, y: Parts, rnd: Rnd) -> f64 {
        match (x, y) {
            (Parts::Zero(a), Parts::Zero(b)) => zero(if a == b { a } else { rnd == Rnd::Rm }),
            (Parts::Zero(_), v) | (v, Parts::Zero(_)) => round(v, rnd),
            (Parts::Num(n1, m1, e1), Parts::Num(n2, m2, e2)) => {
                // Both mantissas (at most 106 bits) with their top bit at 124.
                let norm = |m: u128, e: i32| {
                    let s = m.leading_zeros() as i32 - 3;
                    (m << s, e - s)
                };
                let (a, b) = (norm(m1, e1), norm(m2, e2));
                let ((n1, (m1, e1)), (n2, (m2, e2))) = if (b.1, b.0) > (a.1, a.0) {
                    ((n2, b), (n1, a))
                } else {
                    ((n1, a), (n2, b))
                };
                let d = e1 - e2;
                let (m2, sticky) = if d >= 128 {
                    (0, true)
                } else {
                    (m2 >> d, d > 0 && m2 & ((1u128 << d) - 1) != 0)
                };
                if n1 == n2 {
                    round_bits(n1, m1 + m2, e1, sticky, rnd)
                } else {
                    // m1 > m2 when anything was shifted out, so this stays positive.
                    let m = m1 - m2 - sticky as u128;
                    if m == 0 && !sticky {
                        zero(rnd == Rnd::Rm)
                    } else {
                        round_bits(n1, m, e1, sticky, rnd)
                    }
                }
            }
        }
    }

    fn zero(neg: bool) -> f64 {
        if neg {
            -0.0
        } else {
            0.0
        }
    }

    pub fn round(v: Parts, rnd: Rnd) -> f64 {
        match v {
            Parts::Zero(n) => zero(n),
            Parts::Num(n, m, e) => round_bits(n, m, e, false, rnd),
        }
    }

    /// Rounds `m * 2^e`, plus a fraction of `2^e` if `sticky`, to a double.
    fn round_bits(neg: bool, m: u128, e: i32, sticky: bool, rnd: Rnd) -> f64 {
        f64::from_bits(round_format(neg, m, e, sticky, rnd, 53, 1023))
    }

    /// A half (its 16 bits) from a double, rounded once; NaN is `0x7fff`.
    pub fn half(x: f64, rnd: Rnd) -> u32 {
        let sign = (x.is_sign_negative() as u32) << 15;
        if x.is_nan() {
            0x7fff
        } else if x.is_infinite() {
            sign | 0x7c00
        } else {
            match parts(x) {
                Parts::Zero(_) => sign,
                Parts::Num(n, m, e) => round_format(n, m, e, false, rnd, 11, 15) as u32,
            }
        }
    }

    /// Rounds `m * 2^e` (plus `sticky`) to the binary format of precision `p`
    /// (hidden bit included) and largest exponent `emax`; returns its bits.
    fn round_format(neg: bool, m: u128, e: i32, sticky: bool, rnd: Rnd, p: i32, emax: i32) -> u64 {
        #[allow(non_snake_case)]
        let P = p;
        let ebits = (emax + 1).trailing_zeros() as i32 + 1;
        let len = 128 - m.leading_zeros() as i32;
        let mut q = (e + len - P).max(2 - emax - P);
        let sh = q - e;
        let (mut v, half, rest) = if sh <= 0 {
            (m << -sh, false, sticky)
        } else if sh >= 128 {
            (
                0,
                sh == 128 && m >> 127 == 1,
                sticky || m & !(1u128 << 127) != 0 || sh > 128,
            )
        } else {
            (
                m >> sh,
                (m >> (sh - 1)) & 1 == 1,
                sticky || m & ((1u128 << (sh - 1)) - 1) != 0,
            )
        };
        let inexact = half || rest;
        let up = match rnd {
            Rnd::Rn => half && (rest || v & 1 == 1),
            Rnd::Rz => false,
            Rnd::Rm => neg && inexact,
            Rnd::Rp => !neg && inexact,
        };
        v += up as u128;
        if v == 1u128 << P {
            v >>= 1;
            q += 1;
        }
        let sign = if neg { 1u64 << (P - 1 + ebits) } else { 0 };
        if v >> (P - 1) != 0 && q + P - 1 > emax {
            let inf = match rnd {
                Rnd::Rn => true,
                Rnd::Rz => false,
                Rnd::Rm => neg,
                Rnd::Rp => !neg,
            };
            let inf_bits = ((1u64 << ebits) - 1) << (P - 1);
            return sign | if inf { inf_bits } else { inf_bits - 1 };
        }
        let bits = if v >> (P - 1) == 0 {
            v as u64 // subnormal
        } else {
            ((q + P - 1 + emax) as u64) << (P - 1) | (v as u64 & ((1u64 << (P - 1)) - 1))
        };
        sign | bits
    }
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
    fn ffma_in_place_is_lane_by_lane() {
        // Sources and destination alike, apart or the same, RZ, past the
        // file; every lane, some, none.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as u32
        };
        for case in 0..400 {
            let regs0: Vec<u32> = (0..8 * 32)
                .map(|i| match (next() % 8, i % 5) {
                    (0, _) => 0x7fc0_0001,
                    (1, 0) => 0x0000_0001,
                    _ => next() & 0xbfff_ffff,
                })
                .collect();
            let pick = |x: u32| [0u8, 1, 2, 3, 7, 8, 255][x as usize % 7];
            let (a, b, c, d) = (pick(next()), pick(next()), pick(next()), pick(next()));
            let mask = [u32::MAX, 0, next()][case % 3];
            let mut got = regs0.clone();
            ffma_rn_rows(&mut got, a, b, c, d, mask);
            let row = |r: u8| -> [u32; 32] {
                std::array::from_fn(|l| if r < 8 { regs0[r as usize * 32 + l] } else { 0 })
            };
            let mut want = regs0.clone();
            if d < 8 {
                for l in 0..32 {
                    if mask >> l & 1 == 1 {
                        want[d as usize * 32 + l] = ffma_lane(row(a)[l], row(b)[l], row(c)[l]);
                    }
                }
            }
            assert_eq!(got, want, "R{d} = R{a} * R{b} + R{c}, lanes {mask:#x}");
            let mut scalar = regs0.clone();
            ffma_rows(&mut scalar, a, b, c, d, mask);
            assert_eq!(scalar, want);
            let mut chosen = regs0.clone();
            FfmaRows::host().run(&mut chosen, a, b, c, d, mask);
            assert_eq!(chosen, want);
        }
    }

    #[test]
    fn directed_rounding_brackets_the_exact_result() {
        // 1 + 2^-30 is not a single: RM gives 1, RP the next single up.
        let a = 1.0f32;
        let b = 2f32.powi(-30);
        assert_eq!(fadd(a, b, Rnd::Rm, false, false), 1.0f32.to_bits());
        assert_eq!(fadd(a, b, Rnd::Rp, false, false), next_up32(1.0).to_bits());
        assert_eq!(fadd(a, b, Rnd::Rz, false, false), 1.0f32.to_bits());
        assert_eq!(fadd(-a, -b, Rnd::Rz, false, false), (-1.0f32).to_bits());
        assert_eq!(
            fadd(-a, -b, Rnd::Rm, false, false),
            next_down32(-1.0).to_bits()
        );
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
    fn exact_zero_sums_are_negative_in_rm() {
        assert_eq!(fadd(1.0, -1.0, Rnd::Rm, false, false), 0x8000_0000);
        assert_eq!(fadd(0.0, -0.0, Rnd::Rm, false, false), 0x8000_0000);
        assert_eq!(fadd(0.0, 0.0, Rnd::Rm, false, false), 0);
        assert_eq!(fadd(1.0, -1.0, Rnd::Rz, false, false), 0);
        assert_eq!(ffma(2.0, 3.0, -6.0, Rnd::Rm, false, false), 0x8000_0000);
        assert_eq!(dadd(1.0, -1.0, Rnd::Rm), 1 << 63);
        assert_eq!(dfma(2.0, 0.0, -0.0, Rnd::Rm), 1 << 63);
        assert_eq!(dfma(2.0, 0.0, -0.0, Rnd::Rp), 0);
    }

    #[test]
    fn double_directed_modes_overflow_and_underflow() {
        let max = f64::MAX.to_bits();
        assert_eq!(dadd(f64::MAX, f64::MAX, Rnd::Rz), max);
        assert_eq!(dmul(-f64::MAX, 2.0, Rnd::Rp), max | 1 << 63);
        assert_eq!(dmul(-f64::MAX, 2.0, Rnd::Rm), f64::NEG_INFINITY.to_bits());
        // 1.5 * the smallest subnormal: 1 in RZ and RM, 2 in RP.
        let tiny = f64::from_bits(1);
        assert_eq!(dmul(1.5, tiny, Rnd::Rz), 1);
        assert_eq!(dmul(1.5, tiny, Rnd::Rp), 2);
        assert_eq!(dmul(0.5, tiny, Rnd::Rp), 1);
        assert_eq!(dmul(0.5, tiny, Rnd::Rz), 0);
        // A product far below the addend's last place still decides a directed rounding.
        assert_eq!(dfma(tiny, tiny, 1.0, Rnd::Rp), 1.0f64.to_bits() + 1);
        assert_eq!(dfma(-tiny, tiny, 1.0, Rnd::Rz), 1.0f64.to_bits() - 1);
        assert_eq!(dfma(tiny, 0.5, -0.5, Rnd::Rm), (-0.5f64).to_bits());
    }

    #[test]
    fn halves() {
        assert_eq!(to_half(1.0, Rnd::Rn), 0x3c00);
        assert_eq!(to_half(-2.0, Rnd::Rn), 0xc000);
        assert_eq!(to_half(65504.0, Rnd::Rn), 0x7bff);
        assert_eq!(to_half(65520.0, Rnd::Rn), 0x7c00); // the tie rounds to infinity
        assert_eq!(to_half(65520.0, Rnd::Rz), 0x7bff);
        assert_eq!(to_half(2f64.powi(-24), Rnd::Rn), 0x0001);
        assert_eq!(to_half(2f64.powi(-25), Rnd::Rn), 0x0000); // tie to even
        assert_eq!(to_half(2f64.powi(-25), Rnd::Rp), 0x0001);
        assert_eq!(to_half(-0.0, Rnd::Rn), 0x8000);
        assert_eq!(to_half(1.0 + 2f64.powi(-11), Rnd::Rn), 0x3c00);
        assert_eq!(to_half(1.0 + 2f64.powi(-11), Rnd::Rp), 0x3c01);
        assert_eq!(to_half(f64::NEG_INFINITY, Rnd::Rz), 0xfc00);
    }

    #[test]
    fn overflow_in_directed_modes_stops_at_max() {
        let r = fmul(f32::MAX, 2.0, Rnd::Rz, false, false);
        assert_eq!(f32::from_bits(r), f32::MAX);
        let r = fmul(f32::MAX, 2.0, Rnd::Rp, false, false);
        assert_eq!(f32::from_bits(r), f32::INFINITY);
    }
}
