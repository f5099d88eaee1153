//! Launch files: parsing ([`spec`]), evaluating them against their variables
//! into a concrete launch, packing kernel parameters, and checking results.
//!
//! Files named by a launch file are read through a closure the caller hands in,
//! so this crate does no I/O of its own.

mod check;
mod expr;
mod resolve;
pub mod spec;

pub use check::{check, show, CheckResult};
pub use expr::eval;
pub use resolve::{
    encode, encode_into, fits, resolve, resolve_within, Limits, Resolved, DEFAULT_STACK,
};

use sim_isa::cubin::KernelParam;

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
