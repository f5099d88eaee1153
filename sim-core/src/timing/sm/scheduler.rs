//! The warp schedulers: each one's warps, the order it tries them in
//! (loose round robin or greedy), whether a warp can issue (instruction
//! fetch, the control codes, the scoreboard and the interlock, `TEXDEPBAR`,
//! the units), the cycles it owes (bank conflict debt, an `LDG`'s hold), the
//! order the schedulers are visited in and the load/store unit's guarantee of
//! progress, and why a scheduler that issued nothing stalled.

use crate::exec::{addresses, guard_mask};
use crate::func::SimError;
use crate::mem::GlobalMem;
use crate::op::{Kind, Space};
use crate::warp::WarpState;

use crate::timing::events::{Event, Observer, Stall};
use crate::timing::l2::Memory;
use crate::timing::pipes::{Info, Latency, Pipe, Unit};

use super::requests::global_only;
use super::scoreboard::{scoreboard, WarpTiming};
use super::{block_env, Launch, Paused, Sm, Turn, MAX_WARPS, NEVER};

/// The most warps' operands a scheduler's collector keeps for reuse (the
/// bound of `timing.reuse_warps`).
pub(super) const MAX_KEPT: usize = 8;

/// One warp's last issue, as the operand collector keeps it for reuse.
#[derive(Clone, Copy)]
pub(super) struct Kept {
    /// (block slot, warp index).
    pub(super) warp: (u8, u8),
    /// The slot of the instruction (the second of a pair).
    pub(super) last: u32,
    /// The registers it read, padded with RZ (never read).
    pub(super) reads: [u8; 8],
}

/// The most warp schedulers an SM has (the configuration's limit).
pub(super) const MAX_SCHEDULERS: usize = 4;

/// A warp scheduler.
pub(super) struct Scheduler {
    /// Its warps, in the order it considers them: the first `nslots`, in an
    /// array of its own so that finding one loads no pointer.
    pub(super) slots: [Slot; MAX_WARPS],
    pub(super) nslots: usize,
    /// Index in `warps` of the warp issued last (loose round robin).
    pub(super) last: usize,
    /// Issue cycles owed to register bank conflicts.
    pub(super) debt: f64,
    /// The first cycle it may dispatch again after an access that holds it
    /// (an `LDG` handed to the texture pipeline, `ldg_issue_cycles`; the
    /// replays of a load/store-unit access, `replay_issue_cycles`), the
    /// reason its cycles are charged to, and the access's slot.
    pub(super) held_until: u64,
    pub(super) held: Stall,
    pub(super) held_pc: u32,
    pub(super) sfu_free: u64,
    pub(super) fp64_free: u64,
    /// The operand collector: what it keeps for reuse, the last issue of
    /// each of the last warps that issued, the latest first
    /// (`timing.reuse_warps`; under 0 only the first counts, and only the
    /// cycle after), and how many it holds.
    pub(super) kept: [Kept; MAX_KEPT],
    pub(super) nkept: usize,
    /// The cycle it issued last.
    pub(super) prev_cycle: u64,
    /// Why it issued nothing in its last cycle (charged again for the cycles
    /// the SM skips), and the slot of the instruction that gave the reason
    /// (`u32::MAX`: none).
    pub(super) reason: Option<Stall>,
    pub(super) reason_pc: u32,
    /// Under `PipeBusy`, what the reason's warp waits for ([`Unit::None`]:
    /// the scheduler's own dispatch, held by an `LDG`).
    pub(super) reason_unit: Unit,
    /// The slot of the instruction it issued last (its bank conflict debt's).
    pub(super) last_pc: u32,
    /// After a cycle it issued nothing in: the units its warps that wait
    /// only for a busy unit wait for (bits by [`Unit`]), and the earliest
    /// cycle any other warp may issue. While each of those units is busy
    /// and that cycle has not come, asking it again would only find the
    /// same ([`Sm::tick`]).
    pub(super) units: u8,
    pub(super) others: u64,
}

impl Scheduler {
    pub(super) fn new() -> Scheduler {
        Scheduler {
            slots: [Slot {
                not_before: 0,
                block: 0,
                warp: 0,
                why: Stall::Idle,
                unit: Unit::None,
            }; MAX_WARPS],
            nslots: 0,
            last: 0,
            debt: 0.0,
            held_until: 0,
            held: Stall::PipeBusy,
            held_pc: u32::MAX,
            sfu_free: 0,
            fp64_free: 0,
            kept: [Kept {
                warp: (0, 0),
                last: u32::MAX,
                reads: [0; 8],
            }; MAX_KEPT],
            nkept: 0,
            prev_cycle: 0,
            reason: None,
            reason_pc: u32::MAX,
            reason_unit: Unit::None,
            last_pc: u32::MAX,
            units: 0,
            others: 0,
        }
    }

    /// Its warps.
    pub(super) fn slots_mut(&mut self) -> &mut [Slot] {
        &mut self.slots[..self.nslots]
    }
}

/// A warp of a scheduler: where it lives, and a cycle before which it cannot
/// issue (a lower bound worked out when it last failed to: its scoreboard
/// and the units only get later), why, and, when only a busy unit stopped
/// it, which ([`Unit`]; nothing else can stop it until it issues or a
/// barrier releases). Sixteen bytes, so the scan over a scheduler's warps
/// reads one small array.
#[derive(Clone, Copy)]
pub(super) struct Slot {
    pub(super) not_before: u64,
    pub(super) block: u8,
    /// The warp's place in the SM's warps.
    pub(super) warp: u8,
    pub(super) why: Stall,
    pub(super) unit: Unit,
}

/// What a unit's waiters queue for: the load/store unit (0) or the
/// texture pipeline (1).
pub(super) fn unit_class(unit: Unit) -> Option<usize> {
    match unit {
        Unit::Lsu | Unit::LsuShared => Some(0),
        Unit::Tex => Some(1),
        _ => None,
    }
}

impl Sm {
    /// The scheduler visited `k`-th in a cycle: pair 0 first, or pair 1 when
    /// `odd` is 1 (of four schedulers), each pair's two in the order
    /// `pair_first` says.
    #[inline]
    pub(super) fn sched_at(&self, k: usize, odd: u8) -> usize {
        let k = if self.nsched == 4 && odd & 1 == 1 {
            k ^ 2
        } else {
            k
        };
        let pair = k & !1;
        if pair + 1 < self.nsched {
            pair | ((k & 1) ^ self.pair_first[k / 2 % 2] as usize)
        } else {
            k
        }
    }

    /// Lets scheduler `s` issue at `now`, its policy greedy (`GREEDY`) or
    /// loose round robin. Returns the earliest cycle it may
    /// issue again and whether a warp's state changed (exit or barrier), or
    /// nothing when the warp it found ready waits for its turn (before
    /// `allow`; see [`Sm::tick`]), recorded in `paused`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn schedule<O: Observer, const GREEDY: bool>(
        &mut self,
        s: usize,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
        allow: Turn,
    ) -> Result<Option<(u64, bool)>, SimError> {
        let t = &l.config.timing;
        let nw = self.scheds[s].nslots;
        self.scheds[s].reason = None;
        self.scheds[s].units = 0;
        if nw == 0 {
            return Ok(Some((NEVER, false)));
        }
        // A cycle the scheduler owes: an access's hold (an LDG's, or
        // replays), or bank conflict debt.
        let sc = &mut self.scheds[s];
        let owed = if now < sc.held_until {
            Some((sc.held, sc.held_pc))
        } else if sc.debt >= 1.0 {
            sc.debt -= 1.0;
            Some((Stall::BankConflict, sc.last_pc))
        } else {
            None
        };
        if let Some((why, pc)) = owed {
            self.stall(obs, s, (why, Unit::None), pc, now, 1);
            return Ok(Some((now + 1, false)));
        }
        // Loose round robin starts after the warp issued last; greedy tries it
        // first and then the oldest (lowest) ones.
        let last = self.scheds[s].last;
        let start = if GREEDY {
            last
        } else if last + 1 >= nw {
            0
        } else {
            last + 1
        };
        let next = |i: usize| {
            if GREEDY {
                match i {
                    _ if i == last => (last == 0) as usize,
                    _ if i + 1 == last => last + 1,
                    _ => i + 1,
                }
            } else if i + 1 >= nw {
                0
            } else {
                i + 1
            }
        };
        let mut at = start;
        // A ready warp whose pair would be broken (the shared core group
        // already taken this cycle), issued only if no other warp can issue.
        let mut broken: Option<usize> = None;
        for _ in 0..nw {
            let i = at;
            at = next(i);
            // A warp that cannot issue yet: what it waits for is worked out
            // below, only when no warp issues.
            let sl = &self.scheds[s].slots[i];
            if sl.not_before > now {
                continue;
            }
            let slot = *sl;
            let (bi, wi) = (slot.block as usize, slot.warp as usize);
            if slot.unit != Unit::None {
                // Only the unit stopped it: if still busy, it still does.
                let free = self.unit_free(s, slot.unit);
                if free > now {
                    self.note_wait(wi, slot.unit, now);
                    self.scheds[s].slots[i].not_before = free;
                    continue;
                }
            }
            // Instruction fetch: a warp entering another 64-byte group needs
            // it in its buffer, from the instruction cache or, on a miss, later.
            let pc = self.warps[wi].pc;
            let tm = &mut self.timing[wi];
            if tm.group != pc / 8 {
                tm.group = pc / 8;
                // A line another warp missed is there once its fill arrives.
                let miss = now + t.icache_miss_latency as u64;
                tm.fetched = match self.icache.lookup_filled(pc as u64 / 8, miss) {
                    Some(filled) => filled.max(now),
                    None => {
                        self.stats.icache_misses += 1;
                        miss
                    }
                };
                // The fetch unit runs ahead on straight-line code: the next
                // group is brought in behind this one, arriving with it.
                self.icache.lookup_filled(pc as u64 / 8 + 1, tm.fetched);
            }
            if tm.fetched > now {
                let when = tm.fetched;
                let sl = &mut self.scheds[s].slots[i];
                (sl.not_before, sl.why, sl.unit) = (when, Stall::Fetch, Unit::None);
                continue;
            }
            match self.ready(s, wi, now, l) {
                Ok(turn) => {
                    if self.yields(s, wi, now, l) {
                        let unit = l.infos[self.warps[wi].pc as usize].unit;
                        self.note_wait(wi, unit, now);
                        let sl = &mut self.scheds[s].slots[i];
                        (sl.not_before, sl.why, sl.unit) = (now + 1, Stall::PipeBusy, unit);
                        continue;
                    }
                    // A threaded run's load or store to global memory alone
                    // is a request: it runs alone too.
                    let turn = turn && !(self.defer && self.global_only(wi, bi, now, l));
                    if turn && ((now, self.id) >= allow || !self.requests.is_empty()) {
                        // `tick` fills in what it had worked out so far.
                        self.paused = Some(Paused {
                            now,
                            s,
                            k: 0,
                            slot: i,
                            wake: NEVER,
                            changed: false,
                        });
                        return Ok(None);
                    }
                    if t.shared_group_arbitration == 2 && self.pair_broken(s, wi, now, l) {
                        broken.get_or_insert(i);
                        continue;
                    }
                    return self.issue(s, i, bi, wi, now, l, global, mem, obs).map(Some);
                }
                Err((when, why, unit)) => {
                    if why == Stall::PipeBusy {
                        self.note_wait(wi, unit, now);
                    }
                    let sl = &mut self.scheds[s].slots[i];
                    (sl.not_before, sl.why, sl.unit) = (when, why, unit);
                }
            }
        }
        if let Some(i) = broken {
            let slot = self.scheds[s].slots[i];
            let (bi, wi) = (slot.block as usize, slot.warp as usize);
            return self.issue(s, i, bi, wi, now, l, global, mem, obs).map(Some);
        }
        // No warp issued, so each has a cycle before which it cannot (its
        // slot's `not_before`; the earliest wakes the scheduler), and the
        // first in the order tried that says why stalls the scheduler (a
        // slot waiting for a busy unit says `PipeBusy`).
        let slots = &self.scheds[s].slots[..nw];
        let wake = slots.iter().map(|sl| sl.not_before).min().unwrap_or(NEVER);
        let (mut units, mut others) = (0u8, NEVER);
        for sl in slots {
            match sl.unit {
                Unit::None => others = others.min(sl.not_before),
                unit => units |= 1 << unit as u8,
            }
        }
        let mut reason = Stall::Idle;
        let mut reason_pc = u32::MAX;
        let mut reason_unit = Unit::None;
        let mut at = start;
        for _ in 0..nw {
            if slots[at].why != Stall::Idle {
                reason = slots[at].why;
                reason_pc = self.warps[slots[at].warp as usize].pc;
                reason_unit = slots[at].unit;
                break;
            }
            at = next(at);
        }
        let sc = &mut self.scheds[s];
        (sc.reason, sc.units, sc.others) = (Some(reason), units, others);
        (sc.reason_pc, sc.reason_unit) = (reason_pc, reason_unit);
        self.stall(obs, s, (reason, reason_unit), reason_pc, now, 1);
        Ok(Some((wake, false)))
    }

    /// Whether warp `wi`'s next instruction (of block slot `bi`) is a load
    /// or store through generic addresses whose active lanes all address
    /// global memory ([`global_only`]).
    pub(super) fn global_only(&mut self, wi: usize, bi: usize, now: u64, l: &Launch) -> bool {
        let w = &self.warps[wi];
        let Some(op) = l.prog.ops.get(w.pc as usize) else {
            return false;
        };
        if !matches!(
            op.kind,
            Kind::St {
                space: Space::Generic,
                ..
            } | Kind::Ld {
                space: Space::Generic,
                ..
            }
        ) {
            return false;
        }
        let mask = w.active & guard_mask(w, op);
        let mut none = GlobalMem::new();
        let env = block_env(l, &mut none, &mut self.blocks[bi].mem, [0; 3], now, self.id);
        addresses(w, op, Space::Generic, &env).is_ok_and(|a| global_only(mask, &a))
    }

    /// Whether warp `wi` (its place in the SM's warps) of scheduler `s` can
    /// issue its next instruction at `now`, and if so whether it must take
    /// its turn ([`Info::turn`]); else when it might, why not, and the unit
    /// when only a busy unit stops it.
    #[inline(always)]
    pub(super) fn ready(
        &mut self,
        s: usize,
        wi: usize,
        now: u64,
        l: &Launch,
    ) -> Result<bool, (u64, Stall, Unit)> {
        let w = &self.warps[wi];
        match w.state {
            WarpState::Running => {}
            WarpState::Barrier { .. } => return Err((NEVER, Stall::Sync, Unit::None)),
            _ => return Err((NEVER, Stall::Idle, Unit::None)),
        }
        let tm = &mut self.timing[wi];
        if tm.next_issue > now {
            let why = if tm.interlocked {
                Stall::Interlock
            } else if tm.next_issue <= tm.ldg_until {
                // Its own LDG's hold (`ldg_hold_scope` 1): the LDG dispatch.
                return Err((tm.next_issue, Stall::PipeBusy, Unit::None));
            } else if now >= tm.held_from {
                Stall::BankConflict
            } else {
                Stall::ControlCode
            };
            return Err((tm.next_issue, why, Unit::None));
        }
        let pc = w.pc;
        let Some(info) = l.infos.get(pc as usize) else {
            // Running off the end of the code: let issue report it.
            return Ok(false);
        };
        if tm.sb_pc != pc {
            (tm.sb_at, tm.sb_read) = scoreboard(tm, info);
            tm.sb_pc = pc;
        }
        let at = tm.sb_at;
        match self.gates(s, &self.timing[wi], info, at, now) {
            Ok(()) => {
                let tm = &mut self.timing[wi];
                if tm.sb_read > now && info.pipe != Pipe::Lsu {
                    // It reads an ALU result not yet written: the hardware
                    // holds it back.
                    tm.next_issue = now + l.config.timing.interlock_cycles as u64;
                    tm.interlocked = true;
                    self.stats.interlocks += 1;
                    return Err((tm.next_issue, Stall::Interlock, Unit::None));
                }
                // A threaded run's LDG is a request: it runs alone too.
                Ok(info.turn && !(self.defer && info.lat == Latency::Texture))
            }
            Err((when, Stall::PipeBusy)) => Err((when, Stall::PipeBusy, info.unit)),
            Err((when, why)) => Err((when, why, Unit::None)),
        }
    }

    /// The scoreboard, `TEXDEPBAR` and the units an instruction needs.
    pub(super) fn operands_ready(
        &self,
        s: usize,
        tm: &WarpTiming,
        info: &Info,
        now: u64,
    ) -> Result<(), (u64, Stall)> {
        self.gates(s, tm, info, scoreboard(tm, info).0, now)
    }

    /// [`Sm::operands_ready`] with the scoreboard's answer `at` worked out.
    #[inline]
    pub(super) fn gates(
        &self,
        s: usize,
        tm: &WarpTiming,
        info: &Info,
        at: u64,
        now: u64,
    ) -> Result<(), (u64, Stall)> {
        if at > now {
            return Err((at, Stall::Dependency));
        }
        if let Some(n) = info.texdepbar {
            let n = n as usize;
            if tm.tex.len() > n {
                return Err((tm.tex[tm.tex.len() - n - 1].at, Stall::Texture));
            }
        }
        let unit = self.unit_free(s, info.unit);
        if unit > now {
            return Err((unit, Stall::PipeBusy));
        }
        Ok(())
    }

    /// Warp `wi` found `unit` busy at `now`: its wait for it starts, if it
    /// had not.
    #[inline]
    pub(super) fn note_wait(&mut self, wi: usize, unit: Unit, now: u64) {
        if let Some(c) = unit_class(unit) {
            let w = &mut self.timing[wi].unit_wait[c];
            *w = (*w).min(now);
            self.wait_floor[c] = self.wait_floor[c].min(now);
        }
    }

    /// Whether scheduler `s` must leave the unit warp `wi`'s next
    /// instruction needs (the load/store unit or the texture pipeline) to a
    /// scheduler visited later in this cycle, one with a warp that has
    /// waited for it `unit_starvation_cycles` or more, longer than `wi`,
    /// and could take it now: the arbiter's guarantee of progress. Such
    /// waits are rare, so a floor of the waits' starts answers most calls.
    #[inline]
    pub(super) fn yields(&mut self, s: usize, wi: usize, now: u64, l: &Launch) -> bool {
        let Some(info) = l.infos.get(self.warps[wi].pc as usize) else {
            return false;
        };
        let Some(c) = unit_class(info.unit) else {
            return false;
        };
        let starved = l.config.timing.unit_starvation_cycles as u64;
        if self.wait_floor[c].saturating_add(starved) > now {
            return false;
        }
        self.yields_to_starved(s, wi, c, now, l)
    }

    /// [`Sm::yields`] once some wait for unit class `c` may have lasted
    /// `unit_starvation_cycles`: the rare case, kept out of the scan.
    #[inline(never)]
    fn yields_to_starved(&mut self, s: usize, wi: usize, c: usize, now: u64, l: &Launch) -> bool {
        let starved = l.config.timing.unit_starvation_cycles as u64;
        // The floor may be a wait that has ended: find the true one.
        self.wait_floor[c] = self
            .timing
            .iter()
            .map(|t| t.unit_wait[c])
            .min()
            .unwrap_or(NEVER);
        if self.wait_floor[c].saturating_add(starved) > now {
            return false;
        }
        let pos = |x: usize| (0..self.nsched).position(|k| self.sched_at(k, self.pair_now) == x);
        let me = pos(s);
        let mine = self.timing[wi].unit_wait[c];
        (0..self.nsched).any(|s2| {
            s2 != s
                && pos(s2) > me
                && self.scheds[s2].slots[..self.scheds[s2].nslots]
                    .iter()
                    .any(|sl| {
                        let since = self.timing[sl.warp as usize].unit_wait[c];
                        unit_class(sl.unit) == Some(c)
                            && sl.not_before <= now
                            && since < mine
                            && since.saturating_add(starved) <= now
                            && self.unit_free(s2, sl.unit) <= now
                    })
        })
    }

    /// Charges scheduler `s` with `cycles` cycles from `cycle` in which it
    /// issued nothing, for `why` (the instruction at slot `pc` gave it;
    /// `u32::MAX`: none), and tells the observer. Under `PipeBusy`, `unit`
    /// is what the warp waited for (its pipe-busy cycles by unit).
    #[inline(always)]
    pub(super) fn stall<O: Observer>(
        &mut self,
        obs: &mut O,
        s: usize,
        (why, unit): (Stall, Unit),
        pc: u32,
        cycle: u64,
        cycles: u64,
    ) {
        self.stats.stall[why as usize] += cycles;
        self.stats.sched_stall[s][why as usize] += cycles;
        if why == Stall::PipeBusy {
            self.stats.sched_pipe_busy[s][unit as usize] += cycles;
        }
        if O::ACTIVE {
            obs.event(Event::Stall {
                cycle,
                sm: self.id,
                sched: s as u8,
                why,
                pc,
                cycles,
            });
        }
    }

    /// The cycle `unit` of scheduler `s` is free.
    #[inline]
    pub(super) fn unit_free(&self, s: usize, unit: Unit) -> u64 {
        let sc = &self.scheds[s];
        // By index, not by branch: which unit a warp waits for changes
        // from warp to warp, which a predictor cannot learn.
        let free = [
            0,
            sc.sfu_free,
            sc.fp64_free,
            self.lsu.free,
            self.lsu.free.max(self.lsu.shared_free),
            self.tex_free,
        ];
        const _: () = assert!(
            Unit::None as u8 == 0
                && Unit::Sfu as u8 == 1
                && Unit::Fp64 as u8 == 2
                && Unit::Lsu as u8 == 3
                && Unit::LsuShared as u8 == 4
                && Unit::Tex as u8 == 5
        );
        free[unit as usize]
    }
}
