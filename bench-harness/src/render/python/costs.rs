//! The page's section on where one `key in ClassicBloom` goes, a part at a time (issue 52):
//! shown and explained, not judged.

use crate::record::python::costs::{CallCosts, Summary};
use crate::record::python::Measured;
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

/// `median (min–max)`, one decimal.
fn summary(s: Summary) -> String {
    format!("{:.1} ({:.1}–{:.1})", s.median, s.min, s.max)
}

/// The section (nothing for a report made before the call costs were measured).
pub fn section(s: &mut String, x: &Measured) {
    if let Some(c) = &x.call_costs {
        write(s, c);
    }
}

fn write(s: &mut String, c: &CallCosts) {
    let costs = c.costs();
    let whole = costs.last().map_or(f64::NAN, |p| p.cumulative.median);
    let rbloom = c.rbloom();
    let _ = writeln!(
        s,
        "## Where one `in` goes\n\nClassicBloom's `key in f`, a part at a time, on fresh str \
         objects: each scan of the {} probes (non-members of filters of {} keys) makes the \
         calls of `in` up to its part and stops there (`filterlab._filterlab._CallCost`, which \
         answers `False` after it; the last row is ClassicBloom itself). A part's cost is its \
         scan minus the scan before it in the same round (paired, so that a round's drift \
         cancels): the median and range over {} rounds; its share is of the whole `in`'s \
         median. rbloom's `in` on the same fresh keys, in the same rounds: {} ns per key, \
         ClassicBloom's {:.2}× that.\n",
        c.probes,
        c.n,
        c.rbloom_ns.len(),
        summary(rbloom),
        whole / rbloom.median,
    );
    let mut t = Table::new(&[
        ("part", Align::Left),
        ("what it adds", Align::Left),
        ("ns per key, up to it", Align::Right),
        ("ns it adds", Align::Right),
        ("share", Align::Right),
    ]);
    for p in &costs {
        t.row([
            format!("{:?}", p.part).to_lowercase(),
            p.part.adds().to_string(),
            summary(p.cumulative),
            summary(p.added),
            format!("{:.0}%", 100.0 * p.added.median / whole),
        ]);
    }
    s.push_str(&t.render());
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stages::python::tests::{measured, report};

    /// Every part has a row with its paired cost (the fixture's probe adds 110 ns of 200: 55%),
    /// rbloom's figure and the ratio are written, and a report without call costs has no
    /// section.
    #[test]
    fn every_part_is_a_row_with_what_it_adds() {
        let mut r = report();
        let mut s = String::new();
        section(&mut s, measured(&mut r));
        assert_eq!(s.lines().filter(|l| l.starts_with("| ")).count(), 7, "{s}");
        let probe = s.lines().find(|l| l.starts_with("| probe")).unwrap();
        assert!(
            probe.contains("110.0 (99.0–121.0)") && probe.contains("55%"),
            "{probe}"
        );
        assert!(
            s.contains("180.0 (170.0–190.0) ns per key, ClassicBloom's 1.11×"),
            "{s}"
        );
        measured(&mut r).call_costs = None;
        let mut none = String::new();
        section(&mut none, measured(&mut r));
        assert!(none.is_empty(), "{none}");
    }
}
