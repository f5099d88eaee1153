//! `keplersim run`: runs a kernel of a cubin (or of CUDA C compiled on the fly, or
//! of SASS assembled on the fly) as a launch file describes, checks its outputs
//! and reports.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context, Result};
use clap::{Args, ValueEnum};
use sim_core::config::{Config, Param};
use sim_core::func::BlockOrder;
use sim_core::launch::{self, spec::Compare};
use sim_core::timing::{Partial, Stepping};
use sim_isa::cubin::Cubin;
use sim_kernels::workload::peak_gflops;

/// The arguments of `keplersim run`.
#[derive(Args)]
pub struct RunArgs {
    /// The kernel: an sm_35 cubin, a CUDA C file (`.cu`, compiled with NVRTC
    /// first) or SASS (`.sass`, assembled first); or the launch file itself
    /// (`.ron`), whose `cubin` or `source` names the kernel.
    pub file: Option<PathBuf>,
    /// The launch file (default: FILE with its extension replaced by `.launch.ron`).
    #[arg(short, long)]
    pub launch: Option<PathBuf>,
    /// Override a launch-file variable: `--set n=4096` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    /// Write every buffer's final contents to DIR/NAME.bin, and each module
    /// variable's (`__device__`, `__managed__`) to DIR/variables/NAME.bin.
    #[arg(long, value_name = "DIR")]
    pub dump: Option<PathBuf>,
    /// `-D` definitions when FILE is CUDA C.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// An option for NVRTC when FILE is CUDA C, passed as it is
    /// (`--nvrtc-option=-use_fast_math`); repeatable, after the launch file's
    /// `nvrtc_options` and the source's `// keplersim: nvrtc-options` line.
    #[arg(
        long = "nvrtc-option",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    pub nvrtc_option: Vec<String>,
    /// How global memory is allocated: `strict` (every byte past a buffer's
    /// end faults) or `driver` (buffers rounded as cudaMalloc rounds them;
    /// over-reads inside the rounding are warnings). Default: the launch
    /// file's `memory`, else strict.
    #[arg(long, value_enum, value_name = "MODE")]
    pub memory: Option<Memory>,
    /// The order blocks run in (a correct kernel gives the same results in any).
    #[arg(long, value_enum, default_value_t = Order::Natural)]
    pub order: Order,
    /// The seed of `--order shuffled` [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub machine: Machine,
    /// Run the functional model only (no cycles; implied by a block order
    /// other than natural).
    #[arg(long)]
    pub functional: bool,
    /// Simulate this many SMs instead of the configuration's.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
    /// Step every SM a cycle at a time instead of letting each run on alone
    /// until it must wait for its turn at global memory (slower; the same
    /// results: a cross-check).
    #[arg(long)]
    pub lockstep: bool,
    /// Threads to run the SMs on (default: the cores available). The
    /// results are the same at any count; a run that steps in lockstep
    /// (--lockstep, --plot, --until, a trace) takes one.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print the report as JSON (one object) instead of text.
    #[arg(long)]
    pub json: bool,
    /// nvprof's metrics of the timed run, by nvprof's names (compute
    /// capability 3.5): `all`, or names separated by commas
    /// (`ipc,gld_efficiency`). docs/metrics.md defines each.
    #[arg(long, value_name = "all|NAME,...")]
    pub metrics: Option<String>,
    /// With --metrics: print only the metrics, as `nvprof --csv --metrics`
    /// does (Device, Kernel, Invocations, Metric Name, Metric Description,
    /// Min, Max, Avg); the checks' results go to stderr.
    #[arg(long, requires = "metrics", conflicts_with = "json")]
    pub csv: bool,
    /// Plot the run as SVG here: each scheduler's cycles by what it did
    /// (issued, or stalled by reason), and the issue rate over time (the SMs
    /// step in lockstep to hear every issue; the results are the same).
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
    /// End the timed run after this cycle, with the counters up to it: a
    /// partial run, whose outputs are not checked (the SMs step in
    /// lockstep to stop there).
    #[arg(long, value_name = "CYCLE")]
    pub until: Option<u64>,
    /// Also run the kernel with each of these values of a configuration
    /// field, one setting at a time over the machine, each run checked, and
    /// print its cycles beside this run's: `--vary l2_latency=150,250`
    /// (repeatable; a field as --param names it)
    #[arg(long, value_name = "FIELD=V1,V2,...")]
    pub vary: Vec<String>,
    /// Recording the run for the pipeline viewer and Perfetto.
    #[command(flatten)]
    pub trace: crate::trace::TraceArgs,
    /// Predict the whole grid's cycles from its first waves instead of
    /// simulating it all (`--sample`: 2 waves; `--sample=waves=N`): prints
    /// the estimate, its bound, the part simulated and the outputs not
    /// checked (docs/sampling.md).
    #[arg(long, value_name = "waves=N", num_args = 0..=1, default_missing_value = "")]
    pub sample: Option<String>,
}

/// The metrics `--metrics` asks for, checked against the names the model
/// gives before anything runs.
fn metric_names(spec: &str) -> Result<Vec<&'static str>> {
    let all = sim_core::timing::metrics::names();
    if spec.trim() == "all" {
        return Ok(all);
    }
    let mut out = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        match all.iter().find(|&&a| a == name) {
            Some(&a) => out.push(a),
            None => bail!(
                "--metrics: no metric `{name}`; the metrics are all, or any of: {}",
                all.join(", ")
            ),
        }
    }
    if out.is_empty() {
        bail!("--metrics: name at least one metric, or all");
    }
    Ok(out)
}

/// Memory modes on the command line.
#[derive(Clone, Copy, ValueEnum)]
pub enum Memory {
    Strict,
    Driver,
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
    let started = std::time::Instant::now();
    for p in [&args.plot, &args.trace.perfetto].into_iter().flatten() {
        crate::writable(p)?;
    }
    if let Some(d) = args.dump.as_ref().filter(|d| d.exists() && !d.is_dir()) {
        bail!("--dump {}: a file, not a folder", d.display());
    }
    let overrides = parse_sets(&args.set)?;
    let wanted = args.metrics.as_deref().map(metric_names).transpose()?;
    let timed = timed_run(&args, wanted.is_some())?;
    let Located {
        launch_path,
        resolved: mut r,
        dir,
        kernel: file,
    } = locate(args.file.as_deref(), args.launch.as_deref(), &overrides)?;
    let read = reader(&dir);
    let cubin = kernel_cubin(&args, &file, &r)?;
    if let Some(m) = args.memory {
        r.memory = match m {
            Memory::Strict => sim_core::mem::MemMode::Strict,
            Memory::Driver => sim_core::mem::MemMode::Driver,
        };
    }
    let order = block_order(args.order, args.seed)?;
    let (config, variants) = machines(&args)?;
    tracing::info!(
        "load: {} and {} in {:.3} s",
        launch_path.display(),
        file.display(),
        started.elapsed().as_secs_f64()
    );
    if let Some(spec) = &args.sample {
        let read: &dyn Fn(&str) -> Result<Vec<u8>, String> = &read;
        return crate::sample::run(spec, &args, &cubin, &r, &config, read, &file, started);
    }
    let mode = if !timed {
        launch::Mode::Functional(order)
    } else if args.lockstep {
        launch::Mode::Timed(Stepping::Lockstep)
    } else {
        launch::Mode::Timed(Stepping::Turns)
    };
    let mut recording = args.trace.start(&cubin, &r, &config, &file)?;
    if let Some(d) = &args.dump {
        // Before the run: a folder that cannot be made says so now.
        std::fs::create_dir_all(d).with_context(|| format!("--dump {}", d.display()))?;
    }
    let running = std::time::Instant::now();
    let mut timeline = args.plot.as_ref().map(|_| crate::plot::Timeline::new(1000));
    // A trace's window ends the run with it, unless --trace-full.
    let window_end = recording.as_ref().and_then(|rec| rec.until);
    let until = match (args.until, window_end) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    // A timed run shows its progress on a terminal, and Ctrl-C ends it with
    // the counters so far (the functional model runs to the end).
    let interrupt = timed.then(crate::progress::Interrupt::catch);
    let mut bar = crate::progress::Bar::new();
    let mut hear = |p: &sim_core::timing::Progress| bar.hear(p);
    let mut ctl = sim_core::timing::Control {
        until,
        stop: interrupt.as_ref().map(|i| i.flag()),
        progress: if timed { Some(&mut hear) } else { None },
        threads: crate::threads(args.threads)?,
        ..Default::default()
    };
    let listening = (recording.as_mut(), timeline.as_mut());
    let out = execute(&cubin, &r, mode, &config, &read, listening, &mut ctl);
    // From here on, Ctrl-C ends the program at once (the run is over).
    let ctrl_c = interrupt.is_some_and(|i| i.pressed());
    if ctrl_c {
        // A terminal's Ctrl-C signals the program first and then throws
        // away the output not yet shown: a moment's wait keeps the bar's
        // clearing and the report from being thrown away with it.
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    bar.clear();
    let out = out.map_err(|e| match e {
        launch::RunError::Sim(e) => anyhow!("{e}"),
        launch::RunError::Launch(e) => anyhow!("{}: {e}", launch_path.display()),
        e => anyhow!("{}: {e}", file.display()),
    })?;
    let partial = out.timed.as_ref().and_then(|t| t.partial);
    warn_padding(&out.padding);
    let secs = out.sim_time.as_secs_f64();
    let total = running.elapsed().as_secs_f64();
    tracing::info!(
        "run: {secs:.3} s simulating; lower, buffers and check: {:.3} s",
        total - secs
    );
    let mut json = serde_json::Map::new();
    // A partial run's line replaces this.
    json.insert("partial".into(), serde_json::Value::Null);
    let quiet = args.json || args.csv;
    let mut line = |key: &str, text: String, value: serde_json::Value| {
        if !quiet {
            println!("{key:<11} {text}");
        }
        json.insert(key.to_string(), value);
    };
    let ran = Ran {
        args: &args,
        r: &r,
        file: &file,
        config: &config,
        out: &out,
        window_end,
        secs,
    };
    ran.describe(&mut line);
    if let Some(d) = &args.dump {
        dump(d, &out, args.json || args.csv)?;
    }
    if let (Some(names), Some(t)) = (&wanted, &out.timed) {
        let all = sim_core::timing::metrics::metrics(t, &config);
        let chosen: Vec<&sim_core::timing::metrics::Metric> = names
            .iter()
            .filter_map(|n| all.iter().find(|m| m.name == *n))
            .collect();
        print_metrics(&chosen, &r.kernel, args.csv, args.json, &mut json);
    }
    let (mut failed, checks) = report_checks(&r, &out, args.csv, args.json, partial.is_some());
    json.insert("checks".into(), serde_json::Value::Array(checks));
    if let (Some(base), None, false) = (&out.timed, partial, variants.is_empty()) {
        let (rows, more) = ran.vary(base, &variants, &cubin, mode, &read)?;
        failed += more;
        json.insert("vary".into(), serde_json::to_value(&rows[1..])?);
    }
    if args.json {
        println!("{}", serde_json::Value::Object(json));
    }
    if let (Some(p), Some(tl), Some(t)) = (&args.plot, &timeline, &out.timed) {
        plot(p, tl, t, &config, quiet)?;
    }
    if let Some(rec) = recording {
        rec.finish(&args.trace, args.json || args.csv)?;
    }
    tracing::info!("done in {:.3} s", started.elapsed().as_secs_f64());
    if failed > 0 {
        bail!("{failed} of {} checks failed", r.checks.len());
    }
    if ctrl_c && partial == Some(Partial::Stopped) {
        return Err(Interrupted.into());
    }
    Ok(())
}

/// Refuses what only a timed run has (metrics, a plot, a trace, --until,
/// --vary) in a functional one, and what --vary cannot compare; gives
/// whether the run is timed.
fn timed_run(args: &RunArgs, metrics: bool) -> Result<bool> {
    let timed = !args.functional && matches!(args.order, Order::Natural);
    for (asked, flags) in [
        (metrics, "--metrics needs"),
        (args.plot.is_some(), "--plot needs"),
        (args.trace.wanted(), "--trace, --view and --perfetto need"),
        (args.until.is_some(), "--until needs"),
        (!args.vary.is_empty(), "--vary needs"),
    ] {
        if asked && !timed {
            bail!("{flags} a timed run: drop --functional and --order");
        }
    }
    if !args.vary.is_empty() {
        for (asked, flag) in [
            (args.until.is_some(), "--until"),
            (args.trace.wanted(), "--trace, --view and --perfetto"),
        ] {
            if asked {
                bail!("--vary compares whole runs, each checked: drop {flag}");
            }
        }
    }
    Ok(timed)
}

/// The kernel's cubin: `file` read, or compiled with NVRTC (the launch
/// file's options, then `--nvrtc-option`s) or assembled first. -D and
/// --nvrtc-option are refused for anything but CUDA C.
fn kernel_cubin(args: &RunArgs, file: &Path, r: &launch::Resolved) -> Result<Cubin> {
    let flags = args.define.iter().map(|d| format!("-D {d}"));
    let mut flags = flags.chain(
        args.nvrtc_option
            .iter()
            .map(|o| format!("--nvrtc-option {o}")),
    );
    if let Some(flag) = flags
        .next()
        .filter(|_| file.extension().is_none_or(|e| e != "cu"))
    {
        bail!(
            "{flag}: {} is not CUDA C; -D and --nvrtc-option apply to a `.cu` only",
            file.display()
        );
    }
    let mut nvrtc = r.nvrtc_options.clone();
    nvrtc.extend(args.nvrtc_option.iter().cloned());
    load_cubin_with(file, &args.define, &nvrtc)
}

/// The block order `--order` and `--seed` ask for.
fn block_order(order: Order, seed: Option<u64>) -> Result<BlockOrder> {
    Ok(match (order, seed) {
        (Order::Natural | Order::Reverse, Some(seed)) => {
            bail!("--seed {seed}: the seed is --order shuffled's, and the order is not shuffled")
        }
        (Order::Natural, None) => BlockOrder::Natural,
        (Order::Reverse, None) => BlockOrder::Reverse,
        (Order::Shuffled, seed) => BlockOrder::Shuffled(seed.unwrap_or(1)),
    })
}

/// The machine, and each `--vary` setting over it, all checked before the
/// first run; `--sms` applies to every one.
fn machines(args: &RunArgs) -> Result<(Config, Vec<(Param, Config)>)> {
    let mut config = args.machine.load()?;
    let mut variants = args.machine.variants(&args.vary)?;
    if let Some(n) = args.sms {
        if n == 0 || n > 256 {
            bail!("--sms {n}: between 1 and 256");
        }
        config.chip.sms = n;
        for (_, c) in &mut variants {
            c.chip.sms = n;
        }
    }
    Ok((config, variants))
}

/// Runs the launch with whoever listens: the recording of a trace, the
/// plot's timeline, both or no one.
fn execute(
    cubin: &Cubin,
    r: &launch::Resolved,
    mode: launch::Mode,
    config: &Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    listening: (
        Option<&mut crate::trace::Recording>,
        Option<&mut crate::plot::Timeline>,
    ),
    ctl: &mut sim_core::timing::Control,
) -> Result<launch::Outcome, launch::RunError> {
    match listening {
        (Some(rec), Some(tl)) => launch::execute_controlled(
            cubin,
            r,
            mode,
            config,
            read,
            &mut crate::plot::Tee(&mut rec.writer, tl),
            ctl,
        ),
        (Some(rec), None) => {
            launch::execute_controlled(cubin, r, mode, config, read, &mut rec.writer, ctl)
        }
        (None, Some(tl)) => launch::execute_controlled(cubin, r, mode, config, read, tl, ctl),
        (None, None) => launch::execute_controlled(
            cubin,
            r,
            mode,
            config,
            read,
            &mut sim_core::timing::Nobody,
            ctl,
        ),
    }
}

/// Warns of accesses past a buffer's end inside its allocation's rounding
/// (driver-like memory), with the first.
fn warn_padding(padding: &sim_core::mem::Padding) {
    if padding.accesses > 0 {
        let (name, addr, past) = padding.first.clone().unwrap_or_default();
        eprintln!(
            "keplersim: warning: {} accesses past a buffer's end, inside the padding of its \
             cudaMalloc rounding (driver-like memory; strict memory faults on them); the \
             first at {addr:#x}, {past} bytes past the end of `{name}`",
            padding.accesses
        );
    }
}

/// The first lines of `run`'s report, and of `run --sample`'s: the kernel,
/// its launch, its variables and the machine.
pub(crate) fn launch_lines(
    line: &mut dyn FnMut(&str, String, serde_json::Value),
    args: &RunArgs,
    r: &launch::Resolved,
    file: &Path,
    out: &launch::Outcome,
) {
    line(
        "kernel",
        format!("{} ({})", r.kernel, file.display()),
        serde_json::json!({ "name": r.kernel, "file": file.display().to_string() }),
    );
    line(
        "launch",
        format!(
            "{}, {} registers/thread, {} B shared/block",
            r.dims, out.registers, out.shared_bytes
        ),
        serde_json::json!({
            "grid": r.dims.grid, "block": r.dims.block,
            "registers": out.registers, "shared_bytes": out.shared_bytes,
        }),
    );
    if !r.vars.is_empty() {
        let v: Vec<String> = r.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        line("vars", v.join(" "), serde_json::json!(r.vars));
    }
    if let Some(m) = args.machine.json() {
        line("machine", args.machine.describe(), m);
    }
}

/// A run that is over, as its report sees it.
struct Ran<'a> {
    args: &'a RunArgs,
    r: &'a launch::Resolved,
    file: &'a Path,
    config: &'a Config,
    out: &'a launch::Outcome,
    /// The end of the trace's window, when a trace ends the run.
    window_end: Option<u64>,
    /// Wall time of the simulation alone.
    secs: f64,
}

impl Ran<'_> {
    /// The report's lines up to the checks: [`launch_lines`], why a partial
    /// run ended, what ran and, timed, the timing model's figures.
    fn describe(&self, line: &mut dyn FnMut(&str, String, serde_json::Value)) {
        let partial = self.out.timed.as_ref().and_then(|t| t.partial);
        let secs = self.secs;
        launch_lines(line, self.args, self.r, self.file, self.out);
        if let (Some(t), Some(p)) = (&self.out.timed, partial) {
            let why = match p {
                Partial::Until(c)
                    if Some(c) == self.window_end && self.args.until.is_none_or(|u| u > c) =>
                {
                    format!(
                        "ended after cycle {c}, the end of the trace's window (--trace-full runs on)"
                    )
                }
                Partial::Until(c) => format!("ended after cycle {c} (--until)"),
                Partial::Stopped => format!("stopped by Ctrl-C after cycle {}", t.cycles - 1),
                p => p.to_string(),
            };
            let (done, grid) = (t.blocks_done, self.r.dims.blocks());
            line(
                "partial",
                format!(
                    "{why}: the counters below are of cycles 0 to {}, with {done} of {grid} \
                     blocks done; the outputs were not checked",
                    t.cycles - 1
                ),
                serde_json::json!({
                    "reason": match p {
                        Partial::Stopped => "stopped",
                        Partial::Until(_) => "until",
                        Partial::Blocks { .. } => "blocks",
                    },
                    "text": why, "last_cycle": t.cycles - 1,
                    "blocks_done": done, "grid_blocks": grid,
                }),
            );
        }
        match &self.out.timed {
            None => line(
                "executed",
                format!(
                    "{} warp-instructions in {} blocks ({:.2} s, {:.1} M warp-instructions/s, functional)",
                    self.out.stats.warp_instructions,
                    self.out.stats.blocks,
                    secs,
                    self.out.stats.warp_instructions as f64 / secs.max(1e-9) / 1e6
                ),
                serde_json::json!({
                    "warp_instructions": self.out.stats.warp_instructions, "blocks": self.out.stats.blocks,
                    "seconds": secs, "mode": "functional",
                }),
            ),
            Some(t) => {
                let per_s = |n: u64| n as f64 / secs.max(1e-9);
                let (wi, ti) = (t.stats.warp_instructions, t.stats.thread_instructions);
                line(
                    "executed",
                    format!(
                        "{wi} warp-instructions ({ti} thread-instructions) {}: {secs:.2} s, \
                         {:.0} simulated cycles/s, {:.2} M warp-instructions/s, {:.1} M thread-instructions/s",
                        if partial.is_some() {
                            format!("with {} of {} blocks done", self.out.stats.blocks, self.r.dims.blocks())
                        } else {
                            format!("in {} blocks", self.out.stats.blocks)
                        },
                        per_s(t.cycles),
                        per_s(wi) / 1e6,
                        per_s(ti) / 1e6
                    ),
                    serde_json::json!({
                        "warp_instructions": wi, "thread_instructions": ti,
                        "blocks": self.out.stats.blocks, "seconds": secs, "mode": "timed",
                        "simulated_cycles_per_second": per_s(t.cycles),
                        "warp_instructions_per_second": per_s(wi),
                        "thread_instructions_per_second": per_s(ti),
                    }),
                );
                report(t, self.config, self.r.flops.filter(|_| partial.is_none()), line);
            }
        }
    }

    /// `--vary`: the run again on each setting, each checked, said on
    /// standard error as it ends, then the table (unless the report is
    /// JSON); the rows, this run's first, and how many runs failed their
    /// checks.
    fn vary(
        &self,
        base: &sim_core::timing::Timed,
        variants: &[(Param, Config)],
        cubin: &Cubin,
        mode: launch::Mode,
        read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    ) -> Result<(Vec<Varied>, usize)> {
        let mut rows = vec![Varied::of(
            "(none)".into(),
            base,
            &self.out.checks,
            self.r.flops,
            self.config,
        )];
        let mut failed = 0;
        for (param, cfg) in variants {
            let mut ctl = sim_core::timing::Control {
                threads: crate::threads(self.args.threads)?,
                ..Default::default()
            };
            let began = std::time::Instant::now();
            let o = launch::execute_controlled(
                cubin,
                self.r,
                mode,
                cfg,
                read,
                &mut sim_core::timing::Nobody,
                &mut ctl,
            )
            .map_err(|e| anyhow!("--vary {param}: {e}"))?;
            let t = o
                .timed
                .as_ref()
                .ok_or_else(|| anyhow!("--vary {param}: the run was not timed"))?;
            let row = Varied::of(param.to_string(), t, &o.checks, self.r.flops, cfg);
            if !row.passed {
                failed += 1;
            }
            // The runs take as long as this one did: say each as it ends.
            eprintln!(
                "vary {param}: {} cycles, {} ({:.1} s)",
                row.cycles,
                if row.passed {
                    "checks PASS"
                } else {
                    "checks FAIL"
                },
                began.elapsed().as_secs_f64()
            );
            rows.push(row);
        }
        if !self.args.json && !self.args.csv {
            println!(
                "\nEach setting alone over {}:\n| setting | cycles | change | IPC | GFlop/s | check |\n|---|---|---|---|---|---|",
                self.args.machine.describe()
            );
            for v in &rows {
                println!(
                    "| {} | {} | {} | {:.2} | {} | {} |",
                    v.setting,
                    v.cycles,
                    if v.setting == "(none)" {
                        "-".to_string()
                    } else {
                        format!(
                            "{:+.1}%",
                            (v.cycles as f64 / rows[0].cycles as f64 - 1.0) * 100.0
                        )
                    },
                    v.ipc,
                    v.gflops.map_or("-".into(), |g| format!("{g:.1}")),
                    if v.passed { "PASS" } else { "FAIL" }
                );
            }
        }
        Ok((rows, failed))
    }
}

/// `--plot`: each scheduler's cycles by what it did, and the issue rate
/// over time, as SVG.
fn plot(
    p: &Path,
    tl: &crate::plot::Timeline,
    t: &sim_core::timing::Timed,
    config: &Config,
    quiet: bool,
) -> Result<()> {
    let n = (config.timing.schedulers as usize).min(t.stats.sched_issue.len());
    let sched: Vec<(u64, Vec<u64>)> = (0..n)
        .map(|s| (t.stats.sched_issue[s], t.stats.sched_stall[s].to_vec()))
        .collect();
    crate::plot::run(
        p,
        &sim_core::timing::events::STALLS,
        &sched,
        &tl.rate(t.sms, 400),
    )?;
    if !quiet {
        println!("plotted     {}", p.display());
    }
    Ok(())
}

/// Writes `out`'s buffers (`NAME.bin`) and module variables
/// (`variables/NAME.bin`) into `d` (`--dump`), and says so: on standard
/// error when `quiet` (standard output is then the report alone).
fn dump(d: &Path, out: &launch::Outcome, quiet: bool) -> Result<()> {
    std::fs::create_dir_all(d).with_context(|| format!("{}", d.display()))?;
    for b in &out.finals {
        let p = d.join(format!("{}.bin", b.name));
        std::fs::write(&p, &b.data).with_context(|| format!("{}", p.display()))?;
    }
    // Module variables go in a folder of their own: a variable may share a
    // buffer's name.
    let vars = d.join("variables");
    if !out.variables.is_empty() {
        std::fs::create_dir_all(&vars).with_context(|| format!("{}", vars.display()))?;
    }
    for (name, data) in &out.variables {
        // A name from the cubin's symbol table names a file in `vars`
        // and nowhere else: no separator, no leading dot.
        let mut file: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || "_$.-".contains(c) {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        if file.is_empty() || file.starts_with('.') {
            file.insert(0, '_');
        }
        let p = vars.join(format!("{file}.bin"));
        std::fs::write(&p, data).with_context(|| format!("{}", p.display()))?;
    }
    // With --json or --csv, standard output is the report alone.
    let mut note = format!(
        "dumped      {} buffers to {}",
        out.finals.len(),
        d.display()
    );
    if !out.variables.is_empty() {
        note += &format!(
            ", {} module variables to {}",
            out.variables.len(),
            vars.display()
        );
    }
    if quiet {
        eprintln!("{note}");
    } else {
        println!("{note}");
    }
    Ok(())
}

/// Prints `out`'s checks of `r`'s buffers (on standard error with
/// `csv`, not at all with `json`; a partial run's are none), and returns how
/// many failed and their JSON.
fn report_checks(
    r: &launch::Resolved,
    out: &launch::Outcome,
    csv: bool,
    json: bool,
    partial: bool,
) -> (usize, Vec<serde_json::Value>) {
    let mut failed = 0;
    let mut checks = Vec::new();
    for (c, res) in r.checks.iter().zip(&out.checks) {
        let how = match c.compare {
            Compare::BitExact => "bit-exact".to_string(),
            Compare::Ulp(u) => format!("within {u} ulp"),
        };
        let text = if res.passed() {
            let ulp = if res.max_ulp > 0 {
                format!(", max {} ulp", res.max_ulp)
            } else {
                String::new()
            };
            format!(
                "{}: PASS ({} elements {how}{ulp})",
                res.buffer, res.elements
            )
        } else {
            failed += 1;
            let (i, g, e) = res.first.clone().unwrap_or_default();
            format!(
                "{}: FAIL ({} of {} elements differ {how}; first at [{i}]: got {g}, expected {e})",
                res.buffer, res.mismatches, res.elements
            )
        };
        if csv {
            eprintln!("check       {text}");
        } else if !json {
            println!("check       {text}");
        }
        checks.push(serde_json::json!({
            "buffer": res.buffer, "passed": res.passed(), "elements": res.elements,
            "mismatches": res.mismatches, "compare": how, "max_ulp": res.max_ulp,
        }));
    }
    if partial && !json {
        let text = "none: a partial run is not checked";
        if csv {
            eprintln!("check       {text}");
        } else {
            println!("check       {text}");
        }
    }
    (failed, checks)
}

/// One `--vary` setting's run, as the table prints it.
#[derive(serde::Serialize)]
struct Varied {
    setting: String,
    cycles: u64,
    ipc: f64,
    gflops: Option<f64>,
    passed: bool,
}

impl Varied {
    fn of(
        setting: String,
        t: &sim_core::timing::Timed,
        checks: &[sim_core::launch::CheckResult],
        flops: Option<u64>,
        config: &Config,
    ) -> Varied {
        Varied {
            setting,
            cycles: t.cycles,
            ipc: t.stats.warp_instructions as f64 / (t.cycles * t.sms as u64).max(1) as f64,
            gflops: flops.map(|f| f as f64 / (t.millis(config) * 1e-3) / 1e9),
            passed: checks.iter().all(|c| c.passed()),
        }
    }
}

/// A run that Ctrl-C ended, after its partial report: the program exits
/// with status 130, as a shell expects of a program that SIGINT ended.
#[derive(Debug)]
pub struct Interrupted;

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "interrupted (Ctrl-C): the report above is partial")
    }
}

impl std::error::Error for Interrupted {}

/// Prints `metrics` of `kernel`: as nvprof's CSV, into the JSON report, or
/// as a table after the report.
fn print_metrics(
    metrics: &[&sim_core::timing::metrics::Metric],
    kernel: &str,
    csv: bool,
    json: bool,
    report: &mut serde_json::Map<String, serde_json::Value>,
) {
    let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
    if csv {
        println!(
            "{}",
            [
                "Device",
                "Kernel",
                "Invocations",
                "Metric Name",
                "Metric Description",
                "Min",
                "Max",
                "Avg"
            ]
            .map(quote)
            .join(",")
        );
        for m in metrics {
            let v = m.value.text();
            println!(
                "{},{},1,{},{},{},{},{}",
                quote("Tesla K20m (0)"),
                quote(kernel),
                quote(m.name),
                quote(m.description),
                quote(&v),
                quote(&v),
                quote(&v)
            );
        }
    } else if json {
        let list: Vec<serde_json::Value> = metrics
            .iter()
            .map(|m| {
                let why = match m.value {
                    sim_core::timing::metrics::Value::Unavailable(why) => Some(why),
                    _ => None,
                };
                serde_json::json!({
                    "name": m.name, "description": m.description,
                    "value": m.value.number(), "text": m.value.text(),
                    "nvprof": m.nvprof, "unavailable": why,
                })
            })
            .collect();
        report.insert("metrics".into(), serde_json::Value::Array(list));
    } else {
        println!("metrics     (nvprof's names; * the model's own; docs/metrics.md defines each)");
        for m in metrics {
            println!(
                "  {:<37}{} {:>14}  {}",
                m.name,
                if m.nvprof { ' ' } else { '*' },
                m.value.text(),
                m.description
            );
        }
    }
}

/// The timing model's report: one line (and one JSON value) per topic.
fn report(
    t: &sim_core::timing::Timed,
    config: &Config,
    flops: Option<u64>,
    line: &mut dyn FnMut(&str, String, serde_json::Value),
) {
    use serde_json::json;
    let st = &t.stats;
    let slots = (t.cycles * t.sms as u64 * config.timing.schedulers as u64).max(1) as f64;
    let issues = st.issue_cycles.max(1) as f64;
    let ms = t.millis(config);
    line(
        "cycles",
        format!(
            "{} on {} SMs = {ms:.4} ms at {} MHz",
            t.cycles, t.sms, config.chip.clock_mhz
        ),
        json!({ "cycles": t.cycles, "sms": t.sms, "milliseconds": ms, "clock_mhz": config.chip.clock_mhz }),
    );
    if let Some(f) = flops {
        let peak = peak_gflops(config, t.sms);
        let gflops = f as f64 / (ms * 1e-3) / 1e9;
        line(
            "gflops",
            format!(
                "{gflops:.1} GFlop/s, {:.1}% of the {peak:.0} GFlop/s peak of {} SMs",
                gflops / peak * 100.0,
                t.sms
            ),
            json!({ "gflops": gflops, "peak_gflops": peak, "percent_of_peak": gflops / peak * 100.0, "flops": f }),
        );
    }
    let replays = st.stall[sim_core::timing::events::Stall::Replay as usize];
    let used = st.slots_used() as f64 / slots * 100.0;
    let by_replays = if replays > 0 {
        format!(" ({:.1}% replays)", replays as f64 / slots * 100.0)
    } else {
        String::new()
    };
    line(
        "issue",
        format!(
            "IPC {:.2} warp-instructions per SM-cycle, issue slots used {used:.1}%{by_replays}, dual-issued pairs {:.1}% of issues",
            st.warp_instructions as f64 / (t.cycles * t.sms as u64).max(1) as f64,
            st.dual as f64 / issues * 100.0
        ),
        json!({
            "ipc": st.warp_instructions as f64 / (t.cycles * t.sms as u64).max(1) as f64,
            "issue_slot_utilization": used,
            "dual_issue_rate": st.dual as f64 / issues * 100.0,
            "dual_pairs": st.dual, "issue_cycles": st.issue_cycles, "replay_cycles": replays,
        }),
    );
    let apart: u64 = st.pairs_apart.iter().sum();
    let asked = st.dual + apart;
    let share = |n: u64| n as f64 / asked.max(1) as f64 * 100.0;
    let why: Vec<String> = sim_core::timing::events::APART
        .iter()
        .zip(st.pairs_apart)
        .map(|(name, n)| format!("{:.1}% {name}", share(n)))
        .collect();
    line(
        "pairs",
        if asked == 0 {
            "none asked for by the control bytes".to_string()
        } else {
            format!(
                "{asked} asked for by the control bytes: {:.1}% issued together; apart {}",
                share(st.dual),
                why.join(", ")
            )
        },
        json!({
            "asked": asked, "together": st.dual,
            "apart": sim_core::timing::events::APART
                .iter()
                .zip(st.pairs_apart)
                .map(|(name, n)| (name.replace("'s", "").replace(' ', "_"), json!(n)))
                .collect::<serde_json::Map<String, serde_json::Value>>(),
        }),
    );
    line(
        "occupancy",
        format!(
            "{} blocks/SM ({} warps each), limited by {}",
            t.occupancy.blocks_per_sm, t.occupancy.warps_per_block, t.occupancy.limiter
        ),
        json!({
            "blocks_per_sm": t.occupancy.blocks_per_sm, "warps_per_block": t.occupancy.warps_per_block,
            "limiter": t.occupancy.limiter.to_string(),
        }),
    );
    let conflicts: u64 = st.conflicts.iter().sum();
    let per_fp32 = if st.fp32 > 0 {
        format!(
            ", {:.3} per FP32 instruction",
            conflicts as f64 / st.fp32 as f64
        )
    } else {
        String::new()
    };
    line(
        "banks",
        format!(
            "conflicts: {} 2-way, {} 3-way, {} 4-way ({:.3} per issue{per_fp32})",
            st.conflicts[0],
            st.conflicts[1],
            st.conflicts[2],
            conflicts as f64 / issues
        ),
        json!({
            "two_way": st.conflicts[0], "three_way": st.conflicts[1], "four_way": st.conflicts[2],
            "per_issue": conflicts as f64 / issues,
            "per_fp32_instruction": conflicts as f64 / st.fp32.max(1) as f64,
            "fp32_instructions": st.fp32,
        }),
    );
    let stalled: u64 = st.stall.iter().sum();
    let parts: Vec<String> = sim_core::timing::events::STALLS
        .iter()
        .zip(st.stall.iter())
        .filter(|(_, &n)| n > 0)
        .map(|(name, &n)| format!("{name} {:.1}%", n as f64 / stalled.max(1) as f64 * 100.0))
        .collect();
    let by_reason: serde_json::Map<String, serde_json::Value> = sim_core::timing::events::STALLS
        .iter()
        .zip(st.stall.iter())
        .map(|(name, &n)| (name.replace(' ', "_"), json!(n)))
        .collect();
    line(
        "stalls",
        format!(
            "{stalled} scheduler-cycles without issue: {}",
            parts.join(", ")
        ),
        json!({ "total": stalled, "by_reason": by_reason }),
    );
    pipes(st, config, line);
    line(
        "memory",
        format!(
            "shared: {} instructions, {} transactions; global: {} instructions, {} lines; L2 {} hits, {} misses; DRAM {:.2} MB",
            st.shared_instructions,
            st.shared_transactions,
            st.global_instructions,
            st.global_transactions,
            t.mem.l2_hits,
            t.mem.l2_misses,
            t.mem.dram_sectors as f64 * 32.0 / 1e6
        ),
        json!({
            "shared_instructions": st.shared_instructions, "shared_transactions": st.shared_transactions,
            "global_instructions": st.global_instructions, "global_lines": st.global_transactions,
            "l2_hits": t.mem.l2_hits, "l2_misses": t.mem.l2_misses,
            "dram_bytes": t.mem.dram_sectors * 32,
        }),
    );
    let m = &t.mem;
    if m.ld_lines + m.ldg_lines > 0 {
        let tm = &config.timing;
        let path = |name: &str, lines: u64, wait: u64, slots: u32| {
            if lines == 0 {
                format!("{name}: none")
            } else {
                format!(
                    "{name}: {lines} lines, waited {:.1} cycles a line for one of the SM's {slots} request slots",
                    wait as f64 / lines as f64
                )
            }
        };
        line(
            "requests",
            format!(
                "{}; {}",
                path(
                    "through L2 (LD/ST)",
                    m.ld_lines,
                    m.ld_slot_wait,
                    tm.ld_outstanding
                ),
                path(
                    "read-only path (LDG)",
                    m.ldg_lines,
                    m.ldg_slot_wait,
                    tm.ldg_outstanding
                ),
            ),
            json!({
                "ld": { "lines": m.ld_lines, "slot_wait_cycles": m.ld_slot_wait, "slots": tm.ld_outstanding },
                "ldg": { "lines": m.ldg_lines, "slot_wait_cycles": m.ldg_slot_wait, "slots": tm.ldg_outstanding },
            }),
        );
    }
    if st.icache_misses > 0 {
        line(
            "fetch",
            format!("{} instruction-cache misses", st.icache_misses),
            json!({ "icache_misses": st.icache_misses }),
        );
    }
    schedulers(t, config, line);
    let held = st.stall[sim_core::timing::events::Stall::Interlock as usize];
    line(
        "interlock",
        if st.interlocks == 0 {
            "none: no instruction read an ALU result sooner than its latency".to_string()
        } else {
            format!(
                "{} instructions read an ALU result sooner than its latency (control codes too short) and were held back {} cycles each by the hardware's interlock: {held} scheduler-cycles without issue",
                st.interlocks, config.timing.interlock_cycles,
            )
        },
        json!({
            "instructions": st.interlocks, "cycles_each": config.timing.interlock_cycles,
            "stall_cycles": held,
        }),
    );
    if st.hazards > 0 {
        line(
            "hazards",
            format!(
                "{} reads of a register before its LDG value arrived (no TEXDEPBAR): they read the old value",
                st.hazards
            ),
            json!({ "ldg": st.hazards }),
        );
    }
}

/// What the `pipe busy` cycles waited for: in all, and per scheduler the
/// unit most of its own waited for. Schedulers whose warps wait on the
/// `LDG` dispatch or the load/store unit while the others' wait at barriers
/// are the ones their block waits for.
fn pipes(
    st: &sim_core::timing::events::Stats,
    config: &Config,
    line: &mut dyn FnMut(&str, String, serde_json::Value),
) {
    use serde_json::json;
    use sim_core::timing::events::{NUNITS, UNITS};
    let n = (config.timing.schedulers as usize).min(st.sched_pipe_busy.len());
    let mut all = [0u64; NUNITS];
    for per in &st.sched_pipe_busy[..n] {
        for (a, &c) in all.iter_mut().zip(per) {
            *a += c;
        }
    }
    let key = |name: &str| {
        name.replace(['(', ')'], "")
            .replace(['/', ' '], "_")
            .to_lowercase()
    };
    let map = |cycles: &[u64; NUNITS]| -> serde_json::Map<String, serde_json::Value> {
        UNITS
            .iter()
            .zip(cycles)
            .map(|(name, &c)| (key(name), json!(c)))
            .collect()
    };
    let total: u64 = all.iter().sum();
    let per: Vec<serde_json::Value> = st.sched_pipe_busy[..n]
        .iter()
        .map(|c| json!(map(c)))
        .collect();
    let value = json!({ "total": total, "by_unit": map(&all), "schedulers": per });
    if total == 0 {
        line(
            "pipes",
            "none: no warp waited for a busy unit".into(),
            value,
        );
        return;
    }
    let mut parts: Vec<(u64, usize)> = all
        .iter()
        .copied()
        .zip(0..)
        .filter(|&(c, _)| c > 0)
        .collect();
    parts.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let shares: Vec<String> = parts
        .iter()
        .map(|&(c, i)| format!("{} {:.1}%", UNITS[i], c as f64 / total as f64 * 100.0))
        .collect();
    let most: Vec<String> = st.sched_pipe_busy[..n]
        .iter()
        .enumerate()
        .map(|(s, c)| {
            let sum: u64 = c.iter().sum();
            match (0..NUNITS)
                .filter(|&i| c[i] > 0)
                .max_by_key(|&i| (c[i], NUNITS - i))
            {
                Some(i) => format!("#{s} {} {:.0}%", UNITS[i], c[i] as f64 / sum as f64 * 100.0),
                None => format!("#{s} none"),
            }
        })
        .collect();
    line(
        "pipes",
        format!(
            "{total} pipe-busy scheduler-cycles, by what the warp waited for: {}; each scheduler's most: {}",
            shares.join(", "),
            most.join(", ")
        ),
        value,
    );
}

/// Per scheduler: issues, dual pairs and the stalls' main reasons; per warp
/// of a block: cycles at barriers. These expose an imbalance: a scheduler
/// that loses the shared core groups lags, and its block waits for it at
/// every barrier.
fn schedulers(
    t: &sim_core::timing::Timed,
    config: &Config,
    line: &mut dyn FnMut(&str, String, serde_json::Value),
) {
    use serde_json::json;
    use sim_core::timing::events::STALLS;
    let st = &t.stats;
    let n = (config.timing.schedulers as usize).min(st.sched_issue.len());
    let mut parts = Vec::new();
    let mut per = Vec::new();
    for s in 0..n {
        let stalled: u64 = st.sched_stall[s].iter().sum();
        let mut reasons: Vec<(usize, u64)> = st.sched_stall[s]
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, c)| c > 0)
            .collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let top: Vec<String> = reasons
            .iter()
            .take(2)
            .map(|&(i, c)| {
                format!(
                    "{} {:.0}%",
                    STALLS[i],
                    c as f64 / stalled.max(1) as f64 * 100.0
                )
            })
            .collect();
        parts.push(format!(
            "#{s} {} issues, {:.1}% dual, idle {}{}",
            st.sched_issue[s],
            st.sched_dual[s] as f64 / st.sched_issue[s].max(1) as f64 * 100.0,
            stalled,
            if top.is_empty() {
                String::new()
            } else {
                format!(" ({})", top.join(", "))
            }
        ));
        let by_reason: serde_json::Map<String, serde_json::Value> = STALLS
            .iter()
            .zip(st.sched_stall[s].iter())
            .map(|(name, &c)| (name.replace(' ', "_"), json!(c)))
            .collect();
        per.push(json!({
            "issue_cycles": st.sched_issue[s], "dual_pairs": st.sched_dual[s],
            "pairs_apart": st.sched_apart[s], "stalls": by_reason,
        }));
    }
    line("schedulers", parts.join("; "), json!(per));
    let warps = (t.occupancy.warps_per_block as usize).min(st.barrier_wait.len());
    if st.barrier_releases > 0 && warps > 0 {
        let waits = &st.barrier_wait[..warps];
        let (lo, hi) = (
            waits.iter().copied().min().unwrap_or(0),
            waits.iter().copied().max().unwrap_or(0),
        );
        let total: u64 = waits.iter().sum();
        line(
            "barriers",
            format!(
                "{} releases; cycles at barriers per warp of a block (summed over blocks): {} in all, from {lo} (warp {}) to {hi} (warp {})",
                st.barrier_releases,
                total,
                waits.iter().position(|&w| w == lo).unwrap_or(0),
                waits.iter().position(|&w| w == hi).unwrap_or(0),
            ),
            json!({ "releases": st.barrier_releases, "wait_cycles_by_warp": waits }),
        );
    }
}

/// A kernel and its launch file, found as `run` and `profile` take them.
pub struct Located {
    /// The launch file.
    pub launch_path: PathBuf,
    /// It, resolved with the `--set`s.
    pub resolved: launch::Resolved,
    /// The folder the files it names are read from.
    pub dir: PathBuf,
    /// The kernel file: FILE, else the one the launch file names, else the
    /// launch file's name with `.cubin`.
    pub kernel: PathBuf,
}

/// Finds the launch file and kernel of FILE (a kernel, or a launch file
/// `.ron`) and `--launch`, and resolves the launch file with `sets`. A
/// kernel file that is not there is named before its launch file.
pub fn locate(
    file: Option<&Path>,
    launch: Option<&Path>,
    sets: &[(String, i64)],
) -> Result<Located> {
    if let Some(f) = file.filter(|f| f.is_dir()) {
        bail!(
            "{}: a folder: name a kernel (a cubin, `.cu` or `.sass`) or a launch file",
            f.display()
        );
    }
    let named_launch = file.filter(|f| f.extension().is_some_and(|e| e == "ron"));
    let launch_path = match (launch, named_launch, file) {
        (Some(p), None, _) | (None, Some(p), _) => p.to_path_buf(),
        (Some(_), Some(_), _) => bail!("two launch files: FILE and --launch"),
        (None, None, Some(f)) => f.with_extension("launch.ron"),
        (None, None, None) => bail!("name a kernel file, a launch file, or both (--launch)"),
    };
    let kernel_arg = file.filter(|_| named_launch.is_none());
    if let Some(f) = kernel_arg {
        std::fs::metadata(f).with_context(|| f.display().to_string())?;
    }
    if let (Some(f), None, None) = (file, launch, named_launch) {
        if !launch_path.exists() {
            bail!(
                "{}: no launch file beside {}: a kernel runs with one that gives its grid, \
                 block, buffers and arguments (docs/launch-files.md has the schema, with \
                 examples); --launch F names another",
                launch_path.display(),
                f.display()
            );
        }
    }
    let text = crate::read_text(&launch_path, "the launch file; name another with --launch")?;
    let (resolved, dir) = resolve_launch(&launch_path, &text, sets)?;
    let kernel = match (kernel_arg, &resolved.cubin) {
        (Some(f), _) => f.to_path_buf(),
        (None, Some(c)) => dir.join(c),
        (None, None) => {
            let name = launch_path.to_string_lossy();
            PathBuf::from(format!(
                "{}.cubin",
                name.strip_suffix(".launch.ron")
                    .or_else(|| name.strip_suffix(".ron"))
                    .unwrap_or(&name)
            ))
        }
    };
    Ok(Located {
        launch_path,
        resolved,
        dir,
        kernel,
    })
}

/// Parses launch file `path` (its `text`) and resolves it with `sets`;
/// returns it and the folder the files it names are read from.
pub fn resolve_launch(
    path: &Path,
    text: &str,
    sets: &[(String, i64)],
) -> Result<(launch::Resolved, PathBuf)> {
    let spec = launch::parse(text).map_err(|e| anyhow!("{}:{e}", path.display()))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let r = launch::resolve(&spec, sets, &reader(&dir))
        .map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok((r, dir))
}

/// Reads the files a launch file in `dir` names (`sim-kernels`' reader: a
/// regular file no larger than the device's memory).
pub fn reader(dir: &Path) -> impl Fn(&str) -> Result<Vec<u8>, String> + '_ {
    sim_kernels::workload::reader(dir)
}

/// The machine a command simulates: a configuration file, and fields set
/// over it on the command line.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Machine {
    /// The machine configuration (default: the K20m, as `configs/k20m.ron`).
    #[arg(long, value_name = "FILE.ron")]
    pub config: Option<PathBuf>,
    /// Set a field of the configuration over the file's:
    /// `--param timing.issue_interval=2` (`chip.` or `timing.`, or the
    /// field's name alone; repeatable, the last one wins). Checked as the
    /// file's fields are (docs/timing-model.md)
    #[arg(long, value_name = "FIELD=VALUE")]
    pub param: Vec<Param>,
}

impl Machine {
    /// Reads and validates the configuration, then sets the parameters over
    /// it; no file means the K20m.
    pub fn load(&self) -> Result<Config> {
        Ok(match &self.config {
            None => Config::parse_with(None, "the K20m", &self.param)?,
            Some(p) => {
                let text = crate::read_text(p, "the configuration")?;
                Config::parse_with(Some(&text), &p.display().to_string(), &self.param)?
            }
        })
    }

    /// Whether this is the K20m as shipped: no file given, no field set.
    pub fn is_shipped(&self) -> bool {
        self.config.is_none() && self.param.is_empty()
    }

    /// What a report records of a machine other than the shipped K20m (a
    /// file, or fields set): none for the K20m as shipped.
    pub fn json(&self) -> Option<serde_json::Value> {
        if self.is_shipped() {
            return None;
        }
        let params: Vec<String> = self.param.iter().map(ToString::to_string).collect();
        Some(serde_json::json!({
            "config": self.config.as_ref().map(|p| p.display().to_string()),
            "params": params,
        }))
    }

    /// Each `--vary FIELD=V1,V2,...` setting, one at a time over this machine,
    /// with the configuration it makes; a bad field or value is refused here.
    pub fn variants(&self, vary: &[String]) -> Result<Vec<(Param, Config)>> {
        let mut out = Vec::new();
        for v in vary {
            let Some((field, values)) = v.split_once('=') else {
                bail!("--vary {v}: expected FIELD=V1,V2,... (`--vary branch_latency=4,8`)");
            };
            for value in values.split(',') {
                let param: Param = format!("{field}={value}")
                    .parse()
                    .map_err(|e| anyhow!("--vary {v}: {e}"))?;
                let mut m = self.clone();
                m.param.push(param.clone());
                let config = m.load().map_err(|e| {
                    // The setting's own error: its field and why, not `--param`.
                    match e.downcast_ref::<sim_core::config::ConfigError>() {
                        Some(c) if c.file.starts_with("--param") => {
                            anyhow!("--vary {v}: {}: {}", c.field, c.why)
                        }
                        _ => anyhow!("--vary {v}: {e}"),
                    }
                })?;
                out.push((param, config));
            }
        }
        Ok(out)
    }

    /// What a report says it simulated: `configs/k20m.ron`, or
    /// `x.ron with timing.issue_interval=2`.
    pub fn describe(&self) -> String {
        let file = self
            .config
            .as_ref()
            .map_or("configs/k20m.ron".into(), |p| p.display().to_string());
        if self.param.is_empty() {
            return file;
        }
        let params: Vec<String> = self.param.iter().map(ToString::to_string).collect();
        format!("{file} with {}", params.join(", "))
    }
}

/// Reads a cubin, compiles a `.cu` or assembles a `.sass`.
pub fn load_cubin(file: &Path, defines: &[String]) -> Result<Cubin> {
    load_cubin_with(file, defines, &[])
}

/// [`load_cubin`], with further NVRTC options for a `.cu`.
pub fn load_cubin_with(file: &Path, defines: &[String], nvrtc: &[String]) -> Result<Cubin> {
    let ext = file.extension().and_then(|e| e.to_str()).unwrap_or("");
    let bytes = match ext {
        "cu" => crate::compile::compile_file_with(file, defines, nvrtc)?,
        "sass" => crate::assemble(file)?,
        _ => crate::read_file(file)?,
    };
    Cubin::parse(&bytes).map_err(|e| anyhow!("{}: {e}", file.display()))
}

/// `--set NAME=VALUE` arguments as launch-file variable overrides.
pub fn parse_sets(sets: &[String]) -> Result<Vec<(String, i64)>> {
    sets.iter()
        .map(|s| {
            let (k, v) = s
                .split_once('=')
                .ok_or_else(|| anyhow!("--set {s}: expected NAME=VALUE"))?;
            let v: i64 = v.trim().parse().map_err(|e: std::num::ParseIntError| {
                use std::num::IntErrorKind::{NegOverflow, PosOverflow};
                match e.kind() {
                    PosOverflow | NegOverflow => anyhow!(
                        "--set {s}: `{v}` is outside a launch variable's range, -2^63 to 2^63 - 1"
                    ),
                    _ => anyhow!("--set {s}: `{v}` is not an integer"),
                }
            })?;
            Ok((k.trim().to_string(), v))
        })
        .collect()
}
