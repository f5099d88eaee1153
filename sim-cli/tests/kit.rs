//! The kits for a real card, end to end where there is no card: `keplersim
//! bench micro --kit DIR` (or `bench sgemm --kit DIR`) writes one; its
//! `run_kit.c` is built with the machine's C compiler and run against a
//! stand-in for NVIDIA's driver (`fixtures/fake_libcuda.c`) that hands back
//! what each kernel stored on the model; `--card DIR` must then derive every
//! figure the model gives. What a card would add, the kernels' running on
//! it, is the one part no test here can take.

mod common;

use common::{cuobjdump, keplersim, root};
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("keplersim-kit-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// A scratch directory with a kit of the suite (`--fast`) in `kit/`: the
/// directory, the kit, and what `bench micro --kit` said on stderr.
fn made_kit(tag: &str) -> (PathBuf, PathBuf, String) {
    let dir = scratch(tag);
    let kit = dir.join("kit");
    let (ok, _, err) = keplersim(&[
        "bench",
        "micro",
        "--fast",
        "--kit",
        &kit.display().to_string(),
    ]);
    assert!(ok, "{err}");
    (dir, kit, err)
}

/// Compiles C with the machine's `cc` (which the Rust toolchain links with).
/// `keplersim bench SUITE --card KIT --json DIR/card.json`, which must
/// succeed: what it prints, and the JSON report.
fn card_report(suite: &str, kit: &str, dir: &Path) -> (String, serde_json::Value) {
    let json = dir.join("card.json");
    let (ok, out, err) = keplersim(&[
        "bench",
        suite,
        "--card",
        kit,
        "--json",
        &json.display().to_string(),
    ]);
    assert!(ok, "{err}\n{out}");
    let report = serde_json::from_str(&std::fs::read_to_string(&json).expect("json"));
    (out, report.expect("json"))
}

fn cc(args: &[&str]) {
    let out = Command::new("cc").args(args).output().expect("cc runs");
    assert!(
        out.status.success(),
        "cc {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds `run_kit` in `kit` as its instructions say, warnings as errors.
fn build_run_kit(kit: &Path) {
    let k = kit.display().to_string();
    cc(&[
        "-std=c99",
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pedantic",
        "-o",
        &format!("{k}/run_kit"),
        &format!("{k}/run_kit.c"),
        "-ldl",
    ]);
}

/// Builds the stand-in driver into `dir/fake/libcuda.so.1`; gives `dir/fake`.
fn fake_driver(dir: &Path) -> PathBuf {
    let fake = dir.join("fake");
    std::fs::create_dir_all(&fake).expect("fake dir");
    cc(&[
        "-shared",
        "-fPIC",
        "-O2",
        "-o",
        &fake.join("libcuda.so.1").display().to_string(),
        &root()
            .join("sim-cli/tests/fixtures/fake_libcuda.c")
            .display()
            .to_string(),
    ]);
    fake
}

/// Runs `run_kit` in `kit`, with the stand-in driver in `fake` when given.
fn run_kit(kit: &Path, fake: Option<&Path>, log: &Path) -> (i32, String) {
    let mut cmd = Command::new(kit.join("run_kit"));
    cmd.current_dir(kit)
        .env("FAKE_CUDA_OUTS", kit.join("model"))
        .env("FAKE_CUDA_LOG", log);
    match fake {
        Some(f) => cmd.env("LD_LIBRARY_PATH", f),
        None => cmd.env_remove("LD_LIBRARY_PATH"),
    };
    let out = cmd.output().expect("run_kit runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The manifest's runs: (kernel, grid, block, word parameters (offset, value)).
type Run = (String, [u32; 3], [u32; 3], Vec<(usize, u32)>);

fn manifest(kit: &Path) -> Vec<Run> {
    let text = std::fs::read_to_string(kit.join("kit.txt")).expect("kit.txt");
    let mut runs: Vec<Run> = Vec::new();
    for line in text.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let n = |i: usize| w[i].parse::<u32>().expect("a number");
        match w.first() {
            Some(&"run") => runs.push((
                w[3].to_string(),
                [n(5), n(6), n(7)],
                [n(8), n(9), n(10)],
                Vec::new(),
            )),
            Some(&"param") if w[1] == "word" => {
                let run = runs.last_mut().expect("a run before its parameters");
                run.3.push((n(2) as usize, n(3)));
            }
            _ => {}
        }
    }
    runs
}

#[test]
fn a_card_that_stores_what_the_model_stored_gives_the_models_figures() {
    let (dir, kit, err) = made_kit("e2e");
    assert!(err.contains("run_kit"), "the kit says how to run it: {err}");
    let runs = manifest(&kit);
    assert!(runs.len() > 500, "{} runs", runs.len());

    // The kit's C program builds cleanly, and says so when there is no driver.
    let k = kit.display().to_string();
    build_run_kit(&kit);
    let log = dir.join("launches.log");
    let (status, err) = run_kit(&kit, None, &log);
    assert_eq!(status, 2, "{err}");
    assert!(err.contains("no CUDA driver (libcuda.so.1)"), "{err}");

    // On the stand-in driver: every kernel launched twice as the manifest says.
    let fake = fake_driver(&dir);
    let (status, err) = run_kit(&kit, Some(&fake), &log);
    assert_eq!(status, 0, "{err}");
    let driver_log = std::fs::read_to_string(&log).expect("the driver's log");
    // The card set as the model: 48 KB shared (prefer shared), 8-byte banks.
    let calls: Vec<&str> = driver_log
        .lines()
        .filter(|l| !l.starts_with("launch") && !l.starts_with("htod"))
        .collect();
    assert_eq!(calls, ["cache_config 1", "shared_mem_config 2"]);
    let launches: Vec<&str> = driver_log
        .lines()
        .filter(|l| l.starts_with("launch"))
        .collect();
    assert_eq!(launches.len(), 2 * runs.len());
    for (i, (kernel, grid, block, words)) in runs.iter().enumerate() {
        for l in &launches[2 * i..2 * i + 2] {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[1].parse::<usize>(), Ok(i), "{l}");
            assert_eq!(w[2], kernel, "{l}");
            let dims = format!(
                "grid {} {} {} block {} {} {}",
                grid[0], grid[1], grid[2], block[0], block[1], block[2]
            );
            assert!(l.contains(&dims), "{l}: {dims}");
            let hex = w.last().expect("parameter bytes");
            let bytes: Vec<u8> = (0..hex.len() / 2)
                .map(|j| u8::from_str_radix(&hex[2 * j..2 * j + 2], 16).expect("hex"))
                .collect();
            assert_ne!(&bytes[..8], &[0u8; 8], "{l}: out's address");
            for &(off, value) in words {
                let got = u32::from_le_bytes(bytes[off..off + 4].try_into().expect("4 bytes"));
                assert_eq!(got, value, "{l}: the word at {off}");
            }
        }
    }

    // The card's figures are the model's, row for row.
    let (out, report) = card_report("micro", &k, &dir);
    assert!(out.contains("keplersim test driver (no GPU)"), "{out}");
    let rows = report["rows"].as_array().expect("rows");
    assert!(rows.len() > 500, "{} rows", rows.len());
    assert_eq!(report["device"]["cc"], serde_json::json!([3, 5]));
    for r in rows {
        let (card, model) = (r["card"].as_f64().unwrap(), r["model"].as_f64().unwrap());
        assert!(
            (card - model).abs() <= 1e-6 * model.abs().max(1.0),
            "{}: card {card}, model {model}",
            r["name"]
        );
        assert_ne!(r["card_ok"], false, "{}", r["name"]);
    }
    for name in [
        "FFMA 2-way, no shared operand, 2 warps/scheduler",
        "LD (L2 hit)",
        "LDS.64 beside LD.E (1 in 9)",
        "LD.128 stream 64 MB",
    ] {
        assert!(rows.iter().any(|r| r["name"] == name), "no row {name}");
    }
    assert!(
        out.contains("the card is in band in"),
        "the summary counts the rows held to a figure: {out}"
    );
    // Each reading's rows tell the configuration's setting from every other
    // (one of them by more than 3%, three times what `--card` takes as
    // apart), and a card that stores what the model did is nearer the
    // configuration's alone: on its one row, or on its rows together.
    let readings = report["readings"].as_array().expect("readings");
    assert_eq!(readings.len(), 22);
    let mut fields: Vec<&str> = readings
        .iter()
        .map(|r| r["field"].as_str().expect("a field"))
        .collect();
    fields.dedup();
    assert_eq!(fields.len(), 16, "{fields:?}");
    for field in fields {
        let rows: Vec<&serde_json::Value> =
            readings.iter().filter(|r| r["field"] == field).collect();
        let figures = |r: &serde_json::Value| -> Vec<(String, f64)> {
            r["figures"]
                .as_array()
                .expect("figures")
                .iter()
                .map(|f| {
                    let setting = f[0].as_str().expect("a setting").to_string();
                    (setting, f[1].as_f64().expect("a figure"))
                })
                .collect()
        };
        let own = figures(rows[0])[0].0.clone();
        for (i, (value, _)) in figures(rows[0]).iter().enumerate().skip(1) {
            assert!(
                rows.iter().any(|r| {
                    let f = figures(r);
                    (f[i].1 - f[0].1).abs() > 0.03 * f[0].1
                }),
                "{field}: no row tells {value} from {own}"
            );
        }
        let verdict = if rows.len() == 1 {
            rows[0]["row"].as_str().expect("a row").to_string()
        } else {
            format!("the {} rows together", rows.len())
        };
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(field) && l.contains(&verdict))
            .unwrap_or_else(|| panic!("no line for {field}, {verdict}: {out}"));
        assert!(line.ends_with(&format!("nearer {own}")), "{line}");
        // And so the JSON's verdict.
        let verdict = report["verdicts"]
            .as_array()
            .expect("verdicts")
            .iter()
            .find(|v| {
                v["field"] == field
                    && (rows.len() > 1 && v["row"].is_null()
                        || rows.len() == 1 && v["row"] == rows[0]["row"])
            })
            .unwrap_or_else(|| panic!("no verdict for {field}"));
        assert_eq!(verdict["nearer"], serde_json::json!([own]), "{verdict}");
        assert_eq!(verdict["all_rows"], true, "{verdict}");
    }
    // The latencies measured on another GK110, beside the card's own.
    for (field, row, model) in [
        ("l2_latency", "LD (L2 hit)", 188),
        ("l1_latency", "LDL (L1 hit)", 32),
        ("fp64_latency", "DADD chain", 10),
    ] {
        let line = out
            .lines()
            .find(|l| l.trim_start().starts_with(field))
            .unwrap_or_else(|| panic!("no line for {field}: {out}"));
        assert!(
            line.contains(row)
                && line.ends_with(&format!("card {model}.0 cycles; the model's {model}")),
            "{line}"
        );
    }
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn a_kit_that_is_not_this_suites_or_has_no_results_says_so() {
    let (dir, kit, _) = made_kit("stale");
    let k = kit.display().to_string();
    let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
    assert!(!ok);
    assert!(
        err.contains("no results") && err.contains("run_kit"),
        "{err}"
    );

    // A run that stopped before writing anything.
    std::fs::create_dir_all(kit.join("results")).expect("results");
    let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
    assert!(
        !ok && err.contains("device.txt: not there: run_kit did not finish"),
        "{err}"
    );

    // Results as the model left them, then a kernel the suite no longer runs.
    for e in std::fs::read_dir(kit.join("model")).expect("model") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), kit.join("results").join(e.file_name())).expect("copy");
    }
    std::fs::write(
        kit.join("results/device.txt"),
        "name Tesla K20m\ncc 3 5\nclock_khz 705500\nsms 13\n",
    )
    .expect("device.txt");
    // An out buffer that does not hold a kernel's clocks: each pair equal
    // (a span of nothing), then each end far past what the launch took.
    let out = kit.join("results/0002.out");
    let model_out = std::fs::read(&out).expect("out");
    for (fill, want) in [
        (
            0xffu8,
            "clock pair 0 spans 0 cycles (start 4294967295, end 4294967295)",
        ),
        (0x7f, "clock pair 0 spans 0 cycles"),
    ] {
        std::fs::write(&out, vec![fill; model_out.len()]).expect("out");
        let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
        assert!(!ok, "{fill:#x}: the card's figures were taken");
        assert!(
            err.contains("run 0002 (")
                && err.contains(want)
                && err.contains("damaged results/0002.out"),
            "{err}"
        );
    }
    let mut far = model_out.clone();
    let start = u32::from_le_bytes(far[0..4].try_into().expect("a clock"));
    far[4..8].copy_from_slice(&(start ^ 0x8000_0000).to_le_bytes());
    std::fs::write(&out, &far).expect("out");
    let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
    assert!(
        !ok && err.contains("clock pair 0 spans 2147483648 cycles"),
        "{err}"
    );
    std::fs::write(&out, &model_out).expect("out");

    let cubin = kit.join("cubins/0003.cubin");
    let mut bytes = std::fs::read(&cubin).expect("cubin");
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&cubin, bytes).expect("cubin");
    let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
    assert!(!ok);
    assert!(
        err.contains("run 0003 (issue.sass) is not the kernel")
            && err.contains("make the kit again"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).expect("clean up");
}

#[test]
fn the_kits_cubins_are_ones_nvidias_cuobjdump_reads() {
    let (dir, kit, _) = made_kit("cuobjdump");
    // The first kernel of each template.
    let runs = manifest(&kit);
    let mut seen = std::collections::BTreeSet::new();
    for (i, (kernel, ..)) in runs.iter().enumerate() {
        if seen.insert(kernel.clone()) {
            let sass = cuobjdump(&kit.join(format!("cubins/{i:04}.cubin")));
            assert!(
                sass.contains(&format!("Function : {kernel}")),
                "{kernel}: {sass}"
            );
        }
    }
    assert!(seen.len() >= 6, "{seen:?}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// `bench sgemm --kit`: the ladder's kernels with their A, B and C, run by
/// `run_kit` (each buffer uploaded from its file before each launch), then
/// `bench sgemm --card`: the card's GFlop/s and gains beside the model's, and
/// each C held to the model's.
#[test]
fn an_sgemm_kit_on_a_card_gives_the_models_table_and_checks_each_c() {
    let dir = scratch("sgemm");
    let kit = dir.join("kit");
    let k = kit.display().to_string();
    let (ok, table, err) = keplersim(&[
        "bench", "sgemm", "--sizes", "192,384", "--jobs", "2", "--kit", &k,
    ]);
    assert!(ok, "{err}");
    assert!(err.contains("bench sgemm --card"), "{err}");
    let text = std::fs::read_to_string(kit.join("kit.txt")).expect("kit.txt");
    assert!(text.starts_with("keplersim-kit 2\nsuite sgemm\n"), "{text}");
    // By size, in ladder order; the 8x8 kernel only where its tile fits.
    let labels: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("run "))
        .map(|l| l.split_whitespace().nth(2).expect("a label"))
        .collect();
    assert_eq!(labels.len(), 13, "{labels:?}");
    assert_eq!(labels[0], "ladder/baseline.cubin@192");
    assert_eq!(labels[6], "ladder/baseline.cubin@384");
    assert_eq!(labels[12], "sgemm8x8.cubin@384");
    // Each run's buffers: C first (its result), then A and B, each from a
    // file named by its digest; the same matrices are one file.
    let files: Vec<(u64, String)> = text
        .lines()
        .filter(|l| l.starts_with("buffer "))
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(w[2], "file", "{l}");
            (w[1].parse().expect("bytes"), w[3].to_string())
        })
        .collect();
    assert_eq!(files.len(), 3 * 13);
    let inputs = std::fs::read_dir(kit.join("inputs"))
        .expect("inputs")
        .count();
    assert_eq!(inputs, 6, "A, B and C at two sizes");

    build_run_kit(&kit);
    let fake = fake_driver(&dir);
    let log = dir.join("launches.log");
    let (status, err) = run_kit(&kit, Some(&fake), &log);
    assert_eq!(status, 0, "{err}");
    assert!(err.contains("bench sgemm --card"), "{err}");
    // Before each of the two launches, every buffer uploaded from its file.
    let driver_log = std::fs::read_to_string(&log).expect("the driver's log");
    let uploads: Vec<&str> = driver_log
        .lines()
        .filter(|l| l.starts_with("htod"))
        .collect();
    assert_eq!(uploads.len(), 2 * files.len());
    for (i, (bytes, name)) in files.iter().enumerate() {
        let (run, b) = (i / 3, i % 3);
        let digest = name.trim_start_matches("inputs/").trim_end_matches(".bin");
        for launch in 0..2 {
            assert_eq!(
                uploads[run * 6 + launch * 3 + b],
                format!("htod {bytes} {digest}"),
                "run {run}, buffer {b}"
            );
        }
    }

    let (out, report) = card_report("sgemm", &k, &dir);
    let rows = report["rows"].as_array().expect("rows");
    assert_eq!(rows.len(), 13);
    for r in rows {
        let (card, model) = (
            r["card_gflops"].as_f64().unwrap(),
            r["model_gflops"].as_f64().unwrap(),
        );
        assert!((card - model).abs() <= 1e-5 * model, "{r}");
        assert_eq!(r["c_differs"], 0, "{r}");
        // The model's figure is the table's.
        let (kernel, cell) = (
            format!("| {} |", r["kernel"].as_str().unwrap()),
            format!(" {model:.0} ("),
        );
        assert!(
            table
                .lines()
                .any(|l| l.starts_with(&kernel) && l.contains(&cell)),
            "{kernel}{cell} not in\n{table}"
        );
    }
    for want in [
        "| step | paper (K20m) | card, 192 | model, 192 | card, 384 | model, 384 |",
        "| +Dual (the paper's bytes) | 384 |",
        "the model's, bit for bit |",
        "Held to the paper: each step within 3 points of its range",
        "\n- card, 192: ",
        "\n- model, 384: ",
    ] {
        assert!(out.contains(want), "no `{want}`:\n{out}");
    }
    // The card's verdict on the paper's check is the model's.
    let verdict = |who: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("- {who}, 384: ")))
            .unwrap_or_else(|| panic!("no {who} verdict:\n{out}"))
    };
    assert_eq!(verdict("card"), verdict("model"));

    // A card whose C differs from the model's in one element says so, and
    // fails.
    let c = kit.join("results/0002.out");
    let mut bytes = std::fs::read(&c).expect("C");
    bytes[40] ^= 1;
    std::fs::write(&c, bytes).expect("C");
    let (ok, out, err) = keplersim(&["bench", "sgemm", "--card", &k]);
    assert!(!ok);
    assert!(
        out.contains("| +LD128 | 192 |") && out.contains("1 element differs"),
        "{out}"
    );
    assert!(
        err.contains("differs from the model's") && err.contains("+LD128 at 192"),
        "{err}"
    );

    // Each suite's card reads only its own kits.
    let (ok, _, err) = keplersim(&["bench", "micro", "--card", &k]);
    assert!(!ok && err.contains("a kit of `bench sgemm`"), "{err}");
    std::fs::remove_dir_all(&dir).expect("clean up");
}

/// A kit directory that cannot be made is refused before any run, naming
/// the option and the directory.
#[test]
fn a_kit_directory_that_cannot_be_made_is_refused_at_once() {
    let dir = scratch("unmakeable");
    // A file where the kit's parent directory would be.
    let file = dir.join("file");
    std::fs::write(&file, b"").expect("a file");
    let kit = file.join("kit").display().to_string();
    for args in [
        vec!["bench", "micro", "--fast", "--kit", &kit],
        vec!["bench", "sgemm", "--sizes", "1536", "--kit", &kit],
    ] {
        let (ok, out, err) = keplersim(&args);
        assert!(!ok, "{args:?}");
        assert!(err.contains(&format!("--kit {kit}: ")), "{args:?}: {err}");
        // Refused before the suite or the ladder ran: no row, no run's
        // progress.
        assert!(out.is_empty(), "{args:?}: {out}");
        assert!(!err.contains("GFlop/s"), "{args:?}: {err}");
    }
}
