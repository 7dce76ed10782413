//! The numbers of the course's prose that come from a formula. Each is recorded with the
//! formula and its arguments beside the prose ([`super::model::Section::figures`]), computed
//! from `filter_core::math` or the library's own sizing and never from a rounded constant, so
//! the course's check ([`crate::check::course`]) recomputes it and finds it in the prose.

use crate::record::pct;
use anyhow::{anyhow, Result};
use filterlab::math;
use filterlab::math::window::ApbfPlan;
use serde::{Deserialize, Serialize};

/// What a figure is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Formula {
    /// Bits per key a classic filter of `n` keys at rate `p` allocates: `m / n` of
    /// `math::classic_shape`.
    ClassicBitsPerKey {
        /// Keys.
        n: u64,
        /// Target rate.
        p: f64,
    },
    /// The hashes `k` of `math::classic_shape`.
    ClassicHashes {
        /// Keys.
        n: u64,
        /// Target rate.
        p: f64,
    },
    /// `k n / m` of `math::classic_shape`: the mean number of inserts per bit (per counter).
    ClassicLoad {
        /// Keys.
        n: u64,
        /// Target rate.
        p: f64,
    },
    /// What a classic filter of `n` keys pays, in bits per key, for the rate `p · ratio`
    /// instead of `p` (the difference of their [`Formula::ClassicBitsPerKey`]).
    ClassicBitsForRatio {
        /// Keys.
        n: u64,
        /// The rate before.
        p: f64,
        /// The factor on the rate.
        ratio: f64,
    },
    /// What an optimal Bloom filter pays, in bits per key, for a rate `ratio` times as large:
    /// `log2(1 / ratio) / ln 2` (the formula, without rounding `k` or `m`).
    OptimalBitsForRatio {
        /// The factor on the rate.
        ratio: f64,
    },
    /// The rate below which a cuckoo filter of `f = log2(1/p) + extra` bits at load `alpha`
    /// costs fewer bits per key than an optimal Bloom filter's `log2(1/p) / ln 2`:
    /// `2^-x`, `x = (extra / alpha) / (1 / ln 2 - 1 / alpha)`.
    CuckooCrossover {
        /// Fingerprint bits over `log2(1/p)`.
        extra: f64,
        /// Load.
        alpha: f64,
    },
    /// `math::cuckoo_fingerprint_bits`.
    CuckooFingerprintBits {
        /// Target rate.
        p: f64,
        /// Slots per bucket.
        slots: u32,
    },
    /// Bits per in-window item of an age-partitioned filter: `ApbfPlan::least` for a window of
    /// `window` items at `p`, with `k` and `l` as given (chosen when absent).
    ApbfBitsPerItem {
        /// Items per window.
        window: u64,
        /// Target rate.
        p: f64,
        /// `k`, if given.
        k: Option<u32>,
        /// `l`, if given.
        l: Option<u32>,
    },
}

impl Formula {
    /// The value, from `filter_core::math` or the library's sizing.
    ///
    /// # Errors
    /// Arguments the formula refuses.
    pub fn value(&self) -> Result<f64> {
        let shape = |n: u64, p: f64| math::classic_shape(n, p);
        Ok(match *self {
            Formula::ClassicBitsPerKey { n, p } => shape(n, p)?.0 as f64 / n as f64,
            Formula::ClassicHashes { p, n } => f64::from(shape(n, p)?.1),
            Formula::ClassicLoad { n, p } => {
                let (m, k) = shape(n, p)?;
                f64::from(k) * n as f64 / m as f64
            }
            Formula::ClassicBitsForRatio { n, p, ratio } => {
                Formula::ClassicBitsPerKey { n, p: p * ratio }.value()?
                    - Formula::ClassicBitsPerKey { n, p }.value()?
            }
            Formula::OptimalBitsForRatio { ratio } => -ratio.log2() * std::f64::consts::LOG2_E,
            Formula::CuckooCrossover { extra, alpha } => {
                let x = extra / alpha / (std::f64::consts::LOG2_E - 1.0 / alpha);
                (-x).exp2()
            }
            Formula::CuckooFingerprintBits { p, slots } => {
                f64::from(math::cuckoo_fingerprint_bits(p, slots)?)
            }
            Formula::ApbfBitsPerItem { window, p, k, l } => ApbfPlan::least(window, p, k, l)
                .ok_or_else(|| anyhow!("no age-partitioned shape for {window} items at {p}"))?
                .bits_per_item(),
        })
    }
}

/// How a figure is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shown {
    /// With this many decimals.
    Decimals(u8),
    /// A rate, as [`pct`] writes it.
    Rate,
}

impl Shown {
    /// `value` written so.
    #[must_use]
    pub fn text(self, value: f64) -> String {
        match self {
            Shown::Decimals(d) => format!("{value:.*}", usize::from(d)),
            Shown::Rate => pct(value),
        }
    }
}

/// A number of the prose: its formula, its value and how it is written.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// What it is computed from.
    pub formula: Formula,
    /// Its value.
    pub value: f64,
    /// How the prose writes it.
    pub shown: Shown,
}

impl Figure {
    /// The figure as the prose writes it.
    #[must_use]
    pub fn text(&self) -> String {
        self.shown.text(self.value)
    }
}

/// A section's worked example, with the figures it shows.
#[derive(Debug)]
pub struct Prose {
    /// The worked example.
    pub example: String,
    /// Their figures.
    pub figures: Vec<Figure>,
}

/// The figures of one section, collected as its prose is written.
#[derive(Debug, Default)]
pub struct Figures(Vec<Figure>);

impl Figures {
    /// Computes `formula`, records it, and returns it as the prose writes it.
    ///
    /// # Errors
    /// Arguments the formula refuses.
    pub fn add(&mut self, formula: Formula, shown: Shown) -> Result<String> {
        let figure = Figure {
            formula,
            value: formula.value()?,
            shown,
        };
        self.0.push(figure);
        Ok(figure.text())
    }

    /// The figures recorded.
    #[must_use]
    pub fn into_vec(self) -> Vec<Figure> {
        self.0
    }
}
