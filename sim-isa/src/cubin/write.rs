//! The cubin writer: lays out an sm_35 `ET_EXEC` cubin from kernel descriptions, with
//! the sections, symbols, `.nv.info` attributes and program headers ptxas 11.8 writes
//! for an equivalent kernel, so NVIDIA's cuobjdump, nvdisasm and driver accept it.
//!
//! Layout (as ptxas): ELF header; `.shstrtab`, `.strtab`, `.symtab`, `.nv.info`, one
//! `.nv.info.<k>` per kernel; module constant banks; per kernel its extra constant banks
//! then `.nv.constant0.<k>`; every `.text.<k>` (64-byte aligned); the NOBITS
//! `.nv.shared.<k>` sections; the section header table; the program headers (PHDR,
//! LOAD over constants and code, LOAD over shared memory if any, LOAD over the headers).
//! Not written: `.nv.rel.action`, relocations, `.nv.global*`, device-function symbols.

use super::nvinfo::{self, eiattr, AttrValue, Attribute, KernelParam};
use super::{
    printable, Cubin, CubinError, CudaFlags, Kernel, CUDA_11_8, CUDA_ABI_VERSION, ELFOSABI_CUDA,
    EM_CUDA, ET_EXEC, SHF_ALLOC, SHF_BARRIERS_SHIFT, SHF_EXECINSTR, SHF_WRITE, SHT_CUDA_INFO,
    SHT_NOBITS, SHT_NULL, SHT_PROGBITS, SHT_STRTAB, SHT_SYMTAB, SM35, SM35_PARAM_BASE,
    STO_CUDA_ENTRY, STT_FUNC, STT_SECTION,
};

/// Largest constant bank sm_35 has (64 KiB).
const MAX_BANK_BYTES: usize = 0x1_0000;
/// Constant banks sm_35 addresses (`c[0x0]` .. `c[0xf]`).
const BANKS: u32 = 16;

/// One kernel parameter for the writer; its ordinal is its position in
/// [`KernelSpec::params`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ParamSpec {
    /// Byte offset within the parameter area (c[0x0][0x140 + offset]).
    pub offset: u16,
    /// Bytes.
    pub size: u16,
    /// Log2 of the pointee alignment for pointer parameters (0 when unknown).
    pub pointee_log_align: u8,
    /// State space of the pointee for pointer parameters (0 when unknown).
    pub pointee_space: u8,
}

impl ParamSpec {
    /// A parameter with no pointee information, as ptxas records plain parameters.
    pub fn new(offset: u16, size: u16) -> ParamSpec {
        ParamSpec {
            offset,
            size,
            pointee_log_align: 0,
            pointee_space: 0,
        }
    }
}

/// A constant bank other than bank 0, with its initial contents.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ConstBankSpec {
    /// Bank number, 1..=15 (ptxas uses 2 for compiler constants, 3 for `.const` data).
    pub bank: u32,
    /// Contents; its length is the bank's size.
    pub data: Vec<u8>,
}

/// Everything the writer needs to know about one kernel.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelSpec {
    /// Kernel name (the entry symbol); must be non-empty, without NUL.
    pub name: String,
    /// Code as 64-bit words (control words included), written little-endian.
    pub code: Vec<u64>,
    /// Registers per thread (REGCOUNT and the text section's `sh_info`), at most 255.
    pub registers: u32,
    /// Parameters in PTX order.
    pub params: Vec<ParamSpec>,
    /// Bytes of static shared memory; 0 writes no `.nv.shared.<name>` section.
    pub shared_size: u64,
    /// Size of `.nv.constant0.<name>`; `None` means 0x140 + parameter bytes, as ptxas.
    pub cbank0_size: Option<u32>,
    /// Byte offsets of the EXIT instructions (EIATTR_EXIT_INSTR_OFFSETS).
    pub exit_offsets: Vec<u32>,
    /// `.maxntid` (EIATTR_MAX_THREADS).
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid` (EIATTR_REQNTID).
    pub req_ntid: Option<[u32; 3]>,
    /// EIATTR_MAXREG_COUNT; ptxas writes 0xff unless a limit was given.
    pub max_reg_count: u16,
    /// EIATTR_FRAME_SIZE: bytes of per-thread local memory frame.
    pub frame_size: u32,
    /// EIATTR_MIN_STACK_SIZE (ptxas: the frame size for a kernel without calls).
    pub min_stack_size: u32,
    /// EIATTR_MAX_STACK_SIZE.
    pub max_stack_size: u32,
    /// Barriers used (bits 20..=26 of the text section's `sh_flags`).
    pub barriers: u32,
    /// Kernel-owned banks other than 0 (e.g. bank 2 for compiler constants).
    pub const_banks: Vec<ConstBankSpec>,
    /// Further `.nv.info.<name>` attributes copied verbatim (S2RCTAID offsets,
    /// CTAIDZ_USED, CRS_STACK_SIZE, ...). They must not hold symbol indices, which the
    /// writer renumbers.
    pub extra_attributes: Vec<Attribute>,
}

impl KernelSpec {
    /// A kernel with no parameters, no shared memory, no frame and ptxas defaults
    /// elsewhere; set the other fields as needed.
    pub fn new(name: impl Into<String>, code: Vec<u64>, registers: u32) -> KernelSpec {
        KernelSpec {
            name: name.into(),
            code,
            registers,
            params: Vec::new(),
            shared_size: 0,
            cbank0_size: None,
            exit_offsets: Vec::new(),
            max_threads: None,
            req_ntid: None,
            max_reg_count: 0xff,
            frame_size: 0,
            min_stack_size: 0,
            max_stack_size: 0,
            barriers: 0,
            const_banks: Vec::new(),
            extra_attributes: Vec::new(),
        }
    }

    /// Bytes of the parameter area: the end of the last-ending parameter.
    pub fn param_bytes(&self) -> u32 {
        self.params
            .iter()
            .map(|p| u32::from(p.offset) + u32::from(p.size))
            .max()
            .unwrap_or(0)
    }

    /// Size `.nv.constant0.<name>` is written with.
    pub fn cbank0_bytes(&self) -> u32 {
        self.cbank0_size
            .unwrap_or(SM35_PARAM_BASE + self.param_bytes())
    }

    fn invalid(&self, problem: String) -> CubinError {
        CubinError::InvalidKernel {
            kernel: printable(&self.name),
            problem,
        }
    }

    fn validate(&self) -> Result<(), CubinError> {
        if self.name.is_empty() || self.name.contains('\0') {
            return Err(self.invalid("the name must be non-empty and contain no NUL".into()));
        }
        if self.code.is_empty() {
            return Err(self.invalid("no code".into()));
        }
        if self.registers > 255 {
            return Err(self.invalid(format!("{} registers, at most 255 fit", self.registers)));
        }
        if self.barriers > 16 {
            return Err(self.invalid(format!("{} barriers, sm_35 has 16", self.barriers)));
        }
        let code_bytes = self.code.len() as u64 * 8;
        for &e in &self.exit_offsets {
            if u64::from(e) >= code_bytes || e % 8 != 0 {
                return Err(self.invalid(format!(
                    "exit offset {e:#x} is not an instruction in the code ({code_bytes:#x} bytes)"
                )));
            }
        }
        let params = self.param_bytes();
        if params > 0x3fff {
            return Err(self.invalid(format!(
                "{params:#x} bytes of parameters, at most 0x3fff fit"
            )));
        }
        let cb0 = self.cbank0_bytes();
        if cb0 < SM35_PARAM_BASE + params || cb0 as usize > MAX_BANK_BYTES {
            return Err(self.invalid(format!(
                "constant bank 0 size {cb0:#x} must hold 0x140 + {params:#x} parameter bytes and fit in 64 KiB"
            )));
        }
        check_banks(&self.const_banks, |p| self.invalid(p))?;
        if self.shared_size > 0xc000 {
            return Err(self.invalid(format!(
                "{:#x} bytes of shared memory, sm_35 has at most 0xc000 per block",
                self.shared_size
            )));
        }
        Ok(())
    }
}

/// Checks extra constant banks: numbers 1..=15, no duplicates, at most 64 KiB each.
fn check_banks(
    banks: &[ConstBankSpec],
    err: impl Fn(String) -> CubinError,
) -> Result<(), CubinError> {
    for (i, b) in banks.iter().enumerate() {
        if b.bank == 0 || b.bank >= BANKS {
            return Err(err(format!(
                "constant bank {} is not one of 1..=15 (bank 0 is written from the parameters)",
                b.bank
            )));
        }
        if b.data.len() > MAX_BANK_BYTES {
            return Err(err(format!(
                "constant bank {} has {:#x} bytes, at most 0x10000 fit",
                b.bank,
                b.data.len()
            )));
        }
        if banks[..i].iter().any(|o| o.bank == b.bank) {
            return Err(err(format!("constant bank {} is given twice", b.bank)));
        }
    }
    Ok(())
}

/// Attribute ids the writer produces from [`KernelSpec`] fields; a kernel's other
/// attributes travel in [`KernelSpec::extra_attributes`].
const GENERATED: [u8; 8] = [
    eiattr::CUDA_API_VERSION,
    eiattr::PARAM_CBANK,
    eiattr::CBANK_PARAM_SIZE,
    eiattr::KPARAM_INFO,
    eiattr::MAXREG_COUNT,
    eiattr::EXIT_INSTR_OFFSETS,
    eiattr::MAX_THREADS,
    eiattr::REQNTID,
];

/// Extra attributes ptxas places after EIATTR_EXIT_INSTR_OFFSETS (the rest go before).
const AFTER_EXIT: [u8; 2] = [eiattr::CTAIDZ_USED, eiattr::CRS_STACK_SIZE];

impl Kernel {
    /// The writer's description of this kernel: the typed values, with every attribute
    /// the writer does not generate itself kept in `extra_attributes`.
    pub fn to_spec(&self) -> KernelSpec {
        let mut spec = KernelSpec::new(self.name.clone(), self.code.clone(), self.registers);
        spec.params = self
            .info
            .params
            .iter()
            .map(|p| ParamSpec {
                offset: p.offset,
                size: p.size,
                pointee_log_align: p.pointee_log_align,
                pointee_space: p.pointee_space,
            })
            .collect();
        spec.shared_size = self.shared_size;
        spec.cbank0_size = self
            .const_bank(0)
            .map(|b| u32::try_from(b.size).unwrap_or(u32::MAX));
        spec.exit_offsets = self.info.exit_offsets.clone();
        spec.max_threads = self.info.max_threads;
        spec.req_ntid = self.info.req_ntid;
        spec.max_reg_count = self.info.max_reg_count.unwrap_or(0xff);
        spec.frame_size = self.frame_size;
        spec.min_stack_size = self.min_stack_size;
        spec.max_stack_size = self.max_stack_size;
        spec.barriers = self.barriers;
        spec.const_banks = self
            .const_banks
            .iter()
            .filter(|b| b.bank != 0)
            .map(|b| ConstBankSpec {
                bank: b.bank,
                data: match &b.data {
                    Some(d) => d.clone(),
                    None => vec![0; (b.size as usize).min(MAX_BANK_BYTES + 1)],
                },
            })
            .collect();
        spec.extra_attributes = self
            .attributes
            .iter()
            .filter(|a| !GENERATED.contains(&a.id))
            .cloned()
            .collect();
        spec
    }
}

/// Builds a cubin from kernel descriptions. Fields are public; [`CubinWriter::new`]
/// gives the values ptxas 11.8 writes for sm_35.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CubinWriter {
    /// Kernels, written in this order.
    pub kernels: Vec<KernelSpec>,
    /// Module-level constant banks (`.nv.constant<N>`, e.g. 3 for `.const` data).
    pub const_banks: Vec<ConstBankSpec>,
    /// `e_version` and EIATTR_CUDA_API_VERSION (118 = CUDA 11.8).
    pub toolkit_version: u32,
    /// `e_flags`; its SM must be 35.
    pub flags: CudaFlags,
}

impl Default for CubinWriter {
    fn default() -> Self {
        CubinWriter::new()
    }
}

/// One section being written.
struct Out {
    name: String,
    kind: u32,
    flags: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
    data: Vec<u8>,
    /// Size of a NOBITS section (no file bytes).
    nobits: u64,
    offset: u64,
}

impl Out {
    fn new(name: impl Into<String>, kind: u32, flags: u64, align: u64) -> Out {
        Out {
            name: name.into(),
            kind,
            flags,
            link: 0,
            info: 0,
            align,
            entsize: 0,
            data: Vec::new(),
            nobits: 0,
            offset: 0,
        }
    }

    fn size(&self) -> u64 {
        if self.kind == SHT_NOBITS {
            self.nobits
        } else {
            self.data.len() as u64
        }
    }
}

/// A string table under construction.
struct StrTab(Vec<u8>);

impl StrTab {
    fn new() -> StrTab {
        StrTab(vec![0])
    }

    fn add(&mut self, s: &str) -> u32 {
        if s.is_empty() {
            return 0;
        }
        let off = self.0.len() as u32;
        self.0.extend_from_slice(s.as_bytes());
        self.0.push(0);
        off
    }
}

/// One symbol being written.
struct OutSym {
    name: String,
    info: u8,
    other: u8,
    shndx: u16,
    size: u64,
}

fn sym_word_attr(id: u8, symbol: u32, value: u32) -> Attribute {
    Attribute::words(id, &[symbol, value])
}

fn align_up(v: u64, a: u64) -> u64 {
    let a = a.max(1);
    v.div_ceil(a) * a
}

impl CubinWriter {
    /// An empty writer with CUDA 11.8 version numbers and sm_35 flags (0x230523).
    pub fn new() -> CubinWriter {
        CubinWriter {
            kernels: Vec::new(),
            const_banks: Vec::new(),
            toolkit_version: CUDA_11_8,
            flags: CudaFlags::sm35(),
        }
    }

    /// Appends a kernel; returns `self` for chaining.
    pub fn add_kernel(&mut self, kernel: KernelSpec) -> &mut CubinWriter {
        self.kernels.push(kernel);
        self
    }

    /// A writer holding every kernel of a parsed cubin (see [`Kernel::to_spec`]) and its
    /// module constant banks, keeping its version and flags. Fails for what the writer
    /// cannot reproduce: relocatable cubins, relocations, device functions with their
    /// own sections, and `.nv.global*` data.
    pub fn from_cubin(cubin: &Cubin) -> Result<CubinWriter, CubinError> {
        if cubin.elf_type != ET_EXEC {
            return Err(CubinError::Unsupported(format!(
                "ELF type {} is not ET_EXEC (relocatable cubins are not written)",
                cubin.elf_type
            )));
        }
        if let Some(r) = cubin.relocations.first() {
            let sec = cubin
                .sections
                .get(r.section)
                .map(|s| printable(&s.name))
                .unwrap_or_default();
            return Err(CubinError::Unsupported(format!(
                "it has {} relocations (first in {sec}), and the writer writes none",
                cubin.relocations.len()
            )));
        }
        if let Some(f) = cubin.functions.first() {
            return Err(CubinError::Unsupported(format!(
                "device function {} has its own section, and the writer writes kernels only",
                printable(&f.name)
            )));
        }
        if let Some(d) = cubin.global.as_ref().or(cubin.global_init.as_ref()) {
            return Err(CubinError::Unsupported(format!(
                "module data section {} is not written",
                printable(&d.name)
            )));
        }
        let mut w = CubinWriter::new();
        w.toolkit_version = cubin.toolkit_version;
        w.flags = cubin.flags;
        for b in &cubin.const_banks {
            if b.owner.is_some() || b.size as usize > MAX_BANK_BYTES {
                return Err(CubinError::Unsupported(format!(
                    "constant bank section {} ({:#x} bytes) belongs to no kernel",
                    printable(&b.name),
                    b.size
                )));
            }
            w.const_banks.push(ConstBankSpec {
                bank: b.bank,
                data: b.data.clone().unwrap_or_else(|| vec![0; b.size as usize]),
            });
        }
        for k in &cubin.kernels {
            if k.const_banks
                .iter()
                .any(|b| b.size as usize > MAX_BANK_BYTES)
            {
                return Err(CubinError::Unsupported(format!(
                    "kernel {} has a constant bank over 64 KiB",
                    printable(&k.name)
                )));
            }
            w.kernels.push(k.to_spec());
        }
        Ok(w)
    }

    /// The `.nv.info.<k>` attributes for one kernel, in the order ptxas writes them.
    fn kernel_attributes(&self, k: &KernelSpec, cbank0_symbol: u32) -> Vec<Attribute> {
        let mut a = vec![Attribute::words(
            eiattr::CUDA_API_VERSION,
            &[self.toolkit_version],
        )];
        let psize = k.param_bytes();
        if !k.params.is_empty() {
            a.push(Attribute::words(
                eiattr::PARAM_CBANK,
                &[cbank0_symbol, SM35_PARAM_BASE | (psize << 16)],
            ));
            a.push(Attribute {
                id: eiattr::CBANK_PARAM_SIZE,
                value: AttrValue::U16(psize as u16),
            });
            for (ordinal, p) in k.params.iter().enumerate().rev() {
                let mut kp = KernelParam::new(ordinal as u16, p.offset, p.size);
                kp.pointee_log_align = p.pointee_log_align;
                kp.pointee_space = p.pointee_space;
                a.push(kp.to_attribute());
            }
        }
        a.push(Attribute {
            id: eiattr::MAXREG_COUNT,
            value: AttrValue::U16(k.max_reg_count),
        });
        a.extend(
            k.extra_attributes
                .iter()
                .filter(|x| !AFTER_EXIT.contains(&x.id))
                .cloned(),
        );
        if !k.exit_offsets.is_empty() {
            a.push(Attribute::words(
                eiattr::EXIT_INSTR_OFFSETS,
                &k.exit_offsets,
            ));
        }
        a.extend(
            k.extra_attributes
                .iter()
                .filter(|x| AFTER_EXIT.contains(&x.id))
                .cloned(),
        );
        if let Some(t) = k.req_ntid {
            a.push(Attribute::words(eiattr::REQNTID, &t));
        }
        if let Some(t) = k.max_threads {
            a.push(Attribute::words(eiattr::MAX_THREADS, &t));
        }
        a
    }

    /// Lays out and returns the cubin's bytes. Fails with [`CubinError::InvalidKernel`]
    /// for an inconsistent kernel description (and [`CubinError::Unsupported`] for
    /// writer settings it cannot honour); never panics.
    pub fn to_bytes(&self) -> Result<Vec<u8>, CubinError> {
        self.validate()?;
        let mut l = self.sections()?;
        let syms = self.symbols(&l);
        self.link(&mut l, &syms);
        self.nv_info(&mut l, &syms)?;
        let name_offs = string_tables(&mut l.secs, &syms.syms);
        Ok(self.file(&mut l.secs, &name_offs))
    }

    /// The architecture, each kernel, no name twice, the module's banks.
    fn validate(&self) -> Result<(), CubinError> {
        if self.flags.sm() != SM35 {
            return Err(CubinError::WrongArch {
                sm: self.flags.sm(),
            });
        }
        for (i, k) in self.kernels.iter().enumerate() {
            k.validate()?;
            if self.kernels[..i].iter().any(|o| o.name == k.name) {
                return Err(k.invalid("a kernel of this name is given twice".into()));
            }
        }
        check_banks(&self.const_banks, |p| {
            CubinError::Unsupported(format!("module {p}"))
        })
    }

    /// The sections in file order, ptxas's: the tables, `.nv.info` and each
    /// kernel's, the module's constant banks, each kernel's banks and bank 0,
    /// its code, its shared memory.
    fn sections(&self) -> Result<Sections, CubinError> {
        let n = self.kernels.len();
        let mut secs: Vec<Out> = vec![
            Out::new("", SHT_NULL, 0, 0),
            Out::new(".shstrtab", SHT_STRTAB, 0, 1),
            Out::new(".strtab", SHT_STRTAB, 0, 1),
            Out::new(".symtab", SHT_SYMTAB, 0, 8),
            Out::new(".nv.info", SHT_CUDA_INFO, 0, 4),
        ];
        let info: Vec<usize> = (0..n).map(|i| 5 + i).collect();
        for k in &self.kernels {
            secs.push(Out::new(
                format!(".nv.info.{}", k.name),
                SHT_CUDA_INFO,
                0,
                4,
            ));
        }
        let mut module_banks = Vec::new();
        for b in &self.const_banks {
            module_banks.push(secs.len());
            let mut s = Out::new(
                format!(".nv.constant{}", b.bank),
                SHT_PROGBITS,
                SHF_ALLOC,
                4,
            );
            s.data = b.data.clone();
            secs.push(s);
        }
        let mut banks: Vec<Vec<usize>> = Vec::new();
        let mut const0 = Vec::new();
        for k in &self.kernels {
            let mut v = Vec::new();
            for b in &k.const_banks {
                v.push(secs.len());
                let mut s = Out::new(
                    format!(".nv.constant{}.{}", b.bank, k.name),
                    SHT_PROGBITS,
                    SHF_ALLOC,
                    4,
                );
                s.data = b.data.clone();
                secs.push(s);
            }
            banks.push(v);
            const0.push(secs.len());
            let mut s = Out::new(
                format!(".nv.constant0.{}", k.name),
                SHT_PROGBITS,
                SHF_ALLOC,
                4,
            );
            s.data = vec![0; k.cbank0_bytes() as usize];
            secs.push(s);
        }
        let mut text = Vec::new();
        for k in &self.kernels {
            text.push(secs.len());
            let mut s = Out::new(
                format!(".text.{}", k.name),
                SHT_PROGBITS,
                SHF_ALLOC | SHF_EXECINSTR | (u64::from(k.barriers) << SHF_BARRIERS_SHIFT),
                64,
            );
            s.data = k.code.iter().flat_map(|w| w.to_le_bytes()).collect();
            secs.push(s);
        }
        let mut shared = vec![None; n];
        for (i, k) in self.kernels.iter().enumerate() {
            if k.shared_size > 0 {
                shared[i] = Some(secs.len());
                let mut s = Out::new(
                    format!(".nv.shared.{}", k.name),
                    SHT_NOBITS,
                    SHF_WRITE | SHF_ALLOC,
                    4,
                );
                s.nobits = k.shared_size;
                secs.push(s);
            }
        }
        if secs.len() >= 0xff00 {
            return Err(CubinError::Unsupported(format!(
                "{} sections need extended section numbering",
                secs.len()
            )));
        }
        Ok(Sections {
            secs,
            info,
            module_banks,
            banks,
            const0,
            text,
            shared,
        })
    }

    /// The symbols: null, section symbols, then the kernels' entry symbols.
    fn symbols(&self, l: &Sections) -> Symbols {
        let mut syms = vec![OutSym {
            name: String::new(),
            info: 0,
            other: 0,
            shndx: 0,
            size: 0,
        }];
        let section_sym = |syms: &mut Vec<OutSym>, idx: usize| -> u32 {
            syms.push(OutSym {
                name: l.secs[idx].name.clone(),
                info: STT_SECTION,
                other: 0,
                shndx: idx as u16,
                size: 0,
            });
            (syms.len() - 1) as u32
        };
        let mut const0 = Vec::new();
        for i in 0..self.kernels.len() {
            section_sym(&mut syms, l.text[i]);
            if let Some(s) = l.shared[i] {
                section_sym(&mut syms, s);
            }
            for &b in &l.banks[i] {
                section_sym(&mut syms, b);
            }
            const0.push(section_sym(&mut syms, l.const0[i]));
        }
        for &b in &l.module_banks {
            section_sym(&mut syms, b);
        }
        let first_global = syms.len() as u32;
        let mut func = Vec::new();
        for (i, k) in self.kernels.iter().enumerate() {
            func.push(syms.len() as u32);
            syms.push(OutSym {
                name: k.name.clone(),
                info: (1 << 4) | STT_FUNC,
                other: STO_CUDA_ENTRY,
                shndx: l.text[i] as u16,
                size: k.code.len() as u64 * 8,
            });
        }
        Symbols {
            syms,
            const0,
            func,
            first_global,
        }
    }

    /// Each section's link and info: a kernel's sections name its code,
    /// whose info holds its register count and its symbol.
    fn link(&self, l: &mut Sections, syms: &Symbols) {
        let secs = &mut l.secs;
        for i in 0..self.kernels.len() {
            secs[l.info[i]].link = 3;
            secs[l.info[i]].info = l.text[i] as u32;
            secs[l.const0[i]].info = l.text[i] as u32;
            for &b in &l.banks[i] {
                secs[b].info = l.text[i] as u32;
            }
            if let Some(s) = l.shared[i] {
                secs[s].info = l.text[i] as u32;
            }
            let t = &mut secs[l.text[i]];
            t.link = 3;
            t.info = (self.kernels[i].registers << 24) | syms.func[i];
        }
        secs[3].link = 2;
        secs[3].info = syms.first_global;
        secs[3].entsize = 24;
        secs[4].link = 3;
    }

    /// `.nv.info` (each kernel's registers, stack and frame) and
    /// `.nv.info.<kernel>` (its attributes).
    fn nv_info(&self, l: &mut Sections, syms: &Symbols) -> Result<(), CubinError> {
        let mut global = Vec::new();
        for (i, k) in self.kernels.iter().enumerate() {
            let s = syms.func[i];
            global.push(sym_word_attr(eiattr::REGCOUNT, s, k.registers));
            global.push(sym_word_attr(eiattr::MAX_STACK_SIZE, s, k.max_stack_size));
            global.push(sym_word_attr(eiattr::MIN_STACK_SIZE, s, k.min_stack_size));
            global.push(sym_word_attr(eiattr::FRAME_SIZE, s, k.frame_size));
        }
        l.secs[4].data = nvinfo::encode_attributes(".nv.info", &global)?;
        for (i, k) in self.kernels.iter().enumerate() {
            let attrs = self.kernel_attributes(k, syms.const0[i]);
            let info = &mut l.secs[l.info[i]];
            info.data = nvinfo::encode_attributes(&info.name, &attrs)?;
        }
        Ok(())
    }

    /// The file: each section placed at its alignment, the section headers,
    /// then the program headers (ptxas's: the headers themselves, the
    /// allocated sections, the shared memory, the headers again), after the
    /// ELF header.
    fn file(&self, secs: &mut [Out], name_offs: &[u32]) -> Vec<u8> {
        let mut pos: u64 = 64;
        for s in secs.iter_mut().skip(1) {
            pos = align_up(pos, s.align);
            s.offset = pos;
            if s.kind != SHT_NOBITS {
                pos += s.data.len() as u64;
            }
        }
        let shoff = align_up(pos, 8);
        let shnum = secs.len() as u64;
        let phoff = shoff + shnum * 64;
        let alloc: Vec<&Out> = secs
            .iter()
            .filter(|s| s.flags & SHF_ALLOC != 0 && s.kind == SHT_PROGBITS)
            .collect();
        let nobits: Vec<&Out> = secs.iter().filter(|s| s.kind == SHT_NOBITS).collect();
        let phnum: u64 = 2 + u64::from(!alloc.is_empty()) + u64::from(!nobits.is_empty());
        let phsize = phnum * 56;
        // (type, flags, offset, filesz, memsz)
        let mut phdrs: Vec<(u32, u32, u64, u64, u64)> = vec![(6, 5, phoff, phsize, phsize)];
        if let (Some(first), Some(last)) = (alloc.first(), alloc.last()) {
            let len = last.offset + last.size() - first.offset;
            phdrs.push((1, 5, first.offset, len, len));
        }
        if let Some(first) = nobits.first() {
            let mem: u64 = nobits.iter().map(|s| s.size()).sum();
            phdrs.push((1, 6, first.offset, 0, mem));
        }
        phdrs.push((1, 5, phoff, phsize, phsize));

        let total = phoff + phsize;
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(&[
            0x7f,
            b'E',
            b'L',
            b'F',
            2,
            1,
            1,
            ELFOSABI_CUDA,
            CUDA_ABI_VERSION,
        ]);
        out.resize(16, 0);
        out.extend_from_slice(&ET_EXEC.to_le_bytes());
        out.extend_from_slice(&EM_CUDA.to_le_bytes());
        out.extend_from_slice(&self.toolkit_version.to_le_bytes());
        out.extend_from_slice(&0u64.to_le_bytes()); // e_entry
        out.extend_from_slice(&phoff.to_le_bytes());
        out.extend_from_slice(&shoff.to_le_bytes());
        out.extend_from_slice(&self.flags.0.to_le_bytes());
        out.extend_from_slice(&64u16.to_le_bytes()); // e_ehsize
        out.extend_from_slice(&56u16.to_le_bytes()); // e_phentsize
        out.extend_from_slice(&(phnum as u16).to_le_bytes());
        out.extend_from_slice(&64u16.to_le_bytes()); // e_shentsize
        out.extend_from_slice(&(shnum as u16).to_le_bytes());
        out.extend_from_slice(&1u16.to_le_bytes()); // e_shstrndx
        for s in secs.iter().skip(1) {
            if s.kind != SHT_NOBITS {
                out.resize(s.offset as usize, 0);
                out.extend_from_slice(&s.data);
            }
        }
        out.resize(shoff as usize, 0);
        for (s, name) in secs.iter().zip(name_offs) {
            out.extend_from_slice(&name.to_le_bytes());
            out.extend_from_slice(&s.kind.to_le_bytes());
            out.extend_from_slice(&s.flags.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes()); // sh_addr
            let offset = if s.kind == SHT_NULL { 0 } else { s.offset };
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&s.size().to_le_bytes());
            out.extend_from_slice(&s.link.to_le_bytes());
            out.extend_from_slice(&s.info.to_le_bytes());
            out.extend_from_slice(&s.align.to_le_bytes());
            out.extend_from_slice(&s.entsize.to_le_bytes());
        }
        for (kind, flags, offset, filesz, memsz) in phdrs {
            out.extend_from_slice(&kind.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            out.extend_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&0u64.to_le_bytes()); // p_vaddr
            out.extend_from_slice(&0u64.to_le_bytes()); // p_paddr
            out.extend_from_slice(&filesz.to_le_bytes());
            out.extend_from_slice(&memsz.to_le_bytes());
            out.extend_from_slice(&8u64.to_le_bytes()); // p_align
        }
        out
    }
}

/// The sections of a cubin being written, and where each kernel's are.
struct Sections {
    secs: Vec<Out>,
    /// Per kernel: its `.nv.info.<kernel>`, its constant banks, its bank 0,
    /// its code and its shared memory (if any), by section index.
    info: Vec<usize>,
    banks: Vec<Vec<usize>>,
    const0: Vec<usize>,
    text: Vec<usize>,
    shared: Vec<Option<usize>>,
    /// The module's constant banks.
    module_banks: Vec<usize>,
}

/// The symbol table being written.
struct Symbols {
    syms: Vec<OutSym>,
    /// Per kernel: its bank 0's section symbol and its entry symbol.
    const0: Vec<u32>,
    func: Vec<u32>,
    /// The first global symbol (the symbol table's info).
    first_global: u32,
}

/// `.strtab` and `.symtab` from the symbols, and `.shstrtab`; gives each
/// section's name offset in `.shstrtab`.
fn string_tables(secs: &mut [Out], syms: &[OutSym]) -> Vec<u32> {
    let mut strtab = StrTab::new();
    let mut symtab = Vec::with_capacity(syms.len() * 24);
    for s in syms {
        let name = strtab.add(&s.name);
        symtab.extend_from_slice(&name.to_le_bytes());
        symtab.push(s.info);
        symtab.push(s.other);
        symtab.extend_from_slice(&s.shndx.to_le_bytes());
        symtab.extend_from_slice(&0u64.to_le_bytes());
        symtab.extend_from_slice(&s.size.to_le_bytes());
    }
    secs[2].data = strtab.0;
    secs[3].data = symtab;
    let mut shstrtab = StrTab::new();
    let name_offs: Vec<u32> = secs.iter().map(|s| shstrtab.add(&s.name)).collect();
    secs[1].data = shstrtab.0;
    name_offs
}
