//! The sample's ledger against the model's own record of each block: a grid
//! run whole, whose finishes the ledger hears (as `run --sample` does) and
//! whose blocks' starts and ends the model reports as events, agrees block
//! by block on where each ran, when it started and how long it took.

use std::collections::HashMap;

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_core::timing::{Control, Event, Observer, Progress, Stepping};
use sim_kernels::sample::{blocks_per_sm, Ledger};
use sim_kernels::workload::{read_cubin, reader, resolve, root};

/// Each block's SM and start cycle, and its last cycle.
#[derive(Default)]
struct Blocks {
    started: HashMap<[u32; 3], (u32, u64)>,
    done: HashMap<[u32; 3], u64>,
}

impl Observer for Blocks {
    const ACTIVE: bool = true;
    fn event(&mut self, e: Event) {
        match e {
            Event::BlockStart {
                cycle, sm, block, ..
            } => {
                self.started.insert(block, (sm, cycle));
            }
            Event::BlockDone { cycle, block, .. } => {
                self.done.insert(block, cycle);
            }
            _ => {}
        }
    }
}

/// Runs `kernel` (under traces/) whole with `sets` and holds the ledger's
/// record to the events'; returns the blocks and the most an SM held.
fn agree(kernel: &str, sets: &[(&str, i64)]) -> (usize, u32) {
    let path = root().join(format!("traces/{kernel}.launch.ron"));
    let sets: Vec<(String, i64)> = sets.iter().map(|&(k, v)| (k.into(), v)).collect();
    let r = resolve(&path, &sets).unwrap();
    let cubin =
        read_cubin(&path.with_file_name(format!("{}.cubin", kernel.rsplit('/').next().unwrap())))
            .unwrap();
    let config = Config::default();
    let slots = blocks_per_sm(&cubin, &r, &config).unwrap();
    let grid = r.dims.blocks();
    let mut ledger = Ledger::new(r.dims.grid, config.chip.sms, slots);
    let mut hook = |p: &Progress| ledger.heard(p);
    let mut ctl = Control {
        progress: Some(&mut hook),
        ..Control::default()
    };
    let mut blocks = Blocks::default();
    let read = reader(path.parent().unwrap());
    let o = launch::execute_controlled(
        &cubin,
        &r,
        Mode::Timed(Stepping::Turns),
        &config,
        &read,
        &mut blocks,
        &mut ctl,
    )
    .unwrap();
    assert!(o.passed(), "{kernel}: the run's checks");
    assert_eq!(
        ledger.finished.len() as u64,
        grid,
        "{kernel}: every block heard"
    );
    for f in &ledger.finished {
        let at = sim_core::func::block_at(r.dims.grid, f.index);
        let (sm, start) = blocks.started[&at];
        let last = blocks.done[&at];
        assert_eq!(
            (f.sm, f.start, f.cycles),
            (sm, start, last + 1 - start),
            "{kernel}: block {at:?}"
        );
    }
    (ledger.finished.len(), slots)
}

/// One block an SM: the tuned SGEMM, 72 blocks on 13 SMs.
#[test]
fn the_ledger_finds_each_block_of_a_grid_one_block_an_sm() {
    let (n, slots) = agree("sgemm/sgemm", &[("m", 1536), ("n", 1728), ("k", 64)]);
    assert_eq!((n, slots), (72, 1));
}

/// Several blocks an SM, finishing in the order they started or not.
#[test]
fn the_ledger_finds_each_block_of_a_grid_several_blocks_an_sm() {
    let (n, slots) = agree(
        "kernels/sgemm_tiled_4x4",
        &[("m", 512), ("n", 512), ("k", 64)],
    );
    assert!(slots > 1, "{slots} blocks an SM");
    assert!(n > 13 * slots as usize, "{n} blocks: more than a wave");
}
