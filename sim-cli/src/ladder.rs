//! `keplersim bench sgemm`: runs the SGEMM ladder's table
//! ([`sim_kernels::ladder`]), prints it with each step's gain beside the
//! paper's, and writes it as JSON and SVG.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sim_kernels::ladder::{self, KERNELS, PAPER, PAPER_ALL};

use crate::run::Machine;

/// `keplersim bench sgemm`.
#[allow(clippy::too_many_arguments)]
pub fn run(
    dir: &Path,
    sizes: &[i64],
    machine: &Machine,
    vary: &[String],
    jobs: usize,
    json: Option<&PathBuf>,
    plot: Option<&Path>,
    kit: Option<&Path>,
) -> Result<()> {
    crate::bench::at_least_one("--jobs", jobs)?;
    let config = machine.load()?;
    // Every setting is checked before the first run's minutes.
    let variants = machine.variants(vary)?;
    let done = |row: &ladder::Row| progress("", row);
    let rows = match kit {
        None => ladder::run_all(dir, sizes, &config, jobs, &done)?,
        Some(kit_dir) => {
            // Before the runs' minutes: a directory that cannot be made says so now.
            std::fs::create_dir_all(kit_dir)
                .with_context(|| format!("--kit {}", kit_dir.display()))?;
            let (rows, k) = ladder::run_all_with_kit(dir, sizes, &config, jobs, &done)?;
            crate::bench::write_kit(&k, kit_dir, &config)?;
            rows
        }
    };
    print_table(&rows, sizes, config.chip.sms, machine);
    print_gains(&rows, sizes);
    if let Some(p) = plot {
        let steps: Vec<&str> = ["baseline"]
            .into_iter()
            .chain(PAPER.iter().map(|p| p.0))
            .collect();
        let percent = |i: usize, n: i64| ladder::find(&rows, i, n).map(|r| r.percent_of_peak);
        let paper: Vec<(f64, f64)> = PAPER.iter().map(|p| (p.1, p.2)).collect();
        crate::plot::ladder(p, &steps, sizes, &percent, &paper)?;
        println!("plotted {}", p.display());
    }
    let mut wrong = ladder::wrong(&rows);
    let mut runs = Vec::new();
    for (param, config) in &variants {
        let prefix = format!("[{param}] ");
        let done = |row: &ladder::Row| progress(&prefix, row);
        let rows = ladder::run_all(dir, sizes, config, jobs, &done)?;
        wrong.extend(
            ladder::wrong(&rows)
                .into_iter()
                .map(|w| format!("{w} under {param}")),
        );
        runs.push((param.to_string(), rows));
    }
    if !runs.is_empty() {
        print_variants(machine, sizes, &rows, &runs);
    }
    if let Some(p) = json {
        // The rows, and at each size the steps' gains (fractions), the whole
        // ladder's (a factor) and the figures that miss the paper's check;
        // with --vary, the same under each setting.
        let at_sizes = |rows: &[ladder::Row]| -> Vec<serde_json::Value> {
            sizes.iter().map(|&n| gains_json(rows, n)).collect()
        };
        let mut v = serde_json::json!({
            "rows": rows,
            "sizes": at_sizes(&rows),
        });
        if !runs.is_empty() {
            v["vary"] = runs
                .iter()
                .map(|(setting, rows)| serde_json::json!({"setting": setting, "sizes": at_sizes(rows)}))
                .collect();
        }
        let text = serde_json::to_string_pretty(&v)?;
        std::fs::write(p, text + "\n").with_context(|| format!("{}", p.display()))?;
    }
    if !wrong.is_empty() {
        bail!("C differs from the reference: {}", wrong.join(", "));
    }
    Ok(())
}

/// A table row: `start`, then a cell per size (`-` where `cell` gives
/// none).
fn cells(start: String, sizes: &[i64], cell: impl Fn(i64) -> Option<String>) -> String {
    let mut line = start;
    for &n in sizes {
        match cell(n) {
            Some(c) => line += &format!(" {c} |"),
            None => line += " - |",
        }
    }
    line
}

/// A table's heading: `start`, a column per size headed `size(n)`, and the
/// rule under it (`rule` for the first columns).
fn heading(start: &str, rule: &str, sizes: &[i64], size: impl Fn(i64) -> String) -> String {
    let mut head = start.to_string();
    let mut rule = rule.to_string();
    for &n in sizes {
        head += &format!(" {} |", size(n));
        rule += "---|";
    }
    format!("{head}\n{rule}")
}

/// The kernels' GFlop/s (and percent of peak) at each size, and which were
/// not run where.
fn print_table(rows: &[ladder::Row], sizes: &[i64], sms: u32, machine: &Machine) {
    println!(
        "{}",
        heading("| kernel |", "|---|", sizes, |n| n.to_string())
    );
    for (ki, k) in KERNELS.iter().enumerate() {
        let line = cells(format!("| {} |", k.name), sizes, |n| {
            ladder::find(rows, ki, n)
                .map(|r| format!("{:.0} ({:.1}%)", r.gflops, r.percent_of_peak))
        });
        println!("{line}");
    }
    let skipped: Vec<String> = KERNELS
        .iter()
        .filter(|k| sizes.iter().any(|n| n % k.tile != 0))
        .map(|k| format!("{} ({}-row tile)", k.name, k.tile))
        .collect();
    if !skipped.is_empty() {
        println!(
            "\n`-`: not run, the kernel's tile does not divide the size: {}.",
            skipped.join(", ")
        );
    }
    println!(
        "\nGFlop/s (percent of the FP32 peak of the SMs the grid occupies, at most {sms}), m = n = k, simulated on {}; every C checked bit for bit.",
        machine.describe()
    );
}

/// Each step's gain over the one before beside the paper's, the whole
/// ladder's, the tuned kernel's over +Dual, and the check's verdict at each
/// size.
fn print_gains(rows: &[ladder::Row], sizes: &[i64]) {
    println!(
        "{}",
        heading(
            "\n| step | paper (K20m) |",
            "|---|---|",
            sizes,
            |n| format!("model, {n}")
        )
    );
    for (i, (step, lo, hi)) in PAPER.iter().enumerate() {
        let line = cells(
            format!("| {step} | {} |", paper_range(*lo, *hi)),
            sizes,
            |n| ladder::step_gain(rows, i, n).map(|g| format!("{:+.1}%", g * 100.0)),
        );
        println!("{line}");
    }
    let start = format!("| all, baseline to +Dual | {PAPER_ALL:.1}x |");
    let line = cells(start, sizes, |n| {
        ladder::ladder_gain(rows, n).map(|g| format!("{g:.2}x"))
    });
    println!("{line}");
    let start = "| tuned over +Dual (the model's re-tuning) | - |".to_string();
    let line = cells(start, sizes, |n| {
        ladder::tuned_gain(rows, n).map(|g| format!("{:+.1}%", g * 100.0))
    });
    println!("{line}");
    println!("\n{}", check_rule());
    for &n in sizes {
        println!("- {n}: {}", ladder::verdict(&ladder::misses(rows, n)));
    }
}

/// One run done, on stderr.
fn progress(prefix: &str, row: &ladder::Row) {
    eprintln!(
        "{prefix}{} at {}: {:.1} GFlop/s, {} ({:.0} s)",
        row.kernel,
        row.size,
        row.gflops,
        if row.passed { "C bit-exact" } else { "C WRONG" },
        row.wall_seconds
    );
}

/// The steps' gains at `size` under each setting, beside the machine's own.
fn print_variants(
    machine: &Machine,
    sizes: &[i64],
    base: &[ladder::Row],
    runs: &[(String, Vec<ladder::Row>)],
) {
    let mut head = "| setting |".to_string();
    let mut rule = "|---|".to_string();
    for (step, _, _) in PAPER {
        head += &format!(" {step} |");
        rule += "---|";
    }
    head += " all | +Dual's kernel | tuned |";
    rule += "---|---|---|";
    let pct = |rows: &[ladder::Row], ki: usize, n: i64| {
        ladder::find(rows, ki, n).map_or("-".into(), |r| format!("{:.1}%", r.percent_of_peak))
    };
    for &n in sizes {
        println!(
            "\nEach setting alone over {}, at {n} (each step's gain; the +Dual and tuned kernels' percent of peak):\n{head}\n{rule}",
            machine.describe()
        );
        let own = "(none)".to_string();
        for (setting, rows) in
            std::iter::once((&own, base)).chain(runs.iter().map(|(s, r)| (s, r.as_slice())))
        {
            let mut line = format!("| {setting} |");
            for i in 0..PAPER.len() {
                match ladder::step_gain(rows, i, n) {
                    Some(g) => line += &format!(" {:+.1}% |", g * 100.0),
                    None => line += " - |",
                }
            }
            match ladder::ladder_gain(rows, n) {
                Some(g) => line += &format!(" {g:.2}x |"),
                None => line += " - |",
            }
            line += &format!(
                " {} | {} |",
                pct(rows, PAPER.len(), n),
                pct(rows, ladder::TUNED, n)
            );
            println!("{line}");
        }
    }
}

/// The steps' gains (fractions), the whole ladder's (a factor) and the
/// figures that miss the paper's check, at `n`.
fn gains_json(rows: &[ladder::Row], n: i64) -> serde_json::Value {
    let steps: serde_json::Map<String, serde_json::Value> = PAPER
        .iter()
        .enumerate()
        .map(|(i, p)| (p.0.to_string(), ladder::step_gain(rows, i, n).into()))
        .collect();
    let misses: Vec<serde_json::Value> = ladder::misses(rows, n)
        .into_iter()
        .map(|(what, got, wants)| serde_json::json!({"what": what, "got": got, "wants": wants}))
        .collect();
    serde_json::json!({
        "size": n,
        "gains": steps,
        "all": ladder::ladder_gain(rows, n),
        "tuned_over_dual": ladder::tuned_gain(rows, n),
        "misses": misses,
    })
}

/// `keplersim bench sgemm --card DIR`: a card's results of a kit beside the
/// model's, and the ladder's gains on each.
pub fn card(dir: &Path, json: Option<&Path>) -> Result<()> {
    let card = sim_kernels::kit::CardResults::load(dir)?;
    let rows = ladder::card_rows(&card)?;
    let d = &card.device;
    println!(
        "card: {} (sm_{}{}, {} SMs, {:.1} MHz), the {} runs of the kit in {}, beside the model's runs the kit recorded",
        d.name,
        d.cc.0,
        d.cc.1,
        d.sms,
        d.clock_khz as f64 / 1e3,
        rows.len(),
        dir.display()
    );
    let model = sim_core::config::Config::default();
    if d.sms != model.chip.sms {
        println!(
            "note: the card has {} SMs where the model (configs/k20m.ron) has {}: whole-grid \
             GFlop/s compare only as far as the grid's waves do",
            d.sms, model.chip.sms
        );
    }
    println!("\n| kernel | size | card GFlop/s | model GFlop/s | model against card | C |");
    println!("|---|---|---|---|---|---|");
    for r in &rows {
        println!(
            "| {} | {} | {:.0} | {:.0} | {:+.1}% | {} |",
            r.kernel,
            r.size,
            r.card_gflops,
            r.model_gflops,
            // (A difference below the table's last digit prints as +0.0%.)
            ((r.model_gflops / r.card_gflops - 1.0) * 1000.0).round() / 10.0 + 0.0,
            match r.c_differs {
                0 => "the model's, bit for bit".to_string(),
                1 => "1 element differs from the model's".to_string(),
                n => format!("{n} elements differ from the model's"),
            }
        );
    }
    // Each step's gain on the card and on the model, beside the paper's.
    let mut sizes: Vec<i64> = rows.iter().map(|r| r.size).collect();
    sizes.dedup();
    let gain = |i: usize, n: i64, on_card: bool| {
        ladder::step_gain_of(&|k| ladder::card_gflops(&rows, k, n, on_card), i)
    };
    let mut head = "\n| step | paper (K20m) |".to_string();
    let mut rule = "|---|---|".to_string();
    for n in &sizes {
        head += &format!(" card, {n} | model, {n} |");
        rule += "---|---|";
    }
    println!("{head}\n{rule}");
    let cell = |g: Option<f64>| g.map_or(" - |".to_string(), |g| format!(" {:+.1}% |", g * 100.0));
    for (i, (step, lo, hi)) in PAPER.iter().enumerate() {
        let mut line = format!("| {step} | {} |", paper_range(*lo, *hi));
        for &n in &sizes {
            line += &cell(gain(i, n, true));
            line += &cell(gain(i, n, false));
        }
        println!("{line}");
    }
    let mut line = format!("| all, baseline to +Dual | {PAPER_ALL:.1}x |");
    for &n in &sizes {
        for on_card in [true, false] {
            let g = ladder::ladder_gain_of(&|k| ladder::card_gflops(&rows, k, n, on_card));
            line += &g.map_or(" - |".to_string(), |g| format!(" {g:.2}x |"));
        }
    }
    println!("{line}");
    println!("\n{}", check_rule());
    for &n in &sizes {
        for (on_card, who) in [(true, "card"), (false, "model")] {
            let m = ladder::misses_of(&|k| ladder::card_gflops(&rows, k, n, on_card));
            println!("- {who}, {n}: {}", ladder::verdict(&m));
        }
    }
    if let Some(p) = json {
        let s = serde_json::to_string_pretty(&serde_json::json!({
            "device": {"name": d.name, "cc": [d.cc.0, d.cc.1], "clock_khz": d.clock_khz, "sms": d.sms},
            "rows": rows,
        }))?;
        std::fs::write(p, s + "\n").with_context(|| format!("{}", p.display()))?;
    }
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| r.c_differs > 0)
        .map(|r| format!("{} at {}", r.kernel, r.size))
        .collect();
    if !wrong.is_empty() {
        bail!(
            "the card's C differs from the model's (which is the CPU reference's, bit for bit): {}",
            wrong.join(", ")
        );
    }
    Ok(())
}

/// The check the ladder's figures are held to, as the tables' verdicts
/// head it.
fn check_rule() -> String {
    format!(
        "Held to the paper: each step within {:.0} points of its range, baseline to +Dual within {:.1}-{:.1}x.",
        ladder::STEP_TOLERANCE * 100.0,
        ladder::ALL_RANGE.0,
        ladder::ALL_RANGE.1
    )
}

/// The paper's gain of a step as the tables write it.
fn paper_range(lo: f64, hi: f64) -> String {
    if lo == hi {
        format!("about {:.0}%", lo * 100.0)
    } else {
        format!("{:.0}-{:.0}%", lo * 100.0, hi * 100.0)
    }
}
