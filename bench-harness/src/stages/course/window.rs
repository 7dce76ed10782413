//! Course section: sliding windows — the age-partitioned filter's rate (a run of `k` matches
//! among `k + l` slices), the lane-sliced generations' rate, and both measured over a stream.

use super::figures::{Figure, Figures, Formula, Shown};
use super::model::{Row, Section};
use super::stats::Count;
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::Result;
use filter_window::math::{ApbfPlan, SlicedPlan};
use filter_window::{Apbf, ItemWindow};
use filterlab::{Filter, Hash128};
use filterlab_charts::{LineChart, Series, SeriesStyle};

const P: f64 = 0.01;
/// Windows in each repetition's stream (the first fills the window, the rest are measured).
const WINDOWS: usize = 5;
/// Generations per window of the lane-sliced filter.
const N: u32 = 7;

/// One repetition's stream through `f`: at every checkpoint (each `step` inserts from the end of
/// the first window on), the false positives among the next slice of `probes`, and the model.
fn stream<F: Filter>(
    f: &mut F,
    members: &[Hash128],
    probes: &[Hash128],
    (window, step): (usize, usize),
) -> Result<Vec<(u64, u64, u64, f64)>> {
    let checkpoints = (members.len() - window) / step + 1;
    let per = probes.len() / checkpoints;
    let mut out = Vec::with_capacity(checkpoints);
    for (i, &h) in members.iter().enumerate() {
        f.insert_hash(h)?;
        let done = i + 1;
        if done >= window && (done - window) % step == 0 {
            let at = out.len();
            let fp = probes[at * per..(at + 1) * per]
                .iter()
                .filter(|&&p| f.contains_hash(p))
                .count() as u64;
            out.push((done as u64, fp, per as u64, f.expected_fpr()));
        }
    }
    Ok(out)
}

/// The measured points of one design: counts at the worst checkpoints (just before a
/// generation starts) and over every checkpoint, per repetition; and the stream pooled over
/// the repetitions, `(inserted, measured rate, model)`.
struct Measured {
    /// The filter's own formula (`expected_fpr`, its table rounded to whole words) at the
    /// worst-case checkpoints, averaged (the same in every repetition).
    worst_model: f64,
    worst: Vec<Count>,
    all: Vec<Count>,
    curve: Vec<(f64, f64, f64)>,
}

/// `worst_from`: the inserts after which every checkpoint is at the design's worst case.
fn measure(
    lab: &Lab<'_>,
    name: &str,
    (window, g, worst_from): (usize, usize, u64),
    apbf: bool,
) -> Result<Measured> {
    let (mut worst, mut all) = (Vec::new(), Vec::new());
    let mut curve: Vec<(f64, f64, f64)> = Vec::new();
    let mut worst_model = f64::NAN;
    let members = window * WINDOWS;
    for d in lab.draws(name) {
        let points = if apbf {
            // The paper's shape (the builder would choose the least memory's).
            let mut f = Apbf::builder()
                .window(window as u64)
                .fpr(P)
                .k(8)
                .l(8)
                .build()?;
            stream(&mut f, &d.members[..members], &d.probes, (window, g))?
        } else {
            let mut f = ItemWindow::builder()
                .window(window as u64)
                .fpr(P)
                .generations(N)
                .build()?;
            stream(&mut f, &d.members[..members], &d.probes, (window, g))?
        };
        // Checkpoints fall every g inserts from the window's end: each is one generation's end,
        // where every kept generation is full (the worst case) once the stream is past it.
        let sum = |it: &mut dyn Iterator<Item = &(u64, u64, u64, f64)>| {
            it.fold((0, 0), |(h, t), p| (h + p.1, t + p.2))
        };
        let (h, t) = sum(&mut points.iter().filter(|p| p.0 >= worst_from));
        let models: Vec<f64> = points
            .iter()
            .filter(|p| p.0 >= worst_from)
            .map(|p| p.3)
            .collect();
        worst_model = models.iter().sum::<f64>() / models.len().max(1) as f64;
        worst.push(d.count(h, t));
        let (h, t) = sum(&mut points.iter());
        all.push(d.count(h, t));
        curve.resize(points.len(), (0.0, 0.0, 0.0));
        for (c, p) in curve.iter_mut().zip(&points) {
            *c = (
                p.0 as f64,
                c.1 + p.1 as f64 / p.2 as f64 / lab.reps as f64,
                p.3,
            );
        }
    }
    Ok(Measured {
        worst_model,
        worst,
        all,
        curve,
    })
}

/// The plot: rate over the stream against the model and the target.
fn chart(window: usize, item: &Measured, apbf: &Measured) -> LineChart {
    let x = |v: f64| v / window as f64;
    let pts = |m: &Measured, model: bool| -> Vec<(f64, f64)> {
        m.curve
            .iter()
            .map(|c| (x(c.0), if model { c.2 } else { c.1 }))
            .collect()
    };
    let ends = (
        x(item.curve.first().map_or(0.0, |c| c.0)),
        x(item.curve.last().map_or(0.0, |c| c.0)),
    );
    LineChart {
        title: format!("False positives over a stream of windows of {window} items, target 1%"),
        x_label: "inserts / window".into(),
        y_label: "false-positive rate".into(),
        x_log: false,
        y_log: false,
        series: vec![
            Series::new(
                "target",
                vec![(ends.0, P), (ends.1, P)],
                SeriesStyle::Dashed,
            ),
            Series::new("ItemWindow model", pts(item, true), SeriesStyle::Dashed),
            Series::new("ItemWindow", pts(item, false), SeriesStyle::LinePoints),
            Series::new("Apbf model", pts(apbf, true), SeriesStyle::Dashed),
            Series::new("Apbf", pts(apbf, false), SeriesStyle::LinePoints),
        ],
    }
}

/// The worked example, and its figures: the paper's shape and the least memory's
/// (`ApbfPlan::least`, the builder's default).
fn example() -> Result<(String, Vec<Figure>)> {
    let w = 1_000_000;
    let mut fig = Figures::default();
    let apbf = |k, l| Formula::ApbfBitsPerItem {
        window: w,
        p: P,
        k,
        l,
    };
    let eight = fig.add(apbf(Some(8), Some(8)), Shown::Decimals(2))?;
    let least_bits = fig.add(apbf(None, None), Shown::Decimals(2))?;
    let least = ApbfPlan::least(w, P, None, None);
    let text = match (ApbfPlan::for_target(w, 8, 8, P), SlicedPlan::new(w, N, P), least) {
        (Some(a), Some(s), Some(b)) => format!(
            "W = 10^6 at 1%: Apbf k = l = 8, g = {}, m = {} bits per slice, worst rate {} at {eight} bits per in-window item (the paper's sizing: {:.2} bits, worst {}); at its least memory (k and l chosen, the builder's default) k = {}, l = {}: {least_bits} bits; ItemWindow N = 7: g = {}, m = {}, k = {}, worst {} at {:.2} bits; two-buffer rotation (N = 1): {:.2} bits",
            a.per_generation,
            a.m,
            pct(a.worst_fpr()),
            ApbfPlan::paper(w, 8, 8).map_or(f64::NAN, |p| p.bits_per_item()),
            pct(ApbfPlan::paper(w, 8, 8).map_or(f64::NAN, |p| p.worst_fpr())),
            b.k,
            b.l,
            s.per_generation,
            s.m,
            s.k,
            pct(s.worst_fpr()),
            s.bits_per_item(),
            SlicedPlan::new(w, 1, P).map_or(f64::NAN, |p| p.bits_per_item()),
        ),
        _ => "no plan at W = 10^6".into(),
    };
    Ok((text, fig.into_vec()))
}

/// Sliding windows: the two designs' formulas at their worst and over a stream, measured.
///
/// # Errors
/// A filter refusing its sizes.
pub fn sliding_windows(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let window = (lab.n / WINDOWS).max(N as usize * 8) / 56 * 56;
    let item_g = window / N as usize;
    let apbf_g = window / 8;
    // The lane-sliced filter is at its worst once N + 1 generations are full; the
    // age-partitioned one once all k + l slices have aged into place.
    let item_from = (u64::from(N) + 1) * item_g as u64;
    let item = measure(lab, "window/item", (window, item_g, item_from), false)?;
    let apbf = measure(
        lab,
        "window/apbf",
        (window, apbf_g, 16 * apbf_g as u64),
        true,
    )?;
    let w = window as u64;
    let rows = vec![
        Row::new(
            "Apbf k = l = 8 at its worst (checkpoints from 2 windows on)",
            apbf.worst_model,
            apbf.worst.clone(),
        ),
        Row::new(
            "ItemWindow N = 7 at its worst (checkpoints from 8/7 windows on)",
            item.worst_model,
            item.worst.clone(),
        ),
        Row::upper(
            "ItemWindow over the stream: at most the target",
            P,
            item.all.clone(),
        ),
    ];
    let bits = |plan: Option<f64>| plan.unwrap_or(f64::NAN);
    let (example, figures) = example()?;
    let section = Section {
        figures,
        title: "Sliding windows: the age-partitioned filter's rate".into(),
        source: "Shtul, Baquero & Almeida 2020 (arXiv:2001.03147); Bloom 1970; filter_core::math::window".into(),
        example,
        rows,
        finding: format!(
            "Windows of {window} items, {WINDOWS} windows per stream, {} repetitions; checkpoints at each generation's end, where every kept generation is full. \
             The formula of each row is the filter's own at those checkpoints (its slices rounded up to whole 64-bit words, so at most the plan's worst case); the plans give the age-partitioned filter {:.2} bits per in-window item for a worst case at 1%, the lane-sliced one {:.2}. \
             The harness's window stage (window.md) measures the same over ten windows of 10^6 items beside a two-buffer rotation and probabilistic-rs.",
            lab.reps,
            bits(ApbfPlan::for_target(w, 8, 8, P).map(|p| p.bits_per_item())),
            bits(SlicedPlan::new(w, N, P).map(|p| p.bits_per_item())),
        ),
        plots: vec!["window_fp_stream".into()],
    };
    Ok((
        section,
        vec![Plot::new("window_fp_stream", chart(window, &item, &apbf))],
    ))
}
