//! What the timing model needs to know of each instruction, worked out once per
//! kernel: the execution pipe it issues to, how its result's latency is known
//! (fixed and covered by the compiler's stall counts, tracked by the
//! scoreboard, or tracked by `TEXDEPBAR`), the registers it reads and writes.

use crate::exec::{is_ffma3, IntOp};
use crate::op::{AtomType, Kind, NumType, Op, Space, Src};
use crate::program::Program;

/// The execution resource an instruction issues to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    /// A 32-lane group of FP32/integer cores (the scheduler's own, or for the
    /// second of a dual-issued pair of core instructions, its pair's shared one).
    Core,
    /// The scheduler's special-function units (MUFU, conversions).
    Sfu,
    /// The scheduler's FP64 units.
    Fp64,
    /// The SM's load/store units.
    Lsu,
    /// Branches, barriers, reconvergence and exit.
    Control,
    /// Nothing to execute (NOP, fences, S2R's own path).
    Free,
}

/// How the model knows when a result can be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Latency {
    /// No register result.
    None,
    /// A fixed latency the compiler's stall counts must cover (no interlock).
    Alu,
    /// Scoreboarded: SFU, FP64, S2R, LDC and loads other than LDG; a reader or
    /// writer of the register waits for it.
    Sfu,
    Fp64,
    S2R,
    Const,
    Shared,
    Global,
    /// LDG (the read-only path): no scoreboard; the value lands when the
    /// memory model says, and only `TEXDEPBAR` waits for it.
    Texture,
}

/// A unit that may be busy when an instruction wants it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    None,
    Sfu,
    Fp64,
    Lsu,
    /// The LSU and shared memory behind it.
    LsuShared,
    /// The texture pipeline, which LDG's read-only path goes through: a port
    /// of its own, not the LSU's.
    Tex,
}

impl Unit {
    /// The unit an instruction of `pipe` and latency class `lat` waits for.
    pub fn of(pipe: Pipe, lat: Latency) -> Unit {
        match pipe {
            Pipe::Sfu => Unit::Sfu,
            Pipe::Fp64 => Unit::Fp64,
            Pipe::Lsu if lat == Latency::Shared => Unit::LsuShared,
            Pipe::Lsu if lat == Latency::Texture => Unit::Tex,
            Pipe::Lsu => Unit::Lsu,
            _ => Unit::None,
        }
    }
}

/// One instruction slot, for the timing model.
#[derive(Debug, Clone, Copy)]
pub struct Info {
    pub pipe: Pipe,
    pub lat: Latency,
    /// Registers read (RZ left out), for the scoreboard and the banks.
    pub reads: [u8; 8],
    pub nreads: u8,
    /// Registers written: `dst .. dst + ndst` (none when `ndst` is 0).
    pub dst: u8,
    pub ndst: u8,
    /// `TEXDEPBAR n`: wait until at most `n` read-only loads are outstanding.
    pub texdepbar: Option<u8>,
    /// The control byte.
    pub ctrl: u8,
    /// Its reading: cycles from this instruction's issue to the earliest of
    /// the warp's next ([`super::ctrl::Ctrl::gap`]), for the configured
    /// stall of an unscheduled (zero) byte.
    pub gap: u32,
    /// A global-memory access (LD/ST/ATOM through the generic or read-only
    /// path): such an instruction never dual-issues.
    pub global: bool,
    /// It must wait for its turn among the SMs ([`super::gpu`]): a
    /// global-memory access (global memory's values and the L2 and DRAM
    /// every SM shares) or an `EXIT` (which may finish a block, whose slot
    /// takes the grid's next). No other instruction reads or changes
    /// anything outside its SM.
    pub turn: bool,
    /// An FP32 multiply or add (FFMA, FMUL, FADD): the work GFlop/s count.
    pub fp32: bool,
    /// The unit it waits for when busy ([`Unit::of`] its pipe and latency).
    pub unit: Unit,
    /// Its form, when it is one of the integer instructions (fixed latency,
    /// no `TEXDEPBAR` wait) the timing model runs on a path of its own
    /// ([`IntOp::of`]).
    pub int: Option<IntOp>,
    /// An FFMA of three registers with a fixed latency and no `TEXDEPBAR`
    /// wait, which the timing model runs on a path of its own
    /// ([`crate::exec::is_ffma3`]).
    pub ffma: bool,
    /// Two of the registers it reads share a bank
    /// ([`super::collector::may_conflict`]): without that, the operand
    /// collector reads them in one cycle whatever it holds.
    pub may_conflict: bool,
    /// The conflict degree of its issue ([`super::collector::issue_degree`]),
    /// `[fresh, after][alone, dual]`: with nothing held in the operand
    /// collector, or after the slot just before it issued last (a warp
    /// issuing on, the common case); alone, or dual-issued with the next
    /// slot. Worked out once here, not at every issue; an issue after any
    /// other instruction works it out then.
    pub degree: [[u8; 2]; 2],
}

use super::collector::issue_degree;
use super::ctrl::Reading;
use crate::exec::next_slot;

fn wide(t: NumType) -> bool {
    t.bits() == 64
}

/// Works out the [`Info`] of every slot of `prog`, its control bytes read
/// with `reading`, and a dual-issued pair's reads counted `together` or
/// apart ([`issue_degree`]).
pub fn infos(prog: &Program, reading: Reading, together: bool) -> Vec<Info> {
    let mut infos: Vec<Info> = (0..prog.ops.len())
        .map(|slot| {
            info(
                &prog.ops[slot],
                prog.ctrl.get(slot).copied().unwrap_or(0x20),
                reading,
                || prog.text(slot as u32),
            )
        })
        .collect();
    for slot in 0..infos.len() {
        let me = &infos[slot];
        let second = infos.get(next_slot(slot as u32) as usize);
        let degree = |prev: &[u8]| {
            let alone = issue_degree(me.reads(), me.may_conflict, None, prev, together);
            let dual = second.map_or(0, |s| {
                issue_degree(me.reads(), me.may_conflict, Some(s.reads()), prev, together)
            });
            [alone as u8, dual as u8]
        };
        // The slot just before it, whose registers the collector holds
        // when the warp issued that one last: two back past a control
        // slot, else one.
        let before = [slot.checked_sub(2), slot.checked_sub(1)]
            .into_iter()
            .flatten()
            .find(|&b| next_slot(b as u32) as usize == slot);
        let after = before.map_or([0, 0], |b| degree(&infos[b].reads));
        infos[slot].degree = [degree(&[]), after];
    }
    infos
}

/// The [`Info`] of one instruction; `text` gives its SASS text (read only for
/// the fences, to find `TEXDEPBAR`'s count).
pub fn info(op: &Op, ctrl: u8, reading: Reading, text: impl Fn() -> String) -> Info {
    use Kind::*;
    let (pipe, lat) = match op.kind {
        Control | Unsupported | Nop => (Pipe::Free, Latency::None),
        Fence => (Pipe::Free, Latency::None),
        S2R { .. } => (Pipe::Free, Latency::S2R),
        Mufu { .. } | F2F { .. } | F2I { .. } | I2F { .. } | I2I { .. } | Popc | Flo { .. } => {
            (Pipe::Sfu, Latency::Sfu)
        }
        DAdd { .. } | DMul { .. } | DFma { .. } | DMnMx | DSetP { .. } | DSet { .. } => {
            (Pipe::Fp64, Latency::Fp64)
        }
        Ld {
            space: Space::GlobalRo,
            ..
        } => (Pipe::Lsu, Latency::Texture),
        Ld {
            space: Space::Shared,
            ..
        }
        | LdsLk { .. }
        | Shfl { .. } => (Pipe::Lsu, Latency::Shared),
        Ld { .. } | Atom { .. } => (Pipe::Lsu, Latency::Global),
        Ldc { .. } => (Pipe::Lsu, Latency::Const),
        St { .. } | StsCul { .. } => (Pipe::Lsu, Latency::None),
        Bra { .. }
        | Brx
        | Ssy
        | Pbk
        | Pcnt
        | Pret
        | Brk
        | Cont
        | Cal
        | Ret
        | Exit
        | Bar { .. }
        | BarRed { .. } => (Pipe::Control, Latency::None),
        B2R => (Pipe::Control, Latency::Alu),
        _ => (Pipe::Core, Latency::Alu),
    };
    let mut reads = [255u8; 8];
    let mut n = 0usize;
    let mut add = |r: u8, count: u8| {
        for k in 0..count {
            let x = r.saturating_add(k);
            if r != 255 && x != 255 && n < 8 && !reads[..n].contains(&x) {
                reads[n] = x;
                n += 1;
            }
        }
    };
    let fp64 = pipe == Pipe::Fp64;
    let mem_wide_addr = matches!(op.kind, Ld { .. } | St { .. } | Atom { .. }) && op.d1 == 1
        || matches!(
            op.kind,
            Ld {
                space: Space::GlobalRo,
                ..
            }
        );
    for (i, s) in op.src.iter().enumerate() {
        let r = match s.src {
            Src::Reg(r) => r,
            Src::ConstIdx { reg, .. } => reg,
            _ => continue,
        };
        let count = match op.kind {
            St { w, .. } if i == 1 => w.regs() as u8,
            Ld { .. } | St { .. } | Atom { .. } if i == 0 && mem_wide_addr => 2,
            StsCul { wide: true } if i == 1 => 2,
            Atom {
                ty: AtomType::U64 | AtomType::S64,
                ..
            } if i > 0 => 2,
            F2F { st, .. } | F2I { st, .. } | I2F { st, .. } if wide(st) => 2,
            _ if fp64 => 2,
            _ => 1,
        };
        add(r, count);
    }
    // Register destinations follow from the operand kinds lowering read: a
    // predicate destination (`pred_dst`) writes no register.
    let ndst = if op.d0 == 255 || op.pred_dst || lat == Latency::None {
        0
    } else {
        match op.kind {
            Ld { w, .. } | Ldc { w } => w.regs() as u8,
            LdsLk { wide: true } => 2,
            Atom {
                ty: AtomType::U64 | AtomType::S64,
                ..
            } => 2,
            F2F { dt, .. } | F2I { dt, .. } | I2F { dt, .. } | I2I { dt, .. } if wide(dt) => 2,
            DAdd { .. } | DMul { .. } | DFma { .. } | DMnMx => 2,
            _ => 1,
        }
    };
    let texdepbar = if op.kind == Fence {
        let t = text();
        let mut words = t
            .split(|c: char| c.is_whitespace() || c == ';')
            .filter(|w| !w.is_empty());
        words
            .find(|w| !w.starts_with('@'))
            .filter(|m| *m == "TEXDEPBAR")
            .map(|_| {
                words
                    .next()
                    .and_then(|v| u8::from_str_radix(v.trim_start_matches("0x"), 16).ok())
                    .unwrap_or(0)
            })
    } else {
        None
    };
    let global = matches!(
        op.kind,
        Ld {
            space: Space::Generic | Space::GlobalRo,
            ..
        } | St {
            space: Space::Generic,
            ..
        } | Atom {
            space: Space::Generic | Space::GlobalRo,
            ..
        }
    );
    Info {
        pipe,
        lat,
        reads,
        nreads: n as u8,
        dst: op.d0,
        ndst,
        texdepbar,
        ctrl,
        gap: super::ctrl::Ctrl(ctrl).gap(reading),
        global,
        turn: global || op.kind == Exit,
        fp32: matches!(op.kind, FFma { .. } | FMul { .. } | FAdd { .. }),
        unit: Unit::of(pipe, lat),
        int: IntOp::of(op)
            .filter(|_| pipe == Pipe::Core && lat == Latency::Alu && texdepbar.is_none()),
        ffma: is_ffma3(op) && lat == Latency::Alu && texdepbar.is_none(),
        may_conflict: super::collector::may_conflict(&reads[..n]),
        degree: [[0; 2]; 2],
    }
}

/// Whether `second` may issue in the same cycle as `first` (the static rules
/// of dual issue; the model also needs a shared core group free and
/// `second`'s operands ready), else which rule forbids it.
pub fn may_pair(first: &Info, second: &Info) -> Result<(), &'static str> {
    if first.feeds(second) {
        return Err("the second depends on the first");
    }
    if first.global || second.global {
        return Err("a global-memory access never dual-issues");
    }
    if matches!(second.pipe, Pipe::Control) {
        return Err("a branch or barrier cannot be second");
    }
    if second.pipe == Pipe::Fp64 || first.pipe == Pipe::Fp64 {
        return Err("FP64 does not dual-issue");
    }
    if first.pipe == second.pipe && first.pipe != Pipe::Core {
        return Err("two instructions for the same LSU/SFU pipe");
    }
    Ok(())
}

impl Info {
    /// The registers read.
    #[inline]
    pub fn reads(&self) -> &[u8] {
        &self.reads[..self.nreads as usize]
    }

    /// Whether `self` writes a register `other` reads or writes.
    #[inline]
    pub fn feeds(&self, other: &Info) -> bool {
        let (a, b) = (self.dst as u32, self.dst as u32 + self.ndst as u32);
        let hit = |r: u8| (a..b).contains(&(r as u32));
        other.reads().iter().any(|&r| hit(r))
            || (other.ndst > 0
                && (other.dst as u32) < b
                && a < other.dst as u32 + other.ndst as u32)
    }
}
