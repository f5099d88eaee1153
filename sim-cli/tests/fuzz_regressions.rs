//! The fuzz targets' bodies (`fuzz/src/lib.rs`, compiled here as a module) on
//! every input the fuzzers found a fault with (`fuzz/regressions/TARGET/*`,
//! minimised), and on a few fixed random programs: what a fuzzer once broke
//! stays fixed, in the normal test suite, without libFuzzer.

#[path = "../../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod harness;

use std::path::Path;

fn replay(target: &str, body: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fuzz/regressions")
        .join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return 0;
    };
    let mut n = 0;
    for e in entries {
        let p = e.unwrap().path();
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| body(&data));
        assert!(r.is_ok(), "{} fails again", p.display());
        n += 1;
    }
    n
}

#[test]
fn the_fuzzers_crashers_stay_fixed() {
    let n = replay("cubin", harness::cubin)
        + replay("asm", harness::asm)
        + replay("launch", harness::launch)
        + replay("config", harness::config)
        + replay("decode", harness::decode)
        + replay("program", harness::program)
        + replay("trace", harness::trace);
    println!("{n} regression inputs");
}

/// Random programs from fixed bytes: they assemble, and the functional and
/// timed models leave the same values.
#[test]
fn random_programs_agree_functional_and_timed() {
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in [8usize, 64, 200, 400] {
        for _ in 0..4 {
            let data: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            harness::program(&data);
        }
    }
}

/// What the `cubin` fuzzer found: a NOBITS section's size is a word of the
/// cubin with no bytes behind it, and the loader allocated `.nv.global`'s
/// (0x0a0a0a0a0a0a0a0a bytes) before looking, so the process died out of
/// memory. Module variables are held to the device's memory and a constant
/// bank to sm_35's 64 KiB, before any allocation, with an error that says so.
#[test]
fn absurd_nobits_sizes_in_a_cubin_are_refused_before_allocation() {
    use sim_core::mem::GlobalMem;
    use sim_core::program::Program;
    use sim_isa::cubin::Cubin;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/cubin");
    let bytes = std::fs::read(dir.join("nobits-global-of-723-petabytes.cubin")).unwrap();
    let c = Cubin::parse(&bytes).expect("parses");
    let name = c.kernels[0].name.clone();
    let e = Program::load(&c, &name, &mut GlobalMem::new()).expect_err("refused");
    assert_eq!(
        e.to_string(),
        "`.nv.global` declares 723401728380766730 bytes of module variables, past the K20m's 5368709120 bytes of device memory"
    );

    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/kernels/saxpy.cubin");
    let mut c = Cubin::parse(&std::fs::read(fixture).unwrap()).expect("parses");
    let k = c
        .kernels
        .iter_mut()
        .find(|k| k.name == "saxpy")
        .expect("saxpy");
    let bank = k
        .const_banks
        .iter_mut()
        .find(|b| b.bank == 0)
        .expect("bank 0");
    let section = bank.name.clone();
    (bank.size, bank.data) = (1 << 40, None);
    let e = Program::load(&c, "saxpy", &mut GlobalMem::new()).expect_err("refused");
    assert_eq!(
        e.to_string(),
        format!(
            "`{section}` holds 1099511627776 bytes, past sm_35's 65536 bytes of a constant bank"
        )
    );
}

/// What the `cubin` fuzzer found: a module variable's symbol value is a word of
/// the cubin, and the loader added it to its section's device address
/// unchecked, so a value near 2^64 overflowed. A variable lies inside its
/// section; one that does not is refused, naming the relocation, the symbol and
/// the section. A relocation of a constant bank at an offset near 2^64 is
/// refused too.
#[test]
fn module_variables_outside_their_section_are_refused() {
    use sim_core::mem::GlobalMem;
    use sim_core::program::Program;
    use sim_isa::cubin::Cubin;
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/kernels/globals.cubin");
    let c = Cubin::parse(&std::fs::read(&fixture).unwrap()).expect("parses");
    // The kernel suite's `globals` runs its module variables through these: the
    // low and high halves of `hits`', `pick`'s and `table`'s addresses in its
    // code, and `table`'s generic address in the pointers `cpick` (a constant
    // bank) and `pick` (a module variable).
    let mut kinds: Vec<(&str, &str)> = c
        .relocations
        .iter()
        .map(|r| (r.symbol_name.as_str(), r.kind_name().unwrap()))
        .collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            ("hits", "R_CUDA_ABS32_HI_23"),
            ("hits", "R_CUDA_ABS32_LO_23"),
            ("pick", "R_CUDA_ABS32_HI_23"),
            ("pick", "R_CUDA_ABS32_LO_23"),
            ("table", "R_CUDA_ABS32_HI_23"),
            ("table", "R_CUDA_ABS32_LO_23"),
            ("table", "R_CUDA_G64"),
            ("table", "R_CUDA_G64"),
        ]
    );
    Program::load(&c, "globals", &mut GlobalMem::new()).expect("loads");

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/regressions/cubin");
    let bytes =
        std::fs::read(dir.join("module-variable-at-offset-2-to-the-64-minus-16.cubin")).unwrap();
    let bad = Cubin::parse(&bytes).expect("parses");
    let e = Program::load(&bad, "globals", &mut GlobalMem::new()).expect_err("refused");
    assert!(
        e.to_string().starts_with("kernel `globals`: relocation R_CUDA_ABS32_")
            && e.to_string().ends_with(
                "refers to `table` at offset 0xfffffffffffffff0 of `.nv.global.init`, past its 16 bytes"
            ),
        "{e}"
    );

    // Each relocated place must lie inside its section, whole: an instruction
    // word, a constant bank, a module variable.
    let section = |i: usize| c.sections[i].name.clone();
    let text = c.kernels[0].text_section;
    let bank = c.const_banks.iter().find(|b| b.bank == 3).unwrap().section;
    let init = c.global_init.as_ref().unwrap().section;
    for (target, kind, offset, what) in [
        (bank, 2, u64::MAX - 3, "8 bytes at 0xfffffffffffffffc"),
        (text, 13, 1 << 40, "8 bytes at 0x10000000000"),
        (init, 4, 20, "8 bytes at 0x14"),
    ] {
        let mut far = c.clone();
        let r = far
            .relocations
            .iter_mut()
            .find(|r| r.target == target)
            .unwrap();
        (r.kind, r.offset) = (kind, offset);
        let e = Program::load(&far, "globals", &mut GlobalMem::new()).err();
        let e = e.map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains(&format!(
                "patches {what} of `{}`, past its",
                section(target)
            )),
            "{} at {offset:#x}: {e:?}",
            section(target)
        );
    }
}
