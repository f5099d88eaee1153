//! End-to-end: what real kernels and careless use found in the command line, each
//! held to the fixed behaviour: listings where ptxas puts an instruction in a
//! control word's slot, commands whose output is closed early, launch files that
//! name their kernel, refuse what cannot work before any simulation and number
//! arguments from 1, NVRTC options, the driver-like memory mode and resource limits.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

use common::{cuobjdump, keplersim, root};

/// ptxas ends these kernels with their `BRA` self-loop in the slot where the
/// next group's control word would be; cuobjdump prints it as an instruction.
#[test]
fn an_instruction_in_a_control_slot_prints_as_cuobjdump_prints_it() {
    for name in ["widths", "scan"] {
        let f = root().join(format!("traces/kernels/{name}.cubin"));
        let (ok, out, err) = keplersim(&["disasm", f.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        assert_eq!(out, cuobjdump(&f), "{name}");
    }
}

/// `keplersim disasm x.cubin | head -1`: the reader goes away after one line;
/// keplersim ends without a panic or an error message.
#[test]
fn a_closed_output_ends_the_command_quietly() {
    let f = root().join("traces/sgemm/sgemm.cubin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_keplersim"))
        .args(["disasm", f.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    // The pipe's read end is closed here, with most of the listing unwritten.
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.is_empty(), "stderr: {err}");
}

/// Writes `files` (name, contents) into a fresh folder under the target dir.
fn scratch(name: &str, files: &[(&str, &[u8])]) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (f, data) in files {
        std::fs::write(dir.join(f), data).unwrap();
    }
    dir
}

fn hardening(file: &str) -> String {
    root()
        .join("traces/hardening")
        .join(file)
        .to_str()
        .unwrap()
        .to_string()
}

/// ptxas writes 0xffffffff as a recursive kernel's stack size; the kernel gets
/// the driver's 1 KiB stack and computes right, timed and functionally.
#[test]
fn a_recursive_kernel_gets_the_drivers_default_stack() {
    for extra in [&[][..], &["--functional"][..]] {
        let mut args = vec!["run", "--launch"];
        let l = hardening("recursive.launch.ron");
        args.push(&l);
        let cubin = hardening("recursive.cubin");
        args.push(&cubin);
        args.extend(extra);
        let (ok, out, err) = keplersim(&args);
        assert!(ok, "{err}");
        assert!(out.contains("out: PASS (256 elements"), "{out}");
    }
}

/// A stack too small for the recursion is a fault that names the limit and
/// the launch-file field that sets it.
#[test]
fn a_stack_overflow_names_the_limit() {
    let text = std::fs::read_to_string(hardening("recursive.launch.ron"))
        .unwrap()
        .replace("source: \"recursive.cu\",", "stack_size: 48,");
    let dir = scratch(
        "overflow",
        &[
            ("r.launch.ron", text.as_bytes()),
            (
                "recursive.expected",
                &std::fs::read(hardening("recursive.expected")).unwrap(),
            ),
        ],
    );
    let l = dir.join("r.launch.ron");
    let (ok, _, err) = keplersim(&[
        "run",
        "--functional",
        &hardening("recursive.cubin"),
        "--launch",
        l.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(err.contains("out-of-bounds local"), "{err}");
    assert!(
        err.contains("48 bytes per thread") && err.contains("stack_size"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A launch file names its kernel (`source`, `cubin`) and runs on its own.
#[test]
fn a_launch_file_names_its_kernel_file() {
    let (ok, out, err) = keplersim(&["run", "--functional", &hardening("recursive.launch.ron")]);
    assert!(ok, "{err}");
    assert!(out.contains("recursive.cu"), "{out}");
    let (ok, out, err) = keplersim(&[
        "run",
        "--memory",
        "driver",
        "--launch",
        &hardening("overread.launch.ron"),
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("overread.cubin"), "{out}");
    let dir = scratch(
        "both",
        &[(
            "b.launch.ron",
            b"(kernel: \"k\", cubin: \"a.cubin\", source: \"a.cu\", grid: (1, 1, 1), block: (1, 1, 1))",
        )],
    );
    let (ok, _, err) = keplersim(&["run", dir.join("b.launch.ron").to_str().unwrap()]);
    assert!(
        !ok && err.contains("b.launch.ron") && err.contains("give one"),
        "{err}"
    );
}

/// A kernel file that is not there is named first, not its launch file; a
/// kernel without a launch file names the one it looked for.
#[test]
fn a_missing_file_is_the_one_named() {
    let dir = scratch("missing", &[("k.cubin", b"")]);
    for cmd in ["run", "profile"] {
        let gone = dir.join("gone.cubin");
        let (ok, _, err) = keplersim(&[cmd, gone.to_str().unwrap()]);
        assert!(
            !ok && err.contains("gone.cubin: No such file"),
            "{cmd}: {err}"
        );
        assert!(!err.contains("launch"), "{cmd}: {err}");
        let (ok, _, err) = keplersim(&[cmd, dir.join("k.cubin").to_str().unwrap()]);
        assert!(
            !ok && err.contains("k.launch.ron: no launch file beside ")
                && err.contains(
                    "k.cubin: a kernel runs with one that gives its grid, block, \
                                 buffers and arguments (docs/launch-files.md"
                )
                && err.contains("--launch F names another"),
            "{cmd}: {err}"
        );
        // A launch file named but not there says so as before.
        let (ok, _, err) = keplersim(&[cmd, dir.join("gone.launch.ron").to_str().unwrap()]);
        assert!(
            !ok && err.contains("gone.launch.ron (the launch file; name another with --launch)"),
            "{cmd}: {err}"
        );
    }
}

/// Where the results go is checked before the run (whose report would
/// come first): a plot, Perfetto file or benchmark JSON in a folder that is
/// not there, a dump folder that is a file, an SM the trace cannot have, and
/// the viewer with no terminal to draw on (here standard output is a pipe).
#[test]
fn outputs_are_checked_before_the_run() {
    let dir = scratch("outputs", &[("file", b"")]);
    let kernel = root().join("traces/kernels/saxpy.cubin");
    let kernel = kernel.to_str().unwrap();
    let gone = dir.join("gone/x.svg");
    let gone = gone.to_str().unwrap();
    let file = dir.join("file");
    let file = file.to_str().unwrap();
    let cases: [(&[&str], String); 7] = [
        (&["--plot", gone], format!("{gone}: no folder")),
        (&["--perfetto", gone], format!("{gone}: no folder")),
        (
            &["--plot", dir.to_str().unwrap()],
            "a folder, not a file".into(),
        ),
        (
            &["--dump", file],
            format!("--dump {file}: a file, not a folder"),
        ),
        (
            &["--trace-sms", "0-4000000000", "--trace", gone],
            "no SM 4000000000: the chip has 13 (0 to 12)".into(),
        ),
        (
            &["--sms", "2", "--trace-sms", "2", "--view"],
            "no SM 2: the chip has 2".into(),
        ),
        (&["--view"], "--view: the viewer needs a terminal".into()),
    ];
    for (args, want) in cases {
        let mut all = vec!["run", kernel];
        all.extend_from_slice(args);
        let (ok, out, err) = keplersim(&all);
        assert!(!ok && err.contains(&want), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} ran first:\n{out}");
    }
    // A refused combination leaves no file behind.
    let kst = dir.join("f.kst");
    let (ok, _, err) = keplersim(&[
        "run",
        kernel,
        "--functional",
        "--trace",
        kst.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("need a timed run"), "{err}");
    assert!(!kst.exists());
    // --csv is the metrics alone, --json the whole report: not both.
    let (ok, _, err) = keplersim(&["run", kernel, "--metrics", "ipc", "--csv", "--json"]);
    assert!(
        !ok && err.contains("--csv") && err.contains("--json"),
        "{err}"
    );
    let (ok, _, err) = keplersim(&["bench", "micro", "--json", gone]);
    assert!(!ok && err.contains("no folder"), "{err}");
    // `keplersim view` itself says so too, never panics.
    let trace = dir.join("t.kst");
    let (ok, _, err) = keplersim(&["run", kernel, "--trace", trace.to_str().unwrap()]);
    assert!(ok, "{err}");
    let (ok, _, err) = keplersim(&["view", trace.to_str().unwrap()]);
    assert!(
        !ok && err.contains("keplersim view: the viewer needs a terminal"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Launch-file mistakes are found before the kernel runs (this kernel would
/// fault at once) and named with the launch file.
#[test]
fn launch_file_mistakes_are_refused_before_the_run() {
    let faulting = root().join("traces/errors/first_fault_global.sass");
    let cases: &[(&str, &str)] = &[
        (
            "buffers: [(name: \"b\", elem: I32, len: 4)], checks: [(buffer: \"b\", reference: File(\"missing.bin\"), compare: BitExact)],",
            "missing.bin",
        ),
        (
            "buffers: [(name: \"b\", elem: I32, len: 4)], checks: [(buffer: \"b\", reference: File(\"eight.bin\"), compare: BitExact)],",
            "`eight.bin` holds 8 bytes, the buffer 16",
        ),
        (
            "buffers: [(name: \"b\", elem: I32, len: 4, init: Fill(0.5))],",
            "Fill(0.5): I32 holds integers",
        ),
        (
            "buffers: [(name: \"b\", elem: I32, len: 4, init: Fill(1e20))],",
            "outside the range of I32",
        ),
        (
            "buffers: [(name: \"b\", elem: F32, len: 4, init: Fill(1e300))],",
            "outside the range of F32",
        ),
        (
            "buffers: [(name: \"b\", elem: F64, len: 4294967296), (name: \"c\", elem: F64, len: 4294967296)],",
            "past the device's",
        ),
        ("args: [I32(\"1 / 0\")],", "argument 1: `1 / 0`: division by zero"),
        ("stack_size: 100000000,", "stack_size: 100000000 bytes per thread is outside"),
    ];
    for (i, (fields, want)) in cases.iter().enumerate() {
        let text = format!(
            "(kernel: \"first_fault_global\", grid: (1, 1, 1), block: (32, 1, 1), {fields})"
        );
        let dir = scratch(
            &format!("mistake{i}"),
            &[("k.launch.ron", text.as_bytes()), ("eight.bin", &[0; 8])],
        );
        let l = dir.join("k.launch.ron");
        let (ok, _, err) = keplersim(&[
            "run",
            faulting.to_str().unwrap(),
            "--launch",
            l.to_str().unwrap(),
        ]);
        assert!(!ok, "{fields}");
        assert!(err.contains(want), "{fields}: {err}");
        assert!(err.contains("k.launch.ron"), "{fields}: {err}");
        assert!(!err.contains("out-of-bounds"), "ran first: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// Argument errors count from 1 on both sides and show the argument as the
/// launch file writes it.
#[test]
fn argument_errors_count_from_one_without_debug_values() {
    let text = std::fs::read_to_string(hardening("overread.launch.ron"))
        .unwrap()
        .replace("I32(\"n\")", "I64(2000)");
    let dir = scratch("args", &[("o.launch.ron", text.as_bytes())]);
    let l = dir.join("o.launch.ron");
    let (ok, _, err) = keplersim(&[
        "run",
        &hardening("overread.cubin"),
        "--launch",
        l.to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("argument 3 (I64(2000)) is 8 bytes, the kernel's parameter 3 is 4 bytes"),
        "{err}"
    );
    assert!(err.contains("o.launch.ron"), "{err}");
    assert!(!err.contains("Lit("), "{err}");
}

/// Strict memory refuses the over-read and says how to switch; driver-like
/// memory reads the padding and warns.
#[test]
fn driver_memory_turns_an_over_read_into_a_warning() {
    let l = hardening("overread.launch.ron");
    let (ok, _, err) = keplersim(&["run", &l]);
    assert!(!ok);
    assert!(err.contains("0 bytes after the end of `x`"), "{err}");
    assert!(err.contains("--memory driver"), "{err}");
    for extra in [&[][..], &["--functional"][..]] {
        let mut args = vec!["run", "--memory", "driver", &l];
        args.extend(extra);
        let (ok, _, err) = keplersim(&args);
        assert!(ok, "{err}");
        assert!(
            err.contains("warning: 1 accesses past a buffer's end"),
            "{err}"
        );
        assert!(
            err.contains("0 bytes past the end of `x`")
                || err.contains("4 bytes past the end of `x`"),
            "{err}"
        );
    }
    let text = std::fs::read_to_string(&l)
        .unwrap()
        .replace("cubin: \"overread.cubin\",", "memory: Driver,");
    let dir = scratch("driver", &[("o.launch.ron", text.as_bytes())]);
    let (ok, _, err) = keplersim(&[
        "run",
        &hardening("overread.cubin"),
        "--launch",
        dir.join("o.launch.ron").to_str().unwrap(),
    ]);
    assert!(ok && err.contains("warning"), "{err}");
}

/// NVRTC options reach NVRTC from the command line, the source and the
/// launch file: `-use_fast_math` turns the precise division (FCHK) into a
/// reciprocal.
#[test]
fn nvrtc_options_pass_through() {
    let src = std::fs::read_to_string(hardening("division.cu")).unwrap();
    let plain = src.replace("// keplersim: nvrtc-options -use_fast_math\n", "");
    let dir = scratch(
        "nvrtc",
        &[("fast.cu", src.as_bytes()), ("plain.cu", plain.as_bytes())],
    );
    let sass = |args: &[&str]| {
        let out = dir.join("o.cubin");
        let mut a = vec!["compile", "-o", out.to_str().unwrap()];
        a.extend(args);
        let (ok, _, err) = keplersim(&a);
        assert!(ok, "{err}");
        keplersim(&["disasm", out.to_str().unwrap()]).1
    };
    let plain_f = dir.join("plain.cu");
    let fast_f = dir.join("fast.cu");
    assert!(sass(&[plain_f.to_str().unwrap()]).contains("FCHK"));
    assert!(!sass(&[fast_f.to_str().unwrap()]).contains("FCHK"));
    assert!(!sass(&[plain_f.to_str().unwrap(), "--nvrtc-option=-use_fast_math"]).contains("FCHK"));
    assert!(!sass(&[
        plain_f.to_str().unwrap(),
        "--nvrtc-option",
        "-use_fast_math"
    ])
    .contains("FCHK"));
    let (ok, _, err) = keplersim(&[
        "compile",
        plain_f.to_str().unwrap(),
        "-o",
        "/dev/null",
        "--nvrtc-option=-bogus",
    ]);
    assert!(!ok && err.contains("-bogus"), "{err}");
    // A launch file's options.
    let launch = "(kernel: \"division\", source: \"plain.cu\", nvrtc_options: [\"-use_fast_math\"], \
        grid: (1, 1, 1), block: (32, 1, 1), \
        buffers: [(name: \"a\", elem: F32, len: 32, init: Fill(1.0)), (name: \"b\", elem: F32, len: 32, init: Fill(3.0)), (name: \"q\", elem: F32, len: 32)], \
        args: [Buffer(\"a\"), Buffer(\"b\"), Buffer(\"q\")])";
    std::fs::write(dir.join("d.launch.ron"), launch).unwrap();
    let (ok, out, err) = keplersim(&[
        "run",
        dir.join("d.launch.ron").to_str().unwrap(),
        "--functional",
    ]);
    assert!(ok, "{err}");
    assert!(out.contains("plain.cu"), "{out}");
    let bad = launch.replace("-use_fast_math", "-bogus");
    std::fs::write(dir.join("e.launch.ron"), bad).unwrap();
    let (ok, _, err) = keplersim(&["run", dir.join("e.launch.ron").to_str().unwrap()]);
    assert!(!ok && err.contains("-bogus"), "{err}");
    // On a kernel that is not CUDA C they would change nothing: refused.
    let cubin = root().join("traces/kernels/saxpy.cubin");
    for flag in [&["-D", "N=3"][..], &["--nvrtc-option=-G"][..]] {
        let mut args = vec!["run", cubin.to_str().unwrap()];
        args.extend_from_slice(flag);
        let (ok, _, err) = keplersim(&args);
        assert!(
            !ok && err.contains("is not CUDA C; -D and --nvrtc-option apply to a `.cu` only"),
            "{err}"
        );
    }
    // `profile` builds the kernel the same way, from the launch file alone.
    let (ok, out, err) = keplersim(&["profile", dir.join("d.launch.ron").to_str().unwrap()]);
    assert!(ok, "{err}");
    assert!(out.contains("MUFU.RCP") && !out.contains("FCHK"), "{out}");
    let (ok, _, err) = keplersim(&["profile", dir.join("e.launch.ron").to_str().unwrap()]);
    assert!(!ok && err.contains("-bogus"), "{err}");
}

/// Absurd grids, buffers past the device's memory, a configuration with no
/// SMs or with caches larger than any chip's: each a one-line error, before
/// anything is allocated.
#[test]
fn resource_limits_are_errors_before_allocation() {
    let kernel = root().join("traces/errors/first_fault_global.sass");
    let launches = [
        (
            "(kernel: \"first_fault_global\", grid: (2147483647, 65535, 65535), block: (32, 1, 1))",
            "keplersim simulates at most",
        ),
        (
            "(kernel: \"first_fault_global\", grid: (1, 1, 1), block: (32, 1, 1), \
             buffers: [(name: \"b\", elem: F64, len: 4294967296, init: Random(seed: 1, lo: 0, hi: 1))])",
            "past the device's",
        ),
    ];
    for (i, (text, want)) in launches.iter().enumerate() {
        let dir = scratch(&format!("limits{i}"), &[("l.launch.ron", text.as_bytes())]);
        let (ok, _, err) = keplersim(&[
            "run",
            kernel.to_str().unwrap(),
            "--launch",
            dir.join("l.launch.ron").to_str().unwrap(),
        ]);
        assert!(!ok && err.contains(want), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
    let configs = [
        ("(chip: (sms: 0))", "chip.sms: 0 is outside"),
        ("(timing: (l2_bytes: 4294967295))", "l2_bytes"),
        ("(timing: (ldg_cache_bytes: 4294967295))", "ldg_cache_bytes"),
    ];
    let launch = root().join("traces/hardening/overread.launch.ron");
    for (i, (text, want)) in configs.iter().enumerate() {
        let dir = scratch(&format!("config{i}"), &[("c.ron", text.as_bytes())]);
        let (ok, _, err) = keplersim(&[
            "run",
            launch.to_str().unwrap(),
            "--config",
            dir.join("c.ron").to_str().unwrap(),
        ]);
        assert!(!ok && err.contains(want), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
    }
}

/// A source with no kernel compiles to a cubin with none: `compile` warns,
/// `check` says there is nothing to check, and `run` says the cubin has no
/// kernels at all.
#[test]
fn a_cubin_without_kernels_says_so() {
    let dir = scratch(
        "nokernel",
        &[("d.cu", b"__device__ int twice(int x) { return 2 * x; }\n")],
    );
    let cubin = dir.join("d.cubin");
    let cubin = cubin.to_str().unwrap();
    let (ok, _, err) = keplersim(&["compile", dir.join("d.cu").to_str().unwrap(), "-o", cubin]);
    assert!(ok && err.contains("d.cu: no kernel in it"), "{err}");
    let (ok, out, err) = keplersim(&["check", cubin]);
    assert!(
        ok && out.contains("d.cubin: no kernel to check"),
        "{out}{err}"
    );
    let launch = root().join("traces/kernels/saxpy.launch.ron");
    let (ok, _, err) = keplersim(&["run", cubin, "--launch", launch.to_str().unwrap()]);
    assert!(
        !ok && err.contains("no kernel `saxpy` (it has none)"),
        "{err}"
    );
}

/// A kernel that calls into CUDA's device runtime (printf, assert, malloc)
/// is refused when it loads, naming the call as the source wrote it and
/// what to do instead; `-D NDEBUG` drops an assert and the kernel runs.
#[test]
fn device_runtime_calls_are_named() {
    let body = |line: &str| {
        format!("extern \"C\" __global__ void k(float *x) {{\n    {line}\n    x[threadIdx.x] *= 2.0f;\n}}\n")
    };
    let printf = body("printf(\"%f\\n\", x[threadIdx.x]);");
    let assert = body("assert(x[threadIdx.x] > 0.0f);");
    let malloc = body("float *p = (float *)malloc(4); p[0] = 1.0f; x[0] += p[0]; free(p);");
    let launch = |src: &str| {
        format!(
            "(kernel: \"k\", source: \"{src}\", grid: (1, 1, 1), block: (4, 1, 1), \
             buffers: [(name: \"x\", elem: F32, len: 4, init: Fill(1.5))], args: [Buffer(\"x\")])"
        )
    };
    let dir = scratch(
        "runtime",
        &[
            ("p.cu", printf.as_bytes()),
            ("a.cu", assert.as_bytes()),
            ("m.cu", malloc.as_bytes()),
            ("p.launch.ron", launch("p.cu").as_bytes()),
            ("a.launch.ron", launch("a.cu").as_bytes()),
            ("m.launch.ron", launch("m.cu").as_bytes()),
        ],
    );
    let run = |name: &str, extra: &[&str]| {
        let f = dir.join(name);
        let mut args = vec!["run", f.to_str().unwrap()];
        args.extend_from_slice(extra);
        keplersim(&args)
    };
    let (ok, _, err) = run("p.launch.ron", &[]);
    assert!(!ok, "{err}");
    assert!(
        err.contains("kernel `k` calls `vprintf` (printf), a function of CUDA's device runtime")
            && err.contains("--dump DIR"),
        "{err}"
    );
    let (ok, _, err) = run("a.launch.ron", &[]);
    assert!(
        !ok && err.contains("calls `__assertfail` (assert)") && err.contains("-D NDEBUG"),
        "{err}"
    );
    let (ok, _, err) = run("a.cu", &["-D", "NDEBUG"]);
    assert!(ok, "{err}");
    let (ok, _, err) = run("m.launch.ron", &[]);
    assert!(
        !ok && err.contains("a function of CUDA's device runtime"),
        "{err}"
    );
    assert!(!err.contains("relocation"), "{err}");
}

/// `--seed` belongs to `--order shuffled`: without it the seed changed
/// nothing, and a user comparing seeds compared one order with itself.
#[test]
fn a_seed_without_a_shuffled_order_is_refused() {
    let f = root().join("traces/kernels/loops.cubin");
    let f = f.to_str().unwrap();
    for extra in [&["--seed", "5"][..], &["--order", "reverse", "--seed", "5"]] {
        let mut args = vec!["run", f];
        args.extend_from_slice(extra);
        let (ok, _, err) = keplersim(&args);
        assert!(
            !ok && err.contains("--seed 5: the seed is --order shuffled's"),
            "{extra:?}: {err}"
        );
    }
    let (ok, out, err) = keplersim(&["run", f, "--order", "shuffled", "--seed", "5"]);
    assert!(ok && out.contains("PASS"), "{err}");
}

/// `run` (and `profile`) on a folder says so, rather than looking for a
/// launch file named after it.
#[test]
fn a_folder_is_no_kernel() {
    let d = root().join("traces/kernels");
    for cmd in ["run", "profile"] {
        let (ok, _, err) = keplersim(&[cmd, d.to_str().unwrap()]);
        assert!(
            !ok && err.contains("kernels: a folder: name a kernel"),
            "{cmd}: {err}"
        );
        assert!(!err.contains("launch.ron"), "{cmd}: {err}");
    }
}

/// A cubin given where a launch file or a configuration belongs is named
/// as a binary file, not as a stream of invalid UTF-8.
#[test]
fn a_binary_file_where_ron_belongs_is_named() {
    let cubin = root().join("traces/kernels/loops.cubin");
    let c = cubin.to_str().unwrap();
    for (flag, what) in [
        ("--launch", "(the launch file"),
        ("--config", "(the configuration)"),
    ] {
        let (ok, _, err) = keplersim(&["run", c, flag, c]);
        assert!(
            !ok && err.contains(what) && err.contains("a binary file, where RON text belongs"),
            "{flag}: {err}"
        );
        assert!(!err.contains("UTF-8"), "{err}");
    }
}

/// A device or a folder where a file belongs (`/dev/zero` for a cubin, a
/// source, a launch file, a configuration) is refused at once with its
/// name; `/dev/zero` was read until the host's memory ran out.
#[test]
fn a_device_or_a_folder_where_a_file_belongs_is_named() {
    let cubin = root().join("traces/kernels/saxpy.cubin");
    let c = cubin.to_str().unwrap();
    let out = std::env::temp_dir().join(format!("keplersim-devzero-{}.cubin", std::process::id()));
    let o = out.to_str().unwrap();
    let tmp = std::env::temp_dir();
    let folder = tmp.to_str().unwrap();
    for args in [
        vec!["disasm", "/dev/zero"],
        vec!["check", "/dev/zero"],
        vec!["asm", "/dev/zero", "-o", o],
        vec!["run", c, "--launch", "/dev/zero"],
        vec!["run", c, "--config", "/dev/zero"],
        vec!["disasm", folder],
    ] {
        let (ok, _, err) = keplersim(&args);
        assert!(
            !ok && err.contains("not a regular file, which is what keplersim reads"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!out.exists());
}
