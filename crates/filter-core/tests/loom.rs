//! Loom runs the lock-free filters' word protocol ([`filter_core::concurrent::words`]) under
//! every interleaving (and every weak-memory outcome loom models) of small scenarios:
//! concurrent inserts lose no bit, and a snapshot taken while a thread inserts never holds more
//! than `k` bits per counted item, and an insert that skips its `fetch_or`s (the bits were
//! already there) still hands every bit over to the thread it synchronises with. Four fixtures
//! show the checks can fail: a load-OR-store insert loses a bit, a snapshot that reads the count
//! first holds uncounted bits, a skip that checks for *any* of the mask's bits instead of all of
//! them loses one, and without the hand-over edge the reader sees a stale word.
//!
//! `RUSTFLAGS="--cfg loom" cargo test -p filter-core --test loom --release` (`just loom`; CI).
#![cfg(loom)]

use filter_core::concurrent::words::{insert, snapshot, AtomicWord, Counter};
use loom::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use loom::sync::Arc;
use loom::thread;

/// A loom word (a newtype: both the trait and loom's type are foreign here).
#[derive(Default)]
struct Word(AtomicU64);

impl AtomicWord for Word {
    type Value = u64;
    fn or(&self, bits: u64, order: Ordering) {
        self.0.fetch_or(bits, order);
    }
    fn get(&self, order: Ordering) -> u64 {
        self.0.load(order)
    }
}

/// A loom count, relaxed like `LenCounter`'s slots.
#[derive(Default)]
struct Count(AtomicU64);

impl Counter for Count {
    fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    fn total(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Two words, as a filter with k = 2 whose keys touch both.
struct Filter {
    words: [Word; 2],
    len: Count,
}

fn filter() -> Arc<Filter> {
    Arc::new(Filter {
        words: [Word::default(), Word::default()],
        len: Count::default(),
    })
}

/// One key: k = 2 (word, mask) pairs.
type Key = [(usize, u64); 2];

/// Two keys, the second touching both words of the first.
const KEYS: [Key; 2] = [[(0, 1), (1, 1)], [(0, 2), (1, 4)]];

fn ones(words: &[u64]) -> u64 {
    words.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// Two threads insert a key each into the same words; after the join both keys' bits are all
/// there and both are counted.
fn inserts_lose_no_bit(insert_one: fn(&Filter, Key)) {
    loom::model(move || {
        let f = filter();
        let other = {
            let f = f.clone();
            thread::spawn(move || insert_one(&f, KEYS[0]))
        };
        insert_one(&f, KEYS[1]);
        other.join().unwrap();
        let w: Vec<u64> = f.words.iter().map(|w| w.get(Ordering::Relaxed)).collect();
        assert_eq!(w, [3, 5], "a bit was lost");
        assert_eq!(f.len.total(), 2);
    });
}

/// A snapshot taken while another thread inserts both keys holds at most k bits per counted
/// item, so the saved file passes the loader's check.
fn snapshots_count_every_bit(take: fn(&Filter) -> (Vec<u64>, u64)) {
    loom::model(move || {
        let f = filter();
        let inserter = {
            let f = f.clone();
            thread::spawn(move || KEYS.iter().for_each(|&k| insert(&f.words, &f.len, k)))
        };
        let (copy, len) = take(&f);
        assert!(
            ones(&copy) <= 2 * len,
            "{} bits for {len} items",
            ones(&copy)
        );
        inserter.join().unwrap();
    });
}

#[test]
fn concurrent_inserts_lose_no_bit() {
    inserts_lose_no_bit(|f, key| insert(&f.words, &f.len, key));
}

#[test]
fn a_snapshot_during_inserts_counts_every_bit_it_holds() {
    snapshots_count_every_bit(|f| snapshot(&f.words, &f.len));
}

/// The fixture the first check must reject: load, OR, store instead of `fetch_or`.
#[test]
fn load_or_store_loses_a_bit_and_loom_finds_it() {
    let caught = std::panic::catch_unwind(|| {
        inserts_lose_no_bit(|f, key| {
            f.len.add(1);
            for (i, m) in key {
                let w = &f.words[i].0;
                w.store(w.load(Ordering::Relaxed) | m, Ordering::Relaxed);
            }
        });
    });
    assert!(
        caught.is_err(),
        "loom found no lost bit in a load-OR-store insert"
    );
}

/// The fixture the second check must reject: the count read before the words (what the
/// filters' files did before this protocol).
#[test]
fn a_count_read_first_misses_bits_and_loom_finds_it() {
    let caught = std::panic::catch_unwind(|| {
        snapshots_count_every_bit(|f| {
            let len = f.len.total();
            let copy = f.words.iter().map(|w| w.get(Ordering::Acquire)).collect();
            (copy, len)
        });
    });
    assert!(
        caught.is_err(),
        "loom found no uncounted bit with the count read first"
    );
}

/// A thread inserts a key; a second thread inserts a key sharing a word with it (so the second
/// may skip that word's `fetch_or`), then raises a flag with `Release`. A third thread that reads
/// the flag with `Acquire` is owed every bit of the second key — whether its insert set them or
/// skipped them because the first thread had.
/// `flag` is the (store, load) ordering of the flag: `(Release, Acquire)` is the hand-over.
fn skipped_bits_are_handed_over(insert_one: fn(&Filter, Key), flag: (Ordering, Ordering)) {
    const FIRST: Key = [(0, 1), (1, 1)];
    const SECOND: Key = [(0, 3), (1, 1)];
    loom::model(move || {
        let f = filter();
        let done = Arc::new(AtomicBool::new(false));
        let first = {
            let f = f.clone();
            thread::spawn(move || insert_one(&f, FIRST))
        };
        let second = {
            let (f, done) = (f.clone(), done.clone());
            thread::spawn(move || {
                insert_one(&f, SECOND);
                done.store(true, flag.0);
            })
        };
        if done.load(flag.1) {
            for (i, m) in SECOND {
                let w = f.words[i].get(Ordering::Relaxed);
                assert_eq!(w & m, m, "word {i} lacks a bit of a key inserted before");
            }
        }
        first.join().unwrap();
        second.join().unwrap();
    });
}

#[test]
fn an_insert_that_skips_set_bits_hands_over_every_bit() {
    skipped_bits_are_handed_over(
        |f, key| insert(&f.words, &f.len, key),
        (Ordering::Release, Ordering::Acquire),
    );
}

/// The check sees stale words: with a `Relaxed` flag (no hand-over) the same protocol is
/// caught, so the `Relaxed` skip passing above is the hand-over at work, not a blind model.
#[test]
fn without_a_hand_over_loom_finds_a_missing_bit() {
    let caught = std::panic::catch_unwind(|| {
        skipped_bits_are_handed_over(
            |f, key| insert(&f.words, &f.len, key),
            (Ordering::Relaxed, Ordering::Relaxed),
        );
    });
    assert!(
        caught.is_err(),
        "loom found no stale word without a hand-over"
    );
}

/// The fixture the third check must reject: a skip when *any* bit of the mask is set.
#[test]
fn a_skip_on_any_bit_loses_one_and_loom_finds_it() {
    let caught = std::panic::catch_unwind(|| {
        skipped_bits_are_handed_over(
            |f, key| {
                f.len.add(1);
                for (i, m) in key {
                    let w = &f.words[i];
                    if w.get(Ordering::Relaxed) & m == 0 {
                        w.or(m, Ordering::Release);
                    }
                }
            },
            (Ordering::Release, Ordering::Acquire),
        );
    });
    assert!(
        caught.is_err(),
        "loom found no lost bit with a skip on any bit set"
    );
}
