//! A tag store: set-associative, least recently used, no data (the values live
//! in the functional memories). The SM's instruction cache and its read-only
//! (texture) cache are ones.

/// Tags of `sets x ways` lines.
pub struct Tags {
    tags: Vec<u64>,
    used: Vec<u64>,
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
            sets,
            ways,
            stamp: 0,
        }
    }

    /// Whether line `tag` is held; brings it in (evicting the least recently
    /// used of its set) when not.
    pub fn lookup(&mut self, tag: u64) -> bool {
        let base = (tag % self.sets as u64) as usize * self.ways;
        self.stamp += 1;
        let ways = &self.tags[base..base + self.ways];
        if let Some(w) = ways.iter().position(|&t| t == tag) {
            self.used[base + w] = self.stamp;
            return true;
        }
        let victim = (0..self.ways)
            .min_by_key(|&w| self.used[base + w])
            .unwrap_or(0);
        self.tags[base + victim] = tag;
        self.used[base + victim] = self.stamp;
        false
    }
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
}
