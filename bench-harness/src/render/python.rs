//! python.md, rendered from python.json alone (so that `check` can re-render it byte for byte).

use crate::measure::Spread;
use crate::record::python::goals::{fp_band, measured_fpr};
use crate::record::python::{
    BenchId, ContenderId, ContenderRow, Goal, LoadCheck, Measured, MemoryMethod, Outcome, Promise,
    PythonReport, RbloomBench, Scale, Timing,
};
use crate::record::verdict::ratio_interval;
use crate::record::Metric;
use crate::record::{pct, Bound, Verdict};
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

pub(super) fn spread(xs: Option<&[f64]>, prec: usize) -> String {
    xs.map_or_else(
        || "–".into(),
        |xs| format!("{:.prec$}", Spread::of(&mut xs.to_vec())),
    )
}

pub(super) fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn method_words(m: MemoryMethod) -> &'static str {
    match m {
        MemoryMethod::VmHwmReset => "VmHWM after, reset before (clear_refs 5), minus VmRSS before",
        MemoryMethod::VmHwm => "VmHWM after minus VmHWM before (reset refused: a lower bound)",
    }
}

/// The page's first line: what it measures, at which commit.
fn title(r: &PythonReport) -> String {
    let sizes = match (&r.outcome, r.settings.sample) {
        (Outcome::Skipped { .. }, _) => "not measured in this run".to_string(),
        (Outcome::Measured(_), Some(s)) => format!(
            "at {} keys, the pure-Python filters on a sample of {} keys",
            r.settings.n, s.keys
        ),
        (Outcome::Measured(_), None) => format!("at {} keys", r.settings.n),
    };
    format!(
        "# Python at commit {}: filterlab's package beside rbloom, pybloom_live, bloom-filter2 and the first article's class, {sizes}\n\n",
        r.machine.commit
    )
}

/// The page.
#[must_use]
pub fn render(r: &PythonReport) -> String {
    let mut s = title(r);
    let m = &r.machine;
    let _ = writeln!(
        s,
        "{} on {} ({} cores, {}), {}. Written by the harness's Python stage \
         (bench-harness/src/stages/python/) from python.json; `bench-harness check` re-renders it.\n",
        m.date, m.cpu, m.cores, m.memory, m.command
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
    let sample = t.sample.unwrap_or_default();
    let _ = writeln!(
        s,
        "CPython {} in the project's virtual environment (scripts/python.sh, from PyPI): {}. \
         The same key files as the rest of the run ({} and {}). One timing process loads the \
         keys once and runs the rounds the harness asks for: every contender of a round is \
         built and probed before the next round starts. The package's classes, its drop-in \
         module and rbloom are built with {} e-mails and probed with {} disjoint non-members \
         and as many members. The pure-Python filters (pybloom_live, bloom-filter2, the first \
         article's class) insert one key at a time in Python, one to two orders of magnitude \
         slower than the package (the sample's table says how much), so they are built on a \
         **sample of the first {} keys** and probed with the first {} \
         non-members and as many members, and ClassicBloom is measured beside them on the same \
         sample in the same rounds; a figure of theirs is compared only with figures taken at \
         their size. Their promise at full size is checked by the \
         [python-peers](python-peers.md) study. Medians (min–max) over each loop's rounds.\n",
        t.python,
        versions.join(", "),
        r.settings.members_file,
        r.settings.probes_file,
        t.n,
        t.queries,
        sample.keys,
        sample.probes,
    );
    loops_table(s, t);
    goals_table(s, &x.goals);
    full_table(s, x);
    reused::section(s, x);
    costs::section(s, x);
    sample_table(s, x);
    peaks_table(s, x);
    if let Some(b) = &x.rbloom_bench {
        bench_table(s, b);
    }
    load_section(s, &x.load);
}

/// Each timing loop: its contenders and size, its rounds and what ended it.
pub(super) fn loops_table(s: &mut String, t: &Timing) {
    let _ = writeln!(
        s,
        "## The timing loops\n\nAn adaptive loop runs rounds until every series' median is known \
         to within its policy's limit (the half-width of the median's 95% bootstrap interval over \
         the rounds, as a share of it; a ratio of two such medians is then known to about twice \
         that), or its time budget or round limit ends it.\n"
    );
    let mut tab = Table::new(&[
        ("loop", Align::Left),
        ("keys", Align::Right),
        ("probes", Align::Right),
        ("rounds", Align::Right),
        ("policy", Align::Left),
        ("seconds", Align::Right),
        ("what ended it", Align::Left),
        ("widest median interval", Align::Right),
    ]);
    for l in &t.loops {
        let size = t.size(l.scale).unwrap_or_default();
        let rec = &l.record;
        let policy = rec.policy.map_or_else(
            || "–".into(),
            |p| match (p.min, p.max) {
                (1, 1) => "once".to_string(),
                (lo, hi) if lo == hi => format!("{lo} rounds"),
                (lo, hi) => format!(
                    "{lo} to {hi} rounds, median ±{:.1}%{}",
                    p.half_width * 100.0,
                    p.budget_seconds
                        .map_or_else(String::new, |b| format!(", {b:.0} s"))
                ),
            },
        );
        tab.row([
            rec.what.clone(),
            size.keys.to_string(),
            size.probes.to_string(),
            rec.rounds.to_string(),
            policy,
            format!("{:.1}", rec.seconds),
            if rec.rounds == 1 {
                "one round".into()
            } else {
                rec.stop.word().to_string()
            },
            rec.widest
                .map_or_else(|| "–".into(), |w| format!("±{:.1}%", w * 100.0)),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
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
         undecided. Ratios: ClassicBloom's and rbloom's medians at full size over their \
         adaptive loop's rounds, bootstrap interval over the rounds paired (the harness's seed); \
         a ratio left undecided when the loop's budget ended it says so. FP rates: the Wilson interval of the measured rate \
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

/// The FP cells of a row: measured (count / probes), Wilson's interval, the promise, inside?
fn fp_cells(c: &ContenderRow) -> [String; 4] {
    let (rate, (lo, hi)) = measured_fpr(c);
    let band = fp_band(c.promised_fpr, c.promise, c.probes);
    let promise = match c.promise {
        Promise::Formula => "formula",
        Promise::Requested => "asked",
        Promise::StageSum => "stages' sum",
    };
    [
        format!("{} ({} / {})", pct(rate), c.false_positives, c.probes),
        format!("{}–{}", pct(lo), pct(hi)),
        format!("{} ({promise})", pct(c.promised_fpr)),
        Verdict::of(band, Some((lo, hi))).word().to_string(),
    ]
}

fn full_table(s: &mut String, x: &Measured) {
    let t = &x.timing;
    let _ = writeln!(
        s,
        "## At full size: {} keys, {} probes\n\nBuild: allocation and every insert, keys as \
         Python str. Batched: `add_many` / `contains_many` on a list of str (rbloom: `update`; it \
         has no batch lookup). Bytes: the structure's own, as its API reports them. Inside?: the \
         Wilson interval against ±4 binomial sigmas of the promise (formula: the filter's \
         expected_fpr() at its load; asked: the error_rate given, an upper bound). A row of the \
         once loop is one round, its figures a point; the package's classes there are built by \
         `add_many` alone (their goals are FP rates; ClassicBloom's one-at-a-time build is timed \
         beside rbloom's).\n",
        t.n, t.queries
    );
    let mut tab = Table::new(&[
        ("contender", Align::Left),
        ("rounds", Align::Right),
        ("build s, add", Align::Right),
        ("build s, batched", Align::Right),
        ("ns/neg `in`", Align::Right),
        ("ns/pos `in`", Align::Right),
        ("ns/neg key, batched", Align::Right),
        ("ns/pos key, batched", Align::Right),
        ("bytes", Align::Right),
        ("measured FP (count / probes)", Align::Right),
        ("Wilson 95%", Align::Left),
        ("promised", Align::Right),
        ("inside?", Align::Center),
        ("false neg.", Align::Right),
    ]);
    for c in t.contenders.iter().filter(|c| c.scale == Scale::Full) {
        let [fp, wilson, promised, inside] = fp_cells(c);
        tab.row([
            c.id.label().to_string(),
            c.rounds().to_string(),
            spread(Metric::Build.of(c), 3),
            spread(Metric::BuildBatched.of(c), 3),
            spread(Metric::Negative.of(c), 1),
            spread(Metric::Positive.of(c), 1),
            spread(Metric::NegativeBatched.of(c), 1),
            spread(Metric::PositiveBatched.of(c), 1),
            mib(c.bytes),
            fp,
            wilson,
            promised,
            inside,
            format!("{} / {}", c.false_negatives, c.positives),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

/// `figure` of `c` over the same figure of `base`, with the bootstrap interval of the rounds;
/// `–` where either is missing or they were taken at different sizes.
pub fn times(c: &ContenderRow, base: Option<&ContenderRow>, figure: Metric) -> String {
    let Some(base) = base.filter(|b| b.n == c.n) else {
        return "–".into();
    };
    match (figure.of(c), figure.of(base)) {
        (Some(a), Some(b)) => {
            let med = |xs: &[f64]| crate::measure::median(&mut xs.to_vec());
            let value = med(a) / med(b);
            match ratio_interval(a, b) {
                Some((lo, hi)) => format!("{value:.1}× ({lo:.1}–{hi:.1})"),
                None => format!("{value:.1}×"),
            }
        }
        _ => "–".into(),
    }
}

fn sample_table(s: &mut String, x: &Measured) {
    let t = &x.timing;
    let Some(sample) = t.sample else { return };
    let _ = writeln!(
        s,
        "## On the sample: {} keys, {} probes\n\nThe pure-Python filters, with ClassicBloom \
         built and probed on the same keys in the same rounds. × ClassicBloom: the contender's \
         median over ClassicBloom's at this size (one key at a time on both sides), with the \
         bootstrap 95% interval over the rounds; never against a figure taken at another size. \
         Their FP here is at the sample's load; at full size it is the \
         [python-peers](python-peers.md) study's goal.\n",
        sample.keys, sample.probes
    );
    let base = t
        .contenders
        .iter()
        .find(|c| (c.id, c.scale) == (ContenderId::FilterlabClassic, Scale::Sample));
    let mut tab = Table::new(&[
        ("contender", Align::Left),
        ("keys", Align::Right),
        ("rounds", Align::Right),
        ("build s, add", Align::Right),
        ("× ClassicBloom", Align::Right),
        ("ns/neg `in`", Align::Right),
        ("× ClassicBloom", Align::Right),
        ("ns/pos `in`", Align::Right),
        ("× ClassicBloom", Align::Right),
        ("bytes", Align::Right),
        ("measured FP (count / probes)", Align::Right),
        ("Wilson 95%", Align::Left),
        ("promised", Align::Right),
        ("inside?", Align::Center),
        ("false neg.", Align::Right),
    ]);
    for c in t.contenders.iter().filter(|c| c.scale == Scale::Sample) {
        let [fp, wilson, promised, inside] = fp_cells(c);
        tab.row([
            c.id.label().to_string(),
            c.n.to_string(),
            c.rounds().to_string(),
            spread(Metric::Build.of(c), 3),
            times(c, base, Metric::Build),
            spread(Metric::Negative.of(c), 1),
            times(c, base, Metric::Negative),
            spread(Metric::Positive.of(c), 1),
            times(c, base, Metric::Positive),
            mib(c.bytes),
            fp,
            wilson,
            promised,
            inside,
            format!("{} / {}", c.false_negatives, c.positives),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

fn peaks_table(s: &mut String, x: &Measured) {
    let method = x
        .peaks
        .first()
        .map_or("not obtained", |p| method_words(p.peak.method));
    let _ = writeln!(
        s,
        "## Peak memory, on the sample\n\nEach contender built once, one key at a time, in a \
         fresh process with the sample's keys loaded before ({method}). On the sample, not at \
         full size: a fresh process per contender at full size cost a key load and a build \
         each, the pure-Python filters' the longest. The bytes column is the structure's own at \
         this size.\n"
    );
    let mut tab = Table::new(&[
        ("contender", Align::Left),
        ("keys", Align::Right),
        ("peak", Align::Right),
        ("bytes", Align::Right),
    ]);
    for p in &x.peaks {
        tab.row([
            p.id.label().to_string(),
            p.n.to_string(),
            mib(p.peak.bytes),
            mib(p.bytes),
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

mod costs;
mod reused;
