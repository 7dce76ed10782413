//! The Aleph filter's bits per key without an estimate, judged where it means something
//! (issue 52): averaged over one doubling cycle (key counts log-uniform between two doublings)
//! and just before a doubling, each against quotient filters declared at the same key counts at
//! the same measured FP. The row at n alone (kept, for information) lands wherever n falls in
//! a cycle: just after a doubling the table is half empty, and no widening policy whose
//! budgets sum to the target reaches 1.5 there.

use super::{bits_row, quotient_bits, GOAL_BITS_NO_ESTIMATE};
use crate::judge::targets::growth::{at_most_one, conditions, grown, role};
use crate::record::conditions::Timed;
use crate::record::{Bound, Ratio};
use crate::stages::expansion::{Cycle, ExpansionReport};

/// Quotient bits per key at each point's measured FP, and at its Wilson interval's ends:
/// `[at the high ends, at the rates, at the low ends]`, averaged over the points.
fn quotient_means(c: &Cycle) -> [f64; 3] {
    let mut sums = [0.0; 3];
    for p in &c.points {
        let (lo, hi) = filterlab::math::wilson_interval(p.false_positives, p.probes, 1.96);
        sums[0] += quotient_bits(p.n, hi);
        sums[1] += quotient_bits(p.n, p.fpr());
        sums[2] += quotient_bits(p.n, lo);
    }
    sums.map(|s| s / c.points.len().max(1) as f64)
}

/// The mean bits per key over the cycle's points over the quotient filters' mean.
fn average_row(c: &Cycle, declared: u64, n: u64) -> Option<Ratio> {
    let last = c.points.last()?;
    let bits = c.points.iter().map(|p| p.bits_per_key()).sum::<f64>() / c.points.len() as f64;
    let fp = c.points.iter().map(|p| p.fpr()).sum::<f64>() / c.points.len() as f64;
    let [hi, at, lo] = quotient_means(c);
    let cond = conditions(last.bytes, Some(fp), Timed::Bytes);
    Some(
        Ratio {
            what: format!(
                "growth: {} bits per key averaged over one doubling cycle ({} points \
                 log-uniform in {}..{} keys) / quotient filters declared at those counts at \
                 the same measured FP",
                c.contender.name(),
                c.points.len(),
                c.from,
                c.to
            ),
            role: role(n),
            numerator: format!(
                "{}: mean bits per key grown from {declared} keys",
                c.contender.name()
            ),
            numerator_value: bits,
            numerator_samples: vec![bits],
            denominator: format!(
                "quotient declared at each count at its measured FP: mean bits per key (the \
                 Wilson intervals' ends: {hi:.2}–{lo:.2})"
            ),
            denominator_value: at,
            denominator_samples: vec![hi, at, lo],
            bound: Bound::AtMost(GOAL_BITS_NO_ESTIMATE),
            numerator_conditions: grown(cond.clone(), declared),
            ..at_most_one(cond)
        }
        .recomputed(),
    )
}

/// The pair's rows: the cycle's average and its fullest point (`None` in a report without a
/// cycle).
#[must_use]
pub fn rows(r: &ExpansionReport) -> Vec<Ratio> {
    let Some(c) = &r.cycle else {
        return Vec::new();
    };
    let (declared, n) = (r.settings.declared, r.settings.n);
    let mut before = bits_row(c.contender, &c.before, declared, GOAL_BITS_NO_ESTIMATE);
    before.what = format!(
        "growth: {} bits per key just before a doubling ({} keys) / a quotient filter declared \
         at {} keys at the same measured FP",
        c.contender.name(),
        c.before.n,
        c.before.n
    );
    before.role = role(n);
    average_row(c, declared, n)
        .into_iter()
        .chain([before.recomputed()])
        .collect()
}
