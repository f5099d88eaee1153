//! The control byte: how an instruction's 8-bit field in its group's control
//! word governs issue.
//!
//! The reading the model adopts (evidence in docs/timing-model.md, *The
//! control byte*):
//!
//! - a byte of `0x20` or more: single issue; the warp's next instruction may
//!   issue `issue_interval + n` cycles later, n being bits 0-3 (with the K20m's
//!   3: `0x20` after 3 cycles, `0x28` after 11, the ALU latency ptxas covers
//!   with it before a dependent instruction). Bits 5-7 do not change the
//!   count: the measured sweep of the byte is periodic above `0x20`.
//! - `0x04` (and `0x14`): dual issue, the instruction pairs with the next one
//!   in the same cycle when the pair is legal.
//! - the byte `0x00`: the warp waits `unscheduled_stall` cycles (16, as the paper
//!   measured).
//! - other bytes below `0x20` (`0x05`, ...): the dual-issue mode's single
//!   issue, the next instruction may issue the next cycle. The paper's tuned
//!   kernel writes `0x05` on the second instruction of a pair and on the
//!   group's single FFMA, and gets 4 cycles a group.
//! - bit 4 on a fixed-latency instruction puts its result on the scoreboard
//!   (readers wait for it): ptxas sets it on `MOV R1, c[0x0][0x44]` and reads
//!   R1 soon after; on loads, which the scoreboard tracks anyway, it changes
//!   nothing.
//! - bits 6 and 7 change no timing: ptxas sets them only on `TEXDEPBAR`, which
//!   waits for LDGs by count, and which itself holds the warp at least
//!   `texdepbar_cycles` (ptxas puts one between an FFMA and its dependent FFMA).
//!
//! Not every instruction depends on the byte alone: loads, stores and atomics
//! wait for their ALU-computed registers (ptxas issues an LD right after the
//! ALU instruction that computes its address).

/// The two timing parameters the byte is read with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// Cycles the byte `0x00` holds the warp (`timing.unscheduled_stall`).
    pub unscheduled_stall: u32,
    /// Cycles from a single issue coded `0x20` to the warp's next issue
    /// (`timing.issue_interval`).
    pub issue_interval: u32,
}

impl Reading {
    /// The reading of `timing`.
    pub fn of(t: &crate::config::Timing) -> Reading {
        Reading {
            unscheduled_stall: t.unscheduled_stall,
            issue_interval: t.issue_interval,
        }
    }

    /// The K20m's (the shipped `configs/k20m.ron`).
    pub const K20M: Reading = Reading {
        unscheduled_stall: crate::config::Timing::K20M.unscheduled_stall,
        issue_interval: crate::config::Timing::K20M.issue_interval,
    };
}

/// One instruction's control byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ctrl(pub u8);

impl Ctrl {
    /// Pairs with the next instruction.
    #[inline]
    pub fn dual(self) -> bool {
        self.0 & 0xef == 0x04
    }

    /// Cycles from this instruction's issue to the earliest issue of the
    /// warp's next one (at least 1).
    #[inline]
    pub fn gap(self, r: Reading) -> u32 {
        if self.0 == 0 {
            r.unscheduled_stall.max(1)
        } else if self.0 >= 0x20 {
            (r.issue_interval + (self.0 & 0x0f) as u32).max(1)
        } else {
            1
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adopted_reading() {
        let r = Reading::K20M;
        assert_eq!(Ctrl(0x20).gap(r), 3);
        assert_eq!(Ctrl(0x28).gap(r), 11);
        assert_eq!(Ctrl(0x2f).gap(r), 18);
        assert_eq!(Ctrl(0x00).gap(r), 16);
        assert!(
            Ctrl(0x04).dual() && !Ctrl(0x24).dual() && !Ctrl(0x05).dual() && !Ctrl(0x44).dual()
        );
        assert!(Ctrl(0x14).dual(), "a barrier bit does not stop a pair");
        assert_eq!((Ctrl(0x05).gap(r), Ctrl(0x04).gap(r)), (1, 1));
        // Periodic above 0x20: bits 4 to 7 change neither the count nor dual issue.
        for b in 0x20..=0xffu8 {
            assert_eq!(Ctrl(b).gap(r), Ctrl(0x20 | (b & 0xf)).gap(r));
            assert!(!Ctrl(b).dual(), "{b:#04x}");
        }
        assert_eq!((Ctrl(0x48).gap(r), Ctrl(0x90).gap(r)), (11, 3));
        // Another interval moves every single-issue count alike.
        let one = Reading {
            issue_interval: 1,
            ..r
        };
        assert_eq!((Ctrl(0x20).gap(one), Ctrl(0x28).gap(one)), (1, 9));
    }
}
