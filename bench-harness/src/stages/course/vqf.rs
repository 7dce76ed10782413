//! Course section: the vector quotient filter — its rate at load `α` with the share `ω` of
//! overflow bits its inserts set, the bound with every bit set, and the share of negative
//! lookups that read a second block against the two ends of the Poisson model.

use super::model::{Row, Section};
use super::probe::{fp, Draw};
use super::stats::{pooled, Count};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::{ensure, Result};
use filterlab::math::vqf as vm;
use filterlab::vqf::VectorQuotient;
use filterlab::Filter;

/// The loads measured (fingerprints over slots): the design load of 90%, and past it up to
/// nearly full (a table takes keys to about 99.9% of its slots).
const LOADS: [f64; 5] = [0.3, 0.6, 0.9, 0.95, 0.99];

/// One checkpoint, the same load in every repetition.
struct Point {
    load: f64,
    /// The filter's own rate at the checkpoint (`expected_fpr`: its `α` and `ω`), per rep.
    formulas: Vec<f64>,
    /// False positives per repetition.
    fps: Vec<Count>,
    /// Probes that read a second block, per repetition.
    seconds: Vec<Count>,
}

/// How many of the draw's probes read a second block.
fn second_reads(f: &VectorQuotient, d: &Draw) -> Count {
    let hits = d
        .probes
        .iter()
        .filter(|&&h| f.reads_second_block(h))
        .count();
    d.count(hits as u64, d.probes.len() as u64)
}

fn measure(lab: &Lab<'_>) -> Result<Vec<Point>> {
    let mut points: Vec<Point> = LOADS
        .iter()
        .map(|&load| Point {
            load,
            formulas: Vec::new(),
            fps: Vec::new(),
            seconds: Vec::new(),
        })
        .collect();
    for d in lab.draws("vqf/load") {
        // Sized so that the fullest checkpoint needs no more keys than the lab has.
        let capacity = (d.members.len() as f64 * 0.9 / 0.995) as u64;
        let mut f = VectorQuotient::builder().capacity(capacity).build()?;
        let slots = f.block_count() * u64::from(filterlab::vqf::block::SLOTS);
        for p in &mut points {
            let items = ((p.load * slots as f64) as usize).min(d.members.len());
            for &h in &d.members[f.len() as usize..items] {
                f.insert_hash(h)?;
            }
            p.formulas.push(f.expected_fpr());
            p.fps.push(fp(&f, &d));
            p.seconds.push(second_reads(&f, &d));
        }
    }
    ensure!(
        points.iter().all(|p| !p.fps.is_empty()),
        "the vqf section measured no repetition"
    );
    Ok(points)
}

fn mean(xs: &[f64]) -> f64 {
    xs.iter().sum::<f64>() / xs.len().max(1) as f64
}

fn rows(points: &[Point]) -> Vec<Row> {
    let mut rows = Vec::new();
    for p in points {
        let omega = pooled(&p.seconds).rate;
        rows.push(Row::new(
            format!(
                "rate at α = {:.2} (ω = {omega:.4}): 1 - (1 - 1/255)^(λ(1 + ω))",
                p.load
            ),
            mean(&p.formulas),
            p.fps.clone(),
        ));
        rows.push(Row::upper(
            format!("rate at α = {:.2}: every overflow bit set (ω = 1)", p.load),
            vm::vqf_fpr_bound(p.load),
            p.fps.clone(),
        ));
        rows.push(Row::lower(
            format!(
                "second-block reads at α = {:.2}: at least P(X > 48)/8",
                p.load
            ),
            vm::vqf_overflow_share_floor(p.load),
            p.seconds.clone(),
        ));
        rows.push(Row::upper(
            format!(
                "second-block reads at α = {:.2}: at most random marking",
                p.load
            ),
            vm::vqf_overflow_share(p.load),
            p.seconds.clone(),
        ));
    }
    rows
}

fn example() -> Result<String> {
    let n = 10_000_000u64;
    let blocks = filterlab::vqf::blocks_for(n)?;
    let load = n as f64 / (blocks * 48) as f64;
    Ok(format!(
        "n = {n}: B = {blocks} blocks of 64 bytes, α = {load:.4}, λ = 48α/72 = {:.4}; \
         ω between {:.4} and {:.4}, so the rate lies between {} and {} ({} with every bit set); \
         {:.3} bits per key",
        vm::vqf_bucket_mean(load),
        vm::vqf_overflow_share_floor(load),
        vm::vqf_overflow_share(load),
        pct(vm::vqf_fpr(load, vm::vqf_overflow_share_floor(load))),
        pct(vm::vqf_fpr(load, vm::vqf_overflow_share(load))),
        pct(vm::vqf_fpr_bound(load)),
        vm::vqf_bits_per_item(load),
    ))
}

fn finding(lab: &Lab<'_>, points: &[Point]) -> String {
    let at = |load: f64| points.iter().find(|p| (p.load - load).abs() < 1e-9);
    let (Some(design), Some(full)) = (at(0.9), points.last()) else {
        return "No checkpoint was measured.".into();
    };
    format!(
        "Filled to each load in {} repetitions, each over its own {} probes. At the design \
         load of 90% the rate measured {} (formula {}), and {} of negative lookups read a \
         second block; nearly full (α = {:.2}) {} and {}.",
        lab.reps,
        design.fps.first().map_or(0, |c| c.trials),
        pct(pooled(&design.fps).rate),
        pct(mean(&design.formulas)),
        pct(pooled(&design.seconds).rate),
        full.load,
        pct(pooled(&full.fps).rate),
        pct(pooled(&full.seconds).rate),
    )
}

/// The vector quotient filter: its rate and its second-block reads against the load.
///
/// # Errors
/// A filter refusing its size or an insert.
pub fn vqf(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let points = measure(lab)?;
    let section = Section {
        figures: Vec::new(),
        title: "Vector quotient filter: load, overflow bits and rate".into(),
        source: "Pandey, Conway, Durie, Bender, Farach-Colton & Johnson 2021 (SIGMOD, vector \
                 quotient filters), §4; Breslow & Jayasena 2018 (PVLDB, Morton filters: \
                 overflow tracking); filter_core::math::vqf"
            .into(),
        example: example()?,
        rows: rows(&points),
        finding: finding(lab, &points),
        plots: Vec::new(),
    };
    Ok((section, Vec::new()))
}
