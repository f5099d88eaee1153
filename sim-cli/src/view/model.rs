//! What the viewer knows of one SM, indexed from a trace's events once, when
//! the SM is chosen: each scheduler's cycles (the instruction issued or the
//! stall's reason), each warp's issues, barriers and memory requests, and
//! the per-instruction counts. The panes read it; nothing here draws.

use std::collections::BTreeMap;

use sim_core::timing::events::{Apart, NSTALLS};
use sim_core::timing::{Event, Stall};

use crate::trace::Trace;

/// A warp: its block's slot on the SM and its index in the block.
pub type WarpId = (u8, u8);

/// What a scheduler did in one cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cell {
    /// Nothing recorded (outside the trace, or the scheduler had no warps).
    Empty,
    /// Issued the instruction at `pc` of warp `warp` (and the next one too
    /// when `dual`), with a register bank conflict of degree `conflict`;
    /// `apart` says why it issued alone when its control byte asked for a
    /// pair.
    Issue {
        warp: WarpId,
        pc: u32,
        dual: bool,
        conflict: u8,
        apart: Option<Apart>,
    },
    /// Issued nothing, for `why`, which the instruction at `pc` gave.
    Stall { why: Stall, pc: u32 },
}

/// One issue of a warp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Issued {
    pub cycle: u64,
    pub pc: u32,
    pub dual: bool,
    pub sched: u8,
}

/// A memory access of a warp through the LSU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    pub cycle: u64,
    pub warp: WarpId,
    pub pc: u32,
    /// Shared memory: transactions; global: 128-byte lines.
    pub count: u32,
    pub global: bool,
    pub store: bool,
    /// Of a global access's lines: read-only-cache hits, L2 hits, and
    /// misses to DRAM.
    pub cache_hits: u8,
    pub l2_hits: u8,
    pub l2_misses: u8,
    /// When its data are ready (a store's: when it issued).
    pub ready: u64,
}

/// A block's stay on the SM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stay {
    pub slot: u8,
    pub block: [u32; 3],
    pub warps: u8,
    pub start: u64,
    /// When it finished (`u64::MAX`: not in the trace).
    pub done: u64,
}

/// One instruction's counts over the trace.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub issues: u64,
    pub dual: u64,
    /// Issues alone of a pair the control byte asked for.
    pub apart: u64,
    pub conflicts: u64,
    pub stall: [u64; NSTALLS],
}

/// One SM's events, indexed.
#[derive(Debug, Clone, Default)]
pub struct SmModel {
    pub sm: u32,
    /// The cycles indexed: `first..end`.
    pub first: u64,
    pub end: u64,
    /// Where the SM's events end when that is past `first + MAX_CYCLES`,
    /// the most the viewer indexes (none: all are indexed).
    pub cut: Option<u64>,
    /// Per scheduler, its cell of each cycle from `first`.
    pub sched: Vec<Vec<Cell>>,
    /// Each warp's issues in cycle order.
    pub issues: BTreeMap<WarpId, Vec<Issued>>,
    /// Barrier arrivals (cycle, warp, pc) and releases (cycle, block slot),
    /// in cycle order.
    pub arrivals: Vec<(u64, WarpId, u32)>,
    pub releases: Vec<(u64, u8)>,
    /// Shared and global accesses, in cycle order.
    pub accesses: Vec<Access>,
    pub blocks: Vec<Stay>,
    /// Per instruction slot.
    pub counts: Vec<Counts>,
}

/// The longest stretch of cycles the viewer indexes for an SM (a longer
/// trace shows its first this many).
pub const MAX_CYCLES: u64 = 4_000_000;

impl SmModel {
    /// Indexes SM `sm`'s events of `trace`.
    pub fn build(trace: &Trace, sm: u32) -> SmModel {
        let mut m = SmModel::span(trace, sm);
        let (first, end) = (m.first, m.end);
        // Past the stretch indexed (or before it, in a damaged trace) an
        // issue, barrier or access has no cycle to show: it is left out, so
        // that every search and step stays inside `first..end`.
        let outside = |e: &Event| {
            !matches!(
                e,
                Event::Stall { .. } | Event::BlockStart { .. } | Event::BlockDone { .. }
            ) && !(first..end).contains(&e.cycle())
        };
        for e in trace.events.iter().filter(|e| e.sm() == sm && !outside(e)) {
            m.index(e);
        }
        for v in m.issues.values_mut() {
            v.sort_by_key(|i| i.cycle);
        }
        m.arrivals.sort_by_key(|a| a.0);
        m.releases.sort_by_key(|r| r.0);
        m.accesses.sort_by_key(|a| a.cycle);
        m
    }

    /// SM `sm` with nothing indexed yet: the stretch of cycles its issues
    /// and stalls cover (at most [`MAX_CYCLES`]), each scheduler's cells
    /// empty, and a count per instruction slot.
    fn span(trace: &Trace, sm: u32) -> SmModel {
        let nsched = trace.header.schedulers.max(1) as usize;
        let mut m = SmModel {
            sm,
            first: u64::MAX,
            end: 0,
            counts: vec![Counts::default(); trace.header.listing.len()],
            ..SmModel::default()
        };
        for e in trace.events.iter().filter(|e| e.sm() == sm) {
            match *e {
                Event::Issue { cycle, .. } => {
                    m.first = m.first.min(cycle);
                    m.end = m.end.max(cycle.saturating_add(1));
                }
                Event::Stall { cycle, cycles, .. } => {
                    m.first = m.first.min(cycle);
                    m.end = m.end.max(cycle.saturating_add(cycles));
                }
                _ => {}
            }
        }
        if m.first == u64::MAX {
            m.first = 0;
        }
        let recorded = m.end.max(m.first);
        m.end = recorded.min(m.first.saturating_add(MAX_CYCLES));
        m.cut = (recorded > m.end).then_some(recorded);
        let n = (m.end - m.first) as usize;
        m.sched = vec![vec![Cell::Empty; n]; nsched];
        m
    }

    /// Indexes one event: its cells, its issue, stall counts, block, barrier
    /// or access.
    fn index(&mut self, e: &Event) {
        let (first, n) = (self.first, (self.end - self.first) as usize);
        let at = |c: u64| c.checked_sub(first).map(|i| i as usize).filter(|&i| i < n);
        // The counts' index of slot `pc` (none for `u32::MAX`, no instruction).
        let slots = self.counts.len();
        let count = |pc: u32| ((pc as usize) < slots).then_some(pc as usize);
        match *e {
            Event::Issue {
                cycle,
                sched,
                slot,
                warp,
                pc,
                dual,
                conflict,
                ..
            } => {
                if let (Some(i), Some(row)) = (at(cycle), self.sched.get_mut(sched as usize)) {
                    row[i] = Cell::Issue {
                        warp: (slot, warp),
                        pc,
                        dual,
                        conflict,
                        apart: None,
                    };
                }
                self.issues.entry((slot, warp)).or_default().push(Issued {
                    cycle,
                    pc,
                    dual,
                    sched,
                });
                if let Some(k) = count(pc) {
                    let c = &mut self.counts[k];
                    c.issues += 1;
                    c.dual += dual as u64;
                    c.conflicts += (conflict >= 2) as u64;
                }
            }
            Event::Stall {
                cycle,
                sched,
                why,
                pc,
                cycles,
                ..
            } => {
                if let Some(row) = self.sched.get_mut(sched as usize) {
                    for c in cycle..cycle.saturating_add(cycles) {
                        match at(c) {
                            Some(i) => row[i] = Cell::Stall { why, pc },
                            None => break,
                        }
                    }
                }
                if let Some(k) = count(pc) {
                    let s = &mut self.counts[k].stall[why as usize];
                    *s = s.saturating_add(cycles);
                }
            }
            Event::BlockStart {
                cycle,
                slot,
                block,
                warps,
                ..
            } => self.blocks.push(Stay {
                slot,
                block,
                warps,
                start: cycle,
                done: u64::MAX,
            }),
            Event::BlockDone { cycle, block, .. } => {
                if let Some(b) = self
                    .blocks
                    .iter_mut()
                    .rev()
                    .find(|b| b.block == block && b.done == u64::MAX)
                {
                    b.done = cycle;
                }
            }
            Event::BarrierArrive {
                cycle,
                slot,
                warp,
                pc,
                ..
            } => self.arrivals.push((cycle, (slot, warp), pc)),
            Event::BarrierRelease { cycle, slot, .. } => self.releases.push((cycle, slot)),
            Event::Shared {
                cycle,
                slot,
                warp,
                pc,
                transactions,
                ready,
                ..
            } => self.accesses.push(Access {
                cycle,
                warp: (slot, warp),
                pc,
                count: transactions,
                global: false,
                store: false,
                cache_hits: 0,
                l2_hits: 0,
                l2_misses: 0,
                ready,
            }),
            Event::Global {
                cycle,
                slot,
                warp,
                pc,
                store,
                lines,
                cache_hits,
                l2_hits,
                l2_misses,
                ready,
                ..
            } => self.accesses.push(Access {
                cycle,
                warp: (slot, warp),
                pc,
                count: lines as u32,
                global: true,
                store,
                cache_hits,
                l2_hits,
                l2_misses,
                ready,
            }),
            // It follows its issue, whose cell it marks.
            Event::PairApart {
                cycle,
                sched,
                slot,
                warp,
                pc,
                why,
                ..
            } => {
                if let (Some(i), Some(row)) = (at(cycle), self.sched.get_mut(sched as usize)) {
                    if let Cell::Issue {
                        warp: w,
                        pc: p,
                        apart,
                        ..
                    } = &mut row[i]
                    {
                        if *w == (slot, warp) && *p == pc {
                            *apart = Some(why);
                        }
                    }
                }
                if let Some(k) = count(pc) {
                    self.counts[k].apart += 1;
                }
            }
        }
    }

    /// Scheduler `s`'s cell at `cycle`.
    pub fn cell(&self, s: usize, cycle: u64) -> Cell {
        cycle
            .checked_sub(self.first)
            .and_then(|i| self.sched.get(s)?.get(i as usize).copied())
            .unwrap_or(Cell::Empty)
    }

    /// The warps that lived on the SM, in order.
    pub fn warps(&self) -> Vec<WarpId> {
        let mut v: Vec<WarpId> = self
            .blocks
            .iter()
            .flat_map(|b| (0..b.warps).map(move |w| (b.slot, w)))
            .chain(self.issues.keys().copied())
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Warp `w`'s last issue at or before `cycle`.
    pub fn last_issue(&self, w: WarpId, cycle: u64) -> Option<Issued> {
        let v = self.issues.get(&w)?;
        let k = v.partition_point(|i| i.cycle <= cycle);
        k.checked_sub(1).map(|k| v[k])
    }

    /// Warp `w`'s first issue after `cycle`.
    pub fn next_issue(&self, w: WarpId, cycle: u64) -> Option<Issued> {
        let v = self.issues.get(&w)?;
        v.get(v.partition_point(|i| i.cycle <= cycle)).copied()
    }

    /// The block stay warp `w` belongs to at `cycle`.
    pub fn stay(&self, w: WarpId, cycle: u64) -> Option<&Stay> {
        self.blocks
            .iter()
            .rev()
            .find(|b| b.slot == w.0 && b.start <= cycle)
    }

    /// The cycle warp `w` arrived at the barrier it waits at during `cycle`
    /// (none: not waiting at one).
    pub fn at_barrier(&self, w: WarpId, cycle: u64) -> Option<u64> {
        let k = self.arrivals.partition_point(|a| a.0 <= cycle);
        let (arrived, _, _) = *self.arrivals[..k].iter().rev().find(|a| a.1 == w)?;
        let released = self.releases[..self.releases.partition_point(|r| r.0 < cycle)]
            .iter()
            .any(|r| r.1 == w.0 && r.0 >= arrived);
        (!released).then_some(arrived)
    }

    /// The accesses in flight at `cycle` (issued, data not yet ready).
    pub fn in_flight(&self, cycle: u64) -> impl Iterator<Item = &Access> {
        let k = self.accesses.partition_point(|a| a.cycle <= cycle);
        self.accesses[..k]
            .iter()
            .filter(move |a| !a.store && a.ready > cycle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_warps_and_barriers_come_from_the_events() {
        let t = crate::trace::tests::sample();
        let m = SmModel::build(&t, 0);
        assert_eq!((m.first, m.end), (0, 303));
        assert_eq!(
            m.cell(0, 2),
            Cell::Issue {
                warp: (0, 0),
                pc: 2,
                dual: true,
                conflict: 2,
                apart: None
            }
        );
        assert_eq!(
            m.cell(1, 150),
            Cell::Stall {
                why: Stall::Dependency,
                pc: 6
            }
        );
        assert_eq!(m.warps(), [(0, 0), (0, 1)]);
        assert_eq!(m.at_barrier((0, 1), 6), Some(5));
        assert_eq!(m.at_barrier((0, 1), 7), Some(5));
        assert_eq!(m.at_barrier((0, 1), 8), None);
        assert_eq!(m.last_issue((0, 0), 100).map(|i| i.pc), Some(5));
        assert_eq!(m.in_flight(150).count(), 2);
        assert_eq!(m.in_flight(250).count(), 1);
        assert_eq!(m.counts[2].issues, 2);
        assert_eq!(m.counts[2].conflicts, 1);
        assert_eq!(m.counts[6].stall[Stall::Dependency as usize], 484);
    }
}
