//! Every kernel of the suite (`traces/kernels/*.launch.ron`) runs and matches its
//! CPU reference, and gives the same results whatever order its blocks run in.

mod common;

use std::path::Path;

use sim_core::config::Chip;
use sim_core::func::BlockOrder;
use sim_core::launch;

use common::{launch_files, load};

fn run(path: &Path, order: BlockOrder) -> launch::Outcome {
    let (cubin, r, read) = load(path);
    launch::execute(&cubin, &r, order, &Chip::K20M, &read)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_suite_kernel_matches_its_reference() {
    let files = launch_files();
    assert!(
        files.len() >= 18,
        "the suite has {} launch files",
        files.len()
    );
    let mut failed = Vec::new();
    for f in &files {
        let out = run(f, BlockOrder::Natural);
        assert!(!out.checks.is_empty(), "{} checks nothing", f.display());
        for c in &out.checks {
            println!(
                "{}: {} {} ({} elements, max {} ulp, {} warp-instructions)",
                f.file_name().unwrap().to_string_lossy(),
                c.buffer,
                if c.passed() { "PASS" } else { "FAIL" },
                c.elements,
                c.max_ulp,
                out.stats.warp_instructions
            );
            if !c.passed() {
                failed.push(format!("{} {}: {:?}", f.display(), c.buffer, c.first));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn results_do_not_depend_on_block_order() {
    for f in launch_files() {
        let a = run(&f, BlockOrder::Natural);
        for order in [BlockOrder::Reverse, BlockOrder::Shuffled(7)] {
            let b = run(&f, order);
            assert_eq!(
                a.finals.len(),
                b.finals.len(),
                "{}: buffers in order {order:?}",
                f.display()
            );
            for (x, y) in a.finals.iter().zip(&b.finals) {
                assert!(
                    x.name == y.name && x.data == y.data,
                    "{}: buffer {} differs in order {order:?}",
                    f.display(),
                    x.name
                );
            }
            assert_eq!(a.stats, b.stats, "{}", f.display());
        }
    }
}
