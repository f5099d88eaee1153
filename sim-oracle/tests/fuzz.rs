//! Differential fuzzing of the decoder and printer against nvdisasm: 1,000,000
//! words made by flipping one to three random bits of corpus words (a fixed seed,
//! so every run checks the same words), batched through `nvdisasm -b SM35 -raw`.
//! A word agrees when both print the same text or both reject it. Where the texts
//! agree, the encoder must give back the word, or its canonical form (bits
//! nvdisasm ignores as ptxas writes them, see `sim_isa::encode`), which prints
//! the same text.
//!
//! The goal is 100%, and the crack reaches it: the test fails on any
//! disagreement (`FLOOR_PPM`) and prints the figures. Needs the tools.
//! `KEPLERSIM_FUZZ_SEED=0x...` draws another million words (the seed must not
//! be zero); `KEPLERSIM_FUZZ_DUMP=path` writes every disagreement to
//! `path.<set>` (`path.fuzz`, `path.form_space`, `path.uniform`).
//!
//! A second test reaches what no mutation of a ptxas word does: 32 random words
//! of every form's space and 200,000 uniformly random words
//! (`KEPLERSIM_FUZZ_UNIFORM` for another count).

use std::collections::BTreeMap;

use sim_isa::decode::{decode, disassemble};
use sim_isa::encode::assemble;
use sim_oracle::corpus;
use sim_oracle::{Tools, Verdict};

const WORDS: usize = 1_000_000;
/// Agreement in parts per million that must hold, at least: all of it.
const FLOOR_PPM: u64 = 1_000_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn corpus_words() -> Vec<u64> {
    let path = corpus::corpus_path(&corpus::default_dir());
    let c = corpus::Corpus::read(&path).unwrap_or_else(|e| panic!("{e}"));
    c.entries.iter().map(|e| e.word).collect()
}

#[test]
fn mutated_words_decode_as_nvdisasm_decodes_them() {
    let tools = Tools::locate().unwrap_or_else(|e| panic!("{e}"));
    let base = corpus_words();
    let seed = std::env::var("KEPLERSIM_FUZZ_SEED").map_or(0x2545_f491_4f6c_dd1d, |s| {
        u64::from_str_radix(s.trim_start_matches("0x").replace('_', "").as_str(), 16)
            .ok()
            .filter(|&x| x != 0)
            .unwrap_or_else(|| panic!("KEPLERSIM_FUZZ_SEED={s}: not a nonzero hexadecimal seed"))
    });
    eprintln!("fuzz seed {seed:#x}");
    let mut rng = Rng(seed);
    let words: Vec<u64> = (0..WORDS)
        .map(|_| {
            let mut w = base[(rng.next() % base.len() as u64) as usize];
            for _ in 0..=(rng.next() % 3) {
                w ^= 1u64 << (rng.next() % 64);
            }
            w
        })
        .collect();
    compare(&tools, &words, "fuzz", "mutated words");
}

/// Words no seed is near: 32 random words of every form's space (its fixed
/// bits, the rest random) and 200,000 uniformly random words, which reach
/// every opcode, valid or not.
#[test]
fn random_words_decode_as_nvdisasm_decodes_them() {
    let tools = Tools::locate().unwrap_or_else(|e| panic!("{e}"));
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut words: Vec<u64> = Vec::new();
    for f in sim_isa::sm35_table::FORMS {
        for _ in 0..32 {
            words.push(f.bits | (rng.next() & !f.mask));
        }
    }
    compare(&tools, &words, "form space", "random words of the forms");
    // nvdisasm is slow on random words (most batches hold words it rejects
    // without an address, found by bisection): 200,000 keep the test to a
    // minute or two; `KEPLERSIM_FUZZ_UNIFORM=1000000` draws more.
    let n = std::env::var("KEPLERSIM_FUZZ_UNIFORM").map_or(200_000, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("KEPLERSIM_FUZZ_UNIFORM={v}: not a count"))
    });
    let words: Vec<u64> = (0..n).map(|_| rng.next()).collect();
    compare(&tools, &words, "uniform", "uniformly random words");
}

/// Disassembles `words` with nvdisasm and keplersim, prints the tally (`label`,
/// `what` the words are) and fails on any disagreement or any word printed
/// alike that does not encode back.
fn compare(tools: &Tools, words: &[u64], label: &str, what: &str) {
    let t0 = std::time::Instant::now();
    // Batches of 25,000 words, two nvdisasm processes at a time (the machines
    // have two cores), each batch's verdicts kept in its place.
    let chunks: Vec<&[u64]> = words.chunks(25_000).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<Vec<(Verdict, u64)>> = vec![Vec::new(); chunks.len()];
    std::thread::scope(|sc| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                sc.spawn(|| {
                    let mut got = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(chunk) = chunks.get(i) else {
                            return got;
                        };
                        let v = tools
                            .disasm_words_at(chunk, sim_oracle::tools::NEUTRAL_CONTROL)
                            .unwrap_or_else(|e| panic!("nvdisasm: {e}"));
                        got.push((i, v));
                    }
                })
            })
            .collect();
        for w in workers {
            for (i, v) in w.join().expect("an nvdisasm worker") {
                done[i] = v;
            }
        }
    });
    let verdicts: Vec<(Verdict, u64)> = done.into_iter().flatten().collect();
    assert_eq!(verdicts.len(), words.len());
    let oracle_secs = t0.elapsed().as_secs_f64();
    let (mut same_text, mut both_reject, mut wrong_text, mut we_reject, mut they_reject) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut enc_exact, mut enc_canon, mut enc_alias, mut enc_bad) = (0u64, 0u64, 0u64, 0u64);
    let mut wrong: BTreeMap<String, u64> = BTreeMap::new();
    // One example per mnemonic: word, nvdisasm's verdict, ours.
    let mut first: BTreeMap<String, String> = BTreeMap::new();
    let mut examples = Vec::new();
    let mut dump: Vec<String> = Vec::new();
    for (&w, (v, addr)) in words.iter().zip(&verdicts) {
        let ours = disassemble(w, *addr);
        match (v, &ours) {
            (Verdict::Text(t), Ok(o)) if t == o => {
                same_text += 1;
                let form = decode(w).expect("decodes").form;
                match assemble(o, *addr) {
                    Ok(e) if e == w => enc_exact += 1,
                    Ok(e)
                        if disassemble(e, *addr).as_deref() == Ok(o.as_str())
                            && (e ^ w) & !form.ignored & !sim_isa_alike_mask(form) == 0 =>
                    {
                        enc_canon += 1
                    }
                    Ok(e) if disassemble(e, *addr).as_deref() == Ok(o.as_str()) => enc_alias += 1,
                    _ => {
                        enc_bad += 1;
                        if examples.len() < 30 {
                            examples.push(format!("encode {w:#018x} {o}"));
                        }
                    }
                }
            }
            (Verdict::Rejected(_), Err(_)) => both_reject += 1,
            (Verdict::Text(t), Ok(o)) => {
                wrong_text += 1;
                dump.push(format!("{w:#018x}\ttext\t{t}\t{o}"));
                *wrong.entry(mnemonic(t)).or_default() += 1;
                first
                    .entry(mnemonic(t))
                    .or_insert_with(|| format!("{w:#018x} nvdisasm `{t}` ours `{o}`"));
                if examples.len() < 30 {
                    examples.push(format!(
                        "{w:#018x} nvdisasm `{t}` ours `{}`",
                        ours.clone().unwrap()
                    ));
                }
            }
            (Verdict::Text(t), Err(e)) => {
                we_reject += 1;
                dump.push(format!("{w:#018x}\twe-reject\t{t}\t{e}"));
                *wrong.entry(mnemonic(t)).or_default() += 1;
                first
                    .entry(mnemonic(t))
                    .or_insert_with(|| format!("{w:#018x} nvdisasm `{t}` ours: {e}"));
            }
            (Verdict::Rejected(m), Ok(o)) => {
                they_reject += 1;
                dump.push(format!("{w:#018x}\tthey-reject\t{m}\t{o}"));
                let key = format!("{} (nvdisasm rejects)", mnemonic(o));
                *wrong.entry(key.clone()).or_default() += 1;
                first
                    .entry(key)
                    .or_insert_with(|| format!("{w:#018x} nvdisasm rejects ({m}) ours `{o}`"));
            }
        }
    }
    if let Ok(path) = std::env::var("KEPLERSIM_FUZZ_DUMP") {
        let path = format!("{path}.{}", label.replace(' ', "_"));
        std::fs::write(&path, dump.join("\n") + "\n").unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    let agree = same_text + both_reject;
    let n = words.len();
    let ppm = agree * 1_000_000 / n as u64;
    println!(
        "{label}: {agree}/{n} {what} agree with nvdisasm ({:.3}%): {same_text} same text, \
         {both_reject} rejected by both; {wrong_text} other text, {we_reject} rejected only by us, \
         {they_reject} only by nvdisasm; nvdisasm took {oracle_secs:.1}s",
        agree as f64 / n as f64 * 100.0
    );
    println!(
        "{label} encode: of {same_text} words printed alike, {enc_exact} encode back bit for bit, \
         {enc_canon} to their canonical form (bits nvdisasm ignores, decorations that print \
         alike), {enc_alias} to another form printing the same text, {enc_bad} fail"
    );
    let mut worst: Vec<(&String, &u64)> = wrong.iter().collect();
    worst.sort_by_key(|(_, n)| std::cmp::Reverse(**n));
    println!(
        "disagreements by mnemonic (top 25): {:?}",
        &worst[..worst.len().min(25)]
    );
    for (m, _) in worst.iter().take(25) {
        if let Some(e) = first.get(m.as_str()) {
            println!("  first {m}: {e}");
        }
    }
    for e in &examples {
        println!("  {e}");
    }
    assert!(
        ppm >= FLOOR_PPM,
        "{label}: agreement fell to {ppm} ppm (floor {FLOOR_PPM})"
    );
    assert_eq!(
        enc_bad, 0,
        "{label}: words printed alike that do not encode back"
    );
}

fn mnemonic(text: &str) -> String {
    sim_isa::encode::base_mnemonic(text).to_string()
}

/// Bits of groups whose decorations print alike (the encoder may pick another).
fn sim_isa_alike_mask(form: &sim_isa::table::Form) -> u64 {
    let mut m = 0u64;
    for g in form.groups {
        let mut seen = std::collections::HashSet::new();
        let dup = g.table.iter().flatten().any(|e| !seen.insert(*e));
        if dup {
            for &b in g.deco_bits {
                m |= 1 << b;
            }
        }
    }
    m
}
