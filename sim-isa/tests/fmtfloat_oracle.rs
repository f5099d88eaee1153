//! Checks `sim_isa::fmtfloat` against NVIDIA's nvdisasm: the float immediates of
//! `FADD32I` (32-bit), `FADD` (20-bit f32) and `DADD` (20-bit f64) are printed by
//! nvdisasm in raw mode and compared with `f32_text` / `f64_text`, and every text
//! nvdisasm printed must parse back to the bits it came from.
//!
//! Needs `.oracle/bin/nvdisasm` (or `$KEPLERSIM_ORACLE/bin/nvdisasm`); without it the
//! tests fail and say to run `bash scripts/fetch-oracle.sh`.

use std::path::PathBuf;
use std::process::Command;

use sim_isa::fmtfloat::{
    f32_text, f64_text, parse_f32_text, parse_f64_text, F32_QNAN, F64_QNAN, F64_SNAN,
};

/// Control word for each group of seven instructions.
const CONTROL: u64 = 0x0880_8080_8080_8080;
/// Padding instruction.
const NOP: u64 = 0x8580_0000_001c_3c02;

/// `FADD32I R0, R0, imm32`: the IEEE bits sit in word bits 23..=54.
const FADD32I_BASE: u64 = 0x4000_0000_001c_0000;
/// The 20-bit immediate field: low 19 bits at word bits 23..=41, the sign at bit 59.
const IMM20_MASK: u64 = (0x7ffff << 23) | (1 << 59);
/// `FADD R0, R0, imm20` with a zero immediate.
const FADD_BASE: u64 = 0xc2c0_01fe_001c_0001 & !IMM20_MASK;
/// `DADD R4, R4, imm20` with a zero immediate.
const DADD_BASE: u64 = 0xc380_01ff_c01c_1011 & !IMM20_MASK;

fn fadd32i(bits: u32) -> u64 {
    FADD32I_BASE | (bits as u64) << 23
}

/// Places the top 20 bits `v20` (sign first) of a float in the 20-bit field.
fn imm20(base: u64, v20: u32) -> u64 {
    base | ((v20 as u64 & 0x7ffff) << 23) | ((v20 as u64 >> 19) << 59)
}

fn nvdisasm() -> PathBuf {
    let root = match std::env::var_os("KEPLERSIM_ORACLE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.oracle"),
    };
    let tool = root.join("bin/nvdisasm");
    assert!(
        tool.is_file(),
        "nvdisasm not found at {}: run `bash scripts/fetch-oracle.sh` (these tests need NVIDIA's tools)",
        tool.display()
    );
    tool
}

/// Disassembles `words` in raw mode; returns, per word, the immediate text: what
/// follows the last ", " up to the ';' (trailing space kept, as nvdisasm prints it).
fn immediates(words: &[u64], tag: &str) -> Vec<String> {
    let tool = nvdisasm();
    let mut bytes = Vec::with_capacity(words.len() / 7 * 64 + 64);
    for group in words.chunks(7) {
        bytes.extend_from_slice(&CONTROL.to_le_bytes());
        for i in 0..7 {
            bytes.extend_from_slice(&group.get(i).copied().unwrap_or(NOP).to_le_bytes());
        }
    }
    let path = std::env::temp_dir().join(format!(
        "keplersim-fmtfloat-{}-{tag}.bin",
        std::process::id()
    ));
    std::fs::write(&path, &bytes).expect("write raw stream");
    let out = Command::new(&tool)
        .args(["-b", "SM35", "-raw"])
        .arg(&path)
        .output()
        .expect("run nvdisasm");
    let _ = std::fs::remove_file(&path);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "nvdisasm failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut texts = Vec::with_capacity(words.len());
    for line in stdout.lines() {
        let line = line.trim_start();
        let Some(rest) = line.strip_prefix("/*") else {
            continue;
        };
        let Some((addr, insn)) = rest.split_once("*/") else {
            continue;
        };
        let addr = u64::from_str_radix(addr, 16).expect("address");
        if addr % 64 == 0 {
            continue; // control word slot
        }
        let insn = insn.trim_start();
        let body = insn.split(';').next().unwrap();
        let imm = body.rsplit_once(", ").map(|(_, i)| i).unwrap_or(body);
        texts.push(imm.to_string());
    }
    assert!(
        texts.len() >= words.len(),
        "nvdisasm printed {} instructions for {} words",
        texts.len(),
        words.len()
    );
    texts.truncate(words.len());
    texts
}

/// xorshift64*: a fixed, seedable generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

/// Interesting f32 bit patterns: specials, all powers of two, subnormal edges,
/// integers and neighbours around the 1e9 and 1e-4 switch-overs, and exact ties.
fn special_f32() -> Vec<u32> {
    let mut v: Vec<u32> = vec![
        0,
        0x8000_0000,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0000,
        0xffc0_0000,
        0x7f80_0001,
        0xff80_0001,
        0x7fbf_ffff,
        0x7fff_ffff,
        0xffff_ffff,
        0x0000_0001,
        0x007f_ffff,
        0x0080_0000,
        0x7f7f_ffff,
        0x3f7f_ffff,
        0x3f80_0001,
    ];
    for e in 1..255u32 {
        v.push(e << 23);
        v.push(e << 23 | 0x7f_ffff);
    }
    for k in 0..23 {
        v.push(1 << k);
    }
    for x in [
        1e9f32,
        1e-4,
        1e-5,
        1e8,
        1e10,
        0.1,
        1.0,
        10.0,
        999_999_999.0,
        0.000_099_999,
    ] {
        let b = x.to_bits();
        for d in -40i32..=40 {
            v.push(b.wrapping_add(d as u32));
        }
    }
    for i in 0..2000u32 {
        v.push((i as f32).to_bits());
        v.push((((1u32 << 24) - i) as f32).to_bits());
    }
    // Exact ties: m * 2^-k (m odd) whose decimal expansion m * 5^k has 21 digits,
    // so rounding to 20 significant digits meets an exact half.
    let mut rng = Rng(0x7165_5eed);
    for k in 1..=30u32 {
        let p5 = 5u128.pow(k);
        let lo = (10u128.pow(20)).div_ceil(p5).max(1);
        let hi = (10u128.pow(21) / p5).min((1 << 24) - 1);
        if lo > hi {
            continue;
        }
        for _ in 0..60 {
            let m = (lo + rng.next() as u128 % (hi - lo + 1)) | 1;
            if m > hi {
                continue;
            }
            let x = m as f32 * (2f32).powi(-(k as i32));
            v.push(x.to_bits());
        }
    }
    let neg: Vec<u32> = v.iter().map(|b| b ^ 0x8000_0000).collect();
    v.extend(neg);
    v
}

/// Compares printer and parser against the oracle; returns the number of agreements.
fn check<T: Copy + std::fmt::LowerHex>(
    what: &str,
    values: &[T],
    oracle: &[String],
    print: impl Fn(T) -> String,
    parse_back: impl Fn(T, &str) -> bool,
) -> usize {
    let mut bad = Vec::new();
    let mut parse_bad = Vec::new();
    for (&v, want) in values.iter().zip(oracle) {
        let got = print(v);
        if &got != want {
            bad.push(format!("{v:#x}: nvdisasm {want:?}, ours {got:?}"));
        }
        if !parse_back(v, want) {
            parse_bad.push(format!("{v:#x}: {want:?} does not parse back"));
        }
    }
    let agree = values.len() - bad.len();
    println!(
        "{what}: {agree}/{} printed texts agree with nvdisasm; {} texts parse back",
        values.len(),
        values.len() - parse_bad.len()
    );
    assert!(
        bad.is_empty(),
        "{what}: {} mismatches, first: {:#?}",
        bad.len(),
        &bad[..bad.len().min(20)]
    );
    assert!(
        parse_bad.is_empty(),
        "{what}: {} parse failures, first: {:#?}",
        parse_bad.len(),
        &parse_bad[..parse_bad.len().min(20)]
    );
    agree
}

fn f32_parses_back(b: u32, text: &str) -> bool {
    let want = if f32::from_bits(b).is_nan() {
        F32_QNAN | (b & 0x8000_0000)
    } else {
        b
    };
    parse_f32_text(text) == Some(want)
}

fn f64_parses_back(b: u64, text: &str) -> bool {
    let want = if !f64::from_bits(b).is_nan() {
        b
    } else if b & (1 << 51) != 0 {
        F64_QNAN | (b & (1 << 63))
    } else {
        F64_SNAN | (b & (1 << 63))
    };
    parse_f64_text(text) == Some(want)
}

#[test]
fn fadd32i_random_and_special_f32() {
    let mut rng = Rng(0x5eed_f32f_32f3_2f32);
    let mut values: Vec<u32> = (0..200_000).map(|_| rng.next() as u32).collect();
    values.extend(special_f32());
    let words: Vec<u64> = values.iter().map(|&b| fadd32i(b)).collect();
    let oracle = immediates(&words, "fadd32i");
    check("FADD32I f32", &values, &oracle, f32_text, f32_parses_back);
}

#[test]
fn fadd_imm20_f32() {
    // Every exponent and sign with several mantissas, plus random 20-bit patterns.
    let mut rng = Rng(0x20b1_7f32);
    let mut v20: Vec<u32> = Vec::new();
    for se in 0..512u32 {
        for m in [0u32, 1, 0x40, 0x7f, 0x55, 0x2a] {
            v20.push(se << 11 | m << 4);
            v20.push(se << 11 | m);
        }
    }
    v20.extend((0..40_000).map(|_| rng.next() as u32 & 0xfffff));
    let words: Vec<u64> = v20.iter().map(|&v| imm20(FADD_BASE, v)).collect();
    let oracle = immediates(&words, "fadd20");
    let values: Vec<u32> = v20.iter().map(|&v| v << 12).collect();
    check(
        "FADD imm20 f32",
        &values,
        &oracle,
        f32_text,
        f32_parses_back,
    );
}

#[test]
fn dadd_imm20_f64() {
    // All 4096 sign/exponent pairs with several mantissas, plus random 20-bit patterns.
    let mut rng = Rng(0x20b1_7f64);
    let mut v20: Vec<u32> = Vec::new();
    for se in 0..4096u32 {
        for m in [0u32, 1, 0x80, 0xff, 0x55, 0xaa, 0x7f, 0x19] {
            v20.push(se << 8 | m);
        }
    }
    v20.extend((0..60_000).map(|_| rng.next() as u32 & 0xfffff));
    let words: Vec<u64> = v20.iter().map(|&v| imm20(DADD_BASE, v)).collect();
    let oracle = immediates(&words, "dadd20");
    let values: Vec<u64> = v20.iter().map(|&v| (v as u64) << 44).collect();
    check(
        "DADD imm20 f64",
        &values,
        &oracle,
        f64_text,
        f64_parses_back,
    );
}
