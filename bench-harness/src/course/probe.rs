//! Measuring a false-positive rate: probes that were never inserted, counted, with a 95% Wilson
//! interval from `filter_core::math`.

use filterlab::{math, Filter, Hash128, KeyHasher};
use serde::Serialize;

/// Normal quantile of a two-sided 95% interval.
pub const Z95: f64 = 1.96;

/// A measured rate: `hits` of `trials`, with its 95% Wilson interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Measured {
    /// Positive answers (false positives, or false negatives where stated).
    pub hits: u64,
    /// Queries asked.
    pub trials: u64,
    /// `hits / trials`.
    pub rate: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
}

impl Measured {
    /// Whether `formula` can be compared with this measurement: both finite, and trials made.
    fn computable(&self, formula: f64) -> bool {
        self.trials > 0 && formula.is_finite() && self.lo.is_finite() && self.hi.is_finite()
    }

    /// `hits` of `trials`.
    pub fn new(hits: u64, trials: u64) -> Self {
        let (lo, hi) = math::wilson_interval(hits, trials, Z95);
        Measured {
            hits,
            trials,
            rate: if trials == 0 {
                0.0
            } else {
                hits as f64 / trials as f64
            },
            lo,
            hi,
        }
    }

    /// Adds another run's counts.
    pub fn merge(self, other: Measured) -> Self {
        Measured::new(self.hits + other.hits, self.trials + other.trials)
    }

    /// The interval as an error bar.
    pub fn spread(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }
}

/// How a formula compares with a measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The formula lies inside the measurement's 95% interval.
    Holds,
    /// The formula lies below the interval: it underestimates.
    Underestimates,
    /// The formula lies above the interval: it overestimates.
    Overestimates,
    /// A bound the measurement respects (the interval does not lie above it).
    BoundKept,
    /// A bound the measurement breaks (the whole interval lies above it).
    BoundBroken,
    /// The formula or the interval is not a finite number (a formula undefined there, or no
    /// trials): nothing to compare.
    NotComputable,
}

impl Verdict {
    /// Compares `formula` with `m`, allowing a relative slack `rel` for formulas that are
    /// asymptotic (0 for none).
    pub fn of(formula: f64, m: &Measured, rel: f64) -> Self {
        if !m.computable(formula) {
            Verdict::NotComputable
        } else if formula < m.lo * (1.0 - rel) {
            Verdict::Underestimates
        } else if formula > m.hi * (1.0 + rel) {
            Verdict::Overestimates
        } else {
            Verdict::Holds
        }
    }

    /// Compares an upper `bound` with `m`.
    pub fn of_bound(bound: f64, m: &Measured) -> Self {
        if !m.computable(bound) {
            Verdict::NotComputable
        } else if m.lo > bound {
            Verdict::BoundBroken
        } else {
            Verdict::BoundKept
        }
    }

    /// Words for the report.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Holds => "holds (inside the 95% interval)",
            Verdict::Underestimates => "underestimates (below the 95% interval)",
            Verdict::Overestimates => "overestimates (above the 95% interval)",
            Verdict::BoundKept => "bound kept (interval not above it)",
            Verdict::BoundBroken => "bound broken (interval above it)",
            Verdict::NotComputable => "not computable (formula or interval not finite)",
        }
    }
}

/// Whether one measured rate is clearly above another: their 95% intervals do not overlap.
pub fn clearly_above(a: &Measured, b: &Measured) -> bool {
    a.lo > b.hi
}

/// Keys hashed once with the default hasher (every library filter here uses it).
pub fn hash_all<'a>(keys: impl Iterator<Item = &'a [u8]>) -> Vec<Hash128> {
    let h = KeyHasher::default();
    keys.map(|k| h.hash(k)).collect()
}

/// Inserts `members` (already hashed) into `f`.
///
/// # Errors
/// A full table.
pub fn fill<F: Filter>(f: &mut F, members: &[Hash128]) -> filterlab::Result<()> {
    f.insert_hash_batch(members)
}

/// The false positives of `f` over `probes` (keys never inserted).
pub fn fp<F: Filter>(f: &F, probes: &[Hash128]) -> Measured {
    let mut out = Vec::with_capacity(probes.len());
    f.contains_hash_batch(probes, &mut out);
    Measured::new(
        out.iter().filter(|&&b| b).count() as u64,
        probes.len() as u64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_compare_with_the_interval() {
        let m = Measured::new(100, 10_000); // 1%, interval about 0.82%..1.22%
        assert_eq!(Verdict::of(0.01, &m, 0.0), Verdict::Holds);
        assert_eq!(Verdict::of(0.005, &m, 0.0), Verdict::Underestimates);
        assert_eq!(Verdict::of(0.02, &m, 0.0), Verdict::Overestimates);
        assert_eq!(Verdict::of(0.0125, &m, 0.1), Verdict::Holds);
        assert_eq!(Verdict::of_bound(0.01, &m), Verdict::BoundKept);
        assert_eq!(Verdict::of_bound(0.005, &m), Verdict::BoundBroken);
        // NaN compares false both ways and used to read as "holds".
        assert_eq!(Verdict::of(f64::NAN, &m, 0.0), Verdict::NotComputable);
        assert_eq!(Verdict::of(f64::INFINITY, &m, 0.0), Verdict::NotComputable);
        assert_eq!(Verdict::of_bound(f64::NAN, &m), Verdict::NotComputable);
        let none = Measured::new(0, 0);
        assert_eq!(Verdict::of(0.01, &none, 0.0), Verdict::NotComputable);
    }

    #[test]
    fn intervals_merge_and_separate() {
        let a = Measured::new(50, 10_000).merge(Measured::new(50, 10_000));
        assert_eq!((a.hits, a.trials), (100, 20_000));
        let b = Measured::new(400, 20_000);
        assert!(clearly_above(&b, &a) && !clearly_above(&a, &b) && !clearly_above(&a, &a));
    }
}
