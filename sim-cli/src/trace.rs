//! The trace file (`keplersim run --trace FILE`): the timing model's events
//! of a run, limited to a window of cycles and a list of SMs, for the viewer
//! (`keplersim view`) and the Perfetto export.
//!
//! The format, version [`VERSION`]: the eight bytes [`MAGIC`], then a
//! [`Header`] and the [`Event`]s one after another, each encoded with
//! postcard (serde's compact binary format: varints, no framing needed, as
//! each value knows its own end). The events are `sim_core`'s own, so
//! [`VERSION`] goes up whenever `Event` or `Header` changes shape.

use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};
use sim_core::timing::{Event, Observer};

/// The first bytes of every trace file.
pub const MAGIC: [u8; 8] = *b"KEPLTRC\n";

/// The version of the format this build writes and reads.
pub const VERSION: u32 = 4;

/// What a trace says about its run before the events.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Header {
    /// [`VERSION`] of the writer.
    pub version: u32,
    /// The kernel's name and the file it came from.
    pub kernel: String,
    pub file: String,
    /// The launch's grid and block dimensions.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// The chip: SMs simulated, warp schedulers per SM, and the stall a zero
    /// control byte means and a single issue's interval (to decode control
    /// bytes).
    pub sms: u32,
    pub schedulers: u32,
    pub unscheduled_stall: u32,
    pub issue_interval: u32,
    /// The cycles recorded: from `window.0` up to (not including)
    /// `window.1`.
    pub window: (u64, u64),
    /// The SMs recorded (empty: all).
    pub trace_sms: Vec<u32>,
    /// The kernel's SASS, one entry per 8-byte slot (control words included,
    /// as `<control word>`): event `pc`s index it.
    pub listing: Vec<Line>,
}

impl Header {
    /// Refuses a header no run of keplersim writes: a chip field outside the
    /// range a configuration may give it. The viewer sizes its index by the
    /// schedulers and decodes control bytes with the two stalls, so a
    /// damaged file must not reach it with, say, 2^32 schedulers an SM.
    pub fn check(&self) -> Result<()> {
        let chip = [
            ("schedulers", self.schedulers),
            ("unscheduled_stall", self.unscheduled_stall),
            ("issue_interval", self.issue_interval),
        ];
        for (name, v) in chip {
            let (lo, hi) = sim_core::config::Timing::limits(name)
                .with_context(|| format!("no configuration parameter `{name}`"))?;
            if !(lo..=hi).contains(&(v as f64)) {
                bail!(
                    "the trace's header gives timing.{name} {v}, outside the {lo}..={hi} a \
                     configuration allows (a damaged file?)"
                );
            }
        }
        Ok(())
    }

    /// How the trace's run read control bytes.
    pub fn reading(&self) -> sim_core::timing::ctrl::Reading {
        sim_core::timing::ctrl::Reading {
            unscheduled_stall: self.unscheduled_stall,
            issue_interval: self.issue_interval,
        }
    }
}

/// One slot of the kernel's code.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Line {
    /// The instruction as nvdisasm prints it.
    pub text: String,
    /// Its 8-bit control field (0 for control words).
    pub ctrl: u8,
    /// The registers it reads from one bank, which the operand collector
    /// cannot read in one cycle (`R19, R25 on bank 3`), as `keplersim check`
    /// finds them without operand reuse; empty when none.
    pub banks: String,
}

/// A trace read back: its header and its events in the order recorded.
#[derive(Debug, Clone)]
pub struct Trace {
    pub header: Header,
    pub events: Vec<Event>,
}

impl Trace {
    /// Reads the trace in `path`, a chunk at a time: the file's bytes are
    /// never in memory whole beside the events decoded from them.
    pub fn read(path: &Path) -> Result<Trace> {
        // A pipe would block the open, a device could be read for ever.
        sim_kernels::workload::regular_file(path).with_context(|| format!("{}", path.display()))?;
        let f = std::fs::File::open(path).with_context(|| format!("{}", path.display()))?;
        Trace::decode(Decoder::new(f)).with_context(|| format!("{}", path.display()))
    }

    /// Decodes a whole trace file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Trace> {
        Trace::decode(Decoder::new(bytes))
    }

    fn decode<R: Read>(mut d: Decoder<R>) -> Result<Trace> {
        if d.magic()? != Some(MAGIC) {
            bail!("not a keplersim trace (it does not start with the trace magic)");
        }
        // The version first: another version's header has another shape.
        let version = d.peek::<u32>()?.unwrap_or(VERSION);
        if version != VERSION {
            bail!(
                "a trace of format version {version}; this keplersim reads version {VERSION} (record it again)"
            );
        }
        let header: Header = d
            .next()
            .context("the trace's header does not decode")?
            .context("the trace's header does not decode: the file ends before it")?;
        header.check()?;
        let mut events = Vec::new();
        while let Some(e) = d
            .next::<Event>()
            .with_context(|| format!("event {} does not decode (a cut-off file?)", events.len()))?
        {
            events.push(e);
        }
        Ok(Trace { header, events })
    }

    /// Encodes the trace as a file's bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let mut w = TraceWriter::new(Vec::new(), &self.header, 0..u64::MAX, &[])?;
        for &e in &self.events {
            w.event(e);
        }
        w.finish()
    }
}

/// Reads postcard values one after another from `src` (a file, or bytes in
/// memory), holding only the chunk being decoded.
struct Decoder<R> {
    src: R,
    buf: Vec<u8>,
    /// Where the next value starts in `buf`.
    pos: usize,
    /// `src` has nothing more.
    eof: bool,
}

/// Bytes read from a file at a time.
const CHUNK: usize = 1 << 20;

impl<R: Read> Decoder<R> {
    fn new(src: R) -> Decoder<R> {
        Decoder {
            src,
            buf: Vec::new(),
            pos: 0,
            eof: false,
        }
    }

    /// Drops what was decoded and reads another chunk (or notes the end).
    fn fill(&mut self) -> Result<()> {
        self.buf.drain(..self.pos);
        self.pos = 0;
        let have = self.buf.len();
        self.buf.resize(have + CHUNK, 0);
        let n = loop {
            match self.src.read(&mut self.buf[have..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e.into()),
            }
        };
        self.buf.truncate(have + n);
        self.eof = n == 0;
        Ok(())
    }

    /// The file's first eight bytes (none: it is shorter).
    fn magic(&mut self) -> Result<Option<[u8; 8]>> {
        while self.buf.len() - self.pos < 8 && !self.eof {
            self.fill()?;
        }
        let Some(m) = self.buf[self.pos..].first_chunk::<8>().copied() else {
            return Ok(None);
        };
        self.pos += 8;
        Ok(Some(m))
    }

    /// Decodes the next value, leaving it to be read again (none: the next
    /// bytes do not decode as one).
    fn peek<T: serde::de::DeserializeOwned>(&mut self) -> Result<Option<T>> {
        loop {
            match postcard::take_from_bytes::<T>(&self.buf[self.pos..]) {
                Ok((v, _)) => return Ok(Some(v)),
                Err(postcard::Error::DeserializeUnexpectedEnd) if !self.eof => self.fill()?,
                Err(_) => return Ok(None),
            }
        }
    }

    /// Decodes the next value (none: the bytes have ended between values).
    fn next<T: serde::de::DeserializeOwned>(&mut self) -> Result<Option<T>> {
        loop {
            if self.pos == self.buf.len() {
                if self.eof {
                    return Ok(None);
                }
                self.fill()?;
                continue;
            }
            match postcard::take_from_bytes::<T>(&self.buf[self.pos..]) {
                Ok((v, rest)) => {
                    self.pos = self.buf.len() - rest.len();
                    return Ok(Some(v));
                }
                Err(postcard::Error::DeserializeUnexpectedEnd) if !self.eof => self.fill()?,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

/// An [`Observer`] that writes the events of a window of cycles on some SMs
/// to `out` as they come (the header first). A stall that straddles the
/// window's edge is cut to it; blocks' starts and ends before the window
/// are kept, so the viewer knows which warps live in it.
pub struct TraceWriter<W: Write> {
    out: W,
    window: Range<u64>,
    sms: Vec<u32>,
    /// Events written.
    pub written: u64,
    error: Option<std::io::Error>,
}

impl<W: Write> TraceWriter<W> {
    /// Writes the magic and `header` to `out`; the events of cycles in
    /// `window` on `sms` (empty: all) follow.
    pub fn new(mut out: W, header: &Header, window: Range<u64>, sms: &[u32]) -> Result<Self> {
        out.write_all(&MAGIC)?;
        postcard::to_io(header, &mut out).context("writing the trace's header")?;
        Ok(TraceWriter {
            out,
            window,
            sms: sms.to_vec(),
            written: 0,
            error: None,
        })
    }

    /// Flushes and returns the writer, or the first error.
    pub fn finish(mut self) -> Result<W> {
        if let Some(e) = self.error.take() {
            return Err(e).context("writing the trace");
        }
        self.out.flush()?;
        Ok(self.out)
    }

    /// The event as it is kept (cut to the window), or none.
    fn keep(&self, e: Event) -> Option<Event> {
        if !self.sms.is_empty() && !self.sms.contains(&e.sm()) {
            return None;
        }
        let w = &self.window;
        match e {
            Event::Stall {
                cycle,
                sm,
                sched,
                why,
                pc,
                cycles,
            } => {
                let start = cycle.max(w.start);
                let end = cycle.saturating_add(cycles).min(w.end);
                (start < end).then(|| Event::Stall {
                    cycle: start,
                    sm,
                    sched,
                    why,
                    pc,
                    cycles: end - start,
                })
            }
            Event::BlockStart { cycle, .. } | Event::BlockDone { cycle, .. } => {
                (cycle < w.end).then_some(e)
            }
            _ => w.contains(&e.cycle()).then_some(e),
        }
    }
}

impl<W: Write> Observer for TraceWriter<W> {
    const ACTIVE: bool = true;

    fn event(&mut self, e: Event) {
        if self.error.is_some() {
            return;
        }
        if let Some(e) = self.keep(e) {
            match postcard::to_io(&e, &mut self.out) {
                Ok(_) => self.written += 1,
                Err(e) => self.error = Some(std::io::Error::other(e.to_string())),
            }
        }
    }
}

/// The recording options of `keplersim run`.
#[derive(Args, Debug, Default, Clone)]
pub struct TraceArgs {
    /// Record the timing model's events (issues, stalls, barriers, memory
    /// requests) to FILE, for `keplersim view FILE` (docs/viewer.md).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Record only cycles A up to B (`0..20000`; either end may be left
    /// out). With an end, the run ends there too (the trace holds no more):
    /// a partial run, its counters those of the cycles before B, its outputs
    /// not checked.
    #[arg(long, value_name = "A..B")]
    pub trace_cycles: Option<String>,
    /// With --trace-cycles A..B: run on to the end of the grid after B, for
    /// the whole report and its checks (the trace still holds A..B only).
    #[arg(long, requires = "trace_cycles")]
    pub trace_full: bool,
    /// Record only these SMs (`0`, `0,3`, `0-3`).
    #[arg(long, value_name = "LIST")]
    pub trace_sms: Option<String>,
    /// Open the pipeline viewer on the recorded run when it ends.
    #[arg(long)]
    pub view: bool,
    /// Write the recorded run as Chrome/Perfetto trace events (JSON) to
    /// FILE.json, for ui.perfetto.dev or chrome://tracing.
    #[arg(long, value_name = "FILE.json")]
    pub perfetto: Option<PathBuf>,
}

/// A recording under way: the observer to run with and where it goes.
pub struct Recording {
    pub writer: TraceWriter<std::io::BufWriter<std::fs::File>>,
    path: PathBuf,
    /// The file is ours to remove at the end (no `--trace`).
    temporary: bool,
    /// The last cycle the run needs: the window's (unless `--trace-full`).
    pub until: Option<u64>,
}

impl TraceArgs {
    /// Whether anything asks for a recording.
    pub fn wanted(&self) -> bool {
        self.trace.is_some() || self.view || self.perfetto.is_some()
    }

    /// Starts a recording of a run of `kernel` (of `file`, loaded from
    /// `cubin`) when one is asked for.
    pub fn start(
        &self,
        cubin: &sim_isa::cubin::Cubin,
        r: &sim_core::launch::Resolved,
        config: &sim_core::config::Config,
        file: &Path,
    ) -> Result<Option<Recording>> {
        if !self.wanted() {
            if self.trace_cycles.is_some() || self.trace_sms.is_some() {
                bail!("--trace-cycles and --trace-sms need --trace, --view or --perfetto");
            }
            return Ok(None);
        }
        let window = match &self.trace_cycles {
            Some(s) => parse_cycles(s)?,
            None => 0..u64::MAX,
        };
        let sms = match &self.trace_sms {
            Some(s) => parse_sms(s, config.chip.sms)?,
            None => Vec::new(),
        };
        if self.view {
            // Before the run, not after it.
            crate::view::need_terminal("--view")?;
        }
        let header = header(cubin, r, config, file, &window, &sms)?;
        let (path, temporary) = match &self.trace {
            Some(p) => (p.clone(), false),
            None => (
                std::env::temp_dir().join(format!("keplersim-{}.kst", std::process::id())),
                true,
            ),
        };
        let f = std::fs::File::create(&path).with_context(|| format!("{}", path.display()))?;
        let until = (window.end != u64::MAX && !self.trace_full).then(|| window.end - 1);
        let writer = TraceWriter::new(std::io::BufWriter::new(f), &header, window, &sms)?;
        Ok(Some(Recording {
            writer,
            path,
            temporary,
            until,
        }))
    }
}

impl Recording {
    /// Ends the recording: closes the file, says what it holds, writes the
    /// Perfetto export and opens the viewer as `args` ask.
    pub fn finish(self, args: &TraceArgs, quiet: bool) -> Result<()> {
        let events = self.writer.written;
        self.writer.finish()?;
        let bytes = std::fs::metadata(&self.path).map_or(0, |m| m.len());
        if !self.temporary && !quiet {
            println!(
                "trace       {events} events, {bytes} bytes to {} (keplersim view {})",
                self.path.display(),
                self.path.display()
            );
        }
        let result = (|| {
            if args.perfetto.is_some() || args.view {
                let trace = Trace::read(&self.path)?;
                if let Some(p) = &args.perfetto {
                    crate::perfetto::write(&trace, p)?;
                    if !quiet {
                        println!("perfetto    {}", p.display());
                    }
                }
                if args.view {
                    crate::view::run(trace)?;
                }
            }
            Ok(())
        })();
        if self.temporary {
            let _ = std::fs::remove_file(&self.path);
        }
        result
    }
}

/// The header of a trace of `r`'s run.
fn header(
    cubin: &sim_isa::cubin::Cubin,
    r: &sim_core::launch::Resolved,
    config: &sim_core::config::Config,
    file: &Path,
    window: &Range<u64>,
    sms: &[u32],
) -> Result<Header> {
    let mut global = sim_core::mem::GlobalMem::new();
    let prog = sim_core::program::Program::load(cubin, &r.kernel, &mut global)
        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let check = sim_core::check::check_with(
        &prog,
        sim_core::check::Options {
            no_reuse: true,
            keep_reads: false,
            ..sim_core::check::Options::for_timing(&config.timing)
        },
    );
    let banks = |slot: u32| {
        check
            .findings
            .iter()
            .find(|(s, f)| *s == slot && matches!(f, sim_core::check::Finding::Conflict { .. }))
            .map_or(String::new(), |(_, f)| {
                let t = f.to_string();
                t.split_once(": ").map_or(t.clone(), |(_, r)| r.to_string())
            })
    };
    let listing = (0..prog.ops.len() as u32)
        .map(|s| Line {
            text: prog.text(s).trim_end_matches(';').to_string(),
            ctrl: prog.ctrl.get(s as usize).copied().unwrap_or(0),
            banks: banks(s),
        })
        .collect();
    Ok(Header {
        version: VERSION,
        kernel: r.kernel.clone(),
        file: file.display().to_string(),
        grid: r.dims.grid,
        block: r.dims.block,
        sms: config.chip.sms,
        schedulers: config.timing.schedulers,
        unscheduled_stall: config.timing.unscheduled_stall,
        issue_interval: config.timing.issue_interval,
        window: (window.start, window.end),
        trace_sms: sms.to_vec(),
        listing,
    })
}

/// `A..B`, `A..` or `..B` as a range of cycles.
pub fn parse_cycles(s: &str) -> Result<Range<u64>> {
    let Some((a, b)) = s.split_once("..") else {
        bail!("--trace-cycles {s}: expected A..B (cycles A up to B)");
    };
    let num = |t: &str, none: u64| -> Result<u64> {
        let t = t.trim().replace('_', "");
        if t.is_empty() {
            return Ok(none);
        }
        t.parse()
            .with_context(|| format!("--trace-cycles {s}: `{t}` is not a cycle"))
    };
    let (a, b) = (num(a, 0)?, num(b, u64::MAX)?);
    if a >= b {
        bail!("--trace-cycles {s}: an empty window");
    }
    Ok(a..b)
}

/// `0`, `0,3`, `0-3` (or mixed) as a list of SMs.
pub fn parse_sms(s: &str, chip: u32) -> Result<Vec<u32>> {
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let num = |t: &str| -> Result<u32> {
            let n: u32 = t
                .trim()
                .parse()
                .with_context(|| format!("--trace-sms {s}: `{t}` is not an SM number"))?;
            if n >= chip {
                bail!(
                    "--trace-sms {s}: no SM {n}: the chip has {chip} (0 to {})",
                    chip - 1
                );
            }
            Ok(n)
        };
        match part.split_once('-') {
            Some((a, b)) => out.extend(num(a)?..=num(b)?),
            None => out.push(num(part)?),
        }
    }
    if out.is_empty() {
        bail!("--trace-sms {s}: name at least one SM");
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use sim_core::timing::Stall;

    /// A small hand-made trace: one SM, two schedulers, a block of two
    /// warps, a dual pair, a bank conflict, a barrier and a global load.
    pub(crate) fn sample() -> Trace {
        let listing = [
            ("<control word>", 0),
            ("S2R R0, SR_TID.X", 0x21),
            ("FFMA R1, R2, R3, R4", 0x04),
            ("FFMA R5, R6, R7, R8", 0x20),
            ("LD.E R9, [R10]", 0x20),
            ("BAR.SYNC 0x0", 0x20),
            ("FADD R1, R1, R9", 0x20),
            ("EXIT", 0x20),
        ]
        .iter()
        .map(|&(t, c)| Line {
            text: t.to_string(),
            ctrl: c,
            banks: if t.starts_with("FFMA R1,") {
                "R2, R6 on bank 2".into()
            } else {
                String::new()
            },
        })
        .collect();
        let header = Header {
            version: VERSION,
            kernel: "sample".into(),
            file: "sample.cubin".into(),
            grid: [1, 1, 1],
            block: [64, 1, 1],
            sms: 1,
            schedulers: 2,
            unscheduled_stall: 16,
            issue_interval: 3,
            window: (0, u64::MAX),
            trace_sms: vec![],
            listing,
        };
        let issue = |cycle, sched, warp, pc, dual, conflict| Event::Issue {
            cycle,
            sm: 0,
            sched,
            slot: 0,
            warp,
            pc,
            dual,
            conflict,
        };
        let stall = |cycle, sched, why, pc, cycles| Event::Stall {
            cycle,
            sm: 0,
            sched,
            why,
            pc,
            cycles,
        };
        let events = vec![
            Event::BlockStart {
                cycle: 0,
                sm: 0,
                slot: 0,
                block: [0, 0, 0],
                warps: 2,
            },
            issue(0, 0, 0, 1, false, 0),
            issue(0, 1, 1, 1, false, 0),
            stall(1, 0, Stall::ControlCode, 2, 1),
            stall(1, 1, Stall::ControlCode, 2, 1),
            issue(2, 0, 0, 2, true, 2),
            issue(2, 1, 1, 2, true, 0),
            stall(3, 0, Stall::BankConflict, 2, 1),
            issue(3, 1, 1, 4, false, 0),
            Event::Global {
                cycle: 3,
                sm: 0,
                sched: 1,
                slot: 0,
                warp: 1,
                pc: 4,
                store: false,
                lines: 1,
                sectors: 4,
                cache_hits: 0,
                l2_hits: 0,
                l2_misses: 1,
                ready: 300,
            },
            issue(4, 0, 0, 4, false, 0),
            Event::Global {
                cycle: 4,
                sm: 0,
                sched: 0,
                slot: 0,
                warp: 0,
                pc: 4,
                store: false,
                lines: 1,
                sectors: 4,
                cache_hits: 0,
                l2_hits: 1,
                l2_misses: 0,
                ready: 200,
            },
            stall(4, 1, Stall::ControlCode, 5, 1),
            stall(5, 0, Stall::ControlCode, 5, 1),
            issue(5, 1, 1, 5, false, 0),
            Event::BarrierArrive {
                cycle: 5,
                sm: 0,
                slot: 0,
                warp: 1,
                pc: 5,
            },
            issue(6, 0, 0, 5, false, 0),
            Event::BarrierArrive {
                cycle: 6,
                sm: 0,
                slot: 0,
                warp: 0,
                pc: 5,
            },
            stall(6, 1, Stall::Sync, 6, 1),
            Event::BarrierRelease {
                cycle: 7,
                sm: 0,
                slot: 0,
            },
            stall(7, 0, Stall::Sync, 6, 1),
            stall(7, 1, Stall::Sync, 6, 1),
            stall(8, 0, Stall::Dependency, 6, 192),
            stall(8, 1, Stall::Dependency, 6, 292),
            issue(200, 0, 0, 6, false, 0),
            issue(300, 1, 1, 6, false, 0),
            stall(201, 0, Stall::ControlCode, 7, 1),
            issue(202, 0, 0, 7, false, 0),
            stall(301, 1, Stall::ControlCode, 7, 1),
            issue(302, 1, 1, 7, false, 0),
            Event::BlockDone {
                cycle: 302,
                sm: 0,
                block: [0, 0, 0],
            },
        ];
        Trace { header, events }
    }

    #[test]
    fn a_trace_round_trips_through_its_bytes() {
        let t = sample();
        let bytes = t.to_bytes().unwrap();
        assert!(bytes.starts_with(&MAGIC));
        let back = Trace::from_bytes(&bytes).unwrap();
        assert_eq!(back.header, t.header);
        assert_eq!(back.events, t.events);
        // Cut short, it says so rather than returning part.
        assert!(Trace::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(Trace::from_bytes(b"not a trace").is_err());
    }

    /// A reader that hands out at most `n` bytes a read, as a pipe or a
    /// slow disk may.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(out.len()).min(self.1);
            out[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    /// Values that straddle the reads decode as from the whole bytes; a
    /// file cut inside an event is an error naming it, and one cut inside
    /// its header says so.
    #[test]
    fn a_trace_read_in_pieces_is_the_trace() {
        let t = sample();
        let bytes = t.to_bytes().unwrap();
        for n in [1, 2, 3, 7, 64, 4096] {
            let back = Trace::decode(Decoder::new(Trickle(&bytes, n))).unwrap();
            assert_eq!(
                (back.header, back.events),
                (t.header.clone(), t.events.clone())
            );
        }
        let header_end = 8 + postcard::to_allocvec(&t.header).unwrap().len();
        for cut in header_end + 1..bytes.len() {
            let r = Trace::decode(Decoder::new(Trickle(&bytes[..cut], 5)));
            match r {
                // A cut between two events leaves a whole, shorter trace.
                Ok(back) => assert!(back.events.len() < t.events.len()),
                Err(e) => assert!(
                    format!("{e:#}").contains("does not decode (a cut-off file?)"),
                    "{e:#}"
                ),
            }
        }
        let e = Trace::decode(Decoder::new(Trickle(&bytes[..header_end - 1], 3))).unwrap_err();
        assert!(
            format!("{e:#}").contains("the trace's header does not decode"),
            "{e:#}"
        );
    }

    /// A header whose chip no configuration allows (a damaged or hand-made
    /// file) is refused with the field and its value: the viewer would size
    /// its index by 2^32 schedulers, or add to a stall of 2^32 cycles.
    /// A folder, a device or a pipe where a trace belongs is named at once:
    /// a pipe used to block `keplersim view` for ever in its open.
    #[test]
    #[cfg(unix)]
    fn a_trace_that_is_not_a_file_is_refused_before_it_is_opened() {
        let dir = std::env::temp_dir().join(format!("keplersim-trace-nf-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let mut paths = vec![dir.clone(), PathBuf::from("/dev/null")];
        if made.is_ok_and(|s| s.success()) {
            paths.push(fifo);
        }
        for p in paths {
            let e = format!("{:#}", Trace::read(&p).unwrap_err());
            assert!(
                e.contains(&p.display().to_string()) && e.contains("not a regular file"),
                "{}: {e}",
                p.display()
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_header_no_run_writes_is_refused() {
        type Damage = fn(&mut Header);
        let cases: [(Damage, &str); 5] = [
            (
                |h| h.schedulers = u32::MAX,
                "timing.schedulers 4294967295, outside the 1..=4",
            ),
            (
                |h| h.schedulers = 0,
                "timing.schedulers 0, outside the 1..=4",
            ),
            (
                |h| h.schedulers = 5,
                "timing.schedulers 5, outside the 1..=4",
            ),
            (
                |h| h.issue_interval = u32::MAX,
                "timing.issue_interval 4294967295, outside the 1..=16",
            ),
            (
                |h| h.unscheduled_stall = 256,
                "timing.unscheduled_stall 256, outside the 0..=255",
            ),
        ];
        for (damage, want) in cases {
            let mut t = sample();
            damage(&mut t.header);
            let bytes = t.to_bytes().unwrap();
            let e = format!("{:#}", Trace::from_bytes(&bytes).unwrap_err());
            assert!(e.contains(want), "{e}");
            assert!(
                e.ends_with("a configuration allows (a damaged file?)"),
                "{e}"
            );
        }
        let mut t = sample();
        t.header.schedulers = 4;
        t.header.issue_interval = 16;
        t.header.unscheduled_stall = 0;
        assert!(Trace::from_bytes(&t.to_bytes().unwrap()).is_ok());
    }

    #[test]
    fn the_window_cuts_stalls_and_drops_other_cycles_and_sms() {
        let t = sample();
        let mut w = TraceWriter::new(Vec::new(), &t.header, 100..250, &[0]).unwrap();
        for &e in &t.events {
            w.event(e);
        }
        w.event(Event::Issue {
            cycle: 120,
            sm: 1,
            sched: 0,
            slot: 0,
            warp: 0,
            pc: 1,
            dual: false,
            conflict: 0,
        });
        let back = Trace::from_bytes(&w.finish().unwrap()).unwrap();
        let stalls: Vec<(u64, u64)> = back
            .events
            .iter()
            .filter_map(|e| match *e {
                Event::Stall { cycle, cycles, .. } => Some((cycle, cycles)),
                _ => None,
            })
            .collect();
        assert_eq!(stalls, [(100, 100), (100, 150), (201, 1)]);
        assert!(back.events.iter().all(|e| e.sm() == 0));
        assert!(back
            .events
            .iter()
            .any(|e| matches!(e, Event::BlockStart { cycle: 0, .. })));
        assert!(!back
            .events
            .iter()
            .any(|e| matches!(e, Event::BlockDone { .. })));
    }

    #[test]
    fn the_recorded_events_add_up_to_the_runs_counters() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let launch = root.join("traces/sgemm/sgemm.launch.ron");
        let text = std::fs::read_to_string(&launch).unwrap();
        let sets = [("m", 192), ("n", 384), ("k", 96)].map(|(k, v)| (k.to_string(), v));
        let (r, dir) = crate::run::resolve_launch(&launch, &text, &sets).unwrap();
        let cubin = crate::run::load_cubin(&root.join("traces/sgemm/sgemm.cubin"), &[]).unwrap();
        let mut config = sim_core::config::Config::default();
        config.chip.sms = 2;
        let h = header(
            &cubin,
            &r,
            &config,
            Path::new("sgemm.cubin"),
            &(0..u64::MAX),
            &[],
        )
        .unwrap();
        let window = 1000..3000;
        // Every event heard twice: by the window's writer and the whole run's.
        let mut part_w = TraceWriter::new(Vec::new(), &h, window.clone(), &[1]).unwrap();
        let mut all_w = TraceWriter::new(Vec::new(), &h, 0..u64::MAX, &[]).unwrap();
        let out = sim_core::launch::execute_observed(
            &cubin,
            &r,
            sim_core::launch::Mode::Timed(sim_core::timing::Stepping::Lockstep),
            &config,
            &crate::run::reader(&dir),
            &mut crate::plot::Tee(&mut part_w, &mut all_w),
        )
        .unwrap();
        assert!(out.passed());
        let t = out.timed.unwrap();
        let part = Trace::from_bytes(&part_w.finish().unwrap()).unwrap();
        let all = Trace::from_bytes(&all_w.finish().unwrap()).unwrap();
        // The whole run's events: the run's counters.
        let s = &t.stats;
        assert!(s.dual > 0 && s.conflicts[0] > 0 && s.barrier_releases > 0 && s.pairs_apart[0] > 0);
        let (heard, done) = tally(&all.events);
        assert_eq!(heard, counters(&t));
        assert_eq!(done, 2);
        // The window's events: the whole run's, cut to the window on SM 1.
        let cut: Vec<Event> = {
            let mut w = TraceWriter::new(Vec::new(), &h, window.clone(), &[1]).unwrap();
            all.events.iter().for_each(|&e| w.event(e));
            Trace::from_bytes(&w.finish().unwrap()).unwrap().events
        };
        assert_eq!(part.events, cut);
        // Every scheduler-cycle of the window on SM 1 is an issue or a
        // stall, once.
        let per_cycle: u64 = part
            .events
            .iter()
            .map(|e| match *e {
                Event::Issue { .. } => 1,
                Event::Stall { cycles, .. } => cycles,
                _ => 0,
            })
            .sum();
        assert_eq!(per_cycle, 4 * (window.end - window.start));
    }

    /// The counters a run's events add up to, and the blocks they finish.
    fn tally(events: &[Event]) -> (Counters, u64) {
        let mut c = Counters::default();
        let mut done = 0;
        for e in events {
            match *e {
                Event::Issue {
                    dual: d, conflict, ..
                } => {
                    c.issues += 1;
                    c.dual += d as u64;
                    if conflict >= 2 {
                        c.conflicts[conflict as usize - 2] += 1;
                    }
                }
                Event::Stall { why, cycles, .. } => c.stall[why as usize] += cycles,
                Event::BarrierRelease { .. } => c.releases += 1,
                Event::Shared { transactions, .. } => {
                    c.shared += 1;
                    c.transactions += transactions as u64;
                }
                Event::Global {
                    lines,
                    cache_hits,
                    l2_hits,
                    l2_misses,
                    ..
                } => {
                    c.global += 1;
                    c.lines += lines as u64;
                    c.ro_hits += cache_hits as u64;
                    c.l2 = (c.l2.0 + l2_hits as u64, c.l2.1 + l2_misses as u64);
                }
                Event::BlockDone { .. } => done += 1,
                Event::PairApart { why, .. } => c.apart[why as usize] += 1,
                _ => {}
            }
        }
        (c, done)
    }

    /// A run's counters that its events must add up to.
    #[derive(Debug, Default, PartialEq)]
    struct Counters {
        issues: u64,
        dual: u64,
        stall: [u64; sim_core::timing::events::NSTALLS],
        conflicts: [u64; 3],
        releases: u64,
        shared: u64,
        transactions: u64,
        global: u64,
        lines: u64,
        ro_hits: u64,
        /// L2 hits and misses.
        l2: (u64, u64),
        /// Pairs issued apart, by why.
        apart: [u64; sim_core::timing::events::NAPART],
    }

    /// What the report of run `t` counts.
    fn counters(t: &sim_core::timing::Timed) -> Counters {
        let s = &t.stats;
        Counters {
            issues: s.issue_cycles,
            dual: s.dual,
            stall: s.stall,
            conflicts: s.conflicts,
            releases: s.barrier_releases,
            shared: s.shared_instructions,
            transactions: s.shared_transactions,
            global: s.global_instructions,
            lines: s.global_transactions,
            ro_hits: s.ldg_cache_hits,
            l2: (t.mem.l2_hits, t.mem.l2_misses),
            apart: s.pairs_apart,
        }
    }

    /// A run recorded with a window that ends: it ends there too, says so,
    /// checks nothing, and its events add up to its counters, every
    /// scheduler-cycle of the window an issue or a stall, once (the SMs
    /// asleep at its last cycle counted up to it).
    #[test]
    fn a_window_ends_the_run_and_its_events_are_its_counters() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let launch = root.join("traces/sgemm/sgemm.launch.ron");
        let text = std::fs::read_to_string(&launch).unwrap();
        let sets = [("m", 192), ("n", 384), ("k", 384)].map(|(k, v)| (k.to_string(), v));
        let (r, dir) = crate::run::resolve_launch(&launch, &text, &sets).unwrap();
        let cubin = crate::run::load_cubin(&root.join("traces/sgemm/sgemm.cubin"), &[]).unwrap();
        let mut config = sim_core::config::Config::default();
        config.chip.sms = 2;
        let window = 0..7001;
        let h = header(&cubin, &r, &config, Path::new("sgemm.cubin"), &window, &[]).unwrap();
        let mut w = TraceWriter::new(Vec::new(), &h, window.clone(), &[]).unwrap();
        let out = sim_core::launch::execute_controlled(
            &cubin,
            &r,
            sim_core::launch::Mode::Timed(sim_core::timing::Stepping::Turns),
            &config,
            &crate::run::reader(&dir),
            &mut w,
            &mut sim_core::timing::Control {
                until: Some(window.end - 1),
                ..Default::default()
            },
        )
        .unwrap();
        assert!(out.checks.is_empty(), "a partial run checks nothing");
        let t = out.timed.unwrap();
        assert_eq!(t.partial, Some(sim_core::timing::Partial::Until(7000)));
        assert_eq!((t.cycles, t.blocks_done), (7001, 0));
        let trace = Trace::from_bytes(&w.finish().unwrap()).unwrap();
        assert!(trace.events.iter().all(|e| e.cycle() < window.end));
        let (heard, _) = tally(&trace.events);
        assert!(heard.dual > 0 && heard.releases > 0 && heard.conflicts[0] > 0);
        assert_eq!(heard, counters(&t));
        let stalled: u64 = heard.stall.iter().sum();
        assert_eq!(heard.issues + stalled, 2 * 4 * window.end);
    }

    #[test]
    fn windows_and_sm_lists_parse() {
        assert_eq!(parse_cycles("0..20000").unwrap(), 0..20000);
        assert_eq!(parse_cycles("5..").unwrap(), 5..u64::MAX);
        assert_eq!(parse_cycles("..7").unwrap(), 0..7);
        assert!(parse_cycles("7..7").is_err());
        assert!(parse_cycles("7").is_err());
        assert_eq!(parse_sms("0", 13).unwrap(), [0]);
        assert_eq!(parse_sms("3,0-2,1", 13).unwrap(), [0, 1, 2, 3]);
        assert!(parse_sms("x", 13).is_err());
        // An SM the chip does not have, alone or at a range's end (which
        // would otherwise be expanded, however far).
        let e = parse_sms("13", 13).unwrap_err().to_string();
        assert_eq!(e, "--trace-sms 13: no SM 13: the chip has 13 (0 to 12)");
        assert!(parse_sms("0-4000000000", 13).is_err());
    }
}
