//! `keplersim compile FILE.cu -o FILE.cubin [-D NAME=VAL]...`: CUDA C++ to an sm_35
//! cubin through NVRTC 11.8 (see `sim_oracle::nvrtc`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::Args;

/// The arguments of `keplersim compile`.
#[derive(Args)]
pub struct CompileArgs {
    /// The CUDA C++ source (kernels declared `extern "C"` keep their names).
    pub file: PathBuf,
    /// The cubin to write.
    #[arg(short, long)]
    pub output: PathBuf,
    /// A preprocessor definition, `NAME` or `NAME=VALUE`; may be repeated.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
}

/// Runs `keplersim compile`.
pub fn run(args: CompileArgs) -> Result<()> {
    let cubin = compile_file(&args.file, &args.define)?;
    std::fs::write(&args.output, cubin).with_context(|| format!("{}", args.output.display()))?;
    Ok(())
}

/// Compiles a CUDA C++ file for sm_35 with the given `-D` definitions (without the
/// `-D`) and returns the cubin. The file's folder is on the include path. NVRTC's
/// warnings, if any, go to stderr.
pub fn compile_file(file: &Path, defines: &[String]) -> Result<Vec<u8>> {
    let bytes = std::fs::read(file).with_context(|| format!("{}", file.display()))?;
    let source = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text ({e})", file.display()))?;
    let mut options: Vec<String> = defines.iter().map(|d| format!("-D{d}")).collect();
    let dir = file.parent().filter(|d| !d.as_os_str().is_empty());
    options.push(format!("-I{}", dir.unwrap_or(Path::new(".")).display()));
    let nvrtc = sim_oracle::Nvrtc::locate()?;
    let name = file.display().to_string();
    let compiled = nvrtc.compile_sm35(&source, &name, &options)?;
    if !compiled.log.is_empty() {
        eprintln!("{}", compiled.log);
    }
    Ok(compiled.cubin)
}
