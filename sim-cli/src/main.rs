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
#[allow(dead_code)]
pub fn read_file(path: &PathBuf) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}", path.display()))
}
