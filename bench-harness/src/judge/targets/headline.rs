//! The first table of the report: each of our variants at the peers' rate beside its best like
//! peer (the peer crates the targets compare it with, in their fastest configuration in this
//! run), the ratio of their one-at-a-time non-member lookups with its interval, and what differs
//! between the two sides' conditions.

use super::{conditions, find, Against, Metric, Ours, Terms, TARGETS};
use crate::record::verdict::ratio_interval;
use crate::record::{PeerRecord, Side};
use filterlab_peers::PeerKind;

/// One row of the headline.
#[derive(Clone, Debug)]
pub struct Row<'a> {
    /// Our filter's row beside the peers.
    pub ours: &'a PeerRecord,
    /// The best like peer: the lowest one-at-a-time non-member lookup among the crates the
    /// targets compare this variant with (`None`: no crate of the run is of its kind).
    pub peer: Option<&'a PeerRecord>,
    /// Ours over the peer's one-at-a-time non-member lookup: the ratio of medians and its 95%
    /// bootstrap interval over the rounds.
    pub lookup: Option<(f64, Option<(f64, f64)>)>,
    /// What differs between the two sides' conditions for that lookup (empty: the same).
    pub differences: Vec<String>,
    /// Our twin built at the peer's achieved rate, when the rates differ and the run has one:
    /// the bits per key to compare at equal FP.
    pub twin: Option<&'a PeerRecord>,
}

/// The like peers of a variant's row: the first peer list the targets name for it.
fn like_peers(name: &str) -> Option<&'static [PeerKind]> {
    let variant = crate::filters::Contender::from_name(name)?.variant;
    TARGETS.iter().find_map(|t| match t {
        (Ours::Variant(v) | Ours::Hash64(v), _, Against::Peers(kinds), ..) if *v == variant => {
            Some(*kinds)
        }
        _ => None,
    })
}

/// One headline row per matrix variant of ours in `rows` (the comparison's rows), in their
/// order.
#[must_use]
pub fn rows(rows: &[PeerRecord]) -> Vec<Row<'_>> {
    let ours = rows.iter().filter(|r| {
        r.side == Side::Filterlab && crate::filters::Contender::from_name(&r.name).is_some()
    });
    ours.map(|o| {
        let peer = like_peers(&o.name).and_then(|kinds| {
            kinds
                .iter()
                .filter_map(|k| find(rows, k.name()).ok())
                .min_by(|a, b| a.ns_negative.median.total_cmp(&b.ns_negative.median))
        });
        let lookup = peer.map(|p| {
            (
                o.ns_negative.median / p.ns_negative.median,
                ratio_interval(&o.ns_negative.samples, &p.ns_negative.samples),
            )
        });
        let differences = peer.map_or_else(Vec::new, |p| {
            conditions::differences(
                &Metric::Negative.conditions(o),
                &Metric::Negative.conditions(p),
                Terms::AlikeFp,
            )
        });
        let twin = peer.and_then(|p| {
            let far = |a: f64, b: f64| {
                a > b * conditions::FP_TOLERANCE || b > a * conditions::FP_TOLERANCE
            };
            far(o.empirical_fpr, p.empirical_fpr)
                .then(|| {
                    let kind = PeerKind::ALL.into_iter().find(|k| k.name() == p.name)?;
                    let variant = crate::filters::Contender::from_name(&o.name)?.variant;
                    find(rows, &crate::stages::peers::twin_name(variant, kind)).ok()
                })
                .flatten()
        });
        Row {
            ours: o,
            peer,
            lookup,
            differences,
            twin,
        }
    })
    .collect()
}
