//! The launch file: what `keplersim run` needs beside a cubin to run one kernel.
//!
//! A launch file is RON (see `traces/kernels/*.launch.ron` and the README):
//!
//! ```ron
//! (
//!     kernel: "saxpy",
//!     vars: { "n": 65536 },             // named integers; `--set n=4096` overrides
//!     grid: ("n / 256", 1, 1),          // each number may be an expression of vars
//!     block: (256, 1, 1),
//!     dynamic_shared: 0,                // bytes
//!     buffers: [
//!         (name: "x", elem: F32, len: "n", init: Random(seed: 1, lo: -1.0, hi: 1.0)),
//!         (name: "y", elem: F32, len: "n", init: Ramp(start: 0.0, step: 0.5)),
//!     ],
//!     args: [I32("n"), F32(2.5), Buffer("x"), Buffer("y")],
//!     checks: [
//!         (buffer: "y", reference: Builtin(name: "saxpy", inputs: ["x", "y"],
//!             params: { "n": "n", "a_bits": 1075838976 }), compare: BitExact),
//!     ],
//! )
//! ```
//!
//! This module is only the schema (the raw, parsed form); [`resolve`](super::resolve()) checks
//! it and evaluates every expression against the variables.

use std::collections::BTreeMap;

use serde::Deserialize;

/// A whole launch file, as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSpec {
    /// The kernel's name in the cubin (its entry symbol).
    pub kernel: String,
    /// The cubin, relative to the launch file; default: the launch file's name with
    /// `.launch.ron` replaced by `.cubin`. A kernel file named on the command
    /// line takes its place.
    #[serde(default)]
    pub cubin: Option<String>,
    /// The kernel's source instead of a cubin, relative to the launch file: CUDA
    /// C (`.cu`, compiled with NVRTC) or SASS (`.sass`, assembled). At most one
    /// of `cubin` and `source`.
    #[serde(default)]
    pub source: Option<String>,
    /// Options NVRTC gets when `source` (or the file on the command line) is
    /// CUDA C: `["-use_fast_math", "-maxrregcount=32"]`.
    #[serde(default)]
    pub nvrtc_options: Vec<String>,
    /// The per-thread call stack of a kernel whose stack ptxas could not bound
    /// (recursion), bytes (default 1024, the CUDA driver's `cudaLimitStackSize`
    /// on sm_35); a kernel that needs more by its own count gets that.
    #[serde(default)]
    pub stack_size: Option<Num>,
    /// How global memory is allocated and checked (default `Strict`).
    #[serde(default)]
    pub memory: Option<Memory>,
    /// Named integers that expressions may use; `--set NAME=VALUE` overrides one.
    #[serde(default)]
    pub vars: BTreeMap<String, i64>,
    /// Conditions on the variables, checked before anything runs: a kernel
    /// that only handles some sizes says so here, and a size it cannot handle
    /// is an error, not a wrong result.
    #[serde(default)]
    pub requires: Vec<Require>,
    /// Floating-point operations the launch performs (for GFlop/s in reports).
    #[serde(default)]
    pub flops: Option<Num>,
    /// Grid size in blocks (x, y, z).
    pub grid: (Num, Num, Num),
    /// Block size in threads (x, y, z).
    pub block: (Num, Num, Num),
    /// Dynamic shared memory per block, in bytes.
    #[serde(default)]
    pub dynamic_shared: Option<Num>,
    /// Device buffers, allocated in this order.
    #[serde(default)]
    pub buffers: Vec<BufferSpec>,
    /// The kernel's parameters, in order; each must match the cubin's parameter
    /// size (a buffer is its 8-byte device address).
    #[serde(default)]
    pub args: Vec<Arg>,
    /// What to compare after the run.
    #[serde(default)]
    pub checks: Vec<CheckSpec>,
    /// The most warp-instructions one block may execute before the run is stopped
    /// as a runaway (default 2^32).
    #[serde(default)]
    pub instruction_limit: Option<u64>,
}

/// How global memory is allocated and checked.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum Memory {
    /// Every byte past a buffer's end faults (compute-sanitizer's view).
    Strict,
    /// Buffers are rounded as `cudaMalloc` rounds them; accesses inside the
    /// rounding read its padding and are reported as warnings.
    Driver,
}

/// A condition on the launch variables: `zero` must evaluate to 0 and
/// `positive` to more than 0 (either or both); `why` is the message.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Require {
    #[serde(default)]
    pub zero: Option<String>,
    #[serde(default)]
    pub positive: Option<String>,
    pub why: String,
}

/// An integer: a literal, or an expression over the launch file's variables with
/// `+ - * / %`, parentheses, and `min(a, b)` / `max(a, b)`: `"n * n"`,
/// `"(n + 255) / 256"`.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Num {
    Lit(i64),
    Expr(String),
}

/// A float: a literal or an expression (evaluated as an integer expression,
/// then converted).
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(untagged)]
pub enum Real {
    Lit(f64),
    Expr(String),
}

/// The element type of a buffer.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
pub enum Elem {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Elem {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Elem::U8 | Elem::I8 => 1,
            Elem::U16 | Elem::I16 => 2,
            Elem::U32 | Elem::I32 | Elem::F32 => 4,
            Elem::U64 | Elem::I64 | Elem::F64 => 8,
        }
    }
}

/// One device buffer.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    pub name: String,
    pub elem: Elem,
    /// Number of elements.
    pub len: Num,
    /// Initial contents (default: zeros).
    #[serde(default)]
    pub init: Init,
}

/// How a buffer starts.
#[derive(Debug, Clone, Default, Deserialize)]
pub enum Init {
    /// All bytes zero.
    #[default]
    Zero,
    /// Every element the same value.
    Fill(Real),
    /// Element i is `start + i * step`; for integer types both are integers,
    /// counted exactly and wrapped to the element type.
    Ramp { start: Real, step: Real },
    /// Uniform random in `[lo, hi)` (integer types: `[lo, hi]`), from a seeded
    /// generator (ChaCha8): the same seed gives the same buffer on every machine.
    Random { seed: u64, lo: Real, hi: Real },
    /// Raw little-endian bytes from a file, relative to the launch file; it must
    /// hold exactly `len` elements.
    File(String),
}

/// One kernel parameter.
#[derive(Debug, Clone, Deserialize)]
pub enum Arg {
    /// The device address of a buffer (8 bytes).
    Buffer(String),
    I32(Num),
    U32(Num),
    I64(Num),
    U64(Num),
    F32(Real),
    F64(Real),
}

/// One comparison of a buffer after the run.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckSpec {
    /// The buffer whose final contents are checked.
    pub buffer: String,
    pub reference: Reference,
    pub compare: Compare,
}

/// Where the expected contents come from.
#[derive(Debug, Clone, Deserialize)]
pub enum Reference {
    /// A CPU reference built into keplersim (`sim_core::reference`): it is given
    /// the initial contents of `inputs` (in order) and the evaluated `params`.
    Builtin {
        name: String,
        #[serde(default)]
        inputs: Vec<String>,
        #[serde(default)]
        params: BTreeMap<String, Num>,
    },
    /// Raw little-endian bytes from a file, relative to the launch file.
    File(String),
}

/// How results are compared with the reference.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub enum Compare {
    /// Every byte equal.
    BitExact,
    /// Floats within this many units in the last place (integers: exact); NaN
    /// matches NaN.
    Ulp(u32),
}
