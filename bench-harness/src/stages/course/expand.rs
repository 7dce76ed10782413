//! Course section: the expandable cuckoo filter — the compound bound over its stages (each
//! stage's fingerprint one bit longer every `k` stages, so the sum converges under the target),
//! its bits per key as it grows, and both measured at each doubling from a small start.

use super::model::{Row, Section};
use super::probe::fp;
use super::stats::{pooled, Count};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::{ensure, Result};
use filterlab::expandable::{math, ExpandableCuckoo, DEFAULT_GROWTH, DEFAULT_PERIOD};
use filterlab::{Filter, Growable};
use filterlab_charts::{LineChart, Series, SeriesStyle};

const P: f64 = 0.01;
/// The capacity every filter of the section is built for.
const START: u64 = 1000;
/// Keys the worked example grows to.
const EXAMPLE_N: u64 = 1_000_000;

/// `log2` of the growth factor, as [`math::bits_per_key`] takes it.
fn growth_bits() -> u32 {
    DEFAULT_GROWTH.trailing_zeros()
}

/// One checkpoint of the growing filter, the same in every repetition but for the counts.
struct Point {
    items: u64,
    stages: usize,
    /// The filter's own compound formula, `1 - Π(1 - p_i)`.
    formula: f64,
    /// Bits per key, measured (the tables' bytes) and by [`math::bits_per_key`].
    bits: f64,
    bits_formula: f64,
    reps: Vec<Count>,
}

/// The checkpoints: every doubling of [`START`] up to `n`, and `n`.
fn sizes(n: u64) -> Vec<u64> {
    let mut out: Vec<u64> = std::iter::successors(Some(START), |&s| s.checked_mul(2))
        .take_while(|&s| s <= n)
        .collect();
    if out.last().is_some_and(|&s| s < n) {
        out.push(n);
    }
    out
}

/// Every checkpoint over the lab's repetitions, and the filter's bound `Σ 7.6·q(f_i)`.
fn measure(lab: &Lab<'_>) -> Result<(Vec<Point>, f64)> {
    let mut points: Vec<Point> = Vec::new();
    let mut bound = f64::NAN;
    for d in lab.draws("expandable/growth") {
        let mut f = ExpandableCuckoo::builder().capacity(START).fpr(P).build()?;
        bound = f.fpr_bound();
        for (i, items) in sizes(d.members.len() as u64).into_iter().enumerate() {
            for &h in &d.members[f.len() as usize..items as usize] {
                f.insert_hash(h)?;
            }
            let count = fp(&f, &d);
            if let Some(p) = points.get_mut(i) {
                p.reps.push(count);
                continue;
            }
            points.push(Point {
                items,
                stages: f.stages(),
                formula: f.expected_fpr(),
                bits: f.size_in_bytes() as f64 * 8.0 / items as f64,
                bits_formula: math::bits_per_key(START, P, growth_bits(), DEFAULT_PERIOD, items)?,
                reps: vec![count],
            });
        }
    }
    ensure!(
        !points.is_empty(),
        "the expandable section measured nothing"
    );
    Ok((points, bound))
}

/// Each repetition's counts summed over every checkpoint (each checkpoint's rate is at most the
/// bound, so their pooled rate is too).
fn pooled_over(points: &[Point]) -> Vec<Count> {
    pooled_counts(points.iter().map(|p| &p.reps[..]))
}

/// Each repetition's counts summed over checkpoints, given each checkpoint's counts (one per
/// repetition, in the same order).
pub(super) fn pooled_counts<'a>(mut checkpoints: impl Iterator<Item = &'a [Count]>) -> Vec<Count> {
    let Some(first) = checkpoints.next() else {
        return Vec::new();
    };
    let mut out: Vec<Count> = first.to_vec();
    for reps in checkpoints {
        for (o, c) in out.iter_mut().zip(reps) {
            o.hits += c.hits;
            o.trials += c.trials;
        }
    }
    out
}

/// The plot: the measured rate with its Wilson interval at each doubling, the compound
/// formula, the bound and the target, against the keys inserted.
fn chart(points: &[Point], bound: f64) -> LineChart {
    let xs = |v: f64| -> Vec<(f64, f64)> {
        [points.first(), points.last()]
            .into_iter()
            .flatten()
            .map(|p| (p.items as f64, v))
            .collect()
    };
    let measured = points
        .iter()
        .map(|p| (p.items as f64, pooled(&p.reps).rate));
    let spread = points.iter().map(|p| pooled(&p.reps).spread()).collect();
    LineChart {
        title: format!(
            "Expandable cuckoo filter grown from {START} keys, target {}",
            pct(P)
        ),
        x_label: "keys inserted".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: false,
        series: vec![
            Series::new("target", xs(P), SeriesStyle::Dashed),
            Series::new("bound Σ 8α·q(f_i)", xs(bound), SeriesStyle::Line),
            Series::new(
                "compound formula 1 - Π(1 - p_i)",
                points.iter().map(|p| (p.items as f64, p.formula)).collect(),
                SeriesStyle::Dashed,
            ),
            Series::new("measured", measured.collect(), SeriesStyle::Points).with_spread(spread),
        ],
    }
}

/// The keys at which each stage fills, oldest first, until one at or past `n`.
fn stage_ends(b0: u64, n: u64) -> Vec<u64> {
    let mut ends = Vec::new();
    let mut total = 0u64;
    let mut i = 0;
    while total < n {
        let Some(b) = math::stage_buckets(b0, growth_bits(), i) else {
            break;
        };
        total += math::stage_capacity(b);
        ends.push(total);
        i += 1;
    }
    ends
}

fn example() -> Result<String> {
    let (d, k) = (growth_bits(), DEFAULT_PERIOD);
    let b0 = math::initial_buckets(START);
    let stages = math::possible_stages(b0, d);
    let f0 = math::initial_fingerprint_bits(P, k, stages)?;
    let ends = stage_ends(b0, EXAMPLE_N);
    let last = ends.len().saturating_sub(1) as u32;
    let before = ends.len().checked_sub(2).map_or(START, |i| ends[i]);
    let bpk = |n: u64| math::bits_per_key(START, P, d, k, n);
    Ok(format!(
        "grown from {START} to {EXAMPLE_N} keys at {}, growth {DEFAULT_GROWTH}, k = {k}: the first stage has {b0} buckets; the filter can have at most {stages} stages, \
         so f0 = {f0} bits, the smallest with Σ_i {}·q(f_i) ≤ {} over them: the sum is {} (the infinite series {}; the same {stages} stages all at f0 bits would sum to {}). \
         At {EXAMPLE_N} keys there are {} stages, the newest with {} bits; bits per key {:.2}. The sawtooth at the newest stage: {:.2} bits per key at {before} keys (every stage full), {:.2} one key later (the new stage allocated empty)",
        pct(P),
        2.0 * f64::from(math::SLOTS) * math::DESIGN_LOAD,
        pct(P),
        pct(math::schedule_bound(f0, k, stages)),
        pct(math::series_bound(f0, k)),
        pct(f64::from(stages) * math::stage_bound(f0)),
        ends.len(),
        math::stage_fingerprint_bits(f0, k, last),
        bpk(EXAMPLE_N)?,
        bpk(before)?,
        bpk(before + 1)?,
    ))
}

/// The expandable filter: the compound bound over its stages and its bits per key as it grows,
/// measured at each doubling.
///
/// # Errors
/// A filter refusing its sizes or an insert.
pub fn expandable(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let (points, bound) = measure(lab)?;
    let mut rows: Vec<Row> = points
        .iter()
        .map(|p| {
            Row::new(
                format!(
                    "{} keys (stages: {}): {:.2} bits/key (formula {:.2})",
                    p.items, p.stages, p.bits, p.bits_formula
                ),
                p.formula,
                p.reps.clone(),
            )
        })
        .collect();
    rows.push(Row::upper(
        "every checkpoint pooled: at most the bound",
        bound,
        pooled_over(&points),
    ));
    let finding = finding(lab, &points, bound);
    let section = Section {
        figures: Vec::new(),
        title: "Expandable cuckoo filter: a bound that holds as it grows".into(),
        source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014 (cuckoo filter); Almeida, Baquero, Preguiça & Hutchison 2007 (tightening stages); Dayan et al. 2023 (InfiniFilter, deleting the newest match); filter_core::math::expandable".into(),
        example: example()?,
        rows,
        finding,
        plots: vec!["expandable_growth".into()],
    };
    Ok((
        section,
        vec![Plot::new("expandable_growth", chart(&points, bound))],
    ))
}

/// What the run shows: the highest upper end of the checkpoints' intervals against the target,
/// and the bits per key, just before and after each new stage, by formula.
fn finding(lab: &Lab<'_>, points: &[Point], bound: f64) -> String {
    let worst = points
        .iter()
        .map(|p| pooled(&p.reps).hi)
        .fold(f64::NAN, f64::max);
    let at_or_under = points.iter().all(|p| pooled(&p.reps).hi <= P);
    let n = points.last().map_or(START, |p| p.items);
    let ends = stage_ends(math::initial_buckets(START), n);
    let d = growth_bits();
    let saw: Vec<String> = ends
        .iter()
        .take_while(|&&e| e < n)
        .map(|&e| {
            let b = |x| math::bits_per_key(START, P, d, DEFAULT_PERIOD, x).unwrap_or(f64::NAN);
            format!("{e}: {:.2} → {:.2}", b(e), b(e + 1))
        })
        .collect();
    format!(
        "Grown from {START} to {n} keys in {} repetitions, each probed at every checkpoint with its own {} keys never inserted. \
         The filter's bound is {}; the highest upper end of a checkpoint's 95% interval is {}, so every checkpoint is {} the target of {}. \
         Bits per key by formula, at the keys where each stage is full and one key later (the next stage allocated): {}.",
        lab.reps,
        points
            .first()
            .and_then(|p| p.reps.first())
            .map_or(0, |c| c.trials),
        pct(bound),
        pct(worst),
        if at_or_under {
            "measured at or under"
        } else {
            "not shown to be under"
        },
        pct(P),
        saw.join("; "),
    )
}

#[cfg(test)]
mod tests;
