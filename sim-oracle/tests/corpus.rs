//! The PTX corpus against NVIDIA's tools: every generated sample compiles, the
//! committed fixture `traces/isa-corpus/` (corpus and PTX) is exactly what
//! regenerating gives, and the corpus covers at least 2000 instruction variants.
//!
//! These tests need the oracle tools and fail (never skip) without them. With
//! `KEPLERSIM_BLESS=1` the fixture test rewrites the fixture instead of comparing.

use std::sync::OnceLock;

use sim_oracle::corpus::{self, Corpus, Sample};
use sim_oracle::{OracleError, Tools};

fn tools() -> Tools {
    match Tools::locate() {
        Ok(t) => t,
        // The message says to run `bash scripts/fetch-oracle.sh`.
        Err(e @ OracleError::Missing(_)) => panic!("{e}"),
        Err(e) => {
            panic!("{e}; the corpus tests need NVIDIA's tools: run `bash scripts/fetch-oracle.sh`")
        }
    }
}

fn samples() -> &'static [Sample] {
    static S: OnceLock<Vec<Sample>> = OnceLock::new();
    S.get_or_init(corpus::generate)
}

/// The corpus harvested from the generated samples (once per test process).
fn harvested() -> &'static Corpus {
    static C: OnceLock<Corpus> = OnceLock::new();
    C.get_or_init(|| {
        let t0 = std::time::Instant::now();
        let c =
            corpus::harvest(&tools(), samples()).unwrap_or_else(|e| panic!("harvest failed: {e}"));
        println!(
            "harvest of {} samples took {:.1}s",
            samples().len(),
            t0.elapsed().as_secs_f64()
        );
        c
    })
}

fn blessing() -> bool {
    std::env::var("KEPLERSIM_BLESS").is_ok_and(|v| v == "1")
}

#[test]
fn every_sample_compiles() {
    let tools = tools();
    let failures: Vec<String> = samples()
        .iter()
        .filter_map(|s| {
            corpus::compile(&tools, s)
                .err()
                .map(|e| format!("{}: {e}", s.name))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} samples do not compile:\n{}",
        failures.len(),
        samples().len(),
        failures.join("\n")
    );
}

#[test]
fn committed_corpus_is_current() {
    let dir = corpus::default_dir();
    if blessing() {
        let c = corpus::regenerate(&tools(), &dir)
            .unwrap_or_else(|e| panic!("regenerating failed: {e}"));
        println!(
            "blessed {}: {} words, {} variants",
            dir.display(),
            c.entries.len(),
            c.variant_count()
        );
        return;
    }
    let fresh = harvested();
    let path = corpus::corpus_path(&dir);
    let hint = format!(
        "regenerate it with `{}` (or `{}`) and commit traces/isa-corpus/",
        corpus::REGENERATE_COMMAND,
        corpus::BLESS_COMMAND
    );
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}; {hint}", path.display()));
    if committed != fresh.to_text() {
        let old = Corpus::parse(&committed, &path).unwrap_or_default();
        let old_words: std::collections::BTreeSet<u64> =
            old.entries.iter().map(|e| e.word).collect();
        let new_words: std::collections::BTreeSet<u64> =
            fresh.entries.iter().map(|e| e.word).collect();
        panic!(
            "{} is stale: {} words now, {} committed ({} new, {} gone); {hint}",
            path.display(),
            new_words.len(),
            old_words.len(),
            new_words.difference(&old_words).count(),
            old_words.difference(&new_words).count()
        );
    }
    // The PTX next to it is what the generator writes.
    let ptx_dir = dir.join("ptx");
    let mut on_disk: Vec<String> = std::fs::read_dir(&ptx_dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}; {hint}", ptx_dir.display()))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".ptx"))
        .collect();
    on_disk.sort();
    let mut expected: Vec<String> = samples()
        .iter()
        .map(|s| format!("{}.ptx", s.name))
        .collect();
    expected.sort();
    assert_eq!(
        on_disk,
        expected,
        "the PTX files in {} are stale; {hint}",
        ptx_dir.display()
    );
    for s in samples() {
        let p = ptx_dir.join(format!("{}.ptx", s.name));
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(text == s.ptx, "{} is stale; {hint}", p.display());
    }
}

#[test]
fn corpus_covers_2000_variants() {
    let c = harvested();
    let variants = c.variant_count();
    let mnemonics = c.mnemonics();
    println!(
        "corpus: {} samples, {} distinct words, {} variants, {} mnemonics",
        samples().len(),
        c.entries.len(),
        variants,
        mnemonics.len()
    );
    println!(
        "mnemonics: {}",
        mnemonics.into_iter().collect::<Vec<_>>().join(" ")
    );
    assert!(
        variants >= 2000,
        "only {variants} instruction variants (want at least 2000)"
    );
}

/// Cubins reproduced bit for bit by `assemble(disassemble(cubin))`, at least (of 26).
const REASSEMBLED_FLOOR: usize = 26;

#[test]
fn corpus_cubins_reassemble_bit_for_bit() {
    use sim_isa::asm::assemble_source;
    use sim_isa::cubin::Cubin;
    use sim_isa::listing::{listing, ListingOptions};

    let tools = tools();
    let (mut cubins, mut exact, mut words, mut words_exact) = (0usize, 0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    for s in samples() {
        let bytes = corpus::compile(&tools, s).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let cubin = Cubin::parse(&bytes).unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let mut original: Vec<(String, Vec<u64>)> = cubin
            .kernels
            .iter()
            .map(|k| (k.name.clone(), k.code.clone()))
            .chain(
                cubin
                    .functions
                    .iter()
                    .map(|f| (f.name.clone(), f.code.clone())),
            )
            .collect();
        original.sort();
        cubins += 1;
        let n: usize = original.iter().map(|f| f.1.len()).sum();
        words += n;
        let result = listing(&cubin, ListingOptions::default())
            .map_err(|e| e.to_string())
            .and_then(|text| assemble_source(&text).map_err(|e| e.to_string()));
        let ours = match result {
            Ok(k) => k,
            Err(e) => {
                failures.push(format!("{}: {e}", s.name));
                continue;
            }
        };
        let mut ours: Vec<(String, Vec<u64>)> =
            ours.into_iter().map(|k| (k.name, k.code)).collect();
        ours.sort();
        let same = original
            .iter()
            .zip(&ours)
            .flat_map(|(a, b)| a.1.iter().zip(&b.1).filter(|(x, y)| x == y))
            .count();
        words_exact += same;
        if ours == original {
            exact += 1;
        } else {
            failures.push(format!("{}: {} of {n} words differ", s.name, n - same));
        }
    }
    println!("reassembly: {exact}/{cubins} corpus cubins bit for bit; {words_exact}/{words} words");
    for f in &failures {
        println!("  {f}");
    }
    assert!(
        exact >= REASSEMBLED_FLOOR,
        "reassembled cubins fell to {exact} (floor {REASSEMBLED_FLOOR})"
    );
}
