//! An expandable cuckoo filter: it grows without bound, deletes without ever creating a false
//! negative, and keeps its false-positive rate at or under its target at every size.
//!
//! The scalable Bloom filter (Almeida et al. 2007) grows by adding stages but cannot delete; the
//! cuckoo filter (Fan, Andersen, Kaminsky & Mitzenmacher 2014) deletes but refuses inserts when
//! full. Chaining cuckoo tables (the dynamic cuckoo filter, Chen et al. 2017) grows, but its
//! deletion removes a fingerprint from the first table that matches, which may be another key's
//! (a false positive for the deleted key there): that key then reads as absent. InfiniFilter
//! (Dayan et al., SIGMOD 2023) solves the problem inside one expanding table by deleting the
//! *longest* matching fingerprint, the one whose hash bits are a superset. This crate carries that
//! rule over to a list of cuckoo stages whose addresses nest.
//!
//! # Structure
//!
//! Stage `i` is a cuckoo table of `B_i = B0 · g^i` buckets (`g = 2^d`, the growth factor) of 4
//! slots holding `f_i`-bit fingerprints, `f_i = f0 + floor(i/k)` (one more bit every `k`
//! stages). Inserts go to the newest stage; when it holds its capacity (`3.8·B_i`, a 95% load),
//! a new stage is made (see "Full stages and duplicates" for a failed walk). A query asks
//! every stage. A deletion removes one matching entry from the **newest** stage that matches.
//!
//! # Nesting
//!
//! A key's *identity* in stage `i` is its fingerprint there and its (unordered) bucket pair; a
//! stage answers "maybe" for a key exactly when it stores an entry with the key's identity (the
//! alternate bucket is an involution computed from the fingerprint, so an entry with the key's
//! fingerprint in one of the key's buckets has the key's pair), and cuckoo moves keep an entry's
//! identity. The addresses are built so that **a key's identity in a newer stage determines its
//! identity in every older one**:
//!
//! * the fingerprint of stage `i` is the top `f_i` bits of the hash (0 stored as 1), so an older
//!   stage's fingerprint is a prefix of a newer one's (`f` never shrinks);
//! * the bucket is `floor(u · B_i)` for a uniform `u` from the hash, so with `B_i = B_j·2^(d(i-j))`
//!   the stage-`j` bucket is the stage-`i` bucket shifted right by `d(i-j)` bits;
//! * the alternate bucket is `alt_i(c) = alt_0(c >> d·i) << d·i | ((c XOR s_i) mod 2^(d·i))`,
//!   with `alt_0(a) = (h(fp_0) - a) mod B0` and `s_i` a string of `d`-bit digits, digit `j` a hash
//!   of the stage-`j` fingerprint. It is an involution, and `alt_i(c) >> d = alt_(i-1)(c >> d)`.
//!
//! So if two keys share an identity in stage `i`, they share one in every stage `j < i`.
//!
//! # Why no false negative, after any sequence of inserts and removals of inserted keys
//!
//! Account for the filter abstractly: each live copy of a key (inserted and not yet removed)
//! is *assigned* to one stage, and the entries of each stage, grouped by identity, are exactly
//! the identities of the copies assigned to it (as multisets). Then every live key is found: its
//! copy's stage stores an entry with its identity. The accounting holds initially (empty), and:
//!
//! * **insert** puts an entry with the key's identity into some stage; assign the new copy there.
//!   A failed cuckoo walk is undone exactly, and a new, empty stage always takes the key;
//! * **cuckoo moves** inside a stage change no entry's identity; **growth** adds an empty stage;
//! * **remove** of a live key `x`: `x` has a copy assigned to some stage `j`, which answers
//!   "maybe", so the newest stage answering "maybe", `i`, satisfies `i >= j`. One entry with
//!   `x`'s identity is removed from `i`; let `y` be the key of a copy assigned there with that
//!   identity (one exists by the accounting). If `y = x`, drop that copy. Otherwise `y` shares
//!   `x`'s identity in stage `i`, hence (nesting, `j <= i`) in stage `j`: reassign `x`'s copy in
//!   `j` to `y` and drop `y`'s copy in `i`. Either way `x` lost one copy, every other key kept
//!   its count, and the entries still equal the assigned identities.
//!
//! Removing from the *first* matching stage instead would be wrong: identities of older stages
//! do not determine newer ones (a test shows keys lost that way). Nor can the first-match rule be
//! rescued by inserting each key into the first stage that already answers "maybe" for it (so
//! that a key's copies sit where the first match looks): a closed stage `j` would then take a
//! fraction `p_j` of every later insert, `p_j·n` entries for `n` keys, far past its capacity once
//! the filter has grown a few times. (Removing a key that was never inserted may erase another
//! key's entry, as in every deletable filter: the [`Deletable`] contract forbids it.)
//!
//! The proof uses only this of the stage list: along it, levels (the `i` of the shapes above)
//! never decrease. A merge ([`ExpandableCuckoo::merge`]) relies on it to put two stages at one
//! level.
//!
//! # Full stages and duplicates
//!
//! The proof lets an insert use *any* stage, so no placement can create a false negative. An
//! insert tries the newest stage; if it is at capacity or its cuckoo walk fails (the walk is
//! then undone exactly), the older stages below capacity, newest first; and only then makes a
//! new stage, which, empty, always takes the key. A bucket pair holds at most 8 entries, so a
//! stage takes at most 8 copies of one key. When the newest stage's pair is full of the key's
//! own copies, the insert is refused with [`Error::TooManyCopies`] rather than given a new
//! stage: a new stage for every further 8 copies would double the memory every 8 inserts of
//! one key. So a key holds at most 8 copies per stage (older stages below capacity may hold
//! some), and stages are made only as other keys fill them (a workload of heavy duplicates
//! wants a counting filter, or `insert_if_absent`). Nothing is ever dropped: an insert either
//! places the key or returns an error ([`Error::TooManyCopies`], [`Error::MemoryCap`],
//! [`Error::OutOfMemory`], [`Error::SizeOverflow`] past the address limit) and leaves the
//! filter exactly as it was. No stage ever holds more than its capacity,
//! so the rate bound below holds whichever stage takes a key.
//!
//! # Space
//!
//! A full stage takes `f_i / 0.95` bits per key (4 slots of `f_i` bits per bucket, 95% load).
//! The newest stage is allocated whole when the previous one fills, so just after growth `i`
//! (growth 2) the filter takes `(2^(i+1) - 1)/(2^i - 1)` times that: 3 times after the first
//! growth, about twice after a few. Grown from 1,000 to 255,812 keys at 1% (eight full stages,
//! 14-bit fingerprints) it takes 14.74 bits per key; at 10M keys, where the fourteenth stage
//! is 22% full, 25.9 ([`math::bits_per_key`]; the scalable Bloom filter grown the same way
//! sits at the same place in its newest stage). The peaks, just after each growth: 44.3 at
//! 1,004 keys, 34.4 at 3,010, then between 29.5 and 31.7 up to 10M (31.5 at 8.2M); the
//! troughs, all stages full, 14.74 to 15.77. Widths never shrink along the list and 14 stages
//! of 13 bits (10M keys need 14) already bound the rate above 1%, so the newest stages, which
//! hold nearly every key, need at least 14 bits: even with no empty space, about
//! `14/0.95 = 14.7` bits per key at 10M.
//!
//! ```
//! use filter_expand::ExpandableCuckoo;
//! use filter_core::{Deletable, Filter, Growable};
//!
//! let mut sessions = ExpandableCuckoo::builder().capacity(1_000).fpr(0.01).build()?;
//! for i in 0..20_000 {
//!     sessions.insert(format!("token-{i}").as_bytes())?;
//! }
//! sessions.remove(b"token-7")?;
//! assert!(sessions.stages() > 1);
//! assert!(sessions.contains(b"token-8"));
//! assert!(sessions.expected_fpr() <= sessions.fpr_bound() && sessions.fpr_bound() <= 0.01);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(13, "expandable");

mod codec;
mod explain;
mod lookup;
/// The formulas, kept in `filter_core::math` beside every other variant's.
pub use filter_core::math::expandable as math;
mod merge;
mod stage;

use filter_core::{
    accept_if, Deletable, Error, FileKind, Filter, Growable, Hash128, KeyHasher, MemoryCap, Pages,
    Result, Sizing, TableOptions,
};
use math::SLOTS;
use stage::{Layout, Place, Stage};

/// Default growth factor: each stage has twice the buckets of the previous one.
pub const DEFAULT_GROWTH: u32 = 2;
/// Default tightening period `k`: one more fingerprint bit every 8 stages. At 1%, grown from
/// 1,000 to 10M keys ([`math::bits_per_key`]), it takes 25.92 bits per key, within 0.8% of the
/// best period (11: 25.73, with the bound at 0.0097, little room left) and far under the worst
/// (1: 39.8; 4: 27.2); no schedule the proof allows takes fewer than 24.20 (see the module docs
/// of [`math`], "How tight the schedule is").
pub const DEFAULT_PERIOD: u32 = 8;
pub use filter_core::{DEFAULT_MAX_KICKS, MAX_KICKS};
/// Most stages in one filter (merges may put several at one level).
pub const MAX_STAGE_LIST: usize = 256;
/// Largest growth factor accepted.
pub const MAX_GROWTH: u32 = 16;

/// An expandable cuckoo filter (see the crate docs).
///
/// # False-positive rate
///
/// Stage `i` with `n_i` entries answers "maybe" for a key never inserted with probability
/// `p_i` = [`math::stage_fpr`]`(f_i, B_i, n_i)`; the filter's rate is the compound
/// `1 - Π(1 - p_i)` ([`Filter::expected_fpr`]), and
///
/// ```text
/// 1 - Π(1 - p_i) <= Σ p_i <= Σ_i 7.6·q(f_i) = fpr_bound() <= target
/// ```
///
/// over every stage the filter can ever have (derivation in [`math`]).
///
/// ```
/// use filter_expand::ExpandableCuckoo;
/// use filter_core::{testkit, Filter, Growable, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 3)?;
/// let mut f = ExpandableCuckoo::builder().capacity(2_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 30_000)?;
/// let theory = f.expected_fpr();
/// testkit::assert_others_fpr("expandable", &f, 200_000, theory);
/// assert!(theory <= f.fpr_bound() && f.fpr_bound() <= 0.01);
/// # Ok::<(), filter_core::Error>(())
/// ```
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug, PartialEq)]
pub struct ExpandableCuckoo {
    stages: Vec<Stage>,
    layout: Layout,
    sizing: Sizing,
    max_kicks: u32,
    len: u64,
    /// Not saved: the memory cap (a runtime policy of this process, see
    /// [`Growable::set_max_bytes`]) and page advice of the stages this filter allocates.
    options: TableOptions,
}

/// Builds an [`ExpandableCuckoo`].
#[derive(Clone, Debug)]
pub struct ExpandableBuilder {
    sizing: Sizing,
    growth: u32,
    period: u32,
    max_kicks: u32,
    cap: MemoryCap,
    pages: Pages,
}

impl Default for ExpandableBuilder {
    fn default() -> Self {
        ExpandableBuilder {
            sizing: Sizing::default(),
            growth: DEFAULT_GROWTH,
            period: DEFAULT_PERIOD,
            max_kicks: DEFAULT_MAX_KICKS,
            cap: MemoryCap::NONE,
            pages: Pages::default(),
        }
    }
}

impl ExpandableBuilder {
    filter_core::table_builder_setters!();

    filter_core::setters! {
        /// Growth factor: each new stage has this many times the previous one's buckets. A
        /// power of two from 2 to 16 (the addresses nest by bit shifts).
        growth(factor: u32) => growth;
        /// Tightening period `k` (1 to 64): stage `i` has `f0 + floor(i/k)` fingerprint bits.
        tightening_period(k: u32) => period;
        /// Bounds the evictions one insert into a stage may make (1 to [`MAX_KICKS`]).
        max_kicks(kicks: u32) => max_kicks;
    }

    /// Builds the filter with its first stage, sized for `capacity` items.
    ///
    /// # Errors
    /// A capacity of 0; a rate outside (0, 1) or below about 1e-14; a growth that is not a
    /// power of two in 2..=16; a period outside 1..=64; kicks outside 1..=[`MAX_KICKS`]; a
    /// first stage above the memory cap or too large to allocate.
    pub fn build(self) -> Result<ExpandableCuckoo> {
        let d = growth_bits(self.growth)?;
        let mut f = ExpandableCuckoo::validated(self.sizing, d, self.period, self.max_kicks)?;
        f.options = self.table_options();
        f.stages.push(Stage::new(&f.layout, 0, f.options, 0)?);
        Ok(f)
    }
}

/// `d` for a growth factor `2^d`.
fn growth_bits(factor: u32) -> Result<u32> {
    let ok = factor.is_power_of_two() && (2..=MAX_GROWTH).contains(&factor);
    let expected = "a power of two from 2 to 16 (2 doubles each new stage)";
    accept_if(ok, "growth", factor, expected).map(u32::trailing_zeros)
}

fn check_period(k: u32) -> Result<u32> {
    let expected = "1 to 64 stages per extra fingerprint bit (8 is the default)";
    accept_if((1..=64).contains(&k), "tightening_period", k, expected)
}

impl ExpandableCuckoo {
    /// A builder; defaults to one million items at 1%, growth 2, period 8.
    pub fn builder() -> ExpandableBuilder {
        ExpandableBuilder::default()
    }

    /// A filter without stages, after the one validation the builder and the loader share.
    fn validated(sizing: Sizing, d: u32, period: u32, max_kicks: u32) -> Result<Self> {
        let sizing = sizing.validate()?;
        let period = check_period(period)?;
        let b0 = math::initial_buckets(sizing.capacity);
        let stages = math::possible_stages(b0, d);
        if stages == 0 {
            return Err(Error::SizeOverflow {
                what: "expandable filter",
                hint: format!("{} items need too many buckets", sizing.capacity),
            });
        }
        let f0 = math::initial_fingerprint_bits(sizing.fpr, period, stages)?;
        Ok(ExpandableCuckoo {
            stages: Vec::new(),
            layout: Layout { b0, d, f0, period },
            sizing,
            max_kicks: filter_core::check_max_kicks(max_kicks)?,
            len: 0,
            options: TableOptions::default(),
        })
    }

    /// The growth factor `2^d`.
    pub fn growth(&self) -> u32 {
        1 << self.layout.d
    }

    /// The tightening period `k`.
    pub fn tightening_period(&self) -> u32 {
        self.layout.period
    }

    /// Fingerprint bits of the first stage, `f0`.
    pub fn initial_fingerprint_bits(&self) -> u32 {
        self.layout.f0
    }

    /// The bound on evictions per insert.
    pub fn max_kicks(&self) -> u32 {
        self.max_kicks
    }

    /// `(buckets, fingerprint bits, capacity, entries)` of each stage, oldest first.
    pub fn stage_shapes(&self) -> Vec<(u64, u32, u64, u64)> {
        self.stages
            .iter()
            .map(|s| (s.buckets, s.fp_bits(), s.capacity, s.len))
            .collect()
    }

    /// A seed for the eviction walk, from the key's hash (deterministic).
    fn walk_seed(hash: Hash128) -> u64 {
        hash.lo ^ hash.hi.rotate_left(32) ^ 0x2545_f491_4f6c_dd1d
    }

    /// The key's place in stage `i` (which exists).
    fn place(&self, hash: Hash128, i: usize) -> Place {
        let level = self.stages[i].index as usize;
        self.layout
            .places(hash)
            .nth(level)
            .expect("an existing stage")
    }

    /// Each stage, in list order, with the key's place at that stage's level. Levels never
    /// decrease along the list (a merge may leave two stages at one level), so the places are
    /// computed once per level, incrementally.
    fn stage_places(&self, hash: Hash128) -> impl Iterator<Item = (&Stage, Place)> + '_ {
        let mut places = self.layout.places(hash);
        let mut current: Option<(u32, Place)> = None;
        self.stages.iter().map(move |s| {
            while current.map(|(level, _)| level) != Some(s.index) {
                let level = current.map_or(0, |(level, _)| level + 1);
                current = Some((level, places.next().expect("an addressable level")));
            }
            (s, current.expect("set above").1)
        })
    }

    /// Puts the key into stage `i` if it is below capacity and its walk succeeds; `false` with
    /// nothing changed otherwise.
    fn try_stage(&mut self, i: usize, hash: Hash128) -> bool {
        let stage = &self.stages[i];
        if stage.len >= stage.capacity {
            return false;
        }
        let p = self.place(hash, i);
        let (layout, kicks) = (self.layout, self.max_kicks);
        self.stages[i].insert(&layout, p, kicks, Self::walk_seed(hash))
    }

    /// [`Error::TooManyCopies`] when the newest stage's bucket pair for the key holds nothing
    /// but entries with the key's identity. A new stage would take the copy, but so would the
    /// next one for every further 8 copies: memory would double every 8 inserts of one key.
    /// Refusing bounds a key's copies by 8 per stage, and stages are made only when other keys
    /// fill them.
    fn copies_refused(&self, hash: Hash128) -> Result<()> {
        let Some(newest) = self.stages.len().checked_sub(1) else {
            return Ok(());
        };
        let p = self.place(hash, newest);
        let slots = if p.alt == p.c { SLOTS } else { 2 * SLOTS };
        if self.stages[newest].count(p) >= slots {
            return Err(Error::TooManyCopies { copies: slots });
        }
        Ok(())
    }

    /// Adds a new, empty stage, or fails with nothing changed.
    fn grow(&mut self) -> Result<()> {
        let used = self.size_in_bytes() as u64;
        let level = self.stages.last().map_or(0, |s| s.index + 1);
        if self.stages.len() >= MAX_STAGE_LIST {
            return Err(Error::SizeOverflow {
                what: "expandable filter",
                hint: format!("{MAX_STAGE_LIST} stages; rebuild it with a larger capacity"),
            });
        }
        let stage = Stage::new(&self.layout, level, self.options, used)?;
        self.stages.try_reserve(1).map_err(|_| Error::OutOfMemory {
            what: "stage list",
            bytes: std::mem::size_of::<Stage>() as u64,
        })?;
        self.stages.push(stage);
        Ok(())
    }
}

impl Filter for ExpandableCuckoo {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        if self.len == u64::MAX {
            return Err(Error::TooManyItems { limit: u64::MAX });
        }
        // Newest stage first; if it is at capacity or its walk fails (undone), an older stage
        // below capacity; else a new stage, which, empty, always takes the key, unless the
        // newest stage's bucket pair is full of the key's own copies (see `copies_refused`).
        for i in (0..self.stages.len()).rev() {
            if self.try_stage(i, hash) {
                self.len += 1;
                return Ok(());
            }
        }
        self.copies_refused(hash)?;
        self.grow()?;
        let placed = self.try_stage(self.stages.len() - 1, hash);
        debug_assert!(placed, "an empty stage takes any key");
        self.len += 1;
        Ok(())
    }

    /// Every level's place is computed first, the buckets of the large stages that hold entries
    /// are prefetched, newest (largest) first, so that their misses overlap, and then the stages
    /// that hold entries are probed newest first (most keys live in the newest, largest stages,
    /// so a member is found early; an empty stage cannot answer "maybe").
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.lookup(hash)
    }

    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        filter_core::insert_hash_batch_prefetched(self, hashes)
    }

    /// The places of the key a few positions ahead are computed once, kept in a ring (one per
    /// thread, reused) and its buckets in the stages too large for the per-core caches
    /// prefetched; the key's own are then probed from the ring (the pipeline of
    /// [`filter_core::lookup_pipelined`] without computing each key's places twice). The depth
    /// shrinks as the prefetched stages grow in number, so that the lines requested ahead stay
    /// about what a core keeps in flight.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        self.lookup_batch(hashes, out)
    }

    fn hasher(&self) -> KeyHasher {
        self.sizing.hasher
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn capacity(&self) -> u64 {
        self.stages.iter().map(|s| s.capacity).sum()
    }

    fn size_in_bytes(&self) -> usize {
        self.stages.iter().map(|s| s.table.len()).sum()
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.stages.iter().map(|s| s.table.huge_page_bytes()).sum()
    }

    fn expected_fpr(&self) -> f64 {
        filter_core::math::compound_fpr(
            self.stages
                .iter()
                .map(|s| math::stage_fpr(s.fp_bits(), s.buckets, s.len)),
        )
    }

    fn name(&self) -> &'static str {
        "expandable"
    }
}

impl Deletable for ExpandableCuckoo {
    /// Removes one entry from the newest stage that matches (see the crate docs for why the
    /// newest, not the first).
    fn remove_hash(&mut self, hash: Hash128) -> Result<()> {
        let newest = self
            .stage_places(hash)
            .enumerate()
            .filter(|(_, (s, p))| s.has(*p))
            .map(|(i, (_, p))| (i, p))
            .last();
        match newest {
            Some((i, p)) => {
                let removed = self.stages[i].remove(p);
                debug_assert!(removed);
                self.len -= 1;
                Ok(())
            }
            None => Err(Error::NotPresent),
        }
    }

    fn count_hash(&self, hash: Hash128) -> u32 {
        self.stage_places(hash)
            .fold(0u32, |n, (s, p)| n.saturating_add(s.count(p)))
    }
}

impl Growable for ExpandableCuckoo {
    fn stages(&self) -> usize {
        self.stages.len()
    }

    fn set_max_bytes(&mut self, cap: Option<u64>) {
        self.options.cap = MemoryCap(cap);
    }

    /// `Σ 7.6·q(f_i)` over every stage the filter can ever have: at most the target, except
    /// after a merge, where each extra stage at a level adds its `7.6·q(f)`.
    fn fpr_bound(&self) -> f64 {
        let l = &self.layout;
        let one_per_level = math::schedule_bound(l.f0, l.period, math::possible_stages(l.b0, l.d));
        let siblings: f64 = self
            .stages
            .windows(2)
            .filter(|w| w[0].index == w[1].index)
            .map(|w| math::stage_bound(w[1].fp_bits()))
            .sum();
        one_per_level + siblings
    }
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(ExpandableCuckoo);

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
