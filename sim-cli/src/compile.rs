//! `keplersim compile FILE.cu -o FILE.cubin [-D NAME=VAL]... [--nvrtc-option OPT]...`:
//! CUDA C++ to an sm_35 cubin through NVRTC 11.8 (see `sim_oracle::nvrtc`). A
//! source line `// keplersim: nvrtc-options -use_fast_math -maxrregcount=32`
//! adds options too.

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
    /// An option for NVRTC, passed as it is (`--nvrtc-option=-use_fast_math`,
    /// `--nvrtc-option=-maxrregcount=32`, `-lineinfo`, `-G`); repeatable.
    #[arg(
        long = "nvrtc-option",
        value_name = "OPTION",
        allow_hyphen_values = true
    )]
    pub nvrtc_option: Vec<String>,
}

/// Runs `keplersim compile`.
pub fn run(args: CompileArgs) -> Result<()> {
    crate::writable(&args.output)?;
    let cubin = compile_file_with(&args.file, &args.define, &args.nvrtc_option)?;
    std::fs::write(&args.output, &cubin).with_context(|| format!("{}", args.output.display()))?;
    if sim_isa::cubin::Cubin::parse(&cubin).is_ok_and(|c| c.kernels.is_empty()) {
        eprintln!(
            "warning: {}: no kernel in it (no `__global__` function)",
            args.file.display()
        );
    }
    Ok(())
}

/// Compiles a CUDA C++ file for sm_35 with the given `-D` definitions (without the
/// `-D`) and further NVRTC options (the source's own, on `// keplersim:
/// nvrtc-options ...` lines, then `extra`) and returns the cubin. The file's
/// folder is on the include path. NVRTC's warnings, if any, go to stderr.
pub fn compile_file_with(file: &Path, defines: &[String], extra: &[String]) -> Result<Vec<u8>> {
    let bytes = crate::read_file(file)?;
    let source = String::from_utf8(bytes)
        .map_err(|e| anyhow::anyhow!("{}: not UTF-8 text ({e})", file.display()))?;
    let mut options: Vec<String> = defines.iter().map(|d| format!("-D{d}")).collect();
    options.extend(source_options(&source));
    options.extend(extra.iter().cloned());
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

/// The NVRTC options a source asks for on `// keplersim: nvrtc-options ...`
/// lines, in order.
pub fn source_options(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("//"))
        .filter_map(|l| l.trim().strip_prefix("keplersim:"))
        .filter_map(|l| l.trim().strip_prefix("nvrtc-options"))
        .flat_map(|l| l.split_whitespace().map(str::to_string))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_source_names_its_nvrtc_options() {
        let src = "// keplersim: nvrtc-options -use_fast_math -maxrregcount=32\n\
                   //keplersim: nvrtc-options -lineinfo\n// keplersim nvrtc-options -G\nint x;\n";
        assert_eq!(
            super::source_options(src),
            ["-use_fast_math", "-maxrregcount=32", "-lineinfo"]
        );
    }
}
