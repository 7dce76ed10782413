//! [`AtomicClassicBloom`]: the classic filter shared by many threads without a lock.

use crate::ClassicBloom;
use filter_core::concurrent::{words, AtomicBits, LenCounter, LockFree, SharedInsert};
use filter_core::{math, Filter, Hash128, IndexGen, Result, Sizing};
use std::sync::atomic::Ordering;

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
    bits: AtomicBits,
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
        Ok(AtomicClassicBloom {
            bits: AtomicBits::with_cap(m, k, self.table_options())?,
            len: LenCounter::default(),
            sizing,
        })
    }
}

filter_core::lock_free_form!(AtomicClassicBloom, ClassicBloom);

impl SharedInsert for AtomicClassicBloom {
    #[inline]
    fn insert_hash_shared(&self, hash: Hash128) {
        // A locked read-modify-write is a full fence on x86-64: the loads after it wait for it,
        // so k `fetch_or`s in a row would take their k cache misses one after another. The k
        // words are prefetched first, so that the misses overlap and the fences wait for lines
        // already on the way.
        const MAX_K: usize = 16;
        let (m, k_all, words) = (self.bits.bits(), self.bits.hashes(), self.bits.words());
        let mut masks = [(0usize, 0u64); MAX_K];
        let k = (k_all as usize).min(MAX_K);
        let mut g = IndexGen::new(hash, m);
        for slot in &mut masks[..k] {
            let i = g.next();
            *slot = ((i / 64) as usize, 1 << (i % 64));
            filter_core::prefetch(&words[slot.0]);
        }
        // Probes beyond the array (k > 16) continue the same sequence without a prefetch.
        let rest = (k..k_all as usize).map(|_| {
            let i = g.next();
            ((i / 64) as usize, 1 << (i % 64))
        });
        // Counted first, bits set with Release: see `words` for why a snapshot then holds no
        // uncounted bit.
        words::insert(words, &self.len, masks[..k].iter().copied().chain(rest));
    }
}

impl AtomicClassicBloom {
    /// Number of bits, `m`.
    pub fn bits(&self) -> u64 {
        self.bits.bits()
    }

    /// Number of hash functions, `k`.
    pub fn hashes(&self) -> u32 {
        self.bits.hashes()
    }
}

impl LockFree for AtomicClassicBloom {
    type Single = ClassicBloom;

    fn snapshot(&self) -> Result<ClassicBloom> {
        let (bits, len) = self.bits.snapshot(&self.len)?;
        Ok(ClassicBloom {
            bits,
            len,
            sizing: self.sizing,
        })
    }

    fn into_inner(self) -> ClassicBloom {
        ClassicBloom {
            len: self.len.get(),
            bits: self.bits.into(),
            sizing: self.sizing,
        }
    }
}

impl From<ClassicBloom> for AtomicClassicBloom {
    fn from(f: ClassicBloom) -> Self {
        AtomicClassicBloom {
            len: LenCounter::new(f.len),
            sizing: f.sizing,
            // Same size and alignment: converted in place, in the same memory.
            bits: f.bits.into(),
        }
    }
}

impl Filter for AtomicClassicBloom {
    filter_core::lock_free_insert!();

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        let words = self.bits.words();
        let mut g = IndexGen::new(hash, self.bits.bits());
        (0..self.bits.hashes()).all(|_| {
            let i = g.next();
            words[(i / 64) as usize].load(Ordering::Relaxed) & (1 << (i % 64)) != 0
        })
    }

    filter_core::filter_accessors!(self,
        name: "classic-atomic",
        table: self.bits,
        len: self.len.get(),
        expected_fpr: math::classic_fpr_best(self.bits(), self.len.get(), self.hashes()),
    );
}
