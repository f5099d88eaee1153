//! `keplersim bench micro --fast --check` runs in CI: it prints the table,
//! fails when any figure leaves its band (the bands themselves are checked in
//! sim-kernels' tests), and writes every row as JSON; the figures of rows
//! the docs and configs/k20m.ron quote are taken again here.

mod common;

use common::{keplersim, root, K20mCopy};
use std::path::Path;

/// Runs `bench micro --fast --check` on `config`, which must pass: its
/// table and rows.
fn micro(config: &Path, tag: &str) -> (String, Vec<serde_json::Value>) {
    let json =
        std::env::temp_dir().join(format!("keplersim-micro-{tag}-{}.json", std::process::id()));
    let (ok, out, err) = keplersim(&[
        "bench",
        "micro",
        "--fast",
        "--check",
        "--config",
        &config.display().to_string(),
        "--json",
        &json.display().to_string(),
    ]);
    assert!(ok, "{err}\n{out}");
    let rows =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let _ = std::fs::remove_file(&json);
    (out, rows)
}

/// The simulated figure of the row named `name`.
fn simulated(rows: &[serde_json::Value], name: &str) -> f64 {
    rows.iter()
        .find(|r| r["name"] == name)
        .and_then(|r| r["simulated"].as_f64())
        .unwrap_or_else(|| panic!("no row {name}"))
}

/// The conflict-free and the 2-way (no shared operand) FFMA rows at two
/// warps per scheduler.
fn two_warp_rows(rows: &[serde_json::Value]) -> (f64, f64) {
    (
        simulated(rows, "FFMA R5, R4, R1, R0, 2 warps/scheduler"),
        simulated(rows, "FFMA 2-way, no shared operand, 2 warps/scheduler"),
    )
}

#[test]
fn the_microbenchmarks_stay_in_their_bands() {
    let (out, rows) = micro(&root().join("configs/k20m.ron"), "k20m");
    println!("{out}");
    assert!(out.starts_with("group    benchmark"), "{out}");
    assert!(out.contains("LDS.64 best"), "{out}");
    assert!(out.contains("0 out of band"), "{out}");
    // The 256-value control sweep, throughput and latency, and the rest.
    assert!(rows.len() > 512, "{} rows", rows.len());
    assert!(rows.iter().all(|r| r["ok"] == true));
    // A conflict holds its own warp and the operand collector keeps the last
    // reads of the last two warps that issued: the eight-warp bank rows keep
    // their conflicts (round robin over eight warps leaves nothing of a
    // warp's last issue to reuse); at two warps a scheduler a warp's repeated
    // FFMA reuses what it read last time though the other warp issued in
    // between, and the row whose operands no reuse hides loses a quarter.
    let eight = simulated(&rows, "FFMA R5, R2, R1, R0") / simulated(&rows, "FFMA R5, R4, R1, R0");
    assert!((0.90..0.96).contains(&eight), "eight warps: {eight}");
    let (free, conflicted) = two_warp_rows(&rows);
    let reused = simulated(&rows, "FFMA R5, R2, R1, R0, 2 warps/scheduler");
    assert!(reused > 0.98 * free, "{reused} against {free}");
    assert!(
        (0.72..0.82).contains(&(conflicted / free)),
        "{conflicted} against {free}"
    );
    // With fewer warps a scheduler a pair keeps its turns at the shared core
    // group less well, and with two it loses them where the loop's counter
    // and branch shift them: in a longer loop, a quarter of the
    // disturbances, few pairs issue apart. docs/timing-model.md quotes the
    // four figures and the three shares.
    let [two, four, two_long, eight] = [
        "1-2-2-1, 2 warps/scheduler",
        "1-2-2-1, 4 warps/scheduler",
        "1-2-2-1, 2 warps/scheduler, 144 groups a loop",
        "1-2-2-1, loop counter coded 0x28",
    ]
    .map(|name| simulated(&rows, name));
    assert!(two < four && four < eight, "{two} {four} {eight}");
    assert!(
        two < two_long && two_long < eight,
        "{two} {two_long} {eight}"
    );
    let [apart_two, apart_four, apart_long] = [
        "1-2-2-1, 2 warps/scheduler: pairs issued apart",
        "1-2-2-1, 4 warps/scheduler: pairs issued apart",
        "1-2-2-1, 2 warps/scheduler, 144 groups a loop: pairs issued apart",
    ]
    .map(|name| simulated(&rows, name));
    assert!(
        apart_long < apart_two / 10.0 && apart_four < apart_two / 10.0,
        "{apart_two} {apart_long} {apart_four}"
    );
    let page = std::fs::read_to_string(root().join("docs/timing-model.md")).unwrap();
    let flat = page.split_whitespace().collect::<Vec<_>>().join(" ");
    for want in [
        format!(
            "1-2-2-1 alone gives {two:.2} with two warps a scheduler, {two_long:.2} with the \
             same two warps and a loop four times as long, {four:.2} with four warps and \
             {eight:.2} with eight"
        ),
        format!(
            "{apart_two:.2}% with two warps, {apart_long:.2}% with two and the longer loop, \
             {apart_four:.2}% with four"
        ),
    ] {
        assert!(
            flat.contains(&want),
            "docs/timing-model.md does not say `{want}`"
        );
    }
}

/// docs/microbenchmarks.md quotes the table: its summary line, and under
/// *Figures* the model's value of each row, are what `bench micro --fast`
/// prints now.
#[test]
fn the_figures_docs_quote_are_the_tables() {
    let (out, rows) = micro(&root().join("configs/k20m.ron"), "docs");
    let doc = std::fs::read_to_string(root().join("docs/microbenchmarks.md")).unwrap();
    let summary = doc
        .lines()
        .find(|l| l.contains(" rows: ") && l.contains("out of band"))
        .expect("the summary line in docs/microbenchmarks.md");
    assert!(
        out.contains(summary),
        "docs/microbenchmarks.md says `{summary}`; the table:\n{out}"
    );
    let figures = doc
        .split("## Figures")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("a Figures section");
    let mut quoted = 0;
    for line in figures.lines().filter(|l| l.starts_with("| ")).skip(2) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        // Each number of the model's cell is some row's simulated figure, to
        // the decimals quoted.
        for n in cells[2].split([',', '/', ' ']).filter(|w| !w.is_empty()) {
            let v: f64 = n.parse().unwrap_or_else(|_| panic!("`{n}` in `{line}`"));
            let decimals = n.split('.').nth(1).map_or(0, str::len) as i32;
            let scale = 10f64.powi(decimals);
            assert!(
                rows.iter().any(|r| r["simulated"]
                    .as_f64()
                    .is_some_and(|s| (s * scale).round() == (v * scale).round())),
                "docs/microbenchmarks.md quotes {n} in `{line}`; no row of the table gives it"
            );
            quoted += 1;
        }
    }
    assert!(quoted >= 20, "{quoted} figures quoted");
}

#[test]
fn a_bad_config_value_names_file_line_and_field() {
    let dir = std::env::temp_dir().join(format!("keplersim-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("bad.ron");
    std::fs::write(&f, "(\n  timing: (\n    lds_latency: 0,\n  ),\n)\n").unwrap();
    let (ok, _, err) = keplersim(&["bench", "micro", "--config", &f.display().to_string()]);
    assert!(!ok);
    assert!(
        err.contains("bad.ron:3: timing.lds_latency: 0 is outside 1..=1024"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The other readings of what a conflict costs and what the collector keeps,
/// the cost the scheduler's alone (`conflict_holds_warp: 0`) with reuse only
/// from the same warp's instruction the cycle before (`reuse_warps: 0`):
/// every row stays in its band too, and at two warps a scheduler, issuing two
/// cycles of three, the 2-way conflicts that no reuse hides cost under 3%, and
/// the repeated FFMA reuses nothing across the other warp's issue.
#[test]
fn the_schedulers_cost_alone_hides_in_two_warps_idle_cycles() {
    let config = K20mCopy::new(
        "scheduler",
        &[
            ("conflict_holds_warp: 1,", "conflict_holds_warp: 0,"),
            ("reuse_warps: 2,", "reuse_warps: 0,"),
        ],
    );
    let (_, rows) = micro(&config.path, "scheduler");
    let (free, conflicted) = two_warp_rows(&rows);
    assert!(
        conflicted < free && conflicted > 0.97 * free,
        "{conflicted} against {free}"
    );
    let repeated = simulated(&rows, "FFMA R5, R2, R1, R0, 2 warps/scheduler");
    assert!(repeated < free, "{repeated} against {free}");
}

/// A conflict holding its warp without the reads of two warps kept
/// (`reuse_warps: 0`): the repeated FFMA at two warps a scheduler loses a
/// quarter as the row without a shared operand does.
#[test]
fn without_two_warps_reads_kept_the_repeated_ffma_loses_a_quarter() {
    let config = K20mCopy::new("unkept", &[("reuse_warps: 2,", "reuse_warps: 0,")]);
    let (_, rows) = micro(&config.path, "unkept");
    let (free, _) = two_warp_rows(&rows);
    let repeated = simulated(&rows, "FFMA R5, R2, R1, R0, 2 warps/scheduler");
    assert!(
        (0.72..0.78).contains(&(repeated / free)),
        "{repeated} against {free}"
    );
}

#[test]
fn vary_says_which_rows_a_setting_puts_out_of_band() {
    // Keeping every warp's last reads (reuse_warps 8) hides the eight-warp
    // bank rows' measured conflicts; keeping none across warps (0) keeps
    // every row in band. A bad setting is refused before the suite runs.
    let (ok, out, err) = keplersim(&[
        "bench",
        "micro",
        "--fast",
        "--vary",
        "reuse_warps=0,8",
        "--vary",
        "conflict_holds_warp=0",
    ]);
    assert!(ok, "{err}");
    // docs/microbenchmarks.md quotes these lines.
    let doc = std::fs::read_to_string(root().join("docs/microbenchmarks.md")).unwrap();
    let quoted: Vec<&str> = doc.lines().filter(|l| l.starts_with("- timing.")).collect();
    assert_eq!(quoted.len(), 3, "{quoted:?}");
    for q in quoted {
        assert!(
            out.lines().any(|l| l == q),
            "the docs quote `{q}`; the run:\n{out}"
        );
    }
    let line = |setting: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("- {setting}: ")))
            .unwrap_or_else(|| panic!("no line for {setting}: {out}"))
            .to_string()
    };
    assert!(
        out.contains("\nEach setting alone over configs/k20m.ron:\n"),
        "{out}"
    );
    assert!(
        line("timing.reuse_warps=0").contains(": 0 of "),
        "{}",
        line("timing.reuse_warps=0")
    );
    let eight = line("timing.reuse_warps=8");
    assert!(eight.contains(": 5 of "), "{eight}");
    for row in [
        "FFMA R5, R2, R1, R0",
        "FFMA R3, R2, R1, R0",
        "FFMA R5, R9, R3, R1",
        "FFMA R11, R9, R3, R1",
        "FMUL R4, R2, R0",
    ] {
        assert!(eight.contains(&format!("`{row}` (")), "{row}: {eight}");
    }
    let (ok, out, err) = keplersim(&["bench", "micro", "--fast", "--vary", "reuse_warps=9"]);
    assert!(!ok, "{out}");
    assert!(
        err.contains("--vary reuse_warps=9: timing.reuse_warps: 9 is outside 0..=8"),
        "{err}"
    );
    assert!(!out.contains("group    benchmark"), "ran: {out}");
}

/// `bench micro --fast` rows on the K20m with `params` set (`--param`).
fn micro_with(params: &[&str]) -> Vec<serde_json::Value> {
    let tag = params.join("-").replace(['=', '.'], "_");
    let json = std::env::temp_dir().join(format!(
        "keplersim-micro-quote-{tag}-{}.json",
        std::process::id()
    ));
    let mut args = vec!["bench", "micro", "--fast"];
    for p in params {
        args.extend(["--param", p]);
    }
    let path = json.display().to_string();
    args.extend(["--json", &path]);
    let (ok, out, err) = keplersim(&args);
    assert!(ok, "{err}\n{out}");
    let rows =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("json written")).expect("json");
    let _ = std::fs::remove_file(&json);
    rows
}

/// The figures of rows that docs/timing-model.md, docs/microbenchmarks.md,
/// docs/sgemm.md and configs/k20m.ron quote in their prose, each under the reading the
/// sentence names: the page must say `before`, the row's figure to the
/// decimals quoted, then `after` (line breaks and indentation as spaces).
#[test]
fn the_rows_the_pages_quote_under_each_reading_are_the_models() {
    const TM: &str = "docs/timing-model.md";
    const MB: &str = "docs/microbenchmarks.md";
    const RON: &str = "configs/k20m.ron";
    const SG: &str = "docs/sgemm.md";
    // (page, parameters, row, decimals, text before, text after)
    type Quote = (
        &'static str,
        &'static [&'static str],
        &'static str,
        usize,
        &'static str,
        &'static str,
    );
    let quotes: &[Quote] = &[
        (
            TM,
            &[],
            "order 1-2-2-1",
            2,
            "group `orders`: model ",
            " for 1-2-2-1",
        ),
        (
            TM,
            &[],
            "FFMA R5, R2, R1, R0",
            2,
            "the model gives ",
            " and 93.48",
        ),
        (
            TM,
            &[],
            "FFMA R5, R9, R3, R1",
            2,
            "the model gives 118.04 and ",
            " of its",
        ),
        (
            TM,
            &[],
            "FFMA R5, R4, R1, R0",
            2,
            "93.48 of its ",
            ". The FMUL",
        ),
        (
            TM,
            &[],
            "FFMA 2-way, no shared operand, 2 warps/scheduler",
            2,
            "would check it on a K20m: ",
            " operations per clock per SM with the warp held",
        ),
        (
            TM,
            &[
                "conflict_holds_warp=0",
                "conflict_2way=0.0745",
                "conflict_3way=0.355",
            ],
            "FFMA 2-way, no shared operand, 2 warps/scheduler",
            2,
            "with the warp held, ",
            " with the cost the scheduler's alone",
        ),
        (
            TM,
            &[],
            "FFMA R5, R2, R1, R0, 2 warps/scheduler",
            2,
            "would check it on a K20m: ",
            " under 2",
        ),
        (
            TM,
            &["reuse_warps=0"],
            "FFMA R5, R2, R1, R0, 2 warps/scheduler",
            2,
            "under 2, ",
            " under 0 and under 1",
        ),
        (
            TM,
            &["reuse_warps=1"],
            "FFMA R5, R2, R1, R0, 2 warps/scheduler",
            2,
            "under 2, ",
            " under 0 and under 1",
        ),
        (
            TM,
            &[],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            "from both on a card (",
            " at 3",
        ),
        (
            TM,
            &["issue_interval=2", "alu_latency=10"],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            "at 3, ",
            " at 2, ",
        ),
        (
            TM,
            &["issue_interval=1", "alu_latency=9"],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            " at 2, ",
            " at 1)",
        ),
        (
            MB,
            &[],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            "card ...; 3/11: ",
            ", 3/9: 82.29",
        ),
        (
            MB,
            &["alu_latency=9"],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            "3/11: 82.29, 3/9: ",
            ", 2/10: ",
        ),
        (
            MB,
            &["issue_interval=2", "alu_latency=10"],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            ", 2/10: ",
            ", 1/9: 122.27",
        ),
        (
            MB,
            &["issue_interval=1", "alu_latency=9"],
            "FFMA R5, R4, R1, R0, 2 warps/scheduler",
            2,
            "121.81, 1/9: ",
            "; nearer",
        ),
        (
            MB,
            &["alu_latency=9"],
            "0x26 latency",
            2,
            "41.00, 3/9: ",
            ", 2/10: 40.00",
        ),
        (
            MB,
            &["issue_interval=2", "alu_latency=10"],
            "0x26 latency",
            2,
            "9.00, 2/10: ",
            ", 1/9: 39.00",
        ),
        (
            MB,
            &["issue_interval=1", "alu_latency=9"],
            "0x28 latency",
            2,
            "10.00, 1/9: ",
            "; nearer",
        ),
        // The readings with a row each, under the configuration's value
        // and the other.
        (MB, &[], "LDS.64 1024 KB", 2, "card ...; 1: ", ", 0: 127.00"),
        (
            MB,
            &["pair_rotation=0"],
            "LDS.64 1024 KB",
            2,
            "134.65, 0: ",
            ", 2: 134.12",
        ),
        (
            MB,
            &["pair_rotation=2"],
            "LDS.64 1024 KB",
            2,
            "127.00, 2: ",
            ", 3: 135.15",
        ),
        (
            MB,
            &["pair_rotation=3"],
            "LDS.64 1024 KB",
            2,
            "134.12, 3: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "faster card ...; 1: ",
            ", 0: 1.31",
        ),
        (
            MB,
            &["pair_rotation=0"],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "card ...; 1: 1.31, 0: ",
            ", 2: 1.00",
        ),
        (
            MB,
            &["pair_rotation=2"],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "0: 1.31, 2: ",
            ", 3: 1.00",
        ),
        (
            MB,
            &["pair_rotation=3"],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "2: 1.00, 3: ",
            "; nearer",
        ),
        (
            MB,
            &["pair_rotation=0"],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "card ...; 1: 0.50, 0: ",
            ", 2: 0.50",
        ),
        (
            MB,
            &["pair_rotation=3"],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "0: 0.27, 2: 0.50, 3: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LD.E L2 hits, 16 warps",
            2,
            "16 warps card ...; 21: ",
            ", 22: 10.46",
        ),
        (
            MB,
            &["ld_outstanding=22"],
            "LD.E L2 hits, 16 warps",
            2,
            "card ...; 21: 9.98, 22: ",
            "; nearer",
        ),
        (
            RON,
            &[],
            "LD.E L2 hits, 16 warps",
            2,
            "tells the two apart on a card: ",
            " GB/s/SM under 21, 10.46 under 22",
        ),
        (
            SG,
            &["ld_outstanding=22"],
            "LD.E L2 hits, 16 warps",
            2,
            "settles `ld_outstanding` on a card (9.98 GB/s per SM under 21, ",
            " under 22)",
        ),
        (
            MB,
            &[],
            "LDS.64 broadcast (one word a warp)",
            2,
            "card ...; 1: ",
            ", 0: 0.76",
        ),
        (
            MB,
            &["shared_cycles_by_bytes=0"],
            "LDS.64 broadcast (one word a warp)",
            2,
            "0.98, 0: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LDG.E.128 in an FFMA loop, 2 warps/scheduler",
            2,
            "2 warps/scheduler card ...; 0: ",
            ", 1: 6.06",
        ),
        (
            MB,
            &["ldg_hold_scope=1"],
            "LDG.E.128 in an FFMA loop, 2 warps/scheduler",
            2,
            "card ...; 0: 19.22, 1: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LDG.E.128 in an FFMA loop, 2 warps/scheduler",
            2,
            "what the `LDG`'s hold holds (`ldg_hold_scope`): ",
            " cycles per iteration where it is the scheduler's dispatch",
        ),
        (
            MB,
            &["ldg_hold_scope=1"],
            "LDG.E.128 in an FFMA loop, 2 warps/scheduler",
            2,
            "no warp of the scheduler issues in it), ",
            " where it is the `LDG`'s own warp alone",
        ),
        (
            MB,
            &[],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "card ...; 0: ",
            ", 1: 222.16",
        ),
        (
            MB,
            &["l2_set_hash=1"],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "card ...; 0: 364.88, 1: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "every load misses: ",
            "; with the address's",
        ),
        (
            MB,
            &["l2_set_hash=1"],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "after the first round hits: ",
            ". The stride",
        ),
        (
            TM,
            &[],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "misses every load under 0 (",
            " cycles a step)",
        ),
        (
            TM,
            &["l2_set_hash=1"],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "after its first round under 1 (",
            ").",
        ),
        (
            SG,
            &[],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "settles it on a card (",
            " cycles under the modulo",
        ),
        (
            SG,
            &["l2_set_hash=1"],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "cycles under the modulo, ",
            " under the fold)",
        ),
        (
            RON,
            &[],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "on a card (",
            " cycles a load under 0",
        ),
        (
            RON,
            &["l2_set_hash=1"],
            "LD.E chase, 32 lines 480 KB apart",
            2,
            "every load a miss; ",
            " under 1, hits)",
        ),
        (MB, &[], "LDS.128 2048 KB", 2, "card ...; 1: ", ", 2: 77.59"),
        (
            MB,
            &["shared_replay_cycles=2"],
            "LDS.128 2048 KB",
            2,
            "98.82, 2: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "ST.E on 4 lines in an FFMA loop, 1 warp (0x05)",
            2,
            "card ...; 1: ",
            ", 0: 2.00",
        ),
        (
            MB,
            &["replay_issue_cycles=0"],
            "ST.E on 4 lines in an FFMA loop, 1 warp (0x05)",
            2,
            "4.06, 0: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "LDG + TEXDEPBAR (read-only cache hit)",
            2,
            "card ...; 60: ",
            ", 112: 120.00",
        ),
        (
            MB,
            &["ldg_cache_latency=112"],
            "LDG + TEXDEPBAR (read-only cache hit)",
            2,
            "68.00, 112: ",
            "; nearer",
        ),
        (MB, &[], "0x00 latency", 2, "card ...; 16: ", ", 32: 32.00"),
        (
            MB,
            &["unscheduled_stall=32"],
            "0x00 latency",
            2,
            "16.00, 32: ",
            "; nearer",
        ),
        (
            TM,
            &[],
            "0x26 latency",
            0,
            "coded `0x26` takes ",
            " cycles an instruction under 11",
        ),
        (
            TM,
            &["alu_latency=9"],
            "0x26 latency",
            0,
            "then the interlock's 32) and ",
            " under 9",
        ),
        (
            TM,
            &[],
            "LDG + TEXDEPBAR (read-only cache hit)",
            0,
            "read-only cache hit, ",
            " cycles",
        ),
        (
            TM,
            &[],
            "LDG.E.128 in an FFMA loop, 1 warp",
            2,
            "gives ",
            " cycles per iteration",
        ),
        (
            TM,
            &["ldg_issue_cycles=1"],
            "LDG.E.128 in an FFMA loop, 1 warp",
            2,
            "Without the hold it gives ",
            ", the cycles",
        ),
        (
            TM,
            &[],
            "ST.E on 4 lines in an FFMA loop, 1 warp (0x05)",
            2,
            "costs the loop ",
            " cycles when each replay takes an issue slot",
        ),
        (
            TM,
            &["replay_issue_cycles=0"],
            "ST.E on 4 lines in an FFMA loop, 1 warp (0x05)",
            2,
            "issue slot and ",
            " when the unit alone replays it",
        ),
        (
            TM,
            &[],
            "LDS.64 beside LD.E (1 in 9)",
            1,
            "would measure it directly: ",
            " GB/s per SM at 32",
        ),
        (
            TM,
            &["global_lsu_bytes=128"],
            "LDS.64 beside LD.E (1 in 9)",
            1,
            "GB/s per SM at 32, ",
            " at 128",
        ),
        (
            TM,
            &[],
            "LDS.64 broadcast (one word a warp)",
            2,
            "on hardware (",
            " or 0.76",
        ),
        (
            TM,
            &[],
            "BAR.SYNC back to back, 32 warps",
            2,
            "1024-thread block, ",
            " cycles each",
        ),
        (
            TM,
            &[],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "the fastest warp takes ",
            " of the slowest's cycles",
        ),
        (
            TM,
            &["unit_starvation_cycles=1"],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "(`unit_starvation_cycles: 1`), ",
            ". The",
        ),
        (
            MB,
            &[],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "(`unit_starvation_cycles`): ",
            " where the scheduler a pair visits first",
        ),
        (
            MB,
            &["unit_starvation_cycles=1"],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "are done), ",
            " where the warp that has waited longest",
        ),
        (
            TM,
            &[],
            "LDS.64 beside LD.E (1 in 9)",
            1,
            "under either (",
            " and 101.9 GB/s",
        ),
        (
            TM,
            &["unit_starvation_cycles=1"],
            "LDS.64 beside LD.E (1 in 9)",
            1,
            "under either (101.5 and ",
            " GB/s per SM)",
        ),
        (
            MB,
            &[],
            "LDS.64 broadcast (one word a warp)",
            2,
            "the same 8 bytes: ",
            " in the model",
        ),
        (
            MB,
            &[],
            "BAR.SYNC back to back, 32 warps",
            2,
            "cycles per barrier (",
            ")",
        ),
        (
            RON,
            &[],
            "FFMA R5, R2, R1, R0",
            2,
            "the model gives ",
            " of its 125.94",
        ),
        (
            RON,
            &[],
            "FFMA R5, R9, R3, R1",
            2,
            "the model gives ",
            " of 125.94",
        ),
        (
            RON,
            &[],
            "FFMA 2-way, no shared operand, 2 warps/scheduler",
            2,
            "would check it on a K20m (",
            " ops/clk/SM under 1",
        ),
        (
            RON,
            &[],
            "FFMA R5, R2, R1, R0, 2 warps/scheduler",
            2,
            "K20m (",
            " under 2",
        ),
        (
            RON,
            &[],
            "LDS.64 broadcast (one word a warp)",
            2,
            "hardware (",
            " or 0.76",
        ),
        (
            TM,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler: pairs issued apart",
            2,
            "the pair at once, issues ",
            "% apart and reads",
        ),
        (
            TM,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "% apart and reads ",
            " there (",
        ),
        (
            TM,
            &["shared_group_arbitration=0"],
            "1-2-2-1, loop counter coded 0x28",
            2,
            " there (",
            " with eight warps",
        ),
        (
            TM,
            &["shared_group_arbitration=1"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "breaking its pair (1) reads ",
            ". So the two-warp row",
        ),
        (
            MB,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "A fixed winner reads ",
            " with two warps, ",
        ),
        (
            MB,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler: pairs issued apart",
            2,
            " with two warps, ",
            "% apart",
        ),
        (
            SG,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "would read near ",
            " on a card, not the model's",
        ),
        (
            RON,
            &[],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "warps/scheduler\" reads ",
            " under 2, ",
        ),
        (
            RON,
            &["shared_group_arbitration=1"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            " under 2, ",
            " under 1 and ",
        ),
        (
            RON,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            " under 1 and ",
            " under 0; with it",
        ),
        // The three arbitration rows, in prose and in `--card`'s lines.
        (
            TM,
            &["shared_group_arbitration=1"],
            "1-2-2-1, 4 warps/scheduler",
            2,
            "other two: ",
            " under 1, ",
        ),
        (
            TM,
            &[],
            "1-2-2-1, 4 warps/scheduler",
            2,
            " under 1, ",
            " under 2 and ",
        ),
        (
            TM,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 4 warps/scheduler",
            2,
            " under 2 and ",
            " under 0. The two-warp",
        ),
        (
            TM,
            &["shared_group_arbitration=0"],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            "tells 0: ",
            " under 0, ",
        ),
        (
            TM,
            &[],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            " under 0, ",
            " under 1 and 2.",
        ),
        (
            TM,
            &["shared_group_arbitration=1"],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            " under 0, ",
            " under 1 and 2.",
        ),
        (
            MB,
            &[],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "card ...; 2: ",
            ", 1: 173.87",
        ),
        (
            MB,
            &["shared_group_arbitration=1"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "167.77, 1: ",
            ", 0: ",
        ),
        (
            MB,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 2 warps/scheduler",
            2,
            "173.87, 0: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "1-2-2-1, 4 warps/scheduler",
            2,
            "card ...; 2: ",
            ", 1: 176.31",
        ),
        (
            MB,
            &["shared_group_arbitration=1"],
            "1-2-2-1, 4 warps/scheduler",
            2,
            "184.27, 1: ",
            ", 0: ",
        ),
        (
            MB,
            &["shared_group_arbitration=0"],
            "1-2-2-1, 4 warps/scheduler",
            2,
            "176.31, 0: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            "card ...; 2: ",
            ", 1: 120.21",
        ),
        (
            MB,
            &["shared_group_arbitration=1"],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            "120.21, 1: ",
            ", 0: ",
        ),
        (
            MB,
            &["shared_group_arbitration=0"],
            "1-2-2-1 + BAR.SYNC, 2 warps/scheduler",
            2,
            "120.21, 0: ",
            "; nearer",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs one bank each, 1 warp/scheduler",
            2,
            "with one warp a scheduler ",
            " and 113.33",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "145.54 and ",
            ", a ratio",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across / one bank each, 1 warp/scheduler",
            2,
            "a ratio of ",
            " that reading apart",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs one bank each, 2 warps/scheduler",
            2,
            "with two, ",
            " and 165.29",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 2 warps/scheduler",
            2,
            "167.77 and ",
            " (0.99)",
        ),
        (
            SG,
            &[],
            "FFMA 1-2-2-1, pairs one bank each, 1 warp/scheduler",
            2,
            "readings apart on a card: ",
            " and 113.33",
        ),
        (
            SG,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "apart on a card: 145.54 and ",
            " operations per clock",
        ),
        (
            TM,
            &[],
            "FFMA 1-2-2-1, pairs one bank each, 1 warp/scheduler",
            2,
            "tell the two apart on a card: ",
            " and 113.33",
        ),
        (
            TM,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "apart on a card: 145.54 and ",
            " in the model",
        ),
        (
            TM,
            &["pair_reads_together=0"],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "in the model, 145.54 and ",
            " with the pairs read apart",
        ),
        (
            MB,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "card ...; 1: ",
            ", 0: 145.54",
        ),
        (
            MB,
            &["pair_reads_together=0"],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "113.33, 0: ",
            "; nearer",
        ),
        (
            RON,
            &[],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "on a K20m (",
            " under 1, 145.54 under 0",
        ),
        (
            RON,
            &["pair_reads_together=0"],
            "FFMA 1-2-2-1, pairs 2-way across their FFMAs, 1 warp/scheduler",
            2,
            "113.33 under 1, ",
            " under 0, as the pairs",
        ),
        (
            SG,
            &[],
            "LDS.64 1024 KB",
            2,
            "settle it on a card (",
            " and 1.31 with the turns",
        ),
        (
            SG,
            &[],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "on a card (134.65 and ",
            " with the turns, 127.00",
        ),
        (
            SG,
            &["pair_rotation=2"],
            "LDS.64 1024 KB",
            2,
            "with pair 0 first, ",
            " and 1.00 with turns on the grant",
        ),
        (
            SG,
            &["pair_rotation=2"],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "with pair 0 first, 134.12 and ",
            " with turns on the grant",
        ),
        (
            TM,
            &["pair_rotation=3"],
            "LDS.64 beside LD.E: fastest warp / slowest",
            2,
            "fastest warp / slowest` tells 3 (",
            ") from 2 (0.50)",
        ),
        (
            TM,
            &["pair_rotation=2"],
            "LD.E, 2 warps/scheduler: slower pair / faster",
            2,
            "tells 2 and 3 (",
            ") from 0 and 1 (1.31)",
        ),
    ];
    let flat = |rel: &str| {
        let text = std::fs::read_to_string(root().join(rel)).unwrap();
        // A comment's `//` at a line's start joins the line before.
        text.split_whitespace()
            .filter(|w| !(rel.ends_with(".ron") && *w == "//"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut runs: Vec<(&[&str], Vec<serde_json::Value>)> = Vec::new();
    for &(page, params, row, decimals, before, after) in quotes {
        if !runs.iter().any(|(p, _)| *p == params) {
            runs.push((params, micro_with(params)));
        }
        let rows = &runs.iter().find(|(p, _)| *p == params).unwrap().1;
        let want = format!("{before}{:.*}{after}", decimals, simulated(rows, row));
        assert!(
            flat(page).contains(&want),
            "{page} does not say `{want}` (row `{row}` under {params:?})"
        );
    }
}
