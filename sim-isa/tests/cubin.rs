//! Tests of the cubin reader and writer against the ptxas-built fixtures in
//! `traces/cubin-fixtures/` (rebuilt by its `build.sh`): what each fixture parses to,
//! one clear one-line error for each kind of damaged or foreign input, no panic on
//! random damage, and writer round trips. The round trips are also checked with
//! NVIDIA's cuobjdump and nvdisasm from `.oracle/bin` or `$KEPLERSIM_ORACLE/bin`
//! (missing tools fail the test): nvdisasm's listing of the fixtures and of the
//! written cubins must match keplersim's words and texts.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use sim_isa::cubin::{
    eiattr, eiattr_name, reloc_name, AttrValue, Attribute, Cubin, CubinError, CubinWriter,
    KernelSpec, ParamSpec, ET_EXEC, ET_REL,
};
use sim_isa::decode::disassemble;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/cubin-fixtures")
}

fn fixture(name: &str) -> Vec<u8> {
    let p = fixtures().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn parse(name: &str) -> Cubin {
    Cubin::parse(&fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Parses `bytes`, expecting an error; checks the message is one non-empty line.
fn parse_err(bytes: &[u8]) -> (CubinError, String) {
    let e = Cubin::parse(bytes).expect_err("damaged input parsed");
    let msg = e.to_string();
    assert!(
        !msg.is_empty() && !msg.contains('\n'),
        "not one line: {msg:?}"
    );
    (e, msg)
}

fn set_u16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}
fn set_u32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn set_u64(b: &mut [u8], off: usize, v: u64) {
    b[off..off + 8].copy_from_slice(&v.to_le_bytes());
}
fn get_u64(b: &[u8], off: usize) -> u64 {
    u64::from_le_bytes(b[off..off + 8].try_into().unwrap())
}

const GOOD: [&str; 6] = [
    "saxpy.cubin",
    "shared_reverse.cubin",
    "two_entries.cubin",
    "local_array.cubin",
    "globals.cubin",
    "two_entries_rel.cubin",
];

#[test]
fn saxpy_kernel_and_attributes() {
    let c = parse("saxpy.cubin");
    assert_eq!(c.elf_type, ET_EXEC);
    assert_eq!(c.flags.0, 0x230523);
    assert_eq!((c.flags.sm(), c.flags.virtual_sm()), (35, 35));
    assert!(c.flags.address_64() && c.flags.texmode_unified());
    assert_eq!(c.toolkit_version, 118);
    assert_eq!(c.kernels.len(), 1);
    let k = &c.kernels[0];
    assert_eq!(k.name, "saxpy");
    assert_eq!(c.symbols[k.symbol as usize].name, "saxpy");
    assert!(c.symbols[k.symbol as usize].is_entry());
    assert_eq!(c.sections[k.text_section].name, ".text.saxpy");
    assert_eq!(k.code.len(), 24);
    assert_eq!(k.code[1], 0x64c03c00089c0006); // MOV R1, c[0x0][0x44]
    assert_eq!(k.registers, 7);
    assert_eq!(k.barriers, 0);
    assert_eq!((k.shared_size, k.frame_size), (0, 0));
    let params: Vec<(u16, u16, u16)> = k
        .params()
        .iter()
        .map(|p| (p.ordinal, p.offset, p.size))
        .collect();
    assert_eq!(params, vec![(0, 0, 4), (1, 8, 8), (2, 0x10, 8)]);
    assert!(k.params().iter().all(|p| p.cbank == 0x1f && !p.in_smem));
    let i = &k.info;
    assert_eq!(i.cuda_api_version, Some(0x76));
    let pc = i.param_cbank.unwrap();
    assert_eq!((pc.offset, pc.size), (0x140, 0x18));
    assert_eq!(c.symbols[pc.symbol as usize].name, ".nv.constant0.saxpy");
    assert_eq!(i.cbank_param_size, Some(0x18));
    assert_eq!(i.max_reg_count, Some(0xff));
    assert_eq!(i.exit_offsets, vec![0x30, 0x90]);
    assert_eq!(i.s2r_ctaid_offsets, vec![0x10]);
    assert!(!i.ctaidz_used);
    assert_eq!(i.max_threads, None);
    let cb0 = k.const_bank(0).unwrap();
    assert_eq!(cb0.size, 0x158);
    assert_eq!(cb0.data.as_deref(), Some(&[0u8; 0x158][..]));
    let names: Vec<&str> = k.attributes.iter().map(|a| a.name().unwrap()).collect();
    assert_eq!(
        names,
        [
            "EIATTR_CUDA_API_VERSION",
            "EIATTR_PARAM_CBANK",
            "EIATTR_CBANK_PARAM_SIZE",
            "EIATTR_KPARAM_INFO",
            "EIATTR_KPARAM_INFO",
            "EIATTR_KPARAM_INFO",
            "EIATTR_MAXREG_COUNT",
            "EIATTR_S2RCTAID_INSTR_OFFSETS",
            "EIATTR_EXIT_INSTR_OFFSETS",
        ]
    );
    let global: Vec<&str> = c
        .global_attributes
        .iter()
        .map(|a| a.name().unwrap())
        .collect();
    assert_eq!(
        global,
        [
            "EIATTR_REGCOUNT",
            "EIATTR_MAX_STACK_SIZE",
            "EIATTR_MIN_STACK_SIZE",
            "EIATTR_FRAME_SIZE"
        ]
    );
    assert_eq!(c.symbol_info(k.symbol).regcount, Some(7));
    assert!(c.relocations.is_empty() && c.global.is_none() && c.functions.is_empty());
    assert_eq!(c.segments.len(), 3);
    let text = c.to_string();
    assert!(
        text.contains("EIATTR_EXIT_INSTR_OFFSETS 0x30 0x90"),
        "{text}"
    );
}

#[test]
fn shared_memory_barriers_and_maxntid() {
    let c = parse("shared_reverse.cubin");
    let k = c.kernel("shared_reverse").unwrap();
    assert_eq!(k.shared_size, 1024);
    assert_eq!(k.barriers, 1);
    assert_eq!(k.registers, 6);
    assert_eq!(k.info.max_threads, Some([256, 1, 1]));
    let shared = c.section(".nv.shared.shared_reverse").unwrap();
    assert!(shared.is_nobits() && shared.data.is_empty());
}

#[test]
fn two_entries_with_inlined_device_function_copies() {
    let c = parse("two_entries.cubin");
    let names: Vec<&str> = c.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["second", "first"]);
    let second = c.kernel("second").unwrap();
    assert!(second.info.ctaidz_used);
    assert_eq!(second.info.crs_stack_size, Some(0x10));
    assert_eq!(second.params().len(), 4);
    assert_eq!(second.params()[3].size, 2);
    let b2 = second.const_bank(2).unwrap();
    assert_eq!(b2.data.as_deref(), Some(&[0, 0, 0, 0x20][..]));
    assert_eq!(b2.owner.as_deref(), Some("second"));
    // ptxas copies the called function into each kernel's text, under a local name.
    let helper = c.symbols.iter().find(|s| s.name == "$second$mix").unwrap();
    assert_eq!(helper.shndx as usize, second.text_section);
    assert_eq!((helper.value, helper.size), (0x68, 0x58));
    assert_eq!(c.symbol_info(helper.index as u32).frame_size, Some(0));
    let first = c.kernel("first").unwrap();
    assert_eq!(first.info.exit_offsets, vec![0x48]);
    assert!(!first.info.ctaidz_used);
}

#[test]
fn local_memory_frame() {
    let c = parse("local_array.cubin");
    let k = c.kernel("local_array").unwrap();
    assert_eq!(k.frame_size, 0x40);
    assert_eq!(k.min_stack_size, 0x40);
    assert_eq!(k.max_stack_size, 0);
}

#[test]
fn globals_banks_and_relocations() {
    let c = parse("globals.cubin");
    let g = c.global.as_ref().unwrap();
    assert_eq!((g.size, g.data.is_none()), (4, true));
    let init = c.global_init.as_ref().unwrap();
    let words: Vec<u8> = [1u32, 2, 3, 4]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(init.data.as_deref(), Some(&words[..]));
    assert_eq!(c.const_banks.len(), 1);
    let b3 = &c.const_banks[0];
    assert_eq!((b3.bank, b3.size, b3.owner.is_none()), (3, 0x20, true));
    assert_eq!(&b3.data.as_ref().unwrap()[..4], &10u32.to_le_bytes());
    let k = c.kernel("globals").unwrap();
    assert_eq!(k.info.int_warp_wide_offsets, vec![0x50]);
    let relocs: Vec<(u64, &str, &str)> = c
        .relocations
        .iter()
        .map(|r| (r.offset, r.symbol_name.as_str(), r.kind_name().unwrap()))
        .collect();
    assert_eq!(relocs.len(), 4);
    assert!(relocs.contains(&(0xa8, "counter", "R_CUDA_ABS32_LO_23")));
    assert!(relocs.contains(&(0x88, "counter", "R_CUDA_ABS32_HI_23")));
    assert!(c
        .relocations
        .iter()
        .all(|r| r.target == k.text_section && r.addend.is_none()));
    assert!(matches!(c.to_bytes(), Err(CubinError::Unsupported(_))));
}

#[test]
fn relocatable_cubin_with_separate_device_function() {
    let c = parse("two_entries_rel.cubin");
    assert_eq!(c.elf_type, ET_REL);
    assert_eq!(c.kernels.len(), 2);
    assert_eq!(c.functions.len(), 1);
    let f = &c.functions[0];
    assert_eq!(f.name, "mix");
    assert_eq!(f.code.len(), 8);
    assert_eq!(f.symbol_info.regcount, Some(6));
    let calls: Vec<&str> = c
        .relocations
        .iter()
        .filter(|r| r.symbol_name == "mix")
        .map(|r| r.kind_name().unwrap())
        .collect();
    assert_eq!(calls, ["R_CUDA_ABS32_23", "R_CUDA_ABS32_23"]);
    assert!(c.section(".nv.callgraph").is_some());
    assert!(c
        .const_banks
        .iter()
        .any(|b| b.owner.as_deref() == Some("mix")));
    assert!(matches!(c.to_bytes(), Err(CubinError::Unsupported(_))));
}

#[test]
fn attribute_names_and_raw_unknowns() {
    assert_eq!(eiattr_name(eiattr::REGCOUNT), Some("EIATTR_REGCOUNT"));
    assert_eq!(eiattr_name(0x04), Some("EIATTR_CTAIDZ_USED"));
    assert_eq!(eiattr_name(0x37), Some("EIATTR_CUDA_API_VERSION"));
    assert_eq!(eiattr_name(0x40), Some("EIATTR_INSTR_REG_MAP"));
    assert_eq!(eiattr_name(0x42), None);
    assert_eq!(reloc_name(75), Some("R_CUDA_ABS55_16_34"));
    assert_eq!(reloc_name(0), None);
    // An unknown id survives a parse: patch a kernel attribute's id in place.
    let mut b = fixture("saxpy.cubin");
    let c = Cubin::parse(&b).unwrap();
    let s = c.section(".nv.info.saxpy").unwrap();
    assert_eq!(&b[s.offset as usize..s.offset as usize + 2], &[0x04, 0x37]);
    b[s.offset as usize + 1] = 0x5f;
    let c = Cubin::parse(&b).unwrap();
    let a = &c.kernels[0].attributes[0];
    assert_eq!(a.id, 0x5f);
    assert_eq!(a.name(), None);
    assert_eq!(a.value, AttrValue::Blob(vec![0x76, 0, 0, 0]));
    assert_eq!(c.kernels[0].info.cuda_api_version, None);
    assert_eq!(a.to_string(), "EIATTR_0x5f 0x76");
}

#[test]
fn every_fixture_parses() {
    for f in GOOD {
        let c = parse(f);
        assert!(!c.kernels.is_empty(), "{f}");
        for k in &c.kernels {
            assert!(k.info_section.is_some(), "{f} {}", k.name);
            assert!(k.registers > 0 && k.registers <= 255);
        }
    }
}

// ----- errors -----

#[test]
fn error_empty_file() {
    let (e, msg) = parse_err(&[]);
    assert_eq!(e, CubinError::Empty);
    assert!(msg.contains("empty"), "{msg}");
}

#[test]
fn error_not_elf() {
    let (_, msg) = parse_err(b"// saxpy.ptx: not a cubin at all\n");
    assert_eq!(
        msg,
        "not an ELF file (magic 7f 45 4c 46 expected, found 2f 2f 20 73)"
    );
    let (_, msg) = parse_err(b"ab");
    assert!(msg.contains("found 61 62"), "{msg}");
}

#[test]
fn error_truncated_header() {
    let b = fixture("saxpy.cubin");
    let (_, msg) = parse_err(&b[..40]);
    assert_eq!(msg, "truncated ELF header: 40 bytes, 64 needed");
    let (_, msg) = parse_err(&b[..3]);
    assert_eq!(msg, "truncated ELF header: 3 bytes, 64 needed");
}

#[test]
fn error_truncated_in_section_table() {
    let b = fixture("saxpy.cubin");
    let shoff = get_u64(&b, 0x28) as usize;
    let cut = &b[..shoff + 3 * 64 + 10];
    let (_, msg) = parse_err(cut);
    assert!(msg.starts_with("section header table at "), "{msg}");
    assert!(msg.contains("runs past the end of the file"), "{msg}");
    assert!(msg.contains(&format!("(size {:#x})", cut.len())), "{msg}");
}

#[test]
fn error_sm52() {
    let (e, msg) = parse_err(&fixture("saxpy_sm52.cubin"));
    assert_eq!(e, CubinError::WrongArch { sm: 52 });
    assert_eq!(msg, "this is an sm_52 cubin; keplersim runs sm_35 only");
}

#[test]
fn error_sm20() {
    let mut b = fixture("saxpy.cubin");
    set_u32(&mut b, 0x30, 0x14);
    let (_, msg) = parse_err(&b);
    assert_eq!(msg, "this is an sm_20 cubin; keplersim runs sm_35 only");
}

#[test]
fn error_not_cuda_or_not_elf64() {
    let mut b = fixture("saxpy.cubin");
    set_u16(&mut b, 18, 62);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "ELF machine 62 is not EM_CUDA (190): not a CUDA binary"
    );
    let mut b = fixture("saxpy.cubin");
    b[4] = 1;
    let (_, msg) = parse_err(&b);
    assert!(msg.contains("not a 64-bit ELF file"), "{msg}");
    let mut b = fixture("saxpy.cubin");
    b[5] = 2;
    let (_, msg) = parse_err(&b);
    assert!(msg.contains("not a little-endian ELF file"), "{msg}");
}

#[test]
fn error_shoff_past_end() {
    let mut b = fixture("saxpy.cubin");
    let len = b.len() as u64;
    set_u64(&mut b, 0x28, len + 0x100);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        format!(
            "section header table at {:#x} (0x240 bytes) runs past the end of the file (size {len:#x})",
            len + 0x100
        )
    );
    set_u64(&mut b, 0x28, u64::MAX - 8);
    let (_, msg) = parse_err(&b);
    assert!(msg.contains("runs past the end of the file"), "{msg}");
}

#[test]
fn error_shstrndx_out_of_range() {
    let mut b = fixture("saxpy.cubin");
    set_u16(&mut b, 62, 77);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "section name string table index 77 out of range (9 sections)"
    );
}

#[test]
fn error_section_past_end() {
    let mut b = fixture("saxpy.cubin");
    let c = Cubin::parse(&b).unwrap();
    let s = c.section(".text.saxpy").unwrap();
    let shoff = get_u64(&b, 0x28) as usize;
    let size_field = shoff + s.index * 64 + 32;
    set_u64(&mut b, size_field, 0x10_0000);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        format!(
            "section 8 (.text.saxpy) at {:#x} (0x100000 bytes) runs past the end of the file (size {:#x})",
            s.offset,
            b.len()
        )
    );
    // An offset near u64::MAX must not overflow.
    set_u64(&mut b, size_field - 8, u64::MAX - 4);
    let (_, msg) = parse_err(&b);
    assert!(
        msg.starts_with("section 8 (.text.saxpy) at 0xfffffffffffffffb"),
        "{msg}"
    );
}

#[test]
fn error_section_name_out_of_range() {
    let mut b = fixture("saxpy.cubin");
    let shoff = get_u64(&b, 0x28) as usize;
    set_u32(&mut b, shoff + 5 * 64, 0x9999);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "section 5 name offset 0x9999 out of range (.shstrtab is 0x81 bytes)"
    );
}

#[test]
fn error_bad_attribute_format() {
    let mut b = fixture("saxpy.cubin");
    let c = Cubin::parse(&b).unwrap();
    let s = c.section(".nv.info.saxpy").unwrap();
    b[s.offset as usize + 8] = 0x05; // the second attribute (PARAM_CBANK)
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        ".nv.info.saxpy: attribute at 0x8 has unknown format 0x05 (0x01..0x04 expected)"
    );
}

#[test]
fn error_bad_attribute_size() {
    let mut b = fixture("saxpy.cubin");
    let c = Cubin::parse(&b).unwrap();
    let s = c.section(".nv.info").unwrap();
    // REGCOUNT (symbol, count) shortened to 4 value bytes, followed by 4 pad bytes
    // read as an NVAL attribute.
    let at = s.offset as usize;
    b[at + 2] = 4;
    b[at + 8..at + 12].copy_from_slice(&[1, 0, 0, 0]);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        ".nv.info: EIATTR_REGCOUNT (attribute 0) has 4 value bytes, 8 (EIFMT_SVAL) expected"
    );
    // An attribute running past its section.
    let mut b = fixture("saxpy.cubin");
    b[at + 2] = 0xff;
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        ".nv.info: attribute at 0x0 runs past the end of the section (0x30 bytes)"
    );
}

#[test]
fn error_symbol_and_code_problems() {
    let b0 = fixture("saxpy.cubin");
    let c = Cubin::parse(&b0).unwrap();
    let shoff = get_u64(&b0, 0x28) as usize;
    let symtab = c.section(".symtab").unwrap();
    // Symbol 4's name offset out of .strtab.
    let mut b = b0.clone();
    set_u32(&mut b, symtab.offset as usize + 4 * 24, 0xabcd);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "symbol 4 name offset 0xabcd out of range (.strtab is 0x8e bytes)"
    );
    // The kernel symbol in a section that does not exist.
    let mut b = b0.clone();
    set_u16(&mut b, symtab.offset as usize + 4 * 24 + 6, 200);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "function symbol 4 (saxpy) refers to section 200, but there are only 9 sections"
    );
    // A text section whose size is not whole instructions.
    let mut b = b0.clone();
    let text = c.section(".text.saxpy").unwrap();
    set_u64(&mut b, shoff + text.index * 64 + 32, text.size - 4);
    let (_, msg) = parse_err(&b);
    assert_eq!(msg, ".text.saxpy: size 0xbc is not a multiple of 8 bytes");
}

#[test]
fn error_table_entries() {
    // The symbol table and a relocation section: entry sizes other than
    // ELF64's, and sizes that are not whole entries.
    for (file, table, what, unit) in [
        ("saxpy.cubin", ".symtab", "symbol table", 24),
        (
            "globals.cubin",
            ".rel.text.globals",
            "relocation section",
            16,
        ),
    ] {
        let b0 = fixture(file);
        let c = Cubin::parse(&b0).unwrap();
        let header = get_u64(&b0, 0x28) as usize + c.section(table).unwrap().index * 64;
        let size = get_u64(&b0, header + 32);
        let mut b = b0.clone();
        set_u64(&mut b, header + 56, unit + 8);
        let (_, msg) = parse_err(&b);
        assert_eq!(
            msg,
            format!(
                "{what} {table} has {}-byte entries, {unit} expected",
                unit + 8
            )
        );
        let mut b = b0.clone();
        set_u64(&mut b, header + 32, size - 4);
        let (_, msg) = parse_err(&b);
        assert_eq!(
            msg,
            format!(
                "{table}: size {:#x} is not a multiple of {unit} bytes",
                size - 4
            )
        );
    }
}

#[test]
fn error_names_symbols_and_no_sections() {
    let b0 = fixture("saxpy.cubin");
    let c = Cubin::parse(&b0).unwrap();
    // No section header table at all.
    let mut b = b0.clone();
    set_u64(&mut b, 0x28, 0);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        "no section header table (e_shoff is 0): not a usable cubin"
    );
    // Symbol 1's name moved onto the last byte of .strtab, which is no
    // longer a NUL.
    let strtab = c.section(".strtab").unwrap();
    let symtab = c.section(".symtab").unwrap();
    let last = strtab.size - 1;
    let mut b = b0.clone();
    b[(strtab.offset + last) as usize] = b'x';
    set_u32(&mut b, symtab.offset as usize + 24, last as u32);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        format!("symbol 1 name at offset {last:#x} in .strtab has no terminating NUL")
    );
    // A relocation naming a symbol past the table (r_info's high word).
    let b0 = fixture("globals.cubin");
    let c = Cubin::parse(&b0).unwrap();
    let rel = c.section(".rel.text.globals").unwrap();
    let mut b = b0.clone();
    set_u32(&mut b, rel.offset as usize + 12, 999);
    let (_, msg) = parse_err(&b);
    assert_eq!(
        msg,
        format!(
            ".rel.text.globals: relocation 0 refers to symbol 999, but there are only {} symbols",
            c.symbols.len()
        )
    );
}

// ----- robustness -----

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn truncation_never_panics(which in 0usize..GOOD.len(), cut in 0usize..4000) {
        let b = fixture(GOOD[which]);
        let cut = cut.min(b.len());
        let _ = Cubin::parse(&b[..cut]);
    }

    #[test]
    fn byte_flips_never_panic(
        which in 0usize..GOOD.len(),
        flips in proptest::collection::vec((0usize..4000, any::<u8>()), 1..12),
    ) {
        let mut b = fixture(GOOD[which]);
        let n = b.len();
        for (at, v) in flips {
            b[at % n] ^= v | 1;
        }
        if let Ok(c) = Cubin::parse(&b) {
            let _ = c.to_string();
            let _ = c.to_bytes();
        } else if let Err(e) = Cubin::parse(&b) {
            prop_assert!(!e.to_string().contains('\n'));
        }
    }

    #[test]
    fn header_field_garbage_never_panics(
        off in 16usize..64,
        v in any::<u64>(),
    ) {
        let mut b = fixture("two_entries.cubin");
        let end = (off + 8).min(64);
        b[off..end].copy_from_slice(&v.to_le_bytes()[..end - off]);
        let _ = Cubin::parse(&b);
    }
}

// ----- writer -----

/// Kernels' code, typed values and own attributes must survive a write and re-parse.
fn assert_same_kernels(a: &Cubin, b: &Cubin) {
    assert_eq!(a.kernels.len(), b.kernels.len());
    for (x, y) in a.kernels.iter().zip(&b.kernels) {
        assert_eq!(x.name, y.name);
        assert_eq!(x.code, y.code, "{}", x.name);
        assert_eq!(x.attributes, y.attributes, "{}", x.name);
        assert_eq!(x.info, y.info, "{}", x.name);
        assert_eq!(x.registers, y.registers);
        assert_eq!(x.barriers, y.barriers);
        assert_eq!(
            (x.frame_size, x.min_stack_size, x.max_stack_size),
            (y.frame_size, y.min_stack_size, y.max_stack_size)
        );
        assert_eq!(x.shared_size, y.shared_size);
        let banks = |k: &sim_isa::cubin::Kernel| {
            let mut v: Vec<_> = k
                .const_banks
                .iter()
                .map(|b| (b.bank, b.size, b.data.clone()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(banks(x), banks(y), "{}", x.name);
        let sa = a.symbol_info(x.symbol);
        let sb = b.symbol_info(y.symbol);
        assert_eq!(sa, sb, "{}", x.name);
    }
    assert_eq!(a.flags, b.flags);
    assert_eq!(a.toolkit_version, b.toolkit_version);
}

fn oracle(tool: &str) -> Option<PathBuf> {
    // `$KEPLERSIM_ORACLE` as `sim_oracle::tools` reads it, else `.oracle`.
    let root = match std::env::var_os("KEPLERSIM_ORACLE") {
        Some(r) => PathBuf::from(r),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../.oracle"),
    };
    let p = root.join("bin").join(tool);
    // The oracle checks always run: the test command fetches the tools first.
    assert!(
        p.is_file(),
        "{} is missing: run `bash scripts/fetch-oracle.sh`",
        p.display()
    );
    Some(p)
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let p = std::env::temp_dir().join(format!("keplersim-cubin-{}-{name}", std::process::id()));
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Runs an oracle tool on bytes; returns stdout, failing on a non-zero exit or stderr
/// output.
fn run_tool(tool: &Path, args: &[&str], name: &str, bytes: &[u8]) -> String {
    let p = temp_file(name, bytes);
    let out = Command::new(tool).args(args).arg(&p).output().unwrap();
    let _ = std::fs::remove_file(&p);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "{} {args:?} {name}: {stderr}",
        tool.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The instruction lines of `cuobjdump -sass` (address comment, text, encoding).
fn sass_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("/*") || l.starts_with("Function :") || l.starts_with(".headerflags")
        })
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// One code section as `nvdisasm -c -hex` lists it.
#[derive(Default)]
struct Listed {
    /// Every word in order, control words included.
    words: Vec<u64>,
    /// The instructions: address, text (labels resolved), word.
    instructions: Vec<(u64, String, u64)>,
    /// The labels, with the addresses of the words they name.
    labels: Vec<(String, u64)>,
}

/// The code sections of `nvdisasm -c -hex` output, by section name, with the
/// branch and call targets nvdisasm prints as labels (`` BRA `(.L_x_0) ``,
/// `` CAL `($second$mix) ``) replaced by their addresses, as nvdisasm prints
/// them for raw code and keplersim always does.
fn nvdisasm_sections(out: &str) -> Vec<(String, Listed)> {
    let word_of = |s: &str| {
        let hex = s
            .trim()
            .trim_start_matches("/*")
            .trim_end_matches("*/")
            .trim();
        u64::from_str_radix(hex.trim_start_matches("0x"), 16)
            .unwrap_or_else(|e| panic!("`{hex}`: {e}"))
    };
    let mut sections: Vec<(String, Listed)> = Vec::new();
    for line in out.lines() {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix(".section") {
            let name = rest.trim().split(',').next().unwrap_or("").to_string();
            if name.starts_with(".text.") {
                sections.push((name, Listed::default()));
            }
            continue;
        }
        let Some((_, listed)) = sections.last_mut() else {
            continue;
        };
        if l.ends_with(':') && !l.starts_with("/*") {
            // A label names the next word, a control word as the case may be.
            let at = 8 * listed.words.len() as u64;
            listed
                .labels
                .push((l.trim_end_matches(':').to_string(), at));
        } else if l.starts_with("/* 0x") {
            listed.words.push(word_of(l));
        } else if let Some(rest) = l.strip_prefix("/*") {
            let (addr, rest) = rest.split_once("*/").expect("/*addr*/");
            let addr = u64::from_str_radix(addr, 16).expect("hex address");
            let (text, word) = rest.rsplit_once("/*").expect("/* encoding */");
            let word = word_of(&format!("/*{word}"));
            assert_eq!(addr, 8 * listed.words.len() as u64, "{line}");
            listed.words.push(word);
            listed
                .instructions
                .push((addr, text.trim().to_string(), word));
        }
    }
    sections
        .into_iter()
        .map(|(name, mut listed)| {
            for (_, text, _) in &mut listed.instructions {
                while let Some(at) = text.find("`(") {
                    let end = at + text[at..].find(')').expect("`(label)");
                    let label = &text[at + 2..end];
                    let addr = listed
                        .labels
                        .iter()
                        .find(|(n, _)| n == label)
                        .unwrap_or_else(|| panic!("{name}: no label {label}"))
                        .1;
                    text.replace_range(at..=end, &format!("{addr:#x}"));
                }
            }
            (name, listed)
        })
        .collect()
}

/// `nvdisasm -c -hex` on `bytes` agrees with keplersim's reading of them: it
/// lists the code sections of every kernel and device function, each word of
/// each (control words too) is the one the cubin reader gives, and each
/// instruction prints as keplersim's decoder prints it at its address.
fn nvdisasm_agrees(tool: &Path, name: &str, bytes: &[u8]) {
    let c = Cubin::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
    let out = run_tool(tool, &["-c", "-hex"], name, bytes);
    let listed = nvdisasm_sections(&out);
    let mut ours: Vec<(&str, &[u64])> = c
        .kernels
        .iter()
        .map(|k| (c.sections[k.text_section].name.as_str(), &k.code[..]))
        .chain(
            c.functions
                .iter()
                .map(|f| (c.sections[f.text_section].name.as_str(), &f.code[..])),
        )
        .collect();
    ours.sort();
    let mut theirs: Vec<&str> = listed.iter().map(|(n, _)| n.as_str()).collect();
    theirs.sort();
    let names: Vec<&str> = ours.iter().map(|o| o.0).collect();
    assert_eq!(names, theirs, "{name}: code sections");
    let mut instructions = 0;
    for (section, l) in &listed {
        let code = ours.iter().find(|o| o.0 == section).expect("listed").1;
        assert_eq!(l.words, code, "{name} {section}: words");
        for (addr, text, word) in &l.instructions {
            assert_eq!(
                code.get(*addr as usize / 8),
                Some(word),
                "{name} {section} {addr:#x}"
            );
            assert_eq!(
                disassemble(*word, *addr).as_deref(),
                Ok(text.as_str()),
                "{name} {section} {addr:#06x}: {word:#018x}"
            );
            instructions += 1;
        }
    }
    assert!(instructions > 0, "{name}: nvdisasm listed no instruction");
    println!("{name}: nvdisasm lists {instructions} instructions as keplersim reads them");
}

#[test]
fn round_trip_ptxas_fixtures() {
    let cuobjdump = oracle("cuobjdump");
    let nvdisasm = oracle("nvdisasm");
    for f in [
        "saxpy.cubin",
        "shared_reverse.cubin",
        "two_entries.cubin",
        "local_array.cubin",
    ] {
        let orig_bytes = fixture(f);
        let orig = Cubin::parse(&orig_bytes).unwrap();
        let written = orig.to_bytes().unwrap_or_else(|e| panic!("{f}: {e}"));
        let back = Cubin::parse(&written).unwrap_or_else(|e| panic!("{f} written: {e}"));
        assert_same_kernels(&orig, &back);
        // Writing what was read back gives the same bytes again.
        assert_eq!(back.to_bytes().unwrap(), written, "{f}");
        if let Some(tool) = &cuobjdump {
            let a = sass_lines(&run_tool(tool, &["-sass"], f, &orig_bytes));
            let b = sass_lines(&run_tool(tool, &["-sass"], f, &written));
            assert!(a.len() > 10, "{f}: {a:?}");
            assert_eq!(a, b, "{f}: cuobjdump -sass differs");
            // cuobjdump -elf decodes every attribute of the written file too.
            let elf = run_tool(tool, &["-elf"], f, &written);
            assert!(elf.contains("EIATTR_KPARAM_INFO") || !f.starts_with("saxpy"));
            assert!(!elf.contains("unknown Format"), "{f}");
        }
        if let Some(tool) = &nvdisasm {
            nvdisasm_agrees(tool, f, &orig_bytes);
            nvdisasm_agrees(tool, f, &written);
        }
    }
}

#[test]
fn write_from_scratch() {
    let saxpy = parse("saxpy.cubin");
    let k = &saxpy.kernels[0];
    let mut spec = KernelSpec::new("my_saxpy", k.code.clone(), 7);
    spec.params = vec![
        ParamSpec::new(0, 4),
        ParamSpec::new(8, 8),
        ParamSpec::new(16, 8),
    ];
    spec.exit_offsets = vec![0x30, 0x90];
    spec.max_threads = Some([128, 1, 1]);
    spec.shared_size = 0x200;
    spec.extra_attributes = vec![Attribute::words(eiattr::S2RCTAID_INSTR_OFFSETS, &[0x10])];
    let mut w = CubinWriter::new();
    w.add_kernel(spec.clone());
    let mut other = KernelSpec::new("tiny", vec![0x0800000000bc10c0, 0x18000000001c003c], 2);
    other.exit_offsets = vec![8];
    w.add_kernel(other);
    let bytes = w.to_bytes().unwrap();
    let c = Cubin::parse(&bytes).unwrap();
    let m = c.kernel("my_saxpy").unwrap();
    assert_eq!(m.code, k.code);
    assert_eq!(m.registers, 7);
    assert_eq!(m.shared_size, 0x200);
    assert_eq!(m.info.max_threads, Some([128, 1, 1]));
    assert_eq!(m.info.params, k.info.params);
    assert_eq!(m.info.exit_offsets, vec![0x30, 0x90]);
    assert_eq!(m.const_bank(0).unwrap().size, 0x158);
    let pc = m.info.param_cbank.unwrap();
    assert_eq!(c.symbols[pc.symbol as usize].name, ".nv.constant0.my_saxpy");
    spec.cbank0_size = Some(0x158);
    assert_eq!(m.to_spec(), spec);
    let t = c.kernel("tiny").unwrap();
    assert!(t.info.params.is_empty() && t.info.param_cbank.is_none());
    assert_eq!(t.const_bank(0).unwrap().size, 0x140);
    if let Some(tool) = oracle("cuobjdump") {
        let text = run_tool(&tool, &["-sass"], "scratch.cubin", &bytes);
        assert!(text.contains("Function : my_saxpy") && text.contains("Function : tiny"));
        assert!(text.contains("FFMA") && text.contains("EXIT"), "{text}");
    }
    if let Some(tool) = oracle("nvdisasm") {
        nvdisasm_agrees(&tool, "scratch.cubin", &bytes);
    }
}

#[test]
fn writer_rejects_bad_specs() {
    let msg = |w: &CubinWriter| {
        let e = w.to_bytes().unwrap_err().to_string();
        assert!(!e.contains('\n'));
        e
    };
    let mut w = CubinWriter::new();
    let mut k = KernelSpec::new("k", vec![0; 8], 4);
    k.exit_offsets = vec![0x40];
    w.add_kernel(k);
    assert_eq!(
        msg(&w),
        "cannot write kernel k: exit offset 0x40 is not an instruction in the code (0x40 bytes)"
    );
    let mut w = CubinWriter::new();
    w.add_kernel(KernelSpec::new("k", vec![0; 8], 300));
    assert_eq!(
        msg(&w),
        "cannot write kernel k: 300 registers, at most 255 fit"
    );
    let mut w = CubinWriter::new();
    w.add_kernel(KernelSpec::new("k", vec![0; 8], 4));
    w.add_kernel(KernelSpec::new("k", vec![0; 8], 4));
    assert_eq!(
        msg(&w),
        "cannot write kernel k: a kernel of this name is given twice"
    );
    let mut w = CubinWriter::new();
    let mut k = KernelSpec::new("k", vec![0; 8], 4);
    k.params = vec![ParamSpec::new(0, 8)];
    k.cbank0_size = Some(0x100);
    w.add_kernel(k);
    assert!(msg(&w).contains("constant bank 0 size 0x100"));
    let mut w = CubinWriter::new();
    w.flags.0 = (w.flags.0 & !0xff) | 52;
    w.add_kernel(KernelSpec::new("k", vec![0; 8], 4));
    assert_eq!(msg(&w), "this is an sm_52 cubin; keplersim runs sm_35 only");
}
