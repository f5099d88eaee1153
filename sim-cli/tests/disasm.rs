//! End-to-end: `keplersim disasm` on real cubins against NVIDIA's `cuobjdump -sass`,
//! and its errors on bad input (one line naming the file, non-zero exit, no panic).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn keplersim(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_keplersim"))
        .args(args)
        .output()
        .expect("run keplersim");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn cuobjdump(file: &Path) -> String {
    let tool = root().join(".oracle/bin/cuobjdump");
    assert!(
        tool.is_file(),
        "{} is missing: run `bash scripts/fetch-oracle.sh`",
        tool.display()
    );
    let out = Command::new(tool)
        .arg("-sass")
        .arg(file)
        .output()
        .expect("run cuobjdump");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout).into_owned()
}

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
