//! A table written in one pass from its (quotient, remainder) pairs sorted by quotient: what
//! inserting them one by one into an empty table gives, bit for bit (runs in quotient order,
//! each run's remainders in the order given, each run at `max(q, end of the previous + 1)`,
//! the offsets derived), without the shifts.

use super::Slots;

impl Slots {
    /// Whether `pairs`, sorted by quotient, fit the table: no run passes its end.
    fn fits_sorted(&self, pairs: &[(u64, u64)]) -> bool {
        let mut next_free = 0u64;
        let mut i = 0;
        while i < pairs.len() {
            let q = pairs[i].0;
            let run = pairs[i..].iter().take_while(|p| p.0 == q).count();
            next_free = q.max(next_free) + run as u64;
            if q >= self.quotients || next_free > self.slots {
                return false;
            }
            i += run;
        }
        true
    }

    /// Writes `pairs` (quotients below `Q`, sorted by quotient, equal quotients in the order
    /// their inserts would come) into this table, which must be empty. `false`, and nothing
    /// written, when a run would pass the table's end (then some insert one by one fails too).
    pub fn fill_sorted(&mut self, pairs: &[(u64, u64)]) -> bool {
        debug_assert!((0..self.blocks).all(|b| self.occupieds(b) == 0));
        if !self.fits_sorted(pairs) {
            return false;
        }
        let (mut next_free, mut i) = (0u64, 0);
        while i < pairs.len() {
            let q = pairs[i].0;
            let mut at = q.max(next_free);
            while let Some(&(_, r)) = pairs.get(i).filter(|p| p.0 == q) {
                self.set_rem(at, r);
                at += 1;
                i += 1;
            }
            self.set_runend(at - 1, true);
            self.set_occupied(q, true);
            next_free = at;
        }
        self.fix_spill(1, self.blocks);
        true
    }
}

/// Sorts `pairs` by quotient (`.0`, below `2^bits`), stably: least-significant-digit radix
/// passes of 16 bits, each a stable counting sort into `scratch` (as long as `pairs`).
pub fn sort_by_quotient(pairs: &mut [(u64, u64)], scratch: &mut [(u64, u64)], bits: u32) {
    debug_assert_eq!(pairs.len(), scratch.len());
    let mut counts = vec![0usize; 1 << 16];
    let mut in_pairs = true;
    for shift in (0..bits).step_by(16) {
        let (src, dst) = match in_pairs {
            true => (&*pairs, &mut *scratch),
            false => (&*scratch, &mut *pairs),
        };
        let digit = |p: &(u64, u64)| (p.0 >> shift & 0xFFFF) as usize;
        counts.fill(0);
        src.iter().for_each(|p| counts[digit(p)] += 1);
        let mut sum = 0;
        for c in counts.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        for p in src {
            let d = digit(p);
            dst[counts[d]] = *p;
            counts[d] += 1;
        }
        in_pairs = !in_pairs;
    }
    if !in_pairs {
        pairs.copy_from_slice(scratch);
    }
}
