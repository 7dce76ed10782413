//! Generic checks for [`StaticFilter`]s (binary fuse, ribbon): run them all for a type with one
//! call to [`check_static_filter`]. This module's tests show each rejecting a broken fixture.

use crate::{Hash128, KeyHasher, StaticFilter};

/// An endless stream of uniform pseudo-random hashes (splitmix64) from `seed`, generated as they
/// are consumed: statistical tests probe tens of millions without storing them.
pub fn hash_stream(seed: u64) -> impl Iterator<Item = Hash128> {
    let mut rng = SplitMix64(seed);
    std::iter::repeat_with(move || Hash128 {
        lo: rng.next_u64(),
        hi: rng.next_u64(),
    })
}

/// SplitMix64 (Steele, Lea & Flood 2014): the seeded stream every randomised test uses, so that
/// a test names a seed instead of carrying its own generator. The field is the state; equal
/// seeds give equal streams.
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next uniform 64-bit value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n > 0`; the modulo bias is below `n / 2^64`, nothing a test sees).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
}

/// `n` distinct pseudo-random hashes: the first `n` of [`hash_stream`] (no string formatting, so
/// sweeps over many sizes stay fast in debug builds).
pub fn hashes(seed: u64, n: usize) -> Vec<Hash128> {
    hash_stream(seed).take(n).collect()
}

/// Builds `F` from `hs` (distinct hashes) and checks it holds exactly them: the count, and
/// every one present. Returns the filter.
///
/// # Panics
/// When construction fails, the count is wrong or a hash is missing.
pub fn check_static_build<F: StaticFilter>(hs: &[Hash128]) -> F {
    let f = F::from_hashes(hs, KeyHasher::default())
        .unwrap_or_else(|e| panic!("construction failed for n = {}: {e}", hs.len()));
    assert_eq!(
        f.len(),
        hs.len() as u64,
        "{}: count at n = {}",
        f.name(),
        hs.len()
    );
    let missing = hs.iter().filter(|&&h| !f.contains_hash(h)).count();
    assert_eq!(
        missing,
        0,
        "{}: false negatives at n = {}",
        f.name(),
        hs.len()
    );
    f
}

/// Every check of this module on `F`: built from key bytes (single and batch answers),
/// repeated keys stored once, the empty set, and every size in `sizes` (a sweep of the
/// constructions that might fail).
///
/// # Panics
/// Naming the law that broke (a test helper).
pub fn check_static_filter<F: StaticFilter>(sizes: impl IntoIterator<Item = usize>) {
    check_static_keys::<F>();
    check_static_repeats::<F>();
    let empty = F::from_hashes(&[], KeyHasher::default())
        .unwrap_or_else(|e| panic!("the empty set is refused: {e}"));
    assert!(
        empty.is_empty(),
        "{}: built from nothing, not empty",
        empty.name()
    );
    assert_eq!(empty.bits_per_key(), 0.0);
    let sizes: Vec<usize> = sizes.into_iter().collect();
    let pool = hashes(31, sizes.iter().copied().max().unwrap_or(0));
    for n in sizes {
        check_static_build::<F>(&pool[..n]);
    }
}

/// Built from key bytes: every key present, one by one and in a batch, and the batch answers
/// on hashed probes equal the single ones (some present, some not).
///
/// # Panics
/// On a false negative or a batch answer that differs.
pub fn check_static_keys<F: StaticFilter>() {
    let keys = super::keys("member", 20_000);
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let f = F::from_keys(&refs).unwrap_or_else(|e| panic!("construction failed: {e}"));
    assert!(
        refs.iter().all(|k| f.contains(k)),
        "{}: false negative",
        f.name()
    );
    let mut out = vec![false; 2]; // cleared first
    f.contains_batch(&refs, &mut out);
    assert_eq!(
        out,
        vec![true; refs.len()],
        "{}: batch false negative",
        f.name()
    );
    let probes: Vec<Hash128> = super::keys("probe", 100_000)
        .iter()
        .map(|k| f.hasher().hash(k))
        .chain(refs.iter().take(1000).map(|k| f.hasher().hash(k)))
        .collect();
    f.contains_hash_batch(&probes, &mut out);
    let single: Vec<bool> = probes.iter().map(|&h| f.contains_hash(h)).collect();
    assert_eq!(out, single, "{}: batch and single answers differ", f.name());
}

/// Repeated keys (each distinct hash three times, one hash 5,000 times) are stored once.
///
/// # Panics
/// When a repeat is counted or a key missing.
pub fn check_static_repeats<F: StaticFilter>() {
    let distinct = hashes(51, 5_000);
    let repeated: Vec<Hash128> = distinct.iter().flat_map(|&h| [h, h, h]).collect();
    let f = F::from_hashes(&repeated, KeyHasher::default())
        .unwrap_or_else(|e| panic!("construction with repeats failed: {e}"));
    assert_eq!(f.len(), 5_000, "{}: repeats counted", f.name());
    assert!(
        repeated.iter().all(|&h| f.contains_hash(h)),
        "{}: lost",
        f.name()
    );
    let one = F::from_hashes(&vec![distinct[0]; 5_000], KeyHasher::default())
        .unwrap_or_else(|e| panic!("construction from one repeated key failed: {e}"));
    assert_eq!(one.len(), 1, "{}: one key repeated", one.name());
    assert!(one.contains_hash(distinct[0]));
}

#[cfg(test)]
mod tests;
