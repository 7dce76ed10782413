//! One 64-byte block: 48 one-byte fingerprint slots, and 128 bits of metadata that say which of
//! the block's 72 buckets each fingerprint belongs to (the vector quotient filter's unary code)
//! and which groups of buckets have sent a key to its other block (the Morton filter's overflow
//! bits).
//!
//! The metadata's low [`RUN_BITS`] bits list the buckets in order: bucket `q`'s fingerprints
//! are a run of 1 bits ended by one 0 bit, so bucket `q` ends at the `q`-th zero and its
//! fingerprints are the 1 bits just below it; the fingerprint of the 1 bit at position `i` with
//! `q` zeros below it sits in slot `i - q`. Fingerprints fill slots `0..len` in bucket order;
//! the bits and slots past them are zero, so an all-zero block is an empty one. The top
//! [`OVERFLOW_BITS`] bits are one per group of buckets (`q mod 8`): set once a key whose first
//! block is this one was stored in (or moved to) its other block, cleared only when the whole table empties.

/// Fingerprint slots per block.
pub const SLOTS: u32 = filter_core::math::vqf::SLOTS;
/// Buckets per block (a key's bucket is the same in both its blocks).
pub const BUCKETS: u32 = filter_core::math::vqf::BUCKETS;
/// Overflow bits per block: one per group of `BUCKETS / OVERFLOW_BITS` buckets.
pub const OVERFLOW_BITS: u32 = filter_core::math::vqf::GROUPS;
/// Bits of the bucket code: one per slot and one per bucket.
pub const RUN_BITS: u32 = SLOTS + BUCKETS;
const RUN_MASK: u128 = (1u128 << RUN_BITS) - 1;
const _: () = assert!(RUN_BITS + OVERFLOW_BITS == 128);

/// A block: words 0-1 the metadata (little-endian `u128`), words 2-7 the 48 fingerprint bytes
/// (slot `s` is byte `s % 8` of word `2 + s / 8`).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block(pub [u64; 8]);
filter_core::plain!(Block([u64; 8]));

use crate::kernel::Kernel;

/// The overflow group of bucket `q`.
#[inline]
pub fn group(q: u32) -> u32 {
    q % OVERFLOW_BITS
}

impl Block {
    #[inline]
    fn meta(&self) -> u128 {
        u128::from(self.0[0]) | (u128::from(self.0[1]) << 64)
    }

    #[inline]
    fn set_meta(&mut self, m: u128) {
        self.0[0] = m as u64;
        self.0[1] = (m >> 64) as u64;
    }

    #[inline]
    fn run(&self) -> u128 {
        self.meta() & RUN_MASK
    }

    /// Fingerprints stored.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        crate::select::ones128(self.run())
    }

    /// Whether no slot holds a fingerprint.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.run() == 0
    }

    /// Whether all 48 slots hold a fingerprint.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.len() == SLOTS
    }

    /// Whether a key of bucket group `g` has been sent from this block to its other one.
    #[inline]
    pub fn overflowed(&self, g: u32) -> bool {
        (self.0[1] >> (RUN_BITS - 64 + g)) & 1 == 1
    }

    /// Sets the overflow bit of group `g`; whether it was clear.
    #[inline]
    pub fn mark_overflow(&mut self, g: u32) -> bool {
        let bit = 1u64 << (RUN_BITS - 64 + g);
        let was_clear = self.0[1] & bit == 0;
        self.0[1] |= bit;
        was_clear
    }

    /// Clears every overflow bit.
    pub fn clear_overflow(&mut self) {
        self.0[1] &= (1u64 << (RUN_BITS - 64)) - 1;
    }

    /// Overflow bits set.
    pub fn overflow_marks(&self) -> u32 {
        (self.0[1] >> (RUN_BITS - 64)).count_ones()
    }

    /// The 48 fingerprint bytes, slot order.
    #[inline(always)]
    fn fingerprints(&self) -> [u8; 48] {
        let mut out = [0u8; 48];
        for (chunk, w) in out.chunks_exact_mut(8).zip(&self.0[2..]) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    #[inline(always)]
    fn set_fingerprints(&mut self, fps: &[u8; 48]) {
        for (w, chunk) in self.0[2..].iter_mut().zip(fps.chunks_exact(8)) {
            *w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        }
    }

    #[inline]
    fn fp(&self, slot: u32) -> u8 {
        (self.0[2 + (slot / 8) as usize] >> (8 * (slot % 8))) as u8
    }

    /// Bucket `q`'s first slot and its number of fingerprints.
    #[inline(always)]
    fn bucket(&self, q: u32) -> (u32, u32) {
        self.bucket_with(Kernel::Portable, q)
    }

    /// [`Block::bucket`] by `kernel`.
    #[inline(always)]
    fn bucket_with(&self, kernel: Kernel, q: u32) -> (u32, u32) {
        let (end, below) = kernel.bucket_end(self.run(), q);
        // Within the block even for a damaged code (a file opened in place is not checked).
        let start = end.saturating_sub(below).saturating_sub(q).min(SLOTS);
        (start, below.min(SLOTS - start))
    }

    /// Slots `s .. s + 8` as the bytes of a word, low byte first (bytes past slot 47, and the
    /// whole word for `s = 48`, an empty bucket at the end of a full block, are other slots'
    /// bytes, never to be read).
    #[inline]
    fn window(&self, s: u32) -> u64 {
        let i = ((s / 8) as usize).min(5);
        let (lo, hi) = (self.0[2 + i], self.0[2 + (i + 1).min(5)]);
        let shift = 8 * (s % 8);
        (lo >> shift) | ((hi << 1) << (63 - shift))
    }

    /// How many of bucket `q`'s fingerprints equal `fp`.
    #[inline]
    pub fn count(&self, q: u32, fp: u8) -> u32 {
        let (s, c) = self.bucket(q);
        (s..s + c).filter(|&i| self.fp(i) == fp).count() as u32
    }

    /// Whether bucket `q` holds `fp`: its first 8 fingerprints compared at once, with no branch
    /// on the block's contents (a bucket of more than 8, rare, is compared byte by byte).
    #[inline(always)]
    pub fn contains(&self, kernel: Kernel, q: u32, fp: u8) -> bool {
        const L8: u64 = 0x0101_0101_0101_0101;
        const H8: u64 = 0x8080_8080_8080_8080;
        let (s, c) = self.bucket_with(kernel, q);
        if c > 8 {
            return (s..s + c).any(|i| self.fp(i) == fp);
        }
        let x = self.window(s) ^ (u64::from(fp) * L8);
        let in_bucket = ((1u128 << (8 * c)) - 1) as u64;
        // A zero byte of `x` is a match; the test's false flags lie only above a true zero, so
        // any flag among the bucket's bytes means a match among them.
        x.wrapping_sub(L8) & !x & H8 & in_bucket != 0
    }

    /// Adds `fp` to bucket `q`, after the bucket's other fingerprints.
    ///
    /// The block must not be full.
    #[inline(always)]
    pub fn insert(&mut self, q: u32, fp: u8) {
        self.insert_with(Kernel::Portable, q, fp);
    }

    /// [`Block::insert`] with `kernel`'s select.
    #[inline(always)]
    pub fn insert_with(&mut self, kernel: Kernel, q: u32, fp: u8) {
        debug_assert!(!self.is_full() && q < BUCKETS);
        let len = self.len();
        let meta = self.meta();
        let run = meta & RUN_MASK;
        let (end, _) = kernel.bucket_end(run, q);
        let low = run & ((1u128 << end) - 1);
        let high = (run >> end) << (end + 1);
        // The bit shifted out of the code is one of its trailing zeros: a block that is not
        // full uses `len + BUCKETS < RUN_BITS` bits.
        self.set_meta((meta & !RUN_MASK) | ((low | (1u128 << end) | high) & RUN_MASK));
        let (slot, len) = ((end - q) as usize, len as usize);
        let mut fps = self.fingerprints();
        fps.copy_within(slot..len, slot + 1);
        fps[slot] = fp;
        self.set_fingerprints(&fps);
    }

    /// Removes one copy of `fp` from bucket `q`; whether there was one.
    pub fn remove(&mut self, q: u32, fp: u8) -> bool {
        let (s, c) = self.bucket(q);
        let Some(slot) = (s..s + c).find(|&i| self.fp(i) == fp) else {
            return false;
        };
        self.remove_slot(slot, slot + q);
        true
    }

    /// Removes the fingerprint of `slot`, whose code bit is at `pos`.
    fn remove_slot(&mut self, slot: u32, pos: u32) {
        let len = self.len();
        let meta = self.meta();
        let run = meta & RUN_MASK;
        let low = run & ((1u128 << pos) - 1);
        let high = (run >> (pos + 1)) << pos;
        self.set_meta((meta & !RUN_MASK) | low | high);
        let (slot, len) = (slot as usize, len as usize);
        let mut fps = self.fingerprints();
        fps.copy_within(slot + 1..len, slot);
        fps[len - 1] = 0;
        self.set_fingerprints(&fps);
    }

    /// Every `(bucket, fingerprint)` stored, in slot order.
    pub fn entries(&self) -> Vec<(u32, u8)> {
        let run = self.run();
        let mut out = Vec::with_capacity(self.len() as usize);
        let mut q = 0;
        for pos in 0..RUN_BITS {
            if q == BUCKETS {
                break;
            }
            if run >> pos & 1 == 1 {
                out.push((q, self.fp(pos - q)));
            } else {
                q += 1;
            }
        }
        out
    }

    /// Why this block cannot have been written by inserts: a code with other than
    /// [`BUCKETS`] bucket ends before its fingerprints end, or a nonzero slot past them.
    pub fn defect(&self) -> Option<String> {
        let run = self.run();
        let len = self.len();
        if len > SLOTS {
            return Some(format!("{len} fingerprints in a block of {SLOTS} slots"));
        }
        // `len` ones and `BUCKETS` zeros: nothing may lie past the last bucket's end.
        let used = len + BUCKETS;
        if run >> used != 0 {
            return Some("a bucket code with fingerprints past its last bucket".into());
        }
        if (len..SLOTS).any(|s| self.fp(s) != 0) {
            return Some("a fingerprint in an empty slot".into());
        }
        None
    }
}

#[cfg(test)]
mod tests;
