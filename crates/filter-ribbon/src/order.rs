//! The keys' per-seed hashes in ascending order, repeats removed: the order in which banding
//! meets them (by start slot, since the start is a monotone function of the hash), so that the
//! elimination walks the band from left to right instead of jumping across it.
//!
//! One counting pass on the top bits spreads the values over about `n / 4` buckets, which a
//! sort of a handful of values each finishes: a linear-time sort, where a comparison sort of
//! 10^7 values costs about `log2(10^7) = 23` rounds per value.

/// Values below this are sorted by comparison only.
const SMALL: usize = 1 << 10;

/// The most top bits a bucket index takes (2^22 buckets, 16 MiB of offsets).
const MAX_BUCKET_BITS: u32 = 22;

/// Sorts `values` ascending and removes repeats, using `scratch` (any contents) as the
/// destination of the counting pass; `values` holds the result.
///
/// # Errors
/// Memory that cannot be allocated.
pub(crate) fn sort_dedup(values: &mut Vec<u64>, scratch: &mut Vec<u64>) -> filter_core::Result<()> {
    let n = values.len();
    if n < SMALL {
        values.sort_unstable();
        values.dedup();
        return Ok(());
    }
    // About four values per bucket: n >= 2^10, so bits >= 8.
    let bits = (usize::BITS - 1 - n.leading_zeros() - 2).min(MAX_BUCKET_BITS);
    let shift = 64 - bits;
    let mut next: Vec<usize> =
        filter_core::try_filled((1usize << bits) + 1, 0, "ribbon sort offsets")?;
    for &v in values.iter() {
        next[(v >> shift) as usize + 1] += 1;
    }
    for b in 1..next.len() {
        next[b] += next[b - 1];
    }
    // `next[b]` is now where bucket b begins; it advances as the bucket fills, ending where
    // bucket b + 1 begins.
    scratch.clear();
    scratch
        .try_reserve_exact(n)
        .map_err(|_| filter_core::Error::OutOfMemory {
            what: "ribbon sort scratch",
            bytes: n as u64 * 8,
        })?;
    scratch.resize(n, 0);
    for &v in values.iter() {
        let b = (v >> shift) as usize;
        scratch[next[b]] = v;
        next[b] += 1;
    }
    // Bucket b now spans [next[b - 1], next[b]) (bucket 0 from 0).
    let mut begin = 0;
    for &end in &next[..1 << bits] {
        scratch[begin..end].sort_unstable();
        begin = end;
    }
    std::mem::swap(values, scratch);
    values.dedup();
    Ok(())
}

#[cfg(test)]
mod tests;
