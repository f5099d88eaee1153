//! `keplersim run` end to end: a cubin, CUDA C compiled on the fly, SASS
//! assembled on the fly, variable overrides, dumps, and the exit status and
//! message of a failing kernel or a bad command line.

mod common;

use common::{keplersim, root};

fn path(rel: &str) -> String {
    root().join(rel).display().to_string()
}

#[test]
fn a_suite_cubin_runs_and_passes() {
    let (ok, out, err) = keplersim(&[
        "run",
        &path("traces/kernels/saxpy.cubin"),
        "--set",
        "n=4096",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("vars        n=4096"), "{out}");
    assert!(
        out.contains("check       y: PASS (4096 elements bit-exact)"),
        "{out}"
    );
}

#[test]
fn cuda_c_compiles_on_the_fly() {
    let (ok, out, err) = keplersim(&["run", &path("traces/kernels/saxpy.cu"), "--set", "n=1024"]);
    assert!(ok, "{err}");
    assert!(out.contains("PASS"), "{out}");
}

#[test]
fn dump_writes_every_buffer_and_orders_agree() {
    let dir = std::env::temp_dir().join(format!("keplersim-dump-{}", std::process::id()));
    let mut files = Vec::new();
    for order in ["natural", "shuffled"] {
        let d = dir.join(order);
        let (ok, _, err) = keplersim(&[
            "run",
            &path("traces/kernels/histogram.cubin"),
            "--order",
            order,
            "--dump",
            &d.display().to_string(),
        ]);
        assert!(ok, "{err}");
        files.push(std::fs::read(d.join("bins.bin")).expect("dumped"));
    }
    assert_eq!(files[0], files[1]);
    assert_eq!(files[0].len(), 257 * 4);
    let _ = std::fs::remove_dir_all(dir);
}

/// Module variables are dumped too, in `variables/` (a variable may share a
/// buffer's name), with what the kernel left in them.
#[test]
fn dump_writes_the_module_variables() {
    let d = std::env::temp_dir().join(format!("keplersim-dump-vars-{}", std::process::id()));
    let (ok, out, err) = keplersim(&[
        "run",
        &path("traces/kernels/globals.cubin"),
        "--set",
        "n=1000",
        "--dump",
        &d.display().to_string(),
    ]);
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!(
            "dumped      3 buffers to {}, 3 module variables to {}",
            d.display(),
            d.join("variables").display()
        )),
        "{out}"
    );
    let var = |name: &str| std::fs::read(d.join("variables").join(name)).expect("dumped");
    // The counter took one ticket per thread; the table is as initialised; the
    // pointer holds the table's address plus 8 (`&table[2]`).
    assert_eq!(var("hits.bin"), 1000u32.to_le_bytes());
    let table: Vec<u8> = [1.0f32, 1.5, 3.0, 0.75]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    assert_eq!(var("table.bin"), table);
    let pick = u64::from_le_bytes(var("pick.bin").try_into().unwrap());
    assert!(pick >= 1 << 32 && pick % 8 == 0, "{pick:#x}");

    // A symbol's name is the cubin's to choose: one that climbs out of the
    // folder (`table` renamed `../ab`) still lands inside it.
    let bytes = std::fs::read(root().join("traces/kernels/globals.cubin")).unwrap();
    let at = bytes
        .windows(7)
        .position(|w| w == b"\0table\0")
        .expect("the name in .strtab");
    let mut renamed = bytes.clone();
    renamed[at + 1..at + 6].copy_from_slice(b"../ab");
    let cubin = d.join("renamed.cubin");
    std::fs::write(&cubin, renamed).unwrap();
    let out_dir = d.join("out");
    let (ok, _, err) = keplersim(&[
        "run",
        &cubin.display().to_string(),
        "--launch",
        &path("traces/kernels/globals.launch.ron"),
        "--dump",
        &out_dir.display().to_string(),
    ]);
    assert!(ok, "{err}");
    assert_eq!(
        std::fs::read(out_dir.join("variables/_.._ab.bin")).expect("dumped inside"),
        table
    );
    assert!(!out_dir.join("ab.bin").exists());
    let _ = std::fs::remove_dir_all(d);
}

#[test]
fn a_faulting_kernel_fails_with_a_sanitizer_message() {
    let (ok, _, err) = keplersim(&["run", &path("traces/errors/oob_global.sass")]);
    assert!(!ok);
    assert!(
        err.contains("out-of-bounds global read of 4 bytes"),
        "{err}"
    );
    assert!(
        err.contains("by thread (31, 0, 0) in block (0, 0, 0)"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn the_shipped_config_runs_and_a_bad_one_is_refused_with_its_line() {
    let saxpy = path("traces/kernels/saxpy.cubin");
    let (ok, out, err) = keplersim(&[
        "run",
        &saxpy,
        "--config",
        &path("configs/k20m.ron"),
        "--set",
        "n=1024",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("PASS"), "{out}");
    let bad = std::env::temp_dir().join(format!("keplersim-bad-{}.ron", std::process::id()));
    std::fs::write(
        &bad,
        "(\n  chip: (\n    shared_per_block: 1000,\n    shared_per_sm: 10,\n  ),\n)\n",
    )
    .expect("write");
    let (ok, _, err) = keplersim(&["run", &saxpy, "--config", &bad.display().to_string()]);
    let _ = std::fs::remove_file(&bad);
    assert!(!ok);
    assert!(
        err.contains(":3: chip.shared_per_block: 1000 is more than shared_per_sm (10)"),
        "{err}"
    );
    // A smaller chip's limits apply to the launch.
    let small = std::env::temp_dir().join(format!("keplersim-small-{}.ron", std::process::id()));
    std::fs::write(&small, "(chip: (max_threads_per_block: 128))").expect("write");
    let (ok, _, err) = keplersim(&["run", &saxpy, "--config", &small.display().to_string()]);
    let _ = std::fs::remove_file(&small);
    assert!(!ok);
    assert!(err.contains("exceeds sm_35's limits (128 threads"), "{err}");
}

#[test]
fn a_param_runs_as_a_copy_of_the_config_with_that_field_changed() {
    // The ladder's +LDG128 kernel is bound by how often a warp may issue
    // single instructions, so the issue interval moves its cycles.
    let ldg = path("traces/sgemm/ladder/ldg128.cubin");
    let cycles = |out: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with("cycles"))
            .unwrap_or_else(|| panic!("no cycles line: {out}"));
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let copy = std::env::temp_dir().join(format!("keplersim-i2-{}.ron", std::process::id()));
    let shipped = std::fs::read_to_string(path("configs/k20m.ron")).unwrap();
    let changed = shipped
        .replace("issue_interval: 3,", "issue_interval: 2,")
        .replace("alu_latency: 11,", "alu_latency: 10,");
    assert_ne!(changed, shipped);
    std::fs::write(&copy, changed).unwrap();
    let copy = copy.display().to_string();
    let (ok, by_file, err) = keplersim(&["run", &ldg, "--config", &copy]);
    assert!(ok, "{err}");
    let (ok, by_param, err) = keplersim(&[
        "run",
        &ldg,
        "--param",
        "timing.issue_interval=2",
        "--param",
        "alu_latency=10",
    ]);
    assert!(ok, "{err}");
    let (ok, shipped_run, err) = keplersim(&["run", &ldg]);
    assert!(ok, "{err}");
    assert_eq!(cycles(&by_param), cycles(&by_file));
    assert_ne!(cycles(&by_param), cycles(&shipped_run));
    // The report says what it simulated, when it is not the K20m as shipped.
    assert!(
        by_param.lines().any(|l| l
            == "machine     configs/k20m.ron with timing.issue_interval=2, timing.alu_latency=10"),
        "{by_param}"
    );
    assert!(
        by_file.contains(&format!("machine     {copy}\n")),
        "{by_file}"
    );
    assert!(!shipped_run.contains("machine"), "{shipped_run}");
    // Over a file, a param wins; the JSON report records both.
    let (ok, json, err) = keplersim(&[
        "run",
        &ldg,
        "--config",
        &copy,
        "--param",
        "issue_interval=3",
        "--param",
        "alu_latency=11",
        "--json",
    ]);
    let _ = std::fs::remove_file(&copy);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["cycles"]["cycles"].as_u64(), Some(cycles(&shipped_run)));
    assert_eq!(v["machine"]["config"].as_str(), Some(copy.as_str()));
    assert_eq!(
        v["machine"]["params"],
        serde_json::json!(["timing.issue_interval=3", "timing.alu_latency=11"])
    );
    // The static checker reads the collector as the param sets it: with
    // nothing kept across warps, the paper's static count.
    let (ok, out, err) = keplersim(&[
        "check",
        &path("traces/sgemm/ladder/baseline.cubin"),
        "--summary",
        "--param",
        "reuse_warps=0",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("bank conflicts 373 2-way, 64 3-way"), "{out}");
    // A bad one names itself.
    let saxpy = path("traces/kernels/saxpy.cubin");
    for (param, want) in [
        (
            "issue_interval=0",
            "--param timing.issue_interval=0: timing.issue_interval: 0 is outside 1..=16",
        ),
        (
            "timing.reuse_warps=all",
            "--param timing.reuse_warps=all: timing.reuse_warps: `all` is not a whole number",
        ),
        (
            "issue_intervall=2",
            "`issue_intervall` is no field of the configuration",
        ),
        (
            "chip.issue_interval=2",
            "`chip` has no field `issue_interval` (it has: sms,",
        ),
        ("issue_interval", "expected FIELD=VALUE"),
    ] {
        let (ok, _, err) = keplersim(&["run", &saxpy, "--param", param]);
        assert!(!ok, "{param}");
        assert!(err.contains(want), "{param}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn bad_command_lines_name_what_is_wrong() {
    let saxpy = path("traces/kernels/saxpy.cubin");
    for (args, want) in [
        (
            vec!["run", saxpy.as_str(), "--set", "m=3"],
            "no variable `m`",
        ),
        (
            vec!["run", saxpy.as_str(), "--set", "n"],
            "expected NAME=VALUE",
        ),
        (
            vec!["run", saxpy.as_str(), "--set", "n=x"],
            "is not an integer",
        ),
        (
            vec!["run", saxpy.as_str(), "--set", "n=18446744073709551615"],
            "`18446744073709551615` is outside a launch variable's range, -2^63 to 2^63 - 1",
        ),
        (
            vec!["run", saxpy.as_str(), "--launch", "/nonexistent.launch.ron"],
            "the launch file",
        ),
    ] {
        let (ok, _, err) = keplersim(&args);
        assert!(!ok, "{args:?} succeeded");
        assert!(err.contains(want), "{args:?}: `{want}` missing from {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `--metrics all --csv` prints nvprof's CSV: its header, then a row per
/// metric with the kernel's name and the same value as min, max and average.
#[test]
fn metrics_print_as_nvprofs_csv() {
    let (ok, out, err) = keplersim(&[
        "run",
        &path("traces/sgemm/sgemm.cubin"),
        "--set",
        "m=192",
        "--set",
        "n=192",
        "--set",
        "k=192",
        "--metrics",
        "all",
        "--csv",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[0],
        "\"Device\",\"Kernel\",\"Invocations\",\"Metric Name\",\"Metric Description\",\"Min\",\"Max\",\"Avg\""
    );
    for name in [
        "ipc",
        "achieved_occupancy",
        "shared_efficiency",
        "stall_sync",
        "dual_issue_rate",
    ] {
        let row = lines
            .iter()
            .find(|l| l.contains(&format!(",\"{name}\",")))
            .unwrap_or_else(|| panic!("no {name} row:\n{out}"));
        assert!(
            row.starts_with("\"Tesla K20m (0)\",\"sgemm_tn_12x12_dual\",1,"),
            "{row}"
        );
        let cells: Vec<&str> = row.split("\",\"").collect();
        let n = cells.len();
        assert!(cells[n - 3] == cells[n - 2], "{row}");
    }
    // The checks go to stderr, so the CSV stays clean.
    assert!(err.contains("c: PASS"), "{err}");
    assert!(!out.contains("PASS"), "{out}");
}

#[test]
fn an_unknown_metric_is_refused_before_the_run_with_the_list() {
    let (ok, _, err) = keplersim(&[
        "run",
        &path("traces/kernels/saxpy.cubin"),
        "--metrics",
        "ipc,gld_effciency",
    ]);
    assert!(!ok);
    assert!(err.contains("no metric `gld_effciency`"), "{err}");
    assert!(err.contains("gld_efficiency"), "{err}");
}

/// `keplersim profile` lists the tuned SGEMM's main loop with its counts and
/// the reasons its warps waited, then the hottest instructions.
#[test]
fn profile_names_the_main_loops_instructions_with_their_stalls() {
    let (ok, out, err) = keplersim(&[
        "profile",
        &path("traces/sgemm/sgemm.cubin"),
        "--set",
        "m=384",
        "--set",
        "n=384",
        "--set",
        "k=384",
    ]);
    assert!(ok, "{err}");
    // The FFMAs of the main loop: its 384 / 4 = 96 iterations in each of
    // 4 blocks x 8 warps run each of them 32 x 96 = 3072 times.
    let ffma = out
        .lines()
        .find(|l| l.contains("0x04 dual") && l.contains("FFMA") && l.contains(" 3072 "))
        .unwrap_or_else(|| panic!("no main-loop FFMA:\n{out}"));
    assert!(ffma.starts_with("/*"), "{ffma}");
    // An FFMA that asks for a pair issues it together or apart, every time.
    let n: Vec<u64> = ffma
        .split_whitespace()
        .skip(3)
        .take(3)
        .map(|w| w.parse().unwrap())
        .collect();
    assert_eq!(n[0], n[1] + n[2], "executed, dual, apart: {ffma}");
    assert!(out.contains("LDS.64"), "{out}");
    // Every row keeps the header's columns, whatever its control byte says
    // (`0x28 wait 11` is the widest).
    let header = out
        .lines()
        .find(|l| l.starts_with("address"))
        .expect("the header");
    let executed_end = header.find("executed").expect("executed") + "executed".len();
    let instruction = header.find("instruction").expect("instruction");
    let rows: Vec<&str> = out
        .lines()
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("/*"))
        .collect();
    assert!(rows.iter().any(|r| r.contains("wait 11")), "{out}");
    for row in rows {
        let b = row.as_bytes();
        assert!(
            b[executed_end - 1].is_ascii_digit()
                && b[executed_end] == b' '
                && b[instruction - 1] == b' '
                && b[instruction] != b' ',
            "a row off the header's columns:\n{header}\n{row}"
        );
    }
    let hottest = out.split("hottest instructions").nth(1).expect("hottest");
    assert!(hottest.contains("3072"), "{hottest}");
    let worst = out.split("worst stalls").nth(1).expect("worst stalls");
    assert!(
        worst.contains("barrier") && worst.contains("pipe busy"),
        "{worst}"
    );
    let apart = out.split("pairs issued apart").nth(1).expect("apart");
    assert!(
        apart.contains("shared core group taken") && apart.contains("second's unit busy"),
        "{apart}"
    );
}

/// `profile --top 0` prints the annotated listing without the sorted views
/// (which would be headings with nothing under them).
#[test]
fn profile_top_zero_leaves_the_sorted_views_out() {
    let (ok, out, err) = keplersim(&["profile", &path("traces/kernels/loops.cubin"), "--top", "0"]);
    assert!(ok, "{err}");
    assert!(out.contains("IADD32I R6, R6, 0x1"), "{out}");
    assert!(!out.contains("hottest instructions"), "{out}");
    assert!(!out.contains("worst stalls"), "{out}");
}

/// `--plot` writes an SVG of the schedulers' cycles and the issue rate.
#[test]
fn run_plots_the_schedulers_and_the_issue_rate() {
    let svg = std::env::temp_dir().join(format!("keplersim-run-{}.svg", std::process::id()));
    let (ok, out, err) = keplersim(&[
        "run",
        &path("traces/sgemm/sgemm.cubin"),
        "--set",
        "m=192",
        "--set",
        "n=192",
        "--set",
        "k=192",
        "--plot",
        &svg.display().to_string(),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("plotted"), "{out}");
    let text = std::fs::read_to_string(&svg).expect("the SVG");
    let _ = std::fs::remove_file(&svg);
    assert!(text.starts_with("<svg"), "{}", &text[..80.min(text.len())]);
    for want in ["Issue rate over time", "#3", "issued", "barrier"] {
        assert!(text.contains(want), "no `{want}` in the plot");
    }
}

/// `bench sgemm` prints each step's gain beside the paper's and plots it.
#[test]
fn bench_sgemm_prints_the_gains_beside_the_papers_and_plots_them() {
    let svg = std::env::temp_dir().join(format!("keplersim-ladder-{}.svg", std::process::id()));
    let json = svg.with_extension("json");
    let (ok, out, err) = keplersim(&[
        "bench",
        "sgemm",
        "--sizes",
        "384",
        "--plot",
        &svg.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    assert!(ok, "{err}");
    for want in [
        "| step | paper (K20m) | model, 384 |",
        "| +Reg | about 10% |",
        "| +Dual | 84-106% |",
        "| all, baseline to +Dual | 2.6x |",
        "| tuned over +Dual (the model's re-tuning) | - |",
        "Held to the paper: each step within 3 points of its range, baseline to +Dual within 2.3-2.9x.",
        "\n- 384: ",
    ] {
        assert!(out.contains(want), "no `{want}`:\n{out}");
    }
    let text = std::fs::read_to_string(&svg).expect("the SVG");
    let _ = std::fs::remove_file(&svg);
    assert!(text.contains("SGEMM ladder"));
    // The JSON: the rows, and the gains and the check's misses the table
    // prints.
    let text = std::fs::read_to_string(&json).expect("the JSON");
    let _ = std::fs::remove_file(&json);
    let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(7), "{v}");
    let at = &v["sizes"][0];
    assert_eq!(at["size"], 384);
    let reg = at["gains"]["+Reg"].as_f64().expect("+Reg's gain");
    assert!(
        out.contains(&format!("| +Reg | about 10% | {:+.1}% |", reg * 100.0)),
        "{out}"
    );
    let all = at["all"].as_f64().expect("the whole ladder's");
    assert!(out.contains(&format!("| {all:.2}x |")), "{out}");
    let s = |m: &serde_json::Value, k: &str| m[k].as_str().expect(k).to_string();
    let misses: Vec<(String, String, String)> = at["misses"]
        .as_array()
        .expect("misses")
        .iter()
        .map(|m| (s(m, "what"), s(m, "got"), s(m, "wants")))
        .collect();
    let line = format!("- 384: {}", sim_kernels::ladder::verdict(&misses));
    assert!(out.contains(&line), "no `{line}`:\n{out}");
}

/// `--threads 0` is refused, and so is `--sample` on more than one thread
/// (where a sample stops would vary with them).
#[test]
fn thread_counts_that_cannot_be_taken_are_refused() {
    let sgemm = path("traces/sgemm/sgemm.cubin");
    let (ok, _, err) = keplersim(&["run", &sgemm, "--threads", "0"]);
    assert!(!ok && err.contains("--threads 0: at least 1"), "{err}");
    let (ok, _, err) = keplersim(&["run", &sgemm, "--sample", "--threads", "2"]);
    assert!(
        !ok && err.contains("--sample runs its SMs on one thread"),
        "{err}"
    );
}

#[test]
fn vary_runs_the_kernel_again_under_each_setting() {
    // saxpy waits on its loads: a shorter L2 makes it faster, a longer one
    // slower, and the K20m's own value gives this run's cycles.
    let saxpy = path("traces/kernels/saxpy.cubin");
    let (ok, out, err) = keplersim(&["run", &saxpy, "--vary", "l2_latency=94,188,376"]);
    assert!(ok, "{err}");
    let cycles = |setting: &str| -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("| {setting} |")))
            .unwrap_or_else(|| panic!("no row for {setting}: {out}"));
        assert!(line.ends_with("| PASS |"), "{line}");
        line.split('|').nth(2).unwrap().trim().parse().unwrap()
    };
    assert!(
        out.contains("\nEach setting alone over configs/k20m.ron:\n"),
        "{out}"
    );
    let base = cycles("(none)");
    assert_eq!(cycles("timing.l2_latency=188"), base);
    assert!(cycles("timing.l2_latency=94") < base, "{out}");
    assert!(cycles("timing.l2_latency=376") > base, "{out}");
    // The run's own report is the one without --vary.
    let (ok, plain, err) = keplersim(&["run", &saxpy]);
    assert!(ok, "{err}");
    let cycles_line = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("cycles"))
            .map(String::from)
    };
    assert_eq!(cycles_line(&out), cycles_line(&plain));
    // JSON: the settings' runs beside the report.
    let (ok, json, err) = keplersim(&["run", &saxpy, "--vary", "l2_latency=376", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["vary"][0]["setting"], "timing.l2_latency=376");
    assert_eq!(v["vary"][0]["passed"], true);
    assert!(v["vary"][0]["cycles"].as_u64().unwrap() > v["cycles"]["cycles"].as_u64().unwrap());
    // Refused before anything runs.
    for (args, want) in [
        (
            vec!["--vary", "l2_latency=0"],
            "--vary l2_latency=0: timing.l2_latency: 0 is outside 1..=4096",
        ),
        (vec!["--vary", "l2_latency"], "expected FIELD=V1,V2,..."),
        (
            vec!["--vary", "l2_latency=94", "--functional"],
            "--vary needs a timed run",
        ),
        (
            vec!["--vary", "l2_latency=94", "--until", "100"],
            "--vary compares whole runs, each checked: drop --until",
        ),
    ] {
        let mut a = vec!["run", saxpy.as_str()];
        a.extend(args);
        let (ok, out, err) = keplersim(&a);
        assert!(!ok && err.contains(want), "{a:?}: {err}");
        assert!(!out.contains("cycles"), "{a:?} ran: {out}");
    }
}

/// The `pairs` line: of the pairs the control bytes ask for, how many
/// issued together and why the others issued apart. Four warps, one on
/// each scheduler, run the same code in step and each asks for four pairs:
/// two FFMAs, whose shared core group one scheduler of each pair finds
/// taken; two FADDs that write R12, which may not pair; an FADD and an
/// `LDS`, whose load/store unit three of the four find busy; and an FADD
/// with one that reads the `LDS` result, not yet there.
#[test]
fn the_report_says_why_pairs_issued_apart() {
    let dir = std::env::temp_dir().join(format!("keplersim-pairs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sass = "\
.kernel pairs
.shared 512
        [0x20] S2R R0, SR_TID.X;
        [0x04] FFMA R23, R13, R14, R13;
        [0x05] FFMA R24, R13, R14, R13;
        [0x04] FADD R12, R13, R14;
        [0x20] FADD R12, R13, R13;
        [0x28] SHL R1, R0, 0x2;
        [0x28] NOP;
        .group
        [0x20] NOP;
        [0x04] FADD R15, R13, R14;
        [0x20] LDS R20, [R1];
        [0x04] FADD R21, R13, R14;
        [0x20] FADD R22, R20, R20;
        [0x20] EXIT;
";
    std::fs::write(dir.join("pairs.sass"), sass).unwrap();
    std::fs::write(
        dir.join("pairs.launch.ron"),
        "(kernel: \"pairs\", source: \"pairs.sass\", grid: (1, 1, 1), block: (128, 1, 1), \
         buffers: [], args: [], checks: [])",
    )
    .unwrap();
    let file = dir.join("pairs.sass").display().to_string();
    let (ok, out, err) = keplersim(&["run", &file]);
    assert!(ok, "{err}");
    assert!(
        out.contains(
            "pairs       16 asked for by the control bytes: 18.8% issued together; apart \
             12.5% shared core group taken, 18.8% second's unit busy, 25.0% second not \
             ready, 25.0% not pairable"
        ),
        "{out}"
    );
    let (ok, out, err) = keplersim(&["run", &file, "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let p = &v["pairs"];
    assert_eq!(
        (p["asked"].as_u64(), p["together"].as_u64()),
        (Some(16), Some(3))
    );
    let apart = |why: &str| p["apart"][why].as_u64().unwrap();
    assert_eq!(apart("shared_core_group_taken"), 2);
    assert_eq!(apart("second_unit_busy"), 3);
    assert_eq!(apart("second_not_ready"), 4);
    assert_eq!(apart("not_pairable"), 4);
    let per: Vec<u64> = v["schedulers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["pairs_apart"].as_u64().unwrap())
        .collect();
    assert_eq!(per.iter().sum::<u64>(), 13, "{per:?}");
    // A kernel that asks for no pair says so.
    let (ok, out, err) = keplersim(&["run", &path("traces/asm/saxpy.sass")]);
    assert!(ok, "{err}");
    assert!(
        out.contains("pairs       none asked for by the control bytes"),
        "{out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `requests` line: the lines each path to L2 read, and how long they
/// waited for their SM's request slots.
#[test]
fn the_report_says_how_long_lines_waited_for_a_request_slot() {
    let saxpy = path("traces/asm/saxpy.sass");
    // Eight blocks of four warps on eight SMs, each warp a line of x and
    // one of y: eight lines an SM, fewer than its 21 slots.
    let (ok, out, err) = keplersim(&["run", &saxpy]);
    assert!(ok, "{err}");
    assert!(
        out.contains(
            "requests    through L2 (LD/ST): 64 lines, waited 0.0 cycles a line for one of \
             the SM's 21 request slots; read-only path (LDG): none"
        ),
        "{out}"
    );
    // One slot an SM: each SM's j-th line waits for the j before it, each
    // a miss to DRAM (188 + 143 cycles), less the cycles between their
    // issues.
    let (ok, out, err) = keplersim(&["run", &saxpy, "--param", "ld_outstanding=1", "--json"]);
    assert!(ok, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let ld = &v["requests"]["ld"];
    assert_eq!(
        (ld["lines"].as_u64(), ld["slots"].as_u64()),
        (Some(64), Some(1))
    );
    let wait = ld["slot_wait_cycles"].as_u64().unwrap();
    let pairs = 8 * (0..8).sum::<u64>();
    assert!(
        (pairs * 300..=pairs * 331).contains(&wait),
        "{wait} cycles waited"
    );
    assert_eq!(v["requests"]["ldg"]["lines"].as_u64(), Some(0));
}

#[test]
fn the_report_says_what_pipe_busy_cycles_waited_for() {
    let saxpy = path("traces/kernels/saxpy.cubin");
    let units = |v: &serde_json::Value| -> Vec<(String, u64)> {
        let m = v.as_object().expect("a map of units");
        m.iter()
            .map(|(k, c)| (k.clone(), c.as_u64().unwrap()))
            .collect()
    };
    for extra in [&[][..], &["--param", "ldg_issue_cycles=1"][..]] {
        let mut args = vec!["run", saxpy.as_str(), "--json"];
        args.extend_from_slice(extra);
        let (ok, out, err) = keplersim(&args);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let p = &v["pipes"];
        // The split covers every pipe-busy cycle, in all and per scheduler.
        let total = p["total"].as_u64().unwrap();
        assert_eq!(Some(total), v["stalls"]["by_reason"]["pipe_busy"].as_u64());
        let by_unit = units(&p["by_unit"]);
        assert_eq!(by_unit.iter().map(|u| u.1).sum::<u64>(), total);
        let scheds = p["schedulers"].as_array().unwrap();
        assert_eq!(scheds.len(), 4);
        for (s, sc) in scheds.iter().enumerate() {
            let sum: u64 = units(sc).iter().map(|u| u.1).sum();
            assert_eq!(
                Some(sum),
                v["schedulers"][s]["stalls"]["pipe_busy"].as_u64()
            );
        }
        let get = |name: &str| by_unit.iter().find(|u| u.0 == name).unwrap().1;
        assert_eq!(
            get("lsu_shared") + get("sfu") + get("fp64"),
            0,
            "{by_unit:?}"
        );
        assert!(get("lsu_global_local") > 0, "{by_unit:?}");
        // Each of the 2048 warps' one LDG.E (128 bytes) holds its
        // scheduler's dispatch ceil(10 x 128 / 512) = 3 cycles: the two
        // after its issue. At one cycle it holds none.
        let dispatch = if extra.is_empty() { 2048 * 2 } else { 0 };
        assert_eq!(get("ldg_dispatch"), dispatch, "{by_unit:?}");
    }
    let (ok, out, err) = keplersim(&["run", &path("traces/kernels/dmath.cubin")]);
    assert!(ok, "{err}");
    let line = out.lines().find(|l| l.starts_with("pipes ")).expect(&out);
    assert!(
        line.contains("pipe-busy scheduler-cycles, by what the warp waited for: LDG dispatch ")
            && line.contains("FP64 ")
            && line.contains("; each scheduler's most: #0 "),
        "{line}"
    );
}
