//! The reconvergence stack on forms the CUDA C suite never makes ptxas emit for
//! sm_35: `PCNT`/`CONT` loops, and a `RET` taken by part of a warp. Hand-written
//! SASS, assembled here; each thread stores one result word.

use sim_core::func::{run, Dims};
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_isa::cubin::{Cubin, CubinWriter};

/// Runs kernel `name` of `src` over 64 threads; returns out[0..64].
fn run_kernel(src: &str, name: &str) -> Vec<u32> {
    let mut w = CubinWriter::new();
    for k in sim_isa::asm::assemble_source(src).expect("assembles") {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let mut g = GlobalMem::new();
    let out = g.alloc("out", vec![0; 64 * 4]);
    let prog = Program::load(&cubin, name, &mut g).expect("loads");
    assert!(prog.problems.is_empty(), "{:?}", prog.problems);
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    run(&prog, &mut g, &dims, &out.to_le_bytes(), 1 << 20).expect("runs");
    g.get("out")
        .expect("out")
        .data
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect()
}

/// sum over k in 0..8 of k, skipping (`CONT`) the k whose parity is the
/// thread's: even threads add 1+3+5+7, odd threads 0+2+4+6.
const CONTINUE: &str = r#"
.kernel cont
.param 8
        S2R R0, SR_TID.X;
        MOV R1, RZ;
        MOV R2, RZ;
        LOP32I.AND R4, R0, 0x1;
        PBK done;
loop:   PCNT next;
        LOP32I.AND R3, R2, 0x1;
        ISETP.EQ.AND P0, PT, R3, R4, PT;
   @P0  CONT;
        IADD R1, R1, R2;
        CONT;
next:   IADD32I R2, R2, 0x1;
        ISETP.LT.AND P1, PT, R2, 0x8, PT;
   @P1  BRA loop;
        BRK;
done:   SHL R6, R0, 0x2;
        IADD R8.CC, R6, c[0x0][0x140];
        IADD.X R9, RZ, c[0x0][0x144];
        ST.E [R8], R1;
        EXIT;
"#;

#[test]
fn continue_lanes_wait_at_the_pcnt_point() {
    let out = run_kernel(CONTINUE, "cont");
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, if t % 2 == 0 { 16 } else { 12 }, "thread {t}");
    }
}

/// A called function returns early for threads below 20 (which get 1) and adds
/// 100 for the others (which get 101): a `RET` taken by part of the warp.
const RETURN: &str = r#"
.kernel ret
.param 8
        S2R R0, SR_TID.X;
        MOV32I R1, 0x1;
        CAL func;
        SHL R6, R0, 0x2;
        IADD R8.CC, R6, c[0x0][0x140];
        IADD.X R9, RZ, c[0x0][0x144];
        ST.E [R8], R1;
        EXIT;
func:   ISETP.LT.AND P0, PT, R0, 0x14, PT;
   @P0  RET;
        IADD32I R1, R1, 0x64;
        RET;
"#;

#[test]
fn partial_returns_rejoin_after_the_call() {
    let out = run_kernel(RETURN, "ret");
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, if t < 20 { 1 } else { 101 }, "thread {t}");
    }
}

/// A `BRK` with no `PBK` is a clear error, not a hang or a panic.
#[test]
fn break_without_pbk_is_an_error() {
    let src = ".kernel bad\n.param 8\n        BRK;\n        EXIT;\n";
    let mut w = CubinWriter::new();
    for k in sim_isa::asm::assemble_source(src).expect("assembles") {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let mut g = GlobalMem::new();
    let prog = Program::load(&cubin, "bad", &mut g).expect("loads");
    let dims = Dims {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 0,
    };
    let e = run(&prog, &mut g, &dims, &[0; 8], 1000)
        .expect_err("fails")
        .to_string();
    assert!(e.contains("BRK with no matching PBK"), "{e}");
}

/// An indirect branch through ptxas's jump table (`brx.idx`: `LDC` from
/// `c[0x2]`, `BRX R2 -0x40`; the table's first entry is a control word's
/// address): lane i stores 100 * (i % 4 + 1).
#[test]
fn indirect_branch_through_a_jump_table() {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/cubin-fixtures/brx.cubin"
    ))
    .expect("fixture");
    let cubin = Cubin::parse(&bytes).expect("parses");
    let mut g = GlobalMem::new();
    let out = g.alloc("out", vec![0; 64 * 4]);
    let prog = Program::load(&cubin, "k", &mut g).expect("loads");
    let dims = Dims {
        grid: [1, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 0,
    };
    run(&prog, &mut g, &dims, &out.to_le_bytes(), 1 << 20).expect("runs");
    let data = &g.get("out").expect("out").data;
    for t in 0..64 {
        let v = u32::from_le_bytes(data[4 * t..4 * t + 4].try_into().expect("4 bytes"));
        assert_eq!(v, 100 * (t as u32 % 4 + 1), "thread {t}");
    }
}

/// `PRET` pushes a return point; the `RET` of code reached by a plain branch
/// comes back to it.
const PRET: &str = r#"
.kernel pret
.param 8
        S2R R0, SR_TID.X;
        MOV32I R1, 0x7;
        PRET after;
        BRA func;
after:  SHL R6, R0, 0x2;
        IADD R8.CC, R6, c[0x0][0x140];
        IADD.X R9, RZ, c[0x0][0x144];
        ST.E [R8], R1;
        EXIT;
func:   IADD R1, R1, R0;
        RET;
"#;

#[test]
fn pret_gives_ret_its_return_point() {
    let out = run_kernel(PRET, "pret");
    for (t, &v) in out.iter().enumerate() {
        assert_eq!(v, 7 + t as u32, "thread {t}");
    }
}
