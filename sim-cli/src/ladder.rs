//! `keplersim bench sgemm`: runs the SGEMM ladder's table
//! ([`sim_kernels::ladder`]), prints it with each step's gain beside the
//! paper's, and writes it as JSON and SVG.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sim_kernels::ladder::{self, KERNELS, PAPER, PAPER_ALL};

/// `keplersim bench sgemm`.
pub fn run(
    dir: &Path,
    sizes: &[i64],
    config_path: Option<&Path>,
    jobs: usize,
    json: Option<&PathBuf>,
    plot: Option<&Path>,
) -> Result<()> {
    let config = crate::run::load_config(config_path)?;
    let rows = ladder::run_all(dir, sizes, &config, jobs, &|row| {
        eprintln!(
            "{} at {}: {:.1} GFlop/s, {} ({:.0} s)",
            row.kernel,
            row.size,
            row.gflops,
            if row.passed { "C bit-exact" } else { "C WRONG" },
            row.wall_seconds
        );
    })?;
    let mut head = "| kernel |".to_string();
    let mut rule = "|---|".to_string();
    for n in sizes {
        head += &format!(" {n} |");
        rule += "---|";
    }
    println!("{head}\n{rule}");
    for (ki, k) in KERNELS.iter().enumerate() {
        let mut line = format!("| {} |", k.name);
        for &n in sizes {
            match ladder::find(&rows, ki, n) {
                Some(r) => line += &format!(" {:.0} ({:.1}%) |", r.gflops, r.percent_of_peak),
                None => line += " - |",
            }
        }
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
        "\nGFlop/s (percent of the FP32 peak of the SMs the grid occupies, at most {}), m = n = k, simulated on {}; every C checked bit for bit.",
        config.chip.sms,
        config_path.map_or("configs/k20m.ron".into(), |p| p.display().to_string())
    );
    // Each step's gain over the one before, beside the paper's.
    let mut head = "\n| step | paper (K20m) |".to_string();
    let mut rule = "|---|---|".to_string();
    for n in sizes {
        head += &format!(" model, {n} |");
        rule += "---|";
    }
    println!("{head}\n{rule}");
    for (i, (step, lo, hi)) in PAPER.iter().enumerate() {
        let paper = if lo == hi {
            format!("about {:.0}%", lo * 100.0)
        } else {
            format!("{:.0}-{:.0}%", lo * 100.0, hi * 100.0)
        };
        let mut line = format!("| {step} | {paper} |");
        for &n in sizes {
            match ladder::step_gain(&rows, i, n) {
                Some(g) => line += &format!(" {:+.1}% |", g * 100.0),
                None => line += " - |",
            }
        }
        println!("{line}");
    }
    let mut line = format!("| all, baseline to +Dual | {PAPER_ALL:.1}x |");
    for &n in sizes {
        match ladder::ladder_gain(&rows, n) {
            Some(g) => line += &format!(" {g:.2}x |"),
            None => line += " - |",
        }
    }
    println!("{line}");
    let mut line = "| tuned over +Dual (the model's re-tuning) | - |".to_string();
    for &n in sizes {
        match ladder::tuned_gain(&rows, n) {
            Some(g) => line += &format!(" {:+.1}% |", g * 100.0),
            None => line += " - |",
        }
    }
    println!("{line}");
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
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(&rows)?;
        std::fs::write(p, text + "\n").with_context(|| format!("{}", p.display()))?;
    }
    let wrong = ladder::wrong(&rows);
    if !wrong.is_empty() {
        bail!("C differs from the reference: {}", wrong.join(", "));
    }
    Ok(())
}
