//! The committed table (`sim-isa/src/sm35_table.rs`) is what the crack derives
//! today: this test runs the whole crack against NVIDIA's nvdisasm (15 million
//! words; several minutes, most of them nvdisasm's: docs/isa-crack.md) and
//! fails if regenerating would change the file.

use sim_oracle::crack;
use sim_oracle::tools::{workspace_root, Tools};

#[test]
fn committed_table_is_what_the_crack_derives() {
    let tools = Tools::locate().expect("NVIDIA's tools: run `bash scripts/fetch-oracle.sh`");
    let root = workspace_root();
    let corpus =
        std::fs::read_to_string(root.join("traces/isa-corpus/corpus.txt")).expect("corpus");
    let mut seeds: Vec<u64> = corpus
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            u64::from_str_radix(
                l.split_whitespace()
                    .next()
                    .unwrap()
                    .trim_start_matches("0x"),
                16,
            )
            .unwrap()
        })
        .collect();
    seeds.extend(crack::sweep_seeds());
    let report = crack::crack(&tools, &seeds, |m| eprintln!("crack: {m}")).expect("crack");
    let checked: usize = report.forms.iter().map(|f| f.checked).sum();
    let agreed: usize = report.forms.iter().map(|f| f.agreed).sum();
    println!(
        "crack: {} forms, {} learned, validation {agreed}/{checked} ({:.2}%)",
        report.forms.len(),
        report.forms.iter().filter(|f| f.problem.is_none()).count(),
        100.0 * agreed as f64 / checked.max(1) as f64
    );
    let fresh = crack::emit::emit(&report.forms);
    let committed = std::fs::read_to_string(root.join("sim-isa/src/sm35_table.rs")).expect("table");
    assert!(
        fresh == committed,
        "sim-isa/src/sm35_table.rs is stale: regenerate it with `cargo run --release -p sim-cli -- isa crack`"
    );
}
