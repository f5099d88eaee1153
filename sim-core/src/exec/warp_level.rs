//! Warp-level instructions, across the lanes of a warp: `SHFL` and `VOTE`.

use super::operand::*;
use super::{ExecError, Insn};
use crate::op::*;

/// `SHFL`: each lane reads source 0 of the lane `mode` picks (source 1 the
/// lane or distance, source 2 the clamp and segment mask), or its own when
/// that lane is out of range; the predicate says which were in range.
#[inline(always)]
pub(super) fn shfl(i: Insn, mode: ShflMode) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let c = read(w, &s[2], env)?;
    let mut d = [0u32; 32];
    let mut pv = 0u32;
    for l in 0..32 {
        let lane = l as u32;
        let bval = b[l] & 0x1f;
        let cval = c[l] & 0x1f;
        let mask = (c[l] >> 8) & 0x1f;
        let max_lane = (lane & mask) | (cval & !mask);
        let min_lane = lane & mask;
        let (j, ok) = match mode {
            ShflMode::Up => {
                let j = lane as i32 - bval as i32;
                (j, j >= max_lane as i32)
            }
            ShflMode::Down => {
                let j = (lane + bval) as i32;
                (j, j <= max_lane as i32)
            }
            ShflMode::Bfly => {
                let j = (lane ^ bval) as i32;
                (j, j <= max_lane as i32)
            }
            ShflMode::Idx => {
                let j = (min_lane | (bval & !mask)) as i32;
                (j, j <= max_lane as i32)
            }
        };
        let src = if ok { j as usize } else { l };
        d[l] = a[src];
        pv |= (ok as u32) << l;
    }
    w.set_reg(op.d0, &d, m);
    w.set_pred(op.d1, pv, m);
    Ok(())
}

/// `VOTE`: the ballot to the register, the vote to the predicate.
#[inline(always)]
pub(super) fn vote(i: Insn, mode: VoteMode) {
    let Insn { op, w, m, .. } = i;
    let s = &op.src;
    let p = pmask(w, &s[0]) & m;
    let ballot = [p; 32];
    w.set_reg(op.d0, &ballot, m);
    let r = match mode {
        VoteMode::All => p == m,
        VoteMode::Any => p != 0,
        VoteMode::Eq => p == 0 || p == m,
    };
    w.set_pred(op.d1, if r { u32::MAX } else { 0 }, m);
}
