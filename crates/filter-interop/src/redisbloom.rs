//! RedisBloom's scalable Bloom filter (`BF.*`), bit for bit: the chunks of `BF.SCANDUMP` read
//! into a filter that answers as `BF.EXISTS` does, and a filter written as chunks that
//! `BF.LOADCHUNK` takes, after which `BF.EXISTS` answers as it does here.
//!
//! # What RedisBloom does, and this type with it
//!
//! Read from RedisBloom's `src/sb.c`, `src/rebloom.c`, `deps/bloom/bloom.c` and
//! `deps/murmur2/MurmurHash2.c` (the 2.8 releases; `redis-stack` 7.x ships 2.8.2, which the
//! tests run):
//!
//! - **A chain of links.** A `BF` key is a chain of plain Bloom filters ("links"). `BF.EXISTS`
//!   answers yes when any link has all of the key's bits set. `BF.ADD` adds nothing when a link
//!   already answers yes (so the count is of keys that were new, not of calls); otherwise, when
//!   the newest link holds as many keys as its `entries`, a link of `entries · growth` keys at
//!   half the newest link's error rate is appended (or, with `NONSCALING`, the add fails), and
//!   the key's bits are set in the newest link.
//! - **Hash** ([`hash`]): with the option `FORCE64`, which every filter `BF.RESERVE`, `BF.ADD` and
//!   `BF.INSERT` create has, `a = MurmurHash64A(key, 0xc6a4a7935bd1e995)`,
//!   `b = MurmurHash64A(key, a)`; without it (filters of RedisBloom 1.x), MurmurHash2 (32-bit)
//!   with seed `0x9747b28c`, then seeded with `a`. All links share the key's `(a, b)`.
//! - **Bits**: probe `i` of `k` is `x = (a + i·b) mod M` in 64-bit wrapping arithmetic, bit
//!   `x & 7` of byte `x >> 3`. `M` is the link's bit count when its `n2` is 0 (every filter of
//!   `BF.RESERVE`, whose options include `NOROUND`), else `2^n2`: links built without `NOROUND`
//!   round their bits up to a power of two and reduce by a mask.
//! - **Sizing** (`bloom_init`): `bpe = -ln(error) / ln(2)²` (with `ln(2)²` as the constant
//!   0.480453013918201), `k = ceil(0.693147180559945 · bpe)`; with `NOROUND`,
//!   `bits = (u64) (entries · bpe)` (at least 1), rounded **up to whole 64-bit words**. The first
//!   link gets half the requested error rate (all of it with `NONSCALING`). So `BF.RESERVE`
//!   rounds bits up to a multiple of 64, never to a power of two.
//!
//! # The chunks
//!
//! `BF.SCANDUMP key 0` gives `(1, header)`; each later call with the iterator it was given
//! returns the next `(iterator, data)` pair, and `(0, "")` at the end. The header
//! ([`Header`]) is a packed C struct in the machine's byte order (little-endian on every platform
//! RedisBloom builds for): the chain's count (`u64`), number of links, options and growth (three
//! `u32`), then per link 53 bytes: bytes, bits, count (`u64`), error rate and bits per entry
//! (`f64`), `k` (`u32`), entries (`u64`), `n2` (`u8`). The data chunks are the links' bit arrays
//! in order, each cut into pieces of at most 16 MiB ([`MAX_CHUNK`]) that never span two links; a
//! chunk's iterator is 1 plus the number of data bytes up to and including it, so
//! `BF.LOADCHUNK` finds where it goes from `iterator - length`.
//!
//! [`RedisBloom::from_chunks`] reads such a dump and [`RedisBloom::to_chunks`] writes the same
//! pairs; [`RedisBloom::from_bytes`] / [`RedisBloom::to_bytes`] are a one-file form of the same
//! bytes (see [`FILE_MAGIC`]) that `filterlab info` and `filterlab query` recognise.
//!
//! # The cuckoo filter (`CF.*`): read and written back, not built
//!
//! [`RedisCuckoo`] reads `CF.SCANDUMP`'s chunks, answers as `CF.EXISTS` does, and writes the
//! same chunks back for `CF.LOADCHUNK` (its docs give the layout and the hash). Building or
//! changing one here is not implemented: `CF.ADD`'s kick-out walk and growth would have to be
//! followed step for step to give RedisBloom's bytes. RedisBloom 2.8.2 itself crashes (SIGFPE)
//! on the 145th `CF.ADD` of one key to a `CF.RESERVE k 100000 BUCKETSIZE 4 EXPANSION 2` filter:
//! each time the key's two buckets are full a sub-filter is added, and at 2^32 buckets the
//! kick-out loop's `uint32_t` bucket count is 0.
//!
//! # False-positive rate
//!
//! A key is a false positive when any link answers yes: `1 - Π (1 - p_i)`, with `p_i`
//! [`math::classic_fpr`] of link `i`'s reachable bits `M`, its `k` and the count the header
//! records for it.
//!
//! # Hashing and [`Filter`]
//!
//! RedisBloom's pair `(a, b)` is not one of [`filter_core::HashKind`]'s hashes. The key methods
//! ([`Filter::insert`], [`Filter::contains`], [`Filter::insert_if_absent`]) hash as RedisBloom
//! does; the `_hash` methods take RedisBloom's pair as a [`Hash128`] (`lo = a`, `hi = b`, from
//! [`RedisBloom::hash`]), **not** the hash of [`Filter::hasher`].
//!
//! ```
//! use filter_core::Filter;
//! use filter_interop::redisbloom::{RedisBloom, Scaling};
//!
//! // BF.RESERVE k 0.01 1000 EXPANSION 2, then 3,500 BF.ADDs: links of 1,000 and 2,000 keys fill.
//! let mut f = RedisBloom::reserve(0.01, 1000, Scaling::Expand(2))?;
//! for k in filter_core::testkit::keys("member", 3500) {
//!     f.insert(&k)?;
//! }
//! assert_eq!(f.links().len(), 3);
//! assert!(f.contains(b"member-7@example.com"));
//! let back = RedisBloom::from_chunks(&f.to_chunks())?;
//! assert_eq!(back, f);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use filter_core::{math, Error, Filter, Hash128, HashKind, KeyHasher, Result};

mod codec;
mod cuckoo;
pub mod hash;

pub use codec::{Header, LinkHeader, CHAIN_HEADER_LEN, FILE_MAGIC, LINK_HEADER_LEN, MAX_CHUNK};
pub use cuckoo::{RedisCuckoo, CF_HEADER_LEN, CF_MAX_BUCKETS};

/// `BLOOM_OPT_NOROUND`: bits as computed, not rounded up to a power of two.
pub const OPT_NOROUND: u32 = 1;
/// `BLOOM_OPT_ENTS_IS_BITS`: the capacity given is `log2` of the bits.
pub const OPT_ENTS_IS_BITS: u32 = 2;
/// `BLOOM_OPT_FORCE64`: the 64-bit hash (MurmurHash64A).
pub const OPT_FORCE64: u32 = 4;
/// `BLOOM_OPT_NO_SCALING`: the chain never grows (`NONSCALING`).
pub const OPT_NO_SCALING: u32 = 8;
/// Every option RedisBloom knows; a header with another bit set is refused, as RedisBloom does.
pub const OPT_ALL: u32 = OPT_NOROUND | OPT_ENTS_IS_BITS | OPT_FORCE64 | OPT_NO_SCALING;
/// The growth `BF.RESERVE` and `BF.ADD` record when none is given (also with `NONSCALING`).
pub const DEFAULT_EXPANSION: u32 = 2;

/// RedisBloom's `LN2`, 15 digits: not `std::f64::consts::LN_2`, whose last digits differ and
/// would give another `k` where `0.693147180559945 · bpe` falls just under a whole number.
#[allow(clippy::approx_constant)]
const LN2: f64 = 0.693147180559945;
/// RedisBloom's `ln(2)²`.
const LN2_SQUARED: f64 = 0.480453013918201;
/// Each new link's error rate, as a share of the previous link's.
const TIGHTENING: f64 = 0.5;

/// Bits per entry for an error rate, as `calc_bpe` computes it.
fn bits_per_entry(error: f64) -> f64 {
    (-(error.ln() / LN2_SQUARED)).abs()
}

/// `k` for a bits-per-entry figure, as `bloom_init` computes it (`ceil(LN2 · bpe)`).
fn hashes_for(bpe: f64) -> f64 {
    (LN2 * bpe).ceil()
}

/// Whether a chain grows: `BF.RESERVE`'s `EXPANSION` and `NONSCALING`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// Each new link holds this many times the keys of the last (`EXPANSION n`, at least 1).
    Expand(u32),
    /// `NONSCALING`: one link; an add beyond its capacity fails. The header still records a
    /// growth of [`DEFAULT_EXPANSION`], as `BF.RESERVE` writes it.
    NonScaling,
}

/// One link of the chain: a plain Bloom filter.
#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    bf: Vec<u8>,
    n2: u8,
    hashes: u32,
    entries: u64,
    error: f64,
    bpe: f64,
    size: u64,
}

impl Link {
    /// `bloom_init(entries, error, options)`: RedisBloom's sizing of a new link.
    fn init(entries: u64, error: f64, options: u32) -> Result<Self> {
        filter_core::accept_if(entries >= 1, "capacity", entries, "at least 1")?;
        math::check_fpr(error)?;
        let bpe = bits_per_entry(error);
        let (bits, n2, entries) = if options & OPT_ENTS_IS_BITS != 0 {
            filter_core::accept_if(
                entries < 64,
                "capacity",
                entries,
                "below 64 (with ENTS_IS_BITS it is log2 of the bits)",
            )?;
            let bits = 1u64 << entries;
            (bits, entries as u8, (bits as f64 / bpe) as u64)
        } else if options & OPT_NOROUND != 0 {
            (((entries as f64 * bpe) as u64).max(1), 0, entries)
        } else {
            let want = entries as f64 * bpe;
            // C's logb: the binary exponent (want is at least bpe, so normal when it is >= 1).
            let exp = ((want.to_bits() >> 52) & 0x7ff) as i64 - 1023;
            if !(0..=62).contains(&exp) {
                return Err(Error::SizeOverflow {
                    what: "RedisBloom link",
                    hint: format!(
                        "{entries} entries at {error} need 2^{exp} bits rounded up to a power \
                         of two; RedisBloom takes 1 to 2^63"
                    ),
                });
            }
            let bits = 1u64 << (exp + 1);
            let spare = ((bits as f64 - want) as u64) as f64 / bpe;
            (bits, exp as u8 + 1, entries.saturating_add(spare as u64))
        };
        let bytes = bits.div_ceil(64) * 8;
        let len = usize::try_from(bytes).map_err(|_| Error::SizeOverflow {
            what: "RedisBloom link",
            hint: format!("{bytes} bytes do not fit this platform's memory"),
        })?;
        Ok(Link {
            bf: filter_core::try_filled(len, 0u8, "RedisBloom link")?,
            n2,
            hashes: hashes_for(bpe) as u32,
            entries,
            error,
            bpe,
            size: 0,
        })
    }

    /// The bit array, RedisBloom's bytes.
    pub fn data(&self) -> &[u8] {
        &self.bf
    }

    /// Bits, `8 · bytes` (a multiple of 64).
    pub fn bits(&self) -> u64 {
        self.bf.len() as u64 * 8
    }

    /// The bits a probe can reach: `2^n2` when `n2 > 0`, else all of them.
    pub fn modulus(&self) -> u64 {
        if self.n2 > 0 {
            1u64 << self.n2
        } else {
            self.bits()
        }
    }

    /// `log2` of the bits for a power-of-two link, 0 for one sized with `NOROUND`.
    pub fn n2(&self) -> u8 {
        self.n2
    }

    /// Hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.hashes
    }

    /// Keys the link was sized for; the chain appends a link once this many are in.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The link's error rate.
    pub fn error(&self) -> f64 {
        self.error
    }

    /// Bits per entry, `-ln(error) / ln(2)²`.
    pub fn bits_per_entry(&self) -> f64 {
        self.bpe
    }

    /// Keys added to this link (as RedisBloom counts them: the new ones).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// [`math::classic_fpr`] of the reachable bits at the recorded count.
    pub fn expected_fpr(&self) -> f64 {
        math::classic_fpr(self.modulus(), self.size, self.hashes)
    }

    /// Sets the `k` bits of the pair `(a, b)`: bit `x & 7` of byte `x >> 3` for
    /// `x = (a + i·b) mod M`.
    #[inline]
    fn set(&mut self, a: u64, b: u64) {
        let m = self.modulus();
        for i in 0..u64::from(self.hashes) {
            let x = a.wrapping_add(i.wrapping_mul(b)) % m;
            self.bf[(x >> 3) as usize] |= 1u8 << (x & 7);
        }
    }

    /// Whether the `k` bits of the pair `(a, b)` are all set.
    #[inline]
    fn check(&self, a: u64, b: u64) -> bool {
        let m = self.modulus();
        (0..u64::from(self.hashes)).all(|i| {
            let x = a.wrapping_add(i.wrapping_mul(b)) % m;
            self.bf[(x >> 3) as usize] & (1u8 << (x & 7)) != 0
        })
    }
}

/// RedisBloom's scalable Bloom filter (a `BF` key): a chain of [`Link`]s.
#[derive(Clone, Debug, PartialEq)]
pub struct RedisBloom {
    links: Vec<Link>,
    size: u64,
    options: u32,
    growth: u32,
}

impl RedisBloom {
    /// The filter `BF.RESERVE key error_rate capacity [EXPANSION n | NONSCALING]` creates
    /// (options `FORCE64 | NOROUND`, plus `NO_SCALING`): same links, same bytes once the same
    /// keys are added in the same order.
    ///
    /// # Errors
    /// An error rate outside (0, 1), a capacity of 0, an expansion of 0, a size beyond memory
    /// ([`Error::SizeOverflow`], [`Error::OutOfMemory`]).
    pub fn reserve(error_rate: f64, capacity: u64, scaling: Scaling) -> Result<Self> {
        let (options, growth) = match scaling {
            Scaling::Expand(g) => (OPT_FORCE64 | OPT_NOROUND, g),
            Scaling::NonScaling => (
                OPT_FORCE64 | OPT_NOROUND | OPT_NO_SCALING,
                DEFAULT_EXPANSION,
            ),
        };
        Self::with_options(error_rate, capacity, options, growth)
    }

    /// `SB_NewChain(capacity, error_rate, options, growth)`: any of RedisBloom's options
    /// ([`OPT_ALL`]), for filters older releases made (without `FORCE64`, or without `NOROUND`).
    ///
    /// # Errors
    /// As [`Self::reserve`]; options outside [`OPT_ALL`]; a growth of 0 for a scaling chain.
    pub fn with_options(error_rate: f64, capacity: u64, options: u32, growth: u32) -> Result<Self> {
        filter_core::accept_if(
            options & !OPT_ALL == 0,
            "options",
            options,
            "RedisBloom's NOROUND (1), ENTS_IS_BITS (2), FORCE64 (4), NO_SCALING (8)",
        )?;
        filter_core::accept_if(
            growth >= 1 || options & OPT_NO_SCALING != 0,
            "expansion",
            growth,
            "at least 1",
        )?;
        let error = math::check_fpr(error_rate)?;
        let first = if options & OPT_NO_SCALING != 0 {
            error
        } else {
            error * TIGHTENING
        };
        Ok(RedisBloom {
            links: vec![Link::init(capacity, first, options)?],
            size: 0,
            options,
            growth,
        })
    }

    /// The links, oldest first.
    pub fn links(&self) -> &[Link] {
        &self.links
    }

    /// The chain's options (`OPT_*`).
    pub fn options(&self) -> u32 {
        self.options
    }

    /// The growth (`EXPANSION`): each new link's entries over the last one's.
    pub fn growth(&self) -> u32 {
        self.growth
    }

    /// Whether keys are hashed with MurmurHash64A (`FORCE64`).
    pub fn force64(&self) -> bool {
        self.options & OPT_FORCE64 != 0
    }

    /// RedisBloom's hash pair of a key for this chain, as the [`Hash128`] the `_hash` methods
    /// take (`lo = a`, `hi = b`).
    pub fn hash(&self, key: &[u8]) -> Hash128 {
        let (lo, hi) = hash::pair(key, self.force64());
        Hash128 { lo, hi }
    }

    /// Bits set, over all links.
    pub fn ones(&self) -> u64 {
        self.links
            .iter()
            .flat_map(|l| &l.bf)
            .map(|b| u64::from(b.count_ones()))
            .sum()
    }

    /// `SBChain_Add`: `Ok(true)` when the key was new (its bits set in the newest link, a link
    /// appended first when that one is full), `Ok(false)` when some link already answers yes.
    fn add(&mut self, h: Hash128) -> Result<bool> {
        if self.contains_hash(h) {
            return Ok(false);
        }
        let last = self.links.last().expect("a chain has a link");
        if last.size >= last.entries {
            if self.options & OPT_NO_SCALING != 0 {
                return Err(Error::Full {
                    len: self.size,
                    load_factor: 1.0,
                });
            }
            let entries = last
                .entries
                .checked_mul(u64::from(self.growth))
                .ok_or_else(|| Error::SizeOverflow {
                    what: "RedisBloom link",
                    hint: format!(
                        "a link of {} entries times {} overflows 64 bits",
                        last.entries, self.growth
                    ),
                })?;
            let link = Link::init(entries, last.error * TIGHTENING, self.options)?;
            self.links.try_reserve(1).map_err(|_| Error::OutOfMemory {
                what: "RedisBloom chain",
                bytes: std::mem::size_of::<Link>() as u64,
            })?;
            self.links.push(link);
        }
        let last = self.links.last_mut().expect("a chain has a link");
        last.set(h.lo, h.hi);
        last.size += 1;
        self.size += 1;
        Ok(true)
    }
}

impl Filter for RedisBloom {
    /// `BF.ADD` of the key whose RedisBloom pair is `hash` ([`RedisBloom::hash`]).
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.add(hash).map(|_| ())
    }

    /// `BF.EXISTS` of the key whose RedisBloom pair is `hash` ([`RedisBloom::hash`]): newest link
    /// first, as RedisBloom checks.
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.links.iter().rev().any(|l| l.check(hash.lo, hash.hi))
    }

    /// Not RedisBloom's hash, which no [`HashKind`] is: the key methods hash with
    /// [`RedisBloom::hash`], and so must callers of the `_hash` methods.
    fn hasher(&self) -> KeyHasher {
        KeyHasher::new(HashKind::Xxh3_128, 0).expect("xxh3 takes any seed")
    }

    fn insert(&mut self, key: &[u8]) -> Result<()> {
        self.add(self.hash(key)).map(|_| ())
    }

    fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hash(key))
    }

    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        self.add(hash)
    }

    fn insert_if_absent(&mut self, key: &[u8]) -> Result<bool> {
        self.add(self.hash(key))
    }

    /// The count RedisBloom records: keys that were new when added (`BF.INFO`'s "Number of items
    /// inserted"), not every call.
    fn len(&self) -> u64 {
        self.size
    }

    /// The entries of the links so far (`BF.INFO`'s "Capacity").
    fn capacity(&self) -> u64 {
        self.links
            .iter()
            .fold(0u64, |c, l| c.saturating_add(l.entries))
    }

    fn size_in_bytes(&self) -> usize {
        self.links.iter().map(|l| l.bf.len()).sum()
    }

    /// `1 - Π (1 - p_i)` over the links, each [`Link::expected_fpr`].
    fn expected_fpr(&self) -> f64 {
        1.0 - self
            .links
            .iter()
            .map(|l| 1.0 - l.expected_fpr())
            .product::<f64>()
    }

    fn name(&self) -> &'static str {
        "redisbloom"
    }
}

#[cfg(test)]
mod tests;
