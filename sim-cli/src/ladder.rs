//! `keplersim bench sgemm`: the SGEMM optimisation ladder and the 8x8 kernel
//! at several sizes, each a full timed simulation whose C is checked bit for
//! bit against the CPU reference; prints the README's table and writes JSON.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{anyhow, bail, Context, Result};
use sim_core::config::Config;
use sim_core::launch;
use sim_core::timing::Stepping;

/// The kernels of the table, in ladder order: (row name, cubin under
/// `traces/sgemm`).
pub const KERNELS: [(&str, &str); 6] = [
    ("baseline", "ladder/baseline.cubin"),
    ("+Reg", "ladder/reg.cubin"),
    ("+LD128", "ladder/ld128.cubin"),
    ("+LDG128", "ladder/ldg128.cubin"),
    ("+Dual (sgemm.cubin)", "sgemm.cubin"),
    ("8x8, +Dual (sgemm8x8.cubin)", "sgemm8x8.cubin"),
];

/// The paper's measured gain of each step over the one before, on a K20m
/// (low and high; +Reg's is given as about 10%).
pub const PAPER: [(&str, f64, f64); 4] = [
    ("+Reg", 0.10, 0.10),
    ("+LD128", 0.27, 0.35),
    ("+LDG128", 0.05, 0.12),
    ("+Dual", 0.84, 1.06),
];

/// The paper's gain from the baseline to +Dual, all steps together.
pub const PAPER_ALL: f64 = 2.6;

/// One simulated run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub kernel: String,
    pub cubin: String,
    pub size: i64,
    pub cycles: u64,
    pub milliseconds: f64,
    pub gflops: f64,
    pub percent_of_peak: f64,
    pub dual_issue_rate: f64,
    pub conflicts_per_fp32: f64,
    pub passed: bool,
    pub wall_seconds: f64,
}

/// Runs one kernel of `dir` at `size` cubed on `config`.
pub fn run_one(dir: &Path, kernel: &str, cubin: &str, size: i64, config: &Config) -> Result<Row> {
    let cubin_path = dir.join(cubin);
    let launch_path = cubin_path.with_extension("launch.ron");
    let text = std::fs::read_to_string(&launch_path)
        .with_context(|| format!("{}", launch_path.display()))?;
    let sets: Vec<(String, i64)> = ["m", "n", "k"]
        .iter()
        .map(|v| (v.to_string(), size))
        .collect();
    let (r, dir) = crate::run::resolve_launch(&launch_path, &text, &sets)?;
    let read = crate::run::reader(&dir);
    let c = crate::run::load_cubin(&cubin_path, &[])?;
    let t0 = std::time::Instant::now();
    let out = launch::execute_as(&c, &r, launch::Mode::Timed(Stepping::Turns), config, &read)
        .map_err(|e| anyhow!("{}: {e}", cubin_path.display()))?;
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| anyhow!("{}: no timing", cubin_path.display()))?;
    let ms = t.millis(config);
    let flops = r.flops.unwrap_or(0) as f64;
    let gflops = flops / (ms * 1e-3) / 1e9;
    let peak = crate::run::peak_gflops(config, t.sms);
    let conflicts: u64 = t.stats.conflicts.iter().sum();
    Ok(Row {
        kernel: kernel.to_string(),
        cubin: cubin.to_string(),
        size,
        cycles: t.cycles,
        milliseconds: ms,
        gflops,
        percent_of_peak: gflops / peak * 100.0,
        dual_issue_rate: t.stats.dual as f64 / t.stats.issue_cycles.max(1) as f64 * 100.0,
        conflicts_per_fp32: conflicts as f64 / t.stats.fp32.max(1) as f64,
        passed: out.passed(),
        wall_seconds: t0.elapsed().as_secs_f64(),
    })
}

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
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (ki, _) in KERNELS.iter().enumerate() {
        for (si, _) in sizes.iter().enumerate() {
            work.push((ki, si));
        }
    }
    // Biggest first, so that the jobs finish together.
    work.sort_by_key(|&(ki, si)| (std::cmp::Reverse(sizes[si]), ki));
    let queue = Mutex::new(work);
    let rows: Mutex<Vec<Row>> = Mutex::new(Vec::new());
    let error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let next = queue.lock().unwrap().pop();
                let Some((ki, si)) = next else { break };
                let (name, cubin) = KERNELS[ki];
                match run_one(dir, name, cubin, sizes[si], &config) {
                    Ok(row) => {
                        eprintln!(
                            "{name} at {}: {:.1} GFlop/s, {} ({:.0} s)",
                            row.size,
                            row.gflops,
                            if row.passed { "C bit-exact" } else { "C WRONG" },
                            row.wall_seconds
                        );
                        rows.lock().unwrap().push(row);
                    }
                    Err(e) => {
                        error.lock().unwrap().get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap() {
        return Err(e);
    }
    let rows = rows.into_inner().unwrap();
    let find = |k: &str, n: i64| rows.iter().find(|r| r.kernel == k && r.size == n);
    let mut head = "| kernel |".to_string();
    let mut rule = "|---|".to_string();
    for n in sizes {
        head += &format!(" {n} |");
        rule += "---|";
    }
    println!("{head}\n{rule}");
    for (name, _) in KERNELS {
        let mut line = format!("| {name} |");
        for &n in sizes {
            match find(name, n) {
                Some(r) => line += &format!(" {:.0} ({:.1}%) |", r.gflops, r.percent_of_peak),
                None => line += " - |",
            }
        }
        println!("{line}");
    }
    println!(
        "\nGFlop/s (percent of the FP32 peak of the SMs the grid occupies, at most {}), m = n = k, simulated on {}; every C checked bit for bit.",
        config.chip.sms,
        config_path.map_or("configs/k20m.ron".into(), |p| p.display().to_string())
    );
    // Each step's gain over the one before, beside the paper's.
    let gflops = |ki: usize, n: i64| find(KERNELS[ki].0, n).map(|r| r.gflops);
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
            match (gflops(i, n), gflops(i + 1, n)) {
                (Some(a), Some(b)) => line += &format!(" {:+.1}% |", (b / a - 1.0) * 100.0),
                _ => line += " - |",
            }
        }
        println!("{line}");
    }
    let mut line = format!("| all, baseline to +Dual | {PAPER_ALL:.1}x |");
    for &n in sizes {
        match (gflops(0, n), gflops(PAPER.len(), n)) {
            (Some(a), Some(b)) => line += &format!(" {:.2}x |", b / a),
            _ => line += " - |",
        }
    }
    println!("{line}");
    if let Some(p) = plot {
        let steps: Vec<&str> = ["baseline"]
            .into_iter()
            .chain(PAPER.iter().map(|p| p.0))
            .collect();
        let percent = |i: usize, n: i64| find(KERNELS[i].0, n).map(|r| r.percent_of_peak);
        let paper: Vec<(f64, f64)> = PAPER.iter().map(|p| (p.1, p.2)).collect();
        crate::plot::ladder(p, &steps, sizes, &percent, &paper)?;
        println!("plotted {}", p.display());
    }
    if let Some(p) = json {
        let text = serde_json::to_string_pretty(&rows)?;
        std::fs::write(p, text + "\n").with_context(|| format!("{}", p.display()))?;
    }
    let wrong: Vec<String> = rows
        .iter()
        .filter(|r| !r.passed)
        .map(|r| format!("{} at {}", r.kernel, r.size))
        .collect();
    if !wrong.is_empty() {
        bail!("C differs from the reference: {}", wrong.join(", "));
    }
    Ok(())
}
