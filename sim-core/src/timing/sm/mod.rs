//! One streaming multiprocessor: its resident blocks and their warps, four warp
//! schedulers with two dispatch units each, the 32-lane core groups (one per
//! scheduler, two shared by the scheduler pairs 0/1 and 2/3), the SFU and FP64
//! units, the load/store units and shared memory, the register banks' operand
//! collector, and each warp's scoreboard and read-only-load barrier.
//!
//! Each cycle ([`Sm::tick`]) the SM first lands read-only loads whose data
//! arrive, releases barriers whose warps have all arrived, then visits its
//! schedulers: the two pairs in turn, a cycle each (the first visited takes
//! the load/store unit when both want it), and within a pair first the loser
//! of the pair's last conflict over its shared core group, so that two
//! schedulers that both dual-issue settle into turns (the microbenchmarks'
//! dual-issue rate comes out at 187 of 192 lanes, measured 186). A scheduler
//! with bank-conflict debt of a cycle or more loses that cycle. An issued
//! instruction runs at once through the functional executor (`exec`), which
//! keeps values and time together: results of scoreboarded instructions cannot
//! be read before they are ready, and an LDG's value is held back and written
//! when its data arrive, so a reader not protected by `TEXDEPBAR` sees the old
//! value, as on hardware.
//!
//! The SM's blocks are its modules, each an `impl Sm` of its own:
//! `scheduler` (which warp each scheduler tries, and whether it can issue),
//! `dispatch` (the issue itself: dual issue, the operand collector's reuse and
//! bank conflicts), `execute` (the instruction run and timed, and the memory
//! path it takes), `scoreboard` (a warp's timing state) and `requests` (a
//! threaded run's global accesses, kept for their turn).
//!
//! A tick may stop before an instruction that must take its turn among the
//! SMs (a global access or an `EXIT`, [`Info::turn`]) and go on from there
//! in a later call: the chip's loop runs each SM alone until then
//! ([`super::gpu::Stepping`]).

use crate::config::{Config, Timing};
use crate::exec::Env;
use crate::func::{release_barriers, SimError};
use crate::mem::GlobalMem;
use crate::program::Program;
use crate::warp::{Warp, WarpState};

use super::cache::Tags;
use super::events::{Event, Observer, Stall, Stats, MAX_BLOCK_WARPS};
use super::l2::{Memory, Path, Slots};
use super::lsu::Lsu;
use super::pipes::{Info, Unit};

mod dispatch;
mod execute;
mod requests;
mod scheduler;
mod scoreboard;

use scheduler::{Scheduler, Slot, MAX_SCHEDULERS};

pub use requests::{resolve, Request, Resolved};
pub use scoreboard::WarpTiming;

/// A never-reached cycle.
pub const NEVER: u64 = u64::MAX;

/// The landing cycle of a read-only load not yet timed (a threaded run:
/// [`Request`]): later than any cycle the SM runs before it is, and so
/// fixed before anything reads it ([`Sm::apply`]).
const UNTIMED: u64 = NEVER - 1;

/// A block resident on the SM, with its memories (its warps are the SM's,
/// [`Sm::warps_of`]). Aligned as [`Sm`] is: its count of instructions
/// executed is written all the time.
#[repr(align(128))]
pub struct BlockSlot {
    pub idx: [u32; 3],
    pub live: bool,
    mem: BlockMem,
    /// Warp-instructions executed.
    pub executed: u64,
    /// A warp arrived at a barrier or exited since the barriers were last
    /// checked.
    at_barrier: bool,
    /// The cycle the block started.
    started: u64,
}

/// The most warps an SM holds: the configuration's most threads (4096) in
/// warps. (Occupancy never places more.)
const MAX_WARPS: usize = 128;

/// A tick stopped before an instruction that must wait for its turn
/// ([`Info::turn`]): the cycle, the scheduler and its warp slot that found
/// it ready, and what the tick had worked out so far (the earliest cycle
/// anything happens, and whether a warp's state changed).
#[derive(Clone, Copy)]
struct Paused {
    now: u64,
    /// The scheduler, and its place in the cycle's visiting order.
    s: usize,
    k: usize,
    slot: usize,
    wake: u64,
    changed: bool,
}

/// What [`Sm::run`] ran: the last tick in which no block finished, and the
/// tick in which one did, where it stopped (`NEVER`: none).
#[derive(Clone, Copy, Debug)]
pub struct Ran {
    pub quiet: u64,
    pub finished: u64,
}

/// Which SM may do what only one SM at a time may do ([`Info::turn`]), by
/// cycle and then SM index, the order in which the SMs of one cycle run.
pub type Turn = (u64, u32);

/// What the SM needs of the launch, shared by every SM.
pub struct Launch<'a> {
    pub prog: &'a Program,
    pub infos: &'a [Info],
    pub cbank0: &'a [u8],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub config: &'a Config,
    /// The most warp-instructions a block may execute.
    pub limit: u64,
    /// The host's FFMA over a warp's rows ([`crate::fp::FfmaRows::host`]).
    pub ffma: crate::fp::FfmaRows,
    /// The host's build of the integer instructions' lanes
    /// ([`crate::exec::IntRoutine::host`]).
    pub int: crate::exec::IntRoutine,
}

/// One SM. Aligned to two cache lines, so that two SMs on two threads
/// never share one (the counters at its end are written all the time).
#[repr(align(128))]
pub struct Sm {
    pub id: u32,
    pub blocks: Vec<BlockSlot>,
    /// Every block slot's warps, block after block (`wpb` each), in one
    /// array, and their timing beside them: one index finds a warp.
    warps: Vec<Warp>,
    timing: Vec<WarpTiming>,
    wpb: usize,
    scheds: [Scheduler; MAX_SCHEDULERS],
    /// For each scheduler, a cycle before which none of its warps can issue
    /// (a lower bound; `NEVER` for one not in use), side by side so that a
    /// tick finds the schedulers it must ask in one line.
    wakes: [u64; MAX_SCHEDULERS],
    /// Schedulers in use (the first of `scheds`).
    nsched: usize,
    lsu: Lsu,
    /// The cycle the texture pipeline (LDG's path) takes another instruction.
    tex_free: u64,
    /// The cycle each shared core group was last taken.
    group_taken: [u64; 2],
    /// For each pair of schedulers, which of the two (0 the lower, 1 the
    /// upper) a cycle visits first, and so which wins the pair's shared core
    /// group when both want it (`shared_group_arbitration`).
    pair_first: [u8; 2],
    /// The pair of schedulers this cycle visits first (1: pair 1), and so
    /// the one that wins the load/store unit or the texture pipeline when
    /// both want it (`pair_rotation`).
    pair_now: u8,
    /// Under `pair_rotation` 2 and 3, the pair a cycle visits first: the
    /// other than the last whose warp took either unit.
    pair_next: u8,
    /// Under `pair_rotation` 3, for each pair, the scheduler to visit first
    /// from the next cycle (the other than the one that took a unit this
    /// cycle): a cycle's visiting order does not change within it.
    pair_first_next: [Option<u8>; 2],
    /// A cycle no warp's wait for the load/store unit (0) or the texture
    /// pipeline (1) began before (a lower bound: waits end unseen).
    wait_floor: [u64; 2],
    ld_slots: Slots,
    ldg_slots: Slots,
    icache: Tags,
    /// The read-only (texture) cache LDG reads through.
    rocache: Tags,
    /// The earliest cycle anything can happen here.
    pub wake: u64,
    /// The earliest landing of a read-only load.
    next_land: u64,
    /// The last cycle ticked.
    last_tick: Option<u64>,
    /// Blocks resident.
    live: usize,
    /// A warp arrived at a barrier or exited since the barriers were last
    /// checked (in some block).
    barrier_check: bool,
    /// Where the last tick stopped to wait for its turn.
    paused: Option<Paused>,
    /// Running alone on a worker thread (a threaded run): an `LDG` becomes
    /// a [`Request`] in `requests`, and any other instruction that must
    /// take its turn waits for it while one is there.
    defer: bool,
    requests: Vec<Request>,
    /// Ticks stop before this cycle: the earliest an unresolved request of
    /// a threaded run may land in, or where the chip's loop stops the SM.
    pub horizon: u64,
    /// The fewest cycles from an `LDG`'s issue to its landing: on a
    /// read-only cache hit, and through L2.
    ldg_hit: u64,
    ldg_l2: u64,
    ld_l2: u64,
    pub stats: Stats,
}

impl Sm {
    /// An SM with room for `slots` blocks of `warps` warps each.
    pub fn new(id: u32, t: &Timing, prog: &Program, slots: usize, warps: u32, shared: usize) -> Sm {
        let blocks = (0..slots)
            .map(|_| BlockSlot {
                idx: [0; 3],
                live: false,
                mem: BlockMem {
                    shared: vec![0; shared],
                    local: vec![0; warps as usize * 32 * prog.local_size as usize],
                    locks: vec![0; shared.div_ceil(128).max(1)],
                },
                executed: 0,
                at_barrier: false,
                started: 0,
            })
            .collect();
        Sm {
            id,
            blocks,
            warps: (0..slots)
                .flat_map(|_| (0..warps).map(|i| Warp::new(i, prog.registers, 0)))
                .collect(),
            timing: (0..slots * warps as usize)
                .map(|_| WarpTiming::new())
                .collect(),
            wpb: warps as usize,
            scheds: std::array::from_fn(|_| Scheduler::new()),
            wakes: [NEVER; MAX_SCHEDULERS],
            nsched: (t.schedulers as usize).clamp(1, MAX_SCHEDULERS),
            lsu: Lsu::new(t),
            tex_free: 0,
            group_taken: [NEVER; 2],
            pair_first: [0; 2],
            pair_now: 0,
            pair_next: 0,
            pair_first_next: [None; 2],
            wait_floor: [NEVER; 2],
            icache: Tags::new(t.icache_bytes / 64, 4),
            rocache: Tags::new(t.ldg_cache_bytes / 128, t.ldg_cache_ways),
            ld_slots: Slots::new(t.ld_outstanding),
            ldg_slots: Slots::new(t.ldg_outstanding),
            wake: NEVER,
            next_land: NEVER,
            last_tick: None,
            live: 0,
            barrier_check: false,
            paused: None,
            defer: false,
            requests: Vec::new(),
            horizon: NEVER,
            ldg_hit: (t.ldg_cache_latency as u64).max(1),
            ldg_l2: Memory::least_latency(t, Path::ReadOnly).max(1),
            ld_l2: Memory::least_latency(t, Path::L2).max(1),
            stats: Stats::default(),
        }
    }

    /// Whether the last tick stopped before an instruction that waits for
    /// its turn.
    pub fn paused(&self) -> bool {
        self.paused.is_some()
    }

    /// Resident blocks.
    pub fn resident(&self) -> usize {
        self.live
    }

    /// The places of block slot `bi`'s warps in `warps` and `timing`.
    fn range(&self, bi: usize) -> std::ops::Range<usize> {
        warps_at(bi, self.wpb)
    }

    /// Block slot `bi`'s warps.
    pub fn warps_of(&self, bi: usize) -> &[Warp] {
        &self.warps[self.range(bi)]
    }

    /// Starts block `idx` in a free slot at cycle `now`; false when none is free.
    pub fn start<O: Observer>(
        &mut self,
        idx: [u32; 3],
        threads: u32,
        now: u64,
        obs: &mut O,
    ) -> bool {
        let Some(s) = self.blocks.iter().position(|b| !b.live) else {
            return false;
        };
        let nsched = self.nsched;
        let range = self.range(s);
        let b = &mut self.blocks[s];
        b.idx = idx;
        b.live = true;
        self.live += 1;
        b.executed = 0;
        b.at_barrier = false;
        b.started = now;
        b.mem.shared.fill(0);
        b.mem.local.fill(0);
        b.mem.locks.fill(0);
        let (warps, timing) = (&mut self.warps[range.clone()], &mut self.timing[range]);
        for (i, (w, t)) in warps.iter_mut().zip(timing.iter_mut()).enumerate() {
            let n = threads.saturating_sub(i as u32 * 32).min(32);
            w.reset(if n == 32 { u32::MAX } else { (1u32 << n) - 1 });
            // Warps go to schedulers by their slot on the SM.
            let sched = (s * b_warps(threads) + i) % nsched;
            t.reset(now, sched as u8);
        }
        self.rebuild();
        self.wake = self.wake.min(now);
        if O::ACTIVE {
            obs.event(Event::BlockStart {
                cycle: now,
                sm: self.id,
                slot: s as u8,
                block: idx,
                warps: b_warps(threads) as u8,
            });
        }
        true
    }

    /// Rebuilds the schedulers' warp lists from the live blocks.
    fn rebuild(&mut self) {
        for s in &mut self.scheds {
            s.nslots = 0;
        }
        for (bi, b) in self.blocks.iter().enumerate() {
            if !b.live {
                continue;
            }
            let range = warps_at(bi, self.wpb);
            for (wi, (w, t)) in self.warps[range.clone()]
                .iter()
                .zip(&self.timing[range.clone()])
                .enumerate()
            {
                if w.state != WarpState::Done {
                    let sc = &mut self.scheds[t.sched as usize];
                    sc.nslots += 1;
                    sc.slots[sc.nslots - 1] = Slot {
                        not_before: 0,
                        block: bi as u8,
                        warp: (range.start + wi) as u8,
                        why: Stall::Idle,
                        unit: Unit::None,
                    };
                }
            }
        }
        for (s, w) in self.scheds.iter_mut().zip(&mut self.wakes) {
            if s.last >= s.nslots {
                s.last = 0;
            }
            *w = 0;
            s.units = 0;
        }
        self.wakes[self.nsched..].fill(NEVER);
    }

    /// The turn at which this SM next does something ([`Turn`]): the cycle
    /// of the instruction it stopped before, else its next tick's (`NEVER`:
    /// nothing left to do).
    pub fn next_turn(&self) -> Turn {
        (self.paused.map_or(self.wake, |p| p.now), self.id)
    }

    /// Runs this SM's ticks ([`Sm::tick`]), each at its [`Sm::next_turn`],
    /// until one stops before an instruction that waits for its turn
    /// (`allow`), nothing is left to do, or a block finishes (its blocks in
    /// `finished`, and the chip may start another): the chip's loop, kept in
    /// the SM, without a call from the chip for each tick. On an error, the
    /// cycle of the tick that failed.
    #[allow(clippy::too_many_arguments)]
    pub fn run<O: Observer>(
        &mut self,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
        finished: &mut Vec<[u32; 3]>,
        allow: Turn,
    ) -> Result<Ran, (u64, SimError)> {
        let mut quiet = NEVER;
        loop {
            let t = self.next_turn().0;
            if t >= self.horizon {
                break;
            }
            match self.tick(t, l, global, mem, obs, finished, allow) {
                Ok(true) if finished.is_empty() => quiet = t,
                Ok(true) => return Ok(Ran { quiet, finished: t }),
                Ok(false) => break,
                Err(e) => return Err((t, e)),
            }
        }
        Ok(Ran {
            quiet,
            finished: NEVER,
        })
    }

    /// Runs cycle `now` (or, when the last tick stopped to wait for its
    /// turn, the rest of it), putting the blocks that finished in it in
    /// `finished`. An instruction that must take its turn ([`Info::turn`])
    /// runs only when this SM's turn at `now` comes before `allow`, the
    /// other SMs' [`Sm::next_turn`]; else the tick stops before it and
    /// returns false, and the next call goes on from there.
    #[allow(clippy::too_many_arguments)]
    pub fn tick<O: Observer>(
        &mut self,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
        finished: &mut Vec<[u32; 3]>,
        allow: Turn,
    ) -> Result<bool, SimError> {
        let (first, mut wake, mut changed) = match self.paused {
            Some(p) => {
                if (now, self.id) >= allow || !self.requests.is_empty() {
                    return Ok(false);
                }
                self.paused = None;
                let r = self.resume(p, now, l, global, mem, obs)?;
                (p.k + 1, p.wake.min(r.0), p.changed | r.1)
            }
            None => {
                for (first, next) in self.pair_first.iter_mut().zip(&mut self.pair_first_next) {
                    if let Some(n) = next.take() {
                        *first = n;
                    }
                }
                self.pair_now = match l.config.timing.pair_rotation {
                    0 => 0,
                    1 => (now & 1) as u8,
                    _ => self.pair_next,
                };
                (0, self.begin(now, obs), false)
            }
        };
        // 3. The schedulers, each pair in its order (the first visited wins
        // the pair's shared core group when both want it), the pairs in turn
        // (the first visited wins the SM's load/store unit when both want it).
        for k in first..self.nsched {
            let s = self.sched_at(k, self.pair_now);
            let sc = &self.scheds[s];
            // Its wake, or (unless an observer hears each cycle it is
            // asked) later when only warps waiting for a unit another
            // scheduler took meanwhile could issue: asked now, it would
            // issue nothing, for the same reason, and change nothing but
            // when those warps look again.
            let mut at = self.wakes[s];
            if at <= now && sc.units != 0 && !O::ACTIVE {
                at = sc.others;
                for unit in [Unit::Sfu, Unit::Fp64, Unit::Lsu, Unit::LsuShared, Unit::Tex] {
                    if sc.units >> unit as u8 & 1 == 1 {
                        at = at.min(self.unit_free(s, unit));
                    }
                }
                self.wakes[s] = at;
            }
            if at > now {
                wake = wake.min(at);
                if let Some(r) = self.scheds[s].reason {
                    let sc = &self.scheds[s];
                    self.stall(obs, s, (r, sc.reason_unit), sc.reason_pc, now, 1);
                }
                continue;
            }
            // One build of the scan per policy: its order costs no test of it.
            let r = if l.config.timing.policy == 1 {
                self.schedule::<O, true>(s, now, l, global, mem, obs, allow)
            } else {
                self.schedule::<O, false>(s, now, l, global, mem, obs, allow)
            };
            let Some(r) = r? else {
                // Stopped before an instruction that waits for its turn.
                let p = self
                    .paused
                    .as_mut()
                    .expect("schedule records where it stopped");
                (p.now, p.s, p.k, p.wake, p.changed) = (now, s, k, wake, changed);
                return Ok(false);
            };
            self.wakes[s] = r.0;
            wake = wake.min(r.0);
            changed |= r.1;
        }
        if changed {
            // A warp or block may have finished.
            for (bi, b) in self.blocks.iter_mut().enumerate() {
                let range = warps_at(bi, self.wpb);
                if b.live && self.warps[range].iter().all(|w| w.state == WarpState::Done) {
                    b.live = false;
                    self.live -= 1;
                    finished.push(b.idx);
                    obs.event(Event::BlockDone {
                        cycle: now,
                        sm: self.id,
                        block: b.idx,
                    });
                }
            }
            self.rebuild();
        }
        self.wake = wake;
        Ok(true)
    }

    /// Issues the instruction a tick stopped before (`p`), its turn come:
    /// its scheduler's cycle goes on from where it stopped.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn resume<O: Observer>(
        &mut self,
        p: Paused,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
    ) -> Result<(u64, bool), SimError> {
        let (bi, wi) = {
            let sl = &self.scheds[p.s].slots[p.slot];
            (sl.block as usize, sl.warp as usize)
        };
        let r = self.issue(p.s, p.slot, bi, wi, now, l, global, mem, obs)?;
        self.wakes[p.s] = r.0;
        Ok(r)
    }

    /// Steps 1 and 2 of [`Sm::tick`], and the stalls of the cycles skipped
    /// before it; returns the earliest cycle a read-only load lands or a
    /// released warp may issue.
    #[inline(always)]
    fn begin<O: Observer>(&mut self, now: u64, obs: &mut O) -> u64 {
        let mut wake = NEVER;
        // Cycles skipped since the last tick stalled each scheduler for the
        // reason it had then.
        if let Some(last) = self.last_tick {
            assert!(last < now, "SM {} ticks {now} after {last}", self.id);
            let gap = now.saturating_sub(last + 1);
            if gap > 0 {
                for s in 0..self.nsched {
                    if let Some(r) = self.scheds[s].reason {
                        let sc = &self.scheds[s];
                        self.stall(obs, s, (r, sc.reason_unit), sc.reason_pc, last + 1, gap);
                    }
                }
            }
        }
        self.last_tick = Some(now);
        // 1. Read-only loads whose data arrive now land in their registers.
        if now >= self.next_land {
            self.land(now);
        }
        if self.next_land != NEVER {
            wake = wake.min(self.next_land);
        }
        // 2. Barriers whose warps have all arrived release.
        // (Only after a warp arrived at one or exited.)
        let blocks: &mut [BlockSlot] = if std::mem::take(&mut self.barrier_check) {
            &mut self.blocks
        } else {
            &mut []
        };
        for (bi, b) in blocks.iter_mut().enumerate() {
            if !(b.live && b.at_barrier) {
                continue;
            }
            let range = warps_at(bi, self.wpb);
            if release_barriers(&mut self.warps[range.clone()]) {
                self.stats.barrier_releases += 1;
                if O::ACTIVE {
                    obs.event(Event::BarrierRelease {
                        cycle: now,
                        sm: self.id,
                        slot: bi as u8,
                    });
                }
                for (k, (w, tm)) in self.warps[range.clone()]
                    .iter()
                    .zip(&mut self.timing[range])
                    .enumerate()
                {
                    if w.state == WarpState::Running {
                        tm.next_issue = tm.next_issue.max(now + 1);
                        if tm.bar_since != NEVER {
                            // Waited from its arrival until it may issue again.
                            self.stats.barrier_wait[k.min(MAX_BLOCK_WARPS - 1)] +=
                                now + 1 - tm.bar_since;
                            tm.bar_since = NEVER;
                        }
                    }
                }
                wake = wake.min(now + 1);
                for w in &mut self.wakes[..self.nsched] {
                    *w = (*w).min(now + 1);
                }
                for sc in &mut self.scheds {
                    sc.units = 0;
                    sc.slots_mut().iter_mut().for_each(|t| {
                        t.not_before = t.not_before.min(now + 1);
                        t.unit = Unit::None;
                    });
                }
            }
            b.at_barrier = false;
        }
        wake
    }

    /// Lands every read-only load whose data have arrived by `now`.
    fn land(&mut self, now: u64) {
        let mut next = NEVER;
        for (bi, b) in self.blocks.iter().enumerate() {
            if !b.live {
                continue;
            }
            let range = warps_at(bi, self.wpb);
            for (w, tm) in self.warps[range.clone()]
                .iter_mut()
                .zip(&mut self.timing[range])
            {
                while let Some(p) = tm.tex.front() {
                    if p.at > now {
                        next = next.min(p.at);
                        break;
                    }
                    for k in 0..p.n {
                        w.set_reg(p.reg + k, &p.rows[k as usize], p.mask);
                    }
                    tm.tex.pop_front();
                }
            }
        }
        self.next_land = next;
    }
}

/// A resident block's own memories.
struct BlockMem {
    shared: Vec<u8>,
    /// Local memory of its threads, by thread index.
    local: Vec<u8>,
    /// One lock bit per shared-memory word (`LDSLK`/`STSCUL`).
    locks: Vec<u32>,
}

/// What the executor sees of block `block_idx`'s memories `mem` and the
/// launch, at cycle `now` on SM `sm`.
#[inline]
fn block_env<'a>(
    l: &'a Launch,
    global: &'a mut GlobalMem,
    mem: &'a mut BlockMem,
    block_idx: [u32; 3],
    now: u64,
    sm: u32,
) -> Env<'a> {
    Env {
        prog: l.prog,
        cbank0: l.cbank0,
        global,
        shared: &mut mem.shared,
        local: &mut mem.local,
        local_size: l.prog.local_size,
        block_idx,
        block_dim: l.block_dim,
        grid_dim: l.grid_dim,
        clock: now,
        sm,
        sms: l.config.chip.sms,
        locks: &mut mem.locks,
        pre: None,
        defer_global: false,
    }
}

/// The places of block slot `bi`'s warps among an SM's, `wpb` a block.
fn warps_at(bi: usize, wpb: usize) -> std::ops::Range<usize> {
    bi * wpb..(bi + 1) * wpb
}

/// Warps of a block of `threads` threads.
fn b_warps(threads: u32) -> usize {
    threads.div_ceil(32) as usize
}
