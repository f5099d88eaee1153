//! Block barriers: `BAR.SYNC`/`BAR.ARV`, the reducing `BAR.RED` and `B2R`,
//! which reads its result.

use super::operand::*;
use super::{ExecError, Insn};
use crate::op::*;
use crate::warp::WarpState;

/// `BAR.RED`: a barrier that also reduces predicate source 2 over the block.
#[inline(always)]
pub(super) fn bar_red(i: Insn, red: BarRed) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let id = read(w, &s[0], env)?[0];
    let p = pmask(w, &s[2]) & m;
    if m != 0 {
        let live = w.valid & !w.exited;
        if m != live {
            return Err(ExecError::DivergentBarrier { arrived: m, live });
        }
        if id > 15 {
            return Err(ExecError::Illegal(format!(
                "barrier {id} does not exist (0..15)"
            )));
        }
        // The block combines every warp's part when the barrier releases
        // (`func::release_barriers`) and writes the result to d0.
        let count = if s[1].src == Src::None {
            0
        } else {
            read(w, &s[1], env)?[0]
        };
        w.bar_red = Some((red, p.count_ones(), p == m, p != 0));
        w.state = WarpState::Barrier {
            id: id as u8,
            count,
        };
    }
    Ok(())
}

/// `B2R`: the last `BAR.RED`'s result, to the register and the predicate.
#[inline(always)]
pub(super) fn b2r(i: Insn) {
    let Insn { op, w, m, .. } = i;
    let v = w.bar_result;
    w.set_reg(op.d0, &[v; 32], m);
    w.set_pred(op.d1, if v != 0 { u32::MAX } else { 0 }, m);
}

/// `BAR.SYNC`/`BAR.ARV`: the warp waits (or only arrives) when every live
/// lane is here.
#[inline(always)]
pub(super) fn bar(i: Insn, arrive_only: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let id = read(w, &s[0], env)?[0];
    let count = if s[1].src == Src::None {
        0
    } else {
        read(w, &s[1], env)?[0]
    };
    if m != 0 {
        let live = w.valid & !w.exited;
        if m != live {
            return Err(ExecError::DivergentBarrier { arrived: m, live });
        }
        if id > 15 {
            return Err(ExecError::Illegal(format!(
                "barrier {id} does not exist (0..15)"
            )));
        }
        if !arrive_only {
            w.state = WarpState::Barrier {
                id: id as u8,
                count,
            };
        }
    }
    Ok(())
}
