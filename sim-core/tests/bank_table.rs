//! The conflict degrees the timing model works out once per slot
//! (`Info::degree`), held to the rule (`collector::issue_degree`) for every
//! way one instruction can follow another in the shipped kernels: after
//! nothing held, after the instruction just before it (across a control
//! slot too), alone and dual-issued with the next.

use sim_core::exec::next_slot;
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_core::timing::collector::issue_degree;
use sim_core::timing::ctrl::Reading;
use sim_core::timing::pipes::infos;

/// Every kernel of the shipped cubins under `traces/kernels` and the tuned
/// SGEMM.
fn programs() -> Vec<(String, Program)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/traces/kernels"))
        .expect("traces/kernels")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect();
    files.sort();
    files.push(format!("{root}/traces/sgemm/sgemm.cubin").into());
    let mut out = Vec::new();
    for f in files {
        let cubin = sim_isa::cubin::Cubin::parse(&std::fs::read(&f).expect("reads"))
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        for k in &cubin.kernels {
            let mut g = GlobalMem::new();
            let prog = Program::load(&cubin, &k.name, &mut g)
                .unwrap_or_else(|e| panic!("{} {}: {e}", f.display(), k.name));
            out.push((format!("{} {}", f.display(), k.name), prog));
        }
    }
    out
}

#[test]
fn every_slot_degree_is_the_rule_after_nothing_and_after_its_predecessor() {
    let (mut checked, mut across) = (0, 0);
    for (name, prog) in programs() {
        // Under either reading of a pair's reads, together or apart.
        for together in [true, false] {
            let infos = infos(&prog, Reading::K20M, together);
            // The instruction slots: slot 0 of each group of eight is control.
            for p in (0..infos.len()).filter(|p| p % 8 != 0) {
                let q = next_slot(p as u32) as usize;
                let Some(me) = infos.get(q) else { continue };
                let second = infos.get(next_slot(q as u32) as usize).map(|s| s.reads());
                for (held, row) in [(&[][..], 0), (&infos[p].reads[..], 1)] {
                    let alone = issue_degree(me.reads(), me.may_conflict, None, held, together);
                    assert_eq!(
                        me.degree[row][0] as u32, alone,
                        "{name}: slot {q} after {p}"
                    );
                    if let Some(second) = second {
                        let dual =
                            issue_degree(me.reads(), me.may_conflict, Some(second), held, together);
                        assert_eq!(me.degree[row][1] as u32, dual, "{name}: slot {q} dual");
                    }
                }
                if together {
                    checked += 1;
                    across += (q != p + 1) as usize;
                }
            }
        }
    }
    assert!(
        checked > 1000 && across > 100,
        "{checked} slots, {across} across control"
    );
}
