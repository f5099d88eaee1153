//! The microbenchmark suite of `traces/micro` (`keplersim bench micro`), run on the
//! timing model and compared with what was measured on a real K20m (the
//! calibration facts). Each benchmark is a SASS template in keplersim's
//! assembler; this module fills in its `{NAME}` holes, assembles it, runs it
//! cycle by cycle, reads the SR_CLOCKLO values the kernel stored, and derives
//! the figure the way the paper did. The same runs can be written out as a
//! kit for a real card, and a card's results of the kit read back in their
//! place ([`crate::kit`]): the figures then come from the card, derived by
//! the same code.

use std::cell::{Cell, RefCell};
use std::path::Path;

use sim_core::config::Config;
use sim_core::func::Dims;
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_core::timing::{run_timed, Nobody, Stepping, Timed};
use sim_isa::cubin::{Cubin, CubinWriter};

use crate::kit::{self, CardResults, Kit, Launch, Param};
use crate::Error;

type Result<T> = std::result::Result<T, Error>;

/// An [`Error::Run`] with a formatted message.
macro_rules! fail {
    ($($t:tt)*) => { Error::Run(format!($($t)*)) };
}

/// What a row's figure is held to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A published K20m figure no parameter was set from: an independent
    /// check of the model.
    Checked,
    /// The figure (or documented fact) a parameter of `configs/k20m.ron` was
    /// set from: its band shows the parameter still reproduces it, and
    /// checks nothing else.
    Fitted,
    /// A relation the facts state (an order, a periodicity), checked.
    Property,
    /// The model's prediction, with nothing published to hold it to.
    Prediction,
}

impl Kind {
    /// The word the table prints.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Checked => "checked",
            Kind::Fitted => "fitted",
            Kind::Property => "property",
            Kind::Prediction => "prediction",
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub group: &'static str,
    pub name: String,
    /// What the figure is held to.
    pub kind: Kind,
    /// Measured on a K20m (the facts file), when published.
    pub measured: Option<f64>,
    pub simulated: f64,
    pub unit: &'static str,
    /// The allowed relative error (0.02 = 2%), or an absolute one in the
    /// unit when `absolute`.
    pub band: Option<f64>,
    pub absolute: bool,
    /// Whether the figure is inside its band (or the ordering claim holds).
    pub ok: bool,
}

impl Row {
    fn new(
        group: &'static str,
        name: impl Into<String>,
        simulated: f64,
        unit: &'static str,
    ) -> Row {
        Row {
            group,
            name: name.into(),
            measured: None,
            simulated,
            unit,
            band: None,
            absolute: false,
            ok: true,
            kind: Kind::Prediction,
        }
    }

    /// Held to a relation that `ok` says holds.
    fn property(mut self, ok: bool) -> Row {
        self.kind = Kind::Property;
        self.ok = ok;
        self
    }

    /// Within `band` (relative) of `measured`, a figure of `kind`.
    fn against(mut self, kind: Kind, measured: f64, band: f64) -> Row {
        self.kind = kind;
        self.measured = Some(measured);
        self.band = Some(band);
        self.ok = ((self.simulated - measured) / measured).abs() <= band;
        self
    }

    /// Within `cycles` (absolute) of `measured`, a figure of `kind`.
    fn within(mut self, kind: Kind, measured: f64, cycles: f64) -> Row {
        self.kind = kind;
        self.measured = Some(measured);
        self.band = Some(cycles);
        self.absolute = true;
        self.ok = (self.simulated - measured).abs() <= cycles;
        self
    }

    /// The error against the measured value, as printed.
    pub fn error(&self) -> String {
        match self.measured {
            Some(m) if self.absolute => format!("{:+.1}", self.simulated - m),
            Some(m) => format!("{:+.2}%", (self.simulated - m) / m * 100.0),
            None => "-".into(),
        }
    }
}

/// A one-dimensional launch: `blocks` blocks of `threads` threads, no
/// dynamic shared memory.
fn line_of(blocks: u32, threads: u32) -> Dims {
    Dims {
        grid: [blocks, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
    }
}

/// Fills `{NAME}` holes of `template` from `vars`.
fn fill(template: &str, vars: &[(&str, String)]) -> Result<String> {
    let mut s = template.to_string();
    for (k, v) in vars {
        s = s.replace(&format!("{{{k}}}"), v);
    }
    if let Some(i) = s.find('{').filter(|&i| !s[i..].starts_with("{i}")) {
        let end = s[i..].find('}').map_or(s.len(), |e| i + e + 1);
        return Err(fail!("template hole `{}` is not filled", &s[i..end]));
    }
    Ok(s)
}

/// One shared-memory load of a template's body: `mnem` into R`dst` from the
/// lane's address `a` plus `off` bytes.
fn lds_line(mnem: &str, dst: u32, off: u32) -> String {
    let addr = if off == 0 {
        "a".to_string()
    } else {
        format!("a+{off:#x}")
    };
    format!("        [0x20] {mnem} R{dst}, [{addr}];\n")
}

/// Where the suite's kernels run.
enum Target {
    /// On the timing model.
    Model,
    /// On the timing model, each launch recorded into a kit for a card.
    Record(RefCell<Kit>),
    /// Nowhere: a card's results of the kit stand in for each run, in order.
    Card(CardResults),
}

/// The suite's templates.
struct Suite {
    dir: std::path::PathBuf,
    config: Config,
    target: Target,
    /// The number of the next run (its place in a kit).
    next: Cell<usize>,
}

/// A run's stored clocks (start, end) per warp and the model's results (on
/// a card, none).
struct Clocks {
    pairs: Vec<(u32, u32)>,
    timed: Option<Timed>,
    /// The run's cycles measured around the whole launch, which a grid of
    /// more than one block on a card must use: its SMs' clocks are not one.
    whole: Option<f64>,
}

/// Cycles from the earliest start to the latest end of `pairs`.
fn span_of(pairs: &[(u32, u32)]) -> u32 {
    let start = pairs.iter().map(|p| p.0).min().unwrap_or(0);
    let end = pairs.iter().map(|p| p.1).max().unwrap_or(0);
    end.wrapping_sub(start)
}

impl Clocks {
    /// Cycles from the earliest start to the latest end.
    fn span(&self) -> f64 {
        self.whole.unwrap_or(span_of(&self.pairs) as f64)
    }
}

/// The (start, end) clock pairs an `out` buffer holds, a pair a warp; pairs
/// left at zero are warps that stored none.
fn clock_pairs(data: &[u8]) -> Vec<(u32, u32)> {
    data.chunks_exact(8)
        .map(|c| {
            (
                u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
                u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            )
        })
        .filter(|p| *p != (0, 0))
        .collect()
}

impl Suite {
    fn template(&self, name: &str) -> Result<String> {
        let p = self.dir.join(name);
        std::fs::read_to_string(&p).map_err(|e| Error::File {
            path: p.display().to_string(),
            msg: e.to_string(),
        })
    }

    /// Assembles `source` and runs kernel `kernel` on `dims` with an `out`
    /// buffer of `warps` clock pairs and the extra parameters `extra`
    /// (buffers by size, then 32-bit values).
    fn run(
        &self,
        file: &str,
        source: &str,
        dims: Dims,
        warps: usize,
        buffers: &[(&str, Vec<u8>)],
        ints: &[u32],
    ) -> Result<Clocks> {
        let kernels = sim_isa::asm::assemble_source(source)
            .map_err(|e| fail!("{file}:{}: {}", e.line, e.message))?;
        let mut w = CubinWriter::new();
        let name = kernels
            .first()
            .map(|k| k.name.clone())
            .ok_or_else(|| fail!("{file}: no kernel"))?;
        for k in kernels {
            w.add_kernel(k);
        }
        let bytes = w.to_bytes().map_err(|e| fail!("{file}: {e}"))?;
        let cubin = Cubin::parse(&bytes).map_err(|e| fail!("{file}: {e}"))?;
        let n = self.next.get();
        self.next.set(n + 1);
        if let Target::Card(card) = &self.target {
            return self.card_run(card, n, file, &name, &bytes, &dims);
        }
        let mut global = GlobalMem::new();
        let out = global.alloc("out", vec![0u8; warps * 8]);
        let mut params = out.to_le_bytes().to_vec();
        let mut places = vec![Param::Pointer {
            offset: 0,
            buffer: 0,
        }];
        let mut kit_buffers = vec![kit::Buffer {
            bytes: warps as u64 * 8,
            init: kit::Init::Zero,
        }];
        for (n, data) in buffers {
            let a = global.alloc(n, data.clone());
            if *n == "chase" {
                // A pointer chase: the first word holds its own address.
                global
                    .write(a, &(a as u32).to_le_bytes())
                    .map_err(|e| fail!("{e:?}"))?;
            }
            places.push(Param::Pointer {
                offset: params.len() as u32,
                buffer: kit_buffers.len(),
            });
            kit_buffers.push(kit::Buffer {
                bytes: data.len() as u64,
                init: if *n == "chase" {
                    kit::Init::Chase
                } else {
                    kit::Init::Zero
                },
            });
            params.extend_from_slice(&a.to_le_bytes());
        }
        for v in ints {
            places.push(Param::Word {
                offset: params.len() as u32,
                value: *v,
            });
            params.extend_from_slice(&v.to_le_bytes());
        }
        let prog = Program::load(&cubin, &name, &mut global).map_err(|e| fail!("{file}: {e}"))?;
        params.resize(prog.param_size as usize, 0);
        let timed = run_timed(
            Stepping::Turns,
            &prog,
            &mut global,
            &dims,
            &params,
            &self.config,
            1 << 40,
            &mut Nobody,
        )
        .map_err(|e| fail!("{file}: {e}"))?;
        let data = &global
            .get("out")
            .ok_or_else(|| fail!("no out buffer"))?
            .data;
        let pairs = clock_pairs(data);
        if pairs.is_empty() {
            return Err(fail!("{file}: the kernel stored no clocks"));
        }
        if let Target::Record(kit) = &self.target {
            kit.borrow_mut().push(
                Launch {
                    file: file.to_string(),
                    kernel: name,
                    cubin: bytes,
                    grid: dims.grid,
                    block: dims.block,
                    param_size: prog.param_size,
                    buffers: kit_buffers,
                    params: places,
                },
                data.clone(),
                span_of(&pairs) as u64,
            );
        }
        Ok(Clocks {
            pairs,
            timed: Some(timed),
            whole: None,
        })
    }

    /// Run `n` of a card's results, which must be the kernel the suite would
    /// run there now (`bytes` on `dims`): a kit made by another version of
    /// the suite cannot stand in for this one.
    fn card_run(
        &self,
        card: &CardResults,
        n: usize,
        file: &str,
        name: &str,
        bytes: &[u8],
        dims: &Dims,
    ) -> Result<Clocks> {
        let stale = |what: &str| {
            fail!(
                "{}: run {n:04} ({file}) {what} this keplersim's suite runs: make the kit again \
                 (`keplersim bench micro --kit DIR`) and run it on the card",
                card.dir.display()
            )
        };
        let l = card
            .launches
            .get(n)
            .ok_or_else(|| stale("is missing, though it is one"))?;
        if l.kernel != name || l.cubin != bytes || l.grid != dims.grid || l.block != dims.block {
            return Err(stale("is not the kernel"));
        }
        let pairs = clock_pairs(&card.outs[n]);
        if pairs.is_empty() {
            return Err(fail!(
                "{}: run {n:04} ({file}): the kernel stored no clocks on the card",
                card.dir.display()
            ));
        }
        // Each warp's clocks must be of this launch: a span of no cycles, or
        // of more than twice the cycles the whole launch took by CUDA's
        // events at the card's clock (room for a clock above the one the
        // driver reports), is not a kernel's start and end.
        let launch_cycles = card.ms[n] * card.device.clock_khz as f64;
        for (w, &(start, end)) in pairs.iter().enumerate() {
            let span = end.wrapping_sub(start);
            if span == 0 || span as f64 > 2.0 * launch_cycles {
                return Err(fail!(
                    "{}: run {n:04} ({file}): clock pair {w} spans {span} cycles (start {start}, \
                     end {end}), where the launch took {launch_cycles:.0} by CUDA's events: the \
                     out buffer does not hold the kernel's clocks (a damaged results/{n:04}.out, \
                     or a kernel that did not run as the kit says)",
                    card.dir.display()
                ));
            }
        }
        let whole = (l.blocks() > 1).then_some(launch_cycles);
        Ok(Clocks {
            pairs,
            timed: None,
            whole,
        })
    }

    /// `threads` threads, each a stream of coalesced 32-bit `LD.E` of its
    /// warp's own 128-byte line (an L2 hit after the first), four to an
    /// iteration, `iters` iterations (`lds_ld.sass` with no `LDS`).
    fn ld_stream(&self, threads: u32, iters: u32) -> Result<Clocks> {
        let mut body = String::new();
        for k in 0..4u32 {
            body.push_str(&format!("        [0x20] LD.E R{}, [R10];\n", 40 + k));
        }
        let src = fill(
            &self.template("lds_ld.sass")?,
            &[("BODY", body.trim_end().to_string())],
        )?;
        self.run(
            "lds_ld.sass",
            &src,
            line_of(1, threads),
            (threads / 32) as usize,
            &[("in", vec![0u8; threads as usize * 4])],
            &[iters],
        )
    }

    /// Cycles a step of one warp's chase through `lines` lines `stride`
    /// bytes apart takes, round and round (`l2_sets.sass`): four rounds
    /// over two, so that the first round's misses, in both, drop out.
    fn l2_chase(&self, lines: u32, stride: u32) -> Result<f64> {
        let mut round = String::new();
        for j in 0..lines {
            let next = (j + 1) % lines * stride;
            for ins in [
                "[0x20] LD.E R8, [R4]".to_string(),
                format!("[0x28] MOV32I R9, {next:#x}"),
                "[0x28] IADD R9, R8, R9".to_string(),
                "[0x28] IADD R4.CC, R6, R9".to_string(),
                "[0x28] IADD.X R5, R7, RZ".to_string(),
            ] {
                round.push_str(&format!("        {ins};\n"));
            }
        }
        let mut spans = [0.0; 2];
        for (i, rounds) in [2u32, 4].into_iter().enumerate() {
            let vars = [
                ("ROUND", round.trim_end().to_string()),
                ("ROUNDS", format!("{rounds:#x}")),
            ];
            let src = fill(&self.template("l2_sets.sass")?, &vars)?;
            let c = self.run(
                "l2_sets.sass",
                &src,
                line_of(1, 32),
                1,
                &[("in", vec![0u8; (lines * stride) as usize])],
                &[],
            )?;
            spans[i] = c.span();
        }
        Ok((spans[1] - spans[0]) / (2 * lines) as f64)
    }

    /// FP32 operations per clock per SM of a block of 1024 threads (8 warps
    /// per scheduler) running 36 groups of seven instructions per iteration.
    fn issue(&self, ins: [&str; 7], ctrl: [u8; 7], ops: u32) -> Result<f64> {
        Ok(self.issue_by(ins, ctrl, ops, 1024)?.0)
    }

    /// [`Suite::issue`] with a block of `threads` threads; also gives the
    /// run's counters (none on a card).
    fn issue_by(
        &self,
        ins: [&str; 7],
        ctrl: [u8; 7],
        ops: u32,
        threads: u32,
    ) -> Result<(f64, Option<Timed>)> {
        self.issue_looped(ins, ctrl, ops, threads, 0x28, 36)
    }

    /// [`Suite::issue_by`] with the loop counter's two instructions coded
    /// `loop_ctrl` and `groups` groups an iteration (a divisor of 1152: the
    /// loop runs 1152 groups in all).
    fn issue_looped(
        &self,
        ins: [&str; 7],
        ctrl: [u8; 7],
        ops: u32,
        threads: u32,
        loop_ctrl: u8,
        groups: u32,
    ) -> Result<(f64, Option<Timed>)> {
        const ALL_GROUPS: u32 = 1152;
        let iters = ALL_GROUPS / groups;
        let mut vars: Vec<(&str, String)> = vec![
            ("GROUPS", groups.to_string()),
            ("ITERS", iters.to_string()),
            ("CL", format!("{loop_ctrl:#04x}")),
        ];
        let names = ["I0", "I1", "I2", "I3", "I4", "I5", "I6"];
        let cnames = ["C0", "C1", "C2", "C3", "C4", "C5", "C6"];
        for k in 0..7 {
            vars.push((names[k], ins[k].to_string()));
            vars.push((cnames[k], format!("{:#04x}", ctrl[k])));
        }
        let src = fill(&self.template("issue.sass")?, &vars)?;
        let dims = line_of(1, threads);
        let warps = threads.div_ceil(32) as usize;
        let c = self.run("issue.sass", &src, dims, warps, &[], &[iters])?;
        Ok((
            threads as f64 * (groups * iters * ops) as f64 / c.span(),
            c.timed,
        ))
    }

    /// Cycles per iteration one access `x` (at `[R44]`, the lane's 16
    /// bytes) adds to a loop of 1-2-2-1 FFMA groups (`ldg_issue.sass`), coded
    /// `ctrl`, with `threads` threads: the loop with it against the loop with
    /// a `NOP` in its place.
    fn load_penalty(&self, x: &str, ctrl: u8, threads: u32) -> Result<f64> {
        const GROUPS: u32 = 11;
        const ITERS: u32 = 64;
        let mut spans = [0.0; 2];
        for (i, (x, cx)) in [("NOP", 0x05u8), (x, ctrl)].into_iter().enumerate() {
            let vars = [
                ("GROUPS", GROUPS.to_string()),
                ("X", x.to_string()),
                ("CX", format!("{cx:#04x}")),
            ];
            let src = fill(&self.template("ldg_issue.sass")?, &vars)?;
            let warps = threads.div_ceil(32) as usize;
            let input = vec![0u8; warps * 512];
            let c = self.run(
                "ldg_issue.sass",
                &src,
                line_of(1, threads),
                warps,
                &[("in", input)],
                &[ITERS],
            )?;
            spans[i] = c.span();
        }
        Ok((spans[1] - spans[0]) / ITERS as f64)
    }

    /// Cycles per instruction of a dependent chain of one warp: the
    /// difference between chains of 2N and N, over N.
    fn latency(&self, dep: &str, ctrl: u8, use_: &str) -> Result<f64> {
        let n = 32u32;
        let mut spans = [0.0; 2];
        for (i, len) in [n, 2 * n].into_iter().enumerate() {
            let vars = [
                ("N", len.to_string()),
                ("C", format!("{ctrl:#04x}")),
                ("DEP", dep.to_string()),
                ("USE", use_.to_string()),
            ];
            let src = fill(&self.template("latency.sass")?, &vars)?;
            let dims = line_of(1, 32);
            // The chased global word holds its own address.
            let c = self.run(
                "latency.sass",
                &src,
                dims,
                1,
                &[("chase", vec![0u8; 256])],
                &[],
            )?;
            spans[i] = c.span();
        }
        Ok((spans[1] - spans[0]) / n as f64)
    }
}

/// The orders of two dual and two single issues of six FFMAs, and the control
/// fields that ask for them (the group's seventh instruction pairs with a last
/// single FFMA, as in the paper's kernel).
fn order_fields(order: [u8; 4]) -> [u8; 7] {
    let mut f = [0x05u8; 7];
    let mut p = 0;
    for (k, &n) in order.iter().enumerate() {
        if n == 2 {
            f[p] = 0x04;
        } else if k == 3 {
            f[p] = 0x04; // the last single FFMA pairs with the seventh
        }
        p += n as usize;
    }
    f
}

/// Runs the suite on the model; `fast` leaves out the long streaming reads'
/// full size.
pub fn suite(root: &Path, config: &Config, fast: bool) -> Result<Vec<Row>> {
    run_suite(root, config, fast, Target::Model).map(|(rows, _)| rows)
}

/// Runs the suite on the model and records every launch into a kit for a
/// card ([`Kit::write`] writes it out).
pub fn suite_with_kit(root: &Path, config: &Config, fast: bool) -> Result<(Vec<Row>, Kit)> {
    let kit = Kit::new(kit::MICRO, fast, config.timing.shared_bank_bytes);
    let (rows, s) = run_suite(root, config, fast, Target::Record(RefCell::new(kit)))?;
    match s.target {
        Target::Record(kit) => Ok((rows, kit.into_inner())),
        Target::Model | Target::Card(_) => Err(fail!("the suite lost its kit")),
    }
}

/// The suite's figures from a card's results of its kit instead of the
/// model's runs, derived by the same code, at the card's clock and the
/// kit's shared bank width. The rows
/// that read the model's own counters are left out; the bands are the K20m's
/// and the model's parameters, as on the model.
pub fn suite_on_card(root: &Path, config: &Config, card: CardResults) -> Result<Vec<Row>> {
    if card.suite != kit::MICRO {
        return Err(fail!(
            "{}: a kit of `bench {}`, not of `bench micro`: read it with `keplersim bench {} \
             --card`",
            card.dir.display(),
            card.suite,
            card.suite
        ));
    }
    let mut config = *config;
    config.chip.clock_mhz = card.device.clock_khz as f64 / 1e3;
    config.timing.shared_bank_bytes = card.shared_bank_bytes;
    let (dir, fast, runs) = (card.dir.clone(), card.fast, card.launches.len());
    let (rows, s) = run_suite(root, &config, fast, Target::Card(card))?;
    let used = s.next.get();
    if used != runs {
        return Err(fail!(
            "{}: the kit has {runs} runs where this keplersim's suite has {used}: make the kit \
             again (`keplersim bench micro --kit DIR`) and run it on the card",
            dir.display()
        ));
    }
    Ok(rows)
}

/// Runs the suite on `target`; gives back the rows and the suite (its
/// target and the number of runs it made).
fn run_suite(
    root: &Path,
    config: &Config,
    fast: bool,
    target: Target,
) -> Result<(Vec<Row>, Suite)> {
    let s = Suite {
        dir: root.join("traces/micro"),
        config: *config,
        target,
        next: Cell::new(0),
    };
    let rows = suite_rows(&s, config, fast)?;
    Ok((rows, s))
}

/// The suite's rows, each run on `s`'s target, group by group.
fn suite_rows(s: &Suite, config: &Config, fast: bool) -> Result<Vec<Row>> {
    let mut rows = bank_rows(s)?;
    rows.extend(issue_rows(s)?);
    rows.extend(order_rows(s)?);
    rows.extend(reuse_rows(s)?);
    rows.extend(arbitration_rows(s)?);
    rows.extend(barrier_rows(s)?);
    rows.extend(ctrl_rows(s, config)?);
    rows.extend(latency_rows(s, config)?);
    rows.extend(shared_rows(s, config)?);
    rows.extend(stream_rows(s, config, fast)?);
    Ok(rows)
}

/// Single issue: every instruction coded `0x20`.
const SINGLE: [u8; 7] = [0x20; 7];

/// Six independent FFMAs that read one register of each of three banks
/// (R10..R15 = R4 * R1 + R0).
fn six_ffmas() -> Vec<String> {
    (0..6)
        .map(|k| format!("FFMA R{}, R4, R1, R0", 10 + k))
        .collect()
}

/// A 7-instruction group: the six of `ins`, then `last`.
fn group<'a>(ins: &'a [String], last: &'a str) -> [&'a str; 7] {
    [&ins[0], &ins[1], &ins[2], &ins[3], &ins[4], &ins[5], last]
}

/// The FFMA/FMUL operand-bank rows (single issue, 0x20).
fn bank_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // `conflict_2way` was set from FFMA R5, R2, R1, R0 and `conflict_3way`
    // from FFMA R5, R9, R3, R1; the rows with the same conflict on other
    // registers repeat those measurements, so they are fitted too. The FMUL
    // 2-way row (two sources) was not used.
    for (text, measured, kind) in [
        ("FFMA R5, R4, R1, R0", 127.50, Kind::Checked),
        ("FFMA R2, R4, R1, R0", 127.50, Kind::Checked),
        ("FFMA R5, R2, R1, R0", 119.18, Kind::Fitted),
        ("FFMA R3, R2, R1, R0", 119.18, Kind::Fitted),
        ("FFMA R5, R9, R3, R1", 94.52, Kind::Fitted),
        ("FFMA R11, R9, R3, R1", 94.52, Kind::Fitted),
        ("FMUL R4, R1, R0", 127.50, Kind::Checked),
        ("FMUL R4, R2, R0", 119.17, Kind::Checked),
    ] {
        let v = s.issue([text; 7], SINGLE, 7)?;
        rows.push(Row::new("banks", text, v, "ops/clk/SM").against(kind, measured, 0.02));
    }
    Ok(rows)
}

/// Single against dual issue (no conflicts, independent pairs, 1-2-2-1).
fn issue_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Single vs dual issue (no conflicts, independent pairs, 1-2-2-1).
    let dual = order_fields([1, 2, 2, 1]);
    for (op, args, single_m, dual_m) in [
        ("FFMA", "R4, R1, R0", 127.52, 186.35),
        ("FMUL", "R4, R1", 127.52, 186.35),
        ("FADD", "R4, R1", 127.52, 186.50),
    ] {
        let ins: Vec<String> = (0..6)
            .map(|k| format!("{op} R{}, {args}", 10 + k))
            .collect();
        let mut seven: [&str; 7] = ["NOP"; 7];
        for k in 0..6 {
            seven[k] = &ins[k];
        }
        let v = s.issue(
            [
                &ins[0], &ins[1], &ins[2], &ins[3], &ins[4], &ins[5], &ins[0],
            ],
            SINGLE,
            7,
        )?;
        rows.push(
            Row::new("issue", format!("{op} single"), v, "ops/clk/SM").against(
                Kind::Checked,
                single_m,
                0.02,
            ),
        );
        let v = s.issue(seven, dual, 6)?;
        rows.push(
            Row::new("issue", format!("{op} dual (1-2-2-1)"), v, "ops/clk/SM").against(
                Kind::Checked,
                dual_m,
                0.02,
            ),
        );
    }
    // Pairs laid out as the paper's published SGEMM lays them: the two
    // FFMAs of a pair share their A value, and the first reuses the B value
    // the instruction before it read, which leaves four reads. Each FFMA
    // reads three banks. In the first pair of each row the four are on four
    // banks; in the second row, as in half the pairs of the published order
    // and banks, two are on bank 1 (R3 and R11; R9 and R17 in the second
    // pair). The model counts a pair's reads together (a 2-way conflict a
    // pair); were a pair's instructions read apart (`pair_reads_together`
    // 0), the two rows would read alike on a card.
    let pairs = |c2: &'static str, c4: &'static str| {
        [
            "FFMA R20, R0, R4, R1",
            "FFMA R21, R2, R4, R3",
            c2,
            "FFMA R23, R8, R5, R9",
            c4,
            "FFMA R25, R10, R14, R15",
            "NOP",
        ]
    };
    let free = pairs("FFMA R22, R2, R5, R6", "FFMA R24, R8, R12, R13");
    let crossed = pairs("FFMA R22, R2, R5, R11", "FFMA R24, R8, R12, R17");
    for (threads, warps) in [(256, "2 warps/scheduler"), (128, "1 warp/scheduler")] {
        let mut both = [0.0; 2];
        for (k, (ins, what)) in [
            (free, "one bank each"),
            (crossed, "2-way across their FFMAs"),
        ]
        .into_iter()
        .enumerate()
        {
            both[k] = s.issue_by(ins, dual, 6, threads)?.0;
            rows.push(Row::new(
                "issue",
                format!("FFMA 1-2-2-1, pairs {what}, {warps}"),
                both[k],
                "ops/clk/SM",
            ));
        }
        rows.push(Row::new(
            "issue",
            format!("FFMA 1-2-2-1, pairs 2-way across / one bank each, {warps}"),
            both[1] / both[0],
            "ratio",
        ));
    }
    Ok(rows)
}

/// The six orders of 2 dual and 2 single issues per 7-instruction group.
fn order_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // The six orders of 2 dual and 2 single issues per 7-instruction group.
    let ins = six_ffmas();
    let seven = group(&ins, "NOP");
    let mut orders = Vec::new();
    for order in [
        [2, 2, 1, 1],
        [2, 1, 2, 1],
        [2, 1, 1, 2],
        [1, 2, 2, 1],
        [1, 2, 1, 2],
        [1, 1, 2, 2],
    ] {
        let v = s.issue(seven, order_fields(order), 6)?;
        orders.push((order, v));
    }
    let best = orders.iter().map(|o| o.1).fold(f64::MIN, f64::max);
    for (order, v) in &orders {
        let name = format!("order {}-{}-{}-{}", order[0], order[1], order[2], order[3]);
        let mut r = Row::new("orders", name, *v, "ops/clk/SM");
        if *order == [1, 2, 2, 1] {
            r = r.against(Kind::Checked, 186.35, 0.02);
            // And the best of the six, strictly.
            r.ok &= orders.iter().all(|(o, x)| o == order || *x < *v);
        } else {
            // Below the best (the facts: the other five orders are lower).
            r = r.property(*v < best);
        }
        rows.push(r);
    }
    Ok(rows)
}

/// Operand reuse, and what a conflict costs, under two warps per scheduler.
fn reuse_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Operand reuse under two warps per scheduler (256 threads, as the
    // ladder's kernels run): the 2-way row again. Where the operand
    // collector reuses only what the same warp read in the cycle before, two
    // warps issuing in turn lose the reuse and every FFMA conflicts, as with
    // eight; were there a reuse buffer per warp, consecutive FFMAs of a warp
    // would share their operands and none would. The model keeps the first
    // reading (the eight-warp rows measure conflicts, which a per-warp buffer
    // would hide); this row tells the two apart on hardware.
    for (text, threads) in [("FFMA R5, R2, R1, R0", 256), ("FFMA R5, R4, R1, R0", 256)] {
        let (v, _) = s.issue_by([text; 7], SINGLE, 7, threads)?;
        rows.push(Row::new(
            "reuse",
            format!("{text}, 2 warps/scheduler"),
            v,
            "ops/clk/SM",
        ));
    }
    // What a conflict costs under two warps per scheduler: 2-way FFMAs in
    // turn that share no register with the one before (R0 and R2, then R3
    // and R9), so no reuse reading can hide them. The model charges a
    // conflict to the scheduler (the fitted cycles, repaid where it would
    // otherwise issue): two warps issuing two cycles of three lose almost
    // nothing. Were a conflict to hold its own warp a cycle for each extra
    // read, every warp would issue once in four cycles, not three: 25% less.
    let (a, b) = ("FFMA R5, R2, R1, R0", "FFMA R7, R9, R3, R4");
    let (v, _) = s.issue_by([a, b, a, b, a, b, a], SINGLE, 7, 256)?;
    rows.push(Row::new(
        "reuse",
        "FFMA 2-way, no shared operand, 2 warps/scheduler",
        v,
        "ops/clk/SM",
    ));
    Ok(rows)
}

/// How the schedulers of a pair share their core group: under barriers, and
/// whatever the loop around the groups.
fn arbitration_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Shared-core arbitration under barriers: 1-2-2-1 FFMA groups, each
    // seventh instruction a BAR.SYNC, two warps per scheduler. Neither
    // scheduler of a pair may lag the other (their issue counts within 1%),
    // and the pair still dual-issues.
    let ins = six_ffmas();
    let with_bar = group(&ins, "BAR.SYNC 0x0");
    let (v, t) = s.issue_by(with_bar, order_fields([1, 2, 2, 1]), 6, 256)?;
    rows.push(Row::new(
        "arbitration",
        "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
        v,
        "ops/clk/SM",
    ));
    // (The schedulers' issue counts are the model's own: a card has no row.)
    if let Some(t) = t {
        let st = &t.stats;
        let balance = |a: usize, b: usize| {
            let (x, y) = (st.sched_issue[a] as f64, st.sched_issue[b] as f64);
            x.min(y) / x.max(y).max(1.0)
        };
        let worst = balance(0, 1).min(balance(2, 3));
        rows.push(
            Row::new(
                "arbitration",
                "pair balance: fewer issues / more",
                worst,
                "ratio",
            )
            .property(worst >= 0.99),
        );
    }
    // The turns hold whatever the code around the groups does: 1-2-2-1
    // (eight warps per scheduler) with the loop counter's two instructions
    // coded 0x26 to 0x2b. The K20m's 186 is one figure for one loop; a
    // pair that loses its turns whenever the loop shifts their phase gives
    // 177 to 179 here (`shared_group_arbitration` 1).
    let mut by_loop = Vec::new();
    for b in 0x26..=0x2bu8 {
        let (v, _) = s.issue_looped(
            group(&ins, "NOP"),
            order_fields([1, 2, 2, 1]),
            6,
            1024,
            b,
            36,
        )?;
        rows.push(Row::new(
            "arbitration",
            format!("1-2-2-1, loop counter coded {b:#04x}"),
            v,
            "ops/clk/SM",
        ));
        by_loop.push(v);
    }
    let lo = by_loop.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = by_loop.iter().copied().fold(0.0, f64::max);
    rows.push(
        Row::new(
            "arbitration",
            "1-2-2-1 whatever the loop: fewest / most",
            lo / hi,
            "ratio",
        )
        .property(lo / hi >= 0.99),
    );
    // Turns with fewer warps: 1-2-2-1 alone with two and four warps per
    // scheduler (the tuned 12x12 and 8x8 SGEMMs' occupancies), and with two
    // in a loop four times as long. With two warps the loop's counter and
    // branch (`0x28`, eleven cycles each) leave idle cycles the scheduler's
    // other warp cannot fill, and shift the pairs out of turns; the longer
    // loop has a quarter of those disturbances a group. The paper's SGEMM
    // runs two warps a scheduler and takes the group "in turn"; no K20m
    // figure is published for it. Each row's share of the pairs asked for
    // that issued apart is the model's own (a card counts no pairs).
    for (threads, groups) in [(256, 36), (512, 36), (256, 144)] {
        let (v, t) = s.issue_looped(
            group(&ins, "NOP"),
            order_fields([1, 2, 2, 1]),
            6,
            threads,
            0x28,
            groups,
        )?;
        let long = if groups == 36 {
            ""
        } else {
            ", 144 groups a loop"
        };
        rows.push(Row::new(
            "arbitration",
            format!("1-2-2-1, {} warps/scheduler{long}", threads / 128),
            v,
            "ops/clk/SM",
        ));
        if let Some(t) = t {
            let st = &t.stats;
            let apart: u64 = st.pairs_apart.iter().sum();
            rows.push(Row::new(
                "arbitration",
                format!(
                    "1-2-2-1, {} warps/scheduler{long}: pairs issued apart",
                    threads / 128
                ),
                100.0 * apart as f64 / (st.dual + apart).max(1) as f64,
                "% asked",
            ));
        }
    }
    Ok(rows)
}

/// How long a barrier takes to release.
fn barrier_rows(s: &Suite) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Barrier release: every instruction a BAR.SYNC of a 1024-thread block.
    let (v, _) = s.issue_by(["BAR.SYNC 0x0"; 7], SINGLE, 1, 1024)?;
    rows.push(Row::new(
        "barrier",
        "BAR.SYNC back to back, 32 warps",
        1024.0 / v,
        "cycles",
    ));
    Ok(rows)
}

/// The control-byte sweep and the properties the facts state of it.
fn ctrl_rows(s: &Suite, config: &Config) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // The control-byte sweep: FFMA throughput (8 warps per scheduler) and
    // latency (one warp, a dependent chain) for every value.
    for b in 0..=255u8 {
        let thr = s.issue(["FFMA R5, R4, R1, R0"; 7], [b; 7], 7)?;
        let lat = s.latency("FFMA R0, R0, R1, R6", b, "NOP")?;
        rows.push(Row::new(
            "ctrl",
            format!("{b:#04x} throughput"),
            thr,
            "ops/clk/SM",
        ));
        rows.push(Row::new("ctrl", format!("{b:#04x} latency"), lat, "cycles"));
    }
    // The sweep is periodic above 0x20 (the facts): every byte b >= 0x40 gives
    // the throughput and latency of b - 0x20. (The dependent chain's latency
    // is not monotone in bits 0-3: below the ALU latency the interlock holds
    // each instruction back; the two properties after this one say how.)
    let value = |name: String| {
        rows.iter()
            .find(|r| r.name == name)
            .map_or(f64::NAN, |r| r.simulated)
    };
    let mut periodic = true;
    for b in 0x40..=0xffu32 {
        for what in ["throughput", "latency"] {
            let (x, y) = (
                value(format!("{b:#04x} {what}")),
                value(format!("{:#04x} {what}", b - 0x20)),
            );
            periodic &= (x - y).abs() <= 1e-9 * x.abs().max(1.0);
        }
    }
    // Within a period, raising bits 0-3 does not raise throughput (by more
    // than 1%: with eight warps a scheduler hides small stalls, and the
    // loop's own instructions interleave a little differently).
    for b in 0x20..0x3fu32 {
        if b & 0xf == 0xf {
            continue;
        }
        let (t0, t1) = (
            value(format!("{b:#04x} throughput")),
            value(format!("{:#04x} throughput", b + 1)),
        );
        periodic &= t1 <= t0 * 1.01;
    }
    // 0x20|n holds the warp `issue_interval` + n cycles (i + n below): a
    // dependent chain whose stall covers the ALU latency issues an
    // instruction every i + n cycles; one whose stall is shorter reads the
    // result early, and the hardware's interlock holds it back
    // `interlock_cycles` from where it would have issued.
    let (mut spaced, mut held) = (true, true);
    let t = &config.timing;
    for n in 0..16u32 {
        let lat = value(format!("{:#04x} latency", 0x20 + n));
        let gap = t.issue_interval + n;
        if gap >= t.alu_latency {
            spaced &= lat == gap as f64;
        } else {
            // (within half a cycle: the chain crosses instruction groups)
            held &= (lat - (gap + t.interlock_cycles) as f64).abs() <= 0.5;
        }
    }
    rows.push(
        Row::new(
            "ctrl",
            "0x2n with i+n >= ALU latency: i+n cycles",
            spaced as u32 as f64,
            "yes/no",
        )
        .property(spaced),
    );
    rows.push(
        Row::new(
            "ctrl",
            "0x2n with i+n < ALU latency: i+n+interlock",
            held as u32 as f64,
            "yes/no",
        )
        .property(held),
    );
    rows.push(
        Row::new(
            "ctrl",
            "periodic above 0x20, bits 0-3 slow throughput",
            periodic as u32 as f64,
            "yes/no",
        )
        .property(periodic),
    );
    Ok(rows)
}

/// Each latency parameter read back through a whole kernel, and what an
/// LDG costs an FFMA loop.
fn latency_rows(s: &Suite, config: &Config) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Latencies. `alu_latency` (11) is the CUDA C Programming Guide's, and
    // ptxas's spacing of dependent ALU instructions (0x28) covers it with
    // `issue_interval` (3) + 8 cycles; `lds_latency` is from
    // the measured 28, `l2_latency` and `l1_latency` from the 188 and 32
    // cycles Arafa et al. (HPEC 2019) measured for a dependent load hitting
    // L2 and L1 on a GK110, `fp64_latency` from the 10 they measured for a
    // dependent DADD, and `ldg_cache_latency` is assumed: each row
    // reads back its parameter through a whole kernel (the pointer chase's
    // own instructions add the issue cycle and the TEXDEPBAR's), so each is
    // held to it.
    // The interlock: a dependent chain coded 0x20 reads each result 8
    // cycles early and is held back `interlock_cycles` (Mesa's 32) each time.
    let t = &config.timing;
    let held = s.latency("FFMA R0, R0, R1, R6", 0x20, "NOP")?;
    rows.push(
        Row::new(
            "latency",
            "FFMA chain coded 0x20 (interlock)",
            held,
            "cycles",
        )
        .within(
            Kind::Fitted,
            (t.issue_interval + t.interlock_cycles) as f64,
            0.5,
        ),
    );
    let ffma = s.latency("FFMA R0, R0, R1, R6", 0x28, "NOP")?;
    rows.push(Row::new("latency", "FFMA (0x28)", ffma, "cycles").within(
        Kind::Fitted,
        config.timing.alu_latency as f64,
        0.0,
    ));
    let lds = s.latency("LDS R8, [R8]", 0x20, "NOP")?;
    rows.push(Row::new("latency", "LDS", lds, "cycles").within(Kind::Fitted, 28.0, 2.0));
    let ld = s.latency("LD.E R6, [R6]", 0x20, "NOP")?;
    rows.push(Row::new("latency", "LD (L2 hit)", ld, "cycles").within(Kind::Fitted, 188.0, 2.0));
    let ldl = s.latency("LDL R8, [R8]", 0x20, "NOP")?;
    rows.push(Row::new("latency", "LDL (L1 hit)", ldl, "cycles").within(Kind::Fitted, 32.0, 2.0));
    let dadd = s.latency("DADD R0, R0, R2", 0x20, "NOP")?;
    rows.push(Row::new("latency", "DADD chain", dadd, "cycles").within(Kind::Fitted, 10.0, 2.0));
    let ldg = s.latency("LDG.E R6, [R6];\n        [0x20] TEXDEPBAR 0x0", 0x20, "NOP")?;
    rows.push(
        Row::new(
            "latency",
            "LDG + TEXDEPBAR (read-only cache hit)",
            ldg,
            "cycles",
        )
        .within(
            Kind::Fitted,
            (config.timing.ldg_cache_latency + config.timing.texdepbar_cycles) as f64,
            2.0,
        ),
    );
    // What one LDG.E.128 coded 0x20 costs a dense FFMA loop of one warp:
    // measured about 10 issue cycles on the K20m, which `ldg_issue_cycles`
    // was set from (its 0x20 byte alone would hold the warp three).
    let ldg = s.load_penalty("LDG.E.128 R20, [R44]", 0x20, 32)?;
    rows.push(
        Row::new("global", "LDG.E.128 in an FFMA loop, 1 warp", ldg, "cycles").within(
            Kind::Fitted,
            10.0,
            1.0,
        ),
    );
    // Two predictions of the same loop:
    // - With two warps a scheduler, each with its LDG: whether the hold is
    //   the scheduler's (no warp of it issues meanwhile, so each LDG costs
    //   the loop its ten cycles) or the LDG's warp's alone (the other warp
    //   issues in them, and the loop loses little more than the LDG's own
    //   issue). The one-warp row cannot tell the two apart.
    // - What a store that touches four lines (a lane's 4 bytes at a 16-byte
    //   stride) costs the loop coded 0x05, which lets the warp issue again
    //   the next cycle: each line beyond the first is issued again
    //   (`replay_issue_cycles`), so about 4 cycles if a replay takes its
    //   scheduler's issue slot, 2 if the load/store unit replays it alone.
    for (x, ctrl, threads, name) in [
        (
            "LDG.E.128 R20, [R44]",
            0x20,
            256,
            "LDG.E.128 in an FFMA loop, 2 warps/scheduler",
        ),
        (
            "ST.E [R44], R20",
            0x05,
            32,
            "ST.E on 4 lines in an FFMA loop, 1 warp (0x05)",
        ),
    ] {
        let cycles = s.load_penalty(x, ctrl, threads)?;
        rows.push(Row::new("global", name, cycles, "cycles"));
    }
    Ok(rows)
}

/// Shared-memory bandwidth: against volume and width, a broadcast, and
/// beside global loads.
fn shared_rows(s: &Suite, config: &Config) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // Shared-memory bandwidth against volume.
    let mut lds_best = [0.0f64; 3];
    for (i, (w, regs)) in [(4u32, 16u32), (8, 32), (16, 64)].into_iter().enumerate() {
        for iters in [4u32, 16, 64] {
            let mnem = match w {
                4 => "LDS",
                8 => "LDS.64",
                _ => "LDS.128",
            };
            let tpl = s.template("lds_bandwidth.sass")?;
            // The 16 loads of an iteration: lane l reads word l of row k.
            let mut body = String::new();
            let per = w / 4;
            for k in 0..16u32 {
                body.push_str(&lds_line(mnem, (k * per) % regs, k * 32 * w));
            }
            let tpl = tpl.replace(
                ".rep 16\n        [0x20] {LDS} R{DST}, [a+{OFF}];\n.endr\n",
                &body,
            );
            let src = fill(
                &tpl,
                &[
                    ("ITERS", iters.to_string()),
                    ("W", format!("{w:#x}")),
                    ("LDS", mnem.into()),
                    ("REGS", regs.to_string()),
                    ("USE", "NOP".into()),
                ],
            )?;
            let threads = 512u32;
            let dims = line_of(1, threads);
            let c = s.run("lds_bandwidth.sass", &src, dims, 16, &[], &[iters])?;
            let bytes = threads as f64 * iters as f64 * 16.0 * w as f64;
            let gbs = bytes / c.span() * config.chip.clock_mhz / 1e3;
            lds_best[i] = lds_best[i].max(gbs);
            let kb = threads * iters * 16 * w / 1024;
            rows.push(Row::new(
                "shared",
                format!("{mnem} {kb} KB"),
                gbs,
                "GB/s/SM",
            ));
        }
    }
    // A broadcast: every lane of a warp reads the same 8 bytes. The
    // shared-memory pipeline moves 8 distinct bytes: one instruction a
    // cycle if an instruction takes its bytes' share of a transaction's
    // time (the model's reading), 1 / 1.317 = 0.76 if every transaction
    // takes the whole. Tells the two readings apart on hardware.
    {
        let iters = 64u32;
        let mut body = String::new();
        for k in 0..16u32 {
            body.push_str(&lds_line("LDS.64", (2 * k) % 32, k * 8));
        }
        let tpl = s.template("lds_bandwidth.sass")?.replace(
            ".rep 16\n        [0x20] {LDS} R{DST}, [a+{OFF}];\n.endr\n",
            &body,
        );
        let src = fill(
            &tpl,
            &[
                ("ITERS", iters.to_string()),
                ("W", "0x0".into()),
                ("USE", "NOP".into()),
            ],
        )?;
        let dims = line_of(1, 512);
        let c = s.run("lds_bandwidth.sass", &src, dims, 16, &[], &[iters])?;
        let per_cycle = 16.0 * iters as f64 * 16.0 / c.span();
        rows.push(Row::new(
            "shared",
            "LDS.64 broadcast (one word a warp)",
            per_cycle,
            "instr/clk/SM",
        ));
    }
    // LDS.64 beside global loads: one coalesced 32-bit LD.E (a line, four
    // 32-byte sectors, an L2 hit) before every eight LDS.64, few enough that
    // the lines outstanding do not hold the loop back. Shared memory loses
    // what the LD holds the load/store unit for: a cycle at a line a cycle
    // (`global_lsu_bytes` 128), four at a sector a cycle (32). Tells the two
    // readings apart on hardware.
    {
        let iters = 64u32;
        let mut body = String::new();
        for k in 0..4u32 {
            body.push_str(&format!("        [0x20] LD.E R{}, [R10];\n", 40 + k));
            for j in 0..8u32 {
                body.push_str(&lds_line("LDS.64", 60 + (2 * (8 * k + j)) % 32, j * 0x100));
            }
        }
        let src = fill(
            &s.template("lds_ld.sass")?,
            &[("BODY", body.trim_end().to_string())],
        )?;
        let threads = 512u32;
        let dims = line_of(1, threads);
        let c = s.run(
            "lds_ld.sass",
            &src,
            dims,
            (threads / 32) as usize,
            &[("in", vec![0u8; threads as usize * 4])],
            &[iters],
        )?;
        let bytes = threads as f64 * iters as f64 * 32.0 * 8.0;
        let gbs = bytes / c.span() * config.chip.clock_mhz / 1e3;
        rows.push(Row::new(
            "shared",
            "LDS.64 beside LD.E (1 in 9)",
            gbs,
            "GB/s/SM",
        ));
        // The same run, warp by warp: who gets the load/store unit when the
        // schedulers of a pair both want it. Each warp's cycles from its
        // first clock to its last, the fastest warp's over the slowest's.
        // Where the scheduler a pair visits first takes the unit whenever
        // both want it (the model's reading), the other's warps wait until
        // the first's are done: about 0.5. An arbiter that serves the warp
        // that has waited longest gives about 1 (`unit_starvation_cycles:
        // 1`), as does one where the scheduler that took the unit last goes
        // last (`pair_rotation: 3`). The whole run takes about as long under
        // each.
        let spans: Vec<u32> = c.pairs.iter().map(|p| p.1.wrapping_sub(p.0)).collect();
        let fastest = spans.iter().copied().min().unwrap_or(0) as f64;
        let slowest = spans.iter().copied().max().unwrap_or(0).max(1) as f64;
        rows.push(Row::new(
            "shared",
            "LDS.64 beside LD.E: fastest warp / slowest",
            fastest / slowest,
            "ratio",
        ));
    }
    // The load/store unit between the two pairs of schedulers: two warps a
    // scheduler, each a stream of coalesced 32-bit LD.E (L2 hits), which
    // hold the unit four cycles each (`global_lsu_bytes` 32): an even
    // number. Each pair's cycles are its four warps' first clock to last,
    // summed; the slower pair's over the faster's. Where the pairs take
    // turns a cycle each (`pair_rotation` 1), the unit frees on the cycle
    // of the same parity every time, so the pair that went first at the
    // first contest goes first at every one: about 1.3, as with pair 0
    // always first (0). Where the pair that took the unit last goes second
    // (2 or 3), about 1.0. Tells the turns on the cycle from the turns on
    // the grant on hardware.
    {
        let c = s.ld_stream(256, 64)?;
        // Warp w runs on scheduler w % 4; pair 0 is schedulers 0 and 1.
        let mut pairs = [0.0f64; 2];
        for (w, p) in c.pairs.iter().enumerate() {
            pairs[w % 4 / 2] += p.1.wrapping_sub(p.0) as f64;
        }
        let (fast, slow) = (pairs[0].min(pairs[1]), pairs[0].max(pairs[1]));
        rows.push(Row::new(
            "shared",
            "LD.E, 2 warps/scheduler: slower pair / faster",
            slow / fast.max(1.0),
            "ratio",
        ));
    }
    // L2 hits through the SM's LD/ST request slots: sixteen warps, each a
    // stream of coalesced 32-bit LD.E of its own line (an L2 hit after the
    // first), four to an iteration, so far more lines are asked for than
    // the SM may have outstanding. Each line then takes a slot for the L2
    // hit's 188 cycles (measured), and the SM reads `ld_outstanding` lines
    // every 188 cycles or a little more: 9.98 GB/s/SM under 21, 10.46
    // under 22. The streaming read (`LD.128 stream`), whose lines miss L2,
    // cannot tell the two apart (74.30 and 77.73 GB/s against the measured
    // 76); this row can, on hardware.
    {
        let (threads, iters) = (512u32, 64u32);
        let c = s.ld_stream(threads, iters)?;
        let bytes = threads as f64 * iters as f64 * 4.0 * 4.0;
        rows.push(Row::new(
            "global",
            "LD.E L2 hits, 16 warps",
            bytes / c.span() * config.chip.clock_mhz / 1e3,
            "GB/s/SM",
        ));
    }
    // L2 sets: a chase through 32 lines 480 KB apart (3840 lines, a
    // multiple of 768 and of 640, the sets of a 1536 KB and of a 1280 KB
    // L2 of 16 ways). Taken modulo the sets, under either size, those lines
    // fall in one set, more than its ways, and the chase, round and round,
    // misses every time (LRU); with the address's higher bits folded onto
    // the index first (`l2_set_hash` 1) they spread, and every load after
    // the first round hits. A step's cycles are a load's latency and its
    // address arithmetic.
    rows.push(Row::new(
        "global",
        "LD.E chase, 32 lines 480 KB apart",
        s.l2_chase(32, 480 * 1024)?,
        "cycles",
    ));
    let (l32, l64, l128) = (lds_best[0], lds_best[1], lds_best[2]);
    // `shared_cycles_per_transaction` was set from the LDS.64 figure.
    rows.push(Row::new("shared", "LDS.64 best", l64, "GB/s/SM").against(Kind::Fitted, 137.0, 0.05));
    rows.push(
        Row::new(
            "shared",
            "LDS.64 above LDS.32 and LDS.128",
            l64 - l32.max(l128),
            "GB/s/SM",
        )
        .property(l64 > l32 && l64 > l128),
    );
    Ok(rows)
}

/// The streaming read of global memory, on both paths.
fn stream_rows(s: &Suite, config: &Config, fast: bool) -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    // The streaming read: 26 blocks x 512 threads, 4 words per thread per
    // load, at a stride of 4 x blockDim x gridDim words, 256 MB (64 MB when
    // fast).
    let mb: u64 = if fast { 64 } else { 256 };
    let threads = 26u64 * 512;
    let stride = 16 * threads;
    let bytes = mb << 20;
    let iters = (bytes / stride / 2) as u32;
    for (load, wait, measured) in [
        ("LDG.E.128", "TEXDEPBAR 0x0", 131.0),
        ("LD.E.128", "NOP", 76.0),
    ] {
        let src = fill(
            &s.template("stream.sass")?,
            &[
                ("LOAD", load.into()),
                ("WAIT", wait.into()),
                ("STRIDE", format!("{stride:#x}")),
                ("ITERS", iters.to_string()),
            ],
        )?;
        let dims = line_of(26, 512);
        let c = s.run(
            "stream.sass",
            &src,
            dims,
            (threads / 32) as usize,
            &[("in", vec![0u8; (stride * iters as u64 * 2) as usize])],
            &[iters],
        )?;
        let gbs = (stride * 2 * iters as u64) as f64 / c.span() * config.chip.clock_mhz / 1e3;
        let name = format!(
            "{} stream {} MB",
            load.trim_start_matches("LDG.E.")
                .trim_start_matches("LD.E."),
            mb
        );
        let name = if load.starts_with("LDG") {
            format!("LDG.{name}")
        } else {
            format!("LD.{name}")
        };
        let _ = &c.timed;
        // `ldg_outstanding` and `ld_outstanding` were set from these two
        // figures.
        rows.push(Row::new("global", name, gbs, "GB/s").against(Kind::Fitted, measured, 0.05));
    }
    Ok(rows)
}

/// How many of `rows` are of `kind`.
pub fn count(rows: &[Row], kind: Kind) -> usize {
    rows.iter().filter(|r| r.kind == kind).count()
}

/// How many of `rows` are outside their bands.
pub fn out_of_band(rows: &[Row]) -> usize {
    rows.iter().filter(|r| !r.ok).count()
}

/// Whether a table prints the row: of the control-byte sweep's predictions,
/// only the bytes 0x00-0x0f and 0x20-0x2f.
fn printed(group: &str, name: &str, prediction: bool) -> bool {
    !(group == "ctrl" && prediction && !(name.starts_with("0x2") || name.starts_with("0x0")))
}

/// The rows as the table `keplersim bench micro` prints, a line each (with
/// its newline) after a heading. Of the control-byte sweep's predictions,
/// only the bytes 0x00-0x0f and 0x20-0x2f are printed (the JSON has all).
pub fn table(rows: &[Row]) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<8} {:<34} {:>10} {:>10} {:>9}  {:<11} {:<10} band",
        "group", "benchmark", "measured", "simulated", "error", "unit", "kind"
    );
    for r in rows {
        if !printed(r.group, &r.name, r.kind == Kind::Prediction) {
            continue;
        }
        let _ = writeln!(
            t,
            "{:<8} {:<34} {:>10} {:>10.2} {:>9}  {:<11} {:<10} {}",
            r.group,
            r.name,
            r.measured.map_or("-".into(), |m| format!("{m:.2}")),
            r.simulated,
            r.error(),
            r.unit,
            r.kind.word(),
            match (r.kind, r.ok) {
                (Kind::Prediction, _) => "",
                (_, true) => "ok",
                (_, false) => "OUT OF BAND",
            }
        );
    }
    t
}

/// A row of the suite on a card beside the same row on the model.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Compared {
    pub group: &'static str,
    pub name: String,
    pub unit: &'static str,
    /// The figure the row is held to: measured on a K20m (the facts file),
    /// or the model's parameter the row reads back.
    pub held_to: Option<f64>,
    pub card: f64,
    pub model: f64,
    /// Whether the card's figure is inside the row's band (for rows held to
    /// one): a K20m should be, and a card that is not says the kit did not
    /// measure what the model's run did, or the card is not a K20m.
    pub card_ok: Option<bool>,
}

/// The rows of `card` with the rows of `model` of the same name beside them.
pub fn compare(model: &[Row], card: &[Row]) -> Vec<Compared> {
    card.iter()
        .filter_map(|c| {
            let m = model
                .iter()
                .find(|m| m.group == c.group && m.name == c.name)?;
            Some(Compared {
                group: c.group,
                name: c.name.clone(),
                unit: c.unit,
                held_to: c.measured,
                card: c.simulated,
                model: m.simulated,
                card_ok: (c.kind != Kind::Prediction).then_some(c.ok),
            })
        })
        .collect()
}

/// The comparison as `keplersim bench micro --card` prints it (of the
/// control-byte sweep, the bytes 0x00-0x0f and 0x20-0x2f, as [`table`]).
pub fn card_table(rows: &[Compared]) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "{:<11} {:<48} {:>9} {:>10} {:>10} {:>10}  {:<12} card in band",
        "group", "benchmark", "held to", "card", "model", "model-card", "unit"
    );
    for r in rows {
        if !printed(r.group, &r.name, r.card_ok.is_none()) {
            continue;
        }
        let diff = if r.card != 0.0 {
            format!("{:+.2}%", (r.model - r.card) / r.card.abs() * 100.0)
        } else {
            "-".into()
        };
        let _ = writeln!(
            t,
            "{:<11} {:<48} {:>9} {:>10.2} {:>10.2} {:>10}  {:<12} {}",
            r.group,
            r.name,
            r.held_to.map_or("-".into(), |m| format!("{m:.2}")),
            r.card,
            r.model,
            diff,
            r.unit,
            match r.card_ok {
                None => "",
                Some(true) => "yes",
                Some(false) => "NO",
            }
        );
    }
    t
}

/// A reading of the model and one prediction row that tells its values apart
/// on a card: the configuration fields, the row, and the row's figure on the
/// model under each setting of the fields the reading is read with.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Reading {
    /// The fields, joined by `/` when several are read together
    /// (`issue_interval/alu_latency`).
    pub field: String,
    pub row: &'static str,
    /// (the setting, its values joined as the fields are (`3/11`), the row's
    /// figure on the model under it); the configuration's own first.
    pub figures: Vec<(String, f64)>,
}

impl Reading {
    /// The settings `card`'s figure is nearest: the one whose figure is
    /// nearest, then any other whose figure is within [`APART`] of that one's
    /// (the row does not tell those apart), nearest first.
    pub fn nearer(&self, card: f64) -> Vec<&str> {
        let mut by: Vec<&(String, f64)> = self.figures.iter().collect();
        by.sort_by(|a, b| (a.1 - card).abs().total_cmp(&(b.1 - card).abs()));
        let Some(&&(_, best)) = by.first() else {
            return Vec::new();
        };
        by.into_iter()
            .filter(|f| (f.1 - best).abs() <= APART * best.abs())
            .map(|f| f.0.as_str())
            .collect()
    }
}

/// How far apart, as a share of the row, two settings' figures must be for a
/// card to tell them apart: 1%, fifty times what the K20m's own throughput
/// rows repeat to (the FFMA row measured in two of the paper's tables, 127.50
/// and 127.52 ops/clock/SM).
pub const APART: f64 = 0.01;

/// The readings that rest on no measurement, or on a documented figure a
/// card can check directly: the fields read together, the prediction rows
/// that would settle them (docs/microbenchmarks.md; several where no one row
/// tells every setting from the others), and the settings they are read
/// with (a value a field).
type Settings = &'static [&'static [u32]];
const READINGS: [(&[&str], &[&str], Settings); 16] = [
    (
        &["conflict_holds_warp"],
        &["FFMA 2-way, no shared operand, 2 warps/scheduler"],
        &[&[1], &[0]],
    ),
    (
        &["reuse_warps"],
        &["FFMA R5, R2, R1, R0, 2 warps/scheduler"],
        &[&[2], &[0]],
    ),
    // Read apart, the crossed pairs read as fast as the pairs on a bank each.
    (
        &["pair_reads_together"],
        &["FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler"],
        &[&[1], &[0]],
    ),
    // Each row tells one value from the other two: 2 with two warps, 1 with
    // four, 0 closed by barriers (where the losing scheduler lags).
    (
        &["shared_group_arbitration"],
        &[
            "1-2-2-1, 2 warps/scheduler",
            "1-2-2-1, 4 warps/scheduler",
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
        ],
        &[&[2], &[1], &[0]],
    ),
    (
        &["global_lsu_bytes"],
        &["LDS.64 beside LD.E (1 in 9)"],
        &[&[32], &[128]],
    ),
    (
        &["unit_starvation_cycles"],
        &["LDS.64 beside LD.E: fastest warp / slowest"],
        &[&[65536], &[1]],
    ),
    // The first row tells 0 from the others, the second 2 and 3 from 0
    // and 1, the third 3 from 2 (and 0 from 1).
    (
        &["pair_rotation"],
        &[
            "LDS.64 1024 KB",
            "LD.E, 2 warps/scheduler: slower pair / faster",
            "LDS.64 beside LD.E: fastest warp / slowest",
        ],
        &[&[1], &[0], &[2], &[3]],
    ),
    // Fitted by the streaming read, which 21 and 22 fit alike (74.3 and
    // 77.7 GB/s against 76).
    (
        &["ld_outstanding"],
        &["LD.E L2 hits, 16 warps"],
        &[&[21], &[22]],
    ),
    (
        &["shared_cycles_by_bytes"],
        &["LDS.64 broadcast (one word a warp)"],
        &[&[1], &[0]],
    ),
    (
        &["shared_replay_cycles"],
        &["LDS.128 2048 KB"],
        &[&[1], &[2]],
    ),
    // Documented (NVIDIA's Nsight: a replay takes an issue slot), and
    // checkable directly.
    (
        &["replay_issue_cycles"],
        &["ST.E on 4 lines in an FFMA loop, 1 warp (0x05)"],
        &[&[1], &[0]],
    ),
    // The paper's LDG figure is one warp's, which both fit.
    (
        &["ldg_hold_scope"],
        &["LDG.E.128 in an FFMA loop, 2 warps/scheduler"],
        &[&[0], &[1]],
    ),
    // Nothing measured tells how a line picks its L2 set.
    (
        &["l2_set_hash"],
        &["LD.E chase, 32 lines 480 KB apart"],
        &[&[0], &[1]],
    ),
    // 112: the texture cache hit measured on a GK110 (Arafa et al.).
    (
        &["ldg_cache_latency"],
        &["LDG + TEXDEPBAR (read-only cache hit)"],
        &[&[60], &[112]],
    ),
    // The paper's 16 against nouveau's 32.
    (&["unscheduled_stall"], &["0x00 latency"], &[&[16], &[32]]),
    // What 0x20 waits and when an ALU result can be read, read together, as
    // 0x28 before a dependent ALU instruction covers the latency exactly
    // under each but the second: the CUDA guide's 11; the 9 measured on a
    // GK110 with the interval kept; 2 and 10; Mesa's "N+1 cycles" and 9. The
    // first row tells the interval of 3 from the others; the second the
    // interval; the third the latency under an interval of 3.
    (
        &["issue_interval", "alu_latency"],
        &[
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            "0x28 latency",
            "0x26 latency",
        ],
        &[&[3, 11], &[3, 9], &[2, 10], &[1, 9]],
    ),
];

/// The field `name` of `t`.
fn field<'a>(t: &'a mut sim_core::config::Timing, name: &str) -> Option<&'a mut u32> {
    match name {
        "conflict_holds_warp" => Some(&mut t.conflict_holds_warp),
        "reuse_warps" => Some(&mut t.reuse_warps),
        "pair_reads_together" => Some(&mut t.pair_reads_together),
        "shared_group_arbitration" => Some(&mut t.shared_group_arbitration),
        "global_lsu_bytes" => Some(&mut t.global_lsu_bytes),
        "unit_starvation_cycles" => Some(&mut t.unit_starvation_cycles),
        "pair_rotation" => Some(&mut t.pair_rotation),
        "ld_outstanding" => Some(&mut t.ld_outstanding),
        "shared_cycles_by_bytes" => Some(&mut t.shared_cycles_by_bytes),
        "shared_replay_cycles" => Some(&mut t.shared_replay_cycles),
        "replay_issue_cycles" => Some(&mut t.replay_issue_cycles),
        "ldg_cache_latency" => Some(&mut t.ldg_cache_latency),
        "ldg_hold_scope" => Some(&mut t.ldg_hold_scope),
        "l2_set_hash" => Some(&mut t.l2_set_hash),
        "unscheduled_stall" => Some(&mut t.unscheduled_stall),
        "issue_interval" => Some(&mut t.issue_interval),
        "alu_latency" => Some(&mut t.alu_latency),
        _ => None,
    }
}

/// A setting's values as `--card` prints them: `3/11`.
fn label(values: &[u32]) -> String {
    let v: Vec<String> = values.iter().map(u32::to_string).collect();
    v.join("/")
}

/// Each reading's rows on the model under `config` (`rows`, its suite) and
/// under each of its other settings (the suite run again with only those
/// fields changed): a [`Reading`] a row.
pub fn readings(root: &Path, config: &Config, fast: bool, rows: &[Row]) -> Result<Vec<Reading>> {
    let figure = |rows: &[Row], name: &str| {
        rows.iter()
            .find(|r| r.name == name)
            .map(|r| r.simulated)
            .ok_or_else(|| fail!("the suite has no row `{name}`"))
    };
    let mut out = Vec::new();
    for (fields, names, settings) in READINGS {
        let mut c = *config;
        let own: Vec<u32> = fields
            .iter()
            .map(|f| field(&mut c.timing, f).map(|v| *v))
            .collect::<Option<_>>()
            .ok_or_else(|| fail!("no field among {fields:?}"))?;
        let mut figures: Vec<Vec<(String, f64)>> = names
            .iter()
            .map(|row| Ok(vec![(label(&own), figure(rows, row)?)]))
            .collect::<Result<_>>()?;
        for &setting in settings.iter().filter(|&&s| s != own.as_slice()) {
            let mut c = *config;
            for (f, &v) in fields.iter().zip(setting) {
                *field(&mut c.timing, f).ok_or_else(|| fail!("no field {f}"))? = v;
            }
            let under = suite(root, &c, fast)?;
            for (row, f) in names.iter().zip(&mut figures) {
                f.push((label(setting), figure(&under, row)?));
            }
        }
        for (row, figures) in names.iter().zip(figures) {
            out.push(Reading {
                field: fields.join("/"),
                row,
                figures,
            });
        }
    }
    Ok(out)
}

/// The settings a card is nearer, as `--card` prints them: `2`, `0 or 1`.
fn nearer(settings: &[&str]) -> String {
    match settings.split_last() {
        None => "-".into(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// What a card's figures say of a reading: on one of its rows, or (`row`
/// none) on all of them together, when it has several.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Verdict {
    pub field: String,
    /// The row, or none for the reading's rows together.
    pub row: Option<&'static str>,
    /// The row's figure on the card (none for the rows together).
    pub card: Option<f64>,
    /// The settings the card is nearer, nearest first; for the rows
    /// together, those it is nearer on every row the card ran (empty: none).
    pub nearer: Vec<String>,
    /// For the rows together: whether the card ran every one of them.
    pub all_rows: bool,
}

/// The verdicts on `readings` of the card's rows `card`: one a row the card
/// ran, then after a reading's last row, when it has several, one for its
/// rows together.
pub fn verdicts(readings: &[Reading], card: &[Row]) -> Vec<Verdict> {
    let on_card = |name: &str| card.iter().find(|c| c.name == name).map(|c| c.simulated);
    let owned = |v: Vec<&str>| v.into_iter().map(String::from).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (i, r) in readings.iter().enumerate() {
        if let Some(v) = on_card(r.row) {
            out.push(Verdict {
                field: r.field.clone(),
                row: Some(r.row),
                card: Some(v),
                nearer: owned(r.nearer(v)),
                all_rows: true,
            });
        }
        let rows: Vec<&Reading> = readings.iter().filter(|o| o.field == r.field).collect();
        let last = readings[i + 1..].iter().all(|o| o.field != r.field);
        if rows.len() < 2 || !last {
            continue;
        }
        let ran: Vec<Vec<&str>> = rows
            .iter()
            .filter_map(|o| on_card(o.row).map(|c| o.nearer(c)))
            .collect();
        let Some((first, rest)) = ran.split_first() else {
            continue;
        };
        let both: Vec<&str> = first
            .iter()
            .filter(|x| rest.iter().all(|near| near.contains(x)))
            .copied()
            .collect();
        out.push(Verdict {
            field: r.field.clone(),
            row: None,
            card: None,
            nearer: owned(both),
            all_rows: ran.len() == rows.len(),
        });
    }
    out
}

/// What the card says of each reading, as `keplersim bench micro --card`
/// prints it: the row's figure on the card, on the model under each setting
/// of the fields, and the settings the card is nearer ([`verdicts`]); then
/// the latencies the card measured beside `l2_latency`, `l1_latency` and
/// `fp64_latency`.
pub fn readings_table(readings: &[Reading], card: &[Row], config: &Config) -> String {
    use std::fmt::Write;
    let mut t = String::new();
    let _ = writeln!(
        t,
        "the readings these rows settle (the card; the model under each setting of the fields):"
    );
    for v in verdicts(readings, card) {
        let names: Vec<&str> = v.nearer.iter().map(String::as_str).collect();
        let near = nearer(&names);
        match (v.row, v.card) {
            (Some(row), Some(c)) => {
                let under: Vec<String> = readings
                    .iter()
                    .filter(|r| r.field == v.field && r.row == row)
                    .flat_map(|r| r.figures.iter())
                    .map(|(value, f)| format!("{value}: {f:.2}"))
                    .collect();
                let _ = writeln!(
                    t,
                    "  {:<26} {row:<50} card {c:.2}; {}; nearer {near}",
                    v.field,
                    under.join(", "),
                );
            }
            _ => {
                let together = if v.all_rows {
                    let n = readings.iter().filter(|r| r.field == v.field).count();
                    format!("the {n} rows together")
                } else {
                    "the rows the card ran, together".into()
                };
                let near = if v.nearer.is_empty() {
                    "none on every row".into()
                } else {
                    near
                };
                let _ = writeln!(t, "  {:<26} {together:<50} nearer {near}", v.field);
            }
        }
    }
    let on_card = |name: &str| card.iter().find(|c| c.name == name).map(|c| c.simulated);
    // The latencies measured on another GK110, which the card measures on
    // itself.
    for (field, row, model) in [
        ("l2_latency", "LD (L2 hit)", config.timing.l2_latency),
        ("l1_latency", "LDL (L1 hit)", config.timing.l1_latency),
        ("fp64_latency", "DADD chain", config.timing.fp64_latency),
    ] {
        if let Some(v) = on_card(row) {
            let _ = writeln!(
                t,
                "  {field:<26} {row:<50} card {v:.1} cycles; the model's {model}"
            );
        }
    }
    t
}
