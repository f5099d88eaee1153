//! The sm_35 assembler: SASS source text to kernels ready for the cubin writer.
//!
//! It reads two kinds of text, freely mixed:
//! - the listing `cuobjdump -sass` (and `keplersim disasm`) prints: `Function :`
//!   starts a kernel, `/*0008*/` address comments are skipped, a line holding
//!   only `/* 0x... */` is the group's control word (taken as it is), and the `/* 0x... */`
//!   after an instruction is its encoding: used where it prints the text (where
//!   several words print alike it picks the one the listing had, so a listing
//!   assembles back bit for bit), ignored where the text was edited;
//! - hand-written source: directives, labels, register aliases and a control
//!   annotation per instruction.
//!
//! ```text
//! .kernel saxpy            // starts a kernel (or: Function : saxpy)
//! .param 4                 // a parameter of 4 bytes (natural alignment, at most 8)
//! .param 8                 // ... 8 bytes: c[0x0][0x148] (or `.param 8 @0x8`)
//! .registers 8             // registers per thread (default: the highest named + 1)
//! .shared 1024             // bytes of static shared memory
//! .maxntid 256             // also .reqntid X [Y [Z]], .frame BYTES, .barriers N
//! .alias x R4              // `x` stands for R4 (or a predicate: .alias done P0)
//! [0x20] S2R R0, SR_TID.X;
//! loop:
//! [0:0:1:0:05] @!done BRA loop;   // labels are branch targets
//! ```
//!
//! A control annotation `[..]` gives the instruction's 8-bit field of its group's
//! control word, as a byte or in the `T:G:D:S:NN` notation; fields not given are
//! 0x00, and a group may instead take a whole control word line. The last group
//! is filled up with `NOP`. Every instruction is encoded by [`crate::encode`], so
//! whatever it accepts prints back exactly as written.

use std::collections::HashMap;

use crate::control::{parse_field, Control};
use crate::cubin::KernelSpec;
use crate::cubin::ParamSpec;
use crate::decode::disassemble;
use crate::encode::{self, base_mnemonic};

/// An assembly error: the line (1-based) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct AsmError {
    pub line: usize,
    pub message: String,
}

fn err<T>(line: usize, message: impl Into<String>) -> Result<T, AsmError> {
    Err(AsmError {
        line,
        message: message.into(),
    })
}

/// One kernel as it is being read.
struct KernelSrc {
    name: String,
    line: usize,
    items: Vec<Item>,
    labels: HashMap<String, usize>,
    aliases: HashMap<String, String>,
    /// Register ranges: `.alias acc R16..R31` makes `acc[i]` R(16 + i).
    ranges: HashMap<String, (u32, u32)>,
    registers: Option<u32>,
    params: Vec<ParamSpec>,
    shared: u64,
    max_threads: Option<[u32; 3]>,
    req_ntid: Option<[u32; 3]>,
    frame: u32,
    barriers: Option<u32>,
    /// The kernel's one-value directives given so far, with their lines.
    given: HashMap<String, usize>,
}

enum Item {
    /// A whole control word (from a listing).
    Control { word: u64, line: usize },
    /// An instruction with its control field, if annotated.
    Ins {
        text: String,
        field: Option<u8>,
        /// The encoding comment of a listing line.
        hint: Option<u64>,
        line: usize,
    },
}

impl KernelSrc {
    fn new(name: &str, line: usize) -> KernelSrc {
        KernelSrc {
            name: name.to_string(),
            line,
            items: Vec::new(),
            labels: HashMap::new(),
            aliases: HashMap::new(),
            ranges: HashMap::new(),
            registers: None,
            params: Vec::new(),
            shared: 0,
            max_threads: None,
            req_ntid: None,
            frame: 0,
            barriers: None,
            given: HashMap::new(),
        }
    }
}

/// The first `{NAME}` outside a `//` comment, and its line: what a template
/// (`traces/micro/*.sass`) holds where its user puts text. `{i}`, a `.rep`
/// block's index, is not one.
fn placeholder(source: &str) -> Option<(usize, &str)> {
    source.lines().enumerate().find_map(|(i, l)| {
        let code = l.split("//").next().unwrap_or("");
        code.split('{').skip(1).find_map(|after| {
            let name = after.split('}').next().filter(|_| after.contains('}'))?;
            let ident = name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            (ident && name != "i").then_some((i + 1, name))
        })
    })
}

/// Assembles `source` into kernels, in the order they appear.
pub fn assemble_source(source: &str) -> Result<Vec<KernelSpec>, AsmError> {
    assemble_all(source).map_err(|e| AsmError {
        line: e.line,
        message: clip_quotes(&e.message),
    })
}

/// `message` with each `quoted` span of more than 100 characters cut to its
/// first 100 and `...`: an error quotes the source, and a runaway line or
/// name would otherwise print whole.
fn clip_quotes(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(1024));
    for (i, part) in message.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(&encode::clip(part, 100));
        } else {
            out.push_str(part);
        }
    }
    out
}

fn assemble_all(source: &str) -> Result<Vec<KernelSpec>, AsmError> {
    if let Some((line, name)) = placeholder(source) {
        return err(
            line,
            format!(
                "`{{{name}}}` is a template's placeholder, not SASS: a tool fills the \
                 template in before it is assembled"
            ),
        );
    }
    let mut kernels: Vec<KernelSrc> = Vec::new();
    for (line, raw) in expand_repeats(source)? {
        let raw = raw.as_str();
        let Some((text, hint)) = strip_comments(raw, line)? else {
            continue;
        };
        let text = text.trim();
        if text.is_empty() || text == "code for sm_35" || text.starts_with(".headerflags") {
            continue;
        }
        if text.starts_with("code for sm_") {
            return err(line, format!("`{text}`: only sm_35 code can be assembled"));
        }
        if text.chars().all(|c| c == '.') {
            continue; // the listing's end-of-function line
        }
        if let Some(name) = text.strip_prefix("Function :") {
            start_kernel(&mut kernels, name.trim(), line)?;
            continue;
        }
        if let Some(word) = control_line(text) {
            let k = current(&mut kernels, line)?;
            k.items.push(Item::Control { word, line });
            continue;
        }
        if text == ".group" {
            // Pad with NOPs so that the next instruction starts a group of seven.
            let k = current(&mut kernels, line)?;
            let n = k
                .items
                .iter()
                .filter(|i| matches!(i, Item::Ins { .. }))
                .count();
            for _ in 0..(7 - n % 7) % 7 {
                k.items.push(Item::Ins {
                    text: "NOP".into(),
                    field: Some(0x20),
                    hint: None,
                    line,
                });
            }
            continue;
        }
        if text.starts_with('.') {
            directive(&mut kernels, text, line)?;
            continue;
        }
        let k = current(&mut kernels, line)?;
        let mut rest = text;
        // Labels: `name:` before an instruction or alone.
        while let Some((name, after)) = split_label(rest) {
            let slot = k
                .items
                .iter()
                .filter(|i| matches!(i, Item::Ins { .. }))
                .count();
            if k.labels.insert(name.to_string(), slot).is_some() {
                return err(line, format!("label `{name}` is defined twice"));
            }
            if k.aliases.contains_key(name) || k.ranges.contains_key(name) {
                return err(
                    line,
                    format!("label `{name}`: the name is an alias's already"),
                );
            }
            rest = after.trim_start();
        }
        if rest.is_empty() {
            continue;
        }
        let (field, rest) = match rest.strip_prefix('[') {
            Some(r) => {
                let Some((f, after)) = r.split_once(']') else {
                    return err(line, "control annotation `[` without `]`");
                };
                let f = parse_field(f.trim()).map_err(|e| AsmError {
                    line,
                    message: e.to_string(),
                })?;
                (Some(f), after.trim_start())
            }
            None => (None, rest),
        };
        k.items.push(Item::Ins {
            text: rest.to_string(),
            field,
            hint,
            line,
        });
    }
    kernels.into_iter().map(finish).collect()
}

/// The most lines a source may expand to (`.rep` blocks written out): 4M
/// instructions are 32 MB of code, far past any kernel, and the bound keeps
/// nested blocks from exhausting memory.
const MAX_LINES: usize = 4_000_000;
/// The most bytes a source may expand to: 64 MiB.
const MAX_BYTES: usize = 64 << 20;

/// The source's lines with every `.rep N` ... `.endr` block written out `N`
/// times (blocks nest; `{i}` in a block is its repetition's index, from 0),
/// each with its line number in the source.
fn expand_repeats(source: &str) -> Result<Vec<(usize, String)>, AsmError> {
    /// Copies lines from `at` into `out` (and their bytes into `bytes`)
    /// until an `.endr` (true) or the end (false), expanding inner blocks.
    fn block(
        lines: &[(usize, &str)],
        at: &mut usize,
        out: &mut Vec<(usize, String)>,
        bytes: &mut usize,
    ) -> Result<bool, AsmError> {
        while *at < lines.len() {
            let (line, raw) = lines[*at];
            let word = raw.split("//").next().unwrap_or("").trim();
            *at += 1;
            if word == ".endr" {
                return Ok(true);
            }
            let Some(n) = word.strip_prefix(".rep ") else {
                out.push((line, raw.to_string()));
                *bytes += raw.len() + 1;
                continue;
            };
            let n: usize = n.trim().parse().map_err(|_| AsmError {
                line,
                message: format!("`{word}`: `.rep` takes a count"),
            })?;
            if n > 1_000_000 {
                return err(line, format!("`.rep {n}`: at most 1000000 repetitions"));
            }
            let (mut body, mut body_bytes) = (Vec::new(), 0);
            if !block(lines, at, &mut body, &mut body_bytes)? {
                return err(line, "`.rep` without `.endr`");
            }
            // Nested blocks multiply: bound the whole, not each count (a
            // repetition's index may lengthen a line by a few digits).
            let grown = body_bytes + 8 * body.len();
            if body.len().saturating_mul(n).saturating_add(out.len()) > MAX_LINES
                || grown.saturating_mul(n).saturating_add(*bytes) > MAX_BYTES
            {
                return err(
                    line,
                    format!(
                        "`.rep {n}` of {} lines: the source would expand to more than {MAX_LINES} lines or {MAX_BYTES} bytes",
                        body.len()
                    ),
                );
            }
            for i in 0..n {
                let k = i.to_string();
                for (l, t) in &body {
                    let t = t.replace("{i}", &k);
                    *bytes += t.len() + 1;
                    out.push((*l, t));
                }
            }
        }
        Ok(false)
    }
    let lines: Vec<(usize, &str)> = source
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .collect();
    let mut out = Vec::with_capacity(lines.len());
    let (mut at, mut bytes) = (0, 0);
    if block(&lines, &mut at, &mut out, &mut bytes)? {
        return err(lines[at - 1].0, "`.endr` without `.rep`");
    }
    Ok(out)
}

/// Starts kernel `name` at `line` (`.kernel NAME` or a listing's
/// `Function : NAME`); a name a kernel before it has is an error.
fn start_kernel(kernels: &mut Vec<KernelSrc>, name: &str, line: usize) -> Result<(), AsmError> {
    if let Some(first) = kernels.iter().find(|k| k.name == name) {
        return err(
            line,
            format!(
                "kernel `{name}` is defined twice (first at line {})",
                first.line
            ),
        );
    }
    kernels.push(KernelSrc::new(name, line));
    Ok(())
}

fn current(kernels: &mut [KernelSrc], line: usize) -> Result<&mut KernelSrc, AsmError> {
    match kernels.last_mut() {
        Some(k) => Ok(k),
        None => err(
            line,
            "code before any `.kernel NAME` (or `Function : NAME`)",
        ),
    }
}

/// Drops `//` comments and `/* ... */` comments, but returns a line that is
/// only a control-word comment (`/* 0x08a0bc80a0a08000 */`) as it is; also
/// returns the last 64-bit hex comment (a listing's encoding column).
fn strip_comments(raw: &str, line: usize) -> Result<Option<(String, Option<u64>)>, AsmError> {
    let t = raw.trim();
    if control_line(t).is_some() {
        return Ok(Some((t.to_string(), None)));
    }
    let mut hint = None;
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    loop {
        let slash = rest.find("//");
        let block = rest.find("/*");
        match (slash, block) {
            (Some(s), b) if b.is_none_or(|b| s < b) => {
                out.push_str(&rest[..s]);
                break;
            }
            (_, Some(b)) => {
                out.push_str(&rest[..b]);
                let Some(e) = rest[b + 2..].find("*/") else {
                    return err(line, "`/*` comment without `*/` on the same line");
                };
                if let Some(w) = control_line(&rest[b..b + 2 + e + 2]) {
                    hint = Some(w);
                }
                out.push(' ');
                rest = &rest[b + 2 + e + 2..];
            }
            _ => {
                out.push_str(rest);
                break;
            }
        }
    }
    Ok(Some((out, hint)))
}

/// `/* 0x08a0bc80a0a08000 */`: a control word line of a listing.
fn control_line(t: &str) -> Option<u64> {
    let inner = t.strip_prefix("/*")?.strip_suffix("*/")?.trim();
    let hex = inner.strip_prefix("0x")?;
    if hex.len() != 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// `name: rest` with a label-like name.
fn split_label(t: &str) -> Option<(&str, &str)> {
    let (name, rest) = t.split_once(':')?;
    let ok = !name.is_empty()
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$');
    ok.then_some((name, rest))
}

fn directive(kernels: &mut Vec<KernelSrc>, text: &str, line: usize) -> Result<(), AsmError> {
    let mut words = text.split_whitespace();
    let name = words.next().unwrap_or("");
    let args: Vec<&str> = words.collect();
    let num = |s: &str| -> Result<u64, AsmError> {
        let v = match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16),
            None => s.parse::<u64>(),
        };
        v.map_err(|_| AsmError {
            line,
            message: format!("`{name}`: `{s}` is not a number"),
        })
    };
    let nargs = |lo: usize, hi: usize| -> Result<(), AsmError> {
        if args.len() < lo || args.len() > hi {
            return err(
                line,
                if lo == hi {
                    format!("`{name}` takes {lo} arguments, not {}", args.len())
                } else {
                    format!("`{name}` takes {lo} to {hi} arguments, not {}", args.len())
                },
            );
        }
        Ok(())
    };
    if name == ".kernel" {
        nargs(1, 1)?;
        return start_kernel(kernels, args[0], line);
    }
    let k = current(kernels, line)?;
    // A property the kernel has one of: a second would silently replace the
    // first.
    if matches!(
        name,
        ".registers" | ".shared" | ".maxntid" | ".reqntid" | ".frame" | ".barriers"
    ) {
        if let Some(first) = k.given.insert(name.to_string(), line) {
            return err(
                line,
                format!(
                    "`{name}` is given twice in kernel `{}` (first at line {first})",
                    k.name
                ),
            );
        }
    }
    match name {
        ".registers" => {
            nargs(1, 1)?;
            let r = num(args[0])?;
            if !(1..=255).contains(&r) {
                return err(line, format!("`.registers {r}`: sm_35 has 1..=255"));
            }
            k.registers = Some(r as u32);
        }
        ".param" => {
            nargs(1, 2)?;
            param(k, &args, &num, line)?;
        }
        ".shared" => {
            nargs(1, 1)?;
            let s = num(args[0])?;
            if s > 48 * 1024 {
                return err(line, format!("`.shared {s}`: more than 48 KiB per block"));
            }
            k.shared = s;
        }
        ".frame" => {
            nargs(1, 1)?;
            k.frame = u32::try_from(num(args[0])?).map_err(|_| AsmError {
                line,
                message: "`.frame`: too large".into(),
            })?;
        }
        ".maxntid" | ".reqntid" => {
            nargs(1, 3)?;
            let mut d = [1u32; 3];
            for (i, a) in args.iter().enumerate() {
                let v = num(a)?;
                if v == 0 || v > 1024 {
                    return err(line, format!("`{name}`: {v} threads is not in 1..=1024"));
                }
                d[i] = v as u32;
            }
            if name == ".maxntid" {
                k.max_threads = Some(d);
            } else {
                k.req_ntid = Some(d);
            }
        }
        ".barriers" => {
            nargs(1, 1)?;
            let b = num(args[0])?;
            if b > 16 {
                return err(line, format!("`.barriers {b}`: sm_35 has 16 barriers"));
            }
            k.barriers = Some(b as u32);
        }
        ".alias" => {
            nargs(2, 2)?;
            alias(k, args[0], args[1], line)?;
        }
        _ => return err(line, format!("unknown directive `{name}`")),
    }
    Ok(())
}

/// `.param SIZE [ALIGN | @OFFSET]`: a parameter of `SIZE` bytes, at the next
/// offset with its alignment (`SIZE` itself, at most 8, when not given) or
/// at `OFFSET`.
fn param(
    k: &mut KernelSrc,
    args: &[&str],
    num: &dyn Fn(&str) -> Result<u64, AsmError>,
    line: usize,
) -> Result<(), AsmError> {
    let size = num(args[0])?;
    if size == 0 {
        return err(line, "`.param 0`: a parameter has at least one byte");
    }
    let end = k
        .params
        .iter()
        .map(|p| u64::from(p.offset) + u64::from(p.size))
        .max()
        .unwrap_or(0);
    // `@OFFSET` places it; otherwise the next offset with its alignment.
    let offset = match args.get(1) {
        Some(a) if a.starts_with('@') => {
            let o = num(&a[1..])?;
            if o < end {
                return err(
                    line,
                    format!("`.param {size} {a}` overlaps the parameter before"),
                );
            }
            o
        }
        other => {
            let align = match other {
                Some(a) => num(a)?,
                None => size.clamp(1, 8),
            };
            if !align.is_power_of_two() {
                let why = match other {
                    Some(a) => format!("`.param {size} {a}`: ALIGN must be a power of two"),
                    None => format!(
                        "`.param {size}`: a SIZE given alone is its own alignment, \
                         so a power of two; give its alignment too (`.param {size} ALIGN`)"
                    ),
                };
                return err(line, why);
            }
            end.div_ceil(align) * align
        }
    };
    if offset.checked_add(size).is_none_or(|e| e > 4096) {
        return err(line, "parameters exceed the 4 KiB parameter space");
    }
    k.params.push(ParamSpec::new(offset as u16, size as u16));
    Ok(())
}

/// `.alias NAME REGISTER` (or `Rm..Rn`, a range: `NAME[i]`): a name for a
/// register in the whole kernel.
fn alias(k: &mut KernelSrc, a: &str, r: &str, line: usize) -> Result<(), AsmError> {
    if !a.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        || !a.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        || encode_reg_like(a)
    {
        return err(line, format!("`.alias {a}`: not a usable name"));
    }
    if a == "c" || a.starts_with("SR_") {
        return err(
            line,
            format!("`.alias {a}`: `{a}` is the name of an operand (`c[..]`, `SR_...`)"),
        );
    }
    if k.labels.contains_key(a) {
        return err(
            line,
            format!("`.alias {a} {r}`: `{a}` is a label's name already"),
        );
    }
    // An alias stands for its register everywhere in the kernel, the
    // lines before it too: a second meaning would change those.
    if let Some(was) = k
        .aliases
        .get(a)
        .cloned()
        .or_else(|| k.ranges.get(a).map(|(lo, hi)| format!("R{lo}..R{hi}")))
    {
        return err(
            line,
            format!(
                "`.alias {a} {r}`: `{a}` already names {was}; an alias names one \
                 register (or range) in a kernel"
            ),
        );
    }
    if let Some((lo, hi)) = r.split_once("..") {
        // A range of registers: `acc[i]`.
        let n = |t: &str| {
            t.strip_prefix('R')
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|&v| v < 255)
        };
        let (Some(lo), Some(hi)) = (n(lo), n(hi)) else {
            return err(
                line,
                format!("`.alias {a} {r}`: a range is `Rm..Rn`, below R255"),
            );
        };
        if hi < lo {
            return err(line, format!("`.alias {a} {r}`: the range is empty"));
        }
        k.ranges.insert(a.to_string(), (lo, hi));
        return Ok(());
    }
    if !encode_reg_like(r) {
        return err(line, format!("`.alias {a} {r}`: `{r}` is not a register"));
    }
    k.aliases.insert(a.to_string(), r.to_string());
    Ok(())
}

/// `R7`, `RZ`, `P3`, `PT`.
fn encode_reg_like(s: &str) -> bool {
    matches!(s, "RZ" | "PT")
        || (s.len() > 1
            && (s.starts_with('R') || s.starts_with('P'))
            && s[1..].chars().all(|c| c.is_ascii_digit()))
}

/// Replaces aliases, register ranges and labels in an instruction's operands
/// (and guard).
/// Encodes instruction `text` (source line `line`) of kernel `k` at `addr`,
/// its labels and aliases substituted; the listing's own word `hint` is kept
/// where it prints this very text. Returns the substituted text and the word.
fn encode_at(
    text: &str,
    hint: Option<u64>,
    line: usize,
    addr: u64,
    k: &KernelSrc,
    addr_of: &dyn Fn(usize) -> u64,
) -> Result<(String, u64), AsmError> {
    let t = substitute(text, k, addr_of).map_err(|message| AsmError { line, message })?;
    let mut word = encode::assemble(&t, addr).map_err(|e| AsmError {
        line,
        message: match (&e, operand_hint(&t)) {
            (encode::EncodeError::NoForm { .. }, Some(h)) => format!("{e}: {h}"),
            _ => e.to_string(),
        },
    })?;
    if let Some(h) = hint {
        if h != word && disassemble(h, addr).ok() == disassemble(word, addr).ok() {
            word = h;
        }
    }
    Ok((t, word))
}

fn substitute(text: &str, k: &KernelSrc, addr_of: &dyn Fn(usize) -> u64) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + 8);
    let bytes = text.as_bytes();
    let mnemonic_start = if text.starts_with('@') {
        text.find(' ').map_or(text.len(), |p| p + 1)
    } else {
        0
    };
    let mnemonic_end = text[mnemonic_start..]
        .find(' ')
        .map_or(text.len(), |p| mnemonic_start + p);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i] as char;
        let starts_ident = (c.is_ascii_alphabetic() || c == '_' || c == '$')
            && (i == 0 || {
                let p = bytes[i - 1] as char;
                !(p.is_ascii_alphanumeric() || p == '_' || p == '.' || p == '$')
            });
        if starts_ident && !(mnemonic_start..mnemonic_end).contains(&i) {
            let mut j = i;
            while j < bytes.len() {
                let d = bytes[j] as char;
                if d.is_ascii_alphanumeric() || d == '_' || d == '$' {
                    j += 1;
                } else {
                    break;
                }
            }
            let tok = &text[i..j];
            if let (Some(&(lo, hi)), Some(rest)) = (k.ranges.get(tok), text[j..].strip_prefix('['))
            {
                let close = rest
                    .find(']')
                    .ok_or_else(|| format!("`{tok}[`: no closing `]`"))?;
                let idx: u32 = rest[..close].trim().parse().map_err(|_| {
                    format!("`{tok}[{}]`: the index is not a number", &rest[..close])
                })?;
                if lo + idx > hi {
                    return Err(format!(
                        "`{tok}[{idx}]`: past the range R{lo}..R{hi} ({} registers)",
                        hi - lo + 1
                    ));
                }
                out.push_str(&format!("R{}", lo + idx));
                i = j + 1 + close + 1;
                continue;
            }
            if let Some(r) = k.aliases.get(tok) {
                out.push_str(r);
            } else if let Some(&slot) = k.labels.get(tok) {
                out.push_str(&format!("{:#x}", addr_of(slot)));
            } else {
                out.push_str(tok);
            }
            i = j;
            continue;
        }
        out.push(c);
        i += 1;
    }
    Ok(out)
}

/// What is likely wrong with instruction text `t` (labels and aliases
/// substituted) that no form prints: a register or predicate sm_35 does not
/// have, a decimal integer where nvdisasm prints hex, or a branch to a name
/// that is no label of the kernel.
fn operand_hint(t: &str) -> Option<String> {
    let body = t.trim_end_matches(';');
    let (guard, body) = match body.strip_prefix('@') {
        Some(guarded) => {
            let (g, rest) = guarded.split_once(' ').unwrap_or((guarded, ""));
            (Some(g.trim_start_matches('!')), rest)
        }
        None => (None, body),
    };
    let (mnemonic, operands) = body.split_once(' ').unwrap_or((body, ""));
    let base = mnemonic.split('.').next().unwrap_or("");
    let tokens = guard
        .into_iter()
        .chain(operands.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$')));
    let number = |tok: &str, prefix: char| {
        tok.strip_prefix(prefix)
            .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok())
    };
    for tok in tokens {
        match (number(tok, 'R'), number(tok, 'P')) {
            (Some(255), _) => return Some("R255 is written `RZ`".into()),
            (Some(n), _) if n > 255 => {
                return Some(format!("`{tok}` is no register: sm_35 has R0..R254 and RZ"))
            }
            (_, Some(7)) => return Some("P7 is written `PT`".into()),
            (_, Some(n)) if n > 7 => {
                return Some(format!("`{tok}` is no predicate: sm_35 has P0..P6 and PT"))
            }
            _ => {}
        }
    }
    // nvdisasm prints integers in hex, and the encoder matches its text.
    for o in operands.split(',').map(str::trim) {
        let digits = o.strip_prefix('-').unwrap_or(o);
        if !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
            if let Ok(n) = digits.parse::<u64>() {
                let sign = if o.starts_with('-') { "-" } else { "" };
                return Some(format!(
                    "integers are written in hex, as nvdisasm prints them: `{sign}{n:#x}` for `{o}`"
                ));
            }
        }
    }
    let branch = matches!(
        base,
        "BRA" | "CAL" | "JCAL" | "JMP" | "SSY" | "PBK" | "PCNT"
    );
    if branch {
        // A name, not a condition (`CC.EQ`) or a constant (`c[0x0][0x20]`).
        let name = operands.split([',', ' ']).map(str::trim).find(|o| {
            o.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && !o.contains(['.', '['])
                && *o != "CC"
        });
        if let Some(name) = name {
            return Some(format!("`{name}` is no label of this kernel"));
        }
    }
    None
}

/// Byte address of instruction `slot` (a control word before every seven).
fn slot_addr(slot: usize) -> u64 {
    8 * (slot / 7 * 8 + slot % 7 + 1) as u64
}

/// The control word of the group of seven being laid out.
#[derive(Clone, Copy)]
struct CtrlGroup {
    /// Its index in the code.
    at: usize,
    /// The whole word, from a listing's control line.
    given: Option<u64>,
    /// Otherwise the fields from the annotations.
    fields: [u8; 7],
    /// Instructions placed in the group so far.
    filled: usize,
}

impl CtrlGroup {
    fn new(at: usize, given: Option<u64>) -> CtrlGroup {
        CtrlGroup {
            at,
            given,
            fields: [0; 7],
            filled: 0,
        }
    }
}

fn finish(k: KernelSrc) -> Result<KernelSpec, AsmError> {
    // Lay out the words: a control word before every seven instructions, either
    // given (a listing's line) or built from the annotations.
    let mut code: Vec<u64> = Vec::new();
    let mut pending_ctrl: Option<CtrlGroup> = None;
    let mut exits = Vec::new();
    let mut uses_bar = false;
    let mut max_reg: i64 = -1;
    let mut slot = 0usize;
    let addr_of = |s: usize| slot_addr(s);
    let nop = encode::assemble("NOP;", 0).map_err(|e| AsmError {
        line: k.line,
        message: e.to_string(),
    })?;
    let close = |code: &mut Vec<u64>, p: CtrlGroup, line: usize| {
        code[p.at] = match p.given {
            Some(w) => {
                if p.fields.iter().any(|&f| f != 0) {
                    return err(
                        line,
                        "instructions with `[..]` annotations under a whole control word line",
                    );
                }
                w
            }
            None => Control(p.fields).encode(),
        };
        Ok(())
    };
    let mut last_line = k.line;
    // A listing gives every group's control word on a line of its own; an
    // instruction where that line should be sits in the control slot itself
    // (ptxas can end a kernel with its `BRA` to itself there, and pad the
    // group after it with `NOP`s).
    let listing = k.items.iter().any(|i| matches!(i, Item::Control { .. }));
    for item in &k.items {
        match item {
            Item::Control { word, line } => {
                if let Some(p) = pending_ctrl {
                    if p.filled != 7 {
                        return err(
                            *line,
                            "a control word line in the middle of a group of seven instructions",
                        );
                    }
                    close(&mut code, p, *line)?;
                }
                // Taken as it is: ptxas leaves other words in control slots too
                // (a kernel's last `BRA` to itself, past its end).
                code.push(0);
                pending_ctrl = Some(CtrlGroup::new(code.len() - 1, Some(*word)));
                last_line = *line;
            }
            Item::Ins {
                text,
                field,
                hint,
                line,
            } if listing && field.is_none() && pending_ctrl.is_some_and(|p| p.filled == 7) => {
                if let Some(p) = pending_ctrl.take() {
                    close(&mut code, p, *line)?;
                }
                let addr = 8 * code.len() as u64;
                let (_, word) = encode_at(text, *hint, *line, addr, &k, &addr_of)?;
                // The word stands in the group's control slot, taken as it is,
                // as a control word line's would be; the instructions after it
                // fill the group (and the slot number, which skips control
                // slots, is unchanged).
                code.push(word);
                pending_ctrl = Some(CtrlGroup::new(code.len() - 1, Some(word)));
                last_line = *line;
            }
            Item::Ins {
                text,
                field,
                hint,
                line,
            } => {
                if pending_ctrl.is_none_or(|p| p.filled == 7) {
                    if let Some(p) = pending_ctrl {
                        close(&mut code, p, *line)?;
                    }
                    code.push(0);
                    pending_ctrl = Some(CtrlGroup::new(code.len() - 1, None));
                }
                let addr = addr_of(slot);
                debug_assert_eq!(addr, 8 * code.len() as u64);
                let (t, word) = encode_at(text, *hint, *line, addr, &k, &addr_of)?;
                match base_mnemonic(&t) {
                    "EXIT" => exits.push(addr as u32),
                    "BAR" => uses_bar = true,
                    _ => {}
                }
                max_reg = max_reg.max(highest_register(&t));
                code.push(word);
                if let Some(p) = pending_ctrl.as_mut() {
                    if let Some(f) = field {
                        p.fields[p.filled] = *f;
                    }
                    p.filled += 1;
                }
                slot += 1;
                last_line = *line;
            }
        }
    }
    if let Some(mut p) = pending_ctrl {
        while p.filled < 7 {
            code.push(nop);
            p.filled += 1;
        }
        close(&mut code, p, last_line)?;
    }
    if code.is_empty() {
        return err(k.line, format!("kernel `{}` has no instructions", k.name));
    }
    let registers = match k.registers {
        Some(r) => r,
        None => (max_reg + 1).clamp(1, 255) as u32,
    };
    let mut spec = KernelSpec::new(k.name.clone(), code, registers);
    spec.params = k.params;
    spec.shared_size = k.shared;
    spec.max_threads = k.max_threads;
    spec.req_ntid = k.req_ntid;
    spec.frame_size = k.frame;
    spec.min_stack_size = k.frame;
    spec.exit_offsets = exits;
    spec.barriers = k.barriers.unwrap_or(u32::from(uses_bar));
    Ok(spec)
}

/// The highest general register an instruction text names, counting the
/// registers a 64- or 128-bit operand spans beyond the one it names.
fn highest_register(text: &str) -> i64 {
    let m = text.split(' ').find(|t| !t.starts_with('@')).unwrap_or("");
    let span = if m.contains(".128") {
        3
    } else if m.contains(".64")
        || m.starts_with('D')
        || m.contains(".F64")
        || m.contains(".S64")
        || m.contains(".U64")
    {
        1
    } else {
        0
    };
    let mut hi = -1i64;
    let b = text.as_bytes();
    for (i, w) in b.windows(2).enumerate() {
        let prev_ok = i == 0 || !(b[i - 1] as char).is_ascii_alphanumeric();
        if w[0] == b'R' && w[1].is_ascii_digit() && prev_ok {
            let n: String = text[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(n) = n.parse::<i64>() {
                hi = hi.max(n + span);
            }
        }
    }
    hi
}

#[cfg(test)]
mod tests {
    #[test]
    fn repeats_and_groups() {
        let src = ".kernel k\n.rep 3\n[0x20] IADD R{i}, R{i}, 0x1;\n.endr\n.group\nloop: [0x20] BRA loop;\n";
        let k = &super::assemble_source(src).expect("assembles")[0];
        // 3 IADDs, 4 NOPs to the next group, the BRA: two control words.
        assert_eq!(k.code.len(), 16);
        let e = super::assemble_source(".kernel k\n.param 3\nEXIT;\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e
            .message
            .starts_with("`.param 3`: a SIZE given alone is its own alignment"));
        // An alias holds one meaning in its kernel: a second would change the
        // lines above it too.
        let e = super::assemble_source(".kernel k\n.alias x R1\nMOV x, R2;\n.alias x R3\nEXIT;\n")
            .unwrap_err();
        assert_eq!(e.line, 4);
        assert!(e.message.contains("`x` already names R1"), "{}", e.message);
        // Nor may it be a label's name, or an operand's.
        for src in [
            ".kernel k\nloop:\n.alias loop R1\nEXIT;\n",
            ".kernel k\n.alias loop R1\nloop:\nEXIT;\n",
            ".kernel k\nNOP;\n.alias c R1\nEXIT;\n",
        ] {
            let e = super::assemble_source(src).unwrap_err();
            assert_eq!(e.line, 3, "{src}: {}", e.message);
        }
        let e = super::assemble_source(".kernel k\nEXIT;\n.kernel k\nEXIT;\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (3, "kernel `k` is defined twice (first at line 1)")
        );
        // A kernel's property is given once.
        let e = super::assemble_source(".kernel k\n.shared 16\n.shared 32\nEXIT;\n").unwrap_err();
        assert_eq!(
            (e.line, e.message.as_str()),
            (
                3,
                "`.shared` is given twice in kernel `k` (first at line 2)"
            )
        );
        // A template's placeholder is named as one, by its line.
        let e = super::assemble_source(".kernel k\n// {N} in a comment\n.rep {N}\nNOP;\n.endr\n")
            .unwrap_err();
        assert_eq!(e.line, 3);
        assert!(
            e.message.starts_with("`{N}` is a template's placeholder"),
            "{}",
            e.message
        );
        let e = super::assemble_source(".kernel k\n.rep 2\nNOP;\n").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (2, "`.rep` without `.endr`"));
        // Nested blocks within each count's limit but not in all: an error,
        // not a 10^12-line expansion.
        let src = ".kernel k\n.rep 1000000\n.rep 1000000\nNOP;\n.endr\n.endr\n";
        let e = super::assemble_source(src).unwrap_err();
        assert_eq!(e.line, 2, "{}", e.message);
        assert!(
            e.message
                .contains("would expand to more than 4000000 lines or 67108864 bytes"),
            "{}",
            e.message
        );
        let e = super::assemble_source(".kernel k\nNOP;\n.endr\n").unwrap_err();
        assert_eq!(e.line, 3);
    }

    use super::*;
    use crate::decode::disassemble;

    #[test]
    fn a_text_no_form_prints_says_what_is_likely_wrong() {
        let why = |line: &str| {
            let src = format!(".kernel k\n{line}\nEXIT;\n");
            let e = assemble_source(&src).unwrap_err();
            assert_eq!(e.line, 2, "{e}");
            assert!(e.message.contains("no encoding of"), "{e}");
            e.message
        };
        for (line, hint) in [
            (
                "IADD R300, R0, 0x1;",
                "`R300` is no register: sm_35 has R0..R254 and RZ",
            ),
            ("IADD R255, R0, 0x1;", "R255 is written `RZ`"),
            ("@P9 EXIT;", "`P9` is no predicate: sm_35 has P0..P6 and PT"),
            ("@!P7 EXIT;", "P7 is written `PT`"),
            (
                "ISETP.GT.AND P8, PT, R0, 0x1, PT;",
                "`P8` is no predicate: sm_35 has P0..P6 and PT",
            ),
            ("BRA nowhere;", "`nowhere` is no label of this kernel"),
            (
                "@P0 BRA CC.EQ, nowhere;",
                "`nowhere` is no label of this kernel",
            ),
            (
                "MOV R1, 12;",
                "integers are written in hex, as nvdisasm prints them: `0xc` for `12`",
            ),
            ("IADD R1, R0, -1;", "`-0x1` for `-1`"),
        ] {
            let m = why(line);
            assert!(m.ends_with(hint), "{line}: {m}");
        }
        // Nothing to point at: the plain message.
        assert!(why("FFMA R1, R2, R3;").ends_with("(check modifiers and operands)"));
    }

    #[test]
    fn labels_aliases_and_annotations() {
        let src = "
            .kernel k          // a comment
            .param 4
            .param 8
            .alias x R4
            .alias done P0
            [0x20] S2R x, SR_TID.X;
            top:
            [0:0:1:0:05] @!done BRA top;
            @done BRA end
            end: EXIT;
        ";
        let ks = assemble_source(src).unwrap();
        let src2 = ".kernel k2\n.alias p R4\nIADD p.CC, p, 0x1;\n";
        let w = assemble_source(src2).unwrap()[0].code[1];
        assert_eq!(disassemble(w, 8).unwrap(), "IADD R4.CC, R4, 0x1;");
        assert_eq!(ks.len(), 1);
        let k = &ks[0];
        assert_eq!(k.name, "k");
        assert_eq!(k.code.len(), 8);
        let ctrl = Control::decode(k.code[0]).unwrap();
        assert_eq!(ctrl.0, [0x20, 0x25, 0, 0, 0, 0, 0]);
        let text: Vec<String> = (1..8)
            .map(|i| disassemble(k.code[i], 8 * i as u64).unwrap())
            .collect();
        assert_eq!(text[0], "S2R R4, SR_TID.X;");
        assert_eq!(text[1], "@!P0 BRA 0x10;");
        assert_eq!(text[2], "@P0 BRA 0x20;");
        assert_eq!(text[3], "EXIT;");
        assert_eq!(text[4], "NOP;");
        assert_eq!(k.exit_offsets, vec![0x20]);
        assert_eq!(k.registers, 5);
        assert_eq!(k.params, vec![ParamSpec::new(0, 4), ParamSpec::new(8, 8)]);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("EXIT;", 1, "before any"),
            (".kernel k\nFROB R0;", 2, "FROB"),
            (".kernel k\n.registers 300", 2, "1..=255"),
            (".kernel k\n.bogus 1", 2, "unknown directive"),
            (".kernel k\nl: EXIT;\nl: EXIT;", 3, "twice"),
            (".kernel k\n[0:0:2:0:00] EXIT;", 2, "control field"),
            ("code for sm_52", 1, "sm_35"),
            (".kernel k\n.param 8\n.param 4 @0x4", 3, "overlaps"),
            (".kernel k\n.barriers 17", 2, "16 barriers"),
            (".kernel k\nBRA nowhere;", 2, "BRA"),
        ];
        for (src, line, what) in cases {
            let e = assemble_source(src).unwrap_err();
            assert_eq!(e.line, line, "{src}: {e}");
            assert!(e.to_string().contains(what), "{src}: {e}");
        }
        // A runaway name is quoted to its first 100 characters, wherever
        // the error quotes it.
        let long = "Y".repeat(100_000);
        for src in [
            format!(".kernel k\nBRA {long};"),
            format!(".kernel k\n.alias {long} R1\n.alias {long} R2"),
            format!(".kernel k\n.param {long}"),
        ] {
            let e = assemble_source(&src).unwrap_err().to_string();
            assert!(
                e.len() < 400 && e.contains(&format!("{}...`", &long[..100])),
                "{e}"
            );
        }
        assert_eq!(clip_quotes("a `b` c `d"), "a `b` c `d");
    }

    #[test]
    fn a_listing_encoding_picks_among_words_that_print_alike() {
        // FMUL32I's immediate: every NaN prints as +QNAN; ptxas wrote 0x7fffffff.
        let listed = 0x243f_ffff_ff9c_0026u64;
        let src = format!(".kernel k\n/*0008*/ FMUL32I.SAT R9, R0, +QNAN ; /* {listed:#018x} */\n");
        assert_eq!(assemble_source(&src).unwrap()[0].code[1], listed);
        // Without it, the canonical NaN; with an edited text, the hint is ignored.
        let plain = assemble_source(".kernel k\nFMUL32I.SAT R9, R0, +QNAN ;").unwrap();
        assert_ne!(plain[0].code[1], listed);
        let edited = format!(".kernel k\nFMUL32I.SAT R8, R0, +QNAN ; /* {listed:#018x} */");
        let w = assemble_source(&edited).unwrap()[0].code[1];
        assert_eq!(disassemble(w, 8).unwrap(), "FMUL32I.SAT R8, R0, +QNAN ;");
    }

    #[test]
    fn placed_parameters_and_barriers() {
        let src = ".kernel k\n.param 4\n.param 8 @0x10\n.param 4\nBAR.SYNC 0x0;\nEXIT;";
        let k = &assemble_source(src).unwrap()[0];
        assert_eq!(
            k.params,
            vec![
                ParamSpec::new(0, 4),
                ParamSpec::new(0x10, 8),
                ParamSpec::new(0x18, 4)
            ]
        );
        assert_eq!(k.barriers, 1, "a BAR needs one barrier unless told");
        let k = &assemble_source(".kernel k\n.barriers 3\nEXIT;").unwrap()[0];
        assert_eq!(k.barriers, 3);
        // What the `asm` fuzzer found: a size or offset near 2^64 overflowed
        // the parameter space's bound (fuzz/regressions/asm).
        for p in [
            ".param 18446744073709551614",
            ".param 4 @18446744073709551615",
        ] {
            let e = assemble_source(&format!(".kernel k\n.param 8\n{p}\nEXIT;")).unwrap_err();
            assert_eq!(e.line, 3, "{p}");
            assert_eq!(
                e.message, "parameters exceed the 4 KiB parameter space",
                "{p}"
            );
        }
    }

    #[test]
    fn slot_addresses_skip_control_words() {
        assert_eq!(slot_addr(0), 0x8);
        assert_eq!(slot_addr(6), 0x38);
        assert_eq!(slot_addr(7), 0x48);
    }

    #[test]
    fn register_count_counts_wide_operands() {
        assert_eq!(highest_register("DADD R4, R2, R6;"), 7);
        assert_eq!(highest_register("LDS.128 R8, [R3];"), 11);
        assert_eq!(highest_register("MOV R1, c[0x0][0x44];"), 1);
        assert_eq!(highest_register("EXIT;"), -1);
    }
}
