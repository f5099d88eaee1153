//! A warp's timing beside its functional state: the scoreboard (each
//! register's ready cycle, and which results the interlock rather than the
//! scoreboard guards), the read-only loads held until their data land (the
//! barrier `TEXDEPBAR` waits on), and when the control codes let the warp
//! issue next.

use std::collections::VecDeque;

use crate::config::Timing;

use crate::timing::pipes::{Info, Latency, Pipe};

use super::NEVER;

/// A read-only load's value, held until its data arrive.
#[derive(Clone, Copy)]
pub(super) struct Pending {
    pub(super) at: u64,
    /// Its own landing, before it was held back behind the load before it.
    pub(super) own: u64,
    pub(super) reg: u8,
    pub(super) n: u8,
    pub(super) mask: u32,
    /// Not yet timed or read: `at` is [`UNTIMED`](super::UNTIMED) and `rows` empty until
    /// its [`Resolved`](super::Resolved) comes.
    pub(super) open: bool,
    pub(super) rows: [[u32; 32]; 4],
}

/// A warp's timing state beside its functional state: what the scheduler
/// reads of it for each warp it considers first, in one 64-byte line, and
/// the registers' ready times in the same allocation (`repr(C)` keeps that
/// order, the alignment the line).
#[derive(Clone)]
#[repr(C, align(64))]
pub struct WarpTiming {
    /// The earliest cycle the control codes let the next instruction issue.
    pub(super) next_issue: u64,
    /// The 64-byte group in the warp's instruction buffer, and the cycle it
    /// arrives.
    pub(super) group: u32,
    pub(super) fetched: u64,
    /// The scoreboard's answer for the instruction at slot `sb_pc`: the cycle
    /// its registers are ready (`u32::MAX`: not worked out), and the last
    /// cycle a register it reads is written. Only this warp's issues change
    /// its scoreboard, and each issue clears it.
    pub(super) sb_pc: u32,
    pub(super) sb_at: u64,
    pub(super) sb_read: u64,
    pub(super) sched: u8,
    /// Whether `next_issue` is the interlock's hold, not the control code's.
    pub(super) interlocked: bool,
    /// The cycle from which the wait until `next_issue` is a bank conflict
    /// holding the warp (`conflict_holds_warp`), not the control code
    /// (`NEVER`: no such hold).
    pub(super) held_from: u64,
    /// Under `ldg_hold_scope` 1, the end of the hold of its last `LDG`: a
    /// wait until `next_issue` no later is that hold's.
    pub(super) ldg_until: u64,
    /// Registers whose `ready` time is an ALU result's, which the scoreboard
    /// does not hold instructions back for: a read before it is caught by
    /// the hardware's interlock instead, which holds the reader back
    /// `interlock_cycles`.
    pub(super) alu: [u64; 4],
    /// The cycle the warp arrived at the barrier it waits at (`NEVER`: none).
    pub(super) bar_since: u64,
    /// The cycle since which the warp's next instruction has waited for the
    /// SM's load/store unit, or for its texture pipeline, finding it busy
    /// (`NEVER`: it is not waiting; its next issue ends the wait).
    pub(super) unit_wait: [u64; 2],
    /// Read-only loads not yet landed, in issue order.
    pub(super) tex: VecDeque<Pending>,
    /// The cycle each register's last result is ready.
    pub(super) ready: [u64; 256],
}

// The fields the scan reads fit the first line.
const _: () = assert!(std::mem::offset_of!(WarpTiming, sb_read) + 8 <= 64);

impl WarpTiming {
    pub(super) fn new() -> WarpTiming {
        WarpTiming {
            next_issue: 0,
            ready: [0; 256],
            alu: [0; 4],
            bar_since: NEVER,
            unit_wait: [NEVER; 2],
            tex: VecDeque::with_capacity(16),
            sched: 0,
            interlocked: false,
            held_from: NEVER,
            ldg_until: 0,
            group: u32::MAX,
            fetched: 0,
            sb_pc: u32::MAX,
            sb_at: 0,
            sb_read: 0,
        }
    }

    pub(super) fn reset(&mut self, now: u64, sched: u8) {
        self.next_issue = now;
        self.ready.fill(0);
        self.alu = [0; 4];
        self.bar_since = NEVER;
        self.unit_wait = [NEVER; 2];
        self.interlocked = false;
        self.held_from = NEVER;
        self.ldg_until = 0;
        self.tex.clear();
        self.sched = sched;
        self.group = u32::MAX;
        self.fetched = now;
        self.sb_pc = u32::MAX;
    }
}

/// Puts the registers `info` writes on warp timing `tm`'s scoreboard: a
/// fixed-latency (ALU) result at `now` plus the ALU latency, any other at
/// `ready`.
#[inline]
pub(super) fn write_ready(tm: &mut WarpTiming, info: &Info, now: u64, ready: u64, t: &Timing) {
    let (at, alu) = match info.lat {
        // Bit 4 puts a fixed-latency result on the scoreboard: ptxas sets it
        // on `MOV R1, c[0x0][0x44]` (a constant that may miss) and reads R1
        // two cycles later.
        Latency::Alu => (now + t.alu_latency as u64, info.ctrl & 0x10 == 0),
        Latency::None => return,
        _ => (ready, false),
    };
    let mut set = |r: usize| {
        tm.ready[r] = at;
        let bit = 1u64 << (r & 63);
        let word = &mut tm.alu[r >> 6];
        *word = if alu { *word | bit } else { *word & !bit };
    };
    if info.ndst == 1 {
        // The commonest: one register.
        set(info.dst as usize);
        return;
    }
    for k in 0..info.ndst {
        set(info.dst.wrapping_add(k) as usize);
    }
}

/// The cycle the registers `info` reads and writes are ready, by the
/// scoreboard of warp timing `tm`, and the last cycle a register it reads is
/// written (whether or not the scoreboard holds it back for it).
#[inline(never)]
pub(super) fn scoreboard(tm: &WarpTiming, info: &Info) -> (u64, u64) {
    // Load/store instructions wait for ALU results too (they read their
    // registers in the LSU's queue: ptxas issues an LD/LDG/ST one cycle
    // after the ALU instruction that computes its address).
    let lsu = info.pipe == Pipe::Lsu;
    let held = |r: u8| lsu || tm.alu[(r >> 6) as usize] >> (r & 63) & 1 == 0;
    let (mut at, mut read) = (0u64, 0u64);
    for &r in info.reads() {
        let x = tm.ready[r as usize];
        read = read.max(x);
        if held(r) {
            at = at.max(x);
        }
    }
    for k in 0..info.ndst {
        let r = info.dst.wrapping_add(k);
        if held(r) {
            at = at.max(tm.ready[r as usize]);
        }
    }
    (at, read)
}
