//! SVG plots (plotters): the SGEMM ladder against the paper's gains, the
//! profiling study's sweep, and a run's stalls per scheduler with its issue
//! rate over time.

use std::path::Path;

use anyhow::{anyhow, Result};
use plotters::prelude::*;

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

/// One variant of the study: threads per block, values per thread, GFlop/s,
/// achieved occupancy.
pub type StudyPoint = (u32, u32, f64, f64);

fn err<E: std::fmt::Display>(path: &Path) -> impl Fn(E) -> anyhow::Error + '_ {
    move |e| anyhow!("{}: {e}", path.display())
}

/// A large number in few characters: 3.5M, 250k, 12.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.0}k", v / 1e3)
    } else {
        format!("{v:.0}")
    }
}

const COLORS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// The ladder: for each size, the model's percent of peak at each step
/// (baseline .. +Dual), and the band the paper's measured gains give from
/// the model's baseline (`paper[i]`: the low and high gain of step i + 1
/// over step i).
pub fn ladder(
    path: &Path,
    steps: &[&str],
    sizes: &[i64],
    percent: &dyn Fn(usize, i64) -> Option<f64>,
    paper: &[(f64, f64)],
) -> Result<()> {
    let e = err(path);
    let root = SVGBackend::new(path, (720, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let top = (0..steps.len())
        .flat_map(|i| sizes.iter().filter_map(move |&n| percent(i, n)))
        .fold(0.0f64, f64::max);
    let mut high_band = 0.0f64;
    for &n in sizes {
        if let Some(b) = percent(0, n) {
            high_band = high_band.max(paper.iter().fold(b, |x, p| x * (1.0 + p.1)));
        }
    }
    let ymax = (top.max(high_band) * 1.1).clamp(10.0, 100.0);
    let mut chart = ChartBuilder::on(&root)
        .caption(
            "SGEMM ladder: the model against the paper's measured gains",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(-0.3f64..(steps.len() as f64 - 0.7), 0f64..ymax)
        .map_err(&e)?;
    let labels: Vec<String> = steps.iter().map(|s| s.to_string()).collect();
    chart
        .configure_mesh()
        .x_labels(steps.len())
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_desc("% of FP32 peak")
        .draw()
        .map_err(&e)?;
    for (k, &n) in sizes.iter().enumerate() {
        let color = COLORS[k % COLORS.len()];
        let pts: Vec<(f64, f64)> = (0..steps.len())
            .filter_map(|i| percent(i, n).map(|p| (i as f64, p)))
            .collect();
        chart
            .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
            .map_err(&e)?
            .label(format!("model, {n}^3"))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 4, color.filled())))
            .map_err(&e)?;
        if let Some(base) = percent(0, n) {
            let (mut lo, mut hi) = (base, base);
            let mut low = vec![(0.0, base)];
            let mut high = vec![(0.0, base)];
            for (i, p) in paper.iter().enumerate() {
                lo *= 1.0 + p.0;
                hi *= 1.0 + p.1;
                low.push(((i + 1) as f64, lo));
                high.push(((i + 1) as f64, hi));
            }
            let band = color.mix(0.15);
            let mut poly = low.clone();
            poly.extend(high.iter().rev());
            chart
                .draw_series(std::iter::once(Polygon::new(poly, band.filled())))
                .map_err(&e)?
                .label(format!("paper's gains from the model's baseline, {n}^3"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 16, y + 5)], band.filled()));
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(&e)?;
    root.present().map_err(&e)?;
    Ok(())
}

/// The study: GFlop/s (top) and achieved occupancy (bottom) against values
/// per thread, a line per block size. `rows`: (threads per block, values
/// per thread, GFlop/s, achieved occupancy).
pub fn study(path: &Path, rows: &[StudyPoint]) -> Result<()> {
    let e = err(path);
    let root = SVGBackend::new(path, (720, 720)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let (upper, lower) = root.split_vertically(380);
    let mut blocks: Vec<u32> = rows.iter().map(|r| r.0).collect();
    blocks.sort_unstable();
    blocks.dedup();
    let xmax = rows.iter().map(|r| r.1).max().unwrap_or(1) as f64;
    let gmax = rows.iter().map(|r| r.2).fold(0.0, f64::max) * 1.1;
    let panel = |area: &Area,
                 title: &str,
                 ymax: f64,
                 y: &dyn Fn(&StudyPoint) -> f64,
                 ydesc: &str|
     -> Result<()> {
        let mut chart = ChartBuilder::on(area)
            .caption(title, ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(36)
            .y_label_area_size(50)
            .build_cartesian_2d((0.8f64..xmax * 1.25).log_scale(), 0f64..ymax)
            .map_err(&e)?;
        chart
            .configure_mesh()
            .x_desc("values per thread")
            .y_desc(ydesc)
            .draw()
            .map_err(&e)?;
        for (k, &b) in blocks.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            let mut pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.0 == b)
                .map(|r| (r.1 as f64, y(r)))
                .collect();
            pts.sort_by(|a, c| a.0.total_cmp(&c.0));
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(&e)?
                .label(format!("{b} threads a block"))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                .map_err(&e)?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(&e)?;
        Ok(())
    };
    panel(
        &upper,
        "Tiled SGEMM on the simulated K20m: GFlop/s",
        gmax.max(1.0),
        &|r| r.2,
        "GFlop/s",
    )?;
    panel(
        &lower,
        "Achieved occupancy",
        100.0,
        &|r| r.3 * 100.0,
        "% of 64 warps",
    )?;
    root.present().map_err(&e)?;
    Ok(())
}
/// A run: each scheduler's cycles by what it did (issued, or stalled by
/// reason), stacked (left); the SM-average issue rate over time (right).
/// `sched`: per scheduler, (issue cycles, stall cycles by reason);
/// `rate`: (cycle, warp-instructions issued per SM-cycle) per window.
pub fn run(
    path: &Path,
    reasons: &[&str],
    sched: &[(u64, Vec<u64>)],
    rate: &[(f64, f64)],
) -> Result<()> {
    let e = err(path);
    let root = SVGBackend::new(path, (960, 440)).into_drawing_area();
    root.fill(&WHITE).map_err(&e)?;
    let (left, right) = root.split_horizontally(460);
    let total = sched
        .iter()
        .map(|(i, s)| i + s.iter().sum::<u64>())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut chart = ChartBuilder::on(&left)
        .caption("Scheduler cycles: issued, or why not", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(60)
        .build_cartesian_2d(-0.5f64..(sched.len() as f64 - 0.5), 0f64..total * 1.05)
        .map_err(&e)?;
    chart
        .configure_mesh()
        .x_labels(sched.len())
        .x_label_formatter(&|x| format!("#{}", x.round() as i64))
        .y_label_formatter(&|y| short(*y))
        .y_desc("scheduler-cycles, all SMs")
        .disable_x_mesh()
        .draw()
        .map_err(&e)?;
    let mut names = vec!["issued"];
    names.extend_from_slice(reasons);
    let palette: Vec<RGBColor> = (0..names.len())
        .map(|k| {
            if k < COLORS.len() {
                COLORS[k]
            } else {
                RGBColor(120 + 20 * k as u8 % 100, 120, 120)
            }
        })
        .collect();
    for (k, name) in names.iter().enumerate() {
        let color = palette[k];
        let bars: Vec<Rectangle<(f64, f64)>> = sched
            .iter()
            .enumerate()
            .map(|(s, (issued, stall))| {
                let parts: Vec<u64> = std::iter::once(*issued)
                    .chain(stall.iter().copied())
                    .collect();
                let below: u64 = parts[..k].iter().sum();
                let x = s as f64;
                Rectangle::new(
                    [
                        (x - 0.35, below as f64),
                        (x + 0.35, (below + parts[k]) as f64),
                    ],
                    color.filled(),
                )
            })
            .collect();
        if sched
            .iter()
            .all(|(i, s)| if k == 0 { *i == 0 } else { s[k - 1] == 0 })
        {
            continue;
        }
        chart
            .draw_series(bars)
            .map_err(&e)?
            .label(*name)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(&e)?;
    let xmax = rate.last().map_or(1.0, |r| r.0).max(1.0);
    let ymax = rate.iter().map(|r| r.1).fold(0.0, f64::max).max(0.1) * 1.1;
    let mut chart = ChartBuilder::on(&right)
        .caption("Issue rate over time", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(50)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax)
        .map_err(&e)?;
    chart
        .configure_mesh()
        .x_labels(6)
        .x_label_formatter(&|x| short(*x))
        .x_desc("cycle")
        .y_desc("warp-instructions / SM-cycle")
        .draw()
        .map_err(&e)?;
    chart
        .draw_series(LineSeries::new(
            rate.iter().copied(),
            COLORS[0].stroke_width(2),
        ))
        .map_err(&e)?;
    root.present().map_err(&e)?;
    Ok(())
}

/// An observer that counts issued warp-instructions (a dual pair as two) in
/// windows of `window` cycles, for the issue rate over time.
pub struct Timeline {
    pub window: u64,
    pub bins: Vec<u64>,
}

impl Timeline {
    pub fn new(window: u64) -> Timeline {
        Timeline {
            window: window.max(1),
            bins: Vec::new(),
        }
    }

    /// (cycle, warp-instructions per SM-cycle) at most `points` of them,
    /// windows merged to fit.
    pub fn rate(&self, sms: u32, points: usize) -> Vec<(f64, f64)> {
        let per = self.bins.len().div_ceil(points.max(1)).max(1);
        self.bins
            .chunks(per)
            .enumerate()
            .map(|(i, c)| {
                let span = (c.len() as u64 * self.window * sms.max(1) as u64) as f64;
                (
                    (i * per) as f64 * self.window as f64,
                    c.iter().sum::<u64>() as f64 / span,
                )
            })
            .collect()
    }
}

impl sim_core::timing::Observer for Timeline {
    const ACTIVE: bool = true;
    fn event(&mut self, e: sim_core::timing::Event) {
        if let sim_core::timing::Event::Issue { cycle, dual, .. } = e {
            let b = (cycle / self.window) as usize;
            if b >= self.bins.len() {
                self.bins.resize(b + 1, 0);
            }
            self.bins[b] += 1 + dual as u64;
        }
    }
}

/// Two observers hearing the same events.
pub struct Tee<'a, A, B>(pub &'a mut A, pub &'a mut B);

impl<A: sim_core::timing::Observer, B: sim_core::timing::Observer> sim_core::timing::Observer
    for Tee<'_, A, B>
{
    const ACTIVE: bool = true;
    fn event(&mut self, e: sim_core::timing::Event) {
        self.0.event(e);
        self.1.event(e);
    }
}
