//! The `keplersim` binary as a user calls it, from a checkout's root: the
//! help, the README's main job at a small size, the tuned SGEMM with `--set`
//! and `--json`, `disasm | head`, hand-written SASS assembled and run,
//! `check` on the deliberately broken kernels, `gen sgemm`, and a kernel
//! from its CUDA source (compiled with NVRTC from `.oracle/`) to a checked
//! result.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use keplersim_tests::{keplersim, keplersim_path, root, scratch};

#[test]
fn help_says_what_keplersim_is() {
    let r = keplersim(&["--help"]);
    assert!(r.ok, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap_or("");
    assert!(
        first.starts_with("keplersim: a cycle-level simulator of NVIDIA's Kepler GK110 SM"),
        "{}",
        r.stdout
    );
    assert!(!r.stdout.contains("front end"), "{}", r.stdout);
    for cmd in ["run", "disasm", "asm", "check", "profile", "bench", "gen"] {
        assert!(
            r.stdout.contains(&format!("\n  {cmd} ")),
            "no `{cmd}` command:\n{}",
            r.stdout
        );
    }
}

#[test]
fn the_readmes_main_job_at_a_small_size() {
    // README: `cargo run --release -p sim-cli -- run traces/sgemm/sgemm.cubin
    // --config configs/k20m.ron`, at 384 rather than 1536.
    let r = keplersim(&[
        "run",
        "traces/sgemm/sgemm.cubin",
        "--config",
        "configs/k20m.ron",
        "--set",
        "m=384",
        "--set",
        "n=384",
        "--set",
        "k=384",
    ]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    assert!(
        r.stdout
            .starts_with("kernel      sgemm_tn_12x12_dual (traces/sgemm/sgemm.cubin)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("check       c: PASS (147456 elements bit-exact)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("gflops "), "{}", r.stdout);
}

#[test]
fn the_tuned_sgemm_reports_as_json() {
    let r = keplersim(&[
        "run",
        "traces/sgemm/sgemm.cubin",
        "--set",
        "m=192",
        "--set",
        "n=384",
        "--set",
        "k=64",
        "--json",
    ]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).expect("one JSON object");
    assert_eq!(v["kernel"]["name"], "sgemm_tn_12x12_dual", "{v}");
    assert_eq!(v["checks"][0]["buffer"], "c", "{v}");
    assert_eq!(v["checks"][0]["passed"], true, "{v}");
    assert_eq!(v["checks"][0]["elements"], 192 * 384, "{v}");
    assert!(v["cycles"]["cycles"].as_u64().unwrap_or(0) > 0, "{v}");
    // The same launch gives the same cycles.
    let again = keplersim(&[
        "run",
        "traces/sgemm/sgemm.cubin",
        "--set",
        "m=192",
        "--set",
        "n=384",
        "--set",
        "k=64",
        "--json",
    ]);
    let w: serde_json::Value = serde_json::from_str(&again.stdout).expect("JSON");
    assert_eq!(v["cycles"], w["cycles"], "{v}\n{w}");
}

#[test]
fn disasm_into_head_ends_quietly() {
    // `keplersim disasm traces/sgemm/sgemm.cubin | head -5`
    let mut child = Command::new(keplersim_path())
        .current_dir(root())
        .args(["disasm", "traces/sgemm/sgemm.cubin"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run keplersim");
    let lines: Vec<String> = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .take(5)
        .map(|l| l.expect("text"))
        .collect();
    // `head` exits, closing the pipe.
    let out = child.wait_with_output().expect("keplersim ends");
    assert_eq!(lines[1], "\tcode for sm_35", "{lines:?}");
    assert_eq!(lines[2], "\t\tFunction : sgemm_tn_12x12_dual", "{lines:?}");
    assert!(lines[4].contains("/* 0x"), "{lines:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.is_empty(), "not quiet: {stderr}");
}

#[test]
fn hand_written_sass_assembles_and_runs_to_a_checked_result() {
    let dir = scratch("asm");
    let cubin = dir.join("saxpy_hand.cubin");
    let cubin = cubin.to_str().unwrap();
    let r = keplersim(&["asm", "traces/asm/saxpy.sass", "-o", cubin]);
    assert!(r.ok, "{}", r.stderr);
    // The shipped launch file, `traces/asm/saxpy.launch.ron`: the source
    // assembled on the fly beside it, the launch file alone, and the cubin
    // with the launch file named.
    let launch = dir.join("saxpy_hand.launch.ron");
    let shipped = std::fs::read_to_string(root().join("traces/asm/saxpy.launch.ron")).unwrap();
    std::fs::write(&launch, &shipped).unwrap();
    for args in [
        vec!["run", "traces/asm/saxpy.sass"],
        vec!["run", "traces/asm/saxpy.launch.ron"],
        vec!["run", cubin, "--launch", launch.to_str().unwrap()],
    ] {
        let r = keplersim(&args);
        assert!(r.ok, "{args:?}: {}\n{}", r.stderr, r.stdout);
        assert!(r.stdout.contains("kernel      saxpy_hand"), "{}", r.stdout);
        assert!(
            r.stdout
                .contains("check       y: PASS (1024 elements bit-exact)"),
            "{}",
            r.stdout
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_reports_the_broken_kernels() {
    let r = keplersim(&["check", "traces/check/broken.sass"]);
    assert!(r.ok, "{}", r.stderr);
    let line = |k: &str| {
        r.stdout
            .lines()
            .find(|l| l.starts_with(&format!("{k}: ")))
            .unwrap_or_else(|| panic!("no `{k}` line:\n{}", r.stdout))
            .to_string()
    };
    assert!(line("alu_hazard").contains("hazards 1;"), "{}", r.stdout);
    assert!(
        line("dual_rules").contains("dual-issue rule breaks 4;"),
        "{}",
        r.stdout
    );
    assert!(
        line("unaligned_loop").contains("unaligned loops 1"),
        "{}",
        r.stdout
    );
    assert!(
        line("clean").ends_with("dual-issue rule breaks 0; hazards 0; unaligned loops 0"),
        "{}",
        r.stdout
    );
    let strict = keplersim(&["check", "traces/check/broken.sass", "--strict"]);
    assert!(!strict.ok);
    assert!(strict.stderr.contains("findings"), "{}", strict.stderr);
}

#[test]
fn gen_writes_a_kernel_the_assembler_takes_and_that_runs() {
    let dir = scratch("gen");
    let sass = dir.join("k.sass");
    let launch = dir.join("k.launch.ron");
    let (sass, launch) = (sass.to_str().unwrap(), launch.to_str().unwrap());
    let r = keplersim(&[
        "gen", "sgemm", "--block", "8", "-o", sass, "--launch", launch, "--size", "128",
    ]);
    assert!(r.ok, "{}", r.stderr);
    assert!(
        r.stdout.contains("sgemm_tn_8x8_dual, 120 registers"),
        "{}",
        r.stdout
    );
    let cubin = dir.join("k.cubin");
    let r = keplersim(&["asm", sass, "-o", cubin.to_str().unwrap()]);
    assert!(r.ok, "{}", r.stderr);
    let r = keplersim(&["run", launch]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    assert!(r.stdout.contains("check       c: PASS"), "{}", r.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whether NVRTC is here; in CI (`CI=true`) its absence fails the test,
/// elsewhere the test is skipped with a note.
fn nvrtc_or_skip() -> bool {
    match sim_oracle::Nvrtc::locate() {
        Ok(_) => true,
        Err(e) if std::env::var("CI").as_deref() != Ok("true") => {
            eprintln!("skipped: NVRTC is not here ({e}); scripts/fetch-oracle.sh fetches it");
            false
        }
        Err(e) => panic!("NVRTC is missing in CI: {e} (scripts/fetch-oracle.sh fetches it)"),
    }
}

#[test]
fn a_kernel_from_cuda_source_to_a_checked_result() {
    if !nvrtc_or_skip() {
        return;
    }
    // `keplersim run traces/kernels/saxpy.cu`: compiled with NVRTC, run as
    // saxpy.launch.ron (found beside it) says, y checked.
    let r = keplersim(&["run", "traces/kernels/saxpy.cu", "--set", "n=4096"]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    assert!(
        r.stdout
            .contains("kernel      saxpy (traces/kernels/saxpy.cu)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("check       y: PASS (4096 elements bit-exact)"),
        "{}",
        r.stdout
    );
}

/// `golden --param` sets a field over `configs/k20m.ron` and lists what it
/// moves against the K20m's golden reports, with a status of success: the
/// change is the setting's. It never blesses such reports.
#[test]
fn golden_with_a_field_set_lists_what_it_moves() {
    let case = "suite.sgemm_tiled_2x2";
    let golden: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join(format!("traces/golden/{case}.json"))).unwrap(),
    )
    .unwrap();
    let before = golden["cycles"].as_u64().unwrap();
    let r = keplersim(&["golden", "--only", case, "--param", "alu_latency=9"]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    assert!(
        r.stdout.starts_with(
            "on configs/k20m.ron with timing.alu_latency=9, against the golden reports"
        ),
        "{}",
        r.stdout
    );
    let row = r
        .stdout
        .lines()
        .find(|l| l.starts_with(case))
        .unwrap_or_else(|| panic!("no row for {case}:\n{}", r.stdout));
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1], before.to_string(), "{row}");
    assert!(cells[2].parse::<u64>().unwrap() < before, "{row}");
    assert!(
        r.stdout.contains("0 of 1 reports as golden, 1 changed"),
        "{}",
        r.stdout
    );

    let r = keplersim(&["golden", "--bless", "--param", "alu_latency=9"]);
    assert!(!r.ok);
    assert!(
        r.stderr.contains(
            "--bless takes the reports of `configs/k20m.ron with timing.alu_latency=9`: \
             the golden reports are the K20m's as shipped (configs/k20m.ron)"
        ),
        "{}",
        r.stderr
    );
    let r = keplersim(&["golden", "--param", "alu_latencyy=9"]);
    assert!(!r.ok);
    assert!(r.stderr.contains("alu_latencyy"), "{}", r.stderr);
}
