//! The whole chip: the block dispatcher, the SMs, and the cycle loop.
//!
//! The dispatcher computes how many blocks fit on an SM at once (every
//! occupancy limit: blocks, threads, warps, registers in their allocation
//! units, shared memory in its units), hands blocks out in grid order to the
//! SMs in turn until each is full, and gives each freed slot the next block.
//! The SMs of one cycle run in index order: their requests to L2 and DRAM,
//! their accesses to global memory and the blocks they take from the grid go
//! in that order, so a run is deterministic. Two loops keep it
//! ([`Stepping`]): in step, every SM a cycle at a time, skipping cycles in
//! which no SM can do anything; or by turns, each SM running on alone until
//! it reaches an instruction that must wait for the others ([`Info::turn`]:
//! a global access or an `EXIT`), which runs when no SM can still do such a
//! thing at an earlier turn (cycle, then SM index). Nothing else an SM does
//! reads or changes anything outside it, so both give the same results, and
//! by turns each SM's state stays in the host's caches while it runs.
//!
//! [`Info::turn`]: super::pipes::Info::turn

use crate::config::Config;
use crate::func::{build_cbank0, check_launch, Dims, SimError};
use crate::mem::GlobalMem;
use crate::program::Program;
use crate::warp::WarpState;

use super::events::{Observer, Stats};
use super::l2::{MemStats, Memory};
use super::pipes::infos;
use super::sm::{Launch, Sm, Turn, NEVER};

/// A turn no SM reaches: in step, every instruction's turn has come.
const ANY: Turn = (NEVER, u32::MAX);

/// What limits a block's residency, and how many fit on an SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Occupancy {
    pub blocks_per_sm: u32,
    pub warps_per_block: u32,
    /// The limit that binds: "blocks", "threads", "registers" or "shared memory".
    pub limiter: &'static str,
}

/// How many blocks of `dims` fit on one SM.
pub fn occupancy(prog: &Program, dims: &Dims, config: &Config) -> Result<Occupancy, String> {
    let c = &config.chip;
    let t = &config.timing;
    let warps = dims.threads_per_block().div_ceil(32).max(1);
    let mut best = (c.max_blocks_per_sm, "blocks");
    let mut limit = |n: u32, why: &'static str| {
        if n < best.0 {
            best = (n, why);
        }
    };
    limit(c.max_threads_per_sm / (warps * 32), "threads");
    let unit = t.register_unit.max(1);
    let per_warp = (prog.registers.max(1) * 32).div_ceil(unit) * unit;
    limit(c.registers_per_sm / (per_warp * warps), "registers");
    let shared = prog.shared_size + dims.dynamic_shared;
    if shared > 0 {
        let su = t.shared_unit.max(1);
        limit(
            c.shared_per_sm / (shared.div_ceil(su) * su),
            "shared memory",
        );
    }
    if best.0 == 0 {
        return Err(format!(
            "a block of {} threads with {} registers each and {shared} bytes of shared memory does not fit on an SM ({})",
            dims.threads_per_block(),
            prog.registers,
            best.1
        ));
    }
    Ok(Occupancy {
        blocks_per_sm: best.0,
        warps_per_block: warps,
        limiter: best.1,
    })
}

/// What may end a timed run before its grid is done, and who hears how far
/// it has come. The default ends nothing and tells no one: the run is whole.
#[derive(Default)]
pub struct Control<'a> {
    /// Start none of the grid's blocks past its first `max_blocks` (in grid
    /// order): the run ends when they have finished, and is partial when
    /// the grid has more.
    pub max_blocks: Option<u64>,
    /// End the run after this cycle (the SMs step in lockstep to stop
    /// there), with the counters up to it.
    pub until: Option<u64>,
    /// Set from elsewhere (a Ctrl-C handler) to end the run at the next
    /// turn, with the counters so far.
    pub stop: Option<&'a std::sync::atomic::AtomicBool>,
    /// Hears of every block that finishes, once each, in the order the chip
    /// sees them (cycle, then SM), on whichever thread runs the chip's loop
    /// then.
    pub progress: Option<&'a mut (dyn FnMut(&Progress) + Send)>,
    /// Threads to run the SMs on ([`super::threaded`]; 0 or 1: this one).
    /// The results are the same at any count. A run in lockstep (an
    /// observer, [`Control::until`]) takes one.
    pub threads: usize,
}

/// How far a run has come: told to [`Control::progress`] as each block
/// finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Blocks finished, of the `total` the run will run.
    pub done: u64,
    pub total: u64,
    /// Blocks started so far (the finished ones' successors not yet): at
    /// the first block's end, as many as the chip holds at once.
    pub started: u64,
    /// The cycle the last of them finished in.
    pub cycle: u64,
    /// The SM it finished on.
    pub sm: u32,
    /// The block (its coordinates in the grid).
    pub block: [u32; 3],
}

/// Why a run ended before its grid was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Partial {
    /// [`Control::stop`] was set.
    Stopped,
    /// [`Control::until`]: the cycle it ended after.
    Until(u64),
    /// [`Control::max_blocks`]: the blocks it ran, of the grid's.
    Blocks { ran: u64, grid: u64 },
}

impl std::fmt::Display for Partial {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Partial::Stopped => write!(f, "stopped before the grid was done"),
            Partial::Until(c) => write!(f, "ended after cycle {c}"),
            Partial::Blocks { ran, grid } => write!(f, "ran the first {ran} of {grid} blocks"),
        }
    }
}

/// A timed run's results.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Timed {
    /// Cycles from the first block's start to the last block's end (a
    /// partial run: to the last cycle it ran).
    pub cycles: u64,
    /// Why the run ended before its grid was done; `None`: it ran it all.
    pub partial: Option<Partial>,
    /// Blocks finished: all the grid's, unless the run is partial.
    pub blocks_done: u64,
    /// SMs simulated.
    pub sms: u32,
    pub occupancy: Occupancy,
    /// Counters summed over the SMs.
    pub stats: Stats,
    pub mem: MemStats,
    /// Per-SM cycles each SM had work (for the load balance).
    pub busy: Vec<u64>,
}

impl Timed {
    /// Milliseconds at the configured clock.
    pub fn millis(&self, config: &Config) -> f64 {
        self.cycles as f64 / (config.chip.clock_mhz * 1e3)
    }
}

/// How the cycle loop orders the SMs' work (the results are the same).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stepping {
    /// Every SM a cycle at a time.
    Lockstep,
    /// Each SM on alone until an instruction waits for its turn.
    Turns,
}

/// Runs the grid `dims` of `prog` cycle by cycle on the chip `config`
/// describes, with memory `global` (which it changes as the kernel does),
/// the SMs stepped as `stepping` says; always in lockstep when `obs`
/// listens, so that its events come in cycle order.
#[allow(clippy::too_many_arguments)]
pub fn run_timed<O: Observer>(
    stepping: Stepping,
    prog: &Program,
    global: &mut GlobalMem,
    dims: &Dims,
    params: &[u8],
    config: &Config,
    limit: u64,
    obs: &mut O,
) -> Result<Timed, SimError> {
    run_controlled(
        stepping,
        prog,
        global,
        dims,
        params,
        config,
        limit,
        obs,
        &mut Control::default(),
    )
}

/// [`run_timed`] under `ctl`, which may end the run early (the result says
/// why, in [`Timed::partial`]) and hears of each block that finishes. A run
/// with [`Control::until`] steps in lockstep.
#[allow(clippy::too_many_arguments)]
pub fn run_controlled<O: Observer>(
    stepping: Stepping,
    prog: &Program,
    global: &mut GlobalMem,
    dims: &Dims,
    params: &[u8],
    config: &Config,
    limit: u64,
    obs: &mut O,
    ctl: &mut Control,
) -> Result<Timed, SimError> {
    let stepping = if O::ACTIVE || ctl.until.is_some() {
        Stepping::Lockstep
    } else {
        stepping
    };
    check_launch(prog, dims, params, &config.chip)?;
    let occ = occupancy(prog, dims, config).map_err(|why| SimError::BadLaunch {
        kernel: prog.name.clone(),
        why,
    })?;
    let cbank0 = build_cbank0(prog, dims, params);
    let infos = infos(
        prog,
        super::ctrl::Reading::of(&config.timing),
        config.timing.pair_reads_together >= 1,
    );
    let launch = Launch {
        prog,
        infos: &infos,
        cbank0: &cbank0,
        block_dim: dims.block,
        grid_dim: dims.grid,
        config,
        limit,
        ffma: crate::fp::FfmaRows::host(),
        int: crate::exec::IntRoutine::host(),
    };
    let tpb = dims.threads_per_block();
    let grid_blocks = dims.blocks();
    let total = ctl
        .max_blocks
        .map_or(grid_blocks, |m| m.clamp(1, grid_blocks));
    // Never more SMs than blocks need, never more slots than blocks.
    let nsm = (config.chip.sms as u64).min(total).max(1) as u32;
    let slots = (occ.blocks_per_sm as u64)
        .min(total.div_ceil(nsm as u64))
        .max(1) as usize;
    let shared = (prog.shared_size + dims.dynamic_shared) as usize;
    let mut sms: Vec<Sm> = (0..nsm)
        .map(|i| Sm::new(i, &config.timing, prog, slots, occ.warps_per_block, shared))
        .collect();
    let mut mem = Memory::new(&config.timing);
    let mut next = 0u64;
    let block_at = |i: u64| crate::func::block_at(dims.grid, i);
    // The first wave: SMs in turn, one block each, until all are full.
    'fill: loop {
        let mut placed = false;
        for sm in sms.iter_mut() {
            if next == total {
                break 'fill;
            }
            if sm.start(block_at(next), tpb, 0, obs) {
                next += 1;
                placed = true;
            }
        }
        if !placed {
            break;
        }
    }
    let mut grid = Grid {
        next,
        total,
        done: 0,
        end: 0,
        busy: vec![0u64; nsm as usize],
        progress: ctl.progress.take(),
    };
    let stop = ctl.stop;
    let stopped = || stop.is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
    // Where a run that ends early ended.
    let mut partial = match stepping {
        Stepping::Lockstep => lockstep(
            &mut sms, &launch, global, &mut mem, obs, &mut grid, &block_at, tpb, ctl.until,
            &stopped,
        )?,
        // An SM runs on one thread at a time: more threads than SMs would
        // only wait.
        Stepping::Turns if ctl.threads > 1 && nsm > 1 => super::threaded::run(
            ctl.threads.min(nsm as usize),
            &launch,
            &mut sms,
            global,
            &mut mem,
            &mut grid,
            &block_at,
            tpb,
            stop,
        )?,
        Stepping::Turns => turns(
            &mut sms, &launch, global, &mut mem, obs, &mut grid, &block_at, tpb, &stopped,
        )?,
    };
    if partial.is_none() && total < grid_blocks {
        partial = Some(Partial::Blocks {
            ran: total,
            grid: grid_blocks,
        });
    }
    if let Some(p) = grid.progress.take() {
        ctl.progress = Some(p);
    }
    let mut stats = Stats::default();
    for sm in &sms {
        stats.add(&sm.stats);
    }
    Ok(Timed {
        cycles: grid.end + 1,
        partial,
        blocks_done: grid.done,
        sms: nsm,
        occupancy: occ,
        stats,
        mem: mem.stats,
        busy: grid.busy,
    })
}

/// Steps every SM a cycle at a time (past the cycles all of them sleep
/// through) until the grid is done, `until` is passed or `stopped` says so;
/// gives why it ended early, if it did.
#[allow(clippy::too_many_arguments)]
fn lockstep<O: Observer>(
    sms: &mut [Sm],
    launch: &Launch,
    global: &mut GlobalMem,
    mem: &mut Memory,
    obs: &mut O,
    grid: &mut Grid,
    block_at: &impl Fn(u64) -> [u32; 3],
    tpb: u32,
    until: Option<u64>,
    stopped: &dyn Fn() -> bool,
) -> Result<Option<Partial>, SimError> {
    let mut finished = Vec::with_capacity(16);
    // The last cycle to run: a run that ends after a cycle steps to
    // it even when every SM sleeps past it, and ticks the sleeping
    // SMs there too, so their stalls count up to it (a tick before
    // an SM's wake issues nothing: it counts the stalls its
    // schedulers wait out, the same that a later tick would).
    let last = until.unwrap_or(NEVER);
    let mut now = 0u64;
    loop {
        if until.is_some_and(|u| now > u) {
            grid.end = until.unwrap_or(now);
            return Ok(until.map(Partial::Until));
        }
        if stopped() {
            grid.end = grid.end.max(now.saturating_sub(1));
            return Ok(Some(Partial::Stopped));
        }
        for (i, sm) in sms.iter_mut().enumerate() {
            if sm.wake > now && (now != last || sm.wake == NEVER) {
                continue;
            }
            finished.clear();
            sm.tick(now, launch, global, mem, obs, &mut finished, ANY)?;
            grid.ran(i, sm, now, &finished, block_at, tpb, obs);
        }
        if grid.done == grid.total {
            break;
        }
        let wake = sms.iter().map(|s| s.wake).min().unwrap_or(NEVER);
        if wake == NEVER {
            return Err(stuck(launch.prog, &sms.iter().collect::<Vec<_>>()));
        }
        now = match wake.max(now + 1) {
            next if now < last => next.min(last),
            next => next,
        };
    }
    Ok(None)
}

/// Runs the SMs by turns on this thread until the grid is done or `stopped`
/// says so; gives why it ended early, if it did.
#[allow(clippy::too_many_arguments)]
fn turns<O: Observer>(
    sms: &mut [Sm],
    launch: &Launch,
    global: &mut GlobalMem,
    mem: &mut Memory,
    obs: &mut O,
    grid: &mut Grid,
    block_at: &impl Fn(u64) -> [u32; 3],
    tpb: u32,
    stopped: &dyn Fn() -> bool,
) -> Result<Option<Partial>, SimError> {
    let mut finished = Vec::with_capacity(16);
    // An SM that failed, and the cycle it failed in, which stays its
    // turn: the run's error is the first in turn.
    let mut failed: Vec<Option<(u64, SimError)>> = (0..sms.len()).map(|_| None).collect();
    loop {
        // The SM whose turn comes first runs until it waits for its
        // next turn behind another SM's.
        let mut first = (NEVER, u32::MAX);
        let mut allow = (NEVER, u32::MAX);
        for (sm, f) in sms.iter().zip(&failed) {
            let turn = f.as_ref().map_or(sm.next_turn(), |f| (f.0, sm.id));
            if turn < first {
                (first, allow) = (turn, first);
            } else if turn < allow {
                allow = turn;
            }
        }
        if first.0 == NEVER {
            break;
        }
        if stopped() {
            grid.end = grid.end.max(first.0.saturating_sub(1));
            return Ok(Some(Partial::Stopped));
        }
        let i = first.1 as usize;
        if let Some((_, e)) = failed[i].take() {
            return Err(e);
        }
        let sm = &mut sms[i];
        loop {
            finished.clear();
            // Its blocks stay resident until a tick finishes one.
            let resident = sm.resident();
            match sm.run(launch, global, mem, obs, &mut finished, allow) {
                Ok(r) => {
                    if r.quiet != NEVER && resident > 0 {
                        grid.busy[i] = r.quiet + 1;
                    }
                    if r.finished != NEVER {
                        grid.ran(i, sm, r.finished, &finished, block_at, tpb, obs);
                    } else {
                        break;
                    }
                }
                Err((t, e)) => {
                    // Other SMs may still fail at an earlier turn.
                    failed[i] = Some((t, e));
                    break;
                }
            }
        }
    }
    if grid.done < grid.total {
        return Err(stuck(launch.prog, &sms.iter().collect::<Vec<_>>()));
    }
    Ok(None)
}

/// The grid's blocks as the SMs take and finish them.
pub(super) struct Grid<'a> {
    /// The next block to start.
    pub next: u64,
    pub total: u64,
    pub done: u64,
    /// The last cycle a block finished in.
    pub end: u64,
    /// Per SM, the cycle after the last it had a block resident in.
    pub busy: Vec<u64>,
    /// Hears of each block that finishes.
    pub progress: Option<&'a mut (dyn FnMut(&Progress) + Send)>,
}

impl Grid<'_> {
    /// SM `i` ran cycle `t`, in which blocks `finished` finished: their slots
    /// take the grid's next blocks (`block_at` places them; `tpb` threads
    /// each).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ran<O: Observer>(
        &mut self,
        i: usize,
        sm: &mut Sm,
        t: u64,
        finished: &[[u32; 3]],
        block_at: &impl Fn(u64) -> [u32; 3],
        tpb: u32,
        obs: &mut O,
    ) {
        if !finished.is_empty() {
            self.end = self.end.max(t);
        }
        for &block in finished {
            self.done += 1;
            if let Some(p) = self.progress.as_mut() {
                p(&Progress {
                    done: self.done,
                    total: self.total,
                    started: self.next,
                    cycle: t,
                    sm: i as u32,
                    block,
                });
            }
        }
        for _ in 0..finished.len() {
            if self.next < self.total && sm.start(block_at(self.next), tpb, t + 1, obs) {
                self.next += 1;
            }
        }
        if sm.resident() > 0 {
            self.busy[i] = t + 1;
        }
    }
}

/// The error for a chip on which nothing can happen any more: a block whose
/// live warps all wait at a barrier that will never release.
pub(super) fn stuck(prog: &Program, sms: &[&Sm]) -> SimError {
    let live = sms.iter().flat_map(|sm| {
        sm.blocks
            .iter()
            .enumerate()
            .filter(|(_, b)| b.live)
            .map(move |(bi, b)| (b, sm.warps_of(bi)))
    });
    if let Some((b, warps)) = live.into_iter().next() {
        {
            let mut waiting = Vec::new();
            for w in warps {
                if let WarpState::Barrier { id, .. } = w.state {
                    let pc = (w.pc as u64).saturating_sub(1) * 8;
                    waiting.push(format!("warp {} at barrier {id} (near {pc:#06x})", w.id));
                }
            }
            let exited = warps.iter().filter(|w| w.state == WarpState::Done).count();
            return SimError::Deadlock {
                kernel: prog.name.clone(),
                block: b.idx,
                why: format!(
                    "a barrier that not every thread reaches: {}; {exited} of {} warps have exited",
                    waiting.join(", "),
                    warps.len()
                ),
            };
        }
    }
    SimError::Deadlock {
        kernel: prog.name.clone(),
        block: [0; 3],
        why: "no SM can make progress".into(),
    }
}
