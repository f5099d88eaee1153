//! Launch files whose buffers start from files and whose checks compare with a
//! file, bit-exact or within ulps, on the suite's saxpy.

use sim_core::config::Chip;
use sim_core::func::BlockOrder;
use sim_core::launch;
use sim_isa::cubin::Cubin;

fn saxpy() -> Cubin {
    let bytes = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../traces/kernels/saxpy.cubin"
    ))
    .expect("cubin");
    Cubin::parse(&bytes).expect("parses")
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn buffers_from_files_and_checks_against_files() {
    let n = 256usize;
    let x: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| 1.0 - i as f32).collect();
    let want: Vec<f32> = x
        .iter()
        .zip(&y)
        .map(|(a, b)| 2.5f32.mul_add(*a, *b))
        .collect();
    let mut off_by_one = want.clone();
    off_by_one[7] = f32::from_bits(off_by_one[7].to_bits() + 1);
    let files = [
        ("x.bin", f32s(&x)),
        ("y.bin", f32s(&y)),
        ("want.bin", f32s(&want)),
        ("near.bin", f32s(&off_by_one)),
    ];
    let read = |f: &str| -> Result<Vec<u8>, String> {
        files
            .iter()
            .find(|(n, _)| *n == f)
            .map(|(_, d)| d.clone())
            .ok_or(format!("{f}: no such file"))
    };
    let text = r#"(
        kernel: "saxpy",
        vars: { "n": 256 },
        grid: ("n / 256", 1, 1),
        block: (256, 1, 1),
        buffers: [
            (name: "x", elem: F32, len: "n", init: File("x.bin")),
            (name: "y", elem: F32, len: "n", init: File("y.bin")),
        ],
        args: [I32("n"), F32(2.5), Buffer("x"), Buffer("y")],
        checks: [
            (buffer: "y", reference: File("want.bin"), compare: BitExact),
            (buffer: "y", reference: File("near.bin"), compare: BitExact),
            (buffer: "y", reference: File("near.bin"), compare: Ulp(1)),
        ],
    )"#;
    let spec = launch::parse(text).expect("parses");
    let r = launch::resolve(&spec, &[], &read).expect("resolves");
    let out = launch::execute(&saxpy(), &r, BlockOrder::Natural, &Chip::K20M, &read).expect("runs");
    assert!(out.checks[0].passed());
    assert!(!out.checks[1].passed());
    assert_eq!(out.checks[1].mismatches, 1);
    assert_eq!(out.checks[1].first.as_ref().map(|f| f.0), Some(7));
    assert!(out.checks[2].passed());
    assert_eq!(out.checks[2].max_ulp, 1);

    // A file of the wrong size is refused, naming the buffer.
    let short = |f: &str| -> Result<Vec<u8>, String> {
        if f == "x.bin" {
            Ok(vec![0; 12])
        } else {
            read(f)
        }
    };
    let e = launch::resolve(&spec, &[], &short)
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("buffer `x`") && e.contains("holds 12 bytes"),
        "{e}"
    );
}
