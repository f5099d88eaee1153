//! The microbenchmark suite on the K20m's configuration: every figure in its
//! band (every throughput of the facts within 2%, 1-2-2-1 the best of the six
//! orders, LDS.64 within 5% of 137 GB/s and above LDS.32 and LDS.128, the
//! streaming reads within 5%, LDS latency within 2 cycles of 28), the rows
//! the table prints, and the counts of each kind.

use sim_core::config::Config;
use sim_kernels::micro::{count, out_of_band, suite, table, Kind};
use sim_kernels::workload::root;

#[test]
fn the_microbenchmarks_stay_in_their_bands() {
    let rows = suite(&root(), &Config::default(), true).unwrap();
    let out: Vec<_> = rows.iter().filter(|r| !r.ok).collect();
    assert!(out.is_empty(), "out of band: {out:#?}");
    assert_eq!(out_of_band(&rows), 0);
    // The 256-value control sweep, throughput and latency, and the rest.
    assert!(rows.len() > 512, "{} rows", rows.len());
    let kinds = [
        Kind::Checked,
        Kind::Fitted,
        Kind::Property,
        Kind::Prediction,
    ];
    assert_eq!(
        kinds.iter().map(|&k| count(&rows, k)).sum::<usize>(),
        rows.len()
    );
    assert!(count(&rows, Kind::Checked) > 0 && count(&rows, Kind::Fitted) > 0);
    let t = table(&rows);
    assert!(t.starts_with("group    benchmark"), "{t}");
    for row in [
        "FFMA R5, R9, R3, R1",
        "order 1-2-2-1",
        "LDS.64 best",
        "LDG.128 stream",
        "LD.128 stream",
        "latency  LDS",
        "periodic above 0x20",
    ] {
        assert!(t.contains(row), "no `{row}` row:\n{t}");
    }
    // The table leaves out most of the control sweep's predictions.
    assert!(t.lines().count() < rows.len(), "{t}");
    assert!(!t.contains("OUT OF BAND"), "{t}");
}
