//! One streaming multiprocessor: its resident blocks and their warps, four warp
//! schedulers with two dispatch units each, the 32-lane core groups (one per
//! scheduler, two shared by the scheduler pairs 0/1 and 2/3), the SFU and FP64
//! units, the load/store units and shared memory, the register banks' operand
//! collector, and each warp's scoreboard and read-only-load barrier.
//!
//! Each cycle (`tick`) the SM first lands read-only loads whose data arrive,
//! releases barriers whose warps have all arrived, then lets each scheduler
//! issue in index order: of a pair of schedulers, the lower one wins the shared
//! core group when both want it (the loser's pair splits and its warp shifts
//! by a cycle, so the two settle into turns; the dual-issue rate of the
//! microbenchmarks comes out at 187 of 192 lanes, measured 186). A scheduler with bank-conflict debt of a
//! cycle or more loses that cycle. An issued instruction runs at once through
//! the functional executor (`exec`), which keeps values and time together:
//! results of scoreboarded instructions cannot be read before they are ready,
//! and an LDG's value is held back and written when its data arrive, so a
//! reader not protected by `TEXDEPBAR` sees the old value, as on hardware.
//!
//! A tick may stop before an instruction that must take its turn among the
//! SMs (a global access or an `EXIT`, [`Info::turn`]) and go on from there
//! in a later call: the chip's loop runs each SM alone until then
//! ([`super::gpu::Stepping`]).

use std::collections::VecDeque;

use crate::config::{Config, Timing};
use crate::exec::{addresses, exec, exec_shared, ffma3, guard_mask, next_slot, Env};
use crate::func::{exec_fault, fault, release_barriers, SimError};
use crate::mem::{GlobalMem, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::op::{Kind, Space};
use crate::program::Program;
use crate::warp::{Warp, WarpState};

use super::cache::Tags;
use super::ceil_u64;
use super::collector::issue_degree;
use super::ctrl::Ctrl;
use super::events::{Event, Observer, Stall, Stats, MAX_BLOCK_WARPS};
use super::l2::{Memory, Path, Slots};
use super::lsu::{global_lines, shared_transactions_with_bytes, transactions_with_bytes};
use super::pipes::{Info, Latency, Pipe, Unit};

/// A never-reached cycle.
pub const NEVER: u64 = u64::MAX;

/// The landing cycle of a read-only load not yet timed (a threaded run:
/// [`Request`]): later than any cycle the SM runs before it is, and so
/// fixed before anything reads it ([`Sm::apply`]).
const UNTIMED: u64 = NEVER - 1;

/// A read-only load's value, held until its data arrive.
#[derive(Clone, Copy)]
struct Pending {
    at: u64,
    /// Its own landing, before it was held back behind the load before it.
    own: u64,
    reg: u8,
    n: u8,
    mask: u32,
    /// Not yet timed or read: `at` is [`UNTIMED`] and `rows` empty until
    /// its [`Resolved`] comes.
    open: bool,
    rows: [[u32; 32]; 4],
}

/// An `LDG` an SM running alone on a worker thread issued, kept for its
/// turn: its data are read and its lines timed through L2 later, in the
/// order of the chip's other global accesses ((cycle, SM), then issue
/// order), by [`resolve`].
pub struct Request {
    /// The cycle it issued in, and the SM.
    pub cycle: u64,
    pub sm: u32,
    /// The earliest cycle its data can land: the SM must not run that cycle
    /// before the load is resolved and applied.
    pub due: u64,
    /// The warp's place in the SM's warps; whether a [`Pending`] waits for
    /// it (an `LDG` to `RZ` has none).
    wi: usize,
    pending: bool,
    pc: u32,
    who: crate::func::Who,
    mask: u32,
    addrs: [u64; 32],
    /// Its landing as far as the SM's read-only cache knows it (the issue
    /// cycle, or later for lines that hit).
    ready: u64,
    /// Its lines that missed the read-only cache, or a store's lines:
    /// (line, sectors).
    misses: Lines,
    /// A store's data: a row of each register it writes.
    stored: Option<Box<[[u32; 32]; 4]>>,
    /// A load through L2 (`LD`): the registers it writes (the first, and
    /// how many), on the scoreboard until it is applied.
    load: Option<(u8, u8)>,
}

impl Resolved {
    /// The cycle its data land (`NEVER`: a store's, which land nowhere).
    pub fn lands(&self) -> u64 {
        self.at
    }
}

/// A request's lines, (line, sectors): up to four in place (an `LDG.128`
/// of a warp along one row takes four), more on the heap. Kept off the
/// heap because a request is made on one thread and done on another.
#[derive(Default)]
struct Lines {
    n: u8,
    few: [(u64, u32); 4],
    more: Vec<(u64, u32)>,
}

impl Lines {
    fn push(&mut self, l: (u64, u32)) {
        match self.n {
            0..=3 => self.few[self.n as usize] = l,
            4 => {
                self.more.extend_from_slice(&self.few);
                self.more.push(l);
            }
            _ => self.more.push(l),
        }
        self.n = self.n.saturating_add(1);
    }

    fn is_empty(&self) -> bool {
        self.n == 0
    }

    fn as_slice(&self) -> &[(u64, u32)] {
        if self.n <= 4 {
            &self.few[..self.n as usize]
        } else {
            &self.more
        }
    }
}

/// A [`Request`] done: when its data land, and what they are.
pub struct Resolved {
    wi: usize,
    pending: bool,
    /// An `LD`'s registers (first, count) and lanes.
    load: Option<(u8, u8, u32)>,
    at: u64,
    rows: [[u32; 32]; 4],
}

/// Reads or writes and times `r` (its data in `global`, its lines through
/// `mem` and the SM's read-only and L2 request slots `slots`, `ld_slots`):
/// what the SM's issue of it would have done had the chip's memory been at
/// hand, with the same error for an access that faults.
pub fn resolve(
    r: &Request,
    l: &Launch,
    global: &mut GlobalMem,
    mem: &mut Memory,
    slots: &mut Slots,
    ld_slots: &mut Slots,
) -> Result<Resolved, SimError> {
    let prog = l.prog;
    let Some(Kind::Ld { space, w: width } | Kind::St { space, w: width }) =
        prog.ops.get(r.pc as usize).map(|op| op.kind)
    else {
        unreachable!("only an LDG or a global store is deferred");
    };
    let (mut shared, mut local, mut locks) = ([0u8; 0], [0u8; 0], [0u32; 0]);
    let mut env = Env {
        prog,
        cbank0: l.cbank0,
        global,
        shared: &mut shared,
        local: &mut local,
        local_size: prog.local_size,
        block_idx: r.who.block,
        block_dim: l.block_dim,
        grid_dim: l.grid_dim,
        clock: r.cycle,
        sm: r.sm,
        sms: l.config.chip.sms,
        locks: &mut locks,
        pre: None,
        defer_global: false,
    };
    let fault = |e| crate::func::exec_fault_of(prog, &r.who, r.pc, e);
    if let Some(rows) = &r.stored {
        crate::exec::store_rows(&mut env, space, r.who.warp, &r.addrs, r.mask, width, rows)
            .map_err(fault)?;
        for &(line, sectors) in r.misses.as_slice() {
            mem.write(r.cycle, line, sectors);
        }
        return Ok(Resolved {
            wi: r.wi,
            pending: false,
            load: None,
            at: NEVER,
            rows: [[0; 32]; 4],
        });
    }
    let rows = crate::exec::load_rows(&mut env, space, r.who.warp, &r.addrs, r.mask, width)
        .map_err(fault)?;
    let (path, slots) = match r.load {
        Some(_) => (Path::L2, ld_slots),
        None => (Path::ReadOnly, slots),
    };
    let mut at = r.ready;
    for &(line, sectors) in r.misses.as_slice() {
        at = at.max(mem.read(r.cycle, line, sectors, path, slots));
    }
    // The SM ran on to `due`, sure that nothing lands before it.
    assert!(at >= r.due, "a load landed before its due cycle");
    Ok(Resolved {
        wi: r.wi,
        pending: r.pending,
        load: r.load.map(|(reg, n)| (reg, n, r.mask)),
        at,
        rows,
    })
}

/// A warp's timing state beside its functional state: what the scheduler
/// reads of it for each warp it considers first, in one 64-byte line, and
/// the registers' ready times in the same allocation (`repr(C)` keeps that
/// order, the alignment the line).
#[derive(Clone)]
#[repr(C, align(64))]
pub struct WarpTiming {
    /// The earliest cycle the control codes let the next instruction issue.
    next_issue: u64,
    /// The 64-byte group in the warp's instruction buffer, and the cycle it
    /// arrives.
    group: u32,
    fetched: u64,
    /// The scoreboard's answer for the instruction at slot `sb_pc`: the cycle
    /// its registers are ready (`u32::MAX`: not worked out), and the last
    /// cycle a register it reads is written. Only this warp's issues change
    /// its scoreboard, and each issue clears it.
    sb_pc: u32,
    sb_at: u64,
    sb_read: u64,
    sched: u8,
    /// Whether `next_issue` is the interlock's hold, not the control code's.
    interlocked: bool,
    /// The cycle from which the wait until `next_issue` is a bank conflict
    /// holding the warp (`conflict_holds_warp`), not the control code
    /// (`NEVER`: no such hold).
    held_from: u64,
    /// Registers whose `ready` time is an ALU result's, which the scoreboard
    /// does not hold instructions back for: a read before it is caught by
    /// the hardware's interlock instead, which holds the reader back
    /// `interlock_cycles`.
    alu: [u64; 4],
    /// The cycle the warp arrived at the barrier it waits at (`NEVER`: none).
    bar_since: u64,
    /// The cycle since which the warp's next instruction has waited for the
    /// SM's load/store unit, or for its texture pipeline, finding it busy
    /// (`NEVER`: it is not waiting; its next issue ends the wait).
    unit_wait: [u64; 2],
    /// Read-only loads not yet landed, in issue order.
    tex: VecDeque<Pending>,
    /// The cycle each register's last result is ready.
    ready: [u64; 256],
}

// The fields the scan reads fit the first line.
const _: () = assert!(std::mem::offset_of!(WarpTiming, sb_read) + 8 <= 64);

impl WarpTiming {
    fn new() -> WarpTiming {
        WarpTiming {
            next_issue: 0,
            ready: [0; 256],
            alu: [0; 4],
            bar_since: NEVER,
            unit_wait: [NEVER; 2],
            tex: VecDeque::with_capacity(16),
            sched: 0,
            interlocked: false,
            held_from: NEVER,
            group: u32::MAX,
            fetched: 0,
            sb_pc: u32::MAX,
            sb_at: 0,
            sb_read: 0,
        }
    }

    fn reset(&mut self, now: u64, sched: u8) {
        self.next_issue = now;
        self.ready.fill(0);
        self.alu = [0; 4];
        self.bar_since = NEVER;
        self.unit_wait = [NEVER; 2];
        self.interlocked = false;
        self.held_from = NEVER;
        self.tex.clear();
        self.sched = sched;
        self.group = u32::MAX;
        self.fetched = now;
        self.sb_pc = u32::MAX;
    }
}

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

/// The most warps' operands a scheduler's collector keeps for reuse (the
/// bound of `timing.reuse_warps`).
const MAX_KEPT: usize = 8;

/// One warp's last issue, as the operand collector keeps it for reuse.
#[derive(Clone, Copy)]
struct Kept {
    /// (block slot, warp index).
    warp: (u8, u8),
    /// The slot of the instruction (the second of a pair).
    last: u32,
    /// The registers it read, padded with RZ (never read).
    reads: [u8; 8],
}

/// The most warp schedulers an SM has (the configuration's limit).
const MAX_SCHEDULERS: usize = 4;

/// A warp scheduler.
struct Scheduler {
    /// Its warps, in the order it considers them: the first `nslots`, in an
    /// array of its own so that finding one loads no pointer.
    slots: [Slot; MAX_WARPS],
    nslots: usize,
    /// Index in `warps` of the warp issued last (loose round robin).
    last: usize,
    /// Issue cycles owed to register bank conflicts.
    debt: f64,
    /// The first cycle it may dispatch again after handing an `LDG` to the
    /// texture pipeline (`ldg_issue_cycles`).
    ldg_until: u64,
    sfu_free: u64,
    fp64_free: u64,
    /// The operand collector: what it keeps for reuse, the last issue of
    /// each of the last warps that issued, the latest first
    /// (`timing.reuse_warps`; under 0 only the first counts, and only the
    /// cycle after), and how many it holds.
    kept: [Kept; MAX_KEPT],
    nkept: usize,
    /// The cycle it issued last.
    prev_cycle: u64,
    /// Why it issued nothing in its last cycle (charged again for the cycles
    /// the SM skips), and the slot of the instruction that gave the reason
    /// (`u32::MAX`: none).
    reason: Option<Stall>,
    reason_pc: u32,
    /// The slot of the instruction it issued last (its bank conflict debt's).
    last_pc: u32,
    /// After a cycle it issued nothing in: the units its warps that wait
    /// only for a busy unit wait for (bits by [`Unit`]), and the earliest
    /// cycle any other warp may issue. While each of those units is busy
    /// and that cycle has not come, asking it again would only find the
    /// same ([`Sm::tick`]).
    units: u8,
    others: u64,
}

impl Scheduler {
    fn new() -> Scheduler {
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
            ldg_until: 0,
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
            last_pc: u32::MAX,
            units: 0,
            others: 0,
        }
    }

    /// Its warps.
    fn slots_mut(&mut self) -> &mut [Slot] {
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
struct Slot {
    not_before: u64,
    block: u8,
    /// The warp's place in the SM's warps.
    warp: u8,
    why: Stall,
    unit: Unit,
}

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

    /// Makes this SM one of a threaded run ([`Sm::defer`]), whose
    /// read-only and L2 request slots the chip's loop keeps (it times the
    /// SM's loads, and lends the L2 ones back for an instruction's turn:
    /// [`Sm::lend`]): slots as the SM's are at the start, `t`'s, allocated
    /// apart from the SM's memory (the chip's loop writes them while a
    /// worker runs the SM).
    pub fn deferring(&mut self, t: &Timing) -> (Slots, Slots) {
        debug_assert!(self.last_tick.is_none(), "a threaded run starts the SM");
        self.defer = true;
        (Slots::new(t.ldg_outstanding), Slots::new(t.ld_outstanding))
    }

    /// Swaps the SM's L2 request slots with `slots`: the chip's loop lends
    /// them for an instruction's turn and takes them back after.
    pub fn lend(&mut self, slots: &mut Slots) {
        std::mem::swap(&mut self.ld_slots, slots);
    }

    /// Whether the last tick stopped before an instruction that waits for
    /// its turn.
    pub fn paused(&self) -> bool {
        self.paused.is_some()
    }

    /// The earliest cycle an access issued since the last
    /// [`Sm::take_requests`] may land in (`NEVER`: none issued).
    pub fn requests_due(&self) -> u64 {
        self.requests.iter().map(|r| r.due).min().unwrap_or(NEVER)
    }

    /// The `LDG`s issued since the last call, in issue order.
    pub fn take_requests(&mut self, into: &mut Vec<Request>) {
        into.append(&mut self.requests);
    }

    /// Fills in loads this SM issued in a threaded run, resolved in order
    /// ([`resolve`]): each lands when it would have, had it been timed at
    /// issue, and every cycle worked out from the unknown landing
    /// ([`UNTIMED`]: a `TEXDEPBAR`'s wait, the schedulers' and the SM's
    /// wakes) is worked out again.
    pub fn apply(&mut self, l: &Launch, done: &[Resolved]) {
        for r in done {
            if let Some((reg, n, mask)) = r.load {
                let (w, tm) = (&mut self.warps[r.wi], &mut self.timing[r.wi]);
                for k in 0..n {
                    if reg != 255 {
                        w.set_reg(reg + k, &r.rows[k as usize], mask);
                    }
                    tm.ready[reg.wrapping_add(k) as usize] = r.at;
                }
                tm.sb_pc = u32::MAX;
            }
        }
        // The earliest landing fixed: the SM must tick then.
        let mut fixed = NEVER;
        for r in done.iter().filter(|r| r.pending) {
            let tex = &mut self.timing[r.wi].tex;
            let k = tex
                .iter()
                .position(|p| p.open)
                .expect("a pending load waits for its request");
            // Held back behind the load before it, as at issue, and so
            // are the loads after it up to the next one not resolved.
            let at = if k > 0 { tex[k - 1].at.max(r.at) } else { r.at };
            let p = &mut tex[k];
            (p.at, p.own, p.open) = (at, r.at, false);
            // Only its registers' rows: the rest were never written (and
            // would cross from the thread that resolved it for nothing).
            p.rows[..p.n as usize].copy_from_slice(&r.rows[..p.n as usize]);
            fixed = fixed.min(at);
            for j in k + 1..tex.len() {
                if tex[j].open {
                    break;
                }
                tex[j].at = tex[j - 1].at.max(tex[j].own);
            }
        }
        let mut next = NEVER;
        for (bi, b) in self.blocks.iter().enumerate() {
            if b.live {
                for tm in &self.timing[warps_at(bi, self.wpb)] {
                    if let Some(p) = tm.tex.front() {
                        next = next.min(p.at);
                    }
                }
            }
        }
        self.next_land = next;
        let mut wake = self.wake.min(fixed);
        for s in 0..self.nsched {
            let mut low = NEVER;
            for i in 0..self.scheds[s].nslots {
                let sl = self.scheds[s].slots[i];
                if sl.not_before != UNTIMED {
                    continue;
                }
                // A `TEXDEPBAR` waits for an LDG's landing, anything else
                // on the scoreboard for an LD's registers.
                let wi = sl.warp as usize;
                let tm = &self.timing[wi];
                let info = &l.infos[self.warps[wi].pc as usize];
                let at = match (sl.why, info.texdepbar) {
                    (Stall::Texture, Some(n)) => tm.tex[tm.tex.len() - n as usize - 1].at,
                    (Stall::Dependency, _) => scoreboard(tm, info).0,
                    _ => unreachable!("only a load's landing is not known"),
                };
                self.scheds[s].slots[i].not_before = at;
                low = low.min(at);
            }
            if low != NEVER {
                let sc = &mut self.scheds[s];
                sc.others = sc.others.min(low);
                self.wakes[s] = self.wakes[s].min(low);
                wake = wake.min(self.wakes[s]);
            }
        }
        self.wake = wake;
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
            None => (0, self.begin(now, obs), false),
        };
        // 3. The schedulers, each pair in its order (the first visited wins
        // the pair's shared core group when both want it), the pairs in turn
        // (the first visited wins the SM's load/store unit when both want it).
        for k in first..self.nsched {
            let s = self.sched_at(k, now & l.config.timing.pair_rotation as u64);
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
                    self.stats.stall[r as usize] += 1;
                    self.stats.sched_stall[s][r as usize] += 1;
                    if O::ACTIVE {
                        obs.event(Event::Stall {
                            cycle: now,
                            sm: self.id,
                            sched: s as u8,
                            why: r,
                            pc: self.scheds[s].reason_pc,
                            cycles: 1,
                        });
                    }
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

    /// The scheduler visited `k`-th in a cycle: pair 0 first, or pair 1 when
    /// `odd` is 1 (of four schedulers), each pair's two in the order
    /// `pair_first` says.
    #[inline]
    fn sched_at(&self, k: usize, odd: u64) -> usize {
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
                for (s, sc) in self.scheds[..self.nsched].iter().enumerate() {
                    if let Some(r) = sc.reason {
                        self.stats.stall[r as usize] += gap;
                        self.stats.sched_stall[s][r as usize] += gap;
                        if O::ACTIVE {
                            obs.event(Event::Stall {
                                cycle: last + 1,
                                sm: self.id,
                                sched: s as u8,
                                why: r,
                                pc: sc.reason_pc,
                                cycles: gap,
                            });
                        }
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

    /// Lets scheduler `s` issue at `now`, its policy greedy (`GREEDY`) or
    /// loose round robin. Returns the earliest cycle it may
    /// issue again and whether a warp's state changed (exit or barrier), or
    /// nothing when the warp it found ready waits for its turn (before
    /// `allow`; see [`Sm::tick`]), recorded in `paused`.
    #[allow(clippy::too_many_arguments)]
    fn schedule<O: Observer, const GREEDY: bool>(
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
        // A cycle the scheduler owes: an LDG's hold, or bank conflict debt.
        let owed = if now < self.scheds[s].ldg_until {
            Some(Stall::PipeBusy)
        } else if self.scheds[s].debt >= 1.0 {
            self.scheds[s].debt -= 1.0;
            Some(Stall::BankConflict)
        } else {
            None
        };
        if let Some(why) = owed {
            self.stats.stall[why as usize] += 1;
            self.stats.sched_stall[s][why as usize] += 1;
            if O::ACTIVE {
                obs.event(Event::Stall {
                    cycle: now,
                    sm: self.id,
                    sched: s as u8,
                    why,
                    pc: self.scheds[s].last_pc,
                    cycles: 1,
                });
            }
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
        let mut at = start;
        for _ in 0..nw {
            if slots[at].why != Stall::Idle {
                reason = slots[at].why;
                reason_pc = self.warps[slots[at].warp as usize].pc;
                break;
            }
            at = next(at);
        }
        self.stats.stall[reason as usize] += 1;
        self.stats.sched_stall[s][reason as usize] += 1;
        let sc = &mut self.scheds[s];
        (sc.reason, sc.units, sc.others) = (Some(reason), units, others);
        sc.reason_pc = reason_pc;
        if O::ACTIVE {
            obs.event(Event::Stall {
                cycle: now,
                sm: self.id,
                sched: s as u8,
                why: reason,
                pc: reason_pc,
                cycles: 1,
            });
        }
        Ok(Some((wake, false)))
    }

    /// Whether warp `wi`'s next instruction (of block slot `bi`) is a load
    /// or store through generic addresses whose active lanes all address
    /// global memory ([`global_only`]).
    fn global_only(&mut self, wi: usize, bi: usize, now: u64, l: &Launch) -> bool {
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
    fn ready(
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
    fn operands_ready(
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
    fn gates(
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
    fn note_wait(&mut self, wi: usize, unit: Unit, now: u64) {
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
    fn yields(&mut self, s: usize, wi: usize, now: u64, l: &Launch) -> bool {
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
        let odd = now & l.config.timing.pair_rotation as u64;
        let pos = |x: usize| (0..self.nsched).position(|k| self.sched_at(k, odd) == x);
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

    /// The cycle `unit` of scheduler `s` is free.
    #[inline]
    fn unit_free(&self, s: usize, unit: Unit) -> u64 {
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

    /// Issues the warp in slot `i` of scheduler `s` (warp `wi` of block slot
    /// `bi`), found ready at `now`: its next instruction, and the one after
    /// it when the control byte asks for a pair and the pair is legal.
    /// Returns [`Sm::schedule`]'s answer.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn issue<O: Observer>(
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
        self.one(s, bi, wi, now, l, global, mem, obs)?;
        // `one` ran it, so the slot exists.
        let first = &l.infos[pc as usize];
        self.timing[wi].unit_wait = [NEVER; 2];
        let mut last = first;
        let mut dual = false;
        let w = &self.warps[wi];
        if asks_pair(t, pc, first) && w.state == WarpState::Running && w.pc == next_slot(pc) {
            if let Some(second) = l.infos.get(w.pc as usize) {
                if self.pairs(s, wi, first, second, now, t.shared_group_arbitration >= 1) {
                    if first.pipe == Pipe::Core && second.pipe == Pipe::Core {
                        self.group_taken[s / 2 % 2] = now;
                    }
                    self.one(s, bi, wi, now, l, global, mem, obs)?;
                    last = second;
                    dual = true;
                }
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
                issue_degree(first.reads(), first.may_conflict, second, &sc.kept[i].reads)
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
    fn pair_broken(&mut self, s: usize, wi: usize, now: u64, l: &Launch) -> bool {
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

    /// Whether `second` may issue with `first` in this cycle. When the pair
    /// of schedulers' shared core group was taken by the other one in this
    /// cycle, `alternate` makes this scheduler the first visited (and so the
    /// winner) at the pair's next conflict.
    fn pairs(
        &mut self,
        s: usize,
        wi: usize,
        first: &Info,
        second: &Info,
        now: u64,
        alternate: bool,
    ) -> bool {
        if super::pipes::may_pair(first, second).is_err() {
            return false;
        }
        if first.pipe == Pipe::Core
            && second.pipe == Pipe::Core
            && self.group_taken[s / 2 % 2] == now
        {
            if alternate {
                self.pair_first[s / 2 % 2] = (s & 1) as u8;
            }
            return false;
        }
        let tm = &self.timing[wi];
        // A second instruction that reads an ALU result not yet written
        // would be held back by the interlock: it issues alone, later.
        if second.pipe != Pipe::Lsu && scoreboard(tm, second).1 > now {
            return false;
        }
        self.operands_ready(s, tm, second, now).is_ok()
    }

    /// Executes one instruction of warp `wi` (of block slot `bi`) and times it.
    #[allow(clippy::too_many_arguments)]
    #[allow(clippy::too_many_arguments)]
    fn one<O: Observer>(
        &mut self,
        s: usize,
        bi: usize,
        wi: usize,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
    ) -> Result<(), SimError> {
        let t = &l.config.timing;
        let prog = l.prog;
        let sm = self.id;
        let b = &mut self.blocks[bi];
        let w = &mut self.warps[wi];
        let tm = &mut self.timing[wi];
        let pc = w.pc;
        tm.sb_pc = u32::MAX;
        let (Some(op), Some(info)) = (prog.ops.get(pc as usize), l.infos.get(pc as usize)) else {
            let env = block_env(l, global, &mut b.mem, b.idx, now, sm);
            return Err(fault(
                prog,
                &env,
                w,
                pc,
                None,
                "the warp ran past the end of the code".into(),
            ));
        };
        b.executed += 1;
        self.stats.thread_instructions += w.active.count_ones() as u64;
        if info.fp32 {
            let per_lane = if matches!(op.kind, Kind::FFma { .. }) {
                2
            } else {
                1
            };
            self.stats.flops_sp += per_lane * (w.active & guard_mask(w, op)).count_ones() as u64;
        }
        if b.executed > l.limit {
            return Err(SimError::Limit {
                kernel: prog.name.clone(),
                block: b.idx,
                limit: l.limit,
            });
        }
        // A read of a register an LDG has not yet written reads its old value.
        if !tm.tex.is_empty()
            && info.reads().iter().any(|&r| {
                tm.tex
                    .iter()
                    .any(|p| (p.reg as u32..p.reg as u32 + p.n as u32).contains(&(r as u32)))
            })
        {
            self.stats.hazards += 1;
        }
        // The kernels' address arithmetic: no memory, no branch, a fixed
        // latency.
        if let Some(f) = info.int {
            if l.int.run(op, f, w, prog, l.cbank0) {
                self.stats.warp_instructions += 1;
                self.stats.fp32 += info.fp32 as u64;
                write_ready(tm, info, now, now, t);
                return Ok(());
            }
        }
        // The kernels' FFMA: no memory, no branch, a fixed latency.
        if info.ffma && ffma3(op, w, l.ffma) {
            self.stats.warp_instructions += 1;
            self.stats.fp32 += info.fp32 as u64;
            write_ready(tm, info, now, now, t);
            return Ok(());
        }
        // The kernels' LDS/STS: run, addressed and timed in one pass.
        if info.pipe == Pipe::Lsu {
            let mut a32 = [0u32; 32];
            if let Some((mask, size, shape)) = exec_shared(op, w, &mut b.mem.shared, &mut a32) {
                self.stats.warp_instructions += 1;
                let (tx, bytes) = transactions_with_bytes(
                    shape,
                    &a32,
                    mask,
                    size,
                    t.shared_bank_bytes,
                    t.shared_transaction_bytes,
                );
                self.lsu.free = now + 1;
                let ready = self.lsu.shared(now, tx, bytes, t, &mut self.stats);
                shared_counts(&mut self.stats, op, mask, size, tx);
                write_ready(&mut self.timing[wi], info, now, ready, t);
                if O::ACTIVE {
                    obs.event(Event::Shared {
                        cycle: now,
                        sm,
                        sched: s as u8,
                        slot: bi as u8,
                        warp: (wi - bi * self.wpb) as u8,
                        pc,
                        transactions: tx,
                        ready,
                    });
                }
                return Ok(());
            }
        }
        let mut env = block_env(l, global, &mut b.mem, b.idx, now, sm);
        // The lanes and addresses of a memory access, before it runs.
        let mask = w.active & guard_mask(w, op);
        let access = match op.kind {
            Kind::Ld { space, w: width } | Kind::St { space, w: width } => {
                addresses(w, op, space, &env)
                    .ok()
                    .map(|a| (a, space, width.bytes()))
            }
            Kind::Atom { space, ty, .. } => addresses(w, op, space, &env).ok().map(|a| {
                (
                    a,
                    space,
                    if matches!(ty, crate::op::AtomType::U64 | crate::op::AtomType::S64) {
                        8
                    } else {
                        4
                    },
                )
            }),
            Kind::LdsLk { wide } | Kind::StsCul { wide } => addresses(w, op, Space::Shared, &env)
                .ok()
                .map(|a| (a, Space::Shared, if wide { 8 } else { 4 })),
            _ => None,
        };
        if matches!(op.kind, Kind::Ld { .. } | Kind::St { .. }) {
            env.pre = access.as_ref().map(|a| &a.0);
        }
        // An LDG of a threaded run, or a store to global memory alone: its
        // data and lines wait for their turn (one with no lane active reads,
        // writes and times nothing).
        let generic = self.defer
            && matches!(op.kind, Kind::Ld { .. } | Kind::St { .. })
            && matches!(&access, Some((a, Space::Generic, _)) if global_only(mask, a));
        let store_rows = match op.kind {
            Kind::St { w: width, .. } if generic => Some(crate::exec::stored_rows(op, w, width)),
            _ => None,
        };
        let defer = self.defer && info.lat == Latency::Texture && mask != 0 || generic;
        env.defer_global = defer;
        let tex = info.lat == Latency::Texture && info.ndst > 0;
        let saved: Option<[[u32; 32]; 4]> = (tex && !defer).then(|| {
            std::array::from_fn(|k| {
                if k < info.ndst as usize {
                    w.reg(info.dst + k as u8)
                } else {
                    [0; 32]
                }
            })
        });
        if let Err(e) = exec(op, w, &mut env) {
            return Err(exec_fault(prog, &env, w, pc, e));
        }
        self.stats.warp_instructions += 1;
        self.stats.fp32 += info.fp32 as u64;
        if info.texdepbar.is_some() {
            tm.next_issue = tm.next_issue.max(now + t.texdepbar_cycles as u64);
        }
        if w.pc != next_slot(pc) && w.state == WarpState::Running {
            tm.next_issue = tm.next_issue.max(now + 1 + t.branch_latency as u64);
        }
        // When the result is ready, and what the units are busy with.
        let sc = &mut self.scheds[s];
        let mut ready = now;
        match info.pipe {
            Pipe::Sfu => {
                sc.sfu_free = now + t.sfu_interval as u64;
                ready = now + t.sfu_latency as u64;
            }
            Pipe::Fp64 => {
                sc.fp64_free = now + t.fp64_interval as u64;
                ready = now + t.fp64_latency as u64;
            }
            _ => {}
        }
        match info.lat {
            Latency::S2R => ready = now + t.s2r_latency as u64,
            Latency::Const => ready = now + t.ldc_latency as u64,
            _ => {}
        }
        if info.pipe == Pipe::Lsu {
            // LDG goes down the texture pipeline, every other access the LSU.
            let tex_path = info.lat == Latency::Texture;
            if tex_path {
                self.tex_free = now + 1;
            } else {
                self.lsu.free = now + 1;
            }
            if let Some((addrs, space, size)) = access {
                let first = (0..32)
                    .find(|&l| mask >> l & 1 == 1)
                    .map_or(0, |l| addrs[l]);
                let window = |base: u64| {
                    space == Space::Generic && (base..base + WINDOW_SIZE).contains(&first)
                };
                let store = matches!(op.kind, Kind::St { .. } | Kind::StsCul { .. });
                if space == Space::Shared
                    || window(SHARED_WINDOW)
                    || matches!(op.kind, Kind::Shfl { .. })
                {
                    let (tx, bytes) = shared_transactions_with_bytes(
                        &addrs,
                        mask,
                        size,
                        t.shared_bank_bytes,
                        t.shared_transaction_bytes,
                    );
                    ready = self.lsu.shared(now, tx, bytes, t, &mut self.stats);
                    if !matches!(op.kind, Kind::Shfl { .. }) {
                        shared_counts(&mut self.stats, op, mask, size, tx);
                    }
                    if O::ACTIVE {
                        obs.event(Event::Shared {
                            cycle: now,
                            sm,
                            sched: s as u8,
                            slot: bi as u8,
                            warp: (wi - bi * self.wpb) as u8,
                            pc,
                            transactions: tx,
                            ready,
                        });
                    }
                } else if space == Space::Local || window(LOCAL_WINDOW) {
                    // Local memory lives in L1, and hits it.
                    let mut lines = [(0u64, 0u32); 64];
                    let n = global_lines(&addrs, mask, size, &mut lines);
                    self.lsu.free = now + n.max(1) as u64;
                    ready = now + n.max(1) as u64 - 1 + t.l1_latency as u64;
                } else {
                    let mut lines = [(0u64, 0u32); 64];
                    let n = global_lines(&addrs, mask, size, &mut lines);
                    if tex_path {
                        // The texture pipeline takes a line a cycle, and the
                        // scheduler dispatches nothing while it takes the
                        // lanes: `ldg_issue_cycles` for an LDG.E.128's 512
                        // bytes, a narrower one in proportion.
                        self.tex_free = now + n.max(1) as u64;
                        let bytes = mask.count_ones() as u64 * size as u64;
                        let hold = (t.ldg_issue_cycles as u64 * bytes).div_ceil(512);
                        self.scheds[s].ldg_until = now + hold.max(1);
                    } else {
                        // The LSU, `global_lsu_bytes` of each line a cycle.
                        let per = t.global_lsu_bytes.max(1);
                        let busy: u64 = lines[..n]
                            .iter()
                            .map(|&(_, sectors)| (sectors * 32).div_ceil(per) as u64)
                            .sum();
                        self.lsu.free = now + busy.max(1);
                    }
                    self.stats.global_transactions += n as u64;
                    self.stats.global_instructions += 1;
                    let sectors: u64 = lines[..n].iter().map(|&(_, s)| s as u64).sum();
                    let bytes = mask.count_ones() as u64 * size as u64;
                    if store {
                        self.stats.global_stores += 1;
                        self.stats.global_store_sectors += sectors;
                        self.stats.global_store_bytes += bytes;
                    } else if matches!(op.kind, Kind::Ld { .. }) {
                        self.stats.global_loads += 1;
                        self.stats.global_load_sectors += sectors;
                        self.stats.global_load_bytes += bytes;
                    }
                    if info.lat == Latency::Texture {
                        self.stats.ldg_lines += n as u64;
                    }
                    let path = if info.lat == Latency::Texture {
                        Path::ReadOnly
                    } else {
                        Path::L2
                    };
                    let slots = if path == Path::ReadOnly {
                        &mut self.ldg_slots
                    } else {
                        &mut self.ld_slots
                    };
                    // Counters before, to tell the observer the lines' outcomes.
                    let (cache0, l2_0) = (self.stats.ldg_cache_hits, mem.stats.l2_hits);
                    let mut misses = Lines::default();
                    for &(line, sectors) in &lines[..n] {
                        // A line the read-only cache holds, or has asked L2
                        // for: its data come no sooner than the fastest L2
                        // answer to the request that brought it (a bound
                        // known at issue, so the same at any thread count).
                        let held = (path == Path::ReadOnly)
                            .then(|| self.rocache.lookup_filled(line, now + self.ldg_l2))
                            .flatten();
                        if let Some(filled) = held {
                            self.stats.ldg_cache_hits += 1;
                            ready = ready.max((now + t.ldg_cache_latency as u64).max(filled));
                        } else if defer {
                            misses.push((line, sectors));
                        } else if store {
                            mem.write(now, line, sectors);
                        } else {
                            ready = ready.max(mem.read(now, line, sectors, path, slots));
                        }
                    }
                    if defer {
                        let due = if store {
                            // Nothing lands.
                            NEVER
                        } else if path == Path::L2 {
                            now + self.ld_l2
                        } else if misses.is_empty() {
                            ready.max(now + self.ldg_hit)
                        } else {
                            ready.max(now + self.ldg_l2)
                        };
                        let w = &self.warps[wi];
                        self.requests.push(Request {
                            cycle: now,
                            sm,
                            due,
                            wi,
                            pending: tex,
                            pc,
                            who: crate::func::Who {
                                block: b.idx,
                                block_dim: l.block_dim,
                                warp: w.id,
                                active: w.active,
                            },
                            mask,
                            addrs,
                            ready,
                            misses,
                            stored: store_rows.map(Box::new),
                            load: (path == Path::L2 && !store).then_some((info.dst, info.ndst)),
                        });
                        self.horizon = self.horizon.min(due);
                        if path == Path::L2 {
                            // Its registers are written when it is resolved.
                            ready = UNTIMED;
                        }
                    }
                    if O::ACTIVE {
                        let cache_hits = self.stats.ldg_cache_hits - cache0;
                        let l2_hits = mem.stats.l2_hits - l2_0;
                        obs.event(Event::Global {
                            cycle: now,
                            sm,
                            sched: s as u8,
                            slot: bi as u8,
                            warp: (wi - bi * self.wpb) as u8,
                            pc,
                            store,
                            lines: n as u8,
                            sectors: sectors.min(u16::MAX as u64) as u16,
                            cache_hits: cache_hits as u8,
                            l2_hits: l2_hits as u8,
                            l2_misses: (n as u64 - cache_hits - l2_hits) as u8,
                            ready,
                        });
                    }
                }
            } else if matches!(op.kind, Kind::Shfl { .. }) {
                let start = now.max(self.lsu.shared_free);
                self.lsu.shared_free = start + 1;
                ready = start + t.lds_latency as u64;
            }
        }
        let w = &mut self.warps[wi];
        if tex && defer {
            // Held back until its request is resolved and applied.
            tm.tex.push_back(Pending {
                at: UNTIMED,
                own: UNTIMED,
                reg: info.dst,
                n: info.ndst.min(4),
                mask,
                open: true,
                rows: [[0; 32]; 4],
            });
            self.next_land = self.next_land.min(UNTIMED);
        } else if let Some(saved) = saved {
            // Hold the loaded value back until it arrives, in order.
            let at = tm.tex.back().map_or(ready, |p| p.at.max(ready));
            let mut p = Pending {
                at,
                own: ready,
                reg: info.dst,
                n: info.ndst.min(4),
                mask,
                open: false,
                rows: [[0; 32]; 4],
            };
            for k in 0..p.n {
                p.rows[k as usize] = w.reg(info.dst + k);
                w.set_reg(info.dst + k, &saved[k as usize], u32::MAX);
            }
            tm.tex.push_back(p);
            self.next_land = self.next_land.min(at);
        } else {
            write_ready(tm, info, now, ready, t);
        }
        Ok(())
    }
}

/// Whether every lane of `mask` addresses global memory at `addrs` (none
/// through the shared or local window), and some lane does.
fn global_only(mask: u32, addrs: &[u64; 32]) -> bool {
    let global = |a: u64| {
        !(SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a)
            && !(LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a)
    };
    mask != 0 && (0..32).all(|k| mask >> k & 1 == 0 || global(addrs[k]))
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

/// The SM's load/store units and the shared-memory pipeline behind them.
struct Lsu {
    /// The cycle the LSU takes another instruction.
    free: u64,
    /// The cycle shared memory takes another access.
    shared_free: u64,
    /// When the shared-memory pipeline is free, to the fraction of a cycle.
    shared_time: f64,
    /// [`pipeline_time`] of 0 to 128 transactions, worked out once.
    times: Box<[(f64, u64); 129]>,
}

/// How long `tx` transactions keep the shared-memory pipeline busy, and the
/// whole cycles they add to the latency after the first one's.
fn pipeline_time(tx: u32, t: &Timing) -> (f64, u64) {
    let tx1 = tx.max(1) as f64;
    let busy = tx1 * t.shared_cycles_per_transaction + (tx1 - 1.0) * t.shared_replay_cycles as f64;
    // The latency counts from the first transaction; replays add theirs.
    let extra = ceil_u64((busy - t.shared_cycles_per_transaction).max(0.0));
    (busy, extra)
}

impl Lsu {
    fn new(t: &Timing) -> Lsu {
        Lsu {
            free: 0,
            shared_free: 0,
            shared_time: 0.0,
            times: Box::new(std::array::from_fn(|tx| pipeline_time(tx as u32, t))),
        }
    }

    /// Times `tx` transactions, moving `bytes` distinct bytes, through the
    /// shared-memory pipeline from `now`; returns when the data are ready.
    /// A lone transaction that moves less than a whole one takes its share
    /// of a transaction's time, but at least `shared_min_cycles` (with
    /// `shared_cycles_by_bytes`).
    #[inline]
    fn shared(&mut self, now: u64, tx: u32, bytes: u64, t: &Timing, stats: &mut Stats) -> u64 {
        let start = (now as f64).max(self.shared_time);
        let (busy, extra) = if tx == 1 && t.shared_cycles_by_bytes == 1 {
            let share = bytes as f64 / t.shared_transaction_bytes.max(1) as f64;
            (
                (t.shared_cycles_per_transaction * share)
                    .clamp(t.shared_min_cycles, t.shared_cycles_per_transaction),
                0,
            )
        } else {
            match self.times.get(tx as usize) {
                Some(&x) => x,
                None => pipeline_time(tx, t),
            }
        };
        self.shared_time = start + busy;
        // (`as` truncates: the floor of a cycle count.)
        self.shared_free = self.shared_time as u64;
        self.free = self.free.max(self.shared_free);
        stats.shared_transactions += tx as u64;
        stats.shared_instructions += 1;
        ceil_u64(start) + extra + t.lds_latency as u64
    }
}

/// Counts a shared-memory load's or store's instruction, transactions and
/// the bytes its active lanes (`mask`, `size` bytes each) asked for.
#[inline]
fn shared_counts(st: &mut Stats, op: &crate::op::Op, mask: u32, size: u32, tx: u32) {
    let bytes = mask.count_ones() as u64 * size as u64;
    if matches!(op.kind, Kind::St { .. } | Kind::StsCul { .. }) {
        st.shared_stores += 1;
        st.shared_store_transactions += tx as u64;
        st.shared_store_bytes += bytes;
    } else {
        st.shared_loads += 1;
        st.shared_load_transactions += tx as u64;
        st.shared_load_bytes += bytes;
    }
}

/// Puts the registers `info` writes on warp timing `tm`'s scoreboard: a
/// fixed-latency (ALU) result at `now` plus the ALU latency, any other at
/// `ready`.
#[inline]
fn write_ready(tm: &mut WarpTiming, info: &Info, now: u64, ready: u64, t: &Timing) {
    let (at, alu) = match info.lat {
        // Bit 4 puts a fixed-latency result on the scoreboard: ptxas sets it
        // on `MOV R1, c[0x0][0x44]` (a constant that may miss) and reads R1
        // two cycles later.
        Latency::Alu => (now + t.alu_latency as u64, info.ctrl & 0x10 == 0),
        Latency::None => return,
        _ => (ready, false),
    };
    let mut set = |r: usize| {
        tm.ready[r] = at;
        let bit = 1u64 << (r & 63);
        let word = &mut tm.alu[r >> 6];
        *word = if alu { *word | bit } else { *word & !bit };
    };
    if info.ndst == 1 {
        // The commonest: one register.
        set(info.dst as usize);
        return;
    }
    for k in 0..info.ndst {
        set(info.dst.wrapping_add(k) as usize);
    }
}

/// The cycle the registers `info` reads and writes are ready, by the
/// scoreboard of warp timing `tm`, and the last cycle a register it reads is
/// written (whether or not the scoreboard holds it back for it).
#[inline(never)]
fn scoreboard(tm: &WarpTiming, info: &Info) -> (u64, u64) {
    // Load/store instructions wait for ALU results too (they read their
    // registers in the LSU's queue: ptxas issues an LD/LDG/ST one cycle
    // after the ALU instruction that computes its address).
    let lsu = info.pipe == Pipe::Lsu;
    let held = |r: u8| lsu || tm.alu[(r >> 6) as usize] >> (r & 63) & 1 == 0;
    let (mut at, mut read) = (0u64, 0u64);
    for &r in info.reads() {
        let x = tm.ready[r as usize];
        read = read.max(x);
        if held(r) {
            at = at.max(x);
        }
    }
    for k in 0..info.ndst {
        let r = info.dst.wrapping_add(k);
        if held(r) {
            at = at.max(tm.ready[r as usize]);
        }
    }
    (at, read)
}

/// Whether the instruction `first` at slot `pc` asks to pair with the next
/// one and may by its byte and place (dual issue on, `0x04`, an aligned half
/// of its group when pairs must be aligned).
#[inline]
fn asks_pair(t: &Timing, pc: u32, first: &Info) -> bool {
    t.dual_issue == 1
        && Ctrl(first.ctrl).dual()
        && (t.dual_issue_aligned == 0 || pc.is_multiple_of(2))
}

/// What a unit's waiters queue for: the load/store unit (0) or the
/// texture pipeline (1).
fn unit_class(unit: Unit) -> Option<usize> {
    match unit {
        Unit::Lsu | Unit::LsuShared => Some(0),
        Unit::Tex => Some(1),
        _ => None,
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
