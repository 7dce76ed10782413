//! interop.md, rendered from interop.json alone (so that `check` can re-render it byte for
//! byte).

use crate::plan::Output;
use crate::render::table::{Align, Table};
use crate::stages::interop::estimate::Fill;
use crate::stages::interop::reads::ReadPair;
use crate::stages::interop::{InteropReport, TARGET_FPR};
use anyhow::Result;
use std::fmt::Write as _;
use std::path::Path;

/// `median (min–max)` of `v`, printed with `digits` decimals.
fn spread(v: &[f64], digits: usize) -> String {
    if v.is_empty() {
        return "–".into();
    }
    let mut sorted = v.to_vec();
    let med = crate::measure::median(&mut sorted);
    let (lo, hi) = (sorted[0], sorted[sorted.len() - 1]);
    format!("{med:.digits$} ({lo:.digits$}–{hi:.digits$})")
}

/// Mean and sample variance of `v`.
#[must_use]
pub fn moments(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

/// The page.
#[must_use]
pub fn render(r: &InteropReport) -> String {
    let m = &r.machine;
    let st = &r.settings;
    let mut s = String::from("# Interop: other ecosystems' filter files read by filterlab\n\n");
    let _ = writeln!(
        s,
        "Measured at commit {} ({}, {} cores of a {}, {:.0} s; `bench-harness study interop`; \
         written by the harness from interop.json, do not edit). Every filter is sized for {}. \
         Reads: a foreign file and a filterlab file of the run's first {} keys, each read from its \
         path into a queryable filter, {} interleaved rounds, the page cache warm for both, per \
         MB of filter (a Parquet file also holds the keys, which its read skips: its footer is \
         read, then the filter at its offset). Count \
         estimates: at each fill, {} Guava filters sized for {} keys, each from its own slice of \
         the run's members, read back from their bytes (a Guava file records no count); the first \
         of each fill asked {} strangers.\n",
        m.commit,
        m.date,
        m.cores,
        m.cpu,
        m.wall_seconds,
        crate::record::pct(TARGET_FPR),
        st.read_keys,
        st.read_rounds,
        st.replicates,
        st.capacity,
        st.probes
    );
    crate::render::table::study_goals(
        &mut s,
        &r.goals,
        "a bootstrap over the rounds or filters; a rate: Wilson's over its counts",
        6,
    );
    reads_table(&mut s, &r.reads);
    estimates_table(&mut s, &r.estimates);
    s
}

fn reads_table(s: &mut String, reads: &[ReadPair]) {
    let _ = writeln!(s, "## Reads\n");
    let mut t = Table::new(&[
        ("file", Align::Left),
        ("bytes", Align::Right),
        ("read, ms: median (min–max)", Align::Left),
        ("ms per MB", Align::Left),
        ("members missed", Align::Right),
    ]);
    for p in reads {
        t.row([
            p.foreign.word().to_string(),
            p.foreign_bytes.to_string(),
            spread(&p.foreign_ms, 2),
            spread(&p.foreign_ms_per_mb(), 3),
            p.foreign_missed.to_string(),
        ]);
        t.row([
            format!("filterlab {} (AnyFilter::load)", p.foreign.own()),
            p.own_bytes.to_string(),
            spread(&p.own_ms, 2),
            spread(&p.own_ms_per_mb(), 3),
            p.own_missed.to_string(),
        ]);
    }
    s.push_str(&t.render());
    s.push('\n');
}

fn estimates_table(s: &mut String, fills: &[Fill]) {
    let _ = writeln!(
        s,
        "## The count a Bloom filter's bits imply\n\n`n* = -(m/k) ln(1 - X/m)` (Swamidass & \
         Baldi 2007) for `X` set bits of `m`, and its documented spread \
         `sd = sqrt(m (e^λ - 1 - λ)) / k`, `λ = kn/m` (`filter_core::math::count`). `z` is each \
         filter's `(n* - n) / sd`: mean 0 and variance 1 if the estimate is unbiased and the \
         spread right. The rate at the estimate is `(X/m)^k`, what `filterlab info` prints for a \
         Guava file.\n"
    );
    let mut t = Table::new(&[
        ("fill", Align::Right),
        ("true count", Align::Right),
        ("m, k", Align::Left),
        ("estimates: median (min–max)", Align::Left),
        ("documented sd", Align::Right),
        ("z mean", Align::Right),
        ("z variance", Align::Right),
        ("reported FP at the estimate", Align::Right),
        ("measured FP", Align::Right),
    ]);
    for f in fills {
        let (mean, var) = moments(&f.z_scores());
        t.row([
            format!("{}x", f.fill),
            f.keys.to_string(),
            format!("{}, {}", f.bits, f.hashes),
            spread(&f.estimates, 1),
            format!("{:.1}", f.documented_sd()),
            format!("{mean:+.3}"),
            format!("{var:.3}"),
            format!("{:.3e}", f.reported_fpr()),
            format!(
                "{:.3e} ({} of {})",
                f.false_positives as f64 / f.probes as f64,
                f.false_positives,
                f.probes
            ),
        ]);
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// Writes `interop.json` and `interop.md` into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &InteropReport, out: &Path) -> Result<()> {
    super::write_section(out, "interop", r, render)
}

impl Output for InteropReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn write(&self, out: &Path) -> Result<()> {
        write(self, out)
    }
}
