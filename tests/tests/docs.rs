//! The figures README.md and the docs quote are the model's: the main job's
//! report as the quick tour shows it, the ladder's table at 1536 (GFlop/s,
//! percent of peak, each step's gain, the whole ladder's and the check's
//! verdict), and figures taken from golden reports and short runs. Each is
//! taken again here, so a change to the model that moves one fails until the
//! pages say the new figure. (The 3072 column is left to `bench sgemm`: its
//! seven runs take minutes.)

use keplersim_tests::{keplersim, root};
use sim_core::config::Config;
use sim_kernels::ladder::{self, KERNELS, PAPER};

fn page(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// [`page`] with its line breaks and indentation as single spaces, so that
/// a quoted sentence is found wherever the page wraps it.
fn flat_page(rel: &str) -> String {
    page(rel).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The lines of the first ```text block after the line `$ COMMAND` in
/// `text`.
fn quoted_output<'a>(text: &'a str, command: &str) -> Vec<&'a str> {
    let mut lines = text.lines();
    lines
        .by_ref()
        .find(|l| l.trim() == format!("$ {command}"))
        .unwrap_or_else(|| panic!("no `$ {command}`"));
    lines.take_while(|l| !l.starts_with("```")).collect()
}

#[test]
fn the_quick_tours_report_is_the_main_jobs() {
    for (rel, command, args) in [
        (
            "README.md",
            "keplersim run traces/sgemm/sgemm.cubin",
            &["run", "traces/sgemm/sgemm.cubin"][..],
        ),
        (
            "docs/sgemm.md",
            "cargo run --release -p sim-cli -- run traces/sgemm/sgemm.cubin --config configs/k20m.ron",
            &[
                "run",
                "traces/sgemm/sgemm.cubin",
                "--config",
                "configs/k20m.ron",
            ][..],
        ),
    ] {
        let r = keplersim(args);
        assert!(r.ok, "{}", r.stderr);
        let text = page(rel);
        let quoted = quoted_output(&text, command);
        assert!(quoted.len() >= 5, "{rel}: {quoted:?}");
        for line in quoted {
            // An abridged line (`...` at its end) is quoted up to there, and
            // the host's times are the host's.
            let shown = line.trim_end().trim_end_matches("...").trim_end();
            let shown = shown.split(" blocks: ").next().unwrap_or(shown);
            assert!(
                r.stdout.lines().any(|l| l.starts_with(shown)),
                "{rel} quotes `{line}`; the run prints:\n{}",
                r.stdout
            );
        }
    }
}

#[test]
fn the_ladders_figures_at_1536_are_the_models() {
    let dir = root().join("traces/sgemm");
    let rows = ladder::run_all(&dir, &[1536], &Config::default(), 2, &|_| {}).unwrap();
    assert!(rows.iter().all(|r| r.passed), "{rows:?}");
    let readme = page("README.md");
    let sgemm = page("docs/sgemm.md");
    let has = |text: &str, rel: &str, want: &str| {
        assert!(text.contains(want), "{rel} does not say `{want}`");
    };
    let row = |ki: usize| ladder::find(&rows, ki, 1536).unwrap();
    // docs/sgemm.md's table of every kernel, and its steps beside the paper.
    for (ki, k) in KERNELS.iter().enumerate() {
        let r = row(ki);
        let cell = format!(
            "| {} | {:.0} ({:.1}%) |",
            k.name, r.gflops, r.percent_of_peak
        );
        has(&sgemm, "docs/sgemm.md", &cell);
    }
    for (i, (step, _, _)) in PAPER.iter().enumerate() {
        let g = ladder::step_gain(&rows, i, 1536).unwrap() * 100.0;
        let gain = format!("| {g:+.1}% |");
        assert!(
            sgemm
                .lines()
                .any(|l| l.starts_with(&format!("| {step} | ")) && l.contains(&gain)),
            "docs/sgemm.md has no row `{step}` with `{gain}`"
        );
        // README's table gives the GFlop/s the gain is between.
        let (a, b) = (row(i).gflops, row(i + 1).gflops);
        let arrow = if i == 0 {
            format!("{g:+.1}% ({a:.0} -> {b:.0} GFlop/s)")
        } else {
            format!("{g:+.1}% ({a:.0} -> {b:.0})")
        };
        has(&readme, "README.md", &format!("| {step} | "));
        has(&readme, "README.md", &arrow);
    }
    let all = format!("{:.2}x", ladder::ladder_gain(&rows, 1536).unwrap());
    has(&readme, "README.md", &format!("| all | 2.6x | {all} |"));
    has(
        &sgemm,
        "docs/sgemm.md",
        &format!("| baseline to +Dual | 2.6x | {all} |"),
    );
    // docs/sgemm.md's verdict of the ladder's check at 1536.
    let verdict = ladder::verdict(&ladder::misses(&rows, 1536));
    has(&sgemm, "docs/sgemm.md", &format!("- 1536: {verdict}\n"));
    let tuned = format!("{:.1}% of peak at 1536", row(ladder::TUNED).percent_of_peak);
    has(&readme, "README.md", &tuned);
    has(&sgemm, "docs/sgemm.md", &tuned);
}

/// `n` with its thousands separated by commas, as the pages write cycles.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A golden report's cycles and each SM's busy cycles.
fn golden(name: &str) -> (u64, Vec<u64>) {
    let text = page(&format!("traces/golden/{name}.json"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let busy = v["busy"].as_array().unwrap();
    (
        v["cycles"].as_u64().unwrap(),
        busy.iter().map(|b| b.as_u64().unwrap()).collect(),
    )
}

/// The cycles of the SGEMM kernel `name` (`sgemm`, `sgemm8x8`) at m = n = k
/// = `size`, run with the arguments `extra` as well.
fn sgemm_cycles(name: &str, size: u32, extra: &[&str]) -> u64 {
    let launch = format!("traces/sgemm/{name}.launch.ron");
    let sets: Vec<String> = ["m", "n", "k"]
        .iter()
        .map(|v| format!("{v}={size}"))
        .collect();
    let mut args = vec!["run", launch.as_str()];
    args.extend(extra);
    for s in &sets {
        args.extend(["--set", s.as_str()]);
    }
    run_cycles(&args)
}

/// The report of `keplersim ARGS --json`.
fn run_json(args: &[&str]) -> serde_json::Value {
    let mut args = args.to_vec();
    args.push("--json");
    let r = keplersim(&args);
    assert!(r.ok, "{}", r.stderr);
    serde_json::from_str(&r.stdout).unwrap()
}

/// The cycles of `keplersim ARGS --json`.
fn run_cycles(args: &[&str]) -> u64 {
    run_json(args)["cycles"]["cycles"].as_u64().unwrap()
}

/// docs/sgemm.md's account of the 8x8 kernel against the tuned one at small
/// sizes: both kernels' cycles at 384 (run here) and at 768 (the golden
/// reports), the 8x8 kernel ahead at both, and at 768 how many SMs run four
/// of its blocks (busy for most of the run), three and two.
#[test]
fn the_8x8_kernel_at_384_and_768_is_the_pages() {
    let flat = flat_page("docs/sgemm.md");
    let (small, tuned) = (
        sgemm_cycles("sgemm8x8", 384, &[]),
        sgemm_cycles("sgemm", 384, &[]),
    );
    assert!(
        small < tuned,
        "the 8x8 kernel is behind at 384: {small} >= {tuned}"
    );
    let want = format!(
        "{} cycles against the tuned kernel's {}.",
        grouped(small),
        grouped(tuned)
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
    let (small, busy) = golden("sgemm.8x8-768");
    let (tuned, _) = golden("sgemm.tuned-768");
    assert!(
        small < tuned,
        "the 8x8 kernel is behind at 768: {small} >= {tuned}"
    );
    let want = format!(
        "report takes {} cycles against the tuned kernel's {}, {:.1}% fewer",
        grouped(small),
        grouped(tuned),
        (1.0 - small as f64 / tuned as f64) * 100.0
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
    let blocks = |lo: f64, hi: f64| {
        busy.iter()
            .filter(|&&b| (lo..hi).contains(&(b as f64 / small as f64)))
            .count()
    };
    let spread = (blocks(0.9, 1.01), blocks(0.7, 0.9), blocks(0.0, 0.7));
    assert_eq!(spread, (3, 4, 6), "{busy:?}");
    assert!(flat.contains("three SMs run four blocks, four run three and six run two"));
}

/// docs/sgemm.md's +Dual step in the loop alone: one block of the +LDG128
/// and +Dual kernels on one SM at k = 1536 and 3072. The difference is 384
/// chunks of k (four values each); what a block costs besides them, the
/// cycles at 1536 less 384 chunks, is about the same for both.
#[test]
fn the_dual_steps_gain_in_the_loop_alone_is_the_pages() {
    let flat = flat_page("docs/sgemm.md");
    let block = |name: &str, k: u32| {
        let launch = format!("traces/sgemm/ladder/{name}.launch.ron");
        let k = format!("k={k}");
        run_cycles(&[
            "run", &launch, "--set", "m=192", "--set", "n=192", "--set", &k,
        ]) as f64
    };
    let [single, dual] = ["ldg128", "paper"].map(|name| {
        let (short, long) = (block(name, 1536), block(name, 3072));
        let chunk = (long - short) / 384.0;
        (chunk, short - 384.0 * chunk)
    });
    let hundreds = |c: f64| (c / 100.0).round() as u64 * 100;
    assert!(
        (single.1 / dual.1 - 1.0).abs() < 0.02,
        "{single:?} {dual:?}"
    );
    let want = format!(
        "the same outside their loops, about {} and {} cycles on an SM alone",
        grouped(hundreds(single.1)),
        grouped(hundreds(dual.1))
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
    let want = format!(
        "adds {} cycles to +LDG128's block and {} to +Dual's: {:+.0}% in the loop alone",
        grouped(single.0.round() as u64),
        grouped(dual.0.round() as u64),
        (single.0 / dual.0 - 1.0) * 100.0
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
}

/// docs/sgemm.md's account of where the dual-issue loops lose time: one
/// block of the tuned and of the paper's kernel on an SM alone at k = 1536
/// and 3072, and per chunk of k (four values) and scheduler, the cycles, the
/// pairs not asked for (of the 576 that would take each group's four
/// cycles), the pairs issued apart for the shared group and for the
/// load/store unit, and the cycles waiting for the unit, at barriers and on
/// control bytes.
#[test]
fn where_the_dual_issue_loops_lose_time_is_the_pages() {
    let flat = flat_page("docs/sgemm.md");
    let per_chunk = |launch: &str| {
        let [short, long] = [1536, 3072].map(|k| {
            let k = format!("k={k}");
            run_json(&[
                "run", launch, "--set", "m=192", "--set", "n=192", "--set", &k,
            ])
        });
        // Per chunk and scheduler.
        let delta = |f: &dyn Fn(&serde_json::Value) -> f64| (f(&long) - f(&short)) / 384.0 / 4.0;
        let stall = |why: &'static str| {
            delta(&move |v: &serde_json::Value| {
                let scheds = v["schedulers"].as_array().unwrap();
                scheds
                    .iter()
                    .map(|s| s["stalls"][why].as_f64().unwrap())
                    .sum::<f64>()
            })
        };
        let cycles = delta(&|v| v["cycles"]["cycles"].as_f64().unwrap()) * 4.0;
        let issues = delta(&|v| v["issue"]["issue_cycles"].as_f64().unwrap());
        let pairs = delta(&|v| v["issue"]["dual_pairs"].as_f64().unwrap());
        assert_eq!((issues + pairs).round(), 1344.0, "{launch}");
        let asked = delta(&|v| v["pairs"]["asked"].as_f64().unwrap());
        let apart = |why: &'static str| delta(&move |v| v["pairs"]["apart"][why].as_f64().unwrap());
        let r = |x: f64| x.round() as u64;
        (
            [cycles, 576.0 - asked, apart("shared_core_group_taken")].map(r),
            apart("shared_core_group_taken") / asked * 100.0,
            r(asked),
            [
                apart("second_unit_busy"),
                stall("pipe_busy"),
                stall("barrier"),
                stall("control_code"),
                stall("bank_conflict"),
            ]
            .map(r),
        )
    };
    let ([cycles, unasked, taken], share, asked, [unit_busy, unit, barrier, _, _]) =
        per_chunk("traces/sgemm/sgemm.launch.ron");
    let want = format!(
        "tuned kernel's chunk takes {cycles} cycles. Of the {} more, {unasked} are pairs \
         its code does not ask for, {taken} pairs that issued apart because the other \
         scheduler of the pair had taken their shared core group ({share:.0}% of the \
         {asked} pairs asked for), {unit_busy} pairs whose second instruction, a \
         shared-memory access, found the load/store unit busy, {unit} waits for the unit \
         and {barrier} waits at barriers.",
        cycles - 768
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
    let ([cycles, _, taken], _, _, [unit_busy, unit, barrier, ctrl, bank]) =
        per_chunk("traces/sgemm/ladder/paper.launch.ron");
    let want = format!(
        "The paper's kernel takes {cycles}: {bank} for the bank conflicts of its pairs, \
         {taken} for the shared group, {unit_busy} for the unit at seconds, {ctrl} for \
         stalls of its `0x90` bytes that the other warp does not fill, {unit} for the unit \
         and {barrier} at barriers."
    );
    assert!(flat.contains(&want), "docs/sgemm.md does not say `{want}`");
}

/// The cycles of `traces/kernels/transpose_unpadded` under
/// `unit_starvation_cycles` = `wait` (`None`: the shipped configuration).
fn transpose_cycles(wait: Option<u32>) -> u64 {
    let param = wait.map(|w| format!("unit_starvation_cycles={w}"));
    let mut args = vec!["run", "traces/kernels/transpose_unpadded.launch.ron"];
    if let Some(p) = &param {
        args.extend(["--param", p]);
    }
    run_cycles(&args)
}

/// docs/timing-model.md's case for the load/store unit's guarantee of
/// progress: in the unpadded transpose a warp waits more than 5,000 cycles
/// for the unit (a guarantee at 5,000 changes the run) and less than 5,100
/// (one at 5,100 does not), in a run of the cycles the page gives.
#[test]
fn the_longest_wait_for_the_load_store_unit_is_the_pages() {
    let cycles = transpose_cycles(None);
    let flat = flat_page("docs/timing-model.md");
    let want = format!(
        "a warp waits more than 5,000 cycles of the run's {} (the kernel's cycles \
         change with `unit_starvation_cycles: 5000`, not with 5100)",
        grouped(cycles)
    );
    assert!(
        flat.contains(&want),
        "docs/timing-model.md does not say `{want}`"
    );
    assert_ne!(transpose_cycles(Some(5000)), cycles);
    assert_eq!(transpose_cycles(Some(5100)), cycles);
}
