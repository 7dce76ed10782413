//! One hashing path for every filter.
//!
//! A key is hashed **once** into a [`Hash128`]; every filter derives all it needs from those 128
//! bits (k bit positions, a bucket and a fingerprint, a block and its lanes). The harness uses this
//! to hash a key once and probe several filters with it.
//!
//! The hash functions here are stable across platforms and releases; their id and seed are stored
//! in every saved filter, so a filter saved today answers the same tomorrow. `std`'s
//! `DefaultHasher` and `RandomState` are deliberately not used: their output may change between
//! Rust releases and `RandomState` is randomised per process.
//!
//! [`HashKind::Xxh3_128`] is the default; [`HashKind::Xxh3_64`] (opt-in, for the split-block
//! filter) fills the 128 bits from one 64-bit hash — its docs say when that costs false
//! positives (in practice never below 2^32 blocks) and why it is not the default.
//!
//! # Index generation
//!
//! [`IndexGen`] turns a hash into k indexes in `[0, m)` by *enhanced double hashing*
//! (Dillinger & Manolios, 2004), computed in index space:
//!
//! ```text
//! x_0 = mulhi(h.lo, m)          -- Lemire's multiply-high range reduction, no modulo bias
//! y_0 = 1 + mulhi(h.hi, m - 1)  -- step in [1, m-1]: never zero
//! x_{i+1} = (x_i + y_i) mod m ;  y_{i+1} = (y_i + i) mod m
//! ```
//!
//! The reductions of `x` and `y` are a compare and subtract because both summands are already
//! below `m`. Kirsch & Mitzenmacher (2006) show that two hash functions simulate k independent
//! ones without changing the asymptotic false-positive rate; the cubic term of the enhanced scheme
//! breaks the short cycles plain double hashing has when `gcd(y, m) > 1`. All arithmetic is 64-bit,
//! so filters larger than 2^32 bits work.

/// A 128-bit key hash, as two 64-bit halves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Hash128 {
    /// The low 64 bits (MurmurHash3's `h1`).
    pub lo: u64,
    /// The high 64 bits (MurmurHash3's `h2`).
    pub hi: u64,
}

impl Hash128 {
    /// Splits a `u128` into its halves.
    #[inline]
    pub const fn from_u128(v: u128) -> Self {
        Hash128 {
            lo: v as u64,
            hi: (v >> 64) as u64,
        }
    }

    /// Joins the halves into a `u128`.
    #[inline]
    pub const fn to_u128(self) -> u128 {
        (self.hi as u128) << 64 | self.lo as u128
    }
}

/// The hash functions a filter can be built with. The discriminant is the id stored in files.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HashKind {
    /// XXH3, 128-bit variant (`xxh3_128_with_seed`), the default: several times faster than
    /// MurmurHash3 on short keys such as e-mail addresses (see the harness's hash micro-bench).
    #[default]
    Xxh3_128 = 1,
    /// MurmurHash3 x64_128 (Appleby), bit-for-bit equal to the reference and to Python's
    /// `mmh3.hash128(key, seed, x64arch=True)`. Its seed is 32 bits.
    Murmur3X64_128 = 2,
    /// XXH3, 64-bit variant (`xxh3_64_with_seed`), for the split-block filter's hot path: on
    /// 26-byte e-mail addresses 50 instructions a key against 63 for [`Self::Xxh3_128`] (callgrind,
    /// loop included). The 64 bits `h` become `lo = h` and `hi = h * 0x9E37_79B9_7F4A_7C15` (an
    /// odd multiplier, a bijection: no bit is added, the top bits of `hi` just depend on all of
    /// `h`).
    ///
    /// # What 64 bits cost in false positives
    ///
    /// A split-block filter of `B` blocks takes its block from the top bits of `hi` and its eight
    /// lane bits from the 32 low bits of `lo`. At 1% it holds 24.3 keys a block, so 10^9 keys
    /// take 2^25.3 blocks and 10^10 keys 2^28.6: 57 and 61 of the 64 bits, none used twice. Given
    /// the 32 lane bits, the 2^32 values of the other half spread over the blocks within one
    /// part in `2^32 / B` (at worst 10 or 11 values a block at 10^10 keys), so the (block, lanes)
    /// pair is as uniform as with 128 bits to second order and the rate is
    /// [`crate::math::split_block_fpr`]. What remains are two floors:
    ///
    /// * both hashes: a non-member whose block and 32 lane bits equal a member's is a false
    ///   positive for certain, `(n / B) / 2^32` = 24.3 / 2^32 ≈ 5.7e-9 at 1%, whatever `n`;
    /// * 64 bits only: a non-member whose whole hash equals a member's, `n / 2^64`: 5.4e-11 at
    ///   10^9 keys, 5.4e-10 at 10^10 — eight orders of magnitude under a 1% target.
    ///
    /// The second is measured on a hash cut to 20 bits, where it is visible
    /// (`crates/filter-blocked/tests/hash64.rs`); the harness's course (section "A 64-bit hash",
    /// `reports/course/course.md`) measures both kinds on the same keys at 10^9 and 10^10 keys,
    /// on a slice of the blocks. Above 2^32 blocks (a 128 GiB table) fewer than
    /// 32 bits are left for the lanes and the rate rises; use xxh3-128 there.
    ///
    /// It is **not** the default: the classic filter's double hashing draws its start and step
    /// from the two halves (`2 log2 m` bits, more than 64 above 2^32 bits), the cuckoo filter
    /// its bucket and fingerprint, and the harness hashes a key once for every variant; xxh3-128
    /// is right for all of them, so it stays the default and this kind is opt-in
    /// (`.hasher(KeyHasher::new(HashKind::Xxh3_64, seed)?)`).
    Xxh3_64 = 3,
}

impl HashKind {
    /// The id stored in saved filters.
    pub const fn id(self) -> u8 {
        self as u8
    }

    /// The kind with that stored id, if this build knows it.
    pub const fn from_id(id: u8) -> Option<Self> {
        match id {
            1 => Some(HashKind::Xxh3_128),
            2 => Some(HashKind::Murmur3X64_128),
            3 => Some(HashKind::Xxh3_64),
            _ => None,
        }
    }

    /// A short, stable, human-readable name.
    pub const fn name(self) -> &'static str {
        match self {
            HashKind::Xxh3_128 => "xxh3-128",
            HashKind::Murmur3X64_128 => "murmur3-x64-128",
            HashKind::Xxh3_64 => "xxh3-64",
        }
    }
}

/// A hash function together with its seed: everything needed to hash keys the way a filter does.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyHasher {
    kind: HashKind,
    seed: u64,
}

impl KeyHasher {
    /// A hasher of `kind` with `seed`.
    ///
    /// # Errors
    /// MurmurHash3 takes a 32-bit seed; a larger seed is rejected rather than silently truncated.
    pub fn new(kind: HashKind, seed: u64) -> crate::Result<Self> {
        if kind == HashKind::Murmur3X64_128 && seed > u64::from(u32::MAX) {
            return Err(crate::Error::InvalidParameter {
                name: "seed",
                value: seed.to_string(),
                expected: "a seed of at most u32::MAX (MurmurHash3 x64_128 takes a 32-bit seed)",
            });
        }
        Ok(KeyHasher { kind, seed })
    }

    /// A hasher of `kind` with a secret seed drawn from the operating system's randomness, for
    /// filters fed keys by untrusted parties: with a public seed (the default 0) anyone can
    /// search offline for keys that share bits or buckets and degrade the filter (see the
    /// `hostile_keys` tests). The seed is saved with the filter, so keep saved filters as private
    /// as the seed.
    ///
    /// The randomness comes from `std`'s `RandomState`, whose SipHash keys the standard library
    /// draws from the OS (`getrandom(2)` on Linux) once per thread and then increments, hashed
    /// here so that successive seeds are unrelated. A secret seed defeats keys searched against a
    /// known seed; it does not make these non-cryptographic hashes resistant to seed-independent
    /// multicollisions (known for MurmurHash3), for which a keyed PRF such as SipHash is needed.
    pub fn secret(kind: HashKind) -> Self {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write(b"filterlab secret seed");
        let seed = match kind {
            HashKind::Murmur3X64_128 => h.finish() >> 32,
            HashKind::Xxh3_128 | HashKind::Xxh3_64 => h.finish(),
        };
        KeyHasher { kind, seed }
    }

    /// The hash function.
    pub const fn kind(&self) -> HashKind {
        self.kind
    }

    /// The seed.
    pub const fn seed(&self) -> u64 {
        self.seed
    }

    /// Hashes one key.
    #[inline]
    pub fn hash(&self, key: &[u8]) -> Hash128 {
        match self.kind {
            HashKind::Xxh3_128 => {
                Hash128::from_u128(xxhash_rust::xxh3::xxh3_128_with_seed(key, self.seed))
            }
            HashKind::Murmur3X64_128 => murmur3_x64_128(key, self.seed as u32),
            HashKind::Xxh3_64 => widen64(xxhash_rust::xxh3::xxh3_64_with_seed(key, self.seed)),
        }
    }
}

/// A 64-bit hash as a [`Hash128`] (see [`HashKind::Xxh3_64`]).
#[inline(always)]
pub const fn widen64(h: u64) -> Hash128 {
    Hash128 {
        lo: h,
        hi: h.wrapping_mul(0x9E37_79B9_7F4A_7C15),
    }
}

/// `floor(x * n / 2^64)`: maps a uniform 64-bit value onto `[0, n)` without the bias or the cost
/// of a modulo (Lemire, "Fast random integer generation in an interval", 2019).
#[inline(always)]
pub const fn reduce(x: u64, n: u64) -> u64 {
    ((x as u128 * n as u128) >> 64) as u64
}

/// Generates the k indexes of a key in `[0, m)` by enhanced double hashing (see the module docs).
#[derive(Clone, Copy, Debug)]
pub struct IndexGen {
    x: u64,
    y: u64,
    i: u64,
    m: u64,
}

impl IndexGen {
    /// Index generator for a table of `m` slots, `1 <= m <= 2^63`.
    #[inline]
    pub fn new(hash: Hash128, m: u64) -> Self {
        debug_assert!((1..=1 << 63).contains(&m), "m = {m} out of range");
        IndexGen {
            x: reduce(hash.lo, m),
            // m == 1 has a single slot: any step is fine, use 0 rather than underflow.
            y: if m > 1 { 1 + reduce(hash.hi, m - 1) } else { 0 },
            i: 0,
            m,
        }
    }

    /// The next index. The sequence never ends; callers take k of them.
    #[inline(always)]
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        let out = self.x;
        self.x = sub_if_ge(self.x + self.y, self.m);
        self.y = sub_if_ge(self.y + self.i, self.m);
        self.i += 1;
        if self.i >= self.m {
            self.i -= self.m;
        }
        out
    }
}

/// `v mod m` for `v < 2m` (compiles to a conditional move, not a division).
#[inline(always)]
const fn sub_if_ge(v: u64, m: u64) -> u64 {
    if v >= m {
        v - m
    } else {
        v
    }
}

/// MurmurHash3 x64_128 (Austin Appleby, public domain reference `MurmurHash3_x64_128`).
///
/// Written here rather than taken from the `murmur3` crate because that crate hashes through
/// `std::io::Read` (slow for 20-byte keys) and we need the two halves as `u64`s.
pub fn murmur3_x64_128(key: &[u8], seed: u32) -> Hash128 {
    const C1: u64 = 0x87c3_7b91_1142_53d5;
    const C2: u64 = 0x4cf5_ad43_2745_937f;
    // The two lanes' key mixes, and a lane's state stirred with the other's.
    const fn mix1(k: u64) -> u64 {
        k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2)
    }
    const fn mix2(k: u64) -> u64 {
        k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1)
    }
    const fn stir(h: u64, other: u64, r: u32, add: u64) -> u64 {
        h.rotate_left(r)
            .wrapping_add(other)
            .wrapping_mul(5)
            .wrapping_add(add)
    }

    let mut h1 = u64::from(seed);
    let mut h2 = u64::from(seed);

    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("8-byte half"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("8-byte half"));
        h1 = stir(h1 ^ mix1(k1), h2, 27, 0x52dc_e729);
        h2 = stir(h2 ^ mix2(k2), h1, 31, 0x3849_5ab5);
    }

    let tail = blocks.remainder();
    let mut k1 = 0u64;
    let mut k2 = 0u64;
    for (i, &b) in tail.iter().enumerate() {
        if i < 8 {
            k1 |= u64::from(b) << (8 * i);
        } else {
            k2 |= u64::from(b) << (8 * (i - 8));
        }
    }
    if tail.len() > 8 {
        h2 ^= mix2(k2);
    }
    if !tail.is_empty() {
        h1 ^= mix1(k1);
    }

    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    Hash128 { lo: h1, hi: h2 }
}

#[inline]
const fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^= k >> 33;
    k
}

#[cfg(test)]
mod tests;
