//! The control byte: how an instruction's 8-bit field in its group's control
//! word governs issue.
//!
//! The reading the model adopts (evidence in the README, *The control byte*):
//!
//! - a byte of `0x20` or more: single issue; the warp's next instruction may
//!   issue `n + 1` cycles later, n being bits 0-3 (`0x20` back to back, `0x28`
//!   after 9 cycles, the ALU latency ptxas covers with it before a dependent
//!   instruction). Bits 5-7 do not change the count: the measured sweep of
//!   the byte is periodic above `0x20`, and the paper's tuned kernel codes each
//!   group's seventh instruction `0x90` at no cost.
//! - `0x04` (and `0x14`): dual issue, the instruction pairs with the next one
//!   in the same cycle when the pair is legal.
//! - the byte `0x00`: the warp waits `unscheduled_stall` cycles (16, as the paper
//!   measured).
//! - other bytes below `0x20` (`0x05`, ...): single issue, the next
//!   instruction may issue the next cycle. The paper's tuned kernel writes
//!   `0x05` on the second instruction of a pair and on the group's single FFMA.
//! - bit 4 on a fixed-latency instruction puts its result on the scoreboard
//!   (readers wait for it): ptxas sets it on `MOV R1, c[0x0][0x44]` and reads
//!   R1 two cycles later; on loads, which the scoreboard tracks anyway, it
//!   changes nothing.
//! - bits 6 and 7 change no timing: ptxas sets them only on `TEXDEPBAR`, which
//!   waits for LDGs by count, and which itself holds the warp at least
//!   `texdepbar_cycles` (ptxas puts one between an FFMA and its dependent FFMA).
//!
//! Not every instruction depends on the byte alone: loads, stores and atomics
//! wait for their ALU-computed registers (ptxas issues an LD one cycle after
//! the ALU instruction that computes its address).

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
    pub fn gap(self, unscheduled_stall: u32) -> u32 {
        if self.0 == 0 {
            unscheduled_stall.max(1)
        } else if self.0 >= 0x20 {
            1 + (self.0 & 0x0f) as u32
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
        assert_eq!(Ctrl(0x20).gap(16), 1);
        assert_eq!(Ctrl(0x28).gap(16), 9);
        assert_eq!(Ctrl(0x2f).gap(16), 16);
        assert_eq!(Ctrl(0x00).gap(16), 16);
        assert!(
            Ctrl(0x04).dual() && !Ctrl(0x24).dual() && !Ctrl(0x05).dual() && !Ctrl(0x44).dual()
        );
        assert!(Ctrl(0x14).dual(), "a barrier bit does not stop a pair");
        assert_eq!((Ctrl(0x05).gap(16), Ctrl(0x90).gap(16)), (1, 1));
        // Periodic above 0x20: bits 4 to 7 change neither the count nor dual issue.
        for b in 0x20..=0xffu8 {
            assert_eq!(Ctrl(b).gap(16), Ctrl(0x20 | (b & 0xf)).gap(16));
            assert!(!Ctrl(b).dual(), "{b:#04x}");
        }
        assert_eq!(Ctrl(0x48).gap(16), 9);
    }
}
