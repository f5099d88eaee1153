//! The SGEMM optimisation ladder and the 8x8 kernel as a table (`keplersim
//! bench sgemm`): each kernel of `traces/sgemm` at several sizes, a full timed
//! simulation whose C is checked bit for bit against the CPU reference, and
//! the paper's measured gain of each step to hold the model's against.

use std::path::Path;
use std::sync::Mutex;

use sim_core::config::Config;
use sim_core::launch;
use sim_core::timing::Stepping;

use crate::kit::{self, Kit, Launch};
use crate::{workload, Error};

/// A kernel of the table.
#[derive(Debug, Clone, Copy)]
pub struct Kernel {
    /// Its row's name.
    pub name: &'static str,
    /// Its cubin, under `traces/sgemm`.
    pub cubin: &'static str,
    /// The side of its block's tile of C: m, n and k must be multiples.
    pub tile: i64,
}

const fn kernel(name: &'static str, cubin: &'static str, tile: i64) -> Kernel {
    Kernel { name, cubin, tile }
}

/// The kernels of the table, in ladder order.
pub const KERNELS: [Kernel; 7] = [
    kernel("baseline", "ladder/baseline.cubin", LADDER_TILE),
    kernel("+Reg", "ladder/reg.cubin", LADDER_TILE),
    kernel("+LD128", "ladder/ld128.cubin", LADDER_TILE),
    kernel("+LDG128", "ladder/ldg128.cubin", LADDER_TILE),
    kernel(
        "+Dual (the paper's bytes)",
        "ladder/paper.cubin",
        LADDER_TILE,
    ),
    kernel("tuned (sgemm.cubin)", "sgemm.cubin", LADDER_TILE),
    kernel("8x8, tuned (sgemm8x8.cubin)", "sgemm8x8.cubin", 128),
];

/// The tile of the ladder's kernels and the tuned one (12x12 per thread):
/// every size of the table is a multiple of it. A kernel with another tile
/// runs only at the sizes it divides.
pub const LADDER_TILE: i64 = 192;

/// The index in [`KERNELS`] of the tuned kernel, `+Dual` re-tuned on the
/// model.
pub const TUNED: usize = 5;

/// The paper's measured gain of each step over the one before, on a K20m
/// (low and high; +Reg's is given as about 10%). Step `i` is `KERNELS[i + 1]`
/// over `KERNELS[i]`.
pub const PAPER: [(&str, f64, f64); 4] = [
    ("+Reg", 0.10, 0.10),
    ("+LD128", 0.27, 0.35),
    ("+LDG128", 0.05, 0.12),
    ("+Dual", 0.84, 1.06),
];

/// The paper's gain from the baseline to +Dual, all steps together.
pub const PAPER_ALL: f64 = 2.6;

/// The check the ladder holds the model to: each step's gain within
/// `STEP_TOLERANCE` (3 points) of the paper's range, and the gain from the
/// baseline to +Dual within `ALL_RANGE` (the paper's 2.6x, give or take
/// 0.3).
pub const STEP_TOLERANCE: f64 = 0.03;

/// See [`STEP_TOLERANCE`].
pub const ALL_RANGE: (f64, f64) = (2.3, 2.9);

/// The figures of one size's `gflops` that miss the check of
/// [`STEP_TOLERANCE`] and [`ALL_RANGE`], each as `(what, got, wanted)`:
/// `("+LD128", "+23.3%", "24-38%")`. Empty when every figure holds, or none
/// could be taken.
pub fn misses_of(gflops: Gflops) -> Vec<(String, String, String)> {
    // Compared as printed: in tenths of a point, and hundredths of a factor.
    let at = |x: f64, per: f64| (x * per).round() as i64;
    let mut out = Vec::new();
    for (i, (step, lo, hi)) in PAPER.iter().enumerate() {
        let Some(g) = step_gain_of(gflops, i) else {
            continue;
        };
        let (lo, hi) = (lo - STEP_TOLERANCE, hi + STEP_TOLERANCE);
        if !(at(lo, 1000.0)..=at(hi, 1000.0)).contains(&at(g, 1000.0)) {
            out.push((
                step.to_string(),
                format!("{:+.1}%", g * 100.0),
                format!("{:.0}-{:.0}%", lo * 100.0, hi * 100.0),
            ));
        }
    }
    if let Some(g) = ladder_gain_of(gflops) {
        let (lo, hi) = ALL_RANGE;
        if !(at(lo, 100.0)..=at(hi, 100.0)).contains(&at(g, 100.0)) {
            out.push((
                "all".to_string(),
                format!("{g:.2}x"),
                format!("{lo:.1}-{hi:.1}x"),
            ));
        }
    }
    out
}

/// One simulated run.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Row {
    pub kernel: String,
    pub cubin: String,
    pub size: i64,
    pub cycles: u64,
    pub milliseconds: f64,
    pub gflops: f64,
    pub percent_of_peak: f64,
    pub dual_issue_rate: f64,
    pub conflicts_per_fp32: f64,
    pub passed: bool,
    pub wall_seconds: f64,
}

/// A run as a kit records it: the launch, what the model left in its `out`
/// buffer (C), and the cycles it took.
type KitRun = (Launch, Vec<u8>, u64);

/// Runs kernel `kernel` (its `cubin` under `dir`, with the launch file beside
/// it) at m = n = k = `size` on `config`.
pub fn run_one(
    dir: &Path,
    kernel: &str,
    cubin: &str,
    size: i64,
    config: &Config,
) -> Result<Row, Error> {
    run_recorded(dir, kernel, cubin, size, config, None).map(|(row, _)| row)
}

/// [`run_one`], also giving the run as `kit` records it when there is one.
fn run_recorded(
    dir: &Path,
    kernel: &str,
    cubin: &str,
    size: i64,
    config: &Config,
    kit: Option<&Mutex<Kit>>,
) -> Result<(Row, Option<KitRun>), Error> {
    let cubin_path = dir.join(cubin);
    let launch_path = cubin_path.with_extension("launch.ron");
    let sets: Vec<(String, i64)> = ["m", "n", "k"]
        .iter()
        .map(|v| (v.to_string(), size))
        .collect();
    let r = workload::resolve(&launch_path, &sets)?;
    let read_dir = launch_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let read = workload::reader(&read_dir);
    let c = workload::read_cubin(&cubin_path)?;
    let launch = match kit {
        Some(kit) => {
            let image = std::fs::read(&cubin_path).map_err(|e| Error::File {
                path: cubin_path.display().to_string(),
                msg: e.to_string(),
            })?;
            let mut kit = kit.lock().unwrap();
            Some(kit::launch_of(
                &mut kit,
                &format!("{cubin}@{size}"),
                &c,
                &image,
                &r,
            )?)
        }
        None => None,
    };
    let t0 = std::time::Instant::now();
    let out = launch::execute_as(&c, &r, launch::Mode::Timed(Stepping::Turns), config, &read)
        .map_err(|e| Error::Run(format!("{}: {e}", cubin_path.display())))?;
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| Error::Run(format!("{}: no timing", cubin_path.display())))?;
    let ms = t.millis(config);
    let flops = r.flops.unwrap_or(0) as f64;
    let gflops = flops / (ms * 1e-3) / 1e9;
    let peak = workload::peak_gflops(config, t.sms);
    let conflicts: u64 = t.stats.conflicts.iter().sum();
    let recorded = launch.map(|l| {
        // The checked buffer, which the kit's launch has first.
        let c = out
            .finals
            .get(kit::out_buffer(&r))
            .map(|b| b.data.clone())
            .unwrap_or_default();
        (l, c, t.cycles)
    });
    let row = Row {
        kernel: kernel.to_string(),
        cubin: cubin.to_string(),
        size,
        cycles: t.cycles,
        milliseconds: ms,
        gflops,
        percent_of_peak: gflops / peak * 100.0,
        dual_issue_rate: t.stats.dual as f64 / t.stats.issue_cycles.max(1) as f64 * 100.0,
        conflicts_per_fp32: conflicts as f64 / t.stats.fp32.max(1) as f64,
        passed: out.passed(),
        wall_seconds: t0.elapsed().as_secs_f64(),
    };
    Ok((row, recorded))
}

/// Runs every kernel of [`KERNELS`] (under `dir`) at every size its tile
/// divides on `jobs` threads, the biggest first so that the jobs finish
/// together, calling `done` with each row as it finishes. The rows come back
/// in the order they finished; the first error, if any, instead. A size that
/// is not a positive multiple of [`LADDER_TILE`] is refused before anything
/// runs.
pub fn run_all(
    dir: &Path,
    sizes: &[i64],
    config: &Config,
    jobs: usize,
    done: &(dyn Fn(&Row) + Sync),
) -> Result<Vec<Row>, Error> {
    run_all_recorded(dir, sizes, config, jobs, done, None)
}

/// [`run_all`], also recording every run into a kit for a card
/// (`keplersim bench sgemm --kit DIR`): by size, then in ladder order.
pub fn run_all_with_kit(
    dir: &Path,
    sizes: &[i64],
    config: &Config,
    jobs: usize,
    done: &(dyn Fn(&Row) + Sync),
) -> Result<(Vec<Row>, Kit), Error> {
    let kit = Mutex::new(Kit::new(kit::SGEMM, false, config.timing.shared_bank_bytes));
    let runs = Mutex::new(Vec::new());
    let rows = run_all_recorded(dir, sizes, config, jobs, done, Some((&kit, &runs)))?;
    let mut kit = kit.into_inner().unwrap();
    let mut runs = runs.into_inner().unwrap();
    runs.sort_by_key(|(ki, si, _)| (*si, *ki));
    for (_, _, (launch, out, cycles)) in runs {
        kit.push(launch, out, cycles);
    }
    Ok((rows, kit))
}

/// Where [`run_all_recorded`] records: the kit, and each run by (kernel,
/// size) index.
type Recorder<'a> = (&'a Mutex<Kit>, &'a Mutex<Vec<(usize, usize, KitRun)>>);

fn run_all_recorded(
    dir: &Path,
    sizes: &[i64],
    config: &Config,
    jobs: usize,
    done: &(dyn Fn(&Row) + Sync),
    record: Option<Recorder>,
) -> Result<Vec<Row>, Error> {
    if sizes.is_empty() {
        return Err(Error::Run("no sizes: give at least one".into()));
    }
    if let Some(n) = sizes.iter().find(|&&n| n <= 0 || n % LADDER_TILE != 0) {
        return Err(Error::Run(format!(
            "size {n}: m = n = k must be a positive multiple of the ladder's \
             {LADDER_TILE}-row tile (192, 384, ..., 1536, ...)"
        )));
    }
    let mut work: Vec<(usize, usize)> = Vec::new();
    for (ki, k) in KERNELS.iter().enumerate() {
        for (si, &n) in sizes.iter().enumerate() {
            if n % k.tile == 0 {
                work.push((ki, si));
            }
        }
    }
    // Biggest first, so that the jobs finish together.
    work.sort_by_key(|&(ki, si)| (std::cmp::Reverse(sizes[si]), ki));
    // No more workers than runs: the rest would find nothing to do.
    let workers = jobs.clamp(1, work.len().max(1));
    let queue = Mutex::new(work);
    let rows: Mutex<Vec<Row>> = Mutex::new(Vec::new());
    let error: Mutex<Option<Error>> = Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..workers {
            s.spawn(|| loop {
                let next = queue.lock().unwrap().pop();
                let Some((ki, si)) = next else { break };
                let k = KERNELS[ki];
                let kit = record.map(|r| r.0);
                match run_recorded(dir, k.name, k.cubin, sizes[si], config, kit) {
                    Ok((row, recorded)) => {
                        done(&row);
                        rows.lock().unwrap().push(row);
                        if let (Some((_, runs)), Some(run)) = (record, recorded) {
                            runs.lock().unwrap().push((ki, si, run));
                        }
                    }
                    Err(e) => {
                        error.lock().unwrap().get_or_insert(e);
                    }
                }
            });
        }
    });
    if let Some(e) = error.into_inner().unwrap() {
        return Err(e);
    }
    Ok(rows.into_inner().unwrap())
}

/// The row of `rows` for kernel `KERNELS[ki]` at `size`, if it ran.
pub fn find(rows: &[Row], ki: usize, size: i64) -> Option<&Row> {
    rows.iter()
        .find(|r| r.kernel == KERNELS[ki].name && r.size == size)
}

/// The model's gain of `KERNELS[ki + 1]` over `KERNELS[ki]` at `size` (0.27 =
/// 27% faster), the figure [`PAPER`]`[ki]` is held to.
pub fn step_gain(rows: &[Row], ki: usize, size: i64) -> Option<f64> {
    step_gain_of(&|k| Some(find(rows, k, size)?.gflops), ki)
}

/// Each kernel's GFlop/s at one size, by its index in [`KERNELS`] (`None`
/// where it did not run): the model's table, or a card's.
pub type Gflops<'a> = &'a dyn Fn(usize) -> Option<f64>;

/// The gain of `KERNELS[ki + 1]` over `KERNELS[ki]` in `gflops`.
pub fn step_gain_of(gflops: Gflops, ki: usize) -> Option<f64> {
    Some(gflops(ki + 1)? / gflops(ki)? - 1.0)
}

/// The gain from the baseline to +Dual in `gflops`, as a factor.
pub fn ladder_gain_of(gflops: Gflops) -> Option<f64> {
    Some(gflops(PAPER.len())? / gflops(0)?)
}

/// The gain of `KERNELS[b]` over `KERNELS[a]` at `size`.
fn gain(rows: &[Row], a: usize, b: usize, size: i64) -> Option<f64> {
    Some(find(rows, b, size)?.gflops / find(rows, a, size)?.gflops - 1.0)
}

/// The model's gain from the baseline to +Dual at `size`, as a factor (the
/// figure [`PAPER_ALL`] is held to).
pub fn ladder_gain(rows: &[Row], size: i64) -> Option<f64> {
    ladder_gain_of(&|k| Some(find(rows, k, size)?.gflops))
}

/// The model's figures at `size` that miss the ladder's check
/// ([`misses_of`]).
pub fn misses(rows: &[Row], size: i64) -> Vec<(String, String, String)> {
    misses_of(&|k| Some(find(rows, k, size)?.gflops))
}

/// The check's verdict on `misses` as `bench sgemm` prints it: `every figure
/// holds`, or `misses +LD128 +23.3% (wants 24-38%), ...`.
pub fn verdict(misses: &[(String, String, String)]) -> String {
    if misses.is_empty() {
        return "every figure holds".into();
    }
    let m: Vec<String> = misses
        .iter()
        .map(|(what, got, want)| format!("{what} {got} (wants {want})"))
        .collect();
    format!("misses {}", m.join(", "))
}

/// What re-tuning gained at `size`: the tuned kernel over the paper's +Dual
/// (0.05 = 5% faster).
pub fn tuned_gain(rows: &[Row], size: i64) -> Option<f64> {
    gain(rows, PAPER.len(), TUNED, size)
}

/// The runs whose C differs from the reference, as `KERNEL at SIZE`.
pub fn wrong(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .filter(|r| !r.passed)
        .map(|r| format!("{} at {}", r.kernel, r.size))
        .collect()
}

/// A kernel of the table as a card ran it from a kit (`keplersim bench sgemm
/// --card DIR`), beside the model's run of the same launch.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CardRow {
    pub kernel: String,
    pub size: i64,
    pub card_milliseconds: f64,
    pub card_gflops: f64,
    pub model_milliseconds: f64,
    pub model_gflops: f64,
    /// Elements (4 bytes) of the card's C that differ from the model's,
    /// which the model checked bit for bit against the CPU reference.
    pub c_differs: usize,
}

/// The card's GFlop/s (`on_card`) or the model's of `KERNELS[ki]` at `size`,
/// from a card's rows.
pub fn card_gflops(rows: &[CardRow], ki: usize, size: i64, on_card: bool) -> Option<f64> {
    rows.iter()
        .find(|r| r.kernel == KERNELS[ki].name && r.size == size)
        .map(|r| {
            if on_card {
                r.card_gflops
            } else {
                r.model_gflops
            }
        })
}

/// The rows of a card's results of a `bench sgemm` kit, in the kit's order.
pub fn card_rows(card: &kit::CardResults) -> Result<Vec<CardRow>, Error> {
    if card.suite != kit::SGEMM {
        return Err(Error::Run(format!(
            "{}: a kit of `bench {}`, not of `bench sgemm`: read it with `keplersim bench {} \
             --card`",
            card.dir.display(),
            card.suite,
            card.suite
        )));
    }
    let mut rows = Vec::with_capacity(card.launches.len());
    for (i, l) in card.launches.iter().enumerate() {
        let bad = || {
            Error::Run(format!(
                "{}: run {i:04} is `{}`, no kernel of this keplersim's table at a size: make \
                 the kit again (`keplersim bench sgemm --kit DIR`)",
                card.dir.display(),
                l.file
            ))
        };
        let (cubin, size) = l.file.rsplit_once('@').ok_or_else(bad)?;
        let size: i64 = size.parse().map_err(|_| bad())?;
        let k = KERNELS.iter().find(|k| k.cubin == cubin).ok_or_else(bad)?;
        let model = card.model_out(i)?;
        let c = &card.outs[i];
        let c_differs = if model.len() != c.len() {
            c.len().max(model.len()) / 4
        } else {
            c.chunks(4)
                .zip(model.chunks(4))
                .filter(|(a, b)| a != b)
                .count()
        };
        let gflops = |ms: f64| 2.0 * (size as f64).powi(3) / (ms * 1e-3) / 1e9;
        rows.push(CardRow {
            kernel: k.name.to_string(),
            size,
            card_milliseconds: card.ms[i],
            card_gflops: gflops(card.ms[i]),
            model_milliseconds: card.model_ms[i],
            model_gflops: gflops(card.model_ms[i]),
            c_differs,
        });
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GFlop/s of the ladder's five kernels whose steps gain `gains` (as
    /// fractions) on a baseline of 1000.
    fn ladder(gains: [f64; 4]) -> impl Fn(usize) -> Option<f64> {
        move |k| (k <= gains.len()).then(|| gains[..k].iter().fold(1000.0, |g, s| g * (1.0 + s)))
    }

    #[test]
    fn the_check_allows_three_points_either_side_and_2_3_to_2_9x() {
        // The ends of every band hold: 7% and 13% for +Reg's "about 10%",
        // 24% for +LD128 (27-35), 15% for +LDG128 (5-12), 81% for +Dual.
        assert_eq!(misses_of(&ladder([0.07, 0.24, 0.15, 0.81])), vec![]);
        assert_eq!(misses_of(&ladder([0.13, 0.24, 0.02, 0.81])), vec![]);
        // Just past them, each is named with what it got and wanted.
        let m = misses_of(&ladder([0.069, 0.239, 0.02, 0.81]));
        assert_eq!(
            m,
            vec![
                ("+Reg".into(), "+6.9%".into(), "7-13%".into()),
                ("+LD128".into(), "+23.9%".into(), "24-38%".into()),
            ]
        );
        // +LD128 and the whole ladder missing together.
        let m = misses_of(&ladder([0.107, 0.233, 0.051, 1.076]));
        let what: Vec<&str> = m.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(what, ["+LD128", "all"]);
        assert_eq!(m[1].1, "2.98x");
        assert_eq!(m[1].2, "2.3-2.9x");
        // A ladder with a kernel missing is checked on what it has.
        assert_eq!(
            misses_of(&|k| (k < 2).then_some(1000.0 + k as f64 * 100.0)),
            vec![]
        );
    }
}
