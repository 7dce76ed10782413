use super::*;

/// An exact set of hashes: the trait's provided methods must agree with it.
struct Exact {
    hashes: Vec<Hash128>,
    hasher: KeyHasher,
}

impl StaticFilter for Exact {
    fn from_hashes(hashes: &[Hash128], hasher: KeyHasher) -> Result<Self> {
        let mut hashes = hashes.to_vec();
        hashes.sort_unstable_by_key(|h| h.to_u128());
        hashes.dedup();
        Ok(Exact { hashes, hasher })
    }
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.hashes
            .binary_search_by_key(&hash.to_u128(), |h| h.to_u128())
            .is_ok()
    }
    fn hasher(&self) -> KeyHasher {
        self.hasher
    }
    fn len(&self) -> u64 {
        self.hashes.len() as u64
    }
    fn size_in_bytes(&self) -> usize {
        self.hashes.len() * 16
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "exact"
    }
}

#[test]
fn provided_methods_agree_with_the_filter() {
    let keys: Vec<Vec<u8>> = (0..3 * crate::BATCH + 5)
        .map(|i| format!("k{i}").into_bytes())
        .collect();
    let members: Vec<&[u8]> = keys.iter().step_by(2).map(Vec::as_slice).collect();
    let all: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let f = Exact::from_keys(&members).unwrap();
    assert_eq!(f.hasher(), KeyHasher::default());
    let mut out = vec![true; 7];
    f.contains_batch(&all, &mut out);
    let expected: Vec<bool> = (0..all.len()).map(|i| i % 2 == 0).collect();
    assert_eq!(out, expected);
    assert_eq!(f.bits_per_key(), 128.0);
    let empty = Exact::from_keys(&[]).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.bits_per_key(), 0.0);
}
