//! `keplersim golden`: runs every kernel with a golden timing report and sets
//! each run beside its report; `--bless` takes this model's reports as the
//! new golden ones (after a deliberate model change) and prints what moved.

use anyhow::{bail, Result};
use clap::Args;
use sim_kernels::golden;

use crate::run::Machine;

/// The arguments of `keplersim golden`.
#[derive(Args)]
pub struct GoldenArgs {
    /// Write this run's reports as the golden ones (traces/golden/).
    #[arg(long)]
    pub bless: bool,
    /// List every changed field of each changed report, not only its cycles.
    #[arg(long)]
    pub fields: bool,
    /// Only the cases whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub only: Option<String>,
    /// Worker threads (default: the cores available); the reports do not
    /// depend on it.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    // Run the cases on another machine (`--config F.ron`, or fields set
    // over `configs/k20m.ron` with `--param FIELD=VALUE`) and list what it
    // moves against the golden reports, which stay the K20m's: a change is
    // then the setting's, not a failure.
    #[command(flatten)]
    pub machine: Machine,
}

/// Runs `keplersim golden`; fails when a report differs and `--bless` was not given.
pub fn run(args: GoldenArgs) -> Result<()> {
    let root = sim_kernels::workload::root();
    let other = !args.machine.is_shipped();
    if args.bless && other {
        bail!(
            "--bless takes the reports of `{}`: the golden reports are the K20m's as shipped ({})",
            args.machine.describe(),
            golden::CONFIG
        );
    }
    let config = match &args.machine.config {
        // The file in the tree, so that a change to it shows.
        None => golden::config_with(&root, &args.machine.param)?,
        Some(_) => args.machine.load()?,
    };
    let mut cases = golden::cases(&root)?;
    if let Some(t) = &args.only {
        cases.retain(|c| c.name.contains(t.as_str()));
        if cases.is_empty() {
            bail!("--only {t}: no case's name contains it");
        }
    }
    if args.bless && args.only.is_some() {
        bail!("--bless re-blesses every case: drop --only");
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if threads == 0 {
        bail!("--threads 0: at least 1");
    }
    let compared = golden::compare(&root, &cases, &config, threads)?;
    let failed: Vec<&str> = compared
        .iter()
        .filter(|c| c.now["checks_passed"] != serde_json::json!(true))
        .map(|c| c.name.as_str())
        .collect();
    if other {
        println!(
            "on {}, against the golden reports ({}):",
            args.machine.describe(),
            golden::CONFIG
        );
    }
    print!("{}", golden::summary(&compared, args.fields));
    if !failed.is_empty() {
        bail!("results wrong (not blessed): {}", failed.join(", "));
    }
    if args.bless {
        golden::bless(&root, &compared)?;
        println!("blessed {} reports in {}", compared.len(), golden::DIR);
    } else if !other && compared.iter().any(|c| !c.same()) {
        bail!(
            "reports differ from {}: `keplersim golden --bless` takes a deliberate change",
            golden::DIR
        );
    }
    Ok(())
}
