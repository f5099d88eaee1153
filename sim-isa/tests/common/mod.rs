//! Shared by the corpus tests and the decode benchmark: the committed corpus.

/// Every (word, nvdisasm text) of `traces/isa-corpus/corpus.txt`; texts as if each
/// word sat at address 0x8. Checks that the file holds as many words as its
/// header says it does.
pub fn corpus() -> Vec<(u64, String)> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/isa-corpus/corpus.txt"
    );
    let text = std::fs::read_to_string(path).expect("read traces/isa-corpus/corpus.txt");
    let words: Vec<(u64, String)> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let (hex, want) = l.split_once('\t').expect("word<TAB>text");
            let word = u64::from_str_radix(hex.trim_start_matches("0x"), 16).expect("hex word");
            (word, want.to_string())
        })
        .collect();
    // The header's second line: `# 23544 words, 4161 variants; ...`.
    let stated: usize = text
        .lines()
        .find_map(|l| l.strip_prefix("# ")?.split_once(" words")?.0.parse().ok())
        .expect("the corpus header states its number of words");
    assert_eq!(
        words.len(),
        stated,
        "words in the corpus, as its header says"
    );
    assert!(!words.is_empty(), "an empty corpus");
    words
}
