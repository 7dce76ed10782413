//! The growth page's section on the Aleph filter over one doubling cycle: the curve of its bits
//! per key against quotient filters declared at the same counts at the same measured FP.

use crate::judge::targets::growth::aleph::quotient_bits;
use crate::record::pct;
use crate::render::table::{Align, Table};
use crate::stages::expansion::{Checkpoint, Cycle, ExpansionReport};

/// One row of the curve: where in the cycle, the filter's figures, the quotient filter's.
fn row(c: &Cycle, p: &Checkpoint, label: &str) -> [String; 7] {
    let (lo, hi) = filterlab::math::wilson_interval(p.false_positives, p.probes, 1.96);
    let q = quotient_bits(p.n, p.fpr());
    let place = (p.n as f64 / c.from as f64).ln() / (c.to as f64 / c.from as f64).ln();
    [
        format!("{}{label}", p.n),
        format!("{:.0}%", place * 100.0),
        pct(p.fpr()),
        format!("{}–{}", pct(lo), pct(hi)),
        format!("{:.2}", p.bits_per_key()),
        format!("{q:.2}"),
        format!("{:.2}", p.bits_per_key() / q),
    ]
}

/// The section, or a line saying why there is none.
#[must_use]
pub fn section(r: &ExpansionReport) -> String {
    let Some(c) = &r.cycle else {
        return "The Aleph filter doubled fewer than twice in this run: no complete cycle to \
                measure.\n"
            .into();
    };
    let mut t = Table::new(&[
        ("keys", Align::Right),
        ("through the cycle (log)", Align::Right),
        ("measured FP", Align::Right),
        ("Wilson 95%", Align::Right),
        ("bits/key", Align::Right),
        ("quotient at that FP", Align::Right),
        ("ratio", Align::Right),
    ]);
    for p in &c.points {
        t.row(row(c, p, ""));
    }
    t.row(row(c, &c.before, " (fullest)"));
    format!(
        "The {} filter's table doubled when it held {} keys and again at {}: between the two its \
         bytes stay put while the keys double, so its bits per key halve. One checkpoint (n \
         itself) lands anywhere in that swing; the goals judge the average over {} key counts \
         log-uniform in the cycle and the fullest table, each against a quotient filter \
         declared at the same count and the same measured FP (its plan's bits, \
         `Variant::Quotient.plan`). Each count is probed with its own window of {} fresh \
         non-members.\n\n{}",
        c.contender.name(),
        c.from,
        c.to,
        c.points.len(),
        c.before.probes,
        t.render()
    )
}
