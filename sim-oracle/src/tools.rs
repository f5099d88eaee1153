//! Locating and running NVIDIA's sm_35 tools.
//!
//! The tools live in `<workspace>/.oracle/bin` (fetched by `scripts/fetch-oracle.sh`),
//! or wherever `KEPLERSIM_ORACLE` points. Raw-mode disassembly is batched: nvdisasm
//! takes a stream of 64-bit words in groups of one control word and seven
//! instructions, and rejects the whole stream if any instruction is not understood,
//! naming each bad address; [`Tools::disasm_words`] retries without the rejected
//! words so one call answers for every word.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A neutral control word for raw streams: every instruction's field is 0x20 (no
/// stall, no barrier), so nvdisasm prints nothing unusual.
pub const NEUTRAL_CONTROL: u64 = 0x0800_0000_0000_0000 | 0x20_2020_2020_2020 << 2;
/// A `NOP` used as padding in raw streams.
pub const NOP_WORD: u64 = 0x8580_0000_001c_3c02;

/// Errors from running the oracle tools.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    #[error("NVIDIA's sm_35 tools are not installed in {0}: run `bash scripts/fetch-oracle.sh`")]
    Missing(PathBuf),
    #[error("cannot run {tool}: {source}")]
    Spawn {
        tool: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{tool} failed: {stderr}")]
    Failed { tool: String, stderr: String },
    #[error("I/O error on {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read nvdisasm's output: {0}")]
    Output(String),
}

/// What nvdisasm said of one raw instruction word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The instruction text exactly as `nvdisasm -raw` prints it, predicate
    /// included (`@P0 EXIT;`), without address or encoding.
    Text(String),
    /// nvdisasm rejected the word; the message it gave.
    Rejected(String),
}

/// The located tool binaries.
#[derive(Debug, Clone)]
pub struct Tools {
    pub bin: PathBuf,
    pub lib: PathBuf,
    scratch: PathBuf,
}

impl Tools {
    /// Finds the tools: `$KEPLERSIM_ORACLE` (a folder with `bin/` and `lib/`), else the
    /// `.oracle` folder at the workspace root.
    pub fn locate() -> Result<Tools, OracleError> {
        let root = match std::env::var_os("KEPLERSIM_ORACLE") {
            Some(p) => PathBuf::from(p),
            None => workspace_root().join(".oracle"),
        };
        let bin = root.join("bin");
        for t in ["nvdisasm", "cuobjdump", "ptxas"] {
            if !bin.join(t).is_file() {
                return Err(OracleError::Missing(root));
            }
        }
        let scratch = std::env::temp_dir().join(format!("keplersim-oracle-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).map_err(|e| OracleError::Io {
            path: scratch.clone(),
            source: e,
        })?;
        Ok(Tools {
            bin,
            lib: root.join("lib"),
            scratch,
        })
    }

    /// Path of a tool binary.
    pub fn tool(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }

    /// A fresh scratch file path unique to this process and call site.
    pub fn scratch_file(&self, name: &str) -> PathBuf {
        use std::sync::atomic::{AtomicU64, Ordering};
        static N: AtomicU64 = AtomicU64::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        let tid = format!("{:?}", std::thread::current().id())
            .replace(|c: char| !c.is_ascii_alphanumeric(), "");
        self.scratch.join(format!("{n}-{tid}-{name}"))
    }

    /// Runs a tool and returns its stdout; a non-zero exit is an error carrying stderr.
    pub fn run(
        &self,
        name: &str,
        args: &[&std::ffi::OsStr],
    ) -> Result<(String, String, bool), OracleError> {
        let out = Command::new(self.tool(name))
            .args(args)
            .output()
            .map_err(|e| OracleError::Spawn {
                tool: name.into(),
                source: e,
            })?;
        Ok((
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
            out.status.success(),
        ))
    }

    /// Compiles PTX text to an sm_35 cubin with ptxas; returns the cubin bytes.
    pub fn ptxas(&self, ptx: &str) -> Result<Vec<u8>, OracleError> {
        let src = self.scratch_file("in.ptx");
        let dst = self.scratch_file("out.cubin");
        write(&src, ptx.as_bytes())?;
        let (_, err, ok) = self.run(
            "ptxas",
            &[
                "-arch=sm_35".as_ref(),
                src.as_os_str(),
                "-o".as_ref(),
                dst.as_os_str(),
            ],
        )?;
        let _ = std::fs::remove_file(&src);
        if !ok {
            return Err(OracleError::Failed {
                tool: "ptxas".into(),
                stderr: err,
            });
        }
        let bytes = std::fs::read(&dst).map_err(|e| OracleError::Io {
            path: dst.clone(),
            source: e,
        })?;
        let _ = std::fs::remove_file(&dst);
        Ok(bytes)
    }

    /// `nvdisasm -hex` of a cubin file: the full text.
    pub fn nvdisasm_cubin(&self, cubin: &Path) -> Result<String, OracleError> {
        let (out, err, ok) = self.run("nvdisasm", &["-hex".as_ref(), cubin.as_os_str()])?;
        if !ok {
            return Err(OracleError::Failed {
                tool: "nvdisasm".into(),
                stderr: err,
            });
        }
        Ok(out)
    }

    /// Disassembles raw instruction words (not control words) with `nvdisasm -b SM35`,
    /// each placed after [`NEUTRAL_CONTROL`], at address `8 * (1 + i + i / 7)` for the
    /// i-th word. Returns one verdict per word.
    pub fn disasm_words(&self, words: &[u64]) -> Result<Vec<Verdict>, OracleError> {
        self.disasm_words_ctrl(words, NEUTRAL_CONTROL)
    }

    /// As [`Tools::disasm_words`] with a chosen control word for every group.
    pub fn disasm_words_ctrl(
        &self,
        words: &[u64],
        control: u64,
    ) -> Result<Vec<Verdict>, OracleError> {
        Ok(self
            .disasm_words_at(words, control)?
            .into_iter()
            .map(|(v, _)| v)
            .collect())
    }

    /// As [`Tools::disasm_words_ctrl`], also returning the address each word sat at
    /// in the stream that produced its verdict (branch targets print as absolute
    /// addresses in raw mode, so a caller that compares texts needs it).
    pub fn disasm_words_at(
        &self,
        words: &[u64],
        control: u64,
    ) -> Result<Vec<(Verdict, u64)>, OracleError> {
        let mut verdicts: Vec<Option<(Verdict, u64)>> = vec![None; words.len()];
        let mut todo: Vec<usize> = (0..words.len()).collect();
        // Words that nvdisasm rejects without naming an address ("Unaligned
        // instruction found") are isolated by bisection.
        let mut stack: Vec<Vec<usize>> = vec![std::mem::take(&mut todo)];
        while let Some(batch) = stack.pop() {
            if batch.is_empty() {
                continue;
            }
            let (addr_of, stream) = layout(words, &batch, control);
            let path = self.scratch_file("raw.bin");
            write(&path, &stream)?;
            let (out, err, ok) = self.run(
                "nvdisasm",
                &[
                    "-b".as_ref(),
                    "SM35".as_ref(),
                    "-raw".as_ref(),
                    path.as_os_str(),
                ],
            )?;
            let _ = std::fs::remove_file(&path);
            if ok && err.trim().is_empty() {
                let texts = parse_raw(&out)?;
                for (addr, i) in &addr_of {
                    match texts.get(addr) {
                        Some(t) => verdicts[*i] = Some((Verdict::Text(t.clone()), *addr as u64)),
                        None => {
                            return Err(OracleError::Output(format!(
                                "no line for address {addr:#x}"
                            )))
                        }
                    }
                }
                continue;
            }
            // Rejections that name addresses.
            let mut named: HashMap<usize, String> = HashMap::new();
            for line in err.lines() {
                if let Some(pos) = line.find("at address 0x") {
                    let hex = &line[pos + 13..];
                    let hex: String = hex.chars().take_while(|c| c.is_ascii_hexdigit()).collect();
                    if let Ok(a) = usize::from_str_radix(&hex, 16) {
                        if let Some(i) = addr_of.get(&a) {
                            named.insert(*i, clean_error(line));
                        }
                    }
                }
            }
            if !named.is_empty() {
                let rest: Vec<usize> = batch
                    .iter()
                    .copied()
                    .filter(|i| !named.contains_key(i))
                    .collect();
                for (i, msg) in named {
                    verdicts[i] = Some((Verdict::Rejected(msg), 0));
                }
                stack.push(rest);
            } else if batch.len() > 1 && batch.iter().any(|&i| looks_like_control(words[i])) {
                // nvdisasm refuses a word that looks like a control word without
                // naming it: check those one by one, the rest together.
                let (odd, rest): (Vec<usize>, Vec<usize>) =
                    batch.iter().partition(|&&i| looks_like_control(words[i]));
                stack.push(rest);
                for i in odd {
                    stack.push(vec![i]);
                }
            } else if batch.len() == 1 {
                let msg = err
                    .lines()
                    .next()
                    .map(clean_error)
                    .unwrap_or_else(|| "rejected".into());
                verdicts[batch[0]] = Some((Verdict::Rejected(msg), 0));
            } else {
                let mid = batch.len() / 2;
                stack.push(batch[mid..].to_vec());
                stack.push(batch[..mid].to_vec());
            }
        }
        Ok(verdicts
            .into_iter()
            .map(|v| v.expect("every word gets a verdict"))
            .collect())
    }
}

/// True for a word nvdisasm takes for a misplaced control word ("Unaligned
/// instruction found", with no address): bits 63..59 = 00001 and bits 1..0 = 00.
/// Found by bisecting rejected batches; the sweep of all 4096 values of bits
/// 63..54 and 1..0 shows exactly these 32 rejected this way.
pub fn looks_like_control(w: u64) -> bool {
    w >> 59 == 0b1 && w & 3 == 0
}

fn clean_error(line: &str) -> String {
    let s = line
        .trim_start_matches("nvdisasm error")
        .trim_start()
        .trim_start_matches(':')
        .trim();
    match s.find(" at address") {
        Some(p) => s[..p].to_string(),
        None => s.to_string(),
    }
}

/// Lays out `batch` words in control groups; returns address -> word index, and bytes.
fn layout(words: &[u64], batch: &[usize], control: u64) -> (HashMap<usize, usize>, Vec<u8>) {
    let mut stream: Vec<u64> = Vec::with_capacity(batch.len() * 8 / 7 + 8);
    let mut addr_of = HashMap::with_capacity(batch.len());
    for (k, &i) in batch.iter().enumerate() {
        if k % 7 == 0 {
            stream.push(control);
        }
        addr_of.insert(stream.len() * 8, i);
        stream.push(words[i]);
    }
    while !stream.len().is_multiple_of(8) {
        stream.push(NOP_WORD);
    }
    let bytes = stream.iter().flat_map(|w| w.to_le_bytes()).collect();
    (addr_of, bytes)
}

/// Parses `nvdisasm -raw` output lines `/*0008*/  TEXT;` into address -> text.
fn parse_raw(out: &str) -> Result<HashMap<usize, String>, OracleError> {
    let mut m = HashMap::new();
    for line in out.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some(end) = rest.find("*/") else { continue };
        let Ok(addr) = usize::from_str_radix(&rest[..end], 16) else {
            continue;
        };
        let text = rest[end + 2..].trim().to_string();
        m.insert(addr, text);
    }
    Ok(m)
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), OracleError> {
    let mut f = std::fs::File::create(path).map_err(|e| OracleError::Io {
        path: path.into(),
        source: e,
    })?;
    f.write_all(bytes).map_err(|e| OracleError::Io {
        path: path.into(),
        source: e,
    })
}

/// The workspace root: the folder holding the top-level Cargo.toml.
pub fn workspace_root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(Path::to_path_buf).unwrap_or(here)
}
