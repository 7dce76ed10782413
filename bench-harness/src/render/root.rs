//! The block of the top-level README between the harness markers: each variant's memory, FP
//! rate reached (with its interval) and lookup time at a 1% target, from the run's results.json.
//! `check` re-renders it and compares it with the committed README.

use super::table::{Align, Table};
use crate::measure::{bootstrap, Mix, Spread};
use crate::record::study::Stamp;
use crate::record::{Record, Results, Scenario};
use crate::render::charts::{by, pct};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

pub(super) const BEGIN: &str = "<!-- harness:begin variants -->";
pub(super) const END: &str = "<!-- harness:end variants -->";

/// The row every other row's lookup time is compared with.
const BASE: &str = "classic";

/// Rewrites the generated block of the top-level README (between the harness markers): memory
/// per key and measured FP rate of each variant at 1%, from this run.
///
/// # Errors
/// I/O errors, or a README without the markers.
pub fn update_readme_block(path: &Path, results: &Results, stamps: &[Stamp]) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        anyhow::bail!("{} lacks the {BEGIN} / {END} markers", path.display());
    };
    let block = readme_block(results, stamps);
    let updated = format!("{}{}{}", &text[..b], block, &text[e + END.len()..]);
    std::fs::write(path, updated)?;
    Ok(())
}

/// A lookup time over the base row's, with the 95% bootstrap interval of that ratio over the
/// rounds both were timed in (paired: the same interleaved rounds), as `0.41 (0.36–0.47)`;
/// `–` where either has no rounds.
fn over_base(row: Option<&Spread>, base: Option<&Spread>) -> String {
    let (Some(row), Some(base)) = (row, base) else {
        return "–".into();
    };
    let ratio = row.median / base.median;
    match bootstrap::ratio_interval(&row.samples, &base.samples) {
        Some((lo, hi)) if ratio.is_finite() => format!("{ratio:.2} ({lo:.2}–{hi:.2})"),
        _ => "–".into(),
    }
}

/// The variants' table: the FP rate reached with its Wilson 95% interval (a rate above the one
/// asked for is a miss only if the whole interval is), and the lookup time beside its ratio
/// to the classic filter's, whose interval says which rows differ.
fn variants_table(rows: &[&Record]) -> String {
    let half = |r: &Record| r.ns_per_lookup.get(Mix::Half.key()).cloned();
    let base = rows
        .iter()
        .find(|r| r.variant == BASE)
        .and_then(|r| half(r));
    let mut t = Table::new(&[
        ("variant", Align::Left),
        ("memory", Align::Right),
        ("bits/key", Align::Right),
        ("FP asked", Align::Right),
        ("FP reached [95% interval]", Align::Right),
        ("ns/lookup (50% positive): median (range)", Align::Right),
        ("over classic's (95% interval)", Align::Right),
    ]);
    for r in rows {
        t.row([
            r.variant.clone(),
            super::mb(r.bytes),
            format!("{:.2}", r.bits_per_key),
            pct(r.target_fpr),
            format!(
                "{} [{}, {}]",
                pct(r.empirical_fpr),
                pct(r.fpr_ci_low),
                pct(r.fpr_ci_high)
            ),
            super::ns(half(r)),
            over_base(half(r).as_ref(), base.as_ref()),
        ]);
    }
    t.render()
}

/// The block between the root README's markers, markers included, as [`update_readme_block`]
/// writes it; `check` compares it with the committed README.
#[must_use]
pub fn readme_block(results: &Results, stamps: &[Stamp]) -> String {
    let mut block = String::new();
    let rows: Vec<&Record> = by(&results.records, Scenario::Matrix)
        .filter(|r| r.target_fpr == 0.01)
        .collect();
    let n = rows.first().map_or(0, |r| r.n);
    let _ = writeln!(block, "{BEGIN}");
    let _ = writeln!(
        block,
        "Measured by the harness on {} synthetic e-mails at a 1% target ({}, commit {}; the whole \
         run took {:.1} minutes on {} cores of a {}):\n",
        n,
        results.machine.date,
        results.machine.commit,
        results.machine.wall_seconds / 60.0,
        results.machine.cores,
        results.machine.cpu
    );
    for d in results.disturbances() {
        let _ = writeln!(block, "{d}\n");
    }
    block.push_str(&variants_table(&rows));
    let _ = writeln!(
        block,
        "\nAsked for the same rate, the rows reach different ones (a growing filter's first stage is \
         built tighter, an 8-bit binary fuse filter is fixed near 2^-8, a 16-bit one near 2^-16): \
         bits per key compare fairly only at equal reached rates, which [reports/README.md](reports/README.md) \
         gives beside the best crate of each kind. The rows are in the registry's order, not by \
         speed: the lookup times' ranges over the rounds can overlap; read one row as faster than \
         another only where their ratios to the classic filter's (each from the same interleaved \
         rounds) have intervals that do not overlap."
    );
    let studies: Vec<String> = stamps
        .iter()
        .map(|x| format!("{} {:.0} s", x.study.name(), x.wall_seconds))
        .collect();
    if !studies.is_empty() {
        let _ = writeln!(
            block,
            "\nThe studies, each at its own commit ([reports/README.md](reports/README.md) lists \
             them): {}.",
            studies.join(", ")
        );
    }
    let _ = write!(block, "{END}");
    block
}

/// The block between the markers in `text`, markers included.
#[must_use]
pub fn committed_block(text: &str) -> Option<&str> {
    let (b, e) = (text.find(BEGIN)?, text.find(END)?);
    text.get(b..e + END.len())
}
