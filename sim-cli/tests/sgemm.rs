//! The tuned SGEMM of `traces/sgemm`, its 8x8 variant and its ladder, through
//! the command line: `gen sgemm` writes what the generator makes, every kernel
//! computes C bit for bit (timed, at small sizes), `keplersim check` finds no
//! conflict and no hazard in the tuned kernel, the published conflicts in the
//! baseline and those of the published banks in the paper's kernel, and it
//! reports each deliberately broken kernel of
//! `traces/check/broken.sass`.

mod common;

use common::{cuobjdump, keplersim, root, K20mCopy};

/// (step, block, path under traces/sgemm without extension, launch size).
const KERNELS: [(&str, &str, &str, &str); 7] = [
    ("dual", "12", "sgemm", "1536"),
    ("dual", "8", "sgemm8x8", "1536"),
    ("baseline", "12", "ladder/baseline", "768"),
    ("reg", "12", "ladder/reg", "768"),
    ("ld128", "12", "ladder/ld128", "768"),
    ("ldg128", "12", "ladder/ldg128", "768"),
    ("paper", "12", "ladder/paper", "768"),
];

fn path(rel: &str) -> String {
    root().join("traces/sgemm").join(rel).display().to_string()
}

/// `keplersim gen sgemm ARGS` writing `sass` and `launch` (m = n = k = 768).
fn gen_with_launch(
    args: &[&str],
    sass: &std::path::Path,
    launch: &std::path::Path,
) -> (bool, String, String) {
    let (sass, launch) = (sass.display().to_string(), launch.display().to_string());
    let mut all = vec!["gen", "sgemm"];
    all.extend(args);
    all.extend(["-o", &sass, "--launch", &launch, "--size", "768"]);
    keplersim(&all)
}

#[test]
fn gen_writes_the_generated_kernel_and_its_launch_file() {
    // What the generator makes is checked against the committed files in
    // sim-kernels' tests; here, that the command writes it.
    let tmp = std::env::temp_dir().join(format!("keplersim-gen-cli-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let sass = tmp.join("k.sass");
    let launch = tmp.join("k.launch.ron");
    let s = |p: &std::path::Path| p.display().to_string();
    let (ok, out, err) = gen_with_launch(&["--step", "ldg128", "--block", "8"], &sass, &launch);
    assert!(ok, "{err}");
    let v = sim_kernels::sgemm::Variant::ladder("ldg128", 8).unwrap();
    let g = sim_kernels::sgemm::generate(v);
    assert!(
        out.contains(&format!("{}, {} registers", v.kernel_name(), g.registers)),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&sass).unwrap(), g.sass);
    assert_eq!(
        std::fs::read_to_string(&launch).unwrap(),
        sim_kernels::sgemm::launch_file(v, "k.cubin", 768)
    );
    let (ok, _, err) = keplersim(&["gen", "sgemm", "--step", "fast", "-o", &s(&sass)]);
    assert!(!ok);
    assert!(
        err.contains("--step fast: the steps are baseline, reg, ld128, ldg128, paper, dual"),
        "{err}"
    );
    let (ok, _, err) = keplersim(&["gen", "sgemm", "--block", "10", "-o", &s(&sass)]);
    assert!(!ok);
    assert!(
        err.contains("--block 10: the register block per thread is 8 or 12"),
        "{err}"
    );
    // A launch file of a size the kernel cannot run is refused, not written;
    // a size without a launch file to put it in is an error too.
    for (block, size, tile) in [("12", "100", "192"), ("8", "0", "128")] {
        let _ = std::fs::remove_file(&launch);
        let (ok, _, err) = keplersim(&[
            "gen",
            "sgemm",
            "--block",
            block,
            "-o",
            &s(&sass),
            "--launch",
            &s(&launch),
            "--size",
            size,
        ]);
        assert!(!ok);
        assert!(
            err.contains(&format!(
                "--size {size}: m = n = k must be a positive multiple of the kernel's {tile}-row tile"
            )),
            "{err}"
        );
        assert!(!launch.exists());
    }
    let (ok, _, err) = keplersim(&["gen", "sgemm", "-o", &s(&sass), "--size", "384"]);
    assert!(!ok);
    assert!(err.contains("--launch"), "{err}");
    // A launch file that cannot be written leaves no .sass behind.
    let _ = std::fs::remove_file(&sass);
    let nowhere = tmp.join("no-such-folder").join("k.launch.ron");
    let (ok, _, err) = keplersim(&["gen", "sgemm", "-o", &s(&sass), "--launch", &s(&nowhere)]);
    assert!(!ok && err.contains("no folder"), "{err}");
    assert!(!sass.exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn every_kernel_computes_c_bit_for_bit_timed() {
    // Sizes the tiles divide, m, n and k all different; k not a multiple of 8.
    for (_, block, rel, _) in KERNELS {
        let (m, n, k) = if block == "12" {
            (384, 576, 44)
        } else {
            (256, 384, 36)
        };
        let (ok, out, err) = keplersim(&[
            "run",
            &path(&format!("{rel}.cubin")),
            "--config",
            &root().join("configs/k20m.ron").display().to_string(),
            "--set",
            &format!("m={m}"),
            "--set",
            &format!("n={n}"),
            "--set",
            &format!("k={k}"),
        ]);
        assert!(ok, "{rel}: {err}\n{out}");
        assert!(out.contains("check       c: PASS"), "{rel}:\n{out}");
        assert!(out.contains("gflops "), "{rel}: no GFlop/s line:\n{out}");
        assert!(
            !out.contains("hazards"),
            "{rel}: the model saw hazards:\n{out}"
        );
    }
}

#[test]
fn leading_dimensions_larger_than_the_matrices() {
    let (ok, out, err) = keplersim(&[
        "run",
        &path("sgemm.cubin"),
        "--set",
        "m=384",
        "--set",
        "n=192",
        "--set",
        "k=40",
        "--set",
        "pad=8",
    ]);
    assert!(ok, "{err}\n{out}");
    assert!(
        out.contains("check       c: PASS (75264 elements bit-exact)"),
        "{out}"
    );
}

#[test]
fn sizes_the_kernel_cannot_handle_are_refused_before_launch() {
    for (set, needle) in [
        ("m=200", "m must be a multiple of the 192-row tile"),
        ("n=96", "n must be a multiple of the 192-column tile"),
        ("k=6", "k must be a multiple of 4"),
        ("k=0", "m, n and k must be positive"),
        ("pad=2", "pad must be a multiple of 4"),
    ] {
        let (ok, out, err) = keplersim(&["run", &path("sgemm.cubin"), "--set", set]);
        assert!(!ok, "{set} ran:\n{out}");
        assert!(err.contains(needle), "{set}: {err}");
        assert!(!out.contains("check"), "{set} launched:\n{out}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

/// The cycles of a timed run of `rel` (under traces/sgemm) with these
/// launch-file variables, its C checked bit for bit.
fn checked_cycles(rel: &str, sets: &[&str]) -> u64 {
    checked_cycles_of(&path(rel), sets)
}

/// The same of the kernel `file` (a cubin or SASS, its launch file beside it).
fn checked_cycles_of(file: &str, sets: &[&str]) -> u64 {
    let mut args = vec!["run", file, "--json"];
    for set in sets {
        args.extend(["--set", set]);
    }
    let (ok, out, err) = keplersim(&args);
    assert!(ok, "{file}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json report");
    assert_eq!(v["checks"][0]["passed"], true, "{file}: {out}");
    v["cycles"]["cycles"].as_u64().expect("cycles")
}

#[test]
fn two_runs_give_the_same_cycles() {
    let run = || checked_cycles("sgemm.cubin", &["m=384", "n=384", "k=64"]);
    assert_eq!(run(), run());
}

/// The cycles of a ladder step at 768 under `config`, its C checked.
fn ladder_cycles(rel: &str, config: &std::path::Path) -> u64 {
    let (ok, out, err) = keplersim(&[
        "run",
        &path(&format!("ladder/{rel}.cubin")),
        "--config",
        &config.display().to_string(),
        "--json",
    ]);
    assert!(ok, "{rel}: {err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("json report");
    assert_eq!(v["checks"][0]["passed"], true, "{rel}: {out}");
    v["cycles"]["cycles"].as_u64().expect("cycles")
}

/// What docs/sgemm.md says of the reading that a bank conflict holds its
/// warp: the baseline to +LD128, the paper's +Reg and +LD128 steps together,
/// gains 1.36x at 768 under it (with two warps' reads kept for reuse), inside
/// the 1.33-1.56x the paper's two ranges multiply to when each is widened by
/// the 3 points the model is held to (1.40-1.49x as measured); with the cost
/// the scheduler's alone, the baseline's conflicts hide in its idle cycles
/// and the two steps gain far less.
#[test]
fn a_held_warp_gives_reg_and_ld128_together_the_papers_gain() {
    let scheduler = K20mCopy::new(
        "scheduler",
        &[
            ("conflict_holds_warp: 1,", "conflict_holds_warp: 0,"),
            ("reuse_warps: 2,", "reuse_warps: 0,"),
        ],
    );
    let gain = |config: &std::path::Path| {
        ladder_cycles("baseline", config) as f64 / ladder_cycles("ld128", config) as f64
    };
    let (by_default, scheduler_alone) = (
        gain(&root().join("configs/k20m.ron")),
        gain(&scheduler.path),
    );
    assert!(
        (1.33..1.56).contains(&by_default),
        "default: {by_default:.3}x"
    );
    assert!(
        scheduler_alone < 1.30,
        "the scheduler's cost: {scheduler_alone:.3}x"
    );
}

/// A warp held by its own bank conflict waits to issue as a control code
/// makes it wait, and the cycles of the hold are reported as `bank conflict`
/// stalls: on the ladder's baseline, whose conflicts hold its warps, the
/// scheduler-cycles stalled on bank conflicts nearly double those of the
/// same run with the cost the scheduler's alone.
#[test]
fn a_warp_held_by_its_conflict_stalls_on_bank_conflict() {
    let scheduler = K20mCopy::new(
        "scheduler-only",
        &[("conflict_holds_warp: 1,", "conflict_holds_warp: 0,")],
    );
    let conflict_stalls = |config: &std::path::Path| {
        let (ok, out, err) = keplersim(&[
            "run",
            &path("ladder/baseline.cubin"),
            "--config",
            &config.display().to_string(),
            "--json",
        ]);
        assert!(ok, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json report");
        v["stalls"]["by_reason"]["bank_conflict"]
            .as_u64()
            .expect("bank conflict stalls")
    };
    let held = conflict_stalls(&root().join("configs/k20m.ron"));
    let repaid = conflict_stalls(&scheduler.path);
    assert!(held as f64 > 1.5 * repaid as f64, "{held} against {repaid}");
}

fn summary(file: &str, extra: &[&str]) -> String {
    let mut args = vec!["check", file, "--summary"];
    args.extend_from_slice(extra);
    let (ok, out, err) = keplersim(&args);
    assert!(ok, "{err}");
    out
}

/// The checker's findings on `rel` (under `traces/sgemm`), beside the four
/// every kernel of the generator has: its two `STS.128` a chunk (in the loop
/// and in the prologue) read an aligned quad, whose four registers sit on
/// two banks (bank of Rn = bit 0 + 2 x bit 2), an unavoidable 2-way
/// conflict, worth it for the shared transactions it saves.
fn findings_but_the_stores(rel: &str) -> (String, Vec<String>) {
    let (_, out, _) = keplersim(&["check", &path(rel)]);
    let lines: Vec<&str> = out.lines().collect();
    let stores = lines
        .iter()
        .filter(|l| l.contains("STS.128") && l.contains("2-way register bank conflict"))
        .count();
    assert_eq!(stores, 4, "{rel}: the stores' quads\n{out}");
    let others = lines
        .iter()
        .filter(|l| l.trim_start().starts_with("/*") && !l.contains("STS.128"))
        .map(|l| l.to_string())
        .collect();
    (out, others)
}

/// The tuned kernels break no rule and meet no interlock. Their banks are
/// solved so that no single FFMA reads two registers of one bank, and the
/// pairs conflict only where the solver found no bank free of it: those stay
/// paired (the conflict holds the warp a cycle, issuing the two apart would
/// cost the scheduler one), and the checker finds each on a pair's first
/// instruction, at slot 2, 4 or 6 of its group (the 12x12 kernel's five on
/// the sixth FFMA, paired with the group's seventh instruction).
#[test]
fn the_tuned_kernels_conflict_only_in_their_pairs_and_meet_no_hazard() {
    for (rel, pairs, conflicts, by) in [
        ("sgemm", 281, 9, [0, 0, 0, 0, 0, 0, 5, 0]),
        ("sgemm8x8", 131, 52, [0, 0, 21, 0, 14, 0, 13, 0]),
    ] {
        let (by_slot, out) = ffma_conflicts_by_slot(&path(&format!("{rel}.cubin")));
        assert_eq!(by_slot, by, "{rel}:\n{out}");
        let (_, others) = findings_but_the_stores(&format!("{rel}.cubin"));
        assert_eq!(others.len(), conflicts - 4, "{rel}:\n{out}");
        assert!(
            out.contains(&format!("{pairs} dual-issue pairs; bank conflicts {conflicts} 2-way, 0 3-way, 0 4-way; dual-issue rule breaks 0; hazards 0; unaligned loops 0")),
            "{rel}:\n{out}"
        );
    }
    // Most of the 288 possible pairs of a 12x12 iteration dual-issue.
    let out = summary(&path("sgemm.cubin"), &[]);
    let pairs: usize = out
        .split(" dual-issue pairs")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("pairs");
    assert!(pairs >= 270, "{out}");
}

/// Where in their 64-byte groups (slot 0 the control word) the FFMAs are
/// that `keplersim check` finds with a register bank conflict in `file`,
/// and its summary line.
fn ffma_conflicts_by_slot(file: &str) -> ([usize; 8], String) {
    let (ok, out, err) = keplersim(&["check", file]);
    assert!(ok, "{err}");
    let mut by_slot = [0usize; 8];
    for l in out.lines().filter(|l| l.contains("register bank conflict")) {
        if l.contains("STS.128") {
            continue;
        }
        assert!(l.contains("FFMA") && l.contains("2-way"), "{l}");
        let at = l.trim_start().trim_start_matches("/*");
        let addr = usize::from_str_radix(&at[..at.find('*').expect("address")], 16).unwrap();
        by_slot[addr / 8 % 8] += 1;
    }
    (by_slot, out)
}

/// The paper's kernel (+Dual) has the published FFMA order and accumulator
/// banks: each FFMA alone reads three banks, but with the registers the
/// instruction before it read reused, 24 of a step's 48 FFMA pairs read two
/// registers of one bank (the second FFMA of 1+2 or of 3+4 in its group), 96
/// an iteration; its bytes pair them all the same, and the sixth FFMA with
/// the group's seventh instruction in 38 more. With the generator's order and
/// banks solved for the pairs, no FFMA pair conflicts.
#[test]
fn the_papers_kernel_has_the_conflicts_of_its_published_banks() {
    let (by_slot, out) = ffma_conflicts_by_slot(&path("ladder/paper.cubin"));
    assert!(
        out.contains("281 dual-issue pairs; bank conflicts 138 2-way, 0 3-way, 0 4-way; dual-issue rule breaks 0; hazards 0; unaligned loops 0"),
        "{out}"
    );
    assert_eq!(by_slot, [0, 0, 48, 0, 48, 0, 38, 0], "{out}");
    // Each conflict is across a pair's two instructions: read apart, the
    // pairs meet none, and the stores' quads are all that is left.
    let (ok, apart, err) = keplersim(&[
        "check",
        &path("ladder/paper.cubin"),
        "--param",
        "pair_reads_together=0",
    ]);
    assert!(ok, "{err}");
    assert!(
        apart.contains("281 dual-issue pairs; bank conflicts 4 2-way, 0 3-way"),
        "{apart}"
    );
    let dir = std::env::temp_dir().join(format!("keplersim-solved-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sass = dir.join("paper_solved.sass");
    let (ok, gen_out, err) = keplersim(&[
        "gen",
        "sgemm",
        "--step",
        "paper",
        "--order",
        "solved",
        "-o",
        &sass.display().to_string(),
    ]);
    assert!(ok, "{err}");
    assert!(gen_out.contains("sgemm_tn_12x12_paper_solved"), "{gen_out}");
    let (solved, out) = ffma_conflicts_by_slot(&sass.display().to_string());
    assert_eq!(solved[2] + solved[4], 0, "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The loop FFMAs (those that read no constant) `keplersim check` `args`
/// finds with a 2-way and with a 3-way register bank conflict.
fn checked_ffmas(args: &[&str]) -> (usize, usize) {
    let (ok, out, err) = keplersim(args);
    assert!(ok, "{err}");
    let ffma = |way: &str| {
        out.lines()
            .filter(|l| {
                let t = l.trim_start();
                t.contains("FFMA R") && !t.contains("c[") && t.contains(way)
            })
            .count()
    };
    (ffma("2-way"), ffma("3-way"))
}

#[test]
fn the_baseline_has_the_published_conflicts() {
    // Accumulators in order in R0..R143, then A and B: with no operand
    // reused, 368 of the 576 FFMAs of an iteration have a 2-way conflict and
    // 64 a 3-way one (the facts' static count).
    let no_reuse = checked_ffmas(&["check", &path("ladder/baseline.cubin"), "--no-reuse"]);
    assert_eq!(no_reuse, (368, 64));
    // Under the K20m's reading the collector keeps a warp's last reads
    // whenever its next instruction issues: the FFMAs in row order reuse
    // their A value, which leaves 335 2-way conflicts and no 3-way one.
    let kept = checked_ffmas(&["check", &path("ladder/baseline.cubin")]);
    assert_eq!(kept, (335, 0));
    // Keeping only what the cycle before read (`reuse_warps: 0`), single
    // issue coded 0x2n never issues the cycle after: nothing is reused.
    let cycle_before = K20mCopy::new("cycle-before", &[("reuse_warps: 2,", "reuse_warps: 0,")]);
    let config = cycle_before.path.display().to_string();
    let unkept = checked_ffmas(&["check", &path("ladder/baseline.cubin"), "--config", &config]);
    assert_eq!(unkept, (368, 64));
    // The bank-aware allocation leaves none.
    let (reg, others) = findings_but_the_stores("ladder/reg.cubin");
    assert!(others.is_empty(), "{reg}");
    assert!(reg.contains("bank conflicts 4 2-way, 0 3-way"), "{reg}");
}

#[test]
fn broken_kernels_are_reported() {
    let file = root()
        .join("traces/check/broken.sass")
        .display()
        .to_string();
    let (ok, out, err) = keplersim(&["check", &file]);
    assert!(ok, "{err}");
    let line = |k: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{k}:")))
            .unwrap_or_else(|| panic!("no {k}:\n{out}"))
            .to_string()
    };
    assert!(line("alu_hazard").contains("hazards 1;"), "{out}");
    assert!(
        out.contains("interlock: reads R2 3 cycles after the ALU instruction at 0x0018"),
        "{out}"
    );
    assert!(line("ldg_hazard").contains("hazards 1;"), "{out}");
    assert!(
        out.contains("reads R4 loaded by the LDG at 0x0018 with no TEXDEPBAR"),
        "{out}"
    );
    assert!(
        line("conflicts").contains("bank conflicts 1 2-way, 1 3-way"),
        "{out}"
    );
    assert!(
        line("dual_rules").contains("dual-issue rule breaks 4;"),
        "{out}"
    );
    for why in [
        "the second depends on the first",
        "a global-memory access never dual-issues",
        "a branch or barrier cannot be second",
        "not at an aligned half of the group",
    ] {
        assert!(out.contains(why), "no `{why}`:\n{out}");
    }
    assert!(
        line("unaligned_loop").contains("unaligned loops 1"),
        "{out}"
    );
    // An instruction the model cannot run is named with the error a warp
    // reaching it would stop with; a kernel without one says nothing of it.
    assert!(line("illegal").ends_with("; cannot run 1"), "{out}");
    assert!(
        out.contains("LDS.128 R5, [R0];                            cannot run: illegal instruction: destination R5 of a 128-bit operand must be a multiple of 4"),
        "{out}"
    );
    // A load waits for its ALU-computed address, and the warp's later
    // instructions with it: the read after it is late enough.
    assert!(line("load_waits").contains("hazards 0;"), "{out}");
    assert!(!line("clean").contains("cannot run"), "{out}");
    assert!(
        line("clean").contains("bank conflicts 0 2-way, 0 3-way, 0 4-way; dual-issue rule breaks 0; hazards 0; unaligned loops 0"),
        "{out}"
    );
    let (ok, _, err) = keplersim(&["check", &file, "--strict"]);
    assert!(!ok && err.contains("findings"), "{err}");
}

#[test]
fn cuobjdump_reads_the_tuned_kernel_as_keplersim_does() {
    let f = root().join("traces/sgemm/sgemm.cubin");
    let (ok, out, err) = keplersim(&["disasm", &f.display().to_string()]);
    assert!(ok, "{err}");
    assert_eq!(out, cuobjdump(&f));
}

#[test]
fn ptxas_code_of_the_suite_has_no_hazard() {
    // ptxas's control codes protect every result it reads (the timed suite
    // sees no early read either): the checker must agree on every kernel.
    let dir = root().join("traces/kernels");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("cubin") {
            continue;
        }
        let out = summary(&p.display().to_string(), &[]);
        for line in out.lines() {
            assert!(line.contains("hazards 0;"), "{}: {line}", p.display());
        }
        n += 1;
    }
    assert!(n >= 20, "{n} cubins");
}

/// The threads that load A and those that load B, from a kernel's prologue:
/// `ISETP.LT.U32.AND P2, PT, Rt, N` (A, and B too unless B has its own)
/// and `ISETP.GE.U32.AND P4, PT, Rt, M` (B).
fn loaders(sass: &str) -> (std::ops::Range<u32>, std::ops::Range<u32>) {
    let bound = |prefix: &str| {
        sass.lines()
            .map(|l| l.split_once("] ").map_or(l, |(_, t)| t).trim())
            .find(|t| t.starts_with(prefix))
            .and_then(|t| t.split(", ").nth(3))
            .and_then(|n| u32::from_str_radix(n.trim_start_matches("0x"), 16).ok())
    };
    let a = 0..bound("ISETP.LT.U32.AND P2, PT,").expect("A's loaders");
    let b = bound("ISETP.GE.U32.AND P4, PT,").map_or(a.clone(), |m| m..256);
    (a, b)
}

/// The loop's `LDG.E.128`s each of a block's eight warps issues a chunk
/// (one of A and one of B per loading thread).
fn ldgs_by_warp(sass: &str) -> [usize; 8] {
    let (a, b) = loaders(sass);
    std::array::from_fn(|w| {
        let threads = 32 * w as u32..32 * (w as u32 + 1);
        let loads = |r: &std::ops::Range<u32>| threads.clone().any(|t| r.contains(&t));
        usize::from(loads(&a)) + usize::from(loads(&b))
    })
}

/// The same by scheduler (warp w on scheduler w mod 4).
fn ldgs_by_scheduler(sass: &str) -> [usize; 4] {
    let mut per = [0; 4];
    for (w, n) in ldgs_by_warp(sass).into_iter().enumerate() {
        per[w % 4] += n;
    }
    per
}

#[test]
fn the_8x8_kernel_alone_spreads_its_global_loads() {
    let read = |rel: &str| std::fs::read_to_string(path(rel)).unwrap();
    let (tuned, small, paper) = (
        read("sgemm.sass"),
        read("sgemm8x8.sass"),
        read("ladder/paper.sass"),
    );
    // The paper's loaders, threads 0-191, load A and B: schedulers 0 and 1
    // issue four of each chunk's twelve LDGs, 2 and 3 two. The tuned 12x12
    // kernel keeps them (B loaded by threads 64-255, three each, is slower
    // in the model).
    assert_eq!(ldgs_by_warp(&paper), [2, 2, 2, 2, 2, 2, 0, 0]);
    assert_eq!(ldgs_by_scheduler(&paper), [4, 4, 2, 2]);
    assert_eq!(ldgs_by_warp(&tuned), ldgs_by_warp(&paper));
    // The 8x8 kernel has B loaded by threads 128-255: each warp issues one
    // LDG a chunk, where threads 0-127 loading both would issue two.
    assert_eq!(ldgs_by_warp(&small), [1; 8]);
    // The tuned 12x12 kernel's epilogue reads two columns of C in three on
    // the read-only path.
    let count = |text: &str, op: &str| text.matches(&format!(" {op} R")).count();
    assert_eq!(
        (count(&tuned, "LDG.E.64"), count(&tuned, "LD.E.64")),
        (48, 24)
    );
    assert_eq!(
        (count(&paper, "LDG.E.64"), count(&paper, "LD.E.64")),
        (0, 72)
    );
    // Which takes one block alone on an SM, at a k of a few chunks, little
    // more than half the paper's kernel's time: the epilogue dominates.
    let cycles = |rel: &str| checked_cycles(rel, &["m=192", "n=192", "k=16"]);
    let (t, p) = (cycles("sgemm.cubin"), cycles("ladder/paper.cubin"));
    assert!(10 * t < 7 * p, "tuned {t} cycles, the paper's kernel {p}");
}

#[test]
fn each_tuned_kernel_loads_b_by_the_threads_the_model_times_faster() {
    // `gen sgemm --b-loaders` builds each tuned kernel with the other
    // choice; at 768 (as at 1536 and 3072, docs/sgemm.md) the 12x12 kernel
    // is faster with B loaded by the threads that load A, the 8x8 one with
    // B loaded by the last threads. Both builds compute C bit for bit.
    let tmp = std::env::temp_dir().join(format!("keplersim-b-loaders-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (block, other, committed) in [
        ("12", "last", "sgemm.cubin"),
        ("8", "first", "sgemm8x8.cubin"),
    ] {
        let sass = tmp.join(format!("b{block}.sass"));
        let launch = tmp.join(format!("b{block}.launch.ron"));
        let (ok, out, err) =
            gen_with_launch(&["--block", block, "--b-loaders", other], &sass, &launch);
        assert!(ok, "{err}");
        let name = format!("sgemm_tn_{block}x{block}_dual_b_{other}");
        assert!(out.contains(&name), "{out}");
        let theirs = checked_cycles_of(&sass.display().to_string(), &[]);
        let ours = checked_cycles(committed, &["m=768", "n=768", "k=768"]);
        assert!(
            ours < theirs,
            "{committed}: {ours} cycles, with B loaded by the {other} threads {theirs}"
        );
    }
    let (ok, _, err) = keplersim(&[
        "gen",
        "sgemm",
        "--b-loaders",
        "middle",
        "-o",
        &tmp.join("x.sass").display().to_string(),
    ]);
    assert!(
        !ok && err.contains("first") && err.contains("last"),
        "{err}"
    );
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn the_ladder_bench_varies_a_field_one_setting_at_a_time() {
    let json = std::env::temp_dir().join(format!("keplersim-vary-{}.json", std::process::id()));
    let (ok, out, err) = keplersim(&[
        "bench",
        "sgemm",
        "--sizes",
        "192",
        "--vary",
        "alu_latency=11",
        "--vary",
        "issue_interval=2,4",
        "--json",
        &json.display().to_string(),
    ]);
    assert!(ok, "{err}");
    let table: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("Each setting alone over configs/k20m.ron, at 192"))
        .collect();
    let cells = |setting: &str| -> Vec<String> {
        let line = table
            .iter()
            .find(|l| l.starts_with(&format!("| {setting} |")))
            .unwrap_or_else(|| panic!("no row for {setting}: {out}"));
        line.split('|')
            .skip(2)
            .map(|c| c.trim().to_string())
            .collect()
    };
    // The K20m's own value gives the machine's own ladder.
    assert_eq!(cells("timing.alu_latency=11"), cells("(none)"));
    // Single issue every second cycle narrows what dual issue adds; every
    // fourth widens it.
    let dual = |setting: &str| -> f64 { cells(setting)[3].trim_end_matches('%').parse().unwrap() };
    assert!(
        dual("timing.issue_interval=2") < dual("(none)")
            && dual("(none)") < dual("timing.issue_interval=4"),
        "{out}"
    );
    // Each setting's runs are checked bit for bit like the machine's.
    assert!(
        err.contains("[timing.issue_interval=4] baseline at 192"),
        "{err}"
    );
    assert!(!err.contains("C WRONG"), "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let _ = std::fs::remove_file(&json);
    let settings: Vec<&str> = v["vary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["setting"].as_str().unwrap())
        .collect();
    assert_eq!(
        settings,
        [
            "timing.alu_latency=11",
            "timing.issue_interval=2",
            "timing.issue_interval=4"
        ]
    );
    assert!(v["vary"][1]["sizes"][0]["gains"]["+Dual"]
        .as_f64()
        .is_some());
    // A bad setting is refused before any run.
    for (vary, want) in [
        (
            "issue_interval=0",
            "--vary issue_interval=0: timing.issue_interval: 0 is outside 1..=16",
        ),
        ("issue_interval=3,,4", "`` is not a whole number"),
        ("issue_interval", "expected FIELD=V1,V2,..."),
        ("speed=2", "`speed` is no field of the configuration"),
    ] {
        let (ok, _, err) = keplersim(&["bench", "sgemm", "--sizes", "192", "--vary", vary]);
        assert!(!ok && err.contains(want), "{vary}: {err}");
        assert!(!err.contains("GFlop/s"), "{vary} ran: {err}");
    }
}

#[test]
fn the_ladder_bench_refuses_a_size_or_job_count_before_it_runs() {
    let (ok, _, err) = keplersim(&["bench", "sgemm", "--sizes", "192,100"]);
    assert!(!ok);
    assert!(
        err.contains(
            "size 100: m = n = k must be a positive multiple of the ladder's 192-row tile"
        ),
        "{err}"
    );
    let (ok, _, err) = keplersim(&["bench", "sgemm", "--sizes", "192", "--jobs", "0"]);
    assert!(!ok && err.contains("--jobs 0: at least 1"), "{err}");
}
