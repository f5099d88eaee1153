//! `keplersim check`: a static checker of sm_35 code against the timing
//! model's rules, in the manner of MaxAs's register bank conflict report.
//!
//! It walks each kernel in address order as one warp that issues as early as
//! its control codes let it (no other warps, no memory waits), and reports per
//! instruction:
//! - register bank conflicts the operand collector cannot hide: an issue unit
//!   (one instruction, or a dual-issued pair) reading more than one register of
//!   a bank, not counting the registers the warp's previous instruction read
//!   (its operands are reused: under `timing.reuse_warps` 0 only when it
//!   issued the cycle before, under 1 or more whenever it issued, as the
//!   collector then keeps a warp's last reads) — the rule of
//!   [`crate::timing::collector::conflict_degree`];
//! - dual issue a control code asks for but the model will not grant: not at
//!   an aligned half of the 64-byte group (instructions 1+2, 3+4, 5+6), or
//!   against a rule of [`crate::timing::pipes::may_pair`];
//! - interlocks: a read of a fixed-latency (ALU) result sooner than its
//!   latency after the write (the control codes are too short: the hardware
//!   catches the hazard and holds the reader back `interlock_cycles`, 32 on
//!   the K20m, so the value is right but late; a writer whose byte has bit 4
//!   set is scoreboarded instead); and hazards: a read of an `LDG` result no
//!   `TEXDEPBAR` has waited for, which reads the old value;
//! - loops (backward branches, not to themselves) whose first instruction
//!   does not start a 7-instruction group, so they cannot keep the dual-issue
//!   alignment;
//! - instructions the model cannot run: illegal ones (a 128-bit load into a
//!   register not a multiple of 4, a register past the kernel's count) and
//!   those it decodes but does not execute (texture, surface, video).
//!
//! Loops are walked twice, the second time with the state the first left, so
//! that what one iteration leaves for the next is checked too. Branches
//! forward are taken to fall through; predicated instructions to execute.

use std::collections::BTreeSet;
use std::fmt;

use crate::op::Kind;
use crate::program::Program;
use crate::timing::collector::{bank, BANKS};
use crate::timing::ctrl::{Ctrl, Reading};
use crate::timing::pipes::{self, Info, Latency};

/// Cycles an ALU result takes (the K20m's `alu_latency`).
pub const ALU_LATENCY: u64 = crate::config::Timing::K20M.alu_latency as u64;
/// What a `TEXDEPBAR` costs its warp at least.
const TEXDEPBAR_HOLD: u64 = 8;

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Finding {
    /// A unit reads `degree` registers of one bank (`regs`).
    Conflict { degree: u32, regs: Vec<u8> },
    /// The control byte asks for dual issue the model will not grant.
    Dual { why: String },
    /// A read of R`reg` `cycles` after the ALU instruction at `writer` wrote
    /// it (fewer than the latency).
    AluHazard { reg: u8, writer: u32, cycles: u64 },
    /// A read of R`reg` loaded by the `LDG` at `writer` with no `TEXDEPBAR`
    /// waiting for it in between.
    LdgHazard { reg: u8, writer: u32 },
    /// A loop whose first instruction (this one) does not start a group.
    Unaligned { branch: u32 },
    /// An instruction the model cannot run (an illegal one, or one it does
    /// not execute): [`Program::problem`]'s `why`.
    CannotRun { why: String },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Conflict { degree, regs } => {
                let r: Vec<String> = regs.iter().map(|r| format!("R{r}")).collect();
                write!(
                    f,
                    "{degree}-way register bank conflict: {} on bank {}",
                    r.join(", "),
                    bank(regs[0]).unwrap_or(0)
                )
            }
            Finding::Dual { why } => write!(f, "no dual issue: {why}"),
            Finding::AluHazard { reg, writer, cycles } => write!(
                f,
                "interlock: reads R{reg} {cycles} cycle{} after the ALU instruction at {:#06x} wrote it (needs {ALU_LATENCY}): the hardware holds it back 32 cycles (right value, late)",
                if *cycles == 1 { "" } else { "s" },
                writer * 8
            ),
            Finding::LdgHazard { reg, writer } => write!(
                f,
                "hazard: reads R{reg} loaded by the LDG at {:#06x} with no TEXDEPBAR in between: the old value",
                writer * 8
            ),
            Finding::Unaligned { branch } => write!(
                f,
                "the loop branched to from {:#06x} starts here, not at a 7-instruction group",
                branch * 8
            ),
            Finding::CannotRun { why } => write!(f, "cannot run: {why}"),
        }
    }
}

/// The report of one kernel.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// (slot, finding), by slot.
    pub findings: Vec<(u32, Finding)>,
    /// Instructions (control words and the trailing padding excluded).
    pub instructions: usize,
    /// Dual-issued pairs as the walk issued them.
    pub pairs: usize,
}

impl Report {
    pub fn conflicts(&self) -> [usize; 3] {
        let mut n = [0; 3];
        for (_, f) in &self.findings {
            if let Finding::Conflict { degree, .. } = f {
                n[(*degree as usize).clamp(2, 4) - 2] += 1;
            }
        }
        n
    }
    pub fn hazards(&self) -> usize {
        self.count(|f| matches!(f, Finding::AluHazard { .. } | Finding::LdgHazard { .. }))
    }
    pub fn dual_breaks(&self) -> usize {
        self.count(|f| matches!(f, Finding::Dual { .. }))
    }
    pub fn unaligned(&self) -> usize {
        self.count(|f| matches!(f, Finding::Unaligned { .. }))
    }
    pub fn cannot_run(&self) -> usize {
        self.count(|f| matches!(f, Finding::CannotRun { .. }))
    }
    fn count(&self, kind: impl Fn(&Finding) -> bool) -> usize {
        self.findings.iter().filter(|(_, f)| kind(f)).count()
    }
}

#[derive(Clone)]
struct State {
    now: u64,
    /// Per register: the slot and cycle of its last ALU write.
    alu: Vec<Option<(u32, u64)>>,
    /// Per register: the LDG slot whose value it waits for.
    ldg: Vec<Option<u32>>,
    /// LDGs not yet waited for, oldest first.
    outstanding: Vec<u32>,
    /// What the previous issue unit's last instruction read (for reuse).
    prev_reads: Vec<u8>,
    opts: Options,
}

/// How to check.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Count no operand as reused: the conflicts when other warps issue in
    /// between and the collector keeps none of the warp's reads.
    pub no_reuse: bool,
    /// The collector keeps the warp's last reads for its next instruction
    /// however many cycles later it issues (`timing.reuse_warps` 1 or more),
    /// not only the cycle after (0).
    pub keep_reads: bool,
    /// A dual-issued pair's operands read apart, the second's after the
    /// first's (`timing.pair_reads_together` 0), not together.
    pub pairs_apart: bool,
}

impl Options {
    /// The options that follow `timing`'s reading of the collector.
    pub fn for_timing(timing: &crate::config::Timing) -> Options {
        Options {
            no_reuse: false,
            keep_reads: timing.reuse_warps >= 1,
            pairs_apart: timing.pair_reads_together == 0,
        }
    }
}

/// Checks one loaded kernel.
pub fn check(prog: &Program) -> Report {
    check_with(prog, Options::for_timing(&crate::config::Timing::K20M))
}

/// Checks one loaded kernel with `opts`.
pub fn check_with(prog: &Program, opts: Options) -> Report {
    let infos = pipes::infos(prog, Reading::K20M, !opts.pairs_apart);
    // The last slot worth walking: past it only NOP padding.
    let last = (0..prog.ops.len())
        .rev()
        .find(|&s| s % 8 != 0 && !matches!(prog.ops[s].kind, Kind::Nop | Kind::Control))
        .unwrap_or(0);
    let mut found: BTreeSet<(u32, Finding)> = BTreeSet::new();
    let mut pairs = 0;
    let mut st = State {
        now: 0,
        alu: vec![None; 256],
        ldg: vec![None; 256],
        outstanding: Vec::new(),
        prev_reads: Vec::new(),
        opts,
    };
    walk(
        prog,
        &infos,
        1,
        last as u32,
        &mut st,
        &mut found,
        &mut pairs,
        true,
    );
    // Loop alignment. A branch to itself (the `BRA` ptxas ends every kernel
    // with, past its `EXIT`, or a one-instruction spin) has nothing to pair
    // and no alignment to keep.
    for s in 0..=last {
        let op = &prog.ops[s];
        if matches!(op.kind, Kind::Bra { .. }) && (op.target as usize) < s && op.target % 8 != 1 {
            found.insert((op.target, Finding::Unaligned { branch: s as u32 }));
        }
    }
    // What the loader refused to run: a warp reaching it stops with this.
    for (slot, why) in &prog.problems {
        found.insert((*slot, Finding::CannotRun { why: why.clone() }));
    }
    Report {
        findings: found.into_iter().collect(),
        instructions: (1..=last).filter(|s| s % 8 != 0).count(),
        pairs,
    }
}

#[allow(clippy::too_many_arguments)]
fn walk(
    prog: &Program,
    infos: &[Info],
    from: u32,
    to: u32,
    st: &mut State,
    found: &mut BTreeSet<(u32, Finding)>,
    pairs: &mut usize,
    first: bool,
) {
    let mut s = from;
    while s <= to {
        if s.is_multiple_of(8) {
            s += 1;
            continue;
        }
        let unit = issue_unit(infos, s, to, found);
        if unit.len() == 2 && first {
            *pairs += 1;
        }
        wait_for_alu(infos, &unit, st);
        hazards(infos, &unit, st, found);
        conflicts(infos, &unit, st, found);
        let lastu = *unit.last().unwrap();
        let li = &infos[lastu as usize];
        let gap = write(infos, &unit, st).max(li.gap as u64);
        // The operand collector reuses what the cycle before read, or under
        // `keep_reads` what the warp's last issue read.
        st.prev_reads = if (gap == 1 || st.opts.keep_reads) && !st.opts.no_reuse {
            li.reads().to_vec()
        } else {
            Vec::new()
        };
        st.now += gap;
        // A loop: walk its body once more with what this iteration left.
        let op = &prog.ops[lastu as usize];
        if first && matches!(op.kind, Kind::Bra { .. }) && op.target <= lastu && op.target >= 1 {
            let mut again = st.clone();
            again.prev_reads.clear();
            walk(
                prog, infos, op.target, lastu, &mut again, found, pairs, false,
            );
            *st = again;
        }
        s = next_slot(lastu);
    }
}

/// The slot after `s`, past a control word.
fn next_slot(s: u32) -> u32 {
    if (s + 1).is_multiple_of(8) {
        s + 2
    } else {
        s + 1
    }
}

/// The slots that issue together from `s`: `s` alone, or `s` and the next
/// when its byte asks for dual issue and the model would grant it (else a
/// finding says why not).
fn issue_unit(infos: &[Info], s: u32, to: u32, found: &mut BTreeSet<(u32, Finding)>) -> Vec<u32> {
    let a = &infos[s as usize];
    let mut unit = vec![s];
    if Ctrl(a.ctrl).dual() {
        let b = next_slot(s);
        if b > to || b as usize >= infos.len() {
            found.insert((
                s,
                Finding::Dual {
                    why: "no instruction follows".into(),
                },
            ));
        } else if !s.is_multiple_of(2) {
            found.insert((
                s,
                Finding::Dual {
                    why: "not at an aligned half of the group (instructions 1+2, 3+4 or 5+6)"
                        .into(),
                },
            ));
        } else {
            match pipes::may_pair(a, &infos[b as usize]) {
                Ok(()) => unit.push(b),
                Err(why) => {
                    found.insert((s, Finding::Dual { why: why.into() }));
                }
            }
        }
    }
    unit
}

/// Loads, stores and atomics wait for the ALU results they read (the
/// scoreboard holds them back, as in the timing model), and the warp's later
/// instructions with them; what the collector read before is then not the
/// cycle before.
fn wait_for_alu(infos: &[Info], unit: &[u32], st: &mut State) {
    let ready = unit
        .iter()
        .map(|&u| &infos[u as usize])
        .filter(|i| i.pipe == pipes::Pipe::Lsu)
        .flat_map(|i| i.reads())
        .filter_map(|&r| st.alu[r as usize].map(|(_, at)| at + ALU_LATENCY))
        .max();
    if let Some(t) = ready.filter(|&t| t > st.now) {
        st.now = t;
        if !st.opts.keep_reads {
            st.prev_reads.clear();
        }
    }
}

/// The unit's hazards: every instruction of it reads at `now`; an ALU result
/// read sooner than its latency, or a read-only load's not waited for.
fn hazards(infos: &[Info], unit: &[u32], st: &State, found: &mut BTreeSet<(u32, Finding)>) {
    for &u in unit {
        let i = &infos[u as usize];
        let lsu = i.pipe == pipes::Pipe::Lsu;
        for &r in i.reads() {
            if let Some(w) = st.ldg[r as usize] {
                found.insert((u, Finding::LdgHazard { reg: r, writer: w }));
            }
            if lsu {
                continue; // loads and stores wait for ALU results
            }
            if let Some((w, at)) = st.alu[r as usize] {
                let dt = st.now - at;
                if dt < ALU_LATENCY {
                    found.insert((
                        u,
                        Finding::AluHazard {
                            reg: r,
                            writer: w,
                            cycles: dt,
                        },
                    ));
                }
            }
        }
    }
}

/// The unit's bank conflicts, the previous unit's reads reused: a pair's
/// reads together, or under `pairs_apart` each instruction's after the one
/// before it, the busier bank of the two.
fn conflicts(infos: &[Info], unit: &[u32], st: &State, found: &mut BTreeSet<(u32, Finding)>) {
    let groups: Vec<(Vec<u8>, &[u8])> = if st.opts.pairs_apart {
        unit.iter()
            .enumerate()
            .map(|(k, &u)| {
                let prev = match k {
                    0 => st.prev_reads.as_slice(),
                    _ => infos[unit[k - 1] as usize].reads(),
                };
                (infos[u as usize].reads().to_vec(), prev)
            })
            .collect()
    } else {
        let mut reads: Vec<u8> = Vec::new();
        for &u in unit {
            for &r in infos[u as usize].reads() {
                if !reads.contains(&r) {
                    reads.push(r);
                }
            }
        }
        vec![(reads, st.prev_reads.as_slice())]
    };
    let mut worst: Vec<u8> = Vec::new();
    for (reads, prev) in groups {
        let mut per: [Vec<u8>; BANKS] = Default::default();
        for &r in &reads {
            if prev.contains(&r) || per.iter().any(|b| b.contains(&r)) {
                continue;
            }
            if let Some(b) = bank(r) {
                per[b].push(r);
            }
        }
        if let Some(most) = per.into_iter().max_by_key(|v| v.len()) {
            if most.len() > worst.len() {
                worst = most;
            }
        }
    }
    if worst.len() >= 2 {
        found.insert((
            unit[0],
            Finding::Conflict {
                degree: worst.len() as u32,
                regs: worst,
            },
        ));
    }
}

/// The unit's writes and `TEXDEPBAR`s on the state; the cycles until the
/// warp may issue again that they ask for (at least 1).
fn write(infos: &[Info], unit: &[u32], st: &mut State) -> u64 {
    let mut gap = 1u64;
    for &u in unit {
        let i = &infos[u as usize];
        if let Some(n) = i.texdepbar {
            let keep = (n as usize).min(st.outstanding.len());
            let retired: Vec<u32> = st
                .outstanding
                .drain(..st.outstanding.len() - keep)
                .collect();
            for r in st.ldg.iter_mut() {
                if r.is_some_and(|w| retired.contains(&w)) {
                    *r = None;
                }
            }
            gap = gap.max(TEXDEPBAR_HOLD);
        }
        for k in 0..i.ndst {
            let r = i.dst.wrapping_add(k) as usize;
            if r >= 255 {
                continue;
            }
            // Bit 4 of a fixed-latency instruction's byte puts its result
            // on the scoreboard: readers wait, no hazard.
            let scoreboarded = i.ctrl & 0x10 != 0;
            st.alu[r] = (i.lat == Latency::Alu && !scoreboarded).then_some((u, st.now));
            st.ldg[r] = (i.lat == Latency::Texture).then_some(u);
        }
        if i.lat == Latency::Texture && i.ndst > 0 {
            st.outstanding.push(u);
        }
    }
    gap
}
