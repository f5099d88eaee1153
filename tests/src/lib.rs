//! keplersim's end-to-end tests, across its crates: the tests under `tests/`
//! (golden timing reports of real kernels, and the `keplersim` binary called
//! as a user calls it). This library only finds the workspace and the
//! binary, and runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root (where `traces/` and `configs/` are).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// The `keplersim` binary of the profile these tests were built in.
///
/// `CARGO_BIN_EXE_keplersim` exists only in sim-cli's own tests, so it is
/// looked for beside this test's executable (`target/PROFILE/deps/X` ->
/// `target/PROFILE/keplersim`), where `cargo test --workspace` has built it;
/// when it is not there (`cargo test -p keplersim-tests`), it is built once,
/// with the cargo running the tests, into the same target folder and profile.
/// It is built even when it is there, so that it is never older than the
/// sources; cargo makes that a no-op when it is up to date.
pub fn keplersim_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test's own path");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("tests run from target/PROFILE/deps")
            .to_path_buf();
        let target = profile_dir.parent().expect("target/PROFILE").to_path_buf();
        let profile = profile_dir
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("debug")
            .to_string();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let mut build = Command::new(cargo);
        build
            .current_dir(root())
            .args(["build", "--quiet", "-p", "sim-cli", "--bin", "keplersim"])
            .arg("--target-dir")
            .arg(&target);
        if profile == "release" {
            build.arg("--release");
        } else if profile != "debug" {
            build.args(["--profile", &profile]);
        }
        let status = build.status().expect("run cargo to build keplersim");
        assert!(status.success(), "cargo build -p sim-cli failed");
        let bin = profile_dir.join(format!("keplersim{}", std::env::consts::EXE_SUFFIX));
        assert!(bin.is_file(), "{} was not built", bin.display());
        bin
    })
}

/// What a run of `keplersim` gave: whether it succeeded, its stdout and its
/// stderr.
pub struct Run {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

impl From<Output> for Run {
    fn from(out: Output) -> Run {
        Run {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Runs `keplersim ARGS` in the workspace root, as a user of a checkout
/// would.
pub fn keplersim(args: &[&str]) -> Run {
    Command::new(keplersim_path())
        .current_dir(root())
        .args(args)
        .output()
        .expect("run keplersim")
        .into()
}

/// A scratch folder of this test process, made empty.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("keplersim-e2e-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("a scratch folder");
    d
}
