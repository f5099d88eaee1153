//! The loop: its other instructions due among the FFMAs, their packing into
//! 7-instruction groups, the dual-issued pairs and the control codes.

use super::banks::{solve, write_accumulators};
use super::ins::{add64, addr, arith, hx, reg, Ins};
use super::{published, Load, Plan, BUF};

impl Plan {
    /// The loop's instructions other than its FFMAs, each with the FFMA
    /// position of the iteration's 4 T^2 it is due after, in order. The plan
    /// of a 12x12 iteration:
    /// - every step: an LDS.64 of the next step's values in every other group
    ///   (even groups; odd ones in step 3, after the BAR), in the order the
    ///   next step first uses them, so the shared pipe is busy evenly;
    /// - step 0: count the chunk (group 1), set the predicates (5, 7, 9);
    /// - step 1: move the global pointers on by a chunk (1, 3, 5, 7);
    /// - step 2: TEXDEPBAR (9), the next chunk's STS.64 (11, 15, 17, 19), the
    ///   store buffer switched (21), the read pointers switched after their
    ///   last LDS of the step (B at 13, A at 23);
    /// - step 3: BAR.SYNC (0), the global loads of the chunk after next (even
    ///   groups from 2), the branch (23).
    fn loop_others(&self) -> Vec<(usize, Ins)> {
        let sh = self.shape;
        let r = self.regs;
        let tile = sh.tile;
        let first_use = &self.first_use;
        let nlds = first_use.len();
        let mut xs: Vec<(usize, Ins)> = Vec::new();
        // LDS of step s+1's values, in the order the next step first uses
        // them.
        for s in 0..4 {
            let next = (s + 1) % 2;
            for (i, &(is_a, j)) in first_use.iter().enumerate() {
                let q = (s + 1) % 4;
                let off = q as i64 * 4 * tile + j as i64 * 128;
                let (base, dst) = if is_a {
                    (r.s_a, sh.a_reg(next, 2 * j))
                } else {
                    (r.s_b, sh.b_reg(next, 2 * j))
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
                xs.push((sh.due(s, g), ins));
            }
        }
        // Step 0: count the chunk and set the predicates.
        xs.push((
            sh.due(0, 1),
            arith(
                format!("IADD {}, {}, -0x1", reg(r.kc), reg(r.kc)),
                &[r.kc],
                &[r.kc],
            )
            .pairs()
            .note("chunks after this one"),
        ));
        let mut predicates = vec![
            (
                format!("ISETP.NE.AND P0, PT, {}, RZ, PT", reg(r.kc)),
                "P0: another chunk",
            ),
            (
                format!("ISETP.GT.U32.AND P3, PT, {}, RZ, P2", reg(r.kc)),
                "P3: this thread stores the next chunk",
            ),
            (
                format!("ISETP.GT.U32.AND P1, PT, {}, 0x1, P2", reg(r.kc)),
                "P1: this thread loads the chunk after next",
            ),
        ];
        if sh.b_shift > 0 {
            predicates.extend([
                (
                    format!("ISETP.GT.U32.AND P6, PT, {}, RZ, P4", reg(r.kc)),
                    "P6: this thread stores B of the next chunk",
                ),
                (
                    format!("ISETP.GT.U32.AND P5, PT, {}, 0x1, P4", reg(r.kc)),
                    "P5: this thread loads B of the chunk after next",
                ),
            ]);
        }
        // The predicates read the counter at least 24 FFMAs after the IADD
        // writes it, then one every 12: 12 cycles even at two FFMAs a cycle,
        // past an integer result's latency, so the interlock never holds them
        // (on the 12x12 block, groups 5, 7, 9... of step 0).
        for (k, (text, note)) in predicates.into_iter().enumerate() {
            xs.push((
                sh.due(0, 1) + 24 + 12 * k,
                Ins::new(text).r(&[r.kc]).alu().pairs().note(note),
            ));
        }
        // Step 1: move the global pointers on by a chunk.
        for (i, (p, stride)) in [(r.p_a, r.stride_a), (r.p_b, r.stride_b)]
            .into_iter()
            .enumerate()
        {
            let [lo, hi] = add64(p, p, &reg(stride), &[stride]);
            xs.push((sh.due(1, 1 + 4 * i), lo.pairs()));
            xs.push((sh.due(1, 3 + 4 * i), hi.pairs()));
        }
        // Step 2: store the next chunk, switch the buffers.
        if sh.v.load == Load::Ldg128 {
            xs.push((
                sh.due(2, 9),
                Ins::new("TEXDEPBAR 0x0").note("the next chunk's LDGs have landed"),
            ));
        }
        let xor = |r: u8, note: &str| {
            arith(
                format!("LOP32I.XOR {}, {}, {}", reg(r), reg(r), hx(BUF)),
                &[r],
                &[r],
            )
            .pairs()
            .note(note)
        };
        for (g, (pred, off, d)) in [
            (11, ("P3", 0, r.d_a)),
            (17, (sh.pb_store, sh.sts_b(), r.d_b)),
        ] {
            xs.push((sh.due(2, g), self.sts128(pred, off, d)));
        }
        let last_b = first_use.iter().rposition(|k| !k.0).unwrap_or(0);
        let last_a = first_use.iter().rposition(|k| k.0).unwrap_or(0);
        let after = |i: usize| 2 * i * 12 / nlds + 1;
        xs.push((
            sh.due(2, after(last_b)),
            xor(r.s_b, "B from the other buffer from step 3 on"),
        ));
        xs.push((
            sh.due(2, 21),
            xor(r.w_s, "store into the other buffer next time"),
        ));
        xs.push((
            sh.due(2, after(last_a).max(22)),
            xor(r.s_a, "A from the other buffer from step 3 on"),
        ));
        xs.push((
            sh.due(3, 0),
            Ins::new("BAR.SYNC 0x0").note("the next chunk is in shared memory"),
        ));
        // Step 3: the global loads of the chunk after next.
        let pb_next_at = format!("@{} ", sh.pb_next);
        for (i, ins) in sh
            .loads(r.p_a, r.d_a, "@P1 ")
            .into_iter()
            .chain(sh.loads(r.p_b, r.d_b, &pb_next_at))
            .enumerate()
        {
            xs.push((sh.due(3, 2 + 2 * i), ins));
        }
        xs.sort_by_key(|(p, _)| *p);
        xs
    }

    /// The loop body, and its dual-issued pairs: the FFMAs and the other
    /// instructions packed into 7-instruction groups, the accumulators
    /// solved for banks, and the control codes.
    pub(super) fn main_loop(&mut self) -> (Vec<Ins>, usize) {
        let sh = self.shape;
        let v = sh.v;
        let xs = self.loop_others();
        let (layout, others) = pack(&xs, 4 * sh.per_step(), sh.per_step());
        // The loop body as instructions; accumulators solved for banks.
        let mut body: Vec<Ins> = Vec::new();
        let mut oi = 0;
        for slot in &layout {
            match slot {
                Some((s, i)) => {
                    let (y, x) = self.order[*i];
                    let set = s % 2;
                    let (a, b) = (sh.a_reg(set, y), sh.b_reg(set, x));
                    // Placeholder accumulator; fixed by `solve`.
                    let c = self.acc.get(&(y, x)).copied().unwrap_or(255);
                    body.push(
                        arith(
                            format!("FFMA {}, {}, {}, {}", reg(c), reg(a), reg(b), reg(c)),
                            &[a, b, c],
                            &[c],
                        )
                        .note(format!("C[{y}][{x}] step {s}")),
                    );
                }
                None => {
                    body.push(others[oi].clone());
                    oi += 1;
                }
            }
        }
        let cells: Vec<(usize, usize)> = layout
            .iter()
            .map(|s| s.map(|(_, i)| self.order[i]).unwrap_or((usize::MAX, 0)))
            .collect();
        // Dual issue: FFMA pairs at a group's instructions 1+2 and 3+4, and
        // the sixth FFMA with the seventh instruction when that may pair.
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
        if v.published {
            self.place_published(&mut body, &cells);
        } else if v.banked {
            solve(
                &mut body,
                &cells,
                &pair_first,
                &mut self.acc,
                &mut self.pool,
                sh.t,
            );
        }
        // Unpair what the rules do not let pair: a second instruction that
        // reads the first one's result. A pair whose reads meet on a bank
        // stays paired, as the paper's kernel pairs whatever the banks: the
        // conflict holds the warp one cycle and costs its scheduler a fraction
        // of one (`timing.conflict_2way`), where issuing the two apart costs
        // the scheduler a whole cycle.
        if v.dual {
            for i in 0..body.len() {
                if pair_first[i] {
                    let dep = body[i].writes.iter().any(|w| body[i + 1].reads.contains(w));
                    if dep {
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
                // (`0x20` holds it three). An integer result keeps `0x20`, so
                // that what reads it soon after is not held by the interlock.
                0x05
            } else {
                0x20
            };
        }
        // Single issue needs no group alignment: the NOPs that fill a
        // group's free slot are part of the dual-issue step alone.
        if !v.dual {
            body.retain(|ins| ins.text != "NOP");
        }
        let pairs = pair_first.iter().filter(|&&p| p).count();
        (body, pairs)
    }
}

impl Plan {
    /// The paper's published accumulator banks ([`published::c_bank`]): each
    /// element of C gets a register of its bank, in the order the loop first
    /// updates them.
    fn place_published(&mut self, body: &mut [Ins], cells: &[(usize, usize)]) {
        for &(y, x) in cells.iter().filter(|c| c.0 != usize::MAX) {
            if !self.acc.contains_key(&(y, x)) {
                let r = self.pool.take(published::c_bank(y, x));
                self.acc.insert((y, x), r);
            }
        }
        write_accumulators(body, cells, &self.acc);
    }
}

/// Packs an iteration's `total` FFMAs and the other instructions `xs` (each
/// due after an FFMA position) into 7-instruction groups: the slots of FFMAs
/// (`Some(step, index)`) and of the others (`None`), and the others in slot
/// order. A group's seventh slot takes the next instruction due, or a NOP;
/// when two are due in a group, the first takes the group's first slot.
/// Whatever is left goes after the last group, then the branch, last in the
/// loop: in the last group's free slot if it has one.
pub(super) fn pack(
    xs: &[(usize, Ins)],
    total: usize,
    per_step: usize,
) -> (Vec<Option<(usize, usize)>>, Vec<Ins>) {
    let mut layout: Vec<Option<(usize, usize)>> = Vec::new();
    let mut others: Vec<Ins> = Vec::new();
    let mut xi = 0;
    let mut fpos = 0;
    while fpos < total {
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
    (layout, others)
}
