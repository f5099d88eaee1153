//! The fuzz targets' bodies (`fuzz/src/lib.rs`, compiled here as a module) on
//! every input the fuzzers found a fault with (`fuzz/regressions/TARGET/*`,
//! minimised), and on a few fixed random programs: what a fuzzer once broke
//! stays fixed, in the normal test suite, without libFuzzer.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| body(&data));
        assert!(r.is_ok(), "{} fails again", p.display());
        n += 1;
    }
    n
}

#[test]
fn the_fuzzers_crashers_stay_fixed() {
    let n = replay("cubin", harness::cubin)
        + replay("asm", harness::asm)
        + replay("launch", harness::launch)
        + replay("config", harness::config)
        + replay("decode", harness::decode)
        + replay("program", harness::program);
    println!("{n} regression inputs");
}

/// Random programs from fixed bytes: they assemble, and the functional and
/// timed models leave the same values.
#[test]
fn random_programs_agree_functional_and_timed() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in [8usize, 64, 200, 400] {
        for _ in 0..4 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            harness::program(&data);
        }
    }
}
