//! What the suite's tests share: the workspace, the suite's launch files, and
//! a launch file loaded as the runner loads it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use sim_core::launch;
use sim_isa::cubin::Cubin;

/// Reads a file a launch names, from the launch file's folder.
pub type Read = Box<dyn Fn(&str) -> Result<Vec<u8>, String>>;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `traces/kernels/*.launch.ron`, sorted.
pub fn launch_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join("traces/kernels"))
        .expect("traces/kernels")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".launch.ron"))
        .collect();
    v.sort();
    v
}

/// The launch file at `path` resolved with its own values, its cubin (the one
/// it names, else the file of its name beside it), and its files' reader.
pub fn load(path: &Path) -> (Cubin, launch::Resolved, Read) {
    let text = std::fs::read_to_string(path).expect("launch file");
    let spec = launch::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dir = path.parent().expect("folder").to_path_buf();
    let files = dir.clone();
    let read: Read =
        Box::new(move |f: &str| std::fs::read(files.join(f)).map_err(|e| e.to_string()));
    let r =
        launch::resolve(&spec, &[], &read).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .file_name()
        .expect("a file")
        .to_string_lossy()
        .replace(".launch.ron", ".cubin");
    let cubin_path = dir.join(r.cubin.clone().unwrap_or(name));
    let bytes =
        std::fs::read(&cubin_path).unwrap_or_else(|e| panic!("{}: {e}", cubin_path.display()));
    let cubin = Cubin::parse(&bytes).expect("cubin parses");
    (cubin, r, read)
}
