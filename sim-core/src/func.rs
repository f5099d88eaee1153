//! The functional model: runs a grid of blocks to completion, block by block,
//! with no notion of time.
//!
//! Within a block, warps take turns (each runs until it reaches a barrier, exits
//! or has run a quantum of instructions), so results of a correct program do not
//! depend on the order; blocks run in grid order. Errors come back as a
//! [`SimError`] that names the kernel, block, thread, instruction and what went
//! wrong, in the manner of compute-sanitizer.

use std::fmt;

use crate::config::Chip;
use crate::exec::{exec, Env, ExecError};
use crate::mem::{GlobalMem, LOCAL_WINDOW, SHARED_WINDOW};
use crate::op::BarRed;
use crate::program::Program;
use crate::warp::{Warp, WarpState};

/// Grid and block shape of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dims {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: u32,
}

impl Dims {
    pub fn threads_per_block(&self) -> u32 {
        self.block[0] * self.block[1] * self.block[2]
    }
    pub fn blocks(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product()
    }
}

/// The block at `index` in the order a grid of `grid` blocks is dispatched
/// in: x fastest, then y, then z.
pub fn block_at(grid: [u32; 3], index: u64) -> [u32; 3] {
    let [gx, gy, _] = grid.map(|g| g.max(1) as u64);
    [
        (index % gx) as u32,
        (index / gx % gy) as u32,
        (index / (gx * gy)) as u32,
    ]
}

/// [`block_at`]'s inverse: where `block` comes in the dispatch order.
pub fn block_index(grid: [u32; 3], block: [u32; 3]) -> u64 {
    let [gx, gy, _] = grid.map(|g| g as u64);
    block[0] as u64 + gx * (block[1] as u64 + gy * block[2] as u64)
}

/// Where in the grid an error happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub kernel: String,
    pub block: [u32; 3],
    /// The first thread concerned, when one is.
    pub thread: Option<[u32; 3]>,
    /// Byte address of the instruction.
    pub pc: u64,
    /// Its SASS text.
    pub text: String,
}

/// Why a launch stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The launch itself is invalid (checked before any block runs).
    #[error("launch of `{kernel}`: {why}")]
    BadLaunch { kernel: String, why: String },
    /// An instruction failed.
    #[error("{what}\n    at {:#06x} in {}: {}\n    by thread {} in block ({}, {}, {})",
        .at.pc, .at.kernel, .at.text,
        .at.thread.map_or("(whole warp)".to_string(), |t| format!("({}, {}, {})", t[0], t[1], t[2])),
        .at.block[0], .at.block[1], .at.block[2])]
    Fault { what: String, at: Location },
    /// No warp of a block can go on.
    #[error("deadlock in `{kernel}` block ({}, {}, {}): {why}", .block[0], .block[1], .block[2])]
    Deadlock {
        kernel: String,
        block: [u32; 3],
        why: String,
    },
    /// A block ran past the instruction limit.
    #[error("`{kernel}` block ({}, {}, {}) ran past the limit of {limit} warp-instructions (an endless loop? raise it with instruction_limit)", .block[0], .block[1], .block[2])]
    Limit {
        kernel: String,
        block: [u32; 3],
        limit: u64,
    },
}

/// Counts from a completed run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunStats {
    pub blocks: u64,
    pub warp_instructions: u64,
}

/// Instructions a warp runs before the next warp of its block gets a turn.
const QUANTUM: u32 = 256;

/// Constant bank 0 as the code expects it (learned from ptxas 11.8's sm_35
/// output): 0x20 shared window, 0x24 local window, 0x28..0x30 block size,
/// 0x34..0x3c grid size, 0x44 top of the per-thread stack, parameters from 0x140.
pub fn build_cbank0(prog: &Program, dims: &Dims, params: &[u8]) -> Vec<u8> {
    let mut c = vec![0u8; 0x140 + params.len().max(prog.param_size as usize)];
    let mut put = |off: usize, v: u32| c[off..off + 4].copy_from_slice(&v.to_le_bytes());
    put(0x20, SHARED_WINDOW as u32);
    put(0x24, LOCAL_WINDOW as u32);
    put(0x28, dims.block[0]);
    put(0x2c, dims.block[1]);
    put(0x30, dims.block[2]);
    put(0x34, dims.grid[0]);
    put(0x38, dims.grid[1]);
    put(0x3c, dims.grid[2]);
    put(0x44, prog.local_size);
    c[0x140..0x140 + params.len()].copy_from_slice(params);
    c
}

/// The most blocks one simulated launch may have (sm_35 allows about 2^63;
/// the simulator lists a grid's blocks before it runs them).
pub const MAX_BLOCKS: u64 = 1 << 24;

/// Checks a launch against the hardware's and the kernel's limits.
pub fn check_launch(
    prog: &Program,
    dims: &Dims,
    params: &[u8],
    chip: &Chip,
) -> Result<(), SimError> {
    let bad = |why: String| {
        Err(SimError::BadLaunch {
            kernel: prog.name.clone(),
            why,
        })
    };
    let t = dims.threads_per_block() as u64;
    if dims.block.contains(&0) || dims.grid.contains(&0) {
        return bad(format!(
            "grid {:?} and block {:?} must not be empty",
            dims.grid, dims.block
        ));
    }
    let most = chip.max_threads_per_block;
    if dims.block[0] > most || dims.block[1] > most || dims.block[2] > 64 || t > most as u64 {
        let [x, y, z] = dims.block;
        return bad(format!(
            "block ({x}, {y}, {z}) exceeds sm_35's limits ({most} threads, z at most 64)"
        ));
    }
    if dims.grid[0] > 0x7fff_ffff || dims.grid[1] > 65535 || dims.grid[2] > 65535 {
        let [x, y, z] = dims.grid;
        return bad(format!(
            "grid ({x}, {y}, {z}) exceeds sm_35's limits (x at most 2147483647, y and z at most 65535)"
        ));
    }
    if dims.blocks() > MAX_BLOCKS {
        return bad(format!(
            "grid {:?} has {} blocks; keplersim simulates at most {MAX_BLOCKS} in one launch",
            dims.grid,
            dims.blocks()
        ));
    }
    if let Some(r) = prog.req_ntid {
        if r != dims.block {
            return bad(format!(
                "the kernel requires block {r:?} (.reqntid), launched with {:?}",
                dims.block
            ));
        }
    }
    if let Some(mx) = prog.max_threads {
        let cap = mx[0] as u64 * mx[1].max(1) as u64 * mx[2].max(1) as u64;
        if t > cap {
            return bad(format!(
                "the kernel allows at most {cap} threads per block (.maxntid), launched with {t}"
            ));
        }
    }
    let shared = prog.shared_size as u64 + dims.dynamic_shared as u64;
    if shared > chip.shared_per_block as u64 {
        return bad(format!(
            "{shared} bytes of shared memory per block exceed the {} bytes a block may have",
            chip.shared_per_block
        ));
    }
    if prog.registers as u64 * t > chip.registers_per_sm as u64 {
        return bad(format!(
            "{} registers x {t} threads exceed the {} registers of an SM",
            prog.registers, chip.registers_per_sm
        ));
    }
    if prog.registers > chip.max_registers_per_thread {
        return bad(format!(
            "{} registers per thread exceed the {} a thread may have",
            prog.registers, chip.max_registers_per_thread
        ));
    }
    if params.len() != prog.param_size as usize {
        return bad(format!(
            "the kernel takes {} bytes of parameters, the launch gives {}",
            prog.param_size,
            params.len()
        ));
    }
    Ok(())
}

/// The order blocks run in. A correct kernel gives the same results in every
/// order; the others exist to show that (and to find kernels that do not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum BlockOrder {
    /// x fastest, then y, then z (the hardware's dispatch order).
    #[default]
    Natural,
    /// The natural order backwards.
    Reverse,
    /// A permutation drawn from this seed.
    Shuffled(u64),
}

/// How to run a grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunOptions {
    /// The most warp-instructions one block may execute.
    pub limit: u64,
    pub order: BlockOrder,
    /// The chip's limits (`configs/k20m.ron`).
    pub chip: Chip,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            limit: 1 << 32,
            order: BlockOrder::Natural,
            chip: Chip::K20M,
        }
    }
}

/// Runs the whole grid in natural order. `limit` bounds the warp-instructions of
/// each block.
pub fn run(
    prog: &Program,
    global: &mut GlobalMem,
    dims: &Dims,
    params: &[u8],
    limit: u64,
) -> Result<RunStats, SimError> {
    run_with(
        prog,
        global,
        dims,
        params,
        &RunOptions {
            limit,
            ..RunOptions::default()
        },
    )
}

/// The blocks of `dims` in `order`.
fn block_list(dims: &Dims, order: BlockOrder) -> Vec<[u32; 3]> {
    let mut v = Vec::with_capacity(dims.blocks() as usize);
    for bz in 0..dims.grid[2] {
        for by in 0..dims.grid[1] {
            for bx in 0..dims.grid[0] {
                v.push([bx, by, bz]);
            }
        }
    }
    match order {
        BlockOrder::Natural => {}
        BlockOrder::Reverse => v.reverse(),
        BlockOrder::Shuffled(seed) => {
            use rand::seq::SliceRandom;
            use rand::SeedableRng;
            v.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
        }
    }
    v
}

/// Runs the whole grid as `opts` say.
pub fn run_with(
    prog: &Program,
    global: &mut GlobalMem,
    dims: &Dims,
    params: &[u8],
    opts: &RunOptions,
) -> Result<RunStats, SimError> {
    let limit = opts.limit;
    check_launch(prog, dims, params, &opts.chip)?;
    let cbank0 = build_cbank0(prog, dims, params);
    let mut stats = RunStats::default();
    let tpb = dims.threads_per_block();
    let nwarps = tpb.div_ceil(32);
    let shared_len = (prog.shared_size + dims.dynamic_shared) as usize;
    let mut shared = vec![0u8; shared_len];
    let mut local = vec![0u8; nwarps as usize * 32 * prog.local_size as usize];
    let mut locks = vec![0u32; shared_len.div_ceil(128).max(1)];
    let mut warps: Vec<Warp> = (0..nwarps)
        .map(|i| {
            let n = (tpb - i * 32).min(32);
            Warp::new(
                i,
                prog.registers,
                if n == 32 { u32::MAX } else { (1u32 << n) - 1 },
            )
        })
        .collect();
    for block in block_list(dims, opts.order) {
        shared.iter_mut().for_each(|b| *b = 0);
        local.iter_mut().for_each(|b| *b = 0);
        locks.iter_mut().for_each(|b| *b = 0);
        for (i, w) in warps.iter_mut().enumerate() {
            let n = (tpb - i as u32 * 32).min(32);
            w.reset(if n == 32 { u32::MAX } else { (1u32 << n) - 1 });
        }
        let mut env = Env {
            prog,
            cbank0: &cbank0,
            global,
            shared: &mut shared,
            local: &mut local,
            local_size: prog.local_size,
            block_idx: block,
            block_dim: dims.block,
            grid_dim: dims.grid,
            clock: 0,
            sm: 0,
            sms: opts.chip.sms,
            locks: &mut locks,
            pre: None,
            defer_global: false,
        };
        stats.warp_instructions += run_block(prog, &mut env, &mut warps, limit)?;
        stats.blocks += 1;
    }
    Ok(stats)
}

/// Runs one block's warps to completion; returns the warp-instructions executed.
fn run_block(
    prog: &Program,
    env: &mut Env,
    warps: &mut [Warp],
    limit: u64,
) -> Result<u64, SimError> {
    let mut total = 0u64;
    loop {
        for w in warps.iter_mut() {
            let mut n = 0;
            while w.state == WarpState::Running && n < QUANTUM {
                let pc = w.pc;
                let Some(op) = prog.ops.get(pc as usize) else {
                    return Err(fault(
                        prog,
                        env,
                        w,
                        pc,
                        None,
                        "the warp ran past the end of the code".into(),
                    ));
                };
                if let Err(e) = exec(op, w, env) {
                    return Err(exec_fault(prog, env, w, pc, e));
                }
                n += 1;
                env.clock += 1;
            }
            total += n as u64;
            if total > limit {
                return Err(SimError::Limit {
                    kernel: prog.name.clone(),
                    block: env.block_idx,
                    limit,
                });
            }
        }
        if warps.iter().all(|w| w.state == WarpState::Done) {
            return Ok(total);
        }
        if warps.iter().any(|w| w.state == WarpState::Running) {
            continue;
        }
        // Every live warp waits at a barrier: release the ones that can go.
        if !release_barriers(warps) {
            return Err(deadlock(prog, env, warps));
        }
    }
}

/// Releases every barrier whose expected threads have all arrived (exited warps
/// count as arrived, as on the hardware). Returns whether one was released.
pub(crate) fn release_barriers(warps: &mut [Warp]) -> bool {
    let live_threads: u32 = warps
        .iter()
        .filter(|w| w.state != WarpState::Done)
        .map(|w| (w.valid & !w.exited).count_ones())
        .sum();
    let mut released = false;
    for id in 0..16u8 {
        let (mut arrived, mut count) = (0u32, 0u32);
        for w in warps.iter() {
            if let WarpState::Barrier { id: i, count: c } = w.state {
                if i == id {
                    arrived += w.valid.count_ones();
                    count = count.max(c);
                }
            }
        }
        if arrived == 0 {
            continue;
        }
        let need = if count == 0 { live_threads } else { count };
        if arrived >= need {
            // A BAR.RED's result: the count, AND or OR over every arrived warp.
            let (mut popc, mut all, mut any) = (0u32, true, false);
            for w in warps.iter() {
                if let (WarpState::Barrier { id: i, .. }, Some((_, c, a, y))) = (w.state, w.bar_red)
                {
                    if i == id {
                        popc += c;
                        all &= a;
                        any |= y;
                    }
                }
            }
            for w in warps.iter_mut() {
                if matches!(w.state, WarpState::Barrier { id: i, .. } if i == id) {
                    w.state = WarpState::Running;
                    if let Some((red, _, _, _)) = w.bar_red.take() {
                        w.bar_result = match red {
                            BarRed::Popc => popc,
                            BarRed::And => all as u32,
                            BarRed::Or => any as u32,
                        };
                    }
                }
            }
            released = true;
        }
    }
    released
}

pub(crate) fn deadlock(prog: &Program, env: &Env, warps: &[Warp]) -> SimError {
    let mut waiting = Vec::new();
    for w in warps {
        if let WarpState::Barrier { id, .. } = w.state {
            let pc = (w.pc as u64).saturating_sub(1) * 8;
            waiting.push(format!("warp {} at barrier {id} (near {pc:#06x})", w.id));
        }
    }
    let done = warps.iter().filter(|w| w.state == WarpState::Done).count();
    SimError::Deadlock {
        kernel: prog.name.clone(),
        block: env.block_idx,
        why: format!(
            "a barrier that not every thread reaches: {}; {done} of {} warps have exited",
            waiting.join(", "),
            warps.len()
        ),
    }
}

/// Whose instruction faulted: its block, the block's shape, its warp and
/// the warp's lanes running.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Who {
    pub block: [u32; 3],
    pub block_dim: [u32; 3],
    pub warp: u32,
    pub active: u32,
}

impl Who {
    pub(crate) fn of(env: &Env, w: &Warp) -> Who {
        Who {
            block: env.block_idx,
            block_dim: env.block_dim,
            warp: w.id,
            active: w.active,
        }
    }

    fn thread(&self, lane: u32) -> [u32; 3] {
        let t = self.warp * 32 + lane;
        let b = self.block_dim;
        [t % b[0], (t / b[0]) % b[1], t / (b[0] * b[1])]
    }
}

pub(crate) fn fault(
    prog: &Program,
    env: &Env,
    w: &Warp,
    pc: u32,
    lane: Option<u32>,
    what: String,
) -> SimError {
    fault_of(prog, &Who::of(env, w), pc, lane, what)
}

fn fault_of(prog: &Program, who: &Who, pc: u32, lane: Option<u32>, what: String) -> SimError {
    SimError::Fault {
        what,
        at: Location {
            kernel: prog.name.clone(),
            block: who.block,
            thread: Some(who.thread(lane.unwrap_or(who.active.trailing_zeros().min(31)))),
            pc: pc as u64 * 8,
            text: prog.text(pc),
        },
    }
}

pub(crate) fn exec_fault(prog: &Program, env: &Env, w: &Warp, pc: u32, e: ExecError) -> SimError {
    exec_fault_of(prog, &Who::of(env, w), pc, e)
}

/// The error for the executor's `e` at `pc`, by `who`.
pub(crate) fn exec_fault_of(prog: &Program, who: &Who, pc: u32, e: ExecError) -> SimError {
    match e {
        ExecError::OutOfBounds {
            space,
            write,
            lane,
            addr,
            size,
            detail,
        } => fault_of(
            prog,
            who,
            pc,
            Some(lane),
            format!(
                "out-of-bounds {space} {} of {size} bytes at {addr:#x}: {detail}",
                if write { "write" } else { "read" }
            ),
        ),
        ExecError::Misaligned {
            space,
            write,
            lane,
            addr,
            size,
        } => fault_of(
            prog,
            who,
            pc,
            Some(lane),
            format!(
                "misaligned {space} {} of {size} bytes at {addr:#x} (must be a multiple of {size})",
                if write { "write" } else { "read" }
            ),
        ),
        ExecError::Illegal(why) if why.starts_with("illegal") => fault_of(prog, who, pc, None, why),
        ExecError::Illegal(why) => fault_of(prog, who, pc, None, format!("illegal instruction: {why}")),
        ExecError::Stack(why) => fault_of(prog, who, pc, None, format!("control flow: {why}")),
        ExecError::DivergentBarrier { arrived, live } => fault_of(
            prog,
            who,
            pc,
            Some((live & !arrived).trailing_zeros()),
            format!(
                "a barrier that not every thread reaches: {} of warp {}'s {} live threads arrived (divergent __syncthreads)",
                arrived.count_ones(),
                who.warp,
                live.count_ones()
            ),
        ),
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "grid ({}, {}, {}) x block ({}, {}, {})",
            self.grid[0], self.grid[1], self.grid[2], self.block[0], self.block[1], self.block[2]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// x fastest, then y, then z; and back.
    #[test]
    fn blocks_come_x_first_and_their_index_is_found_again() {
        let grid = [3, 2, 4];
        let order: Vec<[u32; 3]> = (0..24).map(|i| block_at(grid, i)).collect();
        assert_eq!(&order[..4], [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]]);
        assert_eq!(order[6], [0, 0, 1]);
        assert_eq!(order[23], [2, 1, 3]);
        for (i, &b) in order.iter().enumerate() {
            assert_eq!(block_index(grid, b), i as u64);
        }
    }
}
