//! Evaluating a launch file against its variables into a concrete launch:
//! the grid, every buffer filled, the arguments, the checks' references
//! read, each value checked (and a launch past the host's [`Limits`]
//! refused) before anything runs.

use std::collections::BTreeMap;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::spec::*;
use super::{brief, eval, invalid, show_arg, Buffer, LaunchError};
use crate::func::Dims;
use crate::reference;

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
    let vars = Vars::of(spec, overrides)?;
    vars.requires(&spec.requires)?;
    let flops = match &spec.flops {
        Some(n) => {
            let v = vars.num(n, "flops")?;
            Some(
                u64::try_from(v)
                    .map_err(|_| LaunchError::Invalid(format!("flops: {v} is negative")))?,
            )
        }
        None => None,
    };
    let dims = vars.dims(spec)?;
    let lens = vars.buffer_lens(&spec.buffers, limits)?;
    let mut buffers = Vec::new();
    for (b, &len) in spec.buffers.iter().zip(&lens) {
        if buffers.iter().any(|x: &Buffer| x.name == b.name) {
            return invalid(format!("buffer `{}` is declared twice", b.name));
        }
        buffers.push(Buffer {
            name: b.name.clone(),
            elem: b.elem,
            data: vars.fill(b, len, read)?,
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
    let expected = references(&spec.checks, &buffers, read)?;
    // Evaluate scalar arguments now, so errors surface before the run.
    let args = spec
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| vars.arg(a, &format!("argument {}", i + 1)))
        .collect::<Result<Vec<Arg>, LaunchError>>()?;
    let stack_size = match &spec.stack_size {
        Some(n) => {
            let v = vars.num(n, "stack_size")?;
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
                *v = Num::Lit(vars.num(v, &format!("check of `{}`: parameter {k}", c.buffer))?);
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
        vars: vars.0,
        dims,
        buffers,
        args,
        checks,
        limit: spec.instruction_limit.unwrap_or(1 << 32),
        flops,
    })
}

/// The launch file's variables, `--set` applied, and what is evaluated
/// against them.
struct Vars(BTreeMap<String, i64>);

impl Vars {
    /// The variables of `spec` with `overrides` applied; a variable the
    /// file does not declare is refused.
    fn of(spec: &LaunchSpec, overrides: &[(String, i64)]) -> Result<Vars, LaunchError> {
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
        Ok(Vars(vars))
    }

    /// A whole number, `what` naming it in an error.
    fn num(&self, n: &Num, what: &str) -> Result<i64, LaunchError> {
        match n {
            Num::Lit(v) => Ok(*v),
            Num::Expr(e) => eval(e, &self.0)
                .map_err(|m| LaunchError::Invalid(format!("{what}: `{}`: {m}", brief(e)))),
        }
    }

    /// A number (an expression is an integer's).
    fn real(&self, r: &Real, what: &str) -> Result<f64, LaunchError> {
        match r {
            Real::Lit(v) => Ok(*v),
            Real::Expr(e) => eval(e, &self.0)
                .map(|v| v as f64)
                .map_err(|m| LaunchError::Invalid(format!("{what}: `{}`: {m}", brief(e)))),
        }
    }

    /// Each `requires` entry holds: its error is the entry's `why`, with the
    /// variables' values.
    fn requires(&self, requires: &[Require]) -> Result<(), LaunchError> {
        for r in requires {
            let vals: String = self
                .0
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            for (e, want_zero) in [(&r.zero, true), (&r.positive, false)] {
                let Some(e) = e else { continue };
                let v = eval(e, &self.0)
                    .map_err(|m| LaunchError::Invalid(format!("requires: `{}`: {m}", brief(e))))?;
                if (want_zero && v != 0) || (!want_zero && v <= 0) {
                    return invalid(format!("{} ({vals}: `{}` is {v})", r.why, brief(e)));
                }
            }
        }
        Ok(())
    }

    /// A grid's or a block's three dimensions, each at least 1 and no more
    /// than 32 bits hold (sm_35's own limits, lower, are held by the run).
    fn dim(&self, t: &(Num, Num, Num), what: &str) -> Result<[u32; 3], LaunchError> {
        let mut out = [0u32; 3];
        for (i, n) in [&t.0, &t.1, &t.2].into_iter().enumerate() {
            let v = self.num(n, what)?;
            let axis = ["x", "y", "z"][i];
            if v < 1 {
                return invalid(format!(
                    "{what}: dimension {axis} is {v}, must be at least 1"
                ));
            }
            if v > u32::MAX as i64 {
                let limits = if what == "grid" {
                    "x at most 2147483647, y and z at most 65535"
                } else {
                    "1024 threads, z at most 64"
                };
                return invalid(format!(
                    "{what}: dimension {axis} is {v}, past sm_35's limits ({limits})"
                ));
            }
            out[i] = v as u32;
        }
        Ok(out)
    }

    /// The grid (no more blocks than keplersim simulates), the block and
    /// the dynamic shared memory.
    fn dims(&self, spec: &LaunchSpec) -> Result<Dims, LaunchError> {
        let grid = self.dim(&spec.grid, "grid")?;
        let blocks = grid.iter().map(|&g| g as u64).product::<u64>();
        if blocks > crate::func::MAX_BLOCKS {
            return invalid(format!(
                "grid: {blocks} blocks; keplersim simulates at most {} in one launch",
                crate::func::MAX_BLOCKS
            ));
        }
        Ok(Dims {
            grid,
            block: self.dim(&spec.block, "block")?,
            dynamic_shared: match &spec.dynamic_shared {
                Some(n) => {
                    let v = self.num(n, "dynamic_shared")?;
                    if !(0..=48 * 1024).contains(&v) {
                        return invalid(format!("dynamic_shared: {v} bytes is outside 0..=49152"));
                    }
                    v as u32
                }
                None => 0,
            },
        })
    }

    /// Every buffer's length in elements, all of them first, so that buffers
    /// past the device's memory are refused before any is allocated.
    fn buffer_lens(
        &self,
        buffers: &[BufferSpec],
        limits: &Limits,
    ) -> Result<Vec<usize>, LaunchError> {
        let mut lens = Vec::with_capacity(buffers.len());
        let mut total: u64 = 0;
        for b in buffers {
            let what = format!("buffer `{}`", b.name);
            let len = self.num(&b.len, &format!("{what} len"))?;
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
        Ok(lens)
    }

    /// The contents of buffer `b`, `len` elements, as its `init` says.
    fn fill(
        &self,
        b: &BufferSpec,
        len: usize,
        read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, LaunchError> {
        let what = format!("buffer `{}`", b.name);
        Ok(match &b.init {
            Init::Zero => vec![0; len * b.elem.size()],
            Init::Fill(v) => {
                let v = self.real(v, &what)?;
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
                let (s0, st) = (self.real(start, &what)?, self.real(step, &what)?);
                ramp(b.elem, len, s0, st, &what)?
            }
            Init::Random { seed, lo, hi } => {
                let (lo, hi) = (self.real(lo, &what)?, self.real(hi, &what)?);
                random(b.elem, len, *seed, lo, hi, &what)?
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
        })
    }

    /// A kernel argument evaluated; a value the parameter's type cannot
    /// hold is refused, not wrapped.
    fn arg(&self, a: &Arg, what: &str) -> Result<Arg, LaunchError> {
        let fits = |n: &Num, range: std::ops::RangeInclusive<i64>| {
            let v = self.num(n, what)?;
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
        Ok(match a {
            Arg::Buffer(n) => Arg::Buffer(n.clone()),
            Arg::I32(n) => Arg::I32(fits(n, i32::MIN as i64..=i32::MAX as i64)?),
            Arg::U32(n) => Arg::U32(fits(n, 0..=u32::MAX as i64)?),
            Arg::I64(n) => Arg::I64(Num::Lit(self.num(n, what)?)),
            Arg::U64(n) => Arg::U64(fits(n, 0..=i64::MAX)?),
            Arg::F32(r) => {
                let v = self.real(r, what)?;
                if v.is_finite() && !(v as f32).is_finite() {
                    return invalid(format!(
                        "{what}, {}: beyond the largest f32, {:e}",
                        show_arg(a),
                        f32::MAX
                    ));
                }
                Arg::F32(Real::Lit(v))
            }
            Arg::F64(r) => Arg::F64(Real::Lit(self.real(r, what)?)),
        })
    }
}

/// `len` elements from `s0` in steps of `st`. Integers are counted as
/// integers, so that a 64-bit ramp past 2^53 stays exact and every type wraps
/// alike (an f64 cast to u64 would stop at 0 and at 2^64 - 1).
fn ramp(elem: Elem, len: usize, s0: f64, st: f64, what: &str) -> Result<Vec<u8>, LaunchError> {
    let mut d = Vec::with_capacity(len * elem.size());
    if matches!(elem, Elem::F32 | Elem::F64) {
        (0..len).for_each(|i| encode_into(elem, s0 + st * i as f64, &mut d));
        return Ok(d);
    }
    let int = |v: f64, name: &str| -> Result<i128, LaunchError> {
        if v.fract() != 0.0 || !v.is_finite() {
            return invalid(format!(
                "{what}: Ramp's {name} {v}: {elem:?} holds integers"
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
    let size = elem.size();
    for i in 0..len as i128 {
        // Two's complement: the low bytes are the value wrapped.
        d.extend_from_slice(&(s0 + st * i).to_le_bytes()[..size]);
    }
    Ok(d)
}

/// `len` elements drawn from [`lo`, `hi`] by ChaCha8 seeded with `seed`.
fn random(
    elem: Elem,
    len: usize,
    seed: u64,
    lo: f64,
    hi: f64,
    what: &str,
) -> Result<Vec<u8>, LaunchError> {
    if lo > hi {
        return invalid(format!("{what}: random range [{lo}, {hi}] is empty"));
    }
    let float = matches!(elem, Elem::F32 | Elem::F64);
    // Bounds the element cannot hold were wrapped (a U32 buffer drawn from
    // [-5, 5] held values near 2^32).
    for (name, v) in [("lo", lo), ("hi", hi)] {
        fits(elem, v)
            .map_err(|m| LaunchError::Invalid(format!("{what}: Random's {name} {v}: {m}")))?;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Written in place: a value's bytes never pass through a vector of their
    // own (a 600 MB buffer fills in a second, not in tens of seconds). 64-bit
    // integers are drawn and written as integers: through an f64 they would
    // keep 53 bits, and a U64 range past 2^63 would stop there.
    let mut d = Vec::with_capacity(len * elem.size());
    for _ in 0..len {
        match elem {
            Elem::U64 => d.extend_from_slice(&rng.gen_range(lo as u64..=hi as u64).to_le_bytes()),
            Elem::I64 => d.extend_from_slice(&rng.gen_range(lo as i64..=hi as i64).to_le_bytes()),
            _ if float => encode_into(elem, lo + (hi - lo) * rng.gen::<f64>(), &mut d),
            _ => encode_into(elem, rng.gen_range(lo as i64..=hi as i64) as f64, &mut d),
        }
    }
    Ok(d)
}

/// Each check's reference file, read now (a missing or wrongly sized one is
/// an error before the run, not after it), and each built-in reference and
/// its inputs checked to exist.
fn references(
    checks: &[CheckSpec],
    buffers: &[Buffer],
    read: &dyn Fn(&str) -> Result<Vec<u8>, String>,
) -> Result<Vec<Option<Vec<u8>>>, LaunchError> {
    let mut expected = Vec::with_capacity(checks.len());
    for c in checks {
        let Some(buf) = buffers.iter().find(|b| b.name == c.buffer) else {
            return invalid(format!("check of `{}`: no buffer of that name", c.buffer));
        };
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
    Ok(expected)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::parse;

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

    /// A dimension below 1, or past what 32 bits hold, is refused with the
    /// axis, the value and the limit it breaks.
    #[test]
    fn dimensions_out_of_range_say_which_and_the_limit() {
        let files = |f: &str| -> Result<Vec<u8>, String> { Err(format!("{f}: no such file")) };
        for (grid, block, want) in [
            ("(\"n - 64\", 1, 1)", "(32, 1, 1)", "grid: dimension x is 0, must be at least 1"),
            (
                "(1, \"n * 100000000\", 1)",
                "(32, 1, 1)",
                "grid: dimension y is 6400000000, past sm_35's limits (x at most 2147483647, \
                 y and z at most 65535)",
            ),
            (
                "(1, 1, 1)",
                "(32, 1, \"n * 100000000\")",
                "block: dimension z is 6400000000, past sm_35's limits (1024 threads, z at most 64)",
            ),
        ] {
            let text = format!(
                "(kernel: \"k\", vars: {{ \"n\": 64 }}, grid: {grid}, block: {block})"
            );
            let spec = parse(&text).expect("parses");
            let e = resolve(&spec, &[], &files).expect_err(want);
            assert_eq!(e.to_string(), want);
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
