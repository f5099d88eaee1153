//! A threaded run's global accesses: an SM running alone on a worker thread
//! issues an `LDG`, and an `LD`/`ST` whose lanes all address global memory,
//! as a [`Request`] kept for its turn; the chip's loop resolves it in the
//! order of the chip's other global accesses ([`resolve`]) and the SM
//! fills in what it left unknown ([`Sm::apply`]).

use crate::config::Timing;
use crate::exec::Env;
use crate::func::SimError;
use crate::mem::{GlobalMem, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::op::Kind;

use crate::timing::events::Stall;
use crate::timing::l2::{Memory, Path, Slots};

use super::scoreboard::scoreboard;
use super::{warps_at, Launch, Sm, NEVER, UNTIMED};

/// An `LDG` an SM running alone on a worker thread issued, kept for its
/// turn: its data are read and its lines timed through L2 later, in the
/// order of the chip's other global accesses ((cycle, SM), then issue
/// order), by [`resolve`].
pub struct Request {
    /// The cycle it issued in, and the SM.
    pub cycle: u64,
    pub sm: u32,
    /// The earliest cycle its data can land: the SM must not run that cycle
    /// before the load is resolved and applied.
    pub due: u64,
    /// The warp's place in the SM's warps; whether a [`Pending`](super::scoreboard::Pending) waits for
    /// it (an `LDG` to `RZ` has none).
    pub(super) wi: usize,
    pub(super) pending: bool,
    pub(super) pc: u32,
    pub(super) who: crate::func::Who,
    pub(super) mask: u32,
    pub(super) addrs: [u64; 32],
    /// Its landing as far as the SM's read-only cache knows it (the issue
    /// cycle, or later for lines that hit).
    pub(super) ready: u64,
    /// Its lines that missed the read-only cache, or a store's lines:
    /// (line, sectors).
    pub(super) misses: Lines,
    /// A store's data: a row of each register it writes.
    pub(super) stored: Option<Box<[[u32; 32]; 4]>>,
    /// A load through L2 (`LD`): the registers it writes (the first, and
    /// how many), on the scoreboard until it is applied.
    pub(super) load: Option<(u8, u8)>,
}

/// A request's lines, (line, sectors): up to four in place (an `LDG.128`
/// of a warp along one row takes four), more on the heap. Kept off the
/// heap because a request is made on one thread and done on another.
#[derive(Default)]
pub(super) struct Lines {
    pub(super) n: u8,
    pub(super) few: [(u64, u32); 4],
    pub(super) more: Vec<(u64, u32)>,
}

impl Lines {
    pub(super) fn push(&mut self, l: (u64, u32)) {
        match self.n {
            0..=3 => self.few[self.n as usize] = l,
            4 => {
                self.more.extend_from_slice(&self.few);
                self.more.push(l);
            }
            _ => self.more.push(l),
        }
        self.n = self.n.saturating_add(1);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.n == 0
    }

    pub(super) fn as_slice(&self) -> &[(u64, u32)] {
        if self.n <= 4 {
            &self.few[..self.n as usize]
        } else {
            &self.more
        }
    }
}

/// A [`Request`] done: when its data land, and what they are.
pub struct Resolved {
    pub(super) wi: usize,
    pub(super) pending: bool,
    /// An `LD`'s registers (first, count) and lanes.
    pub(super) load: Option<(u8, u8, u32)>,
    pub(super) at: u64,
    pub(super) rows: [[u32; 32]; 4],
}

impl Resolved {
    /// The cycle its data land (`NEVER`: a store's, which land nowhere).
    pub fn lands(&self) -> u64 {
        self.at
    }
}

/// Reads or writes and times `r` (its data in `global`, its lines through
/// `mem` and the SM's read-only and L2 request slots `slots`, `ld_slots`):
/// what the SM's issue of it would have done had the chip's memory been at
/// hand, with the same error for an access that faults.
pub fn resolve(
    r: &Request,
    l: &Launch,
    global: &mut GlobalMem,
    mem: &mut Memory,
    slots: &mut Slots,
    ld_slots: &mut Slots,
) -> Result<Resolved, SimError> {
    let prog = l.prog;
    let Some(Kind::Ld { space, w: width } | Kind::St { space, w: width }) =
        prog.ops.get(r.pc as usize).map(|op| op.kind)
    else {
        unreachable!("only an LDG or a global store is deferred");
    };
    let (mut shared, mut local, mut locks) = ([0u8; 0], [0u8; 0], [0u32; 0]);
    let mut env = Env {
        prog,
        cbank0: l.cbank0,
        global,
        shared: &mut shared,
        local: &mut local,
        local_size: prog.local_size,
        block_idx: r.who.block,
        block_dim: l.block_dim,
        grid_dim: l.grid_dim,
        clock: r.cycle,
        sm: r.sm,
        sms: l.config.chip.sms,
        locks: &mut locks,
        pre: None,
        defer_global: false,
    };
    let fault = |e| crate::func::exec_fault_of(prog, &r.who, r.pc, e);
    if let Some(rows) = &r.stored {
        crate::exec::store_rows(&mut env, space, r.who.warp, &r.addrs, r.mask, width, rows)
            .map_err(fault)?;
        for &(line, sectors) in r.misses.as_slice() {
            mem.write(r.cycle, line, sectors);
        }
        return Ok(Resolved {
            wi: r.wi,
            pending: false,
            load: None,
            at: NEVER,
            rows: [[0; 32]; 4],
        });
    }
    let rows = crate::exec::load_rows(&mut env, space, r.who.warp, &r.addrs, r.mask, width)
        .map_err(fault)?;
    let (path, slots) = match r.load {
        Some(_) => (Path::L2, ld_slots),
        None => (Path::ReadOnly, slots),
    };
    let mut at = r.ready;
    for &(line, sectors) in r.misses.as_slice() {
        at = at.max(mem.read(r.cycle, line, sectors, path, slots));
    }
    // The SM ran on to `due`, sure that nothing lands before it.
    assert!(at >= r.due, "a load landed before its due cycle");
    Ok(Resolved {
        wi: r.wi,
        pending: r.pending,
        load: r.load.map(|(reg, n)| (reg, n, r.mask)),
        at,
        rows,
    })
}

/// Whether every lane of `mask` addresses global memory at `addrs` (none
/// through the shared or local window), and some lane does.
pub(super) fn global_only(mask: u32, addrs: &[u64; 32]) -> bool {
    let global = |a: u64| {
        !(SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a)
            && !(LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a)
    };
    mask != 0 && (0..32).all(|k| mask >> k & 1 == 0 || global(addrs[k]))
}

impl Sm {
    /// Makes this SM one of a threaded run ([`Sm::defer`]), whose
    /// read-only and L2 request slots the chip's loop keeps (it times the
    /// SM's loads, and lends the L2 ones back for an instruction's turn:
    /// [`Sm::lend`]): slots as the SM's are at the start, `t`'s, allocated
    /// apart from the SM's memory (the chip's loop writes them while a
    /// worker runs the SM).
    pub fn deferring(&mut self, t: &Timing) -> (Slots, Slots) {
        debug_assert!(self.last_tick.is_none(), "a threaded run starts the SM");
        self.defer = true;
        (Slots::new(t.ldg_outstanding), Slots::new(t.ld_outstanding))
    }

    /// Swaps the SM's L2 request slots with `slots`: the chip's loop lends
    /// them for an instruction's turn and takes them back after.
    pub fn lend(&mut self, slots: &mut Slots) {
        std::mem::swap(&mut self.ld_slots, slots);
    }

    /// The earliest cycle an access issued since the last
    /// [`Sm::take_requests`] may land in (`NEVER`: none issued).
    pub fn requests_due(&self) -> u64 {
        self.requests.iter().map(|r| r.due).min().unwrap_or(NEVER)
    }

    /// The `LDG`s issued since the last call, in issue order.
    pub fn take_requests(&mut self, into: &mut Vec<Request>) {
        into.append(&mut self.requests);
    }

    /// Fills in loads this SM issued in a threaded run, resolved in order
    /// ([`resolve`]): each lands when it would have, had it been timed at
    /// issue, and every cycle worked out from the unknown landing
    /// ([`UNTIMED`]: a `TEXDEPBAR`'s wait, the schedulers' and the SM's
    /// wakes) is worked out again.
    pub fn apply(&mut self, l: &Launch, done: &[Resolved]) {
        for r in done {
            if let Some((reg, n, mask)) = r.load {
                let (w, tm) = (&mut self.warps[r.wi], &mut self.timing[r.wi]);
                for k in 0..n {
                    if reg != 255 {
                        w.set_reg(reg + k, &r.rows[k as usize], mask);
                    }
                    tm.ready[reg.wrapping_add(k) as usize] = r.at;
                }
                tm.sb_pc = u32::MAX;
            }
        }
        // The earliest landing fixed: the SM must tick then.
        let mut fixed = NEVER;
        for r in done.iter().filter(|r| r.pending) {
            let tex = &mut self.timing[r.wi].tex;
            let k = tex
                .iter()
                .position(|p| p.open)
                .expect("a pending load waits for its request");
            // Held back behind the load before it, as at issue, and so
            // are the loads after it up to the next one not resolved.
            let at = if k > 0 { tex[k - 1].at.max(r.at) } else { r.at };
            let p = &mut tex[k];
            (p.at, p.own, p.open) = (at, r.at, false);
            // Only its registers' rows: the rest were never written (and
            // would cross from the thread that resolved it for nothing).
            p.rows[..p.n as usize].copy_from_slice(&r.rows[..p.n as usize]);
            fixed = fixed.min(at);
            for j in k + 1..tex.len() {
                if tex[j].open {
                    break;
                }
                tex[j].at = tex[j - 1].at.max(tex[j].own);
            }
        }
        let mut next = NEVER;
        for (bi, b) in self.blocks.iter().enumerate() {
            if b.live {
                for tm in &self.timing[warps_at(bi, self.wpb)] {
                    if let Some(p) = tm.tex.front() {
                        next = next.min(p.at);
                    }
                }
            }
        }
        self.next_land = next;
        let mut wake = self.wake.min(fixed);
        for s in 0..self.nsched {
            let mut low = NEVER;
            for i in 0..self.scheds[s].nslots {
                let sl = self.scheds[s].slots[i];
                if sl.not_before != UNTIMED {
                    continue;
                }
                // A `TEXDEPBAR` waits for an LDG's landing, anything else
                // on the scoreboard for an LD's registers.
                let wi = sl.warp as usize;
                let tm = &self.timing[wi];
                let info = &l.infos[self.warps[wi].pc as usize];
                let at = match (sl.why, info.texdepbar) {
                    (Stall::Texture, Some(n)) => tm.tex[tm.tex.len() - n as usize - 1].at,
                    (Stall::Dependency, _) => scoreboard(tm, info).0,
                    _ => unreachable!("only a load's landing is not known"),
                };
                self.scheds[s].slots[i].not_before = at;
                low = low.min(at);
            }
            if low != NEVER {
                let sc = &mut self.scheds[s];
                sc.others = sc.others.min(low);
                self.wakes[s] = self.wakes[s].min(low);
                wake = wake.min(self.wakes[s]);
            }
        }
        self.wake = wake;
    }
}
