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
    // The program's exit status printed after it: not every tmux keeps a
    // dead pane's status (`#{pane_dead_status}`). bash, which takes the
    // Ctrl-C too, goes on when its child handled it and ended.
    let cmd = format!(
        "exec bash -c '{} run {} --set m=1536 --set n=1536 --set k=1536; echo \"exit status $?\"'",
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
        // The program ends, with the status of a program Ctrl-C ended.
        let s = screen(&term, "exit status ", Duration::from_secs(30));
        assert!(s.contains("exit status 130"), "{s}");
    });
    tmux(&["kill-ses", "-t", &term]);
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
