//! The batch plumbing every variant shares: a prefetch-then-probe pipeline over pre-hashed
//! keys. A variant implements the two [`Prefetch`] hooks and gets pipelined batch inserts and
//! lookups from [`prefetched_batches!`](crate::prefetched_batches).

use crate::{Filter, Hash128, Result};

/// Keys hashed per block by the batch methods: enough to keep many memory requests in flight,
/// few enough that the hashes stay in L1.
pub const BATCH: usize = 256;

/// How many keys ahead the batch methods prefetch: far enough for a memory access to complete
/// while the keys in between are processed.
pub const PREFETCH_AHEAD: usize = 16;

/// The batch lookup loop every variant shares: `out[i] = probe(hashes[i])`, calling
/// `prefetch_for` on the hash [`PREFETCH_AHEAD`] positions later first, so that its memory is
/// on the way while the keys in between are answered. `out` is cleared first.
///
/// With `prefetch` false (see [`worth_prefetching`]) the loop skips the prefetches: tables that
/// sit in the caches only pay their instructions.
#[inline]
pub fn lookup_pipelined(
    hashes: &[Hash128],
    out: &mut Vec<bool>,
    prefetch: bool,
    prefetch_for: impl Fn(Hash128),
    probe: impl Fn(Hash128) -> bool,
) {
    out.clear();
    out.reserve(hashes.len());
    if !prefetch {
        out.extend(hashes.iter().map(|&h| probe(h)));
        return;
    }
    hashes
        .iter()
        .take(PREFETCH_AHEAD)
        .for_each(|&h| prefetch_for(h));
    for (i, &h) in hashes.iter().enumerate() {
        if let Some(&next) = hashes.get(i + PREFETCH_AHEAD) {
            prefetch_for(next);
        }
        out.push(probe(h));
    }
}

/// The batch insert loop every variant shares: `step(hashes[i], next)` with `next` the hash
/// [`PREFETCH_AHEAD`] positions later (to prefetch; `None` near the end and when `prefetch` is
/// false), stopping at the first error.
///
/// # Errors
/// The first error of `step`.
#[inline]
pub fn insert_pipelined(
    hashes: &[Hash128],
    prefetch: bool,
    mut step: impl FnMut(Hash128, Option<Hash128>) -> Result<()>,
) -> Result<()> {
    for (i, &h) in hashes.iter().enumerate() {
        step(
            h,
            hashes.get(i + PREFETCH_AHEAD).copied().filter(|_| prefetch),
        )?;
    }
    Ok(())
}

/// Tables below this size are not prefetched by the batch methods of filters that read one or
/// two cache lines per key: they fit the caches.
pub const PREFETCH_MIN_BYTES: usize = 1 << 20;

/// The same threshold for filters that read k lines per key (classic, counting, scalable): each
/// key costs k extra index computations to prefetch, which pays only once the table is clearly
/// beyond the 2 MiB per-core L2 of the machines we measure (at 1.2 MB it measured slower).
pub const PREFETCH_MIN_BYTES_MULTI: usize = 4 << 20;

/// Whether the batch loops should prefetch a table of `table_bytes` read at `lines_per_key`
/// places per key.
pub fn worth_prefetching(table_bytes: usize, lines_per_key: u32) -> bool {
    table_bytes
        >= if lines_per_key > 2 {
            PREFETCH_MIN_BYTES_MULTI
        } else {
            PREFETCH_MIN_BYTES
        }
}

/// The prefetch-then-probe hooks of a filter (the two-phase API of RocksDB's filter bench):
/// which memory a key will touch, and how many cache lines that is.
pub trait Prefetch: Filter {
    /// Distinct cache lines a key touches: 1 (split-block), 2 (cuckoo), or `k` (Bloom-family).
    fn lines_per_key(&self) -> u32;

    /// Starts loading the memory the key whose hash is `hash` will touch.
    fn prefetch_hash(&self, hash: Hash128);
}

/// [`Filter::insert_hash_batch`] through the [`Prefetch`] hooks: each insert is preceded by the
/// prefetch of the key [`PREFETCH_AHEAD`] places later, when the table is large enough for that
/// to pay ([`worth_prefetching`]).
///
/// # Errors
/// As [`Filter::insert_hash_batch`].
pub fn insert_hash_batch_prefetched<F: Prefetch + ?Sized>(
    f: &mut F,
    hashes: &[Hash128],
) -> Result<()> {
    let prefetch = worth_prefetching(f.size_in_bytes(), f.lines_per_key());
    insert_pipelined(hashes, prefetch, |h, next| {
        if let Some(next) = next {
            f.prefetch_hash(next);
        }
        f.insert_hash(h)
    })
}

/// [`Filter::contains_hash_batch`] through the [`Prefetch`] hooks.
pub fn contains_hash_batch_prefetched<F: Prefetch + ?Sized>(
    f: &F,
    hashes: &[Hash128],
    out: &mut Vec<bool>,
) {
    lookup_pipelined(
        hashes,
        out,
        worth_prefetching(f.size_in_bytes(), f.lines_per_key()),
        |h| f.prefetch_hash(h),
        |h| f.contains_hash(h),
    );
}

/// Implements `insert_hash_batch` and `contains_hash_batch` inside an `impl Filter` block by the
/// type's [`Prefetch`] hooks.
#[macro_export]
macro_rules! prefetched_batches {
    () => {
        fn insert_hash_batch(&mut self, hashes: &[$crate::Hash128]) -> $crate::Result<()> {
            $crate::insert_hash_batch_prefetched(self, hashes)
        }

        fn contains_hash_batch(&self, hashes: &[$crate::Hash128], out: &mut Vec<bool>) {
            $crate::contains_hash_batch_prefetched(self, hashes, out)
        }
    };
}

/// Calls of at most this many keys hash into a buffer of this size instead of [`BATCH`]: the
/// stack buffer is zeroed once per call, and 512 bytes, not 4 KiB, is what a call of a few keys
/// should pay for that.
const SMALL_BATCH: usize = 32;

/// Hashes `keys` with `hasher`, [`BATCH`] keys at a time, and hands each chunk's hashes to
/// `each`, stopping at its first error. The hashes go to one stack array reused for every
/// chunk (no allocation); calls of at most 32 keys use a smaller one, so that zeroing it stays
/// in proportion to the work.
///
/// # Errors
/// The first error of `each`.
pub fn hashed_chunks<E>(
    hasher: &crate::KeyHasher,
    keys: &[&[u8]],
    each: impl FnMut(&[crate::Hash128]) -> core::result::Result<(), E>,
) -> core::result::Result<(), E> {
    if keys.len() <= SMALL_BATCH {
        hashed_chunks_in::<SMALL_BATCH, E>(hasher, keys, each)
    } else {
        hashed_chunks_in::<BATCH, E>(hasher, keys, each)
    }
}

/// [`hashed_chunks`] through a stack buffer of `N` hashes (`keys` is cut in chunks of `N`).
fn hashed_chunks_in<const N: usize, E>(
    hasher: &crate::KeyHasher,
    keys: &[&[u8]],
    mut each: impl FnMut(&[crate::Hash128]) -> core::result::Result<(), E>,
) -> core::result::Result<(), E> {
    let mut buffer = [crate::Hash128::default(); N];
    for chunk in keys.chunks(N) {
        let hashes = &mut buffer[..chunk.len()];
        for (h, key) in hashes.iter_mut().zip(chunk) {
            *h = hasher.hash(key);
        }
        each(hashes)?;
    }
    Ok(())
}

/// Inserts `keys` into `f`: into an empty filter every key hashed first and given to
/// [`Filter::insert_hash_batch`] at once, so that a variant that builds an empty table in one
/// pass (the quotient family's sort by quotient) takes them all; when the hashes cannot be
/// allocated, or the filter holds keys, [`BATCH`] at a time as the default
/// [`Filter::insert_batch`] does.
///
/// # Errors
/// Those of [`Filter::insert_hash_batch`].
pub fn insert_batch_at_once<F: Filter + ?Sized>(f: &mut F, keys: &[&[u8]]) -> Result<()> {
    let hasher = f.hasher();
    let mut hashes = Vec::new();
    if f.is_empty() && hashes.try_reserve_exact(keys.len()).is_ok() {
        hashes.extend(keys.iter().map(|k| hasher.hash(k)));
        return f.insert_hash_batch(&hashes);
    }
    hashed_chunks(&hasher, keys, |chunk| f.insert_hash_batch(chunk))
}

/// Answers `keys` through a probe of pre-computed hashes, [`BATCH`] keys at a time (hashed by
/// [`hashed_chunks`]): each chunk's answers from `probe` are appended to `out` (cleared first).
/// The body of every `contains_batch` that hashes keys itself.
///
/// The first chunk is answered straight into `out`; only later chunks need a second buffer
/// (a `Vec`, since `probe` is usually [`Filter::contains_hash_batch`], which fills one), so a
/// call of up to [`BATCH`] keys allocates nothing beyond `out`, and a longer one that one buffer
/// of at most [`BATCH`] answers, reused for every later chunk: no allocation grows with the
/// number of keys (counted in `tests/batch_allocations.rs`). Dropping that buffer too would need
/// a probe that writes into a slice, a change of the `Filter` trait.
pub fn contains_keys_hashed(
    hasher: &crate::KeyHasher,
    keys: &[&[u8]],
    out: &mut Vec<bool>,
    mut probe: impl FnMut(&[crate::Hash128], &mut Vec<bool>),
) {
    out.clear();
    out.reserve(keys.len());
    let mut part = Vec::new();
    let mut first = true;
    let Ok(()) = hashed_chunks::<core::convert::Infallible>(hasher, keys, |hashes| {
        if first {
            first = false;
            probe(hashes, out);
        } else {
            probe(hashes, &mut part);
            out.extend_from_slice(&part);
        }
        Ok(())
    });
}
