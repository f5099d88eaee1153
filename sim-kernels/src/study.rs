//! The tiled-SGEMM profiling study, redone on the simulated K20m: the suite's
//! `sgemm_tiled.cu` built with NVRTC for each register tile per thread
//! (values per thread, 1 to 64) and block shape, each run timed and checked
//! bit for bit, with the metrics the study explained its results by
//! (`global_load`, `shared_load`, `shared_efficiency`, `achieved_occupancy`,
//! `stall_memory_dependency`, registers per thread) beside its GFlop/s; and
//! the study's observations, each checked against the rows.

use std::path::Path;

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_core::timing::metrics::{metrics, Metric, Value};
use sim_core::timing::Stepping;
use sim_isa::cubin::Cubin;

use crate::Error;

/// One build of `sgemm_tiled.cu`: a block of `bx x by` threads, each with a
/// `tm x tn` register tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Variant {
    pub bx: u32,
    pub by: u32,
    pub tm: u32,
    pub tn: u32,
}

impl Variant {
    /// Outputs (accumulators) per thread.
    pub fn values(&self) -> u32 {
        self.tm * self.tn
    }

    /// The tile of C a block computes: (bx tm) x (by tn).
    pub fn tile(&self) -> (u32, u32) {
        (self.bx * self.tm, self.by * self.tn)
    }
}

/// The sweep: values per thread 1, 2, 4, 8, 16, 32 and 64 (register tiles
/// 1x1 to 8x8; 128 would need more than the 255 registers a thread has), for
/// blocks of 64, 256 and 512 threads.
pub fn variants() -> Vec<Variant> {
    let tiles = [(1, 1), (2, 1), (2, 2), (4, 2), (4, 4), (8, 4), (8, 8)];
    let blocks = [(8, 8), (16, 16), (32, 16)];
    let mut v = Vec::new();
    for (bx, by) in blocks {
        for (tm, tn) in tiles {
            v.push(Variant { bx, by, tm, tn });
        }
    }
    v
}

/// One variant's run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub variant: Variant,
    pub values_per_thread: u32,
    pub threads_per_block: u32,
    pub registers: u32,
    pub cycles: u64,
    pub gflops: f64,
    /// Occupancy the resources allow (resident warps / 64).
    pub theoretical_occupancy: f64,
    pub achieved_occupancy: f64,
    pub global_load: u64,
    pub shared_load: u64,
    pub shared_efficiency: f64,
    pub stall_memory_dependency: f64,
    pub ipc: f64,
    pub passed: bool,
}

fn number(all: &[Metric], name: &str) -> f64 {
    all.iter()
        .find(|m| m.name == name)
        .and_then(|m| m.value.number())
        .unwrap_or(f64::NAN)
}

fn count(all: &[Metric], name: &str) -> u64 {
    match all.iter().find(|m| m.name == name).map(|m| m.value) {
        Some(Value::Count(n)) => n,
        _ => 0,
    }
}

/// The launch file of a variant at `size` (m = n = k): the suite's, with the
/// variant's grid and block.
fn launch_text(v: Variant, size: u32) -> String {
    let (bm, bn) = v.tile();
    format!(
        r#"(
    kernel: "sgemm_tiled",
    vars: {{ "m": {size}, "n": {size}, "k": {size} }},
    grid: ("m / {bm}", "n / {bn}", 1),
    block: ({bx}, {by}, 1),
    buffers: [
        (name: "a", elem: F32, len: "m * k", init: Random(seed: 11, lo: -1.0, hi: 1.0)),
        (name: "b", elem: F32, len: "k * n", init: Random(seed: 12, lo: -1.0, hi: 1.0)),
        (name: "c", elem: F32, len: "m * n", init: Random(seed: 13, lo: -1.0, hi: 1.0)),
    ],
    args: [I32("m"), I32("n"), I32("k"), F32(1.5), Buffer("a"), I32("m"), Buffer("b"), I32("k"),
        F32(-0.75), Buffer("c"), I32("m")],
    flops: "2 * m * n * k",
    checks: [
        (buffer: "c", reference: Builtin(name: "sgemm", inputs: ["a", "b", "c"],
            params: {{ "m": "m", "n": "n", "k": "k", "lda": "m", "ldb": "k", "ldc": "m",
                "trans_a": 0, "trans_b": 0, "alpha_bits": 1069547520, "beta_bits": 3208642560 }}),
            compare: BitExact),
    ],
)"#,
        bx = v.bx,
        by = v.by,
    )
}

/// The smallest size the sweep can run at: a multiple of every variant's
/// tile and of the slice of k a step stages (16).
pub const GRAIN: u32 = 256;

/// Builds `v` from `traces/kernels/sgemm_tiled.cu` under `root` with NVRTC,
/// runs it timed at `size` on `config`, checks C and works out its row.
pub fn run_one(root: &Path, v: Variant, size: u32, config: &Config) -> Result<Row, Error> {
    if size == 0 || !size.is_multiple_of(GRAIN) {
        return Err(Error::Run(format!(
            "study size {size}: a positive multiple of {GRAIN}"
        )));
    }
    let src_path = root.join("traces/kernels/sgemm_tiled.cu");
    let source = std::fs::read_to_string(&src_path).map_err(|e| Error::File {
        path: src_path.display().to_string(),
        msg: e.to_string(),
    })?;
    let nvrtc = sim_oracle::Nvrtc::locate().map_err(|e| Error::Run(format!("NVRTC: {e}")))?;
    let options: Vec<String> = vec![
        format!("-DBX={}", v.bx),
        format!("-DBY={}", v.by),
        format!("-DTM={}", v.tm),
        format!("-DTN={}", v.tn),
    ];
    let name = format!(
        "sgemm_tiled.cu ({}x{} block, {}x{} tile)",
        v.bx, v.by, v.tm, v.tn
    );
    let compiled = nvrtc
        .compile_sm35(&source, &name, &options)
        .map_err(|e| Error::Run(format!("{name}: {e}")))?;
    let cubin = Cubin::parse(&compiled.cubin).map_err(|e| Error::Run(format!("{name}: {e}")))?;
    let spec = launch::parse(&launch_text(v, size))
        .map_err(|e| Error::Run(format!("{name}: launch: {e}")))?;
    let no_files = |f: &str| Err(format!("{f}: the study's launches read no files"));
    let r = launch::resolve(&spec, &[], &no_files)
        .map_err(|e| Error::Run(format!("{name}: launch: {e}")))?;
    let out = launch::execute_as(&cubin, &r, Mode::Timed(Stepping::Turns), config, &no_files)
        .map_err(|e| Error::Run(format!("{name}: {e}")))?;
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| Error::Run(format!("{name}: not timed")))?;
    let all = metrics(t, config);
    let seconds = t.cycles as f64 / (config.chip.clock_mhz * 1e6);
    let flops = 2.0 * (size as f64).powi(3);
    let max_warps = (config.chip.max_threads_per_sm / 32).max(1) as f64;
    Ok(Row {
        variant: v,
        values_per_thread: v.values(),
        threads_per_block: v.bx * v.by,
        registers: out.registers,
        cycles: t.cycles,
        gflops: flops / seconds / 1e9,
        theoretical_occupancy: (t.occupancy.blocks_per_sm * t.occupancy.warps_per_block) as f64
            / max_warps,
        achieved_occupancy: number(&all, "achieved_occupancy"),
        global_load: count(&all, "global_load"),
        shared_load: count(&all, "shared_load"),
        shared_efficiency: number(&all, "shared_efficiency"),
        stall_memory_dependency: number(&all, "stall_memory_dependency"),
        ipc: number(&all, "ipc"),
        passed: out.passed(),
    })
}

/// One of the study's observations, held against the rows.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Finding {
    pub claim: &'static str,
    pub holds: bool,
    /// The rows' evidence, in a line.
    pub evidence: String,
}

/// The rows of block `b` (threads per block), by values per thread.
fn of_block(rows: &[Row], b: u32) -> Vec<&Row> {
    let mut v: Vec<&Row> = rows.iter().filter(|r| r.threads_per_block == b).collect();
    v.sort_by_key(|r| r.values_per_thread);
    v
}

/// The study's observations, each checked against `rows`.
pub fn findings(rows: &[Row]) -> Vec<Finding> {
    let mut blocks: Vec<u32> = rows.iter().map(|r| r.threads_per_block).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let mut out = Vec::new();

    // 1. Occupancy falls as values per thread rise.
    let mut holds = true;
    let mut ev = Vec::new();
    for &b in &blocks {
        let v = of_block(rows, b);
        let occ: Vec<String> = v
            .iter()
            .map(|r| format!("{:.0}%", r.achieved_occupancy * 100.0))
            .collect();
        holds &= v
            .windows(2)
            .all(|p| p[1].achieved_occupancy <= p[0].achieved_occupancy + 0.01);
        ev.push(format!("{b} threads: {}", occ.join(" ")));
    }
    out.push(Finding {
        claim: "occupancy falls as values per thread rise",
        holds,
        evidence: ev.join("; "),
    });

    // 2. shared_load depends only on values per thread.
    let mut values: Vec<(u32, u32)> = rows.iter().map(|r| (r.variant.tm, r.variant.tn)).collect();
    values.sort_unstable();
    values.dedup();
    let mut holds = true;
    let mut ev = Vec::new();
    for (tm, tn) in values {
        let loads: Vec<u64> = rows
            .iter()
            .filter(|r| (r.variant.tm, r.variant.tn) == (tm, tn))
            .map(|r| r.shared_load)
            .collect();
        let (lo, hi) = (
            *loads.iter().min().unwrap_or(&0),
            *loads.iter().max().unwrap_or(&0),
        );
        holds &= hi as f64 <= lo as f64 * 1.01;
        ev.push(format!("{tm}x{tn}: {lo}..{hi}"));
    }
    out.push(Finding {
        claim: "shared_load depends only on values per thread",
        holds,
        evidence: ev.join("; "),
    });

    // 3. Time improves with values per thread until occupancy drops below
    // 25%: the fastest of each block size is the last with 25% or more.
    let mut holds = true;
    let mut ev = Vec::new();
    for &b in &blocks {
        let v = of_block(rows, b);
        let Some(best) = v.iter().max_by(|a, c| a.gflops.total_cmp(&c.gflops)) else {
            continue;
        };
        let last_25 = v.iter().rev().find(|r| r.achieved_occupancy >= 0.25);
        holds &= last_25.is_some_and(|r| r.values_per_thread == best.values_per_thread);
        ev.push(format!(
            "{b} threads: fastest at {} values ({:.0}% occupancy), last at >= 25%: {}",
            best.values_per_thread,
            best.achieved_occupancy * 100.0,
            last_25.map_or("none".into(), |r| r.values_per_thread.to_string())
        ));
    }
    out.push(Finding {
        claim: "time improves until occupancy drops below 25%",
        holds,
        evidence: ev.join("; "),
    });
    out
}
