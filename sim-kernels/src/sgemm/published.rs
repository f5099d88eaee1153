//! The paper's published 12x12 design: the order of a step's FFMAs and the
//! banks of their accumulators (`../shared/kepler/k20m-facts.md`, *Published
//! FFMA order for one 12x12 step* and *The tuned SGEMM the seeds describe*).
//!
//! `POSITION[y][x]` is the position (0..143) at which the FFMA for C\[y\]\[x\]
//! issues within a step; the two cells the source garbles are 70 (row 1,
//! column 4) and 22 (row 7, column 1), as its pattern gives them. Groups of
//! six positions pair 6g+1 with 6g+2 and 6g+3 with 6g+4 (1-2-2-1).
//!
//! Banks: A's column on banks 0 and 1 (A\[y\] on bank `y % 2`, which the
//! generator's `LDS.64` pairs give), B's row on 2 and 3 (B\[x\] on
//! `2 + x % 2`), and C in the 2x2 pattern `[[1, 2], [3, 0]]` repeated, so that
//! each FFMA reads three banks. Taken together with the order, half of a
//! step's pairs read two registers of one bank (`pair_conflicts` in the
//! tests): the pair before them reused leaves four reads, two on the bank of
//! the new B value and of one accumulator.

/// The position in its step of the FFMA for C\[y\]\[x\].
const POSITION: [[u8; 12]; 12] = [
    [0, 4, 3, 71, 68, 67, 72, 76, 75, 143, 140, 139],
    [1, 2, 5, 69, 70, 66, 73, 74, 77, 141, 142, 138],
    [11, 8, 7, 60, 64, 63, 83, 80, 79, 132, 136, 135],
    [9, 10, 6, 61, 62, 65, 81, 82, 78, 133, 134, 137],
    [12, 16, 15, 59, 56, 55, 84, 88, 87, 131, 128, 127],
    [13, 14, 17, 57, 58, 54, 85, 86, 89, 129, 130, 126],
    [23, 20, 19, 48, 52, 51, 95, 92, 91, 120, 124, 123],
    [21, 22, 18, 49, 50, 53, 93, 94, 90, 121, 122, 125],
    [24, 28, 27, 47, 44, 43, 96, 100, 99, 119, 116, 115],
    [25, 26, 29, 45, 46, 42, 97, 98, 101, 117, 118, 114],
    [35, 32, 31, 36, 40, 39, 107, 104, 103, 108, 112, 111],
    [33, 34, 30, 37, 38, 41, 105, 106, 102, 109, 110, 113],
];

/// The accumulators' banks by row and column parity.
const C_BANKS: [[usize; 2]; 2] = [[1, 2], [3, 0]];

/// The (row, column) of C each FFMA of a step updates, in issue order.
pub(super) fn order() -> Vec<(usize, usize)> {
    let mut cells = vec![(usize::MAX, usize::MAX); 144];
    for (y, row) in POSITION.iter().enumerate() {
        for (x, &p) in row.iter().enumerate() {
            cells[p as usize] = (y, x);
        }
    }
    cells
}

/// The bank of C\[y\]\[x\]'s accumulator.
pub(super) fn c_bank(y: usize, x: usize) -> usize {
    C_BANKS[y % 2][x % 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The busiest bank's reads of each unit of a step (a single FFMA or a
    /// pair), with A[y] on bank `a(y)`, B[x] on `b(x)` and C[y][x] on
    /// `c(y, x)`, without what the instruction before the unit read.
    fn unit_degrees_by(
        a: &dyn Fn(usize) -> usize,
        b: &dyn Fn(usize) -> usize,
        c: &dyn Fn(usize, usize) -> usize,
    ) -> Vec<(usize, u32)> {
        let cells = order();
        let ops = |(y, x): (usize, usize)| [(0, y, 0), (1, x, 0), (2, y, x)];
        let bank = |(k, i, j): (u8, usize, usize)| match k {
            0 => a(i),
            1 => b(i),
            _ => c(i, j),
        };
        let mut units: Vec<Vec<usize>> = Vec::new();
        for g in 0..24 {
            let b = 6 * g;
            units.extend([vec![b], vec![b + 1, b + 2], vec![b + 3, b + 4], vec![b + 5]]);
        }
        let mut out = Vec::new();
        for (ui, u) in units.iter().enumerate() {
            let before = units[(ui + units.len() - 1) % units.len()].last().copied();
            let prev: Vec<_> = before.map(|p| ops(cells[p]).to_vec()).unwrap_or_default();
            let mut regs = Vec::new();
            for &p in u {
                for o in ops(cells[p]) {
                    if !regs.contains(&o) && !prev.contains(&o) {
                        regs.push(o);
                    }
                }
            }
            let mut per = [0u32; 4];
            for o in regs {
                per[bank(o)] += 1;
            }
            out.push((u.len(), per.into_iter().max().unwrap_or(0)));
        }
        out
    }

    /// The published banks: A[y] on `y % 2`, B[x] on `2 + x % 2`.
    fn unit_degrees() -> Vec<(usize, u32)> {
        unit_degrees_by(&|y| y % 2, &|x| 2 + x % 2, &c_bank)
    }

    #[test]
    fn every_cell_has_one_position() {
        let cells = order();
        assert!(cells.iter().all(|c| c.0 < 12 && c.1 < 12));
        let mut sorted = cells.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 144);
    }

    #[test]
    fn each_ffma_reads_three_banks() {
        for y in 0..12 {
            for x in 0..12 {
                let banks = [y % 2, 2 + x % 2, c_bank(y, x)];
                assert!(banks[2] != banks[0] && banks[2] != banks[1], "C[{y}][{x}]");
            }
        }
    }

    #[test]
    fn pair_conflicts() {
        // Every single FFMA reads one register a bank; 24 of the 48 pairs
        // read two of one bank, the other 24 one each.
        let d = unit_degrees();
        let count = |n: usize, deg: u32| d.iter().filter(|&&u| u == (n, deg)).count();
        assert_eq!(count(1, 1), 48);
        assert_eq!(count(2, 1), 24);
        assert_eq!(count(2, 2), 24);
    }

    #[test]
    fn no_repeated_two_by_two_pattern_does_better() {
        // A's banks 0 and 1 and B's 2 and 3 by a block of the index (its
        // parity, or blocks of 2, 3, 4 or 6), either way round; C by any
        // 2x2 pattern over the same blocks that leaves each FFMA on three
        // banks. Half the pairs conflict at the least.
        let blocks: [fn(usize) -> usize; 5] = [
            |i| i % 2,
            |i| (i / 2) % 2,
            |i| (i / 3) % 2,
            |i| (i / 4) % 2,
            |i| i / 6,
        ];
        let mut fewest = usize::MAX;
        for fa in blocks {
            for fb in blocks {
                for flip in 0..4 {
                    let a = move |y: usize| fa(y) ^ (flip & 1);
                    let b = move |x: usize| 2 + (fb(x) ^ (flip >> 1));
                    for p in 0..256usize {
                        let pat = |r: usize, c: usize| (p >> (2 * (2 * r + c))) & 3;
                        let c = |y: usize, x: usize| pat(fa(y), fb(x));
                        let legal =
                            (0..12).all(|y| (0..12).all(|x| c(y, x) != a(y) && c(y, x) != b(x)));
                        if !legal {
                            continue;
                        }
                        let d = unit_degrees_by(&a, &b, &c);
                        fewest = fewest.min(d.iter().filter(|u| u.0 == 2 && u.1 > 1).count());
                    }
                }
            }
        }
        assert_eq!(fewest, 24);
    }
}
