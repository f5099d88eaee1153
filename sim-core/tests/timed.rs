//! The cycle-level model runs every kernel of the suite (ptxas's own code and
//! control codes) to the same, correct results as the functional model, with
//! no read of a value before it arrived; a run is deterministic, and the same
//! whichever build of the executor (AVX2 or baseline) runs it.

mod common;

use std::path::Path;

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_core::timing::Stepping;

use common::{launch_files, load, root};

fn run(path: &Path, config: &Config) -> launch::Outcome {
    run_as(path, config, Stepping::Turns)
}

fn run_as(path: &Path, config: &Config, stepping: Stepping) -> launch::Outcome {
    let (cubin, r, read) = load(path);
    launch::execute_as(&cubin, &r, Mode::Timed(stepping), config, &read)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A launch laid out as `launch` lays it out: its buffers in a fresh global
/// memory, the kernel loaded and its parameters packed.
fn prepare(cubin: &sim_isa::cubin::Cubin, r: &launch::Resolved) -> (GlobalMem, Program, Vec<u8>) {
    let mut global = GlobalMem::new();
    let addrs: Vec<(String, u64)> = r
        .buffers
        .iter()
        .map(|b| (b.name.clone(), global.alloc(&b.name, b.data.clone())))
        .collect();
    let prog = Program::load(cubin, &r.kernel, &mut global).expect("loads");
    let addr = |n: &str| addrs.iter().find(|(a, _)| a == n).map_or(0, |x| x.1);
    let params = launch::pack_params(r, &prog.params, prog.param_size, &addr).expect("packs");
    (global, prog, params)
}

#[test]
fn every_suite_kernel_runs_timed_to_its_reference() {
    let config = Config::default();
    let mut failed = Vec::new();
    for f in launch_files() {
        let out = run(&f, &config);
        let t = out.timed.as_ref().expect("timed");
        println!(
            "{}: {} cycles, {} warp-instructions, IPC {:.2}, {} dual, {} blocks/SM ({}), {} stale reads, checks {}",
            f.file_name().unwrap().to_string_lossy(),
            t.cycles,
            t.stats.warp_instructions,
            t.stats.warp_instructions as f64 / t.cycles as f64 / t.sms as f64,
            t.stats.dual,
            t.occupancy.blocks_per_sm,
            t.occupancy.limiter,
            t.stats.hazards,
            if out.passed() { "PASS" } else { "FAIL" }
        );
        if !out.passed() {
            failed.push(format!("{}", f.display()));
        }
        assert_eq!(
            t.stats.hazards,
            0,
            "{}: ptxas's code read an LDG value early",
            f.display()
        );
        assert_eq!(
            t.stats.interlocks,
            0,
            "{}: ptxas's control codes read an ALU result early under the adopted reading (the interlock held it back)",
            f.display()
        );
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn timed_runs_are_deterministic() {
    let config = Config::default();
    for name in ["sgemm_tiled_4x4", "reduce", "histogram", "transpose_padded"] {
        let f = root().join(format!("traces/kernels/{name}.launch.ron"));
        let a = run(&f, &config).timed.expect("timed");
        let b = run(&f, &config).timed.expect("timed");
        assert_eq!(a, b, "{name}");
        println!("{name}: {} cycles twice", a.cycles);
    }
}

/// The SMs stepped by turns (each on alone until it must wait for another
/// at global memory or an `EXIT`) give every suite kernel the cycles,
/// counters and buffers of the SMs stepped a cycle at a time: on the K20m,
/// and on a chip of 3 SMs, where more blocks wait for a slot, with greedy
/// schedulers.
#[test]
fn stepping_by_turns_gives_the_lockstep_results_on_every_suite_kernel() {
    let k20m = Config::default();
    // Three SMs, whose schedulers pick greedily (the warp that issued last,
    // then the oldest), and whose load/store units take turns on the grant:
    // the other selection policy's scan too, and state that a cycle's
    // issues change.
    let mut three = Config::default();
    three.chip.sms = 3;
    three.timing.policy = 1;
    three.timing.pair_rotation = 3;
    let files = launch_files();
    assert!(files.len() >= 20, "the suite's launch files");
    for config in [&k20m, &three] {
        for f in &files {
            let turns = run_as(f, config, Stepping::Turns);
            let step = run_as(f, config, Stepping::Lockstep);
            let name = f.file_name().unwrap().to_string_lossy();
            assert_eq!(turns.timed, step.timed, "{name}: cycles and counters");
            assert_eq!(turns.finals.len(), step.finals.len(), "{name}");
            for (a, b) in turns.finals.iter().zip(&step.finals) {
                assert!(a.data == b.data, "{name}: buffer {}", a.name);
            }
        }
    }
}

/// The executor's AVX2 build (taken wherever the CPU has AVX2) and its
/// baseline build give every suite kernel the same cycles, counters and
/// buffers; this makes the baseline one run on such a CPU too.
#[test]
fn the_avx2_and_baseline_executors_agree_on_every_suite_kernel() {
    let config = Config::default();
    let files = launch_files();
    assert!(files.len() >= 20, "the suite's launch files");
    for f in &files {
        sim_core::exec::use_wide_lanes(true);
        let wide = run(f, &config);
        sim_core::exec::use_wide_lanes(false);
        let base = run(f, &config);
        sim_core::exec::use_wide_lanes(true);
        let name = f.file_name().unwrap().to_string_lossy();
        assert_eq!(wide.timed, base.timed, "{name}: cycles and counters");
        assert_eq!(wide.finals.len(), base.finals.len(), "{name}");
        for (a, b) in wide.finals.iter().zip(&base.finals) {
            assert!(a.data == b.data, "{name}: buffer {}", a.name);
        }
        assert!(wide.passed() && base.passed(), "{name}: checks");
    }
}

/// An observer hears every issue and every block of the grid finish (once
/// each), in cycle order (a run with one steps the SMs in lockstep), and
/// changes nothing: the run gives the cycles, counters and buffers of a run
/// without one, by turns.
#[test]
fn an_observer_hears_every_issue_in_cycle_order_and_changes_nothing() {
    use sim_core::timing::{run_timed, Event, Nobody, Recorder};
    let config = Config::default();
    for name in ["histogram", "sgemm_tiled_4x4"] {
        let path = root().join(format!("traces/kernels/{name}.launch.ron"));
        let (cubin, r, _) = load(&path);
        let prepare = || prepare(&cubin, &r);
        let (mut g1, prog, params) = prepare();
        let mut heard = Recorder::default();
        let a = run_timed(
            Stepping::Turns,
            &prog,
            &mut g1,
            &r.dims,
            &params,
            &config,
            r.limit,
            &mut heard,
        )
        .expect("runs");
        let (mut g2, prog2, params2) = prepare();
        let b = run_timed(
            Stepping::Turns,
            &prog2,
            &mut g2,
            &r.dims,
            &params2,
            &config,
            r.limit,
            &mut Nobody,
        )
        .expect("runs");
        assert_eq!(a, b, "{name}: cycles and counters");
        assert_eq!(
            g1.allocations().len(),
            g2.allocations().len(),
            "{name}: buffers"
        );
        for (x, y) in g1.allocations().iter().zip(g2.allocations()) {
            assert!(x.data == y.data, "{name}: buffer {}", x.name);
        }
        // Each SM's events come in cycle order (an SM reports the stalls of
        // the cycles it skipped when it next ticks, after other SMs' events
        // of those cycles, so the order holds SM by SM).
        let at = |e: &Event| (e.sm(), e.cycle());
        let mut last = std::collections::HashMap::new();
        for e in &heard.0 {
            let (sm, cycle) = at(e);
            let before = last.insert(sm, cycle).unwrap_or(0);
            assert!(before <= cycle, "{name}: SM {sm}'s events in cycle order");
        }
        // Every issue of the whole run comes in cycle order.
        let issues_at: Vec<u64> = heard
            .0
            .iter()
            .filter_map(|e| match *e {
                Event::Issue { cycle, .. } => Some(cycle),
                _ => None,
            })
            .collect();
        assert!(
            issues_at.windows(2).all(|p| p[0] <= p[1]),
            "{name}: issues in cycle order"
        );
        let issues = heard
            .0
            .iter()
            .filter(|e| matches!(e, Event::Issue { .. }))
            .count();
        let duals = heard
            .0
            .iter()
            .filter(|e| matches!(e, Event::Issue { dual: true, .. }))
            .count();
        // Every block of the grid finishes exactly once.
        let mut done: Vec<[u32; 3]> = heard
            .0
            .iter()
            .filter_map(|e| match *e {
                Event::BlockDone { block, .. } => Some(block),
                _ => None,
            })
            .collect();
        done.sort_unstable_by_key(|b| (b[2], b[1], b[0]));
        let [gx, gy, gz] = r.dims.grid;
        let grid: Vec<[u32; 3]> = (0..gz)
            .flat_map(|z| (0..gy).flat_map(move |y| (0..gx).map(move |x| [x, y, z])))
            .collect();
        assert_eq!(issues as u64, a.stats.issue_cycles, "{name}: issues");
        assert_eq!(duals as u64, a.stats.dual, "{name}: dual issues");
        assert!(grid.len() > 1, "{name}: a grid of several blocks");
        assert_eq!(done, grid, "{name}: the blocks that finished");
        println!(
            "{name}: {} events, {issues} issues, {} block-done",
            heard.0.len(),
            done.len()
        );
    }
}

/// Every SM starts with a cold instruction cache: its first warp to fetch
/// misses, and the warps of the other schedulers, fetching the same line,
/// wait for that fill too. No instruction issues before the line arrives.
#[test]
fn no_warp_issues_from_a_line_still_being_fetched() {
    use sim_core::timing::{run_timed, Event, Recorder};
    let config = Config::default();
    let latency = config.timing.icache_miss_latency as u64;
    assert!(latency > 0);
    let path = root().join("traces/kernels/saxpy.launch.ron");
    let (cubin, r, _) = load(&path);
    let (mut global, prog, params) = prepare(&cubin, &r);
    let mut heard = Recorder::default();
    run_timed(
        Stepping::Lockstep,
        &prog,
        &mut global,
        &r.dims,
        &params,
        &config,
        r.limit,
        &mut heard,
    )
    .expect("runs");
    // Each SM's first issue, by scheduler.
    let mut first = std::collections::BTreeMap::new();
    for e in &heard.0 {
        if let Event::Issue {
            cycle, sm, sched, ..
        } = *e
        {
            first.entry((sm, sched)).or_insert(cycle);
        }
    }
    assert!(first.len() >= 4, "schedulers that issued: {first:?}");
    for ((sm, sched), cycle) in &first {
        assert!(
            *cycle >= latency,
            "SM {sm} scheduler {sched} issued at cycle {cycle}, before its code arrived at {latency}"
        );
    }
}

/// A run under a [`sim_core::timing::Control`]: the default changes nothing;
/// `max_blocks` runs the grid's first blocks and says so; `until` ends after
/// that cycle with the counters up to it; a stop flag already set ends the
/// run before anything ran; `progress` hears every block once, in cycle order.
#[test]
fn a_control_ends_a_run_early_and_says_why() {
    use sim_core::timing::{Control, Partial, Progress};
    use std::sync::atomic::AtomicBool;
    let config = Config::default();
    let path = root().join("traces/kernels/sgemm_tiled_4x4.launch.ron");
    let (cubin, r, read) = load(&path);
    let go = |ctl: &mut Control| {
        launch::execute_controlled(
            &cubin,
            &r,
            Mode::Timed(Stepping::Turns),
            &config,
            &read,
            &mut sim_core::timing::Nobody,
            ctl,
        )
        .expect("runs")
    };
    let whole = run(&path, &config);
    let wt = whole.timed.as_ref().unwrap();
    let blocks = r.dims.blocks();
    assert!(blocks > 4, "a grid of several blocks");
    let mut heard: Vec<Progress> = Vec::new();
    let mut hear = |p: &Progress| heard.push(*p);
    let same = go(&mut Control {
        progress: Some(&mut hear),
        ..Default::default()
    });
    assert_eq!(same.timed, whole.timed, "a control that ends nothing");
    assert!(same.passed() && !same.checks.is_empty());
    assert_eq!(heard.len() as u64, blocks, "one report per block");
    for (k, p) in heard.iter().enumerate() {
        assert_eq!((p.done, p.total), (k as u64 + 1, blocks));
    }
    assert!(heard
        .windows(2)
        .all(|w| (w[0].cycle, w[0].sm) <= (w[1].cycle, w[1].sm)));
    assert_eq!(heard.last().unwrap().cycle + 1, wt.cycles);

    let first = go(&mut Control {
        max_blocks: Some(3),
        ..Default::default()
    });
    let ft = first.timed.as_ref().unwrap();
    assert_eq!(
        ft.partial,
        Some(Partial::Blocks {
            ran: 3,
            grid: blocks
        })
    );
    assert!(ft.cycles < wt.cycles && ft.stats.warp_instructions < wt.stats.warp_instructions);
    assert_eq!((ft.blocks_done, wt.blocks_done), (3, blocks));
    assert!(first.checks.is_empty(), "a partial run checks nothing");

    let until = wt.cycles / 3;
    let cut = go(&mut Control {
        until: Some(until),
        ..Default::default()
    });
    let ct = cut.timed.as_ref().unwrap();
    assert_eq!(ct.partial, Some(Partial::Until(until)));
    assert_eq!(ct.cycles, until + 1);
    // Every scheduler-cycle up to it counted once, an issue or a stall,
    // the SMs asleep at its end included.
    let stalled: u64 = ct.stats.stall.iter().sum();
    assert_eq!(
        ct.stats.issue_cycles + stalled,
        ct.sms as u64 * config.timing.schedulers as u64 * ct.cycles
    );
    assert!(ct.blocks_done < blocks && cut.stats.blocks == ct.blocks_done);
    assert!(ct.stats.warp_instructions > 0);
    assert!(ct.stats.warp_instructions < wt.stats.warp_instructions);

    let flag = AtomicBool::new(true);
    let stopped = go(&mut Control {
        stop: Some(&flag),
        ..Default::default()
    });
    let st = stopped.timed.as_ref().unwrap();
    assert_eq!(st.partial, Some(Partial::Stopped));
    assert_eq!(st.stats.warp_instructions, 0);
}

/// A unit held an even number of cycles always frees in a cycle of the
/// same parity, so the pairs' alternation gives it to the same pair each
/// time: with shared transactions of 64 cycles, a warp of the lock kernel
/// that holds a shared word's lock never got the load/store unit to release
/// it, and the kernel spun for ever. The arbiter's guarantee of progress
/// (`unit_starvation_cycles`) lets it finish, at any thread count and
/// stepping alike; with the guarantee out of reach, it does not finish in
/// a bounded run.
#[test]
fn a_starved_warp_gets_the_load_store_unit() {
    let path = root().join("traces/kernels/atomics.launch.ron");
    let mut config = Config::default();
    config.timing.shared_cycles_per_transaction = 64.0;
    let out = run(&path, &config);
    assert!(out.passed(), "the lock kernel's results");
    let cycles = out.timed.as_ref().expect("timed").cycles;
    assert_eq!(
        run_as(&path, &config, Stepping::Lockstep)
            .timed
            .expect("timed")
            .cycles,
        cycles
    );
    // Without it (a wait longer than any run), the same kernel is still
    // spinning many times its finished length later.
    config.timing.unit_starvation_cycles = 1 << 30;
    let (cubin, r, read) = load(&path);
    let mut limited = r.clone();
    limited.limit = 100 * out.timed.as_ref().unwrap().stats.warp_instructions / 128;
    let e = launch::execute_as(
        &cubin,
        &limited,
        Mode::Timed(Stepping::Turns),
        &config,
        &read,
    )
    .expect_err("a starved lock holder");
    assert!(e.to_string().contains("limit"), "{e}");
}
