//! [`AtomicBits`]: the bit array of [`BloomBits`] with atomic words, for the lock-free classic
//! filter. Built from a valid shape only, so converting back is infallible.

use super::{try_atomic_table, words, LenCounter};
use crate::{BloomBits, MemoryCap, Result, Table, TableMemory, TableOptions};
use std::sync::atomic::AtomicU64;

/// `m` bits probed at `k` positions, as [`BloomBits`], in atomic words (same layout: bit `i` at
/// `words[i / 64] >> (i % 64)`).
#[derive(Debug)]
pub struct AtomicBits {
    words: Table<AtomicU64>,
    m: u64,
    k: u32,
}

impl AtomicBits {
    /// Zeroed bits, refused if they would take more than `cap` bytes.
    ///
    /// # Errors
    /// As [`BloomBits::with_cap`].
    pub fn with_cap(m: u64, k: u32, cap: impl Into<TableOptions>) -> Result<Self> {
        let words = BloomBits::table_len(m, k)?;
        Ok(AtomicBits {
            words: try_atomic_table(words, cap, "bit array")?,
            m,
            k,
        })
    }

    /// The words.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.m
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }

    /// A copy of the bits and of `len`, safe to take while other threads insert (the words
    /// first, then the count: [`words::snapshot_into`]); the copy is allocated fallibly.
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`] when the copy cannot be allocated.
    pub fn snapshot(&self, len: &LenCounter) -> Result<(BloomBits, u64)> {
        let mut copy =
            crate::try_zeroed_table::<u64>(self.words.len(), MemoryCap::NONE, "snapshot")?;
        let n = words::snapshot_into(self.words.iter(), copy.iter_mut(), len);
        Ok((BloomBits::from_valid_words(self.m, self.k, copy), n))
    }
}

/// Same size and alignment: converted in place, in the same memory.
impl From<BloomBits> for AtomicBits {
    fn from(b: BloomBits) -> Self {
        let (m, k) = (b.bits(), b.hashes());
        AtomicBits {
            words: b.into_words().convert(AtomicU64::new),
            m,
            k,
        }
    }
}

/// The shape was valid when built: no check can fail.
impl From<AtomicBits> for BloomBits {
    fn from(b: AtomicBits) -> Self {
        BloomBits::from_valid_words(b.m, b.k, b.words.convert(AtomicU64::into_inner))
    }
}

impl TableMemory for AtomicBits {
    fn table_bytes(&self) -> usize {
        self.words.table_bytes()
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.words.huge_page_bytes()
    }
}
