//! The prologue: the thread's pointers and offsets, then the first chunk.

use super::ins::{add64, addr, bank, cb, element_pointer, fix_stalls, hx, param, reg, Ins};
use super::{Load, Plan, BUF};

impl Plan {
    /// The prologue (straight-line; stalls cover ALU latencies): the thread's
    /// pointers and offsets, then the first chunk into shared buffer 0 and
    /// the second on its way.
    pub(super) fn prologue(&self) -> Vec<Ins> {
        let mut pro = self.pointers();
        self.first_chunk(&mut pro);
        fix_stalls(&mut pro);
        pro
    }

    /// The prologue's arithmetic: the thread's global pointers and strides,
    /// its shared offsets, the chunk count and its first row and column of C,
    /// in temporaries the accumulators take later.
    fn pointers(&self) -> Vec<Ins> {
        let sh = self.shape;
        let (tile, b_shift) = (sh.tile, sh.b_shift);
        let r = self.regs;
        let mut pro: Vec<Ins> = Vec::new();
        // Temporaries on chosen banks, so that no prologue instruction reads
        // two registers of one bank: m 1, q 2, i0 and j0 0, the offsets 3, tx
        // and ty 1.
        let mut spare: Vec<u8> = self.accs();
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
        // thread index, 16-byte column m = bits 0-3, plus 16 per 64 threads.
        // A warp's two halves store two rows of 16 neighbouring pieces: 512
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
            // B's piece is that of the thread `b_shift` before: the same k
            // row, `b_shift` / 4 pieces back.
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
        for ins in element_pointer(r.p_a, off_a, param::A) {
            p(ins);
        }
        for ins in element_pointer(r.p_b, off_b, param::B) {
            p(ins);
        }
        p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::LDA)))
            .w(&[tk])
            .alu());
        p(
            Ins::new(format!("SHL {}, {}, 0x4", reg(r.stride_a), reg(tk)))
                .r(&[tk])
                .w(&[r.stride_a])
                .alu()
                .note("4 columns of A, bytes"),
        );
        p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::LDB)))
            .w(&[tk])
            .alu());
        p(
            Ins::new(format!("SHL {}, {}, 0x4", reg(r.stride_b), reg(tk)))
                .r(&[tk])
                .w(&[r.stride_b])
                .alu(),
        );
        p(Ins::new(format!("MOV {}, {}", reg(tk), cb(param::K)))
            .w(&[tk])
            .alu());
        p(Ins::new(format!("SHR.U32 {}, {}, 0x2", reg(r.kc), reg(tk)))
            .r(&[tk])
            .w(&[r.kc])
            .alu()
            .note("chunks of 4"));
        p(Ins::new(format!(
            "IMAD {}, {}, {}, RZ",
            reg(r.w_s),
            reg(q),
            hx(4 * tile)
        ))
        .r(&[q])
        .w(&[r.w_s])
        .alu());
        p(Ins::new(format!(
            "ISCADD {}, {}, {}, 0x4",
            reg(r.w_s),
            reg(m),
            reg(r.w_s)
        ))
        .r(&[m, r.w_s])
        .w(&[r.w_s])
        .alu()
        .note("store offset: q * 16T * 4 + 16 m"));
        p(Ins::new(format!("SHL {}, {}, 0x3", reg(r.s_a), reg(tx)))
            .r(&[tx])
            .w(&[r.s_a])
            .alu());
        p(Ins::new(format!(
            "ISCADD {}, {}, {}, 0x3",
            reg(r.s_b),
            reg(ty),
            hx(16 * tile)
        ))
        .r(&[ty])
        .w(&[r.s_b])
        .alu());
        p(Ins::new(format!(
            "ISCADD {}, {}, {}, 0x1",
            reg(r.ib),
            reg(tx),
            reg(i0)
        ))
        .r(&[tx, i0])
        .w(&[r.ib])
        .alu()
        .note("the thread's first row of C"));
        p(Ins::new(format!(
            "ISCADD {}, {}, {}, 0x1",
            reg(r.jb),
            reg(ty),
            reg(j0)
        ))
        .r(&[ty, j0])
        .w(&[r.jb])
        .alu()
        .note("... and column"));
        pro
    }

    /// The prologue's loads: chunk 0 into shared buffer 0, chunk 1 on its
    /// way, the first step's values into registers, the accumulators zeroed.
    fn first_chunk(&self, pro: &mut Vec<Ins>) {
        let sh = self.shape;
        let r = self.regs;
        let mut p = |ins: Ins| pro.push(ins);
        let pb_load_at = format!("@{} ", sh.pb_load);
        for ins in
            sh.loads(r.p_a, r.d_a, "@P2 ")
                .into_iter()
                .chain(sh.loads(r.p_b, r.d_b, &pb_load_at))
        {
            p(ins);
        }
        for (pp, stride) in [(r.p_a, r.stride_a), (r.p_b, r.stride_b)] {
            for ins in add64(pp, pp, &reg(stride), &[stride]) {
                p(ins);
            }
        }
        if sh.v.load == Load::Ldg128 {
            p(Ins::new("TEXDEPBAR 0x0"));
        }
        for (pred, off, d) in [("P2", 0, r.d_a), (sh.pb_load, sh.sts_b(), r.d_b)] {
            p(self.sts128(pred, off, d));
        }
        p(Ins::new(format!(
            "LOP32I.XOR {}, {}, {}",
            reg(r.w_s),
            reg(r.w_s),
            hx(BUF)
        ))
        .r(&[r.w_s])
        .w(&[r.w_s])
        .alu());
        p(
            Ins::new(format!("ISETP.GT.U32.AND P1, PT, {}, 0x1, P2", reg(r.kc)))
                .r(&[r.kc])
                .alu(),
        );
        if sh.b_shift > 0 {
            p(
                Ins::new(format!("ISETP.GT.U32.AND P5, PT, {}, 0x1, P4", reg(r.kc)))
                    .r(&[r.kc])
                    .alu(),
            );
        }
        let pb_next_at = format!("@{} ", sh.pb_next);
        for ins in
            sh.loads(r.p_a, r.d_a, "@P1 ")
                .into_iter()
                .chain(sh.loads(r.p_b, r.d_b, &pb_next_at))
        {
            p(ins);
        }
        p(Ins::new("BAR.SYNC 0x0"));
        for j in 0..sh.half {
            let (a, b) = (sh.a_reg(0, 2 * j), sh.b_reg(0, 2 * j));
            p(Ins::new(format!(
                "LDS.64 {}, {}",
                reg(a),
                addr(r.s_a, 128 * j as i64)
            ))
            .r(&[r.s_a])
            .w(&[a, a + 1]));
            p(Ins::new(format!(
                "LDS.64 {}, {}",
                reg(b),
                addr(r.s_b, 128 * j as i64)
            ))
            .r(&[r.s_b])
            .w(&[b, b + 1]));
        }
        for c in self.accs() {
            p(Ins::new(format!("MOV {}, RZ", reg(c))).w(&[c]).alu());
        }
    }
}
