//! A workload: a kernel's launch file, resolved with its variables, its cubin,
//! and a timed run of it on a configuration.

use std::path::{Path, PathBuf};

use sim_core::config::Config;
use sim_core::launch::{self, Mode, Outcome, Resolved};
use sim_core::timing::Stepping;
use sim_isa::cubin::Cubin;

use crate::Error;

/// The workspace's root (where `traces/` and `configs/` are).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the crate sits in the workspace")
        .to_path_buf()
}

/// Reads the files a launch file in `dir` names.
pub fn reader(dir: &Path) -> impl Fn(&str) -> Result<Vec<u8>, String> + '_ {
    move |f: &str| {
        let p = dir.join(f);
        std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display()))
    }
}

/// Parses the launch file `path` and resolves it with `sets`.
pub fn resolve(path: &Path, sets: &[(String, i64)]) -> Result<Resolved, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::File {
        path: path.display().to_string(),
        msg: e.to_string(),
    })?;
    let spec = launch::parse(&text).map_err(|e| Error::Run(format!("{}:{e}", path.display())))?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = reader(&dir);
    let r = launch::resolve(&spec, sets, &read)
        .map_err(|e| Error::Run(format!("{}: {e}", path.display())));
    r
}

/// The cubin a resolved launch file at `path` runs: the one it names, else
/// the file of its name (`X.launch.ron` -> `X.cubin`) beside it.
pub fn cubin_of(path: &Path, r: &Resolved) -> Result<(PathBuf, Cubin), Error> {
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().replace(".launch.ron", ".cubin"))
        .unwrap_or_default();
    let cubin_path = dir.join(r.cubin.clone().unwrap_or(name));
    let bytes = std::fs::read(&cubin_path).map_err(|e| Error::File {
        path: cubin_path.display().to_string(),
        msg: e.to_string(),
    })?;
    let cubin =
        Cubin::parse(&bytes).map_err(|e| Error::Run(format!("{}: {e}", cubin_path.display())))?;
    Ok((cubin_path, cubin))
}

/// Runs the launch file `path`, resolved with `sets`, timed (the SMs by
/// turns) on `config`.
pub fn run_timed(path: &Path, sets: &[(String, i64)], config: &Config) -> Result<Outcome, Error> {
    let r = resolve(path, sets)?;
    let (cubin_path, cubin) = cubin_of(path, &r)?;
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let read = reader(&dir);
    let out = launch::execute_as(&cubin, &r, Mode::Timed(Stepping::Turns), config, &read)
        .map_err(|e| Error::Run(format!("{}: {e}", cubin_path.display())));
    out
}
