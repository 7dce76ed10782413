//! The word-level protocol of the lock-free filters (`AtomicClassicBloom`, `AtomicBlockedBloom`):
//! how an insert counts and sets its bits, how a lookup reads them, and how a save takes a
//! snapshot while other threads insert. Written once over two small traits, so that loom runs
//! this very code over its model atomics (`crates/filter-core/tests/loom.rs`:
//! `RUSTFLAGS="--cfg loom" cargo test -p filter-core --test loom --release`, `just loom`).
//!
//! # The ordering argument
//!
//! * An insert first adds one to the item count, then, for each word, loads it and, only if
//!   one of its bits is missing, sets them with `fetch_or` and [`Ordering::Release`].
//!   `fetch_or` is a read-modify-write on the latest value of the word, so two inserts setting
//!   different bits of one word never erase each other's (a load, an OR and a store could: the
//!   loom test shows that protocol losing a bit). Skipping the `fetch_or` when every bit is
//!   already there saves a locked instruction (a full fence on x86-64) and, under contention,
//!   the exclusive ownership of a cache line that other threads only read: most words a filter
//!   near capacity touches already hold the bit.
//! * Why the skip keeps "no false negative once insert returned". It must check *every* bit of
//!   the mask (`word & mask == mask`): a word holding some of them still needs the `fetch_or`
//!   (the loom fixture with a skip on "any bit set" loses a bit). Its load may be `Relaxed`:
//!   the bits it saw are in the word's modification order at or before the value it read, and
//!   read-read coherence says that any later load of the same word that this load happens
//!   before — a lookup later on this thread, or on a thread this insert hands over to (join,
//!   channel, lock, release/acquire flag) — reads that value or a newer one, and values only
//!   gain bits. The guarantee is about the word's own bits, so no `Acquire` is needed for it
//!   (loom checks the hand-over with this `Relaxed` skip).
//! * A lookup reads with `Relaxed`: once `insert` has returned on this thread, read-after-write
//!   coherence guarantees it sees every bit (it wrote them, or read them in the skip); another
//!   thread needs a happens-before edge (a join, a channel, a lock, a release/acquire flag) —
//!   see the filters' docs. A lookup is plain loads, never a read-modify-write.
//! * A [`snapshot`] reads every word with [`Ordering::Acquire`], *then* the count. A bit it saw
//!   was set by an insert whose `Release` write it acquired, so that insert's earlier count
//!   increment happens before the count is read: every bit in the snapshot belongs to a counted
//!   insert, and the saved file has at most `k` set bits per counted item, the check a loader
//!   makes against altered files. The skip sets no bit, so it cannot add an uncounted one; an
//!   insert that skips every word is still counted, which only loosens the check. Reading the
//!   count first (as the filters did until this module) lets inserts that land in between add
//!   bits that no count covers: a file saved while threads insert could be refused on load (the
//!   loom test finds that interleaving).
//!
//! On x86-64 `Release` on a `lock or` and `Acquire` on a load compile to the same instructions
//! as `Relaxed`: the orderings cost nothing there.

use std::ops::BitAnd;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// A word that bits are OR-ed into atomically.
pub trait AtomicWord {
    /// The plain word.
    type Value: Copy + PartialEq + BitAnd<Output = Self::Value>;
    /// `fetch_or` with `order`.
    fn or(&self, bits: Self::Value, order: Ordering);
    /// `load` with `order`.
    fn get(&self, order: Ordering) -> Self::Value;
}

/// [`AtomicWord`] for the standard atomics: one body over their widths.
macro_rules! atomic_words {
    ($($atomic:ty => $value:ty),*) => {$(
        impl AtomicWord for $atomic {
            type Value = $value;
            #[inline(always)]
            fn or(&self, bits: $value, order: Ordering) {
                self.fetch_or(bits, order);
            }
            #[inline(always)]
            fn get(&self, order: Ordering) -> $value {
                self.load(order)
            }
        }
    )*};
}

atomic_words!(AtomicU64 => u64, AtomicU32 => u32);

/// The shared item count.
pub trait Counter {
    /// Adds `n`.
    fn add(&self, n: u64);
    /// The total.
    fn total(&self) -> u64;
}

impl Counter for super::LenCounter {
    #[inline(always)]
    fn add(&self, n: u64) {
        super::LenCounter::add(self, n);
    }
    fn total(&self) -> u64 {
        self.get()
    }
}

/// Inserts one key whose bits are `(word, mask)` pairs: counts it, then, word by word, sets the
/// bits with `fetch_or` (`Release`) unless a load shows all of them already set (see the module
/// docs for why that skip loses no bit).
#[inline(always)]
pub fn insert<W: AtomicWord>(
    words: &[W],
    len: &impl Counter,
    masks: impl IntoIterator<Item = (usize, W::Value)>,
) {
    len.add(1);
    for (i, m) in masks {
        let w = &words[i];
        if w.get(Ordering::Relaxed) & m != m {
            w.or(m, Ordering::Release);
        }
    }
}

/// A copy of the words and the count for saving while other threads may insert: every word
/// (`Acquire`), then the count, so that every copied bit belongs to a counted insert (see the
/// module docs). Inserts racing with the snapshot may be in it whole, in part or not at all.
pub fn snapshot<'a, W: AtomicWord + 'a>(
    words: impl IntoIterator<Item = &'a W>,
    len: &impl Counter,
) -> (Vec<W::Value>, u64) {
    let copy: Vec<W::Value> = words
        .into_iter()
        .map(|w| w.get(Ordering::Acquire))
        .collect();
    (copy, len.total())
}

/// [`snapshot`] into any destination: every word of `words` (`Acquire`), in order, to `put`,
/// then the count, which it returns. For copies whose words are laid out otherwise than the
/// atomic ones (the split-block filter keeps two lanes in one atomic word).
pub fn snapshot_with<'a, W: AtomicWord + 'a>(
    words: impl IntoIterator<Item = &'a W>,
    mut put: impl FnMut(W::Value),
    len: &impl Counter,
) -> u64 {
    for w in words {
        put(w.get(Ordering::Acquire));
    }
    len.total()
}

/// [`snapshot`] into memory the caller allocated (fallibly, as a table): every word of
/// `words` (`Acquire`) into the matching place of `out`, then the count, which it returns.
pub fn snapshot_into<'a, 'b, W: AtomicWord + 'a>(
    words: impl IntoIterator<Item = &'a W>,
    out: impl IntoIterator<Item = &'b mut W::Value>,
    len: &impl Counter,
) -> u64
where
    W::Value: 'b,
{
    for (o, w) in out.into_iter().zip(words) {
        *o = w.get(Ordering::Acquire);
    }
    len.total()
}
