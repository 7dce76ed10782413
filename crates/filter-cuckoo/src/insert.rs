//! Inserting: two choices, then one move, then the recorded random walk that is undone when
//! it fails (so a failed insert changes nothing).

use crate::{CuckooFilter, SLOTS};
use filter_core::{Error, Hash128, Result};

impl CuckooFilter {
    /// Puts `fp` in a free slot of `bucket` if there is one.
    #[inline]
    fn try_place(&mut self, bucket: u64, fp: u64) -> bool {
        match self.free_slot(bucket) {
            Some(j) => {
                self.set_slot(bucket, j, fp);
                true
            }
            None => false,
        }
    }

    /// Puts `fp` in the emptier of its two buckets (`i1` on a tie) if either has room. Both
    /// buckets are read before deciding: their cache misses overlap, and filling the emptier one
    /// (two choices, Azar et al. 1994) leaves fewer full buckets for the last inserts to kick.
    #[inline]
    fn place_in_emptier(&mut self, i1: u64, i2: u64, fp: u64) -> bool {
        let (j1, n1) = self.free_slots(i1);
        let (j2, n2) = self.free_slots(i2);
        let choice = if n2 > n1 {
            j2.map(|j| (i2, j))
        } else {
            j1.map(|j| (i1, j))
        };
        match choice {
            Some((b, j)) => {
                self.set_slot(b, j, fp);
                true
            }
            None => false,
        }
    }

    /// One breadth-first step of eviction: if a resident of the full `bucket` has room in its
    /// other bucket, moves it there and puts `fp` in its slot. The alternate buckets of all
    /// four residents are prefetched first, so their misses overlap instead of forming a chain.
    /// Changes nothing when no resident can move.
    fn place_by_moving_one(&mut self, bucket: u64, fp: u64) -> bool {
        let alts: [(u64, u64); SLOTS as usize] = std::array::from_fn(|j| {
            let v = self.slot(bucket, j as u32);
            (v, self.alt(bucket, v))
        });
        for &(_, a) in &alts {
            self.prefetch_bucket(a);
        }
        for (j, &(v, a)) in alts.iter().enumerate() {
            if a != bucket && self.try_place(a, v) {
                self.set_slot(bucket, j as u32, fp);
                return true;
            }
        }
        false
    }

    /// Inserts `hash` and returns how many fingerprints it moved (0: a free slot was found in
    /// one of its buckets). See [`Filter::insert_hash`](filter_core::Filter::insert_hash) for the failure contract.
    pub(crate) fn insert_counting_moves(&mut self, hash: Hash128) -> Result<u32> {
        let (i1, i2, fp) = self.buckets_of(hash);
        if self.place_in_emptier(i1, i2, fp) {
            self.len += 1;
            return Ok(0);
        }
        if self.place_by_moving_one(i1, fp) || self.place_by_moving_one(i2, fp) {
            self.len += 1;
            return Ok(1);
        }
        // A pair full of the key's own fingerprint: a walk would only move copies of the key
        // between its two buckets, and no table size would make room for another.
        if let Some(copies) = self.copies_filling_pair(i1, i2, fp) {
            return Err(Error::TooManyCopies { copies });
        }
        // Random walk: evict a resident, move it to its other bucket, repeat, trying at each
        // bucket a one-step move first. The walk is seeded by the key's hash (deterministic) and
        // recorded so a failure can be undone exactly.
        let mut rng = hash.lo ^ hash.hi.rotate_left(32) ^ 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut bucket = if next() & 1 == 0 { i1 } else { i2 };
        let mut carry = fp;
        let mut path: Vec<(u64, u32)> = Vec::with_capacity(32);
        for _ in 1..self.max_kicks {
            let j = (next() % u64::from(SLOTS)) as u32;
            let victim = self.slot(bucket, j);
            self.set_slot(bucket, j, carry);
            path.push((bucket, j));
            carry = victim;
            bucket = self.alt(bucket, carry);
            if self.try_place(bucket, carry) || self.place_by_moving_one(bucket, carry) {
                self.len += 1;
                return Ok(path.len() as u32 + 1);
            }
        }
        // Undo: walk back, putting each carried fingerprint where it was taken from.
        for &(b, j) in path.iter().rev() {
            let here = self.slot(b, j);
            self.set_slot(b, j, carry);
            carry = here;
        }
        debug_assert_eq!(carry, fp);
        Err(self.full_error())
    }

    /// `Some(slots)` when every slot of the bucket pair `(i1, i2)` holds `fp` (a pair whose two
    /// buckets coincide has one bucket's slots).
    fn copies_filling_pair(&self, i1: u64, i2: u64, fp: u64) -> Option<u32> {
        let held = |b| (0..SLOTS).filter(|&j| self.slot(b, j) == fp).count() as u32;
        let (copies, slots) = if i1 == i2 {
            (held(i1), SLOTS)
        } else {
            (held(i1) + held(i2), 2 * SLOTS)
        };
        (copies == slots).then_some(slots)
    }
}
