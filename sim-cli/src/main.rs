//! `keplersim`: the command-line front end. The only crate that talks to people.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

mod isa;

/// A cycle-level simulator of NVIDIA's Kepler GK110 SM (sm_35, Tesla K20m).
#[derive(Parser)]
#[command(name = "keplersim", version, about)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Print every kernel of an sm_35 cubin as `cuobjdump -sass` does.
    Disasm {
        /// The cubin.
        file: PathBuf,
        /// Also show each control word's seven fields in the T:G:D:S:NN notation.
        #[arg(long)]
        control: bool,
    },
    /// Work on the sm_35 instruction table (needs NVIDIA's tools: scripts/fetch-oracle.sh).
    Isa {
        #[command(subcommand)]
        cmd: isa::IsaCmd,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r: Result<()> = match cli.cmd {
        Cmd::Isa { cmd } => isa::run(cmd),
        Cmd::Disasm { file, control } => disasm(&file, control),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("keplersim: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// Reads a file, naming it in the error.
pub fn read_file(path: &PathBuf) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}", path.display()))
}

fn disasm(file: &PathBuf, control: bool) -> Result<()> {
    let bytes = read_file(file)?;
    let cubin = sim_isa::cubin::Cubin::parse(&bytes)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let opts = sim_isa::listing::ListingOptions {
        control_fields: control,
    };
    let text = sim_isa::listing::listing(&cubin, opts)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    print!("{text}");
    Ok(())
}
