//! The cycle-level model of the K20m, one module per hardware block:
//!
//! - `ctrl`: the control byte's reading (stall counts, dual issue).
//! - `pipes`: each instruction's execution pipe, latency class and registers.
//! - `collector`: the register banks and the operand collector's reuse.
//! - `sm`: an SM's warps, schedulers, dual issue over the shared core groups,
//!   scoreboard, read-only-load barrier, LSU and shared memory.
//! - `lsu`: shared-memory transactions and global coalescing.
//! - `cache`: tag stores (the instruction cache, the read-only cache).
//! - `l2`: L2, DRAM and the outstanding-request limits.
//! - `gpu`: the block dispatcher (occupancy) and the cycle loop.
//! - `events`: counters and the per-cycle observer.

pub mod cache;
pub mod collector;
pub mod ctrl;
pub mod events;
pub mod gpu;
pub mod l2;
pub mod lsu;
pub mod pipes;
pub mod sm;

pub use events::{Event, Nobody, Observer, Recorder, Stall, Stats};
pub use gpu::{occupancy, run_timed, Occupancy, Timed};
