//! Reading and writing cubins: the ELF64 files NVIDIA's ptxas produces for one GPU.
//!
//! [`Cubin::parse`] takes the bytes of an sm_35 cubin apart into sections, symbols,
//! kernels (code words, `.nv.info` attributes, constant banks, shared and local memory
//! sizes), device functions, module-level data and relocations. It refuses cubins for
//! other architectures, and on damaged input it returns a [`CubinError`] saying what is
//! wrong and where; it never panics. [`CubinWriter`] goes the other way: from kernel
//! descriptions ([`KernelSpec`]) it lays out a cubin shaped like the ones ptxas writes,
//! which NVIDIA's cuobjdump and nvdisasm accept.
//!
//! Facts about the format (CUDA 11.8 ptxas, checked against cuobjdump and nvdisasm):
//! * `e_machine` is `EM_CUDA` (190), `EI_OSABI` 0x33, `EI_ABIVERSION` 7, `e_version` the
//!   toolkit version (0x76 = 118 for 11.8), `e_type` `ET_EXEC` (or `ET_REL` with `-c`).
//! * `e_flags` (see [`CudaFlags`]): bits 0..=7 the SM (0x23 = sm_35), bits 16..=23 the
//!   virtual (PTX `.target`) SM, 0x100 `EF_CUDA_TEXMODE_UNIFIED`, 0x200
//!   `EF_CUDA_TEXMODE_INDEPENDENT`, 0x400 `EF_CUDA_64BIT_ADDRESS`, 0x800
//!   `EF_CUDA_SW_1729687`, 0x1000 `EF_CUDA_SW_1729687_v2`. ptxas writes 0x230523.
//! * A kernel is a `STT_FUNC` symbol with `st_other` bit 0x10 (`STO_CUDA_ENTRY`) whose
//!   section is `.text.<name>`; that section's `sh_info` is `(registers << 24) | symbol`
//!   and its `sh_flags` carry the barrier count in bits 20..=26.

#![warn(missing_docs)]

pub mod nvinfo;
mod read;
mod write;

use std::fmt;

pub use nvinfo::{
    eiattr, eiattr_label, eiattr_name, AttrValue, Attribute, KernelInfo, KernelParam, ParamCbank,
    SwWorkaround, SymbolInfo,
};
pub use write::{ConstBankSpec, CubinWriter, KernelSpec, ParamSpec};

/// `e_machine` of CUDA ELF files.
pub const EM_CUDA: u16 = 190;
/// `EI_OSABI` ptxas writes (ELFOSABI_CUDA).
pub const ELFOSABI_CUDA: u8 = 0x33;
/// `EI_ABIVERSION` ptxas 11.8 writes.
pub const CUDA_ABI_VERSION: u8 = 7;
/// `e_type` of a relocatable cubin (`ptxas -c`).
pub const ET_REL: u16 = 1;
/// `e_type` of a loadable cubin (plain `ptxas`).
pub const ET_EXEC: u16 = 2;
/// The SM number keplersim runs (the low byte of `e_flags`).
pub const SM35: u32 = 35;
/// `e_version` (and `EIATTR_CUDA_API_VERSION`) of CUDA 11.8: 118.
pub const CUDA_11_8: u32 = 118;
/// Byte offset of the first kernel parameter in constant bank 0 on sm_35.
pub const SM35_PARAM_BASE: u32 = 0x140;

/// `sh_type` of an unused section header.
pub const SHT_NULL: u32 = 0;
/// `sh_type` of a section with file contents.
pub const SHT_PROGBITS: u32 = 1;
/// `sh_type` of the symbol table.
pub const SHT_SYMTAB: u32 = 2;
/// `sh_type` of a string table.
pub const SHT_STRTAB: u32 = 3;
/// `sh_type` of relocations with explicit addends.
pub const SHT_RELA: u32 = 4;
/// `sh_type` of a section with a size but no file contents (shared memory, `.nv.global`).
pub const SHT_NOBITS: u32 = 8;
/// `sh_type` of relocations without addends.
pub const SHT_REL: u32 = 9;
/// `sh_type` of `.nv.info` sections.
pub const SHT_CUDA_INFO: u32 = 0x7000_0000;
/// `sh_type` of `.nv.callgraph` (relocatable cubins).
pub const SHT_CUDA_CALLGRAPH: u32 = 0x7000_0001;
/// `sh_type` of `.nv.prototype` (relocatable cubins).
pub const SHT_CUDA_PROTOTYPE: u32 = 0x7000_0002;
/// `sh_type` of `.nv.rel.action`, the table describing the R_CUDA relocation kinds.
pub const SHT_CUDA_RELOCINFO: u32 = 0x7000_000b;
/// `sh_type` of `.nv.constant<N>` in relocatable cubins is this plus N (executables
/// use `SHT_PROGBITS`).
pub const SHT_CUDA_CONSTANT_B0: u32 = 0x7000_0064;

/// `sh_flags` bit: the section is writable.
pub const SHF_WRITE: u64 = 0x1;
/// `sh_flags` bit: the section occupies memory at run time.
pub const SHF_ALLOC: u64 = 0x2;
/// `sh_flags` bit: the section holds instructions.
pub const SHF_EXECINSTR: u64 = 0x4;
/// Shift of the barrier count inside a `.text.<kernel>` section's `sh_flags`.
pub const SHF_BARRIERS_SHIFT: u32 = 20;

/// `st_other` bit marking a kernel entry point.
pub const STO_CUDA_ENTRY: u8 = 0x10;
/// `st_info` type of a function symbol.
pub const STT_FUNC: u8 = 2;
/// `st_info` type of a data symbol.
pub const STT_OBJECT: u8 = 1;
/// `st_info` type of a section symbol.
pub const STT_SECTION: u8 = 3;

/// A cubin's `e_flags` word, with accessors for the fields ptxas packs into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CudaFlags(pub u32);

impl CudaFlags {
    /// `EF_CUDA_TEXMODE_UNIFIED`.
    pub const TEXMODE_UNIFIED: u32 = 0x100;
    /// `EF_CUDA_TEXMODE_INDEPENDENT`.
    pub const TEXMODE_INDEPENDENT: u32 = 0x200;
    /// `EF_CUDA_64BIT_ADDRESS`.
    pub const ADDRESS_64: u32 = 0x400;

    /// The flags ptxas 11.8 writes for `-arch=sm_35` from a `.target sm_35` PTX file
    /// with 64-bit addresses: 0x230523.
    pub fn sm35() -> CudaFlags {
        CudaFlags(SM35 | (SM35 << 16) | Self::TEXMODE_UNIFIED | Self::ADDRESS_64)
    }

    /// The real SM the code is for (bits 0..=7; 35 for sm_35).
    pub fn sm(self) -> u32 {
        self.0 & 0xff
    }

    /// The virtual SM of the PTX it was compiled from (bits 16..=23).
    pub fn virtual_sm(self) -> u32 {
        (self.0 >> 16) & 0xff
    }

    /// Whether `EF_CUDA_64BIT_ADDRESS` is set (pointers and the stack are 64-bit).
    pub fn address_64(self) -> bool {
        self.0 & Self::ADDRESS_64 != 0
    }

    /// Whether `EF_CUDA_TEXMODE_UNIFIED` is set.
    pub fn texmode_unified(self) -> bool {
        self.0 & Self::TEXMODE_UNIFIED != 0
    }
}

/// Everything that can be wrong with a cubin, or with a request to write one. Messages
/// are one line and say what is wrong and where; a caller adds the file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CubinError {
    /// The input has no bytes.
    #[error("empty file (0 bytes): not a cubin")]
    Empty,
    /// The first bytes are not `7f 45 4c 46`.
    #[error("not an ELF file (magic 7f 45 4c 46 expected, found {found})")]
    NotElf {
        /// The bytes found, as hex.
        found: String,
    },
    /// Fewer than 64 bytes, so not even the ELF header is complete.
    #[error("truncated ELF header: {len} bytes, 64 needed")]
    TruncatedHeader {
        /// Bytes in the input.
        len: usize,
    },
    /// `EI_CLASS` is not ELFCLASS64.
    #[error("not a 64-bit ELF file (EI_CLASS {class}, 2 expected): sm_35 cubins are ELF64")]
    NotElf64 {
        /// The class byte found.
        class: u8,
    },
    /// `EI_DATA` is not little-endian.
    #[error("not a little-endian ELF file (EI_DATA {data}, 1 expected)")]
    NotLittleEndian {
        /// The data byte found.
        data: u8,
    },
    /// `e_machine` is not EM_CUDA.
    #[error("ELF machine {machine} is not EM_CUDA (190): not a CUDA binary")]
    NotCuda {
        /// The machine found.
        machine: u16,
    },
    /// A CUDA binary for another GPU.
    #[error("this is an sm_{sm} cubin; keplersim runs sm_35 only")]
    WrongArch {
        /// The SM number from `e_flags`.
        sm: u32,
    },
    /// A table's entry size is not the one ELF64 defines.
    #[error("{what} has {found}-byte entries, {expected} expected")]
    EntrySize {
        /// Which table.
        what: String,
        /// Entry size found.
        found: u64,
        /// Entry size required.
        expected: u64,
    },
    /// A table or section extends past the end of the file.
    #[error("{what} at {offset:#x} ({size:#x} bytes) runs past the end of the file (size {file_size:#x})")]
    PastEnd {
        /// What runs past the end.
        what: String,
        /// Its file offset.
        offset: u64,
        /// Its size in bytes.
        size: u64,
        /// The file size.
        file_size: u64,
    },
    /// `e_shoff` is zero, so there are no sections to read.
    #[error("no section header table (e_shoff is 0): not a usable cubin")]
    NoSections,
    /// `e_shstrndx` names no section.
    #[error("section name string table index {index} out of range ({count} sections)")]
    ShstrndxOutOfRange {
        /// The index found.
        index: u32,
        /// Number of sections.
        count: usize,
    },
    /// A name offset points outside its string table.
    #[error("{what} name offset {offset:#x} out of range ({table} is {size:#x} bytes)")]
    NameOutOfRange {
        /// Whose name (`section 5`, `symbol 3`).
        what: String,
        /// The offset found.
        offset: u64,
        /// The string table's name.
        table: String,
        /// The string table's size.
        size: u64,
    },
    /// A name runs to the end of its string table without a NUL.
    #[error("{what} name at offset {offset:#x} in {table} has no terminating NUL")]
    UnterminatedName {
        /// Whose name.
        what: String,
        /// Where it starts.
        offset: u64,
        /// The string table's name.
        table: String,
    },
    /// A section header field refers to a section that does not exist.
    #[error("{what} refers to section {target}, but there are only {count} sections")]
    SectionOutOfRange {
        /// Which field of which section or symbol.
        what: String,
        /// The index found.
        target: u64,
        /// Number of sections.
        count: usize,
    },
    /// A relocation refers to a symbol that does not exist.
    #[error("{section}: relocation {index} refers to symbol {symbol}, but there are only {count} symbols")]
    SymbolOutOfRange {
        /// The relocation section.
        section: String,
        /// Entry number in it.
        index: usize,
        /// Symbol index found.
        symbol: u64,
        /// Number of symbols.
        count: usize,
    },
    /// A section's size is not a whole number of its units (entries, instruction words).
    #[error("{section}: size {size:#x} is not a multiple of {unit} bytes")]
    Misaligned {
        /// The section.
        section: String,
        /// Its size.
        size: u64,
        /// The unit.
        unit: u64,
    },
    /// An attribute header or value extends past the end of its `.nv.info` section.
    #[error(
        "{section}: attribute at {offset:#x} runs past the end of the section ({size:#x} bytes)"
    )]
    AttributeTruncated {
        /// The section.
        section: String,
        /// Offset of the attribute in the section.
        offset: u64,
        /// The section's size.
        size: u64,
    },
    /// An attribute's format byte is none of 1..=4.
    #[error("{section}: attribute at {offset:#x} has unknown format {format:#04x} (0x01..0x04 expected)")]
    AttributeFormat {
        /// The section.
        section: String,
        /// Offset of the attribute in the section.
        offset: u64,
        /// The format byte found.
        format: u8,
    },
    /// A known attribute's value has the wrong size for what it means.
    #[error("{section}: {attr} (attribute {index}) has {len} value bytes, {expected} expected")]
    AttributeSize {
        /// The section.
        section: String,
        /// The attribute's name.
        attr: String,
        /// Its position in the section, from 0.
        index: usize,
        /// Value bytes found.
        len: usize,
        /// What was expected.
        expected: String,
    },
    /// A kernel description handed to the writer is inconsistent.
    #[error("cannot write kernel {kernel}: {problem}")]
    InvalidKernel {
        /// The kernel's name.
        kernel: String,
        /// What is wrong.
        problem: String,
    },
    /// The writer cannot represent something (relocations, globals, huge sections).
    #[error("cannot write this cubin: {0}")]
    Unsupported(String),
}

/// A name from the file made safe for a one-line message (control characters escaped).
pub(crate) fn printable(s: &str) -> String {
    if s.chars().any(char::is_control) {
        s.escape_debug().to_string()
    } else {
        s.to_string()
    }
}

/// One section header with its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Index in the section header table.
    pub index: usize,
    /// Name from `.shstrtab` (non-UTF-8 bytes replaced).
    pub name: String,
    /// `sh_type` (`SHT_*`).
    pub kind: u32,
    /// `sh_flags` (for `.text.<kernel>` also the barrier count, bits 20..=26).
    pub flags: u64,
    /// `sh_addr` (0 in cubins).
    pub addr: u64,
    /// `sh_offset`.
    pub offset: u64,
    /// `sh_size`; for `SHT_NOBITS` the memory size, with no bytes in the file.
    pub size: u64,
    /// `sh_link`.
    pub link: u32,
    /// `sh_info` (for `.text.<kernel>`: registers << 24 | kernel symbol).
    pub info: u32,
    /// `sh_addralign`.
    pub align: u64,
    /// `sh_entsize`.
    pub entsize: u64,
    /// The file bytes; empty for `SHT_NOBITS` and `SHT_NULL`.
    pub data: Vec<u8>,
}

impl Section {
    /// Whether the section has a size but no bytes in the file.
    pub fn is_nobits(&self) -> bool {
        self.kind == SHT_NOBITS
    }

    /// A short name for `sh_type`, as cuobjdump prints it (`PROGBITS`, `CUDA_INFO`, ...).
    pub fn kind_name(&self) -> String {
        match self.kind {
            SHT_NULL => "NULL".into(),
            SHT_PROGBITS => "PROGBITS".into(),
            SHT_SYMTAB => "SYMTAB".into(),
            SHT_STRTAB => "STRTAB".into(),
            SHT_RELA => "RELA".into(),
            SHT_NOBITS => "NOBITS".into(),
            SHT_REL => "REL".into(),
            SHT_CUDA_INFO => "CUDA_INFO".into(),
            SHT_CUDA_CALLGRAPH => "CUDA_CALLGRAPH".into(),
            SHT_CUDA_PROTOTYPE => "CUDA_PROTOTYPE".into(),
            SHT_CUDA_RELOCINFO => "CUDA_RELOCINFO".into(),
            k if (SHT_CUDA_CONSTANT_B0..SHT_CUDA_CONSTANT_B0 + 18).contains(&k) => {
                format!("CUDA_CONSTANT_B{}", k - SHT_CUDA_CONSTANT_B0)
            }
            k => format!("{k:#x}"),
        }
    }
}

/// One program header (ptxas writes a PHDR, LOADs for code/constants and for
/// NOBITS data, and a trailing LOAD over the program headers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    /// `p_type` (1 LOAD, 6 PHDR).
    pub kind: u32,
    /// `p_flags` (1 X, 2 W, 4 R).
    pub flags: u32,
    /// `p_offset`.
    pub offset: u64,
    /// `p_vaddr`.
    pub vaddr: u64,
    /// `p_paddr`.
    pub paddr: u64,
    /// `p_filesz`.
    pub filesz: u64,
    /// `p_memsz`.
    pub memsz: u64,
    /// `p_align`.
    pub align: u64,
}

/// One `.symtab` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// Index in the symbol table (what `.nv.info` and relocations refer to).
    pub index: usize,
    /// Name from `.strtab`.
    pub name: String,
    /// `st_value`: offset within its section (functions inside a kernel's text).
    pub value: u64,
    /// `st_size`: bytes.
    pub size: u64,
    /// `st_info`: binding << 4 | type.
    pub info: u8,
    /// `st_other`: visibility, and [`STO_CUDA_ENTRY`] for kernels.
    pub other: u8,
    /// `st_shndx`: the section it lies in (0 = undefined).
    pub shndx: u16,
}

impl Symbol {
    /// `STT_*` type (low four bits of `st_info`).
    pub fn kind(&self) -> u8 {
        self.info & 0xf
    }

    /// `STB_*` binding (high four bits of `st_info`: 0 local, 1 global, 2 weak).
    pub fn binding(&self) -> u8 {
        self.info >> 4
    }

    /// Whether this is a kernel entry point (a function marked `STO_CUDA_ENTRY`).
    pub fn is_entry(&self) -> bool {
        self.kind() == STT_FUNC && self.other & STO_CUDA_ENTRY != 0
    }
}

/// A constant bank section, `.nv.constant<N>` or `.nv.constant<N>.<owner>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstBank {
    /// The bank number N (0 = kernel parameters and driver values, 2 = compiler
    /// constants, 3 = module `.const` data on sm_35).
    pub bank: u32,
    /// Section index.
    pub section: usize,
    /// Section name.
    pub name: String,
    /// The kernel or function after the bank number, if any.
    pub owner: Option<String>,
    /// Bytes the bank occupies.
    pub size: u64,
    /// Initial contents; `None` when the section is `SHT_NOBITS` (size only).
    pub data: Option<Vec<u8>>,
}

/// A module-level data section (`.nv.global`, `.nv.global.init`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataSection {
    /// Section index.
    pub section: usize,
    /// Section name.
    pub name: String,
    /// Bytes it occupies.
    pub size: u64,
    /// Initial contents; `None` when the section is `SHT_NOBITS` (zero-filled).
    pub data: Option<Vec<u8>>,
}

/// One relocation entry from a `.rel.*` or `.rela.*` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relocation {
    /// Index of the relocation section.
    pub section: usize,
    /// Index of the section it patches (the relocation section's `sh_info`).
    pub target: usize,
    /// Byte offset of the patched place within the target section.
    pub offset: u64,
    /// Symbol index whose address is patched in.
    pub symbol: u32,
    /// That symbol's name (empty for symbol 0).
    pub symbol_name: String,
    /// `R_CUDA_*` type number (see [`reloc_name`]).
    pub kind: u32,
    /// The addend of a `.rela` entry; `None` for `.rel`.
    pub addend: Option<i64>,
}

impl Relocation {
    /// The `R_CUDA_*` name of this relocation's type, as cuobjdump prints it.
    pub fn kind_name(&self) -> Option<&'static str> {
        reloc_name(self.kind)
    }
}

/// `R_CUDA_*` names of relocation types 0..=101 (0 has none), read off CUDA 11.8's
/// cuobjdump.
const RELOC_NAMES: [&str; 102] = [
    "",
    "R_CUDA_32",
    "R_CUDA_64",
    "R_CUDA_G32",
    "R_CUDA_G64",
    "R_CUDA_ABS32_26",
    "R_CUDA_TEX_HEADER_INDEX",
    "R_CUDA_SAMP_HEADER_INDEX",
    "R_CUDA_SURF_HW_DESC",
    "R_CUDA_SURF_HW_SW_DESC",
    "R_CUDA_ABS32_LO_26",
    "R_CUDA_ABS32_HI_26",
    "R_CUDA_ABS32_23",
    "R_CUDA_ABS32_LO_23",
    "R_CUDA_ABS32_HI_23",
    "R_CUDA_ABS24_26",
    "R_CUDA_ABS24_23",
    "R_CUDA_ABS16_26",
    "R_CUDA_ABS16_23",
    "R_CUDA_TEX_SLOT",
    "R_CUDA_SAMP_SLOT",
    "R_CUDA_SURF_SLOT",
    "R_CUDA_TEX_BINDLESSOFF13_32",
    "R_CUDA_TEX_BINDLESSOFF13_47",
    "R_CUDA_CONST_FIELD19_28",
    "R_CUDA_CONST_FIELD19_23",
    "R_CUDA_TEX_SLOT9_49",
    "R_CUDA_6_31",
    "R_CUDA_2_47",
    "R_CUDA_TEX_BINDLESSOFF13_41",
    "R_CUDA_TEX_BINDLESSOFF13_45",
    "R_CUDA_FUNC_DESC32_23",
    "R_CUDA_FUNC_DESC32_LO_23",
    "R_CUDA_FUNC_DESC32_HI_23",
    "R_CUDA_FUNC_DESC_32",
    "R_CUDA_FUNC_DESC_64",
    "R_CUDA_CONST_FIELD21_26",
    "R_CUDA_QUERY_DESC21_37",
    "R_CUDA_CONST_FIELD19_26",
    "R_CUDA_CONST_FIELD21_23",
    "R_CUDA_PCREL_IMM24_26",
    "R_CUDA_PCREL_IMM24_23",
    "R_CUDA_ABS32_20",
    "R_CUDA_ABS32_LO_20",
    "R_CUDA_ABS32_HI_20",
    "R_CUDA_ABS24_20",
    "R_CUDA_ABS16_20",
    "R_CUDA_FUNC_DESC32_20",
    "R_CUDA_FUNC_DESC32_LO_20",
    "R_CUDA_FUNC_DESC32_HI_20",
    "R_CUDA_CONST_FIELD19_20",
    "R_CUDA_BINDLESSOFF13_36",
    "R_CUDA_SURF_HEADER_INDEX",
    "R_CUDA_INSTRUCTION64",
    "R_CUDA_CONST_FIELD21_20",
    "R_CUDA_ABS32_32",
    "R_CUDA_ABS32_LO_32",
    "R_CUDA_ABS32_HI_32",
    "R_CUDA_ABS47_34",
    "R_CUDA_ABS16_32",
    "R_CUDA_ABS24_32",
    "R_CUDA_FUNC_DESC32_32",
    "R_CUDA_FUNC_DESC32_LO_32",
    "R_CUDA_FUNC_DESC32_HI_32",
    "R_CUDA_CONST_FIELD19_40",
    "R_CUDA_BINDLESSOFF14_40",
    "R_CUDA_CONST_FIELD21_38",
    "R_CUDA_INSTRUCTION128",
    "R_CUDA_YIELD_OPCODE9_0",
    "R_CUDA_YIELD_CLEAR_PRED4_87",
    "R_CUDA_32_LO",
    "R_CUDA_32_HI",
    "R_CUDA_UNUSED_CLEAR32",
    "R_CUDA_UNUSED_CLEAR64",
    "R_CUDA_ABS24_40",
    "R_CUDA_ABS55_16_34",
    "R_CUDA_8_0",
    "R_CUDA_8_8",
    "R_CUDA_8_16",
    "R_CUDA_8_24",
    "R_CUDA_8_32",
    "R_CUDA_8_40",
    "R_CUDA_8_48",
    "R_CUDA_8_56",
    "R_CUDA_G8_0",
    "R_CUDA_G8_8",
    "R_CUDA_G8_16",
    "R_CUDA_G8_24",
    "R_CUDA_G8_32",
    "R_CUDA_G8_40",
    "R_CUDA_G8_48",
    "R_CUDA_G8_56",
    "R_CUDA_FUNC_DESC_8_0",
    "R_CUDA_FUNC_DESC_8_8",
    "R_CUDA_FUNC_DESC_8_16",
    "R_CUDA_FUNC_DESC_8_24",
    "R_CUDA_FUNC_DESC_8_32",
    "R_CUDA_FUNC_DESC_8_40",
    "R_CUDA_FUNC_DESC_8_48",
    "R_CUDA_FUNC_DESC_8_56",
    "R_CUDA_ABS20_44",
    "R_CUDA_SAMP_HEADER_INDEX_0",
];

/// The `R_CUDA_*` name of a relocation type number, `None` for 0 and unknown numbers.
/// sm_35 code uses mostly the `_23` forms (e.g. 13 `R_CUDA_ABS32_LO_23`,
/// 14 `R_CUDA_ABS32_HI_23`, 25 `R_CUDA_CONST_FIELD19_23`).
pub fn reloc_name(kind: u32) -> Option<&'static str> {
    match RELOC_NAMES.get(kind as usize) {
        Some(n) if !n.is_empty() => Some(n),
        _ => None,
    }
}

/// One kernel: an entry-point symbol, its `.text.<name>` code and everything the cubin
/// says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// The kernel's (mangled) name.
    pub name: String,
    /// Symbol-table index of the entry symbol.
    pub symbol: u32,
    /// Index of the `.text.<name>` section.
    pub text_section: usize,
    /// The whole text section as little-endian 64-bit words (sm_35: a control word,
    /// then seven instructions, repeated), including device functions ptxas placed in it.
    pub code: Vec<u64>,
    /// Registers per thread: EIATTR_REGCOUNT, else the text section's `sh_info >> 24`.
    pub registers: u32,
    /// Barriers the kernel uses (text section `sh_flags` bits 20..=26).
    pub barriers: u32,
    /// EIATTR_FRAME_SIZE: bytes of per-thread local memory frame (0 when absent).
    pub frame_size: u32,
    /// EIATTR_MIN_STACK_SIZE (0 when absent).
    pub min_stack_size: u32,
    /// EIATTR_MAX_STACK_SIZE (0 when absent).
    pub max_stack_size: u32,
    /// Bytes of static shared memory (`.nv.shared.<name>` size; 0 when absent).
    pub shared_size: u64,
    /// Bytes of `.nv.local.<name>`, when a cubin has one (0 when absent).
    pub local_size: u64,
    /// Constant banks owned by this kernel (`.nv.constant<N>.<name>`), bank 0 included.
    pub const_banks: Vec<ConstBank>,
    /// Index of the `.nv.info.<name>` section, if there is one.
    pub info_section: Option<usize>,
    /// Every attribute of `.nv.info.<name>`, in file order.
    pub attributes: Vec<Attribute>,
    /// The typed view of [`Self::attributes`].
    pub info: KernelInfo,
}

impl Kernel {
    /// The constant bank with number `bank` owned by this kernel.
    pub fn const_bank(&self, bank: u32) -> Option<&ConstBank> {
        self.const_banks.iter().find(|b| b.bank == bank)
    }

    /// Kernel parameters (ordinal, offset, size, ...), sorted by ordinal.
    pub fn params(&self) -> &[KernelParam] {
        &self.info.params
    }

    /// The code as bytes, as they are in the file.
    pub fn code_bytes(&self) -> Vec<u8> {
        self.code.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// A non-entry function with a text section of its own (relocatable cubins keep device
/// functions separate; executables copy them into each caller's `.text`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFunction {
    /// The function's name.
    pub name: String,
    /// Symbol-table index.
    pub symbol: u32,
    /// Index of its `.text.<name>` section.
    pub text_section: usize,
    /// The section's code as 64-bit words.
    pub code: Vec<u64>,
    /// The symbol-keyed values from the global `.nv.info`.
    pub symbol_info: SymbolInfo,
    /// Attributes of `.nv.info.<name>`, if present.
    pub attributes: Vec<Attribute>,
}

/// A parsed sm_35 cubin. Fields are public so tools can inspect anything; the derived
/// views (kernels, banks, relocations) point back into `sections` by index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    /// `e_type`: [`ET_EXEC`] or [`ET_REL`].
    pub elf_type: u16,
    /// `EI_OSABI` (0x33 from ptxas).
    pub os_abi: u8,
    /// `EI_ABIVERSION` (7 from ptxas 11.8).
    pub abi_version: u8,
    /// `e_version`: the toolkit version, 118 for CUDA 11.8.
    pub toolkit_version: u32,
    /// `e_flags`.
    pub flags: CudaFlags,
    /// All section headers with contents, index 0 being the null section.
    pub sections: Vec<Section>,
    /// Program headers (empty for relocatable cubins).
    pub segments: Vec<Segment>,
    /// All symbols, index 0 being the null symbol.
    pub symbols: Vec<Symbol>,
    /// Attributes of the global `.nv.info` section, in file order.
    pub global_attributes: Vec<Attribute>,
    /// Kernels in section order.
    pub kernels: Vec<Kernel>,
    /// Device functions with their own text sections.
    pub functions: Vec<DeviceFunction>,
    /// Constant banks not owned by a kernel (`.nv.constant3`, or a device function's).
    pub const_banks: Vec<ConstBank>,
    /// `.nv.global` (zero-initialised module variables), if present.
    pub global: Option<DataSection>,
    /// `.nv.global.init` (initialised module variables), if present.
    pub global_init: Option<DataSection>,
    /// Every entry of every `.rel.*` / `.rela.*` section.
    pub relocations: Vec<Relocation>,
}

impl Cubin {
    /// Parses the bytes of a cubin for sm_35. Every offset and size is checked against
    /// the input; damaged or foreign input gives an error, never a panic.
    pub fn parse(bytes: &[u8]) -> Result<Cubin, CubinError> {
        read::parse(bytes)
    }

    /// The kernel whose entry symbol is `name` (the name as in the file, so mangled
    /// for C++ kernels).
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// The section with exactly this name, e.g. `.nv.constant0.saxpy`; the first one
    /// if several share it.
    pub fn section(&self, name: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// REGCOUNT, FRAME_SIZE and MIN/MAX_STACK_SIZE that the global `.nv.info` records
    /// for symbol index `symbol` (all `None` if it records none, or is malformed).
    pub fn symbol_info(&self, symbol: u32) -> SymbolInfo {
        nvinfo::symbol_infos(".nv.info", &self.global_attributes)
            .ok()
            .and_then(|v| v.into_iter().find(|(s, _)| *s == symbol).map(|(_, i)| i))
            .unwrap_or_default()
    }

    /// Writes the kernels back as a fresh cubin with [`CubinWriter`]. Fails for what the
    /// writer cannot carry over: relocations, module globals, relocatable cubins.
    pub fn to_bytes(&self) -> Result<Vec<u8>, CubinError> {
        CubinWriter::from_cubin(self)?.to_bytes()
    }
}

impl fmt::Display for Cubin {
    /// A readable summary: header, sections, kernels with decoded attributes, banks,
    /// module data and relocations.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.elf_type {
            ET_EXEC => "ET_EXEC",
            ET_REL => "ET_REL",
            _ => "unknown type",
        };
        writeln!(
            f,
            "sm_{} cubin (virtual sm_{}{}), {kind}, toolkit {}, flags {:#x}",
            self.flags.sm(),
            self.flags.virtual_sm(),
            if self.flags.address_64() {
                ", 64-bit addresses"
            } else {
                ""
            },
            self.toolkit_version,
            self.flags.0
        )?;
        writeln!(f, "sections:")?;
        for s in self.sections.iter().skip(1) {
            writeln!(
                f,
                "  [{:2}] {:<32} {:<16} off {:#07x} size {:#07x} flags {:#x} link {} info {:#x}",
                s.index,
                printable(&s.name),
                s.kind_name(),
                s.offset,
                s.size,
                s.flags,
                s.link,
                s.info
            )?;
        }
        if !self.global_attributes.is_empty() {
            writeln!(f, ".nv.info:")?;
            for a in &self.global_attributes {
                writeln!(f, "  {a}")?;
            }
        }
        for k in &self.kernels {
            writeln!(
                f,
                "kernel {}: {} words, {} registers, {} barriers, shared {:#x}, frame {:#x}, params {}",
                printable(&k.name),
                k.code.len(),
                k.registers,
                k.barriers,
                k.shared_size,
                k.frame_size,
                k.info
                    .params
                    .iter()
                    .map(|p| format!("{}@{:#x}:{}", p.ordinal, p.offset, p.size))
                    .collect::<Vec<_>>()
                    .join(" ")
            )?;
            for a in &k.attributes {
                writeln!(f, "  {a}")?;
            }
            for b in &k.const_banks {
                writeln!(f, "  constant bank {}: {:#x} bytes", b.bank, b.size)?;
            }
        }
        for func in &self.functions {
            writeln!(
                f,
                "function {}: {} words",
                printable(&func.name),
                func.code.len()
            )?;
        }
        for b in &self.const_banks {
            writeln!(
                f,
                "{}: constant bank {}, {:#x} bytes",
                printable(&b.name),
                b.bank,
                b.size
            )?;
        }
        for d in self.global_init.iter().chain(self.global.iter()) {
            writeln!(f, "{}: {:#x} bytes", d.name, d.size)?;
        }
        for r in &self.relocations {
            writeln!(
                f,
                "reloc {} +{:#x} {} {}",
                self.sections
                    .get(r.target)
                    .map(|s| printable(&s.name))
                    .unwrap_or_default(),
                r.offset,
                printable(&r.symbol_name),
                r.kind_name()
                    .map(str::to_string)
                    .unwrap_or_else(|| format!("type {}", r.kind))
            )?;
        }
        Ok(())
    }
}
