//! `Filter::contains_batch` (and `StaticFilter`'s, one body: `batch::contains_keys_hashed`)
//! hashes in fixed chunks on the stack: beyond the answers' own vector, a call allocates
//! nothing for up to `BATCH` keys and one buffer of at most `BATCH` answers past that, however
//! many keys it gets. Counted with an allocator that tallies this thread's allocations (the
//! one `unsafe` here: a global allocator's methods are unsafe to implement).
#![allow(unsafe_code)]

use filter_core::{Filter, Hash128, KeyHasher, Result, Sizing, Table, BATCH};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

// SAFETY: every call is passed on to the system allocator unchanged; the tally is a
// thread-local `Cell` with a constant initialiser, which allocates nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> u64 {
    ALLOCATIONS.with(Cell::get)
}

/// A filter answering "maybe" for a third of the hashes, with the trait's own batch lookup
/// (`wasteful`: one that allocates a new vector of answers per call instead).
struct Thirds {
    table: Table<u64>,
    sizing: Sizing,
    wasteful: bool,
}

impl Filter for Thirds {
    fn insert_hash(&mut self, _: Hash128) -> Result<()> {
        Ok(())
    }
    fn contains_hash(&self, h: Hash128) -> bool {
        h.lo % 3 == 0
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        if self.wasteful {
            *out = hashes.iter().map(|&h| self.contains_hash(h)).collect();
        } else {
            out.clear();
            out.extend(hashes.iter().map(|&h| self.contains_hash(h)));
        }
    }
    filter_core::filter_accessors!(self,
        name: "thirds",
        table: self.table,
        len: 0,
        expected_fpr: 1.0 / 3.0,
    );
}

/// Allocations of one `contains_batch` over `keys` (answers into a vector already large
/// enough), and its answers.
fn counted(f: &Thirds, keys: &[&[u8]]) -> (u64, Vec<bool>) {
    let mut out = Vec::with_capacity(keys.len());
    let before = allocations();
    f.contains_batch(keys, &mut out);
    (allocations() - before, out)
}

#[test]
fn no_allocation_grows_with_the_batch() {
    let keys: Vec<[u8; 4]> = (0..100_000u32).map(u32::to_le_bytes).collect();
    let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let hasher = KeyHasher::default();
    let thirds = |wasteful| Thirds {
        table: filter_core::zeroed_table(1),
        sizing: Sizing::default(),
        wasteful,
    };
    let f = thirds(false);
    for n in [0, 1, 32, BATCH, BATCH + 1, 5_000, 100_000] {
        let (count, out) = counted(&f, &refs[..n]);
        assert_eq!(count, u64::from(n > BATCH), "{n} keys");
        let per_key: Vec<bool> = refs[..n]
            .iter()
            .map(|k| f.contains_hash(hasher.hash(k)))
            .collect();
        assert_eq!(out, per_key, "{n} keys");
    }
    // Fixture: a lookup that allocates per chunk is seen, and grows with the batch.
    let wasteful = thirds(true);
    let (small, _) = counted(&wasteful, &refs[..5_000]);
    let (large, _) = counted(&wasteful, &refs);
    assert!(large > small && small > 1, "{small} then {large}");
}
