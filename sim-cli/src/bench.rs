//! `keplersim bench`: speed figures of the simulator itself, printed (never
//! asserted by tests).

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Result};
use clap::Subcommand;
use sim_kernels::speed::{self, Best, GOAL_CYCLES_PER_S, GOAL_SIZE};

use crate::run::Machine;

/// The benchmarks.
#[derive(Subcommand)]
pub enum BenchCmd {
    /// Functional speed: warp-instructions per second on the tiled SGEMM
    /// (16 values per thread) at N x N, one core.
    Func {
        /// Matrix size (a multiple of 64).
        #[arg(long, default_value_t = 512)]
        size: i64,
        /// Runs; the best is reported.
        #[arg(long, default_value_t = 3)]
        runs: u32,
    },
    /// Timing-model speed: simulated K20m cycles and warp-instructions per
    /// second, full chip, on the tiled SGEMM (16 values per thread) at N x N
    /// (the goal is 500,000 cycles per second at 1536, one core). With
    /// --threads N above 1, the same run on one thread and on N, the
    /// speed-up, and a check that both gave the same results.
    Speed {
        /// Matrix size (a multiple of 64).
        #[arg(long, default_value_t = 1536)]
        size: i64,
        /// Runs; the best is reported. With --threads N, runs on one thread
        /// and on N in turn, the best of each.
        #[arg(long, default_value_t = 1)]
        runs: u32,
        /// Threads to run the SMs on.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        #[command(flatten)]
        machine: Machine,
        /// Also write the figures, with the host they were measured on, as
        /// JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// The SGEMM ladder table: every kernel of `traces/sgemm` (baseline, +Reg,
    /// +LD128, +LDG128, +Dual with the paper's bytes, the tuned kernel and its
    /// 8x8 variant) at each size, fully simulated and checked bit for bit;
    /// prints the README's table.
    Sgemm {
        /// Sizes m = n = k: multiples of 192 (the 8x8 kernel, whose tile is
        /// 128, runs only at multiples of 384).
        #[arg(long, value_delimiter = ',', default_value = "768,1536,3072")]
        sizes: Vec<i64>,
        #[command(flatten)]
        machine: Machine,
        /// Simulations run at once (each on one core).
        #[arg(long, default_value_t = 1)]
        jobs: usize,
        /// Also write the rows as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also plot the ladder (percent of peak by step, beside the band of
        /// the paper's gains) as SVG here.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
        /// Also write every run into DIR as a kit for a real sm_35 card: the
        /// cubins, A, B and C, how each is launched, the model's C and time,
        /// and run_kit.c, which runs them with NVIDIA's driver alone
        /// (docs/sgemm.md)
        #[arg(long, value_name = "DIR", conflicts_with = "card")]
        kit: Option<PathBuf>,
        /// Print a card's results of a kit (DIR/results, written by run_kit)
        /// beside the model's, each C checked against the model's, and the
        /// ladder's gains on the card; runs nothing on the model
        #[arg(long, value_name = "DIR", conflicts_with_all = ["sizes", "jobs", "plot", "config", "param", "vary"])]
        card: Option<PathBuf>,
        /// Also run the ladder with each of these values of a field, one
        /// setting at a time over the machine, and print each step's gain
        /// under each beside the machine's own: `--vary branch_latency=4,8`
        /// (repeatable; a field as `--param` names it)
        #[arg(long, value_name = "FIELD=V1,V2,...", conflicts_with = "kit")]
        vary: Vec<String>,
    },
    /// The microbenchmark suite (`traces/micro`) on the timing model, against
    /// the K20m's measured figures: prints a table, writes JSON.
    Micro {
        #[command(flatten)]
        machine: Machine,
        /// Also write the rows as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Stream 64 MB instead of the paper's 256 MB (the bandwidth is the same
        /// once streaming; CI uses this).
        #[arg(long)]
        fast: bool,
        /// Exit non-zero when a figure leaves its band.
        #[arg(long)]
        check: bool,
        /// Also write every kernel the suite runs into DIR as a kit for a real
        /// sm_35 card: the cubins, how each is launched (kit.txt), what each
        /// stored on the model, and run_kit.c, which runs them on the card
        /// with NVIDIA's driver alone (docs/microbenchmarks.md)
        #[arg(long, value_name = "DIR", conflicts_with = "card")]
        kit: Option<PathBuf>,
        /// Derive the figures from a card's results of a kit (DIR/results,
        /// written by run_kit) instead of the model's runs, and print them
        /// beside the model's
        #[arg(long, value_name = "DIR", conflicts_with_all = ["fast", "check", "vary"])]
        card: Option<PathBuf>,
        /// Also run the suite with each of these values of a field, one
        /// setting at a time over the machine, and say under each which
        /// rows leave their bands and how many figures move:
        /// `--vary reuse_warps=0,1` (repeatable; --check holds the
        /// machine's own rows only)
        #[arg(long, value_name = "FIELD=V1,V2,...", conflicts_with = "kit")]
        vary: Vec<String>,
    },
    /// The tiled-SGEMM profiling study on the simulated K20m: sgemm_tiled.cu
    /// built with NVRTC for values per thread 1 to 64 and blocks of 64, 256
    /// and 512 threads, each run and checked, with the study's metrics and
    /// its observations marked as holding or not.
    Study {
        /// m = n = k (a multiple of 256).
        #[arg(long, default_value_t = 512)]
        size: u32,
        #[command(flatten)]
        machine: Machine,
        /// Also write the rows and findings as JSON here.
        #[arg(long)]
        json: Option<PathBuf>,
        /// Also plot GFlop/s and achieved occupancy against values per
        /// thread, a line per block size, as SVG here.
        #[arg(long, value_name = "FILE.svg")]
        plot: Option<PathBuf>,
    },
}

impl BenchCmd {
    /// The files it writes (`--json`, `--plot`).
    fn outputs(&self) -> Vec<&Path> {
        let (json, plot) = match self {
            BenchCmd::Func { .. } => (None, None),
            BenchCmd::Speed { json, .. } | BenchCmd::Micro { json, .. } => (json.as_ref(), None),
            BenchCmd::Sgemm { json, plot, .. } | BenchCmd::Study { json, plot, .. } => {
                (json.as_ref(), plot.as_ref())
            }
        };
        json.into_iter().chain(plot).map(PathBuf::as_path).collect()
    }
}

/// Runs a benchmark.
pub fn run(cmd: BenchCmd) -> Result<()> {
    for p in cmd.outputs() {
        crate::writable(p)?;
    }
    match cmd {
        BenchCmd::Func { size, runs } => func(size, runs),
        BenchCmd::Speed {
            size,
            runs,
            threads,
            machine,
            json,
        } => speed(size, runs, threads, &machine, json.as_deref()),
        BenchCmd::Sgemm {
            sizes,
            machine,
            jobs,
            json,
            plot,
            kit,
            card,
            vary,
        } => match card {
            Some(dir) => crate::ladder::card(&dir, json.as_deref()),
            None => crate::ladder::run(
                &workspace().join("traces/sgemm"),
                &sizes,
                &machine,
                &vary,
                jobs,
                json.as_ref(),
                plot.as_deref(),
                kit.as_deref(),
            ),
        },
        BenchCmd::Micro {
            machine,
            json,
            fast,
            check,
            kit,
            card,
            vary,
        } => match card {
            Some(dir) => micro_card(&machine, json.as_deref(), &dir),
            None => micro(
                &machine,
                &vary,
                json.as_deref(),
                fast,
                check,
                kit.as_deref(),
            ),
        },
        BenchCmd::Study {
            size,
            machine,
            json,
            plot,
        } => crate::study::run(size, &machine, json.as_deref(), plot.as_deref()),
    }
}

fn micro(
    machine: &Machine,
    vary: &[String],
    json: Option<&Path>,
    fast: bool,
    check: bool,
    kit: Option<&Path>,
) -> Result<()> {
    use sim_kernels::micro::{self, Kind};
    let cfg = machine.load()?;
    // Every setting is checked before the suite's seconds.
    let variants = machine.variants(vary)?;
    let t0 = std::time::Instant::now();
    let rows = match kit {
        None => micro::suite(&workspace(), &cfg, fast)?,
        Some(dir) => {
            // Before the suite's seconds: a directory that cannot be made says so now.
            std::fs::create_dir_all(dir).map_err(|e| anyhow!("--kit {}: {e}", dir.display()))?;
            let (rows, k) = micro::suite_with_kit(&workspace(), &cfg, fast)?;
            write_kit(&k, dir, &cfg)?;
            rows
        }
    };
    print!("{}", micro::table(&rows));
    let out = micro::out_of_band(&rows);
    println!(
        "{} rows: {} checked against an independent K20m figure, {} fitted (a parameter was set from the figure), {} properties, {} predictions (not checked); {out} out of band ({:.1} s)",
        rows.len(),
        micro::count(&rows, Kind::Checked),
        micro::count(&rows, Kind::Fitted),
        micro::count(&rows, Kind::Property),
        micro::count(&rows, Kind::Prediction),
        t0.elapsed().as_secs_f64()
    );
    if let Some(p) = json {
        let s = serde_json::to_string_pretty(&rows)?;
        std::fs::write(p, s).map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    if !variants.is_empty() {
        println!("\nEach setting alone over {}:", machine.describe());
    }
    for (param, cfg) in &variants {
        let under = micro::suite(&workspace(), cfg, fast)?;
        let left: Vec<String> = under
            .iter()
            .filter(|r| !r.ok)
            .map(|r| format!("`{}` ({:.2})", r.name, r.simulated))
            .collect();
        let moved = rows
            .iter()
            .zip(&under)
            .filter(|(a, b)| (a.simulated - b.simulated).abs() > 0.005 * a.simulated.abs())
            .count();
        println!(
            "- {param}: {} of {} rows out of band{}; figures moved by more than 0.5%: {moved}",
            left.len(),
            under.len(),
            if left.is_empty() {
                String::new()
            } else {
                format!(" ({})", left.join(", "))
            }
        );
    }
    if check && out > 0 {
        bail!("{out} microbenchmark figures are out of their bands");
    }
    Ok(())
}

/// Writes kit `k` into `dir` and says what to do with it.
pub fn write_kit(
    k: &sim_kernels::kit::Kit,
    dir: &Path,
    cfg: &sim_core::config::Config,
) -> Result<()> {
    k.write(dir, cfg.chip.clock_mhz)?;
    eprintln!(
        "kit: {} kernels in {}; beside an sm_35 card, `cc -std=c99 -O2 -o run_kit run_kit.c -ldl && ./run_kit` there, then `keplersim bench {} --card {}`",
        k.launches().count(),
        dir.display(),
        k.suite(),
        dir.display()
    );
    Ok(())
}

/// `bench micro --card DIR`: the suite's figures from a card's results of
/// its kit, beside the model's.
fn micro_card(machine: &Machine, json: Option<&Path>, dir: &Path) -> Result<()> {
    use sim_kernels::kit::CardResults;
    use sim_kernels::micro;
    let cfg = machine.load()?;
    let card = CardResults::load(dir)?;
    let d = card.device.clone();
    let (fast, runs) = (card.fast, card.launches.len());
    let on_card = micro::suite_on_card(&workspace(), &cfg, card)?;
    let on_model = micro::suite(&workspace(), &cfg, fast)?;
    let rows = micro::compare(&on_model, &on_card);
    let readings = micro::readings(&workspace(), &cfg, fast, &on_model)?;
    println!(
        "card: {} (sm_{}{}, {} SMs, {:.1} MHz), the {runs} runs of the kit in {}",
        d.name,
        d.cc.0,
        d.cc.1,
        d.sms,
        d.clock_khz as f64 / 1e3,
        dir.display()
    );
    print!("{}", micro::card_table(&rows));
    let held: Vec<_> = rows.iter().filter_map(|r| r.card_ok).collect();
    println!(
        "{} rows; of the {} held to a K20m figure or a model parameter, the card is in band in {}",
        rows.len(),
        held.len(),
        held.iter().filter(|&&ok| ok).count()
    );
    print!("{}", micro::readings_table(&readings, &on_card, &cfg));
    if let Some(p) = json {
        let s = serde_json::to_string_pretty(&serde_json::json!({
            "device": {"name": d.name, "cc": [d.cc.0, d.cc.1], "clock_khz": d.clock_khz, "sms": d.sms},
            "rows": rows,
            "readings": readings,
            "verdicts": micro::verdicts(&readings, &on_card),
        }))?;
        std::fs::write(p, s).map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// What `bench speed` measured, as `--json` writes it.
#[derive(serde::Serialize)]
struct SpeedReport {
    size: i64,
    sms: u32,
    cycles: u64,
    warp_instructions: u64,
    runs: u32,
    /// The best run's time simulating, in seconds.
    seconds: f64,
    cycles_per_second: f64,
    warp_instructions_per_second: f64,
    /// Threads' instructions (each warp-instruction's active lanes) per
    /// second: the unit other simulators publish.
    thread_instructions_per_second: f64,
    /// `cycles_per_second` over the goal, at the goal's size only.
    of_goal: Option<f64>,
    /// With more than one thread: the same run's figures on them.
    threaded: Option<Threaded>,
    host: Host,
}

/// The speed run again with the SMs on several threads.
#[derive(serde::Serialize)]
struct Threaded {
    threads: usize,
    seconds: f64,
    cycles_per_second: f64,
    warp_instructions_per_second: f64,
    thread_instructions_per_second: f64,
    /// Its speed over the one-thread run's.
    speedup: f64,
}

/// The machine a speed figure was measured on: the figure means little
/// without it (the same binary runs 2x faster on one of this project's
/// machines than on another).
#[derive(serde::Serialize)]
struct Host {
    /// The CPU's model name (`/proc/cpuinfo`), or `unknown`.
    cpu: String,
    /// Its family and model numbers, which tell its generation where a
    /// virtual machine gives it a generic name, and its clock in MHz, as
    /// `/proc/cpuinfo` has them.
    family: Option<u32>,
    model: Option<u32>,
    mhz: Option<f64>,
    /// Logical CPUs the OS reports.
    cpus: usize,
    /// Whether the model's vector FFMA routine runs (AVX2 and FMA,
    /// [`sim_core::fp::FfmaRows::vector`]), or the portable one.
    vector_routines: bool,
}

impl Host {
    /// This machine.
    fn this() -> Host {
        let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        Host {
            cpu: cpu_field(&info, "model name").unwrap_or_else(|| "unknown".into()),
            family: cpu_field(&info, "cpu family").and_then(|v| v.parse().ok()),
            model: cpu_field(&info, "model").and_then(|v| v.parse().ok()),
            mhz: cpu_field(&info, "cpu MHz").and_then(|v| v.parse().ok()),
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            vector_routines: sim_core::fp::FfmaRows::vector(),
        }
    }
}

impl std::fmt::Display for Host {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}", self.cpu)?;
        if let (Some(family), Some(model)) = (self.family, self.model) {
            write!(f, " (family {family}, model {model})")?;
        }
        if let Some(mhz) = self.mhz {
            write!(f, " at {mhz:.0} MHz")?;
        }
        write!(
            f,
            ", {} logical CPUs, {} routines",
            self.cpus,
            if self.vector_routines {
                "AVX2/FMA"
            } else {
                "portable"
            }
        )
    }
}

/// The first value of field `key` in a `/proc/cpuinfo` text.
fn cpu_field(cpuinfo: &str, key: &str) -> Option<String> {
    cpuinfo.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    })
}

fn speed(
    size: i64,
    runs: u32,
    threads: usize,
    machine: &Machine,
    json: Option<&Path>,
) -> Result<()> {
    if threads == 0 {
        bail!("--threads 0: at least 1");
    }
    let runs = at_least_one("--runs", runs)?;
    let sgemm = launch(size)?;
    let cfg = machine.load()?;
    // An SM runs on one thread at a time, so the run takes no more threads
    // than the chip has SMs; the report names the threads it used.
    let sms = cfg.chip.sms as usize;
    if threads > sms {
        eprintln!("bench speed: --threads {threads}: the chip has {sms} SMs, so {sms} threads");
    }
    let threads = threads.min(sms);
    // With --threads N, one run on one thread and one on N in turn, so that
    // a host that slows down or speeds up meets both alike.
    let (mut best, mut many) = (f64::MAX, f64::MAX);
    let mut out = None;
    for _ in 0..runs {
        let one = sgemm.timed(&cfg, 1, 1)?;
        best = best.min(one.seconds);
        if threads > 1 {
            let them = sgemm.timed(&cfg, 1, threads)?;
            if them.outcome.timed != one.outcome.timed || them.outcome.finals != one.outcome.finals
            {
                bail!(
                    "on {threads} threads the run's cycles, counters or buffers differ from one thread's"
                );
            }
            many = many.min(them.seconds);
        }
        out = Some(one.outcome);
    }
    let out = out.expect("at least one run");
    let t = out.timed.as_ref().ok_or_else(|| anyhow!("not timed"))?;
    let wi = t.stats.warp_instructions as f64;
    let ti = t.stats.thread_instructions as f64;
    let flops = 2.0 * (size as f64).powi(3);
    println!("bench speed: tiled SGEMM (4x4 per thread, 16x16 blocks) at {size}x{size}x{size}, {} SMs, checked bit-exact", t.sms);
    println!(
        "  simulated           {} cycles ({:.3} ms at {} MHz, {:.1} GFlop/s)",
        t.cycles,
        t.millis(&cfg),
        cfg.chip.clock_mhz,
        flops / (t.millis(&cfg) * 1e6)
    );
    println!("  warp-instructions   {}", t.stats.warp_instructions);
    println!(
        "  {:<20}{best:.3} s simulating (loading and the check not counted)",
        best_of(runs)
    );
    let host = Host::this();
    let cps = t.cycles as f64 / best;
    println!(
        "  speed               {cps:.0} simulated cycles/s, {:.2} M warp-instructions/s, {:.1} M thread-instructions/s, one core",
        wi / best / 1e6,
        ti / best / 1e6
    );
    let threaded = if threads > 1 {
        let speedup = best / many;
        println!(
            "  on {threads} threads        {many:.3} s simulating: {:.0} simulated cycles/s, {:.2} M warp-instructions/s, {:.1} M thread-instructions/s",
            t.cycles as f64 / many,
            wi / many / 1e6,
            ti / many / 1e6
        );
        println!(
            "  speed-up            {speedup:.2}x on {threads} threads over one, the same cycles, counters and buffers"
        );
        Some(Threaded {
            threads,
            seconds: many,
            cycles_per_second: t.cycles as f64 / many,
            warp_instructions_per_second: wi / many,
            thread_instructions_per_second: ti / many,
            speedup,
        })
    } else {
        None
    };
    println!("  host                {host}");
    let of_goal = (size == GOAL_SIZE).then_some(cps / GOAL_CYCLES_PER_S);
    if let Some(f) = of_goal {
        println!(
            "  goal                {GOAL_CYCLES_PER_S:.0} simulated cycles/s at {GOAL_SIZE} on one core: {} ({f:.2} of it on this host)",
            if f >= 1.0 { "met" } else { "not met" }
        );
    }
    if let Some(p) = json {
        let report = SpeedReport {
            size,
            sms: t.sms,
            cycles: t.cycles,
            warp_instructions: t.stats.warp_instructions,
            runs,
            seconds: best,
            cycles_per_second: cps,
            warp_instructions_per_second: wi / best,
            thread_instructions_per_second: ti / best,
            of_goal,
            threaded,
            host,
        };
        let s = serde_json::to_string_pretty(&report)?;
        std::fs::write(p, s + "\n").map_err(|e| anyhow!("{}: {e}", p.display()))?;
    }
    Ok(())
}

/// The speed benchmarks' launch at `size`, the size checked as an argument.
fn launch(size: i64) -> Result<speed::Launch> {
    if size <= 0 || size % speed::GRAIN != 0 {
        bail!(
            "--size {size}: must be a positive multiple of {}",
            speed::GRAIN
        );
    }
    Ok(speed::Launch::sgemm(&workspace(), size)?)
}

fn func(size: i64, runs: u32) -> Result<()> {
    let runs = at_least_one("--runs", runs)?;
    let sgemm = launch(size)?;
    let Best {
        seconds: best,
        outcome: out,
    } = sgemm.functional(runs)?;
    let wi = out.stats.warp_instructions as f64;
    println!("bench func: tiled SGEMM (4x4 per thread, 16x16 blocks) at {size}x{size}x{size}, checked bit-exact");
    println!("  warp-instructions   {}", out.stats.warp_instructions);
    println!(
        "  {:<20}{best:.3} s simulating (loading and the check not counted)",
        best_of(runs)
    );
    println!("  speed               {:.2} M warp-instructions/s ({:.1} M thread-instructions/s), one core", wi / best / 1e6, wi * 32.0 / best / 1e6);
    Ok(())
}

/// `n` of a count flag that must be at least 1, else an error naming it.
pub fn at_least_one<T: PartialEq + From<u8>>(flag: &str, n: T) -> Result<T> {
    if n == T::from(0) {
        bail!("{flag} 0: at least 1");
    }
    Ok(n)
}

/// The label of a best-of line: "best of 1 run", "best of 3 runs".
fn best_of(runs: u32) -> String {
    match runs {
        1 => "best of 1 run".to_string(),
        n => format!("best of {n} runs"),
    }
}

/// The workspace root: beside the binary's `target/` when run from a checkout,
/// else the current folder.
pub fn workspace() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    if here.join("traces").is_dir() {
        here
    } else {
        PathBuf::from(".")
    }
}

#[cfg(test)]
mod tests {
    use super::cpu_field;

    #[test]
    fn a_cpuinfo_field_is_its_first_value() {
        let text = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 23\n\
                    model\t\t: 1\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 1996.249\n\n\
                    processor\t: 1\nmodel\t\t: 2\nmodel name\t: Other\n";
        assert_eq!(cpu_field(text, "model name").as_deref(), Some("AMD EPYC"));
        // `model` is its own field, not a prefix of `model name`.
        assert_eq!(cpu_field(text, "model").as_deref(), Some("1"));
        assert_eq!(cpu_field(text, "cpu family").as_deref(), Some("23"));
        assert_eq!(cpu_field(text, "cpu MHz").as_deref(), Some("1996.249"));
        assert_eq!(cpu_field(text, "stepping"), None);
    }
}
