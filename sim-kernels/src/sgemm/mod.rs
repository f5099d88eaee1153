//! The generator of the tuned Kepler SGEMM and of its optimisation ladder, as
//! keplersim assembler source (`keplersim gen sgemm` writes it, and
//! `traces/sgemm` holds what it made).
//!
//! The kernel is the "TN" SGEMM of `../shared/kepler/k20m-facts.md`: in BLAS
//! column-major terms `C = alpha * A * B^T + beta * C` with A an `m x k`
//! matrix (`lda >= m`), B `n x k` (`ldb >= n`) and C `m x n` (`ldc >= m`),
//! cuBLAS's `Sgemm(N, T)`. A block of 256 threads (16 x 16) computes a
//! `16T x 16T` tile of C, each thread a `T x T` register block (T = 12: the
//! 192 x 192 tile; T = 8: 128 x 128). Thread (tx, ty) owns rows
//! `32 * (y / 2) + 2 * tx + y % 2` and columns `32 * (x / 2) + 2 * ty + x % 2`
//! of the tile, so each of its LDS.64 reads two neighbouring A (or B) values
//! and a warp's LDS.64 covers 128 contiguous bytes or broadcasts.
//!
//! One loop iteration covers 4 values of k (the chunk): 4 unrolled steps of
//! `T * T` FFMAs. Shared memory holds two buffers (at 0 and 0x2000) of the
//! chunk's A (4 x 16T floats) and B; registers hold two sets of a step's A and
//! B values. Step s loads step s+1's values into the other register set while
//! it computes; step 2 stores the next chunk (loaded from global memory during
//! the previous iteration) into the other shared buffer and ends with
//! `BAR.SYNC`; step 3 reads the next chunk's first step from it and issues the
//! global loads of the chunk after next. The first 16T threads each load one
//! 16-byte piece of A and of B per chunk (`k % 4` row, 16-byte column).
//!
//! The ladder, each step on top of the last (the facts file's):
//! `baseline` (register blocking, double buffering, unrolling, 32-bit `LD`,
//! accumulators in order in R0.., single issue), `reg` (bank-aware allocation:
//! the paper's published FFMA order and accumulator banks, [`published`]),
//! `ld128` (`LD.E.128`
//! through L2), `ldg128` (`LDG.E.128` on the read-only path with `TEXDEPBAR`),
//! `paper` (the paper's +Dual: 1-2-2-1 dual-issue control codes, six FFMAs
//! and one other instruction per 7-instruction group, the loop aligned to a
//! group, and the paper's byte `0x90` on each group's seventh instruction).
//! `dual`, the tuned kernel, is `paper` re-tuned on the model: the generator's
//! own FFMA order, whose neighbours share A or B, with the accumulators'
//! banks chosen pair by pair so that a pair reads two registers of one bank
//! only where no bank avoids it ([`banks`]), and such a pair kept paired,
//! the seventh instruction coded `0x05` (`0x20` after integer arithmetic),
//! on the 8x8 block B loaded by the last 16T threads (A by the first), so
//! that the schedulers issue the loop's LDGs evenly, and two columns of C in
//! three read in the epilogue on the read-only path (`LDG.E.64`), the third
//! through L2.

mod banks;
mod body;
mod epilogue;
mod ins;
mod prologue;
mod published;

use std::collections::BTreeMap;
use std::fmt::Write;

use ins::{addr, emit, reg, Ins, Pool};

/// How global memory is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// Four 32-bit `LD.E` per 16-byte piece (through L2).
    Ld32,
    /// `LD.E.128` (through L2).
    Ld128,
    /// `LDG.E.128` (read-only path), protected by `TEXDEPBAR`.
    Ldg128,
}

/// One kernel of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// The register block: 12 (192 x 192 tile) or 8 (128 x 128).
    pub t: usize,
    /// Bank-aware allocation and FFMA order (else accumulators in order).
    pub banked: bool,
    /// With `banked` and the 12x12 block, the paper's published FFMA order
    /// and accumulator banks (else the generator's order with banks solved
    /// for it). The ladder's steps from `reg` to `paper` have it.
    pub published: bool,
    pub load: Load,
    /// Dual-issue control codes.
    pub dual: bool,
    /// With dual issue, the paper's byte `0x90` on each group's seventh
    /// instruction (else `0x05`, or `0x20` after integer arithmetic).
    pub paper: bool,
    /// B loaded by the block's last 16T threads, so that each loading warp
    /// issues one of a chunk's global loads, not two (else threads 0 to
    /// 16T - 1 load both A and B, as in the paper). The ladder's steps have
    /// it on the 8x8 tuned kernel alone, where the model gains from it.
    pub b_last: bool,
}

/// The ladder's steps, in order, with their names: the paper's five, then
/// the tuned kernel (`dual`).
pub const LADDER: [&str; 6] = ["baseline", "reg", "ld128", "ldg128", "paper", "dual"];

impl Variant {
    /// The ladder step `name` with register block `t`.
    pub fn ladder(name: &str, t: usize) -> Option<Variant> {
        let step = LADDER.iter().position(|&n| n == name)?;
        if t != 8 && t != 12 {
            return None;
        }
        Some(Variant {
            t,
            banked: step >= 1,
            published: (1..=4).contains(&step) && t == 12,
            load: match step {
                0 | 1 => Load::Ld32,
                2 => Load::Ld128,
                _ => Load::Ldg128,
            },
            dual: step >= 4,
            paper: step == 4,
            b_last: step == 5 && t == 8,
        })
    }

    /// The ladder step this variant is, with the step's own variant, allowing
    /// for the FFMA order and B's loaders (`gen sgemm --order`,
    /// `--b-loaders`), which may differ from the step's own.
    fn step(&self) -> Option<(&'static str, Variant)> {
        let (b_last, published) = (self.b_last, self.published);
        LADDER.iter().rev().find_map(|&n| {
            let own = Variant::ladder(n, self.t)?;
            ((Variant {
                b_last,
                published,
                ..own
            }) == *self)
                .then_some((n, own))
        })
    }

    /// Where this variant departs from its ladder step `own`: for the FFMA
    /// order and B's loaders that are not the step's own, the `gen sgemm`
    /// option and the kernel name's suffix that say so.
    fn departures(&self, own: &Variant) -> Vec<(&'static str, &'static str)> {
        let mut d = Vec::new();
        if self.published != own.published {
            d.push(match self.published {
                true => ("--order published", "_published"),
                false => ("--order solved", "_solved"),
            });
        }
        if self.b_last != own.b_last {
            d.push(match self.b_last {
                true => ("--b-loaders last", "_b_last"),
                false => ("--b-loaders first", "_b_first"),
            });
        }
        d
    }

    /// The `keplersim gen sgemm` options that make this variant: its ladder
    /// step, block, and the FFMA order and B's loaders where those are not
    /// the step's own (`--step dual --block 8 --b-loaders first`).
    pub fn options(&self) -> String {
        let t = self.t;
        let Some((name, own)) = self.step() else {
            return format!("--block {t}");
        };
        let mut o = format!("--step {name} --block {t}");
        for (option, _) in self.departures(&own) {
            o = o + " " + option;
        }
        o
    }

    /// The tile's side in elements of C.
    pub fn tile(&self) -> usize {
        16 * self.t
    }

    /// The kernel's name in the cubin: its ladder step's, then its FFMA
    /// order and which threads load B where those are not the step's own
    /// choice (`sgemm_tn_12x12_dual_published_b_last`).
    pub fn kernel_name(&self) -> String {
        let t = self.t;
        let step = self.step().map(|(n, own)| {
            let suffixes = self.departures(&own).into_iter().map(|(_, s)| s);
            std::iter::once(n).chain(suffixes).collect::<String>()
        });
        format!("sgemm_tn_{t}x{t}_{}", step.as_deref().unwrap_or("custom"))
    }
}

/// The second shared buffer's offset.
const BUF: i64 = 0x2000;

/// The generated source of `v`, and the figures of its loop.
pub struct Generated {
    pub sass: String,
    /// Instructions per loop iteration (NOPs included).
    pub loop_instructions: usize,
    /// FFMAs per loop iteration.
    pub loop_ffmas: usize,
    /// Dual-issued pairs per loop iteration, as coded.
    pub loop_pairs: usize,
    pub registers: u32,
}

/// Generates the kernel `v`: its registers first, then the loop (which
/// places the accumulators), the prologue and the epilogue around it.
pub fn generate(v: Variant) -> Generated {
    let mut plan = Plan::new(v);
    let (body, loop_pairs) = plan.main_loop();
    let pro = plan.prologue();
    let epi = plan.epilogue();
    let registers = plan.registers();
    Generated {
        sass: plan.source(&pro, &body, &epi, registers),
        loop_instructions: body.len(),
        loop_ffmas: 4 * v.t * v.t,
        loop_pairs,
        registers,
    }
}

/// The variant's shape: what every part of the kernel derives from it.
#[derive(Debug, Clone, Copy)]
struct Shape {
    v: Variant,
    t: usize,
    tile: i64,
    half: usize,
    /// The tuned kernel (`dual`) re-tunes the paper's design where the model
    /// says it gains: its epilogue reads part of C on the read-only path
    /// ([`Plan::epilogue`]), and the 8x8 block has B loaded by the last 16T
    /// threads ([`Variant::b_last`]; `b_shift` threads on from A's loaders).
    tuned: bool,
    b_shift: i64,
    /// The predicates of B's loads and stores: P4 the loading threads, P5
    /// and P6 as P1 and P3 (A's) for them; A's own when the threads are one
    /// set.
    pb_load: &'static str,
    pb_next: &'static str,
    pb_store: &'static str,
}

impl Shape {
    fn of(v: Variant) -> Shape {
        let tuned = v.dual && !v.paper;
        let b_shift = if v.b_last { 256 - v.tile() as i64 } else { 0 };
        let (pb_load, pb_next, pb_store) = if b_shift > 0 {
            ("P4", "P5", "P6")
        } else {
            ("P2", "P1", "P3")
        };
        Shape {
            v,
            t: v.t,
            tile: v.tile() as i64,
            half: v.t / 2,
            tuned,
            b_shift,
            pb_load,
            pb_next,
            pb_store,
        }
    }

    /// The register of A row `y` in value set `s`. Banked: A pairs on banks
    /// 0/1 (R8i, R8i+2); else after the accumulators R0.., A then B of set
    /// 0, then set 1.
    fn a_reg(&self, s: usize, y: usize) -> u8 {
        let t = self.t;
        if self.v.banked {
            let j = y / 2;
            (2 * t * s + 8 * (j / 2) + 2 * (j % 2) + y % 2) as u8
        } else {
            (t * t + 2 * t * s + y) as u8
        }
    }

    /// The register of B column `x` in value set `s`. Banked: B pairs on
    /// banks 2/3 (R8i+4, R8i+6).
    fn b_reg(&self, s: usize, x: usize) -> u8 {
        let t = self.t;
        if self.v.banked {
            let j = x / 2;
            (2 * t * s + 8 * (j / 2) + 4 + 2 * (j % 2) + x % 2) as u8
        } else {
            (t * t + 2 * t * s + t + x) as u8
        }
    }

    /// FFMAs per unrolled step.
    fn per_step(&self) -> usize {
        self.t * self.t
    }

    /// The position in the iteration's FFMAs after which the other
    /// instruction of group `g` of step `s` is due. Groups are those of the
    /// 12x12 step (24 groups of 6 FFMAs, the other instruction of group g
    /// after FFMA 6g + 5), scaled for the 8x8 step.
    fn due(&self, s: usize, g: usize) -> usize {
        let per_step = self.per_step();
        s * per_step + (6 * g + 5) * per_step / 144
    }

    /// B's offset in the shared buffer, for its storing thread: after A's
    /// 4 x 16T floats, the thread's own `b_shift` threads on.
    fn sts_b(&self) -> i64 {
        16 * self.tile - 4 * self.b_shift
    }

    /// One thread's 16-byte piece of A (or B) loaded from the pointer `p`
    /// into `d..d+3`, guarded by `pred` (`"@P1 "`, or empty).
    fn loads(&self, p: u8, d: u8, pred: &str) -> Vec<Ins> {
        match self.v.load {
            Load::Ld32 => (0..4)
                .map(|k| {
                    let a = addr(p, 4 * k);
                    Ins::new(format!("{pred}LD.E {}, {a}", reg(d + k as u8)))
                        .r(&[p, p + 1])
                        .w(&[d + k as u8])
                })
                .collect(),
            Load::Ld128 => vec![Ins::new(format!("{pred}LD.E.128 {}, [{}]", reg(d), reg(p)))
                .r(&[p, p + 1])
                .w(&[d, d + 1, d + 2, d + 3])],
            Load::Ldg128 => vec![
                Ins::new(format!("{pred}LDG.E.128 {}, [{}]", reg(d), reg(p)))
                    .r(&[p, p + 1])
                    .w(&[d, d + 1, d + 2, d + 3]),
            ],
        }
    }
}

/// The registers that live through the loop. The ones the loop's other
/// instructions read sit on bank 2: the sixth FFMA of a group, which pairs
/// with them, reads an A value (bank 0 or 1), its B value is the one the FFMA
/// before it read, and `solve` puts its accumulator on bank 3.
#[derive(Debug, Clone, Copy)]
struct Regs {
    /// The shared read pointers of A and B, and the store offset.
    s_a: u8,
    s_b: u8,
    w_s: u8,
    /// Chunks left.
    kc: u8,
    /// The loaded 16-byte pieces of A and B (quads).
    d_a: u8,
    d_b: u8,
    /// The global pointers (pairs) and their strides per chunk, on bank 1:
    /// `IADD p.CC, p, stride` reads an even register and a stride.
    p_a: u8,
    p_b: u8,
    stride_a: u8,
    stride_b: u8,
    /// The thread's first row and column of C.
    ib: u8,
    jb: u8,
}

/// What the parts of the kernel agree on: its shape, its registers, the FFMA
/// order of a step and, once the loop is laid out, the accumulators.
struct Plan {
    shape: Shape,
    regs: Regs,
    pool: Pool,
    /// The registers of the A and B values of both sets.
    set_regs: Vec<u8>,
    /// The (row, column) of C each FFMA of a step updates, in order.
    order: Vec<(usize, usize)>,
    /// The A (`true`) and B pairs of a step in the order the step first reads
    /// them.
    first_use: Vec<(bool, usize)>,
    /// The accumulator of each element of the thread's block of C.
    acc: BTreeMap<(usize, usize), u8>,
}

impl Plan {
    fn new(v: Variant) -> Plan {
        let sh = Shape::of(v);
        let t = sh.t;
        let set_regs: Vec<u8> = (0..2)
            .flat_map(|s| (0..t).flat_map(move |i| [(s, i, true), (s, i, false)]))
            .map(|(s, i, is_a)| if is_a { sh.a_reg(s, i) } else { sh.b_reg(s, i) })
            .collect();
        let mut taken: Vec<u8> = set_regs.clone();
        if !v.banked {
            taken.extend((0..t * t).map(|i| i as u8));
        }
        let mut pool = Pool::new(|r| taken.contains(&r));
        let (s_a, s_b, w_s, kc) = (pool.take(2), pool.take(2), pool.take(2), pool.take(2));
        let (d_a, d_b, p_a, p_b) = (pool.run(4), pool.run(4), pool.run(2), pool.run(2));
        let (stride_a, stride_b) = (pool.take(1), pool.take(1));
        let (ib, jb) = (pool.any(), pool.any());
        let regs = Regs {
            s_a,
            s_b,
            w_s,
            kc,
            d_a,
            d_b,
            p_a,
            p_b,
            stride_a,
            stride_b,
            ib,
            jb,
        };

        let order: Vec<(usize, usize)> = if v.published {
            published::order()
        } else if v.banked {
            // Row pairs (a, b); along the columns a, b, b, a, a, b, ...: each
            // FFMA shares its B value with the one before it or its A value,
            // in turn.
            let mut o = Vec::new();
            for rp in 0..sh.half {
                let (ra, rb) = (2 * rp, 2 * rp + 1);
                for x in 0..t {
                    if x % 2 == 0 {
                        o.extend([(ra, x), (rb, x)]);
                    } else {
                        o.extend([(rb, x), (ra, x)]);
                    }
                }
            }
            o
        } else {
            (0..t).flat_map(|y| (0..t).map(move |x| (y, x))).collect()
        };
        let mut first_use: Vec<(bool, usize)> = Vec::new();
        for &(y, x) in &order {
            for k in [(true, y / 2), (false, x / 2)] {
                if !first_use.contains(&k) {
                    first_use.push(k);
                }
            }
        }
        // Accumulators: in order, or solved for banks with the loop.
        let mut acc: BTreeMap<(usize, usize), u8> = BTreeMap::new();
        if !v.banked {
            for y in 0..t {
                for x in 0..t {
                    acc.insert((y, x), (t * y + x) as u8);
                }
            }
        }
        Plan {
            shape: sh,
            regs,
            pool,
            set_regs,
            order,
            first_use,
            acc,
        }
    }

    /// The accumulators' registers, lowest first.
    fn accs(&self) -> Vec<u8> {
        let mut v: Vec<u8> = self.acc.values().copied().collect();
        v.sort_unstable();
        v
    }

    /// The registers the kernel uses (one more than the highest).
    fn registers(&self) -> u32 {
        let accs = self.accs();
        self.pool
            .max
            .max(*accs.last().unwrap())
            .max(*self.set_regs.iter().max().unwrap()) as u32
            + 1
    }

    /// One thread's 16 bytes of A (or B) of the next chunk into shared
    /// memory, guarded by `pred`.
    fn sts128(&self, pred: &str, off: i64, d: u8) -> Ins {
        let w_s = self.regs.w_s;
        Ins::new(format!("@{pred} STS.128 {}, {}", addr(w_s, off), reg(d))).r(&[
            w_s,
            d,
            d + 1,
            d + 2,
            d + 3,
        ])
    }

    /// The assembler source: the header, the prologue, the loop (aligned to
    /// a dual-issue group) and the epilogue.
    fn source(&self, pro: &[Ins], body: &[Ins], epi: &[Ins], registers: u32) -> String {
        let sh = self.shape;
        let (v, t, tile) = (sh.v, sh.t, sh.tile);
        let r = self.regs;
        let accs = self.accs();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Generated by `keplersim gen sgemm {}`: do not edit.",
            v.options()
        );
        let _ = writeln!(
            s,
            "// TN SGEMM (cuBLAS Sgemm(N, T), column-major): C = alpha * A * B^T + beta * C,\n\
             // {tile} x {tile} tile per block of 256 threads, {t} x {t} per thread, k by 4.\n\
             // m, n multiples of {tile}; k a multiple of 4, at least 4 (the launch file checks)."
        );
        let _ = writeln!(s, ".kernel {}", v.kernel_name());
        for (size, name) in [
            (4, "m"),
            (4, "n"),
            (4, "k"),
            (4, "alpha"),
            (8, "A"),
            (4, "lda"),
            (8, "B"),
            (4, "ldb"),
            (4, "beta"),
            (8, "C"),
            (4, "ldc"),
        ] {
            let _ = writeln!(s, ".param {size}                   // {name}");
        }
        let _ = writeln!(s, ".registers {registers}");
        let _ = writeln!(s, ".shared {}", BUF as usize + 2 * 4 * tile as usize * 4);
        let _ = writeln!(s, ".reqntid 256");
        let _ = writeln!(
            s,
            "// Registers: A/B sets {}, accumulators {} ({}), shared pointers sA {} sB {} store {}, chunk counter {},\n\
             // global pointers A {}:{} B {}:{}, their strides {} {}, loaded data A {}..{} B {}..{}.",
            if v.banked { "R0..R".to_string() + &(4 * t - 1).to_string() } else { format!("R{}..R{}", t * t, t * t + 4 * t - 1) },
            accs.len(),
            if v.banked { "placed by bank" } else { "R0.. in order" },
            reg(r.s_a), reg(r.s_b), reg(r.w_s), reg(r.kc),
            reg(r.p_a), reg(r.p_a + 1), reg(r.p_b), reg(r.p_b + 1), reg(r.stride_a), reg(r.stride_b),
            reg(r.d_a), reg(r.d_a + 3), reg(r.d_b), reg(r.d_b + 3),
        );
        emit(&mut s, pro);
        let _ = writeln!(s, "        .group");
        let _ = writeln!(s, "sgemm_loop:");
        emit(&mut s, body);
        emit(&mut s, epi);
        s
    }
}

/// The launch file of `v` (beside its cubin).
pub fn launch_file(v: Variant, cubin: &str, size: usize) -> String {
    let tile = v.tile();
    format!(
        "// Launch of {name} ({cubin}), generated by `keplersim gen sgemm`.\n\
         // TN SGEMM, column-major: C (m x n) = alpha * A (m x k) * B^T (B is n x k) + beta * C;\n\
         // cuBLAS Sgemm(N, T). Grid (1, m / {tile}, n / {tile}) of 256 threads; alpha 1.5, beta -0.75;\n\
         // lda = m + pad, ldb = n + pad, ldc = m + pad (pad a multiple of 4: LDG.128 reads 16 aligned bytes).\n\
         (\n\
         \x20   kernel: \"{name}\",\n\
         \x20   cubin: \"{cubin}\",\n\
         \x20   vars: {{ \"m\": {size}, \"n\": {size}, \"k\": {size}, \"pad\": 0 }},\n\
         \x20   requires: [\n\
         \x20       (zero: \"m % {tile}\", why: \"m must be a multiple of the {tile}-row tile\"),\n\
         \x20       (zero: \"n % {tile}\", why: \"n must be a multiple of the {tile}-column tile\"),\n\
         \x20       (zero: \"k % 4\", why: \"k must be a multiple of 4 (the loop's chunk)\"),\n\
         \x20       (positive: \"min(m, min(n, k))\", why: \"m, n and k must be positive\"),\n\
         \x20       (zero: \"pad % 4\", why: \"pad must be a multiple of 4\"),\n\
         \x20       (positive: \"pad + 1\", why: \"pad must not be negative\"),\n\
         \x20   ],\n\
         \x20   grid: (1, \"m / {tile}\", \"n / {tile}\"),\n\
         \x20   block: (256, 1, 1),\n\
         \x20   buffers: [\n\
         \x20       (name: \"a\", elem: F32, len: \"(m + pad) * k\", init: Random(seed: 11, lo: -1.0, hi: 1.0)),\n\
         \x20       (name: \"b\", elem: F32, len: \"(n + pad) * k\", init: Random(seed: 12, lo: -1.0, hi: 1.0)),\n\
         \x20       (name: \"c\", elem: F32, len: \"(m + pad) * n\", init: Random(seed: 13, lo: -1.0, hi: 1.0)),\n\
         \x20   ],\n\
         \x20   args: [I32(\"m\"), I32(\"n\"), I32(\"k\"), F32(1.5), Buffer(\"a\"),\n\
         \x20       I32(\"m + pad\"), Buffer(\"b\"), I32(\"n + pad\"), F32(-0.75), Buffer(\"c\"), I32(\"m + pad\")],\n\
         \x20   flops: \"2 * m * n * k\",\n\
         \x20   checks: [\n\
         \x20       // alpha_bits, beta_bits: the bits of 1.5f and -0.75f.\n\
         \x20       (buffer: \"c\", reference: Builtin(name: \"sgemm\", inputs: [\"a\", \"b\", \"c\"],\n\
         \x20           params: {{ \"m\": \"m\", \"n\": \"n\", \"k\": \"k\", \"lda\": \"m + pad\", \"ldb\": \"n + pad\",\n\
         \x20               \"ldc\": \"m + pad\",\n\
         \x20               \"trans_a\": 0, \"trans_b\": 1, \"alpha_bits\": 1069547520, \"beta_bits\": 3208642560 }}),\n\
         \x20           compare: BitExact),\n\
         \x20   ],\n\
         )\n",
        name = v.kernel_name(),
    )
}
