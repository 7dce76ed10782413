//! The k-probe bit array at the heart of the classic and scalable filters.

use crate::format::{invalid, refused, Encoder, Reader};
use crate::{Error, FormatError, Hash128, IndexGen, MemoryCap, Result, Table, TableOptions};

/// `m` bits probed at `k` positions per key by [`IndexGen`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BloomBits {
    words: Table<u64>,
    m: u64,
    k: u32,
}

impl BloomBits {
    /// Zeroed bits.
    ///
    /// # Errors
    /// `m` of 0 or above 2^63, `k` outside `1..=64`, or a size this platform cannot address.
    pub fn new(m: u64, k: u32) -> Result<Self> {
        Self::with_cap(m, k, MemoryCap::NONE)
    }

    /// Zeroed bits, refused if they would take more than `cap` bytes.
    ///
    /// # Errors
    /// As [`Self::new`], plus [`Error::MemoryCap`] and [`Error::OutOfMemory`].
    pub fn with_cap(m: u64, k: u32, cap: impl Into<TableOptions>) -> Result<Self> {
        let words = Self::table_len(m, k)?;
        Ok(BloomBits {
            words: crate::try_zeroed_table(words, cap, "bit array")?,
            m,
            k,
        })
    }

    /// The words a valid shape takes.
    pub(crate) fn table_len(m: u64, k: u32) -> Result<usize> {
        Self::check(m, k)?;
        usize::try_from(Self::words_for(m)).map_err(|_| Error::SizeOverflow {
            what: "bit array",
            hint: format!("{m} bits do not fit this platform's address space"),
        })
    }

    /// Bits from words of a shape checked when they were first built (a lock-free form's).
    pub(crate) fn from_valid_words(m: u64, k: u32, words: Table<u64>) -> Self {
        debug_assert!(Self::check(m, k).is_ok() && words.len() as u64 == Self::words_for(m));
        BloomBits { words, m, k }
    }

    /// Bytes the table of `m` bits takes, computed without allocating it.
    pub fn bytes_for(m: u64) -> u64 {
        Self::words_for(m).saturating_mul(8)
    }

    fn words_for(m: u64) -> u64 {
        m.div_ceil(64)
    }

    /// Checks a shape without allocating: `m` in `1..=2^63`, `k` in `1..=64`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `bits` or `hashes`.
    pub fn check(m: u64, k: u32) -> Result<()> {
        let bits = "a bit count between 1 and 2^63";
        crate::accept_if((1..=1 << 63).contains(&m), "bits", m, bits)?;
        let hashes = "between 1 and 64 hash functions (7 is optimal at 1%)";
        crate::accept_if((1..=64).contains(&k), "hashes", k, hashes)?;
        Ok(())
    }

    /// The words, bit `i` at `words[i / 64] >> (i % 64)`: for the lock-free form of a filter,
    /// which keeps the same layout.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// The words, giving up the shape.
    pub fn into_words(self) -> Table<u64> {
        self.words
    }

    /// Bits from words laid out as [`Self::words`] returns them.
    ///
    /// # Errors
    /// A shape refused by [`Self::new`], a word count that does not match `m`, or bits set
    /// beyond `m`.
    pub fn from_words(m: u64, k: u32, words: impl Into<Table<u64>>) -> Result<Self> {
        Self::check(m, k)?;
        let words = words.into();
        let tail_bits = m % 64;
        if words.len() as u64 != Self::words_for(m)
            || (tail_bits != 0 && words.last().is_some_and(|w| w >> tail_bits != 0))
        {
            return Err(Error::Incompatible(format!(
                "{} words do not hold exactly {m} bits",
                words.len()
            )));
        }
        Ok(BloomBits { words, m, k })
    }

    /// Bytes of the bit array on transparent huge pages now (see [`Table::huge_page_bytes`]).
    pub fn huge_page_bytes(&self) -> Option<u64> {
        self.words.huge_page_bytes()
    }

    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.m
    }

    /// Number of probes per key, `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }

    /// Bytes of the bit array.
    pub fn size_in_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Sets the key's k bits.
    #[inline]
    pub fn insert(&mut self, hash: Hash128) {
        let mut g = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            let i = g.next();
            self.words[(i / 64) as usize] |= 1 << (i % 64);
        }
    }

    /// Sets the key's k bits; returns whether any was clear (the key was certainly new). When
    /// none was, nothing changed: one pass for test-and-insert.
    #[inline]
    pub fn insert_if_absent(&mut self, hash: Hash128) -> bool {
        let mut g = IndexGen::new(hash, self.m);
        let mut new = false;
        for _ in 0..self.k {
            let i = g.next();
            let word = &mut self.words[(i / 64) as usize];
            let bit = 1 << (i % 64);
            new |= *word & bit == 0;
            *word |= bit;
        }
        new
    }

    /// Whether all the key's k bits are set.
    #[inline]
    pub fn contains(&self, hash: Hash128) -> bool {
        let mut g = IndexGen::new(hash, self.m);
        (0..self.k).all(|_| {
            let i = g.next();
            self.words[(i / 64) as usize] & (1 << (i % 64)) != 0
        })
    }

    /// Prefetches the words of the key's first `probes` positions.
    #[inline]
    pub fn prefetch(&self, hash: Hash128, probes: u32) {
        let mut g = IndexGen::new(hash, self.m);
        for _ in 0..probes.min(self.k) {
            let i = g.next();
            crate::prefetch(&self.words[(i / 64) as usize]);
        }
    }

    /// Sets the k bits of every key of `hashes`: the same bits as [`Self::insert`] on each in
    /// turn, pipelined for tables beyond the caches. The words of the key
    /// [`PREFETCH_AHEAD`](crate::PREFETCH_AHEAD) places later are prefetched, and the positions
    /// computed for that prefetch are kept in a ring and used for its insert, so that each key's
    /// positions are computed once (the generic pipeline computes them twice: 134 of the 235
    /// instructions per key it took at 1M keys, k = 7, under callgrind).
    pub fn insert_many_prefetched(&mut self, hashes: &[Hash128]) {
        const AHEAD: usize = crate::PREFETCH_AHEAD;
        // Up to 16 probes the ring stays on the stack (2 KiB); more are rare (p < 1e-4 is
        // k = 14) and take the plain loop.
        const MAX_K: usize = 16;
        let k = self.k as usize;
        if k > MAX_K {
            hashes.iter().for_each(|&h| self.insert(h));
            return;
        }
        let mut ring = [[0u64; MAX_K]; AHEAD];
        for (slot, &h) in ring.iter_mut().zip(hashes) {
            self.positions_prefetched(h, &mut slot[..k]);
        }
        for (i, &h) in hashes.iter().enumerate() {
            let slot = &mut ring[i % AHEAD];
            for &p in &slot[..k] {
                self.words[(p / 64) as usize] |= 1 << (p % 64);
            }
            debug_assert!(self.contains(h));
            if let Some(&next) = hashes.get(i + AHEAD) {
                self.positions_prefetched(next, &mut slot[..k]);
            }
        }
    }

    /// Writes the key's first `out.len()` positions into `out` and prefetches their words.
    #[inline(always)]
    fn positions_prefetched(&self, hash: Hash128, out: &mut [u64]) {
        let mut g = IndexGen::new(hash, self.m);
        for p in out {
            *p = g.next();
            crate::prefetch(&self.words[(*p / 64) as usize]);
        }
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.words.iter().map(|w| u64::from(w.count_ones())).sum()
    }

    /// Checks a loaded item count against the bits: each insert sets at most `k` bits, so more
    /// than `len · k` set bits (any set bit when `len` is 0) means `len` was altered.
    ///
    /// # Errors
    /// [`FormatError::Invalid`] naming the mismatch.
    pub fn check_len(&self, len: u64) -> Result<(), FormatError> {
        if self.words.is_in_file() {
            // Opened in place: counting reads the whole table, the cost an open does not pay
            // (`format::mapped::verify` checks the file's checksum instead).
            return Ok(());
        }
        let ones = self.count_ones();
        if ones > len.saturating_mul(u64::from(self.k)) {
            return Err(invalid(format!(
                "{ones} bits set by {len} items of {} hashes",
                self.k
            )));
        }
        Ok(())
    }

    /// Whether `other` has the same shape (m and k).
    fn same_shape(&self, other: &Self) -> Result<()> {
        if self.m != other.m || self.k != other.k {
            return Err(Error::Incompatible(format!(
                "shapes differ: {} bits / {} hashes vs {} bits / {} hashes",
                self.m, self.k, other.m, other.k
            )));
        }
        Ok(())
    }

    /// Bitwise OR of `other` into `self`.
    ///
    /// # Errors
    /// [`Error::Incompatible`] if the shapes differ.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        self.combine(other, |a, b| a | b)
    }

    /// Bitwise AND of `other` into `self`.
    ///
    /// # Errors
    /// [`Error::Incompatible`] if the shapes differ.
    pub fn intersect(&mut self, other: &Self) -> Result<()> {
        self.combine(other, |a, b| a & b)
    }

    /// Whether every bit set in `self` is set in `other`.
    ///
    /// # Errors
    /// [`Error::Incompatible`] if the shapes differ.
    pub fn is_subset(&self, other: &Self) -> Result<bool> {
        self.same_shape(other)?;
        Ok(self
            .words
            .iter()
            .zip(&other.words)
            .all(|(&a, &b)| a & !b == 0))
    }

    /// Clears every bit.
    pub fn clear(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Combines `other` into `self` word by word with `op`, refusing another shape.
    fn combine(&mut self, other: &Self, op: impl Fn(u64, u64) -> u64) -> Result<()> {
        self.same_shape(other)?;
        for (a, &b) in self.words.iter_mut().zip(&other.words) {
            *a = op(*a, b);
        }
        Ok(())
    }

    /// Writes m and k to the parameter section.
    pub fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.m).u32(self.k);
    }

    /// Writes the words to the payload.
    pub fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.u64s(&self.words);
    }

    /// Reads bits written by [`Self::encode_params`] and [`Self::encode_payload`], refusing
    /// impossible shapes and stray bits beyond `m`.
    ///
    /// # Errors
    /// Truncated or invalid data.
    pub fn decode(params: &mut Reader<'_>, payload: &mut Reader<'_>) -> Result<Self, FormatError> {
        let m = params.u64()?;
        let k = params.u32()?;
        Self::decode_words(m, k, payload)
    }

    /// The payload bytes of the words whose shape (m, k) `params` holds next, as
    /// [`Self::decode`] reads them: for a [`Codec::max_payload_len`](crate::format::Codec).
    ///
    /// # Errors
    /// Truncated parameters or a shape [`Self::check`] refuses.
    pub fn payload_len(params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let m = params.u64()?;
        let k = params.u32()?;
        Self::check(m, k).map_err(refused)?;
        crate::format::words_len(Self::words_for(m))
    }

    /// Reads m, k and the words from one section, as written by [`Self::encode_params`]
    /// followed by [`Self::encode_payload`] into the same section.
    ///
    /// # Errors
    /// Truncated or invalid data.
    pub fn decode_inline(r: &mut Reader<'_>) -> Result<Self, FormatError> {
        let m = r.u64()?;
        let k = r.u32()?;
        Self::decode_words(m, k, r)
    }

    fn decode_words(m: u64, k: u32, payload: &mut Reader<'_>) -> Result<Self, FormatError> {
        Self::check(m, k).map_err(refused)?;
        let n_words = usize::try_from(m.div_ceil(64)).map_err(|_| invalid("too many bits"))?;
        if payload.remaining() / 8 < n_words {
            return Err(FormatError::Truncated {
                needed: n_words as u64 * 8,
                available: payload.remaining() as u64,
            });
        }
        let words = payload.u64s(n_words)?;
        let tail_bits = m % 64;
        if tail_bits != 0 && words[n_words - 1] >> tail_bits != 0 {
            return Err(invalid("bits set beyond the end of the bit array"));
        }
        Ok(BloomBits { words, m, k })
    }
}

#[cfg(test)]
mod tests;
