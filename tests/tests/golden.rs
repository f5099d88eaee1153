//! Every kernel with a golden report (the suite, the SGEMM ladder, the tuned
//! SGEMM and its 8x8 variant) runs timed on `configs/k20m.ron` and must give
//! exactly its committed report: cycles, issue and dual counts, stalls by
//! reason, bank conflicts, memory counters and a digest of every result. Any
//! change of the timing model shows here; `keplersim golden --bless` takes a
//! deliberate one.

use sim_kernels::golden;

#[test]
fn every_kernel_gives_its_golden_timing_report() {
    let root = sim_kernels::workload::root();
    let config = golden::config(&root).expect("configs/k20m.ron");
    let cases = golden::cases(&root).expect("the cases");
    assert!(
        cases.len() >= 30,
        "the suite and the SGEMM kernels: {}",
        cases.len()
    );
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let compared = golden::compare(&root, &cases, &config, threads).expect("every case runs");
    for c in &compared {
        assert_eq!(
            c.now["checks_passed"],
            serde_json::json!(true),
            "{}: its results are wrong",
            c.name
        );
    }
    let summary = golden::summary(&compared, true);
    println!("{summary}");
    assert!(
        compared.iter().all(golden::Compared::same),
        "timing reports differ from traces/golden (re-bless a deliberate model change with \
         `cargo run --release -p sim-cli -- golden --bless`):\n{summary}"
    );
}
