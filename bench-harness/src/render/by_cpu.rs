//! goals.md's section of the verdicts on other processor models ([`crate::record::by_cpu`]).

use crate::record::by_cpu::ByCpu;
use crate::record::Results;
use crate::render::table::{Align, Table};
use std::fmt::Write;

/// One cell: the verdict and the ratio, or a dash where the model has no such goal.
fn cell(all: &ByCpu, model: &str, what: &str) -> String {
    all.get(model)
        .and_then(|run| run.goals.iter().find(|g| g.what == what))
        .map_or_else(
            || "–".into(),
            |g| format!("{} ({:.3})", g.verdict.word(), g.ratio),
        )
}

/// The section, when `all` holds a model other than this run's; empty otherwise.
#[must_use]
pub fn section(results: &Results, all: &ByCpu) -> String {
    let here = &results.machine.cpu;
    let others: Vec<&String> = all.keys().filter(|m| *m != here).collect();
    if others.is_empty() {
        return String::new();
    }
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n## The same goals on other processors\n\nA ratio depends on the processor, and the \
         machines that run the main job differ. Each run replaces only its own model's column \
         of `{}`; the others are their latest main job's:\n",
        crate::record::by_cpu::FILE
    );
    for m in &others {
        let run = &all[m.as_str()];
        let _ = writeln!(s, "- {m}: commit {}, {}", run.commit, run.date);
    }
    s.push('\n');
    let mut header: Vec<(&str, Align)> = vec![("goal", Align::Left)];
    header.push((here.as_str(), Align::Left));
    header.extend(others.iter().map(|m| (m.as_str(), Align::Left)));
    let mut t = Table::new(&header);
    let mut goals: Vec<&str> = Vec::new();
    for m in std::iter::once(here).chain(others.iter().copied()) {
        for g in all.get(m).map(|r| r.goals.as_slice()).unwrap_or_default() {
            if !goals.contains(&g.what.as_str()) {
                goals.push(&g.what);
            }
        }
    }
    for what in goals {
        let mut row = vec![what.to_string(), cell(all, here, what)];
        row.extend(others.iter().map(|m| cell(all, m, what)));
        t.row(row);
    }
    s.push_str(&t.render());
    s
}
