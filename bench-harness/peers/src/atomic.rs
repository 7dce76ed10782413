//! fastbloom's `AtomicBloomFilter` filled from several threads at once.

use std::thread;
use std::time::Instant;

use fastbloom::AtomicBloomFilter;
use foldhash::fast::FixedState;

use crate::{check_params, SEED};

/// fastbloom's `AtomicBloomFilter` after a parallel build, ready to probe.
///
/// It has the same size and hasher (foldhash, seeded with [`SEED`]) as
/// [`PeerKind::FastbloomFoldhash`](crate::PeerKind::FastbloomFoldhash), fastbloom's fastest
/// configuration, so its bits equal those of a sequential build from the same keys.
#[derive(Debug)]
pub struct AtomicPeer(pub AtomicBloomFilter<FixedState>);

impl AtomicPeer {
    /// Whether `key` may have been inserted.
    #[inline]
    pub fn contains(&self, key: &[u8]) -> bool {
        self.0.contains(key)
    }

    /// `num_bits() / 8`, as for [`PeerKind::FastbloomFoldhash`](crate::PeerKind::FastbloomFoldhash).
    pub fn size_in_bytes(&self) -> usize {
        self.0.num_bits() / 8
    }
}

/// Builds fastbloom's `AtomicBloomFilter` for `n` keys at rate `p` from `threads` threads, each
/// inserting a contiguous shard of `keys` through `&self`.
///
/// Returns the filter and the seconds the insert phase took: from before the first thread is
/// spawned to after the last one is joined, so thread start-up is included (tens of
/// microseconds, which only matters for tiny key sets). Allocating the zeroed bit array is not
/// timed. `threads` is clamped to `1..=keys.len()`.
///
/// # Errors
///
/// If `n` is 0 or `p` is not strictly between 0 and 1.
pub fn fastbloom_atomic_parallel_build(
    keys: &[&[u8]],
    n: usize,
    p: f64,
    threads: usize,
) -> anyhow::Result<(AtomicPeer, f64)> {
    check_params(n, p)?;
    let filter = AtomicBloomFilter::with_false_pos(p)
        .hasher(FixedState::with_seed(SEED))
        .expected_items(n);
    let threads = threads.clamp(1, keys.len().max(1));
    let shard = keys.len().div_ceil(threads).max(1);
    let start = Instant::now();
    thread::scope(|s| {
        for chunk in keys.chunks(shard) {
            let filter = &filter;
            s.spawn(move || {
                for key in chunk {
                    filter.insert(*key);
                }
            });
        }
    });
    let secs = start.elapsed().as_secs_f64();
    Ok((AtomicPeer(filter), secs))
}
