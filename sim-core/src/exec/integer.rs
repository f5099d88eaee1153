//! Integer arithmetic: `MOV`, `IADD`, `ISCADD`, `IMAD` (and its 64-bit
//! address-arithmetic forms), `IMADSP`, `ISAD`, `IMNMX`, the comparisons
//! (`ISETP`, `ISET`, `ICMP`) and `SEL`; and the timing model's own path for the
//! commonest of them ([`IntRoutine`]).

use super::operand::*;
use super::{guard_mask, next_slot, wide_lanes, ExecError, Insn, R};
use crate::op::*;
use crate::program::Program;
use crate::warp::Warp;

/// The integer instructions of the kernels' address arithmetic, without a
/// condition code: [`exec_general`](super::exec_general) and the timing model's own path for them
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
    pub(super) fn sources(self) -> usize {
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
pub(super) fn int_lanes(f: IntOp, s: &[Operand; 4], a: &R, b: &R, c: &R) -> R {
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
/// picks out: the routine for this host (and [`use_wide_lanes`](super::use_wide_lanes)' setting),
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

    /// Runs `op`, whose form is `f` ([`IntOp::of`]), as [`exec`](super::exec) does, when
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
pub(super) unsafe fn exec_int_any(
    op: &Op,
    f: IntOp,
    w: &mut Warp,
    prog: &Program,
    cbank0: &[u8],
) -> bool {
    exec_int_body(op, f, w, prog, cbank0)
}

/// [`IntRoutine`]'s body built for AVX2 (eight lanes an instruction), as
/// [`exec_general`](super::exec_general) is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn exec_int_avx2(
    op: &Op,
    f: IntOp,
    w: &mut Warp,
    prog: &Program,
    cbank0: &[u8],
) -> bool {
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

/// An integer comparison, signed or not.
fn cmp_int(a: u32, b: u32, cmp: Cmp, signed: bool) -> bool {
    let ord = if signed {
        (a as i32).cmp(&(b as i32))
    } else {
        a.cmp(&b)
    };
    cmp_ord(Some(ord), cmp)
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

/// `MOV`: source 0, as it reads.
#[inline(always)]
pub(super) fn mov(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let d = int_lanes(IntOp::Mov, s, &a, &a, &a);
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// The plain `IADD`: no carry in or out, no saturation.
#[inline(always)]
pub(super) fn iadd_plain(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let d = int_lanes(IntOp::Add, s, &a, &b, &b);
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// `IADD` with a carry in (`.X`), saturation or the condition code: a
/// negated source enters as its complement plus one, the ones coming in as
/// the carry.
#[inline(always)]
pub(super) fn iadd(i: Insn, x: bool, sat: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `ISCADD`: source 0 shifted left by `shift`, plus source 1.
#[inline(always)]
pub(super) fn iscadd(i: Insn, shift: u8) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// The low word of an `IMAD`/`IMUL` with no flags, carry, saturation or
/// negation: the kernels' index arithmetic.
#[inline(always)]
pub(super) fn imad_low(i: Insn, mad: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let c = if mad { read(w, &s[2], env)? } else { [0; 32] };
    let d = int_lanes(IntOp::Mad { mad }, s, &a, &b, &c);
    w.set_reg(op.d0, &d, m);
    Ok(())
}

/// Every other `IMAD`/`IMUL` ([`ImadForm`]).
#[inline(always)]
pub(super) fn imad(
    i: Insn,
    sa: bool,
    sb: bool,
    hi: bool,
    x: bool,
    sat: bool,
    mad: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `IMADSP`: a multiply-add of the sub-words `ta`, `tb`, `tc` pick.
#[inline(always)]
pub(super) fn imadsp(i: Insn, ta: SubWord, tb: SubWord, tc: SubWord) -> Result<(), ExecError> {
    lanes(i, |[a, b, c]| {
        (ta.take(a) * tb.take(b)).wrapping_add(tc.take(c)) as u32
    })
}

/// `ISAD`: the absolute difference of sources 0 and 1, plus source 2.
#[inline(always)]
pub(super) fn isad(i: Insn, signed: bool) -> Result<(), ExecError> {
    lanes(i, |[a, b, c]| {
        let diff = if signed {
            (a as i32 as i64 - b as i32 as i64).unsigned_abs() as u32
        } else {
            a.abs_diff(b)
        };
        diff.wrapping_add(c)
    })
}

/// `IMNMX`: the minimum where predicate source 2 holds, else the maximum;
/// `.XLO`/`.XHI` make the halves of a 64-bit one, the low word following the
/// high word's choice.
#[inline(always)]
pub(super) fn imnmx(i: Insn, signed: bool, xlo: bool, xhi: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `ISETP`: the comparison, combined with predicate source 2, to two predicates.
#[inline(always)]
pub(super) fn isetp(i: Insn, cmp: Cmp, signed: bool, x: bool, bo: BoolOp) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `ISET`: the comparison, combined with predicate source 2, to a register.
#[inline(always)]
pub(super) fn iset(
    i: Insn,
    cmp: Cmp,
    signed: bool,
    x: bool,
    bo: BoolOp,
    bf: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
    let a = read(w, &s[0], env)?;
    let b = read(w, &s[1], env)?;
    let t = lane_mask(|l| icompare(a[l], int_in(b[l], &s[1]), cmp, signed, x, w, l));
    write_set(w, op, m, bopm(t, pmask(w, &s[2]), bo), bf);
    Ok(())
}

/// `ICMP`: source 0 where source 2 compares with zero as `cmp` says, else source 1.
#[inline(always)]
pub(super) fn icmp(i: Insn, cmp: Cmp, signed: bool) -> Result<(), ExecError> {
    lanes(
        i,
        |[a, b, c]| if cmp_int(c, 0, cmp, signed) { a } else { b },
    )
}

/// `SEL`: source 0 where predicate source 2 holds, else source 1.
#[inline(always)]
pub(super) fn sel(i: Insn) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}
