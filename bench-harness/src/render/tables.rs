//! The README's tables past the matrix: batched against one at a time, the peers, parallel
//! builds, huge pages, targets, the scenarios and the claims. One function per table.

use super::*;
use crate::record::Verdict;
use crate::render::table::{Align, Table};

/// One-at-a-time against `insert_batch` / `contains_batch`, same filters, same queries, same run.
pub(super) fn batched_table(s: &mut String, matrix: &[&Record]) {
    if matrix.iter().all(|x| x.ns_per_lookup_batched.is_empty()) {
        return;
    }
    let _ = writeln!(s, "## Batched against one at a time\n");
    let _ = writeln!(
        s,
        "`contains_batch` hashes a block of keys, then probes them prefetching a few keys ahead; \
         `insert_batch` likewise (a static filter takes no inserts: –). Same filters and queries as above; ratio = one-at-a-time / batched.\n"
    );
    let mut t = Table::with_head(
        "| variant | target | ns/insert | batched | ratio | ns/lookup 0% | batched | ratio | ns/lookup 100% | batched | ratio |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    for x in matrix {
        let one = |k: &str| x.ns_per_lookup.get(k).cloned();
        let bat = |k: &str| x.ns_per_lookup_batched.get(k).cloned();
        // A static filter takes no inserts (its build is in the matrix table).
        let insert = (!is_static(x)).then(|| x.ns_per_insert.clone()).flatten();
        t.row([
            x.variant.clone(),
            pct(x.target_fpr),
            ns(insert.clone()),
            ns(x.ns_per_insert_batched.clone()),
            ratio(insert, x.ns_per_insert_batched.clone()),
            ns(one(Mix::None.key())),
            ns(bat(Mix::None.key())),
            ratio(one(Mix::None.key()), bat(Mix::None.key())),
            ns(one(Mix::All.key())),
            ns(bat(Mix::All.key())),
            ratio(one(Mix::All.key()), bat(Mix::All.key())),
        ]);
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// The comparison with the peers and its satellites.
pub(super) fn peers_tables(s: &mut String, results: &Results) {
    if results.peers.is_empty() {
        return;
    }
    peer_table(s, results);
    parallel_builds_table(s, results);
    huge_pages_table(s, results);
    s.push_str(&super::floor::floor_section(results.floor.as_ref()));
    information_table(s, results);
}

/// Every contender side by side, and how to read each row.
pub(super) fn peer_table(s: &mut String, results: &Results) {
    let rows = &results.peers;
    let Some(first) = rows.first() else { return };
    let _ = writeln!(
        s,
        "## Beside the peers (n = {}, target {})\n",
        first.n,
        pct(first.target_fpr)
    );
    let _ = writeln!(
        s,
        "Same keys, same process, same run; lookups are medians of interleaved rounds over the same \
         shuffled query sets (keys copied contiguously, hashing included). \"batched\" uses \
         `contains_batch` / `insert_batch`; the peers have no batch API.\n"
    );
    let _ = writeln!(
        s,
        "Like structures are compared: our quotient filter with qfilter (a quotient filter too; \
         again as \"quotient at qfilter's FP\", rebuilt at qfilter's measured rate), our static \
         filters with the static peers (binary fuse 8 and 16 against xorf's at the same \
         fingerprint width, so at equal FP by construction, and again as \"binary-fuse8 with \
         xxh3-64\", built with xorf's hash, so that the goals compare like with like; the ribbon \
         filter has no peer here and is judged against the issue's absolute goals). A static \
         filter is built once from every key's hash (hashing timed, as the peers hash inside \
         their builds) and has no batched build.\n"
    );
    let _ = writeln!(s, "Timings are `median (min–max)` over interleaved rounds; builds include construction and allocation for every contender. Everyone is on 4 KiB pages here: our tables are built without the huge-page advice for this comparison (the peers advise nothing), and the huge-page section below measures what the advice gains.\n");
    let mut t = Table::with_head("| contender | source | build s | build s (batched) | ns/negative | ns/positive | ns/negative batched | ns/positive batched | measured FPR | bytes | bits/key | huge pages | false neg. | refused inserts |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        t.row([
            r.name.clone(),
            r.source.to_string(),
            format!("{:.3}", r.build_seconds),
            r.build_seconds_batched
                .as_ref()
                .map_or_else(|| "–".into(), |v| format!("{v:.3}")),
            format!("{:.1}", r.ns_negative),
            format!("{:.1}", r.ns_positive),
            ns(r.ns_negative_batched.clone()),
            ns(r.ns_positive_batched.clone()),
            pct(r.empirical_fpr),
            mb(r.bytes),
            format!("{:.2}", r.bits_per_key),
            coverage(r.huge_page_coverage),
            r.false_negatives.to_string(),
            r.insert_failures.to_string(),
        ]);
    }
    s.push_str(&t.render());
    let _ = writeln!(s, "\nHow to read each row:\n");
    for r in rows {
        let _ = writeln!(
            s,
            "* **{}**: {}",
            crate::render::table::inline(&r.name),
            r.quirks
        );
    }
    s.push('\n');
}

/// Parallel builds, seconds with spread.
pub(super) fn parallel_builds_table(s: &mut String, results: &Results) {
    if !results.parallel_builds.is_empty() {
        let _ = writeln!(
            s,
            "### Parallel builds (seconds, median (min–max) of interleaved rounds)\n"
        );
        let mut table = Table::with_head("| build | seconds |\n|---|---:|");
        for (what, t) in &results.parallel_builds {
            table.row([what.clone(), format!("{t:.3}")]);
        }
        s.push_str(&table.render());
        s.push('\n');
    }
}

/// The huge-page A/B with each table's coverage.
pub(super) fn huge_pages_table(s: &mut String, results: &Results) {
    if !results.huge_pages.is_empty() {
        let _ = writeln!(
            s,
            "### Transparent huge pages\n\nThe same filters built twice, with and without \
             `madvise(MADV_HUGEPAGE)` (else `MADV_NOHUGEPAGE`) on their tables (from 4 MiB on, \
             a 2 MiB-aligned mapping of its own: `filter_core::try_zeroed_table`), negative \
             lookups timed in interleaved rounds (median (min–max)). Coverage is each table's \
             share on huge pages, measured for that table (`Filter::huge_page_bytes`, \
             AnonHugePages of its own mapping in /proc/self/smaps). The advice is the library's \
             default; the matrix, the peers and the targets above are measured without it, on \
             the 4 KiB pages the peers get, so that those comparisons run on the same pages.\n"
        );
        let mut t = Table::with_head("| variant | memory | ns/negative, advised | not advised | gain | batched, advised | batched, not advised | gain | coverage advised | not advised |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for h in &results.huge_pages {
            t.row([
                h.variant.clone(),
                mb(h.bytes),
                format!("{:.1}", h.ns_negative_huge),
                format!("{:.1}", h.ns_negative_small),
                ratio(
                    Some(h.ns_negative_small.clone()),
                    Some(h.ns_negative_huge.clone()),
                ),
                format!("{:.1}", h.ns_negative_batched_huge),
                format!("{:.1}", h.ns_negative_batched_small),
                ratio(
                    Some(h.ns_negative_batched_small.clone()),
                    Some(h.ns_negative_batched_huge.clone()),
                ),
                coverage(h.coverage_huge),
                coverage(h.coverage_small),
            ]);
        }
        s.push_str(&t.render());
        s.push('\n');
    }
}

/// The comparisons of unlike structures, for information (the goals are in goals.md): the same
/// ratios, intervals and conditions as the goals, never counted.
pub(super) fn information_table(s: &mut String, results: &Results) {
    use crate::judge::targets::Role;
    let info: Vec<_> = results
        .ratios
        .iter()
        .filter(|r| r.role == Role::Information)
        .collect();
    if info.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "### For information: unlike structures (the goals and their verdicts are in [goals.md](goals.md))\n"
    );
    let _ = writeln!(
        s,
        "Ratio = numerator / denominator (medians of interleaved rounds) with its 95% bootstrap \
         interval over the rounds; \"same conditions?\" lists what differs between the sides.\n"
    );
    let mut t = Table::with_head("| comparison | numerator | value | denominator | value | ratio | 95% interval | target | verdict | same conditions? |\n|---|---|---:|---|---:|---:|---|---|:-:|---|");
    for r in info {
        t.row(ratio_cells(r));
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// One row of the targets table.
fn ratio_cells(r: &crate::record::Ratio) -> [String; 10] {
    [
        r.what.clone(),
        r.numerator.clone(),
        format!("{:.4}", r.numerator_value),
        r.denominator.clone(),
        format!("{:.4}", r.denominator_value),
        format!("{:.3}", r.ratio),
        r.interval
            .map_or_else(|| "–".into(), |(lo, hi)| format!("{lo:.3}–{hi:.3}")),
        r.bound.text(),
        r.verdict.word().to_string(),
        if r.same_conditions {
            "yes".to_string()
        } else {
            format!("no: {}", r.differences)
        },
    ]
}

/// Every scenario's table, in README order.
pub(super) fn scenario_tables(s: &mut String, r: &[Record]) {
    growth_table(s, r);
    churn_table(s, r);
    parallel_table(s, r);
}

/// Growth past the declared capacity: whole multiples and the first refusal.
pub(super) fn growth_table(s: &mut String, r: &[Record]) {
    let growth: Vec<&Record> = by(r, Scenario::Growth).collect();
    if let Some(first) = growth.first() {
        let cap = first.capacity;
        let _ = writeln!(
            s,
            "## Growth to 4× capacity ({cap} declared, target {})\n",
            pct(first.target_fpr)
        );
        let mut t = Table::with_head("| variant | items | × capacity | measured FPR | theory FPR | refused inserts | first refusal at load | false neg. | bits/key |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        // Whole multiples of the capacity, plus the first checkpoint after a refusal; a table
        // that stopped accepting keys is not repeated at every later checkpoint.
        let mut last: Option<(&str, u64)> = None;
        for x in growth.iter().filter(|x| {
            let ratio = x.step.unwrap_or(0) as f64 / cap as f64;
            (ratio - ratio.round()).abs() < 1e-9 || x.insert_failures.unwrap_or(0) > 0
        }) {
            if last == Some((x.variant.as_str(), x.n)) {
                continue;
            }
            last = Some((x.variant.as_str(), x.n));
            t.row([
                x.variant.clone(),
                x.n.to_string(),
                format!("{:.2}", x.n as f64 / cap as f64),
                pct(x.empirical_fpr),
                pct(x.theoretical_fpr),
                x.insert_failures.unwrap_or(0).to_string(),
                x.first_failure_load
                    .map_or_else(|| "–".into(), |l| format!("{l:.4}")),
                x.false_negatives.to_string(),
                format!("{:.2}", x.bits_per_key),
            ]);
        }
        s.push_str(&t.render());
        s.push('\n');
    }
}

/// A scenario's section when the run has its records: `heading`, the table's `head` (its
/// header and alignment lines), then one row of cells a record.
fn scenario_section(
    s: &mut String,
    r: &[Record],
    scenario: Scenario,
    (heading, head): (&str, &str),
    cells: impl Fn(&Record) -> Vec<String>,
) {
    let rows: Vec<&Record> = by(r, scenario).collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(s, "{heading}\n");
    let mut t = Table::with_head(head);
    for x in rows {
        t.row(cells(x));
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// FP rate and false negatives after each churn round.
pub(super) fn churn_table(s: &mut String, r: &[Record]) {
    let head = "| variant | round | items | measured FPR | theory FPR | false neg. |\n|---|---:|---:|---:|---:|---:|";
    scenario_section(s, r, Scenario::Churn, ("## Deletion churn", head), |x| {
        vec![
            x.variant.clone(),
            x.step.unwrap_or(0).to_string(),
            x.n.to_string(),
            pct(x.empirical_fpr),
            pct(x.theoretical_fpr),
            x.false_negatives.to_string(),
        ]
    });
}

/// Lookup cost against filter size.
pub(crate) fn sweep_table(s: &mut String, r: &[Record]) {
    let head = "| variant | n | memory | ns/lookup 0% | 50% | 100% | batched 0% | batched 100% | batched speed-up 0% / 100% | measured FPR |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
    let titles = ("## Size sweep (target 1%)", head);
    scenario_section(s, r, Scenario::SizeSweep, titles, |x| {
        let l = |k: &str| ns(x.ns_per_lookup.get(k).cloned());
        let b = |k: &str| ns(x.ns_per_lookup_batched.get(k).cloned());
        let up = |k: &str| {
            ratio(
                x.ns_per_lookup.get(k).cloned(),
                x.ns_per_lookup_batched.get(k).cloned(),
            )
        };
        vec![
            x.variant.clone(),
            x.n.to_string(),
            mb(x.bytes),
            l(Mix::None.key()),
            l(Mix::Half.key()),
            l(Mix::All.key()),
            b(Mix::None.key()),
            b(Mix::All.key()),
            format!("{} / {}", up(Mix::None.key()), up(Mix::All.key())),
            pct(x.empirical_fpr),
        ]
    });
}

/// One thread against every core; a speed-up above the thread count is flagged.
pub(super) fn parallel_table(s: &mut String, r: &[Record]) {
    let head = "| variant | threads | wall ns/lookup (50% positive) | speed-up over 1 thread |\n|---|---:|---:|---:|";
    scenario_section(
        s,
        r,
        Scenario::Parallel,
        ("## Parallel lookups", head),
        |x| {
            let threads = x.threads.unwrap_or(1);
            let speedup = x.parallel_speedup.unwrap_or(1.0);
            let flag = if speedup > threads as f64 {
                " ⚠ above the thread count: a timing artefact, not a result"
            } else {
                ""
            };
            vec![
                x.variant.clone(),
                threads.to_string(),
                ns(x.ns_per_lookup.get(Mix::Half.key()).cloned()),
                format!("{speedup:.2}×{flag}"),
            ]
        },
    );
}

/// The articles' claims (../shared/seeds), each against the formulas and this run.
pub(super) fn claims(s: &mut String, results: &Results) {
    let _ = writeln!(s, "## The articles' claims, checked\n");
    let _ = writeln!(
        s,
        "Every verdict is computed from the formulas or this run's records against the stated \
         threshold. The database and unique-count claims are in the systems section.\n"
    );
    s.push_str(&claims_table(&crate::judge::claims::claims(results)));
    s.push('\n');
}

/// A verdict's word in the README's claims table.
fn verdict_text(v: Verdict) -> &'static str {
    match v {
        Verdict::Met => "yes",
        Verdict::NotMet => "**no**",
        Verdict::Undecided => "undecided",
        Verdict::NotMeasured => "not measured in this run",
    }
}

/// The claims table.
#[must_use]
pub fn claims_table(claims: &[crate::judge::claims::Claim]) -> String {
    let mut t = Table::new(&[
        ("article", Align::Left),
        ("claim", Align::Left),
        ("test and threshold", Align::Left),
        ("what the formulas and this run give", Align::Left),
        ("holds?", Align::Center),
    ]);
    for c in claims {
        let article = match c.article {
            crate::judge::claims::Article::SignUps => "sign-ups",
            crate::judge::claims::Article::UniqueUsers => "unique users",
        };
        t.row([article, c.claim, &c.test, &c.found, verdict_text(c.verdict)]);
    }
    t.render()
}
