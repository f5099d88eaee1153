//! The per-instruction profile (`keplersim profile`) sums to the run's own
//! counters: executions to warp-instructions, issues and dual pairs, pairs
//! issued apart by why, bank conflicts by degree, and stall cycles by
//! reason (with those no instruction gave); and profiling changes nothing
//! of the run.

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_core::timing::events::{NAPART, NSTALLS};
use sim_core::timing::profile::Profile;
use sim_core::timing::Stepping;
use sim_kernels::workload;

fn check(launch_file: &str, sets: &[(&str, i64)]) {
    let root = workload::root();
    let path = root.join(launch_file);
    let sets: Vec<(String, i64)> = sets.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    let r = workload::resolve(&path, &sets).expect("launch");
    let (_, cubin) = workload::cubin_of(&path, &r).expect("cubin");
    let dir = path.parent().expect("folder").to_path_buf();
    let read = workload::reader(&dir);
    let config = Config::default();
    let mut profile = Profile::new(0);
    let seen = launch::execute_observed(
        &cubin,
        &r,
        Mode::Timed(Stepping::Lockstep),
        &config,
        &read,
        &mut profile,
    )
    .expect("runs");
    let plain =
        launch::execute_as(&cubin, &r, Mode::Timed(Stepping::Turns), &config, &read).expect("runs");
    assert_eq!(
        seen.timed, plain.timed,
        "{launch_file}: profiling changed the run"
    );
    assert!(seen.passed(), "{launch_file}");
    let st = &seen.timed.as_ref().expect("timed").stats;
    let sum = |f: &dyn Fn(&sim_core::timing::profile::PcCounts) -> u64| -> u64 {
        profile.by_slot.iter().map(f).sum()
    };
    assert_eq!(
        sum(&|c| c.executions),
        st.warp_instructions,
        "{launch_file}"
    );
    assert_eq!(sum(&|c| c.issues), st.issue_cycles, "{launch_file}");
    assert_eq!(sum(&|c| c.dual), st.dual, "{launch_file}");
    for k in 0..3 {
        assert_eq!(
            sum(&|c| c.conflicts[k]),
            st.conflicts[k],
            "{launch_file}: conflicts {k}"
        );
    }
    for k in 0..NAPART {
        assert_eq!(
            sum(&|c| c.apart[k]),
            st.pairs_apart[k],
            "{launch_file}: pairs apart {k}"
        );
    }
    for i in 0..NSTALLS {
        assert_eq!(
            sum(&|c| c.stall[i]) + profile.unattributed[i],
            st.stall[i],
            "{launch_file}: stall reason {i}"
        );
    }
    // Control words never execute.
    assert!(profile.by_slot.iter().step_by(8).all(|c| c.executions == 0));
}

#[test]
fn the_profile_of_the_tuned_sgemm_sums_to_its_counters() {
    check(
        "traces/sgemm/sgemm.launch.ron",
        &[("m", 384), ("n", 384), ("k", 384)],
    );
}

#[test]
fn the_profile_of_suite_kernels_sums_to_their_counters() {
    for k in [
        "histogram",
        "reduce",
        "sgemm_tiled_4x4",
        "transpose_unpadded",
        "special",
    ] {
        check(&format!("traces/kernels/{k}.launch.ron"), &[]);
    }
}
