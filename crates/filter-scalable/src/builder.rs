//! [`ScalableBuilder`] and the checks of its growth and tightening.

use crate::{ScalableBloom, DEFAULT_GROWTH, DEFAULT_TIGHTENING};
use filter_core::{accept_if, MemoryCap, Result, Sizing};

/// Builds a [`ScalableBloom`].
#[derive(Clone, Debug)]
pub struct ScalableBuilder {
    sizing: Sizing,
    growth: f64,
    tightening: f64,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl Default for ScalableBuilder {
    fn default() -> Self {
        ScalableBuilder {
            sizing: Sizing::default(),
            growth: DEFAULT_GROWTH,
            tightening: DEFAULT_TIGHTENING,
            cap: MemoryCap::NONE,
            pages: filter_core::Pages::Huge,
        }
    }
}

pub(crate) fn check_growth(s: f64) -> Result<f64> {
    accept_if(
        s.is_finite() && s > 1.0 && s <= 1024.0,
        "growth",
        s,
        "a growth factor above 1 and at most 1024 (2 doubles each new stage)",
    )
}

pub(crate) fn check_tightening(r: f64) -> Result<f64> {
    accept_if(
        r.is_finite() && r > 0.0 && r < 1.0,
        "tightening",
        r,
        "a tightening ratio strictly between 0 and 1 (0.8 to 0.9 is typical)",
    )
}

impl ScalableBuilder {
    filter_core::table_builder_setters!();

    filter_core::setters! {
        /// Growth factor `s > 1`: each new stage holds `s` times the previous one's items.
        growth(s: f64) => growth;
        /// Tightening ratio `0 < r < 1`: each new stage's rate is `r` times the previous one's.
        tightening(r: f64) => tightening;
    }

    /// Builds the filter with its first stage.
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1), a growth outside (1, 1024], a tightening outside
    /// (0, 1), a growth and tightening with which the filter would run out of stages (or of
    /// representable rates) before its stages reach 2^63 bits, or a first stage above the memory
    /// cap or too large to allocate.
    pub fn build(self) -> Result<ScalableBloom> {
        let mut f = ScalableBloom::validated(self.sizing, self.growth, self.tightening)?;
        f.tables = self.table_options();
        f.stages.push(f.new_stage(0)?);
        Ok(f)
    }
}
