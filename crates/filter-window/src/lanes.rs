//! Lane-sliced generations: `m` positions, each a lane of `S` bits (one per generation), packed
//! `64 / S` lanes to a `u64` word. A key probes the same `k` positions in every generation, so a
//! lookup reads `k` words once and ANDs their lanes: the generations in which all `k` bits are
//! set survive, and the key is "maybe" when one of them is still in the window.

use crate::math;
use filter_core::{Error, Hash128, IndexGen, Result, Table, TableOptions};

/// The generations' bits and item counts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lanes {
    pub(crate) words: Table<u64>,
    pub(crate) m: u64,
    pub(crate) k: u32,
    /// `log2(S)`: lane width.
    pub(crate) lane_log2: u32,
    /// Items inserted into each generation slot since it was last cleared.
    pub(crate) counts: Vec<u64>,
}

impl Lanes {
    /// Zeroed lanes for `slots` generations (a power of two in `2..=64`), `m` positions, in a
    /// table allocated with `options` (memory cap and page advice).
    pub(crate) fn new(slots: u32, m: u64, k: u32, options: TableOptions) -> Result<Self> {
        debug_assert!(slots.is_power_of_two() && (2..=64).contains(&slots));
        let lane_log2 = slots.trailing_zeros();
        let per_word = 64 >> lane_log2;
        let m = m.max(1).next_multiple_of(per_word);
        let words = usize::try_from(m / per_word).map_err(|_| Error::SizeOverflow {
            what: "window lanes",
            hint: format!("{m} positions do not fit this platform's address space"),
        })?;
        Ok(Lanes {
            words: filter_core::try_zeroed_table(words, options, "window lanes")?,
            m,
            k,
            lane_log2,
            counts: vec![0; slots as usize],
        })
    }

    pub(crate) fn slots(&self) -> u32 {
        1 << self.lane_log2
    }

    pub(crate) fn size_in_bytes(&self) -> usize {
        self.words.len() * 8
    }

    pub(crate) fn huge_page_bytes(&self) -> Option<u64> {
        self.words.huge_page_bytes()
    }

    /// Word index and bit offset of position `p`'s lane.
    #[inline]
    fn locate(&self, p: u64) -> (usize, u32) {
        let per_word_log2 = 6 - self.lane_log2;
        let word = (p >> per_word_log2) as usize;
        let lane = (p & ((1 << per_word_log2) - 1)) as u32;
        (word, lane << self.lane_log2)
    }

    fn lane_mask(&self) -> u64 {
        u64::MAX >> (64 - self.slots())
    }

    /// Sets the key's `k` bits in generation `slot`.
    pub(crate) fn insert(&mut self, hash: Hash128, slot: u32) {
        let mut idx = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            let (w, off) = self.locate(idx.next());
            self.words[w] |= 1 << (off + slot);
        }
        self.counts[slot as usize] += 1;
    }

    /// The bits an insert of the key into generation `slot` sets, as indexes into the table
    /// read as one bit array (lane `p` holds bits `p·S .. p·S + S`).
    pub(crate) fn bits(&self, hash: Hash128, slot: u32) -> Vec<u64> {
        let s = u64::from(self.slots());
        let mut idx = IndexGen::new(hash, self.m);
        (0..self.k)
            .map(|_| idx.next() * s + u64::from(slot))
            .collect()
    }

    /// Bits of the table: `m` lanes of `S` bits.
    pub(crate) fn table_bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// Starts loading the `k` words a key touches.
    pub(crate) fn prefetch(&self, hash: Hash128) {
        let mut idx = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            let (w, _) = self.locate(idx.next());
            filter_core::prefetch(&self.words[w]);
        }
    }

    /// Whether all `k` bits of the key are set in one of the generations of `live` (a bit mask
    /// of slots).
    pub(crate) fn contains(&self, hash: Hash128, live: u64) -> bool {
        let mut acc = live & self.lane_mask();
        let mut idx = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            if acc == 0 {
                return false;
            }
            let (w, off) = self.locate(idx.next());
            acc &= self.words[w] >> off;
        }
        acc != 0
    }

    /// Empties generation `slot` (every lane's bit `slot`), for reuse by a new generation.
    pub(crate) fn clear_slot(&mut self, slot: u32) {
        let s = self.slots();
        // One bit per lane: all ones divided by the all-ones lane.
        let pattern = if s == 64 {
            1
        } else {
            u64::MAX / (u64::MAX >> (64 - s))
        };
        let keep = !(pattern << slot);
        self.words.iter_mut().for_each(|w| *w &= keep);
        self.counts[slot as usize] = 0;
    }

    /// Empties every generation.
    pub(crate) fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
        self.counts.iter_mut().for_each(|c| *c = 0);
    }

    /// Items inserted into the generations of `live`.
    pub(crate) fn items(&self, live: u64) -> u64 {
        self.live_counts(live).sum()
    }

    fn live_counts(&self, live: u64) -> impl Iterator<Item = u64> + '_ {
        self.counts
            .iter()
            .enumerate()
            .filter(move |(j, _)| live >> j & 1 == 1)
            .map(|(_, &c)| c)
    }

    /// [`math::sliced_fpr`] over the generations of `live`, at their real counts.
    pub(crate) fn expected_fpr(&self, live: u64) -> f64 {
        math::sliced_fpr(self.k, self.m, self.live_counts(live))
    }
}

#[cfg(test)]
mod tests;
