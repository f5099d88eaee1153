//! The pipeline viewer as a user drives it: `keplersim run --trace` on the
//! tuned SGEMM, `keplersim view` in a tmux terminal fed keys with
//! `send-keys`, its screens read back with `capture-pane`; and the
//! Perfetto export of the same trace, whose slices say which cycles the
//! screens must show. Skipped, with a note, where tmux is not installed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread::sleep;
use std::time::{Duration, Instant};

mod common;
use common::tmux;

fn keplersim() -> Command {
    Command::new(env!("CARGO_BIN_EXE_keplersim"))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Types `keys` into tmux terminal `term` and gives its screen once it shows
/// `want`.
fn press(term: &str, keys: &[&str], want: &str) -> String {
    let mut args = vec!["send-keys", "-t", term];
    args.extend_from_slice(keys);
    tmux(&args);
    screen(term, want)
}

/// The screen once it shows `want` (or after a few seconds, as it is).
fn screen(term: &str, want: &str) -> String {
    common::screen(term, want, Duration::from_secs(10))
}

/// Records SM 0's first 20000 cycles of a shortened tuned SGEMM (2 blocks),
/// the run ending with them.
fn record(dir: &Path) -> PathBuf {
    let t = dir.join("t.kst");
    let out = keplersim()
        .current_dir(root())
        .args([
            "run",
            "traces/sgemm/sgemm.cubin",
            "--set",
            "m=192",
            "--set",
            "n=384",
        ])
        .args(["--set", "k=384", "--sms", "1", "--trace"])
        .arg(&t)
        .args([
            "--trace-sms",
            "0",
            "--trace-cycles",
            "0..20000",
            "--perfetto",
        ])
        .arg(dir.join("t.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The run ends with the window, the trace holding no more.
    assert!(
        text.contains("trace       ")
            && text.contains("partial     ended after cycle 19999")
            && !text.contains("PASS"),
        "{text}"
    );
    t
}

#[test]
fn the_viewer_in_tmux_shows_schedulers_pairs_barriers_and_conflicts() {
    let dir = std::env::temp_dir().join(format!("keplersim-viewer-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = record(&dir);
    // The Perfetto export: where the first barrier arrival and the first
    // bank conflict are.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("t.json")).unwrap()).unwrap();
    let ev = json["traceEvents"].as_array().unwrap();
    let first = |pred: &dyn Fn(&serde_json::Value) -> bool| {
        ev.iter()
            .filter(|e| pred(e))
            .filter_map(|e| e["ts"].as_u64())
            .min()
            .unwrap()
    };
    let barrier = first(&|e| e["cat"] == "barrier");
    let conflict =
        first(&|e| e["cat"] == "issue" && e["args"]["bank_conflict"].as_u64().unwrap_or(0) >= 2);
    let apart = first(&|e| e["cat"] == "apart");
    assert!(ev
        .iter()
        .any(|e| e["cat"] == "issue" && e["args"]["dual"] == true));

    if !common::has_tmux() {
        eprintln!("note: tmux is not installed; the viewer's terminal test is skipped");
        return;
    }
    let term = format!("keplersim-test-{}", std::process::id());
    let cmd = format!("{} view {}", env!("CARGO_BIN_EXE_keplersim"), t.display());
    tmux(&["new", "-d", "-s", &term, "-x", "180", "-y", "45", &cmd]);
    let s = screen(&term, "scheduler 3");
    let result = std::panic::catch_unwind(|| {
        for pane in [
            "scheduler 0",
            "scheduler 3",
            "warps (8)",
            "SASS",
            "units",
            "q quit",
        ] {
            assert!(s.contains(pane), "{pane}:\n{s}");
        }
        assert!(s.contains("cycle 0 of 0..20000"), "{s}");
        // A few cycles on, pairs issue.
        let s = press(&term, &["d"], "‖");
        assert!(s.contains(" ‖ "), "a dual pair:\n{s}");
        // The first barrier.
        let want = format!("cycle {barrier} of");
        let s = press(&term, &["g", "0", "Enter", "b"], &want);
        assert!(
            s.contains(&want) && s.contains("BAR.SYNC"),
            "barrier at {barrier}:\n{s}"
        );
        // The next cycle, the warp waits at it.
        let s = press(&term, &["Right"], "barrier (since");
        assert!(s.contains(&format!("barrier (since {barrier}")), "{s}");
        // The first bank conflict.
        let want = format!("cycle {conflict} of");
        let s = press(&term, &["g", "0", "Enter", "c"], &want);
        assert!(
            s.contains(&want) && s.contains(" !2"),
            "conflict at {conflict}:\n{s}"
        );
        // The first pair issued apart, its cell saying why.
        let want = format!("cycle {apart} of");
        let s = press(&term, &["g", "0", "Enter", "a"], &want);
        assert!(
            s.contains(&want) && s.contains(" ∤") && s.contains("issues alone ("),
            "pair apart at {apart}:\n{s}"
        );
        // Following a warp, and quitting.
        let s = press(&term, &["w"], "following 0.0");
        assert!(s.contains("▶"), "{s}");
        tmux(&["send-keys", "-t", &term, "q"]);
        // It quits, and the terminal (its only program gone) ends.
        let start = Instant::now();
        let alive = || {
            Command::new("tmux")
                .args(["has", "-t", &term])
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
        };
        while alive() && start.elapsed() < Duration::from_secs(5) {
            sleep(Duration::from_millis(100));
        }
        assert!(!alive(), "q did not quit");
    });
    let _ = Command::new("tmux")
        .args(["kill-ses", "-t", &term])
        .output();
    std::fs::remove_dir_all(&dir).ok();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

#[test]
fn view_rejects_a_file_that_is_not_a_trace() {
    let dir = std::env::temp_dir().join(format!("keplersim-notrace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("x.kst");
    std::fs::write(&p, b"hello").unwrap();
    let out = keplersim().arg("view").arg(&p).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a keplersim trace"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_perfetto_export_of_a_whole_run_matches_its_json_report() {
    let dir = std::env::temp_dir().join(format!("keplersim-perfetto-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("p.json");
    let out = keplersim()
        .current_dir(root())
        .args([
            "run",
            "traces/sgemm/sgemm.cubin",
            "--set",
            "m=192",
            "--set",
            "n=192",
        ])
        .args(["--set", "k=96", "--json", "--perfetto"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ev = trace["traceEvents"].as_array().unwrap();
    let slices = |cat: &'static str| ev.iter().filter(move |e| e["ph"] == "X" && e["cat"] == cat);
    // An issue slice per scheduler-cycle that issued, one per pair.
    assert_eq!(
        slices("issue").count() as u64,
        report["issue"]["issue_cycles"].as_u64().unwrap()
    );
    assert_eq!(
        slices("issue")
            .filter(|e| e["args"]["dual"] == true)
            .count() as u64,
        report["issue"]["dual_pairs"].as_u64().unwrap()
    );
    // A mark per pair issued apart, reason by reason as the report's.
    let apart = report["pairs"]["apart"].as_object().unwrap();
    assert!(apart.values().any(|n| n.as_u64() > Some(0)), "{apart:?}");
    let mut marks = std::collections::BTreeMap::new();
    for e in ev.iter().filter(|e| e["ph"] == "i" && e["cat"] == "apart") {
        // `pair apart: second's unit busy` is the report's `second_unit_busy`.
        let why = e["name"]
            .as_str()
            .unwrap()
            .strip_prefix("pair apart: ")
            .unwrap();
        *marks
            .entry(why.replace("'s", "").replace(' ', "_"))
            .or_insert(0u64) += 1;
    }
    for (key, n) in apart {
        assert_eq!(
            marks.get(key).copied().unwrap_or(0),
            n.as_u64().unwrap(),
            "{key}"
        );
    }
    assert_eq!(
        marks.len(),
        apart.values().filter(|n| n.as_u64() > Some(0)).count()
    );
    // Stall slices as long as the report's stalls, reason by reason.
    stalls_match(ev, &report);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn recording_options_are_checked() {
    let run = |extra: &[&str]| {
        let out = keplersim()
            .current_dir(root())
            .args([
                "run",
                "traces/sgemm/sgemm.cubin",
                "--set",
                "m=192",
                "--set",
                "n=192",
            ])
            .args(["--set", "k=8"])
            .args(extra)
            .output()
            .unwrap();
        assert!(!out.status.success());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(run(&["--trace-cycles", "0..10"]).contains("need --trace"));
    assert!(run(&["--trace", "/dev/null", "--trace-cycles", "9..9"]).contains("empty window"));
    assert!(run(&["--trace", "/dev/null", "--trace-sms", "x"]).contains("not an SM number"));
    assert!(run(&["--trace", "/dev/null", "--functional"]).contains("need a timed run"));
}

/// A trace with a window that ends: the run ends with it and says plainly
/// that it is partial (no GFlop/s, no check passed), `--json` carries
/// `partial`, and the trace's Perfetto slices add up to the report's
/// counters over the window. `--trace-full` runs on to the whole, checked
/// report.
#[test]
fn a_trace_window_ends_the_run_which_says_it_is_partial() {
    let dir = std::env::temp_dir().join(format!("keplersim-window-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let run = |extra: &[&str]| {
        let out = keplersim()
            .current_dir(root())
            .args(["run", "traces/sgemm/sgemm.cubin", "--sms", "2"])
            .args(["--set", "m=192", "--set", "n=384", "--set", "k=384"])
            .arg("--trace")
            .arg(dir.join("w.kst"))
            .args(["--trace-cycles", "0..5000"])
            .args(extra)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        text
    };
    let text = run(&[]);
    assert!(
        text.contains(
            "partial     ended after cycle 4999, the end of the trace's window (--trace-full runs on): \
             the counters below are of cycles 0 to 4999, with 0 of 2 blocks done; the outputs were not checked"
        ),
        "{text}"
    );
    assert!(text.contains("cycles      5000 on 2 SMs"), "{text}");
    assert!(text.contains("check       none: a partial run is not checked"));
    assert!(!text.contains("gflops") && !text.contains("PASS"), "{text}");

    let json = dir.join("w.json");
    let text = run(&["--json", "--perfetto", json.to_str().unwrap()]);
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["partial"]["reason"], "until");
    assert_eq!(report["partial"]["last_cycle"], 4999);
    assert_eq!(report["cycles"]["cycles"], 5000);
    assert!(report.get("gflops").is_none());
    assert_eq!(report["checks"], serde_json::json!([]));
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let ev = trace["traceEvents"].as_array().unwrap();
    let slices = |cat: &'static str| ev.iter().filter(move |e| e["ph"] == "X" && e["cat"] == cat);
    let issues = slices("issue").count() as u64;
    assert_eq!(issues, report["issue"]["issue_cycles"].as_u64().unwrap());
    let stalled = stalls_match(ev, &report);
    // Every scheduler-cycle of the window, on both SMs, is in the trace.
    assert_eq!(issues + stalled, 2 * 4 * 5000);

    let text = run(&["--trace-full"]);
    assert!(
        !text.contains("partial") && text.contains("check       c: PASS"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Asserts that a Perfetto export's stall slices (`ev`) last, reason by
/// reason, as many scheduler-cycles as the JSON report's stalls; returns
/// their sum.
fn stalls_match(ev: &[serde_json::Value], report: &serde_json::Value) -> u64 {
    let mut stalled = 0;
    for (reason, cycles) in report["stalls"]["by_reason"].as_object().unwrap() {
        let name = reason.replace('_', " ");
        let sum: u64 = ev
            .iter()
            .filter(|e| e["ph"] == "X" && e["cat"] == "stall" && e["name"] == name.as_str())
            .map(|e| e["dur"].as_u64().unwrap())
            .sum();
        assert_eq!(sum, cycles.as_u64().unwrap(), "{reason}");
        stalled += sum;
    }
    stalled
}
