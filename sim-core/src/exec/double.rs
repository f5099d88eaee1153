//! Double-precision arithmetic on register pairs: `DADD`, `DMUL`, `DFMA`,
//! `DMNMX` and the comparisons `DSETP`, `DSET`.

use super::operand::*;
use super::{ExecError, Insn};
use crate::fp;
use crate::op::*;

/// Runs an arithmetic instruction on register pairs: each lane's `f` of its
/// first `N` sources as doubles (with their `-` and `|..|`), to the
/// destination pair.
#[inline(always)]
fn arith<const N: usize>(i: Insn, f: impl Fn([f64; N]) -> u64) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let mut src = [[0u64; 32]; N];
    for (v, o) in src.iter_mut().zip(&op.src) {
        *v = read64(w, o, env)?;
    }
    let d: [u64; 32] =
        std::array::from_fn(|l| f(std::array::from_fn(|k| fneg_abs64(src[k][l], &op.src[k]))));
    write64(w, op.d0, &d, m);
    Ok(())
}

/// `DADD`.
#[inline(always)]
pub(super) fn dadd(i: Insn, rnd: Rnd) -> Result<(), ExecError> {
    arith(i, |[a, b]| fp::dadd(a, b, rnd))
}

/// `DMUL`.
#[inline(always)]
pub(super) fn dmul(i: Insn, rnd: Rnd) -> Result<(), ExecError> {
    arith(i, |[a, b]| fp::dmul(a, b, rnd))
}

/// `DFMA`: one rounding.
#[inline(always)]
pub(super) fn dfma(i: Insn, rnd: Rnd) -> Result<(), ExecError> {
    arith(i, |[a, b, c]| fp::dfma(a, b, c, rnd))
}

/// `DMNMX`: the minimum where predicate source 2 holds, else the maximum.
#[inline(always)]
pub(super) fn dmnmx(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let b = read64(w, &s[1], env)?;
    let p = pmask(w, &s[2]);
    let mut d = [0u64; 32];
    for l in 0..32 {
        let x = fneg_abs64(a[l], &s[0]);
        let y = fneg_abs64(b[l], &s[1]);
        let min = p >> l & 1 == 1;
        d[l] = if x.is_nan() && y.is_nan() {
            fp::NAN64
        } else if x.is_nan() {
            y.to_bits()
        } else if y.is_nan() {
            x.to_bits()
        } else if x == y {
            // -0 is below +0.
            if x.is_sign_negative() == min {
                x.to_bits()
            } else {
                y.to_bits()
            }
        } else if (x < y) == min {
            x.to_bits()
        } else {
            y.to_bits()
        };
    }
    write64(w, op.d0, &d, m);
    Ok(())
}

/// `DSETP`: the comparison, combined with predicate source 2, to two predicates.
#[inline(always)]
pub(super) fn dsetp(i: Insn, cmp: Cmp, bo: BoolOp) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let b = read64(w, &s[1], env)?;
    let t = lane_mask(|l| dcmp(a[l], b[l], s, cmp));
    write_setp(w, op, m, t, pmask(w, &s[2]), bo);
    Ok(())
}

/// `DSET`: the comparison, combined with predicate source 2, to a register.
#[inline(always)]
pub(super) fn dset(i: Insn, cmp: Cmp, bo: BoolOp, bf: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read64(w, &s[0], env)?;
    let b = read64(w, &s[1], env)?;
    let t = lane_mask(|l| dcmp(a[l], b[l], s, cmp));
    write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
    Ok(())
}

/// A double comparison of sources 0 and 1 (with their `-` and `|..|`).
#[inline]
fn dcmp(a: u64, b: u64, s: &[Operand; 4], cmp: Cmp) -> bool {
    cmp_ord(fneg_abs64(a, &s[0]).partial_cmp(&fneg_abs64(b, &s[1])), cmp)
}
