//! The report's charts, one function each, built from the records of a run.
//!
//! Every timing is drawn as its median with a min..max bar over the interleaved rounds, and
//! every measured FP rate with its 95% Wilson interval.

use crate::measure::{Mix, Spread};
use crate::record::{Record, Scenario};
use anyhow::Result;
use filterlab_charts::{self as plot, BarChart, LineChart, Series, SeriesStyle};
use std::path::Path;

/// A chart ready to render, with its file stem and its README caption.
pub struct Chart {
    /// File name without extension.
    pub stem: String,
    /// One sentence for the README.
    pub caption: String,
    /// The drawing.
    pub kind: ChartKind,
}

/// Line or bar.
pub enum ChartKind {
    /// An x-y chart.
    Line(LineChart),
    /// A grouped bar chart.
    Bar(BarChart),
}

fn chart(stem: impl Into<String>, caption: impl Into<String>, kind: ChartKind) -> Chart {
    Chart {
        stem: stem.into(),
        caption: caption.into(),
        kind,
    }
}

/// The records of `scenario`.
pub fn by(records: &[Record], scenario: Scenario) -> impl Iterator<Item = &Record> + '_ {
    records.iter().filter(move |r| r.scenario == scenario)
}

/// Variant names of `scenario`, in first-seen order.
pub fn variants(records: &[Record], scenario: Scenario) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in by(records, scenario) {
        if !v.contains(&r.variant) {
            v.push(r.variant.clone());
        }
    }
    v
}

/// The records of `scenario` grouped by variant: each variant in first-seen order with its
/// records in record order.
pub fn grouped(records: &[Record], scenario: Scenario) -> Vec<(String, Vec<&Record>)> {
    variants(records, scenario)
        .into_iter()
        .map(|v| {
            let rows = by(records, scenario).filter(|r| r.variant == v).collect();
            (v, rows)
        })
        .collect()
}

/// Target rates of the matrix, in first-seen order.
pub fn targets(records: &[Record]) -> Vec<f64> {
    let mut t: Vec<f64> = Vec::new();
    for r in by(records, Scenario::Matrix) {
        if !t.contains(&r.target_fpr) {
            t.push(r.target_fpr);
        }
    }
    t
}

/// `1%` → `1pct`, `0.01%` → `0_01pct`.
pub fn target_slug(t: f64) -> String {
    format!("{}", t * 100.0).replace('.', "_") + "pct"
}

pub use crate::record::pct;

/// Bar values and whiskers from optional spreads (a missing one leaves its bar out).
fn bars(values: impl Iterator<Item = Option<Spread>>) -> (Vec<f64>, Vec<(f64, f64)>) {
    values
        .map(|s| s.map_or((f64::NAN, (f64::NAN, f64::NAN)), |s| (s.median, s.range())))
        .unzip()
}

/// A line chart: its title, the x axis and the y axis as (label, logarithmic?), its series.
fn line_chart(
    title: impl Into<String>,
    (x_label, x_log): (&str, bool),
    (y_label, y_log): (&str, bool),
    series: Vec<Series>,
) -> ChartKind {
    ChartKind::Line(LineChart {
        title: title.into(),
        x_label: x_label.into(),
        y_label: y_label.into(),
        x_log,
        y_log,
        series,
    })
}

/// A bar chart from per-group spreads.
fn bar_chart(
    title: String,
    x: &str,
    y: &str,
    categories: Vec<String>,
    groups: Vec<(String, Vec<Option<Spread>>)>,
) -> BarChart {
    let (groups, spread) = groups
        .into_iter()
        .map(|(name, v)| {
            let (values, whiskers) = bars(v.into_iter());
            ((name, values), whiskers)
        })
        .unzip();
    BarChart {
        title,
        x_label: x.into(),
        y_label: y.into(),
        categories,
        groups,
        y_log: false,
        spread,
    }
}

/// A series of measured FP rates with their Wilson intervals.
fn fpr_series(
    name: &str,
    rows: &[&Record],
    x: impl Fn(&Record) -> f64,
    style: SeriesStyle,
) -> Series {
    let pts = rows.iter().map(|r| (x(r), r.empirical_fpr)).collect();
    let ci = rows.iter().map(|r| (r.fpr_ci_low, r.fpr_ci_high)).collect();
    Series::new(name, pts, style).with_spread(ci)
}

/// Every chart of the main job, in README order (the size sweep's are its study's page's).
pub fn all(records: &[Record]) -> Vec<Chart> {
    let mut out = Vec::new();
    out.extend(calibration(records));
    out.extend(memory(records));
    out.extend(lookup_by_mix(records));
    out.extend(build_cost(records));
    out.extend(growth(records));
    out.extend(churn(records));
    out.extend(parallel(records));
    out
}

/// Renders `charts` into `dir`; returns `(stem, caption)` pairs for the README.
///
/// # Errors
/// Malformed chart data or I/O.
pub fn render(dir: &Path, charts: &[Chart]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    for c in charts {
        let path = dir.join(&c.stem);
        match &c.kind {
            ChartKind::Line(l) => plot::render_line(l, &path)?,
            ChartKind::Bar(b) => plot::render_bar(b, &path)?,
        };
        out.push((c.stem.clone(), c.caption.clone()));
    }
    Ok(out)
}

/// 1. Measured against theory, log-log, with the diagonal.
pub fn calibration(records: &[Record]) -> Option<Chart> {
    let matrix: Vec<&Record> = by(records, Scenario::Matrix).collect();
    let n = matrix.first()?.n;
    let mut series: Vec<Series> = grouped(records, Scenario::Matrix)
        .iter()
        .map(|(v, rows)| fpr_series(v, rows, |r| r.theoretical_fpr, SeriesStyle::Points))
        .collect();
    let (lo, hi) = matrix.iter().fold((1.0f64, 0.0f64), |(lo, hi), r| {
        (
            lo.min(r.theoretical_fpr.min(r.empirical_fpr)),
            hi.max(r.theoretical_fpr.max(r.empirical_fpr)),
        )
    });
    series.push(Series::new(
        "measured = theory",
        vec![(lo * 0.8, lo * 0.8), (hi * 1.25, hi * 1.25)],
        SeriesStyle::Dashed,
    ));
    Some(chart(
        "fpr_measured_vs_theory",
        format!("Measured FP rate (bars: 95% Wilson interval) against each variant's formula at its realised parameters (n = {n}); points on the diagonal mean the formula holds."),
        line_chart(format!("False-positive rate: measured vs theory, n = {n}"), ("theoretical FP rate", true), ("measured FP rate", true), series),
    ))
}

/// 2. Memory against the measured FP rate, with the lower bound.
pub fn memory(records: &[Record]) -> Option<Chart> {
    let matrix: Vec<&Record> = by(records, Scenario::Matrix).collect();
    let n = matrix.first()?.n;
    let mut series: Vec<Series> = grouped(records, Scenario::Matrix)
        .into_iter()
        .map(|(v, mut rows)| {
            rows.sort_by(|a, b| a.empirical_fpr.total_cmp(&b.empirical_fpr));
            let pts = rows
                .iter()
                .map(|r| (r.empirical_fpr, r.bits_per_key))
                .collect();
            Series::new(v.as_str(), pts, SeriesStyle::LinePoints)
        })
        .collect();
    let grid: Vec<f64> = (0..=40)
        .map(|i| 10f64.powf(-5.0 + 4.0 * f64::from(i) / 40.0))
        .collect();
    series.push(Series::new(
        "lower bound log2(1/p)",
        grid.iter().map(|&p| (p, (1.0 / p).log2())).collect(),
        SeriesStyle::Dashed,
    ));
    series.push(Series::new(
        "ideal Bloom 1.44·log2(1/p)",
        grid.iter()
            .map(|&p| (p, (1.0 / p).log2() / std::f64::consts::LN_2))
            .collect(),
        SeriesStyle::Dashed,
    ));
    Some(chart(
        "bits_per_key_vs_fpr",
        "Bits per key against the measured FP rate, with the information-theoretic lower bound n·log2(1/p).",
        line_chart(format!("Memory vs false-positive rate, n = {n}"), ("measured FP rate", true), ("bits per key", false), series),
    ))
}

/// 3. Lookup cost per positive share, one chart per target rate.
pub fn lookup_by_mix(records: &[Record]) -> Vec<Chart> {
    let matrix: Vec<&Record> = by(records, Scenario::Matrix).collect();
    let Some(n) = matrix.first().map(|r| r.n) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in targets(records) {
        let rows: Vec<&Record> = matrix
            .iter()
            .copied()
            .filter(|r| r.target_fpr == t)
            .collect();
        let mut mixes: Vec<u32> = rows
            .first()
            .map(|r| {
                r.ns_per_lookup
                    .keys()
                    .filter_map(|k| k.parse().ok())
                    .collect()
            })
            .unwrap_or_default();
        mixes.sort_unstable();
        let groups = rows
            .iter()
            .map(|r| {
                (
                    r.variant.clone(),
                    mixes
                        .iter()
                        .map(|m| r.ns_per_lookup.get(&m.to_string()).cloned())
                        .collect(),
                )
            })
            .collect();
        out.push(chart(
            format!("lookup_ns_{}", target_slug(t)),
            format!("ns per lookup by share of positive queries, target {} (median of interleaved rounds, whiskers min..max; hashing included).", pct(t)),
            ChartKind::Bar(bar_chart(
                format!("Lookup cost by positive share, n = {n}, target {}", pct(t)),
                "positive queries",
                "ns per lookup",
                mixes.iter().map(|m| format!("{m}%")).collect(),
                groups,
            )),
        ));
    }
    out
}

/// 4. Build cost per target rate.
pub fn build_cost(records: &[Record]) -> Option<Chart> {
    let matrix: Vec<&Record> = by(records, Scenario::Matrix).collect();
    let n = matrix.first()?.n;
    let ts = targets(records);
    let groups = variants(records, Scenario::Matrix)
        .into_iter()
        .map(|v| {
            let vals = ts
                .iter()
                .map(|&t| {
                    matrix
                        .iter()
                        .find(|r| r.variant == v && r.target_fpr == t)
                        .and_then(|r| r.ns_per_insert.clone())
                })
                .collect();
            (v, vals)
        })
        .collect();
    Some(chart(
        "insert_ns",
        "ns per insert, one thread, construction and allocation included, key bytes in; a static filter (built once from its whole key set): the build's ns per key (median of interleaved build rounds, whiskers min..max).",
        ChartKind::Bar(bar_chart(format!("Build cost, n = {n}"), "target FP rate", "ns per insert", ts.iter().map(|&t| pct(t)).collect(), groups)),
    ))
}

/// 5. FP rate while growing past the declared capacity.
pub fn growth(records: &[Record]) -> Option<Chart> {
    let rows: Vec<&Record> = by(records, Scenario::Growth).collect();
    let first = rows.first()?;
    let cap = first.capacity as f64;
    let mut series: Vec<Series> = grouped(records, Scenario::Growth)
        .iter()
        .map(|(v, mine)| fpr_series(v, mine, |r| r.n as f64 / cap, SeriesStyle::LinePoints))
        .collect();
    series.push(Series::new(
        "target",
        vec![(0.0, first.target_fpr), (4.0, first.target_fpr)],
        SeriesStyle::Dashed,
    ));
    Some(chart(
        "growth",
        format!("Measured FP rate (bars: 95% Wilson interval) while inserting up to 4× the declared capacity ({}); the cuckoo table stops at its first refused insert.", first.capacity),
        line_chart("Growth past the declared capacity", ("items inserted / declared capacity", false), ("measured FP rate", true), series),
    ))
}

/// 6. FP rate under deletion churn, measured and theory.
pub fn churn(records: &[Record]) -> Option<Chart> {
    let rows: Vec<&Record> = by(records, Scenario::Churn).collect();
    if rows.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    for (v, mine) in grouped(records, Scenario::Churn) {
        let step = |r: &Record| r.step.unwrap_or(0) as f64;
        series.push(fpr_series(
            &format!("{v} measured"),
            &mine,
            step,
            SeriesStyle::LinePoints,
        ));
        series.push(Series::new(
            format!("{v} theory"),
            mine.iter().map(|r| (step(r), r.theoretical_fpr)).collect(),
            SeriesStyle::Dashed,
        ));
    }
    Some(chart(
        "churn",
        "Deletion churn: each round removes the oldest 10% of the keys and inserts 10% new ones (bars: 95% Wilson interval).",
        line_chart("FP rate under deletion churn", ("round", false), ("FP rate", false), series),
    ))
}

/// 7. Lookup cost against filter size, negative and positive, one chart each.
pub fn size_sweep(records: &[Record]) -> Vec<Chart> {
    let rows: Vec<&Record> = by(records, Scenario::SizeSweep).collect();
    if rows.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (mix, word, title) in [
        ("0", "negative", "Negative"),
        ("100", "positive", "Positive"),
    ] {
        let series = variants(records, Scenario::SizeSweep)
            .iter()
            .map(|v| {
                let (pts, spread): (Vec<_>, Vec<_>) = rows
                    .iter()
                    .filter(|r| &r.variant == v)
                    .filter_map(|r| {
                        r.ns_per_lookup
                            .get(mix)
                            .map(|t| ((r.bytes as f64, t.median), t.range()))
                    })
                    .unzip();
                Series::new(v.as_str(), pts, SeriesStyle::LinePoints).with_spread(spread)
            })
            .collect();
        out.push(chart(
            format!("size_sweep_{word}"),
            format!("ns per {word} lookup against filter size (target 1%; median, bars min..max of interleaved rounds): the steps are the caches."),
            line_chart(format!("{title} lookups vs filter size (target 1%)"), ("filter bytes", true), ("ns per lookup", true), series),
        ));
    }
    out
}

/// 8. Parallel lookups, one thread against every core.
pub fn parallel(records: &[Record]) -> Option<Chart> {
    let rows: Vec<&Record> = by(records, Scenario::Parallel).collect();
    if rows.is_empty() {
        return None;
    }
    let names = variants(records, Scenario::Parallel);
    let mut threads: Vec<usize> = rows.iter().filter_map(|r| r.threads).collect();
    threads.sort_unstable();
    threads.dedup();
    let groups = threads
        .iter()
        .map(|&t| {
            let vals = names
                .iter()
                .map(|v| {
                    rows.iter()
                        .find(|r| &r.variant == v && r.threads == Some(t))
                        .and_then(|r| r.ns_per_lookup.get(Mix::Half.key()).cloned())
                })
                .collect();
            (format!("{t} thread{}", if t == 1 { "" } else { "s" }), vals)
        })
        .collect();
    Some(chart(
        "parallel",
        "Lookup throughput (wall ns per lookup, 50% positive, whiskers min..max of rounds) with one thread and with every core.",
        ChartKind::Bar(bar_chart("Parallel lookups (rayon)".into(), "variant", "wall ns per lookup", names, groups)),
    ))
}

#[cfg(test)]
mod tests;
