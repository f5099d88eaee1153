//! Evidence for the reading of the control byte, from ptxas's own
//! scheduling of the kernel suite: an ALU instruction whose result the very next
//! instruction reads carries `0x2n` with n >= 8, and `0x28` when nothing else
//! holds the consumer back (bit 5 and a stall count of 8: the fixed interval,
//! then 8 more cycles, the ALU latency); `0x04` (dual issue with the next)
//! only ever precedes an instruction that does not read its result. The test
//! prints the counts and fails if a rebuilt suite stopped showing this, or if
//! docs/timing-model.md and configs/k20m.ron, which quote them, do not.

use std::collections::BTreeMap;

use sim_core::op::{Kind, Src};
use sim_core::program::Program;
use sim_isa::cubin::Cubin;

/// Fixed-latency ALU kinds (not loads, not the SFU, not FP64).
fn alu(k: &Kind) -> bool {
    matches!(
        k,
        Kind::IAdd { .. }
            | Kind::IScAdd { .. }
            | Kind::IMad { .. }
            | Kind::Lop { .. }
            | Kind::Shl { .. }
            | Kind::Shr { .. }
            | Kind::Shf { .. }
            | Kind::Mov
            | Kind::Sel
            | Kind::FAdd { .. }
            | Kind::FMul { .. }
            | Kind::FFma { .. }
    )
}

#[test]
fn ptxas_spaces_dependent_alu_instructions_by_eight_and_dual_issues_only_independent_ones() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../traces/kernels");
    let mut dependent: BTreeMap<u8, usize> = BTreeMap::new();
    let mut independent: BTreeMap<u8, usize> = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("suite") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "cubin") {
            continue;
        }
        let cubin = Cubin::parse(&std::fs::read(&p).expect("cubin")).expect("parses");
        for k in &cubin.kernels {
            let mut g = sim_core::mem::GlobalMem::new();
            let prog = Program::load(&cubin, &k.name, &mut g).expect("loads");
            let slots: Vec<usize> = (0..prog.ops.len()).filter(|s| s % 8 != 0).collect();
            for w in slots.windows(2) {
                let (a, b) = (&prog.ops[w[0]], &prog.ops[w[1]]);
                if !alu(&a.kind) || a.d0 == 255 || a.guard != (7, false) {
                    continue;
                }
                let reads = b
                    .src
                    .iter()
                    .any(|s| matches!(s.src, Src::Reg(r) if r == a.d0));
                let map = if reads {
                    &mut dependent
                } else {
                    &mut independent
                };
                *map.entry(prog.ctrl[w[0]]).or_default() += 1;
            }
        }
    }
    let show = |m: &BTreeMap<u8, usize>| {
        m.iter()
            .map(|(b, n)| format!("{b:#04x}:{n}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    println!(
        "control bytes before a dependent instruction:   {}",
        show(&dependent)
    );
    println!(
        "control bytes before an independent instruction: {}",
        show(&independent)
    );
    let dep_total: usize = dependent.values().sum();
    assert!(dep_total > 100, "too few dependent pairs to say anything");
    // Every dependent pair is single-issued with a stall of at least 8, and 8 is
    // what ptxas uses when nothing else holds the consumer back.
    for &b in dependent.keys() {
        assert!(
            b & 0xf0 == 0x20 || b == 0x30,
            "{b:#04x} before a dependent instruction"
        );
        assert!(
            b & 0x0f >= 8 || b == 0x30,
            "{b:#04x}: a stall below 8 before a dependent instruction"
        );
    }
    let mode = dependent.iter().max_by_key(|(_, n)| **n).map(|(b, _)| *b);
    assert_eq!(mode, Some(0x28));
    assert_eq!(
        dependent.get(&0x04),
        None,
        "ptxas dual-issued a dependent pair"
    );
    assert!(
        independent.get(&0x04).copied().unwrap_or(0) > 100,
        "no dual issue among independent pairs"
    );
    // The pages that give this evidence quote the counts.
    let n = |m: &BTreeMap<u8, usize>, b: u8| m.get(&b).copied().unwrap_or(0);
    let grouped = |n: usize| {
        let (hi, lo) = (n / 1000, n % 1000);
        if hi > 0 {
            format!("{hi},{lo:03}")
        } else {
            n.to_string()
        }
    };
    let of = format!("{} of {dep_total}", n(&dependent, 0x28));
    for (rel, quotes) in [
        (
            "docs/timing-model.md",
            vec![
                format!("{of} carry `0x28`"),
                format!("`0x04` ({} times)", grouped(n(&independent, 0x04))),
                format!("`0x20` ({})", grouped(n(&independent, 0x20))),
                format!("the {} dependent pairs", n(&dependent, 0x28)),
            ],
        ),
        ("configs/k20m.ron", vec![format!("({of} times")]),
    ] {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../").to_string() + rel;
        let text = std::fs::read_to_string(&path).expect("the page");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        for q in quotes {
            assert!(flat.contains(&q), "{rel} does not say `{q}`");
        }
    }
}
