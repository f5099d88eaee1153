//! Control flow: branches (`BRA`, the indirect `BRX`), the reconvergence
//! stack's pushes (`SSY`, `PBK`, `PCNT`, `PRET`) and leaves (`BRK`, `CONT`,
//! `RET`), `CAL` and `EXIT`.

use super::operand::*;
use super::predicate::cc_mask;
use super::{ExecError, Insn};
use crate::op::*;
use crate::warp::{Lanes, Token};

/// `BRA`: the lanes that take it go on at the target, the others wait on
/// the stack at the next slot.
#[inline(always)]
pub(super) fn bra(i: Insn, cc: CcTest) -> Result<(), ExecError> {
    let Insn { op, w, m, next, .. } = i;
    let taken = if cc == CcTest::T {
        m
    } else {
        m & cc_mask(w, cc)
    };
    let not_taken = w.active & !taken;
    if taken == 0 {
        // Falls through.
    } else if not_taken == 0 {
        w.pc = op.target;
    } else {
        if !w.push(Token::Div, not_taken, next) {
            return Err(ExecError::Stack(
                "the reconvergence stack overflowed".into(),
            ));
        }
        w.active = taken;
        w.pc = op.target;
    }
    Ok(())
}

/// `BRX`: lanes grouped by their target, the lowest lane's group first, the
/// others waiting on the stack.
#[inline(always)]
pub(super) fn brx(i: Insn) -> Result<(), ExecError> {
    let Insn {
        op,
        w,
        env,
        m,
        pc,
        next,
        ..
    } = i;
    let s = &op.src;
    let r = read(w, &s[0], env)?;
    // Group lanes by target; the lowest lane's target runs first.
    let mut left = m;
    let mut first = None;
    while left != 0 {
        let l0 = left.trailing_zeros() as usize;
        let t = r[l0].wrapping_add(op.imm as u32).wrapping_add((pc + 1) * 8);
        let mut group = 0;
        for l in Lanes(left) {
            if r[l].wrapping_add(op.imm as u32).wrapping_add((pc + 1) * 8) == t {
                group |= 1 << l;
            }
        }
        left &= !group;
        if t % 8 != 0 {
            return Err(ExecError::Illegal(format!(
                "BRX to misaligned address {t:#x}"
            )));
        }
        // A target at a control word means the instruction after it.
        let slot = if (t / 8) % 8 == 0 { t / 8 + 1 } else { t / 8 };
        match first {
            None => first = Some((group, slot)),
            Some(_) => {
                if !w.push(Token::Div, group, slot) {
                    return Err(ExecError::Stack(
                        "the reconvergence stack overflowed".into(),
                    ));
                }
            }
        }
    }
    let rest = w.active & !m;
    if rest != 0 && !w.push(Token::Div, rest, next) {
        return Err(ExecError::Stack(
            "the reconvergence stack overflowed".into(),
        ));
    }
    if let Some((g, t)) = first {
        w.active = g;
        w.pc = t;
    }
    Ok(())
}

/// `SSY`/`PBK`/`PCNT`/`PRET`: the active lanes pushed with the target.
#[inline(always)]
pub(super) fn push(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, .. } = i;
    let token = match op.kind {
        Kind::Ssy => Token::Sync,
        Kind::Pbk => Token::Brk,
        Kind::Pcnt => Token::Cont,
        _ => Token::Call,
    };
    if !w.push(token, w.active, op.target) {
        return Err(ExecError::Stack(
            "the reconvergence stack overflowed".into(),
        ));
    }
    Ok(())
}

/// `CAL`: the return slot pushed, then the target.
#[inline(always)]
pub(super) fn cal(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, m, next, .. } = i;
    if m != w.active {
        return Err(ExecError::Illegal(
            "a predicated CAL in divergent code is not modelled".into(),
        ));
    }
    if !w.push(Token::Call, w.active, next) {
        return Err(ExecError::Stack(
            "the call stack overflowed (runaway recursion?)".into(),
        ));
    }
    w.pc = op.target;
    Ok(())
}

/// `BRK`/`CONT`/`RET`: the lanes leave for the matching stack entry.
#[inline(always)]
pub(super) fn leave(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, m, .. } = i;
    let token = match op.kind {
        Kind::Brk => Token::Brk,
        Kind::Cont => Token::Cont,
        _ => Token::Call,
    };
    if m != 0 && !w.leave_to(token, m) {
        return Err(ExecError::Stack(format!(
            "{} with no matching {} on the stack",
            match token {
                Token::Brk => "BRK",
                Token::Cont => "CONT",
                _ => "RET",
            },
            match token {
                Token::Brk => "PBK",
                Token::Cont => "PCNT",
                _ => "CAL",
            }
        )));
    }
    Ok(())
}

/// `EXIT`.
#[inline(always)]
pub(super) fn exit(i: Insn) {
    let Insn { w, m, .. } = i;
    w.exit(m);
}
