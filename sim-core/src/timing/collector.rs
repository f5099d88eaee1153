//! The register file's four banks and the operand collector.
//!
//! GK110 keeps each warp's registers in four banks; an instruction's source
//! operands are read through the operand collector, one register per bank per
//! cycle, so two sources in the same bank take two reads (a 2-way conflict), three
//! take three. Measured on K20m (the calibration facts): only source operands
//! count, never the destination; and the collector keeps the previous
//! instruction's operands, so a source that the instruction just before (of the
//! same warp) also read is not read again.
//!
//! The bank of `Rn` is bit 0 of `n` plus twice bit 2 of `n`, which is the
//! published table: bank 0 holds R0 R2 R8 R10 ..., bank 1 R1 R3 R9 R11 ..., bank 2
//! R4 R6 R12 R14 ..., bank 3 R5 R7 R13 R15 ...

use crate::op::{Op, Src};

/// Register banks.
pub const BANKS: usize = 4;

/// The bank of register `r` (`RZ` is in none: it is never read).
#[inline]
pub fn bank(r: u8) -> Option<usize> {
    (r != 255).then_some(((r & 1) | ((r >> 1) & 2)) as usize)
}

/// The source registers an instruction reads from the register file, at most
/// four (a register pair counts as its two registers).
pub fn sources(op: &Op) -> ([u8; 8], usize) {
    let mut regs = [255u8; 8];
    let mut n = 0;
    let wide = matches!(
        op.kind,
        crate::op::Kind::DAdd { .. } | crate::op::Kind::DMul { .. } | crate::op::Kind::DFma { .. }
    );
    for s in &op.src {
        let r = match s.src {
            Src::Reg(r) => r,
            Src::ConstIdx { reg, .. } => reg,
            _ => continue,
        };
        if r == 255 {
            continue;
        }
        for k in 0..if wide { 2 } else { 1 } {
            let x = r.saturating_add(k);
            if n < regs.len() && !regs[..n].contains(&x) {
                regs[n] = x;
                n += 1;
            }
        }
    }
    (regs, n)
}

/// Whether two of `srcs` share a bank: only then can [`conflict_degree`]
/// be above 1, whatever the previous instruction read.
#[inline]
pub fn may_conflict(srcs: &[u8]) -> bool {
    let mut banks = 0u8;
    let mut clash = false;
    for &r in srcs {
        let b = bank(r).map_or(0, |b| 1u8 << b);
        clash |= banks & b != 0;
        banks |= b;
    }
    clash
}

/// The conflict degree of reading `srcs` after an instruction that read `prev`:
/// the most registers any one bank must deliver (1 = no conflict, 0 = nothing
/// to read). A register `prev` holds is reused, not read; a register named twice
/// is read once.
#[inline]
pub fn conflict_degree(srcs: &[u8], prev: &[u8]) -> u32 {
    // Registers each in a bank of its own cannot conflict: 1 when one of them
    // is read, 0 when every one is reused (the common case, without the
    // count below).
    if !may_conflict(srcs) {
        return srcs.iter().any(|r| bank(*r).is_some() && !prev.contains(r)) as u32;
    }
    // Registers not to read (reused, or already counted), as a bit set.
    let mut skip = [0u64; 4];
    for &r in prev {
        skip[(r >> 6) as usize] |= 1 << (r & 63);
    }
    let mut per_bank = [0u32; BANKS];
    for &r in srcs {
        let Some(b) = bank(r) else { continue };
        let (i, bit) = ((r >> 6) as usize, 1u64 << (r & 63));
        if skip[i] & bit != 0 {
            continue;
        }
        skip[i] |= bit;
        per_bank[b] += 1;
    }
    per_bank.into_iter().max().unwrap_or(0)
}

/// The conflict degree of one issue after an instruction that read `prev`:
/// `first`'s reads alone (`may` tells whether two of them share a bank:
/// [`may_conflict`]), or with `second`'s when the two dual-issue. A pair's
/// reads are counted `together` (each register read once: the model's
/// reading, `timing.pair_reads_together` 1), or apart: `first`'s after
/// `prev`, `second`'s after `first`'s, the busier of the two.
pub fn issue_degree(
    first: &[u8],
    may: bool,
    second: Option<&[u8]>,
    prev: &[u8],
    together: bool,
) -> u32 {
    match second {
        Some(second) if !together => {
            let alone = issue_degree(first, may, None, prev, together);
            alone.max(conflict_degree(second, first))
        }
        Some(second) => {
            let mut reads = [255u8; 16];
            let mut nr = 0;
            for &r in first.iter().chain(second) {
                if nr < reads.len() && !reads[..nr].contains(&r) {
                    reads[nr] = r;
                    nr += 1;
                }
            }
            conflict_degree(&reads[..nr], prev)
        }
        None if may => conflict_degree(first, prev),
        // At most one register from each bank: no conflict.
        None => 1,
    }
}

// What a conflict costs is the timing configuration's (`conflict_2way`,
// `conflict_3way`, fitted by the FFMA bank rows); the scheduler charges it.

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The published bank table (K20m, same as GTX 680), rows for R0..R31.
    const PUBLISHED: [[u8; 8]; 4] = [
        [0, 2, 8, 10, 16, 18, 24, 26],
        [1, 3, 9, 11, 17, 19, 25, 27],
        [4, 6, 12, 14, 20, 22, 28, 30],
        [5, 7, 13, 15, 21, 23, 29, 31],
    ];

    #[test]
    fn the_published_table() {
        for (b, regs) in PUBLISHED.iter().enumerate() {
            for &r in regs {
                assert_eq!(bank(r), Some(b), "R{r}");
            }
        }
        assert_eq!(bank(255), None);
    }

    #[test]
    fn the_measured_operand_rows() {
        // The calibration facts' FFMA/FMUL rows: (sources, conflict).
        for (srcs, want) in [
            (&[4u8, 1, 0][..], 1), // FFMA R5, R4, R1, R0
            (&[2, 1, 0], 2),       // FFMA R5, R2, R1, R0
            (&[9, 3, 1], 3),       // FFMA R5, R9, R3, R1
            (&[1, 0], 1),          // FMUL R4, R1, R0
            (&[2, 0], 2),          // FMUL R4, R2, R0
        ] {
            assert_eq!(conflict_degree(srcs, &[]), want, "{srcs:?}");
        }
    }

    /// The static fact: a 12x12-blocked SGEMM with accumulators R0..R143 in order,
    /// then A in R144..R155 and B in R156..R167, has 368 of its 576 FFMAs per
    /// unrolled loop (4 k-steps) with a 2-way conflict and 64 with a 3-way one.
    #[test]
    fn in_order_accumulators_conflict_as_published() {
        let (mut two, mut three) = (0, 0);
        for _step in 0..4 {
            for y in 0..12u8 {
                for x in 0..12u8 {
                    let d = conflict_degree(&[144 + y, 156 + x, 12 * y + x], &[]);
                    two += (d == 2) as u32;
                    three += (d == 3) as u32;
                }
            }
        }
        assert_eq!((two, three), (368, 64));
    }

    /// The pairs of `bench micro`'s rows `FFMA 1-2-2-1, pairs ...`: R2 and
    /// R4 shared or reused, R3 (the first's accumulator) and R11 (the
    /// second's) on bank 1. Counted together the pair reads two registers of
    /// bank 1; read apart, neither instruction does.
    #[test]
    fn a_pairs_reads_together_or_apart() {
        let (first, second) = ([2u8, 4, 3], [2u8, 5, 11]);
        let prev = [0u8, 4, 1];
        let degree = |together| issue_degree(&first, true, Some(&second), &prev, together);
        assert_eq!((degree(true), degree(false)), (2, 1));
        // One bank each: alike under either reading.
        let free = [2u8, 5, 6];
        for together in [true, false] {
            assert_eq!(issue_degree(&first, true, Some(&free), &prev, together), 1);
        }
        // A conflict within one instruction counts under either.
        let own = [9u8, 3, 1];
        for together in [true, false] {
            assert_eq!(issue_degree(&own, true, Some(&free), &[], together), 3);
            assert_eq!(issue_degree(&free, true, Some(&own), &[], together), 3);
        }
    }

    proptest! {
        /// Every register's bank follows the published pattern, which repeats
        /// every 8 registers.
        #[test]
        fn every_register_banks_like_its_row(r in 0u8..=254) {
            // The table lists R0..R31 and continues with the same pattern ("...").
            let b = PUBLISHED.iter().position(|regs| regs.contains(&(r % 32)));
            prop_assert_eq!(bank(r), b);
        }

        /// For any FFMA/FMUL operand triple, the degree is the largest number of
        /// distinct, not-reused source registers in one bank; the destination
        /// never matters.
        #[test]
        fn conflict_degree_is_the_rule(a in 0u8..=255, b in 0u8..=255, c in 0u8..=255,
                                       p in proptest::collection::vec(0u8..=255, 0..3)) {
            let mut distinct: Vec<u8> = Vec::new();
            for r in [a, b, c] {
                if r != 255 && !p.contains(&r) && !distinct.contains(&r) {
                    distinct.push(r);
                }
            }
            let want = (0..4)
                .map(|k| distinct.iter().filter(|&&r| (r & 1) | ((r >> 1) & 2) == k).count() as u32)
                .max()
                .unwrap_or(0);
            prop_assert_eq!(conflict_degree(&[a, b, c], &p), want);
            // Reusing every source reads nothing.
            prop_assert_eq!(conflict_degree(&[a, b, c], &[a, b, c]), 0);
        }

        /// Without two sources in one bank, no previous reads make a conflict
        /// (the timing model skips the count for such an instruction); with
        /// two, some make one (none reused).
        #[test]
        fn no_shared_bank_no_conflict(srcs in proptest::collection::vec(0u8..=255, 0..5),
                                      p in proptest::collection::vec(0u8..=255, 0..8)) {
            let mut distinct = srcs.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if may_conflict(&distinct) {
                prop_assert!(conflict_degree(&distinct, &[]) >= 2);
            } else {
                prop_assert!(conflict_degree(&distinct, &p) <= 1);
            }
        }
    }
}
