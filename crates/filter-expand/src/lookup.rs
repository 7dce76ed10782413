//! The lookup paths: one key's places computed once per level, the large stages' buckets
//! prefetched, then the stages probed newest first; the batch form keeps the places of the keys
//! ahead in a ring.

use crate::stage::{Place, Stage};
use crate::ExpandableCuckoo;
use filter_core::{Filter, Hash128, Prefetch, PREFETCH_AHEAD};

/// Levels whose places a lookup keeps on the stack (a filter grown `2^24` times past its first
/// stage; beyond, on the heap): zeroing room for all [`math::MAX_STAGES`](crate::math::MAX_STAGES) levels cost every
/// lookup a 1.5 KiB memset. The unit tests take 4, so that both paths run there.
const STACK_LEVELS: usize = if cfg!(test) { 4 } else { 24 };

/// Levels of the smaller stack array, taken first (a filter grown up to `2^12` times past its
/// first stage): half the room of [`STACK_LEVELS`] to zero. The unit tests take 2, so that all
/// three paths run there.
const SHORT_LEVELS: usize = if cfg!(test) { 2 } else { 12 };

/// Stages whose table is at least this large are prefetched by the batch methods; smaller ones
/// stay in cache.
const PREFETCH_STAGE_BYTES: usize = 1 << 16;

/// Whether the lookups prefetch a stage's buckets: it holds entries and is too large to stay in
/// cache.
#[inline]
fn prefetched(s: &Stage) -> bool {
    s.len > 0 && s.table.len() >= PREFETCH_STAGE_BYTES
}

impl ExpandableCuckoo {
    /// [`Filter::contains_hash`]: the places of every level on the stack (or, past
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
        self.prefetch_places(places);
        self.probe_places(places)
    }

    /// [`Filter::contains_hash_batch`]: the places of the keys [`PREFETCH_AHEAD`] ahead in a
    /// ring, prefetched when computed and probed from the ring.
    #[inline]
    pub(crate) fn lookup_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        out.clear();
        out.reserve(hashes.len());
        let levels = self.levels();
        if !filter_core::worth_prefetching(self.size_in_bytes(), self.lines_per_key()) {
            out.extend(hashes.iter().map(|&h| self.lookup(h)));
            return;
        }
        let mut ring = vec![Place::default(); PREFETCH_AHEAD * levels];
        let at = |i: usize| (i % PREFETCH_AHEAD) * levels..(i % PREFETCH_AHEAD + 1) * levels;
        for (i, &h) in hashes.iter().enumerate().take(PREFETCH_AHEAD) {
            self.layout.fill_places(h, &mut ring[at(i)]);
            self.prefetch_places(&ring[at(i)]);
        }
        for i in 0..hashes.len() {
            out.push(self.probe_places(&ring[at(i)]));
            if let Some(&next) = hashes.get(i + PREFETCH_AHEAD) {
                self.layout.fill_places(next, &mut ring[at(i)]);
                self.prefetch_places(&ring[at(i)]);
            }
        }
    }

    /// Levels `0..=` the newest stage's: the places a lookup needs.
    #[inline]
    fn levels(&self) -> usize {
        self.stages.last().map_or(0, |s| s.index as usize + 1)
    }

    /// Prefetches the key's buckets (`places`, by level) in the large stages that hold entries,
    /// newest first.
    #[inline]
    fn prefetch_places(&self, places: &[Place]) {
        for s in self.stages.iter().rev().filter(|s| prefetched(s)) {
            s.prefetch(places[s.index as usize]);
        }
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
        let large = self.stages.iter().filter(|s| prefetched(s));
        (2 * large.count()).max(1) as u32
    }

    fn prefetch_hash(&self, hash: Hash128) {
        for (s, p) in self.stage_places(hash).filter(|(s, _)| prefetched(s)) {
            s.prefetch(p);
        }
    }
}
