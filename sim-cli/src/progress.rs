//! A long timed run as a person at a terminal sees it: a progress bar on
//! stderr (blocks done of the grid, simulated cycles, their rate, the time
//! left), drawn from the timing model's word of each block that finishes
//! ([`sim_core::timing::Control::progress`]); and Ctrl-C, which ends the run
//! at the model's next turn with the counters so far
//! ([`sim_core::timing::Control::stop`]).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use sim_core::timing::Progress;

/// How long a run goes before its bar appears: a run shorter than this
/// shows none.
pub const DELAY: Duration = Duration::from_secs(2);

/// The least time between two updates of the bar (indicatif limits its
/// redraws too; this spares even the call).
const EVERY: Duration = Duration::from_millis(100);

/// The bar of one run: nothing until the run has gone on for [`DELAY`], and
/// nothing ever when stderr is not a terminal.
pub struct Bar {
    /// Drawn once shown; `None` before, and always off a terminal.
    bar: Option<ProgressBar>,
    /// Whether stderr is a terminal the bar may appear on.
    terminal: bool,
    started: Instant,
    /// The earliest the bar is touched again.
    next: Instant,
    /// The first block to finish: its cycle, and the blocks the chip held
    /// then (a wave).
    first: Option<(u64, u64)>,
}

impl Bar {
    /// A bar for a run starting now, shown only if stderr is a terminal.
    pub fn new() -> Bar {
        Bar::with(std::io::stderr().is_terminal())
    }

    /// A bar for a run starting now; `terminal`: whether it may be shown.
    fn with(terminal: bool) -> Bar {
        let started = Instant::now();
        Bar {
            bar: None,
            terminal,
            started,
            next: started + DELAY,
            first: None,
        }
    }

    /// Hears that a block finished. Costs a clock read when nothing is due:
    /// blocks finish thousands of simulated cycles apart.
    pub fn hear(&mut self, p: &Progress) {
        if !self.terminal {
            return;
        }
        let first = *self.first.get_or_insert((p.cycle, p.started));
        let now = Instant::now();
        if now < self.next {
            return;
        }
        self.next = now + EVERY;
        let bar = self.bar.get_or_insert_with(|| {
            let bar = ProgressBar::with_draw_target(Some(p.total), ProgressDrawTarget::stderr());
            bar.set_style(
                ProgressStyle::with_template("{bar:24} {msg}")
                    .expect("the template parses")
                    .progress_chars("█▌ "),
            );
            bar
        });
        bar.set_length(p.total);
        bar.set_position(p.done);
        bar.set_message(line(p, first, now - self.started));
    }

    /// Takes the bar off the screen (before the report prints).
    pub fn clear(&mut self) {
        if let Some(b) = self.bar.take() {
            b.finish_and_clear();
        }
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

/// The bar's text after `elapsed` at `p`, the first block having finished
/// at `first.0` with `first.1` on the chip: `12/64 blocks, cycle 1.95 M at
/// 312 k cycles/s, 8 s left`.
fn line(p: &Progress, first: (u64, u64), elapsed: Duration) -> String {
    let secs = elapsed.as_secs_f64().max(1e-3);
    format!(
        "{}/{} blocks, cycle {} at {} cycles/s, {} left",
        p.done,
        p.total,
        si(p.cycle as f64),
        si(p.cycle as f64 / secs),
        duration(left(p, first, secs))
    )
}

/// Seconds left of a run `secs` in, at `p`. Blocks finish in waves of as
/// many as the chip holds, so the blocks' count alone misleads (one done of
/// 64 is not 1/64 of the time, when 13 finish together): while a wave as
/// long as the first leaves cycles to run, the cycles' rate tells the time
/// they take; after, the rate of blocks does.
fn left(p: &Progress, (cycle, wave): (u64, u64), secs: f64) -> f64 {
    let waves = p.total.div_ceil(wave.max(1));
    let cycles = cycle.saturating_mul(waves);
    if cycles > p.cycle && p.cycle > 0 {
        (cycles - p.cycle) as f64 * secs / p.cycle as f64
    } else {
        secs * p.total.saturating_sub(p.done) as f64 / p.done.max(1) as f64
    }
}

/// `x` with three significant digits and an SI prefix (`1.95 M`).
fn si(x: f64) -> String {
    let (v, unit) = match x {
        x if x >= 1e9 => (x / 1e9, " G"),
        x if x >= 1e6 => (x / 1e6, " M"),
        x if x >= 1e3 => (x / 1e3, " k"),
        x => (x, ""),
    };
    let digits = if v >= 100.0 || unit.is_empty() {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    format!("{v:.digits$}{unit}")
}

/// Seconds as `8 s`, `3 min 12 s` or `1 h 04 min`.
fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

/// Ctrl-C while it lives: the first sets [`Interrupt::flag`] (the run ends
/// at its next turn with the counters so far), a second ends the program at
/// once with status 130. Dropped, it leaves every Ctrl-C to do the latter
/// (a handler cannot be taken back: removed, it would leave Ctrl-C ignored).
pub struct Interrupt {
    flag: Arc<AtomicBool>,
}

impl Interrupt {
    /// Catches Ctrl-C (SIGINT) from now on. Where that fails, or off Unix,
    /// Ctrl-C ends the program as before, and the flag is never set.
    pub fn catch() -> Interrupt {
        let flag = Arc::new(AtomicBool::new(false));
        #[cfg(unix)]
        {
            use signal_hook::consts::SIGINT;
            use signal_hook::flag;
            // In this order: a Ctrl-C that finds the flag already set ends
            // the program; then the flag is set. When the first fails, the
            // second is not made (Ctrl-C would be caught with no way out).
            if flag::register_conditional_shutdown(SIGINT, 130, Arc::clone(&flag)).is_ok() {
                let _ = flag::register(SIGINT, Arc::clone(&flag));
            }
        }
        Interrupt { flag }
    }

    /// Set by the first Ctrl-C.
    pub fn flag(&self) -> &AtomicBool {
        &self.flag
    }

    /// Whether Ctrl-C was pressed.
    pub fn pressed(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }
}

impl Drop for Interrupt {
    fn drop(&mut self) {
        self.flag.store(true, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_says_blocks_cycles_rate_and_time_left() {
        // The first wave of 16 finished at 1 M cycles: four waves.
        let p = Progress {
            done: 16,
            total: 64,
            started: 32,
            cycle: 1_950_000,
            sm: 3,
            block: [0, 15, 0],
        };
        assert_eq!(
            line(&p, (1_000_000, 16), Duration::from_secs(4)),
            "16/64 blocks, cycle 1.95 M at 488 k cycles/s, 4 s left"
        );
        // Past the waves' estimate, the blocks' rate.
        assert_eq!(left(&p, (400_000, 16), 4.0), 12.0);
        assert_eq!(si(999.0), "999");
        assert_eq!(si(12_345.0), "12.3 k");
        assert_eq!(duration(59.6), "1 min 00 s");
        assert_eq!(duration(3725.0), "1 h 02 min");
    }

    #[test]
    fn off_a_terminal_the_bar_never_appears() {
        let mut b = Bar::with(false);
        b.next = Instant::now() - EVERY;
        let p = Progress {
            done: 1,
            total: 2,
            started: 2,
            cycle: 10,
            sm: 0,
            block: [0, 0, 0],
        };
        b.hear(&p);
        assert!(b.bar.is_none());
        // On a terminal, only once the run has gone on for DELAY.
        let mut b = Bar::with(true);
        b.hear(&p);
        assert!(b.bar.is_none());
    }
}
