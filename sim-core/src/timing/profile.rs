//! The per-instruction profile: an [`Observer`] that sums the model's events
//! by instruction slot as they happen (no event is stored), so a whole
//! kernel profiles in the memory of its code. For each instruction: how many
//! warp-instructions executed it, how often it issued as the first of a
//! dual pair, the bank conflicts of the issues it started, the pairs it
//! asked for that issued apart (by why), and the scheduler-cycles without
//! issue whose reason it gave, by reason. Its sums equal the run's own
//! counters (a test holds them so).

use super::events::{Event, Observer, NAPART, NSTALLS};

/// One instruction's counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct PcCounts {
    /// Warp-instructions that executed it (alone, or in a pair as either).
    pub executions: u64,
    /// Issues it started (alone or as the first of a pair).
    pub issues: u64,
    /// Of those, dual-issued pairs.
    pub dual: u64,
    /// Of those, issues with a 2-, 3- and 4-way register bank conflict.
    pub conflicts: [u64; 3],
    /// Of those, issues whose control byte asked for a pair that issued
    /// apart, by [`super::events::Apart`].
    pub apart: [u64; NAPART],
    /// Scheduler-cycles without issue whose reason this instruction gave
    /// (the warp waiting to issue it), by [`super::Stall`].
    pub stall: [u64; NSTALLS],
}

/// The profile of a run: counts by instruction slot (byte address / 8).
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub by_slot: Vec<PcCounts>,
    /// Scheduler-cycles without issue that no instruction gave a reason for
    /// (no warp waiting), by reason.
    pub unattributed: [u64; NSTALLS],
}

impl Profile {
    /// A profile of a kernel of `slots` instruction slots.
    pub fn new(slots: usize) -> Profile {
        Profile {
            by_slot: vec![PcCounts::default(); slots],
            unattributed: [0; NSTALLS],
        }
    }

    /// The counts of slot `pc`, made when first heard of; none for
    /// `u32::MAX` (no instruction).
    fn at(&mut self, pc: u32) -> Option<&mut PcCounts> {
        if pc == u32::MAX {
            return None;
        }
        let i = pc as usize;
        if i >= self.by_slot.len() {
            self.by_slot.resize(i + 1, PcCounts::default());
        }
        self.by_slot.get_mut(i)
    }
}

impl Observer for Profile {
    const ACTIVE: bool = true;

    fn event(&mut self, e: Event) {
        match e {
            Event::Issue {
                pc, dual, conflict, ..
            } => {
                if let Some(c) = self.at(pc) {
                    c.issues += 1;
                    c.executions += 1;
                    c.dual += dual as u64;
                    if conflict >= 2 {
                        c.conflicts[(conflict.min(4) - 2) as usize] += 1;
                    }
                }
                if dual {
                    if let Some(c) = self.at(crate::exec::next_slot(pc)) {
                        c.executions += 1;
                    }
                }
            }
            Event::Stall {
                why, pc, cycles, ..
            } => match self.at(pc) {
                Some(c) => c.stall[why as usize] += cycles,
                None => self.unattributed[why as usize] += cycles,
            },
            Event::PairApart { pc, why, .. } => {
                if let Some(c) = self.at(pc) {
                    c.apart[why as usize] += 1;
                }
            }
            _ => {}
        }
    }
}
