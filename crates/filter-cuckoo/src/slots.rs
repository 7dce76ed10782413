//! The packed table: reading and writing `f`-bit slots, and the SWAR tests that look at a
//! whole bucket in one 8-byte read ([`Lanes`]).

use crate::{CuckooFilter, SLOTS};

/// The masks that let one 64-bit word test a whole bucket, computed once per filter instead of
/// on every probe (they depend on `f` only).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Lanes {
    /// Bit 0 of each of the four lanes.
    ones: u64,
    /// The top bit of each lane.
    highs: u64,
    /// The `f - 1` low bits of each lane.
    low: u64,
    /// The `4f` bits of a bucket.
    bucket: u64,
}

impl Lanes {
    /// The masks for `f`-bit lanes; all zero above 14 bits, where a bucket does not fit one
    /// 8-byte read and the SWAR paths are not taken.
    pub(crate) fn new(f: u32) -> Lanes {
        if !(1..=14).contains(&f) {
            return Lanes {
                ones: 0,
                highs: 0,
                low: 0,
                bucket: 0,
            };
        }
        let ones = 1 | 1 << f | 1 << (2 * f) | 1 << (3 * f);
        let highs = ones << (f - 1);
        Lanes {
            ones,
            highs,
            low: highs - ones,
            bucket: (1u64 << (4 * f)) - 1,
        }
    }
}

impl CuckooFilter {
    #[inline]
    pub(crate) fn slot(&self, bucket: u64, j: u32) -> u64 {
        let bit = (bucket * u64::from(SLOTS) + u64::from(j)) * u64::from(self.fp_bits);
        let at = (bit / 8) as usize;
        let word = u64::from_le_bytes(self.table[at..at + 8].try_into().expect("padded"));
        (word >> (bit % 8)) & ((1u64 << self.fp_bits) - 1)
    }

    #[inline]
    pub(crate) fn set_slot(&mut self, bucket: u64, j: u32, fp: u64) {
        let bit = (bucket * u64::from(SLOTS) + u64::from(j)) * u64::from(self.fp_bits);
        let at = (bit / 8) as usize;
        let window: &mut [u8; 8] = (&mut self.table[at..at + 8]).try_into().expect("padded");
        let mask = ((1u64 << self.fp_bits) - 1) << (bit % 8);
        let word = u64::from_le_bytes(*window);
        *window = ((word & !mask) | (fp << (bit % 8))).to_le_bytes();
    }

    /// The slot of `bucket` holding `fp`, if any.
    #[inline]
    pub(crate) fn find(&self, bucket: u64, fp: u64) -> Option<u32> {
        (0..SLOTS).find(|&j| self.slot(bucket, j) == fp)
    }

    /// [`Self::find`] for the wide fingerprints the SWAR paths do not cover, kept out of line so
    /// the hot paths stay small enough to inline.
    #[cold]
    #[inline(never)]
    fn find_wide(&self, bucket: u64, fp: u64) -> Option<u32> {
        self.find(bucket, fp)
    }

    /// [`Self::free_slots`] slot by slot, out of line (see [`Self::find_wide`]).
    #[cold]
    #[inline(never)]
    fn free_slots_wide(&self, bucket: u64) -> (Option<u32>, u32) {
        let free = (0..SLOTS).filter(|&j| self.slot(bucket, j) == 0).count() as u32;
        (self.find(bucket, 0), free)
    }

    /// Whether `bucket` holds `fp`. For `f <= 14` the four slots fit one 8-byte read and are
    /// compared at once (SWAR, see [`Self::zero_lanes`]).
    #[inline(always)]
    pub(crate) fn bucket_has(&self, bucket: u64, fp: u64) -> bool {
        match self.zero_lanes(bucket, fp) {
            Some(m) => m != 0,
            None => self.find_wide(bucket, fp).is_some(),
        }
    }

    /// For `f <= 14`: a mask with the high bit of exactly those lanes of `bucket` that equal
    /// `fp`; `None` for wider fingerprints, whose bucket does not fit one 8-byte read.
    ///
    /// XOR turns a matching lane into a zero lane. A lane `x` is non-zero exactly when its high
    /// bit or the high bit of `(x & low) + low` is set, `low` being the lane's `f - 1` low bits:
    /// the sum stays inside the lane, so no carry or borrow crosses lanes and the mask is exact
    /// (the free-slot count of an insert relies on that).
    #[inline(always)]
    pub(crate) fn zero_lanes(&self, bucket: u64, fp: u64) -> Option<u64> {
        let f = self.fp_bits;
        if f > 14 {
            return None;
        }
        let Lanes {
            ones,
            highs,
            low,
            bucket: mask,
        } = self.lanes;
        let bit = bucket * u64::from(SLOTS) * u64::from(f);
        let at = (bit / 8) as usize;
        let window = u64::from_le_bytes(self.table[at..at + 8].try_into().expect("padded"));
        let x = ((window >> (bit % 8)) & mask) ^ fp.wrapping_mul(ones);
        Some(!(((x & low) + low) | x) & highs)
    }

    /// The free slots of `bucket`: the lowest one and how many.
    ///
    /// Without a division or a population count (baseline x86-64 has neither in one
    /// instruction): the lowest flagged lane is the number of lane ends below the lowest set
    /// bit, and multiplying the lane flags (moved to each lane's bit 0) by `ones` sums them into
    /// the top lane, which holds the sum (at most 4) once lanes have 3 bits or more.
    #[inline(always)]
    pub(crate) fn free_slots(&self, bucket: u64) -> (Option<u32>, u32) {
        let f = self.fp_bits;
        match self.zero_lanes(bucket, 0) {
            Some(m) if f >= 3 => {
                let tz = m.trailing_zeros();
                let first = u32::from(tz >= f) + u32::from(tz >= 2 * f) + u32::from(tz >= 3 * f);
                let count = ((m >> (f - 1)).wrapping_mul(self.lanes.ones) >> (3 * f)) & 7;
                ((m != 0).then_some(first), count as u32)
            }
            _ => self.free_slots_wide(bucket),
        }
    }

    /// The first free slot of `bucket`.
    #[inline]
    pub(crate) fn free_slot(&self, bucket: u64) -> Option<u32> {
        self.free_slots(bucket).0
    }
}
