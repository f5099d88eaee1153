//! The epilogue: C = alpha * acc + beta * C, column by column.

use super::ins::{add64, addr, arith, bank, cb, element_pointer, fix_stalls, hx, param, reg, Ins};
use super::Plan;

impl Plan {
    /// The epilogue: C = alpha * acc + beta * C, column by column, two
    /// columns in flight.
    ///
    /// C is read through L2 with `LD.E.64`, whose result the scoreboard
    /// guards. An SM has few lines in flight on that path (`ld_outstanding`),
    /// so the C of a tile takes it thousands of cycles; the tuned kernel reads
    /// two columns in three on the read-only path instead (`LDG.E.64`, the
    /// other path's lines in flight beside them; `TEXDEPBAR` before their
    /// use), which the model says more than halves the epilogue. Each element
    /// of C is read once, by the thread that then writes it, so no read on
    /// the read-only path can meet a value this kernel wrote. LDG has no
    /// address offset on sm_35: each of a column's loads after the first takes
    /// an address pair (the global pointers', free now, then more). No LDG is
    /// in flight here: the last chunk's were waited for in the loop.
    pub(super) fn epilogue(&mut self) -> Vec<Ins> {
        let sh = self.shape;
        let (t, half) = (sh.t, sh.half);
        let r = self.regs;
        let mut epi: Vec<Ins> = Vec::new();
        // Pointers on the pairs of banks 0/1, C's values on pairs of banks
        // 2/3 (so a `ST.E.64` reads four banks), two columns in flight; the
        // offsets first take the data's registers.
        let sorted = set_regs_sorted(&self.set_regs);
        let lo: Vec<u8> = sorted
            .iter()
            .copied()
            .filter(|r| r % 2 == 0 && r % 8 < 4)
            .collect();
        let hi: Vec<u8> = sorted
            .iter()
            .copied()
            .filter(|r| r % 2 == 0 && r % 8 >= 4)
            .collect();
        let ptr = |x: usize| lo[x];
        let offs: Vec<u8> = (0..t).map(|x| hi[x / 2] + (x % 2) as u8).collect();
        let data = |u: usize, k: usize| hi[u * half + k];
        // beta * C goes to a register off the accumulator's bank, so the
        // FFMA that adds it reads two banks.
        let scratch: Vec<u8> = (0..4)
            .flat_map(|k| [r.d_a + k, r.d_b + k])
            .chain([r.kc, r.s_a, r.s_b, r.w_s, r.stride_a, r.stride_b])
            .collect();
        let mut e = |ins: Ins| epi.push(ins);
        // The offsets' IADDs and IMADs back to back (`0x05`: the next issue
        // the next cycle), so that each IMAD reuses `ib` from the one before,
        // whatever bank its offset is on.
        for (x, &off) in offs.iter().enumerate() {
            let col = 32 * (x / 2) + x % 2;
            let mut ins = arith(
                format!("IADD {}, {}, {}", reg(off), reg(r.jb), hx(col as i64)),
                &[r.jb],
                &[off],
            );
            ins.ctrl = 0x05;
            e(ins);
        }
        for &off in &offs {
            let mut ins = arith(
                format!(
                    "IMAD {}, {}, {}, {}",
                    reg(off),
                    reg(off),
                    cb(param::LDC),
                    reg(r.ib)
                ),
                &[off, r.ib],
                &[off],
            );
            ins.ctrl = 0x05;
            e(ins);
        }
        for (x, &off) in offs.iter().enumerate() {
            for ins in element_pointer(ptr(x), off, param::C) {
                e(ins);
            }
        }
        let c_on_ldg = |x: usize| sh.tuned && x % 3 != 2;
        let addr_pairs: Vec<u8> = if sh.tuned {
            let mut pairs = vec![r.p_a, r.p_b];
            while pairs.len() < half - 1 {
                pairs.push(self.pool.run(2));
            }
            pairs.truncate(half - 1);
            pairs
        } else {
            Vec::new()
        };
        let load_col = |x: usize, e: &mut dyn FnMut(Ins)| {
            let pr = ptr(x);
            if c_on_ldg(x) {
                for (k, &ap) in addr_pairs.iter().enumerate() {
                    for ins in add64(ap, pr, &hx(128 * (k + 1) as i64), &[]) {
                        e(ins);
                    }
                }
                for k in 0..half {
                    let a = if k == 0 { pr } else { addr_pairs[k - 1] };
                    let d = data(x % 2, k);
                    e(Ins::new(format!("LDG.E.64 {}, [{}]", reg(d), reg(a)))
                        .r(&[a, a + 1])
                        .w(&[d, d + 1]));
                }
            } else {
                for k in 0..half {
                    let d = data(x % 2, k);
                    e(
                        Ins::new(format!("LD.E.64 {}, {}", reg(d), addr(pr, 128 * k as i64)))
                            .r(&[pr, pr + 1])
                            .w(&[d, d + 1]),
                    );
                }
            }
        };
        load_col(0, &mut e);
        for x in 0..t {
            let pr = ptr(x);
            if x + 1 < t {
                load_col(x + 1, &mut e);
            }
            if c_on_ldg(x) {
                // Wait for this column's LDGs; the next column's may stay out.
                let later = if x + 1 < t && c_on_ldg(x + 1) {
                    half
                } else {
                    0
                };
                e(Ins::new(format!("TEXDEPBAR {}", hx(later as i64))));
            }
            let mut free = scratch.clone();
            let mut picks = Vec::new();
            for k in 0..half {
                for h in 0..2u8 {
                    let d = data(x % 2, k) + h;
                    let c = self.acc[&(2 * k + h as usize, x)];
                    let sc = free
                        .iter()
                        .position(|&r| bank(r) != bank(c))
                        .map(|i| free.remove(i))
                        .unwrap_or(d);
                    picks.push((d, c, sc));
                    e(arith(
                        format!("FMUL {}, {}, {}", reg(sc), reg(d), cb(param::BETA)),
                        &[d],
                        &[sc],
                    ));
                }
            }
            for (d, c, sc) in picks {
                e(arith(
                    format!(
                        "FFMA {}, {}, {}, {}",
                        reg(d),
                        reg(c),
                        cb(param::ALPHA),
                        reg(sc)
                    ),
                    &[c, sc],
                    &[d],
                ));
            }
            for k in 0..half {
                let d = data(x % 2, k);
                e(
                    Ins::new(format!("ST.E.64 {}, {}", addr(pr, 128 * k as i64), reg(d))).r(&[
                        pr,
                        pr + 1,
                        d,
                        d + 1,
                    ]),
                );
            }
        }
        e(Ins::new("EXIT"));
        fix_stalls(&mut epi);
        epi
    }
}

pub(super) fn set_regs_sorted(set: &[u8]) -> Vec<u8> {
    let mut v = set.to_vec();
    v.sort_unstable();
    v
}
