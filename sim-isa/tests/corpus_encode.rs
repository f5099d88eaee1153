//! The encoder on every word of the PTX corpus: nvdisasm's text of each word, parsed
//! and encoded with the generated table, gives the word back bit for bit, or its
//! canonical form: the word the encoder picks among several that print the same
//! text (bits nvdisasm ignores, decorations that print alike, NaN payloads all
//! printed `+QNAN`), which must print that text. Every word must come back bit for
//! bit but the few listed in `NOT_IN_THE_TEXT`, whose text does not say which of
//! several words it was; those must come back as their canonical word. Needs no
//! tools.

mod common;

use std::collections::BTreeMap;

use sim_isa::decode::disassemble;
use sim_isa::encode::{assemble, base_mnemonic, canonical};

/// The corpus words that cannot come back bit for bit, each with the reason:
/// nvdisasm prints other words the same (checked with nvdisasm 11.8), so the
/// encoder gives the canonical one.
const NOT_IN_THE_TEXT: [(u64, &str); 5] = [
    (
        0x243f_ffff_ff9c_0026,
        "FMUL32I.SAT R9, R0, +QNAN: every NaN immediate prints +QNAN, whatever its payload",
    ),
    (
        0xe560_0c00_001c_141a,
        "F2F.F16.F16.PASS.SAT: bits 42-43 (the rounding mode) print .PASS for 1, 2 and 3 alike",
    ),
    (
        0xe560_0c00_001c_141e,
        "F2F.F16.F16.PASS.SAT: bits 42-43 (the rounding mode) print .PASS for 1, 2 and 3 alike",
    ),
    (
        0xe560_0c00_001c_1426,
        "F2F.F16.F16.PASS.SAT: bits 42-43 (the rounding mode) print .PASS for 1, 2 and 3 alike",
    ),
    (
        0xe560_0c00_001c_142e,
        "F2F.F16.F16.PASS.SAT: bits 42-43 (the rounding mode) print .PASS for 1, 2 and 3 alike",
    ),
];

#[test]
fn corpus_texts_encode_to_their_words() {
    let (mut total, mut printed, mut exact, mut canon) = (0usize, 0usize, 0usize, 0usize);
    let mut bad = 0usize;
    let mut canonical_words = Vec::new();
    let mut wrong: BTreeMap<String, usize> = BTreeMap::new();
    let mut examples = Vec::new();
    for (word, want) in common::corpus() {
        let want = want.as_str();
        total += 1;
        if disassemble(word, 0x8).as_deref() != Ok(want) {
            continue;
        }
        printed += 1;
        let got = assemble(want, 0x8);
        if got == Ok(word) {
            exact += 1;
            continue;
        }
        match got {
            Ok(w) if disassemble(w, 0x8).as_deref() == Ok(want) && canonical(word) == Ok(w) => {
                canon += 1;
                canonical_words.push(word);
            }
            _ => bad += 1,
        }
        *wrong.entry(base_mnemonic(want).to_string()).or_default() += 1;
        if std::env::var("KEPLERSIM_SHOW").map_or(examples.len() < 12, |m| {
            want.contains(m.as_str()) && examples.len() < 40
        }) {
            let got_text = got.as_ref().map(|w| disassemble(*w, 0x8));
            examples.push(format!(
                "{word:#018x} {want}\n  encoded: {got:x?} -> {got_text:?}"
            ));
        }
    }
    println!(
        "corpus encoding: {exact}/{printed} printed words encode back bit for bit \
         ({:.2}%), {canon} more to their canonical word, {bad} fail; {total} words in all",
        100.0 * exact as f64 / printed.max(1) as f64
    );
    println!("misses by mnemonic: {wrong:?}");
    for e in &examples {
        println!("{e}");
    }
    for (w, why) in NOT_IN_THE_TEXT {
        println!("{w:#018x} comes back as its canonical word: {why}");
    }
    assert_eq!(printed, total, "corpus words the table does not print");
    assert_eq!(
        bad, 0,
        "printed words that do not encode to a word printing their text"
    );
    // Exactly the listed words come back as another word: a new one fails,
    // and so does a listed one that now comes back bit for bit.
    let hex = |mut v: Vec<u64>| {
        v.sort_unstable();
        v.iter().map(|w| format!("{w:#018x}")).collect::<Vec<_>>()
    };
    let canonical_words = hex(canonical_words);
    let listed = hex(NOT_IN_THE_TEXT.iter().map(|e| e.0).collect());
    assert_eq!(
        canonical_words, listed,
        "the words that encode to their canonical word, not to themselves"
    );
    assert_eq!(exact + canon, total);
}
