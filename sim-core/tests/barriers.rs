//! Block-wide barriers with a reduction (`__syncthreads_count`, `_and`, `_or`:
//! `BAR.RED` then `B2R.RESULT`), written in keplersim's assembler.

use sim_core::func::{run, Dims};
use sim_core::mem::GlobalMem;
use sim_core::program::Program;
use sim_isa::cubin::{Cubin, CubinWriter};

/// Each thread votes `tid % 3 == 0`; every thread stores the block's count,
/// then (AND, OR) flags, at out[3 * tid ..].
const SRC: &str = r#"
.kernel red
.param 8
        S2R R0, SR_TID.X;
        IMUL32I.U32.U32.HI R2, R0, -0x55555555;
        SHR.U32 R2, R2, 0x1;
        IMAD R2, R2, -0x3, R0;
        ISETP.EQ.AND P0, PT, R2, RZ, PT;
        BAR.RED.POPC RZ, P0;
        B2R.RESULT R3;
        BAR.RED.AND RZ, P0;
        B2R.RESULT R4;
        BAR.RED.OR RZ, P0;
        B2R.RESULT RZ, P1;
        SEL R5, RZ, 0x1, !P1;
        IMUL32I R6, R0, 0xc;
        IADD R8.CC, R6, c[0x0][0x140];
        IADD.X R9, RZ, c[0x0][0x144];
        ST.E [R8], R3;
        ST.E [R8+0x4], R4;
        ST.E [R8+0x8], R5;
        EXIT;
"#;

#[test]
fn barrier_reductions_count_and_combine_the_block() {
    let mut w = CubinWriter::new();
    for k in sim_isa::asm::assemble_source(SRC).expect("assembles") {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let threads = 96u32;
    let mut g = GlobalMem::new();
    let out = g.alloc("out", vec![0; threads as usize * 12]);
    let prog = Program::load(&cubin, "red", &mut g).expect("loads");
    assert!(prog.problems.is_empty(), "{:?}", prog.problems);
    let dims = Dims {
        grid: [1, 1, 1],
        block: [threads, 1, 1],
        dynamic_shared: 0,
    };
    run(&prog, &mut g, &dims, &out.to_le_bytes(), 1 << 20).expect("runs");
    let data = &g.get("out").expect("out").data;
    let word = |i: usize| u32::from_le_bytes(data[4 * i..4 * i + 4].try_into().expect("4 bytes"));
    for t in 0..threads as usize {
        assert_eq!(word(3 * t), 32, "count at thread {t}");
        assert_eq!(word(3 * t + 1), 0, "AND at thread {t}");
        assert_eq!(word(3 * t + 2), 1, "OR at thread {t}");
    }
}
