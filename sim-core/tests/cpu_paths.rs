//! The executor's AVX2 build and its baseline build give every suite kernel
//! the same results and the same cycles (the AVX2 one runs wherever the CPU
//! has it; this test also makes the baseline one run on such a CPU).

use std::path::{Path, PathBuf};

use sim_core::config::Config;
use sim_core::launch::{self, Mode};
use sim_isa::cubin::Cubin;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(path: &Path, config: &Config) -> launch::Outcome {
    let text = std::fs::read_to_string(path).expect("launch file");
    let spec = launch::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let dir = path.parent().expect("folder").to_path_buf();
    let read = |f: &str| std::fs::read(dir.join(f)).map_err(|e| e.to_string());
    let r =
        launch::resolve(&spec, &[], &read).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .file_name()
        .unwrap()
        .to_string_lossy()
        .replace(".launch.ron", ".cubin");
    let cubin_path = dir.join(r.cubin.clone().unwrap_or(name));
    let cubin = Cubin::parse(&std::fs::read(&cubin_path).expect("cubin")).expect("cubin parses");
    launch::execute_as(&cubin, &r, Mode::Timed, config, &read)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_avx2_and_baseline_executors_agree_on_every_suite_kernel() {
    let config = Config::default();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("traces/kernels"))
        .expect("traces/kernels")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".launch.ron"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the suite's launch files");
    for f in &files {
        sim_core::exec::use_wide_lanes(true);
        let wide = run(f, &config);
        sim_core::exec::use_wide_lanes(false);
        let base = run(f, &config);
        sim_core::exec::use_wide_lanes(true);
        let name = f.file_name().unwrap().to_string_lossy();
        assert_eq!(wide.timed, base.timed, "{name}: cycles and counters");
        assert_eq!(wide.checks.len(), base.checks.len(), "{name}");
        for (a, b) in wide.finals.iter().zip(&base.finals) {
            assert!(a.data == b.data, "{name}: buffer {}", a.name);
        }
        assert!(wide.passed() && base.passed(), "{name}: checks");
    }
}
