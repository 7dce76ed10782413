//! The two hash functions RedisBloom's Bloom filters use, written from Austin Appleby's public
//! description of MurmurHash2 (public domain), and the pair of hashes a key's bit positions are
//! drawn from.
//!
//! Both read their 4- or 8-byte blocks little-endian: RedisBloom reads them in machine order,
//! and its builds (x86-64, AArch64) are little-endian.

/// MurmurHash2's multiplier (the 32-bit function).
const M32: u32 = 0x5bd1_e995;
/// MurmurHash64A's multiplier.
const M64: u64 = 0xc6a4_a793_5bd1_e995;

/// The seed of the first hash when the chain's options have `FORCE64` (every filter BF.RESERVE,
/// BF.ADD or BF.INSERT creates): MurmurHash64A's own multiplier.
pub const SEED64: u64 = M64;
/// The seed of the first hash without `FORCE64` (filters written before RedisBloom 2.0).
pub const SEED32: u32 = 0x9747_b28c;

/// MurmurHash2, 32-bit: `h = seed ^ len`, each 4-byte block `k` mixed as `k *= m; k ^= k >> 24;
/// k *= m; h *= m; h ^= k`, the 1 to 3 bytes left xored in (the last at bit 16) then `h *= m`,
/// and the final `h ^= h >> 13; h *= m; h ^= h >> 15`.
pub fn murmur2_32(key: &[u8], seed: u32) -> u32 {
    // RedisBloom passes the length as a C `int`; keys are far below 2^31 bytes.
    let mut h = seed ^ key.len() as u32;
    let mut blocks = key.chunks_exact(4);
    for b in &mut blocks {
        let mut k = u32::from_le_bytes(b.try_into().expect("4-byte block"));
        k = k.wrapping_mul(M32);
        k ^= k >> 24;
        k = k.wrapping_mul(M32);
        h = h.wrapping_mul(M32) ^ k;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M32);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M32);
    h ^ (h >> 15)
}

/// MurmurHash64A: `h = seed ^ (len · m)`, each 8-byte block `k` mixed as `k *= m; k ^= k >> 47;
/// k *= m; h ^= k; h *= m`, the 1 to 7 bytes left xored in (byte `i` at bit `8i`) then `h *= m`,
/// and the final `h ^= h >> 47; h *= m; h ^= h >> 47`.
pub fn murmur64a(key: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M64);
    let mut blocks = key.chunks_exact(8);
    for b in &mut blocks {
        let mut k = u64::from_le_bytes(b.try_into().expect("8-byte block"));
        k = k.wrapping_mul(M64);
        k ^= k >> 47;
        k = k.wrapping_mul(M64);
        h = (h ^ k).wrapping_mul(M64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u64::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M64);
    }
    h ^= h >> 47;
    h = h.wrapping_mul(M64);
    h ^ (h >> 47)
}

/// The pair `(a, b)` RedisBloom draws a key's bit positions from: with `FORCE64`,
/// `a = MurmurHash64A(key, 0xc6a4a7935bd1e995)` and `b = MurmurHash64A(key, a)`; without it,
/// `a = MurmurHash2(key, 0x9747b28c)` and `b = MurmurHash2(key, a)` (the seed `a` as 32 bits),
/// both widened to 64 bits.
pub fn pair(key: &[u8], force64: bool) -> (u64, u64) {
    if force64 {
        let a = murmur64a(key, SEED64);
        (a, murmur64a(key, a))
    } else {
        let a = murmur2_32(key, SEED32);
        (u64::from(a), u64::from(murmur2_32(key, a)))
    }
}
