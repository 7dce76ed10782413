//! A built filter's realised parameters ([`AnyFilter::detail`]) and what the variants' formulas
//! give from them alone: the rate at any load (what the filter's own `expected_fpr()` gives),
//! the standard approximations beside it, and the spread of the rate from one built table to
//! the next. A report that records a [`Detail`] per filter recomputes its theory here, so no
//! code outside the registry needs a formula per variant.

use super::sizing::Detail;
use super::AnyFilter;
use crate::{expandable, math, quotient};

/// One stage of a built scalable filter: a classic filter of `m` bits and `k` hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ScalableStage {
    /// Bits `m`.
    pub m: u64,
    /// Hash functions `k`.
    pub k: u32,
    /// Items the stage was sized for.
    pub capacity: u64,
    /// Items it holds.
    pub items: u64,
}

/// One stage of a built expandable filter: a cuckoo table of 4-slot buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExpandableStage {
    /// Buckets.
    pub buckets: u64,
    /// Fingerprint bits `f`.
    pub fingerprint_bits: u32,
    /// Items the stage takes before the next is made.
    pub capacity: u64,
    /// Items it holds.
    pub items: u64,
}

impl AnyFilter {
    /// The filter's realised parameters: the detail of [`AnyFilter::plan`], and for a growing
    /// filter every stage it has, with the items each holds, so that
    /// [`Detail::fpr_at`] gives what [`Filter::expected_fpr`](crate::Filter::expected_fpr)
    /// gives at any load.
    ///
    /// # Errors
    /// As [`AnyFilter::plan`].
    pub fn detail(&self) -> crate::Result<Detail> {
        let mut detail = self.plan()?.detail;
        match (&mut detail, self) {
            (Detail::Scalable { stages, .. }, AnyFilter::Scalable(f)) => {
                *stages = f
                    .stage_shapes()
                    .into_iter()
                    .map(|(m, k, capacity, items)| ScalableStage {
                        m,
                        k,
                        capacity,
                        items,
                    })
                    .collect();
            }
            (Detail::Expandable { stages, .. }, AnyFilter::Expandable(f)) => {
                *stages = f
                    .stage_shapes()
                    .into_iter()
                    .map(
                        |(buckets, fingerprint_bits, capacity, items)| ExpandableStage {
                            buckets,
                            fingerprint_bits,
                            capacity,
                            items,
                        },
                    )
                    .collect();
            }
            (Detail::Vqf { overflow_share, .. }, AnyFilter::Vqf(f)) => {
                *overflow_share = f.overflow_share();
            }
            _ => {}
        }
        Ok(detail)
    }
}

impl Detail {
    /// An Aleph filter's rate holding `n` keys: one table, as the quotient filter's, so any
    /// count it holds has a rate, with the generations before it at their largest load (as
    /// `expected_fpr` takes them); `None` past the table's 95%.
    fn aleph_rate(&self, n: u64) -> Option<f64> {
        let Detail::Aleph {
            quotients,
            doublings,
            target,
            planned,
            ..
        } = *self
        else {
            return None;
        };
        let full = quotient::math::quotient_max_items(quotients, 0.95);
        (n <= full).then_some(())?;
        let w = crate::aleph::math::Widening::new(target, planned).ok()?;
        let carried = match doublings {
            0 => 0,
            _ => quotient::math::quotient_max_items(quotients / 2, 0.95),
        };
        Some(w.fpr_after(
            doublings,
            n.saturating_sub(carried) as f64 / quotients as f64,
        ))
    }

    /// The rate of a filter with these realised parameters holding `n` items: the formula its
    /// `expected_fpr()` evaluates. `None` when they cannot hold `n`: a growing filter whose
    /// stages hold other than `n` items in all (or a plan's detail, which lists no stages), a
    /// table of no slots, a sliding window.
    #[must_use]
    pub fn fpr_at(&self, n: u64) -> Option<f64> {
        Some(match self {
            Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
                math::classic_fpr_best(*m, n, *k)
            }
            Detail::Cuckoo {
                fingerprint_bits,
                buckets,
                slots,
                near_window,
                ..
            } => {
                buckets.checked_mul(u64::from(*slots)).filter(|&c| c > 0)?;
                let layout = crate::cuckoo::Layout::from_near_window(*near_window);
                crate::cuckoo::layout::fpr_exact(layout, *fingerprint_bits, *buckets, n)
            }
            Detail::Blocked { blocks, .. } => math::split_block_fpr(*blocks, n),
            Detail::Vqf {
                blocks,
                overflow_share,
                ..
            } => {
                let slots = blocks
                    .checked_mul(u64::from(crate::vqf::block::SLOTS))
                    .filter(|&s| s > 0)?;
                math::vqf::vqf_fpr(n as f64 / slots as f64, *overflow_share)
            }
            Detail::Quotient {
                quotients,
                remainder_bits,
                ..
            } => quotient::math::quotient_fpr_exact(*quotients, *remainder_bits, n),
            // Built once from its set: every non-member passes with the same chance.
            Detail::Fuse {
                fingerprint_bits, ..
            } => crate::fuse::math::fuse_fpr(*fingerprint_bits),
            Detail::Ribbon {
                result_bits,
                slots,
                boundary,
            } => {
                let starts = slots
                    .checked_sub(crate::ribbon::W as u64 - 1)
                    .filter(|&s| s > 0)?;
                crate::ribbon::math::ribbon_fpr(*result_bits, *boundary, starts)
            }
            Detail::Scalable { stages, .. } => {
                holding(stages.iter().map(|s| s.items), n)?;
                math::compound_fpr(
                    stages
                        .iter()
                        .map(|s| math::classic_fpr_best(s.m, s.items, s.k)),
                )
            }
            Detail::Aleph { .. } => self.aleph_rate(n)?,
            Detail::Expandable { stages, .. } => {
                holding(stages.iter().map(|s| s.items), n)?;
                math::compound_fpr(
                    stages.iter().map(|s| {
                        expandable::math::stage_fpr(s.fingerprint_bits, s.buckets, s.items)
                    }),
                )
            }
            // A window's rate depends on how its items spread over the generations it keeps,
            // not on a count alone ([`Plan::rate_at`](super::Plan::rate_at) gives it for a
            // stream of steady inserts); the window stage measures it.
            Detail::Sliced { .. } | Detail::TimeSliced { .. } | Detail::AgePartitioned { .. } => {
                return None
            }
        })
    }

    /// The standard approximation shown beside [`Detail::fpr_at`]: `(1 - e^(-kn/m))^k` for a
    /// Bloom-shaped filter, the 256-bit-block model for a split-block one (which it
    /// underestimates), the formula itself for the others.
    #[must_use]
    pub fn approx_fpr(&self, n: u64) -> Option<f64> {
        match self {
            Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
                Some(math::classic_fpr(*m, n, *k))
            }
            Detail::Blocked { blocks, .. } => Some(math::split_block_fpr_block_model(*blocks, n)),
            _ => self.fpr_at(n),
        }
    }

    /// The exact rate of a Bloom-shaped filter (Christensen et al. 2010); `None` for the other
    /// variants, and where the exact sum is not evaluated.
    #[must_use]
    pub fn exact_fpr(&self, n: u64) -> Option<f64> {
        match self {
            Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
                math::classic_fpr_exact(*m, n, *k)
            }
            _ => None,
        }
    }

    /// The variance of the rate from one built table to the next at `n` items: one table is one
    /// random draw of its fill. Classic and counting: the occupancy variance of the set bits;
    /// scalable: its stages' variances added; split-block: the per-lane rate's variance over a
    /// Poisson block load. The others 0: a cuckoo, quotient or expandable table's rate is fixed
    /// by its load, which `n` fixes, and a static filter's by its fingerprint width.
    #[must_use]
    pub fn instance_variance(&self, n: u64) -> f64 {
        match self {
            Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
                math::bloom_rate_variance(*m, n, *k)
            }
            Detail::Scalable { stages, .. } => stages
                .iter()
                .map(|s| math::bloom_rate_variance(s.m, s.items, s.k))
                .sum(),
            Detail::Blocked { blocks, .. } => math::split_block_rate_variance(*blocks, n),
            _ => 0.0,
        }
    }
}

/// `Some` when the stages hold `n` items in all (and there is at least one).
fn holding(items: impl Iterator<Item = u64>, n: u64) -> Option<()> {
    let (mut count, mut total) = (0usize, 0u64);
    for i in items {
        count += 1;
        total = total.saturating_add(i);
    }
    (count > 0 && total == n).then_some(())
}

#[cfg(test)]
mod tests;
