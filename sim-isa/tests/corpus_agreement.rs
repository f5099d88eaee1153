//! Agreement of the decoder and printer with nvdisasm on every word of the PTX
//! corpus (`traces/isa-corpus/corpus.txt`, texts recorded from nvdisasm 11.8 as if
//! each word sat at address 0x8). Needs no tools: the corpus is committed.
//!
//! Every word must print exactly as nvdisasm printed it: one word that does not
//! fails the test, which prints the figures and the words that disagree.

mod common;

use std::collections::BTreeMap;

use sim_isa::decode::disassemble;

#[test]
fn corpus_words_print_as_nvdisasm_prints_them() {
    let (mut total, mut agree) = (0usize, 0usize);
    let mut wrong_by_mnemonic: BTreeMap<String, usize> = BTreeMap::new();
    let mut examples = Vec::new();
    for (word, want) in common::corpus() {
        let want = want.as_str();
        total += 1;
        let got = disassemble(word, 0x8);
        if got.as_deref() == Ok(want) {
            agree += 1;
        } else {
            let m = want
                .trim_start_matches('@')
                .split(' ')
                .find(|t| !t.starts_with('!') && !t.starts_with('P'))
                .unwrap_or("");
            *wrong_by_mnemonic
                .entry(m.split('.').next().unwrap_or("").to_string())
                .or_default() += 1;
            if std::env::var("KEPLERSIM_SHOW").map_or(examples.len() < 12, |m| {
                want.contains(m.as_str()) && examples.len() < 40
            }) {
                examples.push(format!(
                    "{word:#018x}\n  nvdisasm: {want}\n  keplersim: {got:?}"
                ));
            }
        }
    }
    println!(
        "corpus agreement: {agree}/{total} words ({:.2}%)",
        100.0 * agree as f64 / total as f64
    );
    println!("disagreements by mnemonic: {wrong_by_mnemonic:?}");
    for e in &examples {
        println!("{e}");
    }
    assert_eq!(
        agree,
        total,
        "{} corpus words print otherwise than nvdisasm prints them: {wrong_by_mnemonic:?}",
        total - agree
    );
}
