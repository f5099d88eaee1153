//! Bit manipulation: `LOP`, the shifts (`SHL`, `SHR`, the funnel `SHF`),
//! bit fields (`BFE`, `BFI`), `POPC`, `FLO` and the byte permute `PRMT`.

use super::integer::{int_lanes, IntOp};
use super::operand::*;
use super::{ExecError, Insn};

/// `LOP`: AND, OR, XOR or PASS_B of the sources (each with its `~`).
#[inline(always)]
pub(super) fn lop(i: Insn, lop: u8) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let d = int_lanes(IntOp::Lop(lop), s, &a, &b, &b);
    write_flagged(w, op, &d, m);
    Ok(())
}

/// `SHL`: a shift by 32 or more gives zero, unless `.W` wraps the count.
#[inline(always)]
pub(super) fn shl(i: Insn, wrap: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let d = int_lanes(IntOp::Shl { wrap }, s, &a, &b, &b);
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `SHR`, arithmetic when `signed`.
#[inline(always)]
pub(super) fn shr(i: Insn, signed: bool, wrap: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let d = int_lanes(IntOp::Shr { signed, wrap }, s, &a, &b, &b);
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `SHF`: the funnel shift of the pair source 2 : source 0.
#[inline(always)]
pub(super) fn shf(
    i: Insn,
    right: bool,
    wrap: bool,
    hi: bool,
    wide: bool,
    signed: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let c = read(w, &s[2], env)?;
    let mut d = [0u32; 32];
    let lim = if wide { 64 } else { 32 };
    for l in 0..32 {
        let v = (c[l] as u64) << 32 | a[l] as u64;
        let n = if wrap {
            b[l] & (lim - 1)
        } else {
            b[l].min(lim)
        } as u64;
        d[l] = if right {
            let sh = if signed {
                ((v as i64) >> n.min(63)) as u64
            } else if n >= 64 {
                0
            } else {
                v >> n
            };
            if hi {
                (sh >> 32) as u32
            } else {
                sh as u32
            }
        } else {
            let sh = if n >= 64 { 0 } else { v << n };
            (sh >> 32) as u32
        };
    }
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `BFE`: the field source 1 places (position in its low byte, length in the
/// next), of source 0, bit-reversed first with `.BREV`.
#[inline(always)]
pub(super) fn bfe(i: Insn, signed: bool, brev: bool) -> Result<(), ExecError> {
    lanes(i, |[a, b]| {
        let x = if brev { a.reverse_bits() } else { a };
        extract(x, b & 0xff, (b >> 8) & 0xff, signed)
    })
}

/// `BFI`: source 0's low bits inserted into source 2 at the field source 1 places.
#[inline(always)]
pub(super) fn bfi(i: Insn) -> Result<(), ExecError> {
    lanes(i, |[a, b, c]| {
        let pos = b & 0xff;
        let len = (b >> 8) & 0xff;
        if pos >= 32 || len == 0 {
            return c;
        }
        let len = len.min(32 - pos);
        let mask = if len >= 32 {
            u32::MAX
        } else {
            ((1u32 << len) - 1) << pos
        };
        (c & !mask) | ((a << pos) & mask)
    })
}

/// `POPC`: the set bits of source 0 AND source 1 (each with its `~`).
#[inline(always)]
pub(super) fn popc(i: Insn) -> Result<(), ExecError> {
    let (na, nb) = (i.op.src[0].not, i.op.src[1].not);
    lanes(i, |[a, b]| {
        let av = if na { !a } else { a };
        let bv = if nb { !b } else { b };
        (av & bv).count_ones()
    })
}

/// `FLO`: the position of the leading one (of the leading bit unlike the
/// sign when `signed`), as a shift amount with `.SH`; all ones for none.
#[inline(always)]
pub(super) fn flo(i: Insn, signed: bool, sh: bool) -> Result<(), ExecError> {
    let not = i.op.src[0].not;
    lanes(i, |[a]| {
        let mut x = if not { !a } else { a };
        if signed && (x as i32) < 0 {
            x = !x;
        }
        if x == 0 {
            u32::MAX
        } else if sh {
            x.leading_zeros()
        } else {
            31 - x.leading_zeros()
        }
    })
}

/// `PRMT`: bytes of the pair source 2 : source 0 picked by source 1.
#[inline(always)]
pub(super) fn prmt(i: Insn, mode: u8) -> Result<(), ExecError> {
    lanes(i, |[a, sel, b]| permute(a, b, sel, mode))
}

/// The `len`-bit field of `x` at bit `pos`, sign-extended when `signed`
/// (a field past bit 31 ends there; one starting past it is all sign).
fn extract(x: u32, pos: u32, len: u32, signed: bool) -> u32 {
    if len == 0 {
        return 0;
    }
    if pos >= 32 {
        return if signed && (x as i32) < 0 {
            u32::MAX
        } else {
            0
        };
    }
    let len = len.min(32);
    let v = (x as u64) >> pos;
    let end = pos + len;
    if signed {
        let top = end.min(32) - 1; // sign bit position in x
        let sign = x >> top & 1;
        let l = (end.min(32) - pos) as u64;
        let mut r = v & ((1u64 << l) - 1);
        if sign == 1 {
            r |= !((1u64 << l) - 1);
        }
        r as u32
    } else {
        (v & ((1u64 << len) - 1)) as u32
    }
}

/// `PRMT`'s result: bytes of the pair `b:a` chosen by `sel`, in the default
/// mode (`mode` 0, a selector nibble a byte, its top bit replicating the
/// byte's sign) or one of the fixed patterns (F4E, B4E, RC8, ECL, ECR, RC16).
fn permute(a: u32, b: u32, sel: u32, mode: u8) -> u32 {
    let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
    let idx = |i: u32| -> u8 {
        let s = (sel >> (4 * i)) & 0xf;
        let byte = bytes[(s & 7) as usize];
        if s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        }
    };
    let pick = |ix: [u32; 4]| -> u32 {
        u32::from_le_bytes([
            bytes[ix[0] as usize],
            bytes[ix[1] as usize],
            bytes[ix[2] as usize],
            bytes[ix[3] as usize],
        ])
    };
    let s = sel & 3;
    match mode {
        0 => u32::from_le_bytes([idx(0), idx(1), idx(2), idx(3)]),
        1 => pick([s, (s + 1) & 7, (s + 2) & 7, (s + 3) & 7]), // F4E
        2 => pick([s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7]), // B4E
        3 => pick([s, s, s, s]),                               // RC8
        4 => pick([[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]][s as usize]), // ECL
        5 => pick([[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]][s as usize]), // ECR
        _ => {
            let h = (sel & 1) * 2;
            pick([h, h + 1, h, h + 1]) // RC16
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bitfield_extract() {
        assert_eq!(extract(0xf0, 4, 4, false), 0xf);
        assert_eq!(extract(0xf0, 4, 4, true), 0xffff_ffff);
        assert_eq!(extract(0x70, 4, 4, true), 7);
        assert_eq!(extract(0x8000_0000, 31, 8, true), 0xffff_ffff);
        assert_eq!(extract(0x8000_0000, 31, 8, false), 1);
    }

    #[test]
    fn permute_default_mode() {
        // PRMT R3, RZ, 0x6540, R9: R9's low three bytes shifted up one byte.
        assert_eq!(permute(0, 0x00ab_cdef, 0x6540, 0), 0xabcd_ef00);
        assert_eq!(permute(0x0403_0201, 0x0807_0605, 0x3210, 0), 0x0403_0201);
        assert_eq!(permute(0x80, 0, 0x0008, 0), 0x8080_80ff);
    }

    #[test]
    fn permute_edge_clamp_modes() {
        // PTX ISA prmt table: ECL puts byte max(i, c) in d.b[i], ECR byte min(i, c).
        let (a, b) = (0x4433_2211, 0x8877_6655);
        assert_eq!(permute(a, b, 1, 4), 0x4433_2222);
        assert_eq!(permute(a, b, 1, 5), 0x2222_2211);
        assert_eq!(permute(a, b, 2, 5), 0x3333_2211);
        assert_eq!(permute(a, b, 3, 5), 0x4433_2211);
        assert_eq!(permute(a, b, 0, 5), 0x1111_1111);
    }
}
