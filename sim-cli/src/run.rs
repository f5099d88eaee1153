//! `keplersim run`: runs a kernel of a cubin (or a CUDA C file, compiled on the
//! fly) as a launch file describes, checks its outputs and reports.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use sim_core::func;
use sim_core::launch::{self, Buffer};
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_isa::cubin::Cubin;

/// The arguments of `keplersim run`.
#[derive(Args)]
pub struct RunArgs {
    /// The kernel: an sm_35 cubin, or a CUDA C file (compiled with NVRTC first).
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
}

/// Runs `keplersim run`; fails (non-zero exit) when a check fails.
pub fn run(args: RunArgs) -> Result<()> {
    let launch_path = match &args.launch {
        Some(p) => p.clone(),
        None => default_launch(&args.file),
    };
    let text = std::fs::read_to_string(&launch_path)
        .with_context(|| format!("{} (the launch file; name another with --launch)", launch_path.display()))?;
    let spec = launch::parse(&text).map_err(|e| anyhow!("{}:{e}", launch_path.display()))?;
    let overrides = parse_sets(&args.set)?;
    let dir = launch_path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = |f: &str| -> Result<Vec<u8>, String> {
        let p = dir.join(f);
        std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
    };
    let r = launch::resolve(&spec, &overrides, &read).map_err(|e| anyhow!("{}: {e}", launch_path.display()))?;

    let is_cu = args.file.extension().is_some_and(|e| e == "cu");
    let bytes = if is_cu {
        crate::compile::compile_file(&args.file, &args.define)?
    } else {
        crate::read_file(&args.file)?
    };
    let cubin = Cubin::parse(&bytes).map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    let mut global = GlobalMem::new();
    let mut addrs = Vec::new();
    for b in &r.buffers {
        addrs.push((b.name.clone(), global.alloc(&b.name, b.data.clone())));
    }
    let prog = Program::load(&cubin, &r.kernel, &mut global).map_err(|e| anyhow!("{}: {e}", args.file.display()))?;
    let addr = |n: &str| addrs.iter().find(|(a, _)| a == n).map_or(0, |x| x.1);
    let params = launch::pack_params(&r, &prog.params, prog.param_size, &addr)
        .map_err(|e| anyhow!("{}: {e}", launch_path.display()))?;

    let t0 = Instant::now();
    let stats = func::run(&prog, &mut global, &r.dims, &params, r.limit)?;
    let secs = t0.elapsed().as_secs_f64();

    println!("kernel      {} ({})", r.kernel, args.file.display());
    println!("launch      {} , {} registers/thread, {} B shared", r.dims, prog.registers, prog.shared_size + r.dims.dynamic_shared);
    if !r.vars.is_empty() {
        let v: Vec<String> = r.vars.iter().map(|(k, v)| format!("{k}={v}")).collect();
        println!("vars        {}", v.join(" "));
    }
    println!(
        "executed    {} warp-instructions in {} blocks ({:.2} s, {:.1} M warp-instructions/s functional)",
        stats.warp_instructions,
        stats.blocks,
        secs,
        stats.warp_instructions as f64 / secs.max(1e-9) / 1e6
    );
    let finals: Vec<Buffer> = r
        .buffers
        .iter()
        .map(|b| Buffer {
            name: b.name.clone(),
            elem: b.elem,
            data: global.get(&b.name).map(|a| a.data.clone()).unwrap_or_default(),
        })
        .collect();
    if let Some(d) = &args.dump {
        std::fs::create_dir_all(d).with_context(|| format!("{}", d.display()))?;
        for b in &finals {
            let p = d.join(format!("{}.bin", b.name));
            std::fs::write(&p, &b.data).with_context(|| format!("{}", p.display()))?;
        }
        println!("dumped      {} buffers to {}", finals.len(), d.display());
    }
    let mut failed = 0;
    for c in &r.checks {
        let got = finals.iter().find(|b| b.name == c.buffer).ok_or_else(|| anyhow!("no buffer {}", c.buffer))?;
        let res = launch::check(c, &r, &r.buffers, got, &read).map_err(|e| anyhow!("{}: {e}", launch_path.display()))?;
        let how = match c.compare {
            sim_core::launch::spec::Compare::BitExact => "bit-exact".to_string(),
            sim_core::launch::spec::Compare::Ulp(u) => format!("within {u} ulp"),
        };
        if res.passed() {
            println!(
                "check       {}: PASS ({} elements {how}{})",
                res.buffer,
                res.elements,
                if res.max_ulp > 0 { format!(", max {} ulp", res.max_ulp) } else { String::new() }
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

/// `x.cubin` or `x.cu` -> `x.launch.ron`.
fn default_launch(file: &Path) -> PathBuf {
    file.with_extension("launch.ron")
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
