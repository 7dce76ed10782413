//! Other crates' approximate-membership filters, wrapped so the bench harness can time them
//! beside filterlab on the same keys, in the same process, with the same loop.
//!
//! # Structure
//!
//! - [`PeerKind`] names one peer: a crate, a type in it and the way it is configured here
//!   ([`PeerKind::name`] for tables, [`PeerKind::quirks`] for the report's footnotes).
//! - [`Peer`] holds one built filter, one enum variant per kind, so a timing loop over
//!   [`Peer::contains`] is a `match` the optimiser can hoist, not a virtual call per key.
//! - [`fastbloom_atomic_parallel_build`] times fastbloom's `AtomicBloomFilter` filled from
//!   several threads at once and returns it as an [`AtomicPeer`].
//!
//! The peers pull two `rand` generations (0.7 through cuckoofilter and
//! probabilistic-collections, 0.9 through fastbloom) besides the 0.10 that filterlab uses, which
//! is why they live in this crate rather than in the harness or the filter crates.
//!
//! # Determinism
//!
//! Every peer whose API takes a seed is seeded from [`SEED`], so two runs build bit-identical
//! filters and report the same false positives. Where an API has no seed, the peer is still
//! deterministic when its hashing uses fixed keys (growable-bloom-filter's xxh3, cuckoofilter's
//! zero-keyed SipHash, xorf's fixed retry sequence); the two exceptions, cuckoofilter's eviction
//! walk and `HashSet`'s `RandomState`, are stated in [`PeerKind::quirks`].
//!
//! # Keys
//!
//! Every Hash-based peer is handed the key as `&[u8]`, whose `Hash` impl writes a length prefix
//! and then the bytes, so all of them hash the same byte stream. xorf takes `u64`s, so its keys
//! are hashed with `xxh3_64` first, on insert and on lookup alike.

use std::collections::HashSet;
use std::fmt;
use std::mem::size_of;

use anyhow::{bail, ensure, Context};
use fastbloom::BloomFilter;
use foldhash::fast::FixedState;
use xorf::Filter as _;
use xxhash_rust::xxh3::{xxh3_64, Xxh3};

mod atomic;
mod one_shot;
mod quirks;

pub use atomic::{fastbloom_atomic_parallel_build, AtomicPeer};
pub use one_shot::{Xxh3Once, Xxh3OnceState};

/// The seed every seedable peer is built with.
///
/// Fixed, so that a peer's false positives are the same in every run and on every machine, and
/// a change in a reported FP rate means a change in the code, not a new draw.
pub const SEED: u64 = 0x5EED_F11C_0DE5_1AB5;

/// A second, different seed for APIs that take two hash keys (see [`bloomfilter_seed`]).
const SEED2: u64 = 0x9E37_79B9_7F4A_7C15;

/// One of the peer filters, without its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PeerKind {
    /// `fastbloom::BloomFilter` with its default hasher (SipHash-1-3), seeded with [`SEED`].
    FastbloomDefault,
    /// `fastbloom::BloomFilter` hashing with `foldhash::fast::FixedState::with_seed(SEED)`.
    FastbloomFoldhash,
    /// `fastbloom::BloomFilter` hashing each key once with `xxh3_64_with_seed(key, SEED)`
    /// ([`Xxh3OnceState`]): filterlab's `HashKind::Xxh3_64`, so that the split-block goal
    /// compares like structures with the same hash.
    FastbloomXxh3,
    /// `bloomfilter::Bloom<[u8]>`, built by `new_for_fp_rate_with_seed`.
    Bloomfilter,
    /// `cuckoofilter::CuckooFilter` with its default hasher.
    Cuckoofilter,
    /// `cuckoofilter::CuckooFilter<Xxh3>`: the same filter with a fast hasher (it takes any
    /// `Hasher + Default`), its fastest fair configuration.
    CuckoofilterXxh3,
    /// `growable_bloom_filter::GrowableBloom`, a scalable Bloom filter.
    GrowableBloom,
    /// `probabilistic_collections::bloom::BloomFilter` with two seeded SipHash-2-4 builders.
    ProbabilisticCollections,
    /// `xorf::BinaryFuse8`, a static filter built once from the keys' `xxh3_64` hashes.
    BinaryFuse8,
    /// `xorf::BinaryFuse16`: the same construction with 16-bit fingerprints.
    BinaryFuse16,
    /// `qfilter::Filter`, a rank-and-select quotient filter (RSQF, Pandey et al. 2017) of fixed
    /// size, with its default hasher.
    Qfilter,
    /// `std::collections::HashSet<String>`: the exact set that filters are usually brought in to replace.
    HashSet,
    /// `HashSet<Box<[u8]>, foldhash::fast::FixedState>`: the exact set in its fastest fair
    /// configuration (bytes, no UTF-8 check, a fast hasher).
    HashSetBytes,
}

impl PeerKind {
    /// Every peer, in the order the report lists them.
    pub const ALL: [PeerKind; 13] = [
        PeerKind::FastbloomDefault,
        PeerKind::FastbloomFoldhash,
        PeerKind::FastbloomXxh3,
        PeerKind::Bloomfilter,
        PeerKind::Cuckoofilter,
        PeerKind::CuckoofilterXxh3,
        PeerKind::GrowableBloom,
        PeerKind::ProbabilisticCollections,
        PeerKind::BinaryFuse8,
        PeerKind::BinaryFuse16,
        PeerKind::Qfilter,
        PeerKind::HashSet,
        PeerKind::HashSetBytes,
    ];

    /// The name used in tables and plots.
    pub fn name(self) -> &'static str {
        match self {
            PeerKind::FastbloomDefault => "fastbloom",
            PeerKind::FastbloomFoldhash => "fastbloom+foldhash",
            PeerKind::FastbloomXxh3 => "fastbloom+xxh3-64",
            PeerKind::Bloomfilter => "bloomfilter",
            PeerKind::Cuckoofilter => "cuckoofilter",
            PeerKind::CuckoofilterXxh3 => "cuckoofilter+xxh3",
            PeerKind::GrowableBloom => "growable-bloom-filter",
            PeerKind::ProbabilisticCollections => "probabilistic-collections",
            PeerKind::BinaryFuse8 => "xorf BinaryFuse8",
            PeerKind::BinaryFuse16 => "xorf BinaryFuse16",
            PeerKind::Qfilter => "qfilter",
            PeerKind::HashSet => "std HashSet<String>",
            PeerKind::HashSetBytes => "HashSet<Box<[u8]>>+foldhash",
        }
    }

    /// The crate and version this peer wraps, as locked for this build.
    pub fn crate_version(self) -> &'static str {
        match self {
            PeerKind::FastbloomDefault => "fastbloom 0.17.0",
            PeerKind::FastbloomFoldhash => "fastbloom 0.17.0 + foldhash 0.2.0",
            PeerKind::FastbloomXxh3 => {
                "fastbloom 0.17.0 + xxhash-rust 0.8 (xxh3_64, one call a key)"
            }
            PeerKind::Bloomfilter => "bloomfilter 3.0.2",
            PeerKind::Cuckoofilter => "cuckoofilter 0.5.0",
            PeerKind::CuckoofilterXxh3 => "cuckoofilter 0.5.0 + xxhash-rust 0.8 (Xxh3 hasher)",
            PeerKind::GrowableBloom => "growable-bloom-filter 2.1.1",
            PeerKind::ProbabilisticCollections => "probabilistic-collections 0.7.0",
            PeerKind::BinaryFuse8 | PeerKind::BinaryFuse16 => {
                "xorf 0.13.0 + xxhash-rust 0.8 (xxh3_64)"
            }
            PeerKind::Qfilter => "qfilter 0.3.1",
            PeerKind::HashSet => "Rust std",
            PeerKind::HashSetBytes => "Rust std + foldhash 0.2.0",
        }
    }
}

impl fmt::Display for PeerKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `f` with every key of `keys` inserted.
fn filled<'a, S: std::hash::BuildHasher>(
    mut f: BloomFilter<S>,
    keys: impl Iterator<Item = &'a [u8]>,
) -> BloomFilter<S> {
    for key in keys {
        f.insert(key);
    }
    f
}

/// The 32-byte seed handed to `bloomfilter`.
///
/// `bloomfilter` 3.x splits the seed into two 16-byte halves, keys one SipHash-1-3 instance
/// with each, and derives probe `i >= 2` as `h0 + i·h1`. If the halves are equal then
/// `h0 == h1`: the first two probes hit the same bit and the rest are multiples of one hash,
/// which raises the false-positive rate above its target (the test
/// `bloomfilter_equal_seed_halves_raise_fp` measures by how much). The halves are therefore
/// built from two different constants.
pub fn bloomfilter_seed() -> [u8; 32] {
    let mut seed = [0u8; 32];
    seed[..16].copy_from_slice(
        &u128::from(SEED)
            .wrapping_mul(0xFF51_AFD7_ED55_8CCD)
            .to_le_bytes(),
    );
    seed[16..].copy_from_slice(
        &u128::from(SEED2)
            .wrapping_mul(0xC4CE_B9FE_1A85_EC53)
            .to_le_bytes(),
    );
    debug_assert_ne!(seed[..16], seed[16..]);
    seed
}

/// One built peer filter.
///
/// Build it with [`Peer::build`] and probe it with [`Peer::contains`]. The variants are public
/// so that a caller can reach a peer's own API (for example its `num_hashes`), but the wrapper
/// methods are what the harness times.
pub enum Peer {
    /// See [`PeerKind::FastbloomDefault`].
    FastbloomDefault(BloomFilter),
    /// See [`PeerKind::FastbloomFoldhash`].
    FastbloomFoldhash(BloomFilter<FixedState>),
    /// See [`PeerKind::FastbloomXxh3`].
    FastbloomXxh3(BloomFilter<Xxh3OnceState>),
    /// See [`PeerKind::Bloomfilter`].
    Bloomfilter(bloomfilter::Bloom<[u8]>),
    /// See [`PeerKind::Cuckoofilter`].
    Cuckoofilter(cuckoofilter::CuckooFilter<std::collections::hash_map::DefaultHasher>),
    /// See [`PeerKind::GrowableBloom`].
    GrowableBloom(growable_bloom_filter::GrowableBloom),
    /// See [`PeerKind::ProbabilisticCollections`].
    ProbabilisticCollections(probabilistic_collections::bloom::BloomFilter<Vec<u8>>),
    /// See [`PeerKind::BinaryFuse8`].
    BinaryFuse8(xorf::BinaryFuse8),
    /// See [`PeerKind::BinaryFuse16`].
    BinaryFuse16(xorf::BinaryFuse16),
    /// See [`PeerKind::Qfilter`].
    Qfilter(qfilter::Filter),
    /// See [`PeerKind::HashSet`].
    HashSet(HashSet<String>),
    /// See [`PeerKind::CuckoofilterXxh3`].
    CuckoofilterXxh3(cuckoofilter::CuckooFilter<Xxh3>),
    /// See [`PeerKind::HashSetBytes`].
    HashSetBytes(HashSet<Box<[u8]>, FixedState>),
}

impl fmt::Debug for Peer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Not every peer type implements Debug, and dumping megabytes of bits helps nobody.
        f.debug_struct("Peer")
            .field("kind", &self.kind())
            .field("size_in_bytes", &self.size_in_bytes())
            .finish_non_exhaustive()
    }
}

/// Rejects the `(n, p)` pairs that some peer would panic on, with a message saying how to fix
/// the call.
pub(crate) fn check_params(n: usize, p: f64) -> anyhow::Result<()> {
    ensure!(
        n > 0,
        "capacity n must be at least 1 (several peers panic on 0)"
    );
    ensure!(
        p > 0.0 && p < 1.0,
        "false-positive rate p = {p} must lie strictly between 0 and 1, e.g. 0.01"
    );
    // The optimal Bloom size, n·ln(1/p)/ln²2 bits, is what the Bloom peers allocate; refuse
    // sizes that would overflow rather than let a peer's arithmetic wrap or abort.
    let bits = n as f64 * (1.0 / p).ln() / (std::f64::consts::LN_2 * std::f64::consts::LN_2);
    ensure!(
        bits / 8.0 < isize::MAX as f64 / 2.0,
        "n = {n} at p = {p} needs about {bits:.3e} bits, more than this machine can address; \
         use a smaller n or a larger p"
    );
    Ok(())
}

impl Peer {
    /// Builds a peer for `n` keys at false-positive rate `p` and inserts every key of `keys`
    /// (BinaryFuse8 is built from all of them at once).
    ///
    /// Returns the filter and the number of inserts it refused: only cuckoofilter refuses,
    /// when its table is full (see [`PeerKind::quirks`]); every other peer returns 0.
    ///
    /// ```
    /// use filterlab_peers::{Peer, PeerKind};
    ///
    /// let keys: Vec<String> = (0..1000).map(|i| format!("user{i}@example.com")).collect();
    /// let (peer, refused) =
    ///     Peer::build(PeerKind::FastbloomDefault, keys.len(), 0.01, keys.iter().map(|k| k.as_bytes()))?;
    /// assert_eq!(refused, 0);
    /// assert!(keys.iter().all(|k| peer.contains(k.as_bytes())));
    /// // Seeded, so this count is the same on every run and machine.
    /// let fp = (0..10_000).filter(|i| peer.contains(format!("other{i}@example.org").as_bytes())).count();
    /// assert!(fp < 500, "{fp} false positives in 10000");
    /// # Ok::<(), anyhow::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// If `n` is 0, `p` is not strictly between 0 and 1, the filter would not fit in memory,
    /// a [`PeerKind::HashSet`] key is not UTF-8, or xorf fails to construct its filter.
    pub fn build<'a>(
        kind: PeerKind,
        n: usize,
        p: f64,
        keys: impl IntoIterator<Item = &'a [u8]>,
    ) -> anyhow::Result<(Peer, u64)> {
        check_params(n, p)?;
        let keys = keys.into_iter();
        let mut refused = 0u64;
        let peer = match kind {
            PeerKind::FastbloomDefault => Peer::FastbloomDefault(filled(
                BloomFilter::with_false_pos(p)
                    .seed(&u128::from(SEED))
                    .expected_items(n),
                keys,
            )),
            PeerKind::FastbloomFoldhash => Peer::FastbloomFoldhash(filled(
                BloomFilter::with_false_pos(p)
                    .hasher(FixedState::with_seed(SEED))
                    .expected_items(n),
                keys,
            )),
            PeerKind::FastbloomXxh3 => Peer::FastbloomXxh3(filled(
                BloomFilter::with_false_pos(p)
                    .hasher(Xxh3OnceState::with_seed(SEED))
                    .expected_items(n),
                keys,
            )),
            PeerKind::Bloomfilter => {
                let mut f =
                    bloomfilter::Bloom::new_for_fp_rate_with_seed(n, p, &bloomfilter_seed())
                        .map_err(anyhow::Error::msg)
                        .context("bloomfilter rejected (n, p)")?;
                for key in keys {
                    f.set(key);
                }
                Peer::Bloomfilter(f)
            }
            PeerKind::Cuckoofilter => {
                let f;
                (f, refused) = cuckoo_fill(n, keys);
                Peer::Cuckoofilter(f)
            }
            PeerKind::CuckoofilterXxh3 => {
                let f;
                (f, refused) = cuckoo_fill(n, keys);
                Peer::CuckoofilterXxh3(f)
            }
            PeerKind::HashSetBytes => {
                let mut set = HashSet::with_capacity_and_hasher(n, FixedState::with_seed(SEED));
                set.extend(keys.map(Box::<[u8]>::from));
                Peer::HashSetBytes(set)
            }
            PeerKind::GrowableBloom => {
                let mut f = growable_bloom_filter::GrowableBloom::new(p, n);
                for key in keys {
                    // `false` means "already tested positive", not a refusal: the key is found.
                    f.insert(key);
                }
                Peer::GrowableBloom(f)
            }
            PeerKind::ProbabilisticCollections => {
                let mut f = probabilistic_collections_filter(n, p);
                for key in keys {
                    f.insert(key);
                }
                Peer::ProbabilisticCollections(f)
            }
            PeerKind::BinaryFuse8 => Peer::BinaryFuse8(binary_fuse(keys)?),
            PeerKind::BinaryFuse16 => Peer::BinaryFuse16(binary_fuse(keys)?),
            PeerKind::Qfilter => {
                let f;
                (f, refused) = qfilter_fill(n, p, keys)?;
                Peer::Qfilter(f)
            }
            PeerKind::HashSet => Peer::HashSet(text_set(n, keys)?),
        };
        Ok((peer, refused))
    }

    /// Which peer this is.
    pub fn kind(&self) -> PeerKind {
        match self {
            Peer::FastbloomDefault(_) => PeerKind::FastbloomDefault,
            Peer::FastbloomFoldhash(_) => PeerKind::FastbloomFoldhash,
            Peer::FastbloomXxh3(_) => PeerKind::FastbloomXxh3,
            Peer::Bloomfilter(_) => PeerKind::Bloomfilter,
            Peer::Cuckoofilter(_) => PeerKind::Cuckoofilter,
            Peer::GrowableBloom(_) => PeerKind::GrowableBloom,
            Peer::ProbabilisticCollections(_) => PeerKind::ProbabilisticCollections,
            Peer::BinaryFuse8(_) => PeerKind::BinaryFuse8,
            Peer::BinaryFuse16(_) => PeerKind::BinaryFuse16,
            Peer::Qfilter(_) => PeerKind::Qfilter,
            Peer::HashSet(_) => PeerKind::HashSet,
            Peer::CuckoofilterXxh3(_) => PeerKind::CuckoofilterXxh3,
            Peer::HashSetBytes(_) => PeerKind::HashSetBytes,
        }
    }

    /// Whether `key` may have been inserted (exact for [`PeerKind::HashSet`]).
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Peer::FastbloomDefault(f) => f.contains(key),
            Peer::FastbloomFoldhash(f) => f.contains(key),
            Peer::FastbloomXxh3(f) => f.contains(key),
            Peer::Bloomfilter(f) => f.check(key),
            Peer::Cuckoofilter(f) => f.contains(key),
            Peer::GrowableBloom(f) => f.contains(key),
            Peer::ProbabilisticCollections(f) => f.contains(key),
            Peer::BinaryFuse8(f) => f.contains(&xxh3_64(key)),
            Peer::BinaryFuse16(f) => f.contains(&xxh3_64(key)),
            Peer::Qfilter(f) => f.contains(key),
            Peer::HashSet(set) => std::str::from_utf8(key).is_ok_and(|s| set.contains(s)),
            Peer::CuckoofilterXxh3(f) => f.contains(key),
            Peer::HashSetBytes(set) => set.contains(key),
        }
    }

    /// Best honest estimate of the heap bytes the filter holds (inline struct bytes excluded
    /// unless the crate's own figure includes them; allocator overhead never included).
    ///
    /// - fastbloom (both hashers): `num_bits() / 8`, the bit array, already whole 64-bit words.
    /// - bloomfilter: `as_slice().len()`, its one allocation: the bit array plus a 45-byte header.
    /// - cuckoofilter: its own `memory_usage()`: `size_of_val(self)` plus 4 bytes per bucket.
    /// - growable-bloom-filter: its sub-filters are private, so this is bincode's serialized
    ///   size, which is every sub-filter's bit bytes plus a few dozen bytes of lengths and
    ///   parameters.
    /// - probabilistic-collections: `len()` bits rounded up to bytes (its bit vector is a
    ///   `Vec<u8>`).
    /// - xorf BinaryFuse8 and BinaryFuse16: `fingerprints.len()` slots of one or two bytes.
    /// - qfilter: its own `memory_usage()`, the one buffer of blocks (metadata and remainders).
    /// - `HashSet<String>`: hashbrown's table (buckets = capacity·8/7 rounded up to a power of
    ///   two, each a `String` plus one control byte, plus 16 trailing control bytes) plus every
    ///   `String`'s heap capacity; walking the strings makes this O(n).
    pub fn size_in_bytes(&self) -> usize {
        match self {
            Peer::FastbloomDefault(f) => f.num_bits() / 8,
            Peer::FastbloomFoldhash(f) => f.num_bits() / 8,
            Peer::FastbloomXxh3(f) => f.num_bits() / 8,
            Peer::Bloomfilter(f) => f.as_slice().len(),
            Peer::Cuckoofilter(f) => f.memory_usage(),
            Peer::GrowableBloom(f) => {
                bincode::serialized_size(f).map_or(0, |b| usize::try_from(b).unwrap_or(usize::MAX))
            }
            Peer::ProbabilisticCollections(f) => f.len().div_ceil(8),
            Peer::BinaryFuse8(f) => f.fingerprints.len(),
            Peer::BinaryFuse16(f) => f.fingerprints.len() * 2,
            Peer::Qfilter(f) => f.memory_usage(),
            Peer::HashSet(set) => hash_set_bytes(set),
            Peer::CuckoofilterXxh3(f) => f.memory_usage(),
            Peer::HashSetBytes(set) => byte_set_bytes(set),
        }
    }
}

/// Bytes of a hashbrown table of `capacity` slots of `slot` bytes each: hashbrown keeps at
/// most 7/8 of its power-of-two bucket array full (tables under 8 buckets are full to one slot
/// short), with one control byte per bucket plus 16 trailing ones.
fn hashbrown_table_bytes(capacity: usize, slot: usize) -> usize {
    const GROUP_WIDTH: usize = 16;
    let buckets = match capacity {
        0 => return 0,
        1..=7 => (capacity + 1).next_power_of_two(),
        _ => (capacity * 8 / 7).next_power_of_two(),
    };
    buckets * (slot + 1) + GROUP_WIDTH
}

/// See [`Peer::size_in_bytes`]: the table plus every `String`'s heap capacity.
fn hash_set_bytes(set: &HashSet<String>) -> usize {
    hashbrown_table_bytes(set.capacity(), size_of::<String>())
        + set.iter().map(String::capacity).sum::<usize>()
}

/// The table plus every key's heap bytes (a boxed slice holds exactly its length).
fn byte_set_bytes(set: &HashSet<Box<[u8]>, FixedState>) -> usize {
    hashbrown_table_bytes(set.capacity(), size_of::<Box<[u8]>>())
        + set.iter().map(|k| k.len()).sum::<usize>()
}

/// An xorf binary fuse filter (8- or 16-bit) of `keys`, hashed with xxh3.
///
/// # Errors
/// xorf failing to construct the filter.
fn binary_fuse<'a, F>(keys: impl Iterator<Item = &'a [u8]>) -> anyhow::Result<F>
where
    F: for<'h> TryFrom<&'h [u64], Error = &'static str>,
{
    let hashes: Vec<u64> = keys.map(xxh3_64).collect();
    F::try_from(&hashes[..])
        .map_err(anyhow::Error::msg)
        .with_context(|| format!("xorf binary fuse construction from {} keys", hashes.len()))
}

/// A fixed-size qfilter for `n` keys at `p` holding `keys`, and the inserts it refused (a full
/// table).
///
/// # Errors
/// qfilter refusing `(n, p)` (a capacity or a rate it cannot size).
fn qfilter_fill<'a>(
    n: usize,
    p: f64,
    keys: impl Iterator<Item = &'a [u8]>,
) -> anyhow::Result<(qfilter::Filter, u64)> {
    let mut f = qfilter::Filter::new(n as u64, p)
        .map_err(|e| anyhow::anyhow!("qfilter rejected n = {n}, p = {p}: {e:?}"))?;
    let refused = keys.filter(|key| f.insert_duplicated(key).is_err()).count() as u64;
    Ok((f, refused))
}

/// A cuckoofilter table for `n` keys holding `keys`, and the inserts it refused.
fn cuckoo_fill<'a, H: std::hash::Hasher + Default>(
    n: usize,
    keys: impl Iterator<Item = &'a [u8]>,
) -> (cuckoofilter::CuckooFilter<H>, u64) {
    let mut f = cuckoofilter::CuckooFilter::<H>::with_capacity(n);
    let refused = keys.filter(|key| f.add(key).is_err()).count() as u64;
    (f, refused)
}

/// probabilistic-collections' Bloom filter for `n` keys at `p`, seeded. Two different key pairs:
/// equal builders would make the double hashing collapse to one hash, the same trap as
/// bloomfilter's seed halves.
fn probabilistic_collections_filter(
    n: usize,
    p: f64,
) -> probabilistic_collections::bloom::BloomFilter<Vec<u8>> {
    use probabilistic_collections::SipHasherBuilder;
    probabilistic_collections::bloom::BloomFilter::<Vec<u8>>::with_hashers(
        n,
        p,
        [
            SipHasherBuilder::from_seed(SEED, SEED2),
            SipHasherBuilder::from_seed(SEED2, SEED.rotate_left(32)),
        ],
    )
}

/// The `HashSet<String>` baseline of `keys`.
///
/// # Errors
/// A key that is not UTF-8: the baseline only stores text keys.
fn text_set<'a>(n: usize, keys: impl Iterator<Item = &'a [u8]>) -> anyhow::Result<HashSet<String>> {
    let mut set = HashSet::with_capacity(n);
    for (i, key) in keys.enumerate() {
        match std::str::from_utf8(key) {
            Ok(s) => {
                set.insert(s.to_owned());
            }
            Err(e) => bail!(
                "key #{i} is not UTF-8 ({e}); the HashSet<String> baseline only \
                 stores text keys, so leave it out for binary datasets"
            ),
        }
    }
    Ok(set)
}
