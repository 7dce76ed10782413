//! The stages: each measures one part of the report and records it in the run's results; none
//! renders anything. This module holds what several of them share (a stage never imports
//! another); the order they run in is [`crate::pipeline::stages`].

pub mod builds;
pub mod cli_build;
pub mod course;
pub mod expansion;
pub mod floor;
pub mod interop;
pub mod mapped;
pub mod matrix;
pub mod peers;
pub mod python;
pub mod sweep;
pub mod systems;
pub mod threads;
pub mod window;

use crate::dataset::KeySet;
use crate::filters::{AnyFilter, Shaped};
use crate::measure::{self, Spread};
use crate::plan::Ctx;
use crate::record::Record;
use anyhow::{ensure, Context, Result};
use filterlab::{math, Filter};
use filterlab_peers::{Peer, PeerKind};
use indicatif::{ProgressBar, ProgressStyle};
use std::time::Instant;

/// One of our filters from the last round, with the spread of its build times.
pub struct BuiltFilter {
    /// The filter built one key at a time in the last round (a static filter: from its whole
    /// key set).
    pub filter: AnyFilter,
    /// Target rate it was built for.
    pub target_fpr: f64,
    /// Seconds per build, one key at a time (a static filter: the build from its key set);
    /// `None` where it was built once through `insert_batch` only (the untimed rates).
    pub seconds: Option<Spread>,
    /// Seconds per build through `insert_batch` (`None`: a static filter, which takes no
    /// inserts).
    pub seconds_batched: Option<Spread>,
    /// Share of the table on transparent huge pages (`None`: not obtained).
    pub huge_page_coverage: Option<f64>,
}

/// One peer from the last round, with the spread of its build times.
pub struct BuiltPeer {
    /// The peer filter.
    pub peer: Peer,
    /// Inserts it refused (cuckoofilter when full), in the last round.
    pub refused: u64,
    /// Seconds per build (construction and every insert).
    pub seconds: Spread,
    /// Share of its memory on transparent huge pages (`None`: not obtained).
    pub huge_page_coverage: Option<f64>,
}

/// A progress bar over `len` steps (hidden when stderr is not a terminal).
pub fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template("{prefix:>12} [{bar:30}] {pos}/{len} {msg} ({elapsed})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    pb.set_prefix(what.to_string());
    pb
}

/// Fills the FP-rate and memory fields of `rec` from `filter` and a false-positive count.
pub fn fill_fpr_fields(rec: &mut Record, filter: &AnyFilter, false_positives: u64, probes: u64) {
    let n = filter.len();
    rec.variant = crate::filters::row_name(filter).to_string();
    rec.n = n;
    rec.capacity = filter.capacity();
    rec.params = filter.params();
    rec.shape = filter.detail().ok();
    rec.theoretical_fpr = filter.expected_fpr();
    rec.theoretical_fpr_approx = rec
        .shape
        .as_ref()
        .and_then(|d| d.approx_fpr(n))
        .unwrap_or(rec.theoretical_fpr);
    rec.theoretical_fpr_exact = rec.shape.as_ref().and_then(|d| d.exact_fpr(n));
    rec.false_positives = false_positives;
    rec.probes = probes;
    rec.empirical_fpr = false_positives as f64 / probes.max(1) as f64;
    let (lo, hi) = math::wilson_interval(false_positives, probes, 1.96);
    rec.fpr_ci_low = lo;
    rec.fpr_ci_high = hi;
    rec.theory_in_ci = lo <= rec.theoretical_fpr && rec.theoretical_fpr <= hi;
    rec.measured_over_theory = rec.empirical_fpr / rec.theoretical_fpr;
    rec.bytes = filter.size_in_bytes() as u64;
    rec.bits_per_key = rec.bytes as f64 * 8.0 / n.max(1) as f64;
    rec.lower_bound_bits_per_key = (1.0 / rec.target_fpr).log2();
    rec.overhead_over_lower_bound = rec.bits_per_key / rec.lower_bound_bits_per_key - 1.0;
    rec.overhead_at_achieved_fpr = (rec.empirical_fpr > 0.0)
        .then(|| rec.bits_per_key / (1.0 / rec.empirical_fpr).log2() - 1.0);
}

/// Counts members reported absent; any is a bug, so the run fails.
pub(crate) fn check_no_false_negatives(
    filter: &AnyFilter,
    keys: &KeySet,
    range: std::ops::Range<usize>,
) -> Result<u64> {
    let expected = range.len() as u64;
    let present = measure::count_present(filter, keys, range);
    let fneg = expected - present;
    ensure!(
        fneg == 0,
        "{} reported {fneg} inserted keys absent: false negatives",
        filter.name()
    );
    Ok(fneg)
}

/// The exact sets among [`builds::BUILT_ONCE`]: a gigabyte between them at 10M keys, so they are not
/// built here beside the filters but in the comparison, each after the filters' lookups, timed
/// in its own rounds and dropped before the next ([`peers::compare`]); the run's
/// peak memory is the filters' and one exact set's.
pub const EXACT_SETS: [PeerKind; 2] = [PeerKind::HashSet, PeerKind::HashSetBytes];

/// Seconds to construct a peer and insert `keys[..n]` (the peer's own build call).
fn build_peer(kind: PeerKind, keys: &KeySet, n: usize, p: f64) -> Result<(Peer, u64, f64)> {
    measure::settle_heap();
    let start = Instant::now();
    let (peer, refused) = Peer::build(kind, n, p, (0..n).map(|i| keys.get(i)))
        .with_context(|| format!("building {}", kind.name()))?;
    Ok((peer, refused, start.elapsed().as_secs_f64()))
}

/// A peer built and timed, with the share of its memory on huge pages.
pub fn timed_peer(
    kind: PeerKind,
    ctx: &Ctx<'_>,
    (n, p): (usize, f64),
) -> Result<(Peer, u64, f64, Option<f64>)> {
    let ((peer, refused, s), coverage) = measure::with_huge_page_coverage(
        || build_peer(kind, ctx.members, n, p),
        |(peer, _, _)| peer.size_in_bytes(),
    )?;
    Ok((peer, refused, s, coverage))
}
