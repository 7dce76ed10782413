//! python.md, rendered from python.json alone (so that `check` can re-render it byte for byte).

use crate::measure::Spread;
use crate::record::python::goals::{fp_band, measured_fpr};
use crate::record::python::{
    BenchId, Goal, LoadCheck, Measured, MemoryMethod, Outcome, PythonReport, RbloomBench,
};
use crate::record::Metric;
use crate::record::{pct, Bound, Verdict};
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

fn spread(xs: Option<&[f64]>, prec: usize) -> String {
    xs.map_or_else(
        || "–".into(),
        |xs| format!("{:.prec$}", Spread::of(&mut xs.to_vec())),
    )
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn method_words(m: MemoryMethod) -> &'static str {
    match m {
        MemoryMethod::VmHwmReset => "VmHWM after, reset before (clear_refs 5), minus VmRSS before",
        MemoryMethod::VmHwm => "VmHWM after minus VmHWM before (reset refused: a lower bound)",
    }
}

/// The page.
#[must_use]
pub fn render(r: &PythonReport) -> String {
    let mut s =
        String::from("# filterlab from Python, beside the Python filters its readers use\n\n");
    let m = &r.machine;
    let _ = writeln!(
        s,
        "Commit {}, {} on {} ({} cores, {}), {}. Written by the harness's Python stage \
         (bench-harness/src/python/) from python.json; `bench-harness check` re-renders it.\n",
        m.commit, m.date, m.cpu, m.cores, m.memory, m.command
    );
    match &r.outcome {
        Outcome::Skipped { reason } => {
            let _ = writeln!(s, "**Not measured in this run:** {reason}.\n");
        }
        Outcome::Measured(x) => measured(&mut s, r, x),
    }
    s
}

fn measured(s: &mut String, r: &PythonReport, x: &Measured) {
    let t = &x.timing;
    let versions: Vec<String> = t.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(
        s,
        "CPython {} in the project's virtual environment (scripts/python.sh, from PyPI): {}. \
         The same key files as the rest of the run ({} and {}): {} e-mails inserted, {} \
         disjoint non-members probed and as many members. {} interleaved rounds in one process \
         (every contender built and probed in round r before round r + 1); a contender whose \
         first build took over 20 s is built once and its lookups timed on that build (its \
         build column shows one round). Medians (min–max) over the rounds. \
         Peak memory: a fresh process per contender, {}.\n",
        t.python,
        versions.join(", "),
        r.settings.members_file,
        r.settings.probes_file,
        r.settings.n,
        r.settings.queries,
        t.rounds,
        x.timing
            .contenders
            .first()
            .and_then(|c| c.peak)
            .map_or("not obtained", |p| method_words(p.method)),
    );
    goals_table(s, &x.goals);
    contenders_table(s, x);
    if let Some(b) = &x.rbloom_bench {
        bench_table(s, b);
    }
    load_section(s, &x.load);
}

fn bound_text(b: Bound, rate: bool) -> String {
    match (b, rate) {
        (Bound::Between(lo, hi), true) => format!("{} to {}", pct(lo), pct(hi)),
        _ => b.text(),
    }
}

fn interval_text(g: &Goal, rate: bool) -> String {
    match g.interval {
        Some((lo, hi)) if rate => format!("{}–{}", pct(lo), pct(hi)),
        Some((lo, hi)) => format!("{lo:.3}–{hi:.3}"),
        None => "–".into(),
    }
}

fn goals_table(s: &mut String, goals: &[Goal]) {
    let count = |v: Verdict| goals.iter().filter(|g| g.verdict == v).count();
    let _ = writeln!(
        s,
        "## Goals of issue 20 ({} met, {} not met, {} undecided, {} not measured)\n\n\
         Met: the whole 95% interval satisfies the bound; not met: none of it does; otherwise \
         undecided. Ratios: medians over the interleaved rounds, bootstrap interval over the \
         rounds paired (the harness's seed). FP rates: the Wilson interval of the measured rate \
         against ±4 binomial sigmas of the promise (from 0 for a requested rate). The ratio goals \
         are also rows of README.md's targets table.\n",
        count(Verdict::Met),
        count(Verdict::NotMet),
        count(Verdict::Undecided),
        count(Verdict::NotMeasured),
    );
    let mut tab = Table::new(&[
        ("goal", Align::Left),
        ("value", Align::Right),
        ("95% interval", Align::Left),
        ("bound", Align::Left),
        ("verdict", Align::Center),
        ("note", Align::Left),
    ]);
    for g in goals {
        let rate = matches!(
            g.id,
            crate::record::python::GoalId::FpInInterval(_)
                | crate::record::python::GoalId::DropInFp(_)
        );
        let value = match (g.value, rate) {
            (None, _) => "–".to_string(),
            (Some(v), true) => pct(v),
            (Some(v), false) => format!("{v:.3}"),
        };
        tab.row([
            g.measure.clone(),
            value,
            interval_text(g, rate),
            bound_text(g.bound, rate),
            g.verdict.word().to_string(),
            g.note.clone(),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

fn contenders_table(s: &mut String, x: &Measured) {
    let _ = writeln!(
        s,
        "## Every contender\n\nBuild: allocation and every insert, keys as Python str. \
         Batched: `add_many` / `contains_many` on a list of str (rbloom: `update`; it has no \
         batch lookup). Bytes: the structure's own, as its API reports them; peak: the peak \
         resident memory of one build, one key at a time, in a fresh process (keys loaded \
         before; `–`: not measured, a contender whose build takes over {} s is not built a \
         second time for its peak). Inside?: the Wilson interval against ±4 binomial sigmas of the promise \
         (formula: the filter's expected_fpr() at its load; asked: the error_rate given, an \
         upper bound).\n",
        crate::record::python::MEMORY_SKIP_BUILD_SECONDS
    );
    let mut tab = Table::new(&[
        ("contender", Align::Left),
        ("build s, add", Align::Right),
        ("build s, batched", Align::Right),
        ("ns/neg `in`", Align::Right),
        ("ns/pos `in`", Align::Right),
        ("ns/neg key, batched", Align::Right),
        ("ns/pos key, batched", Align::Right),
        ("bytes", Align::Right),
        ("peak", Align::Right),
        ("measured FP (count / probes)", Align::Right),
        ("Wilson 95%", Align::Left),
        ("promised", Align::Right),
        ("inside?", Align::Center),
        ("false neg.", Align::Right),
    ]);
    for c in &x.timing.contenders {
        let (rate, (lo, hi)) = measured_fpr(c);
        let band = fp_band(c.promised_fpr, c.promise, c.probes);
        let promise = match c.promise {
            crate::record::python::Promise::Formula => "formula",
            crate::record::python::Promise::Requested => "asked",
        };
        tab.row([
            c.id.label().to_string(),
            spread(Metric::Build.of(c), 3),
            spread(Metric::BuildBatched.of(c), 3),
            spread(Metric::Negative.of(c), 1),
            spread(Metric::Positive.of(c), 1),
            spread(Metric::NegativeBatched.of(c), 1),
            spread(Metric::PositiveBatched.of(c), 1),
            mib(c.bytes),
            c.peak.map_or_else(|| "–".into(), |p| mib(p.bytes)),
            format!("{} ({} / {})", pct(rate), c.false_positives, c.probes),
            format!("{}–{}", pct(lo), pct(hi)),
            format!("{} ({promise})", pct(c.promised_fpr)),
            Verdict::of(band, Some((lo, hi))).word().to_string(),
            format!("{} / {}", c.false_negatives, c.positives),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

fn bench_table(s: &mut String, b: &RbloomBench) {
    let _ = writeln!(
        s,
        "## rbloom's own benchmark, filterlab added\n\nrbloom's benchmarks/compare.py: a \
         filter for {} items at {}, add the floats i + 0.5 for every i < {}, then check each \
         (a false negative raises). Seconds for both passes, {} interleaved rounds.\n",
        b.n,
        pct(b.target_fpr),
        b.n,
        b.rounds
    );
    let rb = b
        .rows
        .iter()
        .find(|r| r.id == BenchId::Rbloom)
        .map(|r| Spread::of(&mut r.seconds.clone()).median);
    let mut tab = Table::new(&[
        ("contender", Align::Left),
        ("seconds", Align::Right),
        ("× rbloom", Align::Right),
        ("false neg.", Align::Right),
    ]);
    for r in &b.rows {
        let sp = Spread::of(&mut r.seconds.clone());
        tab.row([
            r.id.label().to_string(),
            format!("{sp:.3}"),
            rb.map_or_else(|| "–".into(), |d| format!("{:.2}×", sp.median / d)),
            r.false_negatives.to_string(),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

fn load_section(s: &mut String, l: &LoadCheck) {
    let _ = writeln!(s, "## Loading a filter file\n");
    match &l.measured {
        Some(m) => {
            let _ = writeln!(
                s,
                "A ClassicBloom saved to a {} file ({} bytes; the goal names {:.1} GB{}), loaded \
                 by `filterlab.load` in a fresh process: peak {} above the resident memory \
                 before the call ({:.2}× the file; {}), table {}.\n",
                mib(m.file_bytes),
                m.file_bytes,
                l.goal_bytes as f64 / 1e9,
                l.smaller_because
                    .as_ref()
                    .map_or_else(String::new, |w| format!(": smaller because {w}")),
                mib(m.peak_bytes),
                m.peak_bytes as f64 / m.file_bytes.max(1) as f64,
                method_words(m.method),
                mib(m.table_bytes),
            );
        }
        None => {
            let _ = writeln!(
                s,
                "Not measured: {}.\n",
                l.smaller_because.as_deref().unwrap_or("no file made")
            );
        }
    }
}

/// Writes python.json and python.md (the stage hands the report to the pipeline, which calls
/// this after it).
impl crate::plan::Output for PythonReport {
    fn write(&self, out: &std::path::Path) -> anyhow::Result<()> {
        super::write_section(out, "python", self, render)
    }
}
