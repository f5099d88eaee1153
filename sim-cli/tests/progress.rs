//! A long run as a person at a terminal sees it: `keplersim run` of the
//! tuned SGEMM at 1536 in a tmux terminal shows its progress bar on stderr
//! (blocks done, cycle, rate, time left); Ctrl-C then ends the run with a
//! report marked partial and status 130. Skipped, with a note, where tmux is
//! not installed. The run is cut short, so the test takes a few seconds.

use std::time::Duration;

mod common;
use common::{screen, tmux};

#[test]
fn a_long_run_shows_its_progress_and_ctrl_c_ends_it_partial() {
    if !common::has_tmux() {
        eprintln!("note: tmux is not installed; the progress bar's terminal test is skipped");
        return;
    }
    let term = format!("keplersim-progress-{}", std::process::id());
    let cubin = common::root().join("traces/sgemm/sgemm.cubin");
    let cmd = format!(
        "{} run {} --set m=1536 --set n=1536 --set k=1536",
        env!("CARGO_BIN_EXE_keplersim"),
        cubin.display()
    );
    // The terminal stays when the program ends, to read its report.
    tmux(&["new", "-d", "-s", &term, "-x", "160", "-y", "40", &cmd]);
    tmux(&["set", "-t", &term, "remain-on-exit", "on"]);
    let result = std::panic::catch_unwind(|| {
        // The bar: after two seconds, at the first block's end (the first
        // wave of 13 of the 64 blocks ends near cycle 435 k).
        let bar = screen(&term, " cycles/s, ", Duration::from_secs(90));
        eprintln!("the bar:\n{}", bar.trim_end());
        let line = bar
            .lines()
            .find(|l| l.contains("/64 blocks, cycle "))
            .unwrap_or_else(|| panic!("no bar:\n{bar}"));
        assert!(
            line.contains(" cycles/s, ") && line.ends_with(" left"),
            "{line}"
        );
        tmux(&["send-keys", "-t", &term, "C-c"]);
        let s = screen(&term, "keplersim: interrupted", Duration::from_secs(30));
        eprintln!("after Ctrl-C:\n{}", s.trim_end());
        assert!(
            s.contains("partial     stopped by Ctrl-C after cycle "),
            "{s}"
        );
        assert!(
            s.contains("blocks done; the outputs were not checked"),
            "{s}"
        );
        assert!(
            s.contains("check       none: a partial run is not checked"),
            "{s}"
        );
        assert!(s.contains("keplersim: interrupted (Ctrl-C)"), "{s}");
        assert!(!s.contains("gflops") && !s.contains("PASS"), "{s}");
        // The report starts a line of its own.
        assert!(s.lines().any(|l| l.starts_with("kernel      ")), "{s}");
        // The program ends, with the status of a program Ctrl-C ended (tmux
        // may see the terminal close a moment before it has the status).
        let start = std::time::Instant::now();
        let pane = |f: &str| tmux(&["display", "-p", "-t", &term, f]).trim().to_string();
        while pane("#{pane_dead_status}").is_empty() && start.elapsed() < Duration::from_secs(30) {
            std::thread::sleep(Duration::from_millis(100));
        }
        let pid = pane("#{pane_pid}");
        let state = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        assert_eq!(pane("#{pane_dead}"), "1", "still running:\n{state}");
        assert_eq!(pane("#{pane_dead_status}"), "130");
    });
    tmux(&["kill-ses", "-t", &term]);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
