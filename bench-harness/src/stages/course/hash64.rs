//! What a 64-bit hash ([`HashKind::Xxh3_64`]) costs the split-block filter in false positives
//! at 10^9 and 10^10 keys, measured without building those filters.
//!
//! A non-member's answer depends only on the contents of its own block, so the rate over the
//! probes that land in the first `B / slice` blocks of a filter of `B` blocks is an unbiased
//! measurement of the whole filter's rate. Every one of the `n` member keys is hashed with both
//! kinds (same keys, same seed); the ones whose block ([`filterlab::blocked::block_index`])
//! falls in the slice set their lane bits ([`filterlab::blocked::lane_bits`]) in a table of the
//! slice's blocks only, the others are dropped. Then non-member keys are hashed until at least
//! [`Hash64Scale::probes`] of them land in each slice. The smaller filters' members are a prefix
//! of the largest's, so one pass over the largest `n` fills every slice.
//!
//! Keys are e-mail-like, 26 bytes (`m00000000042@filterlab.org`, probes with a `p`): longer than
//! 16 bytes, where xxh3-64 is no longer a bijection of its input and whole-hash collisions can
//! happen. They are written digit by digit into one buffer per worker, never allocated.
//! The record ([`Hash64Study`]) holds the counts; `judge::course` computes its intervals and
//! verdicts and `render::course` its text and plot.

use crate::record::Verdict;
use anyhow::{ensure, Result};
use filterlab::blocked::{block_index, lane_bits};
use filterlab::{math, Hash128, HashKind, KeyHasher};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

/// The target rate every measured filter is sized for.
pub const FPR: f64 = 0.01;
/// The one seed of both hash kinds.
pub const SEED: u64 = 0x6a09_e667_f3bc_c908;
/// Digits of a key's number: keys up to 10^11.
const DIGITS: usize = 11;
/// What follows the digits.
const DOMAIN: &[u8] = b"@filterlab.org";
/// Bytes of every key.
pub const KEY_BYTES: usize = 1 + DIGITS + DOMAIN.len();
/// Keys per unit of parallel work.
const CHUNK: u64 = 1 << 20;

/// How large the study runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hash64Scale {
    /// Member keys of each filter, ascending.
    pub sizes: [u64; 2],
    /// The slice is the first `1/slice` of each filter's blocks.
    pub slice: u64,
    /// Non-members that must land in each slice, at least.
    pub probes: u64,
}

impl Hash64Scale {
    /// The full run: 10^9 and 10^10 keys, a 64th of the blocks, 10^7 probes in each slice.
    pub const FULL: Hash64Scale = Hash64Scale {
        sizes: [1_000_000_000, 10_000_000_000],
        slice: 64,
        probes: 10_000_000,
    };
    /// `--quick`: 10^7 and 10^8 keys.
    pub const QUICK: Hash64Scale = Hash64Scale {
        sizes: [10_000_000, 100_000_000],
        slice: 16,
        probes: 4_000_000,
    };
}

/// One hash kind's counts on one filter's slice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCount {
    /// Members whose block lies in the slice (inserted into it).
    pub members: u64,
    /// Non-members whose block lies in the slice: the trials.
    pub trials: u64,
    /// Trials the slice answered "present" for: the false positives.
    pub hits: u64,
}

/// What `judge::course` computes from a [`SliceRun`]; `check` recomputes it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceJudged {
    /// [`math::split_block_fpr`] at the whole filter's `n / B`.
    pub formula: f64,
    /// `(n / B) / 2^32`: a non-member with a member's block and 32 lane bits (both kinds).
    pub floor_lanes: f64,
    /// `n / 2^64`: a non-member with a member's whole 64-bit hash (the 64-bit kind only).
    pub floor_whole: f64,
    /// 95% interval of the xxh3-128 rate (Wilson, widened by the slice's fill spread).
    pub wide: (f64, f64),
    /// The same for xxh3-64.
    pub narrow: (f64, f64),
    /// 95% interval of xxh3-64's rate minus xxh3-128's (Newcombe's hybrid score interval).
    pub difference: (f64, f64),
    /// xxh3-128's interval within the margin of the formula.
    pub wide_vs_formula: Verdict,
    /// xxh3-64's interval within the margin of the formula.
    pub narrow_vs_formula: Verdict,
    /// The difference's interval within ± the margin: the 64-bit hash costs nothing measurable.
    pub equal: Verdict,
}

/// One filter size, measured on a slice of its blocks with both kinds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SliceRun {
    /// Members of the whole filter.
    pub n: u64,
    /// Blocks of the whole filter (as the builder sizes it for `n` at [`FPR`]).
    pub blocks: u64,
    /// Blocks of the slice: the first `blocks / slice`.
    pub slice_blocks: u64,
    /// Non-member keys hashed (each with both kinds) to fill the slice's trials.
    pub probed: u64,
    /// xxh3-128, the default.
    pub wide: KindCount,
    /// xxh3-64.
    pub narrow: KindCount,
    /// Intervals and verdicts, filled in by the judge.
    pub judged: Option<SliceJudged>,
}

/// The whole study, as `course.json` records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hash64Study {
    /// The target rate of every filter.
    pub fpr: f64,
    /// The seed of both kinds.
    pub seed: u64,
    /// Bytes of every key.
    pub key_bytes: u64,
    /// Each slice is the first `1/slice` of its filter's blocks.
    pub slice: u64,
    /// Relative margin of the verdicts (set by the judge).
    pub margin: f64,
    /// One run per filter size, ascending.
    pub runs: Vec<SliceRun>,
}

/// The hashing study as written to `hashing.json` (`bench-harness study hashing`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HashingReport {
    /// Where and how (the commit, the date and the study's wall time included).
    pub machine: crate::record::Machine,
    /// The measurements, judged.
    pub study: Hash64Study,
}

/// Blocks of a split-block filter sized for `n` at [`FPR`], as its builder computes them.
///
/// # Errors
/// A target the formula cannot reach.
pub fn blocks_for(n: u64) -> filterlab::Result<u64> {
    math::split_block_blocks(n, FPR)
}

/// One worker's key buffer: `tag`, the number in [`DIGITS`] decimal digits, [`DOMAIN`].
struct Key([u8; KEY_BYTES]);

impl Key {
    fn at(tag: u8, mut i: u64) -> Self {
        let mut b = [0u8; KEY_BYTES];
        b[0] = tag;
        for d in (1..=DIGITS).rev() {
            b[d] = b'0' + (i % 10) as u8;
            i /= 10;
        }
        b[1 + DIGITS..].copy_from_slice(DOMAIN);
        Key(b)
    }

    /// The next number, in place.
    fn advance(&mut self) {
        for d in (1..=DIGITS).rev() {
            if self.0[d] == b'9' {
                self.0[d] = b'0';
            } else {
                self.0[d] += 1;
                return;
            }
        }
    }
}

/// The first `slice_blocks` of a filter of `blocks` blocks, for one hash kind.
struct Slice {
    blocks: u64,
    lanes: Vec<AtomicU32>,
}

impl Slice {
    fn new(blocks: u64, slice_blocks: u64) -> Self {
        Slice {
            blocks,
            lanes: (0..slice_blocks * 8).map(|_| AtomicU32::new(0)).collect(),
        }
    }

    /// The lanes of the key's block, if it lies in the slice.
    fn lanes_of(&self, h: Hash128) -> Option<&[AtomicU32]> {
        let b = block_index(h, self.blocks) as usize * 8;
        self.lanes.get(b..b + 8)
    }

    /// Sets the key's lane bits if its block lies in the slice; whether it did.
    fn insert(&self, h: Hash128) -> bool {
        self.lanes_of(h).is_some_and(|lanes| {
            for (lane, bit) in lanes.iter().zip(lane_bits(h.lo as u32)) {
                lane.fetch_or(1 << bit, Relaxed);
            }
            true
        })
    }

    /// `None` outside the slice, else whether all eight lane bits are set.
    fn probe(&self, h: Hash128) -> Option<bool> {
        let lanes = self.lanes_of(h)?;
        let bits = lane_bits(h.lo as u32);
        Some(
            lanes
                .iter()
                .zip(bits)
                .all(|(l, b)| l.load(Relaxed) >> b & 1 == 1),
        )
    }
}

/// Counts of every (size, kind): `[size][kind]`, kind 0 xxh3-128 and 1 xxh3-64.
type Counts = Vec<[KindCount; 2]>;

fn merge(mut a: Counts, b: Counts) -> Counts {
    for (x, y) in a.iter_mut().flatten().zip(b.iter().flatten()) {
        x.members += y.members;
        x.trials += y.trials;
        x.hits += y.hits;
    }
    a
}

/// Runs `per_key(i, key, counts)` over keys `0..count` tagged `tag`, in parallel chunks.
fn over_keys(
    tag: u8,
    count: u64,
    sizes: usize,
    per_key: impl Fn(u64, &[u8], &mut Counts) + Sync,
) -> Counts {
    let empty = || vec![[KindCount::default(); 2]; sizes];
    (0..count.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| {
            let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(count));
            let mut counts = empty();
            let mut key = Key::at(tag, start);
            for i in start..end {
                per_key(i, &key.0, &mut counts);
                key.advance();
            }
            counts
        })
        .reduce(empty, merge)
}

/// Measures both kinds at every size of `scale`.
///
/// # Errors
/// A scale with a size of 0, sizes out of order or above 10^11 keys, or a slice of no block.
pub fn run(scale: Hash64Scale) -> Result<Hash64Study> {
    let sizes = scale.sizes;
    ensure!(
        sizes[0] > 0 && sizes[0] <= sizes[1] && sizes[1] < 10u64.pow(DIGITS as u32),
        "hash64: sizes {sizes:?} must ascend from 1 to below 10^{DIGITS}"
    );
    let (wide, narrow) = (
        KeyHasher::new(HashKind::Xxh3_128, SEED)?,
        KeyHasher::new(HashKind::Xxh3_64, SEED)?,
    );
    let mut runs = Vec::new();
    for n in sizes {
        let blocks = blocks_for(n)?;
        let slice_blocks = blocks / scale.slice.max(1);
        ensure!(slice_blocks > 0, "hash64: a slice of {n} keys has no block");
        runs.push((n, blocks, slice_blocks));
    }
    let tables: Vec<[Slice; 2]> = runs
        .iter()
        .map(|&(_, b, s)| [Slice::new(b, s), Slice::new(b, s)])
        .collect();
    let members = over_keys(b'm', sizes[1], runs.len(), |i, key, counts| {
        let hs = [wide.hash(key), narrow.hash(key)];
        for ((&(n, ..), table), count) in runs.iter().zip(&tables).zip(counts.iter_mut()) {
            for ((slice, h), c) in table.iter().zip(hs).zip(count.iter_mut()) {
                c.members += u64::from(i < n && slice.insert(h));
            }
        }
    });
    // 1% more than the slice's share needs: short of `probes` only 30 sigma away at 10^7.
    let probed = runs
        .iter()
        .map(|&(_, b, s)| (scale.probes as f64 * 1.01 * b as f64 / s as f64).ceil() as u64)
        .max()
        .unwrap_or(0);
    let probes = over_keys(b'p', probed, runs.len(), |_, key, counts| {
        let hs = [wide.hash(key), narrow.hash(key)];
        for (table, count) in tables.iter().zip(counts.iter_mut()) {
            for ((slice, h), c) in table.iter().zip(hs).zip(count.iter_mut()) {
                if let Some(hit) = slice.probe(h) {
                    c.trials += 1;
                    c.hits += u64::from(hit);
                }
            }
        }
    });
    let counts = merge(members, probes);
    Ok(Hash64Study {
        fpr: FPR,
        seed: SEED,
        key_bytes: KEY_BYTES as u64,
        slice: scale.slice,
        margin: 0.0,
        runs: runs
            .iter()
            .zip(counts)
            .map(|(&(n, blocks, slice_blocks), [wide, narrow])| SliceRun {
                n,
                blocks,
                slice_blocks,
                probed,
                wide,
                narrow,
                judged: None,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests;
