//! `keplersim bench speed` end to end: its figures as JSON, the host they
//! were measured on, the K20m's configuration when none is given, and its
//! refusal of a size the kernel cannot take or a configuration that is not
//! there; and `bench func` on the same launch.
//! (Speed itself is printed, never asserted.)

mod common;

use common::keplersim;

fn speed_json(name: &str) -> serde_json::Value {
    let (v, stdout) = speed_run(name, &["--size", "64"]);
    // The goal is set at 1536: no verdict at another size.
    assert!(!stdout.contains("  goal"), "{stdout}");
    v
}

/// `bench speed` with `args` and `--json`: the JSON report and the text.
fn speed_run(name: &str, args: &[&str]) -> (serde_json::Value, String) {
    let out = std::env::temp_dir().join(format!(
        "keplersim-speed-{}-{name}.json",
        std::process::id()
    ));
    // No `--config`: the K20m's, from any folder (the tests run in sim-cli/,
    // which has no configs/).
    let json = out.display().to_string();
    let mut all = vec!["bench", "speed", "--json", &json];
    all.extend_from_slice(args);
    let (ok, stdout, err) = keplersim(&all);
    assert!(ok, "{err}");
    assert!(stdout.contains("  host                "), "{stdout}");
    let text = std::fs::read_to_string(&out).expect("--json wrote the report");
    let _ = std::fs::remove_file(&out);
    (
        serde_json::from_str(&text).expect("the report is JSON"),
        stdout,
    )
}

#[test]
fn speed_writes_its_figures_and_host_as_json() {
    let a = speed_json("a");
    assert_eq!(a["size"], 64);
    // One 64 x 64 tile: one block, on one SM.
    assert_eq!(a["sms"], 1);
    assert!(a["cycles"].as_u64().is_some_and(|c| c > 0), "{a}");
    assert!(
        a["warp_instructions"].as_u64().is_some_and(|c| c > 0),
        "{a}"
    );
    assert!(
        a["cycles_per_second"].as_f64().is_some_and(|c| c > 0.0),
        "{a}"
    );
    assert!(a["of_goal"].is_null(), "{a}");
    assert!(
        a["host"]["cpu"].as_str().is_some_and(|c| !c.is_empty()),
        "{a}"
    );
    assert!(a["host"]["cpus"].as_u64().is_some_and(|c| c >= 1), "{a}");
    // The simulated figures are the same run after run; only the time moves.
    let b = speed_json("b");
    assert_eq!(a["cycles"], b["cycles"]);
    assert_eq!(a["warp_instructions"], b["warp_instructions"]);
}

#[test]
fn speed_refuses_a_size_the_kernel_cannot_take() {
    let (ok, _, err) = keplersim(&["bench", "speed", "--size", "100"]);
    assert!(!ok);
    assert!(
        err.contains("--size 100: must be a positive multiple of 64"),
        "{err}"
    );
}

#[test]
fn speed_names_a_configuration_that_is_not_there() {
    let (ok, _, err) = keplersim(&["bench", "speed", "--size", "64", "--config", "no/such.ron"]);
    assert!(!ok);
    assert!(err.contains("no/such.ron"), "{err}");
}

#[test]
fn func_runs_the_same_launch() {
    // `bench func` shares `bench speed`'s launch: the same warp-instructions
    // at the same size. No runs at all is an error, of either.
    for cmd in ["func", "speed"] {
        let (ok, _, err) = keplersim(&["bench", cmd, "--size", "64", "--runs", "0"]);
        assert!(!ok && err.contains("--runs 0: at least 1"), "{err}");
    }
    let (ok, stdout, err) = keplersim(&["bench", "func", "--size", "64", "--runs", "1"]);
    assert!(ok, "{err}");
    assert!(stdout.contains("  best of 1 run       0."), "{stdout}");
    let executed = |s: &str| {
        s.lines()
            .find_map(|l| l.strip_prefix("  warp-instructions"))
            .map(|v| v.trim().to_string())
    };
    let timed = speed_json("func");
    assert_eq!(
        executed(&stdout),
        timed["warp_instructions"].as_u64().map(|n| n.to_string()),
        "{stdout}"
    );
    let (ok, _, err) = keplersim(&["bench", "func", "--size", "100"]);
    assert!(!ok);
    assert!(
        err.contains("--size 100: must be a positive multiple of 64"),
        "{err}"
    );
}

/// `--threads 2` runs the benchmark on one thread and on two, checks that
/// both gave the same results, and reports the speed-up (printed and in
/// the JSON, never asserted); `--threads 0` is refused.
#[test]
fn speed_on_threads_gives_the_speedup_and_the_same_results() {
    let (v, stdout) = speed_run("threads", &["--size", "128", "--threads", "2"]);
    assert!(stdout.contains("  on 2 threads        "), "{stdout}");
    assert!(
        stdout.contains("on 2 threads over one, the same cycles, counters and buffers"),
        "{stdout}"
    );
    assert_eq!(v["threaded"]["threads"], 2, "{v}");
    assert!(
        v["threaded"]["speedup"].as_f64().is_some_and(|s| s > 0.0),
        "{v}"
    );
    let (ok, _, err) = keplersim(&["bench", "speed", "--size", "64", "--threads", "0"]);
    assert!(!ok && err.contains("--threads 0: at least 1"), "{err}");
    // No more threads than SMs: an SM runs on one thread at a time.
    let (ok, out, err) = keplersim(&["bench", "speed", "--size", "64", "--threads", "1000"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("--threads 1000: the chip has 13 SMs, so 13 threads"),
        "{err}"
    );
    assert!(out.contains("on 13 threads over one"), "{out}");
}
