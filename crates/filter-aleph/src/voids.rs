//! The void groups: which void entries are copies of one another, for deletes.
//!
//! An entry that runs out of fingerprint bits at doubling `level` sits at one address `origin`
//! of that table; each later doubling copies it to both halves, so after `k` doublings its
//! copies fill the aligned range `origin·2^(k-level) ..< (origin+1)·2^(k-level)`, one per
//! address. A lookup needs none of this (it reads one run); a delete of a key whose most
//! specific match is void removes one void entry from every address of the group, and must
//! know the group. The table cannot tell it (every void entry is the same bits), so the filter
//! keeps this list: one `(level, origin)` per group (the keys whose fingerprints ran out:
//! none before an estimate is reached), saved with the table.
//!
//! Which group: the most specific one that covers the key's address, the highest level. That
//! is the longest-match rule of deletes carried over to void entries (a group of a higher
//! level covers a subset of the addresses of any lower group that covers the same address),
//! so whichever key owned it, every key still held is still covered (see the crate's docs).

use std::collections::BTreeMap;

/// The void groups, by `(level, origin)`, with how many groups share that pair.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Voids {
    groups: BTreeMap<(u32, u64), u32>,
}

impl Voids {
    /// Records a group.
    pub fn add(&mut self, level: u32, origin: u64) {
        self.add_many(level, origin, 1);
    }

    /// Records `n` groups of one `(level, origin)` (saturating).
    pub fn add_many(&mut self, level: u32, origin: u64, n: u32) {
        let c = self.groups.entry((level, origin)).or_insert(0);
        *c = c.saturating_add(n);
    }

    /// The most specific group covering address `a` of a table doubled `k` times.
    pub fn covering(&self, a: u64, k: u32) -> Option<(u32, u64)> {
        (0..=k)
            .rev()
            .map(|level| (level, a >> (k - level)))
            .find(|key| self.groups.contains_key(key))
    }

    /// Forgets one group of `(level, origin)`.
    pub fn take(&mut self, level: u32, origin: u64) {
        if let Some(c) = self.groups.get_mut(&(level, origin)) {
            *c -= 1;
            if *c == 0 {
                self.groups.remove(&(level, origin));
            }
        }
    }

    /// `(level, origin, groups)` in order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u64, u32)> + '_ {
        self.groups.iter().map(|(&(l, o), &c)| (l, o, c))
    }

    /// Distinct `(level, origin)` pairs.
    pub fn pairs(&self) -> usize {
        self.groups.len()
    }

    /// Void entries in a table doubled `k` times: `2^(k - level)` per group.
    pub fn copies(&self, k: u32) -> u64 {
        self.iter()
            .map(|(l, _, c)| u64::from(c) << k.saturating_sub(l))
            .fold(0, u64::saturating_add)
    }

    /// Heap bytes (a B-tree entry is about 16 bytes of key and value, and the tree's nodes).
    pub fn bytes(&self) -> usize {
        self.groups.len() * 24
    }

    /// Void entries per address that the groups give, for the addresses that have any (to
    /// check a loaded table against): `None` when that is more than `limit` addresses.
    pub fn coverage(&self, k: u32, limit: u64) -> Option<BTreeMap<u64, u32>> {
        let mut per = BTreeMap::new();
        if self.copies(k) > limit {
            return None;
        }
        for (level, origin, c) in self.iter() {
            let span = k - level;
            for a in origin << span..(origin + 1) << span {
                *per.entry(a).or_insert(0) += c;
            }
        }
        Some(per)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_most_specific_group_covers() {
        let mut v = Voids::default();
        v.add(3, 5); // at k = 6: addresses 40..48
        v.add(5, 21); // at k = 6: 42..44
        assert_eq!(v.covering(42, 6), Some((5, 21)));
        assert_eq!(v.covering(41, 6), Some((3, 5)));
        assert_eq!(v.covering(48, 6), None);
        assert_eq!(v.copies(6), 8 + 2);
        v.add(5, 21);
        assert_eq!(v.copies(6), 12);
        let per = v.coverage(6, 100).unwrap();
        assert_eq!(per[&42], 3);
        assert_eq!(per[&40], 1);
        assert_eq!(v.coverage(6, 11), None);
        v.take(5, 21);
        v.take(5, 21);
        assert_eq!(v.covering(42, 6), Some((3, 5)));
        v.take(9, 9); // nothing to take
        assert_eq!(v.pairs(), 1);
    }
}
