//! Where a key's second bucket lies: anywhere in the table ([`Layout::Spread`], the layout of
//! every file written before layouts were stored) or within a window of buckets around the first
//! ([`Layout::Near`]).
//!
//! # Why a near layout
//!
//! A lookup reads two buckets. With the spread layout they are two random places in the table:
//! two cache lines on two different pages, so on a table larger than the TLB's reach each lookup
//! may pay two page walks as well as two misses. With the near layout the second bucket lies
//! fewer than `window` buckets from the first (`window · 4f` bits: 5 KiB at the default 1,024
//! buckets and `f = 10`), so the two reads fall in one 2 MiB huge page for 99.9% of keys and in
//! one 4 KiB page for 40% of them (against 0.06% in the spread layout of a 13 MB table;
//! measured in `tests/layout.rs`). Where the table is not on huge pages and larger than the
//! TLB's reach, that saves an address translation on those lookups. The misses are still two
//! (the buckets are rarely in one cache line) and still overlap, as before. A narrower window
//! would share pages more often (256 buckets: 84% of 4 KiB pages, predicted) but loses too much
//! load ([`MIN_WINDOW`]). The same idea, a bounded offset to the other bucket, is the Morton
//! filter's (Breslow & Jayasena, "Morton Filters: Faster, Space-Efficient Cuckoo Filters via
//! Biasing, Compression, and Decoupled Logical Sparsity", VLDB 2018), whose parity trick makes
//! the offset an involution here.
//!
//! # The alternate bucket
//!
//! `off(fp) = 2·reduce(mix(fp), window/2) + 1` is odd and below `window`; an even bucket's
//! partner is `(i + off) mod B`, an odd bucket's `(i - off) mod B`. With `B` even, adding an
//! odd offset flips the parity, so applying the rule twice goes forward then back: an
//! involution with no fixed point (every key has two distinct buckets, unlike the spread
//! layout, where a share `1/B` of keys has one). The windows overlap (a bucket's partners lie on
//! both sides of it), so the table does not split into closed blocks that would fill unevenly:
//! an eviction chain can drift anywhere. The price is that `B` must be even (the builder rounds
//! up by one bucket at most) and `window ≤ B` (the builder clamps it).
//!
//! # Measured effect
//!
//! Counts, not times (timings on a shared machine say nothing). A lookup of the near layout
//! touches 1.6 distinct 4 KiB pages on average instead of 2 (the page share above). Under
//! cachegrind (`examples/layout_lookups.rs`, 2 million keys at 1%, a million probes, half of
//! them members) a lookup, hashing included, costs 152 instructions against the spread
//! layout's 147 (the parity test and the wrap) and 2.46 first-level data misses against 2.47:
//! the cache lines touched are the same. Cachegrind does not simulate the TLB, and the machine
//! these figures come from has no TLB counter, so the saved translations are not measured.
//!
//! Fan et al. (2014, §4) warn that a second bucket close to the first lowers the load a table
//! reaches before its first failed insert, because evictions stay local. The tests measure it
//! for both layouts (`tests/layout.rs`).

use filter_core::{math, reduce, FormatError, Result};

/// The window of [`Layout::near`], in buckets.
pub const DEFAULT_WINDOW: u32 = 1 << 10;
/// The default bound on evictions per insert of the near layout: a failing insert's walk moves
/// at most `window` buckets a step, so the walk needs more steps than the spread layout's
/// [`DEFAULT_MAX_KICKS`](crate::DEFAULT_MAX_KICKS) to leave a crowded stretch of the table
/// (at a million keys and the default window, exploratory runs with 500 kicks first failed at
/// 96.1% load on average, 3 tables; `tests/layout.rs` measures 96.5% with 2,000).
pub const NEAR_MAX_KICKS: u32 = 2_000;
/// The narrowest window a builder takes, in buckets (a table of fewer buckets gets a window
/// of its size): narrower windows lose load in large tables. In exploratory runs a 256-bucket
/// window refused key 990,860 of a table built for a million, and a 512-bucket one first
/// failed at 94.7% load in a table of ten million; at 1,024 the tests measure at least 96.0%
/// at a million keys.
pub const MIN_WINDOW: u32 = 1 << 10;
/// The widest window a filter or a file may have, in buckets.
pub const MAX_WINDOW: u32 = 1 << 20;

/// Where a key's second bucket lies (stored in the file).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Anywhere: `alt(i, fp) = (h(fp) - i) mod B`, any `B`. Layout 1: files carry no tag.
    #[default]
    Spread,
    /// Within `window` buckets (a power of two; a builder takes [`MIN_WINDOW`] to
    /// [`MAX_WINDOW`] and narrows it to a smaller table): `alt(i, fp) = i ± off(fp)`.
    /// Layout 2: files carry the tag and the window after the sizing parameters.
    Near {
        /// Buckets the offset to the second bucket stays below.
        window: u32,
    },
}

impl Layout {
    /// The near layout with [`DEFAULT_WINDOW`].
    pub const fn near() -> Layout {
        Layout::Near {
            window: DEFAULT_WINDOW,
        }
    }

    /// The id written in files (1 is implicit: those files have no tag).
    pub const fn id(self) -> u32 {
        match self {
            Layout::Spread => 1,
            Layout::Near { .. } => 2,
        }
    }

    /// The near layout's window, `None` for the spread layout.
    #[must_use]
    pub const fn near_window(self) -> Option<u32> {
        match self {
            Layout::Spread => None,
            Layout::Near { window } => Some(window),
        }
    }

    /// The layout [`Self::near_window`] describes.
    #[must_use]
    pub const fn from_near_window(near_window: Option<u32>) -> Layout {
        match near_window {
            None => Layout::Spread,
            Some(window) => Layout::Near { window },
        }
    }

    /// The bound on evictions per insert a builder uses unless told otherwise.
    pub const fn default_max_kicks(self) -> u32 {
        match self {
            Layout::Spread => crate::DEFAULT_MAX_KICKS,
            Layout::Near { .. } => NEAR_MAX_KICKS,
        }
    }

    /// The bucket count this layout uses for a table that needs `buckets`: even for the near
    /// layout (at least 2), as it is.
    #[must_use]
    pub fn buckets(self, buckets: u64) -> u64 {
        match self {
            Layout::Spread => buckets,
            Layout::Near { .. } => (buckets + (buckets & 1)).max(2),
        }
    }

    /// The layout a table of `buckets` (from [`Self::buckets`]) gets: a near window clamped to
    /// the largest power of two not above `buckets`.
    #[must_use]
    pub fn fit(self, buckets: u64) -> Layout {
        match self {
            Layout::Spread => self,
            Layout::Near { window } => {
                let most = 1u64 << (63 - buckets.max(2).leading_zeros());
                Layout::Near {
                    window: window.min(most.min(u64::from(MAX_WINDOW)) as u32),
                }
            }
        }
    }

    /// Checks a requested layout.
    ///
    /// # Errors
    /// A window that is not a power of two from [`MIN_WINDOW`] to [`MAX_WINDOW`].
    pub(crate) fn check(self) -> Result<()> {
        match self {
            Layout::Near { window } if !window_ok(window) || window < MIN_WINDOW => {
                Err(filter_core::Error::InvalidParameter {
                    name: "window",
                    value: window.to_string(),
                    expected: "a power of two from 1,024 (the default) to 1,048,576 buckets; \
                               narrower windows fill large tables to less than their capacity",
                })
            }
            _ => Ok(()),
        }
    }

    /// Checks a loaded layout against the loaded bucket count.
    pub(crate) fn check_loaded(self, buckets: u64) -> std::result::Result<(), FormatError> {
        let Layout::Near { window } = self else {
            return Ok(());
        };
        if !window_ok(window) {
            return Err(filter_core::format::invalid(format!(
                "near layout with a window of {window} buckets (a power of two from 2 to {MAX_WINDOW})"
            )));
        }
        if buckets % 2 != 0 || u64::from(window) > buckets {
            return Err(filter_core::format::invalid(format!(
                "near layout needs an even bucket count of at least its window: \
                 {buckets} buckets, window {window}"
            )));
        }
        Ok(())
    }
}

/// How a layout reads in messages: `spread`, or `near (window 1024)`.
impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Layout::Spread => f.write_str("spread"),
            Layout::Near { window } => write!(f, "near (window {window})"),
        }
    }
}

fn window_ok(window: u32) -> bool {
    window.is_power_of_two() && (2..=MAX_WINDOW).contains(&window)
}

/// The spread layout's partner of `bucket`: `(h - bucket) mod B` for `h = reduce(mix, B)`.
#[inline(always)]
pub(crate) fn spread_alt(bucket: u64, mix: u64, buckets: u64) -> u64 {
    let h = reduce(mix, buckets);
    if h >= bucket {
        h - bucket
    } else {
        h + buckets - bucket
    }
}

/// The near layout's partner of `bucket` (see the module docs); `buckets` even and at least
/// `window`, so the odd offset is below `buckets` and one correction brings it back in range.
#[inline(always)]
pub(crate) fn near_alt(bucket: u64, mix: u64, buckets: u64, window: u32) -> u64 {
    let off = 2 * reduce(mix, u64::from(window / 2)) + 1;
    debug_assert!(off < buckets && buckets % 2 == 0);
    if bucket & 1 == 0 {
        let j = bucket + off;
        if j >= buckets {
            j - buckets
        } else {
            j
        }
    } else if bucket >= off {
        bucket - off
    } else {
        bucket + buckets - off
    }
}

/// The false-positive rate of a filter of this layout with `f`-bit fingerprints, `buckets`
/// buckets and `items` keys. The spread layout's is [`math::cuckoo_fpr_exact`]. In the near
/// layout no bucket is its own partner, so every stored key of the query's fingerprint value
/// matches with probability `2/B` (its primary bucket is one of the query's two):
///
/// ```text
/// p = 1 - (1 - 2/(B·V))^n,   V = 2^f - 1
/// ```
///
/// (the derivation of [`math::cuckoo_fpr_exact`] without its self-paired term).
pub fn fpr_exact(layout: Layout, f: u32, buckets: u64, items: u64) -> f64 {
    match layout {
        Layout::Spread => math::cuckoo_fpr_exact(f, crate::SLOTS, buckets, items),
        Layout::Near { .. } => {
            if items == 0 || buckets == 0 {
                return 0.0;
            }
            let values = 2f64.powi(f as i32) - 1.0;
            let pair = 2.0 / (buckets as f64 * values);
            -(items as f64 * (-pair).ln_1p()).exp_m1()
        }
    }
}

#[cfg(test)]
mod tests;
