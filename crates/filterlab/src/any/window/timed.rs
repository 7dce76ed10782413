//! [`Timed`]: a [`TimeWindow`] held as a [`Filter`], so that the registry lists the window
//! counted in time beside the variants filled by plain inserts. An insert needs a time: a plain
//! insert is refused with [`Error::Unsupported`] and changes nothing, and the timed operations
//! are [`AnyFilter::insert_at`](crate::AnyFilter::insert_at) and its companions (or the inner
//! window's own). A query without a time answers as of the latest slice an insert was filed
//! into ([`TimeWindow::latest`]): what the window held then.

use crate::format::Codec;
use crate::{Error, Explain, Filter, Hash128, KeyHasher, Positions, Result, TimeWindow, Timestamp};

/// A time window as a [`Filter`] whose untimed inserts are refused.
#[derive(Clone, Debug, PartialEq)]
pub struct Timed(TimeWindow);

impl Timed {
    /// Wraps a built window.
    #[must_use]
    pub fn new(inner: TimeWindow) -> Self {
        Timed(inner)
    }

    /// The inner window.
    #[must_use]
    pub fn get(&self) -> &TimeWindow {
        &self.0
    }

    /// The inner window, mutably (its timed inserts).
    pub fn get_mut(&mut self) -> &mut TimeWindow {
        &mut self.0
    }

    /// The inner window, unwrapped.
    #[must_use]
    pub fn into_inner(self) -> TimeWindow {
        self.0
    }

    /// The time a query without one is answered at: the latest slice's start.
    fn now(&self) -> Option<Timestamp> {
        self.0.latest()
    }
}

impl Filter for Timed {
    /// Refused: a time window files every insert into the slice of its time.
    fn insert_hash(&mut self, _: Hash128) -> Result<()> {
        Err(Error::Unsupported {
            variant: Self::KIND.name(),
            operation: "insert a key without a time (its window is counted in time: give one, \
                        AnyFilter::insert_at or `filterlab build/add --at`)",
            supported_by: super::super::Variant::names_with(|c| !c.timed && !c.static_set),
        })
    }
    /// Refused as [`Timed::insert_hash`], whether the key is present or not.
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        self.insert_hash(hash).map(|()| false)
    }
    /// As of the latest slice; `false` before any insert.
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.now().is_some_and(|t| self.0.contains_hash_at(hash, t))
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        match self.now() {
            Some(t) => self.0.contains_hash_batch_at(hashes, t, out),
            None => {
                out.clear();
                out.resize(hashes.len(), false);
            }
        }
    }
    forwarded!(
        hasher -> KeyHasher,
        size_in_bytes -> usize,
        huge_page_bytes -> Option<u64>,
    );
    /// Items in the slices of the window as of the latest slice.
    fn len(&self) -> u64 {
        self.now().map_or(0, |t| self.0.len_at(t))
    }
    /// The most items a window holds at the target rate.
    fn capacity(&self) -> u64 {
        self.0.items_per_window()
    }
    /// As of the latest slice, from the real counts of the slices in the window.
    fn expected_fpr(&self) -> f64 {
        self.now().map_or(0.0, |t| self.0.expected_fpr_at(t))
    }
    /// The variant's name, as its files carry it.
    fn name(&self) -> &'static str {
        Self::KIND.name()
    }
}

/// The time window's own file, unchanged.
impl Codec for Timed {
    wrapped_codec!(TimeWindow, Timed);
}

impl Explain for Timed {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        self.0.positions_hash(hash)
    }
}
