//! python-peers.md, rendered from python-peers.json alone (so that `check` can re-render it
//! byte for byte).

use super::python::{loops_table, mib, spread, times};
use crate::record::python::peers::{PeersMeasured, PythonPeersReport};
use crate::record::python::{ContenderId, Outcome, Scale};
use crate::record::{pct, Metric, Ratio};
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

/// The page.
#[must_use]
pub fn render(r: &PythonPeersReport) -> String {
    let m = &r.machine;
    let mut s = format!(
        "# python-peers at commit {}: the pure-Python filters and the first article's class at {} keys, \
         their FP promise and their cost beside ClassicBloom\n\n",
        m.commit, r.settings.n
    );
    let _ = writeln!(
        s,
        "{} on {} ({} cores, {}), {:.0} s (`bench-harness study python-peers`; written by the \
         harness from python-peers.json, do not edit). The main job measures these contenders \
         on a sample only ([python.md](python.md)): they insert one key at a time in Python, one \
         to two orders of magnitude slower than the package. Here they are built at full size and probed, in one process in \
         interleaved rounds with filterlab's ClassicBloom (Python package) on the same keys.\n",
        m.date, m.cpu, m.cores, m.memory, m.wall_seconds
    );
    match &r.outcome {
        Outcome::Skipped { reason } => {
            let _ = writeln!(s, "**Not measured in this run:** {reason}.\n");
        }
        Outcome::Measured(x) => measured(&mut s, r, x),
    }
    s
}

fn measured(s: &mut String, r: &PythonPeersReport, x: &PeersMeasured) {
    let t = &x.timing;
    let versions: Vec<String> = t.versions.iter().map(|(k, v)| format!("{k} {v}")).collect();
    let _ = writeln!(
        s,
        "CPython {} in the project's virtual environment: {}. Key files {} ({} e-mails) and {} \
         ({} disjoint non-members; as many members probed). Medians (min–max) over the rounds.\n",
        t.python,
        versions.join(", "),
        r.settings.members_file,
        t.n,
        r.settings.probes_file,
        t.queries,
    );
    loops_table(s, t);
    goals_table(s, &x.goals);
    cost_table(s, x);
}

fn goals_table(s: &mut String, goals: &[Ratio]) {
    let _ = writeln!(
        s,
        "## The FP promise at full size\n\nEach slow contender's measured rate over the rate it \
         promises (the error_rate it was built with, an upper bound), with the Wilson 95% \
         interval of the count over the promise; the bound is the promise plus 4 binomial \
         sigmas over the probes, over the promise (to four decimals). Met: the whole interval is within it; not \
         met: none of it is; otherwise undecided. These rows are in goals.md too.\n"
    );
    let mut tab = Table::new(&[
        ("goal", Align::Left),
        ("measured FP (count / probes)", Align::Left),
        ("measured / promised", Align::Right),
        ("95% interval", Align::Left),
        ("bound", Align::Left),
        ("verdict", Align::Center),
    ]);
    for g in goals {
        tab.row([
            g.what.clone(),
            g.numerator_counts.map_or_else(
                || pct(g.numerator_value),
                |(hits, probes)| format!("{} ({hits} / {probes})", pct(g.numerator_value)),
            ),
            format!("{:.3}", g.ratio),
            g.interval
                .map_or_else(|| "–".into(), |(lo, hi)| format!("{lo:.3}–{hi:.3}")),
            g.bound.text(),
            g.verdict.word().to_string(),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

fn cost_table(s: &mut String, x: &PeersMeasured) {
    let t = &x.timing;
    let _ = writeln!(
        s,
        "## Cost beside ClassicBloom, at the same size\n\nBuild: allocation and every insert, \
         one key at a time, keys as Python str; lookups one `in` at a time. × ClassicBloom: the \
         contender's median over ClassicBloom's, with the bootstrap 95% interval over the rounds \
         (information, not a goal).\n"
    );
    let base = t
        .contenders
        .iter()
        .find(|c| (c.id, c.scale) == (ContenderId::FilterlabClassic, Scale::Full));
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
        ("false neg.", Align::Right),
    ]);
    for c in &t.contenders {
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
            format!("{} / {}", c.false_negatives, c.positives),
        ]);
    }
    s.push_str(&tab.render());
    s.push('\n');
}

/// Writes python-peers.json and python-peers.md.
impl crate::plan::Output for PythonPeersReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn write(&self, out: &std::path::Path) -> anyhow::Result<()> {
        super::write_section(out, "python-peers", self, render)
    }
}
