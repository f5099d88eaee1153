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
//! - `threaded`: the cycle loop with the SMs on several threads.
//! - `events`: counters and the per-cycle observer.

pub mod cache;
pub mod collector;
pub mod ctrl;
pub mod events;
pub mod gpu;
pub mod l2;
pub mod lsu;
pub mod metrics;
pub mod pipes;
pub mod profile;
pub mod sm;
mod threaded;

pub use events::{Event, Nobody, Observer, Recorder, Stall, Stats};
pub use gpu::{
    occupancy, run_controlled, run_timed, Control, Occupancy, Partial, Progress, Stepping, Timed,
};

/// `x.ceil() as u64`, without a call to the C library's `ceil` (the baseline
/// x86-64 has no rounding instruction): the same value for every `x`, NaN
/// and negatives (0) and the saturated top included.
#[inline]
pub(crate) fn ceil_u64(x: f64) -> u64 {
    let t = x as u64;
    if (t as f64) < x {
        t.saturating_add(1)
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::ceil_u64;

    #[test]
    fn ceil_u64_is_ceil_then_cast() {
        let mut xs = vec![
            0.0,
            -0.0,
            -0.5,
            -1.0,
            -3.7,
            0.25,
            1.0,
            1.5,
            2.0 - f64::EPSILON,
            4503599627370495.5,
            9007199254740993.0,
            1.8446744073709552e19,
            3e19,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for k in 0..10_000u32 {
            xs.push(k as f64 * 0.3);
            xs.push(k as f64 / 7.0 + 1e6);
        }
        for x in xs {
            assert_eq!(ceil_u64(x), x.ceil() as u64, "{x}");
        }
    }
}
