//! nvprof's metrics for compute capability 3.5, by their names and meanings,
//! worked out from a timed run's counters ([`Timed`]), plus the model's own
//! metrics that no hardware counter had (dual issue, bank conflicts by degree,
//! interlock and control-code stalls). Each metric's definition in terms of
//! the counters is in `docs/metrics.md`; the code below is that definition.

use crate::config::Config;

use super::events::{Stall, NSTALLS};
use super::gpu::Timed;

/// A metric's value, in the unit nvprof prints it in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    /// An event count.
    Count(u64),
    /// A plain ratio (`ipc`, transactions per request).
    Ratio(f64),
    /// A percentage, 0 to 100.
    Percent(f64),
    /// Gigabytes per second (10^9 bytes).
    GBps(f64),
    /// A unit's utilization level, 0 (idle) to 10 (busy every cycle).
    Level(u8),
    /// The model has no counter for it; the text says why.
    Unavailable(&'static str),
}

impl Value {
    /// As nvprof prints it (`63.21%`, `12.345GB/s`, `Low (2)`).
    pub fn text(&self) -> String {
        match *self {
            Value::Count(n) => n.to_string(),
            Value::Ratio(x) => format!("{x:.6}"),
            Value::Percent(x) => format!("{x:.2}%"),
            Value::GBps(x) => format!("{x:.3}GB/s"),
            Value::Level(l) => {
                let word = match l {
                    0 => "Idle",
                    1..=3 => "Low",
                    4..=6 => "Mid",
                    7..=9 => "High",
                    _ => "Max",
                };
                format!("{word} ({l})")
            }
            Value::Unavailable(_) => "n/a".into(),
        }
    }

    /// The number (none for an unavailable metric).
    pub fn number(&self) -> Option<f64> {
        match *self {
            Value::Count(n) => Some(n as f64),
            Value::Ratio(x) | Value::Percent(x) | Value::GBps(x) => Some(x),
            Value::Level(l) => Some(l as f64),
            Value::Unavailable(_) => None,
        }
    }
}

/// One metric of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Metric {
    /// nvprof's name (or the model's own, for those nvprof never had).
    pub name: &'static str,
    /// nvprof's description (or the model's).
    pub description: &'static str,
    pub value: Value,
    /// Whether nvprof had it (false: one of keplersim's own).
    pub nvprof: bool,
}

/// The names of every metric [`metrics`] gives, in its order.
pub fn names() -> Vec<&'static str> {
    let t = Timed {
        cycles: 1,
        partial: None,
        blocks_done: 1,
        sms: 1,
        occupancy: super::gpu::Occupancy {
            blocks_per_sm: 1,
            warps_per_block: 1,
            limiter: "blocks",
        },
        stats: Default::default(),
        mem: Default::default(),
        busy: vec![1],
    };
    metrics(&t, &Config::default())
        .into_iter()
        .map(|m| m.name)
        .collect()
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

fn percent(a: u64, b: u64) -> Value {
    Value::Percent(ratio(a, b) * 100.0)
}

fn level(fraction: f64) -> Value {
    Value::Level((fraction * 10.0).round().clamp(0.0, 10.0) as u8)
}

/// Every metric of timed run `t` on `config`.
pub fn metrics(t: &Timed, config: &Config) -> Vec<Metric> {
    let st = &t.stats;
    let mem = &t.mem;
    // Cycles the SMs had work, summed over the SMs: nvprof's per-SM rates
    // count an SM's active cycles.
    let active: u64 = t.busy.iter().sum::<u64>().max(1);
    let seconds = t.cycles as f64 / (config.chip.clock_mhz * 1e6);
    let gbps = |sectors: u64| {
        if seconds > 0.0 {
            sectors as f64 * 32.0 / seconds / 1e9
        } else {
            0.0
        }
    };
    let shared_tx = st.shared_load_transactions + st.shared_store_transactions;
    let shared_req = st.shared_loads + st.shared_stores;
    let replays = shared_tx.saturating_sub(shared_req)
        + st.global_transactions
            .saturating_sub(st.global_instructions);
    let issued = st.warp_instructions + replays;
    let schedulers = config.timing.schedulers.max(1) as u64;
    let max_warps = (config.chip.max_threads_per_sm / 32).max(1) as f64;
    // Stalls as nvprof gives them: percentages of the cycles a scheduler
    // had warps and issued none (cycles with no warp at all are not stalls,
    // and a replay is an issue).
    let stall = |r: Stall| st.stall[r as usize];
    let stalled: u64 = (0..NSTALLS)
        .filter(|&i| i != Stall::Idle as usize && i != Stall::Replay as usize)
        .map(|i| st.stall[i])
        .sum();
    let sp = |n: u64| percent(n, stalled);
    let peak_flops = t.sms as f64
        * (config.timing.schedulers as f64 * 1.5).floor()
        * 32.0
        * 2.0
        * config.chip.clock_mhz
        * 1e6;
    let lanes_fp32 = (config.timing.schedulers as f64 * 1.5).floor().max(1.0);
    let lsu_requests = st.shared_instructions + st.global_instructions;
    let m = |name, description, value| Metric {
        name,
        description,
        value,
        nvprof: true,
    };
    let own = |name, description, value| Metric {
        name,
        description,
        value,
        nvprof: false,
    };
    vec![
        m("inst_executed", "Instructions Executed", Value::Count(st.warp_instructions)),
        m("inst_issued", "Instructions Issued", Value::Count(issued)),
        m("ipc", "Executed IPC", Value::Ratio(ratio(st.warp_instructions, active))),
        m("issued_ipc", "Issued IPC", Value::Ratio(ratio(issued, active))),
        m(
            "issue_slot_utilization",
            "Issue Slot Utilization",
            percent(st.slots_used(), schedulers * active),
        ),
        m(
            "sm_efficiency",
            "Multiprocessor Activity",
            percent(active, t.cycles * t.sms as u64),
        ),
        m(
            "achieved_occupancy",
            "Achieved Occupancy",
            Value::Ratio(ratio(st.warp_cycles, active) / max_warps),
        ),
        m(
            "warp_execution_efficiency",
            "Warp Execution Efficiency",
            percent(st.thread_instructions, 32 * st.warp_instructions),
        ),
        m(
            "flop_count_sp",
            "Floating Point Operations(Single Precision)",
            Value::Count(st.flops_sp),
        ),
        m(
            "flop_sp_efficiency",
            "FLOP Efficiency(Peak Single)",
            Value::Percent(if seconds > 0.0 {
                st.flops_sp as f64 / seconds / peak_flops * 100.0
            } else {
                0.0
            }),
        ),
        m(
            "inst_executed_shared_loads",
            "Warp level shared instructions for loads",
            Value::Count(st.shared_loads),
        ),
        m(
            "inst_executed_shared_stores",
            "Warp level shared instructions for stores",
            Value::Count(st.shared_stores),
        ),
        m("shared_load", "Shared Load Requests", Value::Count(st.shared_loads)),
        m("shared_store", "Shared Store Requests", Value::Count(st.shared_stores)),
        m(
            "shared_load_transactions",
            "Shared Load Transactions",
            Value::Count(st.shared_load_transactions),
        ),
        m(
            "shared_store_transactions",
            "Shared Store Transactions",
            Value::Count(st.shared_store_transactions),
        ),
        m(
            "shared_load_transactions_per_request",
            "Shared Memory Load Transactions Per Request",
            Value::Ratio(ratio(st.shared_load_transactions, st.shared_loads)),
        ),
        m(
            "shared_efficiency",
            "Shared Memory Efficiency",
            percent(
                st.shared_load_bytes + st.shared_store_bytes,
                shared_tx * config.timing.shared_transaction_bytes as u64,
            ),
        ),
        m("global_load", "Global Load Requests", Value::Count(st.global_loads)),
        m(
            "gld_transactions",
            "Global Load Transactions",
            Value::Count(st.global_load_sectors),
        ),
        m(
            "gst_transactions",
            "Global Store Transactions",
            Value::Count(st.global_store_sectors),
        ),
        m(
            "gld_transactions_per_request",
            "Global Load Transactions Per Request",
            Value::Ratio(ratio(st.global_load_sectors, st.global_loads)),
        ),
        m(
            "gld_efficiency",
            "Global Memory Load Efficiency",
            percent(st.global_load_bytes, st.global_load_sectors * 32),
        ),
        m(
            "tex_cache_hit_rate",
            "Unified Cache Hit Rate",
            percent(st.ldg_cache_hits, st.ldg_lines),
        ),
        m(
            "l2_read_transactions",
            "L2 Read Transactions",
            Value::Count(mem.l2_read_sectors),
        ),
        m(
            "l2_hit_rate",
            "L2 Hit Rate",
            percent(mem.l2_hits, mem.l2_hits + mem.l2_misses),
        ),
        m(
            "dram_read_transactions",
            "Device Memory Read Transactions",
            Value::Count(mem.dram_read_sectors),
        ),
        m(
            "dram_read_throughput",
            "Device Memory Read Throughput",
            Value::GBps(gbps(mem.dram_read_sectors)),
        ),
        m(
            "dram_write_throughput",
            "Device Memory Write Throughput",
            Value::GBps(gbps(mem.dram_write_sectors)),
        ),
        m(
            "stall_inst_fetch",
            "Issue Stall Reasons (Instructions Fetch)",
            sp(stall(Stall::Fetch)),
        ),
        m(
            "stall_exec_dependency",
            "Issue Stall Reasons (Execution Dependency)",
            sp(stall(Stall::ControlCode) + stall(Stall::Interlock)),
        ),
        m(
            "stall_memory_dependency",
            "Issue Stall Reasons (Data Request)",
            sp(stall(Stall::Dependency)),
        ),
        m(
            "stall_texture",
            "Issue Stall Reasons (Texture)",
            sp(stall(Stall::Texture)),
        ),
        m(
            "stall_sync",
            "Issue Stall Reasons (Synchronization)",
            sp(stall(Stall::Sync)),
        ),
        m(
            "stall_other",
            "Issue Stall Reasons (Other)",
            sp(stall(Stall::BankConflict)),
        ),
        m(
            "stall_pipe_busy",
            "Issue Stall Reasons (Pipe Busy)",
            sp(stall(Stall::PipeBusy)),
        ),
        m(
            "stall_not_selected",
            "Issue Stall Reasons (Not Selected)",
            Value::Unavailable(
                "the model charges a stall only to a scheduler-cycle that issued nothing; a ready warp passed over for another is not counted",
            ),
        ),
        m(
            "stall_constant_memory_dependency",
            "Issue Stall Reasons (Immediate constant)",
            Value::Unavailable(
                "the model's constant-bank reads wait on the scoreboard, counted in stall_memory_dependency",
            ),
        ),
        m(
            "ldst_fu_utilization",
            "Load/Store Function Unit Utilization",
            level(ratio(lsu_requests, active)),
        ),
        m(
            "single_precision_fu_utilization",
            "Single-Precision Function Unit Utilization",
            level(ratio(st.fp32, active) / lanes_fp32),
        ),
        own(
            "dual_issue_rate",
            "Dual-issued pairs per issuing scheduler-cycle",
            percent(st.dual, st.issue_cycles),
        ),
        own(
            "bank_conflicts_2way",
            "Issues (single or pair) with a 2-way register bank conflict",
            Value::Count(st.conflicts[0]),
        ),
        own(
            "bank_conflicts_3way",
            "Issues (single or pair) with a 3-way register bank conflict",
            Value::Count(st.conflicts[1]),
        ),
        own(
            "bank_conflicts_4way",
            "Issues (single or pair) with a 4-way register bank conflict",
            Value::Count(st.conflicts[2]),
        ),
        own(
            "bank_conflict_stall_cycles",
            "Scheduler-cycles lost repaying register bank conflicts",
            Value::Count(stall(Stall::BankConflict)),
        ),
        own(
            "interlocks",
            "Instructions the hardware's interlock held back (an ALU result read early)",
            Value::Count(st.interlocks),
        ),
        own(
            "interlock_stall_cycles",
            "Scheduler-cycles without issue while the interlock held the warp",
            Value::Count(stall(Stall::Interlock)),
        ),
        own(
            "replay_issue_cycles",
            "Scheduler-cycles issuing load/store-unit accesses again, one for each transaction beyond the first",
            Value::Count(stall(Stall::Replay)),
        ),
        own(
            "control_code_stall_cycles",
            "Scheduler-cycles without issue while control codes' stall counts ran",
            Value::Count(stall(Stall::ControlCode)),
        ),
        own(
            "barrier_wait_cycles",
            "Warp-cycles spent waiting at barriers",
            Value::Count(st.barrier_wait.iter().sum()),
        ),
    ]
}
