//! The simulator's own speed benchmarks (`keplersim bench speed` and `bench
//! func`): the tiled SGEMM of `traces/kernels` (4x4 per thread, 16x16
//! blocks) at m = n = k = a size, run timed or functionally, several times
//! for the best time, its C checked bit for bit so that the figure means
//! something.

use std::path::{Path, PathBuf};

use sim_core::config::{Chip, Config};
use sim_core::func::BlockOrder;
use sim_core::launch::{self, Outcome, Resolved};
use sim_core::timing::Stepping;
use sim_isa::cubin::Cubin;

use crate::{workload, Error};

/// The sizes the kernel takes are positive multiples of this.
pub const GRAIN: i64 = 64;

/// The speed goal: simulated cycles per second at [`GOAL_SIZE`], one core.
pub const GOAL_CYCLES_PER_S: f64 = 500_000.0;

/// The size the goal is set at.
pub const GOAL_SIZE: i64 = 1536;

/// The benchmark's launch, loaded and resolved.
pub struct Launch {
    pub cubin: Cubin,
    pub resolved: Resolved,
    /// Where the files the launch file names are read from.
    dir: PathBuf,
}

/// The best of several runs.
pub struct Best {
    /// The best run's time simulating, seconds (loading and the check not
    /// counted).
    pub seconds: f64,
    /// The last run's outcome (all runs are the same).
    pub outcome: Outcome,
}

impl Launch {
    /// The tiled SGEMM's launch under `root` at m = n = k = `size`.
    pub fn sgemm(root: &Path, size: i64) -> Result<Launch, Error> {
        if size <= 0 || size % GRAIN != 0 {
            return Err(Error::Run(format!(
                "size {size}: must be a positive multiple of {GRAIN}"
            )));
        }
        let launch_path = root.join("traces/kernels/sgemm_tiled_4x4.launch.ron");
        let cubin_path = launch_path.with_file_name("sgemm_tiled_4x4.cubin");
        let sets: Vec<(String, i64)> = ["m", "n", "k"]
            .iter()
            .map(|v| (v.to_string(), size))
            .collect();
        let resolved = workload::resolve(&launch_path, &sets)?;
        let cubin = workload::read_cubin(&cubin_path)?;
        let dir = launch_path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        Ok(Launch {
            cubin,
            resolved,
            dir,
        })
    }

    /// Runs it timed (the SMs by turns, on `threads` threads) on `config`,
    /// `runs` times (at least once); fails if C is wrong.
    pub fn timed(&self, config: &Config, runs: u32, threads: usize) -> Result<Best, Error> {
        let read = workload::reader(&self.dir);
        best(runs, || {
            let mut ctl = sim_core::timing::Control {
                threads,
                ..Default::default()
            };
            let o = launch::execute_controlled(
                &self.cubin,
                &self.resolved,
                launch::Mode::Timed(Stepping::Turns),
                config,
                &read,
                &mut sim_core::timing::Nobody,
                &mut ctl,
            )
            .map_err(|e| Error::Run(e.to_string()))?;
            Ok((o.sim_time.as_secs_f64(), o.passed(), o))
        })
    }

    /// Runs it functionally on the K20m, blocks in order, `runs` times (at
    /// least once); fails if C is wrong.
    pub fn functional(&self, runs: u32) -> Result<Best, Error> {
        let read = workload::reader(&self.dir);
        best(runs, || {
            let o = launch::execute(
                &self.cubin,
                &self.resolved,
                BlockOrder::Natural,
                &Chip::K20M,
                &read,
            )
            .map_err(|e| Error::Run(e.to_string()))?;
            Ok((o.sim_time.as_secs_f64(), o.passed(), o))
        })
    }
}

/// Runs `one` (giving its time, whether C is right, and its outcome) `runs`
/// times, at least once, and keeps the best time.
fn best(
    runs: u32,
    mut one: impl FnMut() -> Result<(f64, bool, Outcome), Error>,
) -> Result<Best, Error> {
    let mut seconds = f64::MAX;
    let mut last = None;
    for _ in 0..runs.max(1) {
        let (s, passed, o) = one()?;
        seconds = seconds.min(s);
        last = Some((passed, o));
    }
    match last {
        Some((true, outcome)) => Ok(Best { seconds, outcome }),
        Some((false, _)) => Err(Error::Run(
            "the SGEMM result is wrong: the benchmark's figure would mean nothing".into(),
        )),
        None => Err(Error::Run("no run".into())),
    }
}
