//! Writes `reports/`: results.json, the plots, and README.md with the headline tables, the
//! machine the run was on and the articles' claims checked against the run.

use crate::measure::{Mix, Spread};
use crate::record::provenance::Repo;
use crate::record::study::Stamp;
use crate::record::{DatasetInfo, Machine, Record, Results, Scenario, SCHEMA};
use crate::render::charts::{by, pct, targets};
use crate::render::table::{Align, Table};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

pub mod again;
pub mod by_cpu;
pub mod charts;
pub mod course;
pub mod expansion;
pub mod floor;
pub mod headline;
pub mod interop;
pub mod mapped;
pub mod python;
pub mod python_peers;
pub mod root;
pub mod studies;
pub mod sweep;
pub mod systems;
pub mod table;
pub mod tables;
#[cfg(test)]
mod tests;
pub mod threads;
pub mod window;

pub use root::{committed_block, readme_block, update_readme_block};
#[cfg(test)]
use root::{BEGIN, END};
use tables::*;

/// A timing as `median (min–max)`, or `–` when it was not taken.
fn ns(v: Option<Spread>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.1}"))
}

/// Whether a row is of a static variant (built once from its key set: no inserts), by the
/// registry's capabilities.
fn is_static(x: &Record) -> bool {
    crate::filters::Contender::from_name(&x.variant).is_some_and(|v| v.capabilities().static_set)
}

/// A huge-page coverage as a percentage, or "not obtained".
fn coverage(c: Option<f64>) -> String {
    c.map_or_else(|| "not obtained".into(), |c| format!("{:.0}%", c * 100.0))
}

/// A single figure with one decimal, or `–`.
fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.1}"))
}

/// `a / b` of two medians as `1.23×`, or `–`.
fn ratio(a: Option<Spread>, b: Option<Spread>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b.median > 0.0 => format!("{:.2}×", a.median / b.median),
        _ => "–".into(),
    }
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// Writes a section's `<out>/<name>.json` (pretty, ending in a newline), then its page
/// `<out>/<name>.md`, rendered by `page`.
///
/// # Errors
/// I/O errors.
pub fn write_section<R: serde::Serialize>(
    out: &Path,
    name: &str,
    r: &R,
    page: fn(&R) -> String,
) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let json = serde_json::to_string_pretty(r)? + "\n";
    std::fs::write(out.join(format!("{name}.json")), json)?;
    std::fs::write(out.join(format!("{name}.md")), page(r))?;
    Ok(())
}

/// Writes results.json, the plots, README.md (with the index of the studies found in `dir`,
/// their code changes asked of `repo`) and goals.md into `dir`.
///
/// # Errors
/// I/O errors, or a study in `dir` that cannot be read or is not in HEAD's history.
pub fn write(dir: &Path, results: &Results, repo: Option<&dyn Repo>) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json = serde_json::to_string_pretty(results)?;
    // Tables and charts are drawn from results.json as written (a float can come back one ulp
    // off), so that `check` re-rendering them from the file gets the very same bytes.
    let results: Results = serde_json::from_str(&json).context("re-reading results.json")?;
    std::fs::write(dir.join("results.json"), json + "\n")?;
    crate::render::charts::render(dir, &crate::render::charts::all(&results.records))?;
    write_index(dir, &results, repo)
}

/// README.md and goals.md of `dir`, from `results` and the studies found there.
fn write_index(dir: &Path, results: &Results, repo: Option<&dyn Repo>) -> Result<()> {
    let found = studies::read_studies(dir)?;
    let stamps = studies::stamps(&found, &results.machine.commit, repo)?;
    std::fs::write(dir.join("README.md"), render_readme(results, &stamps))?;
    let by_cpu = crate::record::by_cpu::update(dir, results)?;
    std::fs::write(
        dir.join("goals.md"),
        studies::goals_page(results, &found, &by_cpu),
    )?;
    // The committed reports' studies are named in the root README's block too.
    if repo.is_some() && dir == Path::new("reports") {
        update_readme_block(Path::new("README.md"), results, &stamps)?;
    }
    Ok(())
}

/// After a study: README.md's index and goals.md of `dir` re-rendered from its results.json
/// and the studies' JSON (the repository asked for the code changed since each study when `dir`
/// is the committed reports/). Without a results.json there is nothing to index: a note says so.
///
/// # Errors
/// I/O errors, or a study that cannot be read or is not in HEAD's history.
pub fn rewrite_index(dir: &Path) -> Result<()> {
    let path = dir.join("results.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            eprintln!(
                "note: no {} yet (the main job writes it): the index of studies waits for it",
                path.display()
            );
            return Ok(());
        }
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    let results: Results =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    let git = crate::record::provenance::Git(Path::new("."));
    let repo = (dir == Path::new("reports")).then_some(&git as &dyn Repo);
    write_index(dir, &results, repo)
}

/// reports/README.md as [`write()`] renders it from `results` and the studies' `stamps` (the
/// charts' stems and captions included, without drawing them); `check` compares it with the
/// committed file.
#[must_use]
pub fn render_readme(results: &Results, stamps: &[Stamp]) -> String {
    let plots: Vec<(String, String)> = crate::render::charts::all(&results.records)
        .into_iter()
        .map(|c| (c.stem, c.caption))
        .collect();
    readme(results, &plots, stamps)
}

fn readme(results: &Results, plots: &[(String, String)], stamps: &[Stamp]) -> String {
    let r = &results.records;
    let m = &results.machine;
    let mut s = String::new();
    let _ = writeln!(s, "# filterlab benchmark report\n");
    let _ = writeln!(
        s,
        "Every variant measured on {} keys ({}) beside the crates teams use instead, at commit {} \
         ({}; {:.0} s on {} cores of a {}). Written by the harness (`{}`) from `results.json`; do \
         not edit by hand.\n",
        results.dataset.members,
        results.dataset.source,
        m.commit,
        m.date,
        m.wall_seconds,
        m.cores,
        m.cpu,
        m.command
    );
    headline::section(&mut s, results);
    machine_section(&mut s, &results.machine, &results.disturbances());
    stages_section(&mut s, results);
    dataset_section(&mut s, &results.dataset);
    let matrix: Vec<&Record> = by(r, Scenario::Matrix).collect();
    matrix_tables(&mut s, r, &matrix);
    batched_table(&mut s, &matrix);
    matrix_note(&mut s, &matrix);
    plots_section(&mut s, plots);
    peers_tables(&mut s, results);
    scenario_tables(&mut s, r);
    if !matrix.is_empty() {
        claims(&mut s, results);
    }
    studies::index_section(&mut s, stamps);
    schema_section(&mut s);
    s
}

/// The machine the run was made on.
fn machine_section(s: &mut String, m: &Machine, disturbances: &[String]) {
    let _ = writeln!(s, "## Machine\n");
    let mut t = Table::new(&[
        ("CPU", Align::Left),
        ("cores", Align::Left),
        ("memory", Align::Left),
        ("rustc", Align::Left),
        ("commit", Align::Left),
        ("date", Align::Left),
        ("wall time of the run", Align::Left),
    ]);
    t.row([
        m.cpu.clone(),
        m.cores.to_string(),
        m.memory.to_string(),
        m.rustc.clone(),
        m.commit.clone(),
        m.date.clone(),
        format!("{:.0} s ({:.1} min)", m.wall_seconds, m.wall_seconds / 60.0),
    ]);
    let _ = writeln!(s, "{}", t.render());
    let _ = writeln!(
        s,
        "Absolute times are this machine's and swing between runs on a shared 2-core VM; compare \
         figures within one table (same run, medians of interleaved rounds).\n"
    );
    for d in disturbances {
        let _ = writeln!(s, "{d}\n");
    }
}

/// Each stage's wall time and the harness's peak memory in it; the run's peaks.
fn stages_section(s: &mut String, results: &Results) {
    if results.stages.is_empty() {
        return;
    }
    let gb = |b: u64| format!("{:.2} GB", b as f64 / 1e9);
    let mut t = Table::new(&[
        ("stage", Align::Left),
        ("wall time", Align::Right),
        ("peak memory of the harness", Align::Right),
    ]);
    for st in &results.stages {
        let peak = st.peak_rss.map_or_else(|| "–".to_string(), gb);
        t.row([st.name.clone(), format!("{:.1} s", st.seconds), peak]);
    }
    let _ = writeln!(s, "{}", t.render());
    if let Some(peak) = results.peak_rss {
        let _ = writeln!(
            s,
            "Peak resident memory of the run: {} in the harness (`VmHWM`, reset at each stage's \
             start), {} in the largest process it started (`VmRSS` sampled every {} ms).\n",
            gb(peak.harness),
            gb(peak.children),
            crate::measure::memory::SAMPLE.as_millis()
        );
    }
}

/// The keys: counts, source, hashes, top domains.
fn dataset_section(s: &mut String, d: &DatasetInfo) {
    let _ = writeln!(s, "## Dataset\n");
    let _ = writeln!(
        s,
        "{} members and {} non-members ({}), distinct and disjoint (verified). SHA-256 of the \
         one-key-per-line files: members `{}`, non-members `{}`.\n",
        d.members, d.non_members, d.source, d.members_sha256, d.non_members_sha256
    );
    if !d.top_domains.is_empty() {
        let mut t = Table::new(&[
            ("domain", Align::Left),
            ("members", Align::Right),
            ("share", Align::Right),
        ]);
        for (dom, c) in d.top_domains.iter().take(10) {
            t.row([
                dom.clone(),
                c.to_string(),
                format!("{:.1}%", *c as f64 * 100.0 / d.members.max(1) as f64),
            ]);
        }
        let _ = writeln!(s, "{}", t.render());
    }
}

/// The matrix tables' columns.
const MATRIX_COLUMNS: [(&str, Align); 20] = [
    ("variant", Align::Left),
    ("parameters", Align::Left),
    ("memory", Align::Right),
    ("bits/key", Align::Right),
    ("over lower bound at target", Align::Right),
    ("at achieved FP", Align::Right),
    ("theory FPR", Align::Right),
    ("measured FPR", Align::Right),
    ("Wilson 95% CI", Align::Left),
    ("measured/theory", Align::Right),
    ("theory in CI", Align::Center),
    ("false neg.", Align::Right),
    ("ns/insert (static: build ns/key)", Align::Right),
    ("ns/lookup 0%", Align::Right),
    ("25%", Align::Right),
    ("50%", Align::Right),
    ("75%", Align::Right),
    ("100%", Align::Right),
    ("p50 ns", Align::Right),
    ("p99 ns", Align::Right),
];

/// One table per target FP rate of the matrix.
fn matrix_tables(s: &mut String, r: &[Record], matrix: &[&Record]) {
    for t in targets(r) {
        let n = matrix.first().map_or(0, |x| x.n);
        let _ = writeln!(s, "## n = {n}, target FP rate {}\n", pct(t));
        let mut table = Table::new(&MATRIX_COLUMNS);
        for x in matrix.iter().filter(|x| x.target_fpr == t) {
            let l = |k: &str| ns(x.ns_per_lookup.get(k).cloned());
            table.row([
                x.variant.clone(),
                x.params.clone(),
                mb(x.bytes),
                format!("{:.2}", x.bits_per_key),
                format!("{:+.0}%", x.overhead_over_lower_bound * 100.0),
                x.overhead_at_achieved_fpr
                    .map_or_else(|| "–".into(), |o| format!("{:+.0}%", o * 100.0)),
                pct(x.theoretical_fpr),
                pct(x.empirical_fpr),
                format!("[{}, {}]", pct(x.fpr_ci_low), pct(x.fpr_ci_high)),
                format!("{:.3}", x.measured_over_theory),
                (if x.theory_in_ci { "yes" } else { "**no**" }).into(),
                x.false_negatives.to_string(),
                ns(x.ns_per_insert.clone()),
                l(Mix::None.key()),
                l(Mix::Quarter.key()),
                l(Mix::Half.key()),
                l(Mix::ThreeQuarters.key()),
                l(Mix::All.key()),
                num(x.latency_p50_ns),
                num(x.latency_p99_ns),
            ]);
        }
        s.push_str(&table.render());
        s.push('\n');
    }
}

/// What the matrix's theory column means, and the seeds.
fn matrix_note(s: &mut String, matrix: &[&Record]) {
    // A sweep-only run has no matrix: no "0 of 0 rows" sentence.
    if !matrix.is_empty() {
        let flagged = matrix.iter().filter(|x| !x.theory_in_ci).count();
        let r_default = filterlab::scalable::DEFAULT_TIGHTENING;
        let _ = writeln!(
            s,
            "Theory lies outside the measured 95% interval for {flagged} of {} rows; by chance alone about \
             one row in twenty would be. The counting filters are hashed with seed {} (the others with 0) \
             so that their false positives are an independent sample rather than a copy of the classic \
             filter's. The scalable filter's first stage is built at P0 = P(1 - r) with r = {r_default} so \
             that the compound rate stays under P however far it grows; at its declared capacity it \
             therefore sits near P0 and pays for that headroom in bits per key.\n",
            matrix.len(),
            crate::filters::COUNTING_SEED
        );
        let _ = writeln!(
            s,
            "The static filters ({}) take no inserts: each is built once from the whole key set \
             (`AnyFilter::build_from_hashes`), and its ns/insert column is that build's nanoseconds per key, \
             hashing the key bytes included; it has no batched-insert figure. A static filter whose \
             fingerprints cannot meet a target (an 8-bit binary fuse filter below 2^-8 = 0.39%) has no row there. \
             Their theory is the filter's own `expected_fpr()`, FP measured on the same negatives.\n",
            filterlab::Variant::names_with(|c| c.static_set && !c.windowed)
        );
    }
}

/// The plots, SVG with a PNG link.
fn plots_section(s: &mut String, plots: &[(String, String)]) {
    let _ = writeln!(s, "## Plots\n");
    for (stem, caption) in plots {
        let _ = writeln!(
            s,
            "![{caption}]({stem}.svg)\n\n*{caption}* ([PNG]({stem}.png))\n"
        );
    }
}

/// The results.json schema.
fn schema_section(s: &mut String) {
    let _ = writeln!(s, "## results.json\n");
    let _ = writeln!(
        s,
        "`{{ \"machine\": {{…}}, \"dataset\": {{…}}, \"records\": [ … ] }}`; one record per (variant, n, \
         target FP rate, scenario, step):\n"
    );
    let mut t = Table::new(&[("field", Align::Left), ("meaning", Align::Left)]);
    for (f, what) in SCHEMA {
        t.row([format!("`{f}`"), (*what).to_string()]);
    }
    s.push_str(&t.render());
}
