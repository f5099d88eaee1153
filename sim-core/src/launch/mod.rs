//! Launch files: parsing ([`spec`]), evaluating them against their variables
//! into a concrete launch, packing kernel parameters, and checking results.
//!
//! Files named by a launch file are read through a closure the caller hands in,
//! so this crate does no I/O of its own.

pub mod spec;

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sim_isa::cubin::KernelParam;

use crate::func::Dims;
use crate::reference::{self, RefInput};
use spec::*;

/// Why a launch file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LaunchError {
    #[error("{line}:{col}: {msg}")]
    Syntax {
        line: usize,
        col: usize,
        msg: String,
    },
    #[error("{0}")]
    Invalid(String),
}

/// An expression as an error quotes it: its first 60 characters, and `...`
/// for the rest of a longer one.
fn brief(e: &str) -> String {
    sim_isa::encode::clip(e, 60)
}

fn invalid<T>(msg: impl Into<String>) -> Result<T, LaunchError> {
    Err(LaunchError::Invalid(msg.into()))
}

/// Parses a launch file's text.
pub fn parse(text: &str) -> Result<LaunchSpec, LaunchError> {
    // Optional fields are written plainly (`instruction_limit: 1000`).
    let opts =
        ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    opts.from_str(text).map_err(|e| LaunchError::Syntax {
        line: e.position.line,
        col: e.position.col,
        msg: crate::ron_text::describe(&e.code, |name| match name {
            "LaunchSpec" => Some("the launch file"),
            "BufferSpec" => Some("a buffer"),
            "CheckSpec" => Some("a check"),
            "Require" => Some("a `requires` entry"),
            "Init" => Some("a buffer's `init`"),
            "Arg" => Some("`args`"),
            "Elem" => Some("a buffer's `elem`"),
            "Memory" => Some("`memory`"),
            "Reference" => Some("a check's `reference`"),
            "Compare" => Some("a check's `compare`"),
            "Num" => Some("a whole number or an expression in quotes (`\"n / 64\"`)"),
            "Real" => Some("a number or an integer expression in quotes (`\"n * 2\"`)"),
            _ => None,
        }),
    })
}

/// A buffer with its contents.
#[derive(Debug, Clone, PartialEq)]
pub struct Buffer {
    pub name: String,
    pub elem: Elem,
    pub data: Vec<u8>,
}

/// What a launch file may ask of the host, checked before anything is
/// allocated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// All buffers together, bytes (default: the K20m's 5 GiB of device memory).
    pub device_bytes: u64,
    /// The per-thread stack, bytes (default: 512 KiB, sm_35's most local
    /// memory per thread).
    pub stack_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            device_bytes: 5 << 30,
            stack_bytes: 512 << 10,
        }
    }
}

/// The per-thread stack a kernel with an unbounded stack gets by default,
/// bytes: the CUDA driver's default `cudaLimitStackSize` on sm_35.
pub const DEFAULT_STACK: u32 = 1024;

/// A launch with every expression evaluated and every buffer filled.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub kernel: String,
    /// The kernel file the launch file names (`cubin` or `source`), relative
    /// to the launch file.
    pub cubin: Option<String>,
    /// Options for NVRTC when the kernel file is CUDA C.
    pub nvrtc_options: Vec<String>,
    /// The stack of a kernel whose stack ptxas could not bound, bytes per
    /// thread.
    pub stack_size: u32,
    /// How global memory is allocated and checked.
    pub memory: crate::mem::MemMode,
    /// The contents of each check's reference file (`Reference::File`), read
    /// before the run, by check.
    pub expected: Vec<Option<Vec<u8>>>,
    pub vars: BTreeMap<String, i64>,
    pub dims: Dims,
    pub buffers: Vec<Buffer>,
    pub args: Vec<Arg>,
    pub checks: Vec<CheckSpec>,
    pub limit: u64,
    /// Floating-point operations of the launch, if the launch file says.
    pub flops: Option<u64>,
}

/// Evaluates `spec` with `overrides` (`--set n=4096`) applied to its variables.
/// `read` reads a file named in the launch file.
pub fn resolve(
    spec: &LaunchSpec,
    overrides: &[(String, i64)],
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Resolved, LaunchError> {
    resolve_within(spec, overrides, read, &Limits::default())
}

/// [`resolve`], refusing (before allocating anything) buffers and stacks past
/// `limits`.
pub fn resolve_within(
    spec: &LaunchSpec,
    overrides: &[(String, i64)],
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    limits: &Limits,
) -> Result<Resolved, LaunchError> {
    if spec.cubin.is_some() && spec.source.is_some() {
        return invalid("`cubin` and `source` both name the kernel file: give one");
    }
    let mut vars = spec.vars.clone();
    for (k, v) in overrides {
        if !vars.contains_key(k) {
            return invalid(format!(
                "--set {k}: the launch file has no variable `{k}` ({})",
                crate::it_has(vars.keys().map(String::as_str))
            ));
        }
        vars.insert(k.clone(), *v);
    }
    let num = |n: &Num, what: &str| -> Result<i64, LaunchError> {
        match n {
            Num::Lit(v) => Ok(*v),
            Num::Expr(e) => eval(e, &vars)
                .map_err(|m| LaunchError::Invalid(format!("{what}: `{}`: {m}", brief(e)))),
        }
    };
    let real = |r: &Real, what: &str| -> Result<f64, LaunchError> {
        match r {
            Real::Lit(v) => Ok(*v),
            Real::Expr(e) => eval(e, &vars)
                .map(|v| v as f64)
                .map_err(|m| LaunchError::Invalid(format!("{what}: `{}`: {m}", brief(e)))),
        }
    };
    for r in &spec.requires {
        let vals: String = vars
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        for (e, want_zero) in [(&r.zero, true), (&r.positive, false)] {
            let Some(e) = e else { continue };
            let v = eval(e, &vars)
                .map_err(|m| LaunchError::Invalid(format!("requires: `{}`: {m}", brief(e))))?;
            if (want_zero && v != 0) || (!want_zero && v <= 0) {
                return invalid(format!("{} ({vals}: `{}` is {v})", r.why, brief(e)));
            }
        }
    }
    let flops = match &spec.flops {
        Some(n) => {
            let v = num(n, "flops")?;
            Some(
                u64::try_from(v)
                    .map_err(|_| LaunchError::Invalid(format!("flops: {v} is negative")))?,
            )
        }
        None => None,
    };
    let dim = |t: &(Num, Num, Num), what: &str| -> Result<[u32; 3], LaunchError> {
        let mut out = [0u32; 3];
        for (i, n) in [&t.0, &t.1, &t.2].into_iter().enumerate() {
            let v = num(n, what)?;
            if !(1..=u32::MAX as i64).contains(&v) {
                return invalid(format!(
                    "{what}: dimension {} is {v}, must be at least 1",
                    ["x", "y", "z"][i]
                ));
            }
            out[i] = v as u32;
        }
        Ok(out)
    };
    let grid = dim(&spec.grid, "grid")?;
    let blocks = grid.iter().map(|&g| g as u64).product::<u64>();
    if blocks > crate::func::MAX_BLOCKS {
        return invalid(format!(
            "grid: {blocks} blocks; keplersim simulates at most {} in one launch",
            crate::func::MAX_BLOCKS
        ));
    }
    let dims = Dims {
        grid,
        block: dim(&spec.block, "block")?,
        dynamic_shared: match &spec.dynamic_shared {
            Some(n) => {
                let v = num(n, "dynamic_shared")?;
                if !(0..=48 * 1024).contains(&v) {
                    return invalid(format!("dynamic_shared: {v} bytes is outside 0..=49152"));
                }
                v as u32
            }
            None => 0,
        },
    };
    // Every length first, so that buffers past the device's memory are
    // refused before any is allocated.
    let mut lens = Vec::with_capacity(spec.buffers.len());
    let mut total: u64 = 0;
    for b in &spec.buffers {
        let what = format!("buffer `{}`", b.name);
        let len = num(&b.len, &format!("{what} len"))?;
        if !(0..=1 << 32).contains(&len) {
            return invalid(format!("{what}: length {len} is outside 0..=2^32"));
        }
        total += len as u64 * b.elem.size() as u64;
        if total > limits.device_bytes {
            return invalid(format!(
                "{what}: the buffers need {total} bytes or more, past the device's {} bytes",
                limits.device_bytes
            ));
        }
        lens.push(len as usize);
    }
    let mut buffers = Vec::new();
    for (b, &len) in spec.buffers.iter().zip(&lens) {
        if buffers.iter().any(|x: &Buffer| x.name == b.name) {
            return invalid(format!("buffer `{}` is declared twice", b.name));
        }
        let what = format!("buffer `{}`", b.name);
        let data = match &b.init {
            Init::Zero => vec![0; len * b.elem.size()],
            Init::Fill(v) => {
                let v = real(v, &what)?;
                fits(b.elem, v)
                    .map_err(|m| LaunchError::Invalid(format!("{what}: Fill({v}): {m}")))?;
                // A fill is read as an f64: from 2^53 on it may be another integer.
                if matches!(b.elem, Elem::U64 | Elem::I64) && v.abs() >= (1u64 << 53) as f64 {
                    return invalid(format!(
                        "{what}: Fill({v}): from 2^53 on a fill is not exact (it is read as a \
                         double); use File(...) for such values"
                    ));
                }
                let mut d = Vec::with_capacity(len * b.elem.size());
                (0..len).for_each(|_| encode_into(b.elem, v, &mut d));
                d
            }
            Init::Ramp { start, step } => {
                let (s0, st) = (real(start, &what)?, real(step, &what)?);
                let mut d = Vec::with_capacity(len * b.elem.size());
                if matches!(b.elem, Elem::F32 | Elem::F64) {
                    (0..len).for_each(|i| encode_into(b.elem, s0 + st * i as f64, &mut d));
                } else {
                    // Integers are counted as integers, so that a 64-bit ramp
                    // past 2^53 stays exact and every type wraps alike (an
                    // f64 cast to u64 would stop at 0 and at 2^64 - 1).
                    let int = |v: f64, name: &str| -> Result<i128, LaunchError> {
                        if v.fract() != 0.0 || !v.is_finite() {
                            return invalid(format!(
                                "{what}: Ramp's {name} {v}: {:?} holds integers",
                                b.elem
                            ));
                        }
                        if v.abs() >= (1u64 << 53) as f64 {
                            return invalid(format!(
                                "{what}: Ramp's {name} {v}: from 2^53 on it is not exact (it \
                                 is read as a double); use File(...) for such values"
                            ));
                        }
                        Ok(v as i128)
                    };
                    let (s0, st) = (int(s0, "start")?, int(st, "step")?);
                    let size = b.elem.size();
                    for i in 0..len as i128 {
                        // Two's complement: the low bytes are the value wrapped.
                        d.extend_from_slice(&(s0 + st * i).to_le_bytes()[..size]);
                    }
                }
                d
            }
            Init::Random { seed, lo, hi } => {
                let (lo, hi) = (real(lo, &what)?, real(hi, &what)?);
                if lo > hi {
                    return invalid(format!("{what}: random range [{lo}, {hi}] is empty"));
                }
                let float = matches!(b.elem, Elem::F32 | Elem::F64);
                // Bounds the element cannot hold were wrapped (a U32 buffer
                // drawn from [-5, 5] held values near 2^32).
                for (name, v) in [("lo", lo), ("hi", hi)] {
                    fits(b.elem, v).map_err(|m| {
                        LaunchError::Invalid(format!("{what}: Random's {name} {v}: {m}"))
                    })?;
                }
                let mut rng = ChaCha8Rng::seed_from_u64(*seed);
                // Written in place: a value's bytes never pass through a
                // vector of their own (a 600 MB buffer fills in a second,
                // not in tens of seconds). 64-bit integers are drawn and
                // written as integers: through an f64 they would keep 53
                // bits, and a U64 range past 2^63 would stop there.
                let mut d = Vec::with_capacity(len * b.elem.size());
                for _ in 0..len {
                    match b.elem {
                        Elem::U64 => {
                            d.extend_from_slice(&rng.gen_range(lo as u64..=hi as u64).to_le_bytes())
                        }
                        Elem::I64 => {
                            d.extend_from_slice(&rng.gen_range(lo as i64..=hi as i64).to_le_bytes())
                        }
                        _ if float => {
                            encode_into(b.elem, lo + (hi - lo) * rng.gen::<f64>(), &mut d)
                        }
                        _ => {
                            encode_into(b.elem, rng.gen_range(lo as i64..=hi as i64) as f64, &mut d)
                        }
                    }
                }
                d
            }
            Init::File(f) => {
                let d = read(f).map_err(|e| LaunchError::Invalid(format!("{what}: {e}")))?;
                if d.len() != len * b.elem.size() {
                    return invalid(format!(
                        "{what}: `{f}` holds {} bytes, the buffer needs {} ({len} x {:?})",
                        d.len(),
                        len * b.elem.size(),
                        b.elem
                    ));
                }
                d
            }
        };
        buffers.push(Buffer {
            name: b.name.clone(),
            elem: b.elem,
            data,
        });
    }
    for (i, a) in spec.args.iter().enumerate() {
        if let Arg::Buffer(n) = a {
            if !buffers.iter().any(|b| &b.name == n) {
                return invalid(format!(
                    "argument {} (Buffer(\"{n}\")): no buffer of that name",
                    i + 1
                ));
            }
        }
    }
    let mut expected = Vec::with_capacity(spec.checks.len());
    for c in &spec.checks {
        let Some(buf) = buffers.iter().find(|b| b.name == c.buffer) else {
            return invalid(format!("check of `{}`: no buffer of that name", c.buffer));
        };
        // A reference file is read now: a missing or wrongly sized one is
        // an error before the run, not after it.
        expected.push(match &c.reference {
            Reference::File(f) => {
                let d = read(f)
                    .map_err(|e| LaunchError::Invalid(format!("check of `{}`: {e}", c.buffer)))?;
                if d.len() != buf.data.len() {
                    return invalid(format!(
                        "check of `{}`: `{f}` holds {} bytes, the buffer {} ({} x {:?})",
                        c.buffer,
                        d.len(),
                        buf.data.len(),
                        buf.data.len() / buf.elem.size(),
                        buf.elem
                    ));
                }
                Some(d)
            }
            Reference::Builtin { .. } => None,
        });
        if let Reference::Builtin { name, inputs, .. } = &c.reference {
            if reference::builtin(name).is_none() {
                return invalid(format!(
                    "check of `{}`: no built-in reference `{name}` (there are: {})",
                    c.buffer,
                    reference::names().join(", ")
                ));
            }
            for i in inputs {
                if !buffers.iter().any(|b| &b.name == i) {
                    return invalid(format!("check of `{}`: input `{i}` is no buffer", c.buffer));
                }
            }
        }
    }
    // Evaluate scalar arguments now, so errors surface before the run.
    let mut args = Vec::new();
    for (i, a) in spec.args.iter().enumerate() {
        let what = format!("argument {}", i + 1);
        // A value the parameter's type cannot hold is refused, not wrapped.
        let fits = |n: &Num, range: std::ops::RangeInclusive<i64>| {
            let v = num(n, &what)?;
            if range.contains(&v) {
                Ok(Num::Lit(v))
            } else {
                invalid(format!(
                    "{what}, {}: {v} is outside {}..={}",
                    show_arg(a),
                    range.start(),
                    range.end()
                ))
            }
        };
        args.push(match a {
            Arg::Buffer(n) => Arg::Buffer(n.clone()),
            Arg::I32(n) => Arg::I32(fits(n, i32::MIN as i64..=i32::MAX as i64)?),
            Arg::U32(n) => Arg::U32(fits(n, 0..=u32::MAX as i64)?),
            Arg::I64(n) => Arg::I64(Num::Lit(num(n, &what)?)),
            Arg::U64(n) => Arg::U64(fits(n, 0..=i64::MAX)?),
            Arg::F32(r) => {
                let v = real(r, &what)?;
                if v.is_finite() && !(v as f32).is_finite() {
                    return invalid(format!(
                        "{what}, {}: beyond the largest f32, {:e}",
                        show_arg(a),
                        f32::MAX
                    ));
                }
                Arg::F32(Real::Lit(v))
            }
            Arg::F64(r) => Arg::F64(Real::Lit(real(r, &what)?)),
        });
    }
    let stack_size = match &spec.stack_size {
        Some(n) => {
            let v = num(n, "stack_size")?;
            if !(0..=limits.stack_bytes as i64).contains(&v) {
                return invalid(format!(
                    "stack_size: {v} bytes per thread is outside 0..={}",
                    limits.stack_bytes
                ));
            }
            v as u32
        }
        None => DEFAULT_STACK,
    };
    let mut checks = spec.checks.clone();
    for c in &mut checks {
        if let Reference::Builtin { params, .. } = &mut c.reference {
            for (k, v) in params.iter_mut() {
                *v = Num::Lit(num(v, &format!("check of `{}`: parameter {k}", c.buffer))?);
            }
        }
    }
    Ok(Resolved {
        kernel: spec.kernel.clone(),
        cubin: spec.cubin.clone().or_else(|| spec.source.clone()),
        nvrtc_options: spec.nvrtc_options.clone(),
        stack_size,
        memory: match spec.memory {
            Some(Memory::Driver) => crate::mem::MemMode::Driver,
            _ => crate::mem::MemMode::Strict,
        },
        expected,
        vars,
        dims,
        buffers,
        args,
        checks,
        limit: spec.instruction_limit.unwrap_or(1 << 32),
        flops,
    })
}

/// Whether `v` is a value of element type `e`: an integer in its range, or a
/// float inside its finite range (or infinite or NaN as written).
pub fn fits(e: Elem, v: f64) -> Result<(), String> {
    let (lo, hi) = match e {
        Elem::U8 => (0.0, u8::MAX as f64),
        Elem::I8 => (i8::MIN as f64, i8::MAX as f64),
        Elem::U16 => (0.0, u16::MAX as f64),
        Elem::I16 => (i16::MIN as f64, i16::MAX as f64),
        Elem::U32 => (0.0, u32::MAX as f64),
        Elem::I32 => (i32::MIN as f64, i32::MAX as f64),
        Elem::U64 => (0.0, u64::MAX as f64),
        Elem::I64 => (i64::MIN as f64, i64::MAX as f64),
        Elem::F32 => {
            return if v.is_finite() && (v as f32).is_infinite() {
                Err(format!(
                    "outside the range of {e:?} (largest {:e})",
                    f32::MAX
                ))
            } else {
                Ok(())
            };
        }
        Elem::F64 => return Ok(()),
    };
    if v.fract() != 0.0 || v.is_nan() {
        return Err(format!("{e:?} holds integers"));
    }
    if v < lo || v > hi {
        return Err(format!("outside the range of {e:?} ({lo}..={hi})"));
    }
    Ok(())
}

/// One element's little-endian bytes (integers wrap, floats round to nearest).
pub fn encode(e: Elem, v: f64) -> Vec<u8> {
    let mut out = Vec::with_capacity(e.size());
    encode_into(e, v, &mut out);
    out
}

/// [`encode`], appended to `out`.
#[inline]
pub fn encode_into(e: Elem, v: f64, out: &mut Vec<u8>) {
    match e {
        Elem::U8 => out.push(v as i64 as u8),
        Elem::I8 => out.push(v as i64 as i8 as u8),
        Elem::U16 => out.extend_from_slice(&(v as i64 as u16).to_le_bytes()),
        Elem::I16 => out.extend_from_slice(&(v as i64 as i16).to_le_bytes()),
        Elem::U32 => out.extend_from_slice(&(v as i64 as u32).to_le_bytes()),
        Elem::I32 => out.extend_from_slice(&(v as i64 as i32).to_le_bytes()),
        Elem::U64 => out.extend_from_slice(&(v as u64).to_le_bytes()),
        Elem::I64 => out.extend_from_slice(&(v as i64).to_le_bytes()),
        Elem::F32 => out.extend_from_slice(&(v as f32).to_le_bytes()),
        Elem::F64 => out.extend_from_slice(&v.to_le_bytes()),
    }
}

/// Packs the arguments into the kernel's parameter area, checking each against
/// the cubin's parameter sizes. `addr` gives a buffer's device address.
pub fn pack_params(
    r: &Resolved,
    params: &[KernelParam],
    param_size: u32,
    addr: &dyn Fn(&str) -> u64,
) -> Result<Vec<u8>, LaunchError> {
    if r.args.len() != params.len() {
        return invalid(format!(
            "kernel `{}` takes {} parameters, the launch file gives {}",
            r.kernel,
            params.len(),
            r.args.len()
        ));
    }
    let mut out = vec![0u8; param_size as usize];
    for (i, (a, p)) in r.args.iter().zip(params).enumerate() {
        let bytes: Vec<u8> = match a {
            Arg::Buffer(n) => addr(n).to_le_bytes().to_vec(),
            Arg::I32(Num::Lit(v)) => (*v as i32).to_le_bytes().to_vec(),
            Arg::U32(Num::Lit(v)) => (*v as u32).to_le_bytes().to_vec(),
            Arg::I64(Num::Lit(v)) | Arg::U64(Num::Lit(v)) => v.to_le_bytes().to_vec(),
            Arg::F32(Real::Lit(v)) => (*v as f32).to_le_bytes().to_vec(),
            Arg::F64(Real::Lit(v)) => v.to_le_bytes().to_vec(),
            _ => return invalid("argument not evaluated"),
        };
        if bytes.len() != p.size as usize {
            return invalid(format!(
                "argument {} ({}) is {} bytes, the kernel's parameter {} is {} bytes",
                i + 1,
                show_arg(a),
                bytes.len(),
                i + 1,
                p.size
            ));
        }
        let o = p.offset as usize;
        if o + bytes.len() > out.len() {
            return invalid(format!(
                "parameter {} lies outside the parameter area",
                i + 1
            ));
        }
        out[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(out)
}

/// An argument as a launch file writes it: `I64(2000)`, `Buffer("x")`.
fn show_arg(a: &Arg) -> String {
    let n = |n: &Num| match n {
        Num::Lit(v) => v.to_string(),
        Num::Expr(e) => format!("\"{e}\""),
    };
    let r = |r: &Real| match r {
        Real::Lit(v) => v.to_string(),
        Real::Expr(e) => format!("\"{e}\""),
    };
    match a {
        Arg::Buffer(b) => format!("Buffer(\"{b}\")"),
        Arg::I32(v) => format!("I32({})", n(v)),
        Arg::U32(v) => format!("U32({})", n(v)),
        Arg::I64(v) => format!("I64({})", n(v)),
        Arg::U64(v) => format!("U64({})", n(v)),
        Arg::F32(v) => format!("F32({})", r(v)),
        Arg::F64(v) => format!("F64({})", r(v)),
    }
}

/// The outcome of one check.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckResult {
    pub buffer: String,
    pub elements: usize,
    pub mismatches: usize,
    /// The first mismatch: index, value, expected (as text).
    pub first: Option<(usize, String, String)>,
    /// The largest difference in ulps among floats.
    pub max_ulp: u64,
}

impl CheckResult {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

/// Compares `got` (the buffer's final bytes) with the reference.
pub fn check(
    c: &CheckSpec,
    r: &Resolved,
    initial: &[Buffer],
    got: &Buffer,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<CheckResult, LaunchError> {
    let expected = match &c.reference {
        Reference::File(f) => {
            let i = r.checks.iter().position(|x| std::ptr::eq(x, c));
            match i.and_then(|i| r.expected.get(i)).cloned().flatten() {
                Some(d) => d,
                None => read(f)
                    .map_err(|e| LaunchError::Invalid(format!("check of `{}`: {e}", c.buffer)))?,
            }
        }
        Reference::Builtin {
            name,
            inputs,
            params,
        } => {
            let f = reference::builtin(name)
                .ok_or_else(|| LaunchError::Invalid(format!("no built-in reference `{name}`")))?;
            let mut p: BTreeMap<String, i64> = r.vars.clone();
            for (k, v) in params {
                if let Num::Lit(v) = v {
                    p.insert(k.clone(), *v);
                }
            }
            let bufs = inputs
                .iter()
                .map(|i| {
                    let b = initial
                        .iter()
                        .find(|b| &b.name == i)
                        .expect("checked in resolve");
                    (b.name.as_str(), b.elem, b.data.as_slice())
                })
                .collect();
            f(&RefInput {
                buffers: bufs,
                params: &p,
            })
            .map_err(|e| LaunchError::Invalid(format!("reference `{name}`: {e}")))?
        }
    };
    if expected.len() != got.data.len() {
        return invalid(format!(
            "check of `{}`: the reference has {} bytes, the buffer {}",
            c.buffer,
            expected.len(),
            got.data.len()
        ));
    }
    let es = got.elem.size();
    let n = got.data.len() / es;
    let mut res = CheckResult {
        buffer: c.buffer.clone(),
        elements: n,
        mismatches: 0,
        first: None,
        max_ulp: 0,
    };
    for i in 0..n {
        let g = &got.data[i * es..(i + 1) * es];
        let e = &expected[i * es..(i + 1) * es];
        let (ok, ulp) = match (c.compare, got.elem) {
            (_, _) if g == e => (true, 0),
            (Compare::Ulp(u), Elem::F32) => {
                let (a, b) = (
                    f32::from_le_bytes(g.try_into().unwrap_or([0; 4])),
                    f32::from_le_bytes(e.try_into().unwrap_or([0; 4])),
                );
                let d = ulp32(a, b);
                (d <= u as u64, d)
            }
            (Compare::Ulp(u), Elem::F64) => {
                let (a, b) = (
                    f64::from_le_bytes(g.try_into().unwrap_or([0; 8])),
                    f64::from_le_bytes(e.try_into().unwrap_or([0; 8])),
                );
                let d = ulp64(a, b);
                (d <= u as u64, d)
            }
            _ => (false, u64::MAX),
        };
        if ulp != u64::MAX {
            res.max_ulp = res.max_ulp.max(ulp);
        }
        if !ok {
            res.mismatches += 1;
            if res.first.is_none() {
                res.first = Some((i, show(got.elem, g), show(got.elem, e)));
            }
        }
    }
    Ok(res)
}

fn ulp32(a: f32, b: f32) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX - 1;
    }
    let key = |x: f32| {
        let b = x.to_bits() as i64;
        if b & 0x8000_0000 != 0 {
            0x8000_0000 - b
        } else {
            b
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulp64(a: f64, b: f64) -> u64 {
    if a.is_nan() && b.is_nan() {
        return 0;
    }
    if a.is_nan() || b.is_nan() {
        return u64::MAX - 1;
    }
    let key = |x: f64| {
        let b = x.to_bits() as i128;
        if b & (1 << 63) != 0 {
            (1i128 << 63) - b
        } else {
            b
        }
    };
    (key(a) - key(b)).unsigned_abs().min(u64::MAX as u128 - 1) as u64
}

/// One element as text.
pub fn show(e: Elem, b: &[u8]) -> String {
    let a4 = |b: &[u8]| -> [u8; 4] { b.try_into().unwrap_or([0; 4]) };
    let a8 = |b: &[u8]| -> [u8; 8] { b.try_into().unwrap_or([0; 8]) };
    match e {
        Elem::U8 => b[0].to_string(),
        Elem::I8 => (b[0] as i8).to_string(),
        Elem::U16 => u16::from_le_bytes([b[0], b[1]]).to_string(),
        Elem::I16 => i16::from_le_bytes([b[0], b[1]]).to_string(),
        Elem::U32 => u32::from_le_bytes(a4(b)).to_string(),
        Elem::I32 => i32::from_le_bytes(a4(b)).to_string(),
        Elem::U64 => u64::from_le_bytes(a8(b)).to_string(),
        Elem::I64 => i64::from_le_bytes(a8(b)).to_string(),
        Elem::F32 => {
            let v = f32::from_le_bytes(a4(b));
            format!("{v:e} ({:#010x})", v.to_bits())
        }
        Elem::F64 => {
            let v = f64::from_le_bytes(a8(b));
            format!("{v:e} ({:#018x})", v.to_bits())
        }
    }
}

/// Evaluates an integer expression: `+ - * / %`, parentheses, unary minus,
/// `min(a, b)`, `max(a, b)`, integer literals and variables.
pub fn eval(e: &str, vars: &BTreeMap<String, i64>) -> Result<i64, String> {
    let toks = tokenize(e)?;
    let mut p = Parser {
        toks: &toks,
        i: 0,
        vars,
        depth: 0,
    };
    let v = p.expr()?;
    if p.i != toks.len() {
        return Err(format!("unexpected `{}`", toks[p.i]));
    }
    Ok(v)
}

fn tokenize(e: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let cs: Vec<char> = e.chars().collect();
    let mut i = 0;
    while i < cs.len() {
        let c = cs[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let s = i;
            while i < cs.len() && (cs[i].is_ascii_alphanumeric() || cs[i] == '_') {
                i += 1;
            }
            out.push(cs[s..i].iter().collect());
        } else if "+-*/%(),".contains(c) {
            out.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("unexpected character `{c}`"));
        }
    }
    Ok(out)
}

/// The deepest nesting of parentheses, `min`/`max` and unary minus an
/// expression may have.
const MAX_DEPTH: u32 = 64;

struct Parser<'a> {
    toks: &'a [String],
    i: usize,
    vars: &'a BTreeMap<String, i64>,
    /// Nesting so far.
    depth: u32,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&str> {
        self.toks.get(self.i).map(String::as_str)
    }
    fn expr(&mut self) -> Result<i64, String> {
        let mut v = self.term()?;
        while let Some(op) = self.peek() {
            let op = op.to_string();
            if op != "+" && op != "-" {
                break;
            }
            self.i += 1;
            let r = self.term()?;
            v = if op == "+" {
                v.checked_add(r)
            } else {
                v.checked_sub(r)
            }
            .ok_or("overflow")?;
        }
        Ok(v)
    }
    fn term(&mut self) -> Result<i64, String> {
        let mut v = self.unary()?;
        while let Some(op) = self.peek() {
            let op = op.to_string();
            if op != "*" && op != "/" && op != "%" {
                break;
            }
            self.i += 1;
            let r = self.unary()?;
            v = match op.as_str() {
                "*" => v.checked_mul(r).ok_or("overflow")?,
                _ if r == 0 => return Err("division by zero".into()),
                "/" => v.checked_div(r).ok_or("overflow")?,
                _ => v.checked_rem(r).ok_or("overflow")?,
            };
        }
        Ok(v)
    }
    fn unary(&mut self) -> Result<i64, String> {
        if self.peek() == Some("-") {
            self.i += 1;
            self.deeper()?;
            let v = self.unary()?.checked_neg().ok_or("overflow")?;
            self.depth -= 1;
            return Ok(v);
        }
        self.atom()
    }
    /// Counts one more level of nesting, refusing more than [`MAX_DEPTH`]
    /// (the parser recurses; a deep enough text would overflow the stack).
    fn deeper(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested more than {MAX_DEPTH} deep"));
        }
        Ok(())
    }
    fn atom(&mut self) -> Result<i64, String> {
        let t = self.peek().ok_or("unexpected end")?.to_string();
        self.i += 1;
        if t == "(" {
            self.deeper()?;
            let v = self.expr()?;
            self.depth -= 1;
            if self.peek() != Some(")") {
                return Err("missing `)`".into());
            }
            self.i += 1;
            return Ok(v);
        }
        if t == "min" || t == "max" {
            if self.peek() != Some("(") {
                return Err(format!("`{t}` needs (a, b)"));
            }
            self.i += 1;
            self.deeper()?;
            let a = self.expr()?;
            if self.peek() != Some(",") {
                return Err(format!("`{t}` needs two arguments"));
            }
            self.i += 1;
            let b = self.expr()?;
            if self.peek() != Some(")") {
                return Err("missing `)`".into());
            }
            self.i += 1;
            self.depth -= 1;
            return Ok(if t == "min" { a.min(b) } else { a.max(b) });
        }
        if let Some(h) = t.strip_prefix("0x") {
            return i64::from_str_radix(h, 16).map_err(|_| format!("bad number `{t}`"));
        }
        if t.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            return t.parse().map_err(|_| format!("bad number `{t}`"));
        }
        self.vars
            .get(&t)
            .copied()
            .ok_or_else(|| format!("unknown variable `{t}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions() {
        let mut v = BTreeMap::new();
        v.insert("n".to_string(), 1000);
        assert_eq!(eval("(n + 255) / 256", &v), Ok(4));
        assert_eq!(eval("n*n - -1", &v), Ok(1_000_001));
        assert_eq!(eval("max(n % 7, 3)", &v), Ok(6));
        assert!(eval("m", &v).unwrap_err().contains("unknown variable `m`"));
        assert!(eval("n / 0", &v).is_err());
        let min = "(0 - 9223372036854775807 - 1)";
        for e in [
            format!("{min} / (0 - 1)"),
            format!("{min} % (0 - 1)"),
            format!("-{min}"),
        ] {
            assert_eq!(eval(&e, &v), Err("overflow".to_string()), "{e}");
        }
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(eval(&deep, &v).unwrap_err().contains("nested more than 64"));
        assert!(eval(&format!("{}1", "-".repeat(1000)), &v).is_err());
        assert_eq!(
            eval(&format!("{}1{}", "(".repeat(60), ")".repeat(60)), &v),
            Ok(1)
        );
    }

    /// 64-bit integers are drawn over the whole range asked, every bit
    /// of them: through an f64 they kept 53 bits and stopped at 2^63.
    #[test]
    fn random_64_bit_integers_use_every_bit() {
        let text = r#"(kernel: "k", grid: (1, 1, 1), block: (32, 1, 1), buffers: [
            (name: "u", elem: U64, len: 1000, init: Random(seed: 1, lo: 0, hi: 18446744073709551615.0)),
            (name: "i", elem: I64, len: 1000, init: Random(seed: 2, lo: -9223372036854775808.0, hi: 9223372036854775807.0)),
        ])"#;
        let no_files = |_: &str| -> Result<Vec<u8>, String> { Err("no files".into()) };
        let r = resolve(&parse(text).unwrap(), &[], &no_files).unwrap();
        let words = |d: &[u8]| -> Vec<u64> {
            d.chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        for b in &r.buffers {
            let w = words(&b.data);
            // About half past 2^63 (for I64, below 0), and the low bits an
            // f64 cannot hold set in nearly all.
            let high = w.iter().filter(|&&x| x >> 63 == 1).count();
            let low = w.iter().filter(|&&x| x & 0x7ff != 0).count();
            assert!(
                (400..600).contains(&high),
                "{}: {high} of 1000 high",
                b.name
            );
            assert!(low > 990, "{}: {low} of 1000 with low bits", b.name);
        }
    }

    /// Integer ramps count in integers: exact past 2^53, and every type
    /// wraps alike (a U64 ramp below 0 stopped at 0, one past 2^53 lost
    /// its odd values).
    #[test]
    fn integer_ramps_are_exact_and_wrap() {
        let no_files = |_: &str| -> Result<Vec<u8>, String> { Err("no files".into()) };
        let ramp = |elem: &str, start: &str, step: &str, len: usize| {
            let text = format!(
                r#"(kernel: "k", grid: (1, 1, 1), block: (32, 1, 1), buffers: [
                (name: "x", elem: {elem}, len: {len}, init: Ramp(start: {start}, step: {step}))])"#
            );
            resolve(&parse(&text).unwrap(), &[], &no_files).map(|r| r.buffers[0].data.clone())
        };
        let u64s = |d: Vec<u8>| -> Vec<u64> {
            d.chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect()
        };
        let top = (1u64 << 53) - 1;
        // 2^53 - 1 with steps of 3: every value past 2^53 is odd or even
        // as it should be, none rounded to a neighbour.
        let d = u64s(ramp("U64", &format!("{top}"), "3", 4).unwrap());
        assert_eq!(d, [top, top + 3, top + 6, top + 9]);
        // Down through 0: a U64 wraps to 2^64 - 1 as a U32 wraps to 2^32 - 1.
        assert_eq!(u64s(ramp("U64", "1", "-1", 3).unwrap()), [1, 0, u64::MAX]);
        let d = ramp("U32", "1", "-1", 3).unwrap();
        assert_eq!(&d[8..12], &u32::MAX.to_le_bytes());
        let d = ramp("I16", "32767", "1", 2).unwrap();
        assert_eq!(&d[2..4], &i16::MIN.to_le_bytes());
        let d = ramp("I64", "-2", "1", 4).unwrap();
        assert_eq!(u64s(d), [(-2i64) as u64, u64::MAX, 0, 1]);
        // Floats still step in floating point.
        let d = ramp("F64", "0.5", "0.25", 3).unwrap();
        assert_eq!(&d[16..24], &1.0f64.to_le_bytes());
        for (elem, start, step, want) in [
            (
                "U32",
                "0",
                "0.5",
                "buffer `x`: Ramp's step 0.5: U32 holds integers",
            ),
            (
                "I64",
                "9007199254740992.0",
                "1",
                "buffer `x`: Ramp's start 9007199254740992: from 2^53 on it is not exact",
            ),
        ] {
            let e = ramp(elem, start, step, 4).unwrap_err().to_string();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn launch_files_resolve_and_errors_say_where() {
        let text = r#"(
            kernel: "k",
            vars: { "n": 64 },
            grid: ("n / 32", 1, 1),
            block: (32, 1, 1),
            buffers: [
                (name: "x", elem: F32, len: "n", init: Ramp(start: 1.0, step: 2.0)),
                (name: "r", elem: U32, len: 4, init: Random(seed: 7, lo: 0, hi: 9)),
            ],
            args: [Buffer("x"), I32("n")],
        )"#;
        let s = parse(text).unwrap();
        let no_files = |_: &str| -> Result<Vec<u8>, String> { Err("no files".into()) };
        let r = resolve(&s, &[("n".into(), 128)], &no_files).unwrap();
        assert_eq!(r.dims.grid, [4, 1, 1]);
        assert_eq!(r.buffers[0].data.len(), 128 * 4);
        assert_eq!(&r.buffers[0].data[4..8], &3.0f32.to_le_bytes());
        let again = resolve(&s, &[], &no_files).unwrap();
        assert_eq!(
            again.buffers[1],
            resolve(&s, &[], &no_files).unwrap().buffers[1]
        );
        assert!(resolve(&s, &[("m".into(), 1)], &no_files).is_err());
        let e = parse("(kernel: \"k\",\n grid: (1, 1, 1),\n block: (1, 1, 1),\n bogus: 3)")
            .unwrap_err();
        assert!(matches!(e, LaunchError::Syntax { line: 4, .. }), "{e}");
        assert!(
            e.to_string()
                .contains("unknown field `bogus` in the launch file: the fields are `kernel`, "),
            "{e}"
        );
        // In the file's words, not the reading types' (`Elem`, `Num`).
        let head = "(kernel: \"k\", grid: (1, 1, 1), block: (1, 1, 1), buffers: [(name: \"a\", ";
        for (tail, want) in [
            (
                "elem: F65, len: 4)])",
                "unknown `F65` in a buffer's `elem`: it is one of `U8`, ",
            ),
            (
                "elem: F32, len: 1.5)])",
                "expected a whole number or an expression in quotes",
            ),
            (
                "elem: F32, len: 4, init: Fill(true))])",
                "expected a number or an integer expression in quotes",
            ),
        ] {
            let e = parse(&format!("{head}{tail}")).unwrap_err().to_string();
            assert!(e.contains(want), "{tail}: {e}");
        }
    }

    #[test]
    fn every_resolve_error_says_what_and_where() {
        // Each launch file: the kernel "k" on one block of 32 threads, one
        // float buffer "x" of n = 64, and the fields given.
        let with = |fields: &str| {
            format!(
                "(kernel: \"k\", vars: {{ \"n\": 64 }}, grid: (1, 1, 1), block: (32, 1, 1), {fields})"
            )
        };
        let x = r#"buffers: [(name: "x", elem: F32, len: "n")]"#;
        let files = |f: &str| -> Result<Vec<u8>, String> { Err(format!("{f}: no such file")) };
        for (text, want) in [
            (
                with(r#"cubin: "k.cubin", source: "k.cu""#),
                "`cubin` and `source` both name the kernel file: give one",
            ),
            (
                with(r#"flops: "n / m""#),
                "flops: `n / m`: unknown variable `m`",
            ),
            (with(r#"flops: "0 - n""#), "flops: -64 is negative"),
            (
                with(&format!(r#"flops: "{}1""#, "-".repeat(100))),
                &format!("flops: `{}...`: nested more than 64 deep", "-".repeat(60)),
            ),
            (
                with(r#"requires: [(zero: "n % 48", why: "n must be a multiple of 48")]"#),
                "n must be a multiple of 48 (n=64: `n % 48` is 16)",
            ),
            (
                with(r#"requires: [(positive: "n - 64", why: "n must exceed 64")]"#),
                "n must exceed 64 (n=64: `n - 64` is 0)",
            ),
            (
                with(r#"requires: [(zero: "n / 0", why: "w")]"#),
                "requires: `n / 0`: division by zero",
            ),
            (
                with(r#"buffers: [(name: "x", elem: F32, len: "0 - n")]"#),
                "buffer `x`: length -64 is outside 0..=2^32",
            ),
            (
                with(
                    r#"buffers: [(name: "x", elem: F32, len: 4, init: Random(seed: 1, lo: 2, hi: 1))]"#,
                ),
                "buffer `x`: random range [2, 1] is empty",
            ),
            (
                with(
                    r#"buffers: [(name: "x", elem: U32, len: 4, init: Random(seed: 1, lo: -5, hi: 5))]"#,
                ),
                "buffer `x`: Random's lo -5: outside the range of U32 (0..=4294967295)",
            ),
            (
                with(
                    r#"buffers: [(name: "x", elem: I8, len: 4, init: Random(seed: 1, lo: 0, hi: 2.5))]"#,
                ),
                "buffer `x`: Random's hi 2.5: I8 holds integers",
            ),
            (
                with(r#"buffers: [(name: "x", elem: U64, len: 4, init: Fill(9007199254740993))]"#),
                "buffer `x`: Fill(9007199254740992): from 2^53 on a fill is not exact (it is read as a double); use File(...) for such values",
            ),
            (
                with(r#"buffers: [(name: "x", elem: F32, len: 4, init: File("x.bin"))]"#),
                "buffer `x`: x.bin: no such file",
            ),
            (
                with(&format!(
                    r#"{x}, checks: [(buffer: "y", reference: File("y.bin"), compare: BitExact)]"#
                )),
                "check of `y`: no buffer of that name",
            ),
            (
                with(&format!(
                    r#"{x}, checks: [(buffer: "x", reference: File("x.bin"), compare: BitExact)]"#
                )),
                "check of `x`: x.bin: no such file",
            ),
            (
                with(&format!(
                    r#"{x}, checks: [(buffer: "x", reference: Builtin(name: "saxpy", inputs: ["z"]), compare: BitExact)]"#
                )),
                "check of `x`: input `z` is no buffer",
            ),
            (
                with(r#"args: [I32("n"), U32("n - 65")]"#),
                "argument 2, U32(\"n - 65\"): -1 is outside 0..=4294967295",
            ),
            (
                with(r#"args: [I32("n * 100000000")]"#),
                "argument 1, I32(\"n * 100000000\"): 6400000000 is outside -2147483648..=2147483647",
            ),
            (
                with(r#"args: [U64(-1)]"#),
                "argument 1, U64(-1): -1 is outside 0..=9223372036854775807",
            ),
            (
                with(r#"args: [F32(1e39)]"#),
                "argument 1, F32(1000000000000000000000000000000000000000): beyond the largest f32, 3.4028235e38",
            ),
        ] {
            let spec = parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            let got = resolve(&spec, &[], &files).err().map(|e| e.to_string());
            assert_eq!(got.as_deref(), Some(want), "{text}");
        }
    }
}

/// Why running a launch failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Load(#[from] crate::program::LoadError),
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Sim(#[from] crate::func::SimError),
}

/// A completed launch: what ran, the buffers' final contents and the checks.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub stats: crate::func::RunStats,
    /// The timing model's results, when the run was timed.
    pub timed: Option<crate::timing::Timed>,
    /// Wall time of the simulation alone (not loading, not the checks).
    pub sim_time: std::time::Duration,
    pub registers: u32,
    pub shared_bytes: u32,
    pub finals: Vec<Buffer>,
    /// The cubin's module variables (`__device__` and `__managed__`, in
    /// `.nv.global` and `.nv.global.init`) after the run, in symbol order:
    /// name and bytes.
    pub variables: Vec<(String, Vec<u8>)>,
    pub checks: Vec<CheckResult>,
    /// Accesses past a buffer's end inside its rounded allocation (driver-like
    /// memory only): warnings, not faults.
    pub padding: crate::mem::Padding,
}

/// Adds the stack limit to a fault in local memory (where the call stack
/// lives): a recursion deeper than the stack overflows it.
fn stack_note(e: crate::func::SimError, unbounded: bool, r: &Resolved) -> crate::func::SimError {
    match e {
        crate::func::SimError::Fault { what, at } if what.starts_with("out-of-bounds local") => {
            let what = if unbounded {
                format!(
                    "{what} (a stack overflow? the kernel's stack is unbounded (recursion) and gets \
                     {} bytes per thread; raise `stack_size` in the launch file)",
                    r.stack_size
                )
            } else {
                format!("{what} (the kernel's frame and stack as ptxas sized them)")
            };
            crate::func::SimError::Fault { what, at }
        }
        e => e,
    }
}

impl Outcome {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(CheckResult::passed)
    }
}

/// Runs a resolved launch of a kernel of `cubin` functionally on `chip`:
/// allocates and fills its buffers, loads the kernel, packs its parameters, runs
/// every block in `order`, and checks the results.
pub fn execute(
    cubin: &sim_isa::cubin::Cubin,
    r: &Resolved,
    order: crate::func::BlockOrder,
    chip: &crate::config::Chip,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Outcome, RunError> {
    let config = crate::config::Config {
        chip: *chip,
        ..Default::default()
    };
    execute_as(cubin, r, Mode::Functional(order), &config, read)
}

/// How a launch runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// The functional model, blocks in this order.
    Functional(crate::func::BlockOrder),
    /// The cycle-level model, its SMs stepped so (the results are the same
    /// either way).
    Timed(crate::timing::Stepping),
}

/// Runs a resolved launch of a kernel of `cubin` as `mode` says on the chip
/// `config` describes, and checks the results.
pub fn execute_as(
    cubin: &sim_isa::cubin::Cubin,
    r: &Resolved,
    mode: Mode,
    config: &crate::config::Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Outcome, RunError> {
    execute_observed(cubin, r, mode, config, read, &mut crate::timing::Nobody)
}

/// [`execute_as`] with `obs` hearing the timing model's events (a timed run
/// with an active observer steps the SMs in lockstep; the results are the
/// same).
pub fn execute_observed<O: crate::timing::Observer>(
    cubin: &sim_isa::cubin::Cubin,
    r: &Resolved,
    mode: Mode,
    config: &crate::config::Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    obs: &mut O,
) -> Result<Outcome, RunError> {
    let mut ctl = crate::timing::Control::default();
    execute_controlled(cubin, r, mode, config, read, obs, &mut ctl)
}

/// [`execute_observed`] with a timed run under `ctl`, which may end it
/// early. A partial run ([`crate::timing::Timed::partial`]) checks nothing:
/// its buffers hold what the blocks that ran wrote, and `checks` is empty.
pub fn execute_controlled<O: crate::timing::Observer>(
    cubin: &sim_isa::cubin::Cubin,
    r: &Resolved,
    mode: Mode,
    config: &crate::config::Config,
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    obs: &mut O,
    ctl: &mut crate::timing::Control,
) -> Result<Outcome, RunError> {
    let chip = &config.chip;
    let mut global = crate::mem::GlobalMem::with_mode(r.memory);
    let mut addrs = Vec::with_capacity(r.buffers.len());
    for b in &r.buffers {
        addrs.push((b.name.as_str(), global.alloc(&b.name, b.data.clone())));
    }
    let load = crate::program::LoadOptions {
        unbounded_stack: r.stack_size,
    };
    let prog = crate::program::Program::load_with(cubin, &r.kernel, &mut global, &load)?;
    let unbounded = cubin.kernel(&r.kernel).is_some_and(|k| {
        k.min_stack_size == crate::program::UNBOUNDED_STACK
            || k.max_stack_size == crate::program::UNBOUNDED_STACK
    });
    let addr = |n: &str| addrs.iter().find(|(a, _)| *a == n).map_or(0, |x| x.1);
    let params = pack_params(r, &prog.params, prog.param_size, &addr)?;
    let t0 = std::time::Instant::now();
    let (stats, timed) = match mode {
        Mode::Functional(order) => {
            let opts = crate::func::RunOptions {
                limit: r.limit,
                order,
                chip: *chip,
            };
            (
                crate::func::run_with(&prog, &mut global, &r.dims, &params, &opts)
                    .map_err(|e| stack_note(e, unbounded, r))?,
                None,
            )
        }
        Mode::Timed(stepping) => {
            let t = crate::timing::run_controlled(
                stepping,
                &prog,
                &mut global,
                &r.dims,
                &params,
                config,
                r.limit,
                obs,
                ctl,
            )
            .map_err(|e| stack_note(e, unbounded, r))?;
            let stats = crate::func::RunStats {
                blocks: t.blocks_done,
                warp_instructions: t.stats.warp_instructions,
            };
            (stats, Some(t))
        }
    };
    let sim_time = t0.elapsed();
    let finals: Vec<Buffer> = r
        .buffers
        .iter()
        .map(|b| Buffer {
            name: b.name.clone(),
            elem: b.elem,
            data: global
                .get(&b.name)
                .map(|a| a.bytes().to_vec())
                .unwrap_or_default(),
        })
        .collect();
    let variables = module_variables(cubin, &global);
    let whole = timed.as_ref().is_none_or(|t| t.partial.is_none());
    let mut checks = Vec::with_capacity(r.checks.len());
    for c in r.checks.iter().filter(|_| whole) {
        let got = finals
            .iter()
            .find(|b| b.name == c.buffer)
            .ok_or_else(|| LaunchError::Invalid(format!("no buffer `{}`", c.buffer)))?;
        checks.push(check(c, r, &r.buffers, got, read)?);
    }
    let padding = global.padding();
    Ok(Outcome {
        padding,
        stats,
        timed,
        sim_time,
        registers: prog.registers,
        shared_bytes: prog.shared_size + r.dims.dynamic_shared,
        finals,
        variables,
        checks,
    })
}

/// Each module variable of `cubin` (a data symbol in `.nv.global` or
/// `.nv.global.init`) with its bytes in `global`, where the load placed them.
fn module_variables(
    cubin: &sim_isa::cubin::Cubin,
    global: &crate::mem::GlobalMem,
) -> Vec<(String, Vec<u8>)> {
    let sections = [cubin.global_init.as_ref(), cubin.global.as_ref()];
    let mut v = Vec::new();
    for s in cubin
        .symbols
        .iter()
        .filter(|s| s.kind() == sim_isa::cubin::STT_OBJECT)
    {
        let Some(d) = sections
            .into_iter()
            .flatten()
            .find(|d| d.section == s.shndx as usize)
        else {
            continue;
        };
        let Some(a) = global.get(&d.name) else {
            continue;
        };
        let bytes = a.bytes();
        let end = s.value.saturating_add(s.size);
        if end <= bytes.len() as u64 {
            v.push((
                s.name.clone(),
                bytes[s.value as usize..end as usize].to_vec(),
            ));
        }
    }
    v
}
