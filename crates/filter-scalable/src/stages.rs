//! The stages: their shapes, derived by arithmetic from the first stage, the growth and the
//! tightening, and their allocation under the memory cap.

use crate::{ScalableBloom, MAX_STAGES};
use filter_core::{math, BloomBits, Error, Filter, Result};

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stage {
    pub(crate) bits: BloomBits,
    pub(crate) capacity: u64,
    pub(crate) fpr: f64,
    pub(crate) len: u64,
}

impl filter_core::TableMemory for Stage {
    fn table_bytes(&self) -> usize {
        self.bits.size_in_bytes()
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.bits.huge_page_bytes()
    }
}

/// How a filter's stages are sized from their capacity and rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StageSizing {
    /// The fewest bits whose exact rate meets the stage's rate ([`math::classic_shape`], as the
    /// classic filter): what every filter built now uses.
    Exact,
    /// The textbook [`math::optimal_bits`] and [`math::optimal_hashes`], which miss the stage's
    /// rate slightly (0.100103% for 0.1%): what files saved before the exact rule hold. Such a
    /// file loads, and its later stages keep this rule, so that its shape stays derivable.
    Textbook,
}

impl StageSizing {
    /// The `(bits, hashes)` of a stage for `capacity` items at rate `fpr` under this rule.
    ///
    /// # Errors
    /// A capacity or rate the formulas refuse, or a size that overflows.
    pub fn shape(self, capacity: u64, fpr: f64) -> Result<(u64, u32)> {
        let textbook = || -> Result<(u64, u32)> {
            let m = math::optimal_bits(capacity, fpr)?;
            Ok((m, math::optimal_hashes(m, capacity)))
        };
        match self {
            StageSizing::Textbook => textbook(),
            // A stage so deep that its rate needs more than 64 hashes (below about 4e-20, far
            // past where memory ends growth) keeps the textbook shape with 64 hashes, so that
            // the parameters accepted before the exact rule are accepted still.
            StageSizing::Exact => match math::classic_shape(capacity, fpr) {
                Err(Error::InvalidParameter { .. }) => textbook(),
                shape => shape,
            },
        }
    }
}

/// The shape of one stage, derived arithmetically (nothing allocated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct StagePlan {
    pub(crate) capacity: u64,
    pub(crate) fpr: f64,
    pub(crate) m: u64,
    pub(crate) k: u32,
}

impl ScalableBloom {
    /// The shape of stage `i`, derived by arithmetic alone (nothing is allocated, so a loader can
    /// compare a file's stages against it whatever the file claims).
    pub(crate) fn stage_plan(&self, i: usize) -> Result<StagePlan> {
        self.stage_plan_by(i, self.sizing_rule)
    }

    /// The rule the stages are sized by.
    pub fn stage_sizing(&self) -> StageSizing {
        self.sizing_rule
    }

    /// [`Self::stage_plan`] under `rule`.
    pub(crate) fn stage_plan_by(&self, i: usize, rule: StageSizing) -> Result<StagePlan> {
        let cap = (self.sizing.capacity as f64 * self.growth.powi(i as i32)).ceil();
        if i >= MAX_STAGES || cap >= u64::MAX as f64 {
            return Err(Error::SizeOverflow {
                what: "scalable filter",
                hint: format!("stage {i} would hold {cap:.3e} items; start with a larger capacity"),
            });
        }
        let capacity = cap as u64;
        let fpr = math::scalable_stage_fpr(self.initial_fpr(), self.tightening, i as u32);
        let (m, k) = rule.shape(capacity, fpr)?;
        Ok(StagePlan {
            capacity,
            fpr,
            m,
            k,
        })
    }

    /// The [`Growable`](filter_core::Growable) promise: inserts never fail for lack of capacity. With a growth factor
    /// near 1 (or a tightening that drives the stage rates below the smallest `f64`) the filter
    /// would run out of stages while memory remains; refuse such parameters up front, so that
    /// only memory (2^63 bits at most, or the cap) can end growth.
    pub(crate) fn check_growth_is_unbounded(&self) -> Result<()> {
        const ADDRESS_LIMIT_BITS: f64 = 9_223_372_036_854_775_808.0; // 2^63
        let mut bits = 0.0;
        for i in 0..MAX_STAGES {
            match self.stage_plan(i) {
                Ok(plan) => bits += plan.m as f64,
                Err(Error::SizeOverflow { .. }) => return Ok(()),
                Err(_) => break,
            }
            if bits >= ADDRESS_LIMIT_BITS {
                return Ok(());
            }
        }
        Err(Error::InvalidParameter {
            name: "growth",
            value: format!("{} (tightening {})", self.growth, self.tightening),
            expected: "a growth factor and tightening with which the filter can keep growing \
                       until memory runs out (within 256 stages): a growth of 2 (or at least \
                       about 1.2) and a tightening of 0.5 to 0.9",
        })
    }

    pub(crate) fn new_stage(&self, i: usize) -> Result<Stage> {
        let plan = self.stage_plan(i)?;
        let used = self.size_in_bytes() as u64;
        self.tables
            .cap
            .check("next scalable stage", used, BloomBits::bytes_for(plan.m))?;
        Ok(Stage {
            bits: BloomBits::with_cap(
                plan.m,
                plan.k,
                filter_core::TableOptions {
                    cap: filter_core::MemoryCap::NONE, // checked above, with the stages before
                    pages: self.tables.pages,
                },
            )?,
            capacity: plan.capacity,
            fpr: plan.fpr,
            len: 0,
        })
    }

    /// `(bits, hashes, capacity, items)` of each stage, oldest first.
    pub fn stage_shapes(&self) -> Vec<(u64, u32, u64, u64)> {
        self.stages
            .iter()
            .map(|s| (s.bits.bits(), s.bits.hashes(), s.capacity, s.len))
            .collect()
    }
}
