//! Floating-point immediates as NVIDIA's `nvdisasm` 11.8 prints them for sm_35, and
//! the inverse parsers an assembler needs.
//!
//! The rules were found by probing nvdisasm (every 20-bit `FADD` and `DADD`
//! immediate, and hundreds of thousands of random `FADD32I` immediates, agree):
//!
//! * A 32-bit float immediate is first widened to a double (as the x86 hardware
//!   does it, so a signalling NaN becomes quiet), then printed by the double rule.
//! * Double rule, by class of the value `x`:
//!   * NaN: the sign (`+` or `-`), then `QNAN ` if the quiet bit (bit 51) is set,
//!     else `SNAN `, with a trailing space. A 32-bit NaN therefore always prints
//!     `+QNAN ` or `-QNAN `.
//!   * Infinity: `+INF ` or `-INF ` (trailing space).
//!   * `+0.0` prints `0`; `-0.0` prints `-0.0 ` (trailing space).
//!   * `|x| >= 1e9`: C's `printf("%.20e", x)`: 21 significant digits, no trimming,
//!     an exponent of at least two digits (`1.00000000000000000000e+10`).
//!   * otherwise: C's `printf("%.20g", x)`: 20 significant digits; exponent form
//!     (`1.175494350822287508e-38`) when the decimal exponent is below -4, fixed
//!     form (`0.00010000000474974513054`, `123456792`) otherwise; trailing zeros,
//!     and then a trailing point, are removed.
//!
//!   Rounding is exact (from the full binary value) with ties to even, as glibc
//!   does. The switch-over at 1e9 is pinned by 32-bit values (999999936 is fixed,
//!   1e9 is exponent); for doubles it is extrapolated as the same `|x| >= 1e9`
//!   test, as no sm_35 instruction shows a double finer than its top 20 bits.
//!
//! The exact decimal expansion uses a small base-10^9 big integer; no crate needed.

/// Sign bit of an `f64`.
const F64_SIGN: u64 = 1 << 63;
/// Quiet bit of an `f64` NaN.
const F64_QUIET: u64 = 1 << 51;

/// Canonical `f32` returned by [`parse_f32_text`] for `+QNAN`; `-QNAN` is the same
/// with the sign bit set.
pub const F32_QNAN: u32 = 0x7fc0_0000;
/// Canonical `f64` returned by [`parse_f64_text`] for `+QNAN`; `-QNAN` is the same
/// with the sign bit set. Its low 44 bits are zero, so it fits a 20-bit immediate.
pub const F64_QNAN: u64 = 0x7ff8_0000_0000_0000;
/// Canonical `f64` returned by [`parse_f64_text`] for `+SNAN`; `-SNAN` is the same
/// with the sign bit set. Its low 44 bits are zero, so it fits a 20-bit immediate.
pub const F64_SNAN: u64 = 0x7ff4_0000_0000_0000;

/// The text nvdisasm prints for a 32-bit float immediate with IEEE bits `bits`.
///
/// Special values keep nvdisasm's trailing space (`-0.0 `, `+INF `, `-QNAN `).
pub fn f32_text(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v.is_nan() {
        // Widening to double quiets the NaN: nvdisasm never prints SNAN for f32.
        return if bits >> 31 != 0 { "-QNAN " } else { "+QNAN " }.to_string();
    }
    f64_text((v as f64).to_bits())
}

/// The IEEE double equal to the IEEE half `bits` (NaNs keep sign, quietness and
/// payload).
pub fn f16_to_f64_bits(bits: u16) -> u64 {
    let sign = u64::from(bits >> 15) << 63;
    let exp = i32::from((bits >> 10) & 0x1f);
    let mant = u64::from(bits & 0x3ff);
    match exp {
        0x1f => sign | 0x7ff << 52 | mant << 42,
        0 if mant == 0 => sign,
        // Subnormal: mant * 2^-24.
        0 => sign | (mant as f64 * (-24f64).exp2()).to_bits(),
        _ => sign | ((exp - 15 + 1023) as u64) << 52 | mant << 42,
    }
}

/// The IEEE half equal to the double `bits`, if there is one.
pub fn f64_to_f16_bits(bits: u64) -> Option<u16> {
    let sign = ((bits >> 63) as u16) << 15;
    let e = ((bits >> 52) & 0x7ff) as i32;
    let m = bits & ((1u64 << 52) - 1);
    match e {
        0x7ff => Some(sign | 0x7c00 | (m >> 42) as u16).filter(|_| m & ((1 << 42) - 1) == 0),
        0 => (m == 0).then_some(sign),
        _ => {
            let e = e - 1023;
            if (-14..=15).contains(&e) {
                let ok = m & ((1u64 << 42) - 1) == 0;
                ok.then_some(sign | ((e + 15) as u16) << 10 | (m >> 42) as u16)
            } else if (-24..-14).contains(&e) {
                let full = 1u64 << 52 | m;
                let sh = 28 - e;
                (full & ((1u64 << sh) - 1) == 0).then_some(sign | (full >> sh) as u16)
            } else {
                None
            }
        }
    }
}

/// The text nvdisasm prints for a half-precision immediate (the source of
/// `F2I.U8.F16`): the half widened to a double, printed as [`f64_text`] does;
/// every NaN is quiet, as for f32.
pub fn f16_text(bits: u16) -> String {
    f64_text(
        f16_to_f64_bits(bits)
            | if bits & 0x7c00 == 0x7c00 && bits & 0x3ff != 0 {
                F64_QUIET
            } else {
                0
            },
    )
}

/// Parses text printed by [`f16_text`] back to the half's bits; `None` for a
/// value no half holds exactly.
pub fn parse_f16_text(s: &str) -> Option<u16> {
    let d = parse_f64_text(s)?;
    if f64::from_bits(d).is_nan() {
        // The canonical NaN of that sign and quietness.
        return (d & F64_QUIET != 0).then_some(((d >> 63) as u16) << 15 | 0x7e00);
    }
    f64_to_f16_bits(d)
}

/// The text nvdisasm prints for a 64-bit double immediate with IEEE bits `bits`.
///
/// sm_35 encodes only the top 20 bits of a double; this function is exact for those
/// and applies the same rules to any other double (see the module documentation).
pub fn f64_text(bits: u64) -> String {
    let neg = bits & F64_SIGN != 0;
    let v = f64::from_bits(bits);
    if v.is_nan() {
        let kind = if bits & F64_QUIET != 0 {
            "QNAN "
        } else {
            "SNAN "
        };
        return format!("{}{kind}", if neg { '-' } else { '+' });
    }
    if v.is_infinite() {
        return if neg { "-INF " } else { "+INF " }.to_string();
    }
    if v == 0.0 {
        return if neg { "-0.0 " } else { "0" }.to_string();
    }
    let exact = Decimal::of_finite(bits);
    let mut out = String::new();
    if neg {
        out.push('-');
    }
    if v.abs() >= 1e9 {
        let (digits, exp) = exact.round_to(21);
        push_exponent_form(&mut out, &digits, exp, false);
    } else {
        let (digits, exp) = exact.round_to(20);
        if exp < -4 {
            push_exponent_form(&mut out, &digits, exp, true);
        } else {
            push_fixed_form(&mut out, &digits, exp);
        }
    }
    out
}

/// Parses text printed by [`f32_text`] back to IEEE bits.
///
/// Accepts surrounding whitespace, `+INF`, `-INF`, `+QNAN` and `-QNAN` (giving
/// [`F32_QNAN`], with the sign bit for `-QNAN`: every f32 NaN prints that way), and
/// decimal literals `[-]digits[.digits][e[+|-]digits]` (also `.5`, `5.`), rounded to
/// the nearest f32 with ties to even. A finite literal too large for f32 gives
/// `None`; so does `SNAN`, which nvdisasm never prints for f32.
/// For every non-NaN `b`, `parse_f32_text(&f32_text(b)) == Some(b)`.
pub fn parse_f32_text(s: &str) -> Option<u32> {
    let s = s.trim();
    match s {
        "+INF" => return Some(0x7f80_0000),
        "-INF" => return Some(0xff80_0000),
        "+QNAN" => return Some(F32_QNAN),
        "-QNAN" => return Some(F32_QNAN | 0x8000_0000),
        _ => {}
    }
    if !is_decimal_literal(s) {
        return None;
    }
    let v: f32 = s.parse().ok()?;
    if v.is_infinite() {
        return None;
    }
    Some(v.to_bits())
}

/// Parses text printed by [`f64_text`] back to IEEE bits.
///
/// Accepts surrounding whitespace, `+INF`, `-INF`, `+QNAN`, `-QNAN` (giving
/// [`F64_QNAN`], with the sign bit for `-QNAN`), `+SNAN`, `-SNAN` (giving
/// [`F64_SNAN`], likewise) and decimal literals `[-]digits[.digits][e[+|-]digits]`,
/// rounded to the nearest double with ties to even. A finite literal too large for
/// f64 gives `None`. For every non-NaN `b`, `parse_f64_text(&f64_text(b)) == Some(b)`;
/// NaNs come back as the canonical NaN of the same sign and quietness.
pub fn parse_f64_text(s: &str) -> Option<u64> {
    let s = s.trim();
    match s {
        "+INF" => return Some(0x7ff0_0000_0000_0000),
        "-INF" => return Some(0xfff0_0000_0000_0000),
        "+QNAN" => return Some(F64_QNAN),
        "-QNAN" => return Some(F64_QNAN | F64_SIGN),
        "+SNAN" => return Some(F64_SNAN),
        "-SNAN" => return Some(F64_SNAN | F64_SIGN),
        _ => {}
    }
    if !is_decimal_literal(s) {
        return None;
    }
    let v: f64 = s.parse().ok()?;
    if v.is_infinite() {
        return None;
    }
    Some(v.to_bits())
}

/// True for `[-]digits[.digits][(e|E)[+|-]digits]` with at least one mantissa digit:
/// the only numeric shapes the printers produce (std's parser alone would also take
/// `inf`, `nan` and a leading `+`).
fn is_decimal_literal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    if b.first() == Some(&b'-') {
        i = 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let mut mantissa_digits = i - int_start;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let frac_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        mantissa_digits += i - frac_start;
    }
    if mantissa_digits == 0 {
        return false;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        let exp_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == exp_start {
            return false;
        }
    }
    i == b.len()
}

/// Appends `d.ddd…e±XX` (C's `%e` shape) for the digits `digits` (ASCII, first
/// non-zero) whose first digit has decimal exponent `exp`; `trim` removes trailing
/// zeros and then a trailing point, as `%g` does.
fn push_exponent_form(out: &mut String, digits: &[u8], exp: i32, trim: bool) {
    let mut mantissa = String::with_capacity(digits.len() + 1);
    mantissa.push(digits[0] as char);
    mantissa.push('.');
    mantissa.extend(digits[1..].iter().map(|&d| d as char));
    if trim {
        trim_fraction(&mut mantissa);
    }
    out.push_str(&mantissa);
    out.push('e');
    out.push(if exp < 0 { '-' } else { '+' });
    let e = exp.unsigned_abs();
    if e < 10 {
        out.push('0');
    }
    out.push_str(&e.to_string());
}

/// Appends the fixed form of `%g` for the digits `digits` (ASCII, first non-zero)
/// whose first digit has decimal exponent `exp` (-4 ≤ exp < digits.len()), with
/// trailing zeros and then a trailing point removed.
fn push_fixed_form(out: &mut String, digits: &[u8], exp: i32) {
    let mut s = String::with_capacity(digits.len() + 6);
    if exp < 0 {
        s.push_str("0.");
        for _ in 0..(-exp - 1) {
            s.push('0');
        }
        s.extend(digits.iter().map(|&d| d as char));
    } else {
        let int_len = exp as usize + 1;
        s.extend(digits[..int_len].iter().map(|&d| d as char));
        s.push('.');
        s.extend(digits[int_len..].iter().map(|&d| d as char));
    }
    trim_fraction(&mut s);
    out.push_str(&s);
}

/// Removes trailing zeros after a decimal point, then the point if nothing follows.
fn trim_fraction(s: &mut String) {
    if !s.contains('.') {
        return;
    }
    while s.ends_with('0') {
        s.pop();
    }
    if s.ends_with('.') {
        s.pop();
    }
}

/// The exact decimal value of a finite non-zero double's magnitude: the integer
/// `digits` (ASCII, no leading or trailing zeros) times `10^scale`.
struct Decimal {
    digits: Vec<u8>,
    scale: i32,
}

impl Decimal {
    /// Exact expansion of `|f64::from_bits(bits)|`, which must be finite and non-zero.
    fn of_finite(bits: u64) -> Decimal {
        let biased = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1 << 52) - 1);
        let (mant, exp2) = if biased == 0 {
            (frac, -1074)
        } else {
            (frac | (1 << 52), biased - 1075)
        };
        debug_assert!(mant != 0);
        let mut n = BigDec::from_u64(mant);
        let mut scale = 0;
        if exp2 >= 0 {
            n.mul_pow2(exp2 as u32);
        } else {
            // m / 2^k = m * 5^k / 10^k.
            n.mul_pow5((-exp2) as u32);
            scale = exp2;
        }
        let mut digits = n.to_ascii();
        while digits.last() == Some(&b'0') {
            digits.pop();
            scale += 1;
        }
        Decimal { digits, scale }
    }

    /// Rounds to `p` significant digits, ties to even. Returns exactly `p` ASCII digits
    /// and the decimal exponent of the first one.
    fn round_to(&self, p: usize) -> (Vec<u8>, i32) {
        let mut exp = self.digits.len() as i32 - 1 + self.scale;
        let mut out: Vec<u8> = self.digits.iter().copied().take(p).collect();
        if self.digits.len() > p {
            let first_dropped = self.digits[p];
            // Trailing zeros were stripped, so a 5 followed by nothing is an exact tie.
            let round_up = match first_dropped.cmp(&b'5') {
                std::cmp::Ordering::Greater => true,
                std::cmp::Ordering::Less => false,
                std::cmp::Ordering::Equal => {
                    self.digits.len() > p + 1 || (out[p - 1] - b'0') % 2 == 1
                }
            };
            if round_up {
                let mut i = p;
                loop {
                    if i == 0 {
                        // All nines: 99…9 became 100…0.
                        out.insert(0, b'1');
                        out.truncate(p);
                        exp += 1;
                        break;
                    }
                    i -= 1;
                    if out[i] == b'9' {
                        out[i] = b'0';
                    } else {
                        out[i] += 1;
                        break;
                    }
                }
            }
        }
        out.resize(p, b'0');
        (out, exp)
    }
}

/// A non-negative big integer in base 10^9, least significant limb first.
struct BigDec {
    limbs: Vec<u32>,
}

/// The limb base.
const BASE: u64 = 1_000_000_000;

impl BigDec {
    /// The big integer equal to `v`.
    fn from_u64(mut v: u64) -> BigDec {
        let mut limbs = Vec::new();
        while v != 0 {
            limbs.push((v % BASE) as u32);
            v /= BASE;
        }
        BigDec { limbs }
    }

    /// Multiplies in place by `m` (at most 2^32 - 1).
    fn mul_small(&mut self, m: u64) {
        let mut carry = 0u64;
        for limb in &mut self.limbs {
            let t = *limb as u64 * m + carry;
            *limb = (t % BASE) as u32;
            carry = t / BASE;
        }
        while carry != 0 {
            self.limbs.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }

    /// Multiplies in place by 2^k.
    fn mul_pow2(&mut self, mut k: u32) {
        while k > 0 {
            let step = k.min(31);
            self.mul_small(1 << step);
            k -= step;
        }
    }

    /// Multiplies in place by 5^k.
    fn mul_pow5(&mut self, mut k: u32) {
        while k > 0 {
            let step = k.min(13); // 5^13 < 2^32
            self.mul_small(5u64.pow(step));
            k -= step;
        }
    }

    /// Decimal digits, most significant first, no leading zeros ("0" for zero).
    fn to_ascii(&self) -> Vec<u8> {
        let mut s = String::new();
        match self.limbs.split_last() {
            None => s.push('0'),
            Some((top, rest)) => {
                s.push_str(&top.to_string());
                for limb in rest.iter().rev() {
                    s.push_str(&format!("{limb:09}"));
                }
            }
        }
        s.into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (IEEE bits, nvdisasm 11.8 text) recorded from `FADD32I` immediates.
    const F32_VECTORS: &[(u32, &str)] = &[
        (0x3f800000, "1"),
        (0xbf800000, "-1"),
        (0x3f000000, "0.5"),
        (0x40490fd0, "3.141590118408203125"),
        (0x501502f9, "1.00000000000000000000e+10"),
        (0x2edbe6ff, "1.00000001335143196e-10"),
        (0x80000000, "-0.0 "),
        (0x00000000, "0"),
        (0x7f800000, "+INF "),
        (0xff800000, "-INF "),
        (0x7fc00000, "+QNAN "),
        (0xffc00000, "-QNAN "),
        (0x7f800001, "+QNAN "),
        (0xff800001, "-QNAN "),
        (0x7e967699, "9.99999968028569246507e+37"),
        (0x00800000, "1.175494350822287508e-38"),
        (0x00000001, "1.4012984643248170709e-45"),
        (0x807fffff, "-1.1754942106924410755e-38"),
        (0x4ceb79a3, "123456792"),
        (0x3dcccccd, "0.10000000149011611938"),
        (0x3eaaaaaa, "0.3333333134651184082"),
        (0x5368d4a5, "9.99999995904000000000e+11"),
        (0x7f7fffff, "3.40282346638528859812e+38"),
        (0xff7fffff, "-3.40282346638528859812e+38"),
        (0x4e6e6b27, "999999936"),
        (0x4e6e6b28, "1.00000000000000000000e+09"),
        (0x38d1b717, "9.9999997473787516356e-05"),
        (0x38d1b718, "0.00010000000474974513054"),
        (0xc2f6e979, "-123.45600128173828125"),
        (0x49742400, "1000000"),
        (0x52e6b438, "4.95433023488000000000e+11"),
        (0xf2a74de4, "-6.62760456036263004193e+30"),
        (0x269e0d37, "1.0967034258749122459e-15"),
        (0x6513270e, "4.34317690504393156198e+22"),
        (0xa6a3a450, "-1.1354934055735413367e-15"),
        (0x0c5c7fd0, "1.6986645685766580754e-31"),
        (0x128b2f33, "8.7837687718166667616e-28"),
        (0xd23f0824, "-2.05118832640000000000e+11"),
        (0x892f902b, "-2.1132646219869451776e-33"),
        (0x1818e811, "1.9762703141930095004e-24"),
        (0x5d9dc9f8, "1.42123642664465203200e+18"),
        (0x9531985d, "-3.5865058773343805542e-26"),
        (0x1f800000, "5.42101086242752217e-20"),
        (0x38000000, "3.0517578125e-05"),
        (0x39000000, "0.0001220703125"),
        (0x4e000000, "536870912"),
        (0x4e800000, "1.07374182400000000000e+09"),
        (0x3fc00001, "1.5000001192092895508"),
    ];

    /// (IEEE bits, nvdisasm 11.8 text) recorded from 20-bit `DADD` immediates.
    const F64_VECTORS: &[(u64, &str)] = &[
        (0x0000000000000000, "0"),
        (0x8000000000000000, "-0.0 "),
        (0x3ff0000000000000, "1"),
        (0xbff8000000000000, "-1.5"),
        (0x3fc0000000000000, "0.125"),
        (0x41cdc00000000000, "998244352"),
        (0x41cdd00000000000, "1.00034150400000000000e+09"),
        (0x7ff0000000000000, "+INF "),
        (0xfff0000000000000, "-INF "),
        (0x7ff8000000000000, "+QNAN "),
        (0xfff8000000000000, "-QNAN "),
        (0x7ff0100000000000, "+SNAN "),
        (0xfff0100000000000, "-SNAN "),
        (0x0000100000000000, "8.6916947597937554027e-311"),
        (0x8000100000000000, "-8.6916947597937554027e-311"),
        (0x7feff00000000000, "1.79418201545828794697e+308"),
        (0x0010000000000000, "2.2250738585072013831e-308"),
        (0x3f1a300000000000, "9.98973846435546875e-05"),
        (0x3eb0c00000000000, "9.9837779998779296875e-07"),
        (0x47efe00000000000, "3.38953138925153547590e+38"),
        (0x0ed9000000000000, "3.8392238435728152443e-237"),
        (0xe8e2500000000000, "-1.71109772923302809480e+197"),
        (0x81e7400000000000, "-1.7358703304159871149e-299"),
        (0x36f6700000000000, "6.2883268586576166058e-44"),
        (0x0999500000000000, "2.0096426092424593741e-262"),
        (0x1600a00000000000, "1.0605095427967811858e-202"),
        (0x6f03600000000000, "5.73731194273495399828e+226"),
        (0x6b0d500000000000, "4.70543620648610529880e+207"),
        (0x11e2000000000000, "1.5561294364175808743e-222"),
        (0x3d9c100000000000, "6.3806737671256996691e-12"),
        (0x3ff8000000000000, "1.5"),
        (0xc014000000000000, "-5"),
        (0x4024000000000000, "10"),
        (0x4059000000000000, "100"),
        (0x3f50000000000000, "0.0009765625"),
        (0x4330000000000000, "4.50359962737049600000e+15"),
    ];

    #[test]
    fn f32_recorded_vectors() {
        for &(bits, text) in F32_VECTORS {
            assert_eq!(f32_text(bits), text, "bits {bits:#010x}");
        }
    }

    #[test]
    fn f64_recorded_vectors() {
        for &(bits, text) in F64_VECTORS {
            assert_eq!(f64_text(bits), text, "bits {bits:#018x}");
        }
    }

    #[test]
    fn f32_ties_round_to_even() {
        // Exact 21-digit values whose 21st digit is a 5: a tie at 20 digits, which
        // nvdisasm (glibc) breaks to even. Recorded from FADD32I.
        // 1.00000095367431640625 -> ...6|25 -> 2 is even: down.
        assert_eq!(f32_text(0x3f800008), "1.0000009536743164062");
        // 1.00000286102294921875 -> ...7|5 -> 7 is odd: up.
        assert_eq!(f32_text(0x3f800018), "1.0000028610229492188");
        assert_eq!(f32_text(0x3dcccd40), "0.10000085830688476562");
        assert_eq!(f32_text(0x3dcccdc0), "0.10000181198120117188");
        assert_eq!(f32_text(0x3c23d900), "0.010000467300415039062");
        assert_eq!(f32_text(0x3c23db00), "0.010000944137573242188");
        // Not ties (more digits follow the 5): up.
        assert_eq!(f32_text(0x3f800001), "1.0000001192092895508");
        assert_eq!(f32_text(0x3fc00002), "1.5000002384185791016");
        // Few digits: printed exactly.
        assert_eq!(f32_text(0x35400000), "7.152557373046875e-07");
        // The rounding helper itself, including a carry out of all nines.
        assert_eq!(
            Decimal {
                digits: b"125".to_vec(),
                scale: 0
            }
            .round_to(2),
            (b"12".to_vec(), 2)
        );
        assert_eq!(
            Decimal {
                digits: b"135".to_vec(),
                scale: 0
            }
            .round_to(2),
            (b"14".to_vec(), 2)
        );
        assert_eq!(
            Decimal {
                digits: b"1251".to_vec(),
                scale: 0
            }
            .round_to(2),
            (b"13".to_vec(), 3)
        );
        assert_eq!(
            Decimal {
                digits: b"995".to_vec(),
                scale: -3
            }
            .round_to(2),
            (b"10".to_vec(), 0)
        );
    }

    #[test]
    fn parsers_invert_printers_on_vectors() {
        for &(bits, text) in F32_VECTORS {
            let want = if f32::from_bits(bits).is_nan() {
                F32_QNAN | (bits & 0x8000_0000)
            } else {
                bits
            };
            assert_eq!(parse_f32_text(text), Some(want), "{text:?}");
        }
        for &(bits, text) in F64_VECTORS {
            let v = f64::from_bits(bits);
            let want = if !v.is_nan() {
                bits
            } else if bits & F64_QUIET != 0 {
                F64_QNAN | (bits & F64_SIGN)
            } else {
                F64_SNAN | (bits & F64_SIGN)
            };
            assert_eq!(parse_f64_text(text), Some(want), "{text:?}");
        }
    }

    /// A small deterministic generator (xorshift64*).
    fn rng(state: &mut u64) -> u64 {
        *state ^= *state >> 12;
        *state ^= *state << 25;
        *state ^= *state >> 27;
        state.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    #[test]
    fn parsers_invert_printers_on_random_values() {
        let mut s = 0x1234_5678_9abc_def1;
        for _ in 0..20_000 {
            let b32 = rng(&mut s) as u32;
            if !f32::from_bits(b32).is_nan() {
                assert_eq!(parse_f32_text(&f32_text(b32)), Some(b32), "{b32:#010x}");
            }
            let b64 = rng(&mut s);
            if !f64::from_bits(b64).is_nan() {
                assert_eq!(parse_f64_text(&f64_text(b64)), Some(b64), "{b64:#018x}");
            }
        }
        for bits in [
            1u64,
            0x000f_ffff_ffff_ffff,
            0x7fef_ffff_ffff_ffff,
            0x3fef_ffff_ffff_ffff,
        ] {
            for b in [bits, bits | F64_SIGN] {
                assert_eq!(parse_f64_text(&f64_text(b)), Some(b), "{b:#018x}");
            }
        }
    }

    #[test]
    fn parsers_reject_other_shapes() {
        for s in [
            "", "-", ".", "e5", "1e", "1e+", "inf", "nan", "NaN", "+1", "1.0f", "0x10", "1 2",
            "+SNAN",
        ] {
            assert_eq!(parse_f32_text(s), None, "{s:?}");
        }
        for s in ["", "inf", "infinity", "+1", "1e400", "-1e309"] {
            assert_eq!(parse_f64_text(s), None, "{s:?}");
        }
        assert_eq!(parse_f32_text("1e39"), None);
        assert_eq!(parse_f32_text(" -0.0 "), Some(0x8000_0000));
        assert_eq!(parse_f32_text("-0"), Some(0x8000_0000));
        assert_eq!(parse_f32_text(".5"), Some(0x3f00_0000));
        assert_eq!(parse_f64_text("-SNAN "), Some(F64_SNAN | F64_SIGN));
    }
}
