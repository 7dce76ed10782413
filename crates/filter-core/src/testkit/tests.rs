use super::*;
use crate::format::Encoder;
use crate::{FileKind, KeyHasher};

/// A decoder that accepts anything after the envelope and ignores it: the checks must
/// reject it (fixtures proving they can fail).
#[derive(Debug)]
struct Lenient;

impl Persist for Lenient {
    const KIND: FileKind = FileKind::new(1, "classic");
    fn to_bytes(&self) -> Vec<u8> {
        let mut e = Encoder::new(Self::KIND, KeyHasher::default(), 8);
        e.u64(7).begin_payload().u64(9);
        e.finish()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        crate::format::decode(bytes, Self::KIND).map(|_| Lenient)
    }
}

/// Takes any bytes as they are, checksum or not.
#[derive(Debug)]
struct Blind(Vec<u8>);

impl Persist for Blind {
    const KIND: FileKind = FileKind::new(1, "classic");
    fn to_bytes(&self) -> Vec<u8> {
        self.0.clone()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        Ok(Blind(bytes.to_vec()))
    }
}

#[test]
#[should_panic(expected = "a loaded filter saves differently")]
fn decoder_check_rejects_a_decoder_that_validates_nothing() {
    check_decoder_validates(&Lenient);
}

#[test]
#[should_panic(expected = "a damaged file loaded as another filter")]
fn damaged_file_check_rejects_a_loader_that_accepts_anything() {
    /// Removed when the expected panic unwinds through it.
    struct TempDir(std::path::PathBuf);
    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
    let dir = TempDir(std::env::temp_dir().join(format!("filterlab-blind-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    check_damaged_files(&Blind(Lenient.to_bytes()), &dir.0);
}

/// A static filter whose file keeps its length but not its keys.
#[derive(Debug)]
struct Amnesiac(Vec<crate::Hash128>);

impl StaticFilter for Amnesiac {
    fn from_hashes(hashes: &[crate::Hash128], _: KeyHasher) -> crate::Result<Self> {
        Ok(Amnesiac(hashes.to_vec()))
    }
    fn contains_hash(&self, hash: crate::Hash128) -> bool {
        self.0.contains(&hash)
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        0
    }
    fn size_in_bytes(&self) -> usize {
        0
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "amnesiac"
    }
}

impl Persist for Amnesiac {
    const KIND: FileKind = FileKind::new(1, "classic");
    fn to_bytes(&self) -> Vec<u8> {
        Lenient.to_bytes()
    }
    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        crate::format::decode(bytes, Self::KIND).map(|_| Amnesiac(Vec::new()))
    }
}

#[test]
#[should_panic(expected = "amnesiac: batched answers differ")]
fn static_round_trip_check_rejects_a_file_that_loses_the_keys() {
    let keys = keys("k", 10);
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    check_static_round_trip(&Amnesiac::from_keys(&refs).unwrap(), &keys);
}

#[test]
#[should_panic(expected = "expected a refusal naming \"slots\", got a filter")]
fn refusal_check_rejects_a_file_that_loads() {
    check_refused::<Blind>(b"anything", "slots");
}

#[test]
#[should_panic(expected = "\"slots\" not in \"no\"")]
fn refusal_check_rejects_a_refusal_for_another_reason() {
    struct Refuses;
    impl Persist for Refuses {
        const KIND: FileKind = FileKind::new(1, "classic");
        fn to_bytes(&self) -> Vec<u8> {
            Vec::new()
        }
        fn from_bytes(_: &[u8]) -> Result<Self, FormatError> {
            Err(crate::format::invalid("no"))
        }
    }
    check_refused::<Refuses>(b"anything", "slots");
}

/// A filter that answers "maybe" for one key in `1/every` (by the hash's low word) and claims a
/// rate of `1/claimed`: the doctests' rate check must accept it when the two agree and reject
/// it when they do not.
struct Sieve {
    every: u64,
    claimed: u64,
}

impl Filter for Sieve {
    fn insert_hash(&mut self, _: crate::Hash128) -> crate::Result<()> {
        Ok(())
    }
    fn contains_hash(&self, h: crate::Hash128) -> bool {
        h.lo % self.every == 0
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        0
    }
    fn capacity(&self) -> u64 {
        0
    }
    fn size_in_bytes(&self) -> usize {
        0
    }
    fn expected_fpr(&self) -> f64 {
        1.0 / self.claimed as f64
    }
    fn name(&self) -> &'static str {
        "sieve"
    }
}

#[test]
fn rate_check_accepts_a_filter_at_its_claimed_rate() {
    let f = Sieve {
        every: 10,
        claimed: 10,
    };
    assert_others_fpr("sieve", &f, 50_000, f.expected_fpr());
}

#[test]
#[should_panic(expected = "sieve: measured FP rate")]
fn rate_check_rejects_a_filter_over_its_claimed_rate() {
    let f = Sieve {
        every: 10,
        claimed: 20,
    };
    assert_others_fpr("sieve", &f, 50_000, f.expected_fpr());
}
