//! Guava's `com.google.common.hash.BloomFilter`, bit for bit: the same bits for the same keys,
//! and the bytes of its `writeTo` / `readFrom`.
//!
//! # What Guava does, and this type with it
//!
//! Read from Guava's `BloomFilter.java` and `BloomFilterStrategies.java`:
//!
//! - **Hash**: `Hashing.murmur3_128()`, MurmurHash3 x64_128 with seed 0, over the bytes the
//!   funnel writes. Its hash code is the 16 bytes `h1` then `h2`, each little-endian; both
//!   strategies read `h1` as the first long and `h2` as the second, so they are the `lo` and `hi`
//!   of [`filter_core::murmur3_x64_128`]`(key, 0)`.
//! - **Bits**: `m = 64 · words`, bit `i` at `words[i >> 6] >> (i & 63)` (a `long[]`, an
//!   `AtomicLongArray` since Guava 23); `m` is always a whole number of longs.
//! - **Strategies** (their ordinals are stored in the file):
//!   - `MURMUR128_MITZ_32` (0): `h1`'s low and high 32 bits as Java `int`s `a`, `b`; for
//!     `i = 1..=k`, `c = a + i·b` in 32-bit wrapping arithmetic, `c = !c` when negative, bit
//!     `c mod m`. Only 2^31 positions are reachable: above 2^31 bits part of the array is never
//!     set (Guava issue 1119, why the second strategy exists).
//!   - `MURMUR128_MITZ_64` (1, what `BloomFilter.create` uses): `c = h1`, then for each of `k`
//!     probes bit `(c & i64::MAX) mod m` and `c += h2` (64-bit wrapping).
//! - **Bytes** (`writeTo`): the strategy ordinal (a signed byte), `k` (an unsigned byte, 1 to
//!   255), the number of longs (a big-endian `int`), the longs (big-endian). Nothing else: no
//!   magic, no count, no checksum, and the funnel is not recorded.
//! - **Sizing** (`BloomFilter.create(funnel, n, fpp)`): `n = 0` counts as 1;
//!   `bits = (long) (-n · ln fpp / (ln 2)²)`, truncated, then rounded up to whole longs; `k` by
//!   one of two rules, [`HashCountRule`].
//!
//! # Funnels: which keys hash the same
//!
//! [`GuavaBloom::insert`] and [`GuavaBloom::contains`] take the bytes Guava's funnel would write:
//!
//! - `Funnels.byteArrayFunnel()` writes the array as it is: pass the same bytes.
//! - `Funnels.stringFunnel(UTF_8)` writes `string.getBytes(UTF_8)` (Guava's
//!   `AbstractHasher.putString`, which the MurmurHash3 hasher does not override), so a Rust
//!   `&str` passed as `s.as_bytes()` hashes as the same Java string. (A Java string with an
//!   unpaired surrogate encodes it as `?`; a Rust string cannot hold one.)
//! - Other funnels write other bytes, and a caller must write them the same way:
//!   `Funnels.integerFunnel()` and `longFunnel()` write the value's 4 or 8 bytes
//!   **little-endian** (`i.to_le_bytes()`), `unencodedCharsFunnel()` writes each UTF-16 code
//!   unit little-endian (`s.encode_utf16().flat_map(u16::to_le_bytes)`), `stringFunnel(UTF_16)`
//!   writes Java's UTF-16 encoding: a big-endian byte-order mark, then big-endian units. A
//!   user's own `Funnel` writes whatever its `funnel` method puts, in order, each primitive
//!   little-endian; `sequentialFunnel` concatenates its elements' bytes with no separator.
//!
//! The file does not say which funnel filled it; the caller must know, as with Guava's own
//! `readFrom`.
//!
//! # False-positive rate
//!
//! The classic approximation `(1 - e^(-kn/m))^k` ([`math::classic_fpr`]) at the filter's count.
//! A file carries no count, so a loaded filter's count is estimated from its set bits
//! ([`GuavaBloom::estimated_count`], Swamidass & Baldi 2007), and the rate at that estimate is the
//! share of set bits to the power `k` ([`GuavaBloom::estimated_fpr`], what Guava's
//! `expectedFpp()` reports).
//!
//! ```
//! use filter_core::Filter;
//! use filter_interop::guava::{GuavaBloom, Strategy};
//!
//! let mut f = GuavaBloom::new(2_000, 0.01, Strategy::Murmur128Mitz64)?;
//! filter_core::testkit::insert_members(&mut f, 2_000)?;
//! let expected = filter_core::math::classic_fpr(f.bits(), 2_000, f.hashes());
//! assert!((f.expected_fpr() - expected).abs() < 1e-12);
//! filter_core::testkit::assert_others_fpr("guava", &f, 200_000, expected);
//! // The estimate from the bits is within a few of the 2,000 items put in.
//! assert!((f.estimated_count() - 2_000.0).abs() < 4.0 * f.estimated_count_sd() + 1.0);
//! # Ok::<(), filter_core::Error>(())
//! ```

use filter_core::{math, Error, Filter, Hash128, HashKind, KeyHasher, Result};

mod codec;

pub use codec::{Header, HEADER_LEN};

/// The most longs Guava's bit array holds (a Java array, indexed by `int`).
pub const MAX_WORDS: u64 = i32::MAX as u64;

/// How a Guava filter turns a key's hash into bit positions; its ordinal is the file's first
/// byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// `MURMUR128_MITZ_32`, ordinal 0: two 32-bit halves of `h1` (see the module docs).
    Murmur128Mitz32 = 0,
    /// `MURMUR128_MITZ_64`, ordinal 1: `h1` stepped by `h2`; `BloomFilter.create`'s strategy.
    Murmur128Mitz64 = 1,
}

impl Strategy {
    /// The ordinal Guava writes.
    pub const fn ordinal(self) -> u8 {
        self as u8
    }

    /// The strategy of a stored ordinal (a signed byte in the file), if Guava defines it.
    pub const fn from_ordinal(ordinal: i8) -> Option<Self> {
        match ordinal {
            0 => Some(Strategy::Murmur128Mitz32),
            1 => Some(Strategy::Murmur128Mitz64),
            _ => None,
        }
    }

    /// Guava's name for it.
    pub const fn name(self) -> &'static str {
        match self {
            Strategy::Murmur128Mitz32 => "MURMUR128_MITZ_32",
            Strategy::Murmur128Mitz64 => "MURMUR128_MITZ_64",
        }
    }
}

/// How `BloomFilter.create` picks `k`; the bits are sized the same way by both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HashCountRule {
    /// `max(1, round(bits / n · ln 2))`, from the bit count before it is rounded up to whole
    /// longs: Guava 11 through the 31 and 32 releases Debian ships (the tests run 31.1), and the
    /// default here.
    #[default]
    FromBitsPerItem,
    /// `max(1, round(-ln fpp / ln 2))`: Guava's current source (`optimalNumOfHashFunctions(p)`,
    /// after google/guava issue 7346). The two rules differ only where the truncated bit count
    /// moves `bits / n · ln 2` across a half.
    FromFpp,
}

/// Guava's `BloomFilter` over byte keys (see the module docs for the exact rules).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuavaBloom {
    strategy: Strategy,
    hashes: u8,
    words: Vec<u64>,
    /// Bits set, kept as bits are set (Guava keeps the same count).
    ones: u64,
    /// Items inserted through this value, on top of `base`.
    inserted: u64,
    /// The count it started from: 0 for a new filter, the rounded estimate for a loaded one.
    base: u64,
    /// The `expectedInsertions` it was built for; `None` when loaded (the file does not say).
    expected: Option<u64>,
}

/// The bits `BloomFilter.create` sizes for `n` insertions at `fpp`, before they are rounded up
/// to whole longs: `(long) (-n · ln fpp / (ln 2)²)`, `n = 0` counting as 1.
///
/// # Errors
/// `fpp` outside (0, 1), `n` above `i64::MAX` (a Java `long`), and a size Guava refuses: 0 bits
/// (`fpp` above about 0.62 for one item) or more than [`MAX_WORDS`] longs.
pub fn optimal_bits(n: u64, fpp: f64) -> Result<u64> {
    let fpp = math::check_fpr(fpp)?;
    let n = filter_core::accept_if(
        i64::try_from(n).is_ok(),
        "expected_insertions",
        n,
        "at most 2^63 - 1 (Guava's expectedInsertions is a Java long)",
    )?
    .max(1);
    let ln2 = std::f64::consts::LN_2;
    // Java's `(long)` of a double truncates toward zero and saturates, as `as` does.
    let bits = (-(n as f64) * fpp.ln() / (ln2 * ln2)) as u64;
    if bits == 0 || bits.div_ceil(64) > MAX_WORDS {
        return Err(Error::SizeOverflow {
            what: "Guava bit array",
            hint: format!(
                "{n} insertions at fpp {} give {bits} bits; Guava takes 1 to {} bits: lower the \
                 fpp (or raise the insertions) for a non-empty filter, raise it for a smaller one",
                math::format_real(fpp),
                MAX_WORDS * 64
            ),
        });
    }
    Ok(bits)
}

/// The `k` `BloomFilter.create` picks for `n` insertions at `fpp`, given [`optimal_bits`]'s
/// `bits`, by `rule`.
///
/// # Errors
/// A `k` above 255, which Guava's constructor refuses (`fpp` below about 2^-255).
pub fn optimal_hashes(n: u64, fpp: f64, bits: u64, rule: HashCountRule) -> Result<u8> {
    let ln2 = std::f64::consts::LN_2;
    let k = match rule {
        HashCountRule::FromBitsPerItem => (bits as f64 / n.max(1) as f64 * ln2).round(),
        HashCountRule::FromFpp => (-fpp.ln() / ln2).round(),
    }
    .max(1.0);
    if k > 255.0 {
        return Err(Error::InvalidParameter {
            name: "fpp",
            value: math::format_real(fpp),
            expected: "a rate Guava reaches with at most 255 hash functions (about 1e-77 or above)",
        });
    }
    Ok(k as u8)
}

impl GuavaBloom {
    /// The filter `BloomFilter.create(funnel, expectedInsertions, fpp)` makes, with `strategy`
    /// (Guava's public `create` always takes [`Strategy::Murmur128Mitz64`]) and `k` by
    /// [`HashCountRule::FromBitsPerItem`]: same bits, same `k`, same bytes once filled with the
    /// same keys.
    ///
    /// # Errors
    /// As [`optimal_bits`] and [`optimal_hashes`], and [`Error::OutOfMemory`].
    pub fn new(expected_insertions: u64, fpp: f64, strategy: Strategy) -> Result<Self> {
        Self::with_rule(expected_insertions, fpp, strategy, HashCountRule::default())
    }

    /// [`Self::new`] with `k` picked by `rule`.
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_rule(
        expected_insertions: u64,
        fpp: f64,
        strategy: Strategy,
        rule: HashCountRule,
    ) -> Result<Self> {
        let bits = optimal_bits(expected_insertions, fpp)?;
        let k = optimal_hashes(expected_insertions, fpp, bits, rule)?;
        let mut f = Self::with_shape(bits.div_ceil(64), k, strategy)?;
        f.expected = Some(expected_insertions.max(1));
        Ok(f)
    }

    /// An empty filter of `words` longs (`64 · words` bits) and `hashes` hash functions.
    ///
    /// # Errors
    /// `words` outside `1..=`[`MAX_WORDS`], `hashes` of 0, or [`Error::OutOfMemory`].
    pub fn with_shape(words: u64, hashes: u8, strategy: Strategy) -> Result<Self> {
        let words = filter_core::accept_if(
            (1..=MAX_WORDS).contains(&words),
            "words",
            words,
            "between 1 and 2^31 - 1 longs (Guava's bit array is a Java long[])",
        )?;
        filter_core::accept_if(hashes > 0, "hashes", hashes, "between 1 and 255")?;
        let words = filter_core::try_filled(words as usize, 0u64, "Guava bit array")?;
        Ok(Self::from_parts(strategy, hashes, words, None))
    }

    /// A filter over `words` whose count is estimated from its bits.
    fn from_parts(strategy: Strategy, hashes: u8, words: Vec<u64>, expected: Option<u64>) -> Self {
        let ones = words.iter().map(|w| u64::from(w.count_ones())).sum();
        let mut f = GuavaBloom {
            strategy,
            hashes,
            words,
            ones,
            inserted: 0,
            base: 0,
            expected,
        };
        f.base = f.estimated_count().round() as u64; // saturates when the bits are all set
        f
    }

    /// The strategy (the file's first byte).
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Number of bits, `m = 64 · words`.
    pub fn bits(&self) -> u64 {
        self.words.len() as u64 * 64
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        u32::from(self.hashes)
    }

    /// The longs of the bit array, in Guava's order.
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    /// Bits set.
    pub fn ones(&self) -> u64 {
        self.ones
    }

    /// The `expectedInsertions` this filter was built for; `None` for a loaded one.
    pub fn expected_insertions(&self) -> Option<u64> {
        self.expected
    }

    /// The number of distinct items the set bits account for,
    /// [`math::bloom_count_estimate`] (Swamidass & Baldi 2007): what a Guava file, which stores
    /// no count, can tell of how full it is. Guava's `approximateElementCount()` is this value
    /// rounded. Infinite when every bit is set.
    pub fn estimated_count(&self) -> f64 {
        math::bloom_count_estimate(self.bits(), self.hashes(), self.ones).unwrap_or(f64::NAN)
    }

    /// The standard deviation of [`Self::estimated_count`] over filters holding that many items
    /// ([`math::bloom_count_estimate_sd`] at the estimate).
    pub fn estimated_count_sd(&self) -> f64 {
        math::bloom_count_estimate_sd(self.bits(), self.hashes(), self.estimated_count())
    }

    /// The false-positive rate at [`Self::estimated_count`]: the share of set bits to the power
    /// `k` ([`math::bloom_fpr_at_fill`]), Guava's `expectedFpp()`.
    pub fn estimated_fpr(&self) -> f64 {
        math::bloom_fpr_at_fill(self.bits(), self.hashes(), self.ones).unwrap_or(f64::NAN)
    }

    /// ORs another filter of the same shape and strategy into this one (Guava's `putAll`); the
    /// count becomes the estimate from the merged bits.
    ///
    /// # Errors
    /// [`Error::Incompatible`] for a different strategy, `k` or size; nothing changes then.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        if (self.strategy, self.hashes, self.words.len())
            != (other.strategy, other.hashes, other.words.len())
        {
            return Err(Error::Incompatible(format!(
                "Guava filters of {} bits, k = {}, {} and of {} bits, k = {}, {}: putAll needs \
                 the same size, k and strategy",
                self.bits(),
                self.hashes,
                self.strategy.name(),
                other.bits(),
                other.hashes,
                other.strategy.name()
            )));
        }
        self.words
            .iter_mut()
            .zip(&other.words)
            .for_each(|(w, o)| *w |= o);
        *self = Self::from_parts(
            self.strategy,
            self.hashes,
            std::mem::take(&mut self.words),
            self.expected,
        );
        Ok(())
    }
}

/// Calls `visit` with each of a key's `k` bit positions in `m` bits, in Guava's order, until it
/// returns `false`; returns whether every call returned `true`.
#[inline]
fn probe(
    strategy: Strategy,
    k: u8,
    m: u64,
    hash: Hash128,
    mut visit: impl FnMut(u64) -> bool,
) -> bool {
    match strategy {
        Strategy::Murmur128Mitz32 => {
            // Java `int`s: wrapping arithmetic, and `~c` (not `-c`) for a negative sum.
            let (a, b) = (hash.lo as u32 as i32, (hash.lo >> 32) as u32 as i32);
            (1..=i32::from(k)).all(|i| {
                let c = a.wrapping_add(i.wrapping_mul(b));
                let c = if c < 0 { !c } else { c };
                visit(c as u64 % m)
            })
        }
        Strategy::Murmur128Mitz64 => {
            let mut c = hash.lo;
            (0..k).all(|_| {
                let at = (c & i64::MAX as u64) % m;
                c = c.wrapping_add(hash.hi);
                visit(at)
            })
        }
    }
}

impl Filter for GuavaBloom {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        let (m, words) = (self.bits(), &mut self.words);
        let mut added = 0;
        probe(self.strategy, self.hashes, m, hash, |i| {
            let (w, bit) = (&mut words[(i >> 6) as usize], 1u64 << (i & 63));
            added += u64::from(*w & bit == 0);
            *w |= bit;
            true
        });
        self.ones += added;
        self.inserted = self.inserted.saturating_add(1);
        Ok(())
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        let words = &self.words;
        probe(self.strategy, self.hashes, self.bits(), hash, |i| {
            words[(i >> 6) as usize] >> (i & 63) & 1 == 1
        })
    }

    /// MurmurHash3 x64_128, seed 0: Guava's `Hashing.murmur3_128()`.
    fn hasher(&self) -> KeyHasher {
        KeyHasher::new(HashKind::Murmur3X64_128, 0).expect("seed 0 fits MurmurHash3's 32 bits")
    }

    /// Items inserted through this value, plus for a loaded filter the rounded
    /// [`GuavaBloom::estimated_count`] it was loaded with (a Guava file stores no count).
    fn len(&self) -> u64 {
        self.base.saturating_add(self.inserted)
    }

    /// The `expectedInsertions` it was built for; for a loaded filter, the count at which its
    /// `k` is optimal, `m ln 2 / k` (which is what Guava sized it for, give or take rounding).
    fn capacity(&self) -> u64 {
        self.expected.unwrap_or_else(|| {
            (self.bits() as f64 * std::f64::consts::LN_2 / f64::from(self.hashes)).round() as u64
        })
    }

    fn size_in_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// [`math::classic_fpr`] at [`Filter::len`].
    fn expected_fpr(&self) -> f64 {
        math::classic_fpr(self.bits(), self.len(), self.hashes())
    }

    fn name(&self) -> &'static str {
        "guava"
    }
}

#[cfg(test)]
mod tests;
