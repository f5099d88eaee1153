//! `keplersim run`: runs a kernel of a cubin (or of CUDA C compiled on the fly, or
//! of SASS assembled on the fly) as a launch file describes, checks its outputs
//! and reports.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use sim_core::config::Config;
use sim_core::func::BlockOrder;
use sim_core::launch::{self, spec::Compare};
use sim_isa::cubin::Cubin;

/// The arguments of `keplersim run`.
#[derive(Args)]
pub struct RunArgs {
    /// The kernel: an sm_35 cubin, a CUDA C file (`.cu`, compiled with NVRTC
    /// first) or SASS (`.sass`, assembled first).
    pub file: PathBuf,
    /// The launch file (default: FILE with its extension replaced by `.launch.ron`).
    #[arg(short, long)]
    pub launch: Option<PathBuf>,
    /// Override a launch-file variable: `--set n=4096` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Write every buffer's final contents to DIR/NAME.bin.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// `-D` definitions when FILE is CUDA C.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// The order blocks run in (a correct kernel gives the same results in any).
    #[arg(long, value_enum, default_value_t = Order::Natural)]
    pub order: Order,
    /// The seed of `--order shuffled`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The machine configuration (default: the K20m, as `configs/k20m.ron`).
    #[arg(long, value_name = "FILE.ron")]
    pub config: Option<PathBuf>,
    /// Run the functional model only (no cycles; implied by a block order
    /// other than natural).
    #[arg(long)]
    pub functional: bool,
    /// Simulate this many SMs instead of the configuration's.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
}

/// Block orders on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum Order {
    Natural,
    Reverse,
    Shuffled,
}

/// Runs `keplersim run`; fails (non-zero exit) when a check fails.
pub fn run(args: RunArgs) -> Result<()> {
    let launch_path = match &args.launch {
        Some(p) => p.clone(),
        None => args.file.with_extension("launch.ron"),
    };
    let text = std::fs::read_to_string(&launch_path).with_context(|| {
        format!(
            "{} (the launch file; name another with --launch)",
            launch_path.display()
        )
    })?;
    let spec = launch::parse(&text).map_err(|e| anyhow!("{}:{e}", launch_path.display()))?;
    let overrides = parse_sets(&args.set)?;
    let dir = launch_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let read = |f: &str| -> Result<Vec<u8>, String> {
        let p = dir.join(f);
        std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let r = launch::resolve(&spec, &overrides, &read)
        .map_err(|e| anyhow!("{}: {e}", launch_path.display()))?;
    let cubin = load_cubin(&args.file, &args.define)?;
    let order = match args.order {
        Order::Natural => BlockOrder::Natural,
        Order::Reverse => BlockOrder::Reverse,
        Order::Shuffled => BlockOrder::Shuffled(args.seed),
    };

    let mut config = load_config(args.config.as_deref())?;
    if let Some(n) = args.sms {
        if n == 0 || n > 256 {
            bail!("--sms {n}: between 1 and 256");
        }
        config.chip.sms = n;
    }
    let mode = if args.functional || order != BlockOrder::Natural {
        launch::Mode::Functional(order)
    } else {
        launch::Mode::Timed
    };
    let out = launch::execute_as(&cubin, &r, mode, &config, &read).map_err(|e| match e {
        launch::RunError::Sim(e) => anyhow!("{e}"),
        e => anyhow!("{}: {e}", args.file.display()),
    })?;
    let secs = out.sim_time.as_secs_f64();

    println!("kernel      {} ({})", r.kernel, args.file.display());
    println!(
        "launch      {}, {} registers/thread, {} B shared/block",
        r.dims, out.registers, out.shared_bytes
    );
    if !r.vars.is_empty() {
        let v: Vec<String> = r.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("vars        {}", v.join(" "));
    }
    match &out.timed {
        None => println!(
            "executed    {} warp-instructions in {} blocks ({:.2} s, {:.1} M warp-instructions/s, functional)",
            out.stats.warp_instructions,
            out.stats.blocks,
            secs,
            out.stats.warp_instructions as f64 / secs.max(1e-9) / 1e6
        ),
        Some(t) => {
            println!(
                "executed    {} warp-instructions in {} blocks ({:.2} s, {:.0} simulated cycles/s)",
                out.stats.warp_instructions,
                out.stats.blocks,
                secs,
                t.cycles as f64 / secs.max(1e-9)
            );
            report(t, &config);
        }
    }
    if let Some(d) = &args.dump {
        std::fs::create_dir_all(d).with_context(|| format!("{}", d.display()))?;
        for b in &out.finals {
            let p = d.join(format!("{}.bin", b.name));
            std::fs::write(&p, &b.data).with_context(|| format!("{}", p.display()))?;
        }
        println!(
            "dumped      {} buffers to {}",
            out.finals.len(),
            d.display()
        );
    }
    let mut failed = 0;
    for (c, res) in r.checks.iter().zip(&out.checks) {
        let how = match c.compare {
            Compare::BitExact => "bit-exact".to_string(),
            Compare::Ulp(u) => format!("within {u} ulp"),
        };
        if res.passed() {
            let ulp = if res.max_ulp > 0 {
                format!(", max {} ulp", res.max_ulp)
            } else {
                String::new()
            };
            println!(
                "check       {}: PASS ({} elements {how}{ulp})",
                res.buffer, res.elements
            );
        } else {
            failed += 1;
            let (i, g, e) = res.first.clone().unwrap_or_default();
            println!(
                "check       {}: FAIL ({} of {} elements differ {how}; first at [{i}]: got {g}, expected {e})",
                res.buffer, res.mismatches, res.elements
            );
        }
    }
    if failed > 0 {
        bail!("{failed} of {} checks failed", r.checks.len());
    }
    Ok(())
}

/// The timing model's report.
fn report(t: &sim_core::timing::Timed, config: &Config) {
    let st = &t.stats;
    let slots = (t.cycles * t.sms as u64 * config.timing.schedulers as u64).max(1) as f64;
    let issues = st.issue_cycles.max(1) as f64;
    println!(
        "cycles      {} on {} SMs = {:.4} ms at {} MHz",
        t.cycles,
        t.sms,
        t.millis(config),
        config.chip.clock_mhz
    );
    println!(
        "issue       IPC {:.2} warp-instructions per SM-cycle, issue slots used {:.1}%, dual-issued pairs {:.1}% of issues",
        st.warp_instructions as f64 / (t.cycles * t.sms as u64).max(1) as f64,
        st.issue_cycles as f64 / slots * 100.0,
        st.dual as f64 / issues * 100.0
    );
    println!(
        "occupancy   {} blocks/SM ({} warps each), limited by {}",
        t.occupancy.blocks_per_sm, t.occupancy.warps_per_block, t.occupancy.limiter
    );
    println!(
        "banks       conflicts: {} 2-way, {} 3-way, {} 4-way ({:.3} per issue)",
        st.conflicts[0],
        st.conflicts[1],
        st.conflicts[2],
        (st.conflicts.iter().sum::<u64>()) as f64 / issues
    );
    let stalled: u64 = st.stall.iter().sum();
    let parts: Vec<String> = sim_core::timing::events::STALLS
        .iter()
        .zip(st.stall.iter())
        .filter(|(_, &n)| n > 0)
        .map(|(name, &n)| format!("{name} {:.1}%", n as f64 / stalled.max(1) as f64 * 100.0))
        .collect();
    println!(
        "stalls      {} scheduler-cycles without issue: {}",
        stalled,
        parts.join(", ")
    );
    println!(
        "memory      shared: {} instructions, {} transactions; global: {} instructions, {} lines; L2 {} hits, {} misses; DRAM {:.2} MB",
        st.shared_instructions,
        st.shared_transactions,
        st.global_instructions,
        st.global_transactions,
        t.mem.l2_hits,
        t.mem.l2_misses,
        t.mem.dram_sectors as f64 * 32.0 / 1e6
    );
    if st.icache_misses > 0 {
        println!("fetch       {} instruction-cache misses", st.icache_misses);
    }
    if st.alu_hazards > 0 {
        println!(
            "hazards     {} reads of an ALU result sooner than its latency (control codes too short: hardware would read the old value; the model gives the new one)",
            st.alu_hazards
        );
    }
    if st.hazards > 0 {
        println!(
            "hazards     {} reads of a register before its LDG value arrived (no TEXDEPBAR): they read the old value",
            st.hazards
        );
    }
}

/// Reads and validates a configuration file; none means the K20m.
pub fn load_config(path: Option<&Path>) -> Result<Config> {
    match path {
        None => Ok(Config::default()),
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
            Ok(Config::parse(&text, &p.display().to_string())?)
        }
    }
}

/// Reads a cubin, compiles a `.cu` or assembles a `.sass`.
pub fn load_cubin(file: &Path, defines: &[String]) -> Result<Cubin> {
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let bytes = match ext {
        "cu" => crate::compile::compile_file(file, defines)?,
        "sass" => crate::assemble(file)?,
        _ => crate::read_file(file)?,
    };
    Cubin::parse(&bytes).map_err(|e| anyhow!("{}: {e}", file.display()))
}

fn parse_sets(sets: &[String]) -> Result<Vec<(String, i64)>> {
    sets.iter()
        .map(|s| {
            let (k, v) = s
                .split_once('=')
                .ok_or_else(|| anyhow!("--set {s}: expected NAME=VALUE"))?;
            let v: i64 = v
                .trim()
                .parse()
                .map_err(|_| anyhow!("--set {s}: `{v}` is not an integer"))?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}
