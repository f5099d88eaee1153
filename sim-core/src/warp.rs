//! A warp's architectural state: registers, predicates, condition code, program
//! counter, active mask and Kepler's reconvergence stack.
//!
//! The stack follows the sm_35 convention ptxas compiles for: `SSY`, `PBK`,
//! `PCNT`, `CAL`/`PRET` push an entry (the lanes active then and where they go
//! next); a divergent `BRA` pushes the lanes that did not take it; `.S`, `BRK`,
//! `CONT`, `RET` and `EXIT` take lanes out of the running set, and when no lane is
//! left running the stack is popped until an entry has lanes to resume.

/// Which instruction pushed a stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// `SSY`: reconverge at `pc` when every lane has synced (`.S`).
    Sync,
    /// A divergent branch: the lanes that did not take it resume at `pc`.
    Div,
    /// `PBK`: `BRK` lanes wait here, resuming at `pc`.
    Brk,
    /// `PCNT`: `CONT` lanes wait here, resuming at `pc`.
    Cont,
    /// `CAL`/`PRET`: `RET` lanes wait here, resuming at `pc`.
    Call,
}

/// One reconvergence stack entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub token: Token,
    pub mask: u32,
    /// Slot to resume at.
    pub pc: u32,
}

/// Where a warp stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarpState {
    Running,
    /// Waiting at barrier `id` (arrived with `count` threads expected, 0 = all).
    Barrier {
        id: u8,
        count: u32,
    },
    Done,
}

/// The most stack entries a warp may hold before the run is stopped (runaway
/// recursion or a push in a loop without its pop).
pub const MAX_STACK: usize = 1024;

/// One warp.
#[derive(Debug, Clone)]
pub struct Warp {
    /// Index within the block.
    pub id: u32,
    /// Slot of the next instruction.
    pub pc: u32,
    /// Lanes executing now.
    pub active: u32,
    /// Lanes that exist (the last warp of a block may be partial).
    pub valid: u32,
    /// Lanes that have exited.
    pub exited: u32,
    pub stack: Vec<Entry>,
    /// `regs[r * 32 + lane]`.
    pub regs: Vec<u32>,
    /// Predicates P0..P6 as lane masks.
    pub preds: [u32; 7],
    /// Condition-code flags as lane masks: carry, zero, sign, overflow.
    pub cc_c: u32,
    pub cc_z: u32,
    pub cc_s: u32,
    pub cc_o: u32,
    pub state: WarpState,
    /// Warp-instructions executed.
    pub executed: u64,
    /// This warp's part of a pending `BAR.RED`: the operation, its predicate's
    /// count, and whether all and whether any of its lanes hold.
    pub bar_red: Option<(crate::op::BarRed, u32, bool, bool)>,
    /// The last barrier reduction's result (`B2R.RESULT`).
    pub bar_result: u32,
}

impl Warp {
    /// A warp of `nregs` registers whose lanes `valid` start at slot 1.
    pub fn new(id: u32, nregs: u32, valid: u32) -> Warp {
        Warp {
            id,
            pc: 1,
            active: valid,
            valid,
            exited: 0,
            stack: Vec::with_capacity(16),
            regs: vec![0; nregs as usize * 32],
            preds: [0; 7],
            cc_c: 0,
            cc_z: 0,
            cc_s: 0,
            cc_o: 0,
            state: if valid == 0 {
                WarpState::Done
            } else {
                WarpState::Running
            },
            executed: 0,
            bar_red: None,
            bar_result: 0,
        }
    }

    /// Makes this warp a fresh one with lanes `valid`, reusing its register
    /// storage (no allocation between blocks).
    pub fn reset(&mut self, valid: u32) {
        self.pc = 1;
        self.active = valid;
        self.valid = valid;
        self.exited = 0;
        self.stack.clear();
        self.regs.iter_mut().for_each(|r| *r = 0);
        self.preds = [0; 7];
        self.cc_c = 0;
        self.cc_z = 0;
        self.cc_s = 0;
        self.cc_o = 0;
        self.state = if valid == 0 {
            WarpState::Done
        } else {
            WarpState::Running
        };
        self.executed = 0;
        self.bar_red = None;
        self.bar_result = 0;
    }

    /// The lane mask of predicate `p` (7 is PT).
    #[inline]
    pub fn pred(&self, p: u8) -> u32 {
        if p >= 7 {
            u32::MAX
        } else {
            self.preds[p as usize]
        }
    }

    /// Sets predicate `p` to `value` in lanes `mask` (PT is not written).
    #[inline]
    pub fn set_pred(&mut self, p: u8, value: u32, mask: u32) {
        if p < 7 {
            let q = &mut self.preds[p as usize];
            *q = (*q & !mask) | (value & mask);
        }
    }

    /// Register `r` of every lane (RZ reads zero).
    #[inline]
    pub fn reg(&self, r: u8) -> [u32; 32] {
        if r == 255 {
            return [0; 32];
        }
        // Loading checked every register against the kernel's count.
        let b = r as usize * 32;
        self.regs
            .get(b..b + 32)
            .and_then(|row| row.try_into().ok())
            .unwrap_or([0; 32])
    }

    /// Register `r` of every lane, in place (RZ reads zero).
    #[inline]
    pub fn row(&self, r: u8) -> &[u32; 32] {
        static ZERO: [u32; 32] = [0; 32];
        let b = r as usize * 32;
        if r == 255 {
            return &ZERO;
        }
        self.regs
            .get(b..b + 32)
            .and_then(|row| row.try_into().ok())
            .unwrap_or(&ZERO)
    }

    /// Writes `v` to register `r` in lanes `mask` (RZ is not written).
    #[inline]
    pub fn set_reg(&mut self, r: u8, v: &[u32; 32], mask: u32) {
        if r == 255 {
            return;
        }
        let b = r as usize * 32;
        let Some(row) = self.regs.get_mut(b..b + 32) else {
            return;
        };
        if mask == u32::MAX {
            row.copy_from_slice(v);
        } else {
            for l in Lanes(mask) {
                row[l] = v[l];
            }
        }
    }

    /// Pushes an entry; false when the stack is full.
    #[inline]
    pub fn push(&mut self, token: Token, mask: u32, pc: u32) -> bool {
        if self.stack.len() >= MAX_STACK {
            return false;
        }
        self.stack.push(Entry { token, mask, pc });
        true
    }

    /// Takes `lanes` out of the running set to wait at the nearest entry of
    /// `token` (BRK, CONT, RET); false if there is none. Entries above it lose
    /// those lanes: they come back only when that entry is popped.
    pub fn leave_to(&mut self, token: Token, lanes: u32) -> bool {
        let Some(i) = self.stack.iter().rposition(|e| e.token == token) else {
            return false;
        };
        for e in &mut self.stack[i + 1..] {
            e.mask &= !lanes;
        }
        self.active &= !lanes;
        true
    }

    /// Lanes `lanes` exit.
    pub fn exit(&mut self, lanes: u32) {
        self.exited |= lanes;
        self.active &= !lanes;
    }

    /// When no lane runs, pops entries until one has lanes to resume. Returns
    /// false when lanes are left waiting with nothing to resume them.
    pub fn resume(&mut self) -> bool {
        while self.active == 0 {
            let Some(e) = self.stack.pop() else {
                if self.exited | !self.valid == u32::MAX || self.exited == self.valid {
                    self.state = WarpState::Done;
                    return true;
                }
                return false;
            };
            let m = e.mask & !self.exited;
            if m != 0 {
                self.active = m;
                self.pc = e.pc;
            }
        }
        true
    }
}

/// Iterates over the set bits of a lane mask.
#[derive(Clone, Copy)]
pub struct Lanes(pub u32);

impl Iterator for Lanes {
    type Item = usize;
    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let l = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn break_lanes_come_back_at_the_break_entry() {
        let mut w = Warp::new(0, 4, u32::MAX);
        assert!(w.push(Token::Brk, u32::MAX, 100));
        assert!(w.push(Token::Sync, u32::MAX, 50));
        assert!(w.leave_to(Token::Brk, 0xffff));
        assert_eq!(w.active, 0xffff_0000);
        assert_eq!(w.stack[1].mask, 0xffff_0000);
        assert!(w.leave_to(Token::Brk, 0xffff_0000));
        assert!(w.resume());
        assert_eq!((w.active, w.pc), (u32::MAX, 100));
        assert!(w.stack.is_empty());
    }

    #[test]
    fn exit_of_every_lane_ends_the_warp() {
        let mut w = Warp::new(0, 1, 0xff);
        w.push(Token::Div, 0x0f, 9);
        w.active = 0xf0;
        w.exit(0xf0);
        assert!(w.resume());
        assert_eq!((w.active, w.pc), (0x0f, 9));
        w.exit(0x0f);
        assert!(w.resume());
        assert_eq!(w.state, WarpState::Done);
    }

    #[test]
    fn reset_is_a_new_warp() {
        let mut w = Warp::new(3, 4, u32::MAX);
        w.set_reg(2, &[7; 32], u32::MAX);
        w.push(Token::Sync, 1, 9);
        w.exit(0xff);
        w.preds[1] = 5;
        w.reset(0xffff);
        let fresh = Warp::new(3, 4, 0xffff);
        assert_eq!(
            (w.pc, w.active, w.valid, w.exited, w.preds),
            (
                fresh.pc,
                fresh.active,
                fresh.valid,
                fresh.exited,
                fresh.preds
            )
        );
        assert_eq!(w.regs, fresh.regs);
        assert!(w.stack.is_empty());
    }

    #[test]
    fn lanes_iterates_set_bits() {
        assert_eq!(Lanes(0b1010_0001).collect::<Vec<_>>(), vec![0, 5, 7]);
    }
}
