//! Sliding windows, measured (issue 22): a stream of at least ten windows of `W` items at a 1%
//! target through every design side by side — ours (`ItemWindow`, `TimeWindow` on a clock of one
//! tick per insert, the age-partitioned `Apbf`), a two-buffer rotation of two classic filters,
//! and probabilistic-rs's expiring Bloom filter (sized for the share of the target that keeps
//! the window at 1%, and as its docs configure it, each level at 1%).
//!
//! At checkpoints through the stream (eight per window, after the first window) each design is
//! asked fresh non-members never asked before (its false-positive rate over the window), a
//! sample of the in-window items spread over the window's ages (each must be found), and a sample
//! of items just past the design's horizon (found only as a false positive would be); its bytes
//! are recorded at every checkpoint. Then interleaved rounds time batched inserts (the stream
//! continues) and one-at-a-time lookups (half in-window items, half fresh non-members).
//!
//! The stage measures and records ([`WindowReport`]); `judge::window` computes the guarantees'
//! verdicts, `judge::targets::window` the goals' rows of the targets table, `render::window`
//! writes `window.json` and `window.md`, and `check` recomputes and re-renders them.

pub mod designs;
mod stream;

use crate::measure::Spread;
use crate::record::{Bound, Machine, Verdict};
use anyhow::Result;
use filterlab::Variant;
use serde::{Deserialize, Serialize};

pub use stream::key;

/// The target rate over the window.
pub const FPR: f64 = 0.01;

/// A design of the comparison: one of our sliding windows, taken from the registry (every
/// windowed row), or another design. Stored as its key ([`Design::key`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Design {
    /// One of ours through `filterlab::AnyFilter`: the lane-sliced windows with
    /// [`designs::GENERATIONS`] generations (the one counted in time on a clock of one tick per
    /// insert), the age-partitioned filter at `k = l = 8`.
    Ours(Variant),
    /// Two classic filters of `W` items, rotated.
    TwoBuffer,
    /// probabilistic-rs `ExpiringBloomFilter`, 8 levels each at the share of 1%.
    ProbabilisticRs,
    /// probabilistic-rs `ExpiringBloomFilter`, 8 levels each at 1% (as its docs configure it).
    ProbabilisticRsAsDocumented,
}

impl Design {
    /// Every design, in table order: ours in registry order, then the others.
    #[must_use]
    pub fn all() -> Vec<Design> {
        let mut all: Vec<Design> = Variant::ALL
            .iter()
            .copied()
            .filter(|v| v.capabilities().windowed)
            .map(Design::Ours)
            .collect();
        all.extend([
            Design::TwoBuffer,
            Design::ProbabilisticRs,
            Design::ProbabilisticRsAsDocumented,
        ]);
        all
    }

    /// Its key in the JSON: ours by variant name.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Design::Ours(v) => v.name(),
            Design::TwoBuffer => "two_buffer",
            Design::ProbabilisticRs => "probabilistic_rs",
            Design::ProbabilisticRsAsDocumented => "probabilistic_rs_as_documented",
        }
    }

    /// Its name in the tables.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Design::Ours(v) => v.name(),
            Design::TwoBuffer => "two-buffer rotation (classic)",
            Design::ProbabilisticRs => "probabilistic-rs, levels at the share",
            Design::ProbabilisticRsAsDocumented => "probabilistic-rs, levels at 1% (its docs)",
        }
    }

    /// Whether the design is ours.
    #[must_use]
    pub fn ours(self) -> bool {
        matches!(self, Design::Ours(_))
    }
}

crate::record::stored::stored_by_name!(Design, key, Design::all(), "window design");

/// Sizes of the stage.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Items per window, `W`.
    pub window: u64,
    /// Windows of the stream after the first (each is measured).
    pub windows: u64,
    /// Checkpoints per window.
    pub checkpoints_per_window: u64,
    /// Fresh non-members asked at each checkpoint.
    pub fp_queries: u64,
    /// In-window items, and as many aged-out ones, asked at each checkpoint.
    pub samples: u64,
    /// Interleaved timing rounds.
    pub rounds: usize,
    /// Inserts timed per round.
    pub timed_inserts: u64,
    /// Lookups timed per round.
    pub timed_lookups: u64,
    /// Seed of the keys.
    pub seed: u64,
}

impl Settings {
    /// The full run: windows of a million items.
    #[must_use]
    pub fn full() -> Self {
        Settings {
            window: 1_000_000,
            windows: 10,
            checkpoints_per_window: 8,
            fp_queries: 125_000,
            samples: 25_000,
            rounds: 5,
            timed_inserts: 500_000,
            timed_lookups: 200_000,
            seed: 0x5117_d1e6,
        }
    }

    /// `--quick`: windows of 20 000 items.
    #[must_use]
    pub fn quick() -> Self {
        Settings {
            window: 20_000,
            fp_queries: 12_500,
            samples: 2_500,
            rounds: 3,
            timed_inserts: 40_000,
            timed_lookups: 40_000,
            ..Settings::full()
        }
    }
}

/// One checkpoint of one design.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Inserts made so far.
    pub inserted: u64,
    /// Fresh non-members answered "maybe".
    pub false_positives: u64,
    /// Fresh non-members asked.
    pub probes: u64,
    /// The design's formula at this point (`None`: it has none).
    pub model: Option<f64>,
    /// In-window items asked.
    pub in_window: u64,
    /// Of those, answered "no" (must be 0).
    pub false_negatives: u64,
    /// Items past the horizon asked.
    pub aged: u64,
    /// Of those, answered "maybe".
    pub aged_maybe: u64,
    /// Bytes held.
    pub bytes: u64,
}

/// One judged guarantee of one design.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Guarantee {
    /// The checkpoint with the most false positives: its rate's Wilson interval ≤ the target.
    MaxFp,
    /// Every checkpoint pooled: the rate's Wilson interval ≤ the target.
    PooledFp,
    /// No in-window item answered "no": the count is 0.
    NoFalseNegative,
    /// Items past the horizon: the "maybe" rate's Wilson interval ≤ the target.
    AgedOut,
    /// Bytes at every checkpoint: the largest over the smallest is 1.
    FlatMemory,
}

/// A guarantee's verdict for one design.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Judged {
    /// Which.
    pub guarantee: Guarantee,
    /// The measured value.
    pub measured: f64,
    /// Its interval (Wilson 95% for rates; a point otherwise).
    pub interval: Option<(f64, f64)>,
    /// The bound.
    pub bound: Bound,
    /// Three-way.
    pub verdict: Verdict,
}

/// Everything one design did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DesignResult {
    /// Which.
    pub design: Design,
    /// Its realised parameters.
    pub params: String,
    /// Age (in inserts, the latest being of age 1) past which an item must be gone.
    pub horizon: u64,
    /// Every checkpoint, in stream order.
    pub checkpoints: Vec<Checkpoint>,
    /// ns per insert through the batched call, over the rounds.
    pub insert_ns: Spread,
    /// ns per lookup, one at a time, over the rounds.
    pub lookup_ns: Spread,
    /// The guarantees, judged ([`crate::judge`] fills them).
    #[serde(default)]
    pub judged: Vec<Judged>,
}

impl DesignResult {
    /// Bits of table per in-window item at the last checkpoint.
    #[must_use]
    pub fn bits_per_item(&self, window: u64) -> f64 {
        self.checkpoints
            .last()
            .map_or(f64::NAN, |c| c.bytes as f64 * 8.0 / window as f64)
    }

    /// `(false positives, probes)` over every checkpoint.
    #[must_use]
    pub fn pooled_fp(&self) -> (u64, u64) {
        self.checkpoints
            .iter()
            .fold((0, 0), |(f, p), c| (f + c.false_positives, p + c.probes))
    }

    /// The "maybe" rate of items past the horizon over every checkpoint.
    #[must_use]
    pub fn pooled_aged(&self) -> (u64, u64) {
        self.checkpoints
            .iter()
            .fold((0, 0), |(f, p), c| (f + c.aged_maybe, p + c.aged))
    }
}

/// What the stage measured, as written to `window.json`; `window.md` is rendered from it alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WindowReport {
    /// Where and how (the commit included).
    pub machine: Machine,
    /// The sizes.
    pub settings: Settings,
    /// The target rate over the window.
    pub fpr: f64,
    /// Every design.
    pub designs: Vec<DesignResult>,
}

/// Runs every design through the stream, then the timing rounds.
///
/// # Errors
/// A filter refusing its sizes or an insert, or a false negative (a broken filter stops the run).
pub fn run(settings: &Settings, machine: Machine) -> Result<WindowReport> {
    let mut designs = Vec::new();
    let mut filters = Vec::new();
    for design in Design::all() {
        eprintln!("   {} through the stream", design.name());
        let (params, horizon) = designs::shape(design, settings.window, FPR)?;
        let mut filter = designs::build(design, settings.window, FPR)?;
        let checkpoints = stream::stream(filter.as_mut(), settings, horizon)?;
        let lost: u64 = checkpoints.iter().map(|c| c.false_negatives).sum();
        anyhow::ensure!(
            lost == 0,
            "{}: {lost} in-window items answered absent: false negatives",
            design.name()
        );
        designs.push(DesignResult {
            design,
            params,
            horizon,
            checkpoints,
            insert_ns: Spread::default(),
            lookup_ns: Spread::default(),
            judged: Vec::new(),
        });
        filters.push(filter);
    }
    eprintln!("   timing: {} interleaved rounds", settings.rounds);
    let timings = stream::time_rounds(&mut filters, settings)?;
    for (d, (ins, look)) in designs.iter_mut().zip(timings) {
        d.insert_ns = ins;
        d.lookup_ns = look;
    }
    Ok(WindowReport {
        machine,
        settings: settings.clone(),
        fpr: FPR,
        designs,
    })
}

#[cfg(test)]
mod tests;
