//! The cubin reader: ELF64 header, section and program headers, string and symbol
//! tables, then the CUDA-specific views (kernels, `.nv.info`, constant banks, shared
//! memory, module data, relocations).
//!
//! Every read goes through bounds-checked helpers that return `None` rather than
//! slicing past the end, and every offset and size taken from the file is checked with
//! overflow-safe arithmetic before use, so no input can make the reader panic.

use super::nvinfo::{self, KernelInfo, SymbolInfo};
use super::{
    printable, ConstBank, Cubin, CubinError, CudaFlags, DataSection, DeviceFunction, Kernel,
    Relocation, Section, Segment, Symbol, EM_CUDA, SHF_BARRIERS_SHIFT, SHT_NOBITS, SHT_NULL,
    SHT_REL, SHT_RELA, SHT_STRTAB, SHT_SYMTAB, SM35, STT_FUNC,
};

const ELF_MAGIC: [u8; 4] = [0x7f, b'E', b'L', b'F'];
const EHDR_SIZE: usize = 64;
const SHDR_SIZE: u64 = 64;
const PHDR_SIZE: u64 = 56;
const SYM_SIZE: u64 = 24;
const SHN_XINDEX: u32 = 0xffff;

/// Little-endian reads that return `None` instead of going out of bounds.
fn bytes_at(data: &[u8], off: u64, len: u64) -> Option<&[u8]> {
    let start = usize::try_from(off).ok()?;
    let len = usize::try_from(len).ok()?;
    data.get(start..start.checked_add(len)?)
}

fn u16_at(data: &[u8], off: u64) -> Option<u16> {
    bytes_at(data, off, 2).map(|b| u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(data: &[u8], off: u64) -> Option<u32> {
    bytes_at(data, off, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn u64_at(data: &[u8], off: u64) -> Option<u64> {
    bytes_at(data, off, 8).map(|b| {
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        u64::from_le_bytes(a)
    })
}

fn hex_bytes(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks that `[offset, offset + size)` lies inside a file of `file_size` bytes.
fn check_range(
    what: impl Fn() -> String,
    offset: u64,
    size: u64,
    file_size: u64,
) -> Result<(), CubinError> {
    match offset.checked_add(size) {
        Some(end) if end <= file_size => Ok(()),
        _ => Err(CubinError::PastEnd {
            what: what(),
            offset,
            size,
            file_size,
        }),
    }
}

/// Reads the NUL-terminated string at `offset` of a string table.
fn string_at(
    table: &[u8],
    table_name: &str,
    offset: u64,
    what: impl Fn() -> String,
) -> Result<String, CubinError> {
    let start = usize::try_from(offset)
        .ok()
        .filter(|&s| s < table.len() || (s == 0 && table.is_empty()))
        .ok_or_else(|| CubinError::NameOutOfRange {
            what: what(),
            offset,
            table: table_name.to_string(),
            size: table.len() as u64,
        })?;
    if table.is_empty() {
        return Ok(String::new());
    }
    let rest = &table[start..];
    let end = rest
        .iter()
        .position(|&c| c == 0)
        .ok_or_else(|| CubinError::UnterminatedName {
            what: what(),
            offset,
            table: table_name.to_string(),
        })?;
    Ok(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// Header fields the rest of the reader needs.
struct Header {
    elf_type: u16,
    os_abi: u8,
    abi_version: u8,
    version: u32,
    phoff: u64,
    shoff: u64,
    flags: u32,
    phentsize: u16,
    phnum: u16,
    shentsize: u16,
    shnum: u16,
    shstrndx: u16,
}

fn read_header(bytes: &[u8]) -> Result<Header, CubinError> {
    if bytes.is_empty() {
        return Err(CubinError::Empty);
    }
    let n = bytes.len().min(4);
    if bytes[..n] != ELF_MAGIC[..n] {
        return Err(CubinError::NotElf {
            found: hex_bytes(&bytes[..n]),
        });
    }
    if bytes.len() < EHDR_SIZE {
        return Err(CubinError::TruncatedHeader { len: bytes.len() });
    }
    if bytes[4] != 2 {
        return Err(CubinError::NotElf64 { class: bytes[4] });
    }
    if bytes[5] != 1 {
        return Err(CubinError::NotLittleEndian { data: bytes[5] });
    }
    // The header is complete (64 bytes), so these reads cannot fail.
    let h16 = |o| u16_at(bytes, o).unwrap_or(0);
    let h32 = |o| u32_at(bytes, o).unwrap_or(0);
    let h64 = |o| u64_at(bytes, o).unwrap_or(0);
    let machine = h16(18);
    if machine != EM_CUDA {
        return Err(CubinError::NotCuda { machine });
    }
    let flags = h32(48);
    let sm = CudaFlags(flags).sm();
    if sm != SM35 {
        return Err(CubinError::WrongArch { sm });
    }
    Ok(Header {
        elf_type: h16(16),
        os_abi: bytes[7],
        abi_version: bytes[8],
        version: h32(20),
        phoff: h64(32),
        shoff: h64(40),
        flags,
        phentsize: h16(54),
        phnum: h16(56),
        shentsize: h16(58),
        shnum: h16(60),
        shstrndx: h16(62),
    })
}

/// Raw section header fields.
struct RawSection {
    name: u32,
    kind: u32,
    flags: u64,
    addr: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

fn read_shdr(bytes: &[u8], at: u64) -> Option<RawSection> {
    Some(RawSection {
        name: u32_at(bytes, at)?,
        kind: u32_at(bytes, at + 4)?,
        flags: u64_at(bytes, at + 8)?,
        addr: u64_at(bytes, at + 16)?,
        offset: u64_at(bytes, at + 24)?,
        size: u64_at(bytes, at + 32)?,
        link: u32_at(bytes, at + 40)?,
        info: u32_at(bytes, at + 44)?,
        align: u64_at(bytes, at + 48)?,
        entsize: u64_at(bytes, at + 56)?,
    })
}

fn read_sections(bytes: &[u8], h: &Header) -> Result<Vec<Section>, CubinError> {
    let file_size = bytes.len() as u64;
    if h.shoff == 0 {
        return Err(CubinError::NoSections);
    }
    if h.shentsize as u64 != SHDR_SIZE {
        return Err(CubinError::EntrySize {
            what: "section header table".into(),
            found: u64::from(h.shentsize),
            expected: SHDR_SIZE,
        });
    }
    // Extended numbering: with e_shnum 0, section 0's sh_size holds the count.
    let entries = if h.shnum == 0 { 1 } else { u64::from(h.shnum) };
    check_range(
        || "section header table".into(),
        h.shoff,
        entries * SHDR_SIZE,
        file_size,
    )?;
    let first = read_shdr(bytes, h.shoff).ok_or(CubinError::NoSections)?;
    let count = if h.shnum == 0 { first.size } else { entries };
    let table_size = count.saturating_mul(SHDR_SIZE);
    check_range(
        || "section header table".into(),
        h.shoff,
        table_size,
        file_size,
    )?;
    let mut raws = Vec::new();
    for i in 0..count {
        let at = h.shoff + i * SHDR_SIZE;
        let raw = read_shdr(bytes, at).ok_or(CubinError::PastEnd {
            what: "section header table".into(),
            offset: h.shoff,
            size: table_size,
            file_size,
        })?;
        raws.push(raw);
    }
    let count = raws.len();
    let shstrndx = if u32::from(h.shstrndx) == SHN_XINDEX {
        first.link
    } else {
        u32::from(h.shstrndx)
    };
    let strtab_index = shstrndx as usize;
    if shstrndx != 0 && strtab_index >= count {
        return Err(CubinError::ShstrndxOutOfRange {
            index: shstrndx,
            count,
        });
    }
    // The name table's own extent is checked before any name is read from it.
    let names: &[u8] = if shstrndx == 0 {
        &[]
    } else {
        let s = &raws[strtab_index];
        if s.kind == SHT_NOBITS {
            &[]
        } else {
            check_range(
                || format!("section {strtab_index} (the section name string table)"),
                s.offset,
                s.size,
                file_size,
            )?;
            bytes_at(bytes, s.offset, s.size).unwrap_or(&[])
        }
    };
    let mut sections = Vec::with_capacity(count);
    for (index, raw) in raws.into_iter().enumerate() {
        let name = if shstrndx == 0 {
            String::new()
        } else {
            string_at(names, ".shstrtab", u64::from(raw.name), || {
                format!("section {index}")
            })?
        };
        let has_bytes = raw.kind != SHT_NOBITS && raw.kind != SHT_NULL;
        let data = if has_bytes {
            check_range(
                || format!("section {index} ({})", printable(&name)),
                raw.offset,
                raw.size,
                file_size,
            )?;
            bytes_at(bytes, raw.offset, raw.size)
                .unwrap_or(&[])
                .to_vec()
        } else {
            Vec::new()
        };
        sections.push(Section {
            index,
            name,
            kind: raw.kind,
            flags: raw.flags,
            addr: raw.addr,
            offset: raw.offset,
            size: raw.size,
            link: raw.link,
            info: raw.info,
            align: raw.align,
            entsize: raw.entsize,
            data,
        });
    }
    Ok(sections)
}

fn read_segments(bytes: &[u8], h: &Header) -> Result<Vec<Segment>, CubinError> {
    if h.phnum == 0 || h.phoff == 0 {
        return Ok(Vec::new());
    }
    if u64::from(h.phentsize) != PHDR_SIZE {
        return Err(CubinError::EntrySize {
            what: "program header table".into(),
            found: u64::from(h.phentsize),
            expected: PHDR_SIZE,
        });
    }
    let file_size = bytes.len() as u64;
    let size = u64::from(h.phnum) * PHDR_SIZE;
    check_range(|| "program header table".into(), h.phoff, size, file_size)?;
    let mut out = Vec::with_capacity(usize::from(h.phnum));
    for i in 0..u64::from(h.phnum) {
        let at = h.phoff + i * PHDR_SIZE;
        let seg = (|| {
            Some(Segment {
                kind: u32_at(bytes, at)?,
                flags: u32_at(bytes, at + 4)?,
                offset: u64_at(bytes, at + 8)?,
                vaddr: u64_at(bytes, at + 16)?,
                paddr: u64_at(bytes, at + 24)?,
                filesz: u64_at(bytes, at + 32)?,
                memsz: u64_at(bytes, at + 40)?,
                align: u64_at(bytes, at + 48)?,
            })
        })()
        .ok_or(CubinError::PastEnd {
            what: "program header table".into(),
            offset: h.phoff,
            size,
            file_size,
        })?;
        out.push(seg);
    }
    Ok(out)
}

/// Looks up a section by index for a header field, with a clear error when absent.
fn linked(
    sections: &[Section],
    target: u64,
    what: impl Fn() -> String,
) -> Result<&Section, CubinError> {
    usize::try_from(target)
        .ok()
        .and_then(|i| sections.get(i))
        .ok_or_else(|| CubinError::SectionOutOfRange {
            what: what(),
            target,
            count: sections.len(),
        })
}

/// Checks that a table section (`what`: "symbol table", ...) holds whole
/// entries of `size` bytes, and that its header's entry size, if it gives
/// one, is that size.
fn entries(s: &Section, what: &str, size: u64) -> Result<(), CubinError> {
    let name = printable(&s.name);
    if s.entsize != 0 && s.entsize != size {
        return Err(CubinError::EntrySize {
            what: format!("{what} {name}"),
            found: s.entsize,
            expected: size,
        });
    }
    if !s.data.chunks_exact(size as usize).remainder().is_empty() {
        return Err(CubinError::Misaligned {
            section: name,
            size: s.size,
            unit: size,
        });
    }
    Ok(())
}

fn read_symbols(sections: &[Section]) -> Result<Vec<Symbol>, CubinError> {
    let Some(symtab) = sections.iter().find(|s| s.kind == SHT_SYMTAB) else {
        return Ok(Vec::new());
    };
    let name = printable(&symtab.name);
    entries(symtab, "symbol table", SYM_SIZE)?;
    let strtab = linked(sections, u64::from(symtab.link), || {
        format!("sh_link of symbol table {name}")
    })?;
    let strings: &[u8] = if strtab.kind == SHT_STRTAB {
        &strtab.data
    } else {
        &[]
    };
    let table_name = printable(&strtab.name);
    let mut out = Vec::with_capacity(symtab.data.len() / SYM_SIZE as usize);
    for (index, e) in symtab.data.chunks_exact(SYM_SIZE as usize).enumerate() {
        let name_off = u32::from_le_bytes([e[0], e[1], e[2], e[3]]);
        let name = string_at(strings, &table_name, u64::from(name_off), || {
            format!("symbol {index}")
        })?;
        out.push(Symbol {
            index,
            name,
            info: e[4],
            other: e[5],
            shndx: u16::from_le_bytes([e[6], e[7]]),
            value: u64_at(e, 8).unwrap_or(0),
            size: u64_at(e, 16).unwrap_or(0),
        });
    }
    Ok(out)
}

/// Splits `.nv.constant<N>[.<owner>]` into the bank number and owner.
fn const_bank_name(name: &str) -> Option<(u32, Option<String>)> {
    let rest = name.strip_prefix(".nv.constant")?;
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let bank = rest[..digits].parse().ok()?;
    match &rest[digits..] {
        "" => Some((bank, None)),
        r => r.strip_prefix('.').map(|o| (bank, Some(o.to_string()))),
    }
}

fn const_bank(s: &Section, bank: u32, owner: Option<String>) -> ConstBank {
    ConstBank {
        bank,
        section: s.index,
        name: s.name.clone(),
        owner,
        size: s.size,
        data: (!s.is_nobits()).then(|| s.data.clone()),
    }
}

fn data_section(s: &Section) -> DataSection {
    DataSection {
        section: s.index,
        name: s.name.clone(),
        size: s.size,
        data: (!s.is_nobits()).then(|| s.data.clone()),
    }
}

fn code_words(s: &Section) -> Result<Vec<u64>, CubinError> {
    if !s.data.chunks_exact(8).remainder().is_empty() {
        return Err(CubinError::Misaligned {
            section: printable(&s.name),
            size: s.size,
            unit: 8,
        });
    }
    Ok(s.data
        .chunks_exact(8)
        .map(|c| u64_at(c, 0).unwrap_or(0))
        .collect())
}

fn read_relocations(
    sections: &[Section],
    symbols: &[Symbol],
) -> Result<Vec<Relocation>, CubinError> {
    let mut out = Vec::new();
    for s in sections
        .iter()
        .filter(|s| s.kind == SHT_REL || s.kind == SHT_RELA)
    {
        let name = printable(&s.name);
        let expected = if s.kind == SHT_RELA { 24 } else { 16 };
        entries(s, "relocation section", expected)?;
        let target = linked(sections, u64::from(s.info), || {
            format!("sh_info of relocation section {name}")
        })?
        .index;
        for (index, e) in s.data.chunks_exact(expected as usize).enumerate() {
            let offset = u64_at(e, 0).unwrap_or(0);
            let info = u64_at(e, 8).unwrap_or(0);
            let symbol = info >> 32;
            let sym = usize::try_from(symbol).ok().and_then(|i| symbols.get(i));
            let symbol_name = match sym {
                Some(sym) => sym.name.clone(),
                None if symbol == 0 => String::new(),
                None => {
                    return Err(CubinError::SymbolOutOfRange {
                        section: name,
                        index,
                        symbol,
                        count: symbols.len(),
                    })
                }
            };
            out.push(Relocation {
                section: s.index,
                target,
                offset,
                symbol: symbol as u32,
                symbol_name,
                kind: (info & 0xffff_ffff) as u32,
                addend: (s.kind == SHT_RELA).then(|| u64_at(e, 16).unwrap_or(0) as i64),
            });
        }
    }
    Ok(out)
}

/// Parses a whole cubin (see [`Cubin::parse`]).
pub(super) fn parse(bytes: &[u8]) -> Result<Cubin, CubinError> {
    let h = read_header(bytes)?;
    let sections = read_sections(bytes, &h)?;
    let segments = read_segments(bytes, &h)?;
    let symbols = read_symbols(&sections)?;

    let global_attributes = match sections.iter().find(|s| s.name == ".nv.info") {
        Some(s) => nvinfo::parse_attributes(".nv.info", &s.data)?,
        None => Vec::new(),
    };
    let sym_infos = nvinfo::symbol_infos(".nv.info", &global_attributes)?;
    let sym_info = |index: usize| -> SymbolInfo {
        sym_infos
            .iter()
            .find(|(s, _)| *s as usize == index)
            .map(|(_, i)| *i)
            .unwrap_or_default()
    };
    let by_name = |name: &str| sections.iter().find(|s| s.name == name);

    // Kernels (entry symbols) and device functions with their own text section.
    let mut kernels = Vec::new();
    let mut functions = Vec::new();
    for sym in symbols
        .iter()
        .filter(|s| s.kind() == STT_FUNC && s.shndx != 0)
    {
        let sname = printable(&sym.name);
        let text = linked(&sections, u64::from(sym.shndx), || {
            format!("function symbol {} ({sname})", sym.index)
        })?;
        let info_name = format!(".nv.info.{}", sym.name);
        let info_section = by_name(&info_name);
        let attributes = match info_section {
            Some(s) => nvinfo::parse_attributes(&printable(&s.name), &s.data)?,
            None => Vec::new(),
        };
        if !sym.is_entry() {
            if text.name == format!(".text.{}", sym.name) {
                functions.push(DeviceFunction {
                    name: sym.name.clone(),
                    symbol: sym.index as u32,
                    text_section: text.index,
                    code: code_words(text)?,
                    symbol_info: sym_info(sym.index),
                    attributes,
                });
            }
            continue;
        }
        let info = KernelInfo::from_attributes(&printable(&info_name), &attributes)?;
        let si = sym_info(sym.index);
        let const_banks = sections
            .iter()
            .filter_map(|s| match const_bank_name(&s.name) {
                Some((bank, Some(owner))) if owner == sym.name => {
                    Some(const_bank(s, bank, Some(owner)))
                }
                _ => None,
            })
            .collect();
        kernels.push(Kernel {
            name: sym.name.clone(),
            symbol: sym.index as u32,
            text_section: text.index,
            code: code_words(text)?,
            registers: si.regcount.unwrap_or(text.info >> 24),
            barriers: ((text.flags >> SHF_BARRIERS_SHIFT) & 0x7f) as u32,
            frame_size: si.frame_size.unwrap_or(0),
            min_stack_size: si.min_stack_size.unwrap_or(0),
            max_stack_size: si.max_stack_size.unwrap_or(0),
            shared_size: by_name(&format!(".nv.shared.{}", sym.name)).map_or(0, |s| s.size),
            local_size: by_name(&format!(".nv.local.{}", sym.name)).map_or(0, |s| s.size),
            const_banks,
            info_section: info_section.map(|s| s.index),
            attributes,
            info,
        });
    }
    kernels.sort_by_key(|k| k.text_section);

    let const_banks = sections
        .iter()
        .filter_map(|s| match const_bank_name(&s.name) {
            Some((_, Some(owner))) if kernels.iter().any(|k| k.name == owner) => None,
            Some((bank, owner)) => Some(const_bank(s, bank, owner)),
            None => None,
        })
        .collect();

    let relocations = read_relocations(&sections, &symbols)?;
    Ok(Cubin {
        elf_type: h.elf_type,
        os_abi: h.os_abi,
        abi_version: h.abi_version,
        toolkit_version: h.version,
        flags: CudaFlags(h.flags),
        global: by_name(".nv.global").map(data_section),
        global_init: by_name(".nv.global.init").map(data_section),
        segments,
        symbols,
        global_attributes,
        kernels,
        functions,
        const_banks,
        relocations,
        sections,
    })
}
