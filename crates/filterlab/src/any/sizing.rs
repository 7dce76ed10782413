//! Sizing without allocating: what each variant's builder would allocate for `n` items at rate
//! `p`, from the formulas of [`crate::math`] and the variants' public constants. Nothing here is
//! a formula of its own: the tests build the real filters and check every plan against them.

pub use super::parameter::Value;
use super::realised::{ExpandableStage, ScalableStage};
use super::{Params, Variant};
use crate::{counting, cuckoo, expandable, math, quotient, vqf, Result};

mod growing;
mod positions;
use growing::expandable_rate;
pub use growing::scalable_at;
pub(crate) use growing::{aleph, expandable, scalable, Schedule};

/// Growth multiples a scalable plan is shown at (beside 1x).
pub const GROWTH_SHOWN: [u64; 3] = [2, 4, 10];

/// One variant sized for `n` items at rate `fpr`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Plan {
    /// The variant.
    pub variant: Variant,
    /// Items.
    pub n: u64,
    /// Target rate.
    pub fpr: f64,
    /// Bytes of the table(s) the builder allocates.
    pub bytes: u64,
    /// `8 · bytes / n`.
    pub bits_per_key: f64,
    /// `n log2(1/p)` bits: no structure can do with less.
    pub lower_bound_bits: f64,
    /// `bits / lower bound - 1`, in percent.
    pub overhead_pct: f64,
    /// The rate the formula predicts at `n` items with the realised parameters.
    pub expected_fpr: f64,
    /// Variant-specific parameters.
    pub detail: Detail,
}

/// The shape of a sized filter: what its formulas need.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(tag = "kind", rename_all = "lowercase"))]
#[non_exhaustive]
pub enum Detail {
    /// `m` bits probed by `k` hashes.
    Classic {
        /// Bits `m`.
        m: u64,
        /// Hash functions `k`.
        k: u32,
    },
    /// `m` counters probed by `k` hashes, and the overflow bound at `n`.
    Counting {
        /// Counters `m`.
        m: u64,
        /// Hash functions `k`.
        k: u32,
        /// Bits per counter.
        counter_bits: u32,
        /// Upper bound on P(some counter overflows) at `n` items.
        overflow_bound: f64,
    },
    /// Fingerprint bits, buckets, slots per bucket and load at `n`.
    Cuckoo {
        /// Fingerprint bits `f`.
        fingerprint_bits: u32,
        /// Buckets.
        buckets: u64,
        /// Slots per bucket `b`.
        slots: u32,
        /// Load factor at `n` items.
        load: f64,
        /// The near layout's window in buckets (`None`: the spread layout, second bucket
        /// anywhere).
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        near_window: Option<u32>,
    },
    /// 256-bit blocks and the keys per block.
    Blocked {
        /// Blocks.
        blocks: u64,
        /// Keys per block `λ` (at the target rate when planned; `n / blocks` for a file).
        keys_per_block: f64,
    },
    /// Quotients (home slots), remainder bits, slots and load at `n` (a quotient filter).
    Quotient {
        /// Quotients `Q`.
        quotients: u64,
        /// Remainder bits `r`.
        remainder_bits: u32,
        /// Slots: `Q` and the extra slots past the last quotient, in whole blocks of 64.
        slots: u64,
        /// Load `α = n / Q` at `n` items.
        load: f64,
    },
    /// A binary fuse filter: fingerprint width, slots and segment length.
    Fuse {
        /// Fingerprint bits `F`: the rate is `2^-F`.
        fingerprint_bits: u32,
        /// Slots of the array, `(c + 2)·L`.
        slots: u64,
        /// Slots per segment `L`.
        segment_length: u32,
    },
    /// A standard ribbon filter: result columns, slots, and the boundary below which keys
    /// have one more column.
    Ribbon {
        /// Result bits `r` every key has.
        result_bits: u32,
        /// Slots (rows) `m`.
        slots: u64,
        /// Starts below this have `r + 1` result bits.
        boundary: u64,
    },
    /// A vector quotient filter's blocks, its load at `n` and the share of overflow bits the
    /// model expects there (`filter_core::math::vqf`).
    Vqf {
        /// 64-byte blocks of 48 slots.
        blocks: u64,
        /// Load factor at `n` items.
        load: f64,
        /// The share of overflow bits set: in a plan, the model's at `n` (inserts only); in a
        /// built filter's [`AnyFilter::detail`](super::AnyFilter::detail), the table's own.
        overflow_share: f64,
    },
    /// An Aleph filter's table now (a plan: its first table) and its widening policy.
    Aleph {
        /// Quotients `Q = Q0·2^k`.
        quotients: u64,
        /// Bits per slot: the longest fingerprint and its marker.
        slot_width: u32,
        /// Fingerprint bits of the keys inserted now.
        fingerprint_bits: u32,
        /// Doublings so far `k` (0 in a plan).
        doublings: u32,
        /// The target rate the widening policy keeps to.
        target: f64,
        /// `K`, the doublings to the growth estimate, if one was given.
        #[cfg_attr(
            feature = "serde",
            serde(default, skip_serializing_if = "Option::is_none")
        )]
        planned: Option<u32>,
        /// The rate bound over every doubling the table can make.
        bound: f64,
    },
    /// The first stage of an expandable cuckoo filter and its growth schedule.
    Expandable {
        /// Fingerprint bits `f0` of the first stage.
        fingerprint_bits: u32,
        /// Buckets `B0` of the first stage (4 slots each).
        buckets: u64,
        /// Each new stage has `growth` times the buckets of the one before.
        growth: u32,
        /// One more fingerprint bit every `period` stages.
        period: u32,
        /// The rate bound `Σ 7.6 q(f_i)` over every stage the filter can have.
        bound: f64,
        /// The stages of a built filter, oldest first (empty in a plan: see
        /// [`AnyFilter::detail`](super::AnyFilter::detail)).
        #[cfg_attr(feature = "serde", serde(default))]
        stages: Vec<ExpandableStage>,
    },
    /// A window counted in items in lane-sliced generations (`item-window`): `N` generations
    /// of `g` items per window, `N + 1` kept, sharing `m` positions and `k` probes.
    Sliced {
        /// Generations per window `N`.
        generations: u32,
        /// Items per generation `g = ceil(window / N)`.
        per_generation: u64,
        /// Positions `m`, each a lane of `N + 1` bits.
        m: u64,
        /// Probes per key `k`.
        k: u32,
    },
    /// A window counted in time in lane-sliced generations (`time-window`): slices of
    /// `slice_ticks`, each sized for its share `g` of the items of a window.
    TimeSliced {
        /// The window, in the caller's ticks.
        window_ticks: u64,
        /// Ticks per slice, `ceil(window / N)`.
        slice_ticks: u64,
        /// Slices per window `N`.
        generations: u32,
        /// Items per slice `g = ceil(items per window / N)`.
        per_generation: u64,
        /// Positions `m`, each a lane of `N + 1` bits.
        m: u64,
        /// Probes per key `k`.
        k: u32,
    },
    /// An age-partitioned Bloom filter (`apbf`): `k + l` slices of `m` bits, a shift every `g`
    /// inserts.
    AgePartitioned {
        /// Slices each insert sets a bit in, and a match needs in a row.
        k: u32,
        /// Generations per window.
        l: u32,
        /// Inserts per generation `g = ceil(window / l)`.
        per_generation: u64,
        /// Bits per slice `m` (whole 64-bit words).
        slice_bits: u64,
    },
    /// The first stage and the stage plan as the filter grows.
    Scalable {
        /// First-stage rate `P0 = P(1 - r)`.
        p0: f64,
        /// Tightening ratio `r`.
        r: f64,
        /// Growth factor `s`.
        s: f64,
        /// The filter at 1x and at each multiple of [`GROWTH_SHOWN`].
        growth: Vec<Growth>,
        /// The stages of a built filter, oldest first (empty in a plan: see
        /// [`AnyFilter::detail`](super::AnyFilter::detail)).
        #[cfg_attr(feature = "serde", serde(default))]
        stages: Vec<ScalableStage>,
    },
}

/// A scalable filter after `multiple · n` inserts.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Growth {
    /// Items inserted, as a multiple of the initial capacity.
    pub multiple: u64,
    /// Stages allocated.
    pub stages: usize,
    /// Bytes of all stages.
    pub bytes: u64,
    /// Compound rate `1 - Π(1 - p_i)` at that load.
    pub compound_fpr: f64,
    /// The bound `P0 / (1 - r)` it never exceeds.
    pub bound: f64,
}

/// What a variant's sizing function gives: bytes, the rate at `n`, the shape.
pub(crate) type Sizing = (u64, f64, Detail);

impl Plan {
    /// Assembles a plan from a variant's sizing.
    pub(crate) fn new(variant: Variant, n: u64, fpr: f64, sized: Sizing) -> Self {
        let (bytes, expected_fpr, detail) = sized;
        let lower_bound_bits = math::lower_bound_bits(n, fpr);
        let bits = bytes as f64 * 8.0;
        Plan {
            variant,
            n,
            fpr,
            bytes,
            bits_per_key: bits / n as f64,
            lower_bound_bits,
            overhead_pct: (bits / lower_bound_bits - 1.0) * 100.0,
            expected_fpr,
            detail,
        }
    }

    /// The bytes of this plan's filter after `items` inserts: a growing filter's stages
    /// allocated by then (`u64::MAX` when they cannot be sized), any other's table.
    #[must_use]
    pub fn bytes_after(&self, items: u64) -> u64 {
        match &self.detail {
            Detail::Scalable { r, s, .. } => {
                let p = Params::new(self.n, self.fpr).tightening(*r).growth(*s);
                scalable_at(&p, items).map_or(u64::MAX, |g| g.bytes)
            }
            Detail::Aleph { .. } if items > self.n => {
                growing::aleph_after(self, items).map_or(u64::MAX, |(_, bytes, _)| bytes)
            }
            Detail::Expandable { growth, period, .. } if items > self.n => {
                expandable::math::bits_per_key(
                    self.n,
                    self.fpr,
                    growth.trailing_zeros(),
                    *period,
                    items,
                )
                .map_or(u64::MAX, |b| (b * items as f64 / 8.0).ceil() as u64)
            }
            // The growing ones at or below their declared n, and every fixed table. No `_`
            // arm: a new variant's detail must say here whether its bytes grow.
            Detail::Aleph { .. }
            | Detail::Expandable { .. }
            | Detail::Classic { .. }
            | Detail::Counting { .. }
            | Detail::Cuckoo { .. }
            | Detail::Blocked { .. }
            | Detail::Quotient { .. }
            | Detail::Fuse { .. }
            | Detail::Ribbon { .. }
            | Detail::Vqf { .. }
            | Detail::Sliced { .. }
            | Detail::TimeSliced { .. }
            | Detail::AgePartitioned { .. } => self.bytes,
        }
    }

    /// The rate of this plan's filter after `items` inserts; `None` if it cannot hold them
    /// (a full cuckoo table) or, for a growing filter, at a multiple the plan does not show.
    #[must_use]
    pub fn rate_at(&self, items: u64) -> Option<f64> {
        match &self.detail {
            Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
                Some(math::classic_fpr_best(*m, items, *k))
            }
            Detail::Blocked { blocks, .. } => Some(math::split_block_fpr(*blocks, items)),
            // A static filter holds its set and takes no more keys.
            Detail::Fuse { .. } | Detail::Ribbon { .. } => {
                (items <= self.n).then_some(self.expected_fpr)
            }
            Detail::Expandable { .. } => self
                .detail
                .expandable_schedule()
                .and_then(|s| expandable_rate(s, items)),
            Detail::Aleph { .. } => growing::aleph_after(self, items).map(|(_, _, p)| p),
            Detail::Quotient {
                quotients,
                remainder_bits,
                ..
            } => {
                let max = quotient::math::quotient_max_items(*quotients, quotient::math::MAX_LOAD);
                (items <= max)
                    .then(|| quotient::math::quotient_fpr_exact(*quotients, *remainder_bits, items))
            }
            Detail::Cuckoo {
                fingerprint_bits,
                buckets,
                slots,
                near_window,
                ..
            } => {
                let load = items as f64 / (*buckets as f64 * f64::from(*slots));
                let layout = cuckoo::Layout::from_near_window(*near_window);
                (load <= cuckoo::DESIGN_LOAD + 1e-9)
                    .then(|| cuckoo::layout::fpr_exact(layout, *fingerprint_bits, *buckets, items))
            }
            Detail::Vqf { blocks, .. } => {
                let load = items as f64 / (*blocks as f64 * f64::from(vqf::block::SLOTS));
                (load <= vqf::DESIGN_LOAD + 1e-9).then(|| vqf_rate(load))
            }
            Detail::Sliced { .. } | Detail::TimeSliced { .. } | Detail::AgePartitioned { .. } => {
                super::window::rate_at(&self.detail, items)
            }
            Detail::Scalable { growth, .. } => {
                let multiple = items / self.n.max(1);
                growth
                    .iter()
                    .find(|g| g.multiple == multiple)
                    .map(|g| g.compound_fpr)
            }
        }
    }
}

/// Bytes of a `BloomBits` array of `m` bits (whole 64-bit words).
fn bloom_bytes(m: u64) -> u64 {
    m.div_ceil(64) * 8
}

pub(crate) fn classic(p: &Params) -> Result<Sizing> {
    let (m, k) = math::classic_shape(p.capacity, p.fpr)?;
    let expected = math::classic_fpr_best(m, p.capacity, k);
    Ok((bloom_bytes(m), expected, Detail::Classic { m, k }))
}

pub(crate) fn counting(p: &Params) -> Result<Sizing> {
    let n = p.capacity;
    let (m, k) = math::classic_shape(n, p.fpr)?;
    let counter_bits = counting::COUNTER_BITS;
    let detail = Detail::Counting {
        m,
        k,
        counter_bits,
        overflow_bound: math::counting_overflow_bound(m, n, k, counter_bits),
    };
    Ok((m.div_ceil(2), math::classic_fpr_best(m, n, k), detail))
}

pub(crate) fn blocked(p: &Params) -> Result<Sizing> {
    let n = p.capacity;
    let keys_per_block = math::split_block_keys_per_block(p.fpr)?;
    let blocks = math::split_block_blocks(n, p.fpr)?;
    let detail = Detail::Blocked {
        blocks,
        keys_per_block,
    };
    let expected = math::split_block_fpr(blocks, n);
    Ok((blocks.saturating_mul(32), expected, detail))
}

pub(crate) fn cuckoo(p: &Params) -> Result<Sizing> {
    let (n, slots) = (p.capacity, cuckoo::SLOTS);
    let f = match p.fingerprint_bits {
        Some(f) => f,
        None => math::cuckoo_fingerprint_bits(p.fpr, slots)?,
    };
    if !(1..=32).contains(&f) {
        return Err(crate::Error::InvalidParameter {
            name: "fpr",
            value: math::format_real(p.fpr),
            expected: "a rate above about 2e-9 for a cuckoo filter (32-bit fingerprints at most); \
                       use a Bloom filter below it",
        });
    }
    let layout = p.cuckoo_layout.unwrap_or_default();
    let buckets = layout.buckets(cuckoo::buckets_for(n)?);
    let table_bits = buckets
        .checked_mul(u64::from(slots) * u64::from(f))
        .ok_or_else(|| crate::Error::SizeOverflow {
            what: "cuckoo table",
            hint: format!("{n} items need {buckets} buckets of {f}-bit slots; lower the capacity"),
        })?;
    // The table is padded with 8 bytes so every slot can be read as one 8-byte window.
    let bytes = table_bits.div_ceil(8).saturating_add(8);
    let load = n as f64 / (buckets as f64 * f64::from(slots));
    let layout = layout.fit(buckets);
    let expected = cuckoo::layout::fpr_exact(layout, f, buckets, n);
    let detail = Detail::Cuckoo {
        fingerprint_bits: f,
        buckets,
        slots,
        load,
        near_window: layout.near_window(),
    };
    Ok((bytes, expected, detail))
}

/// The slots and bytes of a rank-and-select table of `q` quotients and `r`-bit remainders
/// (`filter_quotient`'s): whole blocks of 64 slots, each with its 32-bit offset, two metadata
/// words and the packed remainders, and a 16-byte tail.
pub(crate) fn rsqf_bytes(q: u64, r: u32) -> Result<(u64, u64)> {
    quotient::table::table_bytes(q, r)
}

pub(crate) fn quotient(p: &Params) -> Result<Sizing> {
    use quotient::math as qm;
    let n = p.capacity;
    let q = qm::quotients_for(
        n,
        qm::MAX_LOAD,
        quotient::MIN_QUOTIENTS,
        quotient::MAX_QUOTIENTS,
    )?;
    let r = qm::quotient_remainder_bits(p.fpr, qm::MAX_LOAD)?;
    // As the builder's table: 1 to 64 remainder bits.
    if r > 64 {
        return Err(crate::Error::InvalidParameter {
            name: "fpr",
            value: math::format_real(p.fpr),
            expected: "a rate of at least about 5e-20 for a quotient filter (64 remainder bits)",
        });
    }
    // The table of `filter_quotient`: whole blocks of 64 slots (offset, metadata, remainders).
    let (slots, bytes) = rsqf_bytes(q, r)?;
    let detail = Detail::Quotient {
        quotients: q,
        remainder_bits: r,
        slots,
        load: n as f64 / q as f64,
    };
    Ok((bytes, qm::quotient_fpr_exact(q, r, n), detail))
}

/// A binary fuse filter of `bits`-bit fingerprints for `p.capacity` distinct keys, its layout
/// before any retry adds a segment; refused when `2^-bits` is above the target rate.
pub(crate) fn fuse(p: &Params, bits: u32) -> Result<Sizing> {
    use crate::fuse::math as fm;
    fm::fuse_check_rate(p.fpr, bits)?;
    let layout = fm::Layout::for_keys(p.capacity, 0)?;
    let slots = u64::from(layout.array_length);
    let detail = Detail::Fuse {
        fingerprint_bits: bits,
        slots,
        segment_length: layout.segment_length,
    };
    Ok((slots * u64::from(bits / 8), fm::fuse_fpr(bits), detail))
}

/// A standard ribbon filter for `p.capacity` distinct keys at `p.fpr`, before any retry adds
/// slots: `r` columns for every key, one more below the boundary (as `filter_ribbon` builds).
pub(crate) fn ribbon(p: &Params) -> Result<Sizing> {
    use crate::ribbon::math as rm;
    let (r, upper) = rm::ribbon_columns(p.fpr)?;
    let slots = rm::ribbon_slots(p.capacity, 0)?;
    let shape = rm::ribbon_shape(slots, upper)?;
    let detail = Detail::Ribbon {
        result_bits: r,
        slots,
        boundary: shape.boundary,
    };
    let bytes = rm::ribbon_table_bytes(r, slots, shape.extra_slots);
    Ok((
        bytes,
        rm::ribbon_fpr(r, shape.boundary, shape.starts),
        detail,
    ))
}

/// The vector quotient filter's rate at load `α` after inserts: the model's share of overflow
/// bits in `filter_core::math::vqf`'s rate.
pub(crate) fn vqf_rate(load: f64) -> f64 {
    math::vqf::vqf_fpr(load, math::vqf::vqf_overflow_share(load))
}

pub(crate) fn vqf(p: &Params) -> Result<Sizing> {
    math::vqf::vqf_check_fpr(p.fpr, vqf::DESIGN_LOAD)?;
    let blocks = vqf::blocks_for(p.capacity)?;
    let load = p.capacity as f64 / (blocks as f64 * f64::from(vqf::block::SLOTS));
    let detail = Detail::Vqf {
        blocks,
        load,
        overflow_share: math::vqf::vqf_overflow_share(load),
    };
    Ok((blocks.saturating_mul(64), vqf_rate(load), detail))
}
