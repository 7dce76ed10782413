//! The first screen of reports/README.md: what a team picking a variant needs, one row a
//! variant, with the best like peer beside it ([`crate::judge::targets::headline`]), then the
//! links to the detail pages.

use crate::judge::targets::headline::{self, Row};
use crate::measure::Spread;
use crate::record::{pct, PeerRecord, Results};
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

/// What the variant can do, from the registry's capabilities.
fn can(name: &str) -> String {
    let Some(c) = crate::filters::Contender::from_name(name) else {
        return "–".into();
    };
    let caps = c.capabilities();
    let words: Vec<&str> = [
        (caps.deletes, "delete"),
        (caps.grows, "grow"),
        (caps.static_set, "fixed set"),
        (caps.windowed, "window"),
        (caps.concurrent, "threads"),
    ]
    .into_iter()
    .filter_map(|(has, w)| has.then_some(w))
    .collect();
    if words.is_empty() {
        "insert, query".into()
    } else {
        words.join(", ")
    }
}

/// `median (min–max)` with one decimal.
fn spread(s: &Spread) -> String {
    format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max)
}

/// The reached rate with its Wilson interval.
fn reached(r: &PeerRecord) -> String {
    let fp = (r.empirical_fpr * r.probes as f64).round() as u64;
    let (lo, hi) = filterlab::math::wilson_interval(fp, r.probes, 1.96);
    format!("{} [{}, {}]", pct(r.empirical_fpr), pct(lo), pct(hi))
}

/// Build ns per key, one at a time / batched.
fn build(r: &PeerRecord) -> String {
    let per_key = 1e9 / r.n.max(1) as f64;
    let one = r.build_seconds.median * per_key;
    match &r.build_seconds_batched {
        Some(b) => format!("{one:.0} / {:.0}", b.median * per_key),
        None => format!("{one:.0} (built once from its set)"),
    }
}

/// The peer's cells: name, bits/key at its reached rate, lookup.
fn peer_cells(row: &Row<'_>) -> [String; 4] {
    let Some(p) = row.peer else {
        return ["no like crate".into(), "–".into(), "–".into(), "–".into()];
    };
    let ratio = row.lookup.map_or_else(
        || "–".into(),
        |(r, ci)| match ci {
            Some((lo, hi)) => format!("{r:.2} ({lo:.2}–{hi:.2})"),
            None => format!("{r:.2}"),
        },
    );
    let bits = match row.twin {
        Some(t) => format!(
            "{:.2} at {} (ours at its rate: {:.2})",
            p.bits_per_key,
            pct(p.empirical_fpr),
            t.bits_per_key
        ),
        None => format!("{:.2} at {}", p.bits_per_key, pct(p.empirical_fpr)),
    };
    [p.name.clone(), bits, spread(&p.ns_negative), ratio]
}

/// The headline section: the table, how to read it, and the links.
pub fn section(s: &mut String, results: &Results) {
    let rows = headline::rows(&results.peers);
    let Some(first) = rows.first() else {
        return;
    };
    let _ = writeln!(
        s,
        "## Which filter: every variant at {} keys and a {} target, beside the best crate of its kind\n",
        first.ours.n,
        pct(first.ours.target_fpr)
    );
    let mut t = Table::new(&[
        ("variant", Align::Left),
        ("can", Align::Left),
        ("FP reached [95%]", Align::Right),
        ("bits/key", Align::Right),
        ("build ns/key (one / batched)", Align::Right),
        ("lookup ns, miss", Align::Right),
        ("batched", Align::Right),
        ("best like crate", Align::Left),
        ("its bits/key at its FP", Align::Right),
        ("its lookup ns, miss", Align::Right),
        ("ours / its lookup (95%)", Align::Right),
        ("same conditions?", Align::Left),
    ]);
    for row in &rows {
        let o = row.ours;
        let [name, bits, lookup, ratio] = peer_cells(row);
        t.row([
            o.name.clone(),
            can(&o.name),
            reached(o),
            format!("{:.2}", o.bits_per_key),
            build(o),
            spread(&o.ns_negative),
            o.ns_negative_batched
                .as_ref()
                .map_or_else(|| "–".into(), spread),
            name,
            bits,
            lookup,
            ratio,
            match (row.peer, row.differences.is_empty()) {
                (None, _) => "–".into(),
                (Some(_), true) => "yes".into(),
                (Some(_), false) => format!("no: {}", row.differences.join("; ")),
            },
        ]);
    }
    s.push_str(&t.render());
    let _ = writeln!(
        s,
        "\nEvery filter was asked for {} and holds the same {} keys; \"FP reached\" is what it measured \
         over {} non-members (a filter that reaches a lower rate pays for it in bits; the matrix \
         below has both). Times are ns: median (fastest–slowest of the interleaved rounds); a \
         lookup of a non-member (\"miss\"), one at a time or through `contains_batch`. The like \
         crate is the fastest of the crates the goals compare the variant with; where its rate \
         differs from ours by more than {}×, our filter built at its rate gives the bits per key \
         at equal FP. \"Same conditions?\" lists what differs (hash, rate, API, huge pages).\n",
        pct(first.ours.target_fpr),
        first.ours.n,
        first.ours.probes,
        crate::judge::targets::FP_TOLERANCE
    );
    let _ = writeln!(
        s,
        "More: [the goals and their verdicts](goals.md) · [threads](threads.md) · [the articles' \
         systems](systems.md) · [Python](python.md) · the matrix at every rate, the peers in full \
         and the machine below · the studies (growth, windows, size sweep, hashing, the course) \
         are indexed at the end.\n"
    );
}
