//! Shared by the end-to-end tests: the workspace root, running `keplersim`,
//! NVIDIA's `cuobjdump -sass` (from `.oracle/`; a missing tool fails the
//! test), and tmux terminals a test types into and reads.
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

/// Runs tmux with `args`; its stdout.
pub fn tmux(args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Whether tmux is installed (the terminal tests are skipped, with a note,
/// where it is not).
pub fn has_tmux() -> bool {
    Command::new("tmux").arg("-V").output().is_ok()
}

/// Tmux terminal `term`'s screen once it shows `want` and has stopped
/// changing, or after `within`, as it is then.
pub fn screen(term: &str, want: &str, within: std::time::Duration) -> String {
    let start = std::time::Instant::now();
    let mut last = String::new();
    loop {
        let s = tmux(&["capture-pane", "-t", term, "-p"]);
        // Shown, and the same as 100 ms before: a capture can land while a
        // loaded host is still drawing the frame (its title already new).
        if s.contains(want) && s == last || start.elapsed() > within {
            return s;
        }
        last = s;
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// A copy of `configs/k20m.ron` with each `(from, to)` edit made (each
/// `from` must be in it), in a scratch folder removed when it drops.
pub struct K20mCopy {
    dir: PathBuf,
    pub path: PathBuf,
}

impl K20mCopy {
    pub fn new(tag: &str, edits: &[(&str, &str)]) -> K20mCopy {
        let dir = std::env::temp_dir().join(format!("keplersim-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut text = std::fs::read_to_string(root().join("configs/k20m.ron")).unwrap();
        for (from, to) in edits {
            assert!(text.contains(from), "configs/k20m.ron has no `{from}`");
            text = text.replace(from, to);
        }
        let path = dir.join(format!("{tag}.ron"));
        std::fs::write(&path, text).unwrap();
        K20mCopy { dir, path }
    }
}

impl Drop for K20mCopy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
