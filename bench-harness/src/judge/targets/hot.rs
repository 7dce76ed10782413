//! The hot-path goal judged against the machine rather than a peer: split-block batched lookups
//! at most 1.5× the measured floor (the key's xxh3-128 hash plus one independent random line
//! read over a table of the filter's size). The other hot-path goals are rows of
//! [`super::TARGETS`] (split-block one at a time against fastbloom, cuckoo against split-block)
//! and of `judge::threads` (the atomic filters against fastbloom's `AtomicBloomFilter`); the
//! cuckoo rows against split-block are judged again for the near layout ([`near_rows`]).

use super::conditions::{Api, Timed};
use super::{denominator, find, row, side, target_row, Against, Bound, Conditions, Metric};
use super::{Ours, Ratio, Role, Side, Terms, TARGETS};
use crate::filters::{Variant, CUCKOO_NEAR};
use crate::judge::floor::floor;
use crate::record::floor::{FloorReport, FloorTable, OurHash};
use crate::record::PeerRecord;
use anyhow::{anyhow, Result};

/// The bound: batched split-block lookups within this multiple of the floor.
pub const FLOOR_BOUND: Bound = Bound::AtMost(1.5);

/// The floor as a ratio's denominator: it is the floor of that very filter's table (its bytes,
/// its achieved FP rate), read in a batch, hashed as the filter hashes.
fn floor_side(report: &FloorReport, ours: &PeerRecord) -> Side {
    Side {
        name: format!(
            "floor at {}'s size: {} hash + one independent line read (ns)",
            ours.name,
            OurHash::Xxh3_128.name()
        ),
        figure: floor(report, FloorTable::Blocked),
        conditions: Conditions {
            api: Api::Batched,
            achieved_fpr: Some(ours.empirical_fpr),
            hash: OurHash::Xxh3_128.name().into(),
            threads: 1,
            huge_pages: None,
            bytes: Some(ours.bytes),
            timed: Timed::Lookups,
            grown_from: None,
            keys: None,
        },
    }
}

/// The split-block filter's batched lookups (negative and positive) over its floor.
///
/// # Errors
/// The split-block row missing from `rows`, or its floor missing from `report`.
pub fn floor_rows(rows: &[PeerRecord], report: &FloorReport) -> Result<Vec<Ratio>> {
    let ours = find(rows, Variant::Blocked.name())?;
    let mut out = Vec::new();
    for metric in [Metric::NegativeBatched, Metric::PositiveBatched] {
        let den = floor_side(report, ours);
        if den.figure.is_none() || metric.pick(ours).is_none() {
            return Err(anyhow!(
                "{}: no {} or no floor at its size",
                ours.name,
                metric.peer_label()
            ));
        }
        let what = format!("{} vs the floor: {}", ours.name, metric.peer_label());
        out.push(row(
            what,
            Role::Target,
            (side(ours, metric), den),
            FLOOR_BOUND,
            Terms::AlikeFp,
        ));
    }
    Ok(out)
}

/// The cuckoo filter's goals against the split-block filter (the rows of [`TARGETS`] whose
/// numerator is the cuckoo filter and whose denominator is ours), again with the near layout's
/// row as the numerator (issue 21): both layouts judged by the same bounds in the same run.
///
/// # Errors
/// The near row or the split-block row missing from `rows`, or a figure missing from either.
pub fn near_rows(rows: &[PeerRecord]) -> Result<Vec<Ratio>> {
    let near = find(rows, CUCKOO_NEAR.name())?;
    TARGETS
        .iter()
        .filter(|t| t.0 == Ours::Variant(CUCKOO_NEAR.variant) && matches!(t.2, Against::Ours(_)))
        .map(|&(_, mo, theirs, mt, bound, terms, role)| {
            let b = denominator(rows, theirs, mt)?;
            target_row((near, mo), (b, mt), (bound, terms, role))
        })
        .collect()
}
