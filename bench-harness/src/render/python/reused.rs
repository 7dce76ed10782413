//! The page's section on `in` over str objects whose hash is cached: shown beside the judged
//! figures on fresh objects, and explained, not judged (issue 52).

use super::spread;
use crate::record::python::{ContenderRow, Measured, Scale};
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

/// The median of `xs` over the median of `ys`, or `–`.
fn over(xs: Option<&[f64]>, ys: &[f64]) -> String {
    let median = |v: &[f64]| crate::measure::median(&mut v.to_vec());
    match xs {
        Some(xs) if !xs.is_empty() && !ys.is_empty() => {
            format!("{:.2}×", median(xs) / median(ys))
        }
        _ => "–".into(),
    }
}

/// The row of one contender: its fresh and reused figures, and reused over fresh.
fn row(c: &ContenderRow) -> [String; 7] {
    [
        c.id.label().to_string(),
        spread(Some(&c.ns_negative), 1),
        spread(c.ns_negative_reused.as_deref(), 1),
        over(c.ns_negative_reused.as_deref(), &c.ns_negative),
        spread(Some(&c.ns_positive), 1),
        spread(c.ns_positive_reused.as_deref(), 1),
        over(c.ns_positive_reused.as_deref(), &c.ns_positive),
    ]
}

/// The section (nothing for a report made before the reused scans were timed).
pub fn section(s: &mut String, x: &Measured) {
    let full: Vec<&ContenderRow> = x
        .timing
        .contenders
        .iter()
        .filter(|c| c.scale == Scale::Full && c.ns_negative_reused.is_some())
        .collect();
    if full.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "## `in` on fresh and on reused str objects\n\nThe goals time `key in f` on fresh str \
         objects (made untimed before each scan): keys just read from a file or received from \
         a request. CPython keeps a str's hash inside the object the first time `hash()` runs \
         on it, and rbloom hashes a key with `hash()`, so a second scan of the same objects \
         (timed here right after the first) skips its hashing: its figure is rbloom's best \
         case, shown and not judged. The package hashes the key's UTF-8 bytes with its own \
         hash, cached or not.\n"
    );
    let mut t = Table::new(&[
        ("contender", Align::Left),
        ("ns/neg, fresh", Align::Right),
        ("ns/neg, reused", Align::Right),
        ("reused / fresh", Align::Right),
        ("ns/pos, fresh", Align::Right),
        ("ns/pos, reused", Align::Right),
        ("reused / fresh", Align::Right),
    ]);
    for c in full {
        t.row(row(c));
    }
    s.push_str(&t.render());
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::python::tests::{measured, report};

    /// Every full-size contender with reused figures has a row, reused over fresh computed
    /// from its rounds (the fixture's 0.8×); a report without them has no section.
    #[test]
    fn the_reused_figures_are_shown_beside_the_fresh_ones() {
        let mut r = report();
        let mut s = String::new();
        section(&mut s, measured(&mut r));
        let rows: Vec<&str> = s.lines().filter(|l| l.contains("0.80×")).collect();
        let full = measured(&mut r)
            .timing
            .contenders
            .iter()
            .filter(|c| c.scale == Scale::Full)
            .count();
        assert_eq!(rows.len(), full, "{s}");
        for c in &mut measured(&mut r).timing.contenders {
            c.ns_negative_reused = None;
        }
        let mut none = String::new();
        section(&mut none, measured(&mut r));
        assert!(none.is_empty(), "{none}");
    }
}
