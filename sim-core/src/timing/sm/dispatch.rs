//! Dispatch: a scheduler's two dispatch units issue a warp's instruction,
//! and the next one with it when the control byte asks for a pair and the
//! pair may issue (its shared core group free this cycle, its operands
//! ready); the operand collector's reuse and the issue's register bank
//! conflicts; the warp's next issue cycle and its arrival at a barrier.

use crate::config::Timing;
use crate::exec::next_slot;
use crate::func::SimError;
use crate::mem::GlobalMem;
use crate::warp::WarpState;

use crate::timing::collector::issue_degree;
use crate::timing::ctrl::Ctrl;
use crate::timing::events::{Apart, Event, Observer, Stall};
use crate::timing::l2::Memory;
use crate::timing::pipes::{Info, Pipe, Unit};

use super::scheduler::{unit_class, Kept};
use super::scoreboard::scoreboard;
use super::{Launch, Sm, NEVER};

impl Sm {
    /// Issues the warp in slot `i` of scheduler `s` (warp `wi` of block slot
    /// `bi`), found ready at `now`: its next instruction, and the one after
    /// it when the control byte asks for a pair and the pair is legal.
    /// Returns [`Sm::schedule`]'s answer.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn issue<O: Observer>(
        &mut self,
        s: usize,
        i: usize,
        bi: usize,
        wi: usize,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
    ) -> Result<(u64, bool), SimError> {
        let t = &l.config.timing;
        let pc = self.warps[wi].pc;
        self.execute(s, bi, wi, now, l, global, mem, obs)?;
        // `execute` ran it, so the slot exists.
        let first = &l.infos[pc as usize];
        self.timing[wi].unit_wait = [NEVER; 2];
        let mut shared_unit = unit_class(first.unit).is_some();
        let mut last = first;
        let mut dual = false;
        let mut apart = None;
        let w = &self.warps[wi];
        if asks_pair(t, pc, first) && w.state == WarpState::Running && w.pc == next_slot(pc) {
            if let Some(second) = l.infos.get(w.pc as usize) {
                match self.pairs(s, wi, first, second, now, t.shared_group_arbitration >= 1) {
                    Ok(()) => {
                        if first.pipe == Pipe::Core && second.pipe == Pipe::Core {
                            self.group_taken[s / 2 % 2] = now;
                        }
                        self.execute(s, bi, wi, now, l, global, mem, obs)?;
                        shared_unit |= unit_class(second.unit).is_some();
                        last = second;
                        dual = true;
                    }
                    Err(why) => {
                        self.stats.pairs_apart[why as usize] += 1;
                        self.stats.sched_apart[s] += 1;
                        apart = Some(why);
                    }
                }
            }
        }
        // The load/store unit's and the texture pipeline's arbiter: the
        // pair that took one goes second at the next contest (under
        // `pair_rotation` 2 and 3), and the scheduler that took it second in
        // its pair from the next cycle (3).
        if shared_unit {
            self.pair_next = (s / 2 % 2) as u8 ^ 1;
            if t.pair_rotation >= 3 {
                self.pair_first_next[s / 2 % 2] = Some((s & 1) as u8 ^ 1);
            }
        }
        // The operand collector: the busiest bank's reads, not counting what
        // this warp's last instruction read if the collector still keeps it.
        let sc = &mut self.scheds[s];
        let me = (bi as u8, wi as u8);
        let keep = t.reuse_warps as usize;
        let found = if keep == 0 {
            (sc.nkept > 0 && sc.kept[0].warp == me && sc.prev_cycle + 1 == now).then_some(0)
        } else {
            sc.kept[..sc.nkept].iter().position(|k| k.warp == me)
        };
        // The rule of `collector::conflict_degree`, which the property tests
        // check against the published bank table and the reuse rule.
        let degree = match found {
            None => first.degree[0][dual as usize] as u32,
            Some(i) if next_slot(sc.kept[i].last) == pc => first.degree[1][dual as usize] as u32,
            Some(i) => {
                let second = dual.then(|| last.reads());
                let together = t.pair_reads_together >= 1;
                issue_degree(
                    first.reads(),
                    first.may_conflict,
                    second,
                    &sc.kept[i].reads,
                    together,
                )
            }
        };
        let cost = match degree {
            0 | 1 => 0.0,
            2 => t.conflict_2way,
            3 => t.conflict_3way,
            _ => t.conflict_4way,
        };
        sc.debt += cost;
        if degree >= 2 {
            self.stats.conflicts[(degree.min(4) - 2) as usize] += 1;
        }
        sc.prev_cycle = now;
        sc.last_pc = pc;
        // This issue goes first; the warp's older entry, or the oldest when
        // the collector is full, goes.
        let upto = match found {
            Some(i) => i,
            None => {
                sc.nkept = (sc.nkept + 1).min(keep.max(1));
                sc.nkept - 1
            }
        };
        sc.kept.copy_within(..upto, 1);
        sc.kept[0] = Kept {
            warp: me,
            last: if dual { next_slot(pc) } else { pc },
            // `Info::reads` is padded with RZ, which is never read.
            reads: last.reads,
        };
        let tm = &mut self.timing[wi];
        // A conflict that holds its warp: a read per cycle of the busiest bank.
        let held = if t.conflict_holds_warp == 1 && degree >= 2 {
            degree as u64 - 1
        } else {
            0
        };
        tm.next_issue = tm.next_issue.max(now + last.gap as u64 + held);
        tm.interlocked = false;
        tm.held_from = if held > 0 {
            tm.next_issue - held
        } else {
            NEVER
        };
        self.stats.issue_cycles += 1;
        self.stats.dual += dual as u64;
        self.stats.sched_issue[s] += 1;
        self.stats.sched_dual[s] += dual as u64;
        if O::ACTIVE {
            obs.event(Event::Issue {
                cycle: now,
                sm: self.id,
                sched: s as u8,
                slot: bi as u8,
                warp: (wi - bi * self.wpb) as u8,
                pc,
                dual,
                conflict: if degree >= 2 { degree.min(4) as u8 } else { 0 },
            });
            if let Some(why) = apart {
                obs.event(Event::PairApart {
                    cycle: now,
                    sm: self.id,
                    sched: s as u8,
                    slot: bi as u8,
                    warp: (wi - bi * self.wpb) as u8,
                    pc,
                    why,
                });
            }
        }
        let w = &self.warps[wi];
        let changed = w.state == WarpState::Done;
        if changed {
            self.stats.warp_cycles += now + 1 - self.blocks[bi].started;
        }
        if matches!(w.state, WarpState::Barrier { .. }) {
            self.timing[wi].bar_since = now;
            if O::ACTIVE {
                obs.event(Event::BarrierArrive {
                    cycle: now,
                    sm: self.id,
                    slot: bi as u8,
                    warp: (wi - bi * self.wpb) as u8,
                    pc: if dual { next_slot(pc) } else { pc },
                });
            }
        }
        if matches!(w.state, WarpState::Barrier { .. } | WarpState::Done) {
            // A barrier may release: checked next cycle.
            self.blocks[bi].at_barrier = true;
            self.barrier_check = true;
        }
        let sc = &mut self.scheds[s];
        sc.last = i;
        sc.slots[i].unit = Unit::None;
        Ok((now + 1, changed))
    }

    /// Whether warp `wi`'s next instruction asks to pair two core-group
    /// instructions while its scheduler pair's shared core group is already
    /// taken this cycle (the pair would issue its first instruction alone).
    /// Counts as a conflict: the pair's visiting order flips.
    pub(super) fn pair_broken(&mut self, s: usize, wi: usize, now: u64, l: &Launch) -> bool {
        if self.group_taken[s / 2 % 2] != now {
            return false;
        }
        let pc = self.warps[wi].pc;
        let Some(first) = l.infos.get(pc as usize) else {
            return false;
        };
        if !asks_pair(&l.config.timing, pc, first)
            || first.pipe != Pipe::Core
            || l.infos
                .get(next_slot(pc) as usize)
                .is_none_or(|x| x.pipe != Pipe::Core)
        {
            return false;
        }
        self.pair_first[s / 2 % 2] = (s & 1) as u8;
        true
    }

    /// Whether `second` may issue with `first` in this cycle, and if not,
    /// why. When the pair of schedulers' shared core group was taken by the
    /// other one in this cycle, `alternate` makes this scheduler the first
    /// visited (and so the winner) at the pair's next conflict.
    pub(super) fn pairs(
        &mut self,
        s: usize,
        wi: usize,
        first: &Info,
        second: &Info,
        now: u64,
        alternate: bool,
    ) -> Result<(), Apart> {
        if crate::timing::pipes::may_pair(first, second).is_err() {
            return Err(Apart::NotPairable);
        }
        if first.pipe == Pipe::Core
            && second.pipe == Pipe::Core
            && self.group_taken[s / 2 % 2] == now
        {
            if alternate {
                self.pair_first[s / 2 % 2] = (s & 1) as u8;
            }
            return Err(Apart::GroupTaken);
        }
        let tm = &self.timing[wi];
        // A second instruction that reads an ALU result not yet written
        // would be held back by the interlock: it issues alone, later.
        if second.pipe != Pipe::Lsu && scoreboard(tm, second).1 > now {
            return Err(Apart::NotReady);
        }
        self.operands_ready(s, tm, second, now)
            .map_err(|(_, why)| match why {
                Stall::PipeBusy => Apart::UnitBusy,
                _ => Apart::NotReady,
            })
    }
}

/// Whether the instruction `first` at slot `pc` asks to pair with the next
/// one and may by its byte and place (dual issue on, `0x04`, an aligned half
/// of its group when pairs must be aligned).
#[inline]
pub(super) fn asks_pair(t: &Timing, pc: u32, first: &Info) -> bool {
    t.dual_issue == 1
        && Ctrl(first.ctrl).dual()
        && (t.dual_issue_aligned == 0 || pc.is_multiple_of(2))
}
