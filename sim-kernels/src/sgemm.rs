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
//! accumulators in order in R0.., single issue), `reg` (bank-aware allocation
//! and an FFMA order whose neighbours share A or B), `ld128` (`LD.E.128`
//! through L2), `ldg128` (`LDG.E.128` on the read-only path with `TEXDEPBAR`),
//! `paper` (the paper's +Dual: 1-2-2-1 dual-issue control codes, six FFMAs
//! and one other instruction per 7-instruction group, the loop aligned to a
//! group, and the paper's byte `0x90` on each group's seventh instruction).
//! `dual`, the tuned kernel, is `paper` re-tuned on the model: the seventh
//! instruction coded `0x05` (`0x20` after integer arithmetic), B loaded by
//! the last 16T threads (A by the first), so that the schedulers issue the
//! loop's LDGs evenly, and two columns of C in three read in the epilogue on
//! the read-only path (`LDG.E.64`), the third through L2.

use std::collections::BTreeMap;
use std::fmt::Write;

use sim_core::timing::ctrl::{Ctrl, Reading};

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
    pub load: Load,
    /// Dual-issue control codes.
    pub dual: bool,
    /// With dual issue, the paper's byte `0x90` on each group's seventh
    /// instruction (else `0x05`, or `0x20` after integer arithmetic).
    pub paper: bool,
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
            load: match step {
                0 | 1 => Load::Ld32,
                2 => Load::Ld128,
                _ => Load::Ldg128,
            },
            dual: step >= 4,
            paper: step == 4,
        })
    }

    /// The tile's side in elements of C.
    pub fn tile(&self) -> usize {
        16 * self.t
    }

    /// The kernel's name in the cubin.
    pub fn kernel_name(&self) -> String {
        let step = LADDER
            .iter()
            .enumerate()
            .rev()
            .find(|&(_, n)| Variant::ladder(n, self.t) == Some(*self))
            .map(|(_, n)| *n)
            .unwrap_or("custom");
        format!("sgemm_tn_{}x{}_{step}", self.t, self.t)
    }
}

/// The bank of a register (bit 0 and 2 x bit 2 of its number).
fn bank(r: u8) -> usize {
    ((r & 1) | ((r >> 1) & 2)) as usize
}

/// A register or predicate operand set of one instruction, for the bank and
/// latency bookkeeping of the generator (the checker re-derives all of it from
/// the cubin).
#[derive(Debug, Clone, Default)]
struct Ins {
    text: String,
    ctrl: u8,
    reads: Vec<u8>,
    writes: Vec<u8>,
    /// A fixed-latency (ALU) result: readers must be 9 cycles away.
    alu: bool,
    /// May be the second of a dual-issued pair after an FFMA.
    pairs: bool,
    /// A load or store (waits for the ALU results it reads).
    lsu: bool,
    comment: String,
}

impl Ins {
    fn new(text: impl Into<String>) -> Ins {
        let text: String = text.into();
        // The mnemonic, after a guard predicate if there is one.
        let mnemonic = match text.strip_prefix('@') {
            Some(rest) => rest.split_once(' ').map_or(rest, |(_, m)| m.trim()),
            None => text.as_str(),
        };
        let lsu = ["LD", "ST", "LDS", "STS", "LDG"]
            .iter()
            .any(|m| mnemonic.split(['.', ' ']).next() == Some(*m));
        Ins {
            text,
            ctrl: 0x20,
            lsu,
            ..Ins::default()
        }
    }
    fn r(mut self, regs: &[u8]) -> Ins {
        self.reads.extend_from_slice(regs);
        self
    }
    fn w(mut self, regs: &[u8]) -> Ins {
        self.writes.extend_from_slice(regs);
        self
    }
    fn alu(mut self) -> Ins {
        self.alu = true;
        self
    }
    fn pairs(mut self) -> Ins {
        self.pairs = true;
        self
    }
    fn note(mut self, c: impl Into<String>) -> Ins {
        self.comment = c.into();
        self
    }
}

/// Registers, in the order they are handed out by bank.
struct Pool {
    free: [Vec<u8>; 4],
    max: u8,
}

impl Pool {
    fn new(taken: impl Fn(u8) -> bool) -> Pool {
        let mut free: [Vec<u8>; 4] = Default::default();
        for r in (0u8..255).rev() {
            if !taken(r) {
                free[bank(r)].push(r);
            }
        }
        Pool { free, max: 0 }
    }
    fn take(&mut self, b: usize) -> u8 {
        let r = self.free[b].pop().expect("registers of a bank run out");
        self.max = self.max.max(r);
        r
    }
    /// The lowest free register.
    fn any(&mut self) -> u8 {
        let b = (0..4)
            .filter(|&b| !self.free[b].is_empty())
            .min_by_key(|&b| self.free[b].last().copied())
            .expect("registers run out");
        self.take(b)
    }
    /// A free even-aligned run of `n` registers (a pair or a quad).
    fn run(&mut self, n: u8) -> u8 {
        let mut all: Vec<u8> = self.free.iter().flatten().copied().collect();
        all.sort_unstable();
        let base = all
            .iter()
            .copied()
            .find(|&r| r % n == 0 && (0..n).all(|k| all.contains(&(r + k))))
            .expect("no aligned registers left");
        for k in 0..n {
            let r = base + k;
            self.free[bank(r)].retain(|&x| x != r);
            self.max = self.max.max(r);
        }
        base
    }
    fn left(&self, b: usize) -> usize {
        self.free[b].len()
    }
}

fn hx(v: i64) -> String {
    if v < 0 {
        format!("-{:#x}", -v)
    } else {
        format!("{v:#x}")
    }
}

/// `[Rn+off]` as nvdisasm prints it (`[Rn]` at offset 0).
fn addr(r: u8, off: i64) -> String {
    if off == 0 {
        format!("[{}]", reg(r))
    } else {
        format!("[{}+{}]", reg(r), hx(off))
    }
}

fn reg(r: u8) -> String {
    if r == 255 {
        "RZ".into()
    } else {
        format!("R{r}")
    }
}

/// Parameter offsets in constant bank 0.
mod param {
    pub const K: u32 = 0x148;
    pub const ALPHA: u32 = 0x14c;
    pub const A: u32 = 0x150;
    pub const LDA: u32 = 0x158;
    pub const B: u32 = 0x160;
    pub const LDB: u32 = 0x168;
    pub const BETA: u32 = 0x16c;
    pub const C: u32 = 0x170;
    pub const LDC: u32 = 0x178;
}

fn cb(off: u32) -> String {
    format!("c[0x0][{off:#x}]")
}

/// `dst:dst+1 = src:src+1 + b`, a 64-bit address plus a 32-bit `b` (a
/// register, read as `b_reads`, or an immediate): the low word's `IADD .CC`
/// and the high word's `IADD.X`.
fn add64(dst: u8, src: u8, b: &str, b_reads: &[u8]) -> [Ins; 2] {
    let mut reads = vec![src];
    reads.extend_from_slice(b_reads);
    [
        Ins::new(format!("IADD {}.CC, {}, {b}", reg(dst), reg(src)))
            .r(&reads)
            .w(&[dst])
            .alu(),
        Ins::new(format!("IADD.X {}, {}, RZ", reg(dst + 1), reg(src + 1)))
            .r(&[src + 1])
            .w(&[dst + 1])
            .alu(),
    ]
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

/// Generates the kernel `v`.
pub fn generate(v: Variant) -> Generated {
    let t = v.t;
    let tile = v.tile() as i64;
    let half = t / 2;
    // The tuned kernel (`dual`) re-tunes the paper's design where the model
    // says it gains: its B is loaded by the last 16T threads instead of the
    // first (`b_shift`), so that each scheduler's warps issue as many of the
    // loop's LDGs as another's (a 192 x 192 tile: three each, against four,
    // four, two and two); its epilogue reads part of C on the read-only path
    // (below).
    let tuned = v.dual && !v.paper;
    let b_shift: i64 = if tuned { 256 - tile } else { 0 };
    // The predicates of B's loads and stores: P4 the loading threads, P5
    // and P6 as P1 and P3 (A's) for them; A's own when the threads are one set.
    let (pb_load, pb_next, pb_store) = if b_shift > 0 {
        ("P4", "P5", "P6")
    } else {
        ("P2", "P1", "P3")
    };
    // Register sets of A and B values: set s, A row y / B column x.
    type RegOf = Box<dyn Fn(usize, usize) -> u8>;
    let (a_reg, b_reg): (RegOf, RegOf) = if v.banked {
        // A pairs on banks 0/1 (R8i, R8i+2), B pairs on 2/3 (R8i+4, R8i+6).
        let a = move |s: usize, y: usize| {
            let j = y / 2;
            (2 * t * s + 8 * (j / 2) + 2 * (j % 2) + y % 2) as u8
        };
        let b = move |s: usize, x: usize| {
            let j = x / 2;
            (2 * t * s + 8 * (j / 2) + 4 + 2 * (j % 2) + x % 2) as u8
        };
        (Box::new(a), Box::new(b))
    } else {
        // Accumulators R0.., then A, B of set 0, then set 1.
        let base = t * t;
        (
            Box::new(move |s: usize, y: usize| (base + 2 * t * s + y) as u8),
            Box::new(move |s: usize, x: usize| (base + 2 * t * s + t + x) as u8),
        )
    };
    let set_regs: Vec<u8> = (0..2)
        .flat_map(|s| (0..t).flat_map(move |i| [(s, i, true), (s, i, false)]))
        .map(|(s, i, is_a)| if is_a { a_reg(s, i) } else { b_reg(s, i) })
        .collect();
    let acc_in_order = |y: usize, x: usize| (t * y + x) as u8;
    let mut taken: Vec<u8> = set_regs.clone();
    if !v.banked {
        taken.extend((0..t * t).map(|i| i as u8));
    }
    let mut pool = Pool::new(|r| taken.contains(&r));

    // Registers that live through the loop. The ones the loop's other
    // instructions read sit on bank 2: the sixth FFMA of a group, which pairs
    // with them, reads an A value (bank 0 or 1), its B value is the one the
    // FFMA before it read, and `solve` puts its accumulator on bank 3.
    let s_a = pool.take(2);
    let s_b = pool.take(2);
    let w_s = pool.take(2);
    let kc = pool.take(2);
    let d_a = pool.run(4);
    let d_b = pool.run(4);
    let p_a = pool.run(2);
    let p_b = pool.run(2);
    // On bank 1: `IADD p.CC, p, stride` reads an even register and a stride.
    let stride_a = pool.take(1);
    let stride_b = pool.take(1);
    let ib = pool.any();
    let jb = pool.any();

    // The FFMA order of one step, and the accumulators.
    let order: Vec<(usize, usize)> = if v.banked {
        // Row pairs (a, b); along the columns a, b, b, a, a, b, ...: each FFMA
        // shares its B value with the one before it or its A value, in turn.
        let mut o = Vec::new();
        for rp in 0..half {
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

    // The loop's other instructions, each due after an FFMA position of the
    // iteration's 4 T^2. Positions are given in groups of the 12x12 step (24
    // groups of 6 FFMAs, the other instruction of group g after FFMA 6g + 5)
    // and scaled for the 8x8 step. The plan of a 12x12 iteration:
    // - every step: an LDS.64 of the next step's values in every other group
    //   (even groups; odd ones in step 3, after the BAR), in the order the next
    //   step first uses them, so the shared pipe is busy evenly;
    // - step 0: count the chunk (group 1), set the predicates (5, 7, 9);
    // - step 1: move the global pointers on by a chunk (1, 3, 5, 7);
    // - step 2: TEXDEPBAR (9), the next chunk's STS.64 (11, 15, 17, 19), the
    //   store buffer switched (21), the read pointers switched after their
    //   last LDS of the step (B at 13, A at 23);
    // - step 3: BAR.SYNC (0), the global loads of the chunk after next (even
    //   groups from 2), the branch (23).
    let per_step = t * t;
    let due = |s: usize, g: usize| s * per_step + (6 * g + 5) * per_step / 144;
    let mut xs: Vec<(usize, Ins)> = Vec::new();
    // LDS of step s+1's values, in the order the next step first uses them.
    let mut first_use: Vec<(bool, usize)> = Vec::new();
    for &(y, x) in &order {
        for k in [(true, y / 2), (false, x / 2)] {
            if !first_use.contains(&k) {
                first_use.push(k);
            }
        }
    }
    let nlds = first_use.len();
    for s in 0..4 {
        let next = (s + 1) % 2;
        for (i, &(is_a, j)) in first_use.iter().enumerate() {
            let q = (s + 1) % 4;
            let off = q as i64 * 4 * tile + j as i64 * 128;
            let (base, dst) = if is_a {
                (s_a, a_reg(next, 2 * j))
            } else {
                (s_b, b_reg(next, 2 * j))
            };
            let ins = Ins::new(format!("LDS.64 {}, {}", reg(dst), addr(base, off)))
                .r(&[base])
                .w(&[dst, dst + 1])
                .pairs()
                .note(format!(
                    "{} pair {j} of step {}",
                    if is_a { "A" } else { "B" },
                    if s == 3 {
                        "0 of the next chunk".to_string()
                    } else {
                        (s + 1).to_string()
                    }
                ));
            // Spread over the step's 24 groups.
            let g = if s == 3 {
                (2 * i + 1).min(22)
            } else {
                2 * i * 12 / nlds
            };
            xs.push((due(s, g), ins));
        }
    }
    // Step 0: count the chunk and set the predicates.
    xs.push((
        due(0, 1),
        Ins::new(format!("IADD {}, {}, -0x1", reg(kc), reg(kc)))
            .r(&[kc])
            .w(&[kc])
            .alu()
            .pairs()
            .note("chunks after this one"),
    ));
    for (g, text, note) in [
        (
            5,
            format!("ISETP.NE.AND P0, PT, {}, RZ, PT", reg(kc)),
            "P0: another chunk",
        ),
        (
            7,
            format!("ISETP.GT.U32.AND P3, PT, {}, RZ, P2", reg(kc)),
            "P3: this thread stores the next chunk",
        ),
        (
            9,
            format!("ISETP.GT.U32.AND P1, PT, {}, 0x1, P2", reg(kc)),
            "P1: this thread loads the chunk after next",
        ),
    ] {
        xs.push((due(0, g), Ins::new(text).r(&[kc]).alu().pairs().note(note)));
    }
    if b_shift > 0 {
        for (g, text, note) in [
            (
                11,
                format!("ISETP.GT.U32.AND P6, PT, {}, RZ, P4", reg(kc)),
                "P6: this thread stores B of the next chunk",
            ),
            (
                13,
                format!("ISETP.GT.U32.AND P5, PT, {}, 0x1, P4", reg(kc)),
                "P5: this thread loads B of the chunk after next",
            ),
        ] {
            xs.push((due(0, g), Ins::new(text).r(&[kc]).alu().pairs().note(note)));
        }
    }
    // Step 1: move the global pointers on by a chunk.
    for (i, (p, stride)) in [(p_a, stride_a), (p_b, stride_b)].into_iter().enumerate() {
        let [lo, hi] = add64(p, p, &reg(stride), &[stride]);
        xs.push((due(1, 1 + 4 * i), lo.pairs()));
        xs.push((due(1, 3 + 4 * i), hi.pairs()));
    }
    // Step 2: store the next chunk, switch the buffers.
    if v.load == Load::Ldg128 {
        xs.push((
            due(2, 9),
            Ins::new("TEXDEPBAR 0x0").note("the next chunk's LDGs have landed"),
        ));
    }
    // One thread's 16 bytes of A (or B) of the next chunk into shared memory.
    let sts128 = move |pred: &str, off: i64, d: u8| {
        Ins::new(format!("@{pred} STS.128 {}, {}", addr(w_s, off), reg(d))).r(&[
            w_s,
            d,
            d + 1,
            d + 2,
            d + 3,
        ])
    };
    let xor = |r: u8, note: &str| {
        Ins::new(format!("LOP32I.XOR {}, {}, {}", reg(r), reg(r), hx(BUF)))
            .r(&[r])
            .w(&[r])
            .alu()
            .pairs()
            .note(note)
    };
    // A's 4 x 16T floats at 0, B's after them (a B loader's store offset
    // is its thread's, `b_shift` threads on).
    let sts_b = 16 * tile - 4 * b_shift;
    for (g, (pred, off, d)) in [(11, ("P3", 0, d_a)), (17, (pb_store, sts_b, d_b))] {
        xs.push((due(2, g), sts128(pred, off, d)));
    }
    let last_b = first_use.iter().rposition(|k| !k.0).unwrap_or(0);
    let last_a = first_use.iter().rposition(|k| k.0).unwrap_or(0);
    let after = |i: usize| 2 * i * 12 / nlds + 1;
    xs.push((
        due(2, after(last_b)),
        xor(s_b, "B from the other buffer from step 3 on"),
    ));
    xs.push((
        due(2, 21),
        xor(w_s, "store into the other buffer next time"),
    ));
    xs.push((
        due(2, after(last_a).max(22)),
        xor(s_a, "A from the other buffer from step 3 on"),
    ));
    xs.push((
        due(3, 0),
        Ins::new("BAR.SYNC 0x0").note("the next chunk is in shared memory"),
    ));
    // Step 3: the global loads of the chunk after next.
    let loads = |p: u8, d: u8, pred: &str| -> Vec<Ins> {
        match v.load {
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
    };
    let pb_next_at = format!("@{pb_next} ");
    for (i, ins) in loads(p_a, d_a, "@P1 ")
        .into_iter()
        .chain(loads(p_b, d_b, &pb_next_at))
        .enumerate()
    {
        xs.push((due(3, 2 + 2 * i), ins));
    }

    // Pack FFMAs and the other instructions into 7-instruction groups.
    let ffma = |s: usize, y: usize, x: usize, c: u8| -> Ins {
        let set = s % 2;
        let (a, b) = (a_reg(set, y), b_reg(set, x));
        Ins::new(format!(
            "FFMA {}, {}, {}, {}",
            reg(c),
            reg(a),
            reg(b),
            reg(c)
        ))
        .r(&[a, b, c])
        .w(&[c])
        .alu()
    };
    xs.sort_by_key(|(p, _)| *p);
    // Accumulators: in order, or solved for banks below.
    let mut acc: BTreeMap<(usize, usize), u8> = BTreeMap::new();
    if !v.banked {
        for y in 0..t {
            for x in 0..t {
                acc.insert((y, x), acc_in_order(y, x));
            }
        }
    }
    // The group layout: slots of FFMAs (Some(step, index)) and others (None).
    let mut layout: Vec<Option<(usize, usize)>> = Vec::new();
    let mut xi = 0;
    let mut fpos = 0;
    let total = 4 * per_step;
    let mut others: Vec<Ins> = Vec::new();
    while fpos < total {
        // Two others due in this group: one takes the group's first slot.
        let due = |n: usize| xs.get(xi + n).is_some_and(|(p, _)| *p < fpos + 6);
        let mut group: Vec<Option<(usize, usize)>> = Vec::new();
        if due(0) && due(1) && xs[xi + 1].0 < fpos + 5 {
            group.push(None);
            others.push(xs[xi].1.clone());
            xi += 1;
        }
        while group.len() < 6 && fpos < total {
            group.push(Some((fpos / per_step, fpos % per_step)));
            fpos += 1;
        }
        if xs.get(xi).is_some_and(|(p, _)| *p < fpos) {
            group.push(None);
            others.push(xs[xi].1.clone());
            xi += 1;
        } else {
            group.push(None);
            others.push(Ins::new("NOP").pairs());
        }
        layout.extend(group);
    }
    // Whatever is left, then the branch, last in the loop: in the last
    // group's free slot if it has one.
    while xi < xs.len() {
        layout.push(None);
        others.push(xs[xi].1.clone());
        xi += 1;
    }
    let bra = Ins::new("@P0 BRA sgemm_loop").r(&[]);
    if layout.len().is_multiple_of(7) && others.last().is_some_and(|o| o.text == "NOP") {
        *others.last_mut().unwrap() = bra;
    } else {
        layout.push(None);
        others.push(bra);
        while !layout.len().is_multiple_of(7) {
            layout.push(None);
            others.push(Ins::new("NOP"));
        }
    }
    // The loop body as instructions; accumulators solved for banks.
    let mut body: Vec<Ins> = Vec::new();
    {
        let mut oi = 0;
        for slot in &layout {
            match slot {
                Some((s, i)) => {
                    let (y, x) = order[*i];
                    // Placeholder accumulator; fixed by `solve`.
                    let c = acc.get(&(y, x)).copied().unwrap_or(255);
                    let mut f = ffma(*s, y, x, c);
                    f.comment = format!("C[{y}][{x}] step {s}");
                    body.push(f);
                }
                None => {
                    body.push(others[oi].clone());
                    oi += 1;
                }
            }
        }
    }
    let cells: Vec<(usize, usize)> = layout
        .iter()
        .map(|s| s.map(|(_, i)| order[i]).unwrap_or((usize::MAX, 0)))
        .collect();
    // Dual issue: FFMA pairs at a group's instructions 1+2 and 3+4, and the
    // sixth FFMA with the seventh instruction when that may pair.
    let mut pair_first = vec![false; body.len()];
    if v.dual {
        for g in (0..body.len()).step_by(7) {
            for i in [1, 3, 5] {
                let (a, b) = (g + i, g + i + 1);
                let first_ffma = cells[a].0 != usize::MAX;
                let second_ok = cells[b].0 != usize::MAX || body[b].pairs;
                if first_ffma && second_ok {
                    pair_first[a] = true;
                }
            }
        }
    }
    if v.banked {
        solve(&mut body, &cells, &pair_first, &mut acc, &mut pool, t);
    }
    // Unpair what the banks or the rules do not let pair.
    if v.dual {
        for i in 0..body.len() {
            if pair_first[i] {
                let prev = unit_prev(&body, i);
                let d = degree(&[&body[i], &body[i + 1]], &prev);
                let dep = body[i].writes.iter().any(|w| body[i + 1].reads.contains(w));
                if d > 1 || dep {
                    pair_first[i] = false;
                }
            }
        }
    }
    for (i, ins) in body.iter_mut().enumerate() {
        ins.ctrl = if !v.dual {
            0x20
        } else if pair_first[i] {
            0x04
        } else if v.paper && cells[i].0 == usize::MAX {
            // The paper's kernel: its other instructions carry 0x90.
            0x90
        } else if cells[i].0 != usize::MAX || !ins.alu {
            // The FFMAs, and a group's other instruction unless it is ALU
            // arithmetic: `0x05` lets the warp issue again the next cycle
            // (`0x20` holds it three). An integer result keeps `0x20`, so that
            // what reads it soon after is not held by the interlock.
            0x05
        } else {
            0x20
        };
    }
    // Single issue needs no group alignment: the NOPs that fill a group's
    // free slot are part of the dual-issue step alone.
    if !v.dual {
        body.retain(|ins| ins.text != "NOP");
    }
    let loop_instructions = body.len();
    let loop_pairs = pair_first.iter().filter(|&&p| p).count();

    // Prologue and epilogue (straight-line; stalls cover ALU latencies).
    let mut pro: Vec<Ins> = Vec::new();
    // Temporaries: registers the accumulators take later.
    let accs: Vec<u8> = {
        let mut v: Vec<u8> = acc.values().copied().collect();
        v.sort_unstable();
        v
    };
    // Temporaries on chosen banks, so that no prologue instruction reads two
    // registers of one bank: m 1, q 2, i0 and j0 0, the offsets 3, tx and ty 1.
    let mut spare: Vec<u8> = accs.clone();
    let mut tmp = |b: Option<usize>| -> u8 {
        let i = spare
            .iter()
            .position(|&r| b.is_none_or(|b| bank(r) == b))
            .unwrap_or(0);
        spare.remove(i)
    };
    let (m, q, i0, j0, off_a, off_b, tx, ty) = (
        tmp(Some(1)),
        tmp(Some(2)),
        tmp(Some(0)),
        tmp(Some(0)),
        tmp(Some(3)),
        tmp(Some(3)),
        tmp(Some(1)),
        tmp(Some(1)),
    );
    let (tid, by, bz, tk) = (tmp(None), tmp(None), tmp(None), tmp(None));
    let mut p = |ins: Ins| pro.push(ins);
    p(Ins::new(format!("S2R {}, SR_TID.X", reg(tid))).w(&[tid]));
    p(Ins::new(format!("S2R {}, SR_CTAID.Y", reg(by))).w(&[by]));
    p(Ins::new(format!("S2R {}, SR_CTAID.Z", reg(bz))).w(&[bz]));
    p(Ins::new(format!("LOP.AND {}, {}, 0xf", reg(tx), reg(tid)))
        .r(&[tid])
        .w(&[tx])
        .alu());
    p(Ins::new(format!("SHR.U32 {}, {}, 0x4", reg(ty), reg(tid)))
        .r(&[tid])
        .w(&[ty])
        .alu());
    // The loading threads' piece of the chunk: k row q = bits 4-5 of the
    // thread index, 16-byte column m = bits 0-3, plus 16 per 64 threads. A
    // warp's two halves store two rows of 16 neighbouring pieces: 512
    // bytes, two shared transactions, no bank read twice.
    p(Ins::new(format!("SHR.U32 {}, {}, 0x4", reg(q), reg(tid)))
        .r(&[tid])
        .w(&[q])
        .alu());
    p(Ins::new(format!("LOP.AND {}, {}, 0x3", reg(q), reg(q)))
        .r(&[q])
        .w(&[q])
        .alu());
    p(Ins::new(format!("LOP.AND {}, {}, 0xf", reg(m), reg(tid)))
        .r(&[tid])
        .w(&[m])
        .alu());
    p(Ins::new(format!("SHR.U32 {}, {}, 0x6", reg(tk), reg(tid)))
        .r(&[tid])
        .w(&[tk])
        .alu());
    p(
        Ins::new(format!("ISCADD {}, {}, {}, 0x4", reg(m), reg(tk), reg(m)))
            .r(&[tk, m])
            .w(&[m])
            .alu(),
    );
    p(Ins::new(format!(
        "ISETP.LT.U32.AND P2, PT, {}, {}, PT",
        reg(tid),
        hx(tile)
    ))
    .r(&[tid])
    .alu()
    .note(if b_shift > 0 {
        "P2: the threads that load A"
    } else {
        "P2: the threads that load A and B"
    }));
    if b_shift > 0 {
        p(Ins::new(format!(
            "ISETP.GE.U32.AND P4, PT, {}, {}, PT",
            reg(tid),
            hx(b_shift)
        ))
        .r(&[tid])
        .alu()
        .note("P4: the threads that load B"));
    }
    p(
        Ins::new(format!("IMAD {}, {}, {}, RZ", reg(i0), reg(by), hx(tile)))
            .r(&[by])
            .w(&[i0])
            .alu(),
    );
    p(
        Ins::new(format!("IMAD {}, {}, {}, RZ", reg(j0), reg(bz), hx(tile)))
            .r(&[bz])
            .w(&[j0])
            .alu(),
    );
    p(Ins::new(format!(
        "ISCADD {}, {}, {}, 0x2",
        reg(off_a),
        reg(m),
        reg(i0)
    ))
    .r(&[m, i0])
    .w(&[off_a])
    .alu());
    p(Ins::new(format!(
        "ISCADD {}, {}, {}, 0x2",
        reg(off_b),
        reg(m),
        reg(j0)
    ))
    .r(&[m, j0])
    .w(&[off_b])
    .alu());
    if b_shift > 0 {
        // B's piece is that of the thread `b_shift` before: the same k row,
        // `b_shift` / 4 pieces back.
        p(Ins::new(format!(
            "IADD {}, {}, {}",
            reg(off_b),
            reg(off_b),
            hx(-b_shift)
        ))
        .r(&[off_b])
        .w(&[off_b])
        .alu());
    }
    p(Ins::new(format!(
        "IMAD {}, {}, {}, {}",
        reg(off_a),
        reg(q),
        cb(param::LDA),
        reg(off_a)
    ))
    .r(&[q, off_a])
    .w(&[off_a])
    .alu()
    .note("A element (i0 + 4m, q)"));
    p(Ins::new(format!(
        "IMAD {}, {}, {}, {}",
        reg(off_b),
        reg(q),
        cb(param::LDB),
        reg(off_b)
    ))
    .r(&[q, off_b])
    .w(&[off_b])
    .alu());
    p(Ins::new(format!(
        "ISCADD {}.CC, {}, {}, 0x2",
        reg(p_a),
        reg(off_a),
        cb(param::A)
    ))
    .r(&[off_a])
    .w(&[p_a])
    .alu());
    p(
        Ins::new(format!("IADD.X {}, RZ, {}", reg(p_a + 1), cb(param::A + 4)))
            .w(&[p_a + 1])
            .alu(),
    );
    p(Ins::new(format!(
        "ISCADD {}.CC, {}, {}, 0x2",
        reg(p_b),
        reg(off_b),
        cb(param::B)
    ))
    .r(&[off_b])
    .w(&[p_b])
    .alu());
    p(
        Ins::new(format!("IADD.X {}, RZ, {}", reg(p_b + 1), cb(param::B + 4)))
            .w(&[p_b + 1])
            .alu(),
    );
    p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::LDA)))
        .w(&[tk])
        .alu());
    p(Ins::new(format!("SHL {}, {}, 0x4", reg(stride_a), reg(tk)))
        .r(&[tk])
        .w(&[stride_a])
        .alu()
        .note("4 columns of A, bytes"));
    p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::LDB)))
        .w(&[tk])
        .alu());
    p(Ins::new(format!("SHL {}, {}, 0x4", reg(stride_b), reg(tk)))
        .r(&[tk])
        .w(&[stride_b])
        .alu());
    p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::K)))
        .w(&[tk])
        .alu());
    p(Ins::new(format!("SHR.U32 {}, {}, 0x2", reg(kc), reg(tk)))
        .r(&[tk])
        .w(&[kc])
        .alu()
        .note("chunks of 4"));
    p(Ins::new(format!(
        "IMAD {}, {}, {}, RZ",
        reg(w_s),
        reg(q),
        hx(4 * tile)
    ))
    .r(&[q])
    .w(&[w_s])
    .alu());
    p(Ins::new(format!(
        "ISCADD {}, {}, {}, 0x4",
        reg(w_s),
        reg(m),
        reg(w_s)
    ))
    .r(&[m, w_s])
    .w(&[w_s])
    .alu()
    .note("store offset: q * 16T * 4 + 16 m"));
    p(Ins::new(format!("SHL {}, {}, 0x3", reg(s_a), reg(tx)))
        .r(&[tx])
        .w(&[s_a])
        .alu());
    p(Ins::new(format!(
        "ISCADD {}, {}, {}, 0x3",
        reg(s_b),
        reg(ty),
        hx(16 * tile)
    ))
    .r(&[ty])
    .w(&[s_b])
    .alu());
    p(
        Ins::new(format!("ISCADD {}, {}, {}, 0x1", reg(ib), reg(tx), reg(i0)))
            .r(&[tx, i0])
            .w(&[ib])
            .alu()
            .note("the thread's first row of C"),
    );
    p(
        Ins::new(format!("ISCADD {}, {}, {}, 0x1", reg(jb), reg(ty), reg(j0)))
            .r(&[ty, j0])
            .w(&[jb])
            .alu()
            .note("... and column"),
    );
    // Chunk 0 into shared buffer 0; chunk 1 on its way.
    let pb_load_at = format!("@{pb_load} ");
    for ins in loads(p_a, d_a, "@P2 ")
        .into_iter()
        .chain(loads(p_b, d_b, &pb_load_at))
    {
        p(ins);
    }
    for (pp, stride) in [(p_a, stride_a), (p_b, stride_b)] {
        for ins in add64(pp, pp, &reg(stride), &[stride]) {
            p(ins);
        }
    }
    if v.load == Load::Ldg128 {
        p(Ins::new("TEXDEPBAR 0x0"));
    }
    for (pred, off, d) in [("P2", 0, d_a), (pb_load, sts_b, d_b)] {
        p(sts128(pred, off, d));
    }
    p(Ins::new(format!(
        "LOP32I.XOR {}, {}, {}",
        reg(w_s),
        reg(w_s),
        hx(BUF)
    ))
    .r(&[w_s])
    .w(&[w_s])
    .alu());
    p(
        Ins::new(format!("ISETP.GT.U32.AND P1, PT, {}, 0x1, P2", reg(kc)))
            .r(&[kc])
            .alu(),
    );
    if b_shift > 0 {
        p(
            Ins::new(format!("ISETP.GT.U32.AND P5, PT, {}, 0x1, P4", reg(kc)))
                .r(&[kc])
                .alu(),
        );
    }
    for ins in loads(p_a, d_a, "@P1 ")
        .into_iter()
        .chain(loads(p_b, d_b, &pb_next_at))
    {
        p(ins);
    }
    p(Ins::new("BAR.SYNC 0x0"));
    for j in 0..half {
        let (a, b) = (a_reg(0, 2 * j), b_reg(0, 2 * j));
        p(
            Ins::new(format!("LDS.64 {}, {}", reg(a), addr(s_a, 128 * j as i64)))
                .r(&[s_a])
                .w(&[a, a + 1]),
        );
        p(
            Ins::new(format!("LDS.64 {}, {}", reg(b), addr(s_b, 128 * j as i64)))
                .r(&[s_b])
                .w(&[b, b + 1]),
        );
    }
    for &c in &accs {
        p(Ins::new(format!("MOV {}, RZ", reg(c))).w(&[c]).alu());
    }
    fix_stalls(&mut pro);

    // Epilogue: C = alpha * acc + beta * C, column by column.
    let mut epi: Vec<Ins> = Vec::new();
    let mut e = |ins: Ins| epi.push(ins);
    // Pointers on the pairs of banks 0/1, C's values on pairs of banks 2/3
    // (so a `ST.E.64` reads four banks), two columns in flight; the offsets
    // first take the data's registers.
    let sorted = set_regs_sorted(&set_regs);
    let lo: Vec<u8> = sorted
        .iter()
        .copied()
        .filter(|r| r % 2 == 0 && r % 8 < 4)
        .collect();
    let hi: Vec<u8> = sorted
        .iter()
        .copied()
        .filter(|r| r % 2 == 0 && r % 8 >= 4)
        .collect();
    let ptr = |x: usize| lo[x];
    let offs: Vec<u8> = (0..t).map(|x| hi[x / 2] + (x % 2) as u8).collect();
    let data = |u: usize, k: usize| hi[u * half + k];
    // beta * C goes to a register off the accumulator's bank, so the FFMA
    // that adds it reads two banks.
    let scratch: Vec<u8> = (0..4)
        .flat_map(|k| [d_a + k, d_b + k])
        .chain([kc, s_a, s_b, w_s, stride_a, stride_b])
        .collect();
    #[allow(clippy::needless_range_loop)]
    {
        // The offsets' IADDs and IMADs back to back (`0x05`: the next issue
        // the next cycle), so that each IMAD reuses `ib` from the one before,
        // whatever bank its offset is on.
        for x in 0..t {
            let col = 32 * (x / 2) + x % 2;
            let mut ins = Ins::new(format!(
                "IADD {}, {}, {}",
                reg(offs[x]),
                reg(jb),
                hx(col as i64)
            ))
            .r(&[jb])
            .w(&[offs[x]])
            .alu();
            ins.ctrl = 0x05;
            e(ins);
        }
        for x in 0..t {
            let mut ins = Ins::new(format!(
                "IMAD {}, {}, {}, {}",
                reg(offs[x]),
                reg(offs[x]),
                cb(param::LDC),
                reg(ib)
            ))
            .r(&[offs[x], ib])
            .w(&[offs[x]])
            .alu();
            ins.ctrl = 0x05;
            e(ins);
        }
        for x in 0..t {
            let pr = ptr(x);
            e(Ins::new(format!(
                "ISCADD {}.CC, {}, {}, 0x2",
                reg(pr),
                reg(offs[x]),
                cb(param::C)
            ))
            .r(&[offs[x]])
            .w(&[pr])
            .alu());
            e(
                Ins::new(format!("IADD.X {}, RZ, {}", reg(pr + 1), cb(param::C + 4)))
                    .w(&[pr + 1])
                    .alu(),
            );
        }
    }
    // C is read through L2 with `LD.E.64`, whose result the scoreboard
    // guards. An SM has few lines in flight on that path (`ld_outstanding`),
    // so the C of a tile takes it thousands of cycles; the tuned kernel reads
    // two columns in three on the read-only path instead (`LDG.E.64`, the
    // other path's lines in flight beside them; `TEXDEPBAR` before their
    // use), which the model says more than halves the epilogue. Each element
    // of C is read once, by the thread that then writes it, so no read on
    // the read-only path can meet a value this kernel wrote. LDG has no address
    // offset on sm_35: each of a column's loads after the first takes an
    // address pair (the global pointers', free now, then more). No LDG is in
    // flight here: the last chunk's were waited for in the loop.
    let c_on_ldg = |x: usize| tuned && x % 3 != 2;
    let addr_pairs: Vec<u8> = if tuned {
        let mut pairs = vec![p_a, p_b];
        while pairs.len() < half - 1 {
            pairs.push(pool.run(2));
        }
        pairs.truncate(half - 1);
        pairs
    } else {
        Vec::new()
    };
    let load_col = |x: usize, e: &mut dyn FnMut(Ins)| {
        let pr = ptr(x);
        if c_on_ldg(x) {
            for (k, &ap) in addr_pairs.iter().enumerate() {
                for ins in add64(ap, pr, &hx(128 * (k + 1) as i64), &[]) {
                    e(ins);
                }
            }
            for k in 0..half {
                let a = if k == 0 { pr } else { addr_pairs[k - 1] };
                let d = data(x % 2, k);
                e(Ins::new(format!("LDG.E.64 {}, [{}]", reg(d), reg(a)))
                    .r(&[a, a + 1])
                    .w(&[d, d + 1]));
            }
        } else {
            for k in 0..half {
                let d = data(x % 2, k);
                e(
                    Ins::new(format!("LD.E.64 {}, {}", reg(d), addr(pr, 128 * k as i64)))
                        .r(&[pr, pr + 1])
                        .w(&[d, d + 1]),
                );
            }
        }
    };
    load_col(0, &mut e);
    for x in 0..t {
        let pr = ptr(x);
        if x + 1 < t {
            load_col(x + 1, &mut e);
        }
        if c_on_ldg(x) {
            // Wait for this column's LDGs; the next column's may stay out.
            let later = if x + 1 < t && c_on_ldg(x + 1) {
                half
            } else {
                0
            };
            e(Ins::new(format!("TEXDEPBAR {}", hx(later as i64))));
        }
        let mut free = scratch.clone();
        let mut picks = Vec::new();
        for k in 0..half {
            for h in 0..2u8 {
                let d = data(x % 2, k) + h;
                let c = acc[&(2 * k + h as usize, x)];
                let sc = free
                    .iter()
                    .position(|&r| bank(r) != bank(c))
                    .map(|i| free.remove(i))
                    .unwrap_or(d);
                picks.push((d, c, sc));
                e(
                    Ins::new(format!("FMUL {}, {}, {}", reg(sc), reg(d), cb(param::BETA)))
                        .r(&[d])
                        .w(&[sc])
                        .alu(),
                );
            }
        }
        for (d, c, sc) in picks {
            e(Ins::new(format!(
                "FFMA {}, {}, {}, {}",
                reg(d),
                reg(c),
                cb(param::ALPHA),
                reg(sc)
            ))
            .r(&[c, sc])
            .w(&[d])
            .alu());
        }
        for k in 0..half {
            let d = data(x % 2, k);
            e(
                Ins::new(format!("ST.E.64 {}, {}", addr(pr, 128 * k as i64), reg(d))).r(&[
                    pr,
                    pr + 1,
                    d,
                    d + 1,
                ]),
            );
        }
    }
    e(Ins::new("EXIT"));
    fix_stalls(&mut epi);

    let registers = pool
        .max
        .max(*accs.last().unwrap())
        .max(*set_regs.iter().max().unwrap()) as u32
        + 1;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "// Generated by `keplersim gen sgemm --step {} --block {t}`: do not edit.",
        v.kernel_name().rsplit('_').next().unwrap_or("")
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
        reg(s_a), reg(s_b), reg(w_s), reg(kc),
        reg(p_a), reg(p_a + 1), reg(p_b), reg(p_b + 1), reg(stride_a), reg(stride_b),
        reg(d_a), reg(d_a + 3), reg(d_b), reg(d_b + 3),
    );
    emit(&mut s, &pro);
    let _ = writeln!(s, "        .group");
    let _ = writeln!(s, "sgemm_loop:");
    emit(&mut s, &body);
    emit(&mut s, &epi);
    Generated {
        sass: s,
        loop_instructions,
        loop_ffmas: 4 * per_step,
        loop_pairs,
        registers,
    }
}

fn set_regs_sorted(set: &[u8]) -> Vec<u8> {
    let mut v = set.to_vec();
    v.sort_unstable();
    v
}

fn emit(s: &mut String, list: &[Ins]) {
    for ins in list {
        if ins.comment.is_empty() {
            let _ = writeln!(s, "        [{:#04x}] {};", ins.ctrl, ins.text);
        } else {
            let _ = writeln!(
                s,
                "        [{:#04x}] {:<40}// {}",
                ins.ctrl,
                format!("{};", ins.text),
                ins.comment
            );
        }
    }
}

/// The fixed ALU latency the control codes must cover, in cycles (the
/// K20m's, as the checker reads it).
const ALU_LATENCY: u64 = sim_core::check::ALU_LATENCY;

/// Cycles from the issue of an instruction coded `ctrl` to its warp's next
/// issue, on the K20m.
fn gap(ctrl: u8) -> u64 {
    Ctrl(ctrl).gap(Reading::K20M) as u64
}

/// Sets stall counts in straight-line single-issue code so that no
/// instruction reads an ALU result sooner than its latency (and no ALU writes
/// a register an earlier ALU instruction still writes late).
fn fix_stalls(list: &mut [Ins]) {
    let mut ready: BTreeMap<u8, u64> = BTreeMap::new();
    let mut now = 0u64;
    let mut issue = vec![0u64; list.len()];
    for i in 0..list.len() {
        // Loads and stores wait for the ALU results they read (the model's
        // LSU rule); everything else must be spaced by the stall counts.
        let need = if list[i].lsu {
            0
        } else {
            list[i]
                .reads
                .iter()
                .filter_map(|r| ready.get(r))
                .copied()
                .max()
                .unwrap_or(0)
        };
        if need > now && i > 0 {
            // Stretch the gap before i: the byte of i-1 waits `extra` cycles
            // more (a single-issue byte `0x2n` waits `issue_interval` + n).
            let extra = need - now;
            let want = gap(list[i - 1].ctrl) + extra;
            let n = want.saturating_sub(gap(0x20)).min(15);
            list[i - 1].ctrl = 0x20 | n as u8;
            now = issue[i - 1] + gap(list[i - 1].ctrl);
            if now < need {
                // Longer than one byte can stall: NOPs would be needed; the
                // generator's code never gets here.
                now = need;
            }
        }
        issue[i] = now;
        if list[i].alu {
            for &w in &list[i].writes {
                ready.insert(w, now + ALU_LATENCY);
            }
        } else {
            for &w in &list[i].writes {
                ready.remove(&w);
            }
        }
        now += gap(list[i].ctrl);
    }
}

/// The registers the unit before the one starting at `i` read last (its last
/// instruction's), which the operand collector reuses.
fn unit_prev(body: &[Ins], i: usize) -> Vec<u8> {
    if i == 0 {
        return Vec::new();
    }
    body[i - 1].reads.clone()
}

/// The busiest bank's reads of a unit, not counting what `prev` read.
fn degree(unit: &[&Ins], prev: &[u8]) -> u32 {
    let mut seen: Vec<u8> = Vec::new();
    let mut per = [0u32; 4];
    for ins in unit {
        for &r in &ins.reads {
            if r == 255 || prev.contains(&r) || seen.contains(&r) {
                continue;
            }
            seen.push(r);
            per[bank(r)] += 1;
        }
    }
    per.into_iter().max().unwrap_or(0)
}

/// Chooses each accumulator's bank (and register) so that every issue unit
/// (a single instruction or a dual-issued pair) reads at most one register per
/// bank, counting the previous instruction's operands as reused; ties go to
/// the bank with the most registers left.
fn solve(
    body: &mut [Ins],
    cells: &[(usize, usize)],
    pair_first: &[bool],
    acc: &mut BTreeMap<(usize, usize), u8>,
    pool: &mut Pool,
    t: usize,
) {
    // Units in order.
    let mut i = 0;
    let mut units: Vec<(usize, usize)> = Vec::new();
    while i < body.len() {
        let n = if pair_first[i] { 2 } else { 1 };
        units.push((i, n));
        i += n;
    }
    let mut chosen: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut used = [0usize; 4];
    let budget: Vec<usize> = (0..4).map(|b| pool.left(b)).collect();
    for &(start, n) in &units {
        let prev: Vec<u8> = if start == 0 {
            Vec::new()
        } else {
            body[start - 1].reads.clone()
        };
        let new_cells: Vec<(usize, usize)> = (start..start + n)
            .filter(|&k| cells[k].0 != usize::MAX)
            .map(|k| cells[k])
            .filter(|c| !chosen.contains_key(c))
            .collect();
        let mut dedup = new_cells.clone();
        dedup.dedup();
        // Try every bank assignment of the unit's new cells (at most 4^2).
        let mut best: Option<(u32, i64, Vec<usize>)> = None;
        let combos = 4usize.pow(dedup.len() as u32);
        for code in 0..combos {
            let banks: Vec<usize> = (0..dedup.len())
                .map(|k| code / 4usize.pow(k as u32) % 4)
                .collect();
            if (0..4).any(|b| used[b] + banks.iter().filter(|&&x| x == b).count() > budget[b]) {
                continue;
            }
            // Per-bank reads of the unit with these banks.
            let mut per = [0u32; 4];
            let mut seen: Vec<u64> = Vec::new();
            for k in start..start + n {
                let cell = cells[k];
                for (ri, &r) in body[k].reads.iter().enumerate() {
                    let is_acc = cell.0 != usize::MAX && ri == 2;
                    let (key, b) = if is_acc {
                        let b = match chosen.get(&cell) {
                            Some(&b) => b,
                            None => banks[dedup.iter().position(|c| *c == cell).unwrap()],
                        };
                        (1000 + (cell.0 * t + cell.1) as u64, b)
                    } else {
                        if r == 255 || prev.contains(&r) {
                            continue;
                        }
                        (r as u64, bank(r))
                    };
                    if seen.contains(&key) {
                        continue;
                    }
                    seen.push(key);
                    per[b] += 1;
                }
            }
            let deg = per.into_iter().max().unwrap_or(0);
            // Prefer an accumulator on neither of its own FFMA's A and B banks
            // (no conflict even without reuse), then the emptiest banks.
            let mut own = 0i64;
            for (ci, c) in dedup.iter().enumerate() {
                let k = (start..start + n).find(|&k| cells[k] == *c).unwrap();
                let (a, b) = (body[k].reads[0], body[k].reads[1]);
                if banks[ci] == bank(a) || banks[ci] == bank(b) {
                    own += 1;
                }
            }
            let room: i64 = banks.iter().map(|&b| (budget[b] - used[b]) as i64).sum();
            let score = (deg, own * 1000 - room, banks.clone());
            if best
                .as_ref()
                .is_none_or(|b| (score.0, score.1) < (b.0, b.1))
            {
                best = Some(score);
            }
        }
        let (_, _, banks) = best.expect("a bank assignment within the budget");
        for (c, b) in dedup.iter().zip(banks) {
            chosen.insert(*c, b);
            used[b] += 1;
        }
    }
    for (&cell, &b) in &chosen {
        acc.insert(cell, pool.take(b));
    }
    for (k, ins) in body.iter_mut().enumerate() {
        let cell = cells[k];
        if cell.0 == usize::MAX {
            continue;
        }
        let c = acc[&cell];
        let (a, b) = (ins.reads[0], ins.reads[1]);
        ins.text = format!("FFMA {}, {}, {}, {}", reg(c), reg(a), reg(b), reg(c));
        ins.reads = vec![a, b, c];
        ins.writes = vec![c];
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
