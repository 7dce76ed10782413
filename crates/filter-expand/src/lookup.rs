//! The lookup paths: one key's places computed once per level, the large stages' buckets
//! prefetched, then the stages probed newest first; the batch form keeps the places of the keys
//! ahead in a ring, prefetching only the stages too large for the per-core caches, as many keys
//! ahead as keeps about [`LINES_IN_FLIGHT`] lines requested.

use crate::stage::{Place, Stage};
use crate::ExpandableCuckoo;
use filter_core::{Hash128, Prefetch, PREFETCH_AHEAD, PREFETCH_MIN_BYTES};
use std::cell::RefCell;

/// Levels whose places a lookup keeps on the stack (a filter grown `2^24` times past its first
/// stage; beyond, on the heap): zeroing room for all [`math::MAX_STAGES`](crate::math::MAX_STAGES) levels cost every
/// lookup a 1.5 KiB memset. The unit tests take 4, so that both paths run there.
const STACK_LEVELS: usize = if cfg!(test) { 4 } else { 24 };

/// Levels of the smaller stack array, taken first (a filter grown up to `2^12` times past its
/// first stage): half the room of [`STACK_LEVELS`] to zero. The unit tests take 2, so that all
/// three paths run there.
const SHORT_LEVELS: usize = if cfg!(test) { 2 } else { 12 };

/// Stages whose table is at least this large are prefetched by a single lookup (and by the
/// batch inserts, through [`Prefetch`]); smaller ones stay in cache.
const PREFETCH_STAGE_BYTES: usize = 1 << 16;

/// Stages whose table is at least this large are prefetched by the batch lookups: the
/// threshold of [`filter_core::worth_prefetching`] for filters of 1 or 2 lines per key. The
/// stages below it together take less than it (each stage doubles the one before), so they
/// stay in a 2 MiB per-core L2 between keys; prefetching them (at 64 KiB, 9 of the 14 stages of
/// a filter grown to 10M keys, 18 lines per key) only queued lines behind the misses that matter.
const BATCH_STAGE_BYTES: usize = PREFETCH_MIN_BYTES;

/// Cache lines the batch lookups aim to have requested ahead of the key being probed: a core
/// keeps only about 10 to 20 line misses in flight (its fill buffers), and prefetches beyond
/// that wait in line, so with `L` lines per key the ring runs `LINES_IN_FLIGHT / L` keys ahead
/// (at least 2, at most [`PREFETCH_AHEAD`]) instead of a fixed [`PREFETCH_AHEAD`], which asked
/// for 288 lines ahead at 18 lines per key.
const LINES_IN_FLIGHT: usize = 24;

/// Most keys ahead [`ExpandableCuckoo::contains_hash_batch_ahead`] accepts (larger requests are
/// clamped): bounds its ring at `MAX_AHEAD` keys' places.
const MAX_AHEAD: usize = 64;

thread_local! {
    /// The batch lookups' ring of places, kept between calls (grown, never shrunk).
    static RING: RefCell<Vec<Place>> = const { RefCell::new(Vec::new()) };
}

/// Whether the lookups prefetch a stage's buckets: it holds entries and its table has at least
/// `min_bytes` ([`PREFETCH_STAGE_BYTES`] one key at a time, [`BATCH_STAGE_BYTES`] in batches),
/// too large to stay in cache.
#[inline]
fn prefetched(s: &Stage, min_bytes: usize) -> bool {
    s.len > 0 && s.table.len() >= min_bytes
}

impl ExpandableCuckoo {
    /// [`Filter::contains_hash`](filter_core::Filter::contains_hash): the places of every level on the stack (or, past
    /// [`STACK_LEVELS`], the heap), prefetched, then probed.
    #[inline]
    pub(crate) fn lookup(&self, hash: Hash128) -> bool {
        let levels = self.levels();
        if levels <= SHORT_LEVELS {
            self.lookup_in(hash, &mut [Place::default(); SHORT_LEVELS][..levels])
        } else if levels <= STACK_LEVELS {
            self.lookup_in(hash, &mut [Place::default(); STACK_LEVELS][..levels])
        } else {
            self.lookup_in(hash, &mut vec![Place::default(); levels])
        }
    }

    /// [`Self::lookup`] with room for the places of every level.
    #[inline]
    fn lookup_in(&self, hash: Hash128, places: &mut [Place]) -> bool {
        self.layout.fill_places(hash, places);
        self.prefetch_stages(places, PREFETCH_STAGE_BYTES);
        self.probe_places(places)
    }

    /// [`Filter::contains_hash_batch`](filter_core::Filter::contains_hash_batch): the pipeline of [`Self::contains_hash_batch_ahead`] at
    /// the depth and stage threshold of [`Self::batch_plan`].
    #[inline]
    pub(crate) fn lookup_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        let (ahead, min_stage_bytes) = self.batch_plan();
        self.contains_hash_batch_ahead(hashes, out, ahead, min_stage_bytes);
    }

    /// The batch lookup's plan, `(keys ahead, stage bytes)`: the stages of at least
    /// [`BATCH_STAGE_BYTES`] that hold entries are prefetched (2 lines each) for the key `ahead`
    /// positions later, `ahead = clamp(LINES_IN_FLIGHT / lines per key, 2, PREFETCH_AHEAD)`, so
    /// that about [`LINES_IN_FLIGHT`] lines are requested ahead whatever the number of stages;
    /// `ahead = 0` (no prefetching) when no stage is that large. Not a stable API: the
    /// `expand_batch` example times other plans against it.
    #[doc(hidden)]
    pub fn batch_plan(&self) -> (usize, usize) {
        let lines = 2 * self.prefetched_stages(BATCH_STAGE_BYTES);
        let ahead = match lines {
            0 => 0,
            _ => (LINES_IN_FLIGHT / lines).clamp(2, PREFETCH_AHEAD),
        };
        (ahead, BATCH_STAGE_BYTES)
    }

    /// Stages holding entries whose table has at least `min_stage_bytes`.
    fn prefetched_stages(&self, min_stage_bytes: usize) -> usize {
        let big = |s: &&Stage| prefetched(s, min_stage_bytes);
        self.stages.iter().filter(big).count()
    }

    /// [`Filter::contains_hash_batch`](filter_core::Filter::contains_hash_batch) with an explicit pipeline, for measurements: the places
    /// of the key `ahead` positions later (clamped to [`MAX_AHEAD`]; 0: no pipeline, one key
    /// at a time as [`Filter::contains_hash`](filter_core::Filter::contains_hash)) are computed into a ring and the buckets of its
    /// stages of at least `min_stage_bytes` that hold entries are prefetched; each key is then
    /// probed from the ring, newest stage first, stopping at the first match. The answers are
    /// those of [`Filter::contains_hash`](filter_core::Filter::contains_hash) for every `ahead` and `min_stage_bytes`. Not a stable
    /// API.
    #[doc(hidden)]
    pub fn contains_hash_batch_ahead(
        &self,
        hashes: &[Hash128],
        out: &mut Vec<bool>,
        ahead: usize,
        min_stage_bytes: usize,
    ) {
        out.clear();
        out.reserve(hashes.len());
        let (ahead, levels) = (ahead.min(MAX_AHEAD), self.levels());
        if ahead == 0 || levels == 0 || hashes.is_empty() {
            out.extend(hashes.iter().map(|&h| self.lookup(h)));
            return;
        }
        let pipeline = |ring: &mut Vec<Place>, out: &mut Vec<bool>| {
            if ring.len() < ahead * levels {
                ring.resize(ahead * levels, Place::default());
            }
            let ring = &mut ring[..ahead * levels];
            self.pipeline(hashes, out, ring, levels, min_stage_bytes);
        };
        // The ring outlives the call (one per thread), so it is neither allocated nor zeroed
        // per batch; a nested call (none today) would take a ring of its own.
        RING.with(|ring| match ring.try_borrow_mut() {
            Ok(mut ring) => pipeline(&mut ring, out),
            Err(_) => pipeline(&mut Vec::new(), out),
        });
    }

    /// The loop of [`Self::contains_hash_batch_ahead`]: `ring` holds `ring.len() / levels`
    /// keys' places (`ahead`), slot `i mod ahead` those of key `i`, the slot counted rather
    /// than divided.
    #[inline]
    fn pipeline(
        &self,
        hashes: &[Hash128],
        out: &mut Vec<bool>,
        ring: &mut [Place],
        levels: usize,
        min_stage_bytes: usize,
    ) {
        let ahead = ring.len() / levels;
        for (slot, &h) in ring.chunks_exact_mut(levels).zip(hashes) {
            self.layout.fill_places(h, slot);
            self.prefetch_stages(slot, min_stage_bytes);
        }
        let mut at = 0;
        for (i, _) in hashes.iter().enumerate() {
            let slot = &mut ring[at * levels..(at + 1) * levels];
            out.push(self.probe_places(slot));
            if let Some(&next) = hashes.get(i + ahead) {
                self.layout.fill_places(next, slot);
                self.prefetch_stages(slot, min_stage_bytes);
            }
            at = if at + 1 == ahead { 0 } else { at + 1 };
        }
    }

    /// Prefetches the key's buckets (`places`, by level) in the stages of at least
    /// `min_stage_bytes` that hold entries, newest first. Tables never shrink along the list
    /// (levels and widths never decrease), so the walk stops at the first smaller one instead
    /// of testing every stage for every key.
    #[inline]
    fn prefetch_stages(&self, places: &[Place], min_stage_bytes: usize) {
        let large = |s: &&Stage| s.table.len() >= min_stage_bytes;
        for s in self.stages.iter().rev().take_while(large) {
            if s.len > 0 {
                s.prefetch(places[s.index as usize]);
            }
        }
    }

    /// Levels `0..=` the newest stage's: the places a lookup needs.
    #[inline]
    fn levels(&self) -> usize {
        self.stages.last().map_or(0, |s| s.index as usize + 1)
    }

    /// Whether a stage holding entries stores the key's identity (`places`, by level), newest
    /// stage first.
    #[inline]
    fn probe_places(&self, places: &[Place]) -> bool {
        self.stages
            .iter()
            .rev()
            .any(|s| s.len > 0 && s.has(places[s.index as usize]))
    }
}

/// A key touches two buckets in every stage; the batch methods prefetch those of the large
/// stages (the small ones stay in cache), so the misses of all stages overlap.
impl Prefetch for ExpandableCuckoo {
    fn lines_per_key(&self) -> u32 {
        (2 * self.prefetched_stages(PREFETCH_STAGE_BYTES)).max(1) as u32
    }

    fn prefetch_hash(&self, hash: Hash128) {
        for (s, p) in self
            .stage_places(hash)
            .filter(|(s, _)| prefetched(s, PREFETCH_STAGE_BYTES))
        {
            s.prefetch(p);
        }
    }
}
