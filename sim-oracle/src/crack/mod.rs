//! The bit-flip crack: derives the sm_35 instruction table from NVIDIA's
//! disassembler, the way the PPoPP 2017 paper did.
//!
//! Starting from seed words (every instruction ptxas emitted for the PTX corpus, and
//! a sweep of the opcode space), each seed's 64 bits are flipped one at a time and
//! the disassembly compared:
//!
//! 1. A bit whose flip changes the base mnemonic or the kinds of the operands, or
//!    makes nvdisasm reject the word as an unknown operation, is an *opcode* bit.
//!    The opcode bits and their values identify a [`Form`](sim_isa::table::Form).
//!    A register field whose value `RZ` prints other modifiers (`ALD.PHYS R2,
//!    a[R6], R0` but `ALD R2, a[0x20], R0`) is 8 flips from any seed: each form's
//!    register fields are probed at `RZ`, and such a case becomes a form of its
//!    own with the field fixed, which the decoder tries first
//!    ([`Form::rz_split`](sim_isa::table::Form::rz_split)). A register whose
//!    operand vanishes at `RZ`, separator and all (`FCCO.SP P1, R8, 0x1, R3`
//!    but `FCCO.SP P1, R8, 0x1`), seeds a form with the parent's fixed bits and
//!    the field's, which the decoder tries first for having more fixed bits.
//! 2. Every other bit changes one stretch of tokens of the text. Bits whose
//!    stretches overlap in every random variant of the form print together: they
//!    form a *group*, a hole in the form's text template.
//! 3. Each group is enumerated (all values when it has at most
//!    [`MAX_ENUM_BITS`] bits; otherwise a sample) and its texts explained as a
//!    decoration table around a numeric value in one of the known formats
//!    (register, predicate, hex, float, branch target), or, for a group of
//!    enumerated values that fits no format, a plain table of texts, names
//!    included where the operand prints a number for some values and a name
//!    for others (`TXQ.B R0, RZ, 3, ...` and `TXQ.B R0, RZ,
//!    TEX_HEADER_TEXTURE_TYPE, ...`). An operand learned as
//!    printing nothing at zero is probed at zero under every decoration of the
//!    form's other groups; where nvdisasm prints the zero all the same
//!    (`BAR.ARV R8, 0x0;` but `BAR.SYNC R8;`), a form with that decoration
//!    fixed is split off and the operand learned again in it.
//! 4. Random words of the form are disassembled and compared with what the learned
//!    form prints; the agreement is reported.
//!
//! The result is emitted as Rust source (`sim-isa/src/sm35_table.rs`) by [`emit`].

pub mod emit;
pub mod learn;
pub mod text;

pub use learn::{crack, CrackReport, LearnedForm, LearnedGroup};

/// Groups of at most this many bits are enumerated exhaustively.
pub const MAX_ENUM_BITS: usize = 12;

/// Seeds from a sweep of the opcode space: for each value of bits 63..54 and
/// 1..0, the word with every other bit zero but the predicate guard `PT`, and a
/// few words with the other bits drawn at random (some forms are invalid when all
/// their fields are zero).
pub fn sweep_seeds() -> Vec<u64> {
    let mut out = Vec::new();
    let mut x: u64 = 0x1234_5678_9abc_def1;
    for op in 0u64..4096 {
        let fixed = ((op >> 2) << 54) | (op & 3);
        out.push(fixed | (7 << 18));
        for _ in 0..3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mid = x & 0x003f_ffff_ffff_fffc;
            out.push(fixed | mid);
        }
    }
    out
}
