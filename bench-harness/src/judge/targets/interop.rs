//! The goals of issue 40 that the interop study measures ([`crate::stages::interop`]), as rows
//! of the targets table, each through [`Ratio::recomputed`]:
//! - reading a foreign filter costs at most what reading filterlab's own costs, per MB, in the
//!   same rounds;
//! - the count estimated from a Bloom filter's bits lies within [`SPREADS`] documented spreads
//!   of the true count at every fill (the median over the fill's filters, its bootstrap
//!   interval inside the band);
//! - the rate `filterlab info` reports at the estimate, `(X/m)^k`, is the measured rate within
//!   [`FPR_BAND`] (rows whose expected false positives are too few to tell are information).

use crate::record::conditions::{Api, Conditions, Terms, Timed, OURS_HASH};
use crate::record::{Bound, Ratio, Role};
use crate::stages::interop::estimate::Fill;
use crate::stages::interop::reads::ReadPair;
use crate::stages::interop::InteropReport;

/// A foreign read over filterlab's, per MB, at most.
pub const READ_RATIO: f64 = 1.0;
/// Documented spreads of the estimate around the true count the median may lie within.
pub const SPREADS: f64 = 3.0;
/// The measured rate over the reported one, between `1 ∓` this.
pub const FPR_BAND: f64 = 0.15;
/// Expected false positives below which a rate row is information (too few to tell).
pub const FEW_FALSE_POSITIVES: f64 = 100.0;

/// Guava's hash, as the conditions name it.
const GUAVA_HASH: &str = "murmur3-x64-128 seed 0 (Guava's)";

fn conditions(hash: &str, bytes: u64, timed: Timed) -> Conditions {
    Conditions {
        api: Api::OneAtATime,
        achieved_fpr: None,
        hash: hash.into(),
        threads: 1,
        huge_pages: None,
        bytes: Some(bytes),
        timed,
        grown_from: None,
        keys: None,
    }
}

fn med(v: &[f64]) -> f64 {
    crate::measure::median(&mut v.to_vec())
}

fn read_row(p: &ReadPair) -> Ratio {
    let (f, o) = (p.foreign_ms_per_mb(), p.own_ms_per_mb());
    Ratio {
        what: format!(
            "interop: reading a {} of {} keys ({:.1} MB) over loading a filterlab {} file of the same keys, ms per MB",
            p.foreign.word(),
            p.keys,
            p.foreign_bytes as f64 / 1e6,
            p.foreign.own()
        ),
        role: Role::Target,
        numerator: format!("{}, ms per MB ({} rounds)", p.foreign.reader(), f.len()),
        numerator_value: med(&f),
        numerator_samples: f,
        denominator: "AnyFilter::load, ms per MB".into(),
        denominator_value: med(&o),
        denominator_samples: o,
        bound: Bound::AtMost(READ_RATIO),
        terms: Terms::NoWorse { bytes: None },
        numerator_conditions: conditions(p.foreign.hash(), p.foreign_bytes, Timed::Open),
        denominator_conditions: conditions(OURS_HASH, p.own_bytes, Timed::Open),
        ..Ratio::default()
    }
    .recomputed()
}

fn estimate_row(f: &Fill) -> Ratio {
    let n = f.keys as f64;
    let shares: Vec<f64> = f.estimates.iter().map(|e| e / n).collect();
    // Rounded up to four decimals, for the page.
    let band = (SPREADS * f.documented_sd() / n * 1e4).ceil() / 1e4;
    let cond = conditions(GUAVA_HASH, f.bits / 8, Timed::Bytes);
    Ratio {
        what: format!(
            "interop: count estimated from the bits at {}x the capacity ({} keys), over the true count",
            f.fill, f.keys
        ),
        role: Role::Target,
        numerator: format!(
            "Swamidass & Baldi estimate / true count ({} filters, documented sd {:.1} keys)",
            f.estimates.len(),
            f.documented_sd()
        ),
        numerator_value: med(&shares),
        numerator_samples: shares,
        denominator: "the true count / itself".into(),
        denominator_value: 1.0,
        denominator_samples: vec![1.0],
        bound: Bound::Between(1.0 - band, 1.0 + band),
        terms: Terms::NoWorse { bytes: None },
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    }
    .recomputed()
}

fn rate_row(f: &Fill) -> Ratio {
    let reported = f.reported_fpr();
    let role = if reported * f.probes as f64 >= FEW_FALSE_POSITIVES {
        Role::Target
    } else {
        Role::Information
    };
    let cond = conditions(GUAVA_HASH, f.bits / 8, Timed::Bytes);
    Ratio {
        what: format!(
            "interop: FP rate measured at {}x the capacity over the rate reported at the estimate",
            f.fill
        ),
        role,
        numerator: format!(
            "false positives / strangers ({} of {})",
            f.false_positives, f.probes
        ),
        numerator_value: f.false_positives as f64 / f.probes as f64,
        numerator_counts: Some((f.false_positives, f.probes)),
        denominator: "(set bits / m)^k, what `filterlab info` reports".into(),
        denominator_value: reported,
        denominator_samples: vec![reported],
        bound: Bound::Between(1.0 - FPR_BAND, 1.0 + FPR_BAND),
        terms: Terms::NoWorse { bytes: None },
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    }
    .recomputed()
}

/// Every goal (and information row) of the report: the reads, then each fill's estimate and
/// rate.
#[must_use]
pub fn goals(r: &InteropReport) -> Vec<Ratio> {
    let mut rows: Vec<Ratio> = r.reads.iter().map(read_row).collect();
    for f in &r.estimates {
        rows.push(estimate_row(f));
        rows.push(rate_row(f));
    }
    rows
}
