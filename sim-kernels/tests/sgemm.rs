//! The SGEMM generator and the ladder's table: the committed sources, launch
//! files and cubins of `traces/sgemm` are what the generator makes and the
//! assembler builds from it, and the table's gains are worked out from its
//! rows. (The kernels' runs are checked end to end in sim-cli's tests.)

use sim_core::config::Config;
use sim_kernels::ladder::{self, Row, KERNELS};
use sim_kernels::sgemm::{generate, launch_file, Variant, LADDER};
use sim_kernels::workload::{assemble, root};

/// (step, block, path under traces/sgemm without extension, launch size).
const COMMITTED: [(&str, usize, &str, usize); 7] = [
    ("dual", 12, "sgemm", 1536),
    ("dual", 8, "sgemm8x8", 1536),
    ("baseline", 12, "ladder/baseline", 768),
    ("reg", 12, "ladder/reg", 768),
    ("ld128", 12, "ladder/ld128", 768),
    ("ldg128", 12, "ladder/ldg128", 768),
    ("paper", 12, "ladder/paper", 768),
];

#[test]
fn committed_kernels_are_what_the_generator_makes() {
    let dir = root().join("traces/sgemm");
    let tmp = std::env::temp_dir().join(format!("keplersim-gen-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (step, block, rel, size) in COMMITTED {
        let v = Variant::ladder(step, block).expect("a step of the ladder");
        let g = generate(v);
        let committed = |ext: &str| std::fs::read(dir.join(format!("{rel}.{ext}"))).unwrap();
        assert!(
            g.sass.as_bytes() == committed("sass"),
            "traces/sgemm/{rel}.sass is stale: run traces/sgemm/build.sh"
        );
        let cubin_name = format!("{}.cubin", rel.rsplit('/').next().unwrap());
        assert_eq!(
            launch_file(v, &cubin_name, size).as_bytes(),
            committed("launch.ron"),
            "traces/sgemm/{rel}.launch.ron is stale: run traces/sgemm/build.sh"
        );
        let sass = tmp.join(format!("{}.sass", rel.replace('/', "_")));
        std::fs::write(&sass, &g.sass).unwrap();
        assert!(
            assemble(&sass).unwrap() == committed("cubin"),
            "traces/sgemm/{rel}.cubin is stale: run traces/sgemm/build.sh"
        );
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn every_step_and_block_is_a_variant_and_nothing_else() {
    for step in LADDER {
        assert!(Variant::ladder(step, 12).is_some(), "{step}");
        assert!(Variant::ladder(step, 8).is_some(), "{step}");
        assert!(Variant::ladder(step, 16).is_none(), "{step}");
    }
    assert!(Variant::ladder("fast", 12).is_none());
}

fn row(ki: usize, size: i64, gflops: f64, passed: bool) -> Row {
    Row {
        kernel: KERNELS[ki].name.to_string(),
        cubin: KERNELS[ki].cubin.to_string(),
        size,
        cycles: 0,
        milliseconds: 0.0,
        gflops,
        percent_of_peak: 0.0,
        dual_issue_rate: 0.0,
        conflicts_per_fp32: 0.0,
        passed,
        wall_seconds: 0.0,
    }
}

#[test]
fn the_gains_are_each_step_over_the_one_before() {
    let rows = vec![
        row(0, 384, 400.0, true),
        row(1, 384, 400.0, true),
        row(2, 384, 500.0, true),
        row(3, 384, 550.0, true),
        row(4, 384, 1100.0, false),
        row(ladder::TUNED, 384, 1210.0, true),
    ];
    assert_eq!(ladder::step_gain(&rows, 0, 384), Some(0.0));
    assert_eq!(ladder::step_gain(&rows, 1, 384), Some(0.25));
    assert_eq!(ladder::step_gain(&rows, 3, 384), Some(1.0));
    assert_eq!(ladder::step_gain(&rows, 0, 768), None);
    assert_eq!(ladder::ladder_gain(&rows, 384), Some(2.75));
    // The tuned kernel is no step: its gain is over +Dual, reported apart.
    let tuned = ladder::tuned_gain(&rows, 384).unwrap();
    assert!((tuned - 0.1).abs() < 1e-12, "{tuned}");
    assert_eq!(ladder::tuned_gain(&rows, 768), None);
    assert_eq!(ladder::wrong(&rows), ["+Dual (the paper's bytes) at 384"]);
}

#[test]
fn a_ladder_kernel_runs_to_a_checked_c() {
    let dir = root().join("traces/sgemm");
    let k = KERNELS[4];
    let r = ladder::run_one(&dir, k.name, k.cubin, 192, &Config::default()).unwrap();
    assert!(r.passed, "{r:?}");
    assert!(r.cycles > 0 && r.gflops > 0.0, "{r:?}");
    assert!(
        r.percent_of_peak > 0.0 && r.percent_of_peak < 100.0,
        "{r:?}"
    );
    let e = ladder::run_one(&dir, k.name, "nothing.cubin", 192, &Config::default()).unwrap_err();
    assert!(e.to_string().contains("nothing.launch.ron"), "{e}");
}

#[test]
fn the_table_refuses_a_size_off_the_tile_and_skips_a_kernel_it_does_not_fit() {
    let dir = root().join("traces/sgemm");
    let config = Config::default();
    for sizes in [&[100][..], &[0], &[-192], &[192, 200], &[]] {
        let ran = std::sync::atomic::AtomicUsize::new(0);
        let e = ladder::run_all(&dir, sizes, &config, 1, &|_| {
            ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        })
        .unwrap_err()
        .to_string();
        assert_eq!(
            ran.into_inner(),
            0,
            "{sizes:?} ran something before refusing"
        );
        assert!(
            e.contains("192-row tile") || e.contains("no sizes"),
            "{sizes:?}: {e}"
        );
    }
    // 192 is no multiple of the 8x8 kernel's 128-row tile: every other
    // kernel runs, and that one is left out, not failed.
    let rows = ladder::run_all(&dir, &[192], &config, 2, &|_| {}).unwrap();
    for (ki, k) in KERNELS.iter().enumerate() {
        assert_eq!(
            ladder::find(&rows, ki, 192).is_some(),
            k.tile == ladder::LADDER_TILE,
            "{}",
            k.name
        );
    }
    assert!(rows.iter().all(|r| r.passed));
}
