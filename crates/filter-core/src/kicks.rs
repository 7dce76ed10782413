//! The bound on a cuckoo insert's eviction walk, one for the filters that walk one (the cuckoo
//! filter and the expandable filter's stages).

use crate::{accept_if, Result};

/// Default bound on evictions per insert (Fan et al. use 500).
pub const DEFAULT_MAX_KICKS: u32 = 500;

/// Largest `max_kicks` the builders and the loaders accept: a failing insert walks (and records,
/// then undoes) this many evictions, so `u32::MAX` would mean minutes and gigabytes per insert.
/// Past a few hundred kicks more gain almost no load (the table fills at 95-98% either way).
pub const MAX_KICKS: u32 = 1 << 16;

/// `kicks` if it lies in `1..=`[`MAX_KICKS`].
///
/// # Errors
/// [`Error::InvalidParameter`](crate::Error::InvalidParameter) naming `max_kicks` otherwise.
pub fn check_max_kicks(kicks: u32) -> Result<u32> {
    let expected = "between 1 and 65,536 evictions per insert (500 is typical)";
    accept_if(
        (1..=MAX_KICKS).contains(&kicks),
        "max_kicks",
        kicks,
        expected,
    )
}
