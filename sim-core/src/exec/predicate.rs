//! Predicate instructions: `PSETP`, `CSETP` (a condition-code test), and
//! `P2R`/`R2P` between the predicates and a register.

use super::operand::*;
use super::{ExecError, Insn};
use crate::op::*;
use crate::warp::{Lanes, Warp};

/// `PSETP`: predicate sources 0 and 1 by `bop1`, then with source 2 by `bop2`.
#[inline(always)]
pub(super) fn psetp(i: Insn, bop1: BoolOp, bop2: BoolOp) {
    let Insn { op, w, m, .. } = i;
    let s = &op.src;
    let t = bopm(pmask(w, &s[0]), pmask(w, &s[1]), bop1);
    write_setp(w, op, m, t, pmask(w, &s[2]), bop2);
}

/// `P2R`: the predicates into the bits of source 0 that source 1 selects.
#[inline(always)]
pub(super) fn p2r(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let mut d = [0u32; 32];
    for l in 0..32 {
        let mut bits = 0u32;
        for p in 0..7 {
            bits |= (w.preds[p] >> l & 1) << p;
        }
        d[l] = (a[l] & !b[l]) | (bits & b[l]);
    }
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `R2P`: the bits of source 0 that source 1 selects into the predicates.
#[inline(always)]
pub(super) fn r2p(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    for l in Lanes(m) {
        for p in 0..7 {
            if b[l] >> p & 1 == 1 {
                let bit = a[l] >> p & 1;
                w.preds[p] = (w.preds[p] & !(1 << l)) | (bit << l);
            }
        }
    }
    Ok(())
}

/// `CSETP`: a condition-code test, combined with predicate source 0.
#[inline(always)]
pub(super) fn csetp(i: Insn, test: CcTest, bo: BoolOp) {
    let Insn { op, w, m, .. } = i;
    let s = &op.src;
    let t = cc_mask(w, test);
    write_setp(w, op, m, t, pmask(w, &s[0]), bo);
}

/// The lanes whose condition code passes `t`.
pub(super) fn cc_mask(w: &Warp, t: CcTest) -> u32 {
    let (z, s, c, o) = (w.cc_z, w.cc_s, w.cc_c, w.cc_o);
    let lt = (s ^ o) & !z;
    match t {
        CcTest::T => u32::MAX,
        CcTest::F => 0,
        CcTest::Lt => lt,
        CcTest::Eq => z,
        CcTest::Le => lt | z,
        CcTest::Gt => !(lt | z),
        CcTest::Ne => !z,
        CcTest::Ge => !lt,
        CcTest::Lo => !c,
        CcTest::Ls => !c | z,
        CcTest::Hi => c & !z,
        CcTest::Hs => c,
        CcTest::Off => !o,
        CcTest::Oft => o,
        CcTest::Sff => !s,
        CcTest::Sft => s,
        CcTest::Cff => !c,
        CcTest::Cft => c,
    }
}
