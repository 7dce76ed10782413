//! Sharing filters between threads.
//!
//! Two ways, chosen by variant:
//!
//! - The classic and split-block filters have lock-free forms (`filter_classic::AtomicClassicBloom`,
//!   `filter_blocked::AtomicBlockedBloom`): their insert only ever turns bits on, so it is an
//!   atomic OR on a word, and `insert` and `contains` take `&self`. They build on the two helpers
//!   here: [`try_atomic_table`] and [`LenCounter`].
//! - Every other variant (counting, cuckoo, scalable) updates several words that must agree
//!   (counters that go down, buckets that kick items out, stages that grow), so it is shared
//!   behind a lock. [`Sharded`] splits the key space over `N` independently locked filters, so
//!   threads that touch different shards do not wait for each other; a single
//!   `std::sync::RwLock<F>` is the simplest alternative when contention is low.

mod bits;
mod form;
pub mod words;

pub use bits::AtomicBits;
pub use form::{to_bytes_or_abort, LockFree};

use crate::{Deletable, Error, Filter, Hash128, KeyHasher, Result};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// A filter whose inserts take `&self`: many threads insert and query one filter at once.
///
/// Implemented by the lock-free forms of the classic and split-block filters. `contains` is the
/// ordinary [`Filter::contains`], which already takes `&self`.
pub trait SharedInsert: Filter + Sync {
    /// Adds the key whose hash is `hash`; callable from many threads at once.
    fn insert_hash_shared(&self, hash: Hash128);

    /// Adds a key; callable from many threads at once.
    fn insert_shared(&self, key: &[u8]) {
        self.insert_hash_shared(self.hasher().hash(key));
    }
}

/// A table of `len` zero atomics: [`try_zeroed_table`](crate::try_zeroed_table) itself (the
/// atomic integers and blocks of them are [`Zeroable`](crate::Zeroable)), so the lock-free
/// filters get the same fallible, capped, huge-page allocation as the others.
pub use crate::table::try_zeroed_table as try_atomic_table;

/// Slots of [`LenCounter`]; a power of two above the core counts this crate expects to share a
/// filter, so that two threads rarely share one.
const SLOTS: usize = 16;

/// One counter on its own cache line (two, for the adjacent-line prefetcher).
#[derive(Debug, Default)]
#[repr(align(128))]
struct Slot(AtomicU64);

/// Each thread's slot, assigned round-robin the first time it counts.
fn my_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed) % SLOTS;
    }
    SLOT.with(|s| *s)
}

/// An insert counter that many threads bump without fighting over one cache line.
///
/// A single shared `AtomicU64` would be written by every insert of every thread: its line would
/// move between cores on each insert and cost more than the insert itself. Here each thread adds
/// to its own slot and [`LenCounter::get`] sums them.
///
/// The count a filter starts with (a loaded file's, which may declare up to `u64::MAX`) is kept
/// apart from the slots, which count only this filter's own inserts: a slot would need 2^64
/// inserts to wrap, and the total saturates at `u64::MAX`, as every other filter's count does.
/// (Adding to the starting count in a slot wrapped it to 0 on a file that declared the
/// maximum, and the filter then saved a file that claims no items beside its set bits.)
#[derive(Debug, Default)]
pub struct LenCounter {
    start: u64,
    slots: [Slot; SLOTS],
}

impl LenCounter {
    /// A counter starting at `n`.
    pub fn new(n: u64) -> Self {
        LenCounter {
            start: n,
            ..LenCounter::default()
        }
    }

    /// Adds `n` to this thread's slot.
    #[inline]
    pub fn add(&self, n: u64) {
        self.slots[my_slot()].0.fetch_add(n, Ordering::Relaxed);
    }

    /// The total, saturated at `u64::MAX`. Exact once the adding threads are joined; while
    /// they run, some value the counter had in between.
    pub fn get(&self) -> u64 {
        self.slots.iter().fold(self.start, |s, c| {
            s.saturating_add(c.0.load(Ordering::Relaxed))
        })
    }
}

/// Most shards [`Sharded::new`] accepts: far above any useful count, low enough that a wrong
/// argument is an error instead of an attempt to build billions of filters.
pub const MAX_SHARDS: usize = 1 << 16;

/// `N` filters, each behind its own lock, each holding the keys whose hash falls in its shard.
///
/// Built from a closure that makes one shard: give each shard `1/N` of the capacity, and the
/// sharded filter has about the false-positive rate of one shard at its own load, since a key is
/// only ever looked up in its own shard. All shards must use the same hasher (checked).
///
/// Threads inserting or querying keys of different shards run in parallel; keys of one shard
/// wait for each other. With `N` well above the thread count, waits are rare.
///
/// ```
/// use filter_core::concurrent::Sharded;
/// # use filter_core::{Filter, Hash128, KeyHasher};
/// # #[derive(Default)] struct Set(std::collections::HashSet<u128>);
/// # impl Filter for Set {
/// #   fn insert_hash(&mut self, h: Hash128) -> filter_core::Result<()> { self.0.insert(h.to_u128()); Ok(()) }
/// #   fn contains_hash(&self, h: Hash128) -> bool { self.0.contains(&h.to_u128()) }
/// #   fn hasher(&self) -> KeyHasher { KeyHasher::default() }
/// #   fn len(&self) -> u64 { self.0.len() as u64 }
/// #   fn capacity(&self) -> u64 { u64::MAX }
/// #   fn size_in_bytes(&self) -> usize { 0 }
/// #   fn expected_fpr(&self) -> f64 { 0.0 }
/// #   fn name(&self) -> &'static str { "set" }
/// # }
/// let shared = Sharded::new(8, |_| Ok(Set::default()))?;
/// std::thread::scope(|s| {
///     s.spawn(|| shared.insert(b"alice@example.com"));
///     s.spawn(|| shared.insert(b"bob@example.com"));
/// });
/// assert!(shared.contains(b"alice@example.com")? && shared.contains(b"bob@example.com")?);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[derive(Debug)]
pub struct Sharded<F> {
    shards: Vec<Mutex<F>>,
    hasher: KeyHasher,
}

impl<F: Filter> Sharded<F> {
    /// `n` shards, shard `i` made by `make(i)`.
    ///
    /// # Errors
    /// `n` of 0 or above [`MAX_SHARDS`], an error from `make`, or [`Error::Incompatible`] when the shards' hashers
    /// differ.
    pub fn new(n: usize, make: impl FnMut(usize) -> Result<F>) -> Result<Self> {
        if n == 0 || n > MAX_SHARDS {
            return Err(Error::InvalidParameter {
                name: "shards",
                value: n.to_string(),
                expected: "1 to 65,536 shards (a few times the thread count is a good choice)",
            });
        }
        let shards: Vec<F> = (0..n).map(make).collect::<Result<_>>()?;
        if let Some(other) = shards.iter().find(|s| s.hasher() != shards[0].hasher()) {
            return Err(Error::Incompatible(format!(
                "shards must share one hasher: {:?} vs {:?}",
                shards[0].hasher(),
                other.hasher()
            )));
        }
        Ok(Sharded {
            hasher: shards[0].hasher(),
            shards: shards.into_iter().map(Mutex::new).collect(),
        })
    }

    /// The shard of a hash. The filters inside address their tables with `hi` and `lo`; a
    /// finaliser over both keeps the shard choice independent of that addressing, so each shard
    /// still spreads its keys over its whole table.
    fn shard_index(&self, hash: Hash128) -> usize {
        let mut x = hash.hi ^ hash.lo.rotate_left(32);
        x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        x = (x ^ (x >> 33)).wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        x ^= x >> 33;
        crate::reduce(x, self.shards.len() as u64) as usize
    }

    fn hash(&self, key: &[u8]) -> Hash128 {
        self.hasher.hash(key)
    }

    /// The shard of `hash`, locked. A thread that panicked while holding it may have stopped
    /// half way through a cuckoo relocation chain or a counting removal, leaving keys lost: the
    /// shard is refused from then on rather than answering with false negatives.
    fn locked(&self, hash: Hash128) -> Result<MutexGuard<'_, F>> {
        let shard = self.shard_index(hash);
        self.shards[shard]
            .lock()
            .map_err(|_| Error::Poisoned { shard })
    }

    /// Inserts a key into its shard.
    ///
    /// # Errors
    /// As the shard's [`Filter::insert_hash`] (a full cuckoo shard, for instance);
    /// [`Error::Poisoned`] when a thread panicked while holding the shard.
    pub fn insert(&self, key: &[u8]) -> Result<()> {
        let h = self.hash(key);
        self.locked(h)?.insert_hash(h)
    }

    /// Whether a key may be present.
    ///
    /// # Errors
    /// [`Error::Poisoned`] when a thread panicked while holding the key's shard.
    pub fn contains(&self, key: &[u8]) -> Result<bool> {
        let h = self.hash(key);
        Ok(self.locked(h)?.contains_hash(h))
    }

    /// Test-and-insert under one lock: `true` when the key was certainly new.
    ///
    /// # Errors
    /// As [`Filter::insert_if_absent_hash`], and [`Error::Poisoned`].
    pub fn insert_if_absent(&self, key: &[u8]) -> Result<bool> {
        let h = self.hash(key);
        self.locked(h)?.insert_if_absent_hash(h)
    }

    /// Items inserted over all shards. A poisoned shard's count is read as it was left (it may
    /// count an insert that stopped half way).
    pub fn len(&self) -> u64 {
        self.shards
            .iter()
            .map(|s| s.lock().unwrap_or_else(PoisonError::into_inner).len())
            .sum()
    }

    /// Whether nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of shards.
    pub fn shards(&self) -> usize {
        self.shards.len()
    }

    /// The shards, to save or inspect them.
    ///
    /// # Errors
    /// [`Error::Poisoned`] for the first shard a panicking thread may have damaged.
    pub fn into_shards(self) -> Result<Vec<F>> {
        self.shards
            .into_iter()
            .enumerate()
            .map(|(shard, m)| m.into_inner().map_err(|_| Error::Poisoned { shard }))
            .collect()
    }
}

impl<F: Deletable> Sharded<F> {
    /// Removes one copy of a key from its shard.
    ///
    /// # Errors
    /// As [`Deletable::remove_hash`]: [`Error::NotPresent`] when the shard proves it absent;
    /// [`Error::Poisoned`] when a thread panicked while holding the shard.
    pub fn remove(&self, key: &[u8]) -> Result<()> {
        let h = self.hash(key);
        self.locked(h)?.remove_hash(h)
    }
}

#[cfg(test)]
mod tests;
