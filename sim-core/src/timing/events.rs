//! What the timing model tells the world: named counters ([`Stats`]), kept
//! apart from the model's state, and per-cycle [`Event`]s for an [`Observer`]
//! (the profiler and pipeline viewer of a later issue). An observer whose
//! `ACTIVE` is false costs nothing: every call site tests the constant first.

/// Why a scheduler issued nothing in a cycle (the reason of the first warp it
/// looked at, as nvprof attributes stalls).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Stall {
    /// Waiting out a control code's stall count (`stall_exec_dependency` for
    /// fixed-latency results, as the compiler encodes them).
    ControlCode,
    /// A scoreboarded result not yet ready (`stall_memory_dependency` for
    /// loads, `stall_exec_dependency` for SFU/FP64).
    Dependency,
    /// `TEXDEPBAR` waiting for read-only loads (`stall_memory_dependency`).
    Texture,
    /// A unit busy: SFU, FP64, LSU or shared memory (`stall_pipe_busy`).
    PipeBusy,
    /// At a barrier (`stall_sync`).
    Sync,
    /// The scheduler repays register bank conflict cycles.
    BankConflict,
    /// No warp to run.
    Idle,
    /// The warp's next instructions are not in the instruction cache yet
    /// (`stall_inst_fetch`).
    Fetch,
    /// Held back by the hardware's interlock: the instruction read an ALU
    /// result sooner than its latency, and waits `interlock_cycles`
    /// (`stall_exec_dependency`).
    Interlock,
    /// Issuing a load/store-unit access again, once for each transaction
    /// beyond its first (`replay_issue_cycles`; an issue slot in nvprof's
    /// `inst_issued`, not a stall).
    Replay,
}

/// The stall reasons, in `Stall` order, with their report names.
pub const STALLS: [&str; NSTALLS] = [
    "control code",
    "dependency",
    "texture barrier",
    "pipe busy",
    "barrier",
    "bank conflict",
    "idle",
    "instruction fetch",
    "interlock",
    "replay",
];

/// What a scheduler's `pipe busy` cycles waited for, in
/// [`crate::timing::pipes::Unit`] order, with their report names.
pub const UNITS: [&str; NUNITS] = [
    "LDG dispatch",
    "SFU",
    "FP64",
    "LSU (global/local)",
    "LSU (shared)",
    "texture pipeline",
];

/// How many units [`UNITS`] names.
pub const NUNITS: usize = 6;
const _: () = assert!(crate::timing::pipes::Unit::Tex as usize + 1 == NUNITS);

/// How many stall reasons there are.
pub const NSTALLS: usize = 10;

/// Why the two instructions of a pair the control byte asked for issued
/// apart (the first alone, the second later).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[repr(u8)]
pub enum Apart {
    /// Both are FP32/integer instructions and the other scheduler of the pair
    /// took their shared core group that cycle.
    GroupTaken,
    /// The second needs a unit (the load/store unit, the SFU, ...) that was
    /// busy.
    UnitBusy,
    /// The second was not ready: a result it reads, or a `TEXDEPBAR`'s
    /// loads.
    NotReady,
    /// The two may not pair (a rule of dual issue: `keplersim check` names it).
    NotPairable,
}

/// How many reasons pairs issue apart for.
pub const NAPART: usize = 4;

/// The reasons pairs issue apart, in `Apart` order, with their report names.
pub const APART: [&str; NAPART] = [
    "shared core group taken",
    "second's unit busy",
    "second not ready",
    "not pairable",
];

/// The most schedulers an SM has, for per-scheduler counters.
pub const MAX_SCHEDULERS: usize = 4;

/// The most warps a block has (1024 threads), for per-warp counters.
pub const MAX_BLOCK_WARPS: usize = 32;

/// One thing that happened in a cycle. Warps are named by their block's
/// slot on the SM (`slot`) and their index in the block (`warp`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    /// A scheduler issued an instruction (and its pair when `dual`), whose
    /// register bank conflict had degree `conflict` (0: none).
    Issue {
        cycle: u64,
        sm: u32,
        sched: u8,
        slot: u8,
        warp: u8,
        pc: u32,
        dual: bool,
        conflict: u8,
    },
    /// A scheduler issued nothing for `cycles` cycles from `cycle`, for
    /// reason `why`, which the instruction at slot `pc` gave (`u32::MAX`:
    /// none, as when no warp is left).
    Stall {
        cycle: u64,
        sm: u32,
        sched: u8,
        why: Stall,
        pc: u32,
        cycles: u64,
    },
    /// Block `block` (its coordinates in the grid) started in block slot
    /// `slot` of an SM, with `warps` warps; its warps may issue from `cycle`.
    BlockStart {
        cycle: u64,
        sm: u32,
        slot: u8,
        block: [u32; 3],
        warps: u8,
    },
    /// Block `block` (its coordinates in the grid) finished on an SM: one
    /// event per block, however many finish in the same cycle.
    BlockDone {
        cycle: u64,
        sm: u32,
        block: [u32; 3],
    },
    /// A warp issued a barrier (`BAR.SYNC`) and waits at it.
    BarrierArrive {
        cycle: u64,
        sm: u32,
        slot: u8,
        warp: u8,
        pc: u32,
    },
    /// The barrier of the block in `slot` released: its waiting warps may
    /// issue from the next cycle.
    BarrierRelease { cycle: u64, sm: u32, slot: u8 },
    /// A shared-memory access (or shuffle) went through the SM's shared
    /// pipeline: `transactions` transactions, its data ready at `ready`.
    Shared {
        cycle: u64,
        sm: u32,
        sched: u8,
        slot: u8,
        warp: u8,
        pc: u32,
        transactions: u32,
        ready: u64,
    },
    /// A global access left the LSU as `lines` 128-byte requests of
    /// `sectors` 32-byte sectors in all: `cache_hits` lines found in the
    /// read-only cache, `l2_hits` and `l2_misses` (from DRAM) of the rest;
    /// a load's data are all back at `ready` (a store's: when issued).
    Global {
        cycle: u64,
        sm: u32,
        sched: u8,
        slot: u8,
        warp: u8,
        pc: u32,
        store: bool,
        lines: u8,
        sectors: u16,
        cache_hits: u8,
        l2_hits: u8,
        l2_misses: u8,
        ready: u64,
    },
    /// The instruction at slot `pc` just issued alone, though its control
    /// byte asked for a pair with the next one, for reason `why` (follows
    /// that issue's [`Event::Issue`]).
    PairApart {
        cycle: u64,
        sm: u32,
        sched: u8,
        slot: u8,
        warp: u8,
        pc: u32,
        why: Apart,
    },
}

impl Event {
    /// The cycle the event happened in (a stall's first).
    pub fn cycle(&self) -> u64 {
        match *self {
            Event::Issue { cycle, .. }
            | Event::Stall { cycle, .. }
            | Event::BlockStart { cycle, .. }
            | Event::BlockDone { cycle, .. }
            | Event::BarrierArrive { cycle, .. }
            | Event::BarrierRelease { cycle, .. }
            | Event::Shared { cycle, .. }
            | Event::Global { cycle, .. }
            | Event::PairApart { cycle, .. } => cycle,
        }
    }

    /// The SM the event happened on.
    pub fn sm(&self) -> u32 {
        match *self {
            Event::Issue { sm, .. }
            | Event::Stall { sm, .. }
            | Event::BlockStart { sm, .. }
            | Event::BlockDone { sm, .. }
            | Event::BarrierArrive { sm, .. }
            | Event::BarrierRelease { sm, .. }
            | Event::Shared { sm, .. }
            | Event::Global { sm, .. }
            | Event::PairApart { sm, .. } => sm,
        }
    }
}

/// Receives the model's events.
pub trait Observer {
    /// Whether the model should produce events at all.
    const ACTIVE: bool;
    fn event(&mut self, e: Event);
}

/// No observer: events compile away.
pub struct Nobody;

impl Observer for Nobody {
    const ACTIVE: bool = false;
    #[inline]
    fn event(&mut self, _: Event) {}
}

/// Collects every event (for tests and small runs).
#[derive(Default)]
pub struct Recorder(pub Vec<Event>);

impl Observer for Recorder {
    const ACTIVE: bool = true;
    fn event(&mut self, e: Event) {
        self.0.push(e);
    }
}

/// Counters of one SM (and, summed, of the chip).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Warp-instructions executed.
    pub warp_instructions: u64,
    /// Scheduler-cycles that issued (one or a pair).
    pub issue_cycles: u64,
    /// Pairs dual-issued.
    pub dual: u64,
    /// FP32 multiply/add warp-instructions (FFMA, FMUL, FADD).
    pub fp32: u64,
    /// Scheduler-cycles that issued nothing, by [`Stall`].
    pub stall: [u64; NSTALLS],
    /// Per scheduler (by its index in the SM): scheduler-cycles that
    /// issued, pairs dual-issued, and cycles without issue by [`Stall`].
    pub sched_issue: [u64; MAX_SCHEDULERS],
    pub sched_dual: [u64; MAX_SCHEDULERS],
    pub sched_stall: [[u64; NSTALLS]; MAX_SCHEDULERS],
    /// Per scheduler: its `PipeBusy` cycles by what the warp that gave the
    /// reason waited for, indexed by [`crate::timing::pipes::Unit`]
    /// ([`NUNITS`]); `Unit::None`'s are the cycles the scheduler's own
    /// dispatch was held by an `LDG` handed to the texture pipeline.
    pub sched_pipe_busy: [[u64; NUNITS]; MAX_SCHEDULERS],
    /// Pairs the control byte asked for (its second instruction next) that
    /// issued apart, by [`Apart`]; and per scheduler, for any reason.
    pub pairs_apart: [u64; NAPART],
    pub sched_apart: [u64; MAX_SCHEDULERS],
    /// Cycles warps spent waiting at barriers (from arrival to release), by
    /// the warp's index in its block, summed over blocks.
    pub barrier_wait: [u64; MAX_BLOCK_WARPS],
    /// Barriers released (once per block and barrier).
    pub barrier_releases: u64,
    /// Instructions the interlock held back (each for `interlock_cycles`).
    pub interlocks: u64,
    /// Threads that executed each warp-instruction (its active lanes),
    /// summed.
    pub thread_instructions: u64,
    /// Single-precision floating-point operations: an FFMA's lane two, an
    /// FADD's or FMUL's one, over the lanes its guard lets execute.
    pub flops_sp: u64,
    /// Warp-cycles warps were resident: each warp from its block's start to
    /// its `EXIT`.
    pub warp_cycles: u64,
    /// Shared-memory loads and stores (warp-instructions), their
    /// transactions, and the bytes their active lanes asked for.
    pub shared_loads: u64,
    pub shared_stores: u64,
    pub shared_load_transactions: u64,
    pub shared_store_transactions: u64,
    pub shared_load_bytes: u64,
    pub shared_store_bytes: u64,
    /// Global loads and stores (warp-instructions; LD, LDG and ST to global
    /// memory), the 32-byte sectors they touched, and the bytes their active
    /// lanes asked for.
    pub global_loads: u64,
    pub global_stores: u64,
    pub global_load_sectors: u64,
    pub global_store_sectors: u64,
    pub global_load_bytes: u64,
    pub global_store_bytes: u64,
    /// 128-byte lines LDG asked the read-only cache for (its hits are
    /// `ldg_cache_hits`).
    pub ldg_lines: u64,
    /// Instructions (or pairs) with a 2-, 3- and 4-way bank conflict.
    pub conflicts: [u64; 3],
    /// Reads of a register whose LDG value had not arrived (stale values).
    pub hazards: u64,
    /// Instruction cache misses (64-byte groups).
    pub icache_misses: u64,
    /// LDG lines found in the read-only cache.
    pub ldg_cache_hits: u64,
    pub shared_instructions: u64,
    pub shared_transactions: u64,
    pub global_instructions: u64,
    /// 128-byte lines requested by global accesses.
    pub global_transactions: u64,
}

impl Stats {
    /// Scheduler-cycles that used an issue slot: an instruction or a pair,
    /// or a replay (nvprof's issued instructions).
    pub fn slots_used(&self) -> u64 {
        self.issue_cycles + self.stall[Stall::Replay as usize]
    }

    /// Adds `o` into `self`.
    pub fn add(&mut self, o: &Stats) {
        self.warp_instructions += o.warp_instructions;
        self.issue_cycles += o.issue_cycles;
        self.dual += o.dual;
        self.fp32 += o.fp32;
        for i in 0..NSTALLS {
            self.stall[i] += o.stall[i];
        }
        for i in 0..NAPART {
            self.pairs_apart[i] += o.pairs_apart[i];
        }
        for s in 0..MAX_SCHEDULERS {
            self.sched_issue[s] += o.sched_issue[s];
            self.sched_dual[s] += o.sched_dual[s];
            self.sched_apart[s] += o.sched_apart[s];
            for i in 0..NSTALLS {
                self.sched_stall[s][i] += o.sched_stall[s][i];
            }
            for i in 0..NUNITS {
                self.sched_pipe_busy[s][i] += o.sched_pipe_busy[s][i];
            }
        }
        for w in 0..MAX_BLOCK_WARPS {
            self.barrier_wait[w] += o.barrier_wait[w];
        }
        self.barrier_releases += o.barrier_releases;
        self.interlocks += o.interlocks;
        self.thread_instructions += o.thread_instructions;
        self.flops_sp += o.flops_sp;
        self.warp_cycles += o.warp_cycles;
        self.shared_loads += o.shared_loads;
        self.shared_stores += o.shared_stores;
        self.shared_load_transactions += o.shared_load_transactions;
        self.shared_store_transactions += o.shared_store_transactions;
        self.shared_load_bytes += o.shared_load_bytes;
        self.shared_store_bytes += o.shared_store_bytes;
        self.global_loads += o.global_loads;
        self.global_stores += o.global_stores;
        self.global_load_sectors += o.global_load_sectors;
        self.global_store_sectors += o.global_store_sectors;
        self.global_load_bytes += o.global_load_bytes;
        self.global_store_bytes += o.global_store_bytes;
        self.ldg_lines += o.ldg_lines;
        for i in 0..3 {
            self.conflicts[i] += o.conflicts[i];
        }
        self.hazards += o.hazards;
        self.icache_misses += o.icache_misses;
        self.ldg_cache_hits += o.ldg_cache_hits;
        self.shared_instructions += o.shared_instructions;
        self.shared_transactions += o.shared_transactions;
        self.global_instructions += o.global_instructions;
        self.global_transactions += o.global_transactions;
    }
}
