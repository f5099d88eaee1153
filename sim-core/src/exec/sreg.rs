//! `S2R`: reading the special registers (thread and block indices and
//! sizes, lane masks, the clock, the SM).

use super::Insn;
use crate::op::*;

/// `S2R`: a special register, by lane.
#[inline(always)]
pub(super) fn s2r(i: Insn, sr: SReg) {
    let Insn { op, w, env, m, .. } = i;
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
