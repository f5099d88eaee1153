//! Decoder, printer and encoder throughput on the 23,544 words of the PTX corpus
//! (`cargo bench -p sim-isa --bench decode`); criterion prints words per second.

#[path = "../tests/common/mod.rs"]
mod common;

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use sim_isa::decode::{decode, disassemble};
use sim_isa::encode::assemble;

fn bench(c: &mut Criterion) {
    let entries = common::corpus();
    let words: Vec<u64> = entries.iter().map(|e| e.0).collect();
    let mut g = c.benchmark_group("sm35");
    g.throughput(Throughput::Elements(words.len() as u64));
    g.bench_function("decode", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &w in &words {
                n += decode(black_box(w)).map_or(0, |i| i.form_index);
            }
            n
        })
    });
    g.bench_function("decode+print", |b| {
        b.iter(|| {
            let mut n = 0usize;
            for &w in &words {
                n += disassemble(black_box(w), 0x8).map_or(0, |t| t.len());
            }
            n
        })
    });
    let texts: Vec<String> = words
        .iter()
        .filter_map(|&w| disassemble(w, 0x8).ok())
        .collect();
    g.throughput(Throughput::Elements(texts.len() as u64));
    g.sample_size(10);
    g.bench_function("parse+encode", |b| {
        b.iter(|| {
            let mut n = 0u64;
            for t in &texts {
                n ^= assemble(black_box(t), 0x8).unwrap_or(0);
            }
            n
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
