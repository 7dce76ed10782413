//! The parameters every variant is built from: one typed set, with the knobs only some variants
//! take. A knob given to a variant that does not take it is refused, never ignored.

use crate::{Error, KeyHasher, Pages, Result};
pub use filter_cuckoo::Layout as CuckooLayout;

/// How to build a filter of any variant: capacity, rate and hasher, an optional memory cap,
/// and the variant-specific knobs (unset: the variant's default).
///
/// ```
/// use filterlab::any::{AnyFilter, Params, Variant};
/// use filterlab::Filter;
///
/// let p = Params::new(10_000, 0.001).fingerprint_bits(16);
/// let f = AnyFilter::build(Variant::Cuckoo, &p)?;
/// assert_eq!(f.capacity(), 10_000);
/// // A knob the variant does not take is an error, not a silent default.
/// assert!(AnyFilter::build(Variant::Classic, &p).is_err());
/// # Ok::<(), filterlab::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Params {
    /// Items the filter must hold at its target rate (a growing filter: its first stage; a
    /// window counted in items: the window, the last `capacity` inserts; a window counted in
    /// time: the most items one window receives).
    pub capacity: u64,
    /// Target false-positive rate.
    pub fpr: f64,
    /// Hash function and seed.
    pub hasher: KeyHasher,
    /// Refuse tables larger than this many bytes (a growing filter: refuse to grow past it).
    pub max_bytes: Option<u64>,
    /// Page advice for the filter's large tables (default [`Pages::Huge`]): advice only, never
    /// saved. Fed to the builder of every variant with the `pages` capability
    /// ([`Capabilities::pages`](super::Capabilities::pages)): all of them.
    pub pages: Pages,
    /// Cuckoo: fingerprint width `f` in bits (default from the rate).
    pub fingerprint_bits: Option<u32>,
    /// Cuckoo: the bound on evictions per insert.
    pub max_kicks: Option<u32>,
    /// Cuckoo: where each key's second bucket lies (default [`CuckooLayout::Spread`], the
    /// layout of every file written before layouts were stored; [`CuckooLayout::near()`] keeps
    /// it within a window of buckets around the first).
    pub cuckoo_layout: Option<CuckooLayout>,
    /// Scalable: growth factor `s` of each new stage's capacity.
    pub growth: Option<f64>,
    /// Scalable: tightening ratio `r` of each new stage's rate.
    pub tightening: Option<f64>,
    /// Windows: generations (slices) per window, `N` (item and time windows: one of
    /// `filter_window::GENERATION_CHOICES`, default 7; the age-partitioned filter: its `l`,
    /// default 8).
    pub generations: Option<u32>,
    /// Age-partitioned filter: `k`, the slices each insert sets a bit in and a match needs in a
    /// row (default 8, the paper's).
    pub hashes: Option<u32>,
    /// Time window: the window in the caller's ticks (default 86 400, a day in seconds): a key
    /// inserted at `t` is found at every time before `t + window_ticks`.
    pub window_ticks: Option<u64>,
    /// Aleph: an estimate of the most keys the filter will hold (its first table is sized to
    /// reach it after whole doublings, with a static filter's fingerprints there).
    pub max_n: Option<u64>,
}

impl Params {
    /// `capacity` items at rate `fpr`, the default hasher (xxh3-128, seed 0), no cap, every
    /// knob at the variant's default.
    #[must_use]
    pub fn new(capacity: u64, fpr: f64) -> Self {
        Params {
            capacity,
            fpr,
            hasher: KeyHasher::default(),
            max_bytes: None,
            pages: Pages::Huge,
            fingerprint_bits: None,
            max_kicks: None,
            cuckoo_layout: None,
            growth: None,
            tightening: None,
            generations: None,
            hashes: None,
            window_ticks: None,
            max_n: None,
        }
    }

    /// With this hasher.
    #[must_use]
    pub fn hasher(mut self, hasher: KeyHasher) -> Self {
        self.hasher = hasher;
        self
    }

    /// With a memory cap.
    #[must_use]
    pub fn max_bytes(mut self, bytes: u64) -> Self {
        self.max_bytes = Some(bytes);
        self
    }

    /// With this page advice for large tables.
    #[must_use]
    pub fn pages(mut self, pages: Pages) -> Self {
        self.pages = pages;
        self
    }

    /// Refuses a knob outside `takes`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first knob set that the variant does not take.
    pub(crate) fn only(&self, takes: &[Knob]) -> Result<()> {
        match self
            .knobs_set()
            .into_iter()
            .find(|(k, ..)| !takes.contains(k))
        {
            None => Ok(()),
            Some((_, name, value)) => Err(Error::InvalidParameter {
                name,
                value,
                expected: "unset: this variant does not take it",
            }),
        }
    }
}

/// The knobs some variants take, from one table: each becomes a [`Knob`], a setter that stores
/// `Some(value)`, and a row of [`Params::knobs_set`] (in the table's order, the order a refusal
/// names them in).
macro_rules! knobs {
    ($($(#[doc = $doc:expr])* $field:ident($arg:ident: $ty:ty) => $knob:ident,)*) => {
        /// A knob some variants take.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub(crate) enum Knob {
            $(
                #[doc = concat!("[`Params::", stringify!($field), "`].")]
                $knob,
            )*
        }

        impl Params {
            $(
                $(#[doc = $doc])*
                #[must_use]
                pub fn $field(mut self, $arg: $ty) -> Self {
                    self.$field = Some($arg);
                    self
                }
            )*

            /// The knobs that are set, with their value formatted.
            fn knobs_set(&self) -> Vec<(Knob, &'static str, String)> {
                let mut out = Vec::new();
                $(
                    if let Some(v) = self.$field {
                        out.push((Knob::$knob, stringify!($field), v.to_string()));
                    }
                )*
                out
            }
        }
    };
}

knobs! {
    /// Cuckoo: with `f`-bit fingerprints.
    fingerprint_bits(f: u32) => FingerprintBits,
    /// Cuckoo: with at most `kicks` evictions per insert.
    max_kicks(kicks: u32) => MaxKicks,
    /// Cuckoo: with this layout (where each key's second bucket lies).
    cuckoo_layout(layout: CuckooLayout) => CuckooLayout,
    /// Scalable: with growth factor `s`.
    growth(s: f64) => Growth,
    /// Scalable: with tightening ratio `r`.
    tightening(r: f64) => Tightening,
    /// Windows: with `n` generations (slices) per window.
    generations(n: u32) => Generations,
    /// Age-partitioned filter: `k` slices per insert.
    hashes(k: u32) => Hashes,
    /// Time window: a window of `ticks` of the caller's clock.
    window_ticks(ticks: u64) => WindowTicks,
    /// Aleph: with an estimate of the most keys it will hold.
    max_n(n: u64) => MaxN,
}

impl Default for Params {
    /// One million items at 1%.
    fn default() -> Self {
        Params::new(1_000_000, 0.01)
    }
}
