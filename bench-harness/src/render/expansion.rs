//! `expansion.md`, rendered from the growth stage's report alone, and the report's files.

use crate::judge::targets::growth::fp_verdict;
use crate::measure::Spread;
use crate::plan::Output;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::expansion::{
    Contender, Deletes, ExpansionReport, Lookups, Merge, Outcome, ReferenceKind, Summary,
    EXPANDABLE,
};
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

/// The rows of the lookup tables: every contender, then the references that do not grow
/// (timed in the rounds of the contender they serve), clearly labelled.
fn lookup_entries(r: &ExpansionReport) -> Vec<(String, &Outcome<Lookups>)> {
    let mut out: Vec<(String, &Outcome<Lookups>)> = r
        .summaries
        .iter()
        .map(|x| (x.contender.name().to_string(), &x.lookups))
        .collect();
    for x in &r.summaries {
        // A reference serves one contender; the quotient one serves both Aleph rows.
        let shared = |f: &crate::stages::expansion::Reference| {
            r.summaries
                .iter()
                .filter(|y| y.references.iter().any(|g| g.kind == f.kind))
                .count()
                > 1
        };
        out.extend(x.references.iter().map(|f| {
            let label = match shared(f) {
                true => format!(
                    "{}, in the rounds of {}",
                    f.kind.label(),
                    x.contender.name()
                ),
                false => f.kind.label().to_string(),
            };
            (label, &f.lookups)
        }));
    }
    out
}

/// Lookups at two sizes: after the contender, the `lead` columns, then for non-members and
/// members the small and the large spreads and their ratio. `row` gives a row's `lead` cells
/// and spread pairs, or why it was not measured.
fn two_sizes_table<'a>(
    entries: &[(String, &'a Outcome<Lookups>)],
    lead: &[&str],
    row: impl Fn(&'a Lookups) -> Result<(Vec<String>, SpreadPairs<'a>), String>,
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
    for (name, lookups) in entries {
        match measured(*lookups).and_then(&row) {
            Ok((mut cells, pairs)) => {
                for (small, large) in pairs {
                    cells.extend([
                        spread(small),
                        spread(large),
                        format!("{:.2}×", large.median / small.median),
                    ]);
                }
                t.row(std::iter::once(name.clone()).chain(cells))
            }
            Err(why) => t.row([name.clone(), why]),
        };
    }
    t.render()
}

fn lookups_table(r: &ExpansionReport) -> String {
    two_sizes_table(&lookup_entries(r), &["small", "large"], |l| {
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
fn batched_table(r: &ExpansionReport) -> String {
    two_sizes_table(&lookup_entries(r), &[], |l| {
        let b = measured(&l.batched)?;
        Ok((
            Vec::new(),
            [
                (&b.negative_small, &b.negative_large),
                (&b.positive_small, &b.positive_large),
            ],
        ))
    })
}

/// Large over small medians: non-members, members.
fn ratios(pairs: SpreadPairs<'_>) -> [f64; 2] {
    pairs.map(|(small, large)| large.median / small.median)
}

/// The sentence that reads the lookup tables: the grown expandable filter's ratios beside the
/// fixed cuckoo filter's (what a big table costs without growth) and their quotient (what
/// growth adds); empty when either pair was not timed.
fn reading(r: &ExpansionReport, batched: bool) -> String {
    let Some(x) = r.summaries.iter().find(|x| x.contender == EXPANDABLE) else {
        return String::new();
    };
    let fixed = x
        .references
        .iter()
        .find(|f| f.kind == ReferenceKind::FixedCuckoo)
        .and_then(|f| f.lookups.measured());
    let (Some(g), Some(f)) = (x.lookups.measured(), fixed) else {
        return String::new();
    };
    let pairs = |l: &Lookups| -> Option<[f64; 2]> {
        if batched {
            let b = l.batched.measured()?;
            Some(ratios([
                (&b.negative_small, &b.negative_large),
                (&b.positive_small, &b.positive_large),
            ]))
        } else {
            Some(ratios([
                (&l.negative_small, &l.negative_large),
                (&l.positive_small, &l.positive_large),
            ]))
        }
    };
    let (Some([gn, gp]), Some([fn_, fp])) = (pairs(g), pairs(f)) else {
        return String::new();
    };
    format!(
        "{}: at {} keys against {}, our cuckoo filter, which never grows, takes {fn_:.2}× \
         the time per non-member lookup and {fp:.2}× per member lookup (the cost of a big table: \
         the memory hierarchy); the grown expandable filter {gn:.2}× and {gp:.2}×. What growth \
         adds on top is the quotient, {:.2}× and {:.2}× (medians; the price-of-growth rows of \
         the goals table give it per round with its interval).\n\n",
        if batched {
            "Reading (batched)"
        } else {
            "Reading"
        },
        g.large_n,
        g.small_n,
        gn / fn_,
        gp / fp,
    )
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
         grown on the halves of the first {} members, merged.\n\n{}\n## At every doubling\n\n\
         Every row here grew from the same declared capacity: a grown filter is compared with a \
         grown filter. The filters declared at their final size are the references of the \
         lookup tables, and are named so.\n\n{}\n\
         ## The Aleph filter over one doubling cycle\n\n{}\n\
         ## Lookups at two sizes\n\nThe rows marked as references do not grow: each is \
         declared for the keys it holds and timed in the rounds of the contender it serves, on \
         the same queries (the cuckoo and expandable references in the expandable filter's, \
         the quotient reference in each Aleph filter's: it appears once per Aleph row). \
         qfilter and aleph-filter also appear in the Aleph filter's rounds, grown from the \
         declared keys as their own rows were: the lookup goals against them are judged there.\n\n{}\n{}## Batched lookups at two sizes\n\n`contains_batch`, {} keys a \
         call, on the same queries in the same rounds.\n\n{}\n{}## Deletes\n\n{}\n## Merges\n\n{}\n## Goals (rows of \
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
        cycle::section(r),
        lookups_table(r),
        reading(r, false),
        filterlab::BATCH,
        batched_table(r),
        reading(r, true),
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
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn write(&self, out: &std::path::Path) -> Result<()> {
        write(self, out)
    }
}

mod cycle;
#[cfg(test)]
mod tests;
