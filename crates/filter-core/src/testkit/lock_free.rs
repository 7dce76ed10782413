//! Generic checks for the lock-free forms ([`LockFree`]): run them all for a type with one
//! call to [`check_lock_free`]. Each check has a broken fixture in this module's tests that it
//! must reject.

use crate::concurrent::{LockFree, SharedInsert};
use crate::{Filter, Persist};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Every check of this module, on fresh filters from `shared` and `single` (the same sizing):
/// [`check_threads_lose_nothing`], [`check_same_as_single`], [`check_converts_both_ways`],
/// and the file checks ([`super::check_round_trip`], [`super::check_rejects_bad_bytes`]).
///
/// # Panics
/// Naming the law that broke (a test helper).
pub fn check_lock_free<S: LockFree + 'static>(
    shared: impl Fn() -> S,
    single: impl Fn() -> S::Single,
) {
    check_threads_lose_nothing(&shared(), 10_000);
    check_same_as_single(&shared(), &mut single(), 8, 5_000);
    check_converts_both_ways(shared(), 4, 1000);
    let f = shared();
    super::keys("file", 500)
        .iter()
        .for_each(|k| f.insert_shared(k));
    super::check_round_trip(&f, &super::keys("probe", 500));
    super::check_rejects_bad_bytes(&f);
}

/// At least eight threads insert `per_thread` keys each while querying theirs and the others'
/// ([`hammer`]): no false negative, and every insert counted.
///
/// # Panics
/// On a false negative or a wrong count.
pub fn check_threads_lose_nothing<S: SharedInsert>(filter: &S, per_thread: usize) {
    let threads = std::thread::available_parallelism()
        .map_or(4, |n| n.get())
        .max(8);
    let before = filter.len();
    assert_eq!(
        hammer(filter, threads, per_thread),
        0,
        "{}: false negatives under threads",
        filter.name()
    );
    assert_eq!(
        filter.len() - before,
        (threads * per_thread) as u64,
        "{}: inserts not counted",
        filter.name()
    );
}

/// `threads` threads each insert their own `per_thread` keys into one filter while querying
/// their own and the others' keys. A thread checks its own key right after inserting it, and
/// each key of another thread that the other has published (a `Release` store of its count of
/// finished inserts, read here with `Acquire`, the happens-before edge the filters document).
/// Returns the false negatives seen, while running and after the join (0 for a correct filter).
pub fn hammer<F: SharedInsert>(filter: &F, threads: usize, per_thread: usize) -> u64 {
    use std::sync::atomic::AtomicU64 as Count;
    let keys: Vec<Vec<Vec<u8>>> = (0..threads)
        .map(|t| super::keys(&format!("thread{t}"), per_thread))
        .collect();
    let published: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
    let misses = Count::new(0);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (keys, published, misses) = (&keys, &published, &misses);
            s.spawn(move || {
                for (i, key) in keys[t].iter().enumerate() {
                    filter.insert_shared(key);
                    let mut lost = u64::from(!filter.contains(key));
                    published[t].store(i + 1, Ordering::Release);
                    // Probe a published key of the next thread (i-th from its end, cycling).
                    let other = (t + 1) % threads;
                    let done = published[other].load(Ordering::Acquire);
                    if done > 0 {
                        lost += u64::from(!filter.contains(&keys[other][(i * 7919) % done]));
                    }
                    misses.fetch_add(lost, Ordering::Relaxed);
                }
            });
        }
    });
    let after: u64 = keys
        .iter()
        .flatten()
        .map(|k| u64::from(!filter.contains(k)))
        .sum();
    misses.load(Ordering::Relaxed) + after
}

/// Checks a lock-free form against its single-threaded form: `threads` threads insert disjoint
/// keys into `shared` while `single` gets the same keys one by one. Both must then hold the same
/// bytes (same bits, same count, same file), each must load the other's file, and a
/// [`LockFree::snapshot`] must be the single form.
///
/// # Panics
/// On any difference (a test helper).
pub fn check_same_as_single<S: LockFree>(
    shared: &S,
    single: &mut S::Single,
    threads: usize,
    per_thread: usize,
) {
    let keys: Vec<Vec<Vec<u8>>> = (0..threads)
        .map(|t| super::keys(&format!("same{t}"), per_thread))
        .collect();
    std::thread::scope(|s| {
        for mine in &keys {
            s.spawn(move || mine.iter().for_each(|k| shared.insert_shared(k)));
        }
    });
    for k in keys.iter().flatten() {
        single
            .insert(k)
            .expect("insert into the single-threaded filter");
    }
    let bytes = shared.to_bytes();
    assert_eq!(
        bytes,
        single.to_bytes(),
        "the two forms hold different bits"
    );
    let snapshot = shared.snapshot().expect("memory for a small snapshot");
    assert_eq!(&snapshot, single, "the snapshot is not the single form");
    let loaded =
        S::Single::from_bytes(&bytes).expect("the single form loads the shared form's file");
    assert_eq!(&loaded, single);
    let back = S::from_bytes(&single.to_bytes()).expect("the shared form loads the other's file");
    assert_eq!(back.to_bytes(), bytes);
    assert!(keys.iter().flatten().all(|k| back.contains(k)));
}

/// Shares `filter` through an `Arc` with `threads` threads inserting `per_thread` keys each,
/// then converts it back ([`LockFree::into_inner`]): every key and the count survive, and
/// converting again (`From`) gives the same file.
///
/// # Panics
/// On a lost key, a wrong count or a different file.
pub fn check_converts_both_ways<S: LockFree + 'static>(
    filter: S,
    threads: usize,
    per_thread: usize,
) {
    fn send_sync<T: Send + Sync>(t: T) -> T {
        t
    }
    let tag = |t: usize| format!("arc{t}");
    let f = Arc::new(send_sync(filter));
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let f = Arc::clone(&f);
            std::thread::spawn(move || {
                super::keys(&tag(t), per_thread)
                    .iter()
                    .for_each(|k| f.insert_shared(k));
            })
        })
        .collect();
    handles
        .into_iter()
        .for_each(|h| h.join().expect("an inserting thread panicked"));
    let Ok(f) = Arc::try_unwrap(f) else {
        panic!("every thread joined, yet the Arc is still shared")
    };
    let inner = f.into_inner();
    assert_eq!(
        inner.len(),
        (threads * per_thread) as u64,
        "{}: the count changed in the conversion",
        inner.name()
    );
    for t in 0..threads {
        for k in super::keys(&tag(t), per_thread) {
            assert!(
                inner.contains(&k),
                "{}: key lost in the conversion",
                inner.name()
            );
        }
    }
    let again = S::from(inner.clone());
    assert_eq!(
        again.to_bytes(),
        inner.to_bytes(),
        "converted back, the file differs"
    );
}

#[cfg(test)]
mod tests;

/// The three refusals a lock-free builder owes, as its single form does: `zero` built for no
/// capacity (an [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `capacity`),
/// `huge` for a table past what can be allocated
/// ([`Error::OutOfMemory`](crate::Error::OutOfMemory)), `capped` over its `max_bytes`
/// ([`Error::MemoryCap`](crate::Error::MemoryCap)).
///
/// # Panics
/// Naming the build that was not refused as it should be (a test helper).
pub fn check_sizing_refusals<S: std::fmt::Debug>(
    zero: crate::Result<S>,
    huge: crate::Result<S>,
    capped: crate::Result<S>,
) {
    use crate::Error;
    assert!(
        matches!(
            &zero,
            Err(Error::InvalidParameter {
                name: "capacity",
                ..
            })
        ),
        "no capacity: {zero:?}"
    );
    assert!(
        matches!(&huge, Err(Error::OutOfMemory { .. })),
        "a table past memory: {huge:?}"
    );
    assert!(
        matches!(&capped, Err(Error::MemoryCap { .. })),
        "a table over max_bytes: {capped:?}"
    );
}
