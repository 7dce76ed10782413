//! Everything a run produced, as written to results.json.

use super::{HugePageRecord, Machine, PeerRecord, Ratio, Record};
use crate::measure::Spread;
use serde::{Deserialize, Serialize};

/// Everything a run produced, as written to results.json.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Results {
    /// Where and how.
    pub machine: Machine,
    /// Members, non-members and where they came from.
    pub dataset: DatasetInfo,
    /// Every measurement.
    pub records: Vec<Record>,
    /// filterlab beside the peers, same keys and run.
    #[serde(default)]
    pub peers: Vec<PeerRecord>,
    /// Parallel builds: (what, median seconds).
    #[serde(default)]
    pub parallel_builds: Vec<(String, Spread)>,
    /// The targets of the comparison, as measured ratios.
    #[serde(default)]
    pub ratios: Vec<Ratio>,
    /// Lookups with and without transparent huge pages.
    #[serde(default)]
    pub huge_pages: Vec<HugePageRecord>,
    /// The limit, measured: line reads and hashing at the filters' sizes, and the lookups as
    /// multiples of it (`None`: the stage did not run).
    #[serde(default)]
    pub floor: Option<super::floor::FloorReport>,
    /// Wall seconds of each stage, in the order they ran (the report writer's own stage, which
    /// writes this file, is printed at the end of the run but not recorded).
    #[serde(default)]
    pub stages: Vec<StageTime>,
    /// The adaptive timing loops: rounds, seconds and what ended each.
    #[serde(default)]
    pub loops: Vec<crate::measure::rounds::LoopRecord>,
    /// The run's peak resident memory, bytes: the harness's own (`VmHWM`) and the largest of the
    /// processes it started and watched (the Python section's); `None` where the system does
    /// not say.
    #[serde(default)]
    pub peak_rss: Option<crate::measure::PeakRss>,
    /// The calibration loop timed before every stage and after the last
    /// ([`crate::measure::calibration`]): whether the machine kept its speed through the run.
    #[serde(default)]
    pub calibration: Vec<crate::measure::calibration::Point>,
}

impl Results {
    /// What the report says at its top about a run the machine disturbed: the timing loops that
    /// ran out of their budget wider than their policy, and the calibration loop's swing; empty
    /// for a quiet run. Loops stopped at their round limit are not evidence either way.
    #[must_use]
    pub fn disturbances(&self) -> Vec<String> {
        let loops = crate::measure::rounds::disturbed(&self.loops).map(|d| d.sentence());
        let swing = crate::measure::calibration::swing(&self.calibration).map(|s| s.sentence());
        loops.into_iter().chain(swing).collect()
    }
}

/// One stage's wall time.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StageTime {
    /// The stage's name, as the progress output shows it.
    pub name: String,
    /// Wall seconds.
    pub seconds: f64,
    /// The harness's peak resident memory during the stage, bytes (see
    /// [`crate::measure::memory`]); `None` where the system does not say.
    #[serde(default)]
    pub peak_rss: Option<u64>,
}

/// The dataset of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DatasetInfo {
    /// `synthetic` or the key file's path.
    pub source: String,
    /// Members inserted (the matrix's n).
    pub members: usize,
    /// Non-members probed.
    pub non_members: usize,
    /// SHA-256 of the members as a one-key-per-line file.
    pub members_sha256: String,
    /// SHA-256 of the non-members.
    pub non_members_sha256: String,
    /// Most frequent domains of the members, with counts.
    pub top_domains: Vec<(String, u64)>,
}
