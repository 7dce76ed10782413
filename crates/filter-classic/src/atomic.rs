//! [`AtomicClassicBloom`]: the classic filter shared by many threads without a lock.

use crate::ClassicBloom;
use filter_core::concurrent::{try_atomic_table, words, LenCounter, SharedInsert};
use filter_core::{
    math, BloomBits, Error, FileKind, Filter, FormatError, Hash128, IndexGen, Persist, Result,
    Sizing,
};
use std::sync::atomic::{AtomicU64, Ordering};

/// A classic Bloom filter whose [`insert`](Self::insert) and [`contains`](Self::contains) take
/// `&self`, so one filter can be shared by many threads (`Arc<AtomicClassicBloom>` or a scoped
/// borrow). It is `Send + Sync`.
///
/// Same sizing, same bit positions, same formulas and the same file as [`ClassicBloom`]: the same
/// keys set the same bits, and each loads the other's bytes (`from_bytes` of either accepts what
/// `ClassicBloom` saved and the reverse). Build one with [`ClassicBuilder::build_atomic`](crate::ClassicBuilder::build_atomic)
/// or convert with `From<ClassicBloom>` / [`Self::into_inner`].
///
/// # Why relaxed ordering has no false negative
///
/// Bits are set with `fetch_or`, a read-modify-write: it always acts on the latest value in the
/// word's modification order, so two threads setting different bits of one word never erase
/// each other's (a load, an OR and a store could).
///
/// A lookup is `k` relaxed loads, never a read-modify-write; an insert counts the key, then
/// loads each of its `k` words and makes a `fetch_or` (with `Release`, which only a snapshot for
/// saving needs: see below; the lookup needs none) only where the bit is missing. Bits are only
/// ever turned on, never off, so each word's history is a chain of growing values. Every
/// atomic location has a single modification order that all threads agree on, and a load that
/// happens after a store or a load of the same word cannot see an older value than that store
/// wrote or that load read (coherence). So once `insert(key)` has returned — having set each
/// bit or seen it set — a `contains(key)` on the same thread sees all `k` bits set: no false
/// negative, whatever the ordering. The skipped `fetch_or` saves a locked instruction and, when
/// threads share hot words, the cache line's exclusive ownership.
///
/// Another thread gets the same guarantee once the insert *happens before* its lookup: it joined
/// the inserting thread, received a message sent after the insert through a channel or a mutex,
/// or read with `Acquire` a flag the inserter stored with `Release` after inserting. Without such
/// an edge a concurrent lookup may see some of the key's bits and not others, and answer "absent"
/// for a key whose insert has not finished: that is a race the caller chose, not a lost key —
/// the same lookup repeated after synchronising answers "present". The filter's memory holds no
/// other data whose visibility the bits would publish, so nothing stronger than `Relaxed` is
/// needed on the words for lookups. The protocol is written once in
/// `filter_core::concurrent::words` and model-checked there with loom.
///
/// # Saving
///
/// `to_bytes` and `save` may run while other threads insert: they write a [`Self::snapshot`],
/// whose bits are read before its item count (`filter_core::concurrent::words`, checked under
/// loom), so every saved bit belongs to a counted item and the file loads. An insert racing
/// with the save may be in the file whole, in part or not at all: save after joining the
/// inserting threads for a file that holds every key. The snapshot is a copy of the table,
/// allocated fallibly (the save holds twice the table's memory for a moment); the file is then
/// streamed from it, with no third copy.
///
/// # False-positive rate
///
/// As [`ClassicBloom`]: `p ≈ (1 - e^(-kn/m))^k` ([`math::classic_fpr`]).
#[derive(Debug)]
pub struct AtomicClassicBloom {
    words: filter_core::Table<AtomicU64>,
    m: u64,
    k: u32,
    len: LenCounter,
    sizing: Sizing,
}

impl crate::ClassicBuilder {
    /// Builds the lock-free, shareable form ([`AtomicClassicBloom`]) with the same sizing.
    ///
    /// # Errors
    /// As [`Self::build`](crate::ClassicBuilder::build).
    pub fn build_atomic(self) -> Result<AtomicClassicBloom> {
        // Sized and validated exactly as the single-threaded form, allocated only once.
        let (sizing, m, k) = self.shape()?;
        BloomBits::check(m, k)?;
        let words =
            usize::try_from(BloomBits::bytes_for(m) / 8).map_err(|_| Error::SizeOverflow {
                what: "bit array",
                hint: format!("{m} bits do not fit this platform's address space"),
            })?;
        Ok(AtomicClassicBloom {
            words: try_atomic_table(words, self.cap, "bit array")?,
            m,
            k,
            len: LenCounter::default(),
            sizing,
        })
    }
}

impl AtomicClassicBloom {
    /// Inserts a key; safe to call from many threads at once.
    #[inline]
    pub fn insert(&self, key: &[u8]) {
        self.insert_hash_shared(self.sizing.hasher.hash(key));
    }

    /// [`Self::insert`] of a pre-computed hash.
    #[inline]
    pub fn insert_hash_shared(&self, hash: Hash128) {
        SharedInsert::insert_hash_shared(self, hash);
    }

    /// Whether the key may be present (`false`: it was never inserted, or its insert has not
    /// happened before this call; see the type's docs).
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.sizing.hasher.hash(key))
    }
}

impl SharedInsert for AtomicClassicBloom {
    #[inline]
    fn insert_hash_shared(&self, hash: Hash128) {
        // A locked read-modify-write is a full fence on x86-64: the loads after it wait for it,
        // so k `fetch_or`s in a row would take their k cache misses one after another. The k
        // words are prefetched first, so that the misses overlap and the fences wait for lines
        // already on the way.
        const MAX_K: usize = 16;
        let mut masks = [(0usize, 0u64); MAX_K];
        let k = (self.k as usize).min(MAX_K);
        let mut g = IndexGen::new(hash, self.m);
        for slot in &mut masks[..k] {
            let i = g.next();
            *slot = ((i / 64) as usize, 1 << (i % 64));
            filter_core::prefetch(&self.words[slot.0]);
        }
        // Probes beyond the array (k > 16) continue the same sequence without a prefetch.
        let rest = (k..self.k as usize).map(|_| {
            let i = g.next();
            ((i / 64) as usize, 1 << (i % 64))
        });
        // Counted first, bits set with Release: see `words` for why a snapshot then holds no
        // uncounted bit.
        words::insert(
            &self.words,
            &self.len,
            masks[..k].iter().copied().chain(rest),
        );
    }
}

impl AtomicClassicBloom {
    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.m
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.k
    }

    /// A single-threaded copy of the filter, safe to take while other threads insert: the words
    /// are read first, then the item count, so that the copy holds no bit its count does not
    /// cover (inserts racing with it may be in it whole, in part or not at all).
    ///
    /// The copy's table is allocated fallibly, as a built filter's is.
    ///
    /// # Errors
    /// [`filter_core::Error::OutOfMemory`] when the copy cannot be allocated (nothing else in
    /// practice: the shape was valid when built).
    pub fn snapshot(&self) -> Result<ClassicBloom> {
        let mut copy = filter_core::try_zeroed_table::<u64>(
            self.words.len(),
            filter_core::MemoryCap::NONE,
            "snapshot",
        )?;
        let len = words::snapshot_into(self.words.iter(), copy.iter_mut(), &self.len);
        Ok(ClassicBloom {
            bits: BloomBits::from_words(self.m, self.k, copy)?,
            len,
            sizing: self.sizing,
        })
    }

    /// The single-threaded filter with the same bits, once no other thread is inserting.
    ///
    /// # Errors
    /// None in practice (the shape was valid when built); kept fallible rather than panicking.
    pub fn into_inner(self) -> Result<ClassicBloom> {
        let len = self.len.get();
        let words = self.words.convert(AtomicU64::into_inner);
        Ok(ClassicBloom {
            bits: BloomBits::from_words(self.m, self.k, words)?,
            len,
            sizing: self.sizing,
        })
    }
}

impl From<ClassicBloom> for AtomicClassicBloom {
    fn from(f: ClassicBloom) -> Self {
        AtomicClassicBloom {
            m: f.bits(),
            k: f.hashes(),
            len: LenCounter::new(f.len),
            sizing: f.sizing,
            // Same size and alignment: converted in place, in the same memory.
            words: f.bits.into_words().convert(AtomicU64::new),
        }
    }
}

impl Filter for AtomicClassicBloom {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        self.insert_hash_shared(hash);
        Ok(())
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let mut g = IndexGen::new(hash, self.m);
        (0..self.k).all(|_| {
            let i = g.next();
            self.words[(i / 64) as usize].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
        })
    }

    filter_core::filter_accessors!(self,
        name: "classic-atomic",
        table: self.words,
        len: self.len.get(),
        expected_fpr: math::classic_fpr_best(self.m, self.len.get(), self.k),
    );
}

/// The classic file, written from a [`AtomicClassicBloom::snapshot`]: same variant id,
/// parameters and payload, so either form loads the other's.
impl Persist for AtomicClassicBloom {
    const KIND: FileKind = crate::FILE_KIND;

    fn to_bytes(&self) -> Vec<u8> {
        self.snapshot()
            .expect("a snapshot has the shape this filter was built with")
            .to_bytes()
    }

    fn try_to_bytes(&self) -> Result<Vec<u8>> {
        self.snapshot()?.try_to_bytes()
    }

    /// Streams the file from one snapshot (the one copy of the table a save holds).
    fn write_to<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
        let copy = self
            .snapshot()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
        copy.write_to(w)
    }

    fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        ClassicBloom::from_bytes(bytes).map(Self::from)
    }
}
