//! A vector quotient filter (Pandey, Conway, Durie, Bender, Farach-Colton & Johnson, "Vector
//! Quotient Filters: Overcoming the Time/Space Trade-Off in Filter Design", SIGMOD 2021) whose
//! lookups read one cache line in the common case, through the Morton filter's overflow bits
//! (Breslow & Jayasena, "Morton Filters: Faster, Space-Efficient Cuckoo Filters via Biasing,
//! Compression, and Decoupled Logical Sparsity", PVLDB 11(9), 2018).
//!
//! The table is an array of 64-byte blocks, each a small quotient filter: 48 one-byte
//! fingerprints and a 128-bit code that assigns them to 72 buckets (see [`block`]). A key's
//! hash names its *first block*, its bucket (the same in both blocks) and an 8-bit
//! fingerprint; its *second block* is computed from the first, the bucket and the fingerprint
//! alone, `(h(fp, bucket) - first) mod B`, so that the pair is the same seen from either
//! block and a stored fingerprint can move to its other block without its key (the cuckoo
//! filter's partial-key rule, Fan et al. 2014).
//!
//! What is taken from whom:
//! * **From the VQF**: the block (a 512-bit mini quotient filter, its bucket code, 8-bit
//!   fingerprints), two blocks per key, deletes by removing one matching fingerprint.
//! * **From the Morton filter**: *biased insertion* (a key goes to its first block whenever it
//!   has room, where the VQF picks the emptier of the two) and an *overflow bit* per group of 9
//!   buckets, set in the first block when one of its keys is stored in the second. A lookup
//!   reads the second block only when the bit of its bucket's group is set. When a first block
//!   is full, an insert moves out a resident of a group already marked before it marks
//!   another: at 90% load, 96% of negative lookups read one block (measured in the tests).
//! * **From the cuckoo filter**: when both blocks are full, a resident fingerprint of one of
//!   them moves to its own other block (one or two moves, searched before anything is
//!   changed, so a refused insert leaves the table as it was).
//!
//! Deletes stay exact for keys that were inserted: fingerprints of one bucket with the same
//! value are interchangeable between every key whose lookup reads that block (the pair of blocks
//! is a function of the block, bucket and fingerprint), and a move out of a block sets that
//! block's overflow bit, so a key whose copy was moved is still found. Overflow bits are
//! cleared only when the table empties: after many deletes a few more lookups read two
//! blocks, none reads a wrong answer.
//!
//! ```
//! use filter_vqf::VectorQuotient;
//! use filter_core::{Deletable, Filter};
//!
//! let mut sessions = VectorQuotient::builder().capacity(100_000).build()?;
//! sessions.insert(b"token-1")?;
//! sessions.insert(b"token-1")?;
//! assert_eq!(sessions.count(b"token-1"), 2);
//! sessions.remove(b"token-1")?;
//! assert!(sessions.contains(b"token-1"));
//! sessions.remove(b"token-1")?;
//! assert!(!sessions.contains(b"token-1"));
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![deny(unsafe_code)]

pub mod block;
mod builder;
mod codec;
mod explain;
mod insert;
pub mod kernel;
mod select;

use block::{group, Block, BUCKETS, OVERFLOW_BITS, SLOTS};
pub use builder::{blocks_for, VqfBuilder, DESIGN_LOAD};
use filter_core::{
    math, prefetch, reduce, Deletable, Error, FileKind, Filter, Hash128, Prefetch, Result, Sizing,
};

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(15, "vqf");

/// Where a key lives: its first block, its bucket, its fingerprint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub block: u64,
    pub bucket: u32,
    pub fp: u8,
}

/// A vector quotient filter with overflow bits: 64-byte blocks of 48 one-byte fingerprints.
///
/// # False-positive rate
///
/// A negative lookup compares its fingerprint (uniform on the 255 values `1..=255`) with the
/// fingerprints of its bucket in its first block, and, when that bucket's overflow bit is set,
/// with those of the same bucket in its second block. With `λ = 48α/72` fingerprints per bucket
/// on average at load `α` and a share `ω` of overflow bits set,
///
/// ```text
/// p = 1 - (1 - 1/255)^(λ(1 + ω))  ≈  λ(1 + ω)/255
/// ```
///
/// ([`math::vqf::vqf_fpr`]; [`Filter::expected_fpr`] uses the table's own `α` and `ω`). At
/// the design load of 90% that is about 0.24%, at 11.9 bits per key, whatever rate was asked
/// for: the builder refuses a target below what a full table guarantees
/// ([`math::vqf::vqf_fpr_bound`], every overflow bit set).
///
/// ```
/// use filter_vqf::VectorQuotient;
/// use filter_core::{math, testkit, Filter, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 5)?;
/// let mut f = VectorQuotient::builder().capacity(20_000).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 20_000)?;
/// let theory = math::vqf::vqf_fpr(f.load_factor(), f.overflow_share());
/// testkit::assert_others_fpr("vqf", &f, 400_000, theory);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct VectorQuotient {
    blocks: filter_core::Table<Block>,
    len: u64,
    /// Overflow bits set over the whole table.
    overflow_marks: u64,
    sizing: Sizing,
    /// How this CPU finds a bucket (never stored in files).
    kernel: kernel::Kernel,
}

/// Mixes a fingerprint and bucket into the offset of the second block (Murmur3's finaliser).
#[inline]
fn mix(v: u64) -> u64 {
    let mut k = v.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^ (k >> 33)
}

impl VectorQuotient {
    /// A builder; defaults to one million items.
    pub fn builder() -> VqfBuilder {
        VqfBuilder::default()
    }

    /// The false-positive rate it was built for (at most its rate at the design load).
    pub fn target_fpr(&self) -> f64 {
        self.sizing.fpr
    }

    /// Blocks in the table.
    pub fn block_count(&self) -> u64 {
        self.blocks.len() as u64
    }

    /// Fingerprints stored / slots.
    pub fn load_factor(&self) -> f64 {
        self.len as f64 / (self.block_count() * u64::from(SLOTS)) as f64
    }

    /// The share of overflow bits set: the chance that a negative lookup reads a second block.
    pub fn overflow_share(&self) -> f64 {
        self.overflow_marks as f64 / (self.block_count() * u64::from(OVERFLOW_BITS)) as f64
    }

    #[inline]
    pub(crate) fn place(&self, hash: Hash128) -> Place {
        let low = hash.hi & 0xffff_ffff;
        Place {
            block: reduce(hash.lo, self.block_count()),
            bucket: ((low * u64::from(BUCKETS)) >> 32) as u32,
            fp: 1 + (((hash.hi >> 32) * 255) >> 32) as u8,
        }
    }

    /// The other block of a fingerprint `fp` of bucket `q` in block `b`: an involution.
    #[inline]
    pub(crate) fn other(&self, b: u64, q: u32, fp: u8) -> u64 {
        let n = self.block_count();
        let h = reduce(mix(u64::from(fp) << 8 | u64::from(q)), n);
        if h >= b {
            h - b
        } else {
            h + n - b
        }
    }

    #[inline]
    fn block(&self, b: u64) -> &Block {
        &self.blocks[b as usize]
    }

    fn full_error(&self) -> Error {
        Error::Full {
            len: self.len,
            load_factor: self.load_factor(),
        }
    }

    /// Clears every overflow bit: right only when the table is empty (no key then lies in its
    /// second block), which makes an emptied table the same as a new one. The scan of the
    /// table is paid only when a bit was set, that is once per period in which some block
    /// filled up.
    fn clear_overflow_marks(&mut self) {
        for b in self.blocks.iter_mut() {
            b.clear_overflow();
        }
        self.overflow_marks = 0;
    }

    /// Whether a lookup of `hash` that misses its first block reads its second: the overflow
    /// bit of its bucket's group in its first block (what the share of negative lookups that
    /// read two cache lines counts).
    pub fn reads_second_block(&self, hash: Hash128) -> bool {
        self.second(self.place(hash)).is_some()
    }

    /// [`Filter::contains_hash`] by `k` (inlined into each kernel's own function).
    #[inline(always)]
    pub(crate) fn contains_with(&self, k: kernel::Kernel, hash: Hash128) -> bool {
        let p = self.place(hash);
        if self.block(p.block).contains(k, p.bucket, p.fp) {
            return true;
        }
        self.second(p)
            .is_some_and(|a| self.block(a).contains(k, p.bucket, p.fp))
    }

    /// The second block, when a lookup of `p` must read it.
    #[inline]
    fn second(&self, p: Place) -> Option<u64> {
        let first = self.block(p.block);
        first
            .overflowed(group(p.bucket))
            .then(|| self.other(p.block, p.bucket, p.fp))
            .filter(|&a| a != p.block)
    }
}

impl Filter for VectorQuotient {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.kernel.insert(self, hash)
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.kernel.contains(self, hash)
    }

    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        filter_core::insert_hash_batch_prefetched(self, hashes)
    }

    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        filter_core::contains_hash_batch_prefetched(self, hashes, out);
    }

    filter_core::filter_accessors!(self,
        name: "vqf",
        table: self.blocks,
        len: self.len,
        expected_fpr: math::vqf::vqf_fpr(self.load_factor(), self.overflow_share()),
    );
}

impl Prefetch for VectorQuotient {
    fn lines_per_key(&self) -> u32 {
        1
    }

    fn prefetch_hash(&self, hash: Hash128) {
        prefetch(self.block(self.place(hash).block));
    }
}

impl Deletable for VectorQuotient {
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        let p = self.place(hash);
        let second = self.second(p);
        let removed = self.blocks[p.block as usize].remove(p.bucket, p.fp)
            || second.is_some_and(|a| self.blocks[a as usize].remove(p.bucket, p.fp));
        if !removed {
            return Err(Error::NotPresent);
        }
        self.len -= 1;
        if self.len == 0 && self.overflow_marks > 0 {
            self.clear_overflow_marks();
        }
        Ok(())
    }

    fn count_hash(&self, hash: Hash128) -> u32 {
        let p = self.place(hash);
        self.block(p.block).count(p.bucket, p.fp)
            + self
                .second(p)
                .map_or(0, |a| self.block(a).count(p.bucket, p.fp))
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(VectorQuotient);

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
