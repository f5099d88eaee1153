//! The load/store units' view of an access: how many shared-memory
//! transactions a warp's access takes (32 banks, 4- or 8-byte wide, broadcast
//! within a bank word, at most `shared_transaction_bytes` per transaction), and
//! which 32-byte sectors and 128-byte lines a global access touches
//! (coalescing), and the units' and the shared-memory pipeline's busy times
//! (`Lsu`).

use crate::config::Timing;

use super::ceil_u64;
use super::events::Stats;

/// A lane address: 64 bits (the generic window's) or 32 (shared memory's own,
/// which the fast `LDS`/`STS` path keeps; the same count either way).
pub trait Addr: Copy + PartialEq + Into<u64> {}
impl Addr for u64 {}
impl Addr for u32 {}

/// The shared-memory transactions of one warp-instruction: the largest number
/// of distinct bank words any one bank must deliver (lanes reading the same
/// word share it), and never fewer than the bytes moved allow.
pub fn shared_transactions<A: Addr>(
    addrs: &[A; 32],
    mask: u32,
    size: u32,
    bank_bytes: u32,
    transaction_bytes: u32,
) -> u32 {
    shared_transactions_with_bytes(addrs, mask, size, bank_bytes, transaction_bytes).0
}

/// [`shared_transactions`], and the distinct bytes the banks deliver (the
/// distinct bank words, whole).
pub fn shared_transactions_with_bytes<A: Addr>(
    addrs: &[A; 32],
    mask: u32,
    size: u32,
    bank_bytes: u32,
    transaction_bytes: u32,
) -> (u32, u64) {
    let shape = if mask == u32::MAX {
        Shape::of(&std::array::from_fn(|l| addrs[l].into() as u32 & M24))
    } else {
        Shape::Other
    };
    transactions_with_bytes(shape, addrs, mask, size, bank_bytes, transaction_bytes)
}

/// [`shared_transactions`] with the addresses' [`Shape`] already found (by
/// [`Shape::of`] of their 24 bits, or `Shape::Other`).
pub fn transactions<A: Addr>(
    shape: Shape,
    addrs: &[A; 32],
    mask: u32,
    size: u32,
    bank_bytes: u32,
    transaction_bytes: u32,
) -> u32 {
    transactions_with_bytes(shape, addrs, mask, size, bank_bytes, transaction_bytes).0
}

/// [`transactions`], and the distinct bytes the banks deliver.
#[inline]
pub fn transactions_with_bytes<A: Addr>(
    shape: Shape,
    addrs: &[A; 32],
    mask: u32,
    size: u32,
    bank_bytes: u32,
    transaction_bytes: u32,
) -> (u32, u64) {
    if mask == 0 {
        return (0, 0);
    }
    if mask == u32::MAX {
        if let Some(tx) = shape.transactions(size, bank_bytes, transaction_bytes) {
            return tx;
        }
    }
    general(addrs, mask, size, bank_bytes, transaction_bytes)
}

/// The bits of a shared-memory address the banks see.
const M24: u32 = 0x00ff_ffff;

/// The common shapes of a full warp's shared-memory addresses (their 24
/// bits), found once and used both to move the data and to count the
/// transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Lane `l` of the lower half-warp at `a0 + d * l` (modulo 2^32; a tiled
    /// kernel's `[R+tx*16]`, or consecutive words), and the upper half-warp
    /// repeating the lower one (`repeat`) or going on along the line.
    Line { a0: u32, d: u32, repeat: bool },
    /// Each half-warp at an address of its own (a tiled kernel's
    /// `[R+ty*64]`), the two different.
    Pair { a0: u32, a16: u32 },
    /// Anything else.
    Other,
}

impl Shape {
    /// The shape of 32 addresses below 2^24.
    #[inline]
    pub fn of(a: &[u32; 32]) -> Shape {
        #[cfg(target_arch = "x86_64")]
        let on = sse2_on_line(a);
        #[cfg(not(target_arch = "x86_64"))]
        let on = on_line(a);
        Shape::from_steps(a, on)
    }

    /// The shape from the three masks of `on_line` (or `sse2_on_line`).
    #[inline(always)]
    fn from_steps(a: &[u32; 32], (lo, hi, rep): (u32, u32, u32)) -> Shape {
        let (a0, d) = (a[0], a[1].wrapping_sub(a[0]));
        // Lane l of the lower half-warp is on the line through lanes 0 and 1
        // when every step up to it is `d`; the upper half-warp goes on along
        // it when the 16 steps from lane 15 are `d` too. (The addresses and
        // `a0 + d * l`, |d| < 2^24 and l < 32, never reach 2^31: equality
        // modulo 2^32 is equality.)
        if lo & 0x7fff != 0x7fff {
            return Shape::Other;
        }
        if rep == 0xffff || hi == 0xffff {
            return Shape::Line {
                a0,
                d,
                repeat: rep == 0xffff,
            };
        }
        // The lower half at one address (d = 0), and the upper at another
        // (its 15 steps 0).
        if d == 0 && hi & 0xfffe == 0xfffe {
            return Shape::Pair { a0, a16: a[16] };
        }
        Shape::Other
    }
    /// The transactions of a full warp's access of `size` bytes in this
    /// shape, or nothing when they must be counted lane by lane (`Other`,
    /// or a configuration whose bank words or access are not powers of two).
    #[inline]
    fn transactions(
        self,
        size: u32,
        bank_bytes: u32,
        transaction_bytes: u32,
    ) -> Option<(u32, u64)> {
        let bb = bank_bytes.max(1) as u64;
        if !(bb.is_power_of_two() && size.is_power_of_two()) {
            return None;
        }
        // Bank words and accesses of powers of two (as every configuration
        // has them): shifts and masks, no division.
        let sh = bb.trailing_zeros();
        let low = bb - 1;
        let chunks = ((size as u64 + low) >> sh).max(1);
        let tb = transaction_bytes.max(1) as u64;
        let per_tb = |bytes: u64| {
            if tb.is_power_of_two() {
                (bytes + tb - 1) >> tb.trailing_zeros()
            } else {
                bytes.div_ceil(tb)
            }
        };
        // The bank words an access at `a` touches.
        let words_at = |a: u64| (((a & low) + size as u64 - 1) >> sh) + 1;
        match self {
            Shape::Line { a0, d, repeat } => {
                let (a0, d) = (a0 as u64, d as u64);
                let n = if repeat { 16 } else { 32 };
                if d == 0 || (d == size as u64 && a0 & (bb.max(size as u64) - 1) == 0) {
                    let distinct = if d == 0 {
                        chunks
                    } else {
                        (n * size as u64 + low) >> sh
                    };
                    let degree = distinct.div_ceil(32);
                    return Some((
                        degree.max(per_tb(distinct * bb)).max(1) as u32,
                        distinct * bb,
                    ));
                }
                // Each lane's words: the same count for every lane when the
                // stride is whole bank words.
                let per_lane = words_at(a0);
                if d < M24 as u64 && d & low == 0 && d >> sh >= per_lane {
                    // A stride of whole bank words at least the access apart
                    // (a tiled kernel's `LDS.32 [R+tx*16]`): every word is
                    // distinct, so the busiest bank's count is a histogram,
                    // without sorting.
                    let (w0, dw) = (a0 >> sh, d >> sh);
                    if per_lane == 1 {
                        // One word a lane: lane l's bank is w0 + dw * l
                        // modulo 32, which comes round again every
                        // 32 / gcd(dw, 32) lanes; so the busiest bank serves
                        // every that many lanes once.
                        let period = 32u64 >> dw.trailing_zeros().min(5);
                        let degree = n.div_ceil(period);
                        return Some((degree.max(per_tb(n * bb)).max(1) as u32, n * bb));
                    }
                    let mut per_bank = [0u8; 32];
                    for l in 0..n {
                        for k in 0..per_lane {
                            per_bank[((w0 + dw * l + k) % 32) as usize] += 1;
                        }
                    }
                    let degree = per_bank.into_iter().max().unwrap_or(0) as u64;
                    let distinct = n * per_lane;
                    return Some((
                        degree.max(per_tb(distinct * bb)).max(1) as u32,
                        distinct * bb,
                    ));
                }
                None
            }
            Shape::Pair { a0, a16 } => {
                // Two addresses (each half-warp broadcasting its own): the
                // words of lanes 0 and 16 alone.
                let (a0, a16) = (a0 as u64, a16 as u64);
                let (f0, f1) = (a0 >> sh, a16 >> sh);
                let (c0, c1) = (words_at(a0), words_at(a16));
                if c0 == 1 && c1 == 1 {
                    // A word each: one, or two in one bank or in two.
                    let (distinct, degree) = match (f0 == f1, f0 % 32 == f1 % 32) {
                        (true, _) => (1, 1),
                        (false, same) => (2, 1 + same as u64),
                    };
                    return Some((
                        degree.max(per_tb(distinct * bb)).max(1) as u32,
                        distinct * bb,
                    ));
                }
                let mut per_bank = [0u8; 32];
                let mut distinct = c0;
                for k in 0..c0 {
                    per_bank[((f0 + k) % 32) as usize] += 1;
                }
                for k in 0..c1 {
                    let x = f1 + k;
                    if !(f0..f0 + c0).contains(&x) {
                        per_bank[(x % 32) as usize] += 1;
                        distinct += 1;
                    }
                }
                let degree = per_bank.into_iter().max().unwrap_or(0) as u64;
                Some((
                    degree.max(per_tb(distinct * bb)).max(1) as u32,
                    distinct * bb,
                ))
            }
            Shape::Other => None,
        }
    }
}

/// Which steps between neighbouring lanes equal the first (`d`, lane 1
/// less lane 0), as bit masks: bit l of the first for the step from lane l
/// to l + 1 (l < 16), bit l of the second for the step from lane 15 + l to
/// 16 + l; and bit l of the third when lane 16 + l is at lane l's address.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn on_line(a: &[u32; 32]) -> (u32, u32, u32) {
    let d = a[1].wrapping_sub(a[0]);
    let (mut lo, mut hi, mut rep) = (0u32, 0u32, 0u32);
    for l in 0..16 {
        lo |= ((a[l + 1].wrapping_sub(a[l]) == d) as u32) << l;
        hi |= ((a[l + 16].wrapping_sub(a[l + 15]) == d) as u32) << l;
        rep |= ((a[l + 16] == a[l]) as u32) << l;
    }
    (lo, hi, rep)
}

/// `on_line` four lanes at a time (SSE2, which every x86-64 has).
#[cfg(target_arch = "x86_64")]
#[inline]
fn sse2_on_line(a: &[u32; 32]) -> (u32, u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86-64; every load reads four lanes inside
    // `a` (from lane 4k + 1, 4k + 15 or 4k + 16, k < 4: at most lane 31).
    unsafe {
        let p = a.as_ptr() as *const __m128i;
        let at = |l: usize| _mm_loadu_si128((a.as_ptr().add(l)) as *const __m128i);
        let d = _mm_set1_epi32(a[1].wrapping_sub(a[0]) as i32);
        let mask = |v: __m128i| _mm_movemask_ps(_mm_castsi128_ps(v)) as u32;
        let (mut lo, mut hi, mut rep) = (0u32, 0u32, 0u32);
        for k in 0..4 {
            let low = _mm_loadu_si128(p.add(k));
            let high = _mm_loadu_si128(p.add(k + 4));
            let s_lo = _mm_sub_epi32(at(4 * k + 1), low);
            let s_hi = _mm_sub_epi32(high, at(4 * k + 15));
            lo |= mask(_mm_cmpeq_epi32(s_lo, d)) << (4 * k);
            hi |= mask(_mm_cmpeq_epi32(s_hi, d)) << (4 * k);
            rep |= mask(_mm_cmpeq_epi32(high, low)) << (4 * k);
        }
        (lo, hi, rep)
    }
}

/// [`shared_transactions`] by counting every lane's bank words.
fn general<A: Addr>(
    addrs: &[A; 32],
    mask: u32,
    size: u32,
    bank_bytes: u32,
    transaction_bytes: u32,
) -> (u32, u64) {
    let bb = bank_bytes.max(1) as u64;
    let chunks = (size as u64).div_ceil(bb).max(1);
    let tb = transaction_bytes.max(1) as u64;
    // When the upper half-warp repeats the lower one (a common broadcast),
    // the lower half's words are all the distinct ones.
    let (lanes, mask) = if mask == u32::MAX && addrs[16..] == addrs[..16] {
        (16, 0xffff)
    } else {
        (32, mask)
    };
    // (bank, word) of every chunk of every active lane; at most 32 x 4. A lane
    // at its predecessor's address adds nothing (runs of a broadcast).
    let mut words = [0u32; 128];
    let mut n = 0;
    let mut prev = u64::MAX;
    let shift = if bb.is_power_of_two() {
        bb.trailing_zeros()
    } else {
        64
    };
    let mut lanes_left = mask & (u32::MAX >> (32 - lanes));
    while lanes_left != 0 {
        let l = lanes_left.trailing_zeros() as usize;
        lanes_left &= lanes_left - 1;
        let a = addrs[l].into() & 0x00ff_ffff;
        if a == prev {
            continue;
        }
        prev = a;
        let first = if shift < 64 { a >> shift } else { a / bb };
        for k in 0..chunks {
            if n < words.len() {
                words[n] = (first + k) as u32;
                n += 1;
            }
        }
    }
    let words = &mut words[..n];
    words.sort_unstable();
    let mut per_bank = [0u32; 32];
    let mut distinct = 0u32;
    let mut last = u64::MAX;
    for &w in words.iter() {
        let w = w as u64;
        if w != last {
            per_bank[(w % 32) as usize] += 1;
            distinct += 1;
            last = w;
        }
    }
    let degree = per_bank.into_iter().max().unwrap_or(0);
    let bytes = distinct as u64 * bb;
    (degree.max(bytes.div_ceil(tb) as u32).max(1), bytes)
}

/// The distinct 128-byte lines a warp's global access touches, each with the
/// number of its 32-byte sectors touched (at most 64 lines: 32 lanes, each
/// access of up to 16 bytes crossing at most one line boundary).
pub fn global_lines(addrs: &[u64; 32], mask: u32, size: u32, out: &mut [(u64, u32); 64]) -> usize {
    let mut sectors = [0u64; 64];
    let mut n = 0;
    for (l, &a) in addrs.iter().enumerate() {
        if mask >> l & 1 == 0 {
            continue;
        }
        let first = a / 32;
        let last = (a + size.max(1) as u64 - 1) / 32;
        for s in first..=last.min(first + 1) {
            if n < sectors.len() {
                sectors[n] = s;
                n += 1;
            }
        }
    }
    let sectors = &mut sectors[..n];
    sectors.sort_unstable();
    let mut lines = 0;
    let mut last = u64::MAX;
    for &s in sectors.iter() {
        if lines > 0 && s == last {
            continue;
        }
        last = s;
        let line = s / 4;
        if lines > 0 && out[lines - 1].0 == line {
            out[lines - 1].1 += 1;
        } else if lines < out.len() {
            out[lines] = (line, 1);
            lines += 1;
        }
    }
    lines
}

/// The SM's load/store units and the shared-memory pipeline behind them.
pub(super) struct Lsu {
    /// The cycle the LSU takes another instruction.
    pub(super) free: u64,
    /// The cycle shared memory takes another access.
    pub(super) shared_free: u64,
    /// When the shared-memory pipeline is free, to the fraction of a cycle.
    pub(super) shared_time: f64,
    /// [`pipeline_time`] of 0 to 128 transactions, worked out once.
    pub(super) times: Box<[(f64, u64); 129]>,
}

/// How long `tx` transactions keep the shared-memory pipeline busy, and the
/// whole cycles they add to the latency after the first one's.
fn pipeline_time(tx: u32, t: &Timing) -> (f64, u64) {
    let tx1 = tx.max(1) as f64;
    let busy = tx1 * t.shared_cycles_per_transaction + (tx1 - 1.0) * t.shared_replay_cycles as f64;
    // The latency counts from the first transaction; replays add theirs.
    let extra = ceil_u64((busy - t.shared_cycles_per_transaction).max(0.0));
    (busy, extra)
}

impl Lsu {
    pub(super) fn new(t: &Timing) -> Lsu {
        Lsu {
            free: 0,
            shared_free: 0,
            shared_time: 0.0,
            times: Box::new(std::array::from_fn(|tx| pipeline_time(tx as u32, t))),
        }
    }

    /// Times `tx` transactions, moving `bytes` distinct bytes, through the
    /// shared-memory pipeline from `now`; returns when the data are ready.
    /// A lone transaction that moves less than a whole one takes its share
    /// of a transaction's time, but at least `shared_min_cycles` (with
    /// `shared_cycles_by_bytes`).
    #[inline]
    pub(super) fn shared(
        &mut self,
        now: u64,
        tx: u32,
        bytes: u64,
        t: &Timing,
        stats: &mut Stats,
    ) -> u64 {
        let start = (now as f64).max(self.shared_time);
        let (busy, extra) = if tx == 1 && t.shared_cycles_by_bytes == 1 {
            let share = bytes as f64 / t.shared_transaction_bytes.max(1) as f64;
            (
                (t.shared_cycles_per_transaction * share)
                    .clamp(t.shared_min_cycles, t.shared_cycles_per_transaction),
                0,
            )
        } else {
            match self.times.get(tx as usize) {
                Some(&x) => x,
                None => pipeline_time(tx, t),
            }
        };
        self.shared_time = start + busy;
        // (`as` truncates: the floor of a cycle count.)
        self.shared_free = self.shared_time as u64;
        self.free = self.free.max(self.shared_free);
        stats.shared_transactions += tx as u64;
        stats.shared_instructions += 1;
        ceil_u64(start) + extra + t.lds_latency as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(stride: u64) -> [u64; 32] {
        std::array::from_fn(|l| l as u64 * stride)
    }

    #[test]
    fn shared_transactions_by_width() {
        // 8-byte banks: LDS.32 and LDS.64 in one transaction, LDS.128 in two.
        assert_eq!(shared_transactions(&seq(4), !0, 4, 8, 256), 1);
        assert_eq!(shared_transactions(&seq(8), !0, 8, 8, 256), 1);
        assert_eq!(shared_transactions(&seq(16), !0, 16, 8, 256), 2);
        // Broadcast: every lane reads one word.
        assert_eq!(shared_transactions(&[64u64; 32], !0, 4, 8, 256), 1);
        // Stride of 32 words in 4-byte banks: all lanes in bank 0, 32-way.
        assert_eq!(shared_transactions(&seq(128), !0, 4, 4, 256), 32);
        // 4-byte banks: LDS.64 of consecutive lanes touches each bank twice.
        assert_eq!(shared_transactions(&seq(8), !0, 8, 4, 256), 2);
        assert_eq!(shared_transactions(&seq(4), 0, 4, 4, 256), 0);
        // Each half-warp at its own word: in one bank (4-byte banks, 32
        // words apart), two transactions; in two banks, one.
        let pair: [u64; 32] = std::array::from_fn(|l| if l < 16 { 0x100 } else { 0x180 });
        assert_eq!(shared_transactions(&pair, !0, 4, 4, 256), 2);
        assert_eq!(shared_transactions(&pair, !0, 4, 8, 256), 1);
    }

    #[test]
    fn the_fast_cases_agree_with_the_general_count() {
        for size in [4u32, 8, 16] {
            for bb in [4u32, 8] {
                for (stride, base) in [
                    (0u64, 0x100u64),
                    (0, 0x104),
                    (size as u64, 0x100),
                    (size as u64, 0x200),
                ] {
                    let a = seq(stride).map(|x| x + base);
                    // The shapes' counts of transactions and distinct
                    // bytes are the general count's.
                    assert_eq!(
                        shared_transactions_with_bytes(&a, !0, size, bb, 256),
                        general(&a, !0, size, bb, 256),
                        "size {size} bank {bb} stride {stride} base {base:#x}"
                    );
                }
            }
        }
    }

    /// The count by definition: distinct bank words, the busiest bank's.
    fn by_definition(addrs: &[u64; 32], mask: u32, size: u32, bb: u32, tb: u32) -> u32 {
        let mut words = std::collections::BTreeSet::new();
        for (l, &a) in addrs.iter().enumerate() {
            if mask >> l & 1 == 1 {
                for k in 0..(size as u64).div_ceil(bb as u64).max(1) {
                    words.insert((a & 0x00ff_ffff) / bb as u64 + k);
                }
            }
        }
        let mut per = [0u32; 32];
        for w in &words {
            per[(w % 32) as usize] += 1;
        }
        let degree = per.into_iter().max().unwrap_or(0);
        degree
            .max((words.len() as u64 * bb as u64).div_ceil(tb as u64) as u32)
            .max(1)
    }

    proptest::proptest! {
        #[test]
        fn the_vector_steps_are_the_scalar_ones(
            base in 0u32..4096,
            stride in proptest::sample::select(vec![0u32, 4, 8, 16]),
            noise in proptest::array::uniform32(proptest::prop_oneof![3 => proptest::strategy::Just(0u32), 1 => 0u32..64]),
            upper in 0u8..3,
        ) {
            // A line, the upper half repeating it, going on, or anywhere;
            // with a few lanes moved.
            let a: [u32; 32] = std::array::from_fn(|l| {
                let i = match upper { 0 => l % 16, 1 => l, _ => l * 7 % 32 } as u32;
                base + stride * i + noise[l]
            });
            #[cfg(target_arch = "x86_64")]
            proptest::prop_assert_eq!(sse2_on_line(&a), on_line(&a));
            proptest::prop_assert_eq!(Shape::of(&a), Shape::from_steps(&a, on_line(&a)));
        }

        #[test]
        fn the_half_warp_patterns_are_the_definition(
            base in proptest::array::uniform2(0u64..4096),
            stride in proptest::sample::select(vec![0u64, 4, 8, 12, 16, 24, 32, 40, 64, 128, 256]),
            repeat in proptest::bool::ANY,
            size in proptest::sample::select(vec![4u32, 8, 16]),
            bb in proptest::sample::select(vec![4u32, 8]),
        ) {
            // Each half-warp affine from its own base (or the upper one
            // repeating the lower), as tiled kernels' LDS/STS are.
            let a: [u64; 32] = std::array::from_fn(|l| {
                let (h, i) = (l / 16, (l % 16) as u64);
                let b = if repeat { base[0] } else { base[h] };
                (b * size as u64) + stride * i
            });
            // The bases are multiples of the access size only: an `LDS.32`
            // may start 4 bytes into an 8-byte bank word.
            proptest::prop_assert_eq!(
                shared_transactions(&a, u32::MAX, size, bb, 256),
                by_definition(&a, u32::MAX, size, bb, 256)
            );
            // The fast LDS/STS path's 32-bit addresses count the same.
            proptest::prop_assert_eq!(
                shared_transactions(&a.map(|x| x as u32), u32::MAX, size, bb, 256),
                by_definition(&a, u32::MAX, size, bb, 256)
            );
        }

        #[test]
        fn the_count_is_the_definition(
            pool in proptest::collection::vec(0u64..4096, 1..32),
            picks in proptest::collection::vec(0usize..32, 32),
            halves in proptest::bool::ANY,
            one_bank in proptest::bool::ANY,
            mask in proptest::prop_oneof![proptest::strategy::Just(u32::MAX), 0u32..=u32::MAX],
            size in proptest::sample::select(vec![4u32, 8, 16]),
            bb in proptest::sample::select(vec![4u32, 8]),
        ) {
            // `one_bank` puts every word in bank 0: more than four words a bank.
            let unit = if one_bank { 256 } else { size as u64 };
            let mut a: [u64; 32] = std::array::from_fn(|l| pool[picks[l] % pool.len()] * unit);
            if halves {
                for l in 16..32 {
                    a[l] = a[l - 16];
                }
            }
            if mask == 0 {
                return Ok(());
            }
            proptest::prop_assert_eq!(
                shared_transactions(&a, mask, size, bb, 256),
                by_definition(&a, mask, size, bb, 256)
            );
            proptest::prop_assert_eq!(
                shared_transactions(&a.map(|x| x as u32), mask, size, bb, 256),
                by_definition(&a, mask, size, bb, 256)
            );
        }
    }

    #[test]
    fn global_coalescing() {
        let mut out = [(0, 0); 64];
        // 32 x 4 bytes, consecutive: one line, 4 sectors.
        assert_eq!(global_lines(&seq(4), !0, 4, &mut out), 1);
        assert_eq!(out[0], (0, 4));
        // 32 x 16 bytes: 4 lines of 4 sectors.
        assert_eq!(global_lines(&seq(16), !0, 16, &mut out), 4);
        assert!(out[..4].iter().all(|&(_, s)| s == 4));
        // Stride 128: 32 lines, a sector each.
        assert_eq!(global_lines(&seq(128), !0, 4, &mut out), 32);
        assert_eq!(global_lines(&[0; 32], !0, 4, &mut out), 1);
        assert_eq!(out[0], (0, 1));
    }
}
