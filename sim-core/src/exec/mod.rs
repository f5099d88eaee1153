//! Executing one warp-instruction: what each [`Kind`] does to a warp's state and
//! to memory.
//!
//! Each instruction reads its sources for all 32 lanes at once (a register row,
//! or an immediate or constant splatted), computes lane by lane over the lanes
//! whose guard holds, and writes back under that mask. Nothing here allocates.
//!
//! One `match` ([`dispatch`]) sends each instruction to its family's module,
//! where a small function runs it: integer arithmetic, bit manipulation,
//! single and double precision, the special function unit, conversions,
//! predicates, special registers, warp-level instructions, memory (shared
//! memory apart), control flow and barriers. `operand` reads sources and
//! writes results for all of them.

mod barrier;
mod bits;
mod control;
mod convert;
mod double;
mod float;
mod integer;
mod memory;
mod operand;
mod predicate;
mod sfu;
mod shared;
mod sreg;
mod warp_level;

#[cfg(test)]
mod tests;

pub(crate) use float::{exec_ffma, ffma3, is_ffma3};
pub use integer::{IntOp, IntRoutine};
pub(crate) use memory::{addresses, load_rows, store_rows, stored_rows};
pub(crate) use shared::exec_shared;

use crate::mem::GlobalMem;
use crate::op::*;
use crate::program::Program;
use crate::warp::{Token, Warp};
use operand::const_word;

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
    /// A read-only global load (`LDG`), or a store whose lanes all address
    /// global memory, only works out its addresses and steps on: its data
    /// are read or written later, in turn with the other SMs' accesses
    /// ([`load_rows`], [`store_rows`]), by the timing model that runs SMs on
    /// several threads.
    pub defer_global: bool,
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

/// The next instruction slot after `pc`, skipping control words (`u32::MAX`
/// past the last slot a `u32` holds: a pc read from a damaged trace).
#[inline]
pub fn next_slot(pc: u32) -> u32 {
    if pc.saturating_add(1).is_multiple_of(8) {
        pc.saturating_add(2)
    } else {
        pc.saturating_add(1)
    }
}

type R = [u32; 32];

/// The instruction being run and what it runs on: what [`dispatch`] hands
/// each family's function.
struct Insn<'x, 'e> {
    op: &'x Op,
    w: &'x mut Warp,
    env: &'x mut Env<'e>,
    /// The lanes that run it: active, and passing its guard.
    m: u32,
    /// Its slot, and the next one (where `w.pc` already points).
    pc: u32,
    next: u32,
}

/// The lanes `op`'s guard predicate (with its `!`) lets run.
#[inline(always)]
pub(crate) fn guard_mask(w: &Warp, op: &Op) -> u32 {
    w.pred(op.guard.0) ^ if op.guard.1 { u32::MAX } else { 0 }
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

/// [`exec_general`]'s AVX2 build: every family's function is inlined into
/// it (`#[inline(always)]`), so their lane loops are built for AVX2 too.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn exec_general_avx2(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    exec_general_body(op, w, env)
}

/// The body of [`exec_general`]: the instruction's lanes, the step to the
/// next slot, the instruction's own work, then the `.S` and reconvergence
/// every instruction shares.
#[inline(always)]
fn exec_general_body(op: &Op, w: &mut Warp, env: &mut Env) -> Result<(), ExecError> {
    let m = w.active & guard_mask(w, op);
    let pc = w.pc;
    let next = next_slot(pc);
    w.pc = next;
    w.executed += 1;
    let i = Insn {
        op,
        w: &mut *w,
        env,
        m,
        pc,
        next,
    };
    dispatch(i)?;
    settle(op, w, m)
}

/// Runs the instruction `i` holds: the one `match` over every [`Kind`], each
/// to the function of its family that does it.
#[inline(always)]
fn dispatch(i: Insn) -> Result<(), ExecError> {
    let op = i.op;
    let s = &op.src;
    match op.kind {
        Kind::Control => return Err(ExecError::Illegal("a control word was executed".into())),
        Kind::Unsupported => {
            let why = i
                .env
                .prog
                .problem(i.pc)
                .unwrap_or("unsupported instruction");
            return Err(ExecError::Illegal(why.to_string()));
        }
        Kind::Nop | Kind::Fence => {}
        Kind::Mov => integer::mov(i)?,
        Kind::IAdd { x, sat } if !x && !sat && !op.cc => integer::iadd_plain(i)?,
        Kind::IAdd { x, sat } => integer::iadd(i, x, sat)?,
        Kind::IScAdd { shift } => integer::iscadd(i, shift)?,
        Kind::IMad {
            hi: false,
            x: false,
            sat: false,
            mad,
            ..
        } if !op.cc && !s[0].neg && !s[1].neg && !s[2].neg => integer::imad_low(i, mad)?,
        Kind::IMad {
            sa,
            sb,
            hi,
            x,
            sat,
            mad,
        } => integer::imad(i, sa, sb, hi, x, sat, mad)?,
        Kind::IMadSp { ta, tb, tc } => integer::imadsp(i, ta, tb, tc)?,
        Kind::ISad { signed } => integer::isad(i, signed)?,
        Kind::IMnMx { signed, xlo, xhi } => integer::imnmx(i, signed, xlo, xhi)?,
        Kind::ISetP {
            cmp,
            signed,
            x,
            bop: bo,
        } => integer::isetp(i, cmp, signed, x, bo)?,
        Kind::ISet {
            cmp,
            signed,
            x,
            bop: bo,
            bf,
        } => integer::iset(i, cmp, signed, x, bo, bf)?,
        Kind::ICmp { cmp, signed } => integer::icmp(i, cmp, signed)?,
        Kind::Lop { op: lop } => bits::lop(i, lop)?,
        Kind::Shl { wrap } => bits::shl(i, wrap)?,
        Kind::Shr { signed, wrap } => bits::shr(i, signed, wrap)?,
        Kind::Shf {
            right,
            wrap,
            hi,
            wide,
            signed,
        } => bits::shf(i, right, wrap, hi, wide, signed)?,
        Kind::Bfe { signed, brev } => bits::bfe(i, signed, brev)?,
        Kind::Bfi => bits::bfi(i)?,
        Kind::Popc => bits::popc(i)?,
        Kind::Flo { signed, sh } => bits::flo(i, signed, sh)?,
        Kind::Prmt { mode } => bits::prmt(i, mode)?,
        Kind::Sel => integer::sel(i)?,
        Kind::FAdd { ftz, sat, rnd } => float::fadd(i, ftz, sat, rnd)?,
        Kind::FMul { ftz, sat, rnd } => float::fmul(i, ftz, sat, rnd)?,
        Kind::FFma { ftz, sat, rnd } => float::ffma(i, ftz, sat, rnd)?,
        Kind::FMnMx { ftz } => float::fmnmx(i, ftz)?,
        Kind::FSetP { cmp, ftz, bop: bo } => float::fsetp(i, cmp, ftz, bo)?,
        Kind::FSet {
            cmp,
            ftz,
            bop: bo,
            bf,
        } => float::fset(i, cmp, ftz, bo, bf)?,
        Kind::FCmp { cmp, ftz } => float::fcmp(i, cmp, ftz)?,
        Kind::Mufu { f } => sfu::mufu(i, f)?,
        Kind::Rro { .. } => sfu::rro(i)?,
        Kind::DAdd { rnd } => double::dadd(i, rnd)?,
        Kind::DMul { rnd } => double::dmul(i, rnd)?,
        Kind::DFma { rnd } => double::dfma(i, rnd)?,
        Kind::DMnMx => double::dmnmx(i)?,
        Kind::DSetP { cmp, bop: bo } => double::dsetp(i, cmp, bo)?,
        Kind::DSet { cmp, bop: bo, bf } => double::dset(i, cmp, bo, bf)?,
        Kind::F2F {
            dt,
            st,
            rnd,
            irnd,
            ftz,
            sat,
        } => convert::f2f(i, dt, st, rnd, irnd, ftz, sat)?,
        Kind::F2I { dt, st, irnd, ftz } => convert::f2i(i, dt, st, irnd, ftz)?,
        Kind::I2F { dt, st, rnd } => convert::i2f(i, dt, st, rnd)?,
        Kind::I2I { dt, st, sat } => convert::i2i(i, dt, st, sat)?,
        Kind::PSetP { bop1, bop2 } => predicate::psetp(i, bop1, bop2),
        Kind::P2R => predicate::p2r(i)?,
        Kind::R2P => predicate::r2p(i)?,
        Kind::CSetP { test, bop: bo } => predicate::csetp(i, test, bo),
        Kind::FChk => float::fchk(i)?,
        Kind::LdsLk { wide } => shared::ldslk(i, wide)?,
        Kind::StsCul { wide } => shared::stscul(i, wide)?,
        Kind::S2R { sr } => sreg::s2r(i, sr),
        Kind::Shfl { mode } => warp_level::shfl(i, mode)?,
        Kind::Vote { mode } => warp_level::vote(i, mode),
        Kind::Ld { space, w: width } => memory::ld(i, space, width)?,
        Kind::St { space, w: width } => memory::st(i, space, width)?,
        Kind::Ldc { w: width } => memory::ldc(i, width)?,
        Kind::Atom {
            space,
            op: aop,
            ty,
            ret,
        } => memory::atom(i, space, aop, ty, ret)?,
        Kind::Bra { cc } => control::bra(i, cc)?,
        Kind::Brx => control::brx(i)?,
        Kind::Ssy | Kind::Pbk | Kind::Pcnt | Kind::Pret => control::push(i)?,
        Kind::Cal => control::cal(i)?,
        Kind::Brk | Kind::Cont | Kind::Ret => control::leave(i)?,
        Kind::Exit => control::exit(i),
        Kind::BarRed { red } => barrier::bar_red(i, red)?,
        Kind::B2R => barrier::b2r(i),
        Kind::Bar { arrive_only } => barrier::bar(i, arrive_only)?,
    }
    Ok(())
}

/// After an instruction's own work: `.S` lanes wait at the innermost `SSY`
/// entry, and a warp with no lane left running resumes from its stack.
#[inline(always)]
fn settle(op: &Op, w: &mut Warp, m: u32) -> Result<(), ExecError> {
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
