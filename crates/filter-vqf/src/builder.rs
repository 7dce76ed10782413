//! Sizing and building: the block count for a capacity, and [`VqfBuilder`].

use crate::block::{Block, SLOTS};
use crate::VectorQuotient;
use filter_core::{math, Error, MemoryCap, Result, Sizing};

/// The load the table is sized for: `capacity` items fill at most 90% of its slots (less in
/// small tables: [`blocks_for`]). Large tables refuse their first insert above 99.9% load
/// (measured in the tests): with two blocks of 48 slots per key and up to two moves, nearly
/// every slot can be filled. The table stops at 90% for its lookups: the share of negative
/// lookups that read a second block, each a cache miss after the first, is under 5% at 90%
/// (measured in the tests) and grows steeply past it, as more blocks overflow
/// (`math::vqf::vqf_overflow_share_floor`).
pub const DESIGN_LOAD: f64 = 0.9;
/// The median load of a table's first refused insert (measured in the tests).
pub(crate) const TYPICAL_FAILURE_LOAD: f64 = 0.9995;
/// Slots left free for the spread of the first failure's load, wide in small tables:
/// `SPREAD_SLOTS · sqrt(slots)` below [`TYPICAL_FAILURE_LOAD`].
const SPREAD_SLOTS: f64 = 2.0;

/// The blocks a filter built for `capacity` items gets: enough for a load of at most
/// [`DESIGN_LOAD`], and, in small tables, enough slack for the spread of the load at which
/// the first insert is refused. One block holds any 48 keys.
///
/// # Errors
/// [`Error::InvalidParameter`] for a capacity of 0, [`Error::SizeOverflow`] for a table that
/// cannot be addressed.
pub fn blocks_for(capacity: u64) -> Result<u64> {
    math::check_capacity(capacity)?;
    if capacity <= u64::from(SLOTS) {
        return Ok(1);
    }
    let n = capacity as f64;
    let mut blocks = (n / (f64::from(SLOTS) * DESIGN_LOAD)).ceil();
    let holds = |b: f64| {
        let slots = b * f64::from(SLOTS);
        TYPICAL_FAILURE_LOAD * slots - SPREAD_SLOTS * slots.sqrt() >= n
    };
    while !holds(blocks) {
        blocks += 1.0;
    }
    if blocks * 64.0 >= (isize::MAX / 2) as f64 {
        return Err(Error::SizeOverflow {
            what: "vqf table",
            hint: format!("{capacity} items need {blocks:.3e} blocks; lower the capacity"),
        });
    }
    Ok(blocks as u64)
}

/// Builds a [`VectorQuotient`].
#[derive(Clone, Debug)]
pub struct VqfBuilder {
    sizing: Sizing,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl Default for VqfBuilder {
    fn default() -> Self {
        VqfBuilder {
            sizing: Sizing::default(),
            cap: MemoryCap::NONE,
            pages: filter_core::Pages::Huge,
        }
    }
}

impl VqfBuilder {
    filter_core::table_builder_setters!();

    /// Builds the filter: `ceil(capacity / (48 · 0.9))` blocks of 64 bytes, more for small
    /// capacities ([`blocks_for`]).
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1) or below what 8-bit fingerprints guarantee at
    /// the design load ([`math::vqf::vqf_check_fpr`], about 0.47%), a table above the memory
    /// cap, or one too large to allocate.
    pub fn build(self) -> Result<VectorQuotient> {
        let sizing = self.sizing.validate()?;
        math::vqf::vqf_check_fpr(sizing.fpr, DESIGN_LOAD)?;
        let n = blocks_for(sizing.capacity)?;
        let blocks =
            filter_core::try_zeroed_table::<Block>(n as usize, self.table_options(), "vqf table")?;
        Ok(VectorQuotient {
            blocks,
            len: 0,
            overflow_marks: 0,
            sizing,
            kernel: crate::kernel::Kernel::detect(),
        })
    }
}
