//! Which of the instruction words ptxas emits for sm_35 (the PTX corpus of the
//! ISA crack, `traces/isa-corpus/corpus.txt`) the executor models: each word is
//! decoded, its text read and lowered. Texture, surface and video instructions
//! are not modelled yet (README, *Functional execution*); everything else must
//! lower.

use std::collections::BTreeMap;

use sim_core::lower::lower;
use sim_core::sass::{float_fields, Syntax};

/// Mnemonics the executor does not model yet.
const NOT_MODELLED: &[&str] = &[
    "TEX",
    "TEXS",
    "TLD",
    "TLD4",
    "TXQ",
    "TMML",
    "TXD",
    "TXA",
    "SULD",
    "SUST",
    "SURED",
    "SUATOM",
    "SUBFM",
    "SUCLAMP",
    "SUEAU",
    "SULDGA",
    "SUSTGA",
    "VADD",
    "VSET",
    "VSHL",
    "VSHR",
    "VMAD",
    "VABSDIFF",
    "VMNMX",
    "VABSDIFF4",
    "JMX",
    "BPT",
    "ALD",
    "AST",
    "OUT",
    "IPA",
    "PIXLD",
    "ISBERD",
    "STP",
    "KIL",
    "DEPBAR",
    "LDU",
    "VABSDIFF2",
    "VADD2",
    "VADD4",
    "VMNMX2",
    "VMNMX4",
    "VSET2",
    "VSET4",
];

/// Modifier sets not modelled yet, as `MNEMONIC.MODS`.
const NOT_MODELLED_FORMS: &[&str] = &["IMADSP.SD"];

#[test]
fn every_corpus_instruction_lowers() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/isa-corpus/corpus.txt"
    ))
    .expect("corpus");
    let mut ok = 0usize;
    let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
    let mut failed: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let Some((w, _)) = line.split_once('\t') else {
            continue;
        };
        let Ok(word) = u64::from_str_radix(w.trim_start_matches("0x"), 16) else {
            continue;
        };
        let Ok(inst) = sim_isa::decode::decode(word) else {
            continue;
        };
        let t = inst.text(0x10000);
        let syn = match Syntax::parse(&t) {
            Ok(s) => s,
            Err(e) => {
                failed.entry(t.clone()).or_insert((0, e.to_string())).0 += 1;
                continue;
            }
        };
        let form = format!("{}.{}", syn.mnemonic, syn.mods.join("."));
        if NOT_MODELLED.contains(&syn.mnemonic.as_str())
            || NOT_MODELLED_FORMS.contains(&form.as_str())
        {
            *skipped.entry(syn.mnemonic.clone()).or_default() += 1;
            continue;
        }
        match lower(&syn, &float_fields(&inst, 0x10000)) {
            Ok(_) => ok += 1,
            Err(e) => {
                let key = format!("{} {}", syn.mnemonic, syn.mods.join("."));
                failed.entry(key).or_insert((0, format!("{t}: {e}"))).0 += 1;
            }
        }
    }
    let nskip: usize = skipped.values().sum();
    println!(
        "coverage: {ok} corpus words lower, {nskip} not modelled ({skipped:?}), {} fail",
        failed.values().map(|v| v.0).sum::<usize>()
    );
    for (k, (n, e)) in &failed {
        println!("  {n:5} {k}: {e}");
    }
    assert!(
        failed.is_empty(),
        "{} kinds of instruction do not lower",
        failed.len()
    );
}
