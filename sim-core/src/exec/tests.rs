//! The fast paths the timing model takes ([`exec_shared`], [`IntRoutine`])
//! held to the general executor, [`exec`].

use super::*;
use crate::timing::lsu::Shape;
use crate::warp::Lanes;

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
        defer_global: false,
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
