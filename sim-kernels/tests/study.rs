//! The profiling study's variants build with NVRTC, run to the right C, and
//! give the metrics the study reads; its observations are worked out from
//! the rows. (`keplersim bench study` runs the whole sweep.)

use sim_core::config::Config;
use sim_kernels::study::{findings, run_one, Variant};
use sim_kernels::workload::root;

fn nvrtc_or_skip() -> bool {
    match sim_oracle::Nvrtc::locate() {
        Ok(_) => true,
        Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: NVRTC is not here ({e}); scripts/fetch-oracle.sh fetches it");
            false
        }
        Err(e) => panic!("NVRTC is missing in CI: {e}"),
    }
}

#[test]
fn study_variants_run_to_the_right_result_with_their_metrics() {
    if !nvrtc_or_skip() {
        return;
    }
    let config = Config::default();
    let mut rows = Vec::new();
    for v in [
        Variant {
            bx: 16,
            by: 16,
            tm: 1,
            tn: 1,
        },
        Variant {
            bx: 16,
            by: 16,
            tm: 4,
            tn: 4,
        },
        Variant {
            bx: 8,
            by: 8,
            tm: 4,
            tn: 4,
        },
    ] {
        let r = run_one(&root(), v, 256, &config).expect("runs");
        assert!(r.passed, "{v:?}: C wrong");
        assert!(r.gflops > 0.0 && r.cycles > 0);
        assert!(r.achieved_occupancy > 0.0 && r.achieved_occupancy <= r.theoretical_occupancy);
        // Per thread and step of k: TM loads of A and TN of B from shared
        // memory; the grid's threads are 256^2 / (TM TN), 16 steps of 16.
        let threads = 256u64 * 256 / v.values() as u64;
        let warps = threads / 32;
        let expected = warps * 256 * (v.tm + v.tn) as u64;
        assert!(
            r.shared_load <= expected,
            "{v:?}: {} shared loads, at most {expected}",
            r.shared_load
        );
        rows.push(r);
    }
    // The same register tile in two block shapes: the same shared loads.
    assert_eq!(rows[1].shared_load, rows[2].shared_load);
    let f = findings(&rows);
    assert_eq!(f.len(), 3);
    assert!(f[1].holds, "{:?}", f[1]);
}

#[test]
fn a_size_the_tiles_do_not_divide_is_refused() {
    let e = run_one(
        &root(),
        Variant {
            bx: 16,
            by: 16,
            tm: 1,
            tn: 1,
        },
        300,
        &Config::default(),
    )
    .expect_err("refused");
    assert!(e.to_string().contains("multiple of 256"), "{e}");
}
