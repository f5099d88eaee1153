//! A kernel made ready to run: its code lowered to [`Op`]s, its constant banks,
//! and its global data placed in device memory with relocations applied.
//!
//! Code is addressed in *slots* (byte address / 8): slot 0 of every 64-byte
//! group is the control word, slots 1..=7 the instructions it governs.

use sim_isa::control::Control;
use sim_isa::cubin::{Cubin, Kernel, KernelParam};
use sim_isa::decode;

use crate::lower::lower;
use crate::mem::GlobalMem;
use crate::op::{Kind, Op, Src, Width};
use crate::sass::{float_fields, Syntax};

/// The most local memory a thread may have on sm_35 (frame, stack and
/// spills), bytes.
pub const MAX_LOCAL: u32 = 512 << 10;

/// The most bytes a constant bank holds on sm_35 (64 KiB).
pub const MAX_BANK: u64 = 64 << 10;

/// The most bytes of module variables (`.nv.global`, `.nv.global.init`) a
/// cubin may declare: the K20m's 5 GiB of device memory.
pub const MAX_GLOBAL: u64 = 5 << 30;

/// Why a kernel cannot be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    #[error("the cubin has no kernel `{name}` ({have})")]
    NoKernel { name: String, have: String },
    #[error("kernel `{kernel}` has no code")]
    Empty { kernel: String },
    #[error("kernel `{kernel}` needs {bytes} bytes of local memory per thread, past sm_35's {MAX_LOCAL}")]
    Local { kernel: String, bytes: u64 },
    #[error("kernel `{kernel}`: relocation {kind} at {offset:#x} of `{symbol}` is not supported")]
    Reloc {
        kernel: String,
        kind: &'static str,
        offset: u64,
        symbol: String,
    },
    #[error("kernel `{kernel}` calls `{symbol}`{what}, a function of CUDA's device runtime that keplersim does not model{hint}")]
    External {
        kernel: String,
        symbol: String,
        /// What the source wrote, when the name is not it: ` (printf)`.
        what: String,
        /// What to do instead, where there is something: `; write ...`.
        hint: String,
    },
    #[error("`{section}` holds {bytes} bytes, past sm_35's {MAX_BANK} bytes of a constant bank")]
    Bank { section: String, bytes: u64 },
    #[error("`{section}` declares {bytes} bytes of module variables, past the K20m's {MAX_GLOBAL} bytes of device memory")]
    Global { section: String, bytes: u64 },
    #[error("kernel `{kernel}`: relocation {kind} of `{symbol}` patches {bytes} bytes at {offset:#x} of `{section}`, past its {size} bytes")]
    Place {
        kernel: String,
        kind: &'static str,
        symbol: String,
        bytes: u64,
        offset: u64,
        section: String,
        size: u64,
    },
    #[error("kernel `{kernel}`: relocation {kind} at {offset:#x} refers to `{symbol}` at offset {value:#x} of `{section}`, past its {size} bytes")]
    Symbol {
        kernel: String,
        kind: &'static str,
        offset: u64,
        symbol: String,
        value: u64,
        section: String,
        size: u64,
    },
}

/// One loaded kernel.
#[derive(Debug, Clone)]
pub struct Program {
    pub name: String,
    /// One op per slot; control slots hold [`Kind::Control`].
    pub ops: Vec<Op>,
    /// The 8-bit control field of each instruction slot (0 for control slots).
    pub ctrl: Vec<u8>,
    /// The instruction words after relocation, per slot.
    pub words: Vec<u64>,
    /// Why each [`Kind::Unsupported`] slot cannot run.
    pub problems: Vec<(u32, String)>,
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory, bytes.
    pub shared_size: u32,
    /// Local memory per thread (frame and call stack), bytes.
    pub local_size: u32,
    /// Parameter layout.
    pub params: Vec<KernelParam>,
    /// Bytes of parameters.
    pub param_size: u32,
    /// Constant banks 1..=17 as the cubin gives them (bank 0 is built per launch).
    pub banks: Vec<Vec<u8>>,
    /// Barriers the kernel declares.
    pub barriers: u32,
    /// `.reqntid`, if given.
    pub req_ntid: Option<[u32; 3]>,
    /// `.maxntid`, if given.
    pub max_threads: Option<[u32; 3]>,
}

/// How a kernel is loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// The call stack of a kernel whose stack ptxas could not bound (it
    /// writes `0xffffffff`, for recursion), bytes per thread; the CUDA driver
    /// gives such a kernel its `cudaLimitStackSize`, 1 KiB by default.
    pub unbounded_stack: u32,
}

impl Default for LoadOptions {
    fn default() -> LoadOptions {
        LoadOptions {
            unbounded_stack: 1024,
        }
    }
}

/// ptxas's minimum stack size for a kernel whose stack it cannot bound.
pub const UNBOUNDED_STACK: u32 = u32::MAX;

impl Program {
    /// Loads kernel `name` of `cubin`, placing the cubin's global variables in
    /// `global`, with the default [`LoadOptions`].
    pub fn load(cubin: &Cubin, name: &str, global: &mut GlobalMem) -> Result<Program, LoadError> {
        Program::load_with(cubin, name, global, &LoadOptions::default())
    }

    /// Loads kernel `name` of `cubin` as `opts` say.
    pub fn load_with(
        cubin: &Cubin,
        name: &str,
        global: &mut GlobalMem,
        opts: &LoadOptions,
    ) -> Result<Program, LoadError> {
        let k = cubin.kernel(name).ok_or_else(|| LoadError::NoKernel {
            name: name.into(),
            have: crate::it_has(cubin.kernels.iter().map(|k| k.name.as_str())),
        })?;
        if k.code.len() < 2 {
            return Err(LoadError::Empty {
                kernel: name.into(),
            });
        }
        let mut words = k.code.clone();
        let mut banks: Vec<Vec<u8>> = vec![Vec::new(); 18];
        // A bank's size is the cubin's word (with no bytes behind it when the
        // section is NOBITS): held to sm_35's before anything is allocated.
        if let Some(b) = k
            .const_banks
            .iter()
            .chain(cubin.const_banks.iter().filter(|b| b.owner.is_none()))
            .find(|b| b.size > MAX_BANK)
        {
            return Err(LoadError::Bank {
                section: b.name.clone(),
                bytes: b.size,
            });
        }
        // The section each bank was filled from: the kernel's own, then the
        // cubin's banks no kernel owns (`.nv.constant3`) where it has none.
        let mut bank_sections: Vec<Option<usize>> = vec![None; banks.len()];
        for b in &k.const_banks {
            if (b.bank as usize) < banks.len() {
                banks[b.bank as usize] = b.data.clone().unwrap_or_else(|| vec![0; b.size as usize]);
                bank_sections[b.bank as usize] = Some(b.section);
            }
        }
        for b in &cubin.const_banks {
            if b.owner.is_none()
                && (b.bank as usize) < banks.len()
                && banks[b.bank as usize].is_empty()
            {
                banks[b.bank as usize] = b.data.clone().unwrap_or_else(|| vec![0; b.size as usize]);
                bank_sections[b.bank as usize] = Some(b.section);
            }
        }
        relocate(cubin, k, &mut words, &mut banks, &bank_sections, global)?;

        let n = words.len();
        let mut ops = Vec::with_capacity(n);
        let mut ctrl = vec![0u8; n];
        let mut problems = Vec::new();
        let mut fields = Control::default();
        for (slot, &w) in words.iter().enumerate() {
            if slot % 8 == 0 {
                fields = Control::decode(w).unwrap_or_default();
                ops.push(Op::filler(Kind::Control));
                continue;
            }
            ctrl[slot] = fields.0[slot % 8 - 1];
            let addr = slot as u64 * 8;
            let op = decode::decode(w)
                .map_err(|e| e.to_string())
                .and_then(|inst| {
                    let text = inst.text(addr);
                    let syn = Syntax::parse(&text).map_err(|e| e.to_string())?;
                    lower(&syn, &float_fields(&inst, addr))
                })
                .and_then(|op| check_registers(&op, k.registers).map(|()| op));
            match op {
                Ok(op) => ops.push(op),
                Err(why) => {
                    problems.push((slot as u32, why));
                    ops.push(Op::filler(Kind::Unsupported));
                }
            }
        }
        let param_size = k.info.cbank_param_size.map(u32::from).unwrap_or_else(|| {
            k.params()
                .iter()
                .map(|p| p.offset as u32 + p.size as u32)
                .max()
                .unwrap_or(0)
        });
        // The call stack grows down from c[0x0][0x44]: the frame plus what the
        // deepest call chain needs, or, where ptxas could not bound it, the
        // stack the driver gives.
        let stack = if k.min_stack_size == UNBOUNDED_STACK || k.max_stack_size == UNBOUNDED_STACK {
            opts.unbounded_stack as u64
        } else {
            k.max_stack_size.max(k.min_stack_size) as u64
        };
        let local_size =
            ((k.frame_size as u64 + stack).div_ceil(16) * 16).saturating_add(k.local_size);
        let local_size = u32::try_from(local_size)
            .ok()
            .filter(|&l| l <= MAX_LOCAL)
            .ok_or_else(|| LoadError::Local {
                kernel: name.into(),
                bytes: local_size,
            })?;
        Ok(Program {
            name: name.into(),
            ops,
            ctrl,
            words,
            problems,
            registers: k.registers.max(1),
            shared_size: k.shared_size as u32,
            local_size,
            params: k.params().to_vec(),
            param_size,
            banks,
            barriers: k.barriers,
            req_ntid: k.info.req_ntid,
            max_threads: k.info.max_threads,
        })
    }

    /// The instruction text at `slot`, for messages.
    pub fn text(&self, slot: u32) -> String {
        match self.words.get(slot as usize) {
            Some(&w) if !slot.is_multiple_of(8) => {
                decode::disassemble(w, slot as u64 * 8).unwrap_or_else(|e| format!("<{e}>"))
            }
            Some(_) => "<control word>".into(),
            None => "<past the end of the code>".into(),
        }
    }

    /// Why the instruction at `slot` cannot run, if it cannot.
    pub fn problem(&self, slot: u32) -> Option<&str> {
        self.problems
            .iter()
            .find(|(s, _)| *s == slot)
            .map(|(_, p)| p.as_str())
    }
}

/// Refuses register operands past the kernel's register count and misaligned
/// wide operands (a 128-bit load into R3 is an illegal instruction).
fn check_registers(op: &Op, nregs: u32) -> Result<(), String> {
    let (wide_regs, align) = match op.kind {
        Kind::Ld { w, .. } | Kind::St { w, .. } | Kind::Ldc { w } => (w.regs(), w.regs()),
        Kind::DAdd { .. }
        | Kind::DMul { .. }
        | Kind::DFma { .. }
        | Kind::DMnMx
        | Kind::DSetP { .. }
        | Kind::DSet { .. } => (2, 2),
        Kind::F2F { dt, st, .. } | Kind::F2I { dt, st, .. } | Kind::I2F { dt, st, .. } => {
            let n = (dt.bits().max(st.bits()) / 32).max(1);
            (n, n)
        }
        Kind::Atom {
            ty: crate::op::AtomType::U64 | crate::op::AtomType::S64,
            ..
        } => (2, 2),
        _ => (1, 1),
    };
    let check = |r: u8, n: u32, what: &str| -> Result<(), String> {
        if r == 255 {
            return Ok(());
        }
        if n > 1 && !(r as u32).is_multiple_of(n) {
            return Err(format!(
                "illegal instruction: {what} R{r} of a {}-bit operand must be a multiple of {n}",
                n * 32
            ));
        }
        if r as u32 + n > nregs {
            return Err(format!(
                "illegal register: R{}{} is past the kernel's {nregs} registers",
                r,
                if n > 1 {
                    format!("..R{}", r as u32 + n - 1)
                } else {
                    String::new()
                }
            ));
        }
        Ok(())
    };
    let is_pred_dst = matches!(
        op.kind,
        Kind::ISetP { .. } | Kind::FSetP { .. } | Kind::DSetP { .. } | Kind::PSetP { .. }
    );
    if !is_pred_dst && !matches!(op.kind, Kind::R2P) {
        let n = match op.kind {
            Kind::Ld { w, .. } | Kind::Ldc { w } => w.regs(),
            Kind::St { .. } => 1,
            Kind::F2F { dt, .. } | Kind::F2I { dt, .. } | Kind::I2F { dt, .. } => {
                (dt.bits() / 32).max(1)
            }
            // DSET writes a 32-bit mask or 1.0f; only its sources are doubles.
            Kind::DSet { .. } => 1,
            _ => wide_regs,
        };
        check(op.d0, n, "destination")?;
    }
    for (i, s) in op.src.iter().enumerate() {
        let n = match op.kind {
            Kind::Ld { .. } | Kind::Atom { .. } | Kind::St { .. } if i == 0 => 1,
            Kind::St { w, .. } if i == 1 => w.regs(),
            Kind::F2F { st, .. } | Kind::F2I { st, .. } | Kind::I2F { st, .. } => {
                (st.bits() / 32).max(1)
            }
            Kind::DAdd { .. }
            | Kind::DMul { .. }
            | Kind::DFma { .. }
            | Kind::DMnMx
            | Kind::DSetP { .. }
            | Kind::DSet { .. }
                if i < 3 =>
            {
                2
            }
            Kind::Atom {
                ty: crate::op::AtomType::U64 | crate::op::AtomType::S64,
                ..
            } if i > 0 => 2,
            _ => 1,
        };
        let _ = align;
        match s.src {
            Src::Reg(r) => check(r, n, "source")?,
            Src::ConstIdx { reg, .. } => check(reg, 1, "index")?,
            _ => {}
        }
    }
    let _ = Width::B32;
    Ok(())
}

/// Places the cubin's global data in device memory and patches the kernel's
/// words, its constant banks and the module variables themselves (a pointer
/// initialised with a variable's address) with the addresses.
fn relocate(
    cubin: &Cubin,
    k: &Kernel,
    words: &mut [u64],
    banks: &mut [Vec<u8>],
    bank_sections: &[Option<usize>],
    global: &mut GlobalMem,
) -> Result<(), LoadError> {
    // Section index -> device address and bytes, for sections that hold
    // global data, and whether this load placed it (a section an earlier load
    // placed holds what that kernel left there, and is not patched again).
    let mut placed: Vec<(usize, u64, u64, bool)> = Vec::new();
    for data in [&cubin.global_init, &cubin.global].into_iter().flatten() {
        let name = &cubin.sections[data.section].name;
        // `.nv.global` is NOBITS: its size is a word of the cubin, not bytes
        // read, so it is held to the device's memory before it is allocated.
        if data.size > MAX_GLOBAL {
            return Err(LoadError::Global {
                section: name.clone(),
                bytes: data.size,
            });
        }
        let (base, fresh) = match global.get(name) {
            Some(a) => (a.base, false),
            None => {
                let mut bytes = data.data.clone().unwrap_or_default();
                bytes.resize(data.size as usize, 0);
                (global.alloc(name, bytes), true)
            }
        };
        placed.push((data.section, base, data.size, fresh));
    }
    for r in &cubin.relocations {
        let kind = r.kind_name().unwrap_or("?");
        let sym = cubin.symbols.get(r.symbol as usize);
        let mut value = None;
        if let Some(s) = sym {
            if let Some(&(sec, base, size, _)) = placed.iter().find(|p| p.0 == s.shndx as usize) {
                // A variable lies inside its section (or, empty, at its end);
                // the addend may point anywhere, as in any ELF.
                if s.value > size {
                    return Err(LoadError::Symbol {
                        kernel: k.name.clone(),
                        kind,
                        offset: r.offset,
                        symbol: r.symbol_name.clone(),
                        value: s.value,
                        section: cubin.sections[sec].name.clone(),
                        size,
                    });
                }
                value = Some((base + s.value).wrapping_add(r.addend.unwrap_or(0) as u64));
            }
        }
        let err = || LoadError::Reloc {
            kernel: k.name.clone(),
            kind,
            offset: r.offset,
            symbol: r.symbol_name.clone(),
        };
        if value.is_none() && sym.is_some_and(|s| s.shndx == 0) {
            // Defined nowhere in the cubin: the driver links it in.
            let (what, hint) = match r.symbol_name.as_str() {
                "vprintf" => (
                    " (printf)",
                    "; write the values to a buffer instead and read them with \
                     `keplersim run --dump DIR`",
                ),
                "__assertfail" => (
                    " (assert)",
                    "; build it with `-D NDEBUG`, and let the launch file's `checks` test the results",
                ),
                n if n.starts_with("cudaGetParameterBuffer") || n.starts_with("cudaLaunch") => {
                    (" (a kernel launch from the device)", "")
                }
                _ => ("", ""),
            };
            return Err(LoadError::External {
                kernel: k.name.clone(),
                symbol: r.symbol_name.clone(),
                what: what.into(),
                hint: hint.into(),
            });
        }
        // The patched place lies inside its section, whole.
        let place = |bytes: usize, size: u64| {
            let fits = r.offset <= size && size - r.offset >= bytes as u64;
            fits.then_some(r.offset as usize)
                .ok_or_else(|| LoadError::Place {
                    kernel: k.name.clone(),
                    kind,
                    symbol: r.symbol_name.clone(),
                    bytes: bytes as u64,
                    offset: r.offset,
                    section: cubin
                        .sections
                        .get(r.target)
                        .map_or_else(String::new, |s| s.name.clone()),
                    size,
                })
        };
        if r.target == k.text_section {
            let value = value.ok_or_else(err)?;
            let v32 = match r.kind {
                12 | 13 => value as u32,
                14 => (value >> 32) as u32,
                _ => return Err(err()),
            };
            // An instruction's immediate: the place is a whole 8-byte word.
            let at = place(8, words.len() as u64 * 8)?;
            if at % 8 != 0 {
                return Err(err());
            }
            let w = &mut words[at / 8];
            *w = (*w & !(0xffff_ffffu64 << 23)) | ((v32 as u64) << 23);
        } else if let Some(bank) = bank_sections.iter().position(|&s| s == Some(r.target)) {
            // A pointer in a constant bank: `__constant__ float *p = &v;`.
            let bytes = address_bytes(r.kind, value.ok_or_else(err)?).ok_or_else(err)?;
            let bank = &mut banks[bank];
            let at = place(bytes.len(), bank.len() as u64)?;
            bank[at..at + bytes.len()].copy_from_slice(&bytes);
        } else if let Some(&(_, base, size, fresh)) = placed.iter().find(|p| p.0 == r.target) {
            // A pointer among the module variables: `__device__ float *p = &v;`.
            let bytes = address_bytes(r.kind, value.ok_or_else(err)?).ok_or_else(err)?;
            let at = place(bytes.len(), size)?;
            if fresh {
                global.write(base + at as u64, &bytes).map_err(|_| err())?;
            }
        }
    }
    Ok(())
}

/// The bytes an address relocation of data writes: `R_CUDA_32` and `R_CUDA_G32`
/// the low 32 bits, `R_CUDA_64` and `R_CUDA_G64` all 64 (a global variable's
/// generic address is its global address on sm_35). `None` for other kinds.
fn address_bytes(kind: u32, value: u64) -> Option<Vec<u8>> {
    match kind {
        1 | 3 => Some((value as u32).to_le_bytes().to_vec()),
        2 | 4 => Some(value.to_le_bytes().to_vec()),
        _ => None,
    }
}
