//! End-to-end: `keplersim disasm` on real cubins, and on the SASS and CUDA C
//! it builds first, against NVIDIA's `cuobjdump -sass`, and its errors on bad
//! input (one line naming the file, non-zero exit, no panic); and `isa
//! encode` / `isa decode` on single words.

mod common;

use common::{cuobjdump, keplersim, root};

#[test]
fn listing_matches_cuobjdump_byte_for_byte() {
    for name in [
        "globals",
        "saxpy",
        "shared_reverse",
        "two_entries",
        "two_entries_rel",
        "local_array",
    ] {
        let f = root().join(format!("traces/cubin-fixtures/{name}.cubin"));
        let (ok, out, err) = keplersim(&["disasm", f.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        assert_eq!(out, cuobjdump(&f), "{name}");
    }
}

#[test]
fn control_fields_are_shown_on_request() {
    let f = root().join("traces/cubin-fixtures/saxpy.cubin");
    let (ok, out, _) = keplersim(&["disasm", "--control", f.to_str().unwrap()]);
    assert!(ok);
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with("/* 0x") && l.contains('['))
        .expect("a control line");
    assert_eq!(
        line.split('[').nth(1).unwrap().split(' ').count(),
        7,
        "{line}"
    );
}

fn one_line_error(args: &[&str], needle: &str) {
    let (ok, out, err) = keplersim(args);
    assert!(!ok, "should fail: {args:?}");
    assert!(out.is_empty());
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{err} should mention {needle}");
    assert!(!err.contains("panicked"));
}

#[test]
fn bad_inputs_are_one_line_errors() {
    let dir = std::env::temp_dir().join(format!("keplersim-disasm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let empty = dir.join("empty.cubin");
    std::fs::write(&empty, b"").unwrap();
    one_line_error(&["disasm", empty.to_str().unwrap()], "empty.cubin");
    let text = dir.join("text.cubin");
    std::fs::write(&text, b"this is not an ELF file at all, just some text\n").unwrap();
    one_line_error(&["disasm", text.to_str().unwrap()], "not an ELF");
    let saxpy = std::fs::read(root().join("traces/cubin-fixtures/saxpy.cubin")).unwrap();
    let trunc = dir.join("truncated.cubin");
    std::fs::write(&trunc, &saxpy[..40]).unwrap();
    one_line_error(&["disasm", trunc.to_str().unwrap()], "truncated.cubin");
    let sm52 = root().join("traces/cubin-fixtures/saxpy_sm52.cubin");
    one_line_error(&["disasm", sm52.to_str().unwrap()], "sm_52");
    // sm_20 (ptxas 11.8 cannot build for it): saxpy with e_flags' SM fields set to 20.
    let mut sm20 = saxpy.clone();
    let flags = u32::from_le_bytes(sm20[0x30..0x34].try_into().unwrap());
    let flags = (flags & !0x00ff_00ff) | 0x0014_0014;
    sm20[0x30..0x34].copy_from_slice(&flags.to_le_bytes());
    let sm20f = dir.join("sm20.cubin");
    std::fs::write(&sm20f, &sm20).unwrap();
    one_line_error(&["disasm", sm20f.to_str().unwrap()], "sm_20");
    // A section table past the end of the file (e_shoff at 0x28).
    let mut shoff = saxpy.clone();
    shoff[0x28..0x30].copy_from_slice(&(saxpy.len() as u64 + 64).to_le_bytes());
    let shofff = dir.join("shoff.cubin");
    std::fs::write(&shofff, &shoff).unwrap();
    one_line_error(&["disasm", shofff.to_str().unwrap()], "shoff.cubin");
    // A section whose data lies past the end of the file.
    let c = sim_isa::cubin::Cubin::parse(&saxpy).unwrap();
    let e_shoff = u64::from_le_bytes(saxpy[0x28..0x30].try_into().unwrap()) as usize;
    let text_sh = e_shoff + 64 * c.kernels[0].text_section;
    let mut sec = saxpy.clone();
    sec[text_sh + 0x18..text_sh + 0x20].copy_from_slice(&(1u64 << 40).to_le_bytes());
    let secf = dir.join("section.cubin");
    std::fs::write(&secf, &sec).unwrap();
    one_line_error(&["disasm", secf.to_str().unwrap()], "section.cubin");
    one_line_error(
        &["disasm", dir.join("missing.cubin").to_str().unwrap()],
        "missing.cubin",
    );
    // An instruction word no form claims: a control-like word in an instruction slot.
    let mut bad = saxpy.clone();
    let cubin = sim_isa::cubin::Cubin::parse(&saxpy).unwrap();
    let k = &cubin.kernels[0];
    let off = cubin.sections[k.text_section].offset as usize + 8;
    bad[off..off + 8].copy_from_slice(&0x0800_0000_0000_0000u64.to_le_bytes());
    let badf = dir.join("badop.cubin");
    std::fs::write(&badf, &bad).unwrap();
    one_line_error(&["disasm", badf.to_str().unwrap()], "address 0x0008");
}

/// A `.sass` is assembled and a `.cu` compiled before the listing: each
/// lists what `asm` or `compile` writes, and that is what cuobjdump reads.
#[test]
fn sass_and_cuda_c_are_listed_as_what_they_build() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("disasm-builds");
    std::fs::create_dir_all(&dir).unwrap();
    for (source, build) in [
        ("traces/asm/saxpy.sass", "asm"),
        ("traces/kernels/saxpy.cu", "compile"),
    ] {
        let src = root().join(source);
        let cubin = dir.join(format!("{build}.cubin"));
        let (ok, _, err) =
            keplersim(&[build, src.to_str().unwrap(), "-o", cubin.to_str().unwrap()]);
        assert!(ok, "{source}: {err}");
        let (ok, listed, err) = keplersim(&["disasm", src.to_str().unwrap()]);
        assert!(ok, "{source}: {err}");
        assert_eq!(listed, cuobjdump(&cubin), "{source}");
    }
}

/// `isa encode` and `isa decode` on the command line: a text to its word and
/// back, a branch at `--addr`, and what they refuse.
#[test]
fn isa_encode_and_decode_round_trip_on_the_command_line() {
    let (ok, out, err) = keplersim(&["isa", "encode", "FFMA R1, R2, R3, R4"]);
    assert!(ok, "{err}");
    let word = out.split_whitespace().next().expect("a word").to_string();
    assert!(out.contains("FFMA R1, R2, R3, R4;"), "{out}");
    let (ok, out, err) = keplersim(&["isa", "decode", &word]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), format!("{word}  FFMA R1, R2, R3, R4;"));
    // A branch's target is absolute: the word depends on where it sits.
    let (ok, out, err) = keplersim(&["isa", "encode", "--addr", "0x10", "BRA 0x40;"]);
    assert!(ok, "{err}");
    let bra = out.split_whitespace().next().expect("a word").to_string();
    let (ok, out, _) = keplersim(&["isa", "decode", "--addr", "0x10", &bra]);
    assert!(ok && out.contains("BRA 0x40;"), "{out}");
    let (_, out, _) = keplersim(&["isa", "decode", "--addr", "0x20", &bra]);
    assert!(out.contains("BRA 0x50;"), "{out}");
    let (ok, _, err) = keplersim(&["isa", "decode", "--addr", "0x3", &word]);
    assert!(
        !ok && err.contains("--addr 0x3: instructions sit at multiples of 8"),
        "{err}"
    );
    let (ok, out, err) = keplersim(&["isa", "encode", "FOO R1"]);
    assert!(!ok && err.contains("1 of 1 texts do not encode"), "{err}");
    assert!(out.contains("unknown instruction `FOO`"), "{out}");
    let (ok, out, err) = keplersim(&["isa", "encode", " ;"]);
    assert!(!ok && err.contains("1 of 1 texts do not encode"), "{err}");
    assert!(out.contains("error: an empty text"), "{out}");
}
