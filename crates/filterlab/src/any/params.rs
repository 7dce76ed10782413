//! The parameters every variant is built from: one typed set, with the knobs only some variants
//! take. A knob given to a variant that does not take it is refused, never ignored.

use crate::{Error, KeyHasher, Result};
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
}

/// A knob some variants take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Knob {
    /// [`Params::fingerprint_bits`].
    FingerprintBits,
    /// [`Params::max_kicks`].
    MaxKicks,
    /// [`Params::cuckoo_layout`].
    CuckooLayout,
    /// [`Params::growth`].
    Growth,
    /// [`Params::tightening`].
    Tightening,
    /// [`Params::generations`].
    Generations,
    /// [`Params::window_ticks`].
    WindowTicks,
    /// [`Params::hashes`].
    Hashes,
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
            fingerprint_bits: None,
            max_kicks: None,
            cuckoo_layout: None,
            growth: None,
            tightening: None,
            generations: None,
            hashes: None,
            window_ticks: None,
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

    /// Cuckoo: with `f`-bit fingerprints.
    #[must_use]
    pub fn fingerprint_bits(mut self, f: u32) -> Self {
        self.fingerprint_bits = Some(f);
        self
    }

    /// Cuckoo: with at most `kicks` evictions per insert.
    #[must_use]
    pub fn max_kicks(mut self, kicks: u32) -> Self {
        self.max_kicks = Some(kicks);
        self
    }

    /// Cuckoo: with this layout (where each key's second bucket lies).
    #[must_use]
    pub fn cuckoo_layout(mut self, layout: CuckooLayout) -> Self {
        self.cuckoo_layout = Some(layout);
        self
    }

    /// Scalable: with growth factor `s`.
    #[must_use]
    pub fn growth(mut self, s: f64) -> Self {
        self.growth = Some(s);
        self
    }

    /// Scalable: with tightening ratio `r`.
    #[must_use]
    pub fn tightening(mut self, r: f64) -> Self {
        self.tightening = Some(r);
        self
    }

    /// Windows: with `n` generations (slices) per window.
    #[must_use]
    pub fn generations(mut self, n: u32) -> Self {
        self.generations = Some(n);
        self
    }

    /// Age-partitioned filter: `k` slices per insert.
    #[must_use]
    pub fn hashes(mut self, k: u32) -> Self {
        self.hashes = Some(k);
        self
    }

    /// Time window: a window of `ticks` of the caller's clock.
    #[must_use]
    pub fn window_ticks(mut self, ticks: u64) -> Self {
        self.window_ticks = Some(ticks);
        self
    }

    /// The knobs that are set, with their value formatted.
    fn knobs_set(&self) -> Vec<(Knob, &'static str, String)> {
        let mut out = Vec::new();
        if let Some(f) = self.fingerprint_bits {
            out.push((Knob::FingerprintBits, "fingerprint_bits", f.to_string()));
        }
        if let Some(k) = self.max_kicks {
            out.push((Knob::MaxKicks, "max_kicks", k.to_string()));
        }
        if let Some(l) = self.cuckoo_layout {
            out.push((Knob::CuckooLayout, "cuckoo_layout", l.to_string()));
        }
        if let Some(s) = self.growth {
            out.push((Knob::Growth, "growth", s.to_string()));
        }
        if let Some(r) = self.tightening {
            out.push((Knob::Tightening, "tightening", r.to_string()));
        }
        if let Some(n) = self.generations {
            out.push((Knob::Generations, "generations", n.to_string()));
        }
        if let Some(k) = self.hashes {
            out.push((Knob::Hashes, "hashes", k.to_string()));
        }
        if let Some(t) = self.window_ticks {
            out.push((Knob::WindowTicks, "window_ticks", t.to_string()));
        }
        out
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

impl Default for Params {
    /// One million items at 1%.
    fn default() -> Self {
        Params::new(1_000_000, 0.01)
    }
}
