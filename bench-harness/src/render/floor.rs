//! The limit, measured: the floor section of README.md, rendered from `results.floor` alone.

use crate::record::floor::FloorReport;
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
    let _ = writeln!(
        s,
        "| table of | bytes | lines | ns/dependent read | ns/independent read |\n|---|---:|---:|---:|---:|"
    );
    for x in &r.reads {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.1} | {:.2} |",
            x.table.name(),
            x.bytes,
            x.lines,
            x.dependent,
            x.independent
        );
    }
    let _ = writeln!(s, "\n| hash | ns/key |\n|---|---:|");
    for h in &r.hashing {
        let _ = writeln!(s, "| {} | {:.1} |", h.hash.name(), h.ns);
    }
    let _ = writeln!(
        s,
        "\nEvery lookup figure of the comparison above against its table's floor: \"this \
         implementation gets X against the best possible Y\".\n"
    );
    let _ = writeln!(
        s,
        "| filter | lookup | ns | floor ns | × floor | dependent read ns | × dependent read |\n|---|---|---:|---:|---:|---:|---:|"
    );
    for m in &r.multiples {
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} | {:.1} | {:.2}× | {:.1} | {:.2}× |",
            m.table.name(),
            m.lookup.label(),
            m.ns,
            m.floor_ns,
            m.times_floor,
            m.dependent_ns,
            m.times_dependent
        );
    }
    s.push('\n');
    s
}

#[cfg(test)]
mod tests;
