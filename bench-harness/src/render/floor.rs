//! The limit, measured: the floor section of README.md, rendered from `results.floor` alone.

use crate::record::floor::FloorReport;
use crate::render::table::{Align, Table};
use std::fmt::Write as _;

/// The floor at each table's size, the hashes, and every lookup as a multiple of the floor;
/// nothing when the stage did not run.
#[must_use]
pub fn floor_section(report: Option<&FloorReport>) -> String {
    let Some(r) = report else {
        return String::new();
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "### The limit, measured\n\nWhat this machine charges for the two things every lookup \
         does, over {} keys in {} rounds (median (min–max)): one random 64-byte line read over a \
         table of the filter's size (4 KiB pages, written in full first), *dependent* (each \
         address read from the line before: a pointer chase over a random cycle through every \
         line, so nothing overlaps) and *independent* (addresses picked by the keys' hashes and \
         known up front, so the core keeps several misses in flight); and hashing the \
         comparison's negative query keys. The floor of a batched lookup is the xxh3-128 hash \
         plus one independent line read; the dependent read is what a one-at-a-time lookup \
         would pay if nothing overlapped.\n",
        r.queries, r.rounds
    );
    let mut reads = Table::new(&[
        ("table of", Align::Left),
        ("bytes", Align::Right),
        ("lines", Align::Right),
        ("ns/dependent read", Align::Right),
        ("ns/independent read", Align::Right),
    ]);
    for x in &r.reads {
        reads.row([
            x.table.name().to_string(),
            x.bytes.to_string(),
            x.lines.to_string(),
            format!("{:.1}", x.dependent),
            format!("{:.2}", x.independent),
        ]);
    }
    let mut hashing = Table::new(&[("hash", Align::Left), ("ns/key", Align::Right)]);
    for h in &r.hashing {
        hashing.row([h.hash.name().to_string(), format!("{:.1}", h.ns)]);
    }
    let mut multiples = Table::new(&[
        ("filter", Align::Left),
        ("lookup", Align::Left),
        ("ns", Align::Right),
        ("floor ns", Align::Right),
        ("× floor", Align::Right),
        ("dependent read ns", Align::Right),
        ("× dependent read", Align::Right),
    ]);
    for m in &r.multiples {
        multiples.row([
            m.table.name().to_string(),
            m.lookup.label().to_string(),
            format!("{:.1}", m.ns),
            format!("{:.1}", m.floor_ns),
            format!("{:.2}×", m.times_floor),
            format!("{:.1}", m.dependent_ns),
            format!("{:.2}×", m.times_dependent),
        ]);
    }
    let _ = write!(
        s,
        "{}\n{}\nEvery lookup figure of the comparison above against its table's floor: \"this \
         implementation gets X against the best possible Y\".\n\n{}",
        reads.render(),
        hashing.render(),
        multiples.render()
    );
    s.push('\n');
    s
}

#[cfg(test)]
mod tests;
