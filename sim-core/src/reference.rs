//! CPU references for the kernel suite (`traces/kernels`): what a checked buffer
//! must hold after a kernel ran, computed on the host.
//!
//! A launch file's check names a reference (`Builtin(name: "sgemm", inputs: [...],
//! params: {...})`); the runner hands it the *initial* contents of the named input
//! buffers, in order, and the evaluated integer parameters, and compares what it
//! returns with the buffer's final contents. Float parameters travel as their bit
//! patterns (`alpha_bits`: `f32::to_bits`, `c_bits`: `f64::to_bits`).
//!
//! Each reference reproduces its kernel's arithmetic exactly where the GPU's result
//! is exactly defined, so that the comparison can be bit for bit: `f32::mul_add`
//! wherever the SASS has FFMA (the k loops of every SGEMM accumulate with FFMA in
//! increasing k, from 0.0; their epilogue is `FFMA(acc, alpha, FMUL(c, beta))`), the
//! same summation order as the kernel for float reductions, and Rust's correctly
//! rounded `/` and `sqrt` where CUDA's defaults (`-prec-div`, `-prec-sqrt`) are
//! correctly rounded too. `sinf` and `expf` are CUDA library routines with a
//! documented bound of 2 ulp; their references compute in f64 and round once, and
//! their launch files compare with `Ulp(2)`.
//!
//! Each kernel's source comment in `traces/kernels/*.cu` states the computation;
//! the functions here follow those comments.

use std::collections::BTreeMap;

use crate::launch::spec::Elem;

/// What a reference is given.
pub struct RefInput<'a> {
    /// The initial contents of the check's `inputs`, in the order the launch file
    /// lists them: (buffer name, element type, little-endian bytes).
    pub buffers: Vec<(&'a str, Elem, &'a [u8])>,
    /// The check's `params`, evaluated.
    pub params: &'a BTreeMap<String, i64>,
}

/// A reference: the expected final contents (little-endian bytes) of the checked
/// buffer, or why it cannot be computed (a missing parameter, a short buffer).
pub type RefFn = fn(&RefInput) -> Result<Vec<u8>, String>;

macro_rules! references {
    ($($name:literal => $f:path,)*) => {
        const TABLE: &[(&str, RefFn)] = &[$(($name, $f)),*];
        const NAMES: &[&str] = &[$($name),*];
    };
}

references! {
    "saxpy" => saxpy,
    "reduce" => reduce,
    "reduce_total" => reduce_total,
    "atomic_inc" => atomic_inc,
    "scan" => scan,
    "scan_sums" => scan_sums,
    "transpose" => transpose,
    "histogram" => histogram,
    "sgemm" => sgemm,
    "bitonic" => bitonic,
    "loops" => loops,
    "call" => call,
    "local_array" => local_array,
    "dmath" => dmath,
    "fmath_sinf" => fmath_sinf,
    "fmath_expf" => fmath_expf,
    "fmath_sqrtf" => fmath_sqrtf,
    "fmath_div" => fmath_div,
    "widths" => widths,
    "warp" => warp,
    "convert" => convert,
    "special" => special,
    "int64" => int64,
    "atomics_g" => atomics_g,
    "atomics_sum64" => atomics_sum64,
    "atomics_fsum" => atomics_fsum,
    "atomics_cnt" => atomics_cnt,
    "atomics_cnt64" => atomics_cnt64,
    "globals" => globals,
    "globals_seen" => globals_seen,
}

/// The reference called `name`, if there is one.
pub fn builtin(name: &str) -> Option<RefFn> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

/// The names of every built-in reference, in a fixed order.
pub fn names() -> &'static [&'static str] {
    NAMES
}

// ---------------------------------------------------------------------------
// Reading inputs and parameters.

impl RefInput<'_> {
    /// An integer parameter.
    fn param(&self, name: &str) -> Result<i64, String> {
        self.params
            .get(name)
            .copied()
            .ok_or_else(|| format!("missing parameter `{name}`"))
    }

    /// An integer parameter, or `default` when the launch file leaves it out.
    fn param_or(&self, name: &str, default: i64) -> i64 {
        self.params.get(name).copied().unwrap_or(default)
    }

    /// A count or index parameter: non-negative and below 2^31.
    fn size(&self, name: &str) -> Result<usize, String> {
        size_of(name, self.param(name)?)
    }

    /// A 32-bit parameter (signed or unsigned), as its bit pattern.
    fn u32_param(&self, name: &str) -> Result<u32, String> {
        let v = self.param(name)?;
        if (i64::from(i32::MIN)..=i64::from(u32::MAX)).contains(&v) {
            Ok(v as u32)
        } else {
            Err(format!("parameter `{name}` = {v} does not fit in 32 bits"))
        }
    }

    /// An f32 parameter given as its bits (`f32::to_bits`).
    fn f32_param(&self, name: &str) -> Result<f32, String> {
        Ok(f32::from_bits(self.u32_param(name)?))
    }

    /// An f64 parameter given as its bits (`f64::to_bits`, as an i64).
    fn f64_param(&self, name: &str) -> Result<f64, String> {
        Ok(f64::from_bits(self.param(name)? as u64))
    }

    /// Input `i` (in the check's `inputs` order), which must have one of `elems`.
    fn input(&self, i: usize, elems: &[Elem]) -> Result<(&str, &[u8]), String> {
        let (name, elem, bytes) = self.buffers.get(i).ok_or_else(|| {
            format!(
                "needs at least {} input buffers, got {}",
                i + 1,
                self.buffers.len()
            )
        })?;
        if !elems.contains(elem) {
            return Err(format!(
                "input `{name}` is {elem:?}; expected one of {elems:?}"
            ));
        }
        Ok((name, bytes))
    }

    fn f32s(&self, i: usize) -> Result<Vec<f32>, String> {
        let (_, b) = self.input(i, &[Elem::F32])?;
        Ok(words(b).map(f32::from_bits).collect())
    }

    fn u32s(&self, i: usize) -> Result<Vec<u32>, String> {
        let (_, b) = self.input(i, &[Elem::U32, Elem::I32])?;
        Ok(words(b).collect())
    }

    fn f64s(&self, i: usize) -> Result<Vec<f64>, String> {
        let (_, b) = self.input(i, &[Elem::F64])?;
        Ok(b.chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect())
    }

    /// The name of input `i`, for messages.
    fn name(&self, i: usize) -> &str {
        self.buffers.get(i).map(|b| b.0).unwrap_or("?")
    }

    /// Fails unless input `i` holds at least `need` elements.
    fn need<T>(&self, i: usize, v: &[T], need: usize) -> Result<(), String> {
        if v.len() < need {
            Err(format!(
                "input `{}` holds {} elements; the kernel reads {need}",
                self.name(i),
                v.len()
            ))
        } else {
            Ok(())
        }
    }
}

fn size_of(name: &str, v: i64) -> Result<usize, String> {
    if (0..1 << 31).contains(&v) {
        Ok(v as usize)
    } else {
        Err(format!("parameter `{name}` = {v} is not a size"))
    }
}

fn words(b: &[u8]) -> impl Iterator<Item = u32> + '_ {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().expect("4 bytes")))
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn f64_bytes(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------
// The references, one per kernel (or per checked output).

/// `saxpy.cu`. Inputs `[x, y]`; params `n`, `a_bits`. Returns y with
/// `y[i] = fma(x[i], a, y[i])` for `i < n` (FFMA), the rest unchanged.
fn saxpy(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let a = r.f32_param("a_bits")?;
    let x = r.f32s(0)?;
    let mut y = r.f32s(1)?;
    r.need(0, &x, n)?;
    r.need(1, &y, n)?;
    for i in 0..n {
        y[i] = x[i].mul_add(a, y[i]);
    }
    Ok(f32_bytes(&y))
}

/// `reduce.cu`. Inputs `[in]`; params `n`, `grid` (blocks), `block` (threads, a
/// power of two >= 64, the kernel's BLOCK). Returns the `grid` per-block partial
/// sums, added in the kernel's order.
fn reduce(r: &RefInput) -> Result<Vec<u8>, String> {
    Ok(f32_bytes(&partial_sums(r)?))
}

/// `reduce.cu` built with FENCE=1, its `total`. Inputs and params as [`reduce`].
/// Returns one float: the partial sums added in block order, from 0.0.
fn reduce_total(r: &RefInput) -> Result<Vec<u8>, String> {
    let total = partial_sums(r)?.iter().fold(0f32, |acc, &p| acc + p);
    Ok(f32_bytes(&[total]))
}

/// The per-block sums of `reduce.cu`.
fn partial_sums(r: &RefInput) -> Result<Vec<f32>, String> {
    let n = r.size("n")?;
    let grid = r.size("grid")?;
    let block = r.size("block")?;
    if block < 64 || !block.is_power_of_two() {
        return Err(format!("block = {block}: must be a power of two >= 64"));
    }
    let input = r.f32s(0)?;
    r.need(0, &input, n)?;
    let mut partial = Vec::with_capacity(grid);
    let mut s = vec![0f32; block];
    for b in 0..grid {
        // 1. Grid-stride accumulation, in increasing i, from 0.0.
        for (t, st) in s.iter_mut().enumerate() {
            let mut acc = 0f32;
            let mut i = b * block + t;
            while i < n {
                acc += input[i];
                i += grid * block;
            }
            *st = acc;
        }
        // 2. The shared-memory tree down to one warp.
        let mut w = block / 2;
        while w >= 32 {
            for t in 0..w {
                s[t] += s[t + w];
            }
            w /= 2;
        }
        // 3. __shfl_down_sync: a lane past the warp's end reads its own value.
        let mut v: Vec<f32> = s[..32].to_vec();
        for d in [16, 8, 4, 2, 1] {
            let old = v.clone();
            for (l, x) in v.iter_mut().enumerate() {
                *x = old[l] + if l + d < 32 { old[l + d] } else { old[l] };
            }
        }
        partial.push(v[0]);
    }
    Ok(partial)
}

/// A counter after `atomicInc(&c, limit)` ran `times` times (CUDA's wrapping
/// increment: `c >= limit ? 0 : c + 1`). Inputs `[count]` (U32); params `times`,
/// `limit`. Only element 0 changes.
fn atomic_inc(r: &RefInput) -> Result<Vec<u8>, String> {
    let times = r.size("times")?;
    let limit = r.u32_param("limit")?;
    let mut c = r.u32s(0)?;
    r.need(0, &c, 1)?;
    for _ in 0..times {
        c[0] = if c[0] >= limit { 0 } else { c[0] + 1 };
    }
    Ok(u32_bytes(&c))
}

/// Segments of `scan.cu`: the input and the segment length `2 * block`.
fn scan_input(r: &RefInput) -> Result<(Vec<u32>, usize), String> {
    let block = r.size("block")?;
    let seg = 2 * block;
    let input = r.u32s(0)?;
    if seg == 0 || input.len() % seg != 0 {
        return Err(format!(
            "input `{}` holds {} elements, not a multiple of 2 * block = {seg}",
            r.name(0),
            input.len()
        ));
    }
    Ok((input, seg))
}

/// `scan.cu`, its `out`. Inputs `[in]`; params `block`. Returns the exclusive
/// prefix sums (32-bit, wrapping) of each segment of `2 * block` elements.
fn scan(r: &RefInput) -> Result<Vec<u8>, String> {
    let (input, seg) = scan_input(r)?;
    let mut out = Vec::with_capacity(input.len());
    for chunk in input.chunks(seg) {
        let mut acc = 0u32;
        for &x in chunk {
            out.push(acc);
            acc = acc.wrapping_add(x);
        }
    }
    Ok(u32_bytes(&out))
}

/// `scan.cu`, its `sums`. Inputs `[in]`; params `block`. Returns each segment's
/// total (32-bit, wrapping).
fn scan_sums(r: &RefInput) -> Result<Vec<u8>, String> {
    let (input, seg) = scan_input(r)?;
    let sums: Vec<u32> = input
        .chunks(seg)
        .map(|c| c.iter().fold(0u32, |a, &x| a.wrapping_add(x)))
        .collect();
    Ok(u32_bytes(&sums))
}

/// `transpose.cu`. Inputs `[in]` (any element type); params `rows`, `cols`.
/// Returns the `cols x rows` row-major transpose of the `rows x cols` row-major
/// input.
fn transpose(r: &RefInput) -> Result<Vec<u8>, String> {
    let rows = r.size("rows")?;
    let cols = r.size("cols")?;
    let (_, elem, bytes) = *r.buffers.first().ok_or("needs an input buffer")?;
    let es = elem.size();
    if bytes.len() < rows * cols * es {
        return Err(format!(
            "input `{}` holds {} bytes; a {rows} x {cols} matrix needs {}",
            r.name(0),
            bytes.len(),
            rows * cols * es
        ));
    }
    let mut out = vec![0u8; rows * cols * es];
    for y in 0..rows {
        for x in 0..cols {
            let src = (y * cols + x) * es;
            let dst = (x * rows + y) * es;
            out[dst..dst + es].copy_from_slice(&bytes[src..src + es]);
        }
    }
    Ok(out)
}

/// `histogram.cu`. Inputs `[data (U8), bins (U32, 257 elements)]`; params `n`.
/// Returns bins with `bins[v] += count of v in data[..n]`, and `bins[256]`
/// increased by the number of bins that held 0 and received a non-zero count.
fn histogram(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let (_, data) = r.input(0, &[Elem::U8, Elem::I8])?;
    let mut bins = r.u32s(1)?;
    r.need(0, data, n)?;
    r.need(1, &bins, 257)?;
    let mut count = [0u32; 256];
    for &b in &data[..n] {
        count[b as usize] += 1;
    }
    for (v, &c) in count.iter().enumerate() {
        if c != 0 {
            if bins[v] == 0 {
                bins[256] = bins[256].wrapping_add(1);
            }
            bins[v] = bins[v].wrapping_add(c);
        }
    }
    Ok(u32_bytes(&bins))
}

/// Every SGEMM of the suite (`sgemm_naive`, `sgemm_tiled_*`, `sgemm_volkov`).
/// Inputs `[A, B, C]`; params `m`, `n`, `k`, and optionally `lda`, `ldb`, `ldc`
/// (default: the natural leading dimensions), `trans_a`, `trans_b` (0 or 1:
/// `op(X)` is X or its transpose), `row_major` (0: BLAS column-major, the
/// kernels' layout; 1: row-major), `alpha_bits`, `beta_bits` (default 1.0 and
/// 0.0). Returns `C = alpha * op(A) * op(B) + beta * C` computed as the kernels
/// do: `acc = fma(op(A)(i,p), op(B)(p,j), acc)` for p = 0, 1, ..., k-1 from 0.0,
/// then `C(i,j) = fma(acc, alpha, C(i,j) * beta)`.
fn sgemm(r: &RefInput) -> Result<Vec<u8>, String> {
    let m = r.size("m")?;
    let n = r.size("n")?;
    let k = r.size("k")?;
    let ta = r.param_or("trans_a", 0) != 0;
    let tb = r.param_or("trans_b", 0) != 0;
    let row_major = r.param_or("row_major", 0) != 0;
    let alpha = f32::from_bits(r.param_or("alpha_bits", 1f32.to_bits() as i64) as u32);
    let beta = f32::from_bits(r.param_or("beta_bits", 0) as u32);
    // Stored shapes (rows x cols) of A and B.
    let (ar, ac) = if ta { (k, m) } else { (m, k) };
    let (br, bc) = if tb { (n, k) } else { (k, n) };
    let natural = |rows: usize, cols: usize| if row_major { cols } else { rows };
    let lda = match r.params.get("lda") {
        Some(&v) => size_of("lda", v)?,
        None => natural(ar, ac),
    };
    let ldb = match r.params.get("ldb") {
        Some(&v) => size_of("ldb", v)?,
        None => natural(br, bc),
    };
    let ldc = match r.params.get("ldc") {
        Some(&v) => size_of("ldc", v)?,
        None => natural(m, n),
    };
    // Index of stored element (row, col) of a matrix with leading dimension ld.
    let at = |row: usize, col: usize, ld: usize| {
        if row_major {
            row * ld + col
        } else {
            row + col * ld
        }
    };
    let extent = |rows: usize, cols: usize, ld: usize| {
        if rows == 0 || cols == 0 {
            0
        } else {
            at(rows - 1, cols - 1, ld) + 1
        }
    };
    for (name, rows, cols, ld) in [
        ("lda", ar, ac, lda),
        ("ldb", br, bc, ldb),
        ("ldc", m, n, ldc),
    ] {
        let min = if row_major { cols } else { rows };
        if ld < min {
            return Err(format!("{name} = {ld} is less than {min}"));
        }
    }
    let a = r.f32s(0)?;
    let b = r.f32s(1)?;
    let mut c = r.f32s(2)?;
    r.need(0, &a, extent(ar, ac, lda))?;
    r.need(1, &b, extent(br, bc, ldb))?;
    r.need(2, &c, extent(m, n, ldc))?;
    let op_a = |i: usize, p: usize| {
        if ta {
            a[at(p, i, lda)]
        } else {
            a[at(i, p, lda)]
        }
    };
    let op_b = |p: usize, j: usize| {
        if tb {
            b[at(j, p, ldb)]
        } else {
            b[at(p, j, ldb)]
        }
    };
    // op(A) column-major (m x k), so that a column is contiguous.
    let mut a_cm = vec![0f32; m * k];
    for p in 0..k {
        for i in 0..m {
            a_cm[i + p * m] = op_a(i, p);
        }
    }
    // Each C(i, j) accumulates in k order, whatever the loop order around it:
    // columns of C in blocks that stay in the cache, k, then the columns.
    // The blocks are shared out among the cores (each element's sum is the
    // same on any of them).
    const JB: usize = 32;
    let block = |j0: usize| {
        let jn = JB.min(n - j0);
        let mut acc = vec![0f32; m * jn];
        for p in 0..k {
            let col = &a_cm[p * m..(p + 1) * m];
            for jj in 0..jn {
                axpy_fma(&mut acc[jj * m..(jj + 1) * m], col, op_b(p, j0 + jj));
            }
        }
        acc
    };
    let starts: Vec<usize> = (0..n).step_by(JB).collect();
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let workers = cores.min(starts.len()).max(1);
    let sums: Vec<Vec<f32>> = if workers == 1 || m * n * k < 1 << 24 {
        starts.iter().map(|&j0| block(j0)).collect()
    } else {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut done: Vec<(usize, Vec<f32>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|_| {
                    scope.spawn(|| {
                        let mut mine = Vec::new();
                        loop {
                            let b = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            let Some(&j0) = starts.get(b) else { break mine };
                            mine.push((b, block(j0)));
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("a reference worker does not panic"))
                .collect()
        });
        done.sort_by_key(|d| d.0);
        done.into_iter().map(|d| d.1).collect()
    };
    for (&j0, acc) in starts.iter().zip(&sums) {
        for jj in 0..JB.min(n - j0) {
            for i in 0..m {
                let ci = at(i, j0 + jj, ldc);
                c[ci] = acc[jj * m + i].mul_add(alpha, c[ci] * beta);
            }
        }
    }
    Ok(f32_bytes(&c))
}

/// `acc[i] = fma(a[i], b, acc[i])`, with the CPU's FMA instructions when it
/// has them (else the library's exactly rounded `mul_add`: the same results).
fn axpy_fma(acc: &mut [f32], a: &[f32], b: f32) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") && std::arch::is_x86_feature_detected!("avx2")
        {
            // SAFETY: the CPU has the features the function is compiled for.
            unsafe { axpy_fma_x86(acc, a, b) };
            return;
        }
    }
    for (x, &y) in acc.iter_mut().zip(a) {
        *x = y.mul_add(b, *x);
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn axpy_fma_x86(acc: &mut [f32], a: &[f32], b: f32) {
    for (x, &y) in acc.iter_mut().zip(a) {
        *x = y.mul_add(b, *x);
    }
}

/// `bitonic.cu`. Inputs `[keys (F32)]`; params `segment` (2 * the kernel's
/// BLOCK). Returns the keys with each segment sorted ascending. Keys must not be
/// NaN; a segment holding both -0.0 and +0.0 may differ from the sorting network
/// (which treats them as equal) in their order.
fn bitonic(r: &RefInput) -> Result<Vec<u8>, String> {
    let seg = r.size("segment")?;
    let mut keys = r.f32s(0)?;
    if seg == 0 || keys.len() % seg != 0 {
        return Err(format!(
            "input `{}` holds {} keys, not a multiple of segment = {seg}",
            r.name(0),
            keys.len()
        ));
    }
    if keys.iter().any(|k| k.is_nan()) {
        return Err(format!("input `{}` holds a NaN", r.name(0)));
    }
    for chunk in keys.chunks_mut(seg) {
        chunk.sort_by(f32::total_cmp);
    }
    Ok(f32_bytes(&keys))
}

/// `loops.cu`. Inputs `[in]`; params `n`, `limit`, `cut`. Returns `2n` words:
/// the Collatz step and odd-step counts, and the windowed sum, per element.
fn loops(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let limit = r.u32_param("limit")?;
    let cut = r.u32_param("cut")?;
    let input = r.u32s(0)?;
    r.need(0, &input, n)?;
    let mut out = Vec::with_capacity(2 * n);
    for i in 0..n {
        let mut x = input[i];
        let (mut steps, mut odd) = (0u32, 0u32);
        loop {
            if x <= 1 || steps >= limit {
                break;
            }
            steps += 1;
            if x & 1 != 0 {
                x = x.wrapping_mul(3).wrapping_add(1);
                odd += 1;
                continue;
            }
            x >>= 1;
        }
        let len = (input[i] & 63) + 1;
        let mut sum = 0u32;
        for j in 0..len as usize {
            let v = input[(i + j) % n];
            if v % 3 == 0 {
                continue;
            }
            if v > cut {
                break;
            }
            sum = sum.wrapping_add(v);
        }
        out.push(steps | odd << 16);
        out.push(sum);
    }
    Ok(u32_bytes(&out))
}

/// The `__noinline__` function of `call.cu`.
fn mix(mut x: u32, rounds: u32) -> u32 {
    for _ in 0..rounds {
        x ^= x >> 16;
        x = x.wrapping_mul(0x7feb_352d);
        x ^= x >> 15;
        x = x.wrapping_mul(0x846c_a68b);
        x ^= x >> 16;
    }
    x
}

/// `call.cu`. Inputs `[in]`; params `n`. Returns `n` words.
fn call(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let input = r.u32s(0)?;
    r.need(0, &input, n)?;
    let out: Vec<u32> = input[..n]
        .iter()
        .map(|&x| {
            let y = if x & 1 != 0 {
                mix(x, x & 7)
            } else {
                mix(x ^ 0xdead_beef, 3)
            };
            mix(y, 1)
        })
        .collect();
    Ok(u32_bytes(&out))
}

/// `local_array.cu`. Inputs `[in]`; params `n`. Returns `n` words.
fn local_array(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let input = r.u32s(0)?;
    r.need(0, &input, n)?;
    let out: Vec<u32> = input[..n]
        .iter()
        .map(|&x0| {
            let mut buf = [0u32; 32];
            let mut x = x0;
            for b in buf.iter_mut() {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                *b = x;
            }
            let mut acc = 0u32;
            for _ in 0..16 {
                let k = (x >> 27) as usize;
                acc = acc.wrapping_add(buf[k]);
                buf[(k + acc as usize) & 31] ^= acc;
                x = x.wrapping_mul(22_695_477).wrapping_add(1);
            }
            acc
        })
        .collect();
    Ok(u32_bytes(&out))
}

/// `dmath.cu`. Inputs `[x, y]` (F64); params `n`, `c_bits`. Returns `n` doubles.
fn dmath(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let c = r.f64_param("c_bits")?;
    let x = r.f64s(0)?;
    let y = r.f64s(1)?;
    r.need(0, &x, n)?;
    r.need(1, &y, n)?;
    let out: Vec<f64> = (0..n)
        .map(|i| {
            let (a, b) = (x[i], y[i]);
            let mut h = 0.5f64;
            h = h.mul_add(a, -0.25);
            h = h.mul_add(a, 0.125);
            h = h.mul_add(a, c);
            let p = a * a;
            let s = h + p;
            s / (b + 3.0)
        })
        .collect();
    Ok(f64_bytes(&out))
}

/// The first `n` elements of input `i` (F32) mapped by `f`.
fn map_f32(r: &RefInput, i: usize, f: impl Fn(f32) -> f32) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let x = r.f32s(i)?;
    r.need(i, &x, n)?;
    Ok(f32_bytes(&x[..n].iter().map(|&v| f(v)).collect::<Vec<_>>()))
}

/// `fmath.cu`, its `s`. Inputs `[x]`; params `n`. sin in f64, rounded once: compare
/// with `Ulp(2)` (CUDA's bound for sinf).
fn fmath_sinf(r: &RefInput) -> Result<Vec<u8>, String> {
    map_f32(r, 0, |v| (v as f64).sin() as f32)
}

/// `fmath.cu`, its `e`. Inputs `[y]`; params `n`. exp in f64, rounded once: compare
/// with `Ulp(2)` (CUDA's bound for expf).
fn fmath_expf(r: &RefInput) -> Result<Vec<u8>, String> {
    map_f32(r, 0, |v| (v as f64).exp() as f32)
}

/// `fmath.cu`, its `q`. Inputs `[x]`; params `n`. `sqrt(|x|)`, correctly rounded:
/// bit-exact.
fn fmath_sqrtf(r: &RefInput) -> Result<Vec<u8>, String> {
    map_f32(r, 0, |v| v.abs().sqrt())
}

/// `fmath.cu`, its `d`. Inputs `[x, y]`; params `n`. `x / y`, correctly rounded:
/// bit-exact.
fn fmath_div(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let x = r.f32s(0)?;
    let y = r.f32s(1)?;
    r.need(0, &x, n)?;
    r.need(1, &y, n)?;
    Ok(f32_bytes(&(0..n).map(|i| x[i] / y[i]).collect::<Vec<_>>()))
}

/// The `__constant__` table of `widths.cu`: `j * 2654435761 ^ 0x5bd1e995`.
fn widths_table(j: u32) -> u32 {
    j.wrapping_mul(2_654_435_761) ^ 0x5bd1_e995
}

/// `widths.cu`. Inputs `[in]` (U8, 16 bytes per record); params `block` (the
/// kernel's BLOCK; the record count must be a multiple of it). Returns 32 bytes
/// per record, as the kernel's comment and code define them; each thread also
/// reads the record of the next thread of its block (cyclically).
fn widths(r: &RefInput) -> Result<Vec<u8>, String> {
    let block = r.size("block")?;
    let (_, bytes) = r.input(0, &[Elem::U8, Elem::I8])?;
    let n = bytes.len() / 16;
    if block == 0 || bytes.len() % 16 != 0 || n % block != 0 {
        return Err(format!(
            "input `{}` holds {} bytes, not whole blocks of {block} 16-byte records",
            r.name(0),
            bytes.len()
        ));
    }
    let rec = |i: usize| &bytes[16 * i..16 * i + 16];
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().expect("4 bytes"));
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().expect("8 bytes"));
    let mut out = Vec::with_capacity(32 * n);
    for i in 0..n {
        let t = i % block;
        let j = i - t + (t + 1) % block;
        let (me, nx) = (rec(i), rec(j));
        let b = me[0];
        let c = me[1] as i8 as i32;
        let h = u16_at(me, 2) as u32;
        let s = u16_at(me, 4) as i16 as i32;
        let w = u32_at(me, 8);
        let d = u64_at(me, 8);
        let q = [u32_at(me, 0), u32_at(me, 4), u32_at(me, 8), u32_at(me, 12)];
        let nb = nx[3];
        let ns = u16_at(nx, 6) as i16 as i32;
        let nd = u64_at(nx, 8);
        let nh = u16_at(nx, 2) as u32;
        let nbb = nx[0] as u32;
        let nqx = u32_at(nx, 0);
        out.push(b.wrapping_add(nb));
        out.push((c * 3) as u8);
        out.extend_from_slice(&((s - ns) as i16).to_le_bytes());
        let word = (c as u32)
            .wrapping_add(h)
            .wrapping_add(w)
            .wrapping_add(nh)
            .wrapping_add(nbb)
            .wrapping_add(widths_table(w & 63));
        out.extend_from_slice(&word.to_le_bytes());
        let dword = d
            .wrapping_mul(3)
            .wrapping_add(nd)
            .wrapping_add(widths_table((w >> 8) & 63) as u64);
        out.extend_from_slice(&dword.to_le_bytes());
        for v in [
            q[3] ^ nqx,
            q[2].wrapping_add(widths_table(b as u32 & 63)),
            q[1],
            q[0],
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
    Ok(out)
}

/// `warp.cu`. Inputs `[in]` (U32); no params. Returns 16 words per element, as the
/// kernel's comment lists them; lanes are `i % 32` and warps 32 consecutive
/// elements (blocks hold whole warps), so the element count must be a multiple
/// of 32.
fn warp(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = r.u32s(0)?;
    if x.len() % 32 != 0 {
        return Err(format!(
            "input `{}` holds {} elements, not whole warps",
            r.name(0),
            x.len()
        ));
    }
    let mut out = Vec::with_capacity(16 * x.len());
    for wv in x.chunks(32) {
        let ballot = wv
            .iter()
            .enumerate()
            .fold(0u32, |m, (l, &v)| m | (v & 1) << l);
        let all = wv.iter().all(|&v| v != 0) as u32;
        let any = wv.iter().any(|&v| v < 0x1000) as u32;
        for (lane, &v) in wv.iter().enumerate() {
            let l = lane as u32;
            let ffs = if v == 0 { 0 } else { v.trailing_zeros() + 1 };
            let bytes = [v as u8, l as u8, (v >> 8) as u8, (l >> 8) as u8];
            let funnel_l = ((((l as u64) << 32 | v as u64) << (v & 31)) >> 32) as u32;
            let funnel_r = ((((v as u64) << 32 | l as u64) >> (v >> 27)) & 0xffff_ffff) as u32;
            let sad = ((v as i32 as i64) - (l as i64)).unsigned_abs() as u32;
            out.extend_from_slice(&[
                ballot,
                all | any << 1,
                wv[(v & 31) as usize],
                if lane >= 3 { wv[lane - 3] } else { v },
                wv[lane ^ 5],
                v.count_ones() | v.leading_zeros() << 8 | ffs << 16,
                v.reverse_bits(),
                u32::from_le_bytes(bytes),
                funnel_l,
                funnel_r,
                ((v as u64 * 0x9e37_79b9) >> 32) as u32,
                ((v as i32 as i64 * -7) >> 32) as u32,
                (v as i32).min(l as i32 - 16) as u32,
                v.max(0x8000_0000),
                ((v >> (l & 7)) & 0x3ff) | ((v >> 3) & 7) << 16,
                (((v as i32) >> (l & 15)) as u32).wrapping_add(sad),
            ]);
        }
    }
    Ok(u32_bytes(&out))
}

/// IEEE rounding directions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Round {
    Zero,
    Down,
    Up,
}

/// Rounds a value whose nearest f32 is `s`, and which exceeds `s` by an amount
/// of sign `err` (exactly zero when `s` is exact), in direction `mode`.
fn directed(s: f32, err: f64, mode: Round) -> f32 {
    match mode {
        Round::Down if err < 0.0 => s.next_down(),
        Round::Up if err > 0.0 => s.next_up(),
        Round::Zero if s > 0.0 && err < 0.0 => s.next_down(),
        Round::Zero if s < 0.0 && err > 0.0 => s.next_up(),
        _ => s,
    }
}

/// An exactly known f64 (an f32, int or double input) rounded to f32.
fn f64_to_f32(d: f64, mode: Round) -> f32 {
    let s = d as f32;
    directed(s, d - s as f64, mode)
}

/// `a + b` rounded in `mode` (no overflow): the error of the nearest sum is exact
/// by TwoSum; an exact zero sum is -0 when rounding down, unless both are +0.
fn add_directed(a: f32, b: f32, mode: Round) -> f32 {
    let s = a + b;
    let bb = s - a;
    let err = (a - (s - bb)) + (b - bb);
    if s == 0.0 && err == 0.0 && mode == Round::Down && !(a.to_bits() == 0 && b.to_bits() == 0) {
        return -0.0;
    }
    directed(s, err as f64, mode)
}

/// `a * b` rounded in `mode` (no overflow or underflow): the error of the nearest
/// product is exact by an FMA.
fn mul_directed(a: f32, b: f32, mode: Round) -> f32 {
    let p = a * b;
    directed(p, a.mul_add(b, -p) as f64, mode)
}

/// `convert.cu`. Inputs `[x, y, w (F32), k (I32), d (F64)]`; params `n`. Returns
/// 32 words per element, as the kernel's comment lists them. Additions and
/// products must not overflow or underflow (|y|, |w| in a modest range).
fn convert(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let x = r.f32s(0)?;
    let y = r.f32s(1)?;
    let w = r.f32s(2)?;
    let k = r.u32s(3)?;
    let d = r.f64s(4)?;
    for (i, len) in [x.len(), y.len(), w.len(), k.len(), d.len()]
        .into_iter()
        .enumerate()
    {
        if len < n {
            return Err(format!(
                "input `{}` holds {len} elements; the kernel reads {n}",
                r.name(i)
            ));
        }
    }
    let mut out = Vec::with_capacity(32 * n);
    for i in 0..n {
        let (x, y, w, ki, d) = (x[i], y[i], w[i], k[i] as i32, d[i]);
        let l = x as i64;
        let sat = y * 0.01f32;
        let sat = if sat > 0.0 { sat.min(1.0) } else { 0.0 };
        out.extend_from_slice(&[
            y.round_ties_even() as i32 as u32,
            y as i32 as u32,
            y.floor() as i32 as u32,
            y.ceil() as i32 as u32,
            x as i32 as u32,
            x.round_ties_even() as u32,
            (ki as f32).to_bits(),
            f64_to_f32(ki as f64, Round::Zero).to_bits(),
            f64_to_f32(ki as f64, Round::Down).to_bits(),
            f64_to_f32(ki as f64, Round::Up).to_bits(),
            (ki as u32 as f32).to_bits(),
            (d as f32).to_bits(),
            f64_to_f32(d, Round::Zero).to_bits(),
            f64_to_f32(d, Round::Down).to_bits(),
            f64_to_f32(d, Round::Up).to_bits(),
            d as i32 as u32,
            l as u32,
            (l >> 32) as u32,
            x.min(y).to_bits(),
            x.max(y).to_bits(),
            sat.to_bits(),
            y.floor().to_bits(),
            y.ceil().to_bits(),
            y.trunc().to_bits(),
            y.round_ties_even().to_bits(),
            y.round().to_bits(),
            add_directed(y, w, Round::Down).to_bits(),
            add_directed(y, w, Round::Up).to_bits(),
            add_directed(y, w, Round::Zero).to_bits(),
            mul_directed(y, w, Round::Down).to_bits(),
            mul_directed(y, w, Round::Up).to_bits(),
            mul_directed(y, w, Round::Zero).to_bits(),
        ]);
    }
    Ok(u32_bytes(&out))
}

/// `special.cu`. Inputs `[in]` (U32, one per thread); params `gx`, `gy`, `gz`
/// (grid) and `bx`, `by`, `bz` (block). Returns 17 words per thread, threads in
/// the kernel's linear order; the clock and SM-id flags are 1.
fn special(r: &RefInput) -> Result<Vec<u8>, String> {
    let g = [r.u32_param("gx")?, r.u32_param("gy")?, r.u32_param("gz")?];
    let b = [r.u32_param("bx")?, r.u32_param("by")?, r.u32_param("bz")?];
    let nt = (b[0] as usize) * (b[1] as usize) * (b[2] as usize);
    let nb = (g[0] as usize) * (g[1] as usize) * (g[2] as usize);
    let input = r.u32s(0)?;
    r.need(0, &input, nt * nb)?;
    let mut out = Vec::with_capacity(17 * nt * nb);
    for block in 0..nb {
        let (bx, by, bz) = (
            block % g[0] as usize,
            block / g[0] as usize % g[1] as usize,
            block / (g[0] as usize * g[1] as usize),
        );
        for t in 0..nt {
            let (tx, ty, tz) = (
                t % b[0] as usize,
                t / b[0] as usize % b[1] as usize,
                t / (b[0] as usize * b[1] as usize),
            );
            let mut work = input[block * nt + t];
            for _ in 0..work & 7 {
                work = work.wrapping_mul(3).wrapping_add(1);
            }
            out.extend_from_slice(&[
                tx as u32,
                ty as u32,
                tz as u32,
                bx as u32,
                by as u32,
                bz as u32,
                b[0],
                b[1],
                b[2],
                g[0],
                g[1],
                g[2],
                (t % 32) as u32,
                (nt - 1 - t) as u32,
                1,
                1,
                work,
            ]);
        }
    }
    Ok(u32_bytes(&out))
}

/// `int64.cu`. Inputs `[in]` (U64); params `n`. Returns 8 u64 per element, as the
/// kernel's comment lists them.
fn int64(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let (_, bytes) = r.input(0, &[Elem::U64, Elem::I64])?;
    let v: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect();
    r.need(0, &v, n)?;
    let mut out: Vec<u64> = Vec::with_capacity(8 * n);
    for i in 0..n {
        let x = v[i];
        let y = v[(i + 1) % n] | 1;
        let ffs = if x == 0 {
            0
        } else {
            x.trailing_zeros() as u64 + 1
        };
        out.extend_from_slice(&[
            x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(y),
            x / y,
            x % 1_000_003,
            ((x as i64) >> (y & 63)) as u64,
            ((x as u128 * y as u128) >> 64) as u64,
            ((x as i64 as i128 * (y as i64).wrapping_neg() as i128) >> 64) as u64,
            x.count_ones() as u64
                | (x.leading_zeros() as u64) << 8
                | ffs << 16
                | ((x < y) as u64) << 24
                | (((x as i64) < (y as i64)) as u64) << 25,
            x.reverse_bits() ^ (x << (y & 63)) ^ (x >> 3),
        ]);
    }
    Ok(out.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// The first `n` words of input 0 of an `atomics.cu` check.
fn atomics_input(r: &RefInput) -> Result<Vec<u32>, String> {
    let n = r.size("n")?;
    let x = r.u32s(0)?;
    r.need(0, &x, n)?;
    Ok(x[..n].to_vec())
}

/// Input 1 as u64 words.
fn u64s(r: &RefInput, i: usize) -> Result<Vec<u64>, String> {
    let (_, b) = r.input(i, &[Elem::U64, Elem::I64])?;
    Ok(b.chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect())
}

/// `atomics.cu`, its `g`. Inputs `[in, g]`; params `n`. Applies each element's
/// min (signed), max, and, or, xor, add and CAS increment to words 0..=6 of its
/// bucket (`x % 64`, 8 words each), from g's initial contents.
fn atomics_g(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = atomics_input(r)?;
    let mut g = r.u32s(1)?;
    r.need(1, &g, 8 * 64)?;
    for &v in &x {
        let w = &mut g[8 * (v % 64) as usize..];
        w[0] = (w[0] as i32).min(v as i32) as u32;
        w[1] = w[1].max(v);
        w[2] &= v;
        w[3] |= v;
        w[4] ^= v;
        w[5] = w[5].wrapping_add(v & 0xffff);
        w[6] = w[6].wrapping_add(1);
    }
    Ok(u32_bytes(&g))
}

/// `atomics.cu`, its `sum64`. Inputs `[in, sum64]`; params `n`. Adds `x << 8`
/// (64-bit, wrapping) to bucket `x % 64`.
fn atomics_sum64(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = atomics_input(r)?;
    let mut s = u64s(r, 1)?;
    r.need(1, &s, 64)?;
    for &v in &x {
        let b = (v % 64) as usize;
        s[b] = s[b].wrapping_add((v as u64) << 8);
    }
    Ok(s.iter().flat_map(|v| v.to_le_bytes()).collect())
}

/// `atomics.cu`, its `fsum`. Inputs `[in, fsum]`; params `n`. Adds
/// `(float)(x & 1023)` to bucket `x % 64`; exact (in any order) while every sum
/// stays below 2^24, which this checks.
fn atomics_fsum(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = atomics_input(r)?;
    let mut f = r.f32s(1)?;
    r.need(1, &f, 64)?;
    for &v in &x {
        let b = (v % 64) as usize;
        f[b] += (v & 1023) as f32;
        if f[b].abs() >= 16_777_216.0 || f[b].fract() != 0.0 {
            return Err(format!(
                "bucket {b} of `{}` leaves the exactly summable integers",
                r.name(1)
            ));
        }
    }
    Ok(f32_bytes(&f))
}

/// `atomics.cu`, its `cnt`. Inputs `[in, cnt]`; params `n`. Counts `x % 32`.
fn atomics_cnt(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = atomics_input(r)?;
    let mut c = r.u32s(1)?;
    r.need(1, &c, 32)?;
    for &v in &x {
        let b = (v % 32) as usize;
        c[b] = c[b].wrapping_add(1);
    }
    Ok(u32_bytes(&c))
}

/// `atomics.cu`, its `cnt64`. Inputs `[in, cnt64]`; params `n`. Adds `x` (64-bit)
/// to bucket `x % 32`.
fn atomics_cnt64(r: &RefInput) -> Result<Vec<u8>, String> {
    let x = atomics_input(r)?;
    let mut c = u64s(r, 1)?;
    r.need(1, &c, 32)?;
    for &v in &x {
        let b = (v % 32) as usize;
        c[b] = c[b].wrapping_add(v as u64);
    }
    Ok(c.iter().flat_map(|v| v.to_le_bytes()).collect())
}

/// `globals.cu`, its `y`. Inputs `[x]`; params `n`. `((x[i] * table[i % 4]) *
/// scale[i % 2]) * (table[2] - table[1])`, each product rounded, with the
/// source's module variables.
fn globals(r: &RefInput) -> Result<Vec<u8>, String> {
    const TABLE: [f32; 4] = [1.0, 1.5, 3.0, 0.75];
    const SCALE: [f32; 2] = [0.5, 3.0];
    let n = r.size("n")?;
    let x = r.f32s(0)?;
    r.need(0, &x, n)?;
    let picked = TABLE[2] - TABLE[1];
    let y: Vec<f32> = (0..n)
        .map(|i| x[i] * TABLE[i % 4] * SCALE[i % 2] * picked)
        .collect();
    Ok(f32_bytes(&y))
}

/// `globals.cu`, its `seen`. Inputs `[seen]`; params `n`. Adds 1 to each of the
/// first `n` words: the tickets 0..n-1 of a counter that starts at zero.
fn globals_seen(r: &RefInput) -> Result<Vec<u8>, String> {
    let n = r.size("n")?;
    let mut seen = r.u32s(0)?;
    r.need(0, &seen, n)?;
    for s in &mut seen[..n] {
        *s = s.wrapping_add(1);
    }
    Ok(u32_bytes(&seen))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs reference `name` on `buffers` with `params`.
    fn run(
        name: &str,
        buffers: &[(&str, Elem, Vec<u8>)],
        params: &[(&str, i64)],
    ) -> Result<Vec<u8>, String> {
        let params: BTreeMap<String, i64> =
            params.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        let input = RefInput {
            buffers: buffers
                .iter()
                .map(|(n, e, b)| (*n, *e, b.as_slice()))
                .collect(),
            params: &params,
        };
        builtin(name).expect("a reference")(&input)
    }

    fn f32_of(b: &[u8]) -> Vec<f32> {
        words(b).map(f32::from_bits).collect()
    }

    fn u32_of(b: &[u8]) -> Vec<u32> {
        words(b).collect()
    }

    fn f32_bits(v: f32) -> i64 {
        v.to_bits() as i64
    }

    #[test]
    fn names_and_table_agree() {
        assert_eq!(names().len(), TABLE.len());
        for (i, n) in names().iter().enumerate() {
            assert!(builtin(n).is_some(), "{n}");
            assert!(!names()[..i].contains(n), "{n} twice");
        }
        assert!(builtin("no-such-reference").is_none());
    }

    #[test]
    fn saxpy_fuses_and_leaves_the_tail() {
        // x * a = 1 + 2^-11 + 2^-24 exactly; a separate multiply would round the
        // 2^-24 away (a tie, to even), the fused one keeps it.
        let x = 1.0 + 2f32.powi(-12);
        let y = [-1.0f32, 5.0, 7.0];
        let out = run(
            "saxpy",
            &[
                ("x", Elem::F32, f32_bytes(&[x, 1.0, 1.0])),
                ("y", Elem::F32, f32_bytes(&y)),
            ],
            &[("n", 2), ("a_bits", f32_bits(x))],
        )
        .unwrap();
        assert_eq!(
            f32_of(&out),
            vec![2f32.powi(-11) + 2f32.powi(-24), x + 5.0, 7.0]
        );
    }

    #[test]
    fn reduce_follows_the_kernel_order() {
        // All ones: block 0 of 2 (64 threads) owns i mod 128 < 64: 172 of 300.
        let ones = f32_bytes(&[1.0; 300]);
        let out = run(
            "reduce",
            &[("in", Elem::F32, ones)],
            &[("n", 300), ("grid", 2), ("block", 64)],
        )
        .unwrap();
        assert_eq!(f32_of(&out), vec![172.0, 128.0]);
        // Order matters: 2^24 + 1 + 1 is 2^24 left to right, but the tree adds the
        // two ones first (s[1] = in[1] + in[33]), then 2^24 + 2 in the last shuffle.
        let mut v = vec![0f32; 64];
        v[0] = 2f32.powi(24);
        v[1] = 1.0;
        v[33] = 1.0;
        let out = run(
            "reduce",
            &[("in", Elem::F32, f32_bytes(&v))],
            &[("n", 64), ("grid", 1), ("block", 64)],
        )
        .unwrap();
        assert_eq!(f32_of(&out), vec![16_777_218.0]);
        assert!(run(
            "reduce",
            &[("in", Elem::F32, f32_bytes(&v))],
            &[("n", 64), ("grid", 1), ("block", 48)]
        )
        .is_err());
    }

    #[test]
    fn scan_is_exclusive_per_segment_and_wraps() {
        let input = u32_bytes(&[1, 2, 3, 4, 5, 6, 7, u32::MAX]);
        let b = [("in", Elem::U32, input)];
        let out = run("scan", &b, &[("block", 2)]).unwrap();
        assert_eq!(u32_of(&out), vec![0, 1, 3, 6, 0, 5, 11, 18]);
        let sums = run("scan_sums", &b, &[("block", 2)]).unwrap();
        assert_eq!(u32_of(&sums), vec![10, 17]);
        assert!(run("scan", &b, &[("block", 3)]).is_err());
    }

    #[test]
    fn transpose_of_a_2x3() {
        let out = run(
            "transpose",
            &[("in", Elem::U32, u32_bytes(&[1, 2, 3, 4, 5, 6]))],
            &[("rows", 2), ("cols", 3)],
        )
        .unwrap();
        assert_eq!(u32_of(&out), vec![1, 4, 2, 5, 3, 6]);
    }

    #[test]
    fn histogram_counts_and_counts_new_bins() {
        let mut bins = vec![0u32; 257];
        bins[5] = 7;
        let out = run(
            "histogram",
            &[
                ("data", Elem::U8, vec![0, 0, 5, 255, 9]),
                ("bins", Elem::U32, u32_bytes(&bins)),
            ],
            &[("n", 4)],
        )
        .unwrap();
        let out = u32_of(&out);
        assert_eq!(
            (out[0], out[5], out[9], out[255], out[256]),
            (2, 8, 0, 1, 2)
        );
        assert_eq!(out.iter().sum::<u32>(), 2 + 8 + 1 + 2);
    }

    /// Stores the logical `rows x cols` matrix `f` as `trans` (stored transposed)
    /// in `row_major` or column-major order with the natural leading dimension.
    fn store(
        rows: usize,
        cols: usize,
        trans: bool,
        row_major: bool,
        f: impl Fn(usize, usize) -> f32,
    ) -> Vec<f32> {
        let (sr, sc) = if trans { (cols, rows) } else { (rows, cols) };
        let mut v = vec![0f32; sr * sc];
        for i in 0..sr {
            for j in 0..sc {
                let x = if trans { f(j, i) } else { f(i, j) };
                v[if row_major { i * sc + j } else { i + j * sr }] = x;
            }
        }
        v
    }

    #[test]
    fn sgemm_layouts_and_transposes_agree_with_f64() {
        let (m, n, k) = (5usize, 3usize, 7usize);
        let a = |i: usize, p: usize| ((i * 7 + p * 3) % 11) as f32 / 8.0 - 0.5;
        let b = |p: usize, j: usize| ((p * 5 + j * 2) % 13) as f32 / 4.0 - 1.0;
        let c = |i: usize, j: usize| (i + 10 * j) as f32;
        let (alpha, beta) = (1.5f32, -0.5f32);
        for row_major in [false, true] {
            for ta in [false, true] {
                for tb in [false, true] {
                    let out = run(
                        "sgemm",
                        &[
                            ("a", Elem::F32, f32_bytes(&store(m, k, ta, row_major, a))),
                            ("b", Elem::F32, f32_bytes(&store(k, n, tb, row_major, b))),
                            ("c", Elem::F32, f32_bytes(&store(m, n, false, row_major, c))),
                        ],
                        &[
                            ("m", m as i64),
                            ("n", n as i64),
                            ("k", k as i64),
                            ("trans_a", ta as i64),
                            ("trans_b", tb as i64),
                            ("row_major", row_major as i64),
                            ("alpha_bits", f32_bits(alpha)),
                            ("beta_bits", f32_bits(beta)),
                        ],
                    )
                    .unwrap();
                    let out = f32_of(&out);
                    for i in 0..m {
                        for j in 0..n {
                            let dot: f64 = (0..k).map(|p| a(i, p) as f64 * b(p, j) as f64).sum();
                            let want = alpha as f64 * dot + beta as f64 * c(i, j) as f64;
                            let got = out[if row_major { i * n + j } else { i + j * m }] as f64;
                            assert!(
                                (got - want).abs() < 1e-4,
                                "{row_major} {ta} {tb} ({i},{j}): {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn sgemm_accumulates_with_fma_in_k_order() {
        // k = 2, m = n = 1: acc = fma(a1, b1, fma(a0, b0, 0)). With a0*b0 = 1 and
        // a1*b1 = 2^-24 + 2^-48 - 2^-71 (exact in a fused step), the fused sum
        // rounds up to 1 + 2^-23; rounding the product first gives 2^-24, and
        // 1 + 2^-24 is a tie that rounds to 1.
        let a = [1.0f32, 1.0 + 2f32.powi(-23)];
        let b = [1.0f32, 2f32.powi(-24) - 2f32.powi(-48)];
        let out = run(
            "sgemm",
            &[
                ("a", Elem::F32, f32_bytes(&a)),
                ("b", Elem::F32, f32_bytes(&b)),
                ("c", Elem::F32, f32_bytes(&[0.0])),
            ],
            &[
                ("m", 1),
                ("n", 1),
                ("k", 2),
                ("lda", 1),
                ("alpha_bits", f32_bits(1.0)),
                ("beta_bits", 0),
            ],
        )
        .unwrap();
        assert_eq!(f32_of(&out), vec![1.0 + 2f32.powi(-23)]);
        // A short C is an error, not a panic.
        let short = run(
            "sgemm",
            &[
                ("a", Elem::F32, f32_bytes(&a)),
                ("b", Elem::F32, f32_bytes(&b)),
                ("c", Elem::F32, vec![]),
            ],
            &[("m", 1), ("n", 1), ("k", 2), ("lda", 1)],
        );
        assert!(short.unwrap_err().contains("holds 0 elements"));
    }

    #[test]
    fn bitonic_sorts_each_segment() {
        let keys = [3.0f32, -1.0, 2.0, 0.5, 9.0, 8.0, -7.0, 1.0];
        let out = run(
            "bitonic",
            &[("keys", Elem::F32, f32_bytes(&keys))],
            &[("segment", 4)],
        )
        .unwrap();
        assert_eq!(f32_of(&out), vec![-1.0, 0.5, 2.0, 3.0, -7.0, 1.0, 8.0, 9.0]);
        let nan = f32_bytes(&[f32::NAN, 1.0]);
        assert!(run("bitonic", &[("keys", Elem::F32, nan)], &[("segment", 2)]).is_err());
    }

    #[test]
    fn loops_by_hand() {
        let input = u32_bytes(&[1, 6, 7]);
        let b = [("in", Elem::U32, input)];
        // Collatz: 6 takes 8 steps (2 odd), 7 takes 16 (5 odd). Windows (cut 100):
        // i=0 len 2: 1, (6 skipped) = 1; i=1 len 7: 7+1+7+1 = 16; i=2 len 8:
        // 7+1+7+1+7+1 = 24.
        let out = run("loops", &b, &[("n", 3), ("limit", 1000), ("cut", 100)]).unwrap();
        assert_eq!(u32_of(&out), vec![0, 1, 8 | 2 << 16, 16, 16 | 5 << 16, 24]);
        // cut 6 breaks at the first 7; limit 3 stops Collatz early.
        let out = run("loops", &b, &[("n", 3), ("limit", 3), ("cut", 6)]).unwrap();
        assert_eq!(u32_of(&out), vec![0, 1, 3 | 1 << 16, 0, 3 | 2 << 16, 0]);
    }

    #[test]
    fn call_and_local_array_match_an_independent_model() {
        // Expected values from a Python transcription of the kernels' comments.
        let b = [("in", Elem::U32, u32_bytes(&[0, 1, 2, 7]))];
        let out = run("call", &b, &[("n", 4)]).unwrap();
        assert_eq!(
            u32_of(&out),
            vec![0x8205_9528, 0x58f5_4975, 0x9b9d_a8b2, 0xbf33_c029]
        );
        let out = run("local_array", &b, &[("n", 2)]).unwrap();
        assert_eq!(u32_of(&out), vec![0x594c_5f72, 0x184a_74f6]);
    }

    #[test]
    fn dmath_by_hand() {
        // a = 1, b = 1, c = 0.5: h = 0.875, p = 1, s = 1.875, s / 4 = 0.46875.
        let one = f64_bytes(&[1.0, 2.0]);
        let out = run(
            "dmath",
            &[("x", Elem::F64, one.clone()), ("y", Elem::F64, one)],
            &[("n", 1), ("c_bits", 0.5f64.to_bits() as i64)],
        )
        .unwrap();
        assert_eq!(out, f64_bytes(&[0.46875]));
    }

    #[test]
    fn fmath_values() {
        let x = f32_bytes(&[4.0, -9.0, 1.0, 0.0]);
        let y = f32_bytes(&[3.0, 2.0, 0.0, 1.0]);
        let p = [("n", 4)];
        let q = run("fmath_sqrtf", &[("x", Elem::F32, x.clone())], &p).unwrap();
        assert_eq!(f32_of(&q), vec![2.0, 3.0, 1.0, 0.0]);
        let d = run(
            "fmath_div",
            &[("x", Elem::F32, x.clone()), ("y", Elem::F32, y.clone())],
            &p,
        )
        .unwrap();
        assert_eq!(f32_of(&d), vec![4.0 / 3.0, -4.5, f32::INFINITY, 0.0]);
        let s = run("fmath_sinf", &[("x", Elem::F32, x)], &p).unwrap();
        assert_eq!(f32_of(&s)[3], 0.0);
        let e = run("fmath_expf", &[("y", Elem::F32, y)], &p).unwrap();
        assert_eq!(f32_of(&e)[3], std::f32::consts::E);
        assert_eq!(f32_of(&e)[2], 1.0);
    }

    #[test]
    fn wrong_inputs_are_errors() {
        let x = [("x", Elem::U32, u32_bytes(&[1]))];
        assert!(run("fmath_sqrtf", &x, &[("n", 1)])
            .unwrap_err()
            .contains("is U32"));
        assert!(run("fmath_sqrtf", &x, &[])
            .unwrap_err()
            .contains("missing parameter `n`"));
        assert!(run("call", &x, &[("n", 2)])
            .unwrap_err()
            .contains("holds 1 elements"));
        assert!(run("call", &x, &[("n", -1)])
            .unwrap_err()
            .contains("not a size"));
        assert!(run("dmath", &[], &[("n", 0), ("c_bits", 0)]).is_err());
    }

    /// Every launch file of the kernel suite parses, names references that exist
    /// and buffers it declares, and passes as many arguments, of the sizes, as its
    /// cubin's kernel takes; every suite cubin has a launch file.
    #[test]
    fn every_suite_launch_file_is_consistent() {
        use crate::launch::spec::{Arg, LaunchSpec, Reference};
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../traces/kernels");
        let mut launched = std::collections::BTreeSet::new();
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .expect("traces/kernels")
            .map(|e| e.expect("entry").path())
            .collect();
        files.sort();
        let mut count = 0;
        for path in &files {
            let Some(stem) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".launch.ron"))
            else {
                continue;
            };
            count += 1;
            let what = path.display().to_string();
            let text = std::fs::read_to_string(path).expect(&what);
            let spec: LaunchSpec = ron::from_str(&text).unwrap_or_else(|e| panic!("{what}: {e}"));
            let buffers: Vec<&str> = spec.buffers.iter().map(|b| b.name.as_str()).collect();
            assert!(!spec.checks.is_empty(), "{what}: no checks");
            for c in &spec.checks {
                assert!(
                    buffers.contains(&c.buffer.as_str()),
                    "{what}: check of unknown buffer {}",
                    c.buffer
                );
                if let Reference::Builtin { name, inputs, .. } = &c.reference {
                    assert!(builtin(name).is_some(), "{what}: no reference named {name}");
                    for i in inputs {
                        assert!(
                            buffers.contains(&i.as_str()),
                            "{what}: unknown input buffer {i}"
                        );
                    }
                }
            }
            let cubin_name = spec
                .cubin
                .clone()
                .unwrap_or_else(|| format!("{stem}.cubin"));
            launched.insert(cubin_name.clone());
            let bytes = std::fs::read(dir.join(&cubin_name))
                .unwrap_or_else(|e| panic!("{what}: {cubin_name}: {e}"));
            let cubin = sim_isa::cubin::Cubin::parse(&bytes)
                .unwrap_or_else(|e| panic!("{cubin_name}: {e}"));
            let kernel = cubin
                .kernel(&spec.kernel)
                .unwrap_or_else(|| panic!("{what}: {cubin_name} has no kernel {}", spec.kernel));
            let params = kernel.params();
            assert_eq!(params.len(), spec.args.len(), "{what}: argument count");
            for (p, a) in params.iter().zip(&spec.args) {
                let size = match a {
                    Arg::Buffer(b) => {
                        assert!(
                            buffers.contains(&b.as_str()),
                            "{what}: unknown buffer argument {b}"
                        );
                        8
                    }
                    Arg::I32(_) | Arg::U32(_) | Arg::F32(_) => 4,
                    Arg::I64(_) | Arg::U64(_) | Arg::F64(_) => 8,
                };
                assert_eq!(
                    usize::from(p.size),
                    size,
                    "{what}: parameter {} ({a:?})",
                    p.ordinal
                );
            }
        }
        assert!(
            count >= 18,
            "only {count} launch files in {}",
            dir.display()
        );
        for path in &files {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            if name.ends_with(".cubin") {
                assert!(launched.contains(name), "{name} has no launch file");
            }
        }
    }

    #[test]
    fn reduce_total_adds_partials_in_block_order() {
        let ones = f32_bytes(&[1.0; 300]);
        let b = [("in", Elem::F32, ones)];
        let p = [("n", 300), ("grid", 2), ("block", 64)];
        assert_eq!(f32_of(&run("reduce_total", &b, &p).unwrap()), vec![300.0]);
    }

    #[test]
    fn atomic_inc_wraps() {
        let b = [("count", Elem::U32, u32_bytes(&[0, 9]))];
        let out = run("atomic_inc", &b, &[("times", 5), ("limit", 4)]).unwrap();
        assert_eq!(u32_of(&out), vec![0, 9]);
        let out = run("atomic_inc", &b, &[("times", 3), ("limit", 4)]).unwrap();
        assert_eq!(u32_of(&out), vec![3, 9]);
    }

    #[test]
    fn widths_by_hand() {
        // Two records, block 2: each reads the other's.
        let mut input = vec![0u8; 32];
        input[..16].copy_from_slice(&[1, 0xfe, 2, 0, 0xff, 0xff, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0]);
        input[16..].copy_from_slice(&[5, 1, 7, 0, 4, 0, 9, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
        let out = run("widths", &[("in", Elem::U8, input)], &[("block", 2)]).unwrap();
        assert_eq!(out.len(), 64);
        let t = widths_table;
        // Record 0: b = 1, c = -2, h = 2, s = -1, w = 3, d = 3, q = (0x0002fe01,
        // 0x0000ffff, 3, 0); the next record: nb = 0, ns = 9, nd = 2^56 + 256,
        // nh = 7, nbb = 5, nq.x = 0x00070105.
        assert_eq!(out[0], 1);
        assert_eq!(out[1], (-6i32) as u8);
        assert_eq!(i16::from_le_bytes([out[2], out[3]]), -10);
        let word = (-2i32 as u32)
            .wrapping_add(2 + 3 + 7 + 5)
            .wrapping_add(t(3));
        assert_eq!(u32::from_le_bytes(out[4..8].try_into().unwrap()), word);
        let dword = 9u64 + (1 << 56) + 256 + t(0) as u64;
        assert_eq!(u64::from_le_bytes(out[8..16].try_into().unwrap()), dword);
        let q: Vec<u32> = words(&out[16..32]).collect();
        assert_eq!(
            q,
            vec![0x0007_0105, 3u32.wrapping_add(t(1)), 0xffff, 0x0002_fe01]
        );
        assert!(run("widths", &[("in", Elem::U8, vec![0; 48])], &[("block", 2)]).is_err());
        assert_eq!(t(1), 2_654_435_761 ^ 0x5bd1_e995);
    }

    #[test]
    fn warp_votes_shuffles_and_bits() {
        let x: Vec<u32> = (0..32u32)
            .map(|l| {
                if l == 7 {
                    0
                } else {
                    l * 0x0101_0101 + 0x8000_0000
                }
            })
            .collect();
        let out = u32_of(&run("warp", &[("in", Elem::U32, u32_bytes(&x))], &[]).unwrap());
        let lane = |l: usize| &out[16 * l..16 * l + 16];
        // ballot of x & 1 (odd lanes but 7); not all non-zero; lane 7's 0 < 0x1000.
        assert_eq!(lane(0)[0], 0xaaaa_aaaa & !(1 << 7));
        assert_eq!(lane(0)[1], 0b10);
        assert_eq!(lane(2)[2], x[(x[2] & 31) as usize]);
        assert_eq!((lane(1)[3], lane(4)[3]), (x[1], x[1]));
        assert_eq!(lane(0)[4], x[5]);
        // popc | clz << 8 | ffs << 16 of 0x80000000 (lane 0) and of 0 (lane 7).
        assert_eq!(lane(0)[5], 1 | 32 << 16); // clz 0
        assert_eq!(lane(7)[5], 32 << 8);
        assert_eq!(lane(0)[6], 1);
        // byte_perm(0x81010101, 1, 0x5140): bytes x0, lane0, x1, lane1.
        assert_eq!(lane(1)[7], 0x0001_0101);
        // Lane 0 (x = 2^31): funnelshift_l(lo x, hi 0, 0) = 0; funnelshift_r(lo 0,
        // hi 2^31, 16) keeps the low word of 2^63 >> 16 = 2^47: 0.
        // Lane 1 (x = 0x81010101): left, hi 1 : lo x by 1 = 2 | x >> 31; right,
        // hi x : lo 1 by x >> 27 = 16 = x << 16 (low word).
        assert_eq!(lane(0)[8], 0);
        assert_eq!(lane(0)[9], 0);
        assert_eq!(lane(1)[8], 1 << 1 | 1);
        assert_eq!(lane(1)[9], 0x0101_0000);
        assert_eq!(lane(0)[10], ((0x8000_0000u64 * 0x9e37_79b9) >> 32) as u32);
        assert_eq!(lane(0)[11], ((i32::MIN as i64 * -7) >> 32) as u32);
        assert_eq!(lane(0)[12], i32::MIN as u32);
        assert_eq!(lane(7)[12], (7 - 16) as u32);
        assert_eq!(lane(7)[13], 0x8000_0000);
        assert!(run("warp", &[("in", Elem::U32, u32_bytes(&[1; 31]))], &[]).is_err());
    }

    #[test]
    fn directed_rounding() {
        let third = 1.0f64 / 3.0;
        let (down, up) = (f64_to_f32(third, Round::Down), f64_to_f32(third, Round::Up));
        assert!((down as f64) < third && third < up as f64 && down.next_up() == up);
        assert_eq!(f64_to_f32(-third, Round::Zero), -down);
        assert_eq!(f64_to_f32(-third, Round::Down), -up);
        assert_eq!(f64_to_f32(1e39, Round::Down), f32::MAX);
        assert_eq!(f64_to_f32(1e39, Round::Up), f32::INFINITY);
        assert_eq!(f64_to_f32(-1e-50, Round::Down).to_bits(), 0x8000_0001);
        assert_eq!(f64_to_f32(16_777_217.0, Round::Up), 16_777_218.0);
        assert_eq!(f64_to_f32(16_777_217.0, Round::Zero), 16_777_216.0);
        // 1 + 2^-30: nearest 1, error positive.
        let tiny = 2f32.powi(-30);
        assert_eq!(add_directed(1.0, tiny, Round::Up), 1.0f32.next_up());
        assert_eq!(add_directed(1.0, tiny, Round::Down), 1.0);
        assert_eq!(add_directed(-1.0, -tiny, Round::Zero), -1.0);
        assert_eq!(
            add_directed(1.5, -1.5, Round::Down).to_bits(),
            (-0.0f32).to_bits()
        );
        assert_eq!(add_directed(1.5, -1.5, Round::Up).to_bits(), 0);
        let a = 1.0 + 2f32.powi(-23);
        assert_eq!(mul_directed(a, a, Round::Down), 1.0 + 2f32.powi(-22));
        assert_eq!(
            mul_directed(a, a, Round::Up),
            (1.0 + 2f32.powi(-22)).next_up()
        );
        assert_eq!(mul_directed(-a, a, Round::Zero), -(1.0 + 2f32.powi(-22)));
    }

    #[test]
    fn convert_by_hand() {
        let b = [
            ("x", Elem::F32, f32_bytes(&[-3.0e9])),
            ("y", Elem::F32, f32_bytes(&[-2.5])),
            ("w", Elem::F32, f32_bytes(&[0.5])),
            ("k", Elem::I32, u32_bytes(&[16_777_217])),
            ("d", Elem::F64, f64_bytes(&[-1.0e10])),
        ];
        let o = u32_of(&run("convert", &b, &[("n", 1)]).unwrap());
        let f = |i: usize| f32::from_bits(o[i]);
        assert_eq!(
            &o[..4],
            &[-2i32 as u32, -2i32 as u32, -3i32 as u32, -2i32 as u32]
        );
        assert_eq!((o[4], o[5]), (i32::MIN as u32, 0));
        assert_eq!(
            (f(6), f(7), f(8), f(9)),
            (16_777_216.0, 16_777_216.0, 16_777_216.0, 16_777_218.0)
        );
        assert_eq!(f(10), 16_777_216.0);
        assert_eq!((f(11), o[15]), (-1.0e10, i32::MIN as u32));
        assert_eq!(((o[17] as u64) << 32 | o[16] as u64) as i64, -3_000_000_000);
        assert_eq!((f(18), f(19), f(20)), (-3.0e9, -2.5, 0.0));
        assert_eq!(
            (f(21), f(22), f(23), f(24), f(25)),
            (-3.0, -2.0, -2.0, -2.0, -3.0)
        );
        assert_eq!((f(26), f(27), f(28)), (-2.0, -2.0, -2.0));
        assert_eq!((f(29), f(30), f(31)), (-1.25, -1.25, -1.25));
    }

    #[test]
    fn special_by_hand() {
        let b = [("in", Elem::U32, u32_bytes(&[2, 0, 0, 0, 0, 0, 0, 0]))];
        let p = [
            ("gx", 2),
            ("gy", 1),
            ("gz", 1),
            ("bx", 2),
            ("by", 1),
            ("bz", 2),
        ];
        let o = u32_of(&run("special", &b, &p).unwrap());
        assert_eq!(o.len(), 8 * 17);
        // Thread 0 of block 0: in = 2, (2 & 7) = 2 rounds: 7, 22.
        assert_eq!(
            &o[..17],
            &[0, 0, 0, 0, 0, 0, 2, 1, 2, 2, 1, 1, 0, 3, 1, 1, 22]
        );
        // Thread 3 of block 1 (the 8th): tx 1, tz 1; block x 1.
        assert_eq!(
            &o[7 * 17..8 * 17],
            &[1, 0, 1, 1, 0, 0, 2, 1, 2, 2, 1, 1, 3, 0, 1, 1, 0]
        );
    }

    #[test]
    fn int64_by_hand() {
        let v = [u64::MAX, 6u64];
        let b = [(
            "in",
            Elem::U64,
            v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        )];
        let o: Vec<u64> = run("int64", &b, &[("n", 2)])
            .unwrap()
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        // Element 0: x = 2^64 - 1, y = 6 | 1 = 7.
        assert_eq!(o[0], 7u64.wrapping_sub(0x9e37_79b9_7f4a_7c15));
        assert_eq!((o[1], o[2]), (u64::MAX / 7, u64::MAX % 1_000_003));
        assert_eq!(o[3], u64::MAX);
        assert_eq!(o[4], 6);
        assert_eq!(o[5], 0);
        assert_eq!(o[6], 64 | 1 << 16 | 1 << 25);
        assert_eq!(o[7], u64::MAX ^ (u64::MAX << 7) ^ (u64::MAX >> 3));
        // Element 1: x = 6, y = 2^64 - 1.
        assert_eq!(o[8 + 3], 6 >> 63);
        assert_eq!(o[8 + 6], 2 | 61 << 8 | 2 << 16 | 1 << 24);
    }

    #[test]
    fn atomics_by_hand() {
        let x = u32_bytes(&[65, 1, 0x8000_0001, 7]);
        let p = [("n", 3)];
        let g = run(
            "atomics_g",
            &[
                ("in", Elem::U32, x.clone()),
                ("g", Elem::U32, u32_bytes(&[5; 512])),
            ],
            &p,
        );
        let g = u32_of(&g.unwrap());
        // Bucket 1 got 65, 1 and 0x80000001; element 3 (7) is past n.
        assert_eq!(
            &g[8..16],
            &[
                0x8000_0001,
                0x8000_0001,
                1,
                0x8000_0045,
                5 ^ 65 ^ 1 ^ 0x8000_0001,
                5 + 65 + 1 + 1,
                8,
                5
            ]
        );
        assert_eq!(&g[56..64], &[5; 8]);
        let f = run(
            "atomics_fsum",
            &[
                ("in", Elem::U32, x.clone()),
                ("f", Elem::F32, f32_bytes(&[0.5; 64])),
            ],
            &p,
        );
        assert_eq!(
            f.unwrap_err(),
            "bucket 1 of `f` leaves the exactly summable integers"
        );
        let f = run(
            "atomics_fsum",
            &[
                ("in", Elem::U32, x.clone()),
                ("f", Elem::F32, f32_bytes(&[0.0; 64])),
            ],
            &p,
        );
        assert_eq!(f32_of(&f.unwrap())[1], 65.0 + 1.0 + 1.0);
        let c = run(
            "atomics_cnt",
            &[
                ("in", Elem::U32, x.clone()),
                ("c", Elem::U32, u32_bytes(&[0; 32])),
            ],
            &p,
        );
        assert_eq!(u32_of(&c.unwrap())[1], 3);
        let z64 = vec![0u8; 8 * 64];
        let s = run(
            "atomics_sum64",
            &[("in", Elem::U32, x.clone()), ("s", Elem::U64, z64.clone())],
            &p,
        )
        .unwrap();
        assert_eq!(
            u64::from_le_bytes(s[8..16].try_into().unwrap()),
            (65 + 1 + 0x8000_0001u64) << 8
        );
        let c = run(
            "atomics_cnt64",
            &[("in", Elem::U32, x), ("c", Elem::U64, z64[..256].to_vec())],
            &p,
        )
        .unwrap();
        assert_eq!(
            u64::from_le_bytes(c[8..16].try_into().unwrap()),
            65 + 1 + 0x8000_0001u64
        );
    }
}
