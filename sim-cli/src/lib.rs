//! `keplersim`, a cycle-level simulator of NVIDIA's Kepler GK110 SM (sm_35,
//! Tesla K20m): its commands and their arguments, and what they print. The
//! only crate that talks to people; the model is `sim-core`'s, the workloads
//! `sim-kernels`'. The binary (`src/main.rs`) calls [`main`]; the library
//! is there so that the fuzz targets reach what reads the program's own
//! files (the trace file and the viewer over it: [`trace`], [`view`],
//! [`perfetto`]).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};

mod bench;
mod compile;
mod golden;
mod isa;
mod ladder;
pub mod perfetto;
mod plot;
mod profile;
mod progress;
mod run;
mod sample;
mod study;
pub mod trace;
pub mod view;

/// keplersim: a cycle-level simulator of NVIDIA's Kepler GK110 SM (sm_35,
/// Tesla K20m): run, check, profile and benchmark real sm_35 cubins. (The
/// line `--help` prints is the package's description.)
#[derive(Parser)]
#[command(name = "keplersim", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
    /// Log the program's phases and their timings to stderr (-v: info,
    /// -vv: debug); RUST_LOG overrides (`RUST_LOG=keplersim=debug`).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print every kernel of an sm_35 cubin as `cuobjdump -sass` does.
    Disasm {
        /// The cubin, or CUDA C (`.cu`, compiled with NVRTC 11.8 first) or
        /// SASS (`.sass`, assembled first).
        file: PathBuf,
        /// Also show each control word's seven fields in the T:G:D:S:NN notation.
        #[arg(long)]
        control: bool,
        /// Also print each kernel's assembler directives (.registers, .param, ...),
        /// so that `keplersim asm` rebuilds the whole kernel, not only its code.
        #[arg(long)]
        directives: bool,
    },
    /// Assemble SASS (hand-written, or a `disasm` listing) into an sm_35 cubin.
    Asm {
        /// The source: docs/assembler.md gives its directives, labels, aliases
        /// and control annotations.
        file: PathBuf,
        /// The cubin to write.
        #[arg(short, long)]
        output: PathBuf,
    },
    /// Run a kernel (a cubin, or CUDA C compiled on the fly) as its launch file
    /// says, and check its outputs.
    Run(Box<run::RunArgs>),
    /// Run every kernel with a golden timing report (traces/golden) and
    /// compare; `--bless` takes a deliberate change of the model.
    Golden(golden::GoldenArgs),
    /// The kernel's SASS annotated per instruction from a timed run:
    /// executions, dual pairs, bank conflicts, stall cycles by reason, the
    /// control byte decoded; then the hottest instructions and worst stalls.
    Profile(profile::ProfileArgs),
    /// The pipeline viewer: step through a trace recorded by `run --trace`
    /// cycle by cycle (schedulers, warps, SASS, units); docs/viewer.md.
    View(view::ViewArgs),
    /// Benchmarks: the simulator's own speed (func, speed), the SGEMM ladder
    /// against the paper (sgemm), the microbenchmarks against the K20m (micro),
    /// the tiled-SGEMM study (study).
    Bench {
        #[command(subcommand)]
        cmd: bench::BenchCmd,
    },
    /// Check a cubin's code against the timing model's rules: register bank
    /// conflicts the operand collector cannot hide, dual issue that breaks a
    /// rule, hazards (results read too early), loops not aligned to a group.
    Check {
        /// The cubin (or .sass, assembled first).
        file: PathBuf,
        /// Only this kernel.
        #[arg(long)]
        kernel: Option<String>,
        /// Exit non-zero when there is any finding.
        #[arg(long)]
        strict: bool,
        /// Print only each kernel's summary.
        #[arg(long)]
        summary: bool,
        /// Count no operand as reused by the operand collector (what happens
        /// when other warps issue in between and it keeps none of the warp's
        /// reads).
        #[arg(long)]
        no_reuse: bool,
        /// The machine configuration (its reading of the operand collector,
        /// which the check follows).
        #[command(flatten)]
        machine: run::Machine,
    },
    /// Generate kernels as keplersim assembler source.
    Gen {
        #[command(subcommand)]
        cmd: GenCmd,
    },
    /// Compile CUDA C++ to an sm_35 cubin with NVRTC 11.8 (scripts/fetch-oracle.sh).
    Compile(compile::CompileArgs),
    /// Work on the sm_35 instruction table: decode and encode words; crack and
    /// corpus rebuild it (those two need NVIDIA's tools: scripts/fetch-oracle.sh).
    Isa {
        #[command(subcommand)]
        cmd: isa::IsaCmd,
    },
}

#[derive(Subcommand)]
enum GenCmd {
    /// The tuned TN SGEMM or a step of its optimisation ladder (docs/sgemm.md).
    Sgemm {
        /// The ladder step: baseline, reg, ld128, ldg128, paper (+Dual with the
        /// paper's control bytes) or dual (the tuned kernel).
        #[arg(long, default_value = "dual")]
        step: String,
        /// The register block per thread: 12 (192 x 192 tile) or 8 (128 x 128).
        #[arg(long, default_value_t = 12)]
        block: usize,
        /// Which threads load B from global memory: `first` (threads 0 to
        /// 16 x block - 1, which load A too: each loading warp issues two of a
        /// chunk's loads) or `last` (the block's last 16 x block threads: one
        /// each). Default: the step's own (`last` for the 8x8 tuned kernel
        /// alone).
        #[arg(long, value_enum, value_name = "THREADS")]
        b_loaders: Option<Loaders>,
        /// The FFMA order and accumulator banks, for the 12x12 steps from
        /// reg on: `published` (the paper's published order and banks) or
        /// `solved` (the generator's order, banks chosen pair by pair so that
        /// a pair reads two registers of one bank only where no bank avoids
        /// it). Default: the step's own (`published` for reg to paper,
        /// `solved` for the tuned kernel).
        #[arg(long, value_enum, value_name = "ORDER")]
        order: Option<FfmaOrder>,
        /// The .sass file to write.
        #[arg(short, long)]
        output: PathBuf,
        /// Also write this launch file (its cubin: OUTPUT with .cubin).
        #[arg(long, value_name = "FILE.launch.ron")]
        launch: Option<PathBuf>,
        /// The launch file's default m = n = k: a positive multiple of the
        /// tile.
        #[arg(long, default_value_t = 768, requires = "launch")]
        size: usize,
    },
}

/// Which threads load B (`gen sgemm --b-loaders`).
#[derive(Clone, Copy, ValueEnum)]
enum Loaders {
    First,
    Last,
}

/// The FFMA order and accumulator banks (`gen sgemm --order`).
#[derive(Clone, Copy, ValueEnum)]
enum FfmaOrder {
    Published,
    Solved,
}

fn gen(cmd: GenCmd) -> Result<()> {
    match cmd {
        GenCmd::Sgemm {
            step,
            block,
            b_loaders,
            order,
            output,
            launch,
            size,
        } => {
            if block != 8 && block != 12 {
                anyhow::bail!("--block {block}: the register block per thread is 8 or 12");
            }
            let mut v = sim_kernels::sgemm::Variant::ladder(&step, block).ok_or_else(|| {
                anyhow::anyhow!(
                    "--step {step}: the steps are {}",
                    sim_kernels::sgemm::LADDER.join(", ")
                )
            })?;
            if let Some(b) = b_loaders {
                v.b_last = matches!(b, Loaders::Last);
            }
            if let Some(o) = order {
                if !v.banked || block != 12 {
                    anyhow::bail!(
                        "--order: the FFMA order is chosen for the 12x12 kernel's steps from reg on (bank-aware allocation), not for --step {step} --block {block}"
                    );
                }
                v.published = matches!(o, FfmaOrder::Published);
            }
            let tile = v.tile();
            if size == 0 || size % tile != 0 {
                anyhow::bail!(
                    "--size {size}: m = n = k must be a positive multiple of the kernel's {tile}-row tile ({tile}, {}, ...)",
                    2 * tile
                );
            }
            // Both outputs checked first: no .sass left without its launch file.
            for f in std::iter::once(&output).chain(launch.as_ref()) {
                writable(f)?;
            }
            let g = sim_kernels::sgemm::generate(v);
            std::fs::write(&output, &g.sass).with_context(|| format!("{}", output.display()))?;
            println!(
                "{}: {}, {} registers; loop: {} instructions, {} FFMAs, {} dual-issue pairs",
                output.display(),
                v.kernel_name(),
                g.registers,
                g.loop_instructions,
                g.loop_ffmas,
                g.loop_pairs
            );
            if let Some(l) = launch {
                let cubin = output.with_extension("cubin");
                let name = cubin
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                std::fs::write(&l, sim_kernels::sgemm::launch_file(v, &name, size))
                    .with_context(|| format!("{}", l.display()))?;
            }
            Ok(())
        }
    }
}

fn check(
    file: &std::path::Path,
    only: Option<&str>,
    strict: bool,
    summary: bool,
    no_reuse: bool,
    machine: &run::Machine,
) -> Result<()> {
    let opts = sim_core::check::Options {
        no_reuse,
        ..sim_core::check::Options::for_timing(&machine.load()?.timing)
    };
    let cubin = run::load_cubin(file, &[])?;
    let names: Vec<String> = cubin.kernels.iter().map(|k| k.name.clone()).collect();
    if names.is_empty() {
        println!("{}: no kernel to check", file.display());
        return Ok(());
    }
    if let Some(n) = only {
        if !names.iter().any(|k| k == n) {
            anyhow::bail!(
                "{}: no kernel `{n}` ({})",
                file.display(),
                sim_core::it_has(names.iter().map(String::as_str))
            );
        }
    }
    let mut total = 0;
    for name in names
        .iter()
        .filter(|k| only.is_none_or(|n| n == k.as_str()))
    {
        let mut global = sim_core::mem::GlobalMem::new();
        let prog = sim_core::program::Program::load(&cubin, name, &mut global)
            .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let r = sim_core::check::check_with(&prog, opts);
        if !summary {
            for (slot, f) in &r.findings {
                println!(
                    "  /*{:04x}*/ {:<44} {f}",
                    slot * 8,
                    format!("{};", prog.text(*slot).trim_end_matches(';'))
                );
            }
        }
        let c = r.conflicts();
        println!(
            "{name}: {} instructions, {} dual-issue pairs; bank conflicts {} 2-way, {} 3-way, {} 4-way; dual-issue rule breaks {}; hazards {}; unaligned loops {}{}",
            r.instructions,
            r.pairs,
            c[0],
            c[1],
            c[2],
            r.dual_breaks(),
            r.hazards(),
            r.unaligned(),
            match r.cannot_run() {
                0 => String::new(),
                n => format!("; cannot run {n}"),
            }
        );
        total += r.findings.len();
    }
    if strict && total > 0 {
        anyhow::bail!("{}: {total} findings", file.display());
    }
    Ok(())
}

/// Gives SIGPIPE its default action back (the Rust runtime ignores it, so a
/// write to a closed pipe fails and `print!` panics): when whoever reads our
/// output goes away (`keplersim disasm x.cubin | head`), the process ends
/// quietly, as `cat` does.
fn quiet_on_closed_output() {
    #[cfg(unix)]
    // SAFETY: called once at the start of `main`, before any thread exists;
    // setting a signal's disposition to its default has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Sends the program's `tracing` logs to stderr: warnings and errors, or
/// more with `-v`; `RUST_LOG` (an `EnvFilter`) overrides.
fn logging(verbose: u8) {
    use tracing_subscriber::EnvFilter;
    let level = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_timer(tracing_subscriber::fmt::time::uptime())
        .with_target(false)
        .try_init();
}

/// The program: parses the command line, runs the command, and prints its
/// error, if any, as `keplersim: error: ...`.
pub fn main() -> ExitCode {
    quiet_on_closed_output();
    let cli = Cli::parse();
    logging(cli.verbose);
    let r: Result<()> = match cli.cmd {
        Cmd::Isa { cmd } => isa::run(cmd),
        Cmd::Compile(args) => compile::run(args),
        Cmd::Gen { cmd } => gen(cmd),
        Cmd::Check {
            file,
            kernel,
            strict,
            summary,
            no_reuse,
            machine,
        } => check(
            &file,
            kernel.as_deref(),
            strict,
            summary,
            no_reuse,
            &machine,
        ),
        Cmd::Run(args) => run::run(*args),
        Cmd::Bench { cmd } => bench::run(cmd),
        Cmd::Golden(args) => golden::run(args),
        Cmd::Profile(args) => profile::run(args),
        Cmd::View(args) => view::command(args),
        Cmd::Disasm {
            file,
            control,
            directives,
        } => disasm(&file, control, directives),
        Cmd::Asm { file, output } => asm(&file, &output),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<run::Interrupted>() => {
            eprintln!("keplersim: {e}");
            ExitCode::from(130)
        }
        Err(e) => {
            eprintln!("keplersim: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Reads a RON text file, naming it in the error as `what` it is ("the
/// launch file"); a binary file is told as one, not as invalid UTF-8.
pub fn read_text(path: &std::path::Path, what: &str) -> Result<String> {
    let bytes = sim_kernels::workload::read_input(path)
        .with_context(|| format!("{} ({what})", path.display()))?;
    String::from_utf8(bytes).map_err(|_| {
        anyhow::anyhow!(
            "{} ({what}): a binary file, where RON text belongs",
            path.display()
        )
    })
}

/// The threads a `--threads` asks for: the cores available by default;
/// 0 is an error.
pub fn threads(asked: Option<usize>) -> Result<usize> {
    match asked {
        Some(0) => anyhow::bail!("--threads 0: at least 1"),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Refuses, before any work is done, a file to write that cannot be: its
/// folder is not there (or is a file), or the path is a folder. Minutes of
/// simulation are not lost to a mistyped `--json` or `--plot`.
pub fn writable(path: &std::path::Path) -> Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    if !folder.is_dir() {
        anyhow::bail!(
            "{}: no folder {} to write it in",
            path.display(),
            folder.display()
        );
    }
    if path.is_dir() {
        anyhow::bail!("{}: a folder, not a file to write", path.display());
    }
    Ok(())
}

/// Reads a file the user named (a regular file no larger than the device's
/// memory: `sim_kernels::workload::read_input`).
pub fn read_file(path: &std::path::Path) -> Result<Vec<u8>> {
    sim_kernels::workload::read_input(path).with_context(|| format!("{}", path.display()))
}

fn disasm(file: &std::path::Path, control: bool, directives: bool) -> Result<()> {
    let cubin = run::load_cubin(file, &[])?;
    let opts = sim_isa::listing::ListingOptions {
        control_fields: control,
        directives,
    };
    let text = sim_isa::listing::listing(&cubin, opts)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    print!("{text}");
    Ok(())
}

fn asm(file: &std::path::Path, output: &std::path::Path) -> Result<()> {
    writable(output)?;
    let cubin = assemble(file)?;
    std::fs::write(output, cubin).with_context(|| format!("{}", output.display()))?;
    Ok(())
}

/// Assembles a SASS file (its `.include`s expanded) into cubin bytes.
pub fn assemble(file: &std::path::Path) -> Result<Vec<u8>> {
    Ok(sim_kernels::workload::assemble(file)?)
}
