//! Course section: the quotient filter — its rate with `r` remainder bits at load `α`, its
//! space per slot, and what a resize does to both, measured at several loads before and after
//! one resize.

use super::model::{Row, Section};
use super::probe::fp;
use super::stats::{pooled, Count};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::{ensure, Result};
use filterlab::quotient::{math, QuotientFilter};
use filterlab::{Filter, Hash128};
use filterlab_charts::{LineChart, Series, SeriesStyle};

const P: f64 = 0.01;
/// The loads (items over quotients) measured before the resize.
const LOADS: [f64; 5] = [0.25, 0.5, 0.75, 0.9, math::MAX_LOAD];
/// Keys of the worked example.
const EXAMPLE_N: u64 = 1_000_000;

/// One checkpoint of the filter, the same in every repetition but for the counts.
struct Point {
    items: u64,
    quotients: u64,
    rbits: u32,
    /// The filter's own formula at the checkpoint (`expected_fpr`, the exact form).
    formula: f64,
    /// Bits of the whole table over the items it holds.
    bits: f64,
    resized: bool,
    reps: Vec<Count>,
}

impl Point {
    fn load(&self) -> f64 {
        self.items as f64 / self.quotients as f64
    }
}

/// Inserts `members[f.len()..to]` into `f`.
fn fill_to(f: &mut QuotientFilter, members: &[Hash128], to: u64) -> Result<()> {
    let from = f.len() as usize;
    for &h in &members[from..to as usize] {
        f.insert_hash(h)?;
    }
    Ok(())
}

/// Every checkpoint, counted over the lab's repetitions: the loads of [`LOADS`] in a filter
/// sized for half the lab's keys, then one resize at the same items, then filled to the
/// resized table's full load (or to every key the lab has).
fn measure(lab: &Lab<'_>) -> Result<Vec<Point>> {
    let capacity = (lab.n / 2) as u64;
    let mut points: Vec<Point> = Vec::new();
    for d in lab.draws("quotient/load") {
        let mut f = QuotientFilter::builder()
            .capacity(capacity)
            .fpr(P)
            .build()?;
        let q0 = f.quotients();
        let mut targets: Vec<(u64, bool)> = LOADS
            .iter()
            .map(|a| (((a * q0 as f64).round() as u64).min(f.max_items()), false))
            .collect();
        // The same items again after the resize, then the resized table's full load.
        targets.push((f.max_items(), true));
        let full = math::quotient_max_items(2 * q0, math::MAX_LOAD);
        targets.push((full.min(d.members.len() as u64), true));
        for (i, &(items, resized)) in targets.iter().enumerate() {
            if resized && f.resizes() == 0 {
                f.resize()?;
            }
            fill_to(&mut f, &d.members, items)?;
            let count = fp(&f, &d);
            if let Some(p) = points.get_mut(i) {
                p.reps.push(count);
                continue;
            }
            points.push(Point {
                items: f.len(),
                quotients: f.quotients(),
                rbits: f.remainder_bits(),
                formula: f.expected_fpr(),
                bits: f.size_in_bytes() as f64 * 8.0 / f.len().max(1) as f64,
                resized,
                reps: vec![count],
            });
        }
    }
    ensure!(
        points.len() == LOADS.len() + 2,
        "the quotient section measured no repetition"
    );
    Ok(points)
}

/// The plot: the measured rate with its Wilson interval against the load, beside the
/// large-table formula `1 - e^(-α/2^r)` before and after the resize.
fn chart(points: &[Point]) -> LineChart {
    let mut series = Vec::new();
    for resized in [false, true] {
        let pts: Vec<&Point> = points.iter().filter(|p| p.resized == resized).collect();
        let Some(r) = pts.first().map(|p| p.rbits) else {
            continue;
        };
        let name = if resized {
            format!("after one resize, r = {r}")
        } else {
            format!("as built, r = {r}")
        };
        let theory: Vec<(f64, f64)> = (1..=19)
            .map(|i| f64::from(i) * math::MAX_LOAD / 19.0)
            .map(|a| (a, math::quotient_fpr(r, a)))
            .collect();
        series.push(Series::new(
            format!("{name}: 1 - e^(-α/2^r)"),
            theory,
            SeriesStyle::Dashed,
        ));
        let measured = pts.iter().map(|p| (p.load(), pooled(&p.reps).rate));
        let spread = pts.iter().map(|p| pooled(&p.reps).spread()).collect();
        series.push(
            Series::new(
                format!("{name}: measured"),
                measured.collect(),
                SeriesStyle::Points,
            )
            .with_spread(spread),
        );
    }
    LineChart {
        title: format!(
            "Quotient filter: false positives against the load, built for {}",
            pct(P)
        ),
        x_label: "load α = items / quotients".into(),
        y_label: "false-positive rate".into(),
        x_log: false,
        y_log: false,
        series,
    }
}

fn example() -> Result<String> {
    let r = math::quotient_remainder_bits(P, math::MAX_LOAD)?;
    let f = QuotientFilter::builder()
        .capacity(EXAMPLE_N)
        .fpr(P)
        .build()?;
    let reserve = QuotientFilter::builder()
        .capacity(EXAMPLE_N)
        .fpr(P)
        .growth_reserve(1)
        .build()?;
    let q = f.quotients();
    let a = EXAMPLE_N as f64 / q as f64;
    let full2 = math::quotient_max_items(2 * q, math::MAX_LOAD);
    Ok(format!(
        "n = {EXAMPLE_N} at {}: r = {r} bits (the fewest with 1 - e^(-{}/2^r) ≤ {}), Q = {q} quotients, so α = {a:.4} at n; \
         rate at n: exact {}, 1 - e^(-α/2^r) = {}, α·2^(-r) = {}; \
         space: (r + {}) / α = {:.2} bits per item by formula, {:.2} for the whole table built here ({} slots with the runs' overflow). \
         One resize: Q = {}, r = {}, the rate at n unchanged ({}), at the new full load of {full2} items {}. \
         Built with growth_reserve(1) instead: r = {}, {:.2} bits per item at n, and after one resize {} at {full2} items",
        pct(P),
        math::MAX_LOAD,
        pct(P),
        pct(math::quotient_fpr_exact(q, r, EXAMPLE_N)),
        pct(math::quotient_fpr(r, a)),
        pct(a * 2f64.powi(-(r as i32))),
        math::METADATA_BITS_PER_SLOT,
        math::quotient_bits_per_item(r, a),
        f.size_in_bytes() as f64 * 8.0 / EXAMPLE_N as f64,
        f.slots(),
        2 * q,
        r - 1,
        pct(math::quotient_fpr_exact(2 * q, r - 1, EXAMPLE_N)),
        pct(math::quotient_fpr_exact(2 * q, r - 1, full2)),
        reserve.remainder_bits(),
        reserve.size_in_bytes() as f64 * 8.0 / EXAMPLE_N as f64,
        pct(math::quotient_fpr_exact(
            2 * q,
            reserve.remainder_bits() - 1,
            full2
        )),
    ))
}

/// The quotient filter: its rate against the load, before and after a resize, measured.
///
/// # Errors
/// A filter refusing its sizes, a resize refused.
pub fn quotient(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let points = measure(lab)?;
    let rows: Vec<Row> = points
        .iter()
        .map(|p| {
            let when = if p.resized {
                "after one resize"
            } else {
                "as built"
            };
            Row::new(
                format!(
                    "{when}: α = {:.3} (r = {}, {} items): {:.2} bits/item",
                    p.load(),
                    p.rbits,
                    p.items,
                    p.bits
                ),
                p.formula,
                p.reps.clone(),
            )
        })
        .collect();
    let finding = finding(lab, &points);
    let section = Section {
        figures: Vec::new(),
        title: "Quotient filter: remainder bits, load and resizing".into(),
        source: "Bender et al. 2012 (PVLDB, \"Don't Thrash\"), §2; Pandey, Bender, Johnson & Patro 2017 (SIGMOD, the rank-and-select layout); filter_core::math::quotient".into(),
        example: example()?,
        rows,
        finding,
        plots: vec!["quotient_fp_load".into()],
    };
    Ok((section, vec![Plot::new("quotient_fp_load", chart(&points))]))
}

/// What the run shows, from the pooled measurements: the rate at a full table before the
/// resize, at the same items after it, and at the resized table's full load.
fn finding(lab: &Lab<'_>, points: &[Point]) -> String {
    let built: Vec<&Point> = points.iter().filter(|p| !p.resized).collect();
    let after: Vec<&Point> = points.iter().filter(|p| p.resized).collect();
    let (Some(full), Some(same), Some(grown)) = (built.last(), after.first(), after.last()) else {
        return "No checkpoint was measured.".into();
    };
    let m = |p: &Point| pooled(&p.reps).rate;
    format!(
        "A filter built for {} items at {} ({} quotients, r = {}), filled to each load in {} repetitions, each over its own {} probes. \
         Full (α = {:.3}) it measured {}; one resize at the same {} items measured {} (formula {}, unchanged: no bit is lost, only moved), {}; \
         filled again to α = {:.3} of the doubled table it measured {}, {:.2} times the rate before the resize (formula {:.2} times). \
         Bits per item fall with the load, from {:.2} at α = {:.3} to {:.2} full.",
        lab.n / 2,
        pct(P),
        full.quotients,
        full.rbits,
        lab.reps,
        full.reps.first().map_or(0, |c| c.trials),
        full.load(),
        pct(m(full)),
        same.items,
        pct(m(same)),
        pct(same.formula),
        if same.reps == full.reps {
            "the very same false positives in every repetition (a resize changes no answer)"
        } else {
            "with other false positives than before it"
        },
        grown.load(),
        pct(m(grown)),
        m(grown) / m(full),
        grown.formula / full.formula,
        built.first().map_or(f64::NAN, |p| p.bits),
        built.first().map_or(f64::NAN, |p| p.load()),
        full.bits,
    )
}

#[cfg(test)]
mod tests;
