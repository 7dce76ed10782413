//! Lane-sliced generations over a window counted in items ([`ItemWindow`]) or in caller-supplied
//! time ([`TimeWindow`](crate::TimeWindow)). See the crate docs for the design and its figures.

use crate::lanes::Lanes;
use crate::math::SlicedPlan;
use filter_core::{
    Error, Filter, Hash128, KeyHasher, MemoryCap, Pages, Prefetch, Result, TableOptions,
};

/// The generations per window the builders accept: `N + 1` must be a power of two so that the
/// `N + 1` bits of a position pack evenly into 64-bit words.
pub const GENERATION_CHOICES: [u32; 6] = [1, 3, 7, 15, 31, 63];

/// Settings both window builders share.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Common {
    pub(crate) fpr: f64,
    pub(crate) generations: u32,
    pub(crate) hasher: KeyHasher,
}

impl Default for Common {
    fn default() -> Self {
        Common {
            fpr: 0.01,
            generations: crate::DEFAULT_GENERATIONS,
            hasher: KeyHasher::default(),
        }
    }
}

impl Common {
    /// Validates the settings and plans generations for `items` per window.
    pub(crate) fn plan(&self, items: u64, items_name: &'static str) -> Result<SlicedPlan> {
        filter_core::math::check_fpr(self.fpr)?;
        if items == 0 {
            return Err(Error::InvalidParameter {
                name: items_name,
                value: "0".into(),
                expected: "the number of items a window holds, at least 1",
            });
        }
        if !GENERATION_CHOICES.contains(&self.generations) {
            return Err(Error::InvalidParameter {
                name: "generations",
                value: self.generations.to_string(),
                expected: "one of 1, 3, 7, 15, 31, 63 (N + 1 generations are kept, one bit \
                           each per position); 7 takes the least memory at 1%",
            });
        }
        SlicedPlan::new(items, self.generations, self.fpr).ok_or_else(|| Error::SizeOverflow {
            what: "window lanes",
            hint: format!("{items} items per window at {} need more than 2^62 positions: ask for fewer items or a larger rate", self.fpr),
        })
    }

    /// The lanes of `plan`, allocated with `options` (the builder's cap and page advice).
    pub(crate) fn lanes(&self, plan: &SlicedPlan, options: TableOptions) -> Result<Lanes> {
        Lanes::new(plan.generations + 1, plan.m, plan.k, options)
    }
}

/// Builds an [`ItemWindow`].
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug)]
pub struct ItemWindowBuilder {
    window: u64,
    common: Common,
    cap: MemoryCap,
    pages: Pages,
}

impl ItemWindowBuilder {
    /// The window: the last `items` inserts are never missed (default one million).
    pub fn window(mut self, items: u64) -> Self {
        self.window = items;
        self
    }

    common_setters!();

    /// Builds the filter.
    ///
    /// # Errors
    /// A window of 0, a rate outside (0, 1), generations not in [`GENERATION_CHOICES`], or a
    /// table too large (for the platform, the memory cap or the allocator).
    pub fn build(self) -> Result<ItemWindow> {
        let common = self.common;
        let plan = common.plan(self.window, "window")?;
        Ok(ItemWindow {
            lanes: common.lanes(&plan, self.table_options())?,
            plan,
            window: self.window,
            inserted: 0,
            hasher: common.hasher,
        })
    }
}

/// A sliding-window filter over the last `window` inserts: `N` generations of `window / N`
/// items per window, `N + 1` kept in the bit lanes of one table (crate docs).
///
/// # False-positive rate
/// At most the target at any time: `1 - Π (1 - fill(k·c_j, m)^k)` over the kept generations
/// ([`math::sliced_fpr`](crate::math::sliced_fpr)), largest when all `N + 1` are full.
///
/// ```
/// use filter_core::Filter;
/// use filter_window::ItemWindow;
/// let mut f = ItemWindow::builder().window(20_000).fpr(0.01).build()?;
/// for i in 0..100_000u64 {
///     f.insert(&i.to_le_bytes())?;
/// }
/// // The last 20 000 keys are all present.
/// assert!((80_000..100_000u64).all(|i| f.contains(&i.to_le_bytes())));
/// // Keys never inserted: the rate stays near the model, under the 1% target.
/// let fp = (1_000_000..1_100_000u64).filter(|i| f.contains(&i.to_le_bytes())).count();
/// let (p, n) = (f.expected_fpr(), 100_000.0);
/// assert!(p <= 0.01);
/// assert!((fp as f64 - n * p).abs() <= 4.0 * (n * p * (1.0 - p)).sqrt(), "{fp}");
/// # Ok::<(), filter_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ItemWindow {
    pub(crate) lanes: Lanes,
    pub(crate) plan: SlicedPlan,
    pub(crate) window: u64,
    pub(crate) inserted: u64,
    pub(crate) hasher: KeyHasher,
}

impl ItemWindow {
    /// A builder: one million items per window at 1%, 7 generations.
    pub fn builder() -> ItemWindowBuilder {
        ItemWindowBuilder {
            window: 1_000_000,
            common: Common::default(),
            cap: MemoryCap::NONE,
            pages: Pages::Huge,
        }
    }

    /// The plan the filter was built to (items per generation, positions, probes).
    pub fn plan(&self) -> SlicedPlan {
        self.plan
    }

    /// Inserts made since the filter was built, expired ones included.
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// Bits of table per in-window item.
    pub fn bits_per_item(&self) -> f64 {
        self.size_in_bytes() as f64 * 8.0 / self.window as f64
    }
}

impl ItemWindow {
    /// The generation slot the next insert fills.
    pub(crate) fn next_slot(&self) -> u32 {
        let generation = self.inserted / self.plan.per_generation;
        (generation % u64::from(self.lanes.slots())) as u32
    }
}

impl Filter for ItemWindow {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        let g = self.plan.per_generation;
        let generation = self.inserted / g;
        let slot = self.next_slot();
        if self.inserted % g == 0 && generation > 0 {
            // A new generation takes the slot of the oldest, which leaves the window.
            self.lanes.clear_slot(slot);
        }
        self.lanes.insert(hash, slot);
        self.inserted += 1;
        Ok(())
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        self.lanes.contains(hash, u64::MAX)
    }

    fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// Items held: those of the kept generations (between `window` and `window · (1 + 1/N)`
    /// once the stream is long enough).
    fn len(&self) -> u64 {
        self.lanes.items(u64::MAX)
    }

    /// The window, in items.
    fn capacity(&self) -> u64 {
        self.window
    }

    fn size_in_bytes(&self) -> usize {
        self.lanes.size_in_bytes()
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.lanes.huge_page_bytes()
    }

    fn expected_fpr(&self) -> f64 {
        self.lanes.expected_fpr(u64::MAX)
    }

    fn name(&self) -> &'static str {
        "window-items"
    }

    filter_core::prefetched_batches!();
}

impl Prefetch for ItemWindow {
    fn lines_per_key(&self) -> u32 {
        self.plan.k
    }

    fn prefetch_hash(&self, hash: Hash128) {
        self.lanes.prefetch(hash);
    }
}
