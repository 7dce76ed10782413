//! What the side-by-side run with the peers records.

use super::conditions::OurHash;
use crate::measure::Spread;
use serde::{Deserialize, Serialize};

/// Whose a contender is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Side {
    /// One of filterlab's variants.
    #[default]
    Filterlab,
    /// Another crate's filter (or an exact set).
    Peer,
    /// The first article's Python code.
    Python,
}

/// One contender of the side-by-side run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PeerRecord {
    /// Name in the tables (`classic`, `fastbloom+foldhash`, …).
    pub name: String,
    /// Ours, a peer, or the articles' Python code.
    pub side: Side,
    /// Crate and version, or interpreter.
    pub source: String,
    /// How to read this row fairly.
    pub quirks: String,
    /// Keys inserted.
    pub n: u64,
    /// Requested false-positive rate.
    pub target_fpr: f64,
    /// Build seconds, one thread, key bytes in, construction and allocation included, over the
    /// interleaved build rounds (Python: the script's own rounds).
    pub build_seconds: Spread,
    /// Build through a batch API where the contender has one.
    pub build_seconds_batched: Option<Spread>,
    /// ns per negative lookup, one at a time, over interleaved rounds.
    pub ns_negative: Spread,
    /// ns per positive lookup, one at a time.
    pub ns_positive: Spread,
    /// ns per negative lookup through a batch API.
    pub ns_negative_batched: Option<Spread>,
    /// ns per positive lookup through a batch API.
    pub ns_positive_batched: Option<Spread>,
    /// False positives / probes.
    pub empirical_fpr: f64,
    /// Probes behind `empirical_fpr`.
    pub probes: u64,
    /// Members reported absent.
    pub false_negatives: u64,
    /// Inserts the contender refused.
    pub insert_failures: u64,
    /// Heap bytes (peers: the best estimate their API allows).
    pub bytes: u64,
    /// Share of those bytes on transparent huge pages (`None`: not obtained).
    #[serde(default)]
    pub huge_page_coverage: Option<f64>,
    /// bytes × 8 / n.
    pub bits_per_key: f64,
    /// The hash a record of ours was built with, when not the default (`None`: xxh3-128, what
    /// every record of ours written before this field was built with). Peers and the Python
    /// code leave it empty: their hash is their kind's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<OurHash>,
}

/// Lookups in the same filter built with and without the transparent-huge-page advice.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct HugePageRecord {
    /// Variant.
    pub variant: String,
    /// Table bytes.
    pub bytes: u64,
    /// ns per negative lookup, one at a time, huge pages advised.
    pub ns_negative_huge: Spread,
    /// The same with 4 KiB pages.
    pub ns_negative_small: Spread,
    /// ns per negative lookup, batched, huge pages advised.
    pub ns_negative_batched_huge: Spread,
    /// The same with 4 KiB pages.
    pub ns_negative_batched_small: Spread,
    /// Share of the advised table on huge pages (`None`: not obtained).
    pub coverage_huge: Option<f64>,
    /// Share of the unadvised table on huge pages (`None`: not obtained).
    pub coverage_small: Option<f64>,
}
