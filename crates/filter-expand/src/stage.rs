//! One stage (a cuckoo table of packed fingerprints) and the addressing that makes the stages
//! nest: where a key lives in stage `i` determines where it would live in every older stage.

use crate::math::{self, SLOTS};
use filter_core::{reduce, Hash128, Result, Table, TableOptions};

/// Extra bytes after a table so that every slot can be read as one unaligned 8-byte window.
pub(crate) const PAD: usize = 8;
/// Mixed into the digit hash of each stage so the digits of one fingerprint differ by stage.
const DIGIT_SALT: u64 = 0x9e37_79b9_7f4a_7c15;

/// Murmur3's 64-bit finaliser: the hash of a fingerprint.
#[inline]
fn mix(x: u64) -> u64 {
    let mut k = x.wrapping_mul(0xff51_afd7_ed55_8ccd) ^ 0x2545_f491_4f6c_dd1d;
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// The parameters every stage's addressing is derived from (see the crate docs, "Nesting").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// Buckets of stage 0.
    pub b0: u64,
    /// Stage `i` has `b0 · 2^(d·i)` buckets.
    pub d: u32,
    /// Fingerprint bits of stage 0.
    pub f0: u32,
    /// One more fingerprint bit every `period` stages.
    pub period: u32,
}

impl Layout {
    pub fn buckets(&self, i: u32) -> Option<u64> {
        math::stage_buckets(self.b0, self.d, i)
    }

    pub fn fp_bits(&self, i: u32) -> u32 {
        math::stage_fingerprint_bits(self.f0, self.period, i)
    }

    /// The `f`-bit fingerprint of a key: the top `f` bits of `hash.hi`, 0 stored as 1.
    #[inline]
    fn key_fp(hi: u64, f: u32) -> u64 {
        (hi >> (64 - f)).max(1)
    }

    /// The `to`-bit fingerprint of a key whose `from`-bit fingerprint is `v` (`to <= from`):
    /// the prefix, 0 stored as 1, equal to [`Self::key_fp`] at `to` bits for every key.
    #[inline]
    fn prefix(v: u64, from: u32, to: u32) -> u64 {
        (v >> (from - to)).max(1)
    }

    /// Stage 0's alternate bucket: `(h0 - a) mod B0` with `h0` a hash of the 0-th fingerprint.
    #[inline]
    fn h0(&self, fp0: u64) -> u64 {
        reduce(mix(fp0), self.b0)
    }

    /// The `d`-bit digit stage `j >= 1` adds to the alternate-bucket offset.
    #[inline]
    fn digit(&self, fp_j: u64, j: u32) -> u64 {
        mix(fp_j ^ u64::from(j).wrapping_mul(DIGIT_SALT)) & ((1u64 << self.d) - 1)
    }

    /// `alt_i(c) = alt_0(c >> d·i) << d·i | ((c ^ s) mod 2^(d·i))`: the block of `c` (its stage-0
    /// bucket) goes to stage 0's alternate, the digits below are flipped by `s`. An involution,
    /// and `alt_i(c) >> d = alt_(i-1)(c >> d)` for the digits `s >> d` of stage `i - 1`.
    #[inline]
    fn alt(&self, i: u32, c: u64, h0: u64, s: u64) -> u64 {
        let shift = self.d * i;
        let alt_block = self.alt_block(c >> shift, h0);
        (alt_block << shift) | ((c ^ s) & ((1u64 << shift) - 1))
    }

    /// Stage 0's alternate of the stage-0 bucket `block`: `(h0 - block) mod B0`.
    #[inline]
    fn alt_block(&self, block: u64, h0: u64) -> u64 {
        if h0 >= block {
            h0 - block
        } else {
            h0 + self.b0 - block
        }
    }

    /// The alternate of bucket `c` of stage `i` for the stored fingerprint `v`, from `v` alone.
    fn alt_of_stored(&self, i: u32, c: u64, v: u64) -> u64 {
        let f = self.fp_bits(i);
        let h0 = self.h0(Self::prefix(v, f, self.f0));
        let s = (1..=i).fold(0u64, |s, j| {
            (s << self.d) | self.digit(Self::prefix(v, f, self.fp_bits(j)), j)
        });
        self.alt(i, c, h0, s)
    }

    /// Where the key `hash` lives in each stage `0, 1, …` up to the last addressable level:
    /// `(bucket, alternate, fingerprint)`, computed incrementally (one hash of the fingerprint
    /// per stage).
    pub fn places(&self, hash: Hash128) -> Places<'_> {
        let period = self.period.max(1);
        let product = u128::from(hash.lo) * u128::from(self.b0);
        let h0 = self.h0(Self::key_fp(hash.hi, self.f0));
        let f = self.f0.min(math::MAX_FP_BITS);
        let c0 = (product >> 64) as u64;
        Places {
            layout: self,
            hi: hash.hi,
            c: c0,
            rest: product as u64,
            alt_high: self.alt_block(c0, h0),
            low_mask: 0,
            s: 0,
            f,
            fp: Self::key_fp(hash.hi, f),
            until_wider: period,
            level: 0,
        }
    }

    /// The places of [`Layout::places`] at levels `0..out.len()`, for the lookup path: `out`
    /// holds at most the levels that exist, so no level's existence is checked.
    #[inline]
    pub fn fill_places(&self, hash: Hash128, out: &mut [Place]) {
        let mut places = self.places(hash);
        for slot in out {
            *slot = places.step();
        }
    }
}

/// The iterator of [`Layout::places`]: the state carried from one level to the next.
pub(crate) struct Places<'a> {
    layout: &'a Layout,
    /// The key hash's high word, the fingerprints' source.
    hi: u64,
    /// The bucket at the current level, `hash.lo · B0` (a 128-bit product) shifted right by
    /// `64 - d·i`: each level appends the next `d` bits of the product's low word.
    c: u64,
    /// The product's low word bits not yet appended to `c`, at the top.
    rest: u64,
    /// The alternate's block part at the current level, `alt_0(c0) << d·i`: every level's
    /// bucket `c` has the stage-0 bucket `c0 = c >> d·i` as its block (the buckets nest), so
    /// the alternate block is computed once and shifted.
    alt_high: u64,
    /// `2^(d·i) - 1`: the digits below the block.
    low_mask: u64,
    /// The digits of the alternate-bucket offset so far.
    s: u64,
    /// `fp_bits(level)`, kept by counting instead of dividing.
    f: u32,
    /// The key's `f`-bit fingerprint, recomputed only when `f` grows.
    fp: u64,
    /// Levels left before the fingerprint gains a bit.
    until_wider: u32,
    /// The next level.
    level: u32,
}

impl Places<'_> {
    /// The next level's place, which must exist: the bucket `floor(u·B0·2^(d·i))` is the 128-bit
    /// product `u·B0`, computed once, shifted right by `64 - d·i` (exact: `B0·2^(d·i) <= 2^58`),
    /// one level's `d` bits at a time; the alternate is [`Layout::alt`] with its parts carried
    /// the same way.
    #[inline]
    fn step(&mut self) -> Place {
        let (l, i) = (self.layout, self.level);
        if self.until_wider == 0 {
            self.f = (self.f + 1).min(math::MAX_FP_BITS);
            self.fp = Layout::key_fp(self.hi, self.f);
            self.until_wider = l.period.max(1);
        }
        self.until_wider -= 1;
        let fp = self.fp;
        if i > 0 {
            self.s = (self.s << l.d) | l.digit(fp, i);
            self.c = (self.c << l.d) | (self.rest >> (64 - l.d));
            self.rest <<= l.d;
            self.alt_high <<= l.d;
            self.low_mask = (self.low_mask << l.d) | ((1u64 << l.d) - 1);
        }
        self.level += 1;
        Place {
            c: self.c,
            alt: self.alt_high | ((self.c ^ self.s) & self.low_mask),
            fp,
        }
    }
}

impl Iterator for Places<'_> {
    type Item = Place;

    fn next(&mut self) -> Option<Place> {
        self.layout.buckets(self.level)?;
        Some(self.step())
    }
}

/// The 4 slots of a bucket as lanes of one 64-bit word. Up to 16 bits they fit one unaligned
/// 8-byte window: they start at bit `4f·b`, a multiple of 8 for even `f` and of 4 for odd `f`,
/// so `bit % 8 + 4f <= 64`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Lanes {
    /// The lowest bit of every lane.
    low: u64,
    /// The top bit of every lane.
    high: u64,
    /// The `4f` bits of the lanes.
    mask: u64,
}

impl Lanes {
    #[inline]
    fn of(f: u32) -> Option<Lanes> {
        (1..=16).contains(&f).then(|| {
            let low = 1 | 1 << f | 1 << (2 * f) | 1 << (3 * f);
            Lanes {
                low,
                high: low << (f - 1),
                mask: u64::MAX >> (64 - SLOTS * f),
            }
        })
    }
}

/// A key's two buckets and fingerprint in one stage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Place {
    pub c: u64,
    pub alt: u64,
    pub fp: u64,
}

/// A cuckoo table: `buckets` buckets of 4 slots of `f` bits (0: empty), packed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stage {
    /// Slot `s` occupies bits `s·f .. (s+1)·f`, little-endian, then [`PAD`] zero bytes.
    pub table: Table<u8>,
    pub index: u32,
    pub buckets: u64,
    /// Private: `lanes` is derived from it once, so no writer may change it afterwards
    /// (read it through [`Stage::fp_bits`]).
    fp_bits: u32,
    pub capacity: u64,
    pub len: u64,
    /// `Lanes::of(fp_bits)`, computed once for the lookups.
    lanes: Option<Lanes>,
}

impl Stage {
    /// An empty stage `index` of `layout`, allocated fallibly under the options' cap (`used`
    /// bytes taken) with their page advice.
    pub fn new(
        layout: &Layout,
        index: u32,
        options: impl Into<TableOptions>,
        used: u64,
    ) -> Result<Stage> {
        let options = options.into();
        let overflow = || filter_core::Error::SizeOverflow {
            what: "expandable filter stage",
            hint: format!("stage {index} would not be addressable; start with a larger capacity"),
        };
        let buckets = layout.buckets(index).ok_or_else(overflow)?;
        let fp_bits = layout.fp_bits(index);
        let bytes = math::stage_table_bytes(buckets, fp_bits).ok_or_else(overflow)?;
        options.cap.check("next expandable stage", used, bytes)?;
        let table = filter_core::try_zeroed_table(bytes as usize, options, "expandable stage")?;
        Ok(Stage {
            table,
            index,
            buckets,
            fp_bits,
            capacity: math::stage_capacity(buckets),
            len: 0,
            lanes: Lanes::of(fp_bits),
        })
    }

    /// Fingerprint bits of every slot (fixed at construction, like the lanes derived from it).
    #[inline]
    pub fn fp_bits(&self) -> u32 {
        self.fp_bits
    }

    /// A copy of this stage, its table allocated fallibly under `options` (`used` bytes taken).
    pub fn try_copy(&self, layout: &Layout, options: TableOptions, used: u64) -> Result<Stage> {
        let mut copy = Stage::new(layout, self.index, options, used)?;
        copy.table.copy_from_slice(&self.table);
        copy.len = self.len;
        Ok(copy)
    }

    #[inline]
    pub fn slot(&self, bucket: u64, j: u32) -> u64 {
        let bit = (bucket * u64::from(SLOTS) + u64::from(j)) * u64::from(self.fp_bits);
        let at = (bit / 8) as usize;
        let word = u64::from_le_bytes(self.table[at..at + 8].try_into().expect("padded"));
        (word >> (bit % 8)) & ((1u64 << self.fp_bits) - 1)
    }

    #[inline]
    fn set_slot(&mut self, bucket: u64, j: u32, fp: u64) {
        let bit = (bucket * u64::from(SLOTS) + u64::from(j)) * u64::from(self.fp_bits);
        let at = (bit / 8) as usize;
        let window: &mut [u8; 8] = (&mut self.table[at..at + 8]).try_into().expect("padded");
        let mask = ((1u64 << self.fp_bits) - 1) << (bit % 8);
        let word = u64::from_le_bytes(*window);
        *window = ((word & !mask) | (fp << (bit % 8))).to_le_bytes();
    }

    fn find(&self, bucket: u64, fp: u64) -> Option<u32> {
        (0..SLOTS).find(|&j| self.slot(bucket, j) == fp)
    }

    fn free(&self, bucket: u64) -> u32 {
        (0..SLOTS).filter(|&j| self.slot(bucket, j) == 0).count() as u32
    }

    /// Whether an entry with the key's identity (fingerprint and bucket pair) is stored here.
    #[inline]
    pub fn has(&self, p: Place) -> bool {
        match self.lanes {
            Some(l) => {
                let pattern = p.fp.wrapping_mul(l.low);
                self.window_has(p.c, pattern, l) || self.window_has(p.alt, pattern, l)
            }
            None => self.find(p.c, p.fp).is_some() || self.find(p.alt, p.fp).is_some(),
        }
    }

    /// Whether `bucket` holds `fp` (what [`Stage::has`] asks of each bucket).
    #[cfg(test)]
    fn bucket_has(&self, bucket: u64, fp: u64) -> bool {
        match self.lanes {
            Some(l) => self.window_has(bucket, fp.wrapping_mul(l.low), l),
            None => self.find(bucket, fp).is_some(),
        }
    }

    /// Whether a lane of `bucket`'s window equals the lane of `pattern` (`fp` in every lane):
    /// XOR, then the exact test for a zero lane, `(x - L) & !x & H != 0` (the lowest zero lane
    /// borrows into its top bit; a lane that is not zero never borrows).
    #[inline]
    fn window_has(&self, bucket: u64, pattern: u64, l: Lanes) -> bool {
        let bit = bucket * u64::from(SLOTS) * u64::from(self.fp_bits);
        let at = (bit / 8) as usize;
        let word = u64::from_le_bytes(self.table[at..at + 8].try_into().expect("padded"));
        let x = ((word >> (bit % 8)) & l.mask) ^ pattern;
        x.wrapping_sub(l.low) & !x & l.high != 0
    }

    /// Starts loading the first byte of both of the key's buckets.
    #[inline]
    pub fn prefetch(&self, p: Place) {
        for b in [p.c, p.alt] {
            let bit = b * u64::from(SLOTS) * u64::from(self.fp_bits);
            filter_core::prefetch(&self.table[(bit / 8) as usize]);
        }
    }

    /// Entries with the key's identity.
    pub fn count(&self, p: Place) -> u32 {
        let n = |b| (0..SLOTS).filter(|&j| self.slot(b, j) == p.fp).count() as u32;
        n(p.c) + if p.alt != p.c { n(p.alt) } else { 0 }
    }

    /// Removes one entry with the key's identity; `false` (nothing changed) if there is none.
    pub fn remove(&mut self, p: Place) -> bool {
        for b in [p.c, p.alt] {
            if let Some(j) = self.find(b, p.fp) {
                self.set_slot(b, j, 0);
                self.len -= 1;
                return true;
            }
        }
        false
    }

    /// Inserts an entry for the key (emptier bucket first, then a recorded random walk of at
    /// most `max_kicks` evictions). `false`: no room, and the table is exactly as before.
    pub fn insert(&mut self, layout: &Layout, p: Place, max_kicks: u32, seed: u64) -> bool {
        let (n1, n2) = (self.free(p.c), self.free(p.alt));
        if n1.max(n2) > 0 {
            let b = if n2 > n1 { p.alt } else { p.c };
            let j = self.find(b, 0).expect("a free slot");
            self.set_slot(b, j, p.fp);
            self.len += 1;
            return true;
        }
        let mut rng = seed | 1;
        let mut next = move || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let mut bucket = if next() & 1 == 0 { p.c } else { p.alt };
        let mut carry = p.fp;
        let mut path: Vec<(u64, u32)> = Vec::new();
        for _ in 0..max_kicks {
            let j = (next() % u64::from(SLOTS)) as u32;
            let victim = self.slot(bucket, j);
            self.set_slot(bucket, j, carry);
            path.push((bucket, j));
            carry = victim;
            bucket = layout.alt_of_stored(self.index, bucket, carry);
            if let Some(j) = self.find(bucket, 0) {
                self.set_slot(bucket, j, carry);
                self.len += 1;
                return true;
            }
        }
        for &(b, j) in path.iter().rev() {
            let here = self.slot(b, j);
            self.set_slot(b, j, carry);
            carry = here;
        }
        debug_assert_eq!(carry, p.fp);
        false
    }

    /// Occupied slots, counted (a loader compares it with the stored item count).
    pub fn occupied(&self) -> u64 {
        (0..self.buckets)
            .map(|b| u64::from(SLOTS - self.free(b)))
            .sum()
    }

    /// Bytes of packed slots, without the padding.
    pub fn packed_len(&self) -> usize {
        self.table.len() - PAD
    }
}

#[cfg(test)]
mod tests;
