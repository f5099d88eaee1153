//! Executing one warp-instruction: what each [`Kind`] does to a warp's state and
//! to memory.
//!
//! Each instruction reads its sources for all 32 lanes at once (a register row,
//! or an immediate or constant splatted), computes lane by lane over the lanes
//! whose guard holds, and writes back under that mask. Nothing here allocates.

use crate::fp;
use crate::mem::{Fault, GlobalMem, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::op::*;
use crate::program::Program;
use crate::timing::lsu::Shape;
use crate::warp::{Lanes, Token, Warp, WarpState};

/// What stopped an instruction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecError {
    /// An access outside every allocation (or outside shared/local memory).
    OutOfBounds {
        space: &'static str,
        write: bool,
        lane: u32,
        addr: u64,
        size: u32,
        detail: String,
    },
    /// An access whose address is not a multiple of its size.
    Misaligned {
        space: &'static str,
        write: bool,
        lane: u32,
        addr: u64,
        size: u32,
    },
    /// An instruction that cannot run, with the reason.
    Illegal(String),
    /// A `BRK`/`CONT`/`RET` with no matching push, or lanes stranded.
    Stack(String),
    /// `BAR` reached by only some of a warp's live threads.
    DivergentBarrier { arrived: u32, live: u32 },
}

/// What a block gives an executing warp.
pub struct Env<'a> {
    pub prog: &'a Program,
    /// Constant bank 0 of this launch.
    pub cbank0: &'a [u8],
    pub global: &'a mut GlobalMem,
    pub shared: &'a mut [u8],
    /// Local memory of the block's threads, `local_size` bytes each, by thread
    /// index within the block.
    pub local: &'a mut [u8],
    pub local_size: u32,
    pub block_idx: [u32; 3],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    /// A deterministic clock for `SR_CLOCKLO`: warp-instructions the block has
    /// executed.
    pub clock: u64,
    /// The SM this block runs on (`SR_SMID`).
    pub sm: u32,
    /// SMs on the chip (`%nsmid`).
    pub sms: u32,
    /// One lock bit per shared-memory word (`LDSLK`/`STSCUL`).
    pub locks: &'a mut [u32],
    /// The lane addresses of the `LD`/`ST` about to run, when the caller has
    /// already worked them out (the timing model does, for coalescing).
    pub pre: Option<&'a [u64; 32]>,
}

impl Env<'_> {
    #[inline]
    fn cbank(&self, bank: u8, offset: i64) -> Result<u32, ExecError> {
        let data: &[u8] = if bank == 0 {
            self.cbank0
        } else {
            self.prog
                .banks
                .get(bank as usize)
                .map(Vec::as_slice)
                .unwrap_or(&[])
        };
        let Some(word) = const_word(data, offset) else {
            return Err(ExecError::OutOfBounds {
                space: "constant",
                write: false,
                lane: 0,
                addr: offset as u64,
                size: 4,
                detail: format!("bank {bank} holds {} bytes", data.len()),
            });
        };
        Ok(word)
    }
}

/// The next instruction slot after `pc`, skipping control words.
#[inline]
pub fn next_slot(pc: u32) -> u32 {
    if (pc + 1).is_multiple_of(8) {
        pc + 2
    } else {
        pc + 1
    }
}

type R = [u32; 32];

/// The word at byte `offset` of a constant bank's `data`, if it is aligned
/// and inside.
#[inline]
fn const_word(data: &[u8], offset: i64) -> Option<u32> {
    if offset < 0 || offset % 4 != 0 {
        return None;
    }
    let o = usize::try_from(offset).ok()?;
    let b = data.get(o..o.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The integer instructions of the kernels' address arithmetic, without a
/// condition code: [`exec_general`] and the timing model's own path for them
/// ([`IntRoutine`]) both work their lanes out by [`int_lanes`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntOp {
    Mov,
    /// `IADD` (and `ISUB`, `IADD32I`) without carry or saturation.
    Add,
    /// The low word of `IMAD`/`IMUL` (plus an addend when `mad`), no negation.
    Mad {
        mad: bool,
    },
    Shl {
        wrap: bool,
    },
    Shr {
        signed: bool,
        wrap: bool,
    },
    Lop(u8),
    /// `ISCADD` by `shift`.
    ScAdd(u8),
}

impl IntOp {
    /// The form of `op`, when it is one of these; `None` for any other
    /// instruction, and for any that writes the condition code.
    pub fn of(op: &Op) -> Option<IntOp> {
        if op.cc {
            return None;
        }
        let s = &op.src;
        Some(match op.kind {
            Kind::Mov => IntOp::Mov,
            Kind::IAdd {
                x: false,
                sat: false,
            } => IntOp::Add,
            Kind::IMad {
                hi: false,
                x: false,
                sat: false,
                mad,
                ..
            } if !s[0].neg && !s[1].neg && !s[2].neg => IntOp::Mad { mad },
            Kind::Shl { wrap } => IntOp::Shl { wrap },
            Kind::Shr { signed, wrap } => IntOp::Shr { signed, wrap },
            Kind::Lop { op } => IntOp::Lop(op),
            Kind::IScAdd { shift } => IntOp::ScAdd(shift),
            _ => return None,
        })
    }

    /// The sources it reads.
    fn sources(self) -> usize {
        match self {
            IntOp::Mov => 1,
            IntOp::Mad { mad: true } => 3,
            _ => 2,
        }
    }
}

/// Every lane's result of `f` on sources `a`, `b`, `c` (with their operand
/// modifiers `s`; `c` only for an `IMAD` that adds).
#[inline(always)]
fn int_lanes(f: IntOp, s: &[Operand; 4], a: &R, b: &R, c: &R) -> R {
    let mut d = [0u32; 32];
    match f {
        IntOp::Mov => d = *a,
        IntOp::Add => {
            // A negated operand enters as its complement plus one, so as its
            // two's-complement negation.
            let (na, nb) = (
                0u32.wrapping_sub(s[0].neg as u32),
                0u32.wrapping_sub(s[1].neg as u32),
            );
            for l in 0..32 {
                let av = (a[l] ^ na).wrapping_sub(na);
                let bv = (b[l] ^ nb).wrapping_sub(nb);
                d[l] = av.wrapping_add(bv);
            }
        }
        IntOp::Mad { mad } => {
            // Signedness does not change the low word.
            for l in 0..32 {
                d[l] = a[l]
                    .wrapping_mul(b[l])
                    .wrapping_add(if mad { c[l] } else { 0 });
            }
        }
        IntOp::Shl { wrap } => {
            for l in 0..32 {
                let n = if wrap { b[l] & 31 } else { b[l] };
                d[l] = if n >= 32 { 0 } else { a[l] << n };
            }
        }
        IntOp::Shr { signed, wrap } => {
            for l in 0..32 {
                let n = if wrap { b[l] & 31 } else { b[l].min(32) };
                d[l] = if signed {
                    ((a[l] as i32 as i64) >> n) as u32
                } else {
                    ((a[l] as u64) >> n) as u32
                };
            }
        }
        IntOp::Lop(lop) => {
            for l in 0..32 {
                let av = if s[0].not { !a[l] } else { a[l] };
                let bv = if s[1].not { !b[l] } else { b[l] };
                d[l] = match lop {
                    0 => av & bv,
                    1 => av | bv,
                    2 => av ^ bv,
                    _ => bv,
                };
            }
        }
        IntOp::ScAdd(shift) => {
            for l in 0..32 {
                d[l] = (int_in(a[l], &s[0]) << shift).wrapping_add(int_in(b[l], &s[1]));
            }
        }
    }
    d
}

/// The timing model's own path for the integer instructions [`IntOp::of`]
/// picks out: the routine for this host (and [`use_wide_lanes`]' setting),
/// chosen once, so that nothing is asked of the CPU for each instruction.
#[derive(Clone, Copy)]
pub struct IntRoutine(unsafe fn(&Op, IntOp, &mut Warp, &Program, &[u8]) -> bool);

impl IntRoutine {
    /// The AVX2 build where the CPU has it and it is allowed, else the
    /// baseline one. (The only way to make one: what `run` relies on.)
    pub fn host() -> IntRoutine {
        #[cfg(target_arch = "x86_64")]
        {
            if wide_lanes() {
                return IntRoutine(exec_int_avx2);
            }
        }
        IntRoutine(exec_int_any)
    }

    /// Runs `op`, whose form is `f` ([`IntOp::of`]), as [`exec`] does, when
    /// its sources are registers, immediates or constants that exist
    /// (`cbank0` for bank 0) and it leaves every lane where it is (no `.S`,
    /// some lane running); false (nothing done) otherwise.
    #[inline]
    pub(crate) fn run(
        self,
        op: &Op,
        f: IntOp,
        w: &mut Warp,
        prog: &Program,
        cbank0: &[u8],
    ) -> bool {
        if op.sync || w.active == 0 {
            return false;
        }
        // SAFETY: `host` chose the AVX2 build only where the CPU has AVX2;
        // the baseline one needs nothing.
        unsafe { (self.0)(op, f, w, prog, cbank0) }
    }
}

/// [`exec_int_body`] as an `unsafe fn`, for [`IntRoutine`] (it needs nothing).
unsafe fn exec_int_any(op: &Op, f: IntOp, w: &mut Warp, prog: &Program, cbank0: &[u8]) -> bool {
    exec_int_body(op, f, w, prog, cbank0)
}

/// [`IntRoutine`]'s body built for AVX2 (eight lanes an instruction), as
/// [`exec_general`] is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn exec_int_avx2(op: &Op, f: IntOp, w: &mut Warp, prog: &Program, cbank0: &[u8]) -> bool {
    exec_int_body(op, f, w, prog, cbank0)
}

/// The body of [`IntRoutine::run`].
#[inline(always)]
fn exec_int_body(op: &Op, f: IntOp, w: &mut Warp, prog: &Program, cbank0: &[u8]) -> bool {
    let mut rows = [[0u32; 32]; 3];
    for (row, o) in rows.iter_mut().zip(&op.src).take(f.sources()) {
        *row = match o.src {
            Src::Reg(r) => w.reg(r),
            Src::Imm(v) => [v; 32],
            Src::Const { bank, offset } => {
                let data: &[u8] = match bank {
                    0 => cbank0,
                    _ => prog.banks.get(bank as usize).map_or(&[], Vec::as_slice),
                };
                match const_word(data, offset as i64) {
                    Some(v) => [v; 32],
                    None => return false,
                }
            }
            _ => return false,
        };
    }
    let m = w.active & guard_mask(w, op);
    w.pc = next_slot(w.pc);
    w.executed += 1;
    let d = int_lanes(f, &op.src, &rows[0], &rows[1], &rows[2]);
    w.set_reg(op.d0, &d, m);
    true
}

#[inline(always)]
fn read(w: &Warp, o: &Operand, env: &Env) -> Result<R, ExecError> {
    match o.src {
        Src::Reg(r) => Ok(w.reg(r)),
        Src::Imm(v) => Ok([v; 32]),
        _ => read_other(w, o, env),
    }
}

/// [`read`] of the operands that are neither registers nor immediates.
#[inline(never)]
fn read_other(w: &Warp, o: &Operand, env: &Env) -> Result<R, ExecError> {
    Ok(match o.src {
        Src::None => [0; 32],
        Src::Reg(r) => w.reg(r),
        Src::Imm(v) => [v; 32],
        Src::Const { bank, offset } => [env.cbank(bank, offset as i64)?; 32],
        Src::ConstIdx { bank, reg, offset } => {
            let idx = w.reg(reg);
            let mut out = [0; 32];
            for l in Lanes(w.active) {
                out[l] = env.cbank(bank, idx[l] as i32 as i64 + offset as i64)?;
            }
            out
        }
        Src::Pred(p) => {
            let m = w.pred(p) ^ if o.not { u32::MAX } else { 0 };
            let mut out = [0; 32];
            for (l, v) in out.iter_mut().enumerate() {
                *v = m >> l & 1;
            }
            out
        }
    })
}

/// The lane mask of a predicate operand (with `!`).
#[inline]
fn pmask(w: &Warp, o: &Operand) -> u32 {
    match o.src {
        Src::Pred(p) => w.pred(p) ^ if o.not { u32::MAX } else { 0 },
        _ => u32::MAX,
    }
}

/// Reads a 64-bit source (a register pair, or an immediate's high word).
#[inline]
fn read64(w: &Warp, o: &Operand, env: &Env) -> Result<[u64; 32], ExecError> {
    let mut out = [0u64; 32];
    match o.src {
        Src::Reg(r) if r != 255 => {
            let lo = w.reg(r);
            let hi = w.reg(r + 1);
            for l in 0..32 {
                out[l] = (hi[l] as u64) << 32 | lo[l] as u64;
            }
        }
        Src::Imm(v) => out = [(v as u64) << 32; 32],
        Src::Const { bank, offset } => {
            let lo = env.cbank(bank, offset as i64)?;
            let hi = env.cbank(bank, offset as i64 + 4)?;
            out = [(hi as u64) << 32 | lo as u64; 32];
        }
        _ => {}
    }
    Ok(out)
}

fn write64(w: &mut Warp, r: u8, v: &[u64; 32], mask: u32) {
    if r == 255 {
        return;
    }
    let mut lo = [0u32; 32];
    let mut hi = [0u32; 32];
    for l in 0..32 {
        lo[l] = v[l] as u32;
        hi[l] = (v[l] >> 32) as u32;
    }
    w.set_reg(r, &lo, mask);
    w.set_reg(r + 1, &hi, mask);
}

#[inline]
fn fneg_abs32(x: u32, o: &Operand) -> f32 {
    let mut b = x;
    if o.abs {
        b &= 0x7fff_ffff;
    }
    if o.neg {
        b ^= 0x8000_0000;
    }
    f32::from_bits(b)
}

/// A row of single sources with their `-` and `|..|` applied.
#[inline]
fn fsrc(x: &R, o: &Operand) -> [f32; 32] {
    let and = if o.abs { 0x7fff_ffff } else { u32::MAX };
    let xor = if o.neg { 0x8000_0000 } else { 0 };
    let mut out = [0f32; 32];
    for l in 0..32 {
        out[l] = f32::from_bits((x[l] & and) ^ xor);
    }
    out
}

/// The lanes `op`'s guard predicate (with its `!`) lets run.
#[inline(always)]
pub(crate) fn guard_mask(w: &Warp, op: &Op) -> u32 {
    w.pred(op.guard.0) ^ if op.guard.1 { u32::MAX } else { 0 }
}

/// A register source with no negation or absolute value.
#[inline(always)]
fn plain_reg(o: &Operand) -> bool {
    matches!(o.src, Src::Reg(_)) && !o.neg && !o.abs
}

#[inline]
fn fneg_abs64(x: u64, o: &Operand) -> f64 {
    let mut b = x;
    if o.abs {
        b &= !(1 << 63);
    }
    if o.neg {
        b ^= 1 << 63;
    }
    f64::from_bits(b)
}

#[inline]
fn int_in(x: u32, o: &Operand) -> u32 {
    let x = if o.not { !x } else { x };
    if o.neg {
        x.wrapping_neg()
    } else {
        x
    }
}

/// [`cmp_int`] of every lane, as a lane mask: one comparison a lane over the
/// whole warp (the compiler vectorizes each loop), signed values compared
/// unsigned with their sign bits flipped.
#[inline]
fn cmp_int_lanes(a: &R, b: &R, cmp: Cmp, signed: bool) -> u32 {
    let bias = if signed { 0x8000_0000u32 } else { 0 };
    let mask = |f: fn(u32, u32) -> bool| -> u32 {
        let mut m = 0u32;
        for l in 0..32 {
            m |= (f(a[l] ^ bias, b[l] ^ bias) as u32) << l;
        }
        m
    };
    match cmp {
        Cmp::Lt | Cmp::Ltu => mask(|x, y| x < y),
        Cmp::Eq | Cmp::Equ => mask(|x, y| x == y),
        Cmp::Le | Cmp::Leu => mask(|x, y| x <= y),
        Cmp::Gt | Cmp::Gtu => mask(|x, y| x > y),
        Cmp::Ne | Cmp::Neu => mask(|x, y| x != y),
        Cmp::Ge | Cmp::Geu => mask(|x, y| x >= y),
        _ => lane_mask(|l| cmp_int(a[l], b[l], cmp, signed)),
    }
}

fn cmp_int(a: u32, b: u32, cmp: Cmp, signed: bool) -> bool {
    let ord = if signed {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    cmp_ord(Some(ord), cmp)
}

fn cmp_ord(ord: Option<std::cmp::Ordering>, cmp: Cmp) -> bool {
    use std::cmp::Ordering::*;
    match (cmp, ord) {
        (Cmp::F, _) => false,
        (Cmp::T, _) => true,
        (Cmp::Num, o) => o.is_some(),
        (Cmp::Nan, o) => o.is_none(),
        (Cmp::Lt, Some(o)) => o == Less,
        (Cmp::Eq, Some(o)) => o == Equal,
        (Cmp::Le, Some(o)) => o != Greater,
        (Cmp::Gt, Some(o)) => o == Greater,
        (Cmp::Ne, Some(o)) => o != Equal,
        (Cmp::Ge, Some(o)) => o != Less,
        (Cmp::Ltu, o) => o.is_none_or(|o| o == Less),
        (Cmp::Equ, o) => o.is_none_or(|o| o == Equal),
        (Cmp::Leu, o) => o.is_none_or(|o| o != Greater),
        (Cmp::Gtu, o) => o.is_none_or(|o| o == Greater),
        (Cmp::Neu, o) => o.is_none_or(|o| o != Equal),
        (Cmp::Geu, o) => o.is_none_or(|o| o != Less),
        (_, None) => false,
    }
}

/// Sets CC flags from results in lanes `mask`.
fn set_cc(w: &mut Warp, mask: u32, c: u32, z: u32, s: u32, o: u32) {
    w.cc_c = (w.cc_c & !mask) | (c & mask);
    w.cc_z = (w.cc_z & !mask) | (z & mask);
    w.cc_s = (w.cc_s & !mask) | (s & mask);
    w.cc_o = (w.cc_o & !mask) | (o & mask);
}

/// The form of an `IMAD`: signed sources, the high word, carry in (`.X`),
/// saturation (only when it adds), and the product's and the addend's
/// negation.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ImadForm {
    sa: bool,
    sb: bool,
    hi: bool,
    x: bool,
    sat: bool,
    neg_p: bool,
    neg_c: bool,
}

impl ImadForm {
    /// No saturation, no negation.
    const fn plain(sa: bool, sb: bool, hi: bool, x: bool) -> ImadForm {
        ImadForm {
            sa,
            sb,
            hi,
            x,
            sat: false,
            neg_p: false,
            neg_c: false,
        }
    }
}

/// Every lane's `IMAD` of form `f`: the results, and the carries out as a
/// lane mask (`cc_c`: the carries in, for `.X`). Inlined where it is called,
/// so that a form given as a constant leaves its lanes no decision to make.
#[inline(always)]
fn imad_rows(a: &R, b: &R, cc: &R, cc_c: u32, f: ImadForm) -> (R, u32) {
    let mut d = [0u32; 32];
    let mut c = 0u32;
    for l in 0..32 {
        let av = if f.sa {
            a[l] as i32 as i64
        } else {
            a[l] as i64
        };
        let bv = if f.sb {
            b[l] as i32 as i64
        } else {
            b[l] as i64
        };
        // The low 64 bits of the 32 x 32 product, signed or not.
        let mut p = av.wrapping_mul(bv);
        if f.neg_p {
            p = p.wrapping_neg();
        }
        let pw = if f.hi { (p >> 32) as u32 } else { p as u32 };
        let cv = if f.neg_c && !f.x {
            cc[l].wrapping_neg()
        } else if f.neg_c {
            !cc[l]
        } else {
            cc[l]
        };
        let cin = if f.x { (cc_c >> l & 1) as u64 } else { 0 };
        let mut sum = pw as u64 + cv as u64 + cin;
        if f.neg_p && !f.hi && !f.x && pw == 0 {
            // A negated product enters the adder as !p + 1: its low
            // word 0 carries out (`IMAD.U32.U32 R11.CC, -R4, R8, RZ`
            // starts a 64-bit negation that `ISUB.X` finishes).
            sum += 1 << 32;
        }
        let mut r = sum as u32;
        if f.sat {
            let sv = pw as i32 as i64 + cv as i32 as i64 + cin as i64;
            r = sv.clamp(i32::MIN as i64, i32::MAX as i64) as i32 as u32;
        }
        d[l] = r;
        c |= ((sum >> 32 != 0) as u32) << l;
    }
    (d, c)
}

/// Runs `op` (at `w.pc`) for warp `w`. On return `w.pc` is the next slot to run
/// and `w.state` says whether the warp waits at a barrier or is done.
///
/// The commonest instruction of the kernels keplersim is for, an FFMA of three
/// registers, runs here, in a small frame; everything else in
/// [`exec_general`], whose frame holds every instruction's temporaries.
#[inline]
pub fn exec(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    if exec_ffma(op, w) {
        return Ok(());
    }
    exec_general(op, w, env)
}

/// The FFMA of three registers (round to nearest, no `.FTZ`/`.SAT`/`.S`), run
/// as [`exec`] runs it; false (nothing done) for any other instruction. The
/// timing model calls [`ffma3`] itself for the instructions [`is_ffma3`]
/// picks out before it sets up anything else [`exec`] needs.
#[inline]
pub(crate) fn exec_ffma(op: &Op, w: &mut Warp) -> bool {
    is_ffma3(op) && ffma3(op, w, fp::FfmaRows::host())
}

/// Whether `op` is the FFMA [`exec_ffma`] runs.
#[inline]
pub(crate) fn is_ffma3(op: &Op) -> bool {
    let s = &op.src;
    matches!(
        op.kind,
        Kind::FFma {
            ftz: false,
            sat: false,
            rnd: Rnd::Rn,
        }
    ) && matches!(
        (s[0].src, s[1].src, s[2].src),
        (Src::Reg(_), Src::Reg(_), Src::Reg(_))
    ) && !op.sync
        && plain_reg(&s[0])
        && plain_reg(&s[1])
        && plain_reg(&s[2])
}

/// Runs `op`, an FFMA [`is_ffma3`] picked out, as [`exec`] does, when some
/// lane is running (else false: nothing done), by `rows`, the host's
/// routine ([`fp::FfmaRows::host`]).
#[inline]
pub(crate) fn ffma3(op: &Op, w: &mut Warp, rows: fp::FfmaRows) -> bool {
    if w.active == 0 {
        return false;
    }
    let reg = |o: &Operand| match o.src {
        Src::Reg(r) => r,
        _ => 255,
    };
    let s = &op.src;
    // As `exec_general` runs it (no `.S`, so no lane leaves).
    let m = w.active & guard_mask(w, op);
    w.pc = next_slot(w.pc);
    w.executed += 1;
    rows.run(&mut w.regs, reg(&s[0]), reg(&s[1]), reg(&s[2]), op.d0, m);
    true
}

/// `LDS`/`STS` of 32, 64 or 128 bits at a register plus an offset, run when
/// every active lane's access is aligned and inside `shared` (the kernels'
/// inner loops): as [`exec`] runs it, with the lane addresses, in 32 bits, left
/// in `addr` for the timing model. `None` (nothing done) for any other
/// instruction, no active lane, or an access [`exec`] must fault or take lane
/// by lane; else the lanes it ran and the bytes each moved.
#[inline]
pub(crate) fn exec_shared(
    op: &Op,
    w: &mut Warp,
    shared: &mut [u8],
    addr: &mut [u32; 32],
) -> Option<(u32, u32, Shape)> {
    let (store, width) = match op.kind {
        Kind::Ld {
            space: Space::Shared,
            w,
        } => (false, w),
        Kind::St {
            space: Space::Shared,
            w,
        } => (true, w),
        _ => return None,
    };
    let n = match width {
        Width::B32 => 1,
        Width::B64 => 2,
        Width::B128 => 4,
        _ => return None,
    };
    // Not a 64-bit (`.E`) base, a register base, a register (or RZ) to store.
    let Src::Reg(base) = op.src[0].src else {
        return None;
    };
    if op.d1 == 1 || op.sync || (store && !matches!(op.src[1].src, Src::Reg(_))) {
        return None;
    }
    let m = w.active & guard_mask(w, op);
    if m == 0 {
        return None;
    }
    let size = 4 * n as u32;
    let imm = op.imm as u32;
    if !shared_offsets(w.row(base), imm, m, shared.len(), size, addr) {
        return None;
    }
    // Every address fits, so (in any shared memory below 16 MB) is its own
    // 24 bits.
    let shape = if m == u32::MAX && shared.len() <= 1 << 24 {
        Shape::of(addr)
    } else {
        Shape::Other
    };
    if store {
        let r = match op.src[1].src {
            Src::Reg(r) => r,
            _ => 255,
        };
        let mut rows = [[0u32; 32]; 4];
        if r != 255 {
            for (k, row) in rows.iter_mut().enumerate().take(n) {
                *row = w.reg(r + k as u8);
            }
        }
        for l in Lanes(m) {
            let o = addr[l] as usize;
            for (k, row) in rows.iter().enumerate().take(n) {
                shared[o + 4 * k..o + 4 * k + 4].copy_from_slice(&row[l].to_le_bytes());
            }
        }
    } else if n == 1 && m == u32::MAX {
        // The commonest: one word in every lane, straight into the register.
        // Every address was checked to fit (and shared memory is far below
        // 2^31 bytes): the clamp changes none, and lets the compiler drop the
        // bounds checks.
        let lim = shared.len().saturating_sub(4).min(i32::MAX as usize);
        let sh = &shared[..lim + 4];
        // (A function, not a closure: the compiler inlines it.)
        #[inline(always)]
        fn word(sh: &[u8], lim: usize, a: u32) -> u32 {
            let o = (a as usize).min(lim);
            u32::from_le_bytes([sh[o], sh[o + 1], sh[o + 2], sh[o + 3]])
        }
        let d = op.d0 as usize * 32;
        if let Some(row) = w.regs.get_mut(d..d + 32).filter(|_| op.d0 != 255) {
            match shape {
                // The upper half-warp reads what the lower one does.
                Shape::Line { repeat: true, .. } => {
                    let (lo, hi) = row.split_at_mut(16);
                    for ((v, u), &a) in lo.iter_mut().zip(hi).zip(&addr[..16]) {
                        *v = word(sh, lim, a);
                        *u = *v;
                    }
                }
                // Each half-warp one word.
                Shape::Pair { a0, a16 } => {
                    let (lo, hi) = row.split_at_mut(16);
                    lo.fill(word(sh, lim, a0));
                    hi.fill(word(sh, lim, a16));
                }
                _ => {
                    for (v, &a) in row.iter_mut().zip(addr.iter()) {
                        *v = word(sh, lim, a);
                    }
                }
            }
        }
    } else {
        let mut rows = [[0u32; 32]; 4];
        for l in Lanes(m) {
            let o = addr[l] as usize;
            for (k, row) in rows.iter_mut().enumerate().take(n) {
                let s = &shared[o + 4 * k..o + 4 * k + 4];
                row[l] = u32::from_le_bytes([s[0], s[1], s[2], s[3]]);
            }
        }
        if op.d0 != 255 {
            for (k, row) in rows.iter().enumerate().take(n) {
                w.set_reg(op.d0 + k as u8, row, m);
            }
        }
    }
    w.pc = next_slot(w.pc);
    w.executed += 1;
    Some((m, size, shape))
}

/// Whether every active lane (`m`) of a shared-memory access of `size` bytes
/// at byte offsets `off` is aligned and inside `len` bytes: of the active
/// lanes, every offset bit that is set, and whether one lies past the last
/// place an access fits (a negative difference; in 32 bits, as shared memory
/// is far smaller than 2^31 bytes).
#[inline]
fn shared_fits(off: &[u32; 32], m: u32, len: usize, size: u32) -> bool {
    let Some(limit) = fit_limit(len, size) else {
        return false;
    };
    let (mut any, mut past) = (0u32, 0u32);
    // A full warp in a plain loop (the compiler unrolls it), else lane by lane.
    if m == u32::MAX {
        for &a in off {
            any |= a;
            past |= limit.wrapping_sub(a);
        }
    } else {
        for l in Lanes(m) {
            any |= off[l];
            past |= limit.wrapping_sub(off[l]);
        }
    }
    any >> 31 == 0 && any & (size - 1) == 0 && past >> 31 == 0
}

/// The last byte offset at which an access of `size` bytes fits in `len`
/// bytes (at most 2^31 - 1), if any does.
#[inline(always)]
fn fit_limit(len: usize, size: u32) -> Option<u32> {
    let room = (len as u64).checked_sub(size as u64)?;
    Some(room.min(i32::MAX as u64) as u32)
}

/// `off[l] = base[l] + imm` for every lane, and [`shared_fits`]' answer for
/// the active lanes `m`: for a full warp in one pass, four lanes at a time
/// (SSE2, which every x86-64 has).
#[inline(always)]
fn shared_offsets(
    base: &[u32; 32],
    imm: u32,
    m: u32,
    len: usize,
    size: u32,
    off: &mut [u32; 32],
) -> bool {
    #[cfg(target_arch = "x86_64")]
    if m == u32::MAX {
        use std::arch::x86_64::*;
        let Some(limit) = fit_limit(len, size) else {
            return false;
        };
        // SAFETY: SSE2 is part of x86-64; the loads and stores are of four
        // lanes 4k..4k + 4 (k < 8) of 32-lane arrays.
        unsafe {
            let (i, lim) = (_mm_set1_epi32(imm as i32), _mm_set1_epi32(limit as i32));
            let (mut any, mut past) = (_mm_setzero_si128(), _mm_setzero_si128());
            for k in 0..8 {
                let b = _mm_loadu_si128(base.as_ptr().add(4 * k) as *const __m128i);
                let a = _mm_add_epi32(b, i);
                _mm_storeu_si128(off.as_mut_ptr().add(4 * k) as *mut __m128i, a);
                any = _mm_or_si128(any, a);
                past = _mm_or_si128(past, _mm_sub_epi32(lim, a));
            }
            // No offset negative or past the limit (their top bits), and
            // none misaligned.
            let signs = _mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(any, past)));
            let mis = _mm_and_si128(any, _mm_set1_epi32((size - 1) as i32));
            let aligned = _mm_movemask_epi8(_mm_cmpeq_epi32(mis, _mm_setzero_si128()));
            return signs == 0 && aligned == 0xffff;
        }
    }
    for l in 0..32 {
        off[l] = base[l].wrapping_add(imm);
    }
    shared_fits(off, m, len, size)
}

/// Whether [`exec_general`] may take its AVX2 build (where the CPU has AVX2).
static WIDE_LANES: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Lets the executor use the CPU's AVX2 lane loops where it has them (the
/// default), or keeps it to the baseline build: for the test that both give
/// the same results and cycles.
pub fn use_wide_lanes(on: bool) {
    WIDE_LANES.store(on, std::sync::atomic::Ordering::Relaxed);
}

/// Whether to take the AVX2 build: allowed, and the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[inline]
fn wide_lanes() -> bool {
    WIDE_LANES.load(std::sync::atomic::Ordering::Relaxed)
        && std::arch::is_x86_feature_detected!("avx2")
}

/// [`exec`] of every instruction: compiled twice, for the baseline CPU and
/// with AVX2 (eight lanes an instruction in its lane loops), and run as the
/// host allows (detected at run time). Integer results are the same bits
/// either way, and Rust never contracts or reorders floating-point
/// arithmetic, so the two agree bit for bit.
#[inline(never)]
fn exec_general(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    #[cfg(target_arch = "x86_64")]
    {
        if wide_lanes() {
            // SAFETY: the CPU has AVX2 (checked just above).
            return unsafe { exec_general_avx2(op, w, env) };
        }
    }
    exec_general_body(op, w, env)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn exec_general_avx2(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    exec_general_body(op, w, env)
}

/// The body of [`exec_general`].
#[inline(always)]
fn exec_general_body(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    let m = w.active & guard_mask(w, op);
    let pc = w.pc;
    let next = next_slot(pc);
    w.pc = next;
    w.executed += 1;
    let s = &op.src;
    match op.kind {
        Kind::Control => return Err(ExecError::Illegal("a control word was executed".into())),
        Kind::Unsupported => {
            let why = env.prog.problem(pc).unwrap_or("unsupported instruction");
            return Err(ExecError::Illegal(why.to_string()));
        }
        Kind::Nop | Kind::Fence => {}
        Kind::Mov => {
            let a = read(w, &s[0], env)?;
            let d = int_lanes(IntOp::Mov, s, &a, &a, &a);
            w.set_reg(op.d0, &d, m);
        }
        Kind::IAdd { x, sat } if !x && !sat && !op.cc => {
            // The plain add or subtract: no carry in or out, no saturation.
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let d = int_lanes(IntOp::Add, s, &a, &b, &b);
            w.set_reg(op.d0, &d, m);
        }
        Kind::IAdd { x, sat } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let mut d = [0u32; 32];
            let (mut c, mut z, mut sg, mut ov) = (0u32, 0u32, 0u32, 0u32);
            for l in 0..32 {
                let av = if s[0].neg { !a[l] } else { a[l] };
                let bv = if s[1].neg { !b[l] } else { b[l] };
                let cin = if x {
                    (w.cc_c >> l & 1) as u64
                } else {
                    s[0].neg as u64 + s[1].neg as u64
                };
                let sum = av as u64 + bv as u64 + cin;
                let r = sum as u32;
                let sv = (av as i32 as i64) + (bv as i32 as i64) + cin as i64;
                let overflow = sv < i32::MIN as i64 || sv > i32::MAX as i64;
                d[l] = if sat && overflow {
                    if sv < 0 {
                        i32::MIN as u32
                    } else {
                        i32::MAX as u32
                    }
                } else {
                    r
                };
                c |= ((sum >> 32) as u32 & 1) << l;
                let zero = r == 0 && (!x || w.cc_z >> l & 1 == 1);
                z |= (zero as u32) << l;
                sg |= (r >> 31) << l;
                ov |= (overflow as u32) << l;
            }
            w.set_reg(op.d0, &d, m);
            if op.cc {
                set_cc(w, m, c, z, sg, ov);
            }
        }
        Kind::IScAdd { shift } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let d = int_lanes(IntOp::ScAdd(shift), s, &a, &b, &b);
            w.set_reg(op.d0, &d, m);
            if op.cc {
                let mut c = 0u32;
                for l in 0..32 {
                    let sum = ((int_in(a[l], &s[0]) << shift) as u64) + int_in(b[l], &s[1]) as u64;
                    c |= ((sum >> 32) as u32 & 1) << l;
                }
                let (z, sg) = zs(&d, m);
                set_cc(w, m, c, z, sg, 0);
            }
        }
        Kind::IMad {
            hi: false,
            x: false,
            sat: false,
            mad,
            ..
        } if !op.cc && !s[0].neg && !s[1].neg && !s[2].neg => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = if mad { read(w, &s[2], env)? } else { [0; 32] };
            let d = int_lanes(IntOp::Mad { mad }, s, &a, &b, &c);
            w.set_reg(op.d0, &d, m);
        }
        Kind::IMad {
            sa,
            sb,
            hi,
            x,
            sat,
            mad,
        } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let cc = if mad { read(w, &s[2], env)? } else { [0; 32] };
            let f = ImadForm {
                sa,
                sb,
                hi,
                x,
                sat: sat && mad,
                neg_p: s[0].neg ^ s[1].neg,
                neg_c: s[2].neg,
            };
            // The kernels' 64-bit address arithmetic, each form in a loop of
            // its own (the lane's work then has no decision left in it).
            const HI_U32: ImadForm = ImadForm::plain(false, false, true, false);
            const HI_X: ImadForm = ImadForm::plain(true, true, true, true);
            let (d, c) = match f {
                HI_U32 => imad_rows(&a, &b, &cc, w.cc_c, HI_U32),
                HI_X => imad_rows(&a, &b, &cc, w.cc_c, HI_X),
                f => imad_rows(&a, &b, &cc, w.cc_c, f),
            };
            w.set_reg(op.d0, &d, m);
            if op.cc {
                let (z, sg) = zs(&d, m);
                set_cc(w, m, c, z, sg, 0);
            }
        }
        Kind::IMadSp { ta, tb, tc } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = (ta.take(a[l]) * tb.take(b[l])).wrapping_add(tc.take(c[l])) as u32;
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::ISad { signed } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let diff = if signed {
                    (a[l] as i32 as i64 - b[l] as i32 as i64).unsigned_abs() as u32
                } else {
                    a[l].abs_diff(b[l])
                };
                d[l] = diff.wrapping_add(c[l]);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::IMnMx { signed, xlo, xhi } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let p = pmask(w, &s[2]);
            let mut d = [0u32; 32];
            let (mut eq, mut took_a) = (0u32, 0u32);
            for l in 0..32 {
                let (av, bv) = (int_in(a[l], &s[0]), int_in(b[l], &s[1]));
                let lt = if signed {
                    (av as i32) < (bv as i32)
                } else {
                    av < bv
                };
                let min = p >> l & 1 == 1;
                let pick_a = if xlo && w.cc_z >> l & 1 == 0 {
                    // The high words differed: follow their choice.
                    w.cc_c >> l & 1 == 1
                } else {
                    lt == min
                };
                d[l] = if pick_a { av } else { bv };
                eq |= ((av == bv) as u32) << l;
                took_a |= ((pick_a && av != bv) as u32) << l;
            }
            w.set_reg(op.d0, &d, m);
            if xhi && op.cc {
                // The model's encoding: Z = high words equal, C = a's taken.
                let sg = zs(&d, m).1;
                set_cc(w, m, took_a, eq, sg, 0);
            }
        }
        Kind::ISetP {
            cmp,
            signed,
            x,
            bop: bo,
        } => {
            let a = read(w, &s[0], env)?;
            let mut b = read(w, &s[1], env)?;
            let t = if x {
                lane_mask(|l| icompare(a[l], int_in(b[l], &s[1]), cmp, signed, x, w, l))
            } else {
                if s[1].not || s[1].neg {
                    b.iter_mut().for_each(|v| *v = int_in(*v, &s[1]));
                }
                cmp_int_lanes(&a, &b, cmp, signed)
            };
            write_setp(w, op, m, t, pmask(w, &s[2]), bo);
        }
        Kind::ISet {
            cmp,
            signed,
            x,
            bop: bo,
            bf,
        } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let t = lane_mask(|l| icompare(a[l], int_in(b[l], &s[1]), cmp, signed, x, w, l));
            write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
        }
        Kind::ICmp { cmp, signed } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = if cmp_int(c[l], 0, cmp, signed) {
                    a[l]
                } else {
                    b[l]
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Lop { op: lop } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let d = int_lanes(IntOp::Lop(lop), s, &a, &b, &b);
            write_flagged(w, op, &d, m);
        }
        Kind::Shl { wrap } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let d = int_lanes(IntOp::Shl { wrap }, s, &a, &b, &b);
            w.set_reg(op.d0, &d, m);
        }
        Kind::Shr { signed, wrap } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let d = int_lanes(IntOp::Shr { signed, wrap }, s, &a, &b, &b);
            w.set_reg(op.d0, &d, m);
        }
        Kind::Shf {
            right,
            wrap,
            hi,
            wide,
            signed,
        } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            let lim = if wide { 64 } else { 32 };
            for l in 0..32 {
                let v = (c[l] as u64) << 32 | a[l] as u64;
                let n = if wrap {
                    b[l] & (lim - 1)
                } else {
                    b[l].min(lim)
                } as u64;
                d[l] = if right {
                    let sh = if signed {
                        ((v as i64) >> n.min(63)) as u64
                    } else if n >= 64 {
                        0
                    } else {
                        v >> n
                    };
                    if hi {
                        (sh >> 32) as u32
                    } else {
                        sh as u32
                    }
                } else {
                    let sh = if n >= 64 { 0 } else { v << n };
                    (sh >> 32) as u32
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Bfe { signed, brev } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let x = if brev { a[l].reverse_bits() } else { a[l] };
                let pos = b[l] & 0xff;
                let len = (b[l] >> 8) & 0xff;
                d[l] = bfe(x, pos, len, signed);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Bfi => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let pos = b[l] & 0xff;
                let len = (b[l] >> 8) & 0xff;
                d[l] = if pos >= 32 || len == 0 {
                    c[l]
                } else {
                    let len = len.min(32 - pos);
                    let mask = if len >= 32 {
                        u32::MAX
                    } else {
                        ((1u32 << len) - 1) << pos
                    };
                    (c[l] & !mask) | ((a[l] << pos) & mask)
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Popc => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let av = if s[0].not { !a[l] } else { a[l] };
                let bv = if s[1].not { !b[l] } else { b[l] };
                d[l] = (av & bv).count_ones();
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Flo { signed, sh } => {
            let a = read(w, &s[0], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let mut x = if s[0].not { !a[l] } else { a[l] };
                if signed && (x as i32) < 0 {
                    x = !x;
                }
                d[l] = if x == 0 {
                    u32::MAX
                } else if sh {
                    x.leading_zeros()
                } else {
                    31 - x.leading_zeros()
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Prmt { mode } => {
            let a = read(w, &s[0], env)?;
            let sel = read(w, &s[1], env)?;
            let b = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = prmt(a[l], b[l], sel[l], mode);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Sel => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let p = pmask(w, &s[2]);
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = if p >> l & 1 == 1 {
                    int_in(a[l], &s[0])
                } else {
                    int_in(b[l], &s[1])
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::FAdd { ftz, sat, rnd } => {
            let a = fsrc(&read(w, &s[0], env)?, &s[0]);
            let b = fsrc(&read(w, &s[1], env)?, &s[1]);
            let mut d = [0u32; 32];
            if rnd == Rnd::Rn && !ftz && !sat {
                for l in 0..32 {
                    d[l] = fp::canon32(a[l] + b[l]);
                }
            } else {
                for l in 0..32 {
                    d[l] = fp::fadd(a[l], b[l], rnd, ftz, sat);
                }
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::FMul { ftz, sat, rnd } => {
            let a = fsrc(&read(w, &s[0], env)?, &s[0]);
            let b = fsrc(&read(w, &s[1], env)?, &s[1]);
            let mut d = [0u32; 32];
            if rnd == Rnd::Rn && !ftz && !sat {
                for l in 0..32 {
                    d[l] = fp::canon32(a[l] * b[l]);
                }
            } else {
                for l in 0..32 {
                    d[l] = fp::fmul(a[l], b[l], rnd, ftz, sat);
                }
            }
            w.set_reg(op.d0, &d, m);
        }
        // Three plain registers run in `exec`, unless `.S` or no lane is active.
        Kind::FFma { ftz, sat, rnd } => {
            let a = fsrc(&read(w, &s[0], env)?, &s[0]);
            let b = fsrc(&read(w, &s[1], env)?, &s[1]);
            let c = fsrc(&read(w, &s[2], env)?, &s[2]);
            let mut d = [0u32; 32];
            if rnd == Rnd::Rn && !ftz && !sat {
                let bits = |x: [f32; 32]| x.map(f32::to_bits);
                fp::ffma_rn_bits(&bits(a), &bits(b), &bits(c), &mut d);
            } else {
                for l in 0..32 {
                    d[l] = fp::ffma(a[l], b[l], c[l], rnd, ftz, sat);
                }
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::FMnMx { ftz } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let p = pmask(w, &s[2]);
            let mut d = [0u32; 32];
            for l in 0..32 {
                let mut x = fneg_abs32(a[l], &s[0]);
                let mut y = fneg_abs32(b[l], &s[1]);
                if ftz {
                    x = fp::ftz32(x);
                    y = fp::ftz32(y);
                }
                let min = p >> l & 1 == 1;
                d[l] = fminmax32(x, y, min);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::FSetP { cmp, ftz, bop: bo } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let t =
                lane_mask(|l| fcmp32(fneg_abs32(a[l], &s[0]), fneg_abs32(b[l], &s[1]), cmp, ftz));
            write_setp(w, op, m, t, pmask(w, &s[2]), bo);
        }
        Kind::FSet {
            cmp,
            ftz,
            bop: bo,
            bf,
        } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let t =
                lane_mask(|l| fcmp32(fneg_abs32(a[l], &s[0]), fneg_abs32(b[l], &s[1]), cmp, ftz));
            write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
        }
        Kind::FCmp { cmp, ftz } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let t = fcmp32(fneg_abs32(c[l], &s[2]), 0.0, cmp, ftz);
                d[l] = if t { a[l] } else { b[l] };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Mufu { f } => {
            let a = read(w, &s[0], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = mufu(f, a[l], &s[0]);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Rro { .. } => {
            // RRO's output feeds only MUFU.SIN/COS/EX2; keeping the value in full
            // precision makes those exact functions of the original argument.
            let a = read(w, &s[0], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                d[l] = fneg_abs32(a[l], &s[0]).to_bits();
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::DAdd { rnd } => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                d[l] = fp::dadd(fneg_abs64(a[l], &s[0]), fneg_abs64(b[l], &s[1]), rnd);
            }
            write64(w, op.d0, &d, m);
        }
        Kind::DMul { rnd } => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                d[l] = fp::dmul(fneg_abs64(a[l], &s[0]), fneg_abs64(b[l], &s[1]), rnd);
            }
            write64(w, op.d0, &d, m);
        }
        Kind::DFma { rnd } => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let c = read64(w, &s[2], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                d[l] = fp::dfma(
                    fneg_abs64(a[l], &s[0]),
                    fneg_abs64(b[l], &s[1]),
                    fneg_abs64(c[l], &s[2]),
                    rnd,
                );
            }
            write64(w, op.d0, &d, m);
        }
        Kind::DMnMx => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let p = pmask(w, &s[2]);
            let mut d = [0u64; 32];
            for l in 0..32 {
                let x = fneg_abs64(a[l], &s[0]);
                let y = fneg_abs64(b[l], &s[1]);
                let min = p >> l & 1 == 1;
                d[l] = if x.is_nan() && y.is_nan() {
                    fp::NAN64
                } else if x.is_nan() {
                    y.to_bits()
                } else if y.is_nan() {
                    x.to_bits()
                } else if x == y {
                    // -0 is below +0.
                    if x.is_sign_negative() == min {
                        x.to_bits()
                    } else {
                        y.to_bits()
                    }
                } else if (x < y) == min {
                    x.to_bits()
                } else {
                    y.to_bits()
                };
            }
            write64(w, op.d0, &d, m);
        }
        Kind::DSetP { cmp, bop: bo } => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let t = lane_mask(|l| dcmp(a[l], b[l], s, cmp));
            write_setp(w, op, m, t, pmask(w, &s[2]), bo);
        }
        Kind::DSet { cmp, bop: bo, bf } => {
            let a = read64(w, &s[0], env)?;
            let b = read64(w, &s[1], env)?;
            let t = lane_mask(|l| dcmp(a[l], b[l], s, cmp));
            write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
        }
        Kind::F2F {
            dt,
            st,
            rnd,
            irnd,
            ftz,
            sat,
        } => {
            let a = read64(w, &s[0], env)?;
            let a32 = read(w, &s[0], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                let x = match st {
                    NumType::F64 => fneg_abs64(a[l], &s[0]),
                    NumType::F16 => {
                        half_to_f32((a32[l] >> (16 * (s[0].sel as u32 & 1))) as u16) as f64
                    }
                    _ => {
                        let f = fneg_abs32(a32[l], &s[0]);
                        (if ftz { fp::ftz32(f) } else { f }) as f64
                    }
                };
                let x = fp::round_int(x, irnd);
                let x = if sat { x.clamp(0.0, 1.0) } else { x };
                d[l] = match dt {
                    NumType::F64 => fp::canon64(x),
                    NumType::F16 => fp::to_half(x, rnd) as u64,
                    _ => {
                        let r = if irnd == IntRnd::None {
                            fp::round32(x, 0.0, rnd)
                        } else {
                            x as f32
                        };
                        let r = if ftz { fp::ftz32(r) } else { r };
                        if r.is_nan() {
                            fp::NAN32 as u64
                        } else {
                            r.to_bits() as u64
                        }
                    }
                };
            }
            if dt == NumType::F64 {
                write64(w, op.d0, &d, m);
            } else {
                let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
                w.set_reg(op.d0, &d32, m);
            }
        }
        Kind::F2I { dt, st, irnd, ftz } => {
            let a = read64(w, &s[0], env)?;
            let a32 = read(w, &s[0], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                let x = if st == NumType::F64 {
                    fneg_abs64(a[l], &s[0])
                } else if st == NumType::F16 {
                    half_to_f32((a32[l] >> (16 * (s[0].sel as u32 & 1))) as u16) as f64
                } else {
                    let f = fneg_abs32(a32[l], &s[0]);
                    (if ftz { fp::ftz32(f) } else { f }) as f64
                };
                d[l] = f2i(fp::round_int(x, irnd), dt, st == NumType::F64);
            }
            if dt.bits() == 64 {
                write64(w, op.d0, &d, m);
            } else {
                let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
                w.set_reg(op.d0, &d32, m);
            }
        }
        Kind::I2F { dt, st, rnd } => {
            let a = read64(w, &s[0], env)?;
            let a32 = read(w, &s[0], env)?;
            let mut d = [0u64; 32];
            for l in 0..32 {
                let v: i128 = int_source(
                    if st.bits() == 64 { a[l] } else { a32[l] as u64 },
                    st,
                    s[0].sel,
                );
                let v = if s[0].neg { -v } else { v };
                let v = if s[0].abs { v.abs() } else { v };
                let s64 = v as f64;
                let e = (v - s64 as i128) as f64;
                d[l] = match dt {
                    NumType::F64 => fp::round64(s64, e, rnd).to_bits(),
                    _ => fp::round32(s64, e, rnd).to_bits() as u64,
                };
            }
            if dt == NumType::F64 {
                write64(w, op.d0, &d, m);
            } else {
                let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
                w.set_reg(op.d0, &d32, m);
            }
        }
        Kind::I2I { dt, st, sat } => {
            let a = read(w, &s[0], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let mut v = int_source(a[l] as u64, st, s[0].sel);
                if s[0].neg {
                    v = -v;
                }
                if s[0].abs {
                    v = v.abs();
                }
                let bits = dt.bits().min(32);
                let (lo, hi): (i128, i128) = if dt.is_signed() {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                let r = if sat { v.clamp(lo, hi) } else { v };
                // A narrow result is zero-extended, signed or not: ptxas follows
                // `I2I.S8.U8.SAT` with a sign-extending `BFE`, and compiles
                // `cvt.u16.s8` (whose .u16 result PTX zero-extends) to a lone
                // `I2I.S16.S8`.
                d[l] = if bits == 32 {
                    r as u32
                } else {
                    (r as u32) & ((1u32 << bits) - 1)
                };
            }
            w.set_reg(op.d0, &d, m);
            if op.cc {
                // `I2I.S32.S32 RZ.CC, R3` tests a sign for `CSETP`.
                let (z, sg) = zs(&d, m);
                set_cc(w, m, 0, z, sg, 0);
            }
        }
        Kind::PSetP { bop1, bop2 } => {
            let t = bopm(pmask(w, &s[0]), pmask(w, &s[1]), bop1);
            write_setp(w, op, m, t, pmask(w, &s[2]), bop2);
        }
        Kind::P2R => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let mut d = [0u32; 32];
            for l in 0..32 {
                let mut bits = 0u32;
                for p in 0..7 {
                    bits |= (w.preds[p] >> l & 1) << p;
                }
                d[l] = (a[l] & !b[l]) | (bits & b[l]);
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::R2P => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            for l in Lanes(m) {
                for p in 0..7 {
                    if b[l] >> p & 1 == 1 {
                        let bit = a[l] >> p & 1;
                        w.preds[p] = (w.preds[p] & !(1 << l)) | (bit << l);
                    }
                }
            }
        }
        Kind::CSetP { test, bop: bo } => {
            let t = cc_mask(w, test);
            write_setp(w, op, m, t, pmask(w, &s[0]), bo);
        }
        Kind::FChk => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let mut r = 0u32;
            for l in 0..32 {
                let x = fneg_abs32(a[l], &s[0]);
                let y = fneg_abs32(b[l], &s[1]);
                r |= (fchk_divide(x, y) as u32) << l;
            }
            w.set_pred(op.d0, r, m);
        }
        Kind::LdsLk { wide } => {
            let a = read(w, &s[0], env)?;
            let mut d = [0u32; 32];
            let mut d_hi = [0u32; 32];
            let mut got = 0u32;
            for l in Lanes(m) {
                let addr = (a[l] as u64).wrapping_add(op.imm as u64) & 0xffff_ffff;
                let mut buf = [0u8; 16];
                mem_access(
                    env,
                    Space::Shared,
                    w.id,
                    l,
                    addr,
                    &mut buf,
                    if wide { 8 } else { 4 },
                    false,
                )?;
                d[l] = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
                d_hi[l] = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
                let word = (addr / 4) as usize;
                let (i, bit) = (word / 32, 1u32 << (word % 32));
                if env.locks[i] & bit == 0 {
                    env.locks[i] |= bit;
                    got |= 1 << l;
                }
            }
            w.set_reg(op.d0, &d, m);
            if wide && op.d0 != 255 {
                w.set_reg(op.d0 + 1, &d_hi, m);
            }
            w.set_pred(op.d1, got, m);
        }
        Kind::StsCul { wide } => {
            let a = read(w, &s[0], env)?;
            let v = read(w, &s[1], env)?;
            let v_hi = match s[1].src {
                Src::Reg(r) if wide && r != 255 => w.reg(r + 1),
                _ => [0; 32],
            };
            let mut ok = 0u32;
            for l in Lanes(m) {
                let addr = (a[l] as u64).wrapping_add(op.imm as u64) & 0xffff_ffff;
                let word = (addr / 4) as usize;
                let (i, bit) = (word.min(env.locks.len() * 32 - 1) / 32, 1u32 << (word % 32));
                if env.locks[i] & bit == 0 {
                    return Err(ExecError::Illegal(format!(
                        "STSCUL to shared {addr:#x}, whose lock lane {l} does not hold"
                    )));
                }
                let mut buf = [0u8; 16];
                buf[..4].copy_from_slice(&v[l].to_le_bytes());
                buf[4..8].copy_from_slice(&v_hi[l].to_le_bytes());
                mem_access(
                    env,
                    Space::Shared,
                    w.id,
                    l,
                    addr,
                    &mut buf,
                    if wide { 8 } else { 4 },
                    true,
                )?;
                env.locks[i] &= !bit;
                ok |= 1 << l;
            }
            w.set_pred(op.d1, ok, m);
        }
        Kind::S2R { sr } => {
            let mut d = [0u32; 32];
            let warp_base = w.id * 32;
            let bd = env.block_dim;
            for (l, dl) in d.iter_mut().enumerate() {
                let t = warp_base + l as u32;
                let (tx, ty, tz) = (t % bd[0], (t / bd[0]) % bd[1], t / (bd[0] * bd[1]));
                *dl = match sr {
                    SReg::LaneId => l as u32,
                    SReg::TidX => tx,
                    SReg::TidY => ty,
                    SReg::TidZ => tz,
                    SReg::Tid => tx | ty << 16 | tz << 26,
                    SReg::CtaidX => env.block_idx[0],
                    SReg::CtaidY => env.block_idx[1],
                    SReg::CtaidZ => env.block_idx[2],
                    SReg::NtidX => bd[0],
                    SReg::NtidY => bd[1],
                    SReg::NtidZ => bd[2],
                    SReg::NctaidX => env.grid_dim[0],
                    SReg::NctaidY => env.grid_dim[1],
                    SReg::NctaidZ => env.grid_dim[2],
                    SReg::ClockLo | SReg::Clock64Lo => env.clock as u32,
                    SReg::ClockHi => (env.clock >> 32) as u32,
                    SReg::SmId => env.sm,
                    SReg::WarpId => w.id,
                    SReg::NWarpId => 64,
                    SReg::GridId => 1,
                    SReg::LaneMaskEq => 1 << l,
                    SReg::LaneMaskLt => (1u32 << l) - 1,
                    SReg::LaneMaskLe => ((1u64 << (l + 1)) - 1) as u32,
                    SReg::LaneMaskGt => !(((1u64 << (l + 1)) - 1) as u32),
                    SReg::LaneMaskGe => !((1u32 << l) - 1),
                    SReg::SmemSz => env.shared.len() as u32,
                    SReg::VirtCfg => env.sms << 20,
                    SReg::VirtId => env.sm << 20 | (w.id & 0x3f) << 8,
                    SReg::Zero => 0,
                };
            }
            w.set_reg(op.d0, &d, m);
        }
        Kind::Shfl { mode } => {
            let a = read(w, &s[0], env)?;
            let b = read(w, &s[1], env)?;
            let c = read(w, &s[2], env)?;
            let mut d = [0u32; 32];
            let mut pv = 0u32;
            for l in 0..32 {
                let lane = l as u32;
                let bval = b[l] & 0x1f;
                let cval = c[l] & 0x1f;
                let mask = (c[l] >> 8) & 0x1f;
                let max_lane = (lane & mask) | (cval & !mask);
                let min_lane = lane & mask;
                let (j, ok) = match mode {
                    ShflMode::Up => {
                        let j = lane as i32 - bval as i32;
                        (j, j >= max_lane as i32)
                    }
                    ShflMode::Down => {
                        let j = (lane + bval) as i32;
                        (j, j <= max_lane as i32)
                    }
                    ShflMode::Bfly => {
                        let j = (lane ^ bval) as i32;
                        (j, j <= max_lane as i32)
                    }
                    ShflMode::Idx => {
                        let j = (min_lane | (bval & !mask)) as i32;
                        (j, j <= max_lane as i32)
                    }
                };
                let src = if ok { j as usize } else { l };
                d[l] = a[src];
                pv |= (ok as u32) << l;
            }
            w.set_reg(op.d0, &d, m);
            w.set_pred(op.d1, pv, m);
        }
        Kind::Vote { mode } => {
            let p = pmask(w, &s[0]) & m;
            let ballot = [p; 32];
            w.set_reg(op.d0, &ballot, m);
            let r = match mode {
                VoteMode::All => p == m,
                VoteMode::Any => p != 0,
                VoteMode::Eq => p == 0 || p == m,
            };
            w.set_pred(op.d1, if r { u32::MAX } else { 0 }, m);
        }
        Kind::Ld { space, w: width } => {
            let mut own = [0u64; 32];
            let addr = ld_st_addresses(env.pre, &mut own, w, op, space, env)?;
            let n = width.regs() as usize;
            let size = width.bytes();
            let mut rows = [[0u32; 32]; 4];
            let mut buf = [0u8; 16];
            let mut put = |l: usize, buf: &[u8]| {
                let word = |k: usize| {
                    u32::from_le_bytes([buf[4 * k], buf[4 * k + 1], buf[4 * k + 2], buf[4 * k + 3]])
                };
                rows[0][l] = match width {
                    Width::U8 => buf[0] as u32,
                    Width::S8 => buf[0] as i8 as i32 as u32,
                    Width::U16 => u16::from_le_bytes([buf[0], buf[1]]) as u32,
                    Width::S16 => i16::from_le_bytes([buf[0], buf[1]]) as i32 as u32,
                    _ => word(0),
                };
                for (k, row) in rows[1..n].iter_mut().enumerate() {
                    row[l] = word(k + 1);
                }
            };
            if let Some((mem, off)) = region(env, space, w.id, addr, m, size) {
                if size >= 4 {
                    // Whole words: straight into the rows.
                    for l in Lanes(m) {
                        let o = off[l] as usize;
                        let src = &mem[o..o + 4 * n];
                        for (k, row) in rows[..n].iter_mut().enumerate() {
                            row[l] = u32::from_le_bytes([
                                src[4 * k],
                                src[4 * k + 1],
                                src[4 * k + 2],
                                src[4 * k + 3],
                            ]);
                        }
                    }
                } else {
                    for l in Lanes(m) {
                        let o = off[l] as usize;
                        copy_n(&mut buf, &mem[o..], size);
                        put(l, &buf);
                    }
                }
            } else {
                for l in Lanes(m) {
                    mem_access(env, space, w.id, l, addr[l], &mut buf, size, false)?;
                    put(l, &buf);
                }
            }
            for (k, row) in rows.iter().enumerate().take(n) {
                if op.d0 != 255 {
                    w.set_reg(op.d0 + k as u8, row, m);
                }
            }
        }
        Kind::St { space, w: width } => {
            let mut own = [0u64; 32];
            let addr = ld_st_addresses(env.pre, &mut own, w, op, space, env)?;
            let n = width.regs() as usize;
            let size = width.bytes();
            let mut rows = [[0u32; 32]; 4];
            if let Src::Reg(r) = s[1].src {
                for (k, row) in rows.iter_mut().enumerate().take(n) {
                    if r != 255 {
                        *row = w.reg(r + k as u8);
                    }
                }
            }
            let bytes = |l: usize| {
                let mut buf = [0u8; 16];
                for k in 0..n {
                    buf[4 * k..4 * k + 4].copy_from_slice(&rows[k][l].to_le_bytes());
                }
                buf
            };
            if let Some((mem, off)) = region(env, space, w.id, addr, m, size) {
                for l in Lanes(m) {
                    copy_n(&mut mem[off[l] as usize..], &bytes(l), size);
                }
            } else {
                for l in Lanes(m) {
                    let mut buf = bytes(l);
                    mem_access(env, space, w.id, l, addr[l], &mut buf, size, true)?;
                }
            }
        }
        Kind::Ldc { w: width } => {
            let n = width.regs();
            let mut rows = [[0u32; 32]; 4];
            let (bank, reg, offset) = match s[0].src {
                Src::ConstIdx { bank, reg, offset } => (bank, reg, offset),
                Src::Const { bank, offset } => (bank, 255, offset as i32),
                _ => return Err(ExecError::Illegal("LDC without a constant operand".into())),
            };
            let idx = w.reg(reg);
            for l in Lanes(m) {
                let a = idx[l] as i32 as i64 + offset as i64;
                for (k, row) in rows.iter_mut().enumerate().take(n as usize) {
                    row[l] = env.cbank(bank, a + 4 * k as i64)?;
                }
                if width.bytes() < 4 {
                    let v = env.cbank(bank, a & !3)? >> (8 * (a & 3));
                    rows[0][l] = match width {
                        Width::U8 => v & 0xff,
                        Width::S8 => v as u8 as i8 as i32 as u32,
                        Width::U16 => v & 0xffff,
                        _ => v as u16 as i16 as i32 as u32,
                    };
                }
            }
            for (k, row) in rows.iter().enumerate().take(n as usize) {
                w.set_reg(op.d0 + k as u8, row, m);
            }
        }
        Kind::Atom {
            space,
            op: aop,
            ty,
            ret,
        } => {
            let base = read(w, &s[0], env)?;
            let hi = match (space, s[0].src) {
                (Space::Generic, Src::Reg(r)) if r != 255 && op.d1 == 1 => w.reg(r + 1),
                _ => [0; 32],
            };
            let wide = matches!(ty, AtomType::U64 | AtomType::S64);
            let (b, c) = if wide {
                (read64(w, &s[1], env)?, read64(w, &s[2], env)?)
            } else {
                ([0; 32], [0; 32])
            };
            let b32 = read(w, &s[1], env)?;
            let c32 = read(w, &s[2], env)?;
            let mut d = [0u64; 32];
            for l in Lanes(m) {
                let addr = ((hi[l] as u64) << 32 | base[l] as u64).wrapping_add(op.imm as u64);
                let addr = if op.d1 == 1 { addr } else { addr & 0xffff_ffff };
                let size = if wide { 8 } else { 4 };
                let mut buf = [0u8; 16];
                mem_access(env, space, w.id, l, addr, &mut buf, size, false)?;
                let old = u64::from_le_bytes([
                    buf[0], buf[1], buf[2], buf[3], buf[4], buf[5], buf[6], buf[7],
                ]) & if wide { u64::MAX } else { 0xffff_ffff };
                let (bv, cv) = if wide {
                    (b[l], c[l])
                } else {
                    (b32[l] as u64, c32[l] as u64)
                };
                let new = atom(aop, ty, old, bv, cv);
                buf[..8].copy_from_slice(&new.to_le_bytes());
                mem_access(env, space, w.id, l, addr, &mut buf, size, true)?;
                d[l] = old;
            }
            if ret {
                if wide {
                    write64(w, op.d0, &d, m);
                } else {
                    let d32: [u32; 32] = std::array::from_fn(|l| d[l] as u32);
                    w.set_reg(op.d0, &d32, m);
                }
            }
        }
        Kind::Bra { cc } => {
            let taken = if cc == CcTest::T {
                m
            } else {
                m & cc_mask(w, cc)
            };
            let not_taken = w.active & !taken;
            if taken == 0 {
                // Falls through.
            } else if not_taken == 0 {
                w.pc = op.target;
            } else {
                if !w.push(Token::Div, not_taken, next) {
                    return Err(ExecError::Stack(
                        "the reconvergence stack overflowed".into(),
                    ));
                }
                w.active = taken;
                w.pc = op.target;
            }
        }
        Kind::Brx => {
            let r = read(w, &s[0], env)?;
            // Group lanes by target; the lowest lane's target runs first.
            let mut left = m;
            let mut first = None;
            while left != 0 {
                let l0 = left.trailing_zeros() as usize;
                let t = r[l0].wrapping_add(op.imm as u32).wrapping_add((pc + 1) * 8);
                let mut group = 0;
                for l in Lanes(left) {
                    if r[l].wrapping_add(op.imm as u32).wrapping_add((pc + 1) * 8) == t {
                        group |= 1 << l;
                    }
                }
                left &= !group;
                if t % 8 != 0 {
                    return Err(ExecError::Illegal(format!(
                        "BRX to misaligned address {t:#x}"
                    )));
                }
                // A target at a control word means the instruction after it.
                let slot = if (t / 8) % 8 == 0 { t / 8 + 1 } else { t / 8 };
                match first {
                    None => first = Some((group, slot)),
                    Some(_) => {
                        if !w.push(Token::Div, group, slot) {
                            return Err(ExecError::Stack(
                                "the reconvergence stack overflowed".into(),
                            ));
                        }
                    }
                }
            }
            let rest = w.active & !m;
            if rest != 0 && !w.push(Token::Div, rest, next) {
                return Err(ExecError::Stack(
                    "the reconvergence stack overflowed".into(),
                ));
            }
            if let Some((g, t)) = first {
                w.active = g;
                w.pc = t;
            }
        }
        Kind::Ssy | Kind::Pbk | Kind::Pcnt | Kind::Pret => {
            let token = match op.kind {
                Kind::Ssy => Token::Sync,
                Kind::Pbk => Token::Brk,
                Kind::Pcnt => Token::Cont,
                _ => Token::Call,
            };
            if !w.push(token, w.active, op.target) {
                return Err(ExecError::Stack(
                    "the reconvergence stack overflowed".into(),
                ));
            }
        }
        Kind::Cal => {
            if m != w.active {
                return Err(ExecError::Illegal(
                    "a predicated CAL in divergent code is not modelled".into(),
                ));
            }
            if !w.push(Token::Call, w.active, next) {
                return Err(ExecError::Stack(
                    "the call stack overflowed (runaway recursion?)".into(),
                ));
            }
            w.pc = op.target;
        }
        Kind::Brk | Kind::Cont | Kind::Ret => {
            let token = match op.kind {
                Kind::Brk => Token::Brk,
                Kind::Cont => Token::Cont,
                _ => Token::Call,
            };
            if m != 0 && !w.leave_to(token, m) {
                return Err(ExecError::Stack(format!(
                    "{} with no matching {} on the stack",
                    match token {
                        Token::Brk => "BRK",
                        Token::Cont => "CONT",
                        _ => "RET",
                    },
                    match token {
                        Token::Brk => "PBK",
                        Token::Cont => "PCNT",
                        _ => "CAL",
                    }
                )));
            }
        }
        Kind::Exit => {
            w.exit(m);
        }
        Kind::BarRed { red } => {
            let id = read(w, &s[0], env)?[0];
            let p = pmask(w, &s[2]) & m;
            if m != 0 {
                let live = w.valid & !w.exited;
                if m != live {
                    return Err(ExecError::DivergentBarrier { arrived: m, live });
                }
                if id > 15 {
                    return Err(ExecError::Illegal(format!(
                        "barrier {id} does not exist (0..15)"
                    )));
                }
                // The block combines every warp's part when the barrier releases
                // (`func::release_barriers`) and writes the result to d0.
                let count = if s[1].src == Src::None {
                    0
                } else {
                    read(w, &s[1], env)?[0]
                };
                w.bar_red = Some((red, p.count_ones(), p == m, p != 0));
                w.state = WarpState::Barrier {
                    id: id as u8,
                    count,
                };
            }
        }
        Kind::B2R => {
            let v = w.bar_result;
            w.set_reg(op.d0, &[v; 32], m);
            w.set_pred(op.d1, if v != 0 { u32::MAX } else { 0 }, m);
        }
        Kind::Bar { arrive_only } => {
            let id = read(w, &s[0], env)?[0];
            let count = if s[1].src == Src::None {
                0
            } else {
                read(w, &s[1], env)?[0]
            };
            if m != 0 {
                let live = w.valid & !w.exited;
                if m != live {
                    return Err(ExecError::DivergentBarrier { arrived: m, live });
                }
                if id > 15 {
                    return Err(ExecError::Illegal(format!(
                        "barrier {id} does not exist (0..15)"
                    )));
                }
                if !arrive_only {
                    w.state = WarpState::Barrier {
                        id: id as u8,
                        count,
                    };
                }
            }
        }
    }
    if op.sync && m != 0 {
        // `.S`: these lanes wait at the innermost SSY entry.
        if !w.stack.iter().any(|e| e.token == Token::Sync) {
            return Err(ExecError::Stack(
                "a .S instruction with no SSY on the stack".into(),
            ));
        }
        w.active &= !m;
    }
    if w.active == 0 && !w.resume() {
        return Err(ExecError::Stack(
            "no lane is running, and the lanes left have nothing to resume them".into(),
        ));
    }
    Ok(())
}

/// Whether a / b needs the slow path: any operand that is not a normal number
/// (a zero dividend included: the fast path's `FFMA q, a, r, RZ` turns -0 into
/// +0), or exponents whose quotient, reciprocal or residual would leave the
/// normal range. Erring towards the slow path is always exact.
fn fchk_divide(a: f32, b: f32) -> bool {
    let e = |x: f32| ((x.to_bits() >> 23) & 0xff) as i32 - 127;
    if !b.is_normal() || !a.is_normal() {
        return true;
    }
    let (ea, eb) = (e(a), e(b));
    !(-124..=124).contains(&eb) || !(-124..=124).contains(&(ea - eb)) || ea <= -102
}

/// The lanes for which `f` holds.
#[inline]
fn lane_mask(f: impl Fn(usize) -> bool) -> u32 {
    (0..32).fold(0, |m, l| m | (f(l) as u32) << l)
}

/// Combines two lane masks as a set-predicate instruction's boolean operation.
#[inline]
fn bopm(a: u32, b: u32, op: BoolOp) -> u32 {
    match op {
        BoolOp::And => a & b,
        BoolOp::Or => a | b,
        BoolOp::Xor => a ^ b,
    }
}

/// A set-predicate instruction's results: `t bop p` to the first predicate,
/// `!t bop p` to the second, in lanes `m`.
#[inline]
fn write_setp(w: &mut Warp, op: &Op, m: u32, t: u32, p: u32, bo: BoolOp) {
    w.set_pred(op.d0, bopm(t, p, bo), m);
    w.set_pred(op.d1, bopm(!t, p, bo), m);
}

/// A set instruction's result: all ones (1.0 with `.BF`) where `t` holds, else
/// zero, with the zero and sign flags where `.CC` asks.
#[inline]
fn write_set(w: &mut Warp, op: &Op, m: u32, t: u32, bf: bool) {
    let one = if bf { 1.0f32.to_bits() } else { u32::MAX };
    let d: R = std::array::from_fn(|l| if t >> l & 1 == 1 { one } else { 0 });
    write_flagged(w, op, &d, m);
}

/// Writes a result row, and the zero and sign flags (carry and overflow
/// cleared) where `.CC` asks.
#[inline]
fn write_flagged(w: &mut Warp, op: &Op, d: &R, m: u32) {
    w.set_reg(op.d0, d, m);
    if op.cc {
        let (z, sg) = zs(d, m);
        set_cc(w, m, 0, z, sg, 0);
    }
}

/// A double comparison of sources 0 and 1 (with their `-` and `|..|`).
#[inline]
fn dcmp(a: u64, b: u64, s: &[Operand; 4], cmp: Cmp) -> bool {
    cmp_ord(fneg_abs64(a, &s[0]).partial_cmp(&fneg_abs64(b, &s[1])), cmp)
}

/// The lanes whose condition code passes `t`.
fn cc_mask(w: &Warp, t: CcTest) -> u32 {
    let (z, s, c, o) = (w.cc_z, w.cc_s, w.cc_c, w.cc_o);
    let lt = (s ^ o) & !z;
    match t {
        CcTest::T => u32::MAX,
        CcTest::F => 0,
        CcTest::Lt => lt,
        CcTest::Eq => z,
        CcTest::Le => lt | z,
        CcTest::Gt => !(lt | z),
        CcTest::Ne => !z,
        CcTest::Ge => !lt,
        CcTest::Lo => !c,
        CcTest::Ls => !c | z,
        CcTest::Hi => c & !z,
        CcTest::Hs => c,
        CcTest::Off => !o,
        CcTest::Oft => o,
        CcTest::Sff => !s,
        CcTest::Sft => s,
        CcTest::Cff => !c,
        CcTest::Cft => c,
    }
}

/// The zero and sign flags of results `d` in lanes `m`.
fn zs(d: &[u32; 32], m: u32) -> (u32, u32) {
    // Every lane, then the mask: no branch, and the compiler vectorises it.
    let (mut z, mut s) = (0u32, 0u32);
    for (l, &v) in d.iter().enumerate() {
        z |= ((v == 0) as u32) << l;
        s |= (v >> 31) << l;
    }
    (z & m, s & m)
}

/// An integer comparison; `.X` compares the high words of a 64-bit pair whose
/// low words set the condition code (`IADD RZ.CC, lo_a, -lo_b`): the borrow is
/// the carry flag's complement and equality needs the low words' zero flag.
#[inline]
fn icompare(a: u32, b: u32, cmp: Cmp, signed: bool, x: bool, w: &Warp, l: usize) -> bool {
    if !x {
        return cmp_int(a, b, cmp, signed);
    }
    let carry = (w.cc_c >> l & 1) as i64;
    let zero_lo = w.cc_z >> l & 1 == 1;
    let (av, bv) = if signed {
        (a as i32 as i64, b as i32 as i64)
    } else {
        (a as i64, b as i64)
    };
    // a:lo - b:lo as (a - b - borrow) with the low part's zero flag.
    let diff = av - bv - (1 - carry);
    let ord = if diff < 0 {
        std::cmp::Ordering::Less
    } else if diff == 0 && zero_lo {
        std::cmp::Ordering::Equal
    } else {
        std::cmp::Ordering::Greater
    };
    cmp_ord(Some(ord), cmp)
}

fn bfe(x: u32, pos: u32, len: u32, signed: bool) -> u32 {
    if len == 0 {
        return 0;
    }
    if pos >= 32 {
        return if signed && (x as i32) < 0 {
            u32::MAX
        } else {
            0
        };
    }
    let len = len.min(32);
    let v = (x as u64) >> pos;
    let end = pos + len;
    if signed {
        let top = end.min(32) - 1; // sign bit position in x
        let sign = x >> top & 1;
        let l = (end.min(32) - pos) as u64;
        let mut r = v & ((1u64 << l) - 1);
        if sign == 1 {
            r |= !((1u64 << l) - 1);
        }
        r as u32
    } else {
        (v & ((1u64 << len) - 1)) as u32
    }
}

fn prmt(a: u32, b: u32, sel: u32, mode: u8) -> u32 {
    let bytes = ((b as u64) << 32 | a as u64).to_le_bytes();
    let idx = |i: u32| -> u8 {
        let s = (sel >> (4 * i)) & 0xf;
        let byte = bytes[(s & 7) as usize];
        if s & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        }
    };
    let pick = |ix: [u32; 4]| -> u32 {
        u32::from_le_bytes([
            bytes[ix[0] as usize],
            bytes[ix[1] as usize],
            bytes[ix[2] as usize],
            bytes[ix[3] as usize],
        ])
    };
    let s = sel & 3;
    match mode {
        0 => u32::from_le_bytes([idx(0), idx(1), idx(2), idx(3)]),
        1 => pick([s, (s + 1) & 7, (s + 2) & 7, (s + 3) & 7]), // F4E
        2 => pick([s, (s + 7) & 7, (s + 6) & 7, (s + 5) & 7]), // B4E
        3 => pick([s, s, s, s]),                               // RC8
        4 => pick([[0, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [3, 3, 3, 3]][s as usize]), // ECL
        5 => pick([[0, 0, 0, 0], [0, 1, 1, 1], [0, 1, 2, 2], [0, 1, 2, 3]][s as usize]), // ECR
        _ => {
            let h = (sel & 1) * 2;
            pick([h, h + 1, h, h + 1]) // RC16
        }
    }
}

fn fminmax32(x: f32, y: f32, min: bool) -> u32 {
    if x.is_nan() && y.is_nan() {
        return fp::NAN32;
    }
    if x.is_nan() {
        return y.to_bits();
    }
    if y.is_nan() {
        return x.to_bits();
    }
    if x == y {
        // -0 is below +0.
        return if (x.is_sign_negative() && min) || (x.is_sign_positive() && !min) {
            x.to_bits()
        } else {
            y.to_bits()
        };
    }
    if (x < y) == min {
        x.to_bits()
    } else {
        y.to_bits()
    }
}

fn fcmp32(a: f32, b: f32, cmp: Cmp, ftz: bool) -> bool {
    let (a, b) = if ftz {
        (fp::ftz32(a), fp::ftz32(b))
    } else {
        (a, b)
    };
    cmp_ord(a.partial_cmp(&b), cmp)
}

/// MUFU: the function computed in double and rounded to single; inputs that are
/// denormal are flushed, as the hardware unit does. The hardware is accurate to
/// about 1 ulp (NVIDIA's CUDA guide, intrinsic functions); this is within that.
fn mufu(f: MufuFn, x: u32, o: &Operand) -> u32 {
    let v = fp::ftz32(fneg_abs32(x, o)) as f64;
    let r = match f {
        MufuFn::Cos => v.cos(),
        MufuFn::Sin => v.sin(),
        MufuFn::Ex2 => v.exp2(),
        MufuFn::Lg2 => v.log2(),
        MufuFn::Rcp => 1.0 / v,
        MufuFn::Rsq => 1.0 / v.sqrt(),
        MufuFn::Rcp64h | MufuFn::Rsq64h => {
            let mut hi = x;
            if o.abs {
                hi &= 0x7fff_ffff;
            }
            if o.neg {
                hi ^= 0x8000_0000;
            }
            let d = f64::from_bits((hi as u64) << 32);
            let r = if f == MufuFn::Rcp64h {
                1.0 / d
            } else {
                1.0 / d.sqrt()
            };
            return if r.is_nan() {
                0x7fff_ffff
            } else {
                (r.to_bits() >> 32) as u32
            };
        }
    };
    let r = fp::ftz32(r as f32);
    if r.is_nan() {
        fp::NAN32
    } else {
        r.to_bits()
    }
}

fn half_to_f32(h: u16) -> f32 {
    let sign = (h >> 15) as u32;
    let exp = ((h >> 10) & 0x1f) as i32;
    let man = (h & 0x3ff) as u32;
    let v = if exp == 0 {
        man as f32 * 2f32.powi(-24)
    } else if exp == 31 {
        if man == 0 {
            f32::INFINITY
        } else {
            f32::NAN
        }
    } else {
        (1.0 + man as f32 / 1024.0) * 2f32.powi(exp - 15)
    };
    if sign == 1 {
        -v
    } else {
        v
    }
}

fn int_source(v: u64, st: NumType, sel: u8) -> i128 {
    let sh = match st.bits() {
        8 => 8 * sel as u32,
        16 => 16 * (sel as u32 & 1),
        _ => 0,
    };
    let v = v >> sh;
    match st {
        NumType::U8 => (v & 0xff) as i128,
        NumType::S8 => v as u8 as i8 as i128,
        NumType::U16 => (v & 0xffff) as i128,
        NumType::S16 => v as u16 as i16 as i128,
        NumType::U32 => (v & 0xffff_ffff) as i128,
        NumType::S32 => v as u32 as i32 as i128,
        NumType::U64 => v as i128,
        _ => v as i64 as i128,
    }
}

/// Float to integer, saturating. NaN gives 0, except from a double or to a
/// 64-bit integer: then `1 << (bits - 1)` (PTX ISA, `cvt`).
fn f2i(x: f64, dt: NumType, from_f64: bool) -> u64 {
    if x.is_nan() {
        return if from_f64 || dt.bits() == 64 {
            let v = 1u64 << (dt.bits() - 1);
            if dt.is_signed() && dt.bits() < 32 {
                (v as u32 | !((1u32 << dt.bits()) - 1)) as u64
            } else {
                v
            }
        } else {
            0
        };
    }
    match dt {
        NumType::U8 => x.clamp(0.0, 255.0) as u64,
        NumType::S8 => (x.clamp(-128.0, 127.0) as i64 as u64) & 0xffff_ffff,
        NumType::U16 => x.clamp(0.0, 65535.0) as u64,
        NumType::S16 => (x.clamp(-32768.0, 32767.0) as i64 as u64) & 0xffff_ffff,
        NumType::U32 => x.clamp(0.0, u32::MAX as f64) as u32 as u64,
        NumType::U64 => x.max(0.0) as u64,
        NumType::S64 => x as i64 as u64,
        _ => (x as i32) as u32 as u64,
    }
}

fn atom(op: AtomOp, ty: AtomType, old: u64, b: u64, c: u64) -> u64 {
    let o32 = old as u32;
    let b32 = b as u32;
    match (op, ty) {
        (AtomOp::Min, AtomType::S64) => (old as i64).min(b as i64) as u64,
        (AtomOp::Max, AtomType::S64) => (old as i64).max(b as i64) as u64,
        (_, AtomType::S64) => atom(op, AtomType::U64, old, b, c),
        (AtomOp::Add, AtomType::F32) => fp::fadd(
            f32::from_bits(o32),
            f32::from_bits(b32),
            Rnd::Rn,
            true,
            false,
        ) as u64,
        (AtomOp::Add, AtomType::U64) => old.wrapping_add(b),
        (AtomOp::Exch, AtomType::U64) => b,
        (AtomOp::Min, AtomType::U64) => old.min(b),
        (AtomOp::Max, AtomType::U64) => old.max(b),
        (AtomOp::And, AtomType::U64) => old & b,
        (AtomOp::Or, AtomType::U64) => old | b,
        (AtomOp::Xor, AtomType::U64) => old ^ b,
        (AtomOp::Cas, AtomType::U64) => {
            if old == b {
                c
            } else {
                old
            }
        }
        (AtomOp::Add, _) => o32.wrapping_add(b32) as u64,
        (AtomOp::Min, AtomType::S32) => (o32 as i32).min(b32 as i32) as u32 as u64,
        (AtomOp::Max, AtomType::S32) => (o32 as i32).max(b32 as i32) as u32 as u64,
        (AtomOp::Min, _) => o32.min(b32) as u64,
        (AtomOp::Max, _) => o32.max(b32) as u64,
        (AtomOp::Inc, _) => (if o32 >= b32 { 0 } else { o32 + 1 }) as u64,
        (AtomOp::Dec, _) => (if o32 == 0 || o32 > b32 { b32 } else { o32 - 1 }) as u64,
        (AtomOp::And, _) => (o32 & b32) as u64,
        (AtomOp::Or, _) => (o32 | b32) as u64,
        (AtomOp::Xor, _) => (o32 ^ b32) as u64,
        (AtomOp::Exch, _) => b32 as u64,
        (AtomOp::Cas, _) => (if o32 == b32 { c as u32 } else { o32 }) as u64,
    }
}

/// The byte address of every lane's access of a load or store: the base
/// register (a pair with `.E`, kept to 32 bits without it) plus the offset.
#[inline]
pub(crate) fn addresses(
    w: &Warp,
    op: &Op,
    space: Space,
    env: &Env,
) -> Result<[u64; 32], ExecError> {
    let base = read(w, &op.src[0], env)?;
    let wide = op.d1 == 1 || space == Space::GlobalRo;
    let keep = if wide { u64::MAX } else { 0xffff_ffff };
    let imm = op.imm as u64;
    let mut out = [0u64; 32];
    match op.src[0].src {
        Src::Reg(r) if r != 255 && op.d1 == 1 => {
            let hi = w.row(r + 1);
            for l in 0..32 {
                out[l] = ((hi[l] as u64) << 32 | base[l] as u64).wrapping_add(imm) & keep;
            }
        }
        _ => {
            for l in 0..32 {
                out[l] = (base[l] as u64).wrapping_add(imm) & keep;
            }
        }
    }
    Ok(out)
}

/// The lane addresses of an `LD`/`ST`: the timing model's (`pre`), or worked
/// out into `own`.
#[inline]
fn ld_st_addresses<'x>(
    pre: Option<&'x [u64; 32]>,
    own: &'x mut [u64; 32],
    w: &Warp,
    op: &Op,
    space: Space,
    env: &Env,
) -> Result<&'x [u64; 32], ExecError> {
    match pre {
        Some(a) => Ok(a),
        None => {
            *own = addresses(w, op, space, env)?;
            Ok(own)
        }
    }
}

/// Where every active lane's access of `size` bytes lands, when all of them are
/// aligned and fall in one memory (the block's shared memory, its local memory,
/// or one global allocation): that memory and each lane's offset in it. `None`
/// sends the access lane by lane through [`mem_access`], which names the fault.
#[inline]
fn region<'e>(
    env: &'e mut Env,
    space: Space,
    warp: u32,
    addr: &[u64; 32],
    m: u32,
    size: u32,
) -> Option<(&'e mut [u8], [u32; 32])> {
    let l0 = (m != 0).then(|| m.trailing_zeros() as usize)?;
    if space == Space::Shared {
        // The common case, without a window: every active lane aligned and
        // inside the block's shared memory (else lane by lane, for the fault).
        let mut off = [0u32; 32];
        let mut high = 0u32;
        for l in 0..32 {
            high |= (addr[l] >> 32) as u32 & 0u32.wrapping_sub(m >> l & 1);
            off[l] = addr[l] as u32;
        }
        let ok = high == 0 && shared_fits(&off, m, env.shared.len(), size);
        return ok.then_some((&mut *env.shared, off));
    }
    let window = |a: u64| -> (Space, u64) {
        match space {
            Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&a) => {
                (Space::Shared, a - SHARED_WINDOW)
            }
            Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&a) => {
                (Space::Local, a - LOCAL_WINDOW)
            }
            Space::GlobalRo => (Space::Generic, a),
            s => (s, a),
        }
    };
    let (sp, _) = window(addr[l0]);
    let mut off = [0u32; 32];
    let align = size as u64 - 1;
    match sp {
        Space::Shared | Space::Local => {
            let len = if sp == Space::Shared {
                env.shared.len() as u64
            } else {
                env.local_size as u64
            };
            for l in Lanes(m) {
                let (s2, a) = window(addr[l]);
                if s2 != sp || a & align != 0 || a + size as u64 > len {
                    return None;
                }
                let t = if sp == Space::Local {
                    (warp as u64 * 32 + l as u64) * len
                } else {
                    0
                };
                off[l] = (t + a) as u32;
            }
            Some((
                if sp == Space::Shared {
                    &mut *env.shared
                } else {
                    &mut *env.local
                },
                off,
            ))
        }
        _ => {
            let (base, data) = env.global.region_mut(addr[l0], size)?;
            if data.len() > u32::MAX as usize {
                return None;
            }
            let end = base + data.len() as u64;
            for l in Lanes(m) {
                let a = addr[l];
                if a < base
                    || a + size as u64 > end
                    || a & align != 0
                    || space == Space::Generic && window(a).0 != Space::Generic
                {
                    return None;
                }
                off[l] = (a - base) as u32;
            }
            Some((data, off))
        }
    }
}

/// Copies `n` bytes (1, 2, 4, 8 or 16) with a fixed-size copy for each.
#[inline(always)]
fn copy_n(dst: &mut [u8], src: &[u8], n: u32) {
    match n {
        4 => dst[..4].copy_from_slice(&src[..4]),
        8 => dst[..8].copy_from_slice(&src[..8]),
        16 => dst[..16].copy_from_slice(&src[..16]),
        2 => dst[..2].copy_from_slice(&src[..2]),
        _ => dst[..1].copy_from_slice(&src[..1]),
    }
}

/// One thread's access of `size` bytes at `addr` in `space`: reads fill
/// `buf`, writes store its first `size` bytes.
#[allow(clippy::too_many_arguments)]
#[inline]
fn mem_access(
    env: &mut Env,
    space: Space,
    warp: u32,
    lane: usize,
    addr: u64,
    buf: &mut [u8; 16],
    size: u32,
    write: bool,
) -> Result<(), ExecError> {
    let (space, addr) = match space {
        Space::Generic if (SHARED_WINDOW..SHARED_WINDOW + WINDOW_SIZE).contains(&addr) => {
            (Space::Shared, addr - SHARED_WINDOW)
        }
        Space::Generic if (LOCAL_WINDOW..LOCAL_WINDOW + WINDOW_SIZE).contains(&addr) => {
            (Space::Local, addr - LOCAL_WINDOW)
        }
        s => (s, addr),
    };
    let name = match space {
        Space::Generic | Space::GlobalRo => "global",
        Space::Shared => "shared",
        Space::Local => "local",
    };
    if addr & (size as u64 - 1) != 0 {
        return Err(ExecError::Misaligned {
            space: name,
            write,
            lane: lane as u32,
            addr,
            size,
        });
    }
    let oob = |detail: String| ExecError::OutOfBounds {
        space: name,
        write,
        lane: lane as u32,
        addr,
        size,
        detail,
    };
    let mem: &mut [u8] = match space {
        Space::Generic | Space::GlobalRo => {
            if write && space == Space::GlobalRo {
                return Err(ExecError::Illegal(
                    "a store through the read-only path".into(),
                ));
            }
            env.global.slice_mut(addr, size).map_err(|f: Fault| {
                oob(f
                    .nearest
                    .unwrap_or_else(|| "no global memory is allocated".into()))
            })?
        }
        Space::Shared => {
            let end = addr + size as u64;
            if end > env.shared.len() as u64 {
                return Err(oob(format!(
                    "the block has {} bytes of shared memory",
                    env.shared.len()
                )));
            }
            &mut env.shared[addr as usize..end as usize]
        }
        Space::Local => {
            let ls = env.local_size as u64;
            let end = addr + size as u64;
            if end > ls {
                return Err(oob(format!("each thread has {ls} bytes of local memory")));
            }
            let t = (warp as u64 * 32 + lane as u64) * ls;
            &mut env.local[(t + addr) as usize..(t + end) as usize]
        }
    };
    if write {
        copy_n(mem, buf, size);
    } else {
        copy_n(buf, mem, size);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_program() -> Program {
        Program {
            name: "t".into(),
            ops: Vec::new(),
            ctrl: Vec::new(),
            words: Vec::new(),
            problems: Vec::new(),
            registers: 16,
            shared_size: 256,
            local_size: 0,
            params: Vec::new(),
            param_size: 0,
            banks: Vec::new(),
            barriers: 1,
            req_ntid: None,
            max_threads: None,
        }
    }

    /// [`exec`] of `op` by warp `w` of a one-warp block with `shared`, no
    /// global or local memory, and constant bank 0 `cbank0`.
    fn exec_alone(
        prog: &Program,
        cbank0: &[u8],
        shared: &mut [u8],
        op: &Op,
        w: &mut Warp,
    ) -> Result<(), ExecError> {
        let mut global = GlobalMem::new();
        let (mut local, mut locks) = (Vec::new(), vec![0u32; 2]);
        let mut env = Env {
            prog,
            cbank0,
            global: &mut global,
            shared,
            local: &mut local,
            local_size: 0,
            block_idx: [0; 3],
            block_dim: [32, 1, 1],
            grid_dim: [1, 1, 1],
            clock: 0,
            sm: 0,
            sms: 1,
            locks: &mut locks,
            pre: None,
        };
        exec(op, w, &mut env)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1024))]
        /// The fast `LDS`/`STS` path does what the general executor does,
        /// whenever it takes an access; and it takes every aligned, in-bounds
        /// one. The shape it finds counts the transactions the addresses do.
        #[test]
        fn the_fast_shared_path_is_the_general_one(
            store in proptest::bool::ANY,
            width in proptest::sample::select(vec![Width::B32, Width::B64, Width::B128, Width::U8]),
            base_reg in 0u8..4,
            imm in proptest::sample::select(vec![0i64, 4, 8, 16, 64, -4, 2, 250, 300]),
            lanes in proptest::array::uniform32(0u32..16),
            scale in proptest::sample::select(vec![0u32, 4, 8, 16, 1]),
            shape in 0u8..4,
            active in proptest::prop_oneof![proptest::strategy::Just(u32::MAX), 0u32..=u32::MAX],
            // Often PT: every lane.
            guard in proptest::prop_oneof![proptest::strategy::Just(7u8), 0u8..8],
            preds in proptest::array::uniform7(0u32..=u32::MAX),
            seed in 0u32..=u32::MAX,
        ) {
            let prog = empty_program();
            let mut w = Warp::new(0, 16, u32::MAX);
            w.active = active;
            w.preds = preds;
            for (i, r) in w.regs.iter_mut().enumerate() {
                *r = (i as u32).wrapping_mul(0x9e37_79b9) ^ seed;
            }
            // Lanes anywhere, or in the shapes the path loads its own way
            // ([`Shape`]): each half-warp along a line, the upper repeating
            // the lower or going on; each half-warp at one address.
            let base: [u32; 32] = std::array::from_fn(|l| match shape {
                0 => lanes[l] * scale,
                1 => lanes[0] * 4 + (l as u32 % 16) * scale,
                2 => lanes[0] * 4 + l as u32 * scale / 2,
                _ => lanes[l / 16] * scale,
            });
            w.set_reg(base_reg, &base, u32::MAX);
            let space = Space::Shared;
            let mut op = Op::filler(if store {
                Kind::St { space, w: width }
            } else {
                Kind::Ld { space, w: width }
            });
            op.guard = (guard, false);
            op.d0 = 8;
            op.src[0].src = Src::Reg(base_reg);
            op.src[1].src = Src::Reg(12);
            op.imm = imm;
            let shared0: Vec<u8> = (0..256u32).map(|i| (i.wrapping_mul(37) ^ seed) as u8).collect();
            let (mut wf, mut sf) = (w.clone(), shared0.clone());
            let mut addr = [0u32; 32];
            let fast = exec_shared(&op, &mut wf, &mut sf, &mut addr);
            let (mut wg, mut sg) = (w.clone(), shared0.clone());
            let general = exec_alone(&prog, &[], &mut sg, &op, &mut wg);
            let m = w.active & guard_mask(&w, &op);
            let size = width.bytes();
            let fits = Lanes(m).all(|l| {
                let a = base[l].wrapping_add(imm as u32) as u64;
                a.is_multiple_of(size as u64) && a + size as u64 <= 256
            });
            if let Some((mask, size, shape)) = fast {
                for bb in [4, 8] {
                    proptest::prop_assert_eq!(
                        crate::timing::lsu::transactions(shape, &addr, mask, size, bb, 256),
                        crate::timing::lsu::shared_transactions(&addr, mask, size, bb, 256)
                    );
                }
                proptest::prop_assert!(general.is_ok());
                proptest::prop_assert_eq!(mask, m);
                proptest::prop_assert_eq!(&wf.regs, &wg.regs);
                proptest::prop_assert_eq!((wf.pc, wf.executed, wf.active), (wg.pc, wg.executed, wg.active));
                proptest::prop_assert_eq!(&sf, &sg);
                for l in Lanes(m) {
                    proptest::prop_assert_eq!(addr[l], base[l].wrapping_add(imm as u32));
                }
            } else {
                // Nothing done, and only when it must leave the access to `exec`.
                proptest::prop_assert_eq!(&wf.regs, &w.regs);
                proptest::prop_assert_eq!(wf.pc, w.pc);
                proptest::prop_assert_eq!(&sf, &shared0);
                proptest::prop_assert!(m == 0 || !fits || width == Width::U8);
            }
        }
    }

    /// A source for the integer path's property test.
    fn int_source() -> impl proptest::strategy::Strategy<Value = Operand> {
        use proptest::prelude::*;
        let src = prop_oneof![
            (0u8..16).prop_map(Src::Reg),
            Just(Src::Reg(255)),
            any::<u32>().prop_map(Src::Imm),
            (
                0u8..3,
                proptest::sample::select(vec![0u32, 4, 8, 6, 60, 64, 1000])
            )
                .prop_map(|(bank, offset)| Src::Const { bank, offset }),
            Just(Src::None),
        ];
        (src, any::<bool>(), any::<bool>()).prop_map(|(src, neg, not)| Operand {
            src,
            neg,
            not,
            ..Operand::NONE
        })
    }

    proptest::proptest! {
        /// The integer path does what the general executor does whenever it
        /// takes an instruction, and takes every one whose sources are
        /// registers, immediates or constants that exist, without `.S`.
        #[test]
        fn the_integer_path_is_the_general_one(
            which in 0usize..7,
            flag in proptest::bool::ANY,
            flag2 in proptest::bool::ANY,
            n in 0u8..40,
            src in proptest::array::uniform3(int_source()),
            d0 in proptest::sample::select(vec![0u8, 3, 9, 15, 255]),
            cc in proptest::bool::ANY,
            sync in proptest::bool::ANY,
            active in proptest::prop_oneof![proptest::strategy::Just(u32::MAX), 0u32..=u32::MAX],
            guard in 0u8..8,
            preds in proptest::array::uniform7(0u32..=u32::MAX),
            seed in 0u32..=u32::MAX,
        ) {
            let kind = match which {
                0 => Kind::Mov,
                1 => Kind::IAdd { x: false, sat: false },
                2 => Kind::IMad { sa: flag, sb: flag2, hi: false, x: false, sat: false, mad: n % 2 == 0 },
                3 => Kind::Shl { wrap: flag },
                4 => Kind::Shr { signed: flag, wrap: flag2 },
                5 => Kind::Lop { op: n % 4 },
                _ => Kind::IScAdd { shift: n % 32 },
            };
            let mut prog = empty_program();
            prog.banks = vec![Vec::new(), (0..64u8).collect()];
            let cbank0: Vec<u8> = (0..64u32).map(|i| (i.wrapping_mul(29) ^ seed) as u8).collect();
            let mut op = Op::filler(kind);
            op.guard = (guard, false);
            op.d0 = d0;
            op.src[..3].copy_from_slice(&src);
            op.cc = cc;
            op.sync = sync;
            let mut w = Warp::new(0, 16, u32::MAX);
            w.active = active;
            w.preds = preds;
            for (i, r) in w.regs.iter_mut().enumerate() {
                *r = (i as u32).wrapping_mul(0x9e37_79b9) ^ seed;
            }
            let mut wf = w.clone();
            let fast = IntOp::of(&op)
                .is_some_and(|f| IntRoutine::host().run(&op, f, &mut wf, &prog, &cbank0));
            let mut wg = w.clone();
            let general = exec_alone(&prog, &cbank0, &mut Vec::new(), &op, &mut wg);
            let exists = |o: &Operand| match o.src {
                Src::Reg(_) | Src::Imm(_) => true,
                Src::Const { bank, offset } => {
                    let len = if bank == 0 { 64 } else { prog.banks.get(bank as usize).map_or(0, Vec::len) };
                    offset % 4 == 0 && offset as usize + 4 <= len
                }
                _ => false,
            };
            if fast {
                proptest::prop_assert!(general.is_ok());
                proptest::prop_assert_eq!(&wf.regs, &wg.regs);
                proptest::prop_assert_eq!((wf.pc, wf.executed, wf.active), (wg.pc, wg.executed, wg.active));
                proptest::prop_assert_eq!((wf.preds, wf.cc_c, wf.cc_z), (wg.preds, wg.cc_c, wg.cc_z));
            } else {
                // Nothing done, and only when it must leave the instruction to `exec`.
                proptest::prop_assert_eq!(&wf.regs, &w.regs);
                proptest::prop_assert_eq!((wf.pc, wf.executed), (w.pc, w.executed));
                let f = IntOp::of(&op);
                let sources = f.map_or(0, |f| f.sources());
                proptest::prop_assert!(
                    f.is_none() || sync || active == 0 || !src[..sources].iter().all(exists)
                );
            }
        }
    }

    /// `LDS R8, [R1+imm]` of `width`.
    fn lds(width: Width, imm: i64) -> Op {
        let mut op = Op::filler(Kind::Ld {
            space: Space::Shared,
            w: width,
        });
        op.d0 = 8;
        op.src[0].src = Src::Reg(1);
        op.imm = imm;
        op
    }

    #[test]
    fn the_fast_shared_path_takes_a_tiled_kernels_lds() {
        // `LDS.64 R8, [R1+0x10]` with lane l at 8 * l: every lane aligned and inside.
        let mut w = Warp::new(0, 16, u32::MAX);
        let base: [u32; 32] = std::array::from_fn(|l| 8 * l as u32);
        w.set_reg(1, &base, u32::MAX);
        let shared: Vec<u8> = (0..512u32).map(|i| i as u8).collect();
        let mut op = lds(Width::B64, 0x10);
        let mut addr = [0u32; 32];
        let mut sh = shared.clone();
        assert_eq!(
            exec_shared(&op, &mut w, &mut sh, &mut addr),
            Some((
                u32::MAX,
                8,
                Shape::Line {
                    a0: 0x10,
                    d: 8,
                    repeat: false
                }
            ))
        );
        assert_eq!(addr[3], 0x28);
        assert_eq!(w.reg(8)[3], u32::from_le_bytes([0x28, 0x29, 0x2a, 0x2b]));
        assert_eq!(w.reg(9)[3], u32::from_le_bytes([0x2c, 0x2d, 0x2e, 0x2f]));
        // Past the end: left to the general executor, which names the fault.
        op.imm = 0x1f0;
        assert_eq!(exec_shared(&op, &mut w, &mut sh, &mut addr), None);
    }

    #[test]
    fn the_fast_shared_path_loads_each_shape_as_the_general_one() {
        // A tiled kernel's `LDS.32 R8, [R1+0x20]`: lanes of each half-warp
        // 16 bytes apart (the upper half repeating the lower), then
        // consecutive words, then each half-warp at one word, then anywhere.
        let cases: [([u32; 32], Shape); 4] = [
            (
                std::array::from_fn(|l| 16 * (l as u32 % 16)),
                Shape::Line {
                    a0: 0x20,
                    d: 16,
                    repeat: true,
                },
            ),
            (
                std::array::from_fn(|l| 4 * l as u32),
                Shape::Line {
                    a0: 0x20,
                    d: 4,
                    repeat: false,
                },
            ),
            (
                std::array::from_fn(|l| if l < 16 { 0x40 } else { 0x84 }),
                Shape::Pair {
                    a0: 0x60,
                    a16: 0xa4,
                },
            ),
            (
                std::array::from_fn(|l| (l as u32 * 7 % 32) * 4),
                Shape::Other,
            ),
        ];
        let prog = empty_program();
        let shared: Vec<u8> = (0..512u32).map(|i| (i * 37) as u8).collect();
        let op = lds(Width::B32, 0x20);
        for (base, shape) in cases {
            let mut w = Warp::new(0, 16, u32::MAX);
            w.set_reg(1, &base, u32::MAX);
            let (mut wf, mut wg) = (w.clone(), w.clone());
            let (mut sf, mut sg) = (shared.clone(), shared.clone());
            let mut addr = [0u32; 32];
            assert_eq!(
                exec_shared(&op, &mut wf, &mut sf, &mut addr),
                Some((u32::MAX, 4, shape))
            );
            exec_alone(&prog, &[], &mut sg, &op, &mut wg).unwrap();
            assert_eq!(wf.reg(8), wg.reg(8), "{shape:?}");
            assert_ne!(wf.reg(8), w.reg(8), "{shape:?}");
        }
    }

    #[test]
    fn bitfield_extract() {
        assert_eq!(bfe(0xf0, 4, 4, false), 0xf);
        assert_eq!(bfe(0xf0, 4, 4, true), 0xffff_ffff);
        assert_eq!(bfe(0x70, 4, 4, true), 7);
        assert_eq!(bfe(0x8000_0000, 31, 8, true), 0xffff_ffff);
        assert_eq!(bfe(0x8000_0000, 31, 8, false), 1);
    }

    #[test]
    fn permute_default_mode() {
        // PRMT R3, RZ, 0x6540, R9: R9's low three bytes shifted up one byte.
        assert_eq!(prmt(0, 0x00ab_cdef, 0x6540, 0), 0xabcd_ef00);
        assert_eq!(prmt(0x0403_0201, 0x0807_0605, 0x3210, 0), 0x0403_0201);
        assert_eq!(prmt(0x80, 0, 0x0008, 0), 0x8080_80ff);
    }

    #[test]
    fn permute_edge_clamp_modes() {
        // PTX ISA prmt table: ECL puts byte max(i, c) in d.b[i], ECR byte min(i, c).
        let (a, b) = (0x4433_2211, 0x8877_6655);
        assert_eq!(prmt(a, b, 1, 4), 0x4433_2222);
        assert_eq!(prmt(a, b, 1, 5), 0x2222_2211);
        assert_eq!(prmt(a, b, 2, 5), 0x3333_2211);
        assert_eq!(prmt(a, b, 3, 5), 0x4433_2211);
        assert_eq!(prmt(a, b, 0, 5), 0x1111_1111);
    }

    #[test]
    fn float_to_int_nan() {
        // PTX ISA cvt: 0 from a single to a 32-bit or narrower integer, else 1 << (bits - 1).
        assert_eq!(f2i(f64::NAN, NumType::S32, false), 0);
        assert_eq!(f2i(f64::NAN, NumType::S64, false), 1 << 63);
        assert_eq!(f2i(f64::NAN, NumType::U64, false), 1 << 63);
        assert_eq!(f2i(f64::NAN, NumType::S32, true), 0x8000_0000);
        assert_eq!(f2i(f64::NAN, NumType::U32, true), 0x8000_0000);
        assert_eq!(f2i(f64::NAN, NumType::S16, true), 0xffff_8000);
    }

    #[test]
    fn signed_64_bit_atomic_min_max() {
        assert_eq!(atom(AtomOp::Min, AtomType::S64, u64::MAX, 5, 0), u64::MAX);
        assert_eq!(atom(AtomOp::Max, AtomType::S64, u64::MAX, 5, 0), 5);
        assert_eq!(atom(AtomOp::Min, AtomType::U64, u64::MAX, 5, 0), 5);
        assert_eq!(atom(AtomOp::Add, AtomType::S64, u64::MAX, 2, 0), 1);
    }

    #[test]
    fn a_zero_dividend_takes_the_slow_division_path() {
        assert!(fchk_divide(-0.0, 1.0));
        assert!(fchk_divide(0.0, 3.0));
        assert!(!fchk_divide(1.0, 3.0));
    }

    #[test]
    fn comparisons_with_nan() {
        assert!(!fcmp32(f32::NAN, 1.0, Cmp::Lt, false));
        assert!(fcmp32(f32::NAN, 1.0, Cmp::Ltu, false));
        assert!(fcmp32(f32::NAN, 1.0, Cmp::Neu, false));
        assert!(!fcmp32(f32::NAN, 1.0, Cmp::Ne, false));
    }
}
