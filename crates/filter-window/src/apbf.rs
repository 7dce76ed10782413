//! [`Apbf`]: the age-partitioned Bloom filter of Shtul, Baquero & Almeida (2020), over a window
//! counted in items.

use crate::math::{self, ApbfPlan};
use filter_core::{
    Error, Filter, Hash128, IndexGen, KeyHasher, MemoryCap, Pages, Prefetch, Result, Table,
};

/// The most slices (`k + l`) a filter may have: a key's indexes live in a stack array.
pub const MAX_SLICES: u32 = math::APBF_MAX_SLICES;

/// The paper's `k` and `l`, for [`ApbfSizing::Paper`] when they are not given.
const PAPER_K_L: u32 = 8;

/// How an [`ApbfBuilder`] sizes the slices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ApbfSizing {
    /// The least memory whose worst-case rate ([`math::apbf_fpr`]) is at most the target:
    /// `k` and `l` chosen ([`ApbfPlan::least`]) unless given, then the smallest slices.
    #[default]
    Target,
    /// The paper's: each slice ends half full, `m = k·g / ln 2`, whatever rate that gives
    /// (`k = l = 8` unless given).
    Paper,
}

/// A `k` or `l` as given, or `chosen`.
fn shown(v: Option<u32>) -> String {
    v.map_or_else(|| "chosen".into(), |v| v.to_string())
}

/// Builds an [`Apbf`].
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug)]
pub struct ApbfBuilder {
    window: u64,
    fpr: f64,
    k: Option<u32>,
    l: Option<u32>,
    sizing: ApbfSizing,
    hasher: KeyHasher,
    cap: MemoryCap,
    pages: Pages,
}

impl ApbfBuilder {
    filter_core::setters! {
        /// The window: the last `items` inserts are never missed (default one million).
        window(items: u64) => window;
        /// Target false-positive rate (default 1%), used by [`ApbfSizing::Target`].
        fpr(rate: f64) => fpr;
        /// Slices each insert sets a bit in, and that a lookup needs in a row (default: chosen
        /// with `l` for the least memory).
        k(k: u32) => k as Some;
        /// Further slices: the window is `l` generations (default: chosen with `k`).
        l(l: u32) => l as Some;
        /// How the slices are sized (default [`ApbfSizing::Target`]).
        sizing(sizing: ApbfSizing) => sizing;
        /// Hash function and seed (default: xxh3-128, seed 0).
        hasher(hasher: KeyHasher) => hasher;
    }

    filter_core::memory_cap_setter!();
    filter_core::pages_setter!();

    /// Builds the filter.
    ///
    /// # Errors
    /// A window of 0, a rate outside (0, 1), `k` or `l` of 0 or `k + l` above [`MAX_SLICES`],
    /// or a table too large.
    pub fn build(self) -> Result<Apbf> {
        filter_core::math::check_fpr(self.fpr)?;
        filter_core::math::check_capacity(self.window)?;
        let given = |v: Option<u32>| v.unwrap_or(1);
        let slices = given(self.k).saturating_add(given(self.l));
        if self.k == Some(0) || self.l == Some(0) || slices > MAX_SLICES {
            return Err(Error::InvalidParameter {
                name: "k, l",
                value: format!("{}, {}", shown(self.k), shown(self.l)),
                expected: "k >= 1 and l >= 1 with k + l <= 64, or leave them unset: the shape \
                           with the least memory that meets the rate is chosen",
            });
        }
        let plan = match self.sizing {
            ApbfSizing::Paper => ApbfPlan::paper(
                self.window,
                self.k.unwrap_or(PAPER_K_L),
                self.l.unwrap_or(PAPER_K_L),
            ),
            ApbfSizing::Target => ApbfPlan::least(self.window, self.fpr, self.k, self.l),
        }
        .ok_or_else(|| Error::SizeOverflow {
            what: "age-partitioned slices",
            hint: format!(
                "no shape with k = {} and at most 2^56 bits per slice reaches {} for a window \
                 of {} items: ask for fewer items or a larger rate",
                shown(self.k),
                filter_core::math::format_real(self.fpr),
                self.window
            ),
        })?;
        let slices = plan.k + plan.l;
        let words_per_slice = plan.m.div_ceil(64);
        let words = words_per_slice
            .checked_mul(u64::from(slices))
            .and_then(|w| usize::try_from(w).ok())
            .ok_or_else(|| Error::SizeOverflow {
                what: "age-partitioned slices",
                hint: format!(
                    "{slices} slices of {} bits: ask for a smaller window",
                    plan.m
                ),
            })?;
        Ok(Apbf {
            words: filter_core::try_zeroed_table(
                words,
                self.table_options(),
                "age-partitioned slices",
            )?,
            plan: ApbfPlan {
                m: words_per_slice * 64,
                ..plan
            },
            words_per_slice: words_per_slice as usize,
            base: 0,
            in_generation: 0,
            counts: vec![0; slices as usize],
            inserted: 0,
            window: self.window,
            hasher: self.hasher,
        })
    }
}

/// The age-partitioned Bloom filter (Shtul, Baquero & Almeida 2020): `k + l` slices of `m` bits
/// in a ring; an insert sets one bit in each of the `k` youngest slices; every `g = window / l`
/// inserts the oldest slice is emptied and becomes the youngest; a key is "maybe" when `k`
/// consecutive slices all hold its bit. An item is findable for at least `l` generations (the
/// window); after `l + 1` (`1 + 1/l` windows) its run is broken, but `k - 1` of its bits stay
/// for `k - 1` more generations, so it is answered "maybe" whenever a neighbouring slice
/// matches by chance — far above the false-positive rate (measured in `tests/guarantees.rs`:
/// 1046 of 15 000 keys older than 9 generations, against 149 expected from the rate, at
/// `k = l = 8`). Only after `l + k` generations are all its bits gone. The lane-sliced filters
/// ([`ItemWindow`](crate::ItemWindow)) do not have this tail.
///
/// Each slice has its own index function (the i-th index of [`IndexGen`], i the slice's place in
/// the ring), so a bit keeps its meaning as its slice ages.
///
/// # False-positive rate
/// [`math::apbf_fpr`]: the probability of a run of `k` matches among slices that match
/// independently with their fill. The builder chooses `k` and `l` for the least memory that
/// meets the target ([`ApbfPlan::least`]): at 1%, `k = 10`, `l = 53` and 19.6 bits per
/// in-window item, where the paper's `k = l = 8` takes 23.5 (23.1 with its half-full sizing,
/// for a worst case of 1.1%). More slices make a lookup read more of them (`k + l` at most).
///
/// ```
/// use filter_core::Filter;
/// use filter_window::Apbf;
/// let mut f = Apbf::builder().window(16_000).fpr(0.01).build()?;
/// for i in 0..64_000u64 {
///     f.insert(&i.to_le_bytes())?;
/// }
/// assert!((48_000..64_000u64).all(|i| f.contains(&i.to_le_bytes())));
/// let fp = (1_000_000..1_100_000u64).filter(|i| f.contains(&i.to_le_bytes())).count();
/// let (p, n) = (f.expected_fpr(), 100_000.0);
/// assert!(p <= 0.01);
/// assert!((fp as f64 - n * p).abs() <= 4.0 * (n * p * (1.0 - p)).sqrt(), "{fp}");
/// # Ok::<(), filter_core::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Apbf {
    pub(crate) words: Table<u64>,
    pub(crate) plan: ApbfPlan,
    pub(crate) words_per_slice: usize,
    /// The ring position of the youngest slice.
    pub(crate) base: u32,
    pub(crate) in_generation: u64,
    /// Bits set in each ring position since it was last emptied.
    pub(crate) counts: Vec<u64>,
    pub(crate) inserted: u64,
    pub(crate) window: u64,
    pub(crate) hasher: KeyHasher,
}

impl Apbf {
    /// A builder: one million items at 1%, `k` and `l` chosen for the least memory, slices
    /// sized for the target.
    pub fn builder() -> ApbfBuilder {
        ApbfBuilder {
            window: 1_000_000,
            fpr: 0.01,
            k: None,
            l: None,
            sizing: ApbfSizing::Target,
            hasher: KeyHasher::default(),
            cap: MemoryCap::NONE,
            pages: Pages::Huge,
        }
    }

    /// The plan the filter was built to (`m` rounded up to whole words).
    pub fn plan(&self) -> ApbfPlan {
        self.plan
    }

    fn slices(&self) -> u32 {
        self.plan.k + self.plan.l
    }

    /// Ring position of the slice of age `i` (0: youngest).
    fn ring(&self, i: u32) -> u32 {
        (self.base + i) % self.slices()
    }

    /// The key's bit index in every ring position.
    fn indexes(&self, hash: Hash128) -> [u64; MAX_SLICES as usize] {
        let mut out = [0; MAX_SLICES as usize];
        let mut gen = IndexGen::new(hash, self.plan.m);
        out.iter_mut()
            .take(self.slices() as usize)
            .for_each(|x| *x = gen.next());
        out
    }

    fn bit(&self, ring: u32, index: u64) -> bool {
        let word = ring as usize * self.words_per_slice + (index / 64) as usize;
        self.words[word] >> (index % 64) & 1 == 1
    }

    /// The bits the next insert of the key sets, as indexes into the ring read as one bit
    /// array: one in each of the `k` youngest slices, after the shift that insert may make.
    pub(crate) fn insert_bits(&self, hash: Hash128) -> Vec<u64> {
        let base = if self.in_generation == self.plan.per_generation {
            self.ring(self.slices() - 1)
        } else {
            self.base
        };
        let idx = self.indexes(hash);
        let per_slice = self.words_per_slice as u64 * 64;
        (0..self.plan.k)
            .map(|i| {
                let ring = (base + i) % self.slices();
                u64::from(ring) * per_slice + idx[ring as usize]
            })
            .collect()
    }

    /// Empties the oldest slice and makes it the youngest.
    fn shift(&mut self) {
        let oldest = self.ring(self.slices() - 1);
        let start = oldest as usize * self.words_per_slice;
        self.words[start..start + self.words_per_slice].fill(0);
        self.counts[oldest as usize] = 0;
        self.base = oldest;
        self.in_generation = 0;
    }
}

impl Filter for Apbf {
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        if self.in_generation == self.plan.per_generation {
            self.shift();
        }
        let idx = self.indexes(hash);
        for i in 0..self.plan.k {
            let ring = self.ring(i);
            let index = idx[ring as usize];
            let word = ring as usize * self.words_per_slice + (index / 64) as usize;
            self.words[word] |= 1 << (index % 64);
            self.counts[ring as usize] += 1;
        }
        self.in_generation += 1;
        self.inserted += 1;
        Ok(())
    }

    fn contains_hash(&self, hash: Hash128) -> bool {
        let idx = self.indexes(hash);
        let mut run = 0;
        for i in 0..self.slices() {
            let ring = self.ring(i);
            if self.bit(ring, idx[ring as usize]) {
                run += 1;
                if run == self.plan.k {
                    return true;
                }
            } else {
                run = 0;
            }
        }
        false
    }

    fn hasher(&self) -> KeyHasher {
        self.hasher
    }

    /// Items findable from their own bits: those of the last `l + 1` generations at most.
    fn len(&self) -> u64 {
        let g = self.plan.per_generation;
        let kept = (g * u64::from(self.plan.l)).saturating_add(self.in_generation);
        self.inserted.min(kept)
    }

    /// The window, in items.
    fn capacity(&self) -> u64 {
        self.window
    }

    fn size_in_bytes(&self) -> usize {
        self.words.len() * 8
    }

    fn huge_page_bytes(&self) -> Option<u64> {
        self.words.huge_page_bytes()
    }

    fn expected_fpr(&self) -> f64 {
        let counts: Vec<u64> = (0..self.slices())
            .map(|i| self.counts[self.ring(i) as usize])
            .collect();
        math::apbf_fpr(self.plan.k, self.plan.m, &counts)
    }

    fn name(&self) -> &'static str {
        "apbf"
    }

    filter_core::prefetched_batches!();
}

impl Prefetch for Apbf {
    /// A lookup may read every slice.
    fn lines_per_key(&self) -> u32 {
        self.slices()
    }

    fn prefetch_hash(&self, hash: Hash128) {
        let idx = self.indexes(hash);
        for ring in 0..self.slices() {
            let index = idx[ring as usize];
            filter_core::prefetch(
                &self.words[ring as usize * self.words_per_slice + (index / 64) as usize],
            );
        }
    }
}
