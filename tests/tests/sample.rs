//! `keplersim run --sample` on the tuned SGEMM at a size whose full run takes
//! seconds: the estimate's bound holds the full run's cycles, the output says
//! which outputs were not checked, a grid too small to sample runs whole and
//! checked, and bad `--sample` values are refused with a reason.

use keplersim_tests::keplersim;

/// m = 1536, n = 1728, k = 384: 8 x 9 = 72 blocks, five waves of 13 and a
/// tail of 7; each block is short (k = 384), so the full run takes seconds.
const SIZE: [&str; 6] = ["--set", "m=1536", "--set", "n=1728", "--set", "k=384"];

fn run(extra: &[&str]) -> keplersim_tests::Run {
    let mut args = vec!["run", "traces/sgemm/sgemm.cubin"];
    args.extend(SIZE);
    args.extend(extra);
    keplersim(&args)
}

fn json(r: &keplersim_tests::Run) -> serde_json::Value {
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}", r.stdout))
}

#[test]
fn the_sampled_estimate_holds_the_full_run_within_its_bound() {
    let full = json(&run(&["--json"]));
    let cycles = full["cycles"]["cycles"]
        .as_u64()
        .expect("the full run's cycles");
    let sampled = json(&run(&["--sample", "--json"]));
    let e = &sampled["estimate"];
    let (est, low, high) = (
        e["cycles"].as_u64().unwrap(),
        e["low"].as_u64().unwrap(),
        e["high"].as_u64().unwrap(),
    );
    assert_eq!(e["exact"], false, "{sampled}");
    assert!(
        low <= cycles && cycles <= high,
        "full run {cycles} cycles outside the bound {low}..{high} (estimate {est})"
    );
    // The tail runs with SMs idle, faster than any block the sample ran
    // with all 13 busy: the low end holds it only by the block alone.
    let (alone, shortest) = (
        e["alone"].as_u64().unwrap(),
        e["shortest"].as_u64().unwrap(),
    );
    assert!(alone < shortest, "{sampled}");
    assert!(
        (est as f64 - cycles as f64).abs() / (cycles as f64) < 0.01,
        "estimate {est} more than 1% from the full run's {cycles}"
    );
    let s = &sampled["sampled"];
    assert_eq!(s["grid_blocks"], 72, "{sampled}");
    assert_eq!(s["blocks_finished"], 26, "{sampled}");
    // Each block finished: the first wave's 13 from cycle 0, one an SM; the
    // later ones' cycles averaging the later blocks' mean.
    let each = sampled["blocks"]["each"].as_array().expect("each block");
    assert_eq!(each.len(), 26, "{sampled}");
    let field = |b: &serde_json::Value, f: &str| b[f].as_u64().unwrap();
    let first: Vec<&serde_json::Value> = each.iter().filter(|b| field(b, "start") == 0).collect();
    let mut sms: Vec<u64> = first.iter().map(|b| field(b, "sm")).collect();
    sms.sort();
    assert_eq!(sms, (0..13).collect::<Vec<u64>>(), "{sampled}");
    let later: Vec<u64> = each
        .iter()
        .filter(|b| field(b, "start") > 0)
        .map(|b| field(b, "cycles"))
        .collect();
    let mean = later.iter().sum::<u64>() as f64 / later.len() as f64;
    let want = sampled["blocks"]["later"]["mean_cycles"].as_f64().unwrap();
    assert!((mean - want).abs() < 1e-6, "{mean} against {want}");
    // The text report names the shortest and the longest later block.
    let text = run(&["--sample"]);
    let (lo, hi) = (
        sampled["blocks"]["later"]["shortest"].as_u64().unwrap(),
        sampled["blocks"]["later"]["longest"].as_u64().unwrap(),
    );
    let named = |cycles: u64| {
        let b = each
            .iter()
            .find(|b| field(b, "start") > 0 && field(b, "cycles") == cycles)
            .expect("the block");
        let xyz: Vec<String> = b["block"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        format!("block ({}) on SM {}", xyz.join(","), field(b, "sm"))
    };
    let want = format!("{lo} to {hi}: {} to {})", named(lo), named(hi));
    assert!(
        text.stdout.contains(&want),
        "no `{want}` in:\n{}",
        text.stdout
    );
    let mut blocks: Vec<String> = each.iter().map(|b| b["block"].to_string()).collect();
    blocks.sort();
    blocks.dedup();
    assert_eq!(blocks.len(), 26, "every block once: {sampled}");
    assert_eq!(sampled["unchecked"]["buffers"][0], "c", "{sampled}");
}

/// One SM: a wave is one block, so the sample runs 13 waves (12 steady
/// blocks for the bound) rather than 2.
#[test]
fn a_wave_of_one_block_samples_enough_blocks_for_its_bound() {
    let full = json(&run(&["--sms", "1", "--json"]));
    let cycles = full["cycles"]["cycles"]
        .as_u64()
        .expect("the full run's cycles");
    let sampled = json(&run(&["--sms", "1", "--sample", "--json"]));
    assert_eq!(sampled["sampled"]["waves"], 13, "{sampled}");
    assert_eq!(sampled["blocks"]["later"]["blocks"], 12, "{sampled}");
    let e = &sampled["estimate"];
    let (low, high) = (e["low"].as_u64().unwrap(), e["high"].as_u64().unwrap());
    assert!(
        low <= cycles && cycles <= high,
        "full run {cycles} cycles outside the bound {low}..{high}"
    );
}

/// `-vv` logs each block the sample finished: where it ran, its cycles and
/// its start.
#[test]
fn a_sampled_run_logs_each_block_at_debug() {
    let r = run(&["-vv", "--sample"]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    let lines: Vec<&str> = r
        .stderr
        .lines()
        .filter(|l| l.contains("DEBUG block ("))
        .collect();
    assert_eq!(lines.len(), 26, "{}", r.stderr);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("block (0,0,0) on SM 0: ") && l.ends_with(" cycles from cycle 0")),
        "{}",
        r.stderr
    );
}

#[test]
fn the_sampled_report_says_what_was_not_checked() {
    let r = run(&["--sample"]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    for want in [
        "sampled     26 of 72 blocks finished (2 of the grid's 5.5 waves of 13 blocks)",
        "estimate    ",
        "every block still to run between the shortest and longest block sampled",
        "unchecked   c: the other 1695744 elements (blocks not simulated to their end); the \
         counters (issue, stalls, memory): of the part simulated only",
    ] {
        assert!(r.stdout.contains(want), "no `{want}` in:\n{}", r.stdout);
    }
    assert!(
        r.stdout
            .contains("check       c: PASS (958464 elements the sampled blocks wrote; all"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_grid_too_small_to_sample_runs_whole_and_checked() {
    let r = keplersim(&[
        "run",
        "traces/sgemm/sgemm.cubin",
        "--set",
        "m=384",
        "--set",
        "n=384",
        "--set",
        "k=384",
        "--sample",
    ]);
    assert!(r.ok, "{}\n{}", r.stderr, r.stdout);
    // Four blocks on 13 SMs: a wave of four, one wave.
    for want in [
        "sampled     4 of 4 blocks finished (the whole grid: 1.0 waves of 4 blocks)",
        "cycles a block (mean of 4), no later blocks",
    ] {
        assert!(r.stdout.contains(want), "no `{want}` in:\n{}", r.stdout);
    }
    assert!(
        r.stdout
            .contains("exact: the grid has only 1.0 waves, so it ran in full"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("check       c: PASS"), "{}", r.stdout);
    assert!(!r.stdout.contains("unchecked"), "{}", r.stdout);
}

#[test]
fn bad_sample_values_say_why() {
    for (arg, why) in [
        ("--sample=waves=1", "1 waves: at least 2"),
        ("--sample=waves=two", "`two` is not a whole number of waves"),
        ("--sample=blocks=9", "no option `blocks`"),
        ("--sample=9", "expected waves=N"),
    ] {
        let r = run(&[arg]);
        assert!(!r.ok, "{arg} was taken:\n{}", r.stdout);
        assert!(r.stderr.contains(why), "{arg}: no `{why}` in {}", r.stderr);
    }
    let r = run(&["--sample", "--functional"]);
    assert!(
        !r.ok && r.stderr.contains("drop --functional"),
        "{}",
        r.stderr
    );
}
