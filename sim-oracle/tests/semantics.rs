//! Instruction-level differential tests of the functional executor against the
//! PTX ISA's documented semantics.
//!
//! For each variant (one PTX instruction, or a short chain such as `add.cc` +
//! `addc`), a kernel `out[i] = op(a[i], b[i], c[i])` is generated; all kernels
//! go into one PTX module that ptxas compiles for sm_35 in a single call. Each
//! kernel runs in `sim-core`'s executor over inputs that mix seeded random
//! values with special ones (zeros of both signs, denormals, infinities, NaNs,
//! INT_MIN/MAX, shift amounts at and past the width, ...), and every result is
//! compared with a reference written here from the PTX ISA manual: bit for bit
//! for integer and correctly rounded floating-point instructions, within the
//! documented error bounds for the `.approx` and `.full` ones.
//!
//! The floating-point references do not use the host's FPU for rounding: `sf`
//! below is a small exact soft-float (values as integer mantissa times a power
//! of two, rounded once in any of the four modes), so a reference cannot share
//! a double-rounding or directed-rounding mistake with the executor.
//!
//! Where the PTX manual leaves a result unspecified (division by zero, the
//! payload of a NaN that is not canonical, `slct.f32` with a NaN selector), the
//! reference says so and the value is not compared; a variant that compares no
//! value at all fails the test. Instructions the executor reports as not
//! modelled (`Program::problems`) are skipped with a note; the known ones are
//! listed in `NOT_MODELLED`, and any other skip fails the test.
//!
//! `SEMANTICS_ONLY=name` runs the variants whose kernel name contains `name`;
//! `SEMANTICS_PTX=file` writes the generated PTX module there (for
//! `ptxas -arch=sm_35` and `cuobjdump -sass`).

use sim_core::func::{self, Dims};
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_isa::cubin::Cubin;
use sim_oracle::tools::Tools;

/// Values per variant.
const N: usize = 2048;
/// Threads per block.
const BLOCK: u32 = 128;

// ---------------------------------------------------------------------------
// Exact soft-float, the reference for every rounded floating-point operation.
// ---------------------------------------------------------------------------

mod sf {
    /// Rounding direction.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Rnd {
        N,
        Z,
        M,
        P,
    }

    /// An IEEE binary format.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct Fmt {
        /// Precision in bits, hidden bit included.
        pub p: i32,
        pub emax: i32,
        pub bits: u32,
    }

    pub const F32: Fmt = Fmt {
        p: 24,
        emax: 127,
        bits: 32,
    };
    pub const F64: Fmt = Fmt {
        p: 53,
        emax: 1023,
        bits: 64,
    };

    impl Fmt {
        pub fn emin(self) -> i32 {
            1 - self.emax
        }
        pub fn sign(self) -> u64 {
            1u64 << (self.bits - 1)
        }
        /// The canonical NaN (`0x7fffffff`, and its double analogue).
        pub fn nan(self) -> u64 {
            self.sign() - 1
        }
        pub fn inf(self, neg: bool) -> u64 {
            let e = ((1u64 << (self.bits as i32 - self.p)) - 1) << (self.p - 1);
            e | if neg { self.sign() } else { 0 }
        }
        pub fn zero(self, neg: bool) -> u64 {
            if neg {
                self.sign()
            } else {
                0
            }
        }
        pub fn max(self, neg: bool) -> u64 {
            self.inf(neg) - 1
        }
        fn frac_mask(self) -> u64 {
            (1u64 << (self.p - 1)) - 1
        }
        fn exp_field(self, x: u64) -> u64 {
            (x >> (self.p - 1)) & ((1u64 << (self.bits as i32 - self.p)) - 1)
        }
        pub fn is_nan(self, x: u64) -> bool {
            self.exp_field(x) == (1u64 << (self.bits as i32 - self.p)) - 1
                && x & self.frac_mask() != 0
        }
        pub fn is_subnormal(self, x: u64) -> bool {
            self.exp_field(x) == 0 && x & self.frac_mask() != 0
        }
        /// Flush a subnormal to a zero of its sign.
        pub fn flush(self, x: u64) -> u64 {
            if self.is_subnormal(x) {
                x & self.sign()
            } else {
                x
            }
        }
    }

    /// An exact value: `m * 2^e` for finite non-zero ones.
    #[derive(Clone, Copy, Debug)]
    pub enum Val {
        Nan,
        Inf(bool),
        Zero(bool),
        Fin(bool, u128, i32),
    }

    pub fn unpack(x: u64, f: Fmt) -> Val {
        let neg = x & f.sign() != 0;
        let exp = f.exp_field(x) as i32;
        let frac = (x & f.frac_mask()) as u128;
        let top = (1i32 << (f.bits as i32 - f.p)) - 1;
        if exp == top {
            if frac == 0 {
                Val::Inf(neg)
            } else {
                Val::Nan
            }
        } else if exp == 0 {
            if frac == 0 {
                Val::Zero(neg)
            } else {
                Val::Fin(neg, frac, f.emin() - (f.p - 1))
            }
        } else {
            Val::Fin(neg, frac | 1 << (f.p - 1), exp - f.emax - (f.p - 1))
        }
    }

    /// Unpacks, flushing a subnormal input when `ftz`.
    pub fn un(x: u64, f: Fmt, ftz: bool) -> Val {
        unpack(if ftz { f.flush(x) } else { x }, f)
    }

    /// Rounds `m * 2^e` (plus a positive fraction of `2^e` when `sticky`) to `f`.
    pub fn round(neg: bool, m: u128, e: i32, sticky: bool, f: Fmt, r: Rnd) -> u64 {
        assert!(m != 0, "round of a zero mantissa");
        let p = f.p;
        let len = 128 - m.leading_zeros() as i32;
        let msb = e + len - 1;
        let mut q = (msb - (p - 1)).max(f.emin() - (p - 1));
        let sh = q - e;
        let (mut v, rb, st) = if sh <= 0 {
            (m << (-sh), false, sticky)
        } else if sh > 128 {
            (0, false, true)
        } else if sh == 128 {
            (0, m >> 127 == 1, sticky || m & ((1u128 << 127) - 1) != 0)
        } else {
            (
                m >> sh,
                (m >> (sh - 1)) & 1 == 1,
                sticky || m & ((1u128 << (sh - 1)) - 1) != 0,
            )
        };
        let inexact = rb || st;
        let inc = match r {
            Rnd::N => rb && (st || v & 1 == 1),
            Rnd::Z => false,
            Rnd::M => neg && inexact,
            Rnd::P => !neg && inexact,
        };
        if inc {
            v += 1;
        }
        if v == 1u128 << p {
            v >>= 1;
            q += 1;
        }
        if v >= 1u128 << (p - 1) && q + p - 1 > f.emax {
            let to_inf = match r {
                Rnd::N => true,
                Rnd::Z => false,
                Rnd::M => neg,
                Rnd::P => !neg,
            };
            return if to_inf { f.inf(neg) } else { f.max(neg) };
        }
        let s = if neg { f.sign() } else { 0 };
        if v < 1u128 << (p - 1) {
            s | v as u64
        } else {
            s | ((q + p - 1 + f.emax) as u64) << (p - 1) | (v as u64 & f.frac_mask())
        }
    }

    /// The exact value `v` rounded to `f` (a conversion).
    pub fn conv(v: Val, f: Fmt, r: Rnd) -> u64 {
        match v {
            Val::Nan => f.nan(),
            Val::Inf(n) => f.inf(n),
            Val::Zero(n) => f.zero(n),
            Val::Fin(n, m, e) => round(n, m, e, false, f, r),
        }
    }

    fn norm(m: u128, e: i32) -> (u128, i32) {
        let s = m.leading_zeros() as i32 - 3; // msb at bit 124
        if s >= 0 {
            (m << s, e - s)
        } else {
            (m >> -s, e - s) // never needed for our widths; exactness asserted
        }
    }

    /// Exact sum of two non-zero finite values: `None` if exactly zero.
    fn sum(
        n1: bool,
        m1: u128,
        e1: i32,
        n2: bool,
        m2: u128,
        e2: i32,
    ) -> Option<(bool, u128, i32, bool)> {
        assert!(m1 < 1 << 125 && m2 < 1 << 125);
        let (a, b) = (norm(m1, e1), norm(m2, e2));
        let ((n1, (m1, e1)), (n2, (m2, e2))) = if (b.1, b.0) > (a.1, a.0) {
            ((n2, b), (n1, a))
        } else {
            ((n1, a), (n2, b))
        };
        let d = e1 - e2;
        let (m2s, st) = if d == 0 {
            (m2, false)
        } else if d >= 128 {
            (0, true)
        } else {
            (m2 >> d, m2 & ((1u128 << d) - 1) != 0)
        };
        if n1 == n2 {
            Some((n1, m1 + m2s, e1, st))
        } else {
            let mut r = m1 - m2s;
            if st {
                r -= 1;
            }
            if r == 0 && !st {
                None
            } else {
                Some((n1, r, e1, st))
            }
        }
    }

    pub fn add(a: Val, b: Val, f: Fmt, r: Rnd) -> u64 {
        use Val::*;
        match (a, b) {
            (Nan, _) | (_, Nan) => f.nan(),
            (Inf(x), Inf(y)) => {
                if x == y {
                    f.inf(x)
                } else {
                    f.nan()
                }
            }
            (Inf(x), _) | (_, Inf(x)) => f.inf(x),
            (Zero(x), Zero(y)) => f.zero(if x == y { x } else { r == Rnd::M }),
            (Zero(_), v) | (v, Zero(_)) => conv(v, f, r),
            (Fin(n1, m1, e1), Fin(n2, m2, e2)) => match sum(n1, m1, e1, n2, m2, e2) {
                None => f.zero(r == Rnd::M),
                Some((n, m, e, st)) => round(n, m, e, st, f, r),
            },
        }
    }

    pub fn neg(v: Val) -> Val {
        match v {
            Val::Nan => Val::Nan,
            Val::Inf(n) => Val::Inf(!n),
            Val::Zero(n) => Val::Zero(!n),
            Val::Fin(n, m, e) => Val::Fin(!n, m, e),
        }
    }

    /// The exact product (not rounded).
    fn prod(a: Val, b: Val) -> Val {
        use Val::*;
        match (a, b) {
            (Nan, _) | (_, Nan) => Nan,
            (Inf(_), Zero(_)) | (Zero(_), Inf(_)) => Nan,
            (Inf(x), Inf(y)) | (Inf(x), Fin(y, ..)) | (Fin(x, ..), Inf(y)) => Inf(x ^ y),
            (Zero(x), Zero(y)) | (Zero(x), Fin(y, ..)) | (Fin(x, ..), Zero(y)) => Zero(x ^ y),
            (Fin(x, m1, e1), Fin(y, m2, e2)) => Fin(x ^ y, m1 * m2, e1 + e2),
        }
    }

    pub fn mul(a: Val, b: Val, f: Fmt, r: Rnd) -> u64 {
        conv(prod(a, b), f, r)
    }

    pub fn fma(a: Val, b: Val, c: Val, f: Fmt, r: Rnd) -> u64 {
        add(prod(a, b), c, f, r)
    }

    pub fn div(a: Val, b: Val, f: Fmt, r: Rnd) -> u64 {
        use Val::*;
        match (a, b) {
            (Nan, _) | (_, Nan) | (Inf(_), Inf(_)) | (Zero(_), Zero(_)) => f.nan(),
            (Inf(x), Zero(y)) | (Inf(x), Fin(y, ..)) => f.inf(x ^ y),
            (Zero(x), Inf(y)) | (Fin(x, ..), Inf(y)) => f.zero(x ^ y),
            (Fin(x, ..), Zero(y)) => f.inf(x ^ y),
            (Zero(x), Fin(y, ..)) => f.zero(x ^ y),
            (Fin(x, m1, e1), Fin(y, m2, e2)) => {
                let s1 = m1.leading_zeros() as i32 - 2; // msb at bit 125
                let s2 = m2.leading_zeros() as i32 - (128 - f.p); // msb at bit p-1
                let (m1, m2) = (m1 << s1, m2 << s2);
                let q = m1 / m2;
                let rem = m1 % m2;
                round(x ^ y, q, (e1 - s1) - (e2 - s2), rem != 0, f, r)
            }
        }
    }

    fn isqrt(n: u128) -> u128 {
        let mut x = (n as f64).sqrt() as u128;
        while x * x > n {
            x -= 1;
        }
        while (x + 1) * (x + 1) <= n {
            x += 1;
        }
        x
    }

    pub fn sqrt(a: Val, f: Fmt, r: Rnd) -> u64 {
        use Val::*;
        match a {
            Nan | Inf(true) | Fin(true, ..) => f.nan(),
            Inf(false) => f.inf(false),
            Zero(n) => f.zero(n),
            Fin(false, m, e) => {
                let mut s = m.leading_zeros() as i32 - 2; // msb at bit 125
                if (e - s) % 2 != 0 {
                    s -= 1;
                }
                let mm = m << s;
                let root = isqrt(mm);
                round(false, root, (e - s) / 2, root * root != mm, f, r)
            }
        }
    }

    /// An integer as an exact value.
    pub fn int(v: i128) -> Val {
        if v == 0 {
            Val::Zero(false)
        } else {
            Val::Fin(v < 0, v.unsigned_abs(), 0)
        }
    }
}

use sf::{Fmt, Rnd, Val, F32, F64};

// ---------------------------------------------------------------------------
// Inputs.
// ---------------------------------------------------------------------------

/// SplitMix64: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What kind of values an operand takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dom {
    I32,
    I64,
    /// Non-zero 32-bit integers (divisors).
    NzI32,
    NzI64,
    F32,
    F64,
    /// Shift amounts for 32-bit shifts.
    Sh32,
    /// Shift amounts for 64-bit shifts.
    Sh64,
    /// Bit positions and lengths (0..255 matter, higher bits ignored).
    Pos,
    /// Bit positions and lengths within the documented range 0..255.
    Pos8,
    /// `prmt` selectors.
    Sel,
    /// Floats near integers and at the integer types' limits (conversions).
    F32Int,
    F64Int,
    /// Angles for sin/cos: |x| <= 100 pi.
    Trig,
    /// Exponents for ex2.
    Ex2,
    /// Mostly positive floats (lg2, sqrt, rsqrt).
    PosF32,
    /// Divisors for div.approx: |b| in [2^-100, 2^100].
    DivF32,
    /// Half-precision bit patterns (in the low 16 bits).
    F16,
    /// 0 or 1, by warp: all ones, all zeros, mixed, all but one (vote).
    Coin,
    /// Lane offsets and indices for shfl.
    Lane,
    /// shfl's clamp and segment mask operand.
    ShflC,
}

const F32_SPECIAL: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x3f80_0000,
    0xbf80_0000,
    0x3f00_0000,
    0x4000_0000,
    0x4040_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0080_0000,
    0x8080_0000,
    0x0040_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0001,
    0x7fff_ffff,
    0x3fc0_0000,
    0x4020_0000,
    0xc020_0000,
    0x3eff_ffff,
    0x4b00_0000,
    0x4b00_0001,
    0x4f00_0000,
    0xcf00_0000,
    0x4f80_0000,
    0x4f7f_ffff,
    0x4eff_ffff,
    0x5f00_0000,
    0xdf00_0000,
    0x5f80_0000,
    0x3f7f_ffff,
    0x3f80_0001,
    0x7e80_0000,
    0x0100_0000,
    0x3400_0000,
    0x2000_0000,
];

const F64_SPECIAL: &[u64] = &[
    0,
    1 << 63,
    0x3ff0_0000_0000_0000,
    0xbff0_0000_0000_0000,
    0x3fe0_0000_0000_0000,
    0x4000_0000_0000_0000,
    0x4008_0000_0000_0000,
    1,
    0x8000_0000_0000_0001,
    0x000f_ffff_ffff_ffff,
    0x0010_0000_0000_0000,
    0x8010_0000_0000_0000,
    0x7fef_ffff_ffff_ffff,
    0xffef_ffff_ffff_ffff,
    0x7ff0_0000_0000_0000,
    0xfff0_0000_0000_0000,
    0x7ff8_0000_0000_0000,
    0xfff8_0000_0000_0000,
    0x7ff0_0000_0000_0001,
    0x3ff8_0000_0000_0000,
    0x4004_0000_0000_0000,
    0xc004_0000_0000_0000,
    0x3fdf_ffff_ffff_ffff,
    0x41e0_0000_0000_0000, // 2^31
    0xc1e0_0000_0000_0000,
    0x41f0_0000_0000_0000, // 2^32
    0x41ef_ffff_ffe0_0000, // 2^32 - 1
    0x43e0_0000_0000_0000, // 2^63
    0xc3e0_0000_0000_0000,
    0x43f0_0000_0000_0000, // 2^64
    0x3fef_ffff_ffff_ffff,
    0x3ff0_0000_0000_0001,
    0x47ef_ffff_e000_0000, // f32::MAX
    0x47ef_ffff_f000_0000, // halfway above f32::MAX
    0x3810_0000_0000_0000, // f32 min normal
    0x36a0_0000_0000_0000, // f32 min subnormal
    0x3690_0000_0000_0000, // half of it
    0x3698_0000_0000_0000,
];

const I32_SPECIAL: &[u32] = &[
    0,
    1,
    2,
    3,
    0xffff_ffff,
    0xffff_fffe,
    0x8000_0000,
    0x7fff_ffff,
    0x8000_0001,
    0x7fff_fffe,
    0x7fff,
    0x8000,
    0xffff,
    0x1_0000,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x5555_5555,
    0xaaaa_aaaa,
    0x1234_5678,
    0xffff_8000,
    0xffff_ff80,
    0x0001_0001,
];

const I64_SPECIAL: &[u64] = &[
    0,
    1,
    2,
    u64::MAX,
    u64::MAX - 1,
    1 << 63,
    (1 << 63) - 1,
    (1 << 63) + 1,
    0xffff_ffff,
    0x1_0000_0000,
    0x1_0000_0001,
    0xffff_ffff_0000_0000,
    0xffff_fffe_ffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0xffff_ffff_8000_0000,
    0x0000_0001_ffff_ffff,
    0x5555_5555_5555_5555,
    0xaaaa_aaaa_aaaa_aaaa,
    0x1234_5678_9abc_def0,
];

const SH_SPECIAL: &[u32] = &[
    0,
    1,
    2,
    7,
    8,
    15,
    16,
    24,
    31,
    32,
    33,
    40,
    63,
    64,
    65,
    96,
    127,
    128,
    255,
    256,
    257,
    287,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0020,
];

const POS_SPECIAL: &[u32] = &[
    0,
    1,
    4,
    7,
    8,
    15,
    16,
    23,
    24,
    31,
    32,
    33,
    48,
    63,
    64,
    65,
    127,
    128,
    255,
    256,
    257,
    0x120,
    0xffff_ffff,
    0x1_0008,
];

const SEL_SPECIAL: &[u32] = &[
    0x3210,
    0x7654,
    0x0123,
    0x4567,
    0x8888,
    0xffff,
    0,
    1,
    2,
    3,
    0x5140,
    0x3276,
    0x1111_9a0b,
    0xcdef,
];

impl Dom {
    fn specials(self) -> Vec<u64> {
        let f32s = || F32_SPECIAL.iter().map(|&x| x as u64).collect::<Vec<_>>();
        match self {
            Dom::I32 => I32_SPECIAL.iter().map(|&x| x as u64).collect(),
            Dom::NzI32 => I32_SPECIAL
                .iter()
                .filter(|&&x| x != 0)
                .map(|&x| x as u64)
                .collect(),
            Dom::I64 => I64_SPECIAL.to_vec(),
            Dom::NzI64 => I64_SPECIAL.iter().copied().filter(|&x| x != 0).collect(),
            Dom::F32 | Dom::F32Int | Dom::PosF32 => f32s(),
            Dom::F64 | Dom::F64Int => F64_SPECIAL.to_vec(),
            Dom::Sh32 | Dom::Sh64 => SH_SPECIAL.iter().map(|&x| x as u64).collect(),
            Dom::Pos => POS_SPECIAL.iter().map(|&x| x as u64).collect(),
            Dom::Pos8 => POS_SPECIAL
                .iter()
                .filter(|&&x| x < 256)
                .map(|&x| x as u64)
                .collect(),
            Dom::Sel => SEL_SPECIAL.iter().map(|&x| x as u64).collect(),
            Dom::Trig => [
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                std::f32::consts::PI,
                -std::f32::consts::PI,
                std::f32::consts::FRAC_PI_2,
                314.159_27,
                -314.159_27,
            ]
            .iter()
            .map(|x| x.to_bits() as u64)
            .chain([
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0x0000_0001,
                0x8000_0001,
            ])
            .collect(),
            Dom::Ex2 => [
                0.0f32, -0.0, 1.0, -1.0, 0.5, 127.0, 127.99999, 128.0, -126.0, -127.0, -149.0,
                -150.0, -160.0,
            ]
            .iter()
            .map(|x| x.to_bits() as u64)
            .chain([
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0000,
                0x0000_0001,
                0x8000_0001,
            ])
            .collect(),
            Dom::F16 => vec![
                0, 0x8000, 0x3c00, 0xbc00, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
                0x7e00, 0x7c01, 0xffff, 0x3555,
            ],
            Dom::Coin => vec![0, 1],
            Dom::Lane => vec![0, 1, 2, 4, 8, 16, 31, 32, 33, 0xffff_ffff],
            Dom::ShflC => vec![0x1f, 0, 0x0f, 0x1c1f, 0x181f, 0x1f1f, 0x101f, 0x1e07],
            Dom::DivF32 => [1.0f32, -1.0, 3.0, 0.1, 7.0e-30, -3.0e29, 1.0e-30, 2.0e30]
                .iter()
                .map(|x| x.to_bits() as u64)
                .collect(),
        }
    }

    /// A random value; `prev` are the operands before this one.
    fn random(self, rng: &mut Rng, prev: &[u64]) -> u64 {
        match self {
            Dom::I32 | Dom::NzI32 => {
                let v = match rng.below(6) {
                    0 | 1 => rng.next() as u32,
                    2 => (rng.below(200) as i32 - 100) as u32,
                    3 => [0x8000_0000u32, 0x7fff_ffff, 0xffff_ffff, 0][rng.below(4) as usize]
                        .wrapping_add(rng.below(9) as u32)
                        .wrapping_sub(4),
                    4 => (1u32 << rng.below(32))
                        .wrapping_add(rng.below(3) as u32)
                        .wrapping_sub(1),
                    _ => (rng.next() as u32) >> rng.below(32),
                };
                if self == Dom::NzI32 && v == 0 {
                    7
                } else {
                    v as u64
                }
            }
            Dom::I64 | Dom::NzI64 => {
                let v = match rng.below(8) {
                    0 | 1 => rng.next(),
                    2 => (rng.below(200) as i64 - 100) as u64,
                    3 => rng.next() as u32 as u64,
                    4 => rng.next() as u32 as i32 as i64 as u64,
                    5 => (1u64 << rng.below(64))
                        .wrapping_add(rng.below(3))
                        .wrapping_sub(1),
                    6 => [0u64, 0xffff_ffff, 1 << 32, 1 << 63, u64::MAX][rng.below(5) as usize]
                        .wrapping_add(rng.below(9))
                        .wrapping_sub(4),
                    _ => rng.next() >> rng.below(64),
                };
                if self == Dom::NzI64 && v == 0 {
                    9
                } else {
                    v
                }
            }
            Dom::F32 => {
                // Often related to the previous operand, for cancellation and
                // rounding ties.
                if let Some(&p) = prev.last() {
                    if rng.below(6) == 0 {
                        let d = rng.below(5) as u32;
                        let x = (p as u32).wrapping_add(d).wrapping_sub(2);
                        return (x ^ if rng.below(2) == 0 { 0x8000_0000 } else { 0 }) as u64;
                    }
                }
                match rng.below(8) {
                    0 | 1 => rng.next() as u32 as u64,
                    2 => {
                        // Few significant bits: exact products and sums, ties.
                        let m = rng.below(1 << 6) as u32;
                        let e = 120 + rng.below(16) as u32;
                        ((rng.below(2) as u32) << 31 | e << 23 | m << 17) as u64
                    }
                    3 => (rng.next() as u32 & 0x807f_ffff | (rng.below(3) as u32) << 23) as u64, // tiny
                    _ => {
                        let e = 107 + rng.below(40) as u32;
                        ((rng.next() as u32) & 0x807f_ffff | e << 23) as u64
                    }
                }
            }
            Dom::F64 => {
                if let Some(&p) = prev.last() {
                    if rng.below(6) == 0 {
                        let d = rng.below(5);
                        let x = p.wrapping_add(d).wrapping_sub(2);
                        return x ^ if rng.below(2) == 0 { 1 << 63 } else { 0 };
                    }
                }
                match rng.below(8) {
                    0 | 1 => rng.next(),
                    2 => {
                        let m = rng.below(1 << 8);
                        let e = 1015 + rng.below(16);
                        rng.below(2) << 63 | e << 52 | m << 44
                    }
                    3 => rng.next() & 0x800f_ffff_ffff_ffff | rng.below(3) << 52,
                    _ => {
                        let e = 1003 + rng.below(40);
                        rng.next() & 0x800f_ffff_ffff_ffff | e << 52
                    }
                }
            }
            Dom::Sh32 => match rng.below(5) {
                0 => rng.next() as u32 as u64,
                _ => rng.below(71),
            },
            Dom::Sh64 => match rng.below(5) {
                0 => rng.next() as u32 as u64,
                _ => rng.below(140),
            },
            Dom::Pos => match rng.below(4) {
                0 => rng.next() as u32 as u64,
                1 => rng.below(300),
                _ => rng.below(41),
            },
            Dom::Pos8 => match rng.below(3) {
                0 => rng.below(256),
                _ => rng.below(70),
            },
            Dom::Sel => rng.next() as u32 as u64,
            Dom::F32Int => {
                let fr = [
                    0.0,
                    0.5,
                    0.25,
                    0.75,
                    0.499_999_97,
                    0.500_000_06,
                    0.999_999_9,
                ][rng.below(7) as usize];
                let k = match rng.below(4) {
                    0 => rng.below(10) as f64,
                    1 => rng.below(1 << 20) as f64,
                    2 => 2f64.powi(rng.below(70) as i32),
                    _ => rng.below(300) as f64,
                };
                let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                if rng.below(5) == 0 {
                    rng.next() as u32 as u64
                } else {
                    ((s * (k + fr)) as f32).to_bits() as u64
                }
            }
            Dom::F64Int => {
                let fr = [
                    0.0,
                    0.5,
                    0.25,
                    0.75,
                    0.499_999_999_999_999_9,
                    0.500_000_000_000_000_1,
                ][rng.below(6) as usize];
                let k = match rng.below(4) {
                    0 => rng.below(10) as f64,
                    1 => rng.below(1 << 40) as f64,
                    2 => 2f64.powi(rng.below(70) as i32) + [0.0, -1.0, 1.0][rng.below(3) as usize],
                    _ => rng.below(300) as f64,
                };
                let s = if rng.below(2) == 0 { 1.0 } else { -1.0 };
                if rng.below(5) == 0 {
                    rng.next()
                } else {
                    (s * (k + fr)).to_bits()
                }
            }
            Dom::Trig => {
                let r = if rng.below(4) == 0 {
                    4.0
                } else {
                    100.0 * std::f64::consts::PI
                };
                (((rng.unit() * 2.0 - 1.0) * r) as f32).to_bits() as u64
            }
            Dom::Ex2 => (((rng.unit() * 2.0 - 1.0) * 140.0) as f32).to_bits() as u64,
            Dom::PosF32 => match rng.below(4) {
                0 => rng.next() as u32 as u64 & 0x7fff_ffff,
                1 => ((rng.unit() * 4.0) as f32).to_bits() as u64,
                _ => {
                    ((rng.next() as u32) & 0x007f_ffff | (100 + rng.below(56) as u32) << 23) as u64
                }
            },
            Dom::F16 => rng.next() & 0xffff,
            Dom::Coin => rng.below(2),
            Dom::Lane => match rng.below(4) {
                0 => rng.next() as u32 as u64,
                _ => rng.below(40),
            },
            Dom::ShflC => {
                // A clamp in bits 4..0 and a segment mask in bits 12..8.
                let seg = [0u64, 0x10, 0x18, 0x1c, 0x1e, 0x1f][rng.below(6) as usize];
                seg << 8
                    | rng.below(32)
                    | if rng.below(4) == 0 {
                        rng.next() as u32 as u64 & 0xffff_e0e0
                    } else {
                        0
                    }
            }
            Dom::DivF32 => {
                let e = 27 + rng.below(200) as u32;
                ((rng.next() as u32) & 0x807f_ffff | e << 23) as u64
            }
        }
    }
}

/// The inputs of one variant: `n` rows of up to three operands.
fn inputs(doms: &[Dom], seed: u64) -> Vec<[u64; 3]> {
    let mut rng = Rng(seed);
    let sp: Vec<Vec<u64>> = doms.iter().map(|d| d.specials()).collect();
    let mut rows = Vec::with_capacity(N);
    for i in 0..N {
        let mut row = [0u64; 3];
        let mut stride = 1usize;
        for (k, d) in doms.iter().enumerate() {
            let v = if i < N / 2 {
                // The first half: the specials of the first two operands in
                // every combination, the third's at random.
                let s = &sp[k];
                if k < 2 {
                    let v = s[(i / stride) % s.len()];
                    stride *= s.len();
                    v
                } else if rng.below(2) == 0 {
                    s[rng.below(s.len() as u64) as usize]
                } else {
                    d.random(&mut rng, &row[..k])
                }
            } else if rng.below(5) == 0 {
                sp[k][rng.below(sp[k].len() as u64) as usize]
            } else {
                d.random(&mut rng, &row[..k])
            };
            row[k] = if *d == Dom::Coin {
                match (i / 32) % 4 {
                    0 => 1,
                    1 => 0,
                    2 => v,
                    _ => (i % 32 != 7) as u64,
                }
            } else {
                v
            };
        }
        rows.push(row);
    }
    rows
}

// ---------------------------------------------------------------------------
// Variants.
// ---------------------------------------------------------------------------

/// Register width of an operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum W {
    B32,
    B64,
}

impl W {
    fn bytes(self) -> usize {
        match self {
            W::B32 => 4,
            W::B64 => 8,
        }
    }
    fn ptx(self) -> &'static str {
        match self {
            W::B32 => "b32",
            W::B64 => "b64",
        }
    }
}

/// How a result is compared with the reference.
#[derive(Clone, Copy, Debug)]
enum Check {
    /// Bit for bit.
    Exact,
    /// Bit for bit, except that any NaN matches any NaN (PTX does not specify
    /// the payload).
    F32,
    F64,
    /// As `F32`, for a `.ftz` result: PTX does not say whether a result is tiny
    /// before or after rounding, so where the reference rounds up to the
    /// smallest normal (±2^-126) a zero of its sign is accepted too. (ptxas's
    /// `div.rn.ftz.f32` flushes a quotient whose 24-bit rounding is below
    /// 2^-126; the executor's `FFMA.FTZ` flushes after rounding to the
    /// subnormal grid.)
    F32Ftz,
    /// A half in the low 16 bits (the rest zero); any NaN matches any NaN.
    F16,
    /// The reference gives the exact value as an f64; the result must be within
    /// `ulps` units in the last place of it (in f32), or within `abs` of it,
    /// or within `rel` of it relatively, whichever is largest.
    Approx {
        ulps: f64,
        abs: f64,
        rel: f64,
    },
}

/// The expected result of row `i`, given every row (a few instructions, such as
/// `shfl` and `vote`, read other lanes of the warp).
type Reference = Box<dyn Fn(&[[u64; 3]], usize) -> Option<u64>>;

struct Variant {
    name: String,
    ins: Vec<(W, Dom)>,
    out: W,
    body: String,
    check: Check,
    reference: Reference,
}

fn var(
    v: &mut Vec<Variant>,
    name: &str,
    ins: &[(W, Dom)],
    out: W,
    body: &str,
    check: Check,
    reference: impl Fn(u64, u64, u64) -> Option<u64> + 'static,
) {
    wvar(v, name, ins, out, body, check, move |rows, i| {
        reference(rows[i][0], rows[i][1], rows[i][2])
    });
}

/// A variant whose reference sees the whole warp.
fn wvar(
    v: &mut Vec<Variant>,
    name: &str,
    ins: &[(W, Dom)],
    out: W,
    body: &str,
    check: Check,
    reference: impl Fn(&[[u64; 3]], usize) -> Option<u64> + 'static,
) {
    v.push(Variant {
        name: name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect(),
        ins: ins.to_vec(),
        out,
        body: body.to_string(),
        check,
        reference: Box::new(reference),
    });
}

const I32: (W, Dom) = (W::B32, Dom::I32);
const I64: (W, Dom) = (W::B64, Dom::I64);
const F32_: (W, Dom) = (W::B32, Dom::F32);
const F64_: (W, Dom) = (W::B64, Dom::F64);

fn s32(x: u64) -> i32 {
    x as u32 as i32
}
fn some32(x: u32) -> Option<u64> {
    Some(x as u64)
}
fn flag(x: bool) -> Option<u64> {
    Some(x as u64)
}

/// A compare of two integer operands.
type Pred2 = fn(u64, u64) -> bool;
/// A float compare's outcome from the operands' order (None: unordered).
type OrdTest = fn(Option<std::cmp::Ordering>) -> bool;
/// An atomic's new value from the old one and the operands.
type AtomFn = fn(u32, u32, u32) -> u32;

const RNDS: [(&str, Rnd); 4] = [
    ("rn", Rnd::N),
    ("rz", Rnd::Z),
    ("rm", Rnd::M),
    ("rp", Rnd::P),
];

/// The f32 result of a rounded operation with `.ftz` and `.sat` applied.
fn fin32(r: u64, ftz: bool, sat: bool) -> u64 {
    let r = if ftz { F32.flush(r) } else { r };
    if !sat {
        return r;
    }
    if F32.is_nan(r) || r & 0x8000_0000 != 0 {
        0
    } else if f32::from_bits(r as u32) > 1.0 {
        0x3f80_0000
    } else {
        r
    }
}

fn integer_variants(v: &mut Vec<Variant>) {
    let sh = (W::B32, Dom::Sh32);
    // Carry chains.
    var(
        v,
        "add.cc+addc carry",
        &[I32, I32],
        W::B32,
        "add.cc.u32 %t1, %a, %b; addc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, _| Some((a + b) >> 32),
    );
    var(
        v,
        "add.cc+addc.cc+addc",
        &[I32, I32, I32],
        W::B32,
        "add.cc.u32 %t1, %a, %b; addc.cc.u32 %t2, %c, 0; addc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, c| {
            let c1 = (a + b) >> 32;
            Some((c + c1) >> 32)
        },
    );
    var(
        v,
        "addc value",
        &[I32, I32, I32],
        W::B32,
        "add.cc.u32 %t1, %a, %b; addc.u32 %d, %c, %a;",
        Check::Exact,
        |a, b, c| some32((c + a + ((a + b) >> 32)) as u32),
    );
    var(
        v,
        "sub.cc+subc borrow",
        &[I32, I32],
        W::B32,
        "sub.cc.u32 %t1, %a, %b; subc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, _| some32(if a < b { u32::MAX } else { 0 }),
    );
    var(
        v,
        "subc value",
        &[I32, I32, I32],
        W::B32,
        "sub.cc.u32 %t1, %a, %b; subc.u32 %d, %c, %a;",
        Check::Exact,
        |a, b, c| {
            some32(
                (c as u32)
                    .wrapping_sub(a as u32)
                    .wrapping_sub((a < b) as u32),
            )
        },
    );
    var(
        v,
        "sub.cc+subc.cc+subc",
        &[I32, I32, I32],
        W::B32,
        "sub.cc.u32 %t1, %a, %b; subc.cc.u32 %t2, %c, 0; subc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, c| {
            let b1 = (a < b) as u64;
            some32(if c < b1 { u32::MAX } else { 0 })
        },
    );
    var(v, "add.cc chain 64", &[I64, I64], W::B64,
        "mov.b64 {%t1,%t2}, %a; mov.b64 {%t3,%t4}, %b; add.cc.u32 %t5, %t1, %t3; addc.u32 %t6, %t2, %t4; mov.b64 %d, {%t5,%t6};",
        Check::Exact, |a, b, _| Some(a.wrapping_add(b)));
    var(v, "sub.cc chain 64", &[I64, I64], W::B64,
        "mov.b64 {%t1,%t2}, %a; mov.b64 {%t3,%t4}, %b; sub.cc.u32 %t5, %t1, %t3; subc.u32 %t6, %t2, %t4; mov.b64 %d, {%t5,%t6};",
        Check::Exact, |a, b, _| Some(a.wrapping_sub(b)));
    var(
        v,
        "mad.lo.cc+addc",
        &[I32, I32, I32],
        W::B32,
        "mad.lo.cc.u32 %t1, %a, %b, %c; addc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, c| Some(((a * b) as u32 as u64 + c) >> 32),
    );
    var(
        v,
        "mad.hi.cc+addc",
        &[I32, I32, I32],
        W::B32,
        "mad.hi.cc.u32 %t1, %a, %b, %c; addc.u32 %d, %t1, %t1;",
        Check::Exact,
        |a, b, c| {
            let s = ((a * b) >> 32) + c;
            some32((s as u32).wrapping_mul(2).wrapping_add((s >> 32) as u32))
        },
    );
    var(
        v,
        "madc.lo",
        &[I32, I32, I32],
        W::B32,
        "add.cc.u32 %t1, %c, %c; madc.lo.u32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            some32(
                ((a * b) as u32)
                    .wrapping_add(c as u32)
                    .wrapping_add(((c + c) >> 32) as u32),
            )
        },
    );
    var(
        v,
        "madc.hi.cc+addc",
        &[I32, I32, I32],
        W::B32,
        "add.cc.u32 %t1, %c, %c; madc.hi.cc.u32 %t2, %a, %b, %c; addc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, c| Some((((a * b) >> 32) + c + ((c + c) >> 32)) >> 32),
    );
    var(
        v,
        "madc.lo.s32 signed",
        &[I32, I32, I32],
        W::B32,
        "add.cc.u32 %t1, %c, %a; madc.lo.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            some32(
                (s32(a).wrapping_mul(s32(b)) as u32)
                    .wrapping_add(c as u32)
                    .wrapping_add(((c + a) >> 32) as u32),
            )
        },
    );
    // Multiplies.
    var(
        v,
        "mul.lo.s32",
        &[I32, I32],
        W::B32,
        "mul.lo.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).wrapping_mul(s32(b)) as u32),
    );
    var(
        v,
        "mul.hi.s32",
        &[I32, I32],
        W::B32,
        "mul.hi.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(((s32(a) as i64 * s32(b) as i64) >> 32) as u32),
    );
    var(
        v,
        "mul.hi.u32",
        &[I32, I32],
        W::B32,
        "mul.hi.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(((a * b) >> 32) as u32),
    );
    var(
        v,
        "mul.wide.s32",
        &[I32, I32],
        W::B64,
        "mul.wide.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some((s32(a) as i64 * s32(b) as i64) as u64),
    );
    var(
        v,
        "mul.wide.u32",
        &[I32, I32],
        W::B64,
        "mul.wide.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a * b),
    );
    var(
        v,
        "mad.lo.s32",
        &[I32, I32, I32],
        W::B32,
        "mad.lo.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| some32(s32(a).wrapping_mul(s32(b)).wrapping_add(s32(c)) as u32),
    );
    var(
        v,
        "mad.hi.s32",
        &[I32, I32, I32],
        W::B32,
        "mad.hi.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            some32((((s32(a) as i64 * s32(b) as i64) >> 32) as i32).wrapping_add(s32(c)) as u32)
        },
    );
    var(
        v,
        "mad.hi.u32",
        &[I32, I32, I32],
        W::B32,
        "mad.hi.u32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| some32((((a * b) >> 32) as u32).wrapping_add(c as u32)),
    );
    var(
        v,
        "mad.hi.sat.s32",
        &[I32, I32, I32],
        W::B32,
        "mad.hi.sat.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            let s = ((s32(a) as i64 * s32(b) as i64) >> 32) + s32(c) as i64;
            some32(s.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32)
        },
    );
    var(
        v,
        "mad.wide.s32",
        &[I32, I32, I64],
        W::B64,
        "mad.wide.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| Some(((s32(a) as i64 * s32(b) as i64) as u64).wrapping_add(c)),
    );
    var(
        v,
        "mad.wide.u32",
        &[I32, I32, I64],
        W::B64,
        "mad.wide.u32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| Some((a * b).wrapping_add(c)),
    );
    var(
        v,
        "mul.lo.s64",
        &[I64, I64],
        W::B64,
        "mul.lo.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.wrapping_mul(b)),
    );
    var(
        v,
        "mul.hi.u64",
        &[I64, I64],
        W::B64,
        "mul.hi.u64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(((a as u128 * b as u128) >> 64) as u64),
    );
    var(
        v,
        "mul.hi.s64",
        &[I64, I64],
        W::B64,
        "mul.hi.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(((a as i64 as i128 * b as i64 as i128) >> 64) as u64),
    );
    var(
        v,
        "mad.lo.s64",
        &[I64, I64, I64],
        W::B64,
        "mad.lo.s64 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| Some(a.wrapping_mul(b).wrapping_add(c)),
    );
    // Sums, differences, extremes.
    var(
        v,
        "add.s64",
        &[I64, I64],
        W::B64,
        "add.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.wrapping_add(b)),
    );
    var(
        v,
        "sub.s64",
        &[I64, I64],
        W::B64,
        "sub.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.wrapping_sub(b)),
    );
    var(
        v,
        "add.sat.s32",
        &[I32, I32],
        W::B32,
        "add.sat.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).saturating_add(s32(b)) as u32),
    );
    var(
        v,
        "sub.sat.s32",
        &[I32, I32],
        W::B32,
        "sub.sat.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).saturating_sub(s32(b)) as u32),
    );
    var(
        v,
        "sad.u32",
        &[I32, I32, I32],
        W::B32,
        "sad.u32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| some32((c as u32).wrapping_add((a as u32).abs_diff(b as u32))),
    );
    var(
        v,
        "sad.s32",
        &[I32, I32, I32],
        W::B32,
        "sad.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| some32((c as u32).wrapping_add(s32(a).abs_diff(s32(b)))),
    );
    var(
        v,
        "min.s32",
        &[I32, I32],
        W::B32,
        "min.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).min(s32(b)) as u32),
    );
    var(
        v,
        "max.s32",
        &[I32, I32],
        W::B32,
        "max.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).max(s32(b)) as u32),
    );
    var(
        v,
        "min.u32",
        &[I32, I32],
        W::B32,
        "min.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.min(b)),
    );
    var(
        v,
        "max.u32",
        &[I32, I32],
        W::B32,
        "max.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.max(b)),
    );
    var(
        v,
        "min.s64",
        &[I64, I64],
        W::B64,
        "min.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some((a as i64).min(b as i64) as u64),
    );
    var(
        v,
        "max.u64",
        &[I64, I64],
        W::B64,
        "max.u64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.max(b)),
    );
    var(
        v,
        "abs.s32",
        &[I32],
        W::B32,
        "abs.s32 %d, %a;",
        Check::Exact,
        |a, _, _| some32(s32(a).wrapping_abs() as u32),
    );
    var(
        v,
        "neg.s32",
        &[I32],
        W::B32,
        "neg.s32 %d, %a;",
        Check::Exact,
        |a, _, _| some32(s32(a).wrapping_neg() as u32),
    );
    var(
        v,
        "abs.s64",
        &[I64],
        W::B64,
        "abs.s64 %d, %a;",
        Check::Exact,
        |a, _, _| Some((a as i64).wrapping_abs() as u64),
    );
    var(
        v,
        "neg.s64",
        &[I64],
        W::B64,
        "neg.s64 %d, %a;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_neg()),
    );
    // Division (compiled to long sequences: MUFU.RCP, I2F, IMAD.HI, fix-ups).
    let nz32 = (W::B32, Dom::NzI32);
    let nz64 = (W::B64, Dom::NzI64);
    var(
        v,
        "div.u32",
        &[I32, nz32],
        W::B32,
        "div.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a / b),
    );
    var(
        v,
        "rem.u32",
        &[I32, nz32],
        W::B32,
        "rem.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a % b),
    );
    var(
        v,
        "div.s32",
        &[I32, nz32],
        W::B32,
        "div.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| s32(a).checked_div(s32(b)).map(|q| q as u32 as u64),
    );
    var(
        v,
        "rem.s32",
        &[I32, nz32],
        W::B32,
        "rem.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| s32(a).checked_rem(s32(b)).map(|q| q as u32 as u64),
    );
    var(
        v,
        "div.u64",
        &[I64, nz64],
        W::B64,
        "div.u64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a / b),
    );
    var(
        v,
        "rem.s64",
        &[I64, nz64],
        W::B64,
        "rem.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| (a as i64).checked_rem(b as i64).map(|q| q as u64),
    );
    // Logic.
    var(
        v,
        "and.b32",
        &[I32, I32],
        W::B32,
        "and.b32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a & b),
    );
    var(
        v,
        "or.b32",
        &[I32, I32],
        W::B32,
        "or.b32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a | b),
    );
    var(
        v,
        "xor.b32",
        &[I32, I32],
        W::B32,
        "xor.b32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a ^ b),
    );
    var(
        v,
        "not.b32",
        &[I32],
        W::B32,
        "not.b32 %d, %a;",
        Check::Exact,
        |a, _, _| some32(!(a as u32)),
    );
    var(
        v,
        "cnot.b32",
        &[I32],
        W::B32,
        "cnot.b32 %d, %a;",
        Check::Exact,
        |a, _, _| flag(a == 0),
    );
    var(
        v,
        "xor.b64",
        &[I64, I64],
        W::B64,
        "xor.b64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a ^ b),
    );
    var(
        v,
        "not.b64",
        &[I64],
        W::B64,
        "not.b64 %d, %a;",
        Check::Exact,
        |a, _, _| Some(!a),
    );
    var(
        v,
        "and-not.b32",
        &[I32, I32],
        W::B32,
        "not.b32 %t1, %b; and.b32 %d, %a, %t1;",
        Check::Exact,
        |a, b, _| Some(a & !b & 0xffff_ffff),
    );
    // Shifts: amounts past the width clamp (shl/shr) or clamp/wrap (shf).
    var(
        v,
        "shl.b32",
        &[I32, sh],
        W::B32,
        "shl.b32 %d, %a, %b;",
        Check::Exact,
        |a, n, _| some32(if n >= 32 { 0 } else { (a as u32) << n }),
    );
    var(
        v,
        "shr.u32",
        &[I32, sh],
        W::B32,
        "shr.u32 %d, %a, %b;",
        Check::Exact,
        |a, n, _| some32(if n >= 32 { 0 } else { (a as u32) >> n }),
    );
    var(
        v,
        "shr.s32",
        &[I32, sh],
        W::B32,
        "shr.s32 %d, %a, %b;",
        Check::Exact,
        |a, n, _| some32((s32(a) >> n.min(31)) as u32),
    );
    let sh64 = (W::B32, Dom::Sh64);
    var(
        v,
        "shl.b64",
        &[I64, sh64],
        W::B64,
        "shl.b64 %d, %a, %b;",
        Check::Exact,
        |a, n, _| Some(if n >= 64 { 0 } else { a << n }),
    );
    var(
        v,
        "shr.u64",
        &[I64, sh64],
        W::B64,
        "shr.u64 %d, %a, %b;",
        Check::Exact,
        |a, n, _| Some(if n >= 64 { 0 } else { a >> n }),
    );
    var(
        v,
        "shr.s64",
        &[I64, sh64],
        W::B64,
        "shr.s64 %d, %a, %b;",
        Check::Exact,
        |a, n, _| Some(((a as i64) >> n.min(63)) as u64),
    );
    var(
        v,
        "shl.b64 by 1",
        &[I64],
        W::B64,
        "shl.b64 %d, %a, 1;",
        Check::Exact,
        |a, _, _| Some(a << 1),
    );
    var(
        v,
        "shr.s64 by 40",
        &[I64],
        W::B64,
        "shr.s64 %d, %a, 40;",
        Check::Exact,
        |a, _, _| Some(((a as i64) >> 40) as u64),
    );
    for (mode, clamp) in [("clamp", true), ("wrap", false)] {
        let amount = move |c: u64| {
            if clamp {
                (c as u32).min(32)
            } else {
                c as u32 & 31
            }
        };
        var(
            v,
            &format!("shf.l.{mode}.b32"),
            &[I32, I32, sh],
            W::B32,
            &format!("shf.l.{mode}.b32 %d, %a, %b, %c;"),
            Check::Exact,
            move |a, b, c| {
                let n = amount(c);
                let x = (b << 32 | a) << n;
                some32((x >> 32) as u32)
            },
        );
        var(
            v,
            &format!("shf.r.{mode}.b32"),
            &[I32, I32, sh],
            W::B32,
            &format!("shf.r.{mode}.b32 %d, %a, %b, %c;"),
            Check::Exact,
            move |a, b, c| {
                let n = amount(c);
                let x = (b << 32 | a) >> n;
                some32(x as u32)
            },
        );
    }
    // Bit fields.
    let pos = (W::B32, Dom::Pos);
    let bfe32 = |a: u64, pos: u64, len: u64, signed: bool, msb: u64| -> u64 {
        let (pos, len) = (pos & 0xff, len & 0xff);
        let sbit = if !signed || len == 0 {
            0
        } else {
            a >> (pos + len - 1).min(msb) & 1
        };
        let mut d = 0u64;
        for i in 0..=msb {
            let bit = if i < len && pos + i <= msb {
                a >> (pos + i) & 1
            } else {
                sbit
            };
            d |= bit << i;
        }
        d
    };
    var(
        v,
        "bfe.u32",
        &[I32, pos, pos],
        W::B32,
        "bfe.u32 %d, %a, %b, %c;",
        Check::Exact,
        move |a, p, l| Some(bfe32(a, p, l, false, 31)),
    );
    var(
        v,
        "bfe.s32",
        &[I32, pos, pos],
        W::B32,
        "bfe.s32 %d, %a, %b, %c;",
        Check::Exact,
        move |a, p, l| Some(bfe32(a, p, l, true, 31)),
    );
    // The manual restricts positions and lengths to 0..255; ptxas expands the
    // 64-bit forms into shifts by the raw operands, so only that range is tested.
    let pos8 = (W::B32, Dom::Pos8);
    var(
        v,
        "bfe.u64",
        &[I64, pos8, pos8],
        W::B64,
        "bfe.u64 %d, %a, %b, %c;",
        Check::Exact,
        move |a, p, l| Some(bfe32(a, p, l, false, 63)),
    );
    var(
        v,
        "bfe.s64",
        &[I64, pos8, pos8],
        W::B64,
        "bfe.s64 %d, %a, %b, %c;",
        Check::Exact,
        move |a, p, l| Some(bfe32(a, p, l, true, 63)),
    );
    let bfi = |a: u64, b: u64, c: u64, msb: u64| -> u64 {
        let (pos, len) = (c & 0xff, (c >> 8) & 0xff);
        let mut f = b;
        let mut i = 0;
        while i < len && pos + i <= msb {
            f = (f & !(1 << (pos + i))) | ((a >> i & 1) << (pos + i));
            i += 1;
        }
        f
    };
    var(
        v,
        "bfi.b32",
        &[I32, I32, pos],
        W::B32,
        "shr.u32 %t1, %c, 8; bfi.b32 %d, %a, %b, %c, %t1;",
        Check::Exact,
        move |a, b, c| Some(bfi(a, b, c, 31)),
    );
    var(
        v,
        "bfi.b64",
        &[I64, I64, pos],
        W::B64,
        "and.b32 %t2, %c, 255; bfe.u32 %t1, %c, 8, 8; bfi.b64 %d, %a, %b, %t2, %t1;",
        Check::Exact,
        move |a, b, c| Some(bfi(a, b, c, 63)),
    );
    var(
        v,
        "brev.b32",
        &[I32],
        W::B32,
        "brev.b32 %d, %a;",
        Check::Exact,
        |a, _, _| some32((a as u32).reverse_bits()),
    );
    var(
        v,
        "brev.b64",
        &[I64],
        W::B64,
        "brev.b64 %d, %a;",
        Check::Exact,
        |a, _, _| Some(a.reverse_bits()),
    );
    let bfind = |a: u64, signed: bool, shiftamt: bool, msb: u32| -> u64 {
        let mut a = a;
        if signed && a >> msb & 1 == 1 {
            a = !a;
        }
        let mut d = u32::MAX;
        for i in (0..=msb).rev() {
            if a >> i & 1 == 1 {
                d = i;
                break;
            }
        }
        if shiftamt && d != u32::MAX {
            d = msb - d;
        }
        d as u64
    };
    for (ty, signed) in [("u32", false), ("s32", true)] {
        var(
            v,
            &format!("bfind.{ty}"),
            &[I32],
            W::B32,
            &format!("bfind.{ty} %d, %a;"),
            Check::Exact,
            move |a, _, _| Some(bfind(a, signed, false, 31)),
        );
        var(
            v,
            &format!("bfind.shiftamt.{ty}"),
            &[I32],
            W::B32,
            &format!("bfind.shiftamt.{ty} %d, %a;"),
            Check::Exact,
            move |a, _, _| Some(bfind(a, signed, true, 31)),
        );
    }
    for (ty, signed) in [("u64", false), ("s64", true)] {
        var(
            v,
            &format!("bfind.{ty}"),
            &[I64],
            W::B32,
            &format!("bfind.{ty} %d, %a;"),
            Check::Exact,
            move |a, _, _| Some(bfind(a, signed, false, 63)),
        );
    }
    var(
        v,
        "popc.b32",
        &[I32],
        W::B32,
        "popc.b32 %d, %a;",
        Check::Exact,
        |a, _, _| Some(a.count_ones() as u64),
    );
    var(
        v,
        "popc.b64",
        &[I64],
        W::B32,
        "popc.b64 %d, %a;",
        Check::Exact,
        |a, _, _| Some(a.count_ones() as u64),
    );
    var(
        v,
        "clz.b32",
        &[I32],
        W::B32,
        "clz.b32 %d, %a;",
        Check::Exact,
        |a, _, _| Some((a as u32).leading_zeros() as u64),
    );
    var(
        v,
        "clz.b64",
        &[I64],
        W::B32,
        "clz.b64 %d, %a;",
        Check::Exact,
        |a, _, _| Some(a.leading_zeros() as u64),
    );
    // prmt: the generic form and the six modes (PTX ISA, Table "prmt modes").
    let sel = (W::B32, Dom::Sel);
    var(
        v,
        "prmt.b32",
        &[I32, I32, sel],
        W::B32,
        "prmt.b32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            let bytes = (b << 32 | a).to_le_bytes();
            let mut d = 0u32;
            for i in 0..4 {
                let ctl = (c >> (4 * i)) & 0xf;
                let byte = bytes[(ctl & 7) as usize];
                let byte = if ctl & 8 != 0 {
                    if byte & 0x80 != 0 {
                        0xff
                    } else {
                        0
                    }
                } else {
                    byte
                };
                d |= (byte as u32) << (8 * i);
            }
            some32(d)
        },
    );
    // For each mode and c[1:0], the source byte of d.b3, d.b2, d.b1, d.b0.
    let modes: [(&str, [[u8; 4]; 4]); 6] = [
        (
            "f4e",
            [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
        ),
        (
            "b4e",
            [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
        ),
        (
            "rc8",
            [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
        ),
        (
            "ecl",
            [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
        ),
        (
            "ecr",
            [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
        ),
        (
            "rc16",
            [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
        ),
    ];
    for (mode, table) in modes {
        var(
            v,
            &format!("prmt.b32.{mode}"),
            &[I32, I32, sel],
            W::B32,
            &format!("prmt.b32.{mode} %d, %a, %b, %c;"),
            Check::Exact,
            move |a, b, c| {
                let bytes = (b << 32 | a).to_le_bytes();
                let t = table[(c & 3) as usize];
                some32(u32::from_le_bytes([
                    bytes[t[3] as usize],
                    bytes[t[2] as usize],
                    bytes[t[1] as usize],
                    bytes[t[0] as usize],
                ]))
            },
        );
    }
    // Compares, selects.
    let icmps: [(&str, Pred2, Pred2); 6] = [
        ("eq", |a, b| a == b, |a, b| a == b),
        ("ne", |a, b| a != b, |a, b| a != b),
        (
            "lt",
            |a, b| (a as u32 as i32) < (b as u32 as i32),
            |a, b| (a as i64) < (b as i64),
        ),
        (
            "le",
            |a, b| (a as u32 as i32) <= (b as u32 as i32),
            |a, b| (a as i64) <= (b as i64),
        ),
        (
            "gt",
            |a, b| (a as u32 as i32) > (b as u32 as i32),
            |a, b| (a as i64) > (b as i64),
        ),
        (
            "ge",
            |a, b| (a as u32 as i32) >= (b as u32 as i32),
            |a, b| (a as i64) >= (b as i64),
        ),
    ];
    for (op, f32_, f64_) in icmps {
        var(
            v,
            &format!("setp.{op}.s32"),
            &[I32, I32],
            W::B32,
            &format!("setp.{op}.s32 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b, _| flag(f32_(a, b)),
        );
        var(
            v,
            &format!("setp.{op}.s64"),
            &[I64, I64],
            W::B32,
            &format!("setp.{op}.s64 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b, _| flag(f64_(a, b)),
        );
    }
    let ucmps: [(&str, Pred2); 4] = [
        ("lo", |a, b| a < b),
        ("ls", |a, b| a <= b),
        ("hi", |a, b| a > b),
        ("hs", |a, b| a >= b),
    ];
    for (op, f) in ucmps {
        var(
            v,
            &format!("setp.{op}.u32"),
            &[I32, I32],
            W::B32,
            &format!("setp.{op}.u32 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b, _| flag(f(a, b)),
        );
        var(
            v,
            &format!("setp.{op}.u64"),
            &[I64, I64],
            W::B32,
            &format!("setp.{op}.u64 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b, _| flag(f(a, b)),
        );
    }
    var(v, "setp.lt.s32 both", &[I32, I32], W::B32, "setp.lt.s32 %p1|%p2, %a, %b; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; or.b32 %d, %t1, %t2;",
        Check::Exact, |a, b, _| some32(if s32(a) < s32(b) { 1 } else { 2 }));
    for (bop, f) in [
        ("and", (|x, y| x && y) as fn(bool, bool) -> bool),
        ("or", |x, y| x || y),
        ("xor", |x, y| x ^ y),
    ] {
        var(v, &format!("setp.gt.{bop}.u32"), &[I32, I32, I32], W::B32,
            &format!("setp.ne.u32 %p3, %c, 0; setp.gt.{bop}.u32 %p1|%p2, %a, %b, %p3; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; or.b32 %d, %t1, %t2;"),
            Check::Exact, move |a, b, c| {
                let t = a > b;
                let p = c != 0;
                some32(f(t, p) as u32 | (f(!t, p) as u32) << 1)
            });
    }
    var(
        v,
        "set.lt.u32.s32",
        &[I32, I32],
        W::B32,
        "set.lt.u32.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(if s32(a) < s32(b) { u32::MAX } else { 0 }),
    );
    var(
        v,
        "set.hs.f32.u32",
        &[I32, I32],
        W::B32,
        "set.hs.f32.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(if a >= b { 0x3f80_0000 } else { 0 }),
    );
    var(
        v,
        "set.ne.u32.s64",
        &[I64, I64],
        W::B32,
        "set.ne.u32.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(if a != b { u32::MAX } else { 0 }),
    );
    var(
        v,
        "selp.b32",
        &[I32, I32, I32],
        W::B32,
        "setp.ne.u32 %p1, %c, 0; selp.b32 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| Some(if c != 0 { a } else { b }),
    );
    var(
        v,
        "selp.b64",
        &[I64, I64, I32],
        W::B64,
        "setp.ne.u32 %p1, %c, 0; selp.b64 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| Some(if c != 0 { a } else { b }),
    );
    var(
        v,
        "slct.b32.s32",
        &[I32, I32, I32],
        W::B32,
        "slct.b32.s32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| Some(if s32(c) >= 0 { a } else { b }),
    );
    var(
        v,
        "slct.b32.f32",
        &[I32, I32, F32_],
        W::B32,
        "slct.b32.f32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            // NaN selectors: PTX does not say; not compared.
            match sf::unpack(c, F32) {
                Val::Nan => None,
                Val::Fin(true, ..) | Val::Inf(true) => Some(b),
                _ => Some(a),
            }
        },
    );
    var(
        v,
        "slct.ftz.b32.f32",
        &[I32, I32, F32_],
        W::B32,
        "slct.ftz.b32.f32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| match sf::un(c, F32, true) {
            Val::Nan => None,
            Val::Fin(true, ..) | Val::Inf(true) => Some(b),
            _ => Some(a),
        },
    );
}

/// IEEE comparison of two values (None: unordered).
fn fcmp(a: u64, b: u64, f: Fmt, ftz: bool) -> Option<std::cmp::Ordering> {
    let (x, y) = (sf::un(a, f, ftz), sf::un(b, f, ftz));
    if matches!(x, Val::Nan) || matches!(y, Val::Nan) {
        return None;
    }
    // Compare exactly through the soft-float: sign of x - y.
    let d = sf::add(x, sf::neg(y), f, Rnd::N);
    let dv = sf::unpack(d, f);
    Some(match dv {
        Val::Zero(_) => {
            // x - y rounds to zero only if x == y exactly (or both infinite and equal).
            std::cmp::Ordering::Equal
        }
        Val::Nan => std::cmp::Ordering::Equal, // inf - inf of the same sign
        Val::Inf(n) | Val::Fin(n, ..) => {
            if n {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        }
    })
}

fn float_variants(v: &mut Vec<Variant>) {
    use std::cmp::Ordering::*;
    // f32 arithmetic in every rounding mode.
    for (rn, r) in RNDS {
        var(
            v,
            &format!("add.{rn}.f32"),
            &[F32_, F32_],
            W::B32,
            &format!("add.{rn}.f32 %d, %a, %b;"),
            Check::F32,
            move |a, b, _| Some(sf::add(sf::unpack(a, F32), sf::unpack(b, F32), F32, r)),
        );
        var(
            v,
            &format!("sub.{rn}.f32"),
            &[F32_, F32_],
            W::B32,
            &format!("sub.{rn}.f32 %d, %a, %b;"),
            Check::F32,
            move |a, b, _| {
                Some(sf::add(
                    sf::unpack(a, F32),
                    sf::neg(sf::unpack(b, F32)),
                    F32,
                    r,
                ))
            },
        );
        var(
            v,
            &format!("mul.{rn}.f32"),
            &[F32_, F32_],
            W::B32,
            &format!("mul.{rn}.f32 %d, %a, %b;"),
            Check::F32,
            move |a, b, _| Some(sf::mul(sf::unpack(a, F32), sf::unpack(b, F32), F32, r)),
        );
        var(
            v,
            &format!("fma.{rn}.f32"),
            &[F32_, F32_, F32_],
            W::B32,
            &format!("fma.{rn}.f32 %d, %a, %b, %c;"),
            Check::F32,
            move |a, b, c| {
                Some(sf::fma(
                    sf::unpack(a, F32),
                    sf::unpack(b, F32),
                    sf::unpack(c, F32),
                    F32,
                    r,
                ))
            },
        );
        var(
            v,
            &format!("add.{rn}.f64"),
            &[F64_, F64_],
            W::B64,
            &format!("add.{rn}.f64 %d, %a, %b;"),
            Check::F64,
            move |a, b, _| Some(sf::add(sf::unpack(a, F64), sf::unpack(b, F64), F64, r)),
        );
        var(
            v,
            &format!("mul.{rn}.f64"),
            &[F64_, F64_],
            W::B64,
            &format!("mul.{rn}.f64 %d, %a, %b;"),
            Check::F64,
            move |a, b, _| Some(sf::mul(sf::unpack(a, F64), sf::unpack(b, F64), F64, r)),
        );
        var(
            v,
            &format!("fma.{rn}.f64"),
            &[F64_, F64_, F64_],
            W::B64,
            &format!("fma.{rn}.f64 %d, %a, %b, %c;"),
            Check::F64,
            move |a, b, c| {
                Some(sf::fma(
                    sf::unpack(a, F64),
                    sf::unpack(b, F64),
                    sf::unpack(c, F64),
                    F64,
                    r,
                ))
            },
        );
    }
    var(
        v,
        "sub.rn.f64",
        &[F64_, F64_],
        W::B64,
        "sub.rn.f64 %d, %a, %b;",
        Check::F64,
        |a, b, _| {
            Some(sf::add(
                sf::unpack(a, F64),
                sf::neg(sf::unpack(b, F64)),
                F64,
                Rnd::N,
            ))
        },
    );
    // .ftz and .sat.
    for (name, ftz, sat, r) in [
        ("add.rn.ftz.f32", true, false, Rnd::N),
        ("add.rz.ftz.f32", true, false, Rnd::Z),
        ("add.rn.sat.f32", false, true, Rnd::N),
        ("add.rm.ftz.sat.f32", true, true, Rnd::M),
    ] {
        var(
            v,
            name,
            &[F32_, F32_],
            W::B32,
            &format!("{name} %d, %a, %b;"),
            if ftz { Check::F32Ftz } else { Check::F32 },
            move |a, b, _| {
                Some(fin32(
                    sf::add(sf::un(a, F32, ftz), sf::un(b, F32, ftz), F32, r),
                    ftz,
                    sat,
                ))
            },
        );
    }
    for (name, ftz, sat, r) in [
        ("mul.rn.ftz.f32", true, false, Rnd::N),
        ("mul.rp.ftz.f32", true, false, Rnd::P),
        ("mul.rn.sat.f32", false, true, Rnd::N),
    ] {
        var(
            v,
            name,
            &[F32_, F32_],
            W::B32,
            &format!("{name} %d, %a, %b;"),
            if ftz { Check::F32Ftz } else { Check::F32 },
            move |a, b, _| {
                Some(fin32(
                    sf::mul(sf::un(a, F32, ftz), sf::un(b, F32, ftz), F32, r),
                    ftz,
                    sat,
                ))
            },
        );
    }
    for (name, ftz, sat, r) in [
        ("fma.rn.ftz.f32", true, false, Rnd::N),
        ("fma.rz.ftz.f32", true, false, Rnd::Z),
        ("fma.rn.sat.f32", false, true, Rnd::N),
        ("fma.rn.ftz.sat.f32", true, true, Rnd::N),
    ] {
        var(
            v,
            name,
            &[F32_, F32_, F32_],
            W::B32,
            &format!("{name} %d, %a, %b, %c;"),
            if ftz { Check::F32Ftz } else { Check::F32 },
            move |a, b, c| {
                Some(fin32(
                    sf::fma(
                        sf::un(a, F32, ftz),
                        sf::un(b, F32, ftz),
                        sf::un(c, F32, ftz),
                        F32,
                        r,
                    ),
                    ftz,
                    sat,
                ))
            },
        );
    }
    // min/max: a NaN operand gives the other; two NaNs the canonical NaN. Zeros
    // of opposite signs: -0 counts as below +0 (IEEE 754-2019 minimumNumber).
    let minmax = |a: u64, b: u64, f: Fmt, ftz: bool, min: bool| -> u64 {
        let (a, b) = if ftz {
            (f.flush(a), f.flush(b))
        } else {
            (a, b)
        };
        match (f.is_nan(a), f.is_nan(b)) {
            (true, true) => return f.nan(),
            (true, false) => return b,
            (false, true) => return a,
            _ => {}
        }
        let ord = match fcmp(a, b, f, false).unwrap() {
            Equal => {
                let (na, nb) = (a & f.sign() != 0, b & f.sign() != 0);
                nb.cmp(&na) // a negative zero is less
            }
            o => o,
        };
        if (ord == Less) == min {
            a
        } else {
            b
        }
    };
    for (name, f, ftz, min) in [
        ("min.f32", F32, false, true),
        ("max.f32", F32, false, false),
        ("min.ftz.f32", F32, true, true),
        ("max.ftz.f32", F32, true, false),
        ("min.f64", F64, false, true),
        ("max.f64", F64, false, false),
    ] {
        let (w, io) = if f == F32 {
            (W::B32, F32_)
        } else {
            (W::B64, F64_)
        };
        var(
            v,
            name,
            &[io, io],
            w,
            &format!("{name} %d, %a, %b;"),
            Check::Exact,
            move |a, b, _| Some(minmax(a, b, f, ftz, min)),
        );
    }
    var(
        v,
        "abs.f32",
        &[F32_],
        W::B32,
        "abs.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(a & 0x7fff_ffff),
    );
    var(
        v,
        "neg.f32",
        &[F32_],
        W::B32,
        "neg.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(a ^ 0x8000_0000),
    );
    var(
        v,
        "abs.ftz.f32",
        &[F32_],
        W::B32,
        "abs.ftz.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(F32.flush(a) & 0x7fff_ffff),
    );
    var(
        v,
        "neg.ftz.f32",
        &[F32_],
        W::B32,
        "neg.ftz.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(F32.flush(a) ^ 0x8000_0000),
    );
    var(
        v,
        "abs.f64",
        &[F64_],
        W::B64,
        "abs.f64 %d, %a;",
        Check::F64,
        |a, _, _| Some(a & !(1 << 63)),
    );
    var(
        v,
        "neg.f64",
        &[F64_],
        W::B64,
        "neg.f64 %d, %a;",
        Check::F64,
        |a, _, _| Some(a ^ 1 << 63),
    );
    var(
        v,
        "copysign.f32",
        &[F32_, F32_],
        W::B32,
        "copysign.f32 %d, %a, %b;",
        Check::F32,
        |a, b, _| Some(b & 0x7fff_ffff | a & 0x8000_0000),
    );
    var(
        v,
        "copysign.f64",
        &[F64_, F64_],
        W::B64,
        "copysign.f64 %d, %a, %b;",
        Check::F64,
        |a, b, _| Some(b & !(1 << 63) | a & 1 << 63),
    );
    // testp.
    for (op, f) in [
        (
            "finite",
            (|x: u64, f: Fmt| !matches!(sf::unpack(x, f), Val::Nan | Val::Inf(_)))
                as fn(u64, Fmt) -> bool,
        ),
        ("infinite", |x, f| matches!(sf::unpack(x, f), Val::Inf(_))),
        ("number", |x, f| !f.is_nan(x)),
        ("notanumber", |x, f| f.is_nan(x)),
        ("normal", |x, f| {
            !f.is_subnormal(x) && matches!(sf::unpack(x, f), Val::Fin(..) | Val::Zero(_))
        }),
        ("subnormal", |x, f| f.is_subnormal(x)),
    ] {
        var(
            v,
            &format!("testp.{op}.f32"),
            &[F32_],
            W::B32,
            &format!("testp.{op}.f32 %p1, %a; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, _, _| flag(f(a, F32)),
        );
        var(
            v,
            &format!("testp.{op}.f64"),
            &[F64_],
            W::B32,
            &format!("testp.{op}.f64 %p1, %a; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, _, _| flag(f(a, F64)),
        );
    }
    // Float compares, ordered and unordered.
    let fcmps: [(&str, OrdTest); 14] = [
        ("eq", |o| o == Some(Equal)),
        ("ne", |o| matches!(o, Some(Less | Greater))),
        ("lt", |o| o == Some(Less)),
        ("le", |o| matches!(o, Some(Less | Equal))),
        ("gt", |o| o == Some(Greater)),
        ("ge", |o| matches!(o, Some(Greater | Equal))),
        ("equ", |o| matches!(o, None | Some(Equal))),
        ("neu", |o| o != Some(Equal)),
        ("ltu", |o| matches!(o, None | Some(Less))),
        ("leu", |o| o != Some(Greater)),
        ("gtu", |o| matches!(o, None | Some(Greater))),
        ("geu", |o| o != Some(Less)),
        ("num", |o| o.is_some()),
        ("nan", |o| o.is_none()),
    ];
    for (op, t) in fcmps {
        var(
            v,
            &format!("setp.{op}.f32"),
            &[F32_, F32_],
            W::B32,
            &format!("setp.{op}.f32 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b_, _| flag(t(fcmp(a, b_, F32, false))),
        );
        var(
            v,
            &format!("setp.{op}.f64"),
            &[F64_, F64_],
            W::B32,
            &format!("setp.{op}.f64 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;"),
            Check::Exact,
            move |a, b_, _| flag(t(fcmp(a, b_, F64, false))),
        );
    }
    var(
        v,
        "setp.lt.ftz.f32",
        &[F32_, F32_],
        W::B32,
        "setp.lt.ftz.f32 %p1, %a, %b; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, b_, _| flag(fcmp(a, b_, F32, true) == Some(Less)),
    );
    var(
        v,
        "set.gtu.f32.f32",
        &[F32_, F32_],
        W::B32,
        "set.gtu.f32.f32 %d, %a, %b;",
        Check::Exact,
        |a, b_, _| {
            some32(if matches!(fcmp(a, b_, F32, false), None | Some(Greater)) {
                0x3f80_0000
            } else {
                0
            })
        },
    );
    var(
        v,
        "set.eq.u32.f64",
        &[F64_, F64_],
        W::B32,
        "set.eq.u32.f64 %d, %a, %b;",
        Check::Exact,
        |a, b_, _| {
            some32(if fcmp(a, b_, F64, false) == Some(Equal) {
                u32::MAX
            } else {
                0
            })
        },
    );
    // Correctly rounded division, square root, reciprocal.
    var(
        v,
        "div.rn.f32",
        &[F32_, F32_],
        W::B32,
        "div.rn.f32 %d, %a, %b;",
        Check::F32,
        |a, b, _| Some(sf::div(sf::unpack(a, F32), sf::unpack(b, F32), F32, Rnd::N)),
    );
    var(
        v,
        "div.rz.f32",
        &[F32_, F32_],
        W::B32,
        "div.rz.f32 %d, %a, %b;",
        Check::F32,
        |a, b, _| Some(sf::div(sf::unpack(a, F32), sf::unpack(b, F32), F32, Rnd::Z)),
    );
    var(
        v,
        "div.rn.ftz.f32",
        &[F32_, F32_],
        W::B32,
        "div.rn.ftz.f32 %d, %a, %b;",
        Check::F32Ftz,
        |a, b, _| {
            Some(F32.flush(sf::div(
                sf::un(a, F32, true),
                sf::un(b, F32, true),
                F32,
                Rnd::N,
            )))
        },
    );
    var(
        v,
        "div.rn.f64",
        &[F64_, F64_],
        W::B64,
        "div.rn.f64 %d, %a, %b;",
        Check::F64,
        |a, b, _| Some(sf::div(sf::unpack(a, F64), sf::unpack(b, F64), F64, Rnd::N)),
    );
    var(
        v,
        "sqrt.rn.f32",
        &[(W::B32, Dom::PosF32)],
        W::B32,
        "sqrt.rn.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(sf::sqrt(sf::unpack(a, F32), F32, Rnd::N)),
    );
    var(
        v,
        "sqrt.rn.f64",
        &[F64_],
        W::B64,
        "sqrt.rn.f64 %d, %a;",
        Check::F64,
        |a, _, _| Some(sf::sqrt(sf::unpack(a, F64), F64, Rnd::N)),
    );
    var(
        v,
        "rcp.rn.f32",
        &[F32_],
        W::B32,
        "rcp.rn.f32 %d, %a;",
        Check::F32,
        |a, _, _| {
            Some(sf::div(
                Val::Fin(false, 1, 0),
                sf::unpack(a, F32),
                F32,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "rcp.rn.f64",
        &[F64_],
        W::B64,
        "rcp.rn.f64 %d, %a;",
        Check::F64,
        |a, _, _| {
            Some(sf::div(
                Val::Fin(false, 1, 0),
                sf::unpack(a, F64),
                F64,
                Rnd::N,
            ))
        },
    );
    // Approximations, within the bounds the PTX ISA documents.
    let exact = |f: fn(f64) -> f64| {
        move |a: u64, _: u64, _: u64| Some(f(f32::from_bits(a as u32) as f64).to_bits())
    };
    let abs_sc = (-20.5f64).exp2();
    var(
        v,
        "sin.approx.f32",
        &[(W::B32, Dom::Trig)],
        W::B32,
        "sin.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 0.0,
            abs: abs_sc,
            rel: 0.0,
        },
        exact(f64::sin),
    );
    var(
        v,
        "cos.approx.f32",
        &[(W::B32, Dom::Trig)],
        W::B32,
        "cos.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 0.0,
            abs: abs_sc,
            rel: 0.0,
        },
        exact(f64::cos),
    );
    var(
        v,
        "sin.approx.ftz.f32",
        &[(W::B32, Dom::Trig)],
        W::B32,
        "sin.approx.ftz.f32 %d, %a;",
        Check::Approx {
            ulps: 0.0,
            abs: abs_sc,
            rel: 0.0,
        },
        exact(f64::sin),
    );
    var(
        v,
        "ex2.approx.f32",
        &[(W::B32, Dom::Ex2)],
        W::B32,
        "ex2.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 2.0,
            abs: 0.0,
            rel: 0.0,
        },
        exact(f64::exp2),
    );
    var(
        v,
        "ex2.approx.ftz.f32",
        &[(W::B32, Dom::Ex2)],
        W::B32,
        "ex2.approx.ftz.f32 %d, %a;",
        Check::Approx {
            ulps: 2.0,
            abs: 0.0,
            rel: 0.0,
        },
        |a, _, _| {
            let x = f32::from_bits(F32.flush(a) as u32) as f64;
            let r = x.exp2();
            // .ftz: a subnormal result is flushed.
            Some(if r < 2f64.powi(-126) {
                0.0f64.to_bits()
            } else {
                r.to_bits()
            })
        },
    );
    var(
        v,
        "lg2.approx.f32",
        &[(W::B32, Dom::PosF32)],
        W::B32,
        "lg2.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 2.0,
            abs: (-22.6f64).exp2(),
            rel: 0.0,
        },
        |a, _, _| {
            let x = f32::from_bits(a as u32) as f64;
            Some(
                if x == 0.0 {
                    f64::NEG_INFINITY
                } else {
                    x.log2()
                }
                .to_bits(),
            )
        },
    );
    var(
        v,
        "rcp.approx.f32",
        &[F32_],
        W::B32,
        "rcp.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 1.0,
            abs: 0.0,
            rel: 0.0,
        },
        |a, _, _| {
            let x = f32::from_bits(a as u32) as f64;
            Some((1.0 / x).to_bits())
        },
    );
    var(
        v,
        "rcp.approx.ftz.f32",
        &[F32_],
        W::B32,
        "rcp.approx.ftz.f32 %d, %a;",
        Check::Approx {
            ulps: 1.0,
            abs: 0.0,
            rel: 0.0,
        },
        |a, _, _| {
            let x = f32::from_bits(F32.flush(a) as u32) as f64;
            let r = 1.0 / x;
            Some(if r.abs() < 2f64.powi(-126) {
                (0.0f64).copysign(r).to_bits()
            } else {
                r.to_bits()
            })
        },
    );
    var(
        v,
        "rsqrt.approx.f32",
        &[(W::B32, Dom::PosF32)],
        W::B32,
        "rsqrt.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 0.0,
            abs: 0.0,
            rel: (-22.9f64).exp2(),
        },
        |a, _, _| {
            let x = f32::from_bits(a as u32) as f64;
            Some(
                if x == 0.0 {
                    f64::INFINITY.copysign(x)
                } else {
                    1.0 / x.sqrt()
                }
                .to_bits(),
            )
        },
    );
    var(
        v,
        "sqrt.approx.f32",
        &[(W::B32, Dom::PosF32)],
        W::B32,
        "sqrt.approx.f32 %d, %a;",
        Check::Approx {
            ulps: 0.0,
            abs: 0.0,
            rel: (-23.0f64).exp2(),
        },
        |a, _, _| {
            let x = f32::from_bits(a as u32) as f64;
            Some(x.sqrt().to_bits())
        },
    );
    var(
        v,
        "div.full.f32",
        &[F32_, F32_],
        W::B32,
        "div.full.f32 %d, %a, %b;",
        Check::Approx {
            ulps: 2.0,
            abs: 0.0,
            rel: 0.0,
        },
        |a, b, _| {
            let (x, y) = (
                f32::from_bits(a as u32) as f64,
                f32::from_bits(b as u32) as f64,
            );
            Some((x / y).to_bits())
        },
    );
    var(
        v,
        "div.approx.f32",
        &[F32_, (W::B32, Dom::DivF32)],
        W::B32,
        "div.approx.f32 %d, %a, %b;",
        Check::Approx {
            ulps: 2.0,
            abs: 0.0,
            rel: 0.0,
        },
        |a, b, _| {
            let (x, y) = (
                f32::from_bits(a as u32) as f64,
                f32::from_bits(b as u32) as f64,
            );
            Some((x / y).to_bits())
        },
    );
}

/// An integer type of a conversion.
#[derive(Clone, Copy)]
struct IT {
    name: &'static str,
    bits: u32,
    signed: bool,
}

const U8: IT = IT {
    name: "u8",
    bits: 8,
    signed: false,
};
const S8: IT = IT {
    name: "s8",
    bits: 8,
    signed: true,
};
const U16: IT = IT {
    name: "u16",
    bits: 16,
    signed: false,
};
const S16: IT = IT {
    name: "s16",
    bits: 16,
    signed: true,
};
const U32: IT = IT {
    name: "u32",
    bits: 32,
    signed: false,
};
const S32: IT = IT {
    name: "s32",
    bits: 32,
    signed: true,
};
const U64: IT = IT {
    name: "u64",
    bits: 64,
    signed: false,
};
const S64: IT = IT {
    name: "s64",
    bits: 64,
    signed: true,
};

impl IT {
    fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
    /// The value of the low `bits` of a register.
    fn value(self, x: u64) -> i128 {
        let sh = 128 - self.bits;
        let v = (x as i128) << sh;
        if self.signed {
            v >> sh
        } else {
            ((v as u128) >> sh) as i128
        }
    }
    /// `v` (in range) in a register of `w`: sign-extended for signed types,
    /// zero-extended otherwise.
    fn reg(self, v: i128, w: W) -> u64 {
        let bits = self.value(v as u64);
        let r = bits as u64;
        if w == W::B32 {
            r & 0xffff_ffff
        } else {
            r
        }
    }
    fn w(self) -> W {
        if self.bits == 64 {
            W::B64
        } else {
            W::B32
        }
    }
}

fn conversion_variants(v: &mut Vec<Variant>) {
    // Integer to integer, with and without saturation.
    let pairs: [(IT, IT, bool); 16] = [
        (U8, U32, false),
        (S8, S32, false),
        (U16, S32, false),
        (S16, U32, false),
        (U8, S32, true),
        (S8, S32, true),
        (U16, U32, true),
        (S16, S32, true),
        (U32, S32, true),
        (S32, U32, true),
        (S32, S8, false),
        (U32, U16, false),
        (S64, S32, false),
        (U64, U32, false),
        (U32, U64, false),
        (S32, S64, true),
    ];
    // Every other pair of integer types: without .sat, and with it wherever
    // the destination cannot hold every source value.
    let all = [U8, S8, U16, S16, U32, S32, U64, S64];
    let mut pairs = pairs.to_vec();
    for d in all {
        for s in all {
            if d.name == s.name {
                continue;
            }
            let narrowing = d.min() > s.min() || d.max() < s.max();
            for sat in [false, true] {
                if (sat && !narrowing)
                    || pairs
                        .iter()
                        .any(|p| p.0.name == d.name && p.1.name == s.name && p.2 == sat)
                {
                    continue;
                }
                pairs.push((d, s, sat));
            }
        }
    }
    for (d, s, sat) in pairs {
        let name = format!("cvt{}.{}.{}", if sat { ".sat" } else { "" }, d.name, s.name);
        let (sw, dw) = (s.w(), d.w());
        let dom = if sw == W::B64 { Dom::I64 } else { Dom::I32 };
        var(
            v,
            &name,
            &[(sw, dom)],
            dw,
            &format!("{name} %d, %a;"),
            Check::Exact,
            move |a, _, _| {
                let x = s.value(a);
                let x = if sat { x.clamp(d.min(), d.max()) } else { x };
                Some(d.reg(x, dw))
            },
        );
    }
    // Float to float.
    var(
        v,
        "cvt.f64.f32",
        &[F32_],
        W::B64,
        "cvt.f64.f32 %d, %a;",
        Check::F64,
        |a, _, _| Some(sf::conv(sf::unpack(a, F32), F64, Rnd::N)),
    );
    var(
        v,
        "cvt.ftz.f64.f32",
        &[F32_],
        W::B64,
        "cvt.ftz.f64.f32 %d, %a;",
        Check::F64,
        |a, _, _| Some(sf::conv(sf::un(a, F32, true), F64, Rnd::N)),
    );
    for (rn, r) in RNDS {
        var(
            v,
            &format!("cvt.{rn}.f32.f64"),
            &[F64_],
            W::B32,
            &format!("cvt.{rn}.f32.f64 %d, %a;"),
            Check::F32,
            move |a, _, _| Some(sf::conv(sf::unpack(a, F64), F32, r)),
        );
    }
    var(
        v,
        "cvt.rn.ftz.f32.f64",
        &[F64_],
        W::B32,
        "cvt.rn.ftz.f32.f64 %d, %a;",
        Check::F32,
        |a, _, _| Some(F32.flush(sf::conv(sf::unpack(a, F64), F32, Rnd::N))),
    );
    var(
        v,
        "cvt.rn.sat.f32.f64",
        &[F64_],
        W::B32,
        "cvt.rn.sat.f32.f64 %d, %a;",
        Check::F32,
        |a, _, _| {
            Some(fin32(
                sf::conv(sf::unpack(a, F64), F32, Rnd::N),
                false,
                true,
            ))
        },
    );
    // Float to integer: rounded, saturated, NaN per the manual (0, or 1 << (bits - 1)
    // from an .f64 source or to a 64-bit destination).
    let f2i = |x: u64, src: Fmt, ftz: bool, irnd: &str, d: IT| -> Option<u64> {
        let x = if ftz { src.flush(x) } else { x };
        if src.is_nan(x) {
            if src == F64 && d.bits < 32 {
                // 1 << (bits - 1) by the manual's rule, but ptxas converts to
                // 32 bits and saturates (0xffff for .u16): not compared.
                return None;
            }
            return Some(if src == F64 || d.bits == 64 {
                d.reg(1i128 << (d.bits - 1), d.w())
            } else {
                0
            });
        }
        let f = if src == F32 {
            f32::from_bits(x as u32) as f64
        } else {
            f64::from_bits(x)
        };
        let r = match irnd {
            "rni" => f.round_ties_even(),
            "rzi" => f.trunc(),
            "rmi" => f.floor(),
            _ => f.ceil(),
        };
        let v = if r >= d.max() as f64 + 1.0 {
            d.max()
        } else if r <= d.min() as f64 - 1.0 {
            d.min()
        } else {
            (r as i128).clamp(d.min(), d.max())
        };
        Some(d.reg(v, d.w()))
    };
    let f2is: [(&str, IT, Fmt, bool); 18] = [
        ("rni", S32, F32, false),
        ("rzi", S32, F32, false),
        ("rmi", S32, F32, false),
        ("rpi", S32, F32, false),
        ("rzi", U32, F32, false),
        ("rni", U32, F32, false),
        ("rzi", S32, F32, true),
        ("rni", S64, F32, false),
        ("rzi", U64, F32, false),
        ("rzi", S16, F32, false),
        ("rni", U8, F32, false),
        ("rni", S32, F64, false),
        ("rzi", S32, F64, false),
        ("rzi", U32, F64, false),
        ("rmi", S64, F64, false),
        ("rpi", U64, F64, false),
        ("rzi", S64, F64, false),
        ("rni", U16, F64, false),
    ];
    // Every rounding, every integer type, from both float types.
    let mut f2is = f2is.to_vec();
    for irnd in ["rni", "rzi", "rmi", "rpi"] {
        for d in [U8, S8, U16, S16, U32, S32, U64, S64] {
            for src in [F32, F64] {
                if !f2is
                    .iter()
                    .any(|x| x.0 == irnd && x.1.name == d.name && x.2 == src && !x.3)
                {
                    f2is.push((irnd, d, src, false));
                }
            }
        }
    }
    for (irnd, d, src, ftz) in f2is {
        let sname = if src == F32 { "f32" } else { "f64" };
        let name = format!(
            "cvt.{irnd}{}.{}.{sname}",
            if ftz { ".ftz" } else { "" },
            d.name
        );
        let ins = if src == F32 {
            (W::B32, Dom::F32Int)
        } else {
            (W::B64, Dom::F64Int)
        };
        var(
            v,
            &name,
            &[ins],
            d.w(),
            &format!("{name} %d, %a;"),
            Check::Exact,
            move |a, _, _| f2i(a, src, ftz, irnd, d),
        );
    }
    // Integer to float in every rounding mode.
    let i2fs: [(IT, Fmt); 7] = [
        (S32, F32),
        (U32, F32),
        (S64, F32),
        (U64, F32),
        (S64, F64),
        (U64, F64),
        (S32, F64),
    ];
    for (s, f) in i2fs {
        let fname = if f == F32 { "f32" } else { "f64" };
        let (dw, chk) = if f == F32 {
            (W::B32, Check::F32)
        } else {
            (W::B64, Check::F64)
        };
        let dom = if s.bits == 64 { Dom::I64 } else { Dom::I32 };
        for (rn, r) in RNDS {
            if s.bits == 32 && f == F64 && rn != "rn" {
                continue; // exact: one variant is enough
            }
            let name = format!("cvt.{rn}.{fname}.{}", s.name);
            var(
                v,
                &name,
                &[(s.w(), dom)],
                dw,
                &format!("{name} %d, %a;"),
                chk,
                move |a, _, _| Some(sf::conv(sf::int(s.value(a)), f, r)),
            );
        }
    }
    var(
        v,
        "cvt.rn.f32.u16",
        &[I32],
        W::B32,
        "cvt.rn.f32.u16 %d, %a;",
        Check::F32,
        |a, _, _| Some(sf::conv(sf::int(U16.value(a)), F32, Rnd::N)),
    );
    var(
        v,
        "cvt.rn.f32.s8",
        &[I32],
        W::B32,
        "cvt.rn.f32.s8 %d, %a;",
        Check::F32,
        |a, _, _| Some(sf::conv(sf::int(S8.value(a)), F32, Rnd::N)),
    );
    // Round to an integral value in the float format.
    let rint = |x: u64, f: Fmt, ftz: bool, irnd: &str| -> u64 {
        let x = if ftz { f.flush(x) } else { x };
        if f.is_nan(x) {
            return f.nan();
        }
        let r = |g: f64| -> f64 {
            match irnd {
                "rni" => g.round_ties_even(),
                "rzi" => g.trunc(),
                "rmi" => g.floor(),
                _ => g.ceil(),
            }
        };
        if f == F32 {
            (r(f32::from_bits(x as u32) as f64) as f32).to_bits() as u64
        } else {
            r(f64::from_bits(x)).to_bits()
        }
    };
    for irnd in ["rni", "rzi", "rmi", "rpi"] {
        var(
            v,
            &format!("cvt.{irnd}.f32.f32"),
            &[(W::B32, Dom::F32Int)],
            W::B32,
            &format!("cvt.{irnd}.f32.f32 %d, %a;"),
            Check::F32,
            move |a, _, _| Some(rint(a, F32, false, irnd)),
        );
        var(
            v,
            &format!("cvt.{irnd}.f64.f64"),
            &[(W::B64, Dom::F64Int)],
            W::B64,
            &format!("cvt.{irnd}.f64.f64 %d, %a;"),
            Check::F64,
            move |a, _, _| Some(rint(a, F64, false, irnd)),
        );
    }
    var(
        v,
        "cvt.rni.ftz.f32.f32",
        &[F32_],
        W::B32,
        "cvt.rni.ftz.f32.f32 %d, %a;",
        Check::F32,
        move |a, _, _| Some(rint(a, F32, true, "rni")),
    );
    var(
        v,
        "cvt.ftz.f32.f32",
        &[F32_],
        W::B32,
        "cvt.ftz.f32.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(F32.flush(a)),
    );
    var(
        v,
        "cvt.sat.f32.f32",
        &[F32_],
        W::B32,
        "cvt.sat.f32.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(fin32(a, false, true)),
    );
}

fn variants() -> Vec<Variant> {
    let mut v = Vec::new();
    integer_variants(&mut v);
    float_variants(&mut v);
    conversion_variants(&mut v);
    operand_form_variants(&mut v);
    memory_variants(&mut v);
    warp_variants(&mut v);
    more_variants(&mut v);
    control_variants(&mut v);
    v
}

/// Byte and half selectors in conversions, and control flow: divergent loops,
/// an indirect branch, part of a warp exiting.
fn control_variants(v: &mut Vec<Variant>) {
    // 64-bit compares combined with a predicate, both results.
    for (bop, f) in [
        ("and", (|x, y| x && y) as fn(bool, bool) -> bool),
        ("or", |x, y| x || y),
    ] {
        var(
            v,
            &format!("setp.lt.{bop}.s64 both"),
            &[I64, I64, I32],
            W::B32,
            &format!("setp.ne.u32 %p3, %c, 0; setp.lt.{bop}.s64 %p1|%p2, %a, %b, %p3; selp.u32 %t1, 1, 0, %p1; selp.u32 %t2, 2, 0, %p2; or.b32 %d, %t1, %t2;"),
            Check::Exact,
            move |a, b, c| {
                let t = (a as i64) < (b as i64);
                some32(f(t, c != 0) as u32 | (f(!t, c != 0) as u32) << 1)
            },
        );
    }
    var(
        v,
        "setp.hs.xor.u64",
        &[I64, I64, I32],
        W::B32,
        "setp.ne.u32 %p3, %c, 0; setp.hs.xor.u64 %p1, %a, %b, %p3; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, b, c| flag((a >= b) ^ (c != 0)),
    );
    var(
        v,
        "cvt.rn.f32.u8 byte 2",
        &[I32],
        W::B32,
        "shr.u32 %t1, %a, 16; cvt.rn.f32.u8 %d, %t1;",
        Check::F32,
        |a, _, _| Some(sf::conv(sf::int(((a >> 16) & 0xff) as i128), F32, Rnd::N)),
    );
    var(
        v,
        "cvt.rn.f32.s16 half 1",
        &[I32],
        W::B32,
        "shr.u32 %t1, %a, 16; cvt.rn.f32.s16 %d, %t1;",
        Check::F32,
        |a, _, _| {
            Some(sf::conv(
                sf::int((a >> 16) as u16 as i16 as i128),
                F32,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "cvt.s32.s8 byte 3",
        &[I32],
        W::B32,
        "shr.u32 %t1, %a, 24; cvt.s32.s8 %d, %t1;",
        Check::Exact,
        |a, _, _| some32((a >> 24) as u8 as i8 as i32 as u32),
    );
    var(
        v,
        "cvt.u32.u8 byte 1",
        &[I32],
        W::B32,
        "shr.u32 %t1, %a, 8; cvt.u32.u8 %d, %t1;",
        Check::Exact,
        |a, _, _| Some((a >> 8) & 0xff),
    );
    var(
        v,
        "cvt.rn.f64.s16 half 1",
        &[I32],
        W::B64,
        "shr.u32 %t1, %a, 16; cvt.rn.f64.s16 %d, %t1;",
        Check::F64,
        |a, _, _| {
            Some(sf::conv(
                sf::int((a >> 16) as u16 as i16 as i128),
                F64,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "set.eq.f32.f64",
        &[F64_, F64_],
        W::B32,
        "set.equ.f32.f64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| {
            some32(
                if matches!(
                    fcmp(a, b, F64, false),
                    None | Some(std::cmp::Ordering::Equal)
                ) {
                    0x3f80_0000
                } else {
                    0
                },
            )
        },
    );
    // A data-dependent loop: Kernighan's bit count, each lane its own trip count.
    var(v, "divergent loop", &[I32], W::B32,
        "mov.u32 %d, 0; mov.u32 %t1, %a; LOOP: setp.eq.u32 %p1, %t1, 0; @%p1 bra DONE; add.s32 %t2, %t1, -1; and.b32 %t1, %t1, %t2; add.s32 %d, %d, 1; bra LOOP; DONE:",
        Check::Exact, |a, _, _| Some(a.count_ones() as u64));
    // Nested divergence: an if inside a loop whose trip count is per lane.
    var(v, "divergent loop with if", &[I32, I32], W::B32,
        "mov.u32 %d, 0; and.b32 %t1, %b, 31; mov.u32 %t3, 0; L2: setp.ge.u32 %p1, %t3, %t1; @%p1 bra E2; shr.u32 %t4, %a, %t3; and.b32 %t4, %t4, 1; setp.eq.u32 %p2, %t4, 1; @%p2 add.s32 %d, %d, %t3; @!%p2 xor.b32 %d, %d, 0x55; add.s32 %t3, %t3, 1; bra L2; E2:",
        Check::Exact, |a, b, _| {
            let mut d = 0u32;
            for k in 0..(b as u32 & 31) {
                if (a >> k) & 1 == 1 {
                    d = d.wrapping_add(k);
                } else {
                    d ^= 0x55;
                }
            }
            some32(d)
        });
    // An indirect branch over four targets.
    var(v, "brx.idx", &[I32, I32, I32], W::B32,
        "and.b32 %t1, %c, 3; TS: .branchtargets T0, T1, T2, T3; brx.idx %t1, TS; T0: add.s32 %d, %a, %b; bra.uni JOIN; T1: sub.s32 %d, %a, %b; bra.uni JOIN; T2: xor.b32 %d, %a, %b; bra.uni JOIN; T3: mul.lo.s32 %d, %a, %b; JOIN:",
        Check::Exact, |a, b, c| {
            let (a, b) = (a as u32, b as u32);
            some32(match c & 3 {
                0 => a.wrapping_add(b),
                1 => a.wrapping_sub(b),
                2 => a ^ b,
                _ => a.wrapping_mul(b),
            })
        });
    // Part of the warp exits before the store: those outputs keep their fill.
    var(
        v,
        "partial exit",
        &[I32, I32],
        W::B32,
        "setp.lt.s32 %p1, %b, 0; @%p1 exit; add.s32 %d, %a, 1;",
        Check::Exact,
        |a, b, _| {
            some32(if s32(b) < 0 {
                0xcdcd_cdcd
            } else {
                (a as u32).wrapping_add(1)
            })
        },
    );
}

/// Selects on a compare with zero (FCMP, ICMP), 16-bit arithmetic, vector
/// loads, block reductions, contended shared atomics, video instructions.
fn more_variants(v: &mut Vec<Variant>) {
    use std::cmp::Ordering::*;
    let fcmps: [(&str, OrdTest); 6] = [
        ("lt", |o| o == Some(Less)),
        ("ge", |o| matches!(o, Some(Greater | Equal))),
        ("neu", |o| o != Some(Equal)),
        ("equ", |o| matches!(o, None | Some(Equal))),
        ("gtu", |o| matches!(o, None | Some(Greater))),
        ("le", |o| matches!(o, Some(Less | Equal))),
    ];
    for (op, t) in fcmps {
        var(
            v,
            &format!("selp on setp.{op}.f32 zero"),
            &[I32, I32, F32_],
            W::B32,
            &format!("setp.{op}.f32 %p1, %c, 0f00000000; selp.b32 %d, %a, %b, %p1;"),
            Check::Exact,
            move |a, b, c| Some(if t(fcmp(c, 0, F32, false)) { a } else { b }),
        );
    }
    for (op, f) in [
        ("lt", (|x: i32| x < 0) as fn(i32) -> bool),
        ("ge", |x| x >= 0),
        ("eq", |x| x == 0),
        ("gt", |x| x > 0),
    ] {
        var(
            v,
            &format!("selp on setp.{op}.s32 zero"),
            &[I32, I32, I32],
            W::B32,
            &format!("setp.{op}.s32 %p1, %c, 0; selp.b32 %d, %a, %b, %p1;"),
            Check::Exact,
            move |a, b, c| Some(if f(s32(c)) { a } else { b }),
        );
    }
    var(
        v,
        "selp on setp.hi.u32 zero",
        &[I32, I32, I32],
        W::B32,
        "setp.hi.u32 %p1, %c, 0; selp.b32 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| Some(if c != 0 { a } else { b }),
    );
    var(
        v,
        "set.lt.and.u32.s32",
        &[I32, I32, I32],
        W::B32,
        "setp.ne.u32 %p1, %c, 0; set.lt.and.u32.s32 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| {
            some32(if s32(a) < s32(b) && c != 0 {
                u32::MAX
            } else {
                0
            })
        },
    );
    var(
        v,
        "set.ge.or.f32.f32",
        &[F32_, F32_, I32],
        W::B32,
        "setp.ne.u32 %p1, %c, 0; set.ge.or.f32.f32 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| {
            some32(
                if matches!(fcmp(a, b, F32, false), Some(Greater | Equal)) || c != 0 {
                    0x3f80_0000
                } else {
                    0
                },
            )
        },
    );
    var(
        v,
        "set.ltu.ftz.u32.f32",
        &[F32_, F32_],
        W::B32,
        "set.ltu.ftz.u32.f32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| {
            some32(if matches!(fcmp(a, b, F32, true), None | Some(Less)) {
                u32::MAX
            } else {
                0
            })
        },
    );
    var(
        v,
        "selp.f64",
        &[F64_, F64_, I32],
        W::B64,
        "setp.ne.u32 %p1, %c, 0; selp.f64 %d, %a, %b, %p1;",
        Check::Exact,
        |a, b, c| Some(if c != 0 { a } else { b }),
    );
    var(
        v,
        "bfind.shiftamt.s64",
        &[I64],
        W::B32,
        "bfind.shiftamt.s64 %d, %a;",
        Check::Exact,
        |a, _, _| {
            let x = if (a as i64) < 0 { !a } else { a };
            Some(if x == 0 {
                0xffff_ffff
            } else {
                x.leading_zeros() as u64
            })
        },
    );
    // 16-bit arithmetic (registers of .b16).
    let h = "cvt.u16.u32 %h1, %a; cvt.u16.u32 %h2, %b;";
    let i16_ = |x: u64| x as u16 as i16 as i32;
    var(
        v,
        "mul.wide.s16",
        &[I32, I32],
        W::B32,
        &format!("{h} mul.wide.s16 %d, %h1, %h2;"),
        Check::Exact,
        move |a, b, _| some32((i16_(a) * i16_(b)) as u32),
    );
    var(
        v,
        "mul.wide.u16",
        &[I32, I32],
        W::B32,
        &format!("{h} mul.wide.u16 %d, %h1, %h2;"),
        Check::Exact,
        move |a, b, _| some32((a as u16 as u32) * (b as u16 as u32)),
    );
    var(
        v,
        "mul.hi.s16",
        &[I32, I32],
        W::B32,
        &format!("{h} mul.hi.s16 %h3, %h1, %h2; cvt.s32.s16 %d, %h3;"),
        Check::Exact,
        move |a, b, _| some32(((i16_(a) * i16_(b)) >> 16) as i16 as i32 as u32),
    );
    var(
        v,
        "add.s16",
        &[I32, I32],
        W::B32,
        &format!("{h} add.s16 %h3, %h1, %h2; cvt.s32.s16 %d, %h3;"),
        Check::Exact,
        move |a, b, _| some32((a as u16).wrapping_add(b as u16) as i16 as i32 as u32),
    );
    var(
        v,
        "shr.s16",
        &[I32, (W::B32, Dom::Sh32)],
        W::B32,
        "cvt.u16.u32 %h1, %a; shr.s16 %h3, %h1, %b; cvt.s32.s16 %d, %h3;",
        Check::Exact,
        move |a, b, _| some32((i16_(a) >> b.min(15)) as i16 as i32 as u32),
    );
    var(
        v,
        "shl.b16",
        &[I32, (W::B32, Dom::Sh32)],
        W::B32,
        "cvt.u16.u32 %h1, %a; shl.b16 %h3, %h1, %b; cvt.u32.u16 %d, %h3;",
        Check::Exact,
        |a, b, _| {
            some32(if b >= 16 {
                0
            } else {
                ((a as u16 as u32) << b) & 0xffff
            })
        },
    );
    var(
        v,
        "max.s16",
        &[I32, I32],
        W::B32,
        &format!("{h} max.s16 %h3, %h1, %h2; cvt.s32.s16 %d, %h3;"),
        Check::Exact,
        move |a, b, _| some32(i16_(a).max(i16_(b)) as u32),
    );
    var(
        v,
        "setp.lt.u16",
        &[I32, I32],
        W::B32,
        &format!("{h} setp.lt.u16 %p1, %h1, %h2; selp.u32 %d, 1, 0, %p1;"),
        Check::Exact,
        |a, b, _| flag((a as u16) < (b as u16)),
    );
    var(
        v,
        "cvt.sat.s8.s16 b16 source",
        &[I32],
        W::B32,
        "cvt.u16.u32 %h1, %a; cvt.sat.s8.s16 %d, %h1;",
        Check::Exact,
        move |a, _, _| some32(i16_(a).clamp(-128, 127) as u32),
    );
    // Vector loads of neighbouring elements.
    wvar(v, "ld.global.v4.u32", &[I64], W::B32,
        "and.b64 %u1, %rd0, -16; ld.global.v4.u32 {%t1, %t2, %t3, %t4}, [%u1]; mul.lo.u32 %t2, %t2, 3; mul.lo.u32 %t3, %t3, 5; mul.lo.u32 %t4, %t4, 7; add.u32 %t1, %t1, %t2; add.u32 %t1, %t1, %t3; add.u32 %d, %t1, %t4;",
        Check::Exact, |rows, i| {
            let (x, y) = (rows[i & !1][0], rows[i | 1][0]);
            some32((x as u32).wrapping_add(((x >> 32) as u32).wrapping_mul(3)).wrapping_add((y as u32).wrapping_mul(5)).wrapping_add(((y >> 32) as u32).wrapping_mul(7)))
        });
    wvar(
        v,
        "ld.global.nc.v2.f32",
        &[F64_],
        W::B32,
        "ld.global.nc.v2.f32 {%t1, %t2}, [%rd0]; add.rz.f32 %d, %t1, %t2;",
        Check::F32,
        |rows, i| {
            let x = rows[i][0];
            Some(sf::add(
                sf::unpack(x & 0xffff_ffff, F32),
                sf::unpack(x >> 32, F32),
                F32,
                Rnd::Z,
            ))
        },
    );
    // Block-wide reductions through bar.red.
    let block = |rows: &[[u64; 3]], i: usize| -> Vec<bool> {
        let base = i - i % BLOCK as usize;
        (0..BLOCK as usize)
            .map(|k| rows[base + k][0] != 0)
            .collect()
    };
    let coin = (W::B32, Dom::Coin);
    wvar(
        v,
        "bar.red.popc.u32",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; bar.red.popc.u32 %d, 0, %p1;",
        Check::Exact,
        move |rows, i| Some(block(rows, i).iter().filter(|&&x| x).count() as u64),
    );
    wvar(
        v,
        "bar.red.and.pred",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; bar.red.and.pred %p2, 0, %p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(block(rows, i).iter().all(|&x| x)),
    );
    wvar(
        v,
        "bar.red.or.pred",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; bar.red.or.pred %p2, 0, %p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(block(rows, i).iter().any(|&x| x)),
    );
    // Contended shared atomics: every thread of the block on one word.
    let blk = |rows: &[[u64; 3]], i: usize| -> Vec<u64> {
        let base = i - i % BLOCK as usize;
        (0..BLOCK as usize).map(|k| rows[base + k][0]).collect()
    };
    let contended = "mov.u32 %t9, %tid.x; setp.eq.u32 %p1, %t9, 0; @%p1 st.shared.u32 [smem], INIT; bar.sync 0; atom.shared.OP %t1, [smem], %a; bar.sync 0; ld.shared.u32 %d, [smem];";
    for (op, init, f) in [
        (
            "add.u32",
            0u64,
            (|x: &[u64]| x.iter().fold(0u32, |s, &y| s.wrapping_add(y as u32)) as u64)
                as fn(&[u64]) -> u64,
        ),
        ("max.s32", 0x8000_0000, |x| {
            x.iter().map(|&y| y as u32 as i32).max().unwrap() as u32 as u64
        }),
        ("min.u32", 0xffff_ffff, |x| {
            x.iter().map(|&y| y as u32).min().unwrap() as u64
        }),
        ("or.b32", 0, |x| x.iter().fold(0, |s, &y| s | y)),
        ("xor.b32", 0, |x| x.iter().fold(0, |s, &y| s ^ y)),
    ] {
        wvar(
            v,
            &format!("atom.shared.{op} contended"),
            &[I32],
            W::B32,
            &contended
                .replace("INIT", &init.to_string())
                .replace("OP", op),
            Check::Exact,
            move |rows, i| Some(f(&blk(rows, i))),
        );
    }
    wvar(v, "atom.shared.add.u64 contended", &[I64], W::B64,
        "mov.u32 %t9, %tid.x; setp.eq.u32 %p1, %t9, 0; @%p1 st.shared.u64 [smem], 0; bar.sync 0; atom.shared.add.u64 %u1, [smem], %a; bar.sync 0; ld.shared.u64 %d, [smem];",
        Check::Exact, move |rows, i| Some(blk(rows, i).iter().fold(0u64, |s, &y| s.wrapping_add(y))));
    let smem =
        "mov.u32 %t9, %tid.x; shl.b32 %t9, %t9, 3; mov.u32 %t8, smem; add.u32 %t8, %t8, %t9;";
    // On shared memory atom.add.f32 keeps subnormals (PTX ISA, atom: only the
    // global form flushes them).
    var(v, "atom.shared.add.f32", &[F32_, F32_], W::B64,
        &format!("{smem} st.shared.u32 [%t8], %a; atom.shared.add.f32 %t1, [%t8], %b; ld.shared.u32 %t2, [%t8]; mov.b64 %d, {{%t1, %t2}};"),
        Check::Exact, |a, b, _| {
            let r = sf::add(sf::unpack(a, F32), sf::unpack(b, F32), F32, Rnd::N);
            if F32.is_nan(r) {
                return None;
            }
            Some(r << 32 | a)
        });
    var(v, "atom.shared.cas.b64", &[I64, I64, I64], W::B64,
        &format!("{smem} st.shared.u64 [%t8], %a; atom.shared.cas.b64 %u1, [%t8], %b, %c; ld.shared.u64 %u2, [%t8]; xor.b64 %d, %u1, %u2;"),
        Check::Exact, |a, b, c| Some(a ^ if a == b { c } else { a }));
    var(v, "atom.shared.exch.b64", &[I64, I64], W::B64,
        &format!("{smem} st.shared.u64 [%t8], %a; atom.shared.exch.b64 %u1, [%t8], %b; ld.shared.u64 %u2, [%t8]; sub.s64 %d, %u1, %u2;"),
        Check::Exact, |a, b, _| Some(a.wrapping_sub(b)));
    // Video instructions (byte/half SIMD and the scalar forms).
    var(
        v,
        "vabsdiff4.u32.u32.u32.add",
        &[I32, I32, I32],
        W::B32,
        "vabsdiff4.u32.u32.u32.add %d, %a, %b, %c;",
        Check::Exact,
        |a, b, c| {
            let s: u32 = (0..4)
                .map(|k| ((a >> (8 * k)) as u8).abs_diff((b >> (8 * k)) as u8) as u32)
                .sum();
            some32(s.wrapping_add(c as u32))
        },
    );
    var(
        v,
        "vadd.s32.s32.s32.sat",
        &[I32, I32, I32],
        W::B32,
        "vadd.s32.s32.s32.sat %d, %a, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).saturating_add(s32(b)) as u32),
    );
    var(
        v,
        "vmax.u32.u32.u32",
        &[I32, I32],
        W::B32,
        "vmax.u32.u32.u32 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.max(b)),
    );
    var(
        v,
        "vadd2.u32.u32.u32",
        &[I32, I32, I32],
        W::B32,
        "vadd2.u32.u32.u32 %d, %a, %b, %c;",
        Check::Exact,
        |a, b, _| {
            let lo = (a as u16).wrapping_add(b as u16) as u32;
            let hi = ((a >> 16) as u16).wrapping_add((b >> 16) as u16) as u32;
            some32(hi << 16 | lo)
        },
    );
}

/// Immediates, constant operands and folded operand modifiers: the same
/// operations through the SASS forms ptxas picks for them (`FADD32I`, `IMUL32I`,
/// `LOP32I`, `FFMA -c`, `FADD |a|`, double immediates, predicated execution).
fn operand_form_variants(v: &mut Vec<Variant>) {
    let f32b = |x: u64| sf::unpack(x, F32);
    let f64b = |x: u64| sf::unpack(x, F64);
    let k32 = |x: f32| sf::unpack(x.to_bits() as u64, F32);
    let k64 = |x: f64| sf::unpack(x.to_bits(), F64);
    var(
        v,
        "add.rn.f32 imm20",
        &[F32_],
        W::B32,
        "add.rn.f32 %d, %a, 0f3FC00000;",
        Check::F32,
        move |a, _, _| Some(sf::add(f32b(a), k32(1.5), F32, Rnd::N)),
    );
    var(
        v,
        "add.rz.f32 imm32",
        &[F32_],
        W::B32,
        "add.rz.f32 %d, %a, 0f3F8CCCCD;",
        Check::F32,
        move |a, _, _| Some(sf::add(f32b(a), sf::unpack(0x3f8c_cccd, F32), F32, Rnd::Z)),
    );
    var(
        v,
        "mul.rn.f32 imm32",
        &[F32_],
        W::B32,
        "mul.rn.f32 %d, %a, 0fC0490FDB;",
        Check::F32,
        move |a, _, _| Some(sf::mul(f32b(a), sf::unpack(0xc049_0fdb, F32), F32, Rnd::N)),
    );
    var(
        v,
        "mul.rm.f32 imm20",
        &[F32_],
        W::B32,
        "mul.rm.f32 %d, %a, 0f41200000;",
        Check::F32,
        move |a, _, _| Some(sf::mul(f32b(a), k32(10.0), F32, Rnd::M)),
    );
    var(
        v,
        "fma.rn.f32 imm b",
        &[F32_, F32_],
        W::B32,
        "fma.rn.f32 %d, %a, 0f40490FDB, %b;",
        Check::F32,
        move |a, b, _| {
            Some(sf::fma(
                f32b(a),
                sf::unpack(0x4049_0fdb, F32),
                f32b(b),
                F32,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "fma.rn.f32 imm c",
        &[F32_, F32_],
        W::B32,
        "fma.rn.f32 %d, %a, %b, 0f3DCCCCCD;",
        Check::F32,
        move |a, b, _| {
            Some(sf::fma(
                f32b(a),
                f32b(b),
                sf::unpack(0x3dcc_cccd, F32),
                F32,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "max.f32 relu",
        &[F32_],
        W::B32,
        "max.f32 %d, %a, 0f00000000;",
        Check::Exact,
        |a, _, _| Some(if F32.is_nan(a) || a >> 31 == 1 { 0 } else { a }),
    );
    var(
        v,
        "add.rn.f64 imm20",
        &[F64_],
        W::B64,
        "add.rn.f64 %d, %a, 0d3FF8000000000000;",
        Check::F64,
        move |a, _, _| Some(sf::add(f64b(a), k64(1.5), F64, Rnd::N)),
    );
    var(
        v,
        "add.rp.f64 imm64",
        &[F64_],
        W::B64,
        "add.rp.f64 %d, %a, 0d3FB999999999999A;",
        Check::F64,
        move |a, _, _| Some(sf::add(f64b(a), k64(0.1), F64, Rnd::P)),
    );
    var(
        v,
        "mul.rn.f64 imm64",
        &[F64_],
        W::B64,
        "mul.rn.f64 %d, %a, 0dC00921FB54442D18;",
        Check::F64,
        move |a, _, _| Some(sf::mul(f64b(a), k64(-std::f64::consts::PI), F64, Rnd::N)),
    );
    var(
        v,
        "fma.rz.f64 imm",
        &[F64_, F64_],
        W::B64,
        "fma.rz.f64 %d, %a, 0d3FE0000000000000, %b;",
        Check::F64,
        move |a, b, _| Some(sf::fma(f64b(a), k64(0.5), f64b(b), F64, Rnd::Z)),
    );
    // Folded negation and absolute value.
    var(
        v,
        "add -b f32",
        &[F32_, F32_],
        W::B32,
        "neg.f32 %t1, %b; add.rp.f32 %d, %a, %t1;",
        Check::F32,
        move |a, b, _| Some(sf::add(f32b(a), sf::neg(f32b(b)), F32, Rnd::P)),
    );
    var(
        v,
        "add |a| |b| f32",
        &[F32_, F32_],
        W::B32,
        "abs.f32 %t1, %a; abs.f32 %t2, %b; add.rn.f32 %d, %t1, %t2;",
        Check::F32,
        move |a, b, _| {
            Some(sf::add(
                f32b(a & 0x7fff_ffff),
                f32b(b & 0x7fff_ffff),
                F32,
                Rnd::N,
            ))
        },
    );
    var(
        v,
        "mul -|a| b f32",
        &[F32_, F32_],
        W::B32,
        "abs.f32 %t1, %a; neg.f32 %t1, %t1; mul.rz.f32 %d, %t1, %b;",
        Check::F32,
        move |a, b, _| Some(sf::mul(f32b(a | 0x8000_0000), f32b(b), F32, Rnd::Z)),
    );
    var(
        v,
        "fma -a b -c f32",
        &[F32_, F32_, F32_],
        W::B32,
        "neg.f32 %t1, %a; neg.f32 %t2, %c; fma.rm.f32 %d, %t1, %b, %t2;",
        Check::F32,
        move |a, b, c| {
            Some(sf::fma(
                sf::neg(f32b(a)),
                f32b(b),
                sf::neg(f32b(c)),
                F32,
                Rnd::M,
            ))
        },
    );
    var(
        v,
        "setp.lt |a| b f32",
        &[F32_, F32_],
        W::B32,
        "abs.f32 %t1, %a; setp.lt.f32 %p1, %t1, %b; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, b_, _| flag(fcmp(a & 0x7fff_ffff, b_, F32, false) == Some(std::cmp::Ordering::Less)),
    );
    var(
        v,
        "fma a -b c f64",
        &[F64_, F64_, F64_],
        W::B64,
        "neg.f64 %u1, %b; fma.rp.f64 %d, %a, %u1, %c;",
        Check::F64,
        move |a, b, c| Some(sf::fma(f64b(a), sf::neg(f64b(b)), f64b(c), F64, Rnd::P)),
    );
    var(
        v,
        "add |a| -b f64",
        &[F64_, F64_],
        W::B64,
        "abs.f64 %u1, %a; neg.f64 %u2, %b; add.rn.f64 %d, %u1, %u2;",
        Check::F64,
        move |a, b, _| Some(sf::add(f64b(a & !(1 << 63)), sf::neg(f64b(b)), F64, Rnd::N)),
    );
    // Integer immediates.
    var(
        v,
        "add.s32 imm",
        &[I32],
        W::B32,
        "add.s32 %d, %a, -12345;",
        Check::Exact,
        |a, _, _| some32((a as u32).wrapping_sub(12345)),
    );
    var(
        v,
        "mul.lo.s32 imm",
        &[I32],
        W::B32,
        "mul.lo.s32 %d, %a, -7;",
        Check::Exact,
        |a, _, _| some32(s32(a).wrapping_mul(-7) as u32),
    );
    var(
        v,
        "mul.lo.u32 imm32",
        &[I32],
        W::B32,
        "mul.lo.u32 %d, %a, 0x12345679;",
        Check::Exact,
        |a, _, _| some32((a as u32).wrapping_mul(0x1234_5679)),
    );
    var(
        v,
        "mul.hi.u32 imm",
        &[I32],
        W::B32,
        "mul.hi.u32 %d, %a, 0xAAAAAAAB;",
        Check::Exact,
        |a, _, _| some32(((a * 0xaaaa_aaab) >> 32) as u32),
    );
    var(
        v,
        "mad.lo.s32 imm",
        &[I32, I32],
        W::B32,
        "mad.lo.s32 %d, %a, 100000, %b;",
        Check::Exact,
        |a, b, _| some32(s32(a).wrapping_mul(100_000).wrapping_add(s32(b)) as u32),
    );
    var(
        v,
        "and.b32 imm",
        &[I32],
        W::B32,
        "and.b32 %d, %a, 0xF0F0F0F1;",
        Check::Exact,
        |a, _, _| Some(a & 0xf0f0_f0f1),
    );
    var(
        v,
        "xor.b32 imm",
        &[I32],
        W::B32,
        "xor.b32 %d, %a, 0x80000000;",
        Check::Exact,
        |a, _, _| Some(a ^ 0x8000_0000),
    );
    var(
        v,
        "shl.b32 imm",
        &[I32],
        W::B32,
        "shl.b32 %d, %a, 5;",
        Check::Exact,
        |a, _, _| some32((a as u32) << 5),
    );
    var(
        v,
        "shr.s32 imm",
        &[I32],
        W::B32,
        "shr.s32 %d, %a, 31;",
        Check::Exact,
        |a, _, _| some32((s32(a) >> 31) as u32),
    );
    var(
        v,
        "shr.u32 imm",
        &[I32],
        W::B32,
        "shr.u32 %d, %a, 17;",
        Check::Exact,
        |a, _, _| some32((a as u32) >> 17),
    );
    var(
        v,
        "min.s32 imm",
        &[I32],
        W::B32,
        "min.s32 %d, %a, 1000;",
        Check::Exact,
        |a, _, _| some32(s32(a).min(1000) as u32),
    );
    var(
        v,
        "max.u32 imm",
        &[I32],
        W::B32,
        "max.u32 %d, %a, 0xFFFFF000;",
        Check::Exact,
        |a, _, _| Some(a.max(0xffff_f000)),
    );
    var(
        v,
        "setp.lt.s32 imm",
        &[I32],
        W::B32,
        "setp.lt.s32 %p1, %a, -100; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| flag(s32(a) < -100),
    );
    var(
        v,
        "setp.gt.u32 imm",
        &[I32],
        W::B32,
        "setp.gt.u32 %p1, %a, 0xFFFFF000; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| flag(a > 0xffff_f000),
    );
    var(
        v,
        "setp.ge.f32 imm",
        &[F32_],
        W::B32,
        "setp.ge.f32 %p1, %a, 0f3F800000; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| {
            flag(matches!(
                fcmp(a, 0x3f80_0000, F32, false),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            ))
        },
    );
    var(
        v,
        "prmt.b32 imm",
        &[I32, I32],
        W::B32,
        "prmt.b32 %d, %a, %b, 0x7531;",
        Check::Exact,
        |a, b, _| {
            let bytes = (b << 32 | a).to_le_bytes();
            some32(u32::from_le_bytes([bytes[1], bytes[3], bytes[5], bytes[7]]))
        },
    );
    var(
        v,
        "prmt.b32 imm sign",
        &[I32, I32],
        W::B32,
        "prmt.b32 %d, %a, %b, 0x8880;",
        Check::Exact,
        |a, _, _| {
            let x = a as u8;
            some32(x as u32 | if x & 0x80 != 0 { 0xffff_ff00 } else { 0 })
        },
    );
    var(
        v,
        "bfe.s32 imm",
        &[I32],
        W::B32,
        "bfe.s32 %d, %a, 5, 12;",
        Check::Exact,
        |a, _, _| some32(((s32(a) << 15) >> 20) as u32),
    );
    var(
        v,
        "bfi.b32 imm",
        &[I32, I32],
        W::B32,
        "bfi.b32 %d, %a, %b, 8, 12;",
        Check::Exact,
        |a, b, _| some32((b as u32 & !0x000f_ff00) | ((a as u32) << 8 & 0x000f_ff00)),
    );
    var(
        v,
        "selp.b32 imm",
        &[I32, I32],
        W::B32,
        "setp.ne.u32 %p1, %b, 0; selp.b32 %d, %a, 7, %p1;",
        Check::Exact,
        |a, b, _| Some(if b != 0 { a } else { 7 }),
    );
    var(
        v,
        "shf.l.wrap imm",
        &[I32, I32],
        W::B32,
        "shf.l.wrap.b32 %d, %a, %b, 7;",
        Check::Exact,
        |a, b, _| some32(((b << 32 | a) << 7 >> 32) as u32),
    );
    var(
        v,
        "shf.r.clamp imm",
        &[I32, I32],
        W::B32,
        "shf.r.clamp.b32 %d, %a, %b, 40;",
        Check::Exact,
        |_, b, _| Some(b),
    );
    // 64-bit immediates (split into carry chains by ptxas).
    var(
        v,
        "add.s64 imm",
        &[I64],
        W::B64,
        "add.s64 %d, %a, 0x123456789;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_add(0x1_2345_6789)),
    );
    var(
        v,
        "add.s64 -1",
        &[I64],
        W::B64,
        "add.s64 %d, %a, -1;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_sub(1)),
    );
    var(
        v,
        "sub.s64 imm",
        &[I64],
        W::B64,
        "sub.s64 %d, %a, 0x80000000;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_sub(0x8000_0000)),
    );
    var(
        v,
        "mul.lo.s64 imm",
        &[I64],
        W::B64,
        "mul.lo.s64 %d, %a, 0x10001;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_mul(0x10001)),
    );
    var(
        v,
        "mul.lo.s64 imm64",
        &[I64],
        W::B64,
        "mul.lo.s64 %d, %a, -3000000000;",
        Check::Exact,
        |a, _, _| Some(a.wrapping_mul(-3_000_000_000i64 as u64)),
    );
    var(
        v,
        "and.b64 imm",
        &[I64],
        W::B64,
        "and.b64 %d, %a, 0xFF00FF00FF00FF00;",
        Check::Exact,
        |a, _, _| Some(a & 0xff00_ff00_ff00_ff00),
    );
    var(
        v,
        "setp.lt.s64 imm",
        &[I64],
        W::B32,
        "setp.lt.s64 %p1, %a, 0x100000000; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| flag((a as i64) < 0x1_0000_0000),
    );
    var(
        v,
        "setp.ge.u64 imm",
        &[I64],
        W::B32,
        "setp.ge.u64 %p1, %a, 0xFFFFFFFF; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| flag(a >= 0xffff_ffff),
    );
    var(
        v,
        "setp.eq.s64 imm",
        &[I64],
        W::B32,
        "setp.eq.s64 %p1, %a, -1; selp.u32 %d, 1, 0, %p1;",
        Check::Exact,
        |a, _, _| flag(a == u64::MAX),
    );
    var(
        v,
        "shl.b64 imm",
        &[I64],
        W::B64,
        "shl.b64 %d, %a, 40;",
        Check::Exact,
        |a, _, _| Some(a << 40),
    );
    var(
        v,
        "shr.u64 imm",
        &[I64],
        W::B64,
        "shr.u64 %d, %a, 33;",
        Check::Exact,
        |a, _, _| Some(a >> 33),
    );
    var(
        v,
        "shr.s64 imm",
        &[I64],
        W::B64,
        "shr.s64 %d, %a, 1;",
        Check::Exact,
        |a, _, _| Some(((a as i64) >> 1) as u64),
    );
    var(
        v,
        "max.s64",
        &[I64, I64],
        W::B64,
        "max.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some((a as i64).max(b as i64) as u64),
    );
    var(
        v,
        "min.u64",
        &[I64, I64],
        W::B64,
        "min.u64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a.min(b)),
    );
    var(
        v,
        "add.cc.u64 carry",
        &[I64, I64],
        W::B32,
        "add.cc.u64 %u1, %a, %b; addc.u32 %d, 0, 0;",
        Check::Exact,
        |a, b, _| Some(a.overflowing_add(b).1 as u64),
    );
    var(
        v,
        "div.s64",
        &[I64, (W::B64, Dom::NzI64)],
        W::B64,
        "div.s64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| (a as i64).checked_div(b as i64).map(|q| q as u64),
    );
    var(
        v,
        "rem.u64",
        &[I64, (W::B64, Dom::NzI64)],
        W::B64,
        "rem.u64 %d, %a, %b;",
        Check::Exact,
        |a, b, _| Some(a % b),
    );
    var(
        v,
        "div.s32 imm",
        &[I32],
        W::B32,
        "div.s32 %d, %a, -7;",
        Check::Exact,
        |a, _, _| some32((s32(a) / -7) as u32),
    );
    var(
        v,
        "rem.u32 imm",
        &[I32],
        W::B32,
        "rem.u32 %d, %a, 1000;",
        Check::Exact,
        |a, _, _| Some(a % 1000),
    );
    // Predicated execution.
    var(
        v,
        "predicated add/sub",
        &[I32, I32, I32],
        W::B32,
        "setp.lt.s32 %p1, %c, 0; @%p1 add.s32 %d, %a, %b; @!%p1 sub.s32 %d, %a, %b;",
        Check::Exact,
        |a, b, c| {
            some32(if s32(c) < 0 {
                (a as u32).wrapping_add(b as u32)
            } else {
                (a as u32).wrapping_sub(b as u32)
            })
        },
    );
    var(v, "predicated fma/mul", &[F32_, F32_, I32], W::B32,
        "setp.ne.u32 %p1, %c, 0; mov.b32 %d, %a; @%p1 mul.rn.f32 %d, %a, %b; @!%p1 add.rz.f32 %d, %d, %b;", Check::F32, move |a, b, c| {
            Some(if c != 0 { sf::mul(f32b(a), f32b(b), F32, Rnd::N) } else { sf::add(f32b(a), f32b(b), F32, Rnd::Z) })
        });
    var(v, "and/xor/not.pred", &[I32, I32, I32], W::B32,
        "setp.ne.u32 %p1, %a, 0; setp.lt.s32 %p2, %b, %c; xor.pred %p3, %p1, %p2; not.pred %p4, %p1; and.pred %p4, %p4, %p2; selp.u32 %t1, 1, 0, %p3; selp.u32 %t2, 2, 0, %p4; or.b32 %d, %t1, %t2;",
        Check::Exact, |a, b, c| {
            let (p1, p2) = (a != 0, s32(b) < s32(c));
            some32((p1 ^ p2) as u32 | ((!p1 && p2) as u32) << 1)
        });
    // mul24/mad24: 24-bit operands, 48-bit product; .hi is bits 47..16.
    let s24 = |x: u64| ((x as u32) << 8) as i32 as i64 >> 8;
    let u24 = |x: u64| (x & 0xff_ffff) as i64;
    var(
        v,
        "mul24.lo.s32",
        &[I32, I32],
        W::B32,
        "mul24.lo.s32 %d, %a, %b;",
        Check::Exact,
        move |a, b, _| some32((s24(a) * s24(b)) as u32),
    );
    var(
        v,
        "mul24.lo.u32",
        &[I32, I32],
        W::B32,
        "mul24.lo.u32 %d, %a, %b;",
        Check::Exact,
        move |a, b, _| some32((u24(a) * u24(b)) as u32),
    );
    var(
        v,
        "mul24.hi.s32",
        &[I32, I32],
        W::B32,
        "mul24.hi.s32 %d, %a, %b;",
        Check::Exact,
        move |a, b, _| some32(((s24(a) * s24(b)) >> 16) as u32),
    );
    var(
        v,
        "mul24.hi.u32",
        &[I32, I32],
        W::B32,
        "mul24.hi.u32 %d, %a, %b;",
        Check::Exact,
        move |a, b, _| some32(((u24(a) * u24(b)) >> 16) as u32),
    );
    var(
        v,
        "mad24.lo.s32",
        &[I32, I32, I32],
        W::B32,
        "mad24.lo.s32 %d, %a, %b, %c;",
        Check::Exact,
        move |a, b, c| some32(((s24(a) * s24(b)) as u32).wrapping_add(c as u32)),
    );
    // Half precision conversions.
    const F16: Fmt = Fmt {
        p: 11,
        emax: 15,
        bits: 16,
    };
    for (rn, r) in RNDS {
        var(
            v,
            &format!("cvt.{rn}.f16.f32"),
            &[F32_],
            W::B32,
            &format!("cvt.{rn}.f16.f32 %d, %a;"),
            Check::F16,
            move |a, _, _| Some(sf::conv(sf::unpack(a, F32), F16, r)),
        );
    }
    var(
        v,
        "cvt.rn.f16.f64",
        &[F64_],
        W::B32,
        "cvt.rn.f16.f64 %d, %a;",
        Check::F16,
        |a, _, _| Some(sf::conv(sf::unpack(a, F64), F16, Rnd::N)),
    );
    var(
        v,
        "cvt.f32.f16",
        &[(W::B32, Dom::F16)],
        W::B32,
        "cvt.f32.f16 %d, %a;",
        Check::F32,
        |a, _, _| Some(sf::conv(sf::unpack(a & 0xffff, F16), F32, Rnd::N)),
    );
    var(
        v,
        "cvt.f64.f16",
        &[(W::B32, Dom::F16)],
        W::B64,
        "cvt.f64.f16 %d, %a;",
        Check::F64,
        |a, _, _| Some(sf::conv(sf::unpack(a & 0xffff, F16), F64, Rnd::N)),
    );
    var(
        v,
        "cvt.rzi.s32.f16",
        &[(W::B32, Dom::F16)],
        W::B32,
        "cvt.rzi.s32.f16 %d, %a;",
        Check::Exact,
        |a, _, _| {
            let x = a & 0xffff;
            if F16.is_nan(x) {
                return Some(0);
            }
            let f = f32::from_bits(sf::conv(sf::unpack(x, F16), F32, Rnd::N) as u32) as f64;
            Some(f.trunc().clamp(i32::MIN as f64, i32::MAX as f64) as i32 as u32 as u64)
        },
    );
    var(
        v,
        "cvt.rn.f16.s32",
        &[I32],
        W::B32,
        "cvt.rn.f16.s32 %d, %a;",
        Check::F16,
        |a, _, _| Some(sf::conv(sf::int(s32(a) as i128), F16, Rnd::N)),
    );
    // Directed division, square root and reciprocal (slow paths with directed FFMA/DFMA).
    for (rn, r) in RNDS.into_iter().skip(1) {
        var(
            v,
            &format!("div.{rn}.f32 x"),
            &[F32_, F32_],
            W::B32,
            &format!("div.{rn}.f32 %d, %a, %b;"),
            Check::F32,
            move |a, b, _| Some(sf::div(f32b(a), f32b(b), F32, r)),
        );
        var(
            v,
            &format!("div.{rn}.f64"),
            &[F64_, F64_],
            W::B64,
            &format!("div.{rn}.f64 %d, %a, %b;"),
            Check::F64,
            move |a, b, _| Some(sf::div(f64b(a), f64b(b), F64, r)),
        );
        var(
            v,
            &format!("sqrt.{rn}.f32"),
            &[(W::B32, Dom::PosF32)],
            W::B32,
            &format!("sqrt.{rn}.f32 %d, %a;"),
            Check::F32,
            move |a, _, _| Some(sf::sqrt(f32b(a), F32, r)),
        );
        var(
            v,
            &format!("sqrt.{rn}.f64"),
            &[F64_],
            W::B64,
            &format!("sqrt.{rn}.f64 %d, %a;"),
            Check::F64,
            move |a, _, _| Some(sf::sqrt(f64b(a), F64, r)),
        );
        var(
            v,
            &format!("rcp.{rn}.f32"),
            &[F32_],
            W::B32,
            &format!("rcp.{rn}.f32 %d, %a;"),
            Check::F32,
            move |a, _, _| Some(sf::div(Val::Fin(false, 1, 0), f32b(a), F32, r)),
        );
        var(
            v,
            &format!("rcp.{rn}.f64"),
            &[F64_],
            W::B64,
            &format!("rcp.{rn}.f64 %d, %a;"),
            Check::F64,
            move |a, _, _| Some(sf::div(Val::Fin(false, 1, 0), f64b(a), F64, r)),
        );
    }
    var(
        v,
        "sqrt.rn.ftz.f32",
        &[(W::B32, Dom::PosF32)],
        W::B32,
        "sqrt.rn.ftz.f32 %d, %a;",
        Check::F32,
        |a, _, _| Some(F32.flush(sf::sqrt(sf::un(a, F32, true), F32, Rnd::N))),
    );
    var(
        v,
        "rcp.rn.ftz.f32",
        &[F32_],
        W::B32,
        "rcp.rn.ftz.f32 %d, %a;",
        Check::F32Ftz,
        |a, _, _| {
            Some(F32.flush(sf::div(
                Val::Fin(false, 1, 0),
                sf::un(a, F32, true),
                F32,
                Rnd::N,
            )))
        },
    );
    var(
        v,
        "div.rn.f32 by imm",
        &[F32_],
        W::B32,
        "div.rn.f32 %d, %a, 0f40400000;",
        Check::F32,
        move |a, _, _| Some(sf::div(f32b(a), k32(3.0), F32, Rnd::N)),
    );
}

/// Loads and stores of every width, global, local and shared, and atomics on
/// each thread's own word (so the results do not depend on thread order).
fn memory_variants(v: &mut Vec<Variant>) {
    let byte_addr = "cvt.u64.u32 %u1, %t1; add.u64 %u2, %rd0, %u1;";
    let sel = (W::B32, Dom::I32);
    var(
        v,
        "ld.global.s8",
        &[I32, sel],
        W::B32,
        &format!("and.b32 %t1, %b, 3; {byte_addr} ld.global.s8 %d, [%u2];"),
        Check::Exact,
        |a, b, _| some32((a >> (8 * (b & 3))) as u8 as i8 as i32 as u32),
    );
    var(
        v,
        "ld.global.u8",
        &[I32, sel],
        W::B32,
        &format!("and.b32 %t1, %b, 3; {byte_addr} ld.global.u8 %d, [%u2];"),
        Check::Exact,
        |a, b, _| Some((a >> (8 * (b & 3))) & 0xff),
    );
    var(
        v,
        "ld.global.s16",
        &[I32, sel],
        W::B32,
        &format!("and.b32 %t1, %b, 2; {byte_addr} ld.global.s16 %d, [%u2];"),
        Check::Exact,
        |a, b, _| some32((a >> (8 * (b & 2))) as u16 as i16 as i32 as u32),
    );
    var(
        v,
        "ld.global.nc.s8",
        &[I32, sel],
        W::B32,
        &format!("and.b32 %t1, %b, 3; {byte_addr} ld.global.nc.s8 %d, [%u2];"),
        Check::Exact,
        |a, b, _| some32((a >> (8 * (b & 3))) as u8 as i8 as i32 as u32),
    );
    var(
        v,
        "ld.global.nc.u16",
        &[I32, sel],
        W::B32,
        &format!("and.b32 %t1, %b, 2; {byte_addr} ld.global.nc.u16 %d, [%u2];"),
        Check::Exact,
        |a, b, _| Some((a >> (8 * (b & 2))) & 0xffff),
    );
    var(
        v,
        "ld.global.s8 to s64",
        &[I32, sel],
        W::B64,
        &format!("and.b32 %t1, %b, 3; {byte_addr} ld.global.s8 %d, [%u2];"),
        Check::Exact,
        |a, b, _| Some((a >> (8 * (b & 3))) as u8 as i8 as i64 as u64),
    );
    var(
        v,
        "st.global.u8",
        &[I32, sel, I32],
        W::B32,
        &format!(
            "and.b32 %t1, %b, 3; {byte_addr} st.global.u8 [%u2], %c; ld.global.u32 %d, [%rd0];"
        ),
        Check::Exact,
        |a, b, c| {
            let sh = 8 * (b & 3);
            Some(a & !(0xff << sh) | (c & 0xff) << sh)
        },
    );
    var(
        v,
        "st.global.u16",
        &[I32, sel, I32],
        W::B32,
        &format!(
            "and.b32 %t1, %b, 2; {byte_addr} st.global.u16 [%u2], %c; ld.global.u32 %d, [%rd0];"
        ),
        Check::Exact,
        |a, b, c| {
            let sh = 8 * (b & 2);
            Some(a & !(0xffff << sh) | (c & 0xffff) << sh)
        },
    );
    var(v, "ld.local.u8", &[I32, I32, sel], W::B32,
        "st.local.u32 [lmem], %a; st.local.u32 [lmem+4], %b; and.b32 %t1, %c, 7; cvt.u64.u32 %u1, %t1; mov.u64 %u2, lmem; add.u64 %u2, %u2, %u1; ld.local.s8 %d, [%u2];",
        Check::Exact, |a, b, c| some32(((b << 32 | a) >> (8 * (c & 7))) as u8 as i8 as i32 as u32));
    var(v, "st.local.u16", &[I32, I32, sel], W::B32,
        "st.local.u32 [lmem], %a; and.b32 %t1, %c, 2; cvt.u64.u32 %u1, %t1; mov.u64 %u2, lmem; add.u64 %u2, %u2, %u1; st.local.u16 [%u2], %b; ld.local.u32 %d, [lmem];",
        Check::Exact, |a, b, c| {
            let sh = 8 * (c & 2);
            Some(a & !(0xffff << sh) | (b & 0xffff) << sh)
        });
    let smem =
        "mov.u32 %t9, %tid.x; shl.b32 %t9, %t9, 3; mov.u32 %t8, smem; add.u32 %t8, %t8, %t9;";
    wvar(v, "st/ld.shared neighbour", &[I32], W::B32, &format!("{smem} st.shared.u32 [%t8], %a; bar.sync 0; xor.b32 %t7, %t9, 8; mov.u32 %t6, smem; add.u32 %t6, %t6, %t7; ld.shared.u32 %d, [%t6];"),
        Check::Exact, |rows, i| Some(rows[i ^ 1][0]));
    var(v, "ld.shared.s16", &[I32, sel], W::B32, &format!("{smem} st.shared.u32 [%t8], %a; and.b32 %t1, %b, 2; add.u32 %t7, %t8, %t1; ld.shared.s16 %d, [%t7];"),
        Check::Exact, |a, b, _| some32((a >> (8 * (b & 2))) as u16 as i16 as i32 as u32));
    var(v, "st.shared.u8", &[I32, sel, I32], W::B32, &format!("{smem} st.shared.u32 [%t8], %a; and.b32 %t1, %b, 3; add.u32 %t7, %t8, %t1; st.shared.u8 [%t7], %c; ld.shared.u32 %d, [%t8];"),
        Check::Exact, |a, b, c| {
            let sh = 8 * (b & 3);
            Some(a & !(0xff << sh) | (c & 0xff) << sh)
        });
    var(v, "st/ld.shared.v2", &[I32, I32], W::B32, &format!("{smem} st.shared.v2.u32 [%t8], {{%a, %b}}; ld.shared.v2.u32 {{%t1, %t2}}, [%t8]; sub.s32 %d, %t1, %t2;"),
        Check::Exact, |a, b, _| some32((a as u32).wrapping_sub(b as u32)));
    // Atomics on the thread's own word: {old, new} in one 64-bit result.
    let atoms: [(&str, AtomFn); 11] = [
        ("add.u32", |o, b, _| o.wrapping_add(b)),
        ("min.s32", |o, b, _| (o as i32).min(b as i32) as u32),
        ("max.s32", |o, b, _| (o as i32).max(b as i32) as u32),
        ("min.u32", |o, b, _| o.min(b)),
        ("max.u32", |o, b, _| o.max(b)),
        ("inc.u32", |o, b, _| if o >= b { 0 } else { o + 1 }),
        ("dec.u32", |o, b, _| if o == 0 || o > b { b } else { o - 1 }),
        ("and.b32", |o, b, _| o & b),
        ("or.b32", |o, b, _| o | b),
        ("xor.b32", |o, b, _| o ^ b),
        ("exch.b32", |_, b, _| b),
    ];
    for (op, f) in atoms {
        var(v, &format!("atom.global.{op}"), &[I32, I32], W::B64,
            &format!("atom.global.{op} %t1, [%rd0], %b; ld.global.u32 %t2, [%rd0]; mov.b64 %d, {{%t1, %t2}};"), Check::Exact, move |a, b, _| {
                Some((f(a as u32, b as u32, 0) as u64) << 32 | a)
            });
        var(v, &format!("atom.shared.{op}"), &[I32, I32], W::B64,
            &format!("{smem} st.shared.u32 [%t8], %a; atom.shared.{op} %t1, [%t8], %b; ld.shared.u32 %t2, [%t8]; mov.b64 %d, {{%t1, %t2}};"),
            Check::Exact, move |a, b, _| Some((f(a as u32, b as u32, 0) as u64) << 32 | a));
    }
    var(v, "atom.global.cas.b32", &[I32, I32, I32], W::B64,
        "atom.global.cas.b32 %t1, [%rd0], %b, %c; ld.global.u32 %t2, [%rd0]; mov.b64 %d, {%t1, %t2};", Check::Exact, |a, b, c| {
            Some((if a == b { c } else { a }) << 32 | a)
        });
    var(v, "atom.shared.cas.b32", &[I32, I32, I32], W::B64,
        &format!("{smem} st.shared.u32 [%t8], %a; atom.shared.cas.b32 %t1, [%t8], %b, %c; ld.shared.u32 %t2, [%t8]; mov.b64 %d, {{%t1, %t2}};"),
        Check::Exact, |a, b, c| Some((if a == b { c } else { a }) << 32 | a));
    // atom.add.f32: round to nearest, subnormal inputs and results flushed (PTX ISA).
    var(
        v,
        "atom.global.add.f32",
        &[F32_, F32_],
        W::B64,
        "atom.global.add.f32 %t1, [%rd0], %b; ld.global.u32 %t2, [%rd0]; mov.b64 %d, {%t1, %t2};",
        Check::Exact,
        |a, b, _| {
            let r = F32.flush(sf::add(
                sf::un(a, F32, true),
                sf::un(b, F32, true),
                F32,
                Rnd::N,
            ));
            if F32.is_nan(r) {
                return None; // payload unspecified
            }
            Some(r << 32 | a)
        },
    );
    var(
        v,
        "red.global.add.u32",
        &[I32, I32],
        W::B32,
        "red.global.add.u32 [%rd0], %b; ld.global.u32 %d, [%rd0];",
        Check::Exact,
        |a, b, _| some32((a as u32).wrapping_add(b as u32)),
    );
    for (op, f) in [
        (
            "add.u64",
            (|o: u64, b: u64, _c: u64| o.wrapping_add(b)) as fn(u64, u64, u64) -> u64,
        ),
        ("exch.b64", |_, b, _| b),
        ("cas.b64", |o, b, c| if o == b { c } else { o }),
        ("min.s64", |o, b, _| (o as i64).min(b as i64) as u64),
        ("max.u64", |o, b, _| o.max(b)),
        ("and.b64", |o, b, _| o & b),
    ] {
        let args = if op.starts_with("cas") {
            "%b, %c"
        } else {
            "%b"
        };
        var(
            v,
            &format!("atom.global.{op} old"),
            &[I64, I64, I64],
            W::B64,
            &format!("atom.global.{op} %d, [%rd0], {args};"),
            Check::Exact,
            |a, _, _| Some(a),
        );
        var(
            v,
            &format!("atom.global.{op} new"),
            &[I64, I64, I64],
            W::B64,
            &format!("atom.global.{op} %u1, [%rd0], {args}; ld.global.u64 %d, [%rd0];"),
            Check::Exact,
            move |a, b, c| Some(f(a, b, c)),
        );
    }
}

/// `shfl` by the PTX ISA: `{in range, a of the source lane}` for row `i`.
fn shfl_ref(mode: &str, rows: &[[u64; 3]], i: usize, b: u64, c: u64) -> u64 {
    let ln = (i % 32) as i64;
    let (b, c) = (b as i64 & 0x1f, c as i64);
    let (cval, seg) = (c & 0x1f, (c >> 8) & 0x1f);
    let max_lane = (ln & seg) | (cval & !seg);
    let min_lane = ln & seg;
    let (j, ok) = match mode {
        "up" => (ln - b, ln - b >= max_lane),
        "down" => (ln + b, ln + b <= max_lane),
        "bfly" => (ln ^ b, (ln ^ b) <= max_lane),
        _ => {
            let j = min_lane | (b & !seg);
            (j, j <= max_lane)
        }
    };
    let src = if ok { i - (i % 32) + j as usize } else { i };
    (ok as u64) << 32 | rows[src][0]
}

/// Instructions that read other lanes: shfl and vote.
fn warp_variants(v: &mut Vec<Variant>) {
    let lane = (W::B32, Dom::Lane);
    let shc = (W::B32, Dom::ShflC);
    for mode in ["up", "down", "bfly", "idx"] {
        wvar(
            v,
            &format!("shfl.{mode}.b32"),
            &[I32, lane, shc],
            W::B64,
            &format!("shfl.{mode}.b32 %t1|%p1, %a, %b, %c; selp.u32 %t2, 1, 0, %p1; mov.b64 %d, {{%t1, %t2}};"),
            Check::Exact,
            move |rows, i| Some(shfl_ref(mode, rows, i, rows[i][1], rows[i][2])),
        );
    }
    // Immediate lane operands (the forms reductions and scans use).
    for (mode, b, c) in [
        ("bfly", 1u64, 0x1fu64),
        ("down", 16, 0x1f),
        ("up", 1, 0),
        ("idx", 5, 0x1f),
        ("bfly", 3, 0x1c1f),
    ] {
        wvar(
            v,
            &format!("shfl.{mode}.b32 {b} {c:#x}"),
            &[I32],
            W::B64,
            &format!("shfl.{mode}.b32 %t1|%p1, %a, {b}, {c}; selp.u32 %t2, 1, 0, %p1; mov.b64 %d, {{%t1, %t2}};"),
            Check::Exact,
            move |rows, i| Some(shfl_ref(mode, rows, i, b, c)),
        );
    }
    let coin = (W::B32, Dom::Coin);
    let warp = |rows: &[[u64; 3]], i: usize| -> u32 {
        let base = i - i % 32;
        (0..32).fold(0u32, |m, l| m | ((rows[base + l][0] != 0) as u32) << l)
    };
    wvar(
        v,
        "vote.ballot.b32",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; vote.ballot.b32 %d, %p1;",
        Check::Exact,
        move |rows, i| some32(warp(rows, i)),
    );
    wvar(
        v,
        "vote.all.pred",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; vote.all.pred %p2, %p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(warp(rows, i) == u32::MAX),
    );
    wvar(
        v,
        "vote.any.pred",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; vote.any.pred %p2, %p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(warp(rows, i) != 0),
    );
    wvar(
        v,
        "vote.uni.pred",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; vote.uni.pred %p2, %p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(warp(rows, i) == 0 || warp(rows, i) == u32::MAX),
    );
    wvar(
        v,
        "vote.all.pred negated",
        &[coin],
        W::B32,
        "setp.ne.u32 %p1, %a, 0; vote.all.pred %p2, !%p1; selp.u32 %d, 1, 0, %p2;",
        Check::Exact,
        move |rows, i| flag(warp(rows, i) == 0),
    );
    var(v, "laneid and lanemask", &[I32], W::B32, "mov.u32 %t1, %laneid; mov.u32 %t2, %lanemask_lt; popc.b32 %t3, %t2; sub.s32 %d, %t1, %t3; add.s32 %d, %d, %a;",
        Check::Exact, |a, _, _| Some(a));
}

// ---------------------------------------------------------------------------
// Kernels, running, comparing.
// ---------------------------------------------------------------------------

fn kernel_ptx(k: &Variant) -> String {
    let mut s = String::new();
    s += &format!(
        ".visible .entry {}(.param .u64 p_out, .param .u64 p_a, .param .u64 p_b, .param .u64 p_c)\n{{\n",
        k.name
    );
    s += "  .reg .b32 %r<4>;\n  .reg .b64 %rd<12>;\n  .reg .b32 %t<10>;\n  .reg .b64 %u<10>;\n  .reg .b16 %h<6>;\n  .reg .pred %p<5>;\n";
    let names = ["%a", "%b", "%c"];
    for (i, n) in names.iter().enumerate() {
        let w = k.ins.get(i).map_or(W::B32, |x| x.0);
        s += &format!("  .reg .{} {n};\n", w.ptx());
    }
    s += &format!("  .reg .{} %d;\n", k.out.ptx());
    if k.body.contains("smem") {
        s += "  .shared .align 8 .b8 smem[1024];\n";
    }
    if k.body.contains("lmem") {
        s += "  .local .align 8 .b8 lmem[16];\n";
    }
    s += "  mov.u32 %r0, %tid.x;\n  mov.u32 %r1, %ctaid.x;\n  mov.u32 %r2, %ntid.x;\n  mad.lo.u32 %r3, %r1, %r2, %r0;\n";
    for (i, (w, _)) in k.ins.iter().enumerate() {
        let p = ["p_a", "p_b", "p_c"][i];
        s += &format!(
            "  ld.param.u64 %rd{0}, [{p}];\n  cvta.to.global.u64 %rd{0}, %rd{0};\n  mul.wide.u32 %rd{1}, %r3, {2};\n  add.u64 %rd{0}, %rd{0}, %rd{1};\n  ld.global.{3} {4}, [%rd{0}];\n",
            2 * i,
            2 * i + 1,
            w.bytes(),
            w.ptx(),
            names[i]
        );
    }
    s += &format!("  {}\n", k.body.replace("; ", ";\n  "));
    s += &format!(
        "  ld.param.u64 %rd8, [p_out];\n  cvta.to.global.u64 %rd8, %rd8;\n  mul.wide.u32 %rd9, %r3, {};\n  add.u64 %rd8, %rd8, %rd9;\n  st.global.{} [%rd8], %d;\n  ret;\n}}\n\n",
        k.out.bytes(),
        k.out.ptx()
    );
    s
}

fn module_ptx(vs: &[Variant]) -> String {
    let mut s = String::from(".version 7.0\n.target sm_35\n.address_size 64\n\n");
    for k in vs {
        s += &kernel_ptx(k);
    }
    s
}

/// The value in f32 units in the last place at `t` (exact value as f64).
fn ulp32(t: f64) -> f64 {
    let a = t.abs();
    if a < 2f64.powi(-126) {
        2f64.powi(-149)
    } else {
        2f64.powi(a.log2().floor() as i32 - 23)
    }
}

fn agrees(check: Check, out: W, got: u64, want: u64) -> bool {
    match check {
        Check::Exact => got == want,
        Check::F32 => got == want || (F32.is_nan(got) && F32.is_nan(want)),
        Check::F32Ftz => {
            got == want
                || (F32.is_nan(got) && F32.is_nan(want))
                || (want & 0x7fff_ffff == 0x0080_0000 && got == want & 0x8000_0000)
        }
        Check::F64 => got == want || (F64.is_nan(got) && F64.is_nan(want)),
        Check::F16 => {
            let h = Fmt {
                p: 11,
                emax: 15,
                bits: 16,
            };
            got == want || (got >> 16 == 0 && h.is_nan(got) && h.is_nan(want))
        }
        Check::Approx { ulps, abs, rel } => {
            assert_eq!(out, W::B32);
            let t = f64::from_bits(want);
            let g = f32::from_bits(got as u32) as f64;
            if t.is_nan() {
                return g.is_nan();
            }
            if t.abs() > f32::MAX as f64 * (1.0 + 2f64.powi(-25)) || t.is_infinite() {
                // Beyond the range (or infinite): infinity of the sign, or the
                // largest finite value within the bound.
                return g == t.signum() * f64::INFINITY
                    || (g.is_finite() && (g - t).abs() <= ulps * ulp32(f32::MAX as f64));
            }
            if g.is_nan() {
                return false;
            }
            if g.is_infinite() {
                return t.abs() >= f32::MAX as f64 * (1.0 - 2f64.powi(-22));
            }
            let err = (g - t).abs();
            err <= ulps * ulp32(t) || err <= abs || err <= rel * t.abs()
        }
    }
}

struct Outcome {
    name: String,
    skipped: Option<String>,
    failures: Vec<String>,
    compared: usize,
}

fn run_variant(cubin: &Cubin, k: &Variant, seed: u64) -> Outcome {
    let mut out = Outcome {
        name: k.name.clone(),
        skipped: None,
        failures: Vec::new(),
        compared: 0,
    };
    let doms: Vec<Dom> = k.ins.iter().map(|x| x.1).collect();
    let rows = inputs(&doms, seed);
    let mut global = GlobalMem::new();
    let mut addrs = [0u64; 3];
    for (i, (w, _)) in k.ins.iter().enumerate() {
        let mut bytes = Vec::with_capacity(N * w.bytes());
        for r in &rows {
            bytes.extend_from_slice(&r[i].to_le_bytes()[..w.bytes()]);
        }
        addrs[i] = global.alloc(["a", "b", "c"][i], bytes);
    }
    let out_addr = global.alloc("out", vec![0xcd; N * k.out.bytes()]);
    let prog = match Program::load(cubin, &k.name, &mut global) {
        Ok(p) => p,
        Err(e) => {
            out.skipped = Some(format!("does not load: {e}"));
            return out;
        }
    };
    if !prog.problems.is_empty() {
        let list: Vec<String> = prog
            .problems
            .iter()
            .map(|(slot, why)| format!("{} ({why})", prog.text(*slot)))
            .collect();
        out.skipped = Some(format!("not modelled: {}", list.join("; ")));
        return out;
    }
    let mut params = vec![0u8; prog.param_size as usize];
    for p in &prog.params {
        let v = match p.ordinal {
            0 => out_addr,
            o => addrs[o as usize - 1],
        };
        params[p.offset as usize..p.offset as usize + 8].copy_from_slice(&v.to_le_bytes());
    }
    let dims = Dims {
        grid: [N as u32 / BLOCK, 1, 1],
        block: [BLOCK, 1, 1],
        dynamic_shared: 0,
    };
    if let Err(e) = func::run(&prog, &mut global, &dims, &params, 1 << 32) {
        out.failures.push(format!("the run failed: {e}"));
        return out;
    }
    let data = &global.get("out").expect("out").data;
    let wb = k.out.bytes();
    for (i, r) in rows.iter().enumerate() {
        let mut buf = [0u8; 8];
        buf[..wb].copy_from_slice(&data[i * wb..(i + 1) * wb]);
        let got = u64::from_le_bytes(buf);
        let Some(want) = (k.reference)(&rows, i) else {
            continue;
        };
        out.compared += 1;
        if !agrees(k.check, k.out, got, want) {
            if out.failures.len() < 6 {
                let ins: Vec<String> = k
                    .ins
                    .iter()
                    .enumerate()
                    .map(|(j, _)| format!("{:#x}", r[j]))
                    .collect();
                let note = match k.check {
                    Check::Approx { .. } => format!(
                        " (exact value {:e}, got {:e})",
                        f64::from_bits(want),
                        f32::from_bits(got as u32)
                    ),
                    _ => String::new(),
                };
                out.failures.push(format!(
                    "  inputs ({}): got {got:#x}, expected {want:#x}{note}",
                    ins.join(", ")
                ));
            } else if out.failures.len() == 6 {
                out.failures.push("  ...".into());
            }
        }
    }
    if !out.failures.is_empty() {
        let total = rows
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let mut buf = [0u8; 8];
                buf[..wb].copy_from_slice(&data[i * wb..(i + 1) * wb]);
                (k.reference)(&rows, *i)
                    .is_some_and(|want| !agrees(k.check, k.out, u64::from_le_bytes(buf), want))
            })
            .count();
        out.failures.insert(
            0,
            format!("{total} of {} values differ; SASS:", out.compared),
        );
        let sass: Vec<String> = (0..prog.ops.len() as u32)
            .filter(|s| s % 8 != 0)
            .map(|s| prog.text(s))
            .filter(|t| {
                !t.starts_with("NOP")
                    && !t.starts_with("BRA 0x")
                    && !t.contains("c[0x0][0x14")
                    && !t.starts_with("MOV R1,")
            })
            .take(60)
            .collect();
        out.failures
            .insert(1, format!("    {}", sass.join("\n    ")));
    }
    out
}

#[test]
fn executor_matches_the_ptx_isa() {
    let tools = Tools::locate().expect("NVIDIA's tools: run `bash scripts/fetch-oracle.sh`");
    let vs = variants();
    let mut names = std::collections::HashSet::new();
    for k in &vs {
        assert!(names.insert(k.name.clone()), "duplicate variant {}", k.name);
    }
    let ptx = module_ptx(&vs);
    if let Ok(p) = std::env::var("SEMANTICS_PTX") {
        std::fs::write(p, &ptx).expect("write the PTX");
    }
    let bytes = tools.ptxas(&ptx).unwrap_or_else(|e| panic!("ptxas: {e}"));
    let cubin = Cubin::parse(&bytes).expect("cubin");
    let only = std::env::var("SEMANTICS_ONLY").ok();
    let mut skipped = Vec::new();
    let mut failed = Vec::new();
    let mut vacuous = Vec::new();
    let mut run = 0;
    for (i, k) in vs.iter().enumerate() {
        if only.as_ref().is_some_and(|o| !k.name.contains(o.as_str())) {
            continue;
        }
        let o = run_variant(&cubin, k, 0x5eed_0000 + i as u64);
        if let Some(why) = o.skipped {
            println!("semantics: skipped {}: {why}", o.name);
            skipped.push(o.name);
        } else if !o.failures.is_empty() {
            println!("semantics: {} FAILS:\n{}", o.name, o.failures.join("\n"));
            failed.push(o.name);
        } else if o.compared == 0 {
            // A reference that leaves every value unspecified checks nothing.
            println!("semantics: {} compares no value", o.name);
            vacuous.push(o.name);
        } else {
            run += 1;
        }
    }
    if failed.is_empty() {
        println!(
            "semantics: {run} variants, {N} values each, all bit-exact (approximations within their documented bounds); {} skipped as not modelled",
            skipped.len()
        );
    } else {
        println!(
            "semantics: {} variants, {N} values each: {} fail: {}; {} skipped as not modelled",
            run + failed.len(),
            failed.len(),
            failed.join(", "),
            skipped.len()
        );
    }
    assert!(
        failed.is_empty(),
        "{} variants disagree with the PTX ISA: {}",
        failed.len(),
        failed.join(", ")
    );
    assert!(
        vacuous.is_empty(),
        "{} variants compare no value with the PTX ISA: {}",
        vacuous.len(),
        vacuous.join(", ")
    );
    // A variant newly skipped is lost coverage (a decoder or lowering
    // regression), not a pass.
    let new: Vec<&String> = skipped
        .iter()
        .filter(|n| !NOT_MODELLED.contains(&n.as_str()))
        .collect();
    assert!(
        new.is_empty(),
        "variants that used to run are now skipped as not modelled: {new:?}"
    );
    for n in NOT_MODELLED {
        if only.is_none() && !skipped.iter().any(|s| s == n) {
            println!("semantics: {n} runs now; take it off NOT_MODELLED");
        }
    }
}

/// The variants whose SASS the executor does not run yet: the video
/// instructions.
const NOT_MODELLED: &[&str] = &[
    "vabsdiff4_u32_u32_u32_add",
    "vadd_s32_s32_s32_sat",
    "vmax_u32_u32_u32",
    "vadd2_u32_u32_u32",
];

#[cfg(test)]
mod reference_tests {
    use super::*;

    #[test]
    fn soft_float_agrees_with_the_host_in_round_to_nearest() {
        let mut rng = Rng(1);
        for _ in 0..200_000 {
            let a = Dom::F32.random(&mut rng, &[]) as u32;
            let b = Dom::F32.random(&mut rng, &[a as u64]) as u32;
            let c = Dom::F32.random(&mut rng, &[b as u64]) as u32;
            let (x, y, z) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(c));
            let same = |s: u64, h: f32| s as u32 == h.to_bits() || (F32.is_nan(s) && h.is_nan());
            let (ua, ub, uc) = (
                sf::unpack(a as u64, F32),
                sf::unpack(b as u64, F32),
                sf::unpack(c as u64, F32),
            );
            assert!(same(sf::add(ua, ub, F32, Rnd::N), x + y), "{x:e} + {y:e}");
            assert!(same(sf::mul(ua, ub, F32, Rnd::N), x * y), "{x:e} * {y:e}");
            assert!(
                same(sf::fma(ua, ub, uc, F32, Rnd::N), x.mul_add(y, z)),
                "fma {x:e} {y:e} {z:e}"
            );
            assert!(same(sf::div(ua, ub, F32, Rnd::N), x / y), "{x:e} / {y:e}");
            assert!(same(sf::sqrt(ua, F32, Rnd::N), x.sqrt()), "sqrt {x:e}");
            let (p, q, r) = (rng.next(), rng.next(), rng.next());
            let (fp, fq, fr) = (f64::from_bits(p), f64::from_bits(q), f64::from_bits(r));
            let same64 = |s: u64, h: f64| s == h.to_bits() || (F64.is_nan(s) && h.is_nan());
            let (up, uq, ur) = (sf::unpack(p, F64), sf::unpack(q, F64), sf::unpack(r, F64));
            assert!(same64(sf::fma(up, uq, ur, F64, Rnd::N), fp.mul_add(fq, fr)));
            assert!(same64(sf::add(up, uq, F64, Rnd::N), fp + fq));
            assert!(same64(sf::div(up, uq, F64, Rnd::N), fp / fq));
            assert!(
                fp.is_nan() || sf::conv(up, F32, Rnd::N) == (fp as f32).to_bits() as u64,
                "{fp:e} to f32"
            );
        }
    }

    #[test]
    fn approximate_checks_have_teeth() {
        let check = Check::Approx {
            ulps: 2.0,
            abs: 0.0,
            rel: 0.0,
        };
        let one = 1.0f64.to_bits();
        assert!(agrees(check, W::B32, 0x3f80_0002, one));
        assert!(!agrees(check, W::B32, 0x3f80_0003, one));
        assert!(!agrees(check, W::B32, 0x7fc0_0000, one));
        assert!(agrees(check, W::B32, 0x7f80_0000, f64::INFINITY.to_bits()));
        assert!(!agrees(check, W::B32, 0x7f7f_ffff, f64::INFINITY.to_bits()));
        let abs = Check::Approx {
            ulps: 0.0,
            abs: 1e-6,
            rel: 0.0,
        };
        assert!(agrees(abs, W::B32, 0x3580_0000, 0)); // 2^-20 = 9.5e-7
        assert!(!agrees(abs, W::B32, 0x3600_0000, 0)); // 2^-19
    }

    #[test]
    fn directed_rounding_brackets_the_nearest() {
        let mut rng = Rng(2);
        for _ in 0..100_000 {
            let a = sf::unpack(Dom::F32.random(&mut rng, &[]), F32);
            let b = sf::unpack(Dom::F32.random(&mut rng, &[]), F32);
            let lo = f32::from_bits(sf::add(a, b, F32, Rnd::M) as u32);
            let hi = f32::from_bits(sf::add(a, b, F32, Rnd::P) as u32);
            let n = f32::from_bits(sf::add(a, b, F32, Rnd::N) as u32);
            let z = f32::from_bits(sf::add(a, b, F32, Rnd::Z) as u32);
            if n.is_nan() {
                continue;
            }
            assert!(lo <= n && n <= hi);
            assert!(z == lo || z == hi);
            assert!(z.abs() <= n.abs());
            if lo != hi {
                assert_eq!(lo.next_up(), hi, "{lo:e} {hi:e}");
            }
        }
    }
}
