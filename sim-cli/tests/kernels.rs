//! The kernel suite (`traces/kernels`) and `keplersim compile`: the committed
//! cubins are exactly what `scripts/build-kernels.sh` builds from the sources
//! today, each holds the instructions its kernel exists for, and compile errors
//! say what went wrong. Needs NVIDIA's tools (`bash scripts/fetch-oracle.sh`).

mod common;

use std::path::Path;
use std::process::Command;

use common::{cuobjdump, keplersim, root};

fn require_nvrtc() {
    let lib = root().join(".oracle/lib/libnvrtc.so.11.2");
    assert!(
        lib.is_file(),
        "{} is missing: run `bash scripts/fetch-oracle.sh`",
        lib.display()
    );
}

fn scratch(name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("keplersim-kernels-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn cubins(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .expect("folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".cubin"))
        .collect();
    v.sort();
    v
}

#[test]
fn suite_cubins_rebuild_bit_for_bit() {
    require_nvrtc();
    let out = scratch("rebuild");
    let st = Command::new("bash")
        .arg(root().join("scripts/build-kernels.sh"))
        .env("KEPLERSIM", env!("CARGO_BIN_EXE_keplersim"))
        .env("KERNELS_OUT", &out)
        .status()
        .expect("run build-kernels.sh");
    assert!(st.success(), "build-kernels.sh failed");
    let dir = root().join("traces/kernels");
    assert_eq!(
        cubins(&out),
        cubins(&dir),
        "the script and the committed cubins differ in names"
    );
    for name in cubins(&dir) {
        let want = std::fs::read(dir.join(&name)).expect("committed cubin");
        let got = std::fs::read(out.join(&name)).expect("rebuilt cubin");
        assert!(
            want == got,
            "traces/kernels/{name} is not what its source builds today: run `bash scripts/build-kernels.sh`"
        );
    }
    let _ = std::fs::remove_dir_all(&out);
}

/// Each cubin and the SASS mnemonics (as `cuobjdump -sass` prints them, modifiers
/// included) and special registers (`SR_...`), separated by blanks, that show it
/// exercises what it exists for.
const FEATURES: &[(&str, &str)] = &[
    ("saxpy", "FFMA LDG.E.P"),
    ("reduce", "SHFL.DOWN BAR.SYNC STS LDS FADD"),
    ("reduce_fence", "SHFL.DOWN MEMBAR.GL ATOM.E.INC LD.E.CV"),
    ("scan", "BAR.SYNC STS LDS"),
    ("transpose_padded", "BAR.SYNC STS LDS"),
    ("transpose_unpadded", "BAR.SYNC STS LDS"),
    ("histogram", "LDSLK STSCUL ATOM.E.ADD RED.E.ADD VOTE.ANY POPC"),
    ("sgemm_naive", "FFMA FMUL"),
    ("sgemm_tiled_1x1", "FFMA BAR.SYNC LDS"),
    ("sgemm_tiled_2x2", "FFMA BAR.SYNC LDS"),
    ("sgemm_tiled_4x4", "FFMA BAR.SYNC LDS"),
    ("sgemm_tiled_8x8", "FFMA BAR.SYNC LDS"),
    ("sgemm_volkov", "FFMA BAR.SYNC LDS.128"),
    ("bitonic", "BAR.SYNC FSETP.GT.AND STS LDS"),
    ("loops", "PBK BRK SSY NOP.S"),
    ("call", "CAL RET"),
    ("local_array", "LDL STL STL.128"),
    ("dmath", "DFMA DMUL DADD MUFU.RCP64H"),
    ("fmath", "MUFU.EX2 MUFU.RSQ MUFU.RCP CAL RET LDL STL"),
    (
        "widths",
        "LDC LDG.E.128.P LD.E.U8 LD.E.U16 LD.E LD.E.64 STS.U8 STS.U16 STS.64 STS.128 LDS.U8 LDS.U16 \
         LDS LDS.64 ST.E.U8 ST.E.U16 ST.E ST.E.64 ST.E.128",
    ),
    (
        "warp",
        "VOTE.ANY SHFL.IDX SHFL.UP SHFL.BFLY POPC FLO.U32 BFE.U32 BFI PRMT ISAD SHF.L.W SHF.R.W IMNMX.U32",
    ),
    (
        "special",
        "S2R SR_TID.Z SR_CTAID.Z SR_LANEID SR_CLOCKLO SR_CLOCKHI SR_VIRTID SR_VIRTCFG BAR.SYNC",
    ),
    (
        "int64",
        "IADD.X ISUB.X IMAD.U32.U32.HI.X ISETP.GE.U32.X.AND CSETP.SFT.AND SHF.R.S64 SHF.R.U64 CAL RET",
    ),
    (
        "atomics",
        "ATOM.E.CAS RED.E.ADD RED.E.ADD.U64 RED.E.ADD.F32.FTZ.RN RED.E.MIN.S32 RED.E.MAX RED.E.AND \
         RED.E.OR RED.E.XOR LDSLK LDSLK.64 STSCUL STSCUL.64",
    ),
    ("globals", "LDC ATOM.E.ADD RED.E.ADD CCTL.E.IV"),
    (
        "convert",
        "F2I.S32.F32 F2I.S32.F32.FLOOR F2I.S32.F32.CEIL F2I.S32.F32.TRUNC F2I.U32.F32 F2I.S64.F32.TRUNC \
         I2F.F32.S32 I2F.F32.S32.RZ I2F.F32.S32.RM I2F.F32.S32.RP I2F.F32.U32 F2F.F32.F64 F2F.F32.F64.RZ \
         F2F.F32.F64.RM F2F.F32.F64.RP F2I.S32.F64.TRUNC FMNMX FMUL32I.SAT F2F.F32.F32.FLOOR \
         F2F.F32.F32.CEIL F2F.F32.F32.TRUNC F2F.F32.F32.ROUND FADD.RM FADD.RP FADD.RZ FMUL.RM FMUL.RP \
         FMUL.RZ",
    ),
];

#[test]
fn suite_cubins_hold_their_features() {
    let dir = root().join("traces/kernels");
    assert_eq!(
        FEATURES.len(),
        cubins(&dir).len(),
        "a cubin without a FEATURES entry"
    );
    for (name, want) in FEATURES {
        let sass = cuobjdump(&dir.join(format!("{name}.cubin")));
        let mnemonics: Vec<&str> = sass
            .lines()
            .filter_map(|l| {
                let t = l.trim_start().strip_prefix("/*")?;
                let text = t.split_once("*/")?.1.trim_start();
                let text = if text.starts_with('@') {
                    text.split_once(' ')?.1
                } else {
                    text
                };
                text.split([' ', ';']).next()
            })
            .collect();
        for m in want.split_whitespace() {
            // Special registers are operands (of S2R); the rest are mnemonics.
            let found = if m.starts_with("SR_") {
                sass.contains(m)
            } else {
                mnemonics.contains(&m)
            };
            assert!(found, "{name}.cubin has no {m}");
        }
    }
}

#[test]
fn compile_passes_definitions() {
    require_nvrtc();
    let d = scratch("define");
    let src = d.join("k.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k(int *p) { p[threadIdx.x] = VALUE; }\n",
    )
    .unwrap();
    let cubin = d.join("k.cubin");
    let (ok, _, err) = keplersim(&[
        "compile",
        src.to_str().unwrap(),
        "-o",
        cubin.to_str().unwrap(),
        "-D",
        "VALUE=0x1234",
    ]);
    assert!(ok, "{err}");
    let sass = cuobjdump(&cubin);
    assert!(sass.contains("Function : k"), "{sass}");
    assert!(sass.contains("0x1234"), "{sass}");
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compile_errors_carry_the_log() {
    require_nvrtc();
    let d = scratch("error");
    let src = d.join("bad.cu");
    std::fs::write(
        &src,
        "extern \"C\" __global__ void k() { undeclared_name = 1; }\n",
    )
    .unwrap();
    let (ok, _, err) = keplersim(&[
        "compile",
        src.to_str().unwrap(),
        "-o",
        d.join("bad.cubin").to_str().unwrap(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("bad.cu") && err.contains("compilation failed"),
        "{err}"
    );
    assert!(
        err.contains("identifier \"undeclared_name\" is undefined"),
        "{err}"
    );
    assert!(!d.join("bad.cubin").exists());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn compile_without_nvrtc_says_how_to_install_it() {
    let d = scratch("missing");
    let src = d.join("k.cu");
    std::fs::write(&src, "extern \"C\" __global__ void k() {}\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_keplersim"))
        .args([
            "compile",
            src.to_str().unwrap(),
            "-o",
            d.join("k.cubin").to_str().unwrap(),
        ])
        .env("KEPLERSIM_ORACLE", d.join("nowhere"))
        .output()
        .expect("run keplersim");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("NVRTC 11.8 is not installed"), "{err}");
    assert!(err.contains("bash scripts/fetch-oracle.sh"), "{err}");
    let _ = std::fs::remove_dir_all(&d);
}
