//! The encoder on every word of the PTX corpus: nvdisasm's text of each word, parsed
//! and encoded with the generated table, gives the word back bit for bit, or its
//! canonical form: the word the encoder picks among several that print the same
//! text (bits nvdisasm ignores, decorations that print alike, NaN payloads all
//! printed `+QNAN`), which must print that text. Words whose text the table does
//! not yet print (see `corpus_agreement.rs`) are counted apart. Needs no tools.

mod common;

use std::collections::BTreeMap;

use sim_isa::decode::disassemble;
use sim_isa::encode::{assemble, base_mnemonic, canonical};

/// Words whose nvdisasm text the table encodes back to the very word, at least.
const FLOOR: usize = 23_539;

#[test]
fn corpus_texts_encode_to_their_words() {
    let (mut total, mut printed, mut exact, mut canon) = (0usize, 0usize, 0usize, 0usize);
    let mut bad = 0usize;
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
                canon += 1
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
    assert!(
        exact >= FLOOR,
        "corpus encoding fell to {exact} (floor {FLOOR})"
    );
    assert_eq!(
        bad, 0,
        "printed words that do not encode to a word printing their text"
    );
}
