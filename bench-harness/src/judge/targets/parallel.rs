//! The parallel-build rows of the targets table: the speed-up over one thread, and the sharded
//! build against fastbloom's `AtomicBloomFilter`, with the conditions each build runs under.

use super::conditions::{self, Api, Timed};
use super::{not_measured, row, Bound, Conditions, Ratio, Role, Side, Terms};
use crate::filters::Variant;
use crate::measure::Spread;
use filterlab_peers::PeerKind;

/// The conditions of a parallel build, as `versus::parallel_builds` runs it.
fn build_conditions(id: crate::stages::peers::Build, threads: usize) -> Conditions {
    use crate::stages::peers::Build;
    let (api, threads, hash, timed) = match id {
        Build::Batched(_) => (
            Api::Batched,
            1,
            conditions::OURS_HASH,
            Timed::AllocationAndInserts,
        ),
        Build::Sharded(_) => (
            Api::Batched,
            threads,
            conditions::OURS_HASH,
            Timed::ShardsAndMerge,
        ),
        Build::FastbloomAtomic => (
            Api::OneAtATime,
            threads,
            conditions::peer_hash(PeerKind::FastbloomFoldhash),
            Timed::InsertsOnly,
        ),
    };
    Conditions {
        api,
        achieved_fpr: None,
        hash: hash.into(),
        threads,
        huge_pages: None,
        bytes: None,
        timed,
        grown_from: None,
        keys: None,
    }
}

/// Parallel-build rows: speed-up over the batched single-thread build (at most the thread
/// count, which no honest parallel speed-up exceeds), and the sharded build against fastbloom's
/// `AtomicBloomFilter` on the same threads, which its recorded conditions mark unlike (private
/// full-size shards merged by union with every allocation timed, against one shared table
/// filled one insert at a time and allocated untimed).
pub(super) fn parallel_rows(builds: &[(String, Spread)], threads: usize) -> Vec<Ratio> {
    use crate::stages::peers::Build;
    let b = |id: Build| Side {
        name: format!("{} (s)", id.name(threads)),
        figure: builds
            .iter()
            .find(|(n, _)| *n == id.name(threads))
            .map(|(_, t)| t.clone()),
        conditions: build_conditions(id, threads),
    };
    // A build missing from the run is a not-measured row, not a dropped one.
    let pair = |what: String, x: Side, y: Side, bound: Bound, terms: Terms| {
        if x.figure.is_some() && y.figure.is_some() {
            row(what, Role::Target, (x, y), bound, terms)
        } else {
            let why = "not measured: a build is missing from the run".to_string();
            not_measured(what, (x.name, y.name), bound, why)
        }
    };
    let mut out = Vec::new();
    for kind in [Variant::Classic, Variant::Blocked] {
        let k = kind.name();
        out.push(pair(
            format!("{k}: parallel build speed-up over one thread"),
            b(Build::Batched(kind)),
            b(Build::Sharded(kind)),
            Bound::Between(1.3, threads as f64),
            Terms::Speedup,
        ));
        out.push(pair(
            format!("{k} sharded build vs fastbloom AtomicBloomFilter, same threads"),
            b(Build::Sharded(kind)),
            b(Build::FastbloomAtomic),
            Bound::AtMost(1.0),
            Terms::AlikeFp,
        ));
    }
    out
}
