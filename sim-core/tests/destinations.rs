//! Register destinations, as the timing model and the checker see them
//! (`timing::pipes::info`), held to what each instruction of the ISA corpus
//! really writes when the executor runs it: an instruction that writes only
//! predicates (set-predicate forms, `FCHK.DIVIDE`) has no register destination,
//! and every register an instruction writes lies in its destination range.

use sim_core::exec::{exec, Env};
use sim_core::lower::lower;
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_core::sass::{float_fields, Syntax};
use sim_core::timing::ctrl::Reading;
use sim_core::timing::pipes::{info, Latency};
use sim_core::warp::Warp;

const NREGS: u32 = 255;

fn program() -> Program {
    let mut global = GlobalMem::new();
    let cubin = sim_isa::cubin::Cubin::parse(
        &std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../traces/cubin-fixtures/saxpy.cubin"
        ))
        .unwrap(),
    )
    .unwrap();
    let mut p = Program::load(&cubin, "saxpy", &mut global).unwrap();
    p.registers = NREGS;
    p
}

/// Registers whose rows differ between `a` and `b`.
fn changed(a: &Warp, b: &Warp) -> Vec<u8> {
    (0..NREGS as u8).filter(|&r| a.row(r) != b.row(r)).collect()
}

#[test]
fn no_predicate_only_instruction_has_a_register_destination() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/isa-corpus/corpus.txt"
    ))
    .unwrap();
    let prog = program();
    let cbank0 = vec![0u8; 0x1000];
    let (mut ran, mut pred_only, mut bad) = (0, 0, Vec::new());
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((w, _)) = line.split_once('\t') else {
            continue;
        };
        let word = u64::from_str_radix(w.trim_start_matches("0x"), 16).unwrap();
        let Ok(inst) = sim_isa::decode::decode(word) else {
            continue;
        };
        let t = inst.text(8);
        let Ok(syn) = Syntax::parse(&t) else { continue };
        let Ok(mut op) = lower(&syn, &float_fields(&inst, 8)) else {
            continue;
        };
        op.guard = (7, false);
        let i = info(&op, 0, Reading::K20M, || t.clone());
        // Every register holds a distinct value, every predicate is true.
        let mut w0 = Warp::new(0, NREGS, u32::MAX);
        for r in 0..NREGS as u8 {
            let row: [u32; 32] = std::array::from_fn(|l| 0x3f80_0000 + r as u32 * 97 + l as u32);
            w0.set_reg(r, &row, u32::MAX);
        }
        for p in 0..7 {
            w0.set_pred(p, u32::MAX, u32::MAX);
        }
        let mut w1 = w0.clone();
        let (mut global, mut shared, mut local, mut locks) = (
            GlobalMem::new(),
            vec![0u8; 0x1000],
            vec![0u8; 0],
            vec![0u32; 64],
        );
        let mut env = Env {
            prog: &prog,
            cbank0: &cbank0,
            global: &mut global,
            shared: &mut shared,
            local: &mut local,
            local_size: 0,
            block_idx: [0; 3],
            block_dim: [32, 1, 1],
            grid_dim: [1, 1, 1],
            clock: 0,
            sm: 0,
            sms: 1,
            locks: &mut locks,
            pre: None,
            defer_global: false,
        };
        if exec(&op, &mut w1, &mut env).is_err() {
            continue;
        }
        ran += 1;
        let wrote = changed(&w0, &w1);
        // An instruction whose first operand is a predicate and that changed no
        // register writes only predicates (a register result may equal the old
        // value, so only this kind of instruction is judged by what it left).
        let first_pred = syn
            .operands
            .first()
            .is_some_and(|o| matches!(o.kind, sim_core::sass::OpndKind::Pred(_)));
        if first_pred && wrote.is_empty() {
            pred_only += 1;
            if i.ndst > 0 {
                bad.push(format!(
                    "{t}: writes only predicates, yet destination R{} x{}",
                    i.dst, i.ndst
                ));
            }
        }
        let range = i.dst as u32..i.dst as u32 + i.ndst as u32;
        if i.lat != Latency::None && wrote.iter().any(|&r| !range.contains(&(r as u32))) {
            bad.push(format!(
                "{t}: writes {wrote:?}, destination R{} x{}",
                i.dst, i.ndst
            ));
        }
    }
    assert!(ran > 5000, "only {ran} corpus instructions ran");
    assert!(
        pred_only > 100,
        "only {pred_only} predicate-only instructions"
    );
    assert!(
        bad.is_empty(),
        "{} of {ran}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
