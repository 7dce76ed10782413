//! What each variant can do, as the registry's table declares it.

use crate::{Deletable, Growable};

/// A variant's capabilities. The registry's table names the true ones per variant; code that
/// chooses a variant (`filterlab recommend`) or offers an operation (`filterlab remove`) asks
/// here rather than matching on variants.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[allow(clippy::struct_excessive_bools)] // Independent yes/no facts, named.
pub struct Capabilities {
    /// Removes keys ([`Deletable`]).
    pub deletes: bool,
    /// Grows: inserts never fail for lack of capacity ([`Growable`]).
    pub grows: bool,
    /// Built once from its whole key set, then only queried (no insert).
    pub static_set: bool,
    /// Has a form that many threads insert into and query at once (`&self` inserts).
    pub concurrent: bool,
    /// Counts the copies of a key ([`Deletable::count`]), so repeated inserts are removable.
    pub counts_copies: bool,
    /// Holds only recent keys (a sliding window of items or time).
    pub windowed: bool,
    /// Its window is counted in time: inserts take a timestamp
    /// ([`AnyFilter::insert_at`](super::AnyFilter::insert_at)), and a plain insert is refused.
    pub timed: bool,
    /// A lookup reads one cache line (not `k` scattered ones): the fast choice when many
    /// threads query.
    pub one_line_lookup: bool,
    /// Merges another filter of the same parameters into itself
    /// ([`AnyFilter::merge`](super::AnyFilter::merge)).
    pub merges: bool,
    /// Its large tables take the page advice of [`Params::pages`](super::Params::pages)
    /// (the others allocate with the default advice).
    pub pages: bool,
    /// Opens in place from a version 2 file ([`AnyFilter::open`](super::AnyFilter::open)):
    /// its tables are the mapped file's bytes, read-only, with no copy.
    pub in_place: bool,
    /// An insert of a key it already reports present changes nothing (the scalable filter, as
    /// its paper and pybloom_live insert): `len` counts the keys added, which is fewer than the
    /// distinct keys inserted by those that were false positives when they came.
    pub skips_present: bool,
    /// Into an empty filter, one [`Filter::insert_batch`](crate::Filter::insert_batch) (or
    /// `insert_hash_batch`) of a whole key set sorts it and writes the table in one pass, much
    /// faster than the same keys in several batches (of which only the first finds the table
    /// empty): give it every key in one call.
    pub bulk_build: bool,
}

impl Capabilities {
    /// No capability: what the table's rows add to.
    pub const NONE: Capabilities = Capabilities {
        deletes: false,
        grows: false,
        static_set: false,
        concurrent: false,
        counts_copies: false,
        windowed: false,
        timed: false,
        one_line_lookup: false,
        merges: false,
        pages: false,
        in_place: false,
        skips_present: false,
        bulk_build: false,
    };
}

/// The optional traits of a variant's type, as trait objects (the registry generates the
/// implementations from the table's `deletes` and `grows`).
pub(crate) trait Capable {
    fn as_deletable(&self) -> Option<&dyn Deletable> {
        None
    }
    fn as_deletable_mut(&mut self) -> Option<&mut dyn Deletable> {
        None
    }
    fn as_growable(&self) -> Option<&dyn Growable> {
        None
    }
    fn as_timed(&self) -> Option<&super::Timed> {
        None
    }
    fn as_timed_mut(&mut self) -> Option<&mut super::Timed> {
        None
    }
}
