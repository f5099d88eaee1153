//! `keplersim bench study`: the tiled-SGEMM profiling study on the simulated
//! K20m (`sim_kernels::study`): a table of every variant's GFlop/s beside the
//! study's metrics, then the study's observations, each marked as holding or
//! not on the K20m.

use std::path::Path;

use anyhow::{anyhow, bail, Result};
use sim_kernels::study;

/// Runs the sweep at `size` on the configuration at `config` (default: the
/// K20m) and prints it; `json` also writes the rows and findings.
pub fn run(
    size: u32,
    machine: &crate::run::Machine,
    json: Option<&Path>,
    plot: Option<&Path>,
) -> Result<()> {
    if size == 0 || !size.is_multiple_of(study::GRAIN) {
        bail!("--size {size}: a positive multiple of {}", study::GRAIN);
    }
    let cfg = machine.load()?;
    let root = sim_kernels::workload::root();
    println!(
        "{:>7} {:>6} {:>7} {:>5} {:>9} {:>8} {:>8} {:>11} {:>11} {:>7} {:>8} {:>6}",
        "block",
        "tile",
        "values",
        "regs",
        "GFlop/s",
        "occ.th",
        "occ.ach",
        "global_load",
        "shared_load",
        "sh.eff",
        "stall_md",
        "ipc"
    );
    let mut rows = Vec::new();
    for v in study::variants() {
        let r = study::run_one(&root, v, size, &cfg)?;
        println!(
            "{:>7} {:>6} {:>7} {:>5} {:>9.1} {:>7.1}% {:>7.1}% {:>11} {:>11} {:>6.1}% {:>7.1}% {:>6.2}{}",
            format!("{}x{}", v.bx, v.by),
            format!("{}x{}", v.tm, v.tn),
            r.values_per_thread,
            r.registers,
            r.gflops,
            r.theoretical_occupancy * 100.0,
            r.achieved_occupancy * 100.0,
            r.global_load,
            r.shared_load,
            r.shared_efficiency,
            r.stall_memory_dependency,
            r.ipc,
            if r.passed { "" } else { "  C WRONG" }
        );
        rows.push(r);
    }
    let findings = study::findings(&rows);
    println!("\nThe study's observations on the simulated K20m (m = n = k = {size}):");
    for f in &findings {
        println!(
            "  {:<48} {}\n      {}",
            f.claim,
            if f.holds { "holds" } else { "does not hold" },
            f.evidence
        );
    }
    if let Some(p) = json {
        let v = serde_json::json!({ "size": size, "rows": rows, "findings": findings });
        std::fs::write(p, serde_json::to_string_pretty(&v)?)
            .map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    if let Some(p) = plot {
        let points: Vec<crate::plot::StudyPoint> = rows
            .iter()
            .map(|r| {
                (
                    r.threads_per_block,
                    r.values_per_thread,
                    r.gflops,
                    r.achieved_occupancy,
                )
            })
            .collect();
        crate::plot::study(p, &points)?;
        println!("plotted {}", p.display());
    }
    if rows.iter().any(|r| !r.passed) {
        bail!("a variant computed a wrong C");
    }
    Ok(())
}
