//! The prologue: the thread's pointers and offsets, then the first chunk.

use super::ins::{add64, addr, arith, bank, cb, element_pointer, fix_stalls, hx, param, reg, Ins};
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
        p(arith(
            format!("LOP.AND {}, {}, 0xf", reg(tx), reg(tid)),
            &[tid],
            &[tx],
        ));
        p(arith(
            format!("SHR.U32 {}, {}, 0x4", reg(ty), reg(tid)),
            &[tid],
            &[ty],
        ));
        // The loading threads' piece of the chunk: k row q = bits 4-5 of the
        // thread index, 16-byte column m = bits 0-3, plus 16 per 64 threads.
        // A warp's two halves store two rows of 16 neighbouring pieces: 512
        // bytes, two shared transactions, no bank read twice.
        p(arith(
            format!("SHR.U32 {}, {}, 0x4", reg(q), reg(tid)),
            &[tid],
            &[q],
        ));
        p(arith(
            format!("LOP.AND {}, {}, 0x3", reg(q), reg(q)),
            &[q],
            &[q],
        ));
        p(arith(
            format!("LOP.AND {}, {}, 0xf", reg(m), reg(tid)),
            &[tid],
            &[m],
        ));
        p(arith(
            format!("SHR.U32 {}, {}, 0x6", reg(tk), reg(tid)),
            &[tid],
            &[tk],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x4", reg(m), reg(tk), reg(m)),
            &[tk, m],
            &[m],
        ));
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
        p(arith(
            format!("IMAD {}, {}, {}, RZ", reg(i0), reg(by), hx(tile)),
            &[by],
            &[i0],
        ));
        p(arith(
            format!("IMAD {}, {}, {}, RZ", reg(j0), reg(bz), hx(tile)),
            &[bz],
            &[j0],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x2", reg(off_a), reg(m), reg(i0)),
            &[m, i0],
            &[off_a],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x2", reg(off_b), reg(m), reg(j0)),
            &[m, j0],
            &[off_b],
        ));
        if b_shift > 0 {
            // B's piece is that of the thread `b_shift` before: the same k
            // row, `b_shift` / 4 pieces back.
            p(arith(
                format!("IADD {}, {}, {}", reg(off_b), reg(off_b), hx(-b_shift)),
                &[off_b],
                &[off_b],
            ));
        }
        p(arith(
            format!(
                "IMAD {}, {}, {}, {}",
                reg(off_a),
                reg(q),
                cb(param::LDA),
                reg(off_a)
            ),
            &[q, off_a],
            &[off_a],
        )
        .note("A element (i0 + 4m, q)"));
        p(arith(
            format!(
                "IMAD {}, {}, {}, {}",
                reg(off_b),
                reg(q),
                cb(param::LDB),
                reg(off_b)
            ),
            &[q, off_b],
            &[off_b],
        ));
        for ins in element_pointer(r.p_a, off_a, param::A) {
            p(ins);
        }
        for ins in element_pointer(r.p_b, off_b, param::B) {
            p(ins);
        }
        p(arith(
            format!("MOV {}, {}", reg(tk), cb(param::LDA)),
            &[],
            &[tk],
        ));
        p(arith(
            format!("SHL {}, {}, 0x4", reg(r.stride_a), reg(tk)),
            &[tk],
            &[r.stride_a],
        )
        .note("4 columns of A, bytes"));
        p(arith(
            format!("MOV {}, {}", reg(tk), cb(param::LDB)),
            &[],
            &[tk],
        ));
        p(arith(
            format!("SHL {}, {}, 0x4", reg(r.stride_b), reg(tk)),
            &[tk],
            &[r.stride_b],
        ));
        p(arith(
            format!("MOV {}, {}", reg(tk), cb(param::K)),
            &[],
            &[tk],
        ));
        p(arith(
            format!("SHR.U32 {}, {}, 0x2", reg(r.kc), reg(tk)),
            &[tk],
            &[r.kc],
        )
        .note("chunks of 4"));
        p(arith(
            format!("IMAD {}, {}, {}, RZ", reg(r.w_s), reg(q), hx(4 * tile)),
            &[q],
            &[r.w_s],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x4", reg(r.w_s), reg(m), reg(r.w_s)),
            &[m, r.w_s],
            &[r.w_s],
        )
        .note("store offset: q * 16T * 4 + 16 m"));
        p(arith(
            format!("SHL {}, {}, 0x3", reg(r.s_a), reg(tx)),
            &[tx],
            &[r.s_a],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x3", reg(r.s_b), reg(ty), hx(16 * tile)),
            &[ty],
            &[r.s_b],
        ));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x1", reg(r.ib), reg(tx), reg(i0)),
            &[tx, i0],
            &[r.ib],
        )
        .note("the thread's first row of C"));
        p(arith(
            format!("ISCADD {}, {}, {}, 0x1", reg(r.jb), reg(ty), reg(j0)),
            &[ty, j0],
            &[r.jb],
        )
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
        p(arith(
            format!("LOP32I.XOR {}, {}, {}", reg(r.w_s), reg(r.w_s), hx(BUF)),
            &[r.w_s],
            &[r.w_s],
        ));
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
            p(arith(format!("MOV {}, RZ", reg(c)), &[], &[c]));
        }
    }
}
