//! `keplersim isa ...`: the crack that derives the instruction table from NVIDIA's
//! disassembler.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Subcommand;
use sim_oracle::crack;
use sim_oracle::Tools;

#[derive(Subcommand)]
pub enum IsaCmd {
    /// Derive the sm_35 table by flipping bits of seed words and asking nvdisasm.
    Crack {
        /// Seed corpus: lines `0x<word><TAB>text` (default: traces/isa-corpus/corpus.txt).
        #[arg(long)]
        corpus: Option<PathBuf>,
        /// Also seed from a sweep of the opcode space.
        #[arg(long, default_value_t = true)]
        sweep: bool,
        /// Where to write the generated table (default: sim-isa/src/sm35_table.rs).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print every form that was not learned completely.
        #[arg(long)]
        problems: bool,
    },
    /// Regenerate the PTX corpus and its harvest of (word, text) pairs with ptxas
    /// and nvdisasm (the crack's seeds).
    Corpus {
        /// Output folder (default: traces/isa-corpus).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Decode instruction words: one line each, the text (as at --addr) or why not.
    Decode {
        /// 64-bit words in hex (`0x4c00000000001c12`).
        #[arg(required = true)]
        words: Vec<String>,
        /// Byte address of the words (branch targets are absolute).
        #[arg(long, default_value = "0x8", value_parser = parse_hex)]
        addr: u64,
    },
    /// Encode instruction texts: one word per text, or why not.
    Encode {
        /// Instruction texts as nvdisasm prints them (`"FFMA R0, R1, R2, R3;"`).
        #[arg(required = true)]
        texts: Vec<String>,
        /// Byte address of the instructions (branch targets are absolute).
        #[arg(long, default_value = "0x8", value_parser = parse_hex)]
        addr: u64,
    },
}

fn parse_hex(s: &str) -> Result<u64, String> {
    let t = s.trim_start_matches("0x");
    u64::from_str_radix(t, 16).map_err(|_| format!("`{s}` is not a hex number"))
}

pub fn run(cmd: IsaCmd) -> Result<()> {
    if let IsaCmd::Decode { addr, .. } | IsaCmd::Encode { addr, .. } = &cmd {
        if addr % 8 != 0 {
            anyhow::bail!("--addr {addr:#x}: instructions sit at multiples of 8 bytes");
        }
    }
    match cmd {
        IsaCmd::Decode { words, addr } => {
            let mut failed = 0;
            for w in &words {
                let word = parse_hex(w).map_err(anyhow::Error::msg)?;
                match sim_isa::decode::disassemble(word, addr) {
                    Ok(t) => println!("{word:#018x}  {t}"),
                    Err(e) => {
                        failed += 1;
                        println!("{word:#018x}  error: {e}");
                    }
                }
            }
            if failed > 0 {
                anyhow::bail!("{failed} of {} words do not decode", words.len());
            }
            Ok(())
        }
        IsaCmd::Encode { texts, addr } => {
            let mut failed = 0;
            for t in &texts {
                if t.trim().trim_end_matches(';').trim().is_empty() {
                    failed += 1;
                    println!("error: an empty text: no instruction to encode");
                    continue;
                }
                match sim_isa::encode::assemble(t, addr) {
                    Ok(w) => println!("{w:#018x}  {}", sim_isa::encode::normalize(t)),
                    Err(e) => {
                        failed += 1;
                        println!("error: {e}");
                    }
                }
            }
            if failed > 0 {
                anyhow::bail!("{failed} of {} texts do not encode", texts.len());
            }
            Ok(())
        }
        IsaCmd::Corpus { out } => {
            let tools = Tools::locate()?;
            let out = out.unwrap_or_else(sim_oracle::corpus::default_dir);
            let t0 = std::time::Instant::now();
            let c = sim_oracle::corpus::regenerate(&tools, &out)
                .with_context(|| format!("regenerating the corpus in {}", out.display()))?;
            println!(
                "{} distinct instruction words from {} PTX samples written to {} ({:.1}s)",
                c.entries.len(),
                sim_oracle::corpus::generate().len(),
                sim_oracle::corpus::corpus_path(&out).display(),
                t0.elapsed().as_secs_f64()
            );
            Ok(())
        }
        IsaCmd::Crack {
            corpus,
            sweep,
            out,
            problems,
        } => {
            let tools = Tools::locate()?;
            let root = sim_oracle::tools::workspace_root();
            let corpus = corpus.unwrap_or_else(|| root.join("traces/isa-corpus/corpus.txt"));
            let mut seeds = Vec::new();
            if corpus.exists() {
                let text = std::fs::read_to_string(&corpus)
                    .with_context(|| corpus.display().to_string())?;
                for (n, line) in text.lines().enumerate() {
                    if line.starts_with('#') || line.trim().is_empty() {
                        continue;
                    }
                    let hex = line.split_whitespace().next().unwrap_or("");
                    let w = u64::from_str_radix(hex.trim_start_matches("0x"), 16).with_context(
                        || format!("{}:{}: not a word: {hex}", corpus.display(), n + 1),
                    )?;
                    seeds.push(w);
                }
            }
            if sweep {
                seeds.extend(crack::sweep_seeds());
            }
            let t0 = std::time::Instant::now();
            let report = crack::crack(&tools, &seeds, |m| eprintln!("crack: {m}"))?;
            let ok = report.forms.iter().filter(|f| f.problem.is_none()).count();
            let checked: usize = report.forms.iter().map(|f| f.checked).sum();
            let agreed: usize = report.forms.iter().map(|f| f.agreed).sum();
            println!(
                "{} seeds, {} forms ({} learned, {} with problems), {} probes, validation {}/{} ({:.2}%), {:.1}s",
                report.seeds,
                report.forms.len(),
                ok,
                report.forms.len() - ok,
                report.probes,
                agreed,
                checked,
                100.0 * agreed as f64 / checked.max(1) as f64,
                t0.elapsed().as_secs_f64()
            );
            if problems {
                for f in &report.forms {
                    if let Some(p) = &f.problem {
                        println!("PROBLEM {:#018x} {}: {p}", f.seed, f.mnemonic);
                    } else if f.agreed < f.checked {
                        println!(
                            "DISAGREE {:#018x} {}: {}/{}",
                            f.seed, f.mnemonic, f.agreed, f.checked
                        );
                        if let Some((w, want, got)) = &f.mismatch {
                            println!("    {w:#018x}\n    nvdisasm: {want}\n    learned:  {got}");
                        }
                    }
                }
            }
            let out = out.unwrap_or_else(|| root.join("sim-isa/src/sm35_table.rs"));
            std::fs::write(&out, crack::emit::emit(&report.forms))
                .with_context(|| out.display().to_string())?;
            println!("wrote {}", out.display());
            Ok(())
        }
    }
}
