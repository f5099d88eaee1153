//! The memory behind the SMs: the shared L2 (set-associative, LRU, one tag per
//! 128-byte line), its bandwidth, and DRAM's bandwidth and latency; and each
//! SM's limit on outstanding line requests, one for LD/ST through L2 and one
//! for the read-only path.
//!
//! Requests are timed when they are made: a line request from an SM at cycle
//! `t` starts when the SM has a free request slot (the request `limit` places
//! before it has completed) and the L2 can take its sectors; a miss then
//! queues for DRAM. Requests are made in a fixed order (SMs in index order
//! within a cycle), so results are deterministic.

use crate::config::Timing;

/// A path from an SM to L2 with its own outstanding-request limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// LD/ST/ATOM through L2.
    L2,
    /// LDG through the read-only (texture) path.
    ReadOnly,
}

/// Each SM's outstanding request slots on one path: the completion cycle of
/// the last `limit` requests, oldest first (a ring).
#[derive(Debug, Clone)]
pub struct Slots {
    done: Vec<u64>,
    head: usize,
}

impl Slots {
    pub fn new(limit: u32) -> Slots {
        Slots {
            done: vec![0; limit.max(1) as usize],
            head: 0,
        }
    }

    /// When the next request may start.
    #[inline]
    pub fn free_at(&self) -> u64 {
        self.done[self.head]
    }

    fn take(&mut self, done: u64) {
        self.done[self.head] = done;
        self.head = (self.head + 1) % self.done.len();
    }
}

/// A bandwidth server's calendar: capacity per bucket of cycles, reserved in
/// the order requests are made but each at the earliest bucket at or after its
/// own start that has room, so a request timed far ahead does not hold back one
/// that arrives earlier (requests are timed when issued, not when they arrive).
#[derive(Debug, Clone)]
pub struct Calendar {
    /// Bytes each bucket serves.
    cap: f64,
    /// Cycles per bucket.
    width: u64,
    /// Bytes reserved in each bucket of the window, a ring from bucket `base`.
    used: Vec<f64>,
    base: u64,
}

impl Calendar {
    /// A server of `bytes_per_cycle`.
    pub fn new(bytes_per_cycle: f64) -> Calendar {
        const WIDTH: u64 = 8;
        Calendar {
            cap: bytes_per_cycle * WIDTH as f64,
            width: WIDTH,
            used: vec![0.0; 1 << 16],
            base: 0,
        }
    }

    /// Reserves `bytes` from cycle `start` on (never before `now`); returns
    /// the cycle they are served by.
    pub fn reserve(&mut self, now: u64, start: u64, bytes: f64) -> u64 {
        let n = self.used.len() as u64;
        // Forget buckets wholly in the past.
        let first = now / self.width;
        if first > self.base + n {
            self.used.fill(0.0);
            self.base = first;
        }
        while self.base < first {
            let i = (self.base % n) as usize;
            self.used[i] = 0.0;
            self.base += 1;
        }
        let mut b = (start.max(now) / self.width).max(self.base);
        let mut left = bytes;
        loop {
            if b >= self.base + n {
                // Beyond the window: served at its end (saturated far ahead).
                return b * self.width;
            }
            let i = (b % n) as usize;
            let room = self.cap - self.used[i];
            if room >= left {
                self.used[i] += left;
                let frac = self.used[i] / self.cap;
                return (b * self.width + super::ceil_u64(frac * self.width as f64)).max(start);
            }
            if room > 0.0 {
                self.used[i] = self.cap;
                left -= room;
            }
            b += 1;
        }
    }
}

/// Counters of the memory system.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct MemStats {
    pub l2_hits: u64,
    pub l2_misses: u64,
    /// 32-byte sectors read from or written to L2.
    pub l2_sectors: u64,
    pub dram_sectors: u64,
    /// The same split by direction: sectors read and written at L2, read
    /// from and written to DRAM, and the reads' line hits.
    pub l2_read_sectors: u64,
    pub l2_write_sectors: u64,
    pub dram_read_sectors: u64,
    pub dram_write_sectors: u64,
    pub l2_read_hits: u64,
    pub l2_read_misses: u64,
    /// Line reads through L2 for LD/ST (and atomics' reads) and the cycles
    /// they waited, summed, for one of their SM's request slots
    /// (`ld_outstanding`); the same on the read-only path (`LDG`,
    /// `ldg_outstanding`).
    pub ld_lines: u64,
    pub ld_slot_wait: u64,
    pub ldg_lines: u64,
    pub ldg_slot_wait: u64,
}

/// L2 and DRAM, shared by every SM.
#[derive(Debug, Clone)]
pub struct Memory {
    sets: usize,
    ways: usize,
    line_shift: u32,
    /// Bits of the set index: the width of each field [`Memory::set_of`]
    /// folds onto it under `l2_set_hash` 1; 0 under 0 (no folding).
    fold: u32,
    /// Tags (line address + 1; 0 is empty), `sets x ways`.
    tags: Vec<u64>,
    /// Last use of each way (for LRU).
    used: Vec<u64>,
    /// The cycle each way's line is filled: a read that finds a line whose
    /// miss is still on its way from DRAM waits for it (its data cannot come
    /// back before the line does), as a merged miss.
    filled: Vec<u64>,
    stamp: u64,
    /// The L2's and DRAM's bandwidth.
    l2_bw: Calendar,
    dram_bw: Calendar,
    l2_latency: u64,
    ldg_latency: u64,
    dram_latency: u64,
    pub stats: MemStats,
}

impl Memory {
    pub fn new(t: &Timing) -> Memory {
        let lines = (t.l2_bytes / t.l2_line).max(1) as usize;
        let ways = (t.l2_ways as usize).min(lines).max(1);
        let sets = (lines / ways).max(1);
        Memory {
            sets,
            ways,
            line_shift: t.l2_line.trailing_zeros(),
            fold: if t.l2_set_hash >= 1 {
                (sets as u64).next_power_of_two().trailing_zeros().max(1)
            } else {
                0
            },
            tags: vec![0; sets * ways],
            used: vec![0; sets * ways],
            filled: vec![0; sets * ways],
            stamp: 0,
            l2_bw: Calendar::new(t.l2_bytes_per_cycle as f64),
            dram_bw: Calendar::new(t.dram_bytes_per_cycle),
            l2_latency: t.l2_latency as u64,
            ldg_latency: t.ldg_latency as u64,
            dram_latency: t.dram_latency as u64,
            stats: MemStats::default(),
        }
    }

    /// The fewest cycles a [`Memory::read`] on `path` takes under `t`: an L2
    /// hit with the bandwidth and the request slots free.
    pub fn least_latency(t: &Timing, path: Path) -> u64 {
        match path {
            Path::L2 => t.l2_latency as u64,
            Path::ReadOnly => t.ldg_latency as u64,
        }
    }

    /// The set of line address `addr`: the address modulo the sets, or
    /// under `l2_set_hash` 1 (`fold` > 0) its bit fields of the set index's
    /// width folded onto the lowest by exclusive or first, so that lines a
    /// multiple of the sets apart (rows of a matrix whose pitch is such a
    /// multiple) spread over the sets instead of sharing one.
    #[inline]
    fn set_of(&self, addr: u64) -> usize {
        let mut key = addr;
        if self.fold > 0 {
            let mut rest = addr >> self.fold;
            while rest != 0 {
                key ^= rest;
                rest >>= self.fold;
            }
        }
        super::cache::set_of(key, self.sets)
    }

    /// Looks `line` (a byte address / 128) up: `Ok` with the cycle it is
    /// filled when held, or `Err` with the way it now takes (its fill cycle
    /// for the caller to set) when not.
    fn lookup(&mut self, line: u64) -> Result<u64, usize> {
        let addr = line << 7 >> self.line_shift;
        let base = self.set_of(addr) * self.ways;
        self.stamp += 1;
        let ways = &mut self.tags[base..base + self.ways];
        if let Some(w) = ways.iter().position(|&t| t == addr + 1) {
            self.used[base + w] = self.stamp;
            return Ok(self.filled[base + w]);
        }
        let victim = (0..self.ways)
            .min_by_key(|&w| self.used[base + w])
            .unwrap_or(0);
        self.tags[base + victim] = addr + 1;
        self.used[base + victim] = self.stamp;
        Err(base + victim)
    }

    /// Times a read of `sectors` 32-byte sectors of 128-byte line `line`,
    /// requested at `now` on `path` through `slots`; returns the cycle its
    /// data is back at the SM.
    pub fn read(
        &mut self,
        now: u64,
        line: u64,
        sectors: u32,
        path: Path,
        slots: &mut Slots,
    ) -> u64 {
        let bytes = sectors as f64 * 32.0;
        let free = slots.free_at();
        let start = self.l2_bw.reserve(now, now.max(free), bytes);
        self.stats.l2_sectors += sectors as u64;
        self.stats.l2_read_sectors += sectors as u64;
        let wait = free.saturating_sub(now);
        let base = match path {
            Path::L2 => {
                self.stats.ld_lines += 1;
                self.stats.ld_slot_wait += wait;
                self.l2_latency
            }
            Path::ReadOnly => {
                self.stats.ldg_lines += 1;
                self.stats.ldg_slot_wait += wait;
                self.ldg_latency
            }
        };
        let done = match self.lookup(line) {
            Ok(filled) => {
                self.stats.l2_hits += 1;
                self.stats.l2_read_hits += 1;
                start.max(filled) + base
            }
            Err(way) => {
                self.stats.l2_misses += 1;
                self.stats.l2_read_misses += 1;
                self.stats.dram_sectors += sectors as u64;
                self.stats.dram_read_sectors += sectors as u64;
                let filled = self.dram_bw.reserve(now, start, bytes) + self.dram_latency;
                self.filled[way] = filled;
                filled + base
            }
        };
        slots.take(done);
        done
    }

    /// Times a write of `sectors` sectors of `line` (write-back L2: the line is
    /// allocated; the write takes L2 bandwidth, and DRAM's on a miss).
    pub fn write(&mut self, now: u64, line: u64, sectors: u32) {
        let bytes = sectors as f64 * 32.0;
        let start = self.l2_bw.reserve(now, now, bytes);
        self.stats.l2_sectors += sectors as u64;
        self.stats.l2_write_sectors += sectors as u64;
        match self.lookup(line) {
            Ok(_) => self.stats.l2_hits += 1,
            Err(way) => {
                self.stats.l2_misses += 1;
                self.stats.dram_sectors += sectors as u64;
                self.stats.dram_write_sectors += sectors as u64;
                self.dram_bw.reserve(now, start, bytes);
                // Write-back: the written bytes are in L2 from the write on.
                self.filled[way] = start;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_after_a_miss_and_lru() {
        let t = Timing {
            l2_bytes: 128 * 4,
            l2_ways: 2,
            ..Timing::K20M
        };
        let mut m = Memory::new(&t);
        let mut s = Slots::new(1000);
        let miss = m.read(0, 5, 4, Path::L2, &mut s);
        let hit = m.read(miss, 5, 4, Path::L2, &mut s);
        assert!(miss >= t.l2_latency as u64 + t.dram_latency as u64);
        assert_eq!(hit - miss, t.l2_latency as u64);
        assert_eq!((m.stats.l2_hits, m.stats.l2_misses), (1, 1));
    }

    #[test]
    fn a_read_of_a_line_still_on_its_way_waits_for_it() {
        let t = Timing::K20M;
        let mut m = Memory::new(&t);
        let mut s = Slots::new(1000);
        let miss = m.read(0, 7, 4, Path::L2, &mut s);
        // A cycle later the line is L2's, but its data are still coming
        // from DRAM: the second read's come back with the first's.
        let merged = m.read(1, 7, 4, Path::L2, &mut s);
        assert_eq!(merged, miss);
        assert!(merged > 1 + t.l2_latency as u64);
        // The read-only path's answer is faster, from the same fill.
        let ro = m.read(2, 7, 4, Path::ReadOnly, &mut s);
        assert_eq!(ro, miss - t.l2_latency as u64 + t.ldg_latency as u64);
        // Once it is filled, a read is an ordinary hit.
        let late = m.read(miss, 7, 4, Path::L2, &mut s);
        assert_eq!(late, miss + t.l2_latency as u64);
        assert_eq!((m.stats.l2_hits, m.stats.l2_misses), (3, 1));
        // A written line is L2's at once.
        m.write(5000, 9, 4);
        assert_eq!(
            m.read(5001, 9, 4, Path::L2, &mut s),
            5001 + t.l2_latency as u64
        );
    }

    #[test]
    fn a_calendar_serves_its_bandwidth_and_lets_early_requests_pass() {
        let mut c = Calendar::new(32.0);
        // 100 requests of 320 bytes at cycle 0: 10 cycles each, in turn.
        let last = (0..100).map(|_| c.reserve(0, 0, 320.0)).max().unwrap();
        assert!((995..=1010).contains(&last), "{last}");
        // One timed far ahead does not hold back one that starts earlier.
        let mut c = Calendar::new(32.0);
        assert!(c.reserve(0, 5000, 320.0) >= 5000);
        assert!(c.reserve(0, 10, 320.0) <= 30);
    }

    #[test]
    fn outstanding_limit_bounds_bandwidth() {
        // One slot: each request waits for the previous one.
        let t = Timing::K20M;
        let mut m = Memory::new(&t);
        let mut s = Slots::new(1);
        let a = m.read(0, 1, 4, Path::L2, &mut s);
        let b = m.read(0, 2, 4, Path::L2, &mut s);
        assert!(b >= a + t.l2_latency as u64);
        // The second line waited for the first's slot, and is counted so;
        // the read-only path's own slots are free.
        assert_eq!((m.stats.ld_lines, m.stats.ld_slot_wait), (2, a));
        let mut ro = Slots::new(1);
        m.read(0, 3, 4, Path::ReadOnly, &mut ro);
        assert_eq!((m.stats.ldg_lines, m.stats.ldg_slot_wait), (1, 0));
    }

    #[test]
    fn the_fold_spreads_lines_a_multiple_of_the_sets_apart() {
        // 32 lines 480 KB (3840 lines) apart over the K20m's 640 sets:
        // taken modulo they share one set, twice its 16 ways; folded, they
        // take 32 sets, one each.
        for (hash, sets, most) in [(0, 1, 32), (1, 32, 1)] {
            let t = Timing {
                l2_set_hash: hash,
                ..Timing::K20M
            };
            let m = Memory::new(&t);
            assert_eq!(m.sets, 640);
            let mut count = vec![0u32; m.sets];
            for i in 0..32u64 {
                count[m.set_of(12345 + 3840 * i)] += 1;
            }
            let used = count.iter().filter(|&&c| c > 0).count();
            let max = count.iter().copied().max().unwrap_or(0);
            assert_eq!((used, max), (sets, most), "l2_set_hash {hash}");
        }
        // A chase round and round those lines misses every time taken
        // modulo (LRU), and hits from its second round on folded.
        for (hash, hits) in [(0, 0), (1, 32)] {
            let t = Timing {
                l2_set_hash: hash,
                ..Timing::K20M
            };
            let mut m = Memory::new(&t);
            let mut s = Slots::new(1000);
            for round in 0..2 {
                for i in 0..32u64 {
                    m.read(round * 10_000, 12345 + 3840 * i, 4, Path::L2, &mut s);
                }
            }
            assert_eq!(m.stats.l2_hits, hits, "l2_set_hash {hash}");
        }
    }
}
