//! Each lock-free check against a sound fixture (it must pass) and a broken one (it must
//! fail): an exact set shared behind a mutex, with one [`Flaw`] at a time.

use super::*;
use crate::format::invalid;
use crate::{FileKind, FormatError, Hash128, KeyHasher, Result};
use std::collections::BTreeSet;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

/// The single form: an exact set of hashes and an insert count.
#[derive(Clone, Debug, Default, PartialEq)]
struct Exact {
    keys: BTreeSet<u128>,
    len: u64,
}

impl Filter for Exact {
    fn insert_hash(&mut self, h: Hash128) -> Result<()> {
        self.keys.insert(h.to_u128());
        self.len += 1;
        Ok(())
    }
    fn contains_hash(&self, h: Hash128) -> bool {
        self.keys.contains(&h.to_u128())
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        self.len
    }
    fn capacity(&self) -> u64 {
        u64::MAX
    }
    fn size_in_bytes(&self) -> usize {
        self.keys.len() * 16
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "exact"
    }
}

/// The count, then the sorted keys (no checksum: the file checks are not run on it).
impl Persist for Exact {
    const KIND: FileKind = FileKind::new(250, "exact-fixture");

    fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.len.to_le_bytes().to_vec();
        self.keys.iter().for_each(|k| out.extend(k.to_le_bytes()));
        out
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        if bytes.len() < 8 || (bytes.len() - 8) % 16 != 0 {
            return Err(invalid("not an exact-fixture file"));
        }
        let (len, keys) = bytes.split_at(8);
        Ok(Exact {
            len: u64::from_le_bytes(len.try_into().map_err(|_| invalid("count"))?),
            keys: keys
                .chunks(16)
                .map(|c| u128::from_le_bytes(c.try_into().unwrap_or_default()))
                .collect(),
        })
    }
}

/// What the shared fixture gets wrong.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Flaw {
    /// Nothing: every check passes.
    Sound,
    /// Drops one insert in a hundred (still counted).
    LosesInserts,
    /// Sets a neighbour's bit too, so its bits are not the single form's.
    SetsExtraBits,
    /// Converting back forgets the smallest key.
    ForgetsOnConvert,
}

/// The lock-free fixture: the set behind a mutex.
#[derive(Debug)]
struct Shared {
    keys: Mutex<BTreeSet<u128>>,
    len: AtomicU64,
    seen: AtomicU64,
    flaw: Flaw,
}

impl Shared {
    fn new(flaw: Flaw) -> Self {
        Shared {
            keys: Mutex::default(),
            len: AtomicU64::new(0),
            seen: AtomicU64::new(0),
            flaw,
        }
    }

    fn copy(&self) -> Exact {
        Exact {
            keys: self.keys.lock().unwrap_or_else(|e| e.into_inner()).clone(),
            len: self.len.load(Ordering::SeqCst),
        }
    }
}

impl From<Exact> for Shared {
    fn from(e: Exact) -> Self {
        Shared {
            keys: Mutex::new(e.keys),
            len: AtomicU64::new(e.len),
            seen: AtomicU64::new(0),
            flaw: Flaw::Sound,
        }
    }
}

impl Filter for Shared {
    fn insert_hash(&mut self, h: Hash128) -> Result<()> {
        self.insert_hash_shared(h);
        Ok(())
    }
    fn contains_hash(&self, h: Hash128) -> bool {
        self.copy().contains_hash(h)
    }
    fn hasher(&self) -> KeyHasher {
        KeyHasher::default()
    }
    fn len(&self) -> u64 {
        self.len.load(Ordering::SeqCst)
    }
    fn capacity(&self) -> u64 {
        u64::MAX
    }
    fn size_in_bytes(&self) -> usize {
        0
    }
    fn expected_fpr(&self) -> f64 {
        0.0
    }
    fn name(&self) -> &'static str {
        "shared-fixture"
    }
}

impl SharedInsert for Shared {
    fn insert_hash_shared(&self, h: Hash128) {
        self.len.fetch_add(1, Ordering::SeqCst);
        let n = self.seen.fetch_add(1, Ordering::SeqCst);
        let mut keys = self.keys.lock().unwrap_or_else(|e| e.into_inner());
        if !(self.flaw == Flaw::LosesInserts && n % 100 == 99) {
            keys.insert(h.to_u128());
        }
        if self.flaw == Flaw::SetsExtraBits {
            keys.insert(h.to_u128() ^ 1);
        }
    }
}

impl Persist for Shared {
    const KIND: FileKind = Exact::KIND;

    fn to_bytes(&self) -> Vec<u8> {
        self.copy().to_bytes()
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        Exact::from_bytes(bytes).map(Self::from)
    }
}

impl LockFree for Shared {
    type Single = Exact;

    fn snapshot(&self) -> Result<Exact> {
        Ok(self.copy())
    }

    fn into_inner(self) -> Exact {
        let mut e = self.copy();
        if self.flaw == Flaw::ForgetsOnConvert {
            e.keys.pop_first();
        }
        e
    }
}

/// Whether `check` panics (the broken fixtures' messages go to the test output).
fn rejects(check: impl FnOnce()) -> bool {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(check)).is_err()
}

#[test]
fn threads_lose_nothing_rejects_a_filter_that_loses_inserts() {
    check_threads_lose_nothing(&Shared::new(Flaw::Sound), 500);
    assert!(hammer(&Shared::new(Flaw::LosesInserts), 4, 1000) >= 40);
    assert!(rejects(|| check_threads_lose_nothing(
        &Shared::new(Flaw::LosesInserts),
        500
    )));
}

#[test]
fn same_as_single_rejects_a_filter_with_other_bits() {
    check_same_as_single(&Shared::new(Flaw::Sound), &mut Exact::default(), 4, 200);
    assert!(rejects(|| check_same_as_single(
        &Shared::new(Flaw::SetsExtraBits),
        &mut Exact::default(),
        4,
        200
    )));
}

#[test]
fn converts_both_ways_rejects_a_conversion_that_loses_a_key() {
    check_converts_both_ways(Shared::new(Flaw::Sound), 4, 100);
    assert!(rejects(|| check_converts_both_ways(
        Shared::new(Flaw::ForgetsOnConvert),
        4,
        100
    )));
}

#[test]
fn sizing_refusals_accept_the_three_refusals_and_reject_a_build_that_succeeds() {
    use crate::Error;
    let invalid = |name| {
        Err::<(), _>(Error::InvalidParameter {
            name,
            value: "0".into(),
            expected: "at least 1",
        })
    };
    let (what, bytes) = ("table", 1 << 40);
    let huge = || Err(Error::OutOfMemory { what, bytes });
    let capped = || {
        Err(Error::MemoryCap {
            what,
            bytes,
            cap: 1000,
        })
    };
    check_sizing_refusals(invalid("capacity"), huge(), capped());
    assert!(rejects(|| check_sizing_refusals(
        invalid("capacity"),
        huge(),
        Ok(())
    )));
    assert!(rejects(|| check_sizing_refusals(
        invalid("capacity"),
        Ok(()),
        capped()
    )));
    assert!(rejects(|| check_sizing_refusals(
        invalid("fpr"),
        huge(),
        capped()
    )));
}
