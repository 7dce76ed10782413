//! Course section: the Aleph filter — one table that doubles in place, fingerprints that give
//! up a bit per doubling, the rate after `k` doublings with variable-length fingerprints, what
//! the widening policy costs per doubling, and both measured at each doubling from a small
//! start.

use super::model::{Row, Section};
use super::probe::fp;
use super::stats::{pooled, Count};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::{ensure, Result};
use filterlab::aleph::math::{self as am, Widening};
use filterlab::aleph::AlephFilter;
use filterlab::{Filter, Growable};
use filterlab_charts::{LineChart, Series, SeriesStyle};

const P: f64 = 0.01;
/// The capacity every filter of the section is declared with.
const START: u64 = 1000;
/// Keys the worked example grows to.
const EXAMPLE_N: u64 = 10_000_000;

/// One checkpoint, the same in every repetition but for the counts.
struct Point {
    items: u64,
    doublings: u32,
    /// The filter's own formula (`expected_fpr`).
    formula: f64,
    /// Bits per key, measured (the table's bytes) and by `(w_k + 2.5)/α`.
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

/// Every checkpoint over the lab's repetitions, and the filter's bound.
fn measure(lab: &Lab<'_>) -> Result<(Vec<Point>, f64)> {
    let mut points: Vec<Point> = Vec::new();
    let mut bound = f64::NAN;
    for d in lab.draws("aleph/growth") {
        let mut f = AlephFilter::builder().capacity(START).fpr(P).build()?;
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
            let load = items as f64 / f.quotients() as f64;
            points.push(Point {
                items,
                doublings: f.expansions(),
                formula: f.expected_fpr(),
                bits: f.size_in_bytes() as f64 * 8.0 / items as f64,
                bits_formula: am::bits_per_key(f.slot_width(), load),
                reps: vec![count],
            });
        }
    }
    ensure!(!points.is_empty(), "the Aleph section measured nothing");
    Ok((points, bound))
}

/// The plot: the measured rate with its Wilson interval at each doubling, the formula, the
/// bound and the target, against the keys inserted.
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
        title: format!("Aleph filter grown from {START} keys, target {}", pct(P)),
        x_label: "keys inserted".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: false,
        series: vec![
            Series::new("target", xs(P), SeriesStyle::Dashed),
            Series::new("bound over every doubling", xs(bound), SeriesStyle::Line),
            Series::new(
                "formula 1 - exp(-Σ λ_x 2^-F_x)",
                points.iter().map(|p| (p.items as f64, p.formula)).collect(),
                SeriesStyle::Dashed,
            ),
            Series::new("measured", measured.collect(), SeriesStyle::Points).with_spread(spread),
        ],
    }
}

fn example() -> Result<String> {
    let w = Widening::new(P, None)?;
    let q0 = filterlab::quotient::math::quotients_for(
        START,
        am::MAX_LOAD,
        filterlab::quotient::MIN_QUOTIENTS,
        filterlab::quotient::MAX_QUOTIENTS,
    )?;
    let (k, q, p) = w
        .after_inserts(q0, EXAMPLE_N)
        .ok_or_else(|| anyhow::anyhow!("{EXAMPLE_N} keys past the largest table"))?;
    let load = EXAMPLE_N as f64 / q as f64;
    let (kk, first) = am::planned_doublings(START, EXAMPLE_N)?;
    let told = Widening::new(P, Some(kk))?;
    let q0_told = filterlab::quotient::math::quotients_for(
        first,
        am::MAX_LOAD,
        filterlab::quotient::MIN_QUOTIENTS,
        filterlab::quotient::MAX_QUOTIENTS,
    )?;
    let (_, q_told, p_told) = told
        .after_inserts(q0_told, EXAMPLE_N)
        .ok_or_else(|| anyhow::anyhow!("no table for the estimate"))?;
    let bits: Vec<String> = (0..=k.min(14))
        .map(|x| w.fingerprint_bits(x).to_string())
        .collect();
    Ok(format!(
        "grown from {START} to {EXAMPLE_N} keys at {} with no estimate: Q0 = {q0}, and {EXAMPLE_N} keys need k = {k} doublings (Q = {q}, α = {load:.3}); \
         the generations' fingerprint bits F_0..F_{k} are {}; FP({k}) = {} (each full generation adds λ_x·2^-F_x); the slot is w = {} bits, so {:.2} bits per key. \
         Told the estimate: K = {kk} doublings from a first table of {q0_told} quotients (sized for {first} keys), F = {} bits for every entry at the estimate, \
         Q = {q_told}, w = {} bits: {:.2} bits per key at FP {}",
        pct(P),
        bits.join(", "),
        pct(p),
        w.slot_width(k),
        am::bits_per_key(w.slot_width(k), load),
        am::estimated_bits(P),
        told.slot_width(kk),
        am::bits_per_key(told.slot_width(kk), EXAMPLE_N as f64 / q_told as f64),
        pct(p_told),
    ))
}

/// The Aleph filter: its rate after each doubling with variable-length fingerprints and its
/// bits per key as it grows, measured at each doubling.
///
/// # Errors
/// A filter refusing its sizes or an insert.
pub fn aleph(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let (points, bound) = measure(lab)?;
    let mut rows: Vec<Row> = points
        .iter()
        .map(|p| {
            Row::new(
                format!(
                    "{} keys ({} doublings): {:.2} bits/key (formula {:.2})",
                    p.items, p.doublings, p.bits, p.bits_formula
                ),
                p.formula,
                p.reps.clone(),
            )
        })
        .collect();
    let all: Vec<Count> = super::expand::pooled_counts(points.iter().map(|p| &p.reps[..]));
    rows.push(Row::upper(
        "every checkpoint pooled: at most the bound",
        bound,
        all,
    ));
    let section = Section {
        figures: Vec::new(),
        title: "Aleph filter: one table that grows in place".into(),
        source: "Dayan, Bercea & Pagh 2024 (Aleph Filter, PVLDB 17(11)); Dayan, Bercea, Reviriego & Pagh 2023 (InfiniFilter, SIGMOD); filter_core::math::aleph".into(),
        example: example()?,
        rows,
        finding: finding(lab, &points, bound),
        plots: vec!["aleph_growth".into()],
    };
    Ok((
        section,
        vec![Plot::new("aleph_growth", chart(&points, bound))],
    ))
}

/// What the run shows: the highest upper end of the checkpoints' intervals against the target,
/// and the measured bits per key against the formula's.
fn finding(lab: &Lab<'_>, points: &[Point], bound: f64) -> String {
    let worst = points
        .iter()
        .map(|p| pooled(&p.reps).hi)
        .fold(f64::NAN, f64::max);
    let under = points.iter().all(|p| pooled(&p.reps).hi <= P);
    let off = points
        .iter()
        .map(|p| (p.bits / p.bits_formula - 1.0).abs())
        .fold(0.0, f64::max);
    format!(
        "Grown from {START} to {} keys in {} repetitions, each probed at every checkpoint with its own {} keys never inserted. \
         The filter's bound is {}; the highest upper end of a checkpoint's 95% interval is {}, so every checkpoint is {} the target of {}. \
         The measured bits per key are within {:.1}% of (w_k + 2.5)/α at every checkpoint (the rest: the table's extra slots past the last quotient, and the list of void groups).",
        points.last().map_or(START, |p| p.items),
        lab.reps,
        points
            .first()
            .and_then(|p| p.reps.first())
            .map_or(0, |c| c.trials),
        pct(bound),
        pct(worst),
        if under { "measured at or under" } else { "not shown to be under" },
        pct(P),
        off * 100.0,
    )
}

#[cfg(test)]
mod tests;
