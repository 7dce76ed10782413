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

/// A filter of exact keys, 16 bytes each, that refuses to pass `cap` bytes; with `flawed` the
/// refused key goes in all the same.
#[derive(Clone, Debug, PartialEq)]
struct Capped {
    keys: Vec<u128>,
    cap: u64,
    flawed: bool,
}

impl Filter for Capped {
    fn insert_hash(&mut self, h: crate::Hash128) -> crate::Result<()> {
        let bytes = 16 * (self.keys.len() as u64 + 1);
        if bytes > self.cap {
            if self.flawed {
                self.keys.push(h.to_u128());
            }
            return Err(Error::MemoryCap {
                what: "keys",
                bytes,
                cap: self.cap,
            });
        }
        self.keys.push(h.to_u128());
        Ok(())
    }
    fn contains_hash(&self, h: crate::Hash128) -> bool {
        self.keys.contains(&h.to_u128())
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        self.keys.len() as u64
    }
    fn capacity(&self) -> u64 {
        self.cap / 16
    }
    fn size_in_bytes(&self) -> usize {
        16 * self.keys.len()
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "capped"
    }
}

fn capped(flawed: bool) -> Capped {
    Capped {
        keys: Vec::new(),
        cap: 160,
        flawed,
    }
}

#[test]
fn cap_check_accepts_a_refusal_that_changes_nothing() {
    assert_eq!(
        check_growth_stops_at_cap(&mut capped(false), &keys("c", 20), 160),
        10
    );
}

#[test]
#[should_panic(expected = "a refused growth changed the filter")]
fn cap_check_rejects_a_refusal_that_stores_the_key() {
    check_growth_stops_at_cap(&mut capped(true), &keys("c", 20), 160);
}

#[test]
#[should_panic(expected = "capped: 5 keys went in under a 160-byte cap")]
fn cap_check_rejects_a_cap_that_never_bites() {
    check_growth_stops_at_cap(&mut capped(false), &keys("c", 5), 160);
}

#[test]
#[should_panic(expected = "an edited file loaded but saves differently")]
fn resealed_edit_check_rejects_a_decoder_that_validates_nothing() {
    check_resealed_edits(&Lenient, &[(false, 3, 0xFF)], None);
}

#[test]
#[should_panic(expected = "a resealed file failed its checksum")]
fn resealed_edit_check_rejects_a_checksum_refusal() {
    /// Refuses every file as if its checksum were wrong.
    struct Suspicious;
    impl Persist for Suspicious {
        const KIND: FileKind = FileKind::new(1, "classic");
        fn to_bytes(&self) -> Vec<u8> {
            Lenient.to_bytes()
        }
        fn from_bytes(_: &[u8]) -> Result<Self, FormatError> {
            Err(FormatError::ChecksumMismatch {
                stored: 0,
                computed: 1,
            })
        }
    }
    check_resealed_edits(&Suspicious, &[], Some((true, 0)));
}

#[test]
fn resealed_edit_check_accepts_a_file_with_no_edit() {
    // With no edit the file is the filter's own, which any sound decoder loads and saves back.
    check_resealed_edits(&Lenient, &[], None);
}
