//! `window.md`, rendered from a window report alone, and the report's files.

use crate::plan::Output;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::window::{DesignResult, Guarantee, Judged, WindowReport};
use anyhow::Result;

fn interval(j: &Judged) -> String {
    match j.interval {
        Some((lo, hi))
            if matches!(
                j.guarantee,
                Guarantee::NoFalseNegative | Guarantee::FlatMemory
            ) =>
        {
            if lo == hi {
                "(a count)".into()
            } else {
                format!("{lo}–{hi}")
            }
        }
        Some((lo, hi)) => format!("{} – {}", pct(lo), pct(hi)),
        None => "–".into(),
    }
}

fn measured(j: &Judged) -> String {
    match j.guarantee {
        Guarantee::NoFalseNegative => format!("{}", j.measured),
        Guarantee::FlatMemory => format!("{:.3}", j.measured),
        _ => pct(j.measured),
    }
}

fn word(g: Guarantee) -> &'static str {
    match g {
        Guarantee::MaxFp => "FP rate, worst checkpoint ≤ target",
        Guarantee::PooledFp => "FP rate, every checkpoint pooled ≤ target",
        Guarantee::NoFalseNegative => "in-window items answered \"no\" = 0",
        Guarantee::AgedOut => "items past the horizon answered \"maybe\" ≤ target",
        Guarantee::FlatMemory => "largest / smallest bytes over the stream ≤ 1",
    }
}

/// The side-by-side table: shape, memory, rates and timings.
fn designs_table(r: &WindowReport) -> Table {
    let mut t = Table::new(&[
        ("design", Align::Left),
        ("parameters", Align::Left),
        ("horizon (windows)", Align::Right),
        ("bits per in-window item", Align::Right),
        ("FP pooled", Align::Right),
        ("FP worst checkpoint", Align::Right),
        ("past the horizon: maybe", Align::Right),
        ("false neg.", Align::Right),
        ("ns/insert, batched", Align::Right),
        ("ns/lookup", Align::Right),
    ]);
    for d in &r.designs {
        let (fp, probes) = d.pooled_fp();
        let (aged, asked) = d.pooled_aged();
        let worst = d.judged.iter().find(|j| j.guarantee == Guarantee::MaxFp);
        t.row([
            d.design.name().to_string(),
            d.params.clone(),
            format!("{:.3}", d.horizon as f64 / r.settings.window as f64),
            format!("{:.2}", d.bits_per_item(r.settings.window)),
            format!(
                "{} ({fp} / {probes})",
                pct(fp as f64 / probes.max(1) as f64)
            ),
            worst.map_or_else(|| "–".into(), |j| pct(j.measured)),
            format!(
                "{} ({aged} / {asked})",
                pct(aged as f64 / asked.max(1) as f64)
            ),
            d.checkpoints
                .iter()
                .map(|c| c.false_negatives)
                .sum::<u64>()
                .to_string(),
            format!("{:.1}", d.insert_ns),
            format!("{:.1}", d.lookup_ns),
        ]);
    }
    t
}

/// Every design's guarantees with their verdicts.
fn guarantees_table(designs: &[DesignResult]) -> Table {
    let mut t = Table::new(&[
        ("design", Align::Left),
        ("guarantee", Align::Left),
        ("measured", Align::Right),
        ("95% interval", Align::Right),
        ("bound", Align::Right),
        ("verdict", Align::Center),
    ]);
    for d in designs {
        for j in &d.judged {
            t.row([
                d.design.name().to_string(),
                word(j.guarantee).to_string(),
                measured(j),
                interval(j),
                j.bound.text(),
                j.verdict.word().to_string(),
            ]);
        }
    }
    t
}

/// The Markdown page of a window report.
#[must_use]
pub fn render(r: &WindowReport) -> String {
    let s = &r.settings;
    let checkpoints = r.designs.first().map_or(0, |d| d.checkpoints.len());
    format!(
        "# Sliding windows: guarantees and goals, side by side\n\n\
         Run at commit {} on {} ({} cores). A stream of {} windows of W = {} items (8-byte keys) at a \
         target of {} over the window through every design; {checkpoints} checkpoints ({} per window, \
         from the end of the first window on). At each: {} fresh non-members never asked before \
         (the FP rate over the window), {} in-window items spread over ages 1 to W (each must be \
         found), {} items spread over the W ages just past the design's horizon (the age after \
         which its own bits are gone: a \"maybe\" is then at best a false positive), and the bytes \
         held. Then {} interleaved rounds (order rotated): {} batched inserts continuing the stream, \
         and {} lookups one at a time (half in-window items, half fresh non-members), one thread. \
         Rates carry Wilson 95% intervals; met when the whole interval satisfies the bound, not met \
         when none of it does, undecided otherwise. probabilistic-rs rotates its levels by wall \
         time; here the stream rotates them every W/7 inserts (its `rotate_levels`, in memory). \
         The goals (≤ 16.5 bits per in-window item, ≤ 60 ns per batched insert, ≤ 80 ns per \
         lookup, at a measured 1%) are rows of the targets table in README.md.\n\n{}\n## Guarantees\n\n{}",
        r.machine.commit,
        r.machine.cpu,
        r.machine.cores,
        s.windows,
        s.window,
        pct(r.fpr),
        s.checkpoints_per_window,
        s.fp_queries,
        s.samples,
        s.samples,
        s.rounds,
        s.timed_inserts,
        s.timed_lookups,
        designs_table(r).render(),
        guarantees_table(&r.designs).render(),
    )
}

/// Writes `window.json` and `window.md` (rendered from it) into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &WindowReport, out: &std::path::Path) -> Result<()> {
    super::write_section(out, "window", r, render)
}

impl Output for WindowReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn judge(&mut self) {
        crate::judge::window::judge(self);
    }

    fn write(&self, out: &std::path::Path) -> Result<()> {
        write(self, out)?;
        eprintln!("{}", render(self));
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests;
