//! End-to-end: `keplersim asm`. A listing of every fixture cubin assembles back
//! to the same instruction words; a hand-written source (labels, aliases, control
//! annotations) becomes a cubin that NVIDIA's cuobjdump reads and lists exactly
//! as `keplersim disasm` does; bad sources fail with one line naming file and line.

mod common;

use std::path::{Path, PathBuf};

use common::{cuobjdump, keplersim, root};

use sim_isa::cubin::Cubin;

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("keplersim-asm-test-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Every function's code, by name.
fn code_of(file: &Path) -> Vec<(String, Vec<u64>)> {
    let c = Cubin::parse(&std::fs::read(file).unwrap()).unwrap();
    let mut v: Vec<(String, Vec<u64>)> = c
        .kernels
        .iter()
        .map(|k| (k.name.clone(), k.code.clone()))
        .chain(c.functions.iter().map(|f| (f.name.clone(), f.code.clone())))
        .collect();
    v.sort();
    v
}

#[test]
fn fixture_listings_reassemble_bit_for_bit() {
    for name in [
        "saxpy",
        "shared_reverse",
        "two_entries",
        "two_entries_rel",
        "local_array",
        "globals",
    ] {
        let f = root().join(format!("traces/cubin-fixtures/{name}.cubin"));
        let (ok, listing, err) = keplersim(&["disasm", f.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        let src = scratch(&format!("{name}.sass"));
        std::fs::write(&src, &listing).unwrap();
        let out = scratch(&format!("{name}.cubin"));
        let (ok, _, err) = keplersim(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        assert_eq!(code_of(&out), code_of(&f), "{name}");
        // NVIDIA's own tool reads the new cubin and lists the same code.
        let ours = cuobjdump(&out);
        for line in listing.lines().filter(|l| l.contains("/*0")) {
            assert!(ours.contains(line), "{name}: cuobjdump lacks `{line}`");
        }
    }
}

#[test]
fn hand_written_source_makes_a_cubin_cuobjdump_lists_like_we_do() {
    let src = root().join("traces/asm/saxpy.sass");
    let out = scratch("saxpy_hand.cubin");
    let (ok, _, err) = keplersim(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    let (ok, ours, err) = keplersim(&["disasm", out.to_str().unwrap()]);
    assert!(ok, "{err}");
    assert_eq!(ours, cuobjdump(&out));
    // Labels became branch targets, aliases registers, annotations control fields.
    assert!(ours.contains("@P0 BRA 0x90;"), "{ours}");
    assert!(
        ours.contains("/*0098*/                   BRA 0x98;"),
        "{ours}"
    );
    assert!(ours.contains("LD.E R4, [R4];"), "{ours}");
    let (_, ctl, _) = keplersim(&["disasm", "--control", out.to_str().unwrap()]);
    assert!(
        ctl.contains(
            "[0:0:1:1:00 0:0:1:0:03 0:0:1:0:08 0:0:1:0:08 0:0:1:0:0c 0:0:1:0:0f 0:0:1:0:00]"
        ),
        "{ctl}"
    );
    let c = Cubin::parse(&std::fs::read(&out).unwrap()).unwrap();
    let k = &c.kernels[0];
    assert_eq!(k.name, "saxpy_hand");
    assert_eq!(
        k.params()
            .iter()
            .map(|p| (p.offset, p.size))
            .collect::<Vec<_>>(),
        vec![(0, 4), (8, 8), (16, 8)]
    );
}

#[test]
fn bad_sources_fail_with_file_and_line() {
    let cases = [
        (".kernel k\n  FFMA R0, R1;\n", ":2:", "FFMA"),
        (".kernel k\n  EXIT;\n  .registers 999\n", ":3:", "255"),
        ("  EXIT;\n", ":1:", "kernel"),
        ("", "", "no kernel"),
    ];
    for (i, (text, at, what)) in cases.iter().enumerate() {
        let src = scratch(&format!("bad{i}.sass"));
        std::fs::write(&src, text).unwrap();
        let out = scratch(&format!("bad{i}.cubin"));
        let (ok, _, err) = keplersim(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(!ok, "{text}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(&format!("bad{i}.sass{at}")), "{err}");
        assert!(err.contains(what), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    let (ok, _, err) = keplersim(&["asm", "/nonexistent.sass", "-o", "/tmp/x.cubin"]);
    assert!(!ok && err.contains("/nonexistent.sass"), "{err}");
}

#[test]
fn listings_with_directives_rebuild_the_whole_kernel() {
    for name in [
        "saxpy",
        "shared_reverse",
        "two_entries",
        "local_array",
        "globals",
    ] {
        let f = root().join(format!("traces/cubin-fixtures/{name}.cubin"));
        let (ok, listing, err) = keplersim(&["disasm", "--directives", f.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        assert!(listing.contains("\t.registers "), "{listing}");
        let src = scratch(&format!("{name}-dir.sass"));
        std::fs::write(&src, &listing).unwrap();
        let out = scratch(&format!("{name}-dir.cubin"));
        let (ok, _, err) = keplersim(&["asm", src.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        assert!(ok, "{name}: {err}");
        let a = Cubin::parse(&std::fs::read(&f).unwrap()).unwrap();
        let b = Cubin::parse(&std::fs::read(&out).unwrap()).unwrap();
        for ka in &a.kernels {
            let kb = b
                .kernels
                .iter()
                .find(|k| k.name == ka.name)
                .expect("kernel");
            let (sa, sb) = (ka.to_spec(), kb.to_spec());
            assert_eq!(sa.code, sb.code, "{name}/{}", ka.name);
            assert_eq!(sa.registers, sb.registers, "{name}/{}", ka.name);
            assert_eq!(sa.params, sb.params, "{name}/{}", ka.name);
            assert_eq!(sa.shared_size, sb.shared_size, "{name}/{}", ka.name);
            assert_eq!(sa.max_threads, sb.max_threads, "{name}/{}", ka.name);
            assert_eq!(sa.req_ntid, sb.req_ntid, "{name}/{}", ka.name);
            assert_eq!(sa.frame_size, sb.frame_size, "{name}/{}", ka.name);
            assert_eq!(sa.barriers, sb.barriers, "{name}/{}", ka.name);
            assert_eq!(sa.exit_offsets, sb.exit_offsets, "{name}/{}", ka.name);
        }
    }
}

#[test]
fn includes_and_register_ranges() {
    // A kernel split over two files, with a range of registers, assembles to
    // the same words as the same kernel written out.
    let part = scratch("part.sass");
    std::fs::write(
        &part,
        "// included\n.rep 4\n        [0x20] FADD acc[{i}], acc[{i}], 1;\n.endr\n",
    )
    .unwrap();
    let main = scratch("main.sass");
    std::fs::write(
        &main,
        ".kernel ranges\n.alias acc R8..R11\n.include \"part.sass\"   // the body\n        [0x20] EXIT;\n",
    )
    .unwrap();
    let plain = scratch("plain.sass");
    let mut text = String::from(".kernel ranges\n");
    for r in 8..12 {
        text += &format!("        [0x20] FADD R{r}, R{r}, 1;\n");
    }
    text += "        [0x20] EXIT;\n";
    std::fs::write(&plain, text).unwrap();
    let (a, b) = (scratch("main.cubin"), scratch("plain.cubin"));
    for (src, out) in [(&main, &a), (&plain, &b)] {
        let (ok, _, err) = keplersim(&[
            "asm",
            &src.display().to_string(),
            "-o",
            &out.display().to_string(),
        ]);
        assert!(ok, "{err}");
    }
    assert_eq!(code_of(&a), code_of(&b));

    // Errors name the file and line where they are.
    let bad = scratch("bad_part.sass");
    std::fs::write(&bad, "        [0x20] FADD acc[4], acc[0], 1;\n").unwrap();
    let top = scratch("bad_main.sass");
    std::fs::write(
        &top,
        ".kernel k\n.alias acc R8..R11\n.include \"bad_part.sass\"\n",
    )
    .unwrap();
    let (ok, _, err) = keplersim(&[
        "asm",
        &top.display().to_string(),
        "-o",
        &a.display().to_string(),
    ]);
    assert!(!ok);
    assert!(
        err.contains("bad_part.sass:1:") && err.contains("`acc[4]`: past the range R8..R11"),
        "{err}"
    );
    let missing = scratch("missing.sass");
    std::fs::write(&missing, ".kernel k\n.include \"nowhere.sass\"\n").unwrap();
    let (ok, _, err) = keplersim(&[
        "asm",
        &missing.display().to_string(),
        "-o",
        &a.display().to_string(),
    ]);
    assert!(
        !ok && err.contains("nowhere.sass") && err.contains("missing.sass:2"),
        "{err}"
    );
    let cycle = scratch("cycle.sass");
    std::fs::write(&cycle, ".include \"cycle.sass\"\n").unwrap();
    let (ok, _, err) = keplersim(&[
        "asm",
        &cycle.display().to_string(),
        "-o",
        &a.display().to_string(),
    ]);
    assert!(!ok && err.contains("included from itself"), "{err}");
}

/// `asm` and `compile` refuse an output they could not write before any
/// work, in the words the other commands use.
#[test]
fn an_output_that_cannot_be_written_is_refused_first() {
    let sass = root().join("traces/asm/saxpy.sass");
    let cu = root().join("traces/kernels/saxpy.cu");
    let folder = std::env::temp_dir();
    let missing = folder.join("keplersim-no-such-folder").join("x.cubin");
    for args in [
        vec![
            "asm",
            sass.to_str().unwrap(),
            "-o",
            missing.to_str().unwrap(),
        ],
        vec![
            "compile",
            cu.to_str().unwrap(),
            "-o",
            missing.to_str().unwrap(),
        ],
    ] {
        let (ok, _, err) = keplersim(&args);
        assert!(!ok && err.contains("no folder"), "{args:?}: {err}");
    }
    let (ok, _, err) = keplersim(&[
        "asm",
        sass.to_str().unwrap(),
        "-o",
        folder.to_str().unwrap(),
    ]);
    assert!(
        !ok && err.contains("a folder, not a file to write"),
        "{err}"
    );
}
