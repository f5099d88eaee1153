//! Shared memory: the fast `LDS`/`STS` path of the kernels' inner loops
//! ([`exec_shared`]), and the lock instructions `LDSLK`/`STSCUL`.

use super::memory::mem_access;
use super::operand::*;
use super::{guard_mask, next_slot, ExecError, Insn};
use crate::op::*;
use crate::timing::lsu::Shape;
use crate::warp::{Lanes, Warp};

/// `LDS`/`STS` of 32, 64 or 128 bits at a register plus an offset, run when
/// every active lane's access is aligned and inside `shared` (the kernels'
/// inner loops): as [`exec`](super::exec) runs it, with the lane addresses, in 32 bits, left
/// in `addr` for the timing model. `None` (nothing done) for any other
/// instruction, no active lane, or an access [`exec`](super::exec) must fault or take lane
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
pub(super) fn shared_fits(off: &[u32; 32], m: u32, len: usize, size: u32) -> bool {
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

/// `LDSLK`: a shared load that also takes the word's lock, the predicate
/// saying which lanes got it.
#[inline(always)]
pub(super) fn ldslk(i: Insn, wide: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `STSCUL`: a shared store that releases the lock its lane holds.
#[inline(always)]
pub(super) fn stscul(i: Insn, wide: bool) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}
