//! Sampled simulation (`keplersim run --sample`): a large grid's cycles
//! predicted from its first waves, with a bound, instead of simulated to the
//! end. docs/sampling.md gives the method and its assumptions.
//!
//! The sample is the whole run's own beginning: the grid runs as it would in
//! full (every block dispatched as in the whole run) and is stopped once its
//! first `waves` waves of blocks have finished, so every cycle simulated is a
//! cycle of the whole run. From the blocks' finishes (which SM, which cycle)
//! the ledger works out each block's duration; the first wave's are cold, the
//! later ones steady. The rest of the grid is projected by the dispatcher's
//! own rule (a block finishing on an SM in cycle t frees its slot for the
//! grid's next block in t + 1), every block still to finish taking the mean
//! steady duration: that is the estimate. The same projection with every such
//! block at the shortest and at the longest duration of any block the sample
//! ran gives the bound; at its low end the last blocks, which run as SMs fall
//! idle, may be as short as a block alone on one SM (a second, short run).

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};

use sim_core::config::Config;
use sim_core::launch::spec::{Num, Reference};
use sim_core::launch::{self, Buffer, Mode, Outcome, Resolved};
use sim_core::timing::{Control, Progress, Stepping};
use sim_isa::cubin::Cubin;

use crate::Error;

/// What `--sample` simulates of a grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Waves of blocks simulated (a wave: as many blocks as the chip holds
    /// at once), the first of them cold; at least 2.
    pub waves: u64,
}

impl Default for Plan {
    /// Two waves: the cold first and one in steady state.
    fn default() -> Plan {
        Plan { waves: 2 }
    }
}

impl FromStr for Plan {
    type Err = Error;

    /// `""` (the default plan) or `waves=N`, N from 2.
    fn from_str(s: &str) -> Result<Plan, Error> {
        let s = s.trim();
        if s.is_empty() {
            return Ok(Plan::default());
        }
        let bad = |m: String| Err(Error::Run(format!("`{s}`: {m}")));
        let Some((key, value)) = s.split_once('=') else {
            return bad("expected waves=N (N at least 2), or nothing for 2 waves".into());
        };
        if key.trim() != "waves" {
            return bad(format!(
                "no option `{}`; the option is waves=N (N at least 2)",
                key.trim()
            ));
        }
        match value.trim().parse::<u64>() {
            Ok(n) if n >= 2 => Ok(Plan { waves: n }),
            Ok(n) => bad(format!(
                "{n} waves: at least 2 (the first, cold wave and one in steady state)"
            )),
            Err(_) => bad(format!("`{}` is not a whole number of waves", value.trim())),
        }
    }
}

/// Each block's duration as the chip finishes them: rebuilt from the
/// finishes a run's [`Progress`] hook hears (which block, on which SM, in
/// which cycle), by the dispatcher's rule (the first wave starts in cycle
/// 0, SM after SM, the blocks in the grid's order; a block finishing on an
/// SM in cycle t is replaced there in t + 1 by the grid's next).
#[derive(Debug, Clone)]
pub struct Ledger {
    /// Per SM, its resident blocks (start cycle, place in the grid's
    /// order), oldest first.
    running: Vec<VecDeque<(u64, u64)>>,
    /// The grid's size in blocks, x, y and z.
    grid: [u32; 3],
    /// Blocks of the grid not yet started.
    left: u64,
    /// The place in the grid's order (x fastest, then y, then z) of the
    /// next block to start.
    next: u64,
    /// Blocks finished.
    done: u64,
    /// The cycle of the last finish heard.
    last: u64,
    /// Durations (cycles, start to finish inclusive) of the blocks that
    /// started in cycle 0, and of the others.
    pub cold: Vec<u64>,
    pub steady: Vec<u64>,
    /// Every block finished, in the order heard.
    pub finished: Vec<Finished>,
}

/// A block the ledger heard finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Finished {
    /// Its place in the grid's order: x fastest, then y, then z.
    pub index: u64,
    pub sm: u32,
    /// The cycle it started in, and its cycles, start to finish inclusive.
    pub start: u64,
    pub cycles: u64,
}

impl Ledger {
    /// A grid of `grid` blocks (x, y, z) on `sms` SMs holding `slots`
    /// blocks each.
    pub fn new(grid: [u32; 3], sms: u32, slots: u32) -> Ledger {
        let blocks = grid.iter().map(|&g| g as u64).product::<u64>();
        let sms = (sms as u64).min(blocks).max(1);
        let mut running = vec![VecDeque::new(); sms as usize];
        let mut left = blocks;
        let mut next = 0;
        // The first wave: SMs in turn, a block each, until all are full.
        'fill: for _ in 0..slots {
            for q in running.iter_mut() {
                if left == 0 {
                    break 'fill;
                }
                q.push_back((0, next));
                left -= 1;
                next += 1;
            }
        }
        Ledger {
            running,
            grid,
            left,
            next,
            done: 0,
            last: 0,
            cold: Vec::new(),
            steady: Vec::new(),
            finished: Vec::new(),
        }
    }

    /// Hears a finish: `p.done` blocks are done, the latest block `p.block`
    /// on SM `p.sm` in cycle `p.cycle`.
    pub fn heard(&mut self, p: &Progress) {
        let n = p.done.saturating_sub(self.done);
        self.done = p.done;
        self.last = p.cycle;
        let index = sim_core::func::block_index(self.grid, p.block);
        let Some(q) = self.running.get_mut(p.sm as usize) else {
            return;
        };
        // Its SM's blocks need not finish in the order they started.
        if let Some(at) = q.iter().position(|&(_, i)| i == index) {
            let (s, _) = q.remove(at).unwrap_or_default();
            let d = p.cycle + 1 - s;
            if s == 0 {
                self.cold.push(d);
            } else {
                self.steady.push(d);
            }
            self.finished.push(Finished {
                index,
                sm: p.sm,
                start: s,
                cycles: d,
            });
        }
        for _ in 0..n.min(self.left) {
            q.push_back((p.cycle + 1, self.next));
            self.left -= 1;
            self.next += 1;
        }
    }

    /// Blocks finished so far.
    pub fn done(&self) -> u64 {
        self.done
    }

    /// The grid's end (its cycle count: the last finish's cycle + 1) if
    /// every block still to finish takes `d` cycles, dispatched by the
    /// chip's rule. A block already running ends no earlier than the cycle
    /// after the last finish heard.
    pub fn project(&self, d: u64) -> u64 {
        self.project_tail(d, d)
    }

    /// [`Ledger::project`], with the last block of each of the chip's
    /// block slots (those running once no block is left to start, as SMs
    /// fall idle) taking `tail` cycles instead. Which blocks are last does
    /// not depend on `tail`: none of them frees a slot for another.
    pub fn project_tail(&self, d: u64, tail: u64) -> u64 {
        let (d, tail) = (d.max(1), tail.max(1));
        let last = self.last;
        let ends = |s: u64, d: u64| (s + d - 1).max(last + 1);
        // (its end at `d`, its slot, its start)
        let mut heap: BinaryHeap<Reverse<(u64, usize, u64)>> = self
            .running
            .iter()
            .enumerate()
            .flat_map(|(i, q)| q.iter().map(move |&(s, _)| Reverse((ends(s, d), i, s))))
            .collect();
        let mut left = self.left;
        let mut end = self.last;
        while let Some(Reverse((e, i, s))) = heap.pop() {
            if left > 0 {
                end = end.max(e);
                left -= 1;
                heap.push(Reverse((e + d, i, e + 1)));
            } else {
                end = end.max(ends(s, tail));
            }
        }
        end + 1
    }
}

/// A grid's predicted cycles and the bound.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Estimate {
    /// The projection with every block still to finish at the mean steady
    /// duration.
    pub cycles: u64,
    /// The projection at the shortest and the longest duration of any block
    /// sampled, first wave or later; at the low end, the last block of each
    /// slot at the shortest of those and of a block alone on the chip.
    pub low: u64,
    pub high: u64,
    /// The steady durations' mean and how many; the shortest and longest of
    /// all sampled blocks.
    pub mean: f64,
    pub steady_blocks: u64,
    pub shortest: u64,
    pub longest: u64,
    /// The shortest duration of a block alone on the chip, when measured.
    pub alone: Option<u64>,
}

impl Estimate {
    /// From a ledger with at least one steady block, and the shortest
    /// duration of a block alone on the chip if measured; `None` without a
    /// steady block.
    pub fn of(ledger: &Ledger, alone: Option<u64>) -> Option<Estimate> {
        let s = &ledger.steady;
        let every = || ledger.cold.iter().chain(s);
        let (&lo, &hi) = (every().min()?, every().max()?);
        if s.is_empty() {
            return None;
        }
        let mean = s.iter().sum::<u64>() as f64 / s.len() as f64;
        Some(Estimate {
            cycles: ledger.project(mean.round() as u64),
            low: ledger.project_tail(lo, alone.map_or(lo, |a| a.min(lo))),
            high: ledger.project(hi),
            mean,
            shortest: lo,
            longest: hi,
            alone,
            steady_blocks: s.len() as u64,
        })
    }

    /// The bound as fractions of the estimate: (below, above), both >= 0.
    pub fn relative(&self) -> (f64, f64) {
        let c = self.cycles.max(1) as f64;
        (
            (self.cycles as f64 - self.low as f64) / c,
            (self.high as f64 - self.cycles as f64) / c,
        )
    }
}

/// A sampled run.
pub struct Sampled {
    /// The run: the whole grid's beginning, stopped after the sample (its
    /// `timed.partial` says so), or the whole grid when it is too small to
    /// gain from sampling (then exact and checked).
    pub outcome: Outcome,
    /// The blocks of the grid, of a wave (SMs x blocks per SM), and the
    /// waves the plan asked for and the waves sampled.
    pub grid_blocks: u64,
    pub wave: u64,
    pub plan: Plan,
    pub waves: u64,
    /// Each block's duration as far as the sample ran.
    pub ledger: Ledger,
    /// `None` when the grid ran in full.
    pub estimate: Option<Estimate>,
    /// A sampled run's checked buffers whose reference can be computed for
    /// part of the buffer (the SGEMM's): what the finished blocks wrote,
    /// held to it.
    pub written: Vec<Written>,
    /// A sampled run's checked buffers not held to anything.
    pub unchecked: Vec<String>,
}

impl Sampled {
    /// Whether the whole grid ran (its cycles are exact and its outputs
    /// checked).
    pub fn whole(&self) -> bool {
        self.estimate.is_none()
    }
}

/// The fewest later (steady) blocks a sample holds, so that the bound's
/// range rests on a wave's worth of blocks, not one or two (12 independent
/// durations would miss their median with a chance of 2 x 2^-12; a wave's
/// blocks are not independent, which is why the bound also takes the first
/// wave's).
pub const MIN_STEADY: u64 = 12;

/// Runs `r` (its kernel in `cubin`) sampled on `config`: its first
/// `plan.waves` waves (more when a wave holds fewer than [`MIN_STEADY`]
/// blocks), stopped there, and the estimate of the whole grid. A grid of no
/// more than one wave past the sample runs whole.
pub fn run(
    cubin: &Cubin,
    r: &Resolved,
    config: &Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    plan: Plan,
) -> Result<Sampled, Error> {
    let slots = blocks_per_sm(cubin, r, config)?;
    let grid_blocks = r.dims.blocks();
    let sms = (config.chip.sms as u64).min(grid_blocks).max(1) as u32;
    let wave = sms as u64 * slots as u64;
    let waves = plan.waves.max(1 + MIN_STEADY.div_ceil(wave));
    let sampling = grid_blocks > (waves + 1) * wave;
    let until = waves * wave;
    let stop = AtomicBool::new(false);
    let mut ledger = Ledger::new(r.dims.grid, sms, slots);
    let mut hook = |p: &Progress| {
        // A finish heard after the stop was asked for (a lone SM runs on to
        // its next turn) is not the whole run's: with no blocks past
        // `max_blocks` to take, its SM may have gone idle.
        if stop.load(Ordering::Relaxed) {
            return;
        }
        ledger.heard(p);
        if sampling && p.done >= until {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let mut ctl = Control {
        // The wave after the sample keeps every SM busy to its end, as in
        // the whole run; no block past it is ever needed.
        max_blocks: sampling.then_some(until + wave),
        stop: Some(&stop),
        progress: Some(&mut hook),
        ..Control::default()
    };
    let outcome = launch::execute_controlled(
        cubin,
        r,
        Mode::Timed(Stepping::Turns),
        config,
        read,
        &mut sim_core::timing::Nobody,
        &mut ctl,
    )
    .map_err(|e| Error::Run(e.to_string()))?;
    let partial = outcome.timed.as_ref().is_some_and(|t| t.partial.is_some());
    let estimate = if partial {
        let alone = alone(cubin, r, config, read, slots)?;
        Some(Estimate::of(&ledger, alone).ok_or_else(|| {
            Error::Run("the sample finished no block after the first wave".into())
        })?)
    } else {
        None
    };
    let (mut written, mut unchecked) = (Vec::new(), Vec::new());
    for c in r.checks.iter().filter(|_| partial) {
        let got = outcome.finals.iter().find(|b| b.name == c.buffer);
        match (got, sgemm_params(c, r)) {
            (Some(got), Some((inputs, params))) => {
                written.push(sgemm_written(&c.buffer, &inputs, &params, r, got)?)
            }
            _ => unchecked.push(c.buffer.clone()),
        }
    }
    Ok(Sampled {
        outcome,
        grid_blocks,
        wave,
        plan,
        waves,
        ledger,
        estimate,
        written,
        unchecked,
    })
}

/// What a sampled run's finished blocks wrote to a checked buffer, held to
/// the reference element by element.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub buffer: String,
    /// Elements of the buffer, and those the run changed (the finished
    /// blocks' outputs; a value written equal to the old one is not seen).
    pub elements: u64,
    pub changed: u64,
    /// Of the changed elements, those checked (all of them, unless that
    /// would cost more than [`CHECK_BUDGET`]: then every `stride`-th column
    /// of them), those that differ from the reference, and the first that
    /// does (element index, got, expected).
    pub checked: u64,
    pub stride: u64,
    pub mismatches: u64,
    pub first: Option<(usize, f32, f32)>,
}

/// Multiply-adds the check of the written elements may cost (about a second
/// or two on one core); past it, it checks every n-th column.
pub const CHECK_BUDGET: u64 = 1 << 34;

/// The check's inputs and evaluated parameters, if it is the built-in SGEMM
/// reference (the only one whose outputs are checked part by part).
#[allow(clippy::type_complexity)]
fn sgemm_params(
    c: &sim_core::launch::spec::CheckSpec,
    r: &Resolved,
) -> Option<(Vec<String>, BTreeMap<String, i64>)> {
    let Reference::Builtin {
        name,
        inputs,
        params,
    } = &c.reference
    else {
        return None;
    };
    if name != "sgemm" || inputs.len() != 3 || inputs[2] != c.buffer {
        return None;
    }
    // As `launch::check` evaluates them.
    let mut p = r.vars.clone();
    for (k, v) in params {
        if let Num::Lit(v) = v {
            p.insert(k.clone(), *v);
        }
    }
    Some((inputs.clone(), p))
}

/// Holds the elements of C that a partial SGEMM changed to the built-in
/// reference: the changed elements of each column form a run of rows (a
/// block's tile); columns with the same run are one smaller SGEMM (those
/// rows of op(A), those columns of op(B) and C), which the reference
/// computes in the same order of k.
fn sgemm_written(
    buffer: &str,
    inputs: &[String],
    p: &BTreeMap<String, i64>,
    r: &Resolved,
    got: &Buffer,
) -> Result<Written, Error> {
    let err = |m: String| Error::Run(format!("check of `{buffer}` on the sample: {m}"));
    let get = |k: &str, d: i64| p.get(k).copied().unwrap_or(d);
    let dim = |k: &str| match p.get(k) {
        Some(&v) if (0..1 << 31).contains(&v) => Ok(v as usize),
        _ => Err(err(format!("parameter `{k}` is missing or not a size"))),
    };
    let (m, n, k) = (dim("m")?, dim("n")?, dim("k")?);
    let (ta, tb) = (get("trans_a", 0) != 0, get("trans_b", 0) != 0);
    let row_major = get("row_major", 0) != 0;
    let (ar, ac) = if ta { (k, m) } else { (m, k) };
    let (br, bc) = if tb { (n, k) } else { (k, n) };
    let natural = |rows: usize, cols: usize| if row_major { cols } else { rows };
    let ld = |key: &str, d: usize| get(key, d as i64).max(0) as usize;
    let (lda, ldb, ldc) = (
        ld("lda", natural(ar, ac)),
        ld("ldb", natural(br, bc)),
        ld("ldc", natural(m, n)),
    );
    let at = |row: usize, col: usize, ld: usize| {
        if row_major {
            row * ld + col
        } else {
            row + col * ld
        }
    };
    let floats = |name: &str| -> Result<Vec<f32>, Error> {
        let b = r
            .buffers
            .iter()
            .find(|b| b.name == name)
            .ok_or_else(|| err(format!("no buffer `{name}`")))?;
        Ok(b.data
            .chunks_exact(4)
            .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
            .collect())
    };
    let (a, b, c0) = (
        floats(&inputs[0])?,
        floats(&inputs[1])?,
        floats(&inputs[2])?,
    );
    let cfin: Vec<f32> = got
        .data
        .chunks_exact(4)
        .map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    let need = |v: &[f32], rows: usize, cols: usize, ld: usize, what: &str| {
        if rows > 0 && cols > 0 && v.len() <= at(rows - 1, cols - 1, ld) {
            Err(err(format!("`{what}` is too short")))
        } else {
            Ok(())
        }
    };
    need(&a, ar, ac, lda, &inputs[0])?;
    need(&b, br, bc, ldb, &inputs[1])?;
    need(&c0, m, n, ldc, &inputs[2])?;
    need(&cfin, m, n, ldc, &inputs[2])?;
    let changed_at =
        |i: usize, j: usize| c0[at(i, j, ldc)].to_bits() != cfin[at(i, j, ldc)].to_bits();
    // Each column's run of changed rows; columns grouped by their run.
    let mut groups: BTreeMap<(usize, usize), Vec<usize>> = BTreeMap::new();
    let mut changed = 0u64;
    for j in 0..n {
        let rows: Vec<usize> = (0..m).filter(|&i| changed_at(i, j)).collect();
        if let (Some(&lo), Some(&hi)) = (rows.first(), rows.last()) {
            changed += rows.len() as u64;
            groups.entry((lo, hi + 1)).or_default().push(j);
        }
    }
    let cost: u64 = groups
        .iter()
        .map(|((lo, hi), cols)| ((hi - lo) * cols.len()) as u64 * k as u64)
        .sum();
    let stride = cost.div_ceil(CHECK_BUDGET).max(1);
    let reference = sim_core::reference::builtin("sgemm")
        .ok_or_else(|| err("no built-in reference `sgemm`".into()))?;
    let mut w = Written {
        buffer: buffer.to_string(),
        elements: (m * n) as u64,
        changed,
        checked: 0,
        stride,
        mismatches: 0,
        first: None,
    };
    for (&(lo, hi), cols) in &groups {
        let cols: Vec<usize> = cols.iter().copied().step_by(stride as usize).collect();
        let (mm, nn) = (hi - lo, cols.len());
        let op_a = |i: usize, q: usize| {
            if ta {
                a[at(q, i, lda)]
            } else {
                a[at(i, q, lda)]
            }
        };
        let op_b = |q: usize, j: usize| {
            if tb {
                b[at(j, q, ldb)]
            } else {
                b[at(q, j, ldb)]
            }
        };
        // The smaller SGEMM, column-major with natural leading dimensions.
        let mut a2 = Vec::with_capacity(mm * k * 4);
        for q in 0..k {
            for i in lo..hi {
                a2.extend_from_slice(&op_a(i, q).to_le_bytes());
            }
        }
        let mut b2 = Vec::with_capacity(k * nn * 4);
        let mut c2 = Vec::with_capacity(mm * nn * 4);
        for &j in &cols {
            for q in 0..k {
                b2.extend_from_slice(&op_b(q, j).to_le_bytes());
            }
            for i in lo..hi {
                c2.extend_from_slice(&c0[at(i, j, ldc)].to_le_bytes());
            }
        }
        let mut params: BTreeMap<String, i64> = BTreeMap::new();
        for (key, v) in [("m", mm as i64), ("n", nn as i64), ("k", k as i64)] {
            params.insert(key.into(), v);
        }
        for key in ["alpha_bits", "beta_bits"] {
            if let Some(&v) = p.get(key) {
                params.insert(key.into(), v);
            }
        }
        let expected = reference(&sim_core::reference::RefInput {
            buffers: vec![
                ("a", sim_core::launch::spec::Elem::F32, &a2),
                ("b", sim_core::launch::spec::Elem::F32, &b2),
                ("c", sim_core::launch::spec::Elem::F32, &c2),
            ],
            params: &params,
        })
        .map_err(err)?;
        for (jj, &j) in cols.iter().enumerate() {
            for i in lo..hi {
                if !changed_at(i, j) {
                    continue;
                }
                let x = (i - lo + jj * mm) * 4;
                let want = f32::from_le_bytes([
                    expected[x],
                    expected[x + 1],
                    expected[x + 2],
                    expected[x + 3],
                ]);
                let have = cfin[at(i, j, ldc)];
                w.checked += 1;
                if want.to_bits() != have.to_bits() {
                    w.mismatches += 1;
                    w.first.get_or_insert((at(i, j, ldc), have, want));
                }
            }
        }
    }
    Ok(w)
}

/// The shortest duration of the grid's first blocks on a chip of one SM:
/// two of its slots' worth, the first cold and the next after them, with no
/// other SM competing for L2 and DRAM, as the last blocks of a grid meet it
/// when the other SMs have fallen idle. Its outputs are not kept.
fn alone(
    cubin: &Cubin,
    r: &Resolved,
    config: &Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    slots: u32,
) -> Result<Option<u64>, Error> {
    let mut one = *config;
    one.chip.sms = 1;
    let blocks = 2 * slots as u64;
    let mut ledger = Ledger::new(r.dims.grid, 1, slots);
    let mut hook = |p: &Progress| {
        if p.done <= blocks {
            ledger.heard(p)
        }
    };
    let mut ctl = Control {
        max_blocks: Some(blocks),
        progress: Some(&mut hook),
        ..Control::default()
    };
    launch::execute_controlled(
        cubin,
        r,
        Mode::Timed(Stepping::Turns),
        &one,
        read,
        &mut sim_core::timing::Nobody,
        &mut ctl,
    )
    .map_err(|e| Error::Run(format!("a block alone on one SM: {e}")))?;
    Ok(ledger.cold.iter().chain(&ledger.steady).min().copied())
}

/// How many blocks of `r` an SM of `config` holds at once.
pub fn blocks_per_sm(cubin: &Cubin, r: &Resolved, config: &Config) -> Result<u32, Error> {
    let mut scratch = sim_core::mem::GlobalMem::with_mode(r.memory);
    let opts = sim_core::program::LoadOptions {
        unbounded_stack: r.stack_size,
    };
    let prog = sim_core::program::Program::load_with(cubin, &r.kernel, &mut scratch, &opts)
        .map_err(|e| Error::Run(e.to_string()))?;
    let occ = sim_core::timing::occupancy(&prog, &r.dims, config).map_err(Error::Run)?;
    Ok(occ.blocks_per_sm)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Block `block` of a grid of one row finished on SM `sm` in `cycle`,
    /// the `done`-th.
    fn heard(l: &mut Ledger, done: u64, cycle: u64, sm: u32, block: u32) {
        l.heard(&Progress {
            done,
            total: 0,
            started: 0,
            cycle,
            sm,
            block: [block, 0, 0],
        });
    }

    #[test]
    fn plans_parse_and_bad_ones_say_why() {
        assert_eq!("".parse::<Plan>().unwrap(), Plan { waves: 2 });
        assert_eq!(" waves=5 ".parse::<Plan>().unwrap(), Plan { waves: 5 });
        let err = |s: &str| s.parse::<Plan>().unwrap_err().to_string();
        assert!(err("waves=1").contains("at least 2"), "{}", err("waves=1"));
        assert!(err("waves=x").contains("not a whole number"));
        assert!(err("waves=-3").contains("not a whole number"));
        assert!(err("blocks=3").contains("no option `blocks`"));
        assert!(err("3").contains("expected waves=N"));
    }

    /// Two SMs, one block each, every block 100 cycles: the ledger finds the
    /// durations and the projection the whole grid's end, tail included.
    #[test]
    fn a_grid_of_equal_blocks_is_projected_exactly() {
        let mut l = Ledger::new([7, 1, 1], 2, 1);
        heard(&mut l, 1, 99, 0, 0);
        heard(&mut l, 2, 99, 1, 1);
        heard(&mut l, 3, 199, 0, 2);
        heard(&mut l, 4, 199, 1, 3);
        assert_eq!(l.cold, vec![100, 100]);
        assert_eq!(l.steady, vec![100, 100]);
        // Blocks 4 and 5 run until 299, block 6 alone until 399.
        let e = Estimate::of(&l, None).unwrap();
        assert_eq!((e.cycles, e.low, e.high), (400, 400, 400));
    }

    /// The bound spans the projections at the shortest and longest duration
    /// of any block sampled (here a first-wave one); the estimate, at the
    /// later blocks' mean, lies inside it.
    #[test]
    fn the_bound_is_the_projection_at_the_extremes() {
        let mut l = Ledger::new([40, 1, 1], 2, 1);
        heard(&mut l, 1, 99, 0, 0); // 100 cycles
        heard(&mut l, 2, 119, 1, 1); // 120 cycles
        heard(&mut l, 3, 194, 0, 2); // 95 cycles
        heard(&mut l, 4, 229, 1, 3); // 110 cycles
        let e = Estimate::of(&l, None).unwrap();
        assert_eq!((e.shortest, e.longest, e.steady_blocks), (95, 120, 2));
        assert_eq!(e.mean, 102.5);
        assert!(e.low < e.cycles && e.cycles < e.high, "{e:?}");
        assert_eq!((e.low, e.high), (l.project(95), l.project(120)));
        // 34 blocks left on two SMs: SM 1's block from cycle 230 and 17
        // more after it end the grid.
        assert_eq!(l.project(120), 230 + 18 * 120);
    }

    /// The low end's tail: the last block of each slot takes the shorter
    /// duration; the blocks before it, which free slots, keep theirs.
    #[test]
    fn the_last_block_of_each_slot_takes_the_tail_duration() {
        let mut l = Ledger::new([7, 1, 1], 2, 1);
        heard(&mut l, 1, 99, 0, 0);
        heard(&mut l, 2, 99, 1, 1);
        heard(&mut l, 3, 199, 0, 2);
        heard(&mut l, 4, 199, 1, 3);
        // Blocks 4 and 5 from 200; block 6 after block 4, from 300, is
        // SM 0's last, and block 5 SM 1's.
        assert_eq!(l.project_tail(100, 100), l.project(100));
        assert_eq!(l.project_tail(100, 50), 350);
        assert_eq!(l.project_tail(100, 150), 450);
        let e = Estimate::of(&l, Some(60)).unwrap();
        assert_eq!((e.cycles, e.low, e.high), (400, 360, 400));
        // A block alone no shorter than the sample's shortest changes nothing.
        assert_eq!(Estimate::of(&l, Some(130)).unwrap().low, 400);
    }

    /// Two blocks per SM, finishing in the same cycle.
    #[test]
    fn several_blocks_per_sm_in_one_cycle() {
        let mut l = Ledger::new([8, 1, 1], 1, 2);
        heard(&mut l, 1, 49, 0, 0);
        heard(&mut l, 2, 49, 0, 1);
        heard(&mut l, 3, 99, 0, 2);
        heard(&mut l, 4, 99, 0, 3);
        assert_eq!(l.cold, vec![50, 50]);
        assert_eq!(l.steady, vec![50, 50]);
        assert_eq!(l.project(50), 200);
    }

    /// Two blocks per SM, finishing out of the order they started in: each
    /// keeps its own start.
    #[test]
    fn blocks_of_an_sm_may_finish_out_of_order() {
        let mut l = Ledger::new([8, 1, 1], 1, 2);
        heard(&mut l, 1, 49, 0, 1); // block 2 starts in 50
        heard(&mut l, 2, 79, 0, 0); // block 3 starts in 80
        heard(&mut l, 3, 119, 0, 3);
        heard(&mut l, 4, 149, 0, 2);
        assert_eq!(l.cold, vec![50, 80]);
        assert_eq!(l.steady, vec![40, 100]);
        let each: Vec<(u64, u64, u64)> = l
            .finished
            .iter()
            .map(|f| (f.index, f.start, f.cycles))
            .collect();
        assert_eq!(each, [(1, 0, 50), (0, 0, 80), (3, 80, 40), (2, 50, 100)]);
    }
}
