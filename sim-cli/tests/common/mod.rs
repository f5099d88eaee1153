//! Shared by the end-to-end tests: the workspace root, running `keplersim`, and
//! NVIDIA's `cuobjdump -sass` (from `.oracle/`; a missing tool fails the test).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn keplersim(args: &[&str]) -> (bool, String, String) {
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

pub fn cuobjdump(file: &Path) -> String {
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
    assert!(
        out.status.success(),
        "cuobjdump refused {}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
