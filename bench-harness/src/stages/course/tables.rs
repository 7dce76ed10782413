//! Course sections on the cuckoo, scalable and counting formulas.

use super::figures::{Figures, Formula, Shown};
use super::model::{Row, Section};
use super::probe::{fill, fp};
use super::stats::{pooled, Count};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::Result;
use filterlab::{
    counting, cuckoo, math, CountingBloom, CuckooFilter, Filter, Growable, ScalableBloom,
};
use filterlab_charts::{LineChart, Series, SeriesStyle};

const P: f64 = 0.01;
const TEN_M: u64 = 10_000_000;

/// A cuckoo filter for `lab.n` items with `f`-bit fingerprints, filled to `load`, repeated:
/// `(load reached, counts)`.
fn cuckoo_at(lab: &Lab<'_>, f: u32, load: f64) -> Result<(f64, Vec<Count>)> {
    lab.repeat(&format!("cuckoo/{f}/{load}"), |d| {
        let mut c = CuckooFilter::builder()
            .capacity(lab.n as u64)
            .fingerprint_bits(f)
            .build()?;
        let items = ((c.buckets() * u64::from(cuckoo::SLOTS)) as f64 * load).round() as usize;
        // A failed insert leaves the table as it was; the load reached is what is reported.
        for &h in &d.members[..items.min(d.members.len())] {
            if c.insert_hash(h).is_err() {
                break;
            }
        }
        Ok((c.load_factor(), fp(&c, d)))
    })
}

/// Formula, measurement and residual series of one cuckoo sweep.
#[derive(Default)]
struct Sweep {
    slot: Vec<(f64, f64)>,
    pair: Vec<(f64, f64)>,
    measured: Vec<(f64, f64)>,
    spread: Vec<(f64, f64)>,
    resid_slot: Vec<(f64, f64)>,
    resid_pair: Vec<(f64, f64)>,
    resid_spread: Vec<(f64, f64)>,
    resid_spread_slot: Vec<(f64, f64)>,
}

/// `points` moved by `dx` along x, so two marker sets at one x both show.
fn shift(points: &[(f64, f64)], dx: f64) -> Vec<(f64, f64)> {
    points.iter().map(|&(x, y)| (x + dx, y)).collect()
}

impl Sweep {
    fn push(&mut self, x: f64, slot: f64, pair: f64, counts: &[Count]) {
        let m = pooled(counts);
        self.slot.push((x, slot));
        self.pair.push((x, pair));
        self.measured.push((x, m.rate));
        self.spread.push(m.spread());
        self.resid_slot.push((x, m.rate / slot));
        self.resid_pair.push((x, m.rate / pair));
        self.resid_spread.push((m.lo / pair, m.hi / pair));
        self.resid_spread_slot.push((m.lo / slot, m.hi / slot));
    }

    fn chart(self, title: String, x_label: &str, y_log: bool) -> LineChart {
        LineChart {
            title,
            x_label: x_label.into(),
            y_label: "false-positive rate".into(),
            x_log: false,
            y_log,
            series: vec![
                Series::new(
                    "per-slot formula (upper bound)",
                    self.slot,
                    SeriesStyle::Dashed,
                ),
                Series::new("bucket-pair formula", self.pair, SeriesStyle::Line),
                Series::new("cuckoo", self.measured, SeriesStyle::Points).with_spread(self.spread),
            ],
        }
    }
}

/// The cuckoo section's residual plot: each pooled measurement over each formula.
fn cuckoo_residual(by_f: &Sweep) -> LineChart {
    LineChart {
        title: "Cuckoo filter: measured / formula (load 0.95)".into(),
        x_label: "fingerprint bits f".into(),
        y_label: "measured / formula".into(),
        x_log: false,
        y_log: false,
        series: vec![
            Series::new(
                "1 (formula exact)",
                vec![(4.0, 1.0), (16.0, 1.0)],
                SeriesStyle::Line,
            ),
            Series::new(
                "over per-slot formula",
                shift(&by_f.resid_slot, -0.12),
                SeriesStyle::Points,
            )
            .with_spread(by_f.resid_spread_slot.clone()),
            Series::new(
                "over bucket-pair formula",
                shift(&by_f.resid_pair, 0.12),
                SeriesStyle::Points,
            )
            .with_spread(by_f.resid_spread.clone()),
        ],
    }
}

/// The cuckoo section's text around its rows.
fn cuckoo_section(rows: Vec<Row>) -> Result<Section> {
    let b = cuckoo::SLOTS;
    let f10 = math::cuckoo_fingerprint_bits(P, b)?;
    let a = cuckoo::DESIGN_LOAD;
    Ok(Section {
        figures: Vec::new(),
        title: "Cuckoo filter: fingerprint bits and load".into(),
        source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.1; the pair argument is derived here for crates/filter-cuckoo's alt(i, φ) = (h(φ) - i) mod B".into(),
        example: format!(
            "10M keys at 1%: f = ceil(log2(8 / 0.01)) = {f10} bits; at α = {a}: bucket pair {}, per-slot {}; the table costs f/α = {:.3} bits per key. At f = 4: {} against {}; at f = 6: {} against {}",
            pct(math::cuckoo_fpr(f10, b, a)),
            pct(math::cuckoo_fpr_upper_bound(f10, b, a)),
            math::cuckoo_bits_per_item(f10, a),
            pct(math::cuckoo_fpr(4, b, a)),
            pct(math::cuckoo_fpr_upper_bound(4, b, a)),
            pct(math::cuckoo_fpr(6, b, a)),
            pct(math::cuckoo_fpr_upper_bound(6, b, a)),
        ),
        finding: "The residual plot divides the pooled measurement by each formula: the bucket-pair formula's ratio scatters around 1, the per-slot one sits below 1 where f is small.".into(),
        rows,
        plots: vec!["cuckoo_fingerprint".into(), "cuckoo_load".into(), "cuckoo_residual".into()],
    })
}

/// Cuckoo: FP rate against fingerprint bits at the design load, and against load, measured
/// against the per-slot bound and the bucket-pair formula, with a residual plot.
pub fn cuckoo(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let b = cuckoo::SLOTS;
    let mut rows = Vec::new();
    let mut by_f = Sweep::default();
    for f in [4u32, 6, 8, 10, 12, 14, 16] {
        let (load, counts) = cuckoo_at(lab, f, cuckoo::DESIGN_LOAD)?;
        let (slot, pair) = (
            math::cuckoo_fpr_upper_bound(f, b, load),
            math::cuckoo_fpr(f, b, load),
        );
        by_f.push(f64::from(f), slot, pair, &counts);
        rows.push(Row::upper(
            format!("f = {f}, load {load:.3}: per-slot"),
            slot,
            counts.clone(),
        ));
        rows.push(Row::new(
            format!("f = {f}, load {load:.3}: bucket pair"),
            pair,
            counts,
        ));
    }
    let mut by_load = Sweep::default();
    let f_load = 8;
    for load in [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 0.95] {
        let (real, counts) = cuckoo_at(lab, f_load, load)?;
        let (slot, pair) = (
            math::cuckoo_fpr_upper_bound(f_load, b, real),
            math::cuckoo_fpr(f_load, b, real),
        );
        by_load.push(real, slot, pair, &counts);
        rows.push(Row::new(
            format!("f = {f_load}, load {real:.3}: bucket pair"),
            pair,
            counts,
        ));
    }
    let residual = cuckoo_residual(&by_f);
    let a = cuckoo::DESIGN_LOAD;
    let section = cuckoo_section(rows)?;
    Ok((
        section,
        vec![
            Plot::new(
                "cuckoo_fingerprint",
                by_f.chart(
                    format!("Cuckoo filter: rate against fingerprint bits (load {a})"),
                    "fingerprint bits f",
                    true,
                ),
            ),
            Plot::new(
                "cuckoo_load",
                by_load.chart(
                    format!("Cuckoo filter: rate against load (f = {f_load})"),
                    "load factor α",
                    false,
                ),
            ),
            Plot::new("cuckoo_residual", residual),
        ],
    ))
}

/// The scalable section's text around its rows (grown from `c0` items).
fn scalable_section(c0: usize, rows: Vec<Row>) -> Section {
    let p0 = math::scalable_initial_fpr(P, 0.9);
    let stages: Vec<f64> = (0..4)
        .map(|i| math::scalable_stage_fpr(p0, 0.9, i))
        .collect();
    Section {
        figures: Vec::new(),
        title: "Scalable filter: the compound bound as it grows".into(),
        source: "Almeida, Baquero, Preguiça & Hutchison 2007, §4 and eq. 3".into(),
        example: format!(
            "r = 0.9: P0 = {}, stages at {}; bound {}. A filter sized for 10M and grown 10x has stages at these rates; `filterlab calc --variant scalable` prints its memory",
            pct(p0),
            stages.iter().map(|&p| pct(p)).collect::<Vec<_>>().join(", "),
            pct(math::scalable_fpr_bound(p0, 0.9))
        ),
        finding: format!(
            "Grown from {c0} to {} items (31x, five full stages at s = 2), measured at the end of each stage; the dashed formula is drawn every n0/8 items.",
            31 * c0
        ),
        rows,
        plots: vec!["scalable".into()],
    }
}

/// Scalable: the compound rate and its bound as the filter grows, for three ratios r. The formula
/// is drawn item by item, so its steps at each new stage (1, 3, 7, 15, 31x the first capacity at
/// s = 2) show; the measurements sit at those stage ends.
pub fn scalable(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let c0 = (lab.n / 32).max(1);
    let ends = [1usize, 3, 7, 15, 31];
    let (mut rows, mut series) = (Vec::new(), Vec::new());
    for r in [0.5, 0.8, 0.9] {
        let label = format!("r = {r}");
        let build = || {
            ScalableBloom::builder()
                .capacity(c0 as u64)
                .fpr(P)
                .tightening(r)
                .build()
        };
        // The formula, item by item in steps of c0/8 (one draw: it depends on the counts only).
        let mut f = build()?;
        let mut theory = Vec::new();
        let step = (c0 / 8).max(1);
        let mut at = 0;
        while at < 31 * c0 {
            let next = (at + step).min(31 * c0);
            fill(&mut f, &lab.members[at..next])?;
            at = next;
            // From the first stage's end on, where the measurements are.
            if at >= c0 {
                theory.push((at as f64 / c0 as f64, f.expected_fpr()));
            }
        }
        let (mut per_end, mut shape): (Vec<Vec<Count>>, (f64, f64, usize)) =
            (vec![Vec::new(); ends.len()], (0.0, 0.0, 0));
        for d in lab.draws(&format!("scalable/{r}")) {
            let mut f = build()?;
            let mut inserted = 0;
            for (e, &end) in ends.iter().enumerate() {
                fill(&mut f, &d.members[inserted..end * c0])?;
                inserted = end * c0;
                per_end[e].push(fp(&f, &d));
            }
            shape = (f.expected_fpr(), f.fpr_bound(), f.stages());
        }
        let measured: Vec<(f64, f64)> = ends
            .iter()
            .zip(&per_end)
            .map(|(&e, c)| (e as f64, pooled(c).rate))
            .collect();
        let spread = per_end.iter().map(|c| pooled(c).spread()).collect();
        let last = per_end.pop().unwrap_or_default();
        rows.push(Row::new(
            format!("{label}, 31x, {} stages: compound formula", shape.2),
            shape.0,
            last.clone(),
        ));
        rows.push(Row::upper(
            format!("{label}, 31x: bound P0/(1-r)"),
            shape.1,
            last,
        ));
        series.push(Series::new(label.clone(), theory, SeriesStyle::Dashed));
        series.push(Series::new(label, measured, SeriesStyle::Points).with_spread(spread));
    }
    series.push(Series::new(
        "target P",
        vec![(1.0, P), (31.0, P)],
        SeriesStyle::Line,
    ));
    let section = scalable_section(c0, rows);
    let chart = LineChart {
        title: "Scalable filter: compound rate as it grows (P = 1%)".into(),
        x_label: "items / initial capacity".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: true,
        series,
    };
    Ok((section, vec![Plot::new("scalable", chart)]))
}

/// `P(Poisson(λ) >= j)`: the expected fraction of counters at or above `j` after `nk` uniform
/// increments of `m` counters (λ = nk/m). Not in `filter_core::math`, which bounds the
/// probability that *any* counter overflows; the course needs the expected count.
pub fn poisson_tail(lambda: f64, j: u32) -> f64 {
    if lambda <= 0.0 {
        return 0.0;
    }
    // Summed upwards from j, so tiny tails keep their digits.
    let ln_first =
        f64::from(j) * lambda.ln() - lambda - (1..=j).map(|i| f64::from(i).ln()).sum::<f64>();
    let (mut term, mut total, mut i) = (ln_first.exp(), 0.0, f64::from(j));
    while term > total * 1e-17 && term > 0.0 {
        total += term;
        i += 1.0;
        term *= lambda / i;
    }
    total.min(1.0)
}

/// The counting section's text around its rows: `(n0, m, k)` is the filter's design load,
/// counters and hashes, `zeros` the loads where no counter saturated.
fn counting_section(
    lab: &Lab<'_>,
    (n0, m, k): (usize, u64, u32),
    zeros: &[f64],
    rows: Vec<Row>,
) -> Result<Section> {
    // The counters and hashes this library gives 10M keys at 1%.
    let (m10, k10) = math::classic_shape(TEN_M, P)?;
    let mut fig = Figures::default();
    let shape = (TEN_M, P);
    let k_text = fig.add(
        Formula::ClassicHashes {
            n: shape.0,
            p: shape.1,
        },
        Shown::Decimals(0),
    )?;
    let m_per_n = fig.add(
        Formula::ClassicBitsPerKey {
            n: shape.0,
            p: shape.1,
        },
        Shown::Decimals(3),
    )?;
    let lambda_text = fig.add(
        Formula::ClassicLoad {
            n: shape.0,
            p: shape.1,
        },
        Shown::Decimals(3),
    )?;
    let lambda10 = f64::from(k10) * TEN_M as f64 / m10 as f64;
    let closed = |l: f64| m10 as f64 * (std::f64::consts::E * l / 16.0).powi(16);
    Ok(Section {
        figures: fig.into_vec(),
        title: "Counting filter: counter overflow under overload".into(),
        source: "Fan, Cao, Almeida & Broder 2000 (Summary Cache), §5.2".into(),
        example: format!(
            "10M keys at 1%: m = {m10} counters, k = {k10}: λ = k n/m = {k_text}/{m_per_n} = {lambda_text} (ln 2 only at the real-valued k*); m (e λ/16)^16 = {:.2e} (with ln 2 in place of λ: {:.2e}, {:.1}x smaller: \
             the ln 2 form is not a bound here, it only happens to be as negligible); the binomial form gives {:.3e} at 10M keys and {:.3} at 10x the load",
            closed(lambda10),
            closed(std::f64::consts::LN_2),
            closed(lambda10) / closed(std::f64::consts::LN_2),
            math::counting_overflow_bound(m10, TEN_M, k10, counting::COUNTER_BITS),
            math::counting_overflow_bound(m10, 10 * TEN_M, k10, counting::COUNTER_BITS)
        ),
        finding: format!(
            "Sized for {n0} keys ({m} counters, k = {k}), filled to 10x in {} repetitions; saturated counters are counted by the filter \
             itself (`CountingBloom::saturated`). Loads where no counter saturated in any repetition ({}) are drawn on the plot's floor \
             with the upper end of their interval.",
            lab.reps,
            if zeros.is_empty() { "none".to_string() } else { zeros.iter().map(|x| format!("{x}x")).collect::<Vec<_>>().join(", ") }
        ),
        rows,
        plots: vec!["counting_overflow".into()],
    })
}

/// Counting: saturated counters from 1x to 10x the design load.
pub fn counting(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n0 = (lab.n / 10).max(1);
    let build = || CountingBloom::builder().capacity(n0 as u64).fpr(P).build();
    let shape = build()?;
    let (m, k) = (shape.counters(), shape.hashes());
    let max = (1u32 << counting::COUNTER_BITS) - 1;
    let mut per_load: Vec<Vec<Count>> = vec![Vec::new(); 10];
    let mut bounds = [0.0; 10];
    for d in lab.draws("counting_overflow") {
        let mut f = build()?;
        let mut inserted = 0;
        for load in 1..=10usize {
            fill(&mut f, &d.members[inserted..n0 * load])?;
            inserted = n0 * load;
            per_load[load - 1].push(d.count(f.saturated(), m));
            bounds[load - 1] = f.overflow_probability();
        }
    }
    let (mut theory, mut measured, mut spread, mut zeros, mut zero_spread, mut rows) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for (i, counts) in per_load.into_iter().enumerate() {
        let load = (i + 1) as f64;
        let formula = poisson_tail(load * n0 as f64 * f64::from(k) / m as f64, max);
        let sat = pooled(&counts);
        theory.push((load, formula));
        if sat.hits == 0 {
            zeros.push(load);
            zero_spread.push(sat.spread());
        } else {
            measured.push((load, sat.rate));
            spread.push(sat.spread());
        }
        rows.push(Row::new(
            format!(
                "{}x: counters at {max} (overflow bound {:.2e})",
                i + 1,
                bounds[i]
            ),
            formula,
            counts,
        ));
    }
    // Zero counts have no place on a log axis: drawn on the lowest gridline with their interval.
    let floor = theory
        .iter()
        .chain(&measured)
        .map(|p| p.1)
        .filter(|&y| y > 0.0)
        .fold(f64::INFINITY, f64::min)
        .min(
            zero_spread
                .iter()
                .map(|s| s.1)
                .fold(f64::INFINITY, f64::min),
        )
        / 10.0;
    let zero_points: Vec<(f64, f64)> = zeros.iter().map(|&x| (x, floor)).collect();
    let zero_spread: Vec<(f64, f64)> = zero_spread.iter().map(|s| (floor, s.1)).collect();
    let section = counting_section(lab, (n0, m, k), &zeros, rows)?;
    let chart = LineChart {
        title: format!("Counting filter: saturated counters under overload (n0 = {n0})"),
        x_label: "items / design capacity".into(),
        y_label: "fraction of counters saturated".into(),
        x_log: false,
        y_log: true,
        series: vec![
            Series::new("expected (Poisson)", theory, SeriesStyle::Dashed),
            Series::new("counting", measured, SeriesStyle::Points).with_spread(spread),
            Series::new(
                "counting: none saturated (floor)",
                zero_points,
                SeriesStyle::Points,
            )
            .with_spread(zero_spread),
        ],
    };
    Ok((section, vec![Plot::new("counting_overflow", chart)]))
}

#[cfg(test)]
mod tests;
