//! Sizing and construction: the layout formulas of Graf & Lemire (2022, §4) and the peeling of
//! the 3-uniform hypergraph, with a new seed (and, after a few failures, more room) until it
//! peels.

use crate::{derive, fingerprint_of, positions, BinaryFuse, Fingerprint};
use filter_core::static_filter::construction_seed as seed_for;
use filter_core::{try_zeroed_table, Error, Hash128, KeyHasher, Pages, Result, Table};
use std::marker::PhantomData;

pub use filter_core::math::fuse::{Layout, MAX_KEYS, MAX_SEGMENT_LENGTH};

/// Seeds tried before the construction gives up: the bound that makes the loop terminate. It
/// is never reached in practice (see the crate's "Construction never fails"): once each fresh
/// hypergraph peels with probability at least 1/2, the remaining attempts all fail with a
/// probability below 2^-900 in the model of independent uniform hashes.
pub const MAX_ATTEMPTS: u32 = 1000;

/// Failed seeds after which one more segment is added to the array (the growth fallback: after
/// `8 j` failures the array has `j` segments more than the paper's sizing).
pub const ATTEMPTS_PER_BUMP: u32 = 8;

/// Settings of a [`BinaryFuse`] build: hasher and page advice (the rate is the fingerprints',
/// `2^-F::BITS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinaryFuseBuilder<F> {
    hasher: KeyHasher,
    pages: Pages,
    width: PhantomData<F>,
}

impl<F> Default for BinaryFuseBuilder<F> {
    /// xxh3-128 with seed 0, huge pages advised.
    fn default() -> Self {
        BinaryFuseBuilder {
            hasher: KeyHasher::default(),
            pages: Pages::Huge,
            width: PhantomData,
        }
    }
}

impl<F: Fingerprint> BinaryFuseBuilder<F> {
    filter_core::setters! {
        /// Hash function and seed (default: xxh3-128, seed 0).
        hasher(hasher: KeyHasher) => hasher;
    }

    filter_core::pages_setter!(only);

    /// Builds from key hashes computed with this builder's hasher (repeats stored once).
    ///
    /// # Errors
    /// Memory that cannot be allocated, or [`Error::Full`] after [`MAX_ATTEMPTS`] seeds.
    ///
    /// The first seed is tried on the keys as given, unsorted: a peeling that succeeds proves
    /// them distinct (two equal keys are two edges on the same three slots, and neither can
    /// ever be the only key left on a slot), and its result does not depend on the keys' order
    /// (the per-slot counts and XORs are sums). Only when it fails are the keys sorted and
    /// deduplicated, and the seeds then go on as if they had been from the start (from the
    /// first again when repeats were dropped), so the filter is the one a sort-first build
    /// gives, bit for bit. The sort was a third of the build's instructions at 1M distinct
    /// keys (callgrind); input with repeats pays one peeling more instead.
    pub fn build_from_hashes(&self, hashes: &[Hash128]) -> Result<BinaryFuse<F>> {
        let mut keys = key_values(hashes)?;
        match BinaryFuse::build(&keys, self.hasher, self.pages, 0..1) {
            Err(Error::Full { .. }) => {}
            built => return built,
        }
        let given = keys.len();
        keys.sort_unstable();
        keys.dedup();
        let first = u32::from(keys.len() == given);
        BinaryFuse::build(&keys, self.hasher, self.pages, first..MAX_ATTEMPTS)
    }

    /// Builds from key bytes.
    ///
    /// # Errors
    /// As [`BinaryFuseBuilder::build_from_hashes`].
    pub fn build_from_keys(&self, keys: &[&[u8]]) -> Result<BinaryFuse<F>> {
        let hashes: Vec<Hash128> = keys.iter().map(|k| self.hasher.hash(k)).collect();
        self.build_from_hashes(&hashes)
    }
}

/// The 64-bit values a filter is built from, one per key hash, in the hashes' order.
fn key_values(hashes: &[Hash128]) -> Result<Vec<u64>> {
    let mut keys = filter_core::try_filled(hashes.len(), 0u64, "binary fuse key hashes")?;
    for (k, h) in keys.iter_mut().zip(hashes) {
        *k = crate::key_of(*h);
    }
    Ok(keys)
}

/// The attempt (from 0) whose seed a filter was built with, for the tests' tallies.
#[cfg(test)]
pub(crate) fn attempt_of(seed: u64) -> Option<u32> {
    (0..MAX_ATTEMPTS).find(|&a| seed_for(a) == seed)
}

/// The working memory of one peeling, reused across attempts; its per-slot tables advised as
/// the build's page option says.
pub(crate) struct Scratch {
    /// Per slot: keys touching it, times 4, plus (mod 4) the XOR of the positions (0, 1, 2)
    /// those keys give the slot. When one key is left the low bits say which of its slots this is.
    count: Table<u32>,
    /// Per slot: the XOR of the derived hashes of the keys touching it.
    xor: Table<u64>,
    /// Slots with exactly one key, to peel.
    queue: Vec<u32>,
    /// Peeled keys in order, with the position of the slot they were peeled from.
    stack: Vec<(u64, u8)>,
}

impl Scratch {
    pub(crate) fn new(layout: Layout, n: usize, pages: Pages) -> Result<Self> {
        let slots = layout.array_length as usize;
        let mut queue = Vec::new();
        queue
            .try_reserve_exact(slots)
            .map_err(|_| Error::OutOfMemory {
                what: "binary fuse construction queue",
                bytes: slots as u64 * 4,
            })?;
        let mut stack = Vec::new();
        stack.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
            what: "binary fuse construction stack",
            bytes: n as u64 * 16,
        })?;
        Ok(Scratch {
            count: try_zeroed_table(slots, pages, "binary fuse construction counts")?,
            xor: try_zeroed_table(slots, pages, "binary fuse construction hashes")?,
            queue,
            stack,
        })
    }

    /// Peels the hypergraph of `keys` under `seed`; true when every key was peeled.
    pub(crate) fn peel(&mut self, keys: &[u64], seed: u64, layout: Layout) -> bool {
        self.count.fill(0);
        self.xor.fill(0);
        self.queue.clear();
        self.stack.clear();
        for &k in keys {
            let d = derive(k, seed);
            for (pos, slot) in positions(d, layout).into_iter().enumerate() {
                let s = slot as usize;
                self.count[s] = (self.count[s] + 4) ^ pos as u32;
                self.xor[s] ^= d;
            }
        }
        self.queue
            .extend((0..layout.array_length).filter(|&s| self.count[s as usize] >> 2 == 1));
        while let Some(slot) = self.queue.pop() {
            let s = slot as usize;
            if self.count[s] >> 2 != 1 {
                continue; // its last key was peeled from another of its slots
            }
            let d = self.xor[s];
            let found = (self.count[s] & 3) as usize;
            self.stack.push((d, found as u8));
            let slots = positions(d, layout);
            for step in 1..=2 {
                let pos = (found + step) % 3;
                let o = slots[pos] as usize;
                self.xor[o] ^= d;
                self.count[o] = (self.count[o] - 4) ^ pos as u32;
                if self.count[o] >> 2 == 1 {
                    self.queue.push(o as u32);
                }
            }
            self.count[s] = 0;
        }
        self.stack.len() == keys.len()
    }
}

impl<F: Fingerprint> BinaryFuse<F> {
    /// Builds the filter from distinct keys: tries seeds until the hypergraph peels, then
    /// assigns fingerprints in the reverse of the peeling order (Graf & Lemire 2022, Alg. 3).
    ///
    /// The first [`ATTEMPTS_PER_BUMP`] seeds use the paper's layout; every further
    /// [`ATTEMPTS_PER_BUMP`] failures add one segment ([`Layout::for_keys`] with `bumps`), so a
    /// count at which the formulas leave too little room (the C library's 11,480–11,521) gets
    /// room instead of failing forever. At most [`MAX_ATTEMPTS`] peelings of `O(n + slots)`
    /// steps each: the loop terminates. The table and the scratch are advised as `pages` says.
    /// Only the `attempts` (a range of attempt numbers, within `0..MAX_ATTEMPTS`) are tried,
    /// each with its own seed and layout, so a build resumed at attempt `a` is the build that
    /// would have reached it.
    pub(crate) fn build(
        keys: &[u64],
        hasher: KeyHasher,
        pages: Pages,
        attempts: std::ops::Range<u32>,
    ) -> Result<Self> {
        let n = keys.len();
        let mut layout = Layout::for_keys(n as u64, attempts.start / ATTEMPTS_PER_BUMP)?;
        let mut scratch = Scratch::new(layout, n, pages)?;
        let first = attempts.start;
        for attempt in attempts {
            let bumps = attempt / ATTEMPTS_PER_BUMP;
            if attempt > first && attempt % ATTEMPTS_PER_BUMP == 0 {
                layout = Layout::for_keys(n as u64, bumps)?;
                scratch = Scratch::new(layout, n, pages)?;
            }
            let seed = seed_for(attempt);
            if !scratch.peel(keys, seed, layout) {
                continue;
            }
            let mut fingerprints =
                try_zeroed_table::<F>(layout.array_length as usize, pages, "binary fuse table")?;
            for &(d, found) in scratch.stack.iter().rev() {
                let slots = positions(d, layout);
                let found = usize::from(found);
                let others = fingerprints[slots[(found + 1) % 3] as usize]
                    ^ fingerprints[slots[(found + 2) % 3] as usize];
                fingerprints[slots[found] as usize] = fingerprint_of::<F>(d) ^ others;
            }
            return Ok(BinaryFuse {
                hasher,
                seed,
                layout,
                fingerprints,
                len: n as u64,
            });
        }
        Err(Error::Full {
            len: n as u64,
            load_factor: n as f64 / f64::from(layout.array_length),
        })
    }
}
