//! The speed benchmarks' launch: the tiled SGEMM runs to a checked C timed
//! and functionally, the two execute the same warp-instructions, a run
//! happens even when none is asked for, and a size the kernel cannot take is
//! refused.

use sim_core::config::Config;
use sim_kernels::speed::{Launch, GRAIN};
use sim_kernels::workload::root;

#[test]
fn timed_and_functional_runs_execute_the_same_instructions() {
    let l = Launch::sgemm(&root(), GRAIN).unwrap();
    let timed = l.timed(&Config::default(), 0, 1).unwrap();
    let func = l.functional(0).unwrap();
    let t = timed.outcome.timed.as_ref().expect("timed");
    assert!(t.cycles > 0);
    assert!(timed.seconds > 0.0 && func.seconds > 0.0);
    assert_eq!(
        t.stats.warp_instructions,
        func.outcome.stats.warp_instructions
    );
}

#[test]
fn a_size_the_kernel_cannot_take_is_refused() {
    for size in [0, -64, 100] {
        let e = Launch::sgemm(&root(), size).err().expect("refused");
        assert!(
            e.to_string().contains("must be a positive multiple of 64"),
            "{e}"
        );
    }
}
