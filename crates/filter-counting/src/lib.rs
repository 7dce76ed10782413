//! The counting Bloom filter (Fan, Cao, Almeida & Broder, "Summary Cache: a scalable wide-area web
//! cache sharing protocol", IEEE/ACM ToN 2000).
//!
//! A classic Bloom filter whose bits are replaced by small counters: an insert increments the
//! key's `k` counters, a removal decrements them, and a query checks that all `k` are non-zero.
//! With 4-bit counters packed two per byte it costs 4× the memory of a classic filter of the same
//! false-positive rate.
//!
//! Two rules keep it free of false negatives:
//! * a counter that reaches 15 *saturates*: it is never incremented or decremented again (its true
//!   count is unknown), so it can never wrongly drop to zero;
//! * a removal whose key has a zero counter is *refused* ([`Error::NotPresent`]): the key is
//!   provably absent, and decrementing the other counters would erase other keys.
//!
//! A counter below 15 holds the exact number of increments it received, so the counters that
//! did not saturate sum to at most `k · len`: the filter keeps that invariant through every
//! operation and checks it when a file is loaded, so every state the public API can reach saves
//! and loads. A removal that would
//! break it (more removals of a key than its inserts, once its counters saturated) is refused
//! with [`Error::NotPresent`]; see [`Deletable::remove_hash`] on [`CountingBloom`].
//!
//! Saturation is rare: [`math::counting_overflow_bound`] bounds its probability by about
//! `1.37e-15 · m` at the optimal `k` (Fan et al. §5.2).
//!
//! ```
//! use filter_counting::CountingBloom;
//! use filter_core::{Deletable, Error, Filter};
//!
//! let mut online = CountingBloom::builder().capacity(100_000).fpr(0.01).build()?;
//! online.insert(b"user-42")?;
//! online.remove(b"user-42")?;
//! assert!(!online.contains(b"user-42"));
//! assert_eq!(online.remove(b"user-42"), Err(Error::NotPresent)); // refused, nothing changed
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(2, "counting");

use filter_core::format::{invalid, Codec, Encoder, Parts, Reader};
use filter_core::{
    math, prefetch, Deletable, Error, FileKind, Filter, FormatError, Hash128, IndexGen, KeyHasher,
    MemoryCap, Prefetch, Result, Sizing,
};

/// Bits per counter.
pub const COUNTER_BITS: u32 = 4;
const MAX: u8 = (1 << COUNTER_BITS) - 1;

/// The most items a counting filter counts (`len`): inserts beyond it, unions past it and files
/// claiming more are refused. Far beyond any real use (at this load every counter of any table
/// that fits in memory has saturated), and low enough that `len + len` and `k · len` are
/// computed without overflow.
pub const MAX_ITEMS: u64 = 1 << 62;

/// A counting Bloom filter with 4-bit counters.
///
/// # False-positive rate
///
/// A counter is non-zero exactly when the matching bit of a classic filter would be set, so after
/// `n` inserts (net of removals) into `m` counters with `k` hashes the rate is the classic one,
/// `p ≈ (1 - e^(-kn/m))^k` ([`math::classic_fpr`]), as long as no counter saturated; the chance
/// that one did is bounded by [`CountingBloom::overflow_probability`].
/// [`Filter::expected_fpr`] returns the exact classic rate ([`math::classic_fpr_exact`],
/// evaluated without cancellation for every `k <= 64`), and sizing uses
/// [`math::classic_shape`], so every filter meets its target under the exact rate too.
///
/// ```
/// use filter_counting::CountingBloom;
/// use filter_core::{math, testkit, Deletable, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 11)?;
/// let mut f = CountingBloom::builder().capacity(20_000).fpr(0.01).hasher(hasher).build()?;
/// // Insert 25,000 keys and remove 5,000 of them: 20,000 remain.
/// testkit::insert_members(&mut f, 25_000)?;
/// for i in 20_000..25_000 {
///     f.remove(format!("member-{i}").as_bytes())?;
/// }
/// let theory = math::classic_fpr(f.counters(), 20_000, f.hashes());
/// testkit::assert_others_fpr("counting", &f, 200_000, theory);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct CountingBloom {
    /// Two counters per byte: counter `i` is the low nibble of byte `i/2` when `i` is even.
    counters: filter_core::Table<u8>,
    m: u64,
    k: u32,
    len: u64,
    /// The sum of the counters that did not saturate, kept up to date so that a removal can check
    /// the invariant `sum <= k * len` in O(1). Not computed for a table opened in place (it
    /// reads every counter): [`CountingBloom::own_table`] computes it before a first change.
    sum: u128,
    sizing: Sizing,
}

/// Builds a [`CountingBloom`] from capacity and rate.
#[derive(Clone, Debug, Default)]
pub struct CountingBuilder {
    sizing: Sizing,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl CountingBuilder {
    filter_core::table_builder_setters!();

    /// Builds the filter: as many counters as a classic filter has bits.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1) or below about 4e-20 (more than 64 hashes; see
    /// [`math::classic_shape`]), a size above the memory cap, or a size that cannot be
    /// allocated.
    pub fn build(self) -> Result<CountingBloom> {
        let sizing = self.sizing.validate()?;
        let (m, k) = math::classic_shape(sizing.capacity, sizing.fpr)?;
        let bytes = usize::try_from(m.div_ceil(2)).map_err(|_| Error::SizeOverflow {
            what: "counter array",
            hint: format!("{m} counters do not fit this platform; lower the capacity"),
        })?;
        Ok(CountingBloom {
            counters: filter_core::try_zeroed_table(bytes, self.table_options(), "counter array")?,
            m,
            k,
            len: 0,
            sum: 0,
            sizing,
        })
    }
}

impl CountingBloom {
    /// A builder; defaults to one million items at 1%.
    pub fn builder() -> CountingBuilder {
        CountingBuilder::default()
    }

    /// Number of counters, `m`.
    pub fn counters(&self) -> u64 {
        self.m
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }

    /// Number of counters stuck at their maximum.
    pub fn saturated(&self) -> u64 {
        (0..self.m).filter(|&i| self.get(i) == MAX).count() as u64
    }

    /// Upper bound on the probability that some counter has overflowed at the current load
    /// ([`math::counting_overflow_bound`]).
    pub fn overflow_probability(&self) -> f64 {
        math::counting_overflow_bound(self.m, self.len, self.k, COUNTER_BITS)
    }

    /// Checks a loaded item count against the counters. A counter below 15 never saturated, so
    /// it holds exactly the increments it received; each item added `k`, so the unsaturated
    /// counters sum to at most `k · len`, and with none saturated to exactly that. The filter refuses any operation that would break this
    /// (see [`Deletable::remove_hash`]), so every state it can reach passes this check.
    fn check_len(&self) -> Result<(), FormatError> {
        if self.len > MAX_ITEMS {
            return Err(invalid(format!(
                "{} items, above the most a counting filter counts ({MAX_ITEMS})",
                self.len
            )));
        }
        let saturated = self.saturated() > 0;
        let expected = u128::from(self.len) * u128::from(self.k);
        if self.sum > expected || (!saturated && self.sum != expected) {
            return Err(invalid(format!(
                "counters sum to {}, but {} items of {} hashes add {}{expected}",
                self.sum,
                self.len,
                self.k,
                if saturated { "at most " } else { "" }
            )));
        }
        Ok(())
    }

    /// Before the first change of a table opened in place (read from a file mapping, never
    /// written): the sum and the load's check of it, which an open leaves out, then a copy of
    /// the table to change. Nothing for a table of the filter's own.
    ///
    /// # Errors
    /// The check's refusal of counters that do not match the item count; nothing is changed.
    fn own_table(&mut self) -> Result<()> {
        if self.counters.is_in_file() {
            self.sum = self.counter_sum();
            self.check_len()?;
            self.counters = filter_core::Table::from(self.counters.to_vec());
        }
        Ok(())
    }

    /// The sum of the counters below 15, computed from the table.
    fn counter_sum(&self) -> u128 {
        let below_max = |c: u8| if c == MAX { 0 } else { u128::from(c) };
        self.counters
            .iter()
            .map(|&b| below_max(b & MAX) + below_max(b >> 4))
            .sum()
    }

    #[inline]
    fn get(&self, i: u64) -> u8 {
        (self.counters[(i / 2) as usize] >> ((i & 1) * 4)) & MAX
    }

    #[inline]
    fn set(&mut self, i: u64, v: u8) {
        let byte = &mut self.counters[(i / 2) as usize];
        let shift = (i & 1) * 4;
        *byte = (*byte & !(MAX << shift)) | (v << shift);
    }

    /// The key's k counter positions, sorted, so repeated positions sit together.
    fn positions(&self, hash: Hash128) -> ([u64; 64], usize) {
        let mut idx = [0u64; 64];
        let mut g = IndexGen::new(hash, self.m);
        let k = self.k as usize;
        idx[..k].iter_mut().for_each(|i| *i = g.next());
        idx[..k].sort_unstable();
        (idx, k)
    }
}

impl Filter for CountingBloom {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        if self.len >= MAX_ITEMS {
            return Err(Error::TooManyItems { limit: MAX_ITEMS });
        }
        self.own_table()?;
        let mut g = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            let i = g.next();
            let c = self.get(i);
            if c < MAX {
                self.set(i, c + 1);
                if c + 1 == MAX {
                    self.sum -= u128::from(c); // it leaves the sum: its count is unknown now
                } else {
                    self.sum += 1;
                }
            }
        }
        self.len += 1;
        Ok(())
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        let mut g = IndexGen::new(hash, self.m);
        (0..self.k).all(|_| self.get(g.next()) != 0)
    }

    filter_core::prefetched_batches!();

    filter_core::filter_accessors!(self,
        name: "counting",
        table: self.counters,
        len: self.len,
        expected_fpr: math::classic_fpr_best(self.m, self.len, self.k),
    );
}

impl Prefetch for CountingBloom {
    fn lines_per_key(&self) -> u32 {
        self.k
    }

    fn prefetch_hash(&self, hash: Hash128) {
        let mut g = IndexGen::new(hash, self.m);
        for _ in 0..self.k {
            prefetch(&self.counters[(g.next() / 2) as usize]);
        }
    }
}

impl Deletable for CountingBloom {
    /// Removes one copy of the key: decrements its counters, except saturated ones, which never
    /// move (their true count is unknown, so they stay non-zero and the key stays reported
    /// present; no other key can lose its trace).
    ///
    /// # Errors
    /// [`Error::NotPresent`], with nothing changed, when the filter proves that the key was not
    /// inserted (once more than removed): one of its counters holds less than the key's own
    /// increments there, or the removal would leave the counters summing to more than `k` per
    /// item left among those that did not saturate (`len` would fall below what the counters
    /// hold). The second case is how a key whose counters all saturated is refused once it was
    /// removed more often than the counters can account for: insert A 20 times and B once,
    /// remove A 21 times, and the 21st removal is refused, `len` stays 1 and B present.
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        self.own_table()?;
        let (idx, k) = self.positions(hash);
        let idx = &idx[..k];
        // Check everything before changing anything. A position that appears c times among the
        // key's k was incremented c times by its insert, so it must hold at least c.
        let mut start = 0;
        let mut decrements = 0u128;
        while start < k {
            let end = start
                + idx[start..]
                    .iter()
                    .take_while(|&&i| i == idx[start])
                    .count();
            let c = self.get(idx[start]);
            if c != MAX {
                if usize::from(c) < end - start {
                    return Err(Error::NotPresent);
                }
                decrements += (end - start) as u128;
            }
            start = end;
        }
        let left = self.len.checked_sub(1).ok_or(Error::NotPresent)?;
        if self.sum - decrements > u128::from(left) * u128::from(self.k) {
            return Err(Error::NotPresent);
        }
        for &i in idx {
            let c = self.get(i);
            if c != MAX {
                self.set(i, c - 1);
            }
        }
        self.sum -= decrements;
        self.len = left;
        Ok(())
    }

    /// The smallest of the key's counters, an upper bound on its inserts unless that counter
    /// saturated: a counter stuck at 15 has lost its true count, so the only honest upper bound
    /// is then `u32::MAX` ("at least 15, unknown").
    fn count_hash(&self, hash: Hash128) -> u32 {
        let mut g = IndexGen::new(hash, self.m);
        let least = (0..self.k).map(|_| self.get(g.next())).min().unwrap_or(0);
        if least == MAX {
            u32::MAX
        } else {
            u32::from(least)
        }
    }
}

impl Codec for CountingBloom {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.m).u32(self.k).u64(self.len);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        e.bytes(&self.counters);
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        let m = params.u64()?;
        let k = params.u32()?;
        counter_bytes(m, k).map(|n| n as u64)
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let m = params.u64()?;
        let k = params.u32()?;
        let len = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        let n_bytes = counter_bytes(m, k)?;
        let counters = payload.take_table(n_bytes)?;
        if m % 2 == 1 && counters[n_bytes - 1] >> 4 != 0 {
            return Err(invalid("counter set beyond the end of the array"));
        }
        let mut f = CountingBloom {
            counters,
            m,
            k,
            len,
            sum: 0,
            sizing,
        };
        if payload.in_place() {
            // Opened in place: the sum and its check read every counter, so they wait for a
            // change (`own_table`), and `format::mapped::verify` checks the file's checksum.
            if len > MAX_ITEMS {
                return Err(invalid(format!("{len} items (at most {MAX_ITEMS})")));
            }
            return Ok(f);
        }
        f.sum = f.counter_sum();
        f.check_len()?;
        Ok(f)
    }
}

/// The bytes of `m` 4-bit counters (two a byte), after checking the shape a file gives.
fn counter_bytes(m: u64, k: u32) -> Result<usize, FormatError> {
    if m == 0 || m > 1 << 63 || !(1..=64).contains(&k) {
        return Err(invalid(format!("{m} counters with {k} hashes")));
    }
    usize::try_from(m.div_ceil(2)).map_err(|_| invalid("too many counters"))
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(CountingBloom);

mod explain;
mod merge;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
