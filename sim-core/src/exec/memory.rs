//! Loads, stores and atomics: `LD`/`ST` in every space (generic addresses
//! through the shared and local windows), `LDC`, `ATOM`; the lane addresses
//! and the checks that name a fault.

use super::operand::*;
use super::shared::shared_fits;
use super::{Env, ExecError, Insn};
use crate::fp;
use crate::mem::{Fault, LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};
use crate::op::*;
use crate::warp::{Lanes, Warp};

/// `LD`/`LDS`/`LDL`/`LDG`: the lanes at once when every access falls in one
/// memory ([`region`]), else lane by lane ([`mem_access`]). A global load
/// under [`Env::defer_global`] only works out its addresses: [`load_rows`]
/// reads it later.
#[inline(always)]
pub(super) fn ld(i: Insn, space: Space, width: Width) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let mut own = [0u64; 32];
    let addr = ld_st_addresses(env.pre, &mut own, w, op, space, env)?;
    if env.defer_global {
        return Ok(());
    }
    let rows = load_rows(env, space, w.id, addr, m, width)?;
    for (k, row) in rows.iter().enumerate().take(width.regs() as usize) {
        if op.d0 != 255 {
            w.set_reg(op.d0 + k as u8, row, m);
        }
    }
    Ok(())
}

/// What a load of `width` in `space` by the lanes `m` of warp `warp` at
/// `addr` reads: a row of each destination register (lanes outside `m`
/// zero), or the fault of the first lane that cannot read.
#[inline(always)]
pub(crate) fn load_rows(
    env: &mut Env,
    space: Space,
    warp: u32,
    addr: &[u64; 32],
    m: u32,
    width: Width,
) -> Result<[[u32; 32]; 4], ExecError> {
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
    if let Some((mem, off)) = region(env, space, warp, addr, m, size) {
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
            mem_access(env, space, warp, l, addr[l], &mut buf, size, false)?;
            put(l, &buf);
        }
    }
    Ok(rows)
}

/// `ST`/`STS`/`STL`, as [`ld`] does; a global store under
/// [`Env::defer_global`] only works out its addresses ([`store_rows`]
/// writes it later).
#[inline(always)]
pub(super) fn st(i: Insn, space: Space, width: Width) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let mut own = [0u64; 32];
    let addr = ld_st_addresses(env.pre, &mut own, w, op, space, env)?;
    if env.defer_global {
        return Ok(());
    }
    let rows = stored_rows(op, w, width);
    store_rows(env, space, w.id, addr, m, width, &rows)
}

/// The rows of the registers a store of `width` by warp `w` writes.
#[inline(always)]
pub(crate) fn stored_rows(op: &Op, w: &Warp, width: Width) -> [[u32; 32]; 4] {
    let mut rows = [[0u32; 32]; 4];
    if let Src::Reg(r) = op.src[1].src {
        for (k, row) in rows.iter_mut().enumerate().take(width.regs() as usize) {
            if r != 255 {
                *row = w.reg(r + k as u8);
            }
        }
    }
    rows
}

/// Writes `rows` (a row of each source register) as a store of `width` in
/// `space` by the lanes `m` of warp `warp` at `addr`, or the fault of the
/// first lane that cannot.
#[inline(always)]
pub(crate) fn store_rows(
    env: &mut Env,
    space: Space,
    warp: u32,
    addr: &[u64; 32],
    m: u32,
    width: Width,
    rows: &[[u32; 32]; 4],
) -> Result<(), ExecError> {
    let n = width.regs() as usize;
    let size = width.bytes();
    let bytes = |l: usize| {
        let mut buf = [0u8; 16];
        for k in 0..n {
            buf[4 * k..4 * k + 4].copy_from_slice(&rows[k][l].to_le_bytes());
        }
        buf
    };
    if let Some((mem, off)) = region(env, space, warp, addr, m, size) {
        for l in Lanes(m) {
            copy_n(&mut mem[off[l] as usize..], &bytes(l), size);
        }
    } else {
        for l in Lanes(m) {
            let mut buf = bytes(l);
            mem_access(env, space, warp, l, addr[l], &mut buf, size, true)?;
        }
    }
    Ok(())
}

/// `LDC`: a constant-bank load at a register plus an offset, by lane.
#[inline(always)]
pub(super) fn ldc(i: Insn, width: Width) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
    Ok(())
}

/// `ATOM`/`RED`: lane by lane, in lane order, the old value returned with `ret`.
#[inline(always)]
pub(super) fn atom(
    i: Insn,
    space: Space,
    aop: AtomOp,
    ty: AtomType,
    ret: bool,
) -> Result<(), ExecError> {
    let Insn { op, w, env, m, .. } = i;
    let s = &op.src;
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
        let new = atomic_update(aop, ty, old, bv, cv);
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
    Ok(())
}

/// The value an atomic leaves in memory, from the `old` one and sources
/// `b`, `c` (`CAS` leaves `c` where `old` is `b`); a 32-bit type uses the
/// low words.
fn atomic_update(op: AtomOp, ty: AtomType, old: u64, b: u64, c: u64) -> u64 {
    let o32 = old as u32;
    let b32 = b as u32;
    match (op, ty) {
        (AtomOp::Min, AtomType::S64) => (old as i64).min(b as i64) as u64,
        (AtomOp::Max, AtomType::S64) => (old as i64).max(b as i64) as u64,
        (_, AtomType::S64) => atomic_update(op, AtomType::U64, old, b, c),
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
pub(super) fn ld_st_addresses<'x>(
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
pub(super) fn region<'e>(
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
pub(super) fn mem_access(
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

    #[test]
    fn signed_64_bit_atomic_min_max() {
        assert_eq!(
            atomic_update(AtomOp::Min, AtomType::S64, u64::MAX, 5, 0),
            u64::MAX
        );
        assert_eq!(atomic_update(AtomOp::Max, AtomType::S64, u64::MAX, 5, 0), 5);
        assert_eq!(atomic_update(AtomOp::Min, AtomType::U64, u64::MAX, 5, 0), 5);
        assert_eq!(atomic_update(AtomOp::Add, AtomType::S64, u64::MAX, 2, 0), 1);
    }
}
