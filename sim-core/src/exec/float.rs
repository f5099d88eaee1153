//! Single-precision arithmetic: `FADD`, `FMUL`, `FFMA` (with the
//! three-register form's own path, [`exec_ffma`]), `FMNMX`, the comparisons
//! (`FSETP`, `FSET`, `FCMP`) and `FCHK`.

use super::operand::*;
use super::{guard_mask, next_slot, ExecError, Insn};
use crate::fp;
use crate::op::*;
use crate::warp::Warp;

/// The FFMA of three registers (round to nearest, no `.FTZ`/`.SAT`/`.S`), run
/// as [`exec`](super::exec) runs it; false (nothing done) for any other instruction. The
/// timing model calls [`ffma3`] itself for the instructions [`is_ffma3`]
/// picks out before it sets up anything else [`exec`](super::exec) needs.
#[inline]
pub(crate) fn exec_ffma(op: &Op, w: &mut Warp) -> bool {
    is_ffma3(op) && ffma3(op, w, fp::FfmaRows::host())
}

/// Whether `op` is the FFMA [`exec_ffma`] runs.
#[inline]
pub(crate) fn is_ffma3(op: &Op) -> bool {
    let s = &op.src;
    matches!(
        op.kind,
        Kind::FFma {
            ftz: false,
            sat: false,
            rnd: Rnd::Rn,
        }
    ) && matches!(
        (s[0].src, s[1].src, s[2].src),
        (Src::Reg(_), Src::Reg(_), Src::Reg(_))
    ) && !op.sync
        && plain_reg(&s[0])
        && plain_reg(&s[1])
        && plain_reg(&s[2])
}

/// Runs `op`, an FFMA [`is_ffma3`] picked out, as [`exec`](super::exec) does, when some
/// lane is running (else false: nothing done), by `rows`, the host's
/// routine ([`fp::FfmaRows::host`]).
#[inline]
pub(crate) fn ffma3(op: &Op, w: &mut Warp, rows: fp::FfmaRows) -> bool {
    if w.active == 0 {
        return false;
    }
    let reg = |o: &Operand| match o.src {
        Src::Reg(r) => r,
        _ => 255,
    };
    let s = &op.src;
    // As `exec_general` runs it (no `.S`, so no lane leaves).
    let m = w.active & guard_mask(w, op);
    w.pc = next_slot(w.pc);
    w.executed += 1;
    rows.run(&mut w.regs, reg(&s[0]), reg(&s[1]), reg(&s[2]), op.d0, m);
    true
}

/// `FADD`; round to nearest with no `.FTZ`/`.SAT` in the host's own arithmetic.
#[inline(always)]
pub(super) fn fadd(i: Insn, ftz: bool, sat: bool, rnd: Rnd) -> Result<(), ExecError> {
    binary(i, ftz, sat, rnd, |a, b| a + b, fp::fadd)
}

/// `FMUL`; round to nearest with no `.FTZ`/`.SAT` in the host's own arithmetic.
#[inline(always)]
pub(super) fn fmul(i: Insn, ftz: bool, sat: bool, rnd: Rnd) -> Result<(), ExecError> {
    binary(i, ftz, sat, rnd, |a, b| a * b, fp::fmul)
}

/// A two-source FP32 instruction: `host`, the host's own arithmetic, where
/// it rounds to nearest with no `.FTZ`/`.SAT` (its result canonicalised as
/// the hardware's), else `exact`, the model's rounding of every case.
#[inline(always)]
fn binary(
    i: Insn,
    ftz: bool,
    sat: bool,
    rnd: Rnd,
    host: impl Fn(f32, f32) -> f32,
    exact: impl Fn(f32, f32, Rnd, bool, bool) -> u32,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = fsrc(&read(w, &s[0], env)?, &s[0]);
    let b = fsrc(&read(w, &s[1], env)?, &s[1]);
    let mut d = [0u32; 32];
    if rnd == Rnd::Rn && !ftz && !sat {
        for l in 0..32 {
            d[l] = fp::canon32(host(a[l], b[l]));
        }
    } else {
        for l in 0..32 {
            d[l] = exact(a[l], b[l], rnd, ftz, sat);
        }
    }
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// The `FFMA`s [`exec_ffma`] leaves: a source not a plain register, a
/// modifier, `.S`, or no lane active.
#[inline(always)]
pub(super) fn ffma(i: Insn, ftz: bool, sat: bool, rnd: Rnd) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = fsrc(&read(w, &s[0], env)?, &s[0]);
    let b = fsrc(&read(w, &s[1], env)?, &s[1]);
    let c = fsrc(&read(w, &s[2], env)?, &s[2]);
    let mut d = [0u32; 32];
    if rnd == Rnd::Rn && !ftz && !sat {
        let bits = |x: [f32; 32]| x.map(f32::to_bits);
        fp::ffma_rn_bits(&bits(a), &bits(b), &bits(c), &mut d);
    } else {
        for l in 0..32 {
            d[l] = fp::ffma(a[l], b[l], c[l], rnd, ftz, sat);
        }
    }
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `FMNMX`: the minimum where predicate source 2 holds, else the maximum.
#[inline(always)]
pub(super) fn fmnmx(i: Insn, ftz: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let p = pmask(w, &s[2]);
    let mut d = [0u32; 32];
    for l in 0..32 {
        let mut x = fneg_abs32(a[l], &s[0]);
        let mut y = fneg_abs32(b[l], &s[1]);
        if ftz {
            x = fp::ftz32(x);
            y = fp::ftz32(y);
        }
        let min = p >> l & 1 == 1;
        d[l] = fminmax32(x, y, min);
    }
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `FSETP`: the comparison, combined with predicate source 2, to two predicates.
#[inline(always)]
pub(super) fn fsetp(i: Insn, cmp: Cmp, ftz: bool, bo: BoolOp) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let t = lane_mask(|l| fcmp32(fneg_abs32(a[l], &s[0]), fneg_abs32(b[l], &s[1]), cmp, ftz));
    write_setp(w, op, m, t, pmask(w, &s[2]), bo);
    Ok(())
}

/// `FSET`: the comparison, combined with predicate source 2, to a register.
#[inline(always)]
pub(super) fn fset(i: Insn, cmp: Cmp, ftz: bool, bo: BoolOp, bf: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let t = lane_mask(|l| fcmp32(fneg_abs32(a[l], &s[0]), fneg_abs32(b[l], &s[1]), cmp, ftz));
    write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
    Ok(())
}

/// `FCMP`: source 0 where source 2 compares with zero as `cmp` says, else source 1.
#[inline(always)]
pub(super) fn fcmp(i: Insn, cmp: Cmp, ftz: bool) -> Result<(), ExecError> {
    let sc = i.op.src[2];
    lanes(i, |[a, b, c]| {
        if fcmp32(fneg_abs32(c, &sc), 0.0, cmp, ftz) {
            a
        } else {
            b
        }
    })
}

/// `FCHK.DIVIDE`: the lanes whose division needs the slow path ([`fchk_divide`]).
#[inline(always)]
pub(super) fn fchk(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let mut r = 0u32;
    for l in 0..32 {
        let x = fneg_abs32(a[l], &s[0]);
        let y = fneg_abs32(b[l], &s[1]);
        r |= (fchk_divide(x, y) as u32) << l;
    }
    w.set_pred(op.d0, r, m);
    Ok(())
}

/// Whether a / b needs the slow path: any operand that is not a normal number
/// (a zero dividend included: the fast path's `FFMA q, a, r, RZ` turns -0 into
/// +0), or exponents whose quotient, reciprocal or residual would leave the
/// normal range. Erring towards the slow path is always exact.
fn fchk_divide(a: f32, b: f32) -> bool {
    let e = |x: f32| ((x.to_bits() >> 23) & 0xff) as i32 - 127;
    if !b.is_normal() || !a.is_normal() {
        return true;
    }
    let (ea, eb) = (e(a), e(b));
    !(-124..=124).contains(&eb) || !(-124..=124).contains(&(ea - eb)) || ea <= -102
}

/// `FMNMX` of one lane: a NaN loses to a number, and -0 is below +0.
fn fminmax32(x: f32, y: f32, min: bool) -> u32 {
    if x.is_nan() && y.is_nan() {
        return fp::NAN32;
    }
    if x.is_nan() {
        return y.to_bits();
    }
    if y.is_nan() {
        return x.to_bits();
    }
    if x == y {
        // -0 is below +0.
        return if (x.is_sign_negative() && min) || (x.is_sign_positive() && !min) {
            x.to_bits()
        } else {
            y.to_bits()
        };
    }
    if (x < y) == min {
        x.to_bits()
    } else {
        y.to_bits()
    }
}

/// A single comparison, after flushing denormals with `.FTZ`.
fn fcmp32(a: f32, b: f32, cmp: Cmp, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (fp::ftz32(a), fp::ftz32(b))
    } else {
        (a, b)
    };
    cmp_ord(a.partial_cmp(&b), cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_zero_dividend_takes_the_slow_division_path() {
        assert!(fchk_divide(-0.0, 1.0));
        assert!(fchk_divide(0.0, 3.0));
        assert!(!fchk_divide(1.0, 3.0));
    }

    #[test]
    fn comparisons_with_nan() {
        assert!(!fcmp32(f32::NAN, 1.0, Cmp::Lt, false));
        assert!(fcmp32(f32::NAN, 1.0, Cmp::Ltu, false));
        assert!(fcmp32(f32::NAN, 1.0, Cmp::Neu, false));
        assert!(!fcmp32(f32::NAN, 1.0, Cmp::Ne, false));
    }
}
