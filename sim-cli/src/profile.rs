//! `keplersim profile`: the SASS listing of a kernel annotated per
//! instruction with what the timed run did there: executions, issues and
//! dual pairs, the pairs it asked for that issued apart, register bank
//! conflicts (with the registers of the bank read more than once), the
//! scheduler-cycles its warps waited to issue it by reason, and its control
//! byte decoded; then the hottest instructions, the worst stalls and the
//! pairs most often issued apart. nvvp's source view, with Kepler's control
//! codes and register banks.

use std::path::PathBuf;

use anyhow::{anyhow, bail, Result};
use clap::Args;
use sim_core::launch;
use sim_core::timing::ctrl::{Ctrl, Reading};
use sim_core::timing::events::{APART, STALLS};
use sim_core::timing::profile::{PcCounts, Profile};
use sim_core::timing::Stepping;

/// The arguments of `keplersim profile`.
#[derive(Args)]
pub struct ProfileArgs {
    /// The kernel: an sm_35 cubin, CUDA C (`.cu`) or SASS (`.sass`); or the
    /// launch file itself (`.ron`), whose `cubin` or `source` names the kernel.
    pub file: PathBuf,
    /// The launch file (default: FILE with its extension replaced by `.launch.ron`).
    #[arg(short, long)]
    pub launch: Option<PathBuf>,
    /// Override a launch-file variable: `--set n=4096` (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    pub set: Vec<String>,
    #[command(flatten)]
    pub machine: crate::run::Machine,
    /// How many instructions the sorted views list (0 leaves the views out).
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Print every instruction, not only those that executed.
    #[arg(long)]
    pub all: bool,
    /// Print the profile as JSON (one object per instruction, and the totals).
    #[arg(long)]
    pub json: bool,
}

/// The control byte in words: `0x04 dual`, `0x25 wait 6`.
fn control(byte: u8, reading: Reading) -> String {
    let c = Ctrl(byte);
    if c.dual() {
        format!("{byte:#04x} dual")
    } else {
        format!("{byte:#04x} wait {}", c.gap(reading))
    }
}

/// The reasons `names` with their `counts`, largest first, those of none
/// left out, as `barrier 120, pipe busy 30`.
fn largest_first(names: &[&str], counts: &[u64]) -> String {
    let mut v: Vec<(usize, u64)> = counts
        .iter()
        .copied()
        .enumerate()
        .filter(|&(_, n)| n > 0)
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.iter()
        .map(|&(i, n)| format!("{} {n}", names[i]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The stall reasons of `c`, largest first, as `barrier 120, pipe busy 30`.
fn stalls(c: &PcCounts) -> String {
    largest_first(&STALLS, &c.stall)
}

/// The pairs `c` asked for that issued apart, all reasons.
fn apart_total(c: &PcCounts) -> u64 {
    c.apart.iter().sum()
}

/// Why the pairs `c` asked for issued apart, largest first, as `shared
/// core group taken 120, second's unit busy 30`.
fn apart(c: &PcCounts) -> String {
    largest_first(&APART, &c.apart)
}

/// Runs `keplersim profile`.
pub fn run(args: ProfileArgs) -> Result<()> {
    let sets = crate::run::parse_sets(&args.set)?;
    let crate::run::Located {
        resolved: r,
        dir,
        kernel: file,
        ..
    } = crate::run::locate(Some(&args.file), args.launch.as_deref(), &sets)?;
    let read = crate::run::reader(&dir);
    let cubin = crate::run::load_cubin_with(&file, &[], &r.nvrtc_options)?;
    let config = args.machine.load()?;
    let mut global = sim_core::mem::GlobalMem::new();
    let prog = sim_core::program::Program::load(&cubin, &r.kernel, &mut global)
        .map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let mut profile = Profile::new(prog.ops.len());
    let out = launch::execute_observed(
        &cubin,
        &r,
        launch::Mode::Timed(Stepping::Lockstep),
        &config,
        &read,
        &mut profile,
    )
    .map_err(|e| match e {
        launch::RunError::Sim(e) => anyhow!("{e}"),
        e => anyhow!("{}: {e}", file.display()),
    })?;
    let t = out
        .timed
        .as_ref()
        .ok_or_else(|| anyhow!("{}: the run was not timed", file.display()))?;
    let checked = out.passed();
    let by_slot = &profile.by_slot;
    // The registers of the bank an instruction reads more than once, from
    // the static checker's rule (what the collector cannot hide without
    // reuse).
    let banks = sim_core::check::check_with(
        &prog,
        sim_core::check::Options {
            no_reuse: true,
            keep_reads: false,
            ..sim_core::check::Options::for_timing(&config.timing)
        },
    );
    let slots: Vec<usize> = (0..by_slot.len().min(prog.ops.len()))
        .filter(|s| s % 8 != 0)
        .filter(|&s| args.all || by_slot[s].executions > 0 || stall_total(&by_slot[s]) > 0)
        .collect();
    let listing = Listing {
        prog: &prog,
        by_slot,
        reading: Reading::of(&config.timing),
        banks: &banks,
        slots,
    };
    if args.json {
        let report = serde_json::json!({
            "kernel": r.kernel, "cycles": t.cycles, "checks_passed": checked,
            "instructions": listing.json(),
            "unattributed_stalls": STALLS.iter().zip(profile.unattributed.iter())
                .map(|(n, &v)| (n.replace(' ', "_"), serde_json::json!(v)))
                .collect::<serde_json::Map<_, _>>(),
        });
        println!("{report}");
    } else {
        println!(
            "{} ({}): {} cycles, {} warp-instructions, {} dual pairs, {} scheduler-cycles without issue",
            r.kernel,
            file.display(),
            t.cycles,
            t.stats.warp_instructions,
            t.stats.dual,
            t.stats.stall.iter().sum::<u64>()
        );
        listing.table();
        if args.top > 0 {
            listing.top(args.top);
        }
        let un: u64 = profile.unattributed.iter().sum();
        if un > 0 {
            println!("\n{un} scheduler-cycles without issue had no instruction waiting (no warp)");
        }
    }
    if !checked {
        bail!("the kernel's results are wrong: `keplersim run` shows which check fails");
    }
    Ok(())
}

/// The scheduler-cycles a slot's warps waited to issue it, all reasons.
fn stall_total(c: &PcCounts) -> u64 {
    c.stall.iter().sum()
}

/// The profiled kernel's listing: its instructions' counts, and the
/// instructions it shows.
struct Listing<'a> {
    prog: &'a sim_core::program::Program,
    by_slot: &'a [PcCounts],
    reading: Reading,
    /// The static checker's findings without reuse.
    banks: &'a sim_core::check::Report,
    /// The slots shown (executed or stalled at, or all), in order.
    slots: Vec<usize>,
}

impl Listing<'_> {
    /// The registers of the bank slot `slot` reads more than once, as
    /// `R1 R5` (empty: none).
    fn conflict_regs(&self, slot: usize) -> String {
        self.banks
            .findings
            .iter()
            .find_map(|(s, f)| match f {
                sim_core::check::Finding::Conflict { regs, .. } if *s as usize == slot => Some(
                    regs.iter()
                        .map(|r| format!("R{r}"))
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                _ => None,
            })
            .unwrap_or_default()
    }

    /// The control byte of slot `s`.
    fn ctrl(&self, s: usize) -> u8 {
        self.prog.ctrl.get(s).copied().unwrap_or(0)
    }

    /// The instruction of slot `s` as the listing prints it.
    fn text(&self, s: usize) -> String {
        self.prog.text(s as u32).trim_end_matches(';').to_string()
    }

    /// One JSON object per instruction shown.
    fn json(&self) -> Vec<serde_json::Value> {
        self.slots
            .iter()
            .map(|&s| {
                let c = &self.by_slot[s];
                let st: serde_json::Map<String, serde_json::Value> = STALLS
                    .iter()
                    .zip(c.stall.iter())
                    .map(|(n, &v)| (n.replace(' ', "_"), serde_json::json!(v)))
                    .collect();
                serde_json::json!({
                    "address": s * 8, "text": self.prog.text(s as u32),
                    "control": self.ctrl(s),
                    "control_text": control(self.ctrl(s), self.reading),
                    "executions": c.executions, "issues": c.issues, "dual": c.dual,
                    "apart": APART.iter().zip(c.apart)
                        .map(|(n, v)| (n.replace("'s", "").replace(' ', "_"), serde_json::json!(v)))
                        .collect::<serde_json::Map<_, _>>(),
                    "conflicts": { "two_way": c.conflicts[0], "three_way": c.conflicts[1], "four_way": c.conflicts[2] },
                    "conflict_registers": self.conflict_regs(s),
                    "stalls": st,
                })
            })
            .collect()
    }

    /// The annotated listing: a heading, then a row per instruction shown.
    fn table(&self) {
        println!(
            "{:<10} {:<12} {:>10} {:>9} {:>9} {:>9} {:>9}  {:<46} stalls at this instruction (scheduler-cycles)",
            "address", "control", "executed", "dual", "apart", "conflicts", "stalled", "instruction"
        );
        for &s in &self.slots {
            let c = &self.by_slot[s];
            let conf: u64 = c.conflicts.iter().sum();
            let regs = self.conflict_regs(s);
            println!(
                "/*{:04x}*/   {:<12} {:>10} {:>9} {:>9} {:>9} {:>9}  {:<46} {}{}",
                s * 8,
                control(self.ctrl(s), self.reading),
                c.executions,
                c.dual,
                apart_total(c),
                conf,
                stall_total(c),
                self.text(s),
                stalls(c),
                if conf > 0 && !regs.is_empty() {
                    format!(" [banks: {regs}]")
                } else {
                    String::new()
                }
            );
        }
    }

    /// The sorted views: the `n` hottest instructions, the `n` worst
    /// stalled and the `n` whose pairs issued apart most.
    fn top(&self, n: usize) {
        let by_slot = self.by_slot;
        let mut hot: Vec<usize> = self.slots.clone();
        hot.sort_by(|&a, &b| {
            by_slot[b]
                .executions
                .cmp(&by_slot[a].executions)
                .then(a.cmp(&b))
        });
        println!("\nhottest instructions (executions):");
        for &s in hot.iter().take(n) {
            println!(
                "  /*{:04x}*/ {:>10}  {}",
                s * 8,
                by_slot[s].executions,
                self.text(s)
            );
        }
        self.ranked(
            "worst stalls (scheduler-cycles its warps waited to issue it)",
            n,
            stall_total,
            stalls,
            true,
        );
        self.ranked(
            "pairs issued apart (asked for by the control byte, and why not together)",
            n,
            apart_total,
            apart,
            false,
        );
    }

    /// A sorted view: under `heading`, the `n` instructions of the largest
    /// `count`, each with `why` (none of a count of 0). Without `always`, no
    /// view at all when every count is 0.
    fn ranked(
        &self,
        heading: &str,
        n: usize,
        count: fn(&PcCounts) -> u64,
        why: fn(&PcCounts) -> String,
        always: bool,
    ) {
        let by_slot = self.by_slot;
        let mut ranked: Vec<usize> = self
            .slots
            .iter()
            .copied()
            .filter(|&s| count(&by_slot[s]) > 0)
            .collect();
        if ranked.is_empty() && !always {
            return;
        }
        ranked.sort_by(|&a, &b| count(&by_slot[b]).cmp(&count(&by_slot[a])).then(a.cmp(&b)));
        println!("\n{heading}:");
        for &s in ranked.iter().take(n) {
            println!(
                "  /*{:04x}*/ {:>10}  {:<46} {}",
                s * 8,
                count(&by_slot[s]),
                self.text(s),
                why(&by_slot[s])
            );
        }
    }
}
