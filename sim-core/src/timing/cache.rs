//! A tag store: set-associative, least recently used, no data (the values live
//! in the functional memories). The SM's instruction cache and its read-only
//! (texture) cache are ones.

/// Tags of `sets x ways` lines.
pub struct Tags {
    tags: Vec<u64>,
    used: Vec<u64>,
    /// The cycle each way's line is filled ([`Tags::lookup_filled`]).
    filled: Vec<u64>,
    sets: usize,
    ways: usize,
    stamp: u64,
}

impl Tags {
    /// A store of `lines` lines (at least one set of `ways`).
    pub fn new(lines: u32, ways: u32) -> Tags {
        let ways = ways.max(1) as usize;
        let sets = (lines as usize / ways).max(1);
        Tags {
            tags: vec![u64::MAX; sets * ways],
            used: vec![0; sets * ways],
            filled: vec![0; sets * ways],
            sets,
            ways,
            stamp: 0,
        }
    }

    /// Whether line `tag` is held; brings it in (evicting the least recently
    /// used of its set) when not.
    pub fn lookup(&mut self, tag: u64) -> bool {
        self.find(tag).is_ok()
    }

    /// [`Tags::lookup`] for a cache whose lines take time to arrive: the
    /// cycle line `tag` is (or will be) filled when it is held; `None` when
    /// not, and it is brought in to be filled at `fill`.
    pub fn lookup_filled(&mut self, tag: u64, fill: u64) -> Option<u64> {
        match self.find(tag) {
            Ok(way) => Some(self.filled[way]),
            Err(way) => {
                self.filled[way] = fill;
                None
            }
        }
    }

    /// The way (an index into the arrays) that holds line `tag`, or the one
    /// it now takes, evicting the least recently used of its set.
    fn find(&mut self, tag: u64) -> Result<usize, usize> {
        let base = set_of(tag, self.sets) * self.ways;
        self.stamp += 1;
        if self.ways == 4 {
            // The instruction cache's: its set as arrays, in registers.
            return self.find_in::<4>(base, tag);
        }
        self.find_any(base, tag)
    }

    /// [`Tags::find`] in the set from `base`, of any number of ways (out
    /// of line: the 4-way path then saves nothing for it).
    #[inline(never)]
    fn find_any(&mut self, base: usize, tag: u64) -> Result<usize, usize> {
        // Every way compared, without an early exit: which way holds a line
        // is not something the host's branch predictor can learn. (A set
        // holds a tag at most once.)
        let mut hit = usize::MAX;
        for (w, &t) in self.tags[base..base + self.ways].iter().enumerate() {
            if t == tag {
                hit = w;
            }
        }
        if hit != usize::MAX {
            self.used[base + hit] = self.stamp;
            return Ok(base + hit);
        }
        let victim = (0..self.ways)
            .min_by_key(|&w| self.used[base + w])
            .unwrap_or(0);
        self.tags[base + victim] = tag;
        self.used[base + victim] = self.stamp;
        Err(base + victim)
    }

    /// [`Tags::find`] in the set of `W` ways from `base`: the same hit,
    /// and the same victim (the least recently used, the first of equals).
    #[inline]
    fn find_in<const W: usize>(&mut self, base: usize, tag: u64) -> Result<usize, usize> {
        let (Some(tags), Some(used)) = (
            self.tags.get_mut(base..base + W),
            self.used.get_mut(base..base + W),
        ) else {
            // Not reached: `find` takes this path only for sets of W ways.
            return self.find_any(base, tag);
        };
        let mut hit = usize::MAX;
        for (w, &t) in tags.iter().enumerate() {
            if t == tag {
                hit = w;
            }
        }
        if let Some(u) = used.get_mut(hit) {
            *u = self.stamp;
            return Ok(base + hit);
        }
        let mut victim = 0;
        for w in 1..W {
            if used[w] < used[victim] {
                victim = w;
            }
        }
        tags[victim] = tag;
        used[victim] = self.stamp;
        Err(base + victim)
    }
}

/// The set of `tag` among `sets`: a mask when `sets` is a power of two (as
/// every configured cache has), which spares the host a 64-bit division on
/// every instruction fetch.
#[inline]
pub fn set_of(tag: u64, sets: usize) -> usize {
    let n = sets as u64;
    (if n.is_power_of_two() {
        tag & (n - 1)
    } else {
        tag % n
    }) as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_goes() {
        let mut c = Tags::new(2, 2); // one set of two
        assert!(!c.lookup(1));
        assert!(!c.lookup(2));
        assert!(c.lookup(1)); // 2 is now the older
        assert!(!c.lookup(3)); // evicts 2
        assert!(c.lookup(1));
        assert!(!c.lookup(2));
    }

    #[test]
    fn a_line_keeps_the_cycle_it_is_filled() {
        let mut c = Tags::new(2, 2); // one set of two
        assert_eq!(c.lookup_filled(1, 100), None);
        assert_eq!(c.lookup_filled(1, 5), Some(100)); // its first fill stands
        assert_eq!(c.lookup_filled(2, 50), None);
        assert_eq!(c.lookup_filled(1, 0), Some(100)); // 2 is now the older
        assert_eq!(c.lookup_filled(3, 70), None); // evicts 2
        assert_eq!(c.lookup_filled(2, 80), None);
        assert_eq!(c.lookup_filled(2, 0), Some(80));
    }

    #[test]
    fn hits_and_misses_follow_a_least_recently_used_list() {
        // Four ways (the arrays' path) and three (the general one) against a
        // list per set, most recent last.
        for ways in [4u32, 3] {
            let sets = 8u32;
            let mut c = Tags::new(sets * ways, ways);
            let mut lists: Vec<Vec<u64>> = vec![Vec::new(); sets as usize];
            let mut x = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..20_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let tag = x % 64;
                let list = &mut lists[(tag % sets as u64) as usize];
                let want = match list.iter().position(|&t| t == tag) {
                    Some(i) => {
                        list.remove(i);
                        true
                    }
                    None => {
                        if list.len() == ways as usize {
                            list.remove(0);
                        }
                        false
                    }
                };
                list.push(tag);
                assert_eq!(c.lookup(tag), want, "{ways} ways, tag {tag}");
            }
        }
    }

    #[test]
    fn the_set_is_the_remainder() {
        for sets in [1, 2, 3, 6, 8, 64, 96, 1024] {
            for tag in [0u64, 1, 5, 63, 64, 1000, 123_456_789, u64::MAX - 1] {
                assert_eq!(
                    set_of(tag, sets),
                    (tag % sets as u64) as usize,
                    "{tag} {sets}"
                );
            }
        }
    }
}
