//! Executes an issued instruction through the functional executor and times
//! it: ALU results on the scoreboard, the SFU and FP64 units, shared memory
//! through the load/store unit, local memory in L1, global accesses through
//! the load/store unit and L2 or through the texture pipeline and the
//! read-only cache, and a threaded run's global accesses as requests.

use crate::config::Timing;
use crate::exec::{addresses, exec, exec_shared, ffma3, guard_mask, next_slot};
use crate::func::{exec_fault, fault, SimError};
use crate::mem::{GlobalMem, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::op::{Kind, Op, Space};
use crate::warp::WarpState;

use crate::timing::events::{Event, Observer, Stall, Stats};
use crate::timing::l2::{Memory, Path};
use crate::timing::lsu::{global_lines, shared_transactions_with_bytes, transactions_with_bytes};
use crate::timing::pipes::{Info, Latency, Pipe};

use super::requests::{global_only, Lines, Request};
use super::scoreboard::{write_ready, Pending};
use super::{block_env, Launch, Sm, NEVER, UNTIMED};

impl Sm {
    /// Executes one instruction of warp `wi` (of block slot `bi`) and times it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn execute<O: Observer>(
        &mut self,
        s: usize,
        bi: usize,
        wi: usize,
        now: u64,
        l: &Launch,
        global: &mut GlobalMem,
        mem: &mut Memory,
        obs: &mut O,
    ) -> Result<(), SimError> {
        let t = &l.config.timing;
        let prog = l.prog;
        let sm = self.id;
        let b = &mut self.blocks[bi];
        let w = &mut self.warps[wi];
        let tm = &mut self.timing[wi];
        let pc = w.pc;
        tm.sb_pc = u32::MAX;
        let (Some(op), Some(info)) = (prog.ops.get(pc as usize), l.infos.get(pc as usize)) else {
            let env = block_env(l, global, &mut b.mem, b.idx, now, sm);
            return Err(fault(
                prog,
                &env,
                w,
                pc,
                None,
                "the warp ran past the end of the code".into(),
            ));
        };
        b.executed += 1;
        self.stats.thread_instructions += w.active.count_ones() as u64;
        if info.fp32 {
            let per_lane = if matches!(op.kind, Kind::FFma { .. }) {
                2
            } else {
                1
            };
            self.stats.flops_sp += per_lane * (w.active & guard_mask(w, op)).count_ones() as u64;
        }
        if b.executed > l.limit {
            return Err(SimError::Limit {
                kernel: prog.name.clone(),
                block: b.idx,
                limit: l.limit,
            });
        }
        // A read of a register an LDG has not yet written reads its old value.
        if !tm.tex.is_empty()
            && info.reads().iter().any(|&r| {
                tm.tex
                    .iter()
                    .any(|p| (p.reg as u32..p.reg as u32 + p.n as u32).contains(&(r as u32)))
            })
        {
            self.stats.hazards += 1;
        }
        // The kernels' address arithmetic: no memory, no branch, a fixed
        // latency.
        if let Some(f) = info.int {
            if l.int.run(op, f, w, prog, l.cbank0) {
                self.stats.warp_instructions += 1;
                self.stats.fp32 += info.fp32 as u64;
                write_ready(tm, info, now, now, t);
                return Ok(());
            }
        }
        // The kernels' FFMA: no memory, no branch, a fixed latency.
        if info.ffma && ffma3(op, w, l.ffma) {
            self.stats.warp_instructions += 1;
            self.stats.fp32 += info.fp32 as u64;
            write_ready(tm, info, now, now, t);
            return Ok(());
        }
        // The kernels' LDS/STS: run, addressed and timed in one pass.
        if info.pipe == Pipe::Lsu {
            let mut a32 = [0u32; 32];
            if let Some((mask, size, shape)) = exec_shared(op, w, &mut b.mem.shared, &mut a32) {
                self.stats.warp_instructions += 1;
                let (tx, bytes) = transactions_with_bytes(
                    shape,
                    &a32,
                    mask,
                    size,
                    t.shared_bank_bytes,
                    t.shared_transaction_bytes,
                );
                self.lsu.free = now + 1;
                let ready = self.lsu.shared(now, tx, bytes, t, &mut self.stats);
                self.replays(s, pc, now, tx, t);
                shared_counts(&mut self.stats, op, mask, size, tx);
                write_ready(&mut self.timing[wi], info, now, ready, t);
                self.shared_event(obs, now, s, bi, wi, pc, tx, ready);
                return Ok(());
            }
        }
        let mut env = block_env(l, global, &mut b.mem, b.idx, now, sm);
        // The lanes and addresses of a memory access, before it runs.
        let mask = w.active & guard_mask(w, op);
        let access = match op.kind {
            Kind::Ld { space, w: width } | Kind::St { space, w: width } => {
                addresses(w, op, space, &env)
                    .ok()
                    .map(|a| (a, space, width.bytes()))
            }
            Kind::Atom { space, ty, .. } => addresses(w, op, space, &env).ok().map(|a| {
                (
                    a,
                    space,
                    if matches!(ty, crate::op::AtomType::U64 | crate::op::AtomType::S64) {
                        8
                    } else {
                        4
                    },
                )
            }),
            Kind::LdsLk { wide } | Kind::StsCul { wide } => addresses(w, op, Space::Shared, &env)
                .ok()
                .map(|a| (a, Space::Shared, if wide { 8 } else { 4 })),
            _ => None,
        };
        if matches!(op.kind, Kind::Ld { .. } | Kind::St { .. }) {
            env.pre = access.as_ref().map(|a| &a.0);
        }
        // An LDG of a threaded run, or a store to global memory alone: its
        // data and lines wait for their turn (one with no lane active reads,
        // writes and times nothing).
        let generic = self.defer
            && matches!(op.kind, Kind::Ld { .. } | Kind::St { .. })
            && matches!(&access, Some((a, Space::Generic, _)) if global_only(mask, a));
        let store_rows = match op.kind {
            Kind::St { w: width, .. } if generic => Some(crate::exec::stored_rows(op, w, width)),
            _ => None,
        };
        let defer = self.defer && info.lat == Latency::Texture && mask != 0 || generic;
        env.defer_global = defer;
        let tex = info.lat == Latency::Texture && info.ndst > 0;
        let saved: Option<[[u32; 32]; 4]> = (tex && !defer).then(|| {
            std::array::from_fn(|k| {
                if k < info.ndst as usize {
                    w.reg(info.dst + k as u8)
                } else {
                    [0; 32]
                }
            })
        });
        if let Err(e) = exec(op, w, &mut env) {
            return Err(exec_fault(prog, &env, w, pc, e));
        }
        self.stats.warp_instructions += 1;
        self.stats.fp32 += info.fp32 as u64;
        if info.texdepbar.is_some() {
            tm.next_issue = tm.next_issue.max(now + t.texdepbar_cycles as u64);
        }
        if w.pc != next_slot(pc) && w.state == WarpState::Running {
            tm.next_issue = tm.next_issue.max(now + 1 + t.branch_latency as u64);
        }
        // When the result is ready, and what the units are busy with.
        let sc = &mut self.scheds[s];
        let mut ready = now;
        match info.pipe {
            Pipe::Sfu => {
                sc.sfu_free = now + t.sfu_interval as u64;
                ready = now + t.sfu_latency as u64;
            }
            Pipe::Fp64 => {
                sc.fp64_free = now + t.fp64_interval as u64;
                ready = now + t.fp64_latency as u64;
            }
            _ => {}
        }
        match info.lat {
            Latency::S2R => ready = now + t.s2r_latency as u64,
            Latency::Const => ready = now + t.ldc_latency as u64,
            _ => {}
        }
        if info.pipe == Pipe::Lsu {
            let access = access.map(|(addrs, space, size)| {
                let a = Access {
                    addrs,
                    mask,
                    size,
                    store: matches!(op.kind, Kind::St { .. } | Kind::StsCul { .. }),
                    defer,
                    pending: tex,
                    stored: store_rows,
                };
                (a, space)
            });
            ready = self.memory(s, bi, wi, pc, now, l, mem, obs, op, info, access, ready);
        }
        self.write_back(wi, now, info, t, mask, tex && defer, saved, ready);
        Ok(())
    }

    /// Times a load, store, atomic or shuffle of warp `wi` (`access`: its
    /// lanes' addresses and space, when it has them): shared memory through
    /// the LSU, local memory in L1, global memory through the LSU and L2 or
    /// down the texture pipeline ([`Sm::global`]); gives when its result is
    /// ready (`ready` if nothing makes it later).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn memory<O: Observer>(
        &mut self,
        s: usize,
        bi: usize,
        wi: usize,
        pc: u32,
        now: u64,
        l: &Launch,
        mem: &mut Memory,
        obs: &mut O,
        op: &Op,
        info: &Info,
        access: Option<(Access, Space)>,
        mut ready: u64,
    ) -> u64 {
        let t = &l.config.timing;
        // LDG goes down the texture pipeline, every other access the LSU.
        let tex_path = info.lat == Latency::Texture;
        if tex_path {
            self.tex_free = now + 1;
        } else {
            self.lsu.free = now + 1;
        }
        if let Some((a, space)) = access {
            let (addrs, mask, size) = (a.addrs, a.mask, a.size);
            let first = (0..32)
                .find(|&l| mask >> l & 1 == 1)
                .map_or(0, |l| addrs[l]);
            let window =
                |base: u64| space == Space::Generic && (base..base + WINDOW_SIZE).contains(&first);
            if space == Space::Shared
                || window(SHARED_WINDOW)
                || matches!(op.kind, Kind::Shfl { .. })
            {
                let (tx, bytes) = shared_transactions_with_bytes(
                    &addrs,
                    mask,
                    size,
                    t.shared_bank_bytes,
                    t.shared_transaction_bytes,
                );
                ready = self.lsu.shared(now, tx, bytes, t, &mut self.stats);
                self.replays(s, pc, now, tx, t);
                if !matches!(op.kind, Kind::Shfl { .. }) {
                    shared_counts(&mut self.stats, op, mask, size, tx);
                }
                self.shared_event(obs, now, s, bi, wi, pc, tx, ready);
            } else if space == Space::Local || window(LOCAL_WINDOW) {
                // Local memory lives in L1, and hits it.
                let mut lines = [(0u64, 0u32); 64];
                let n = global_lines(&addrs, mask, size, &mut lines);
                self.lsu.free = now + n.max(1) as u64;
                self.replays(s, pc, now, n as u32, t);
                ready = now + n.max(1) as u64 - 1 + t.l1_latency as u64;
            } else {
                ready = self.global(s, bi, wi, pc, now, l, mem, obs, op, info, a, ready);
            }
        } else if matches!(op.kind, Kind::Shfl { .. }) {
            let start = now.max(self.lsu.shared_free);
            self.lsu.shared_free = start + 1;
            ready = start + t.lds_latency as u64;
        }
        ready
    }

    /// Puts warp `wi`'s result on the scoreboard, ready at `ready`; a
    /// texture load's is held back until it arrives, in order (`saved`: the
    /// registers' values before it ran), or until its request is resolved
    /// and applied (`deferred`).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn write_back(
        &mut self,
        wi: usize,
        now: u64,
        info: &Info,
        t: &crate::config::Timing,
        mask: u32,
        deferred: bool,
        saved: Option<[[u32; 32]; 4]>,
        ready: u64,
    ) {
        let (w, tm) = (&mut self.warps[wi], &mut self.timing[wi]);
        if deferred {
            // Held back until its request is resolved and applied.
            tm.tex.push_back(Pending {
                at: UNTIMED,
                own: UNTIMED,
                reg: info.dst,
                n: info.ndst.min(4),
                mask,
                open: true,
                rows: [[0; 32]; 4],
            });
            self.next_land = self.next_land.min(UNTIMED);
        } else if let Some(saved) = saved {
            // Hold the loaded value back until it arrives, in order.
            let at = tm.tex.back().map_or(ready, |p| p.at.max(ready));
            let mut p = Pending {
                at,
                own: ready,
                reg: info.dst,
                n: info.ndst.min(4),
                mask,
                open: false,
                rows: [[0; 32]; 4],
            };
            for k in 0..p.n {
                p.rows[k as usize] = w.reg(info.dst + k);
                w.set_reg(info.dst + k, &saved[k as usize], u32::MAX);
            }
            tm.tex.push_back(p);
            self.next_land = self.next_land.min(at);
        } else {
            write_ready(tm, info, now, ready, t);
        }
    }

    /// Tells the observer of warp `wi`'s shared-memory access (of block slot
    /// `bi`, issued by scheduler `s` at `now`, the instruction at slot `pc`):
    /// its transactions, and when its data are ready.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn shared_event<O: Observer>(
        &self,
        obs: &mut O,
        now: u64,
        s: usize,
        bi: usize,
        wi: usize,
        pc: u32,
        tx: u32,
        ready: u64,
    ) {
        if O::ACTIVE {
            obs.event(Event::Shared {
                cycle: now,
                sm: self.id,
                sched: s as u8,
                slot: bi as u8,
                warp: (wi - bi * self.wpb) as u8,
                pc,
                transactions: tx,
                ready,
            });
        }
    }

    /// Holds scheduler `s` after the access at slot `pc` until cycle
    /// `until`, its cycles charged to `why`.
    fn hold(&mut self, s: usize, pc: u32, until: u64, why: Stall) {
        let sc = &mut self.scheds[s];
        sc.held_until = until;
        sc.held = why;
        sc.held_pc = pc;
    }

    /// Holds scheduler `s` for the replays of the load/store-unit access
    /// it issued at `now` (the instruction at slot `pc`), which needs `tx`
    /// transactions: each beyond the first is issued again, taking
    /// `replay_issue_cycles` of the scheduler's issue cycles.
    fn replays(&mut self, s: usize, pc: u32, now: u64, tx: u32, t: &Timing) {
        let r = tx.saturating_sub(1) as u64 * t.replay_issue_cycles as u64;
        if r > 0 {
            self.hold(s, pc, now + 1 + r, Stall::Replay);
        }
    }

    /// Times warp `wi`'s global access `a` (of block slot `bi`, issued by
    /// scheduler `s` at `now`, the instruction at slot `pc`): the load/store
    /// unit's or the texture pipeline's busy time, the lines through the
    /// read-only cache and L2, or, in a threaded run, a [`Request`] for its
    /// turn. Returns when its data are ready (`ready` at the earliest;
    /// [`UNTIMED`] for a request through L2).
    #[allow(clippy::too_many_arguments)]
    fn global<O: Observer>(
        &mut self,
        s: usize,
        bi: usize,
        wi: usize,
        pc: u32,
        now: u64,
        l: &Launch,
        mem: &mut Memory,
        obs: &mut O,
        op: &Op,
        info: &Info,
        a: Access,
        mut ready: u64,
    ) -> u64 {
        let t = &l.config.timing;
        let sm = self.id;
        let tex_path = info.lat == Latency::Texture;
        let Access {
            addrs,
            mask,
            size,
            store,
            defer,
            pending: tex,
            stored,
        } = a;
        let mut lines = [(0u64, 0u32); 64];
        let n = global_lines(&addrs, mask, size, &mut lines);
        if tex_path {
            // The texture pipeline takes a line a cycle, and the
            // scheduler dispatches nothing while it takes the
            // lanes: `ldg_issue_cycles` for an LDG.E.128's 512
            // bytes, a narrower one in proportion.
            self.tex_free = now + n.max(1) as u64;
            let bytes = mask.count_ones() as u64 * size as u64;
            let hold = (t.ldg_issue_cycles as u64 * bytes).div_ceil(512);
            let until = now + hold.max(1);
            if t.ldg_hold_scope == 1 {
                // The warp alone (`ldg_hold_scope` 1).
                let tm = &mut self.timing[wi];
                tm.ldg_until = until;
                tm.next_issue = tm.next_issue.max(until);
            } else {
                self.hold(s, pc, until, Stall::PipeBusy);
            }
        } else {
            // The LSU, `global_lsu_bytes` of each line a cycle.
            let per = t.global_lsu_bytes.max(1);
            let busy: u64 = lines[..n]
                .iter()
                .map(|&(_, sectors)| (sectors * 32).div_ceil(per) as u64)
                .sum();
            self.lsu.free = now + busy.max(1);
            self.replays(s, pc, now, n as u32, t);
        }
        self.stats.global_transactions += n as u64;
        self.stats.global_instructions += 1;
        let sectors: u64 = lines[..n].iter().map(|&(_, s)| s as u64).sum();
        let bytes = mask.count_ones() as u64 * size as u64;
        if store {
            self.stats.global_stores += 1;
            self.stats.global_store_sectors += sectors;
            self.stats.global_store_bytes += bytes;
        } else if matches!(op.kind, Kind::Ld { .. }) {
            self.stats.global_loads += 1;
            self.stats.global_load_sectors += sectors;
            self.stats.global_load_bytes += bytes;
        }
        if info.lat == Latency::Texture {
            self.stats.ldg_lines += n as u64;
        }
        let path = if info.lat == Latency::Texture {
            Path::ReadOnly
        } else {
            Path::L2
        };
        let slots = if path == Path::ReadOnly {
            &mut self.ldg_slots
        } else {
            &mut self.ld_slots
        };
        // Counters before, to tell the observer the lines' outcomes.
        let (cache0, l2_0) = (self.stats.ldg_cache_hits, mem.stats.l2_hits);
        let mut misses = Lines::default();
        for &(line, sectors) in &lines[..n] {
            // A line the read-only cache holds, or has asked L2
            // for: its data come no sooner than the fastest L2
            // answer to the request that brought it (a bound
            // known at issue, so the same at any thread count).
            let held = (path == Path::ReadOnly)
                .then(|| self.rocache.lookup_filled(line, now + self.ldg_l2))
                .flatten();
            if let Some(filled) = held {
                self.stats.ldg_cache_hits += 1;
                ready = ready.max((now + t.ldg_cache_latency as u64).max(filled));
            } else if defer {
                misses.push((line, sectors));
            } else if store {
                mem.write(now, line, sectors);
            } else {
                ready = ready.max(mem.read(now, line, sectors, path, slots));
            }
        }
        if defer {
            let due = if store {
                // Nothing lands.
                NEVER
            } else if path == Path::L2 {
                now + self.ld_l2
            } else if misses.is_empty() {
                ready.max(now + self.ldg_hit)
            } else {
                ready.max(now + self.ldg_l2)
            };
            let w = &self.warps[wi];
            self.requests.push(Request {
                cycle: now,
                sm,
                due,
                wi,
                pending: tex,
                pc,
                who: crate::func::Who {
                    block: self.blocks[bi].idx,
                    block_dim: l.block_dim,
                    warp: w.id,
                    active: w.active,
                },
                mask,
                addrs,
                ready,
                misses,
                stored: stored.map(Box::new),
                load: (path == Path::L2 && !store).then_some((info.dst, info.ndst)),
            });
            self.horizon = self.horizon.min(due);
            if path == Path::L2 {
                // Its registers are written when it is resolved.
                ready = UNTIMED;
            }
        }
        if O::ACTIVE {
            let cache_hits = self.stats.ldg_cache_hits - cache0;
            let l2_hits = mem.stats.l2_hits - l2_0;
            obs.event(Event::Global {
                cycle: now,
                sm,
                sched: s as u8,
                slot: bi as u8,
                warp: (wi - bi * self.wpb) as u8,
                pc,
                store,
                lines: n as u8,
                sectors: sectors.min(u16::MAX as u64) as u16,
                cache_hits: cache_hits as u8,
                l2_hits: l2_hits as u8,
                l2_misses: (n as u64 - cache_hits - l2_hits) as u8,
                ready,
            });
        }
        ready
    }
}

/// A global access as [`Sm::execute`] found it, for [`Sm::global`]: its
/// active lanes (`mask`), their addresses and bytes each (`size`), and how
/// it goes (a store; a threaded run's request, and whether a [`Pending`]
/// waits for it, with a store's data).
struct Access {
    addrs: [u64; 32],
    mask: u32,
    size: u32,
    store: bool,
    defer: bool,
    pending: bool,
    stored: Option<[[u32; 32]; 4]>,
}

/// Counts a shared-memory load's or store's instruction, transactions and
/// the bytes its active lanes (`mask`, `size` bytes each) asked for.
#[inline]
pub(super) fn shared_counts(st: &mut Stats, op: &Op, mask: u32, size: u32, tx: u32) {
    let bytes = mask.count_ones() as u64 * size as u64;
    if matches!(op.kind, Kind::St { .. } | Kind::StsCul { .. }) {
        st.shared_stores += 1;
        st.shared_store_transactions += tx as u64;
        st.shared_store_bytes += bytes;
    } else {
        st.shared_loads += 1;
        st.shared_load_transactions += tx as u64;
        st.shared_load_bytes += bytes;
    }
}
