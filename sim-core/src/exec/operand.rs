//! Reading an instruction's sources for all 32 lanes and writing its results:
//! register rows, immediates and constants splatted, predicates as lane masks,
//! 64-bit register pairs, the source modifiers (`-`, `|..|`, `~`), and the
//! condition code's flags.

use super::{Env, ExecError, Insn, R};
use crate::op::*;
use crate::warp::{Lanes, Warp};

/// The word at byte `offset` of a constant bank's `data`, if it is aligned
/// and inside.
#[inline]
pub(super) fn const_word(data: &[u8], offset: i64) -> Option<u32> {
    if offset < 0 || offset % 4 != 0 {
        return None;
    }
    let o = usize::try_from(offset).ok()?;
    let b = data.get(o..o.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Reads a 32-bit source for every lane: a register row or an immediate
/// here, anything else through [`read_other`].
#[inline(always)]
pub(super) fn read(w: &Warp, o: &Operand, env: &Env) -> Result<R, ExecError> {
    match o.src {
        Src::Reg(r) => Ok(w.reg(r)),
        Src::Imm(v) => Ok([v; 32]),
        _ => read_other(w, o, env),
    }
}

/// [`read`] of the operands that are neither registers nor immediates.
#[inline(never)]
pub(super) fn read_other(w: &Warp, o: &Operand, env: &Env) -> Result<R, ExecError> {
    Ok(match o.src {
        Src::None => [0; 32],
        Src::Reg(r) => w.reg(r),
        Src::Imm(v) => [v; 32],
        Src::Const { bank, offset } => [env.cbank(bank, offset as i64)?; 32],
        Src::ConstIdx { bank, reg, offset } => {
            let idx = w.reg(reg);
            let mut out = [0; 32];
            for l in Lanes(w.active) {
                out[l] = env.cbank(bank, idx[l] as i32 as i64 + offset as i64)?;
            }
            out
        }
        Src::Pred(p) => {
            let m = w.pred(p) ^ if o.not { u32::MAX } else { 0 };
            let mut out = [0; 32];
            for (l, v) in out.iter_mut().enumerate() {
                *v = m >> l & 1;
            }
            out
        }
    })
}

/// Runs an instruction whose lanes do not depend on one another: reads its
/// first `N` sources for every lane and writes each lane's `f` of their
/// values to the destination.
#[inline(always)]
pub(super) fn lanes<const N: usize>(i: Insn, f: impl Fn([u32; N]) -> u32) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let mut src = [[0u32; 32]; N];
    for (v, o) in src.iter_mut().zip(&op.src) {
        *v = read(w, o, env)?;
    }
    let d: R = std::array::from_fn(|l| f(std::array::from_fn(|k| src[k][l])));
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// The lane mask of a predicate operand (with `!`).
#[inline]
pub(super) fn pmask(w: &Warp, o: &Operand) -> u32 {
    match o.src {
        Src::Pred(p) => w.pred(p) ^ if o.not { u32::MAX } else { 0 },
        _ => u32::MAX,
    }
}

/// Reads a 64-bit source (a register pair, or an immediate's high word).
#[inline]
pub(super) fn read64(w: &Warp, o: &Operand, env: &Env) -> Result<[u64; 32], ExecError> {
    let mut out = [0u64; 32];
    match o.src {
        Src::Reg(r) if r != 255 => {
            let lo = w.reg(r);
            let hi = w.reg(r + 1);
            for l in 0..32 {
                out[l] = (hi[l] as u64) << 32 | lo[l] as u64;
            }
        }
        Src::Imm(v) => out = [(v as u64) << 32; 32],
        Src::Const { bank, offset } => {
            let lo = env.cbank(bank, offset as i64)?;
            let hi = env.cbank(bank, offset as i64 + 4)?;
            out = [(hi as u64) << 32 | lo as u64; 32];
        }
        _ => {}
    }
    Ok(out)
}

/// Writes a 64-bit result row to the pair `r`, `r + 1` in lanes `mask`
/// (nothing for `RZ`).
pub(super) fn write64(w: &mut Warp, r: u8, v: &[u64; 32], mask: u32) {
    if r == 255 {
        return;
    }
    let mut lo = [0u32; 32];
    let mut hi = [0u32; 32];
    for l in 0..32 {
        lo[l] = v[l] as u32;
        hi[l] = (v[l] >> 32) as u32;
    }
    w.set_reg(r, &lo, mask);
    w.set_reg(r + 1, &hi, mask);
}

/// A single source's value with its `|..|` and `-` applied.
#[inline]
pub(super) fn fneg_abs32(x: u32, o: &Operand) -> f32 {
    let mut b = x;
    if o.abs {
        b &= 0x7fff_ffff;
    }
    if o.neg {
        b ^= 0x8000_0000;
    }
    f32::from_bits(b)
}

/// A row of single sources with their `-` and `|..|` applied.
#[inline]
pub(super) fn fsrc(x: &R, o: &Operand) -> [f32; 32] {
    let and = if o.abs { 0x7fff_ffff } else { u32::MAX };
    let xor = if o.neg { 0x8000_0000 } else { 0 };
    let mut out = [0f32; 32];
    for l in 0..32 {
        out[l] = f32::from_bits((x[l] & and) ^ xor);
    }
    out
}

/// A register source with no negation or absolute value.
#[inline(always)]
pub(super) fn plain_reg(o: &Operand) -> bool {
    matches!(o.src, Src::Reg(_)) && !o.neg && !o.abs
}

/// A double source's value with its `|..|` and `-` applied.
#[inline]
pub(super) fn fneg_abs64(x: u64, o: &Operand) -> f64 {
    let mut b = x;
    if o.abs {
        b &= !(1 << 63);
    }
    if o.neg {
        b ^= 1 << 63;
    }
    f64::from_bits(b)
}

/// An integer source's value with its `~` and `-` applied.
#[inline]
pub(super) fn int_in(x: u32, o: &Operand) -> u32 {
    let x = if o.not { !x } else { x };
    if o.neg {
        x.wrapping_neg()
    } else {
        x
    }
}

/// Whether the ordering `ord` of two values (`None`: unordered, a NaN)
/// passes `cmp`; the `U` forms also pass unordered values.
pub(super) fn cmp_ord(ord: Option<std::cmp::Ordering>, cmp: Cmp) -> bool {
    use std::cmp::Ordering::*;
    match (cmp, ord) {
        (Cmp::F, _) => false,
        (Cmp::T, _) => true,
        (Cmp::Num, o) => o.is_some(),
        (Cmp::Nan, o) => o.is_none(),
        (Cmp::Lt, Some(o)) => o == Less,
        (Cmp::Eq, Some(o)) => o == Equal,
        (Cmp::Le, Some(o)) => o != Greater,
        (Cmp::Gt, Some(o)) => o == Greater,
        (Cmp::Ne, Some(o)) => o != Equal,
        (Cmp::Ge, Some(o)) => o != Less,
        (Cmp::Ltu, o) => o.is_none_or(|o| o == Less),
        (Cmp::Equ, o) => o.is_none_or(|o| o == Equal),
        (Cmp::Leu, o) => o.is_none_or(|o| o != Greater),
        (Cmp::Gtu, o) => o.is_none_or(|o| o == Greater),
        (Cmp::Neu, o) => o.is_none_or(|o| o != Equal),
        (Cmp::Geu, o) => o.is_none_or(|o| o != Less),
        (_, None) => false,
    }
}

/// Sets CC flags from results in lanes `mask`.
pub(super) fn set_cc(w: &mut Warp, mask: u32, c: u32, z: u32, s: u32, o: u32) {
    w.cc_c = (w.cc_c & !mask) | (c & mask);
    w.cc_z = (w.cc_z & !mask) | (z & mask);
    w.cc_s = (w.cc_s & !mask) | (s & mask);
    w.cc_o = (w.cc_o & !mask) | (o & mask);
}

/// The lanes for which `f` holds.
#[inline]
pub(super) fn lane_mask(f: impl Fn(usize) -> bool) -> u32 {
    (0..32).fold(0, |m, l| m | (f(l) as u32) << l)
}

/// Combines two lane masks as a set-predicate instruction's boolean operation.
#[inline]
pub(super) fn bopm(a: u32, b: u32, op: BoolOp) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

/// A set-predicate instruction's results: `t bop p` to the first predicate,
/// `!t bop p` to the second, in lanes `m`.
#[inline]
pub(super) fn write_setp(w: &mut Warp, op: &Op, m: u32, t: u32, p: u32, bo: BoolOp) {
    w.set_pred(op.d0, bopm(t, p, bo), m);
    w.set_pred(op.d1, bopm(!t, p, bo), m);
}

/// A set instruction's result: all ones (1.0 with `.BF`) where `t` holds, else
/// zero, with the zero and sign flags where `.CC` asks.
#[inline]
pub(super) fn write_set(w: &mut Warp, op: &Op, m: u32, t: u32, bf: bool) {
    let one = if bf { 1.0f32.to_bits() } else { u32::MAX };
    let d: R = std::array::from_fn(|l| if t >> l & 1 == 1 { one } else { 0 });
    write_flagged(w, op, &d, m);
}

/// Writes a result row, and the zero and sign flags (carry and overflow
/// cleared) where `.CC` asks.
#[inline]
pub(super) fn write_flagged(w: &mut Warp, op: &Op, d: &R, m: u32) {
    w.set_reg(op.d0, d, m);
    if op.cc {
        let (z, sg) = zs(d, m);
        set_cc(w, m, 0, z, sg, 0);
    }
}

/// The zero and sign flags of results `d` in lanes `m`.
pub(super) fn zs(d: &[u32; 32], m: u32) -> (u32, u32) {
    // Every lane, then the mask: no branch, and the compiler vectorises it.
    let (mut z, mut s) = (0u32, 0u32);
    for (l, &v) in d.iter().enumerate() {
        z |= ((v == 0) as u32) << l;
        s |= (v >> 31) << l;
    }
    (z & m, s & m)
}
