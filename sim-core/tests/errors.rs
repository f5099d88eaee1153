//! Bad kernels and launches give errors in the manner of compute-sanitizer: what
//! went wrong, the instruction, the thread and block, the address. Each fixture
//! is hand-written SASS in `traces/errors/`, assembled here.

use std::path::{Path, PathBuf};

use sim_core::config::Chip;
use sim_core::func::{BlockOrder, SimError};
use sim_core::launch::{self, RunError};
use sim_core::timing::Stepping;
use sim_isa::cubin::{Cubin, CubinWriter};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/errors")
}

/// Assembles and runs fixture `name` functionally; returns the error's text.
fn error_of(name: &str) -> String {
    error_as(name, launch::Mode::Functional(BlockOrder::Natural))
}

/// Assembles and runs fixture `name` as `mode` says; returns the error's text.
fn error_as(name: &str, mode: launch::Mode) -> String {
    error_on(name, None, mode)
}

/// [`error_as`] with the launch file's grid replaced by `grid` blocks, if given.
fn error_on(name: &str, grid: Option<u32>, mode: launch::Mode) -> String {
    run_error(name, grid, mode).to_string()
}

/// Assembles and runs fixture `name` as `mode` says, its grid replaced by
/// `grid` blocks if given; returns the error.
fn run_error(name: &str, grid: Option<u32>, mode: launch::Mode) -> launch::RunError {
    run_error_on(name, grid, mode, 1)
}

/// [`run_error`] with a timed run's SMs on `threads` threads.
fn run_error_on(
    name: &str,
    grid: Option<u32>,
    mode: launch::Mode,
    threads: usize,
) -> launch::RunError {
    let src = std::fs::read_to_string(dir().join(format!("{name}.sass"))).expect("fixture");
    let mut w = CubinWriter::new();
    for k in sim_isa::asm::assemble_source(&src).expect("assembles") {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let mut text =
        std::fs::read_to_string(dir().join(format!("{name}.launch.ron"))).expect("launch file");
    if let Some(n) = grid {
        assert!(text.contains("grid: (1, 1, 1)"), "{name}: one block");
        text = text.replace("grid: (1, 1, 1)", &format!("grid: ({n}, 1, 1)"));
    }
    let spec = launch::parse(&text).expect("launch file parses");
    let read = |f: &str| std::fs::read(dir().join(f)).map_err(|e| e.to_string());
    let r = launch::resolve(&spec, &[], &read).expect("resolves");
    let config = sim_core::config::Config {
        chip: Chip::K20M,
        ..Default::default()
    };
    let mut ctl = sim_core::timing::Control {
        threads,
        ..Default::default()
    };
    match launch::execute_controlled(
        &cubin,
        &r,
        mode,
        &config,
        &read,
        &mut sim_core::timing::Nobody,
        &mut ctl,
    ) {
        Ok(_) => panic!("{name} ran without error"),
        Err(e) => e,
    }
}

fn expect(name: &str, parts: &[&str]) {
    let e = error_of(name);
    for p in parts {
        assert!(e.contains(p), "{name}: `{p}` missing from:\n{e}");
    }
}

#[test]
fn out_of_bounds_global_read_names_the_buffer_thread_and_instruction() {
    expect(
        "oob_global",
        &[
            "out-of-bounds global read of 4 bytes at 0x100000080",
            "0 bytes after the end of `x`",
            "LD.E R4, [R2];",
            "by thread (31, 0, 0) in block (0, 0, 0)",
        ],
    );
}

#[test]
fn out_of_bounds_shared_and_local_accesses() {
    expect(
        "oob_shared",
        &[
            "out-of-bounds shared write of 4 bytes at 0x80",
            "128 bytes of shared memory",
            "thread (32, 0, 0)",
        ],
    );
    expect(
        "oob_local",
        &[
            "out-of-bounds local write of 4 bytes at 0x20",
            "STL [R1+0x10], R0;",
        ],
    );
}

#[test]
fn misaligned_access() {
    expect(
        "misaligned",
        &[
            "misaligned shared read of 8 bytes at 0x4",
            "LDS.64 R2, [R1];",
            "thread (0, 0, 0)",
        ],
    );
}

#[test]
fn barriers_that_not_every_thread_reaches() {
    expect(
        "deadlock",
        &["deadlock", "warp 0 at barrier 1", "warp 3 at barrier 0"],
    );
    expect(
        "divergent_barrier",
        &[
            "a barrier that not every thread reaches",
            "16 of warp 0's 32 live threads",
            "BAR.SYNC 0x0;",
        ],
    );
}

#[test]
fn illegal_instructions_and_registers() {
    expect(
        "illegal_instruction",
        &[
            "illegal instruction",
            "R3 of a 128-bit operand must be a multiple of 4",
            "LDS.128 R3, [R1];",
        ],
    );
    expect(
        "illegal_register",
        &[
            "illegal register: R20 is past the kernel's 8 registers",
            "MOV R20, R0;",
        ],
    );
}

#[test]
fn barriers_branches_and_locks_the_hardware_has_not() {
    expect(
        "bad_barrier",
        &[
            "illegal instruction: barrier 16 does not exist (0..15)",
            "BAR.SYNC R0;",
        ],
    );
    expect(
        "bad_brx",
        &[
            "illegal instruction: BRX to misaligned address 0x1c",
            "BRX R0;",
        ],
    );
    expect(
        "unlocked_store",
        &[
            "illegal instruction: STSCUL to shared 0x0, whose lock lane 0 does not hold",
            "by thread (0, 0, 0) in block (0, 0, 0)",
        ],
    );
}

#[test]
fn runaway_kernels_stop_at_the_instruction_limit() {
    expect(
        "runaway",
        &["ran past the limit of 100000 warp-instructions"],
    );
}

#[test]
fn kernels_the_loader_refuses_say_why() {
    use sim_core::mem::GlobalMem;
    use sim_core::program::Program;
    use sim_isa::cubin::KernelSpec;
    let src = std::fs::read_to_string(dir().join("oob_shared.sass")).expect("fixture");
    let mut good = sim_isa::asm::assemble_source(&src).expect("assembles");
    let mut big = good.remove(0);
    // A frame past sm_35's 512 KiB of local memory a thread.
    big.name = "big_frame".into();
    big.frame_size = 600 << 10;
    // A text section of one control word and no instruction.
    let tiny = KernelSpec::new("tiny", vec![0x2000_0000_0000_0000], 8);
    let mut w = CubinWriter::new();
    w.add_kernel(big).add_kernel(tiny);
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let load = |name: &str| match Program::load(&cubin, name, &mut GlobalMem::new()) {
        Ok(_) => panic!("{name} loaded"),
        Err(e) => e.to_string(),
    };
    assert_eq!(
        load("big_frame"),
        "kernel `big_frame` needs 614400 bytes of local memory per thread, past sm_35's 524288"
    );
    assert_eq!(load("tiny"), "kernel `tiny` has no code");
}

#[test]
fn bad_launches_are_refused_before_running() {
    let src = std::fs::read_to_string(dir().join("oob_shared.sass")).expect("fixture");
    let mut w = CubinWriter::new();
    for k in sim_isa::asm::assemble_source(&src).expect("assembles") {
        w.add_kernel(k);
    }
    let cubin = Cubin::parse(&w.to_bytes().expect("writes")).expect("parses");
    let none = |_: &str| -> Result<Vec<u8>, String> { Err("none".into()) };
    for (text, part) in [
        (
            "(kernel: \"oob_shared\", grid: (1, 1, 1), block: (2048, 1, 1))",
            "block (2048, 1, 1) exceeds sm_35's limits",
        ),
        (
            "(kernel: \"oob_shared\", grid: (1, 70000, 1), block: (32, 1, 1))",
            "grid (1, 70000, 1) exceeds sm_35's limits (x at most 2147483647, y and z at most 65535)",
        ),
        (
            "(kernel: \"oob_shared\", grid: (1, 1, 1), block: (32, 1, 1), dynamic_shared: 49152)",
            "exceed the 49152 bytes a block may have",
        ),
        (
            "(kernel: \"nope\", grid: (1, 1, 1), block: (32, 1, 1))",
            "no kernel `nope`",
        ),
        (
            "(kernel: \"oob_shared\", grid: (1, 1, 1), block: (32, 1, 1), args: [I32(3)])",
            "takes 0 parameters",
        ),
        (
            "(kernel: \"oob_shared\", grid: (0, 1, 1), block: (32, 1, 1))",
            "must be at least 1",
        ),
    ] {
        let spec = launch::parse(text).expect("parses");
        let e = launch::resolve(&spec, &[], &none)
            .map_err(|e| e.to_string())
            .and_then(|r| {
                launch::execute(&cubin, &r, BlockOrder::Natural, &Chip::K20M, &none)
                    .map_err(|e| e.to_string())
            })
            .err()
            .unwrap_or_default();
        assert!(e.contains(part), "`{part}` missing from `{e}`");
    }
}

/// Fixtures in which several blocks fault (see their comments).
const FAULT_IN_MANY_BLOCKS: [&str; 4] = [
    "first_fault_shared",
    "first_fault_global",
    "first_fault_ldg",
    "first_fault_store",
];

/// Fixtures in which several warps of one block fault (see their comments).
const FAULT_IN_MANY_WARPS: [&str; 1] = ["divergent_barrier"];

/// The timing model stops every fixture with the functional model's error:
/// the same fault, instruction (address and text), thread and block, or the
/// same deadlock or runaway block.
#[test]
fn the_timing_model_reports_every_fixture_as_the_functional_model_does() {
    let mut kinds = Vec::new();
    for e in std::fs::read_dir(dir()).expect("fixtures") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "sass") {
            continue;
        }
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let f = run_error(&name, None, launch::Mode::Functional(BlockOrder::Natural));
        let t = run_error(&name, None, launch::Mode::Timed(Stepping::Turns));
        let (RunError::Sim(fs), RunError::Sim(ts)) = (&f, &t) else {
            panic!("{name}: not a simulation error:\nfunctional: {f}\ntimed: {t}");
        };
        match (fs, ts) {
            // The list of waiting warps may differ, as warps reach the
            // barrier in another order; the block may not.
            (
                SimError::Deadlock {
                    kernel: fk,
                    block: fb,
                    ..
                },
                SimError::Deadlock {
                    kernel: tk,
                    block: tb,
                    ..
                },
            ) => assert_eq!((fk, fb), (tk, tb), "{name}:\nfunctional: {f}\ntimed: {t}"),
            // Several blocks fault: the functional model names the first in
            // its block order, the timing model the first in time (which the
            // next test checks); all else must agree.
            (SimError::Fault { what: fw, at: fa }, SimError::Fault { what: tw, at: ta })
                if FAULT_IN_MANY_BLOCKS.contains(&name.as_str()) =>
            {
                let mut ta = ta.clone();
                ta.block = fa.block;
                assert_eq!((fw, fa), (tw, &ta), "{name}:\nfunctional: {f}\ntimed: {t}");
            }
            // Every warp of the block reaches the barrier divided: which
            // warp's BAR issues first is a matter of timing, as is the order
            // of the deadlock's list. The lane, the instruction and the block
            // must agree.
            (SimError::Fault { what: fw, at: fa }, SimError::Fault { what: tw, at: ta })
                if FAULT_IN_MANY_WARPS.contains(&name.as_str()) =>
            {
                let (Some(fth), Some(tth)) = (fa.thread, ta.thread) else {
                    panic!("{name}: no thread named:\nfunctional: {f}\ntimed: {t}");
                };
                assert_eq!(fth[0] % 32, tth[0] % 32, "{name}: lane");
                let mut ta = ta.clone();
                ta.thread = fa.thread;
                let tw = tw.replace(
                    &format!("warp {}'s", tth[0] / 32),
                    &format!("warp {}'s", fth[0] / 32),
                );
                assert_eq!((fw, fa), (&tw, &ta), "{name}:\nfunctional: {f}\ntimed: {t}");
            }
            _ => assert_eq!(fs, ts, "{name}:\nfunctional: {f}\ntimed: {t}"),
        }
        let kind = match fs {
            SimError::BadLaunch { .. } => "bad launch",
            SimError::Fault { .. } => "fault",
            SimError::Deadlock { .. } => "deadlock",
            SimError::Limit { .. } => "limit",
        };
        kinds.push(kind);
        println!("{name}: {}", t.to_string().replace('\n', " |"));
    }
    // The fixtures cover faults, a deadlock and a runaway.
    for k in ["fault", "deadlock", "limit"] {
        assert!(kinds.contains(&k), "no fixture ends in a {k}");
    }
}

/// Of many blocks that fault, the run names the first fault in time (cycle,
/// then SM): the same whether the SMs run in step or by turns, in which an
/// SM run earlier meets its fault later than one run after it.
#[test]
fn the_first_fault_in_time_is_named_however_the_sms_are_stepped() {
    for name in FAULT_IN_MANY_BLOCKS {
        let turns = error_as(name, launch::Mode::Timed(Stepping::Turns));
        let step = error_as(name, launch::Mode::Timed(Stepping::Lockstep));
        assert_eq!(turns, step, "{name}");
        assert!(turns.contains("in block (37, 0, 0)"), "{name}: {turns}");
    }
    // A deadlock and a runaway in every one of 30 blocks: the same error.
    for name in ["deadlock", "runaway"] {
        let turns = error_on(name, Some(30), launch::Mode::Timed(Stepping::Turns));
        let step = error_on(name, Some(30), launch::Mode::Timed(Stepping::Lockstep));
        assert_eq!(turns, step, "{name} in 30 blocks");
    }
    // Every fixture: the same error either way.
    for e in std::fs::read_dir(dir()).expect("fixtures") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "sass") {
            continue;
        }
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        assert_eq!(
            error_as(&name, launch::Mode::Timed(Stepping::Turns)),
            error_as(&name, launch::Mode::Timed(Stepping::Lockstep)),
            "{name}"
        );
    }
}

/// With the SMs on 2 and 3 threads, every fixture stops at the error it
/// stops at on one: the first fault in time among many blocks (a load
/// through L2, a read-only load and a store, which an SM run alone issues
/// and the chip's loop reads or writes later, in turn), and a deadlock and
/// a runaway in each of 30 blocks.
#[test]
fn the_first_fault_in_time_is_named_on_any_thread_count() {
    let timed = launch::Mode::Timed(Stepping::Turns);
    let mut cases: Vec<(String, Option<u32>)> =
        vec![("deadlock".into(), Some(30)), ("runaway".into(), Some(30))];
    for e in std::fs::read_dir(dir()).expect("fixtures") {
        let p = e.expect("entry").path();
        if p.extension().is_some_and(|x| x == "sass") {
            cases.push((p.file_stem().unwrap().to_string_lossy().to_string(), None));
        }
    }
    for name in ["first_fault_global", "first_fault_ldg", "first_fault_store"] {
        assert!(cases.iter().any(|c| c.0 == name), "{name}: a fixture");
        let one = run_error_on(name, None, timed, 1).to_string();
        assert!(one.contains("in block (37, 0, 0)"), "{name}: {one}");
    }
    for (name, grid) in &cases {
        let one = run_error_on(name, *grid, timed, 1).to_string();
        for threads in [2, 3] {
            let many = run_error_on(name, *grid, timed, threads).to_string();
            assert_eq!(one, many, "{name} on {threads} threads");
        }
    }
}
