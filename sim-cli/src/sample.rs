//! `keplersim run --sample`: runs a grid's first waves, prints the whole
//! grid's estimated cycles with the bound, the part simulated, and which
//! outputs were not checked. The method is `sim_kernels::sample`'s
//! (docs/sampling.md); this only prints.

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, bail, Result};
use serde_json::json;
use sim_core::config::Config;
use sim_core::func::block_at;
use sim_core::launch::Resolved;
use sim_core::timing::Timed;
use sim_isa::cubin::Cubin;
use sim_kernels::sample::{self, Plan};
use sim_kernels::workload::peak_gflops;

use crate::run::{Order, RunArgs};

/// Runs `keplersim run --sample=SPEC` on a loaded kernel and resolved
/// launch; `started` is when the command began (loading and filling the
/// buffers count in the time it prints).
#[allow(clippy::too_many_arguments)]
pub fn run(
    spec: &str,
    args: &RunArgs,
    cubin: &Cubin,
    r: &Resolved,
    config: &Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    file: &Path,
    started: Instant,
) -> Result<()> {
    let plan: Plan = spec.parse().map_err(|e| {
        let hint = if spec.contains('/') || spec.contains('.') {
            " (`--sample` takes an optional value: put it after FILE, or write --sample=waves=N)"
        } else {
            ""
        };
        anyhow!("--sample {e}{hint}")
    })?;
    refuse(args)?;
    let s = sample::run(cubin, r, config, read, plan).map_err(|e| anyhow!("{e}"))?;
    let total = started.elapsed().as_secs_f64();
    let out = &s.outcome;
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| anyhow!("the sampled run was not timed"))?;
    let sim = out.sim_time.as_secs_f64();

    let mut obj = serde_json::Map::new();
    let mut line = |key: &str, text: String, value: serde_json::Value| {
        if !args.json {
            println!("{key:<11} {text}");
        }
        obj.insert(key.to_string(), value);
    };
    crate::run::launch_lines(&mut line, args, r, file, out);
    for f in &s.ledger.finished {
        let [x, y, z] = block_at(r.dims.grid, f.index);
        tracing::debug!(
            "block ({x},{y},{z}) on SM {}: {} cycles from cycle {}",
            f.sm,
            f.cycles,
            f.start
        );
    }
    sampled(&mut line, &s, t, r.dims.grid, total, sim);
    estimate(&mut line, &s, t, r.flops, config);
    let (failed, checks) = check_lines(&mut line, &s, r);
    if !s.whole() {
        unchecked(&mut line, &s);
    }
    if args.json {
        obj.insert("checks".into(), serde_json::Value::Array(checks));
        println!("{}", serde_json::Value::Object(obj));
    }
    if failed > 0 {
        bail!("{failed} of {} checks failed", r.checks.len());
    }
    Ok(())
}

/// Refuses what a sampled run cannot honour.
fn refuse(args: &RunArgs) -> Result<()> {
    let refused = [
        (args.functional, "--functional"),
        (!matches!(args.order, Order::Natural), "--order"),
        (args.lockstep, "--lockstep"),
        (args.metrics.is_some(), "--metrics"),
        (args.plot.is_some(), "--plot"),
        (args.until.is_some(), "--until"),
        (args.dump.is_some(), "--dump"),
        (args.trace.wanted(), "--trace, --view and --perfetto"),
        (!args.vary.is_empty(), "--vary"),
    ];
    if let Some((_, what)) = refused.iter().find(|(on, _)| *on) {
        bail!("--sample predicts a timed run's cycles from its first waves; drop {what}");
    }
    if args.threads.is_some_and(|n| n > 1) {
        // It ends when its last sampled block finishes: on more threads,
        // the other SMs would have run on by amounts that vary run to run.
        bail!("--sample runs its SMs on one thread, so that where it stops never varies; drop --threads");
    }
    Ok(())
}

/// A report line: key, text, JSON value.
type Line<'a> = dyn FnMut(&str, String, serde_json::Value) + 'a;

/// The part simulated: blocks finished, waves, cycles and time; and the
/// blocks' cycles, the first wave's and the later ones'.
fn sampled(line: &mut Line, s: &sample::Sampled, t: &Timed, grid: [u32; 3], total: f64, sim: f64) {
    let waves = s.grid_blocks as f64 / s.wave as f64;
    let done = s.ledger.done();
    line(
        "sampled",
        format!(
            "{} of {} blocks finished ({} {:.1} waves of {} blocks), {} cycles simulated; \
             {:.1} s in all, {:.1} s simulating",
            done,
            s.grid_blocks,
            if s.whole() {
                "the whole grid:".to_string()
            } else {
                format!("{} of the grid's", s.waves)
            },
            waves,
            s.wave,
            t.cycles,
            total,
            sim
        ),
        json!({
            "waves": s.waves, "grid_blocks": s.grid_blocks, "wave_blocks": s.wave,
            "blocks_finished": done, "simulated_cycles": t.cycles, "whole": s.whole(),
            "seconds": total, "seconds_simulating": sim,
        }),
    );
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let (cold, steady) = (&s.ledger.cold, &s.ledger.steady);
    // The later blocks that took the fewest and the most cycles (the first
    // such, in the order they finished): which, and where.
    let later = s.ledger.finished.iter().filter(|f| f.start > 0);
    let which = |f: Option<&sample::Finished>| {
        f.map_or(String::new(), |f| {
            let [x, y, z] = block_at(grid, f.index);
            format!("block ({x},{y},{z}) on SM {}", f.sm)
        })
    };
    let (short, long) = (
        which(later.clone().min_by_key(|f| f.cycles)),
        which(later.rev().max_by_key(|f| f.cycles)),
    );
    line(
        "blocks",
        match (steady.iter().min(), steady.iter().max()) {
            (Some(lo), Some(hi)) => format!(
                "first wave {:.0} cycles a block (mean of {}), later blocks {:.0} (mean of {}, \
                 {lo} to {hi}: {short} to {long})",
                mean(cold),
                cold.len(),
                mean(steady),
                steady.len(),
            ),
            _ => format!(
                "first wave {:.0} cycles a block (mean of {}), no later blocks",
                mean(cold),
                cold.len(),
            ),
        },
        json!({
            "first_wave": { "blocks": cold.len(), "mean_cycles": mean(cold) },
            "later": {
                "blocks": steady.len(), "mean_cycles": mean(steady),
                "shortest": steady.iter().min(), "longest": steady.iter().max(),
            },
            "each": s.ledger.finished.iter().map(|f| json!({
                "block": block_at(grid, f.index), "sm": f.sm, "start": f.start, "cycles": f.cycles,
            })).collect::<Vec<_>>(),
        }),
    );
}

/// The whole grid's cycles, estimated with the bound (or exact, when the
/// grid ran in full), and its GFlop/s when the launch file gives its flops.
fn estimate(line: &mut Line, s: &sample::Sampled, t: &Timed, flops: Option<u64>, config: &Config) {
    let waves = s.grid_blocks as f64 / s.wave as f64;
    let mhz = config.chip.clock_mhz;
    let cycles = s.estimate.map_or(t.cycles, |e| e.cycles);
    match &s.estimate {
        Some(e) => {
            let (below, above) = e.relative();
            line(
                "estimate",
                format!(
                    "{} cycles = {:.4} ms at {mhz:.0} MHz; bound {} to {} (-{:.3}%, +{:.3}%): every \
                     block still to run between the shortest and longest block sampled{}",
                    e.cycles,
                    e.cycles as f64 / mhz / 1e3,
                    e.low,
                    e.high,
                    below * 100.0,
                    above * 100.0,
                    e.alone.map_or(String::new(), |a| format!(
                        ", the last ones as short as a block alone on one SM ({a})"
                    )),
                ),
                json!({
                    "cycles": e.cycles, "low": e.low, "high": e.high,
                    "below": below, "above": above, "exact": false,
                    "shortest": e.shortest, "longest": e.longest, "alone": e.alone,
                }),
            );
        }
        None => line(
            "estimate",
            format!(
                "{} cycles, exact: the grid has only {waves:.1} waves, so it ran in full",
                t.cycles
            ),
            json!({ "cycles": t.cycles, "low": t.cycles, "high": t.cycles, "exact": true }),
        ),
    }
    if let Some(f) = flops {
        let g = f as f64 / (cycles as f64 / (mhz * 1e6)) / 1e9;
        let peak = peak_gflops(config, t.sms);
        line(
            "gflops",
            format!(
                "{g:.1} GFlop/s{}, {:.1}% of the {peak:.0} GFlop/s peak of {} SMs",
                if s.whole() { "" } else { " (estimated)" },
                100.0 * g / peak,
                t.sms
            ),
            json!({ "gflops": g, "peak": peak, "estimated": !s.whole() }),
        );
    }
}

/// The checks' lines: the launch file's checks, then what the sampled
/// blocks wrote held to the reference; how many failed, and their JSON.
fn check_lines(
    line: &mut Line,
    s: &sample::Sampled,
    r: &Resolved,
) -> (usize, Vec<serde_json::Value>) {
    let out = &s.outcome;
    let mut failed = 0;
    let mut checks = Vec::new();
    for (c, res) in r.checks.iter().zip(&out.checks) {
        failed += usize::from(!res.passed());
        let verdict = if res.passed() { "PASS" } else { "FAIL" };
        line(
            "check",
            format!("{}: {verdict} ({} elements)", c.buffer, res.elements),
            json!({ "buffer": c.buffer, "passed": res.passed() }),
        );
        checks.push(json!({ "buffer": c.buffer, "passed": res.passed() }));
    }
    for w in &s.written {
        failed += usize::from(w.mismatches > 0);
        let which = if w.stride > 1 {
            format!(
                "{} of them (every {}th column of each tile)",
                w.checked, w.stride
            )
        } else {
            format!("all {}", w.checked)
        };
        let verdict = match w.first {
            None => "PASS".to_string(),
            Some((i, g, e)) => format!(
                "FAIL, {} differ; first at [{i}]: got {g}, expected {e}",
                w.mismatches
            ),
        };
        line(
            "check",
            format!(
                "{}: {verdict} ({} elements the sampled blocks wrote; {which} held bit-exact \
                 to the reference)",
                w.buffer, w.changed
            ),
            json!({
                "buffer": w.buffer, "passed": w.mismatches == 0, "changed": w.changed,
                "checked": w.checked, "column_stride": w.stride, "mismatches": w.mismatches,
            }),
        );
        checks.push(json!({ "buffer": w.buffer, "passed": w.mismatches == 0, "part": true }));
    }
    (failed, checks)
}

/// What a sample leaves unchecked: the rest of what its blocks wrote, the
/// buffers no sampled block finished, the counters.
fn unchecked(line: &mut Line, s: &sample::Sampled) {
    let done = s.ledger.done();
    let mut parts: Vec<String> = s
        .written
        .iter()
        .map(|w| {
            format!(
                "{}: the other {} elements (blocks not simulated to their end)",
                w.buffer,
                w.elements - w.checked
            )
        })
        .collect();
    parts.extend(s.unchecked.iter().map(|b| {
        format!(
            "{b}: not checked at all (the run stopped after {done} of {} blocks)",
            s.grid_blocks
        )
    }));
    parts.push("the counters (issue, stalls, memory): of the part simulated only".into());
    let buffers: Vec<&str> = s
        .written
        .iter()
        .map(|w| w.buffer.as_str())
        .chain(s.unchecked.iter().map(String::as_str))
        .collect();
    line(
        "unchecked",
        parts.join("; "),
        json!({ "buffers": buffers, "counters": "of the part simulated" }),
    );
}
