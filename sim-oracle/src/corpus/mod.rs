//! The PTX corpus: generated PTX samples that make ptxas emit as many sm_35
//! instructions and modifiers as it can, and the harvest of the (instruction word,
//! disassembly text) pairs they yield.
//!
//! This is the first step of deriving the sm_35 encoding the way the PPoPP 2017
//! paper did: [`generate`] writes the PTX (programmatically, family by family, see
//! the `gen_*` submodules), [`harvest`] compiles it with ptxas, collects every
//! instruction word from `nvdisasm -hex`, and gets each distinct word's canonical
//! text from nvdisasm's raw mode. [`regenerate`] does both and writes the committed
//! fixture `traces/isa-corpus/corpus.txt` plus the PTX it came from; the command
//! that calls it is `keplersim isa corpus`.

mod gen_cmp;
mod gen_ctrl;
mod gen_cvt;
mod gen_float;
mod gen_int;
mod gen_mem;
mod gen_misc;
mod gen_tex;
mod ptx;
mod variant;

pub use variant::{base_mnemonic, variant_key};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::tools::{OracleError, Tools, Verdict};

/// The command that regenerates the committed corpus; named in the file header and
/// in test failure messages.
pub const REGENERATE_COMMAND: &str = "keplersim isa corpus";

/// The same, for when the CLI is not at hand: the blessing test.
pub const BLESS_COMMAND: &str = "KEPLERSIM_BLESS=1 cargo test -p sim-oracle --test corpus";

/// One generated PTX file: a module with several kernels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// A short unique name, family and number (`int_00`); the file is written as
    /// `<name>.ptx`.
    pub name: String,
    /// The complete PTX text (version 7.8, target sm_35, 64-bit addresses).
    pub ptx: String,
}

/// A line at the top of a sample that must be compiled as relocatable code
/// (`ptxas -c`), so that calls and jumps are left to the linker (JCAL, JMX).
pub const RELOCATABLE_MARK: &str =
    "// keplersim corpus: compile with `ptxas -arch=sm_35 -c` (relocatable)";

impl Sample {
    /// Whether the sample is compiled as relocatable code (see [`RELOCATABLE_MARK`]).
    pub fn relocatable(&self) -> bool {
        self.ptx
            .lines()
            .take_while(|l| l.starts_with("//"))
            .any(|l| l == RELOCATABLE_MARK)
    }
}

/// One harvested instruction: its 64-bit word and nvdisasm's raw-mode text.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The instruction word (never a control word).
    pub word: u64,
    /// The text `nvdisasm -b SM35 -raw` prints for the word, predicate guard and
    /// final `;` included. Branch targets are absolute addresses; the word is
    /// disassembled as if it sat at [`TEXT_ADDRESS`].
    pub text: String,
}

/// The address at which address-dependent words (relative branches) are
/// disassembled for their canonical text: the first instruction slot of a raw
/// stream, right after its control word.
pub const TEXT_ADDRESS: u64 = 0x8;

/// The harvested corpus: distinct words with their text, sorted by word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Corpus {
    /// Entries sorted by word, each word once.
    pub entries: Vec<Entry>,
}

/// Errors of generating, harvesting, or reading a corpus.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// Running one of the tools failed.
    #[error(transparent)]
    Oracle(#[from] OracleError),
    /// ptxas rejected a generated sample.
    #[error("ptxas rejected sample {sample}: {stderr}")]
    Compile {
        /// The sample's name.
        sample: String,
        /// What ptxas said.
        stderr: String,
    },
    /// Raw-mode nvdisasm refused words that ptxas emitted: (word, message) pairs.
    #[error("nvdisasm -raw rejected {} harvested word(s), first {:#018x}: {}", .0.len(), .0[0].0, .0[0].1)]
    Rejected(Vec<(u64, String)>),
    /// Reading or writing a file failed.
    #[error("I/O error on {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A corpus file line could not be parsed.
    #[error("{path}:{line}: {msg}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The 1-based line number (0: the file as a whole).
        line: usize,
        /// What is wrong.
        msg: String,
    },
}

/// Generates the corpus samples: deterministic PTX, several kernels per file.
pub fn generate() -> Vec<Sample> {
    let families: Vec<(&str, &str, Vec<ptx::Kernel>)> = vec![
        ("int", "gen_int", gen_int::kernels()),
        ("float", "gen_float", gen_float::kernels()),
        ("cmp", "gen_cmp", gen_cmp::kernels()),
        ("cvt", "gen_cvt", gen_cvt::kernels()),
        ("mem", "gen_mem", gen_mem::kernels()),
        ("atom", "gen_mem", gen_mem::atomic_kernels()),
        ("ctrl", "gen_ctrl", gen_ctrl::kernels()),
        ("rdc", "gen_ctrl", gen_ctrl::relocatable_kernels()),
        ("misc", "gen_misc", gen_misc::kernels()),
        ("tex", "gen_tex", gen_tex::kernels()),
    ];
    let mut samples = Vec::new();
    for (family, module, kernels) in families {
        for mut s in ptx::pack(family, kernels) {
            let mut head = format!(
                "// generated by `{REGENERATE_COMMAND}` (sim-oracle/src/corpus/{module}.rs); do not edit\n"
            );
            if family == "rdc" {
                head.push_str(RELOCATABLE_MARK);
                head.push('\n');
            }
            s.ptx.insert_str(0, &head);
            samples.push(s);
        }
    }
    samples
}

impl Corpus {
    /// Number of distinct instruction variants (see [`variant_key`]).
    pub fn variant_count(&self) -> usize {
        self.variants().len()
    }

    /// Every distinct variant key with how many entries have it.
    pub fn variants(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for e in &self.entries {
            *m.entry(variant_key(&e.text)).or_insert(0) += 1;
        }
        m
    }

    /// The distinct base opcode names (`IADD`, `LD`, ...) in the corpus.
    pub fn mnemonics(&self) -> BTreeSet<String> {
        self.entries
            .iter()
            .map(|e| base_mnemonic(&e.text).to_string())
            .collect()
    }

    /// The file text: header comments, then `0x%016x<TAB>text` per entry.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "# generated by `{REGENERATE_COMMAND}` (or `{BLESS_COMMAND}`) from traces/isa-corpus/ptx/*.ptx with ptxas and nvdisasm -raw (CUDA 11.8); do not edit\n"
        ));
        s.push_str(&format!(
            "# {} words, {} variants; relative branch targets are printed as if the word sat at address {TEXT_ADDRESS:#x}\n",
            self.entries.len(),
            self.variant_count()
        ));
        for e in &self.entries {
            s.push_str(&format!("0x{:016x}\t{}\n", e.word, e.text));
        }
        s
    }

    /// Parses the file text written by [`Corpus::to_text`]; `#` lines and blank
    /// lines are skipped. `path` only names the source in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Corpus, CorpusError> {
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |msg: &str| CorpusError::Parse {
                path: path.into(),
                line: n + 1,
                msg: msg.into(),
            };
            let (w, t) = line
                .split_once('\t')
                .ok_or_else(|| err("expected `0x<word><TAB><text>`"))?;
            let hex = w
                .strip_prefix("0x")
                .ok_or_else(|| err("word must start with 0x"))?;
            let word = u64::from_str_radix(hex, 16).map_err(|_| err("bad hex word"))?;
            entries.push(Entry {
                word,
                text: t.to_string(),
            });
        }
        if entries.windows(2).any(|p| p[0].word >= p[1].word) {
            return Err(CorpusError::Parse {
                path: path.into(),
                line: 0,
                msg: "entries not sorted and unique".into(),
            });
        }
        Ok(Corpus { entries })
    }

    /// Writes the corpus file.
    pub fn write(&self, path: &Path) -> Result<(), CorpusError> {
        write_file(path, &self.to_text())
    }

    /// Reads a corpus file.
    pub fn read(path: &Path) -> Result<Corpus, CorpusError> {
        let text = std::fs::read_to_string(path).map_err(|e| CorpusError::Io {
            path: path.into(),
            source: e,
        })?;
        Corpus::parse(&text, path)
    }
}

/// Compiles one sample (relocatable ones with `-c`); returns the cubin bytes or
/// [`CorpusError::Compile`].
pub fn compile(tools: &Tools, sample: &Sample) -> Result<Vec<u8>, CorpusError> {
    let failed = |e: OracleError| match e {
        OracleError::Failed { stderr, .. } => CorpusError::Compile {
            sample: sample.name.clone(),
            stderr,
        },
        other => CorpusError::Oracle(other),
    };
    if !sample.relocatable() {
        return tools.ptxas(&sample.ptx).map_err(failed);
    }
    let src = tools.scratch_file("rdc.ptx");
    let dst = tools.scratch_file("rdc.cubin");
    std::fs::write(&src, &sample.ptx).map_err(|e| CorpusError::Io {
        path: src.clone(),
        source: e,
    })?;
    let args = [
        "-arch=sm_35".as_ref(),
        "-c".as_ref(),
        src.as_os_str(),
        "-o".as_ref(),
        dst.as_os_str(),
    ];
    let run = tools.run("ptxas", &args);
    let _ = std::fs::remove_file(&src);
    let (_, stderr, ok) = run?;
    if !ok {
        return Err(failed(OracleError::Failed {
            tool: "ptxas".into(),
            stderr,
        }));
    }
    let bytes = std::fs::read(&dst).map_err(|e| CorpusError::Io {
        path: dst.clone(),
        source: e,
    });
    let _ = std::fs::remove_file(&dst);
    bytes
}

/// Compiles a sample and returns every instruction word of its cubin, in order,
/// control words excluded.
pub fn sample_words(tools: &Tools, sample: &Sample) -> Result<Vec<u64>, CorpusError> {
    let cubin = compile(tools, sample)?;
    let path = tools.scratch_file("corpus.cubin");
    std::fs::write(&path, &cubin).map_err(|e| CorpusError::Io {
        path: path.clone(),
        source: e,
    })?;
    // Code sections only, without the (slow) dataflow analysis: same words.
    let run = tools.run(
        "nvdisasm",
        &[
            "-hex".as_ref(),
            "-c".as_ref(),
            "-ndf".as_ref(),
            path.as_os_str(),
        ],
    );
    let _ = std::fs::remove_file(&path);
    let (text, err, ok) = run?;
    if !ok {
        return Err(OracleError::Failed {
            tool: "nvdisasm".into(),
            stderr: err,
        }
        .into());
    }
    Ok(parse_hex_listing(&text))
}

/// Extracts the instruction words from `nvdisasm -hex` output: lines in `.text.*`
/// sections of the form `/*addr*/ TEXT ; /* 0x<16 hex> */`. Control words print
/// without an address (and sit at offsets that are multiples of 64), so they are
/// skipped.
pub fn parse_hex_listing(listing: &str) -> Vec<u64> {
    let mut words = Vec::new();
    let mut in_text = false;
    for line in listing.lines() {
        let t = line.trim();
        if let Some(rest) = t
            .strip_prefix(".section")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            in_text = rest.trim_start().starts_with(".text.");
            continue;
        }
        if !in_text {
            continue;
        }
        let Some(rest) = t.strip_prefix("/*") else {
            continue;
        };
        let Some(end) = rest.find("*/") else { continue };
        let Ok(addr) = u64::from_str_radix(&rest[..end], 16) else {
            continue;
        };
        if addr % 64 == 0 {
            continue;
        }
        let Some(open) = t.rfind("/* 0x") else {
            continue;
        };
        let tail = &t[open + 5..];
        let Some(close) = tail.find(" */") else {
            continue;
        };
        let hex = &tail[..close];
        if hex.len() != 16 {
            continue;
        }
        if let Ok(w) = u64::from_str_radix(hex, 16) {
            words.push(w);
        }
    }
    words
}

/// Compiles every sample, collects the distinct instruction words, and gets each
/// word's canonical text from nvdisasm's raw mode ([`Tools::disasm_words`]).
///
/// Words whose text depends on where they sit (relative branches) are found by
/// disassembling the whole set twice at different placements; their text is given
/// as if they sat at [`TEXT_ADDRESS`], by [`relocate`] where the two texts show
/// how (the target moved with the word), else by disassembling them alone.
pub fn harvest(tools: &Tools, samples: &[Sample]) -> Result<Corpus, CorpusError> {
    let per_sample = compile_all(tools, samples)?;
    let set: BTreeSet<u64> = per_sample.into_iter().flatten().collect();
    let words: Vec<u64> = set.into_iter().collect();
    let first = tools.disasm_words(&words)?;
    // The same words shifted by one slot: every word lands at another address.
    let mut shifted = Vec::with_capacity(words.len() + 1);
    shifted.push(crate::tools::NOP_WORD);
    shifted.extend_from_slice(&words);
    let second = tools.disasm_words(&shifted)?;
    let mut texts: Vec<Option<String>> = vec![None; words.len()];
    let mut alone = Vec::new();
    let mut rejected = Vec::new();
    for (i, v) in first.iter().enumerate() {
        match (v, &second[i + 1]) {
            (Verdict::Text(a), Verdict::Text(b)) if a == b => texts[i] = Some(a.clone()),
            (Verdict::Text(a), Verdict::Text(b)) => {
                match relocate(a, slot_address(i), b, slot_address(i + 1), TEXT_ADDRESS) {
                    Some(t) => texts[i] = Some(t),
                    None => alone.push(i),
                }
            }
            (Verdict::Rejected(m), _) | (_, Verdict::Rejected(m)) => {
                rejected.push((words[i], m.clone()))
            }
        }
    }
    // Address-dependent words whose text could not be relocated: one nvdisasm run
    // each, so they sit at TEXT_ADDRESS.
    for i in alone {
        match tools.disasm_words(&[words[i]])?.remove(0) {
            Verdict::Text(t) => texts[i] = Some(t),
            Verdict::Rejected(m) => rejected.push((words[i], m)),
        }
    }
    if !rejected.is_empty() {
        rejected.sort();
        return Err(CorpusError::Rejected(rejected));
    }
    let entries = words
        .iter()
        .zip(texts)
        .filter_map(|(&word, text)| text.map(|text| Entry { word, text }))
        .collect();
    Ok(Corpus { entries })
}

/// The address [`Tools::disasm_words`] gives the `i`-th word of a batch.
pub fn slot_address(i: usize) -> u64 {
    8 * (1 + i as u64 + i as u64 / 7)
}

/// Splits text into words (runs of `[-A-Za-z0-9_]`) and the characters between.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        let w = c.is_ascii_alphanumeric() || c == '_' || c == '-';
        if w != in_word && i > start {
            out.push(&text[start..i]);
            start = i;
        }
        in_word = w;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn parse_signed_hex(tok: &str) -> Option<i64> {
    let (neg, t) = match tok.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, tok),
    };
    let v = i64::from_str_radix(t.strip_prefix("0x")?, 16).ok()?;
    Some(if neg { -v } else { v })
}

fn format_signed_hex(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", -v)
    } else {
        format!("{v:#x}")
    }
}

/// Re-expresses the text of an address-dependent word (a relative branch) as if it
/// sat at address `to`, from its texts at two addresses `a1` and `a2`: the words
/// that differ must be absolute targets that moved exactly by `a2 - a1`, printed
/// the way [`format_signed_hex`] prints them. `None` if the texts do not fit that
/// pattern.
pub fn relocate(t1: &str, a1: u64, t2: &str, a2: u64, to: u64) -> Option<String> {
    let (x, y) = (tokens(t1), tokens(t2));
    if x.len() != y.len() {
        return None;
    }
    let mut out = String::new();
    let mut changed = false;
    for (p, q) in x.iter().zip(&y) {
        if p == q {
            out.push_str(p);
            continue;
        }
        let (v1, v2) = (parse_signed_hex(p)?, parse_signed_hex(q)?);
        if format_signed_hex(v1) != *p
            || format_signed_hex(v2) != *q
            || v2 - v1 != a2 as i64 - a1 as i64
        {
            return None;
        }
        out.push_str(&format_signed_hex(v1 - a1 as i64 + to as i64));
        changed = true;
    }
    changed.then_some(out)
}

/// Compiles all samples (on two threads) and returns each one's words.
fn compile_all(tools: &Tools, samples: &[Sample]) -> Result<Vec<Vec<u64>>, CorpusError> {
    const THREADS: usize = 2;
    let chunk = samples.len().div_ceil(THREADS).max(1);
    let results: Vec<Result<Vec<Vec<u64>>, CorpusError>> = std::thread::scope(|s| {
        let handles: Vec<_> = samples
            .chunks(chunk)
            .map(|part| s.spawn(move || part.iter().map(|smp| sample_words(tools, smp)).collect()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("compile thread panicked"))
            .collect()
    });
    let mut out = Vec::with_capacity(samples.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// The default output folder: `<workspace>/traces/isa-corpus`.
pub fn default_dir() -> PathBuf {
    crate::tools::workspace_root()
        .join("traces")
        .join("isa-corpus")
}

/// The corpus file inside an output folder.
pub fn corpus_path(out_dir: &Path) -> PathBuf {
    out_dir.join("corpus.txt")
}

/// Generates the samples, harvests them, and writes `out_dir/ptx/<name>.ptx` (stale
/// `.ptx` files there are removed) and `out_dir/corpus.txt`. Returns the corpus.
/// This is what `keplersim isa corpus` runs.
pub fn regenerate(tools: &Tools, out_dir: &Path) -> Result<Corpus, CorpusError> {
    let samples = generate();
    let corpus = harvest(tools, &samples)?;
    let ptx_dir = out_dir.join("ptx");
    std::fs::create_dir_all(&ptx_dir).map_err(|e| CorpusError::Io {
        path: ptx_dir.clone(),
        source: e,
    })?;
    let keep: BTreeSet<String> = samples.iter().map(|s| format!("{}.ptx", s.name)).collect();
    let listing = std::fs::read_dir(&ptx_dir).map_err(|e| CorpusError::Io {
        path: ptx_dir.clone(),
        source: e,
    })?;
    for ent in listing.flatten() {
        let name = ent.file_name().to_string_lossy().into_owned();
        if name.ends_with(".ptx") && !keep.contains(&name) {
            let _ = std::fs::remove_file(ent.path());
        }
    }
    for s in &samples {
        write_file(&ptx_dir.join(format!("{}.ptx", s.name)), &s.ptx)?;
    }
    corpus.write(&corpus_path(out_dir))?;
    Ok(corpus)
}

fn write_file(path: &Path, text: &str) -> Result<(), CorpusError> {
    std::fs::write(path, text).map_err(|e| CorpusError::Io {
        path: path.into(),
        source: e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_listing_skips_control_and_data() {
        let listing =
            "\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"\n        /*0008*/ \t.word\t0x00000006\n\
            \t.section\t.text.k,\"ax\",@progbits\n\
            /* 0x0880b0fc10a010c0 */\n\
            /*0008*/ MOV R1, c[0x0][0x44]; /* 0x64c03c00089c0006 */\n\
            /*0040*/ NOP; /* 0x85800000001c3c02 */\n";
        assert_eq!(parse_hex_listing(listing), vec![0x64c03c00089c0006]);
    }

    #[test]
    fn relocation_of_branch_text() {
        // Word at 0x48 branching back 0x30; at 0x50 the target moved by 8.
        assert_eq!(
            relocate("@P0 BRA 0x20;", 0x48, "@P0 BRA 0x28;", 0x50, 0x8).as_deref(),
            Some("@P0 BRA -0x20;")
        );
        assert_eq!(
            relocate("SSY 0x100;", 0x38, "SSY 0x110;", 0x48, 0x8).as_deref(),
            Some("SSY 0xd0;")
        );
        // A text that changed some other way is not relocated.
        assert_eq!(relocate("BRA 0x20;", 0x48, "BRA 0x40;", 0x50, 0x8), None);
        assert_eq!(slot_address(0), 0x8);
        assert_eq!(slot_address(7), 0x48);
    }

    #[test]
    fn file_round_trip() {
        let c = Corpus {
            entries: vec![
                Entry {
                    word: 1,
                    text: "NOP;".into(),
                },
                Entry {
                    word: 0x64c03c00089c0006,
                    text: "MOV R1, c[0x0][0x44];".into(),
                },
            ],
        };
        let back = Corpus::parse(&c.to_text(), Path::new("x")).unwrap();
        assert_eq!(back, c);
    }

    #[test]
    fn samples_are_deterministic_and_named_uniquely() {
        let a = generate();
        let b = generate();
        assert_eq!(a, b);
        let names: BTreeSet<&str> = a.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names.len(), a.len());
    }
}
