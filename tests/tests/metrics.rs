//! nvprof's metrics held to their definitions on kernels whose values can be
//! worked out by hand: a coalesced saxpy's global transactions, a strided
//! shared-memory load's efficiency, and a register-limited kernel's
//! occupancy. Every metric the profiler's users reach for is there.

use std::path::Path;

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_core::timing::metrics::{metrics, names, Metric, Value};
use sim_core::timing::{Stepping, Timed};
use sim_isa::cubin::{Cubin, CubinWriter};
use sim_kernels::workload;

fn value(all: &[Metric], name: &str) -> Value {
    all.iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no metric {name}"))
        .value
}

fn count(all: &[Metric], name: &str) -> u64 {
    match value(all, name) {
        Value::Count(n) => n,
        v => panic!("{name} is {v:?}, not a count"),
    }
}

fn number(all: &[Metric], name: &str) -> f64 {
    value(all, name)
        .number()
        .unwrap_or_else(|| panic!("{name} has no value"))
}

/// Runs a `.sass` kernel of traces/metrics with its launch file and `sets`.
fn run_sass(name: &str, sets: &[(&str, i64)]) -> Timed {
    let root = workload::root();
    let dir = root.join("traces/metrics");
    let text = std::fs::read_to_string(dir.join(format!("{name}.sass"))).expect("the kernel");
    let kernels = sim_isa::asm::assemble_source(&text).expect("assembles");
    let mut w = CubinWriter::new();
    for k in kernels {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let sets: Vec<(String, i64)> = sets.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let r = workload::resolve(&dir.join(format!("{name}.launch.ron")), &sets).expect("launch");
    let read = workload::reader(&dir);
    let out = launch::execute_as(
        &cubin,
        &r,
        Mode::Timed(Stepping::Turns),
        &Config::default(),
        &read,
    )
    .expect("runs");
    out.timed.expect("timed")
}

#[test]
fn every_metric_users_reach_for_is_given() {
    let all = names();
    for name in [
        "inst_executed",
        "inst_issued",
        "ipc",
        "issued_ipc",
        "issue_slot_utilization",
        "sm_efficiency",
        "achieved_occupancy",
        "warp_execution_efficiency",
        "flop_count_sp",
        "flop_sp_efficiency",
        "inst_executed_shared_loads",
        "inst_executed_shared_stores",
        "shared_load",
        "shared_store",
        "shared_load_transactions",
        "shared_store_transactions",
        "shared_load_transactions_per_request",
        "shared_efficiency",
        "global_load",
        "gld_transactions",
        "gst_transactions",
        "gld_transactions_per_request",
        "gld_efficiency",
        "tex_cache_hit_rate",
        "l2_read_transactions",
        "l2_hit_rate",
        "dram_read_transactions",
        "dram_read_throughput",
        "dram_write_throughput",
        "stall_inst_fetch",
        "stall_exec_dependency",
        "stall_memory_dependency",
        "stall_texture",
        "stall_sync",
        "stall_other",
        "stall_pipe_busy",
        "stall_not_selected",
        "stall_constant_memory_dependency",
        "ldst_fu_utilization",
        "single_precision_fu_utilization",
        "dual_issue_rate",
        "bank_conflicts_2way",
        "bank_conflicts_3way",
        "interlock_stall_cycles",
        "control_code_stall_cycles",
    ] {
        assert!(all.contains(&name), "no metric {name}");
    }
}

/// saxpy over n floats, every access coalesced: each warp's 128-byte load
/// is four 32-byte sectors.
#[test]
fn a_coalesced_copy_has_the_global_transactions_worked_out_by_hand() {
    let root = workload::root();
    let path = root.join("traces/kernels/saxpy.launch.ron");
    let r = workload::resolve(&path, &[]).expect("launch");
    let n = *r.vars.get("n").expect("saxpy has n") as u64;
    let out = workload::run_timed(&path, &[], &Config::default()).expect("runs");
    assert!(out.passed());
    let all = metrics(out.timed.as_ref().expect("timed"), &Config::default());
    // Two loads (x, y) and one store (y) of n floats, 32 bytes a transaction.
    assert_eq!(count(&all, "gld_transactions"), 2 * n * 4 / 32);
    assert_eq!(count(&all, "gst_transactions"), n * 4 / 32);
    assert_eq!(count(&all, "global_load"), 2 * n / 32);
    assert_eq!(number(&all, "gld_transactions_per_request"), 4.0);
    assert_eq!(number(&all, "gld_efficiency"), 100.0);
    // One FFMA a element: two operations.
    assert_eq!(count(&all, "flop_count_sp"), 2 * n);
    assert_eq!(number(&all, "warp_execution_efficiency"), 100.0);
    assert_eq!(count(&all, "shared_load"), 0);
}

/// LDS.32 at a stride of 8 and 16 bytes by 64 threads, 16 loads each, on
/// 8-byte banks: a warp asks for 128 bytes, spread over 256 bytes (one
/// transaction) or 512 (two: lanes 16 apart share a bank).
#[test]
fn a_strided_shared_load_has_the_efficiency_worked_out_by_hand() {
    for (stride, per_request, efficiency) in [(8, 1.0, 50.0), (16, 2.0, 25.0)] {
        let t = run_sass("strided_lds", &[("stride", stride)]);
        let all = metrics(&t, &Config::default());
        assert_eq!(count(&all, "shared_load"), 2 * 16, "stride {stride}");
        assert_eq!(count(&all, "inst_executed_shared_loads"), 2 * 16);
        assert_eq!(
            number(&all, "shared_load_transactions_per_request"),
            per_request,
            "stride {stride}"
        );
        assert_eq!(
            count(&all, "shared_load_transactions"),
            (2.0 * 16.0 * per_request) as u64
        );
        assert_eq!(
            number(&all, "shared_efficiency"),
            efficiency,
            "stride {stride}"
        );
    }
}

/// Each shared transaction beyond a load's first is issued again, a
/// scheduler-cycle each: none at a stride of 8 bytes, one per load at 16
/// (two warps, sixteen loads each); issued, so counted in the issue slots
/// used and left out of the stall reasons' shares.
#[test]
fn a_strided_shared_load_has_the_replays_worked_out_by_hand() {
    for (stride, replays) in [(8, 0), (16, 2 * 16)] {
        let t = run_sass("strided_lds", &[("stride", stride)]);
        let all = metrics(&t, &Config::default());
        assert_eq!(
            count(&all, "replay_issue_cycles"),
            replays,
            "stride {stride}"
        );
        assert_eq!(
            count(&all, "inst_issued") - count(&all, "inst_executed"),
            replays,
            "stride {stride}"
        );
        let slots = (t.busy.iter().sum::<u64>() * 4) as f64;
        let used = (t.stats.issue_cycles + replays) as f64 / slots * 100.0;
        let shown = number(&all, "issue_slot_utilization");
        assert!((shown - used).abs() < 1e-9, "{shown} against {used}");
    }
}

/// The tuned SGEMM holds 220 registers a thread: one block of 8 warps fits
/// an SM of 64, so no more than 12.5% occupancy is achieved, and nearly
/// that, its warps living from the block's start to its end.
#[test]
fn a_register_limited_kernel_has_the_occupancy_worked_out_by_hand() {
    let root = workload::root();
    let path = root.join("traces/sgemm/sgemm.launch.ron");
    let sets: Vec<(String, i64)> = ["m", "n", "k"]
        .iter()
        .map(|v| (v.to_string(), 384))
        .collect();
    let out = workload::run_timed(Path::new(&path), &sets, &Config::default()).expect("runs");
    let t = out.timed.as_ref().expect("timed");
    assert_eq!(t.occupancy.limiter, "registers");
    assert_eq!(
        (t.occupancy.blocks_per_sm, t.occupancy.warps_per_block),
        (1, 8)
    );
    let all = metrics(t, &Config::default());
    let occ = number(&all, "achieved_occupancy");
    assert!(occ <= 8.0 / 64.0 && occ > 0.95 * 8.0 / 64.0, "{occ}");
    assert!(number(&all, "dual_issue_rate") > 40.0);
}
