//! `expansion.md`, rendered from the growth stage's report alone, and the report's files.

use crate::judge::targets::growth::fp_verdict;
use crate::measure::Spread;
use crate::plan::Output;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::expansion::{Contender, Deletes, ExpansionReport, Merge, Outcome, Summary};
use anyhow::Result;

fn spread(s: &Spread) -> String {
    format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max)
}

/// One row per contender and checkpoint reached.
fn checkpoints_table(r: &ExpansionReport) -> String {
    let p = r.settings.target_fpr;
    let mut t = Table::new(&[
        ("contender", Align::Left),
        ("keys", Align::Right),
        ("× declared", Align::Right),
        ("measured FP", Align::Right),
        ("Wilson 95%", Align::Right),
        ("≤ target?", Align::Center),
        ("bits/key", Align::Right),
        ("refused inserts", Align::Right),
        ("false neg.", Align::Right),
    ]);
    for c in &r.checkpoints {
        let (lo, hi) = filterlab::math::wilson_interval(c.false_positives, c.probes, 1.96);
        t.row([
            c.contender.name().to_string(),
            c.n.to_string(),
            format!("{:.0}", c.n as f64 / r.settings.declared.max(1) as f64),
            pct(c.fpr()),
            format!("{}–{}", pct(lo), pct(hi)),
            fp_verdict(c, p).word().to_string(),
            format!("{:.2}", c.bits_per_key()),
            c.refused.to_string(),
            c.false_negatives.to_string(),
        ]);
    }
    t.render()
}

fn why<T>(o: &Outcome<T>) -> String {
    match o {
        Outcome::Measured(_) => String::new(),
        Outcome::Unsupported { why } => format!("not measured: {why}"),
    }
}

/// The measurement, or why it was not measured.
fn measured<T>(o: &Outcome<T>) -> Result<&T, String> {
    o.measured().ok_or_else(|| why(o))
}

/// One row a contender: its `cells`, or why it was not measured.
fn rows<'a>(
    t: &mut Table,
    s: &'a [Summary],
    cells: impl Fn(&'a Summary) -> Result<Vec<String>, String>,
) {
    for x in s {
        let name = x.contender.name().to_string();
        match cells(x) {
            Ok(c) => t.row(std::iter::once(name).chain(c)),
            Err(why) => t.row([name, why]),
        };
    }
}

/// A contender's lookups at the small and the large size: non-members, then members.
type SpreadPairs<'a> = [(&'a Spread, &'a Spread); 2];

/// Lookups at two sizes: after the contender, the `lead` columns, then for non-members and
/// members the small and the large spreads and their ratio. `row` gives a contender's `lead`
/// cells and spread pairs, or why it was not measured.
fn two_sizes_table<'a>(
    s: &'a [Summary],
    lead: &[&str],
    row: impl Fn(&'a Summary) -> Result<(Vec<String>, SpreadPairs<'a>), String>,
) -> String {
    let mut columns = vec![("contender", Align::Left)];
    columns.extend(lead.iter().map(|&h| (h, Align::Right)));
    for who in ["ns/non-member small", "ns/member small"] {
        columns.extend([
            (who, Align::Right),
            ("large", Align::Right),
            ("ratio", Align::Right),
        ]);
    }
    let mut t = Table::new(&columns);
    rows(&mut t, s, |x| {
        let (mut cells, pairs) = row(x)?;
        for (small, large) in pairs {
            cells.extend([
                spread(small),
                spread(large),
                format!("{:.2}×", large.median / small.median),
            ]);
        }
        Ok(cells)
    });
    t.render()
}

fn lookups_table(s: &[Summary]) -> String {
    two_sizes_table(s, &["small", "large"], |x| {
        let l = measured(&x.lookups)?;
        Ok((
            vec![l.small_n.to_string(), l.large_n.to_string()],
            [
                (&l.negative_small, &l.negative_large),
                (&l.positive_small, &l.positive_large),
            ],
        ))
    })
}

/// The same queries through the batch API, in the same rounds (ours only).
fn batched_table(s: &[Summary]) -> String {
    two_sizes_table(s, &[], |x| {
        let b = measured(&x.lookups).and_then(|l| measured(&l.batched))?;
        Ok((
            Vec::new(),
            [
                (&b.negative_small, &b.negative_large),
                (&b.positive_small, &b.positive_large),
            ],
        ))
    })
}

fn deletes_table(s: &[Summary]) -> String {
    let mut t = Table::new(&[
        ("contender", Align::Left),
        ("keys held", Align::Right),
        ("deleted (every tenth)", Align::Right),
        ("refused", Align::Right),
        ("rest looked up", Align::Right),
        ("false neg.", Align::Right),
        ("deleted still present", Align::Right),
    ]);
    let cells = |d: &Deletes| {
        vec![
            d.held.to_string(),
            d.asked.to_string(),
            d.refused.to_string(),
            d.remaining.to_string(),
            d.false_negatives.to_string(),
            format!(
                "{} ({})",
                d.deleted_still_present,
                pct(d.deleted_still_present as f64 / d.asked.max(1) as f64)
            ),
        ]
    };
    rows(&mut t, s, |x| measured(&x.deletes).map(cells));
    t.render()
}

fn merges_table(s: &[Summary]) -> String {
    let mut t = Table::new(&[
        ("contender", Align::Left),
        ("halves", Align::Right),
        ("false neg.", Align::Right),
        ("measured FP", Align::Right),
        ("bits/key", Align::Right),
    ]);
    let cells = |m: &Merge| {
        let keys = m.halves.0 + m.halves.1;
        vec![
            format!("{} + {}", m.halves.0, m.halves.1),
            m.false_negatives.to_string(),
            pct(m.false_positives as f64 / m.probes.max(1) as f64),
            format!("{:.2}", m.bytes as f64 * 8.0 / keys.max(1) as f64),
        ]
    };
    rows(&mut t, s, |x| measured(&x.merge).map(cells));
    t.render()
}

fn goals_table(r: &ExpansionReport) -> String {
    let mut t = Table::new(&[
        ("goal", Align::Left),
        ("role", Align::Left),
        ("value / goal", Align::Right),
        ("95% interval", Align::Right),
        ("bound", Align::Right),
        ("verdict", Align::Center),
        ("note", Align::Left),
    ]);
    for g in &r.goals {
        t.row([
            g.what.clone(),
            format!("{:?}", g.role).to_lowercase(),
            format!("{:.3}", g.ratio),
            g.interval
                .map_or_else(|| "–".into(), |(lo, hi)| format!("{lo:.3}–{hi:.3}")),
            g.bound.text(),
            g.verdict.word().into(),
            g.differences.clone(),
        ]);
    }
    t.render()
}

/// The Markdown page of a growth report.
#[must_use]
pub fn render(r: &ExpansionReport) -> String {
    let s = &r.settings;
    let mut how = Table::new(&[("contender", Align::Left), ("how", Align::Left)]);
    for c in Contender::all() {
        how.row([c.name().to_string(), c.how()]);
    }
    format!(
        "# Growing from {} declared keys to {} at {}\n\nRun at commit {} on {} ({} cores). Every \
         contender is declared for {} keys and fed the same members in order; at every doubling \
         (and at {}) its FP rate is measured on {} fresh non-members (a window of probes no other \
         checkpoint used; interval: Wilson 95%) and every key inserted so far is looked up. \
         Lookups: {} queries per pass, the filter grown to {} keys against the same contender \
         grown to {}, {} interleaved rounds (their order alternating), `median (min–max)`. \
         Deletes: every tenth key held is removed, the rest looked up. Merges: two filters \
         grown on the halves of the first {} members, merged.\n\n{}\n## At every doubling\n\n{}\n\
         ## Lookups at two sizes\n\n{}\n## Batched lookups at two sizes\n\n`contains_batch`, \
         {} keys a call, on the same queries in the same rounds.\n\n{}\n## Deletes\n\n{}\n## Merges\n\n{}\n## Goals (rows of \
         the targets table)\n\nRows at fewer than {} keys are for information (the goals are \
         for that size).\n\n{}",
        s.declared,
        s.n,
        pct(s.target_fpr),
        r.machine.commit,
        r.machine.cpu,
        r.machine.cores,
        s.declared,
        s.n,
        s.probes,
        s.queries,
        s.n,
        s.small_n,
        s.rounds,
        s.merge_keys,
        how.render(),
        checkpoints_table(r),
        lookups_table(&r.summaries),
        filterlab::BATCH,
        batched_table(&r.summaries),
        deletes_table(&r.summaries),
        merges_table(&r.summaries),
        crate::judge::targets::growth::GOAL_KEYS,
        goals_table(r),
    )
}

/// Writes `expansion.json` and `expansion.md` (rendered from it) into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(r: &ExpansionReport, out: &std::path::Path) -> Result<()> {
    std::fs::create_dir_all(out)?;
    let json = serde_json::to_string_pretty(r)? + "\n";
    // Rendered from the JSON as written, so that `check` re-rendering it gets the same bytes.
    let again: ExpansionReport = serde_json::from_str(&json)?;
    std::fs::write(out.join("expansion.json"), json)?;
    std::fs::write(out.join("expansion.md"), render(&again))?;
    Ok(())
}

impl Output for ExpansionReport {
    fn write(&self, out: &std::path::Path) -> Result<()> {
        write(self, out)
    }
}

#[cfg(test)]
mod tests;
