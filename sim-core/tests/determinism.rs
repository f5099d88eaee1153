//! Determinism across the ways a grid can be run: every kernel of the suite
//! leaves the same bytes in every buffer functionally in any block order and
//! timed on chips whose SMs take its blocks in different interleavings, and a
//! timed run repeated in the same process gives the same cycles and counters.
//!
//! What the other tests already hold: `suite.rs` the functional model across
//! block orders, `timed.rs` stepping by turns against lockstep. Here the two
//! models are held to each other, byte for byte, not only each to the
//! reference within its tolerance.

mod common;

use std::path::Path;

use sim_core::config::Config;
use sim_core::func::BlockOrder;
use sim_core::launch::{self, Mode, Outcome};
use sim_core::timing::Stepping;

use common::{launch_files, load};

fn run(path: &Path, mode: Mode, config: &Config) -> Outcome {
    let (cubin, r, read) = load(path);
    launch::execute_as(&cubin, &r, mode, config, &read)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A chip of `sms` SMs, otherwise the K20m.
fn chip_of(sms: u32) -> Config {
    let mut c = Config::default();
    c.chip.sms = sms;
    c
}

/// Panics unless `b` holds the buffers of `a`, byte for byte.
fn same_buffers(name: &str, how: &str, a: &Outcome, b: &Outcome) {
    assert_eq!(a.finals.len(), b.finals.len(), "{name} {how}: buffers");
    for (x, y) in a.finals.iter().zip(&b.finals) {
        assert_eq!(x.name, y.name, "{name} {how}");
        if x.data != y.data {
            let at = x.data.iter().zip(&y.data).position(|(p, q)| p != q);
            panic!(
                "{name} {how}: buffer `{}` differs from the functional run's in natural order (first at byte {at:?})",
                x.name
            );
        }
    }
}

/// Each suite kernel's buffers after a functional run in natural order are
/// the buffers of functional runs in three other orders, and of timed runs on
/// 1, 3 and 13 SMs (one SM runs the blocks a few at a time in natural order;
/// more SMs interleave them differently) stepped by turns and in lockstep.
#[test]
fn every_suite_kernel_leaves_the_same_bytes_in_every_order_and_both_models() {
    let files = launch_files();
    assert!(files.len() >= 20, "the suite's launch files");
    let k20m = Config::default();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let base = run(f, Mode::Functional(BlockOrder::Natural), &k20m);
        assert!(base.passed(), "{name}: checks");
        assert!(!base.finals.is_empty(), "{name}: buffers");
        for order in [
            BlockOrder::Reverse,
            BlockOrder::Shuffled(1),
            BlockOrder::Shuffled(0x5eed),
        ] {
            let other = run(f, Mode::Functional(order), &k20m);
            same_buffers(&name, &format!("functional, {order:?}"), &base, &other);
            assert_eq!(base.stats, other.stats, "{name} {order:?}: counters");
        }
        for sms in [1, 3, 13] {
            let config = chip_of(sms);
            let turns = run(f, Mode::Timed(Stepping::Turns), &config);
            same_buffers(
                &name,
                &format!("timed by turns on {sms} SMs"),
                &base,
                &turns,
            );
            if sms != 13 {
                // timed.rs holds lockstep to turns on the K20m already.
                let step = run(f, Mode::Timed(Stepping::Lockstep), &config);
                same_buffers(
                    &name,
                    &format!("timed in lockstep on {sms} SMs"),
                    &base,
                    &step,
                );
                assert_eq!(
                    turns.timed, step.timed,
                    "{name} on {sms} SMs: cycles and counters"
                );
            }
        }
    }
}

/// A timed run repeated in one process (where each hash map is seeded
/// afresh) gives the same cycles, counters and buffers, for every suite
/// kernel, in both steppings.
#[test]
fn every_suite_kernel_gives_the_same_cycles_when_run_again() {
    let config = Config::default();
    for f in launch_files() {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for stepping in [Stepping::Turns, Stepping::Lockstep] {
            let a = run(&f, Mode::Timed(stepping), &config);
            let b = run(&f, Mode::Timed(stepping), &config);
            assert!(a.timed.is_some(), "{name}: timed");
            assert_eq!(a.timed, b.timed, "{name} {stepping:?}: cycles and counters");
            same_buffers(&name, &format!("{stepping:?} again"), &a, &b);
        }
    }
}

/// The outcome of `path` (its launch file's values, with `sets` replacing
/// some) timed by turns on `config` with the SMs on `threads` threads.
fn run_threaded(path: &Path, sets: &[(&str, i64)], config: &Config, threads: usize) -> Outcome {
    let (cubin, mut r, read) = load(path);
    if !sets.is_empty() {
        let text = std::fs::read_to_string(path).expect("launch file");
        let spec = launch::parse(&text).expect("parses");
        let sets: Vec<(String, i64)> = sets.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        r = launch::resolve(&spec, &sets, &read).expect("resolves");
    }
    let mut ctl = sim_core::timing::Control {
        threads,
        ..Default::default()
    };
    launch::execute_controlled(
        &cubin,
        &r,
        Mode::Timed(Stepping::Turns),
        config,
        &read,
        &mut sim_core::timing::Nobody,
        &mut ctl,
    )
    .unwrap_or_else(|e| panic!("{} on {threads} threads: {e}", path.display()))
}

/// Every suite kernel, and the tuned SGEMM, gives the same cycles, counters
/// and buffers with its SMs on 2 and 3 threads as on one, on the K20m and on
/// a chip of 3 SMs (more blocks to an SM, so more of them wait on each
/// other's global accesses).
#[test]
fn every_kernel_gives_the_same_results_on_any_thread_count() {
    let sgemm = common::root().join("traces/sgemm/sgemm.launch.ron");
    let mut cases: Vec<(std::path::PathBuf, Vec<(&str, i64)>)> =
        launch_files().into_iter().map(|f| (f, vec![])).collect();
    cases.push((sgemm.clone(), vec![("m", 768), ("n", 768), ("k", 384)]));
    for (f, sets) in &cases {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        for config in [Config::default(), chip_of(3)] {
            let one = run_threaded(f, sets, &config, 1);
            assert!(one.passed(), "{name}: checks");
            for threads in [2, 3] {
                let many = run_threaded(f, sets, &config, threads);
                let how = format!("on {} SMs and {threads} threads", config.chip.sms);
                assert_eq!(one.timed, many.timed, "{name} {how}: cycles and counters");
                same_buffers(&name, &how, &one, &many);
            }
        }
    }
}
