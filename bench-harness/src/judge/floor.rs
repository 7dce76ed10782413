//! Every lookup figure of the split-block and cuckoo filters as a multiple of this machine's
//! floor at their table's size: the xxh3-128 hash of the key plus one independent random line
//! read (what a batched lookup cannot go below), and the dependent line read beside it (what a
//! one-at-a-time lookup would pay if nothing overlapped).

use crate::measure::Spread;
use crate::record::floor::{FloorReport, FloorTable, Lookup, Multiple, OurHash};
use crate::record::PeerRecord;
use anyhow::{anyhow, Result};

/// The floor at `table`'s size, round by round: the xxh3-128 hash of a key plus one independent
/// line read, both timed in the same rounds. `None` when either was not measured.
#[must_use]
pub fn floor(report: &FloorReport, table: FloorTable) -> Option<Spread> {
    let reads = &report.reads(table)?.independent;
    let hash = report.hashing(OurHash::Xxh3_128)?;
    if reads.samples.is_empty() || reads.samples.len() != hash.samples.len() {
        return None;
    }
    let mut sums: Vec<f64> = reads
        .samples
        .iter()
        .zip(&hash.samples)
        .map(|(r, h)| r + h)
        .collect();
    Some(Spread::of(&mut sums))
}

/// `lookup`'s figure of a comparison row (`None`: not measured).
#[must_use]
pub fn figure(row: &PeerRecord, lookup: Lookup) -> Option<&Spread> {
    match lookup {
        Lookup::Negative => Some(&row.ns_negative),
        Lookup::Positive => Some(&row.ns_positive),
        Lookup::NegativeBatched => row.ns_negative_batched.as_ref(),
        Lookup::PositiveBatched => row.ns_positive_batched.as_ref(),
    }
}

/// Every lookup figure of the split-block and cuckoo rows of `peers` against the floor of its
/// table.
///
/// # Errors
/// A table, a row or a figure missing (a floor without its lookups, or the reverse, is not a
/// result to show).
pub fn multiples(report: &FloorReport, peers: &[PeerRecord]) -> Result<Vec<Multiple>> {
    let mut out = Vec::new();
    for table in FloorTable::ALL {
        let name = table.name();
        let row = peers
            .iter()
            .find(|r| r.name == name)
            .ok_or_else(|| anyhow!("the floor needs the comparison's {name} row"))?;
        let floor = floor(report, table)
            .ok_or_else(|| anyhow!("no floor measured at the {name} table's size"))?;
        let dependent = &report
            .reads(table)
            .ok_or_else(|| anyhow!("no line reads at the {name} table's size"))?
            .dependent;
        for lookup in Lookup::ALL {
            let ns = figure(row, lookup)
                .ok_or_else(|| anyhow!("{name} has no figure for {}", lookup.label()))?
                .median;
            out.push(Multiple {
                table,
                lookup,
                ns,
                floor_ns: floor.median,
                times_floor: ns / floor.median,
                dependent_ns: dependent.median,
                times_dependent: ns / dependent.median,
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
