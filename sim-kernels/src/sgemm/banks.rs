//! The accumulators' banks: chosen so that no issue unit of the loop reads
//! two registers of one bank.

use std::collections::BTreeMap;

use super::ins::{bank, reg, Ins, Pool};

/// Chooses each accumulator's bank (and register) so that every issue unit
/// (a single instruction or a dual-issued pair) reads at most one register per
/// bank, counting the previous instruction's operands as reused; ties go to
/// the bank with the most registers left.
pub(super) fn solve(
    body: &mut [Ins],
    cells: &[(usize, usize)],
    pair_first: &[bool],
    acc: &mut BTreeMap<(usize, usize), u8>,
    pool: &mut Pool,
    t: usize,
) {
    // Units in order.
    let mut i = 0;
    let mut units: Vec<(usize, usize)> = Vec::new();
    while i < body.len() {
        let n = if pair_first[i] { 2 } else { 1 };
        units.push((i, n));
        i += n;
    }
    let mut chosen: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    let mut used = [0usize; 4];
    let budget: Vec<usize> = (0..4).map(|b| pool.left(b)).collect();
    for &(start, n) in &units {
        let prev: Vec<u8> = if start == 0 {
            Vec::new()
        } else {
            body[start - 1].reads.clone()
        };
        let new_cells: Vec<(usize, usize)> = (start..start + n)
            .filter(|&k| cells[k].0 != usize::MAX)
            .map(|k| cells[k])
            .filter(|c| !chosen.contains_key(c))
            .collect();
        let mut dedup = new_cells.clone();
        dedup.dedup();
        // Try every bank assignment of the unit's new cells (at most 4^2).
        let mut best: Option<(u32, i64, Vec<usize>)> = None;
        let combos = 4usize.pow(dedup.len() as u32);
        for code in 0..combos {
            let banks: Vec<usize> = (0..dedup.len())
                .map(|k| code / 4usize.pow(k as u32) % 4)
                .collect();
            if (0..4).any(|b| used[b] + banks.iter().filter(|&&x| x == b).count() > budget[b]) {
                continue;
            }
            // Per-bank reads of the unit with these banks.
            let mut per = [0u32; 4];
            let mut seen: Vec<u64> = Vec::new();
            for k in start..start + n {
                let cell = cells[k];
                for (ri, &r) in body[k].reads.iter().enumerate() {
                    let is_acc = cell.0 != usize::MAX && ri == 2;
                    let (key, b) = if is_acc {
                        let b = match chosen.get(&cell) {
                            Some(&b) => b,
                            None => banks[dedup.iter().position(|c| *c == cell).unwrap()],
                        };
                        (1000 + (cell.0 * t + cell.1) as u64, b)
                    } else {
                        if r == 255 || prev.contains(&r) {
                            continue;
                        }
                        (r as u64, bank(r))
                    };
                    if seen.contains(&key) {
                        continue;
                    }
                    seen.push(key);
                    per[b] += 1;
                }
            }
            let deg = per.into_iter().max().unwrap_or(0);
            // Prefer an accumulator on neither of its own FFMA's A and B banks
            // (no conflict even without reuse), then the emptiest banks.
            let mut own = 0i64;
            for (ci, c) in dedup.iter().enumerate() {
                let k = (start..start + n).find(|&k| cells[k] == *c).unwrap();
                let (a, b) = (body[k].reads[0], body[k].reads[1]);
                if banks[ci] == bank(a) || banks[ci] == bank(b) {
                    own += 1;
                }
            }
            let room: i64 = banks.iter().map(|&b| (budget[b] - used[b]) as i64).sum();
            let score = (deg, own * 1000 - room, banks.clone());
            if best
                .as_ref()
                .is_none_or(|b| (score.0, score.1) < (b.0, b.1))
            {
                best = Some(score);
            }
        }
        let (_, _, banks) = best.expect("a bank assignment within the budget");
        for (c, b) in dedup.iter().zip(banks) {
            chosen.insert(*c, b);
            used[b] += 1;
        }
    }
    for (&cell, &b) in &chosen {
        acc.insert(cell, pool.take(b));
    }
    write_accumulators(body, cells, acc);
}

/// Writes each FFMA of `body` (`cells` its C element, `usize::MAX` for the
/// other instructions) with its accumulator from `acc`.
pub(super) fn write_accumulators(
    body: &mut [Ins],
    cells: &[(usize, usize)],
    acc: &BTreeMap<(usize, usize), u8>,
) {
    for (k, ins) in body.iter_mut().enumerate() {
        let cell = cells[k];
        if cell.0 == usize::MAX {
            continue;
        }
        let c = acc[&cell];
        let (a, b) = (ins.reads[0], ins.reads[1]);
        ins.text = format!("FFMA {}, {}, {}, {}", reg(c), reg(a), reg(b), reg(c));
        ins.reads = vec![a, b, c];
        ins.writes = vec![c];
    }
}
