//! Build timings, ours and the peers', in one interleaved loop.
//!
//! Every round builds every timed contender once, in the same order: each of our variants at
//! the peers' rate one key at a time and again through `insert_batch` (a static variant once,
//! from its whole key set: it takes no inserts), then each peer in its fastest configuration.
//! The rounds go on until every build time is known within 5% or the budget is spent
//! ([`crate::measure::rounds`]). A build is timed from before the filter is constructed (so its
//! allocation, and the zeroing of its table, count) to after the last insert, for ours and the
//! peers' alike. A slow moment of the machine therefore hits one round of every contender, and
//! the median, min and max over the rounds say how much a figure moved within the run.
//!
//! Our variants at the tighter rates (built for their FP rates, memory and lookups: see
//! [`once`]), the peers' slower configurations (fastbloom with SipHash, cuckoofilter with
//! SipHash, each beside its crate's fastest) and the exact sets are built once, through
//! `insert_batch` for ours; that build is timed and stated as one round ([`BUILT_ONCE`]).
//!
//! Each contender's filter of the last round is kept: the matrix measures their FP rate and
//! lookups, the comparison with the peers probes the peers.

use crate::dataset::KeySet;
use crate::filters::{AnyFilter, Contender, BESIDE_PEERS};
use crate::measure::rounds::{self, LoopRecord, Policy};
use crate::measure::{self, Spread};
use crate::plan::Ctx;
use crate::stages::{
    bar, check_no_false_negatives, timed_peer, BuiltFilter, BuiltPeer, EXACT_SETS,
};
use anyhow::{ensure, Context, Result};
use filterlab_peers::{Peer, PeerKind};
use std::time::Instant;

/// Everything the build loop produced.
pub struct Builds {
    /// Ours, in `targets × crate::filters::contenders()` order (the pairs the registry can
    /// size: see [`grid`]).
    pub ours: Vec<BuiltFilter>,
    /// The peers at `peer_fpr`, in [`PeerKind::ALL`] order (empty when no peers were asked for).
    pub peers: Vec<BuiltPeer>,
}

/// Seconds to construct a `kind` filter for `n` keys at `p` and insert `keys[..n]` one at a
/// time (`batched`: through `insert_batch`, all keys in one call where the variant builds from a
/// whole set in one pass); a static `kind`: to hash `keys[..n]` and build the
/// filter from them. Refused inserts fail the run: at capacity, none of our variants may refuse
/// one.
fn build_one(
    kind: Contender,
    keys: &KeySet,
    n: usize,
    p: f64,
    batched: bool,
) -> Result<(AnyFilter, f64)> {
    measure::settle_heap();
    let start = Instant::now();
    if kind.capabilities().static_set {
        let f = crate::filters::build_from_keys(kind, keys, n, p, BESIDE_PEERS)?;
        return Ok((f, start.elapsed().as_secs_f64()));
    }
    let mut f = crate::filters::build(kind, n as u64, p, BESIDE_PEERS)?;
    if batched && kind.capabilities().bulk_build {
        measure::time_bulk_build(&mut f, keys, 0..n)?;
    } else if batched {
        measure::time_batch_inserts(&mut f, keys, 0..n)?;
    } else {
        let (_, failures) = measure::time_inserts(&mut f, keys, 0..n);
        ensure!(
            failures == 0,
            "{} refused {failures} of {n} inserts at capacity",
            kind.name()
        );
    }
    Ok((f, start.elapsed().as_secs_f64()))
}

/// Built and timed once, after the interleaved rounds: the slower configurations of peer crates
/// whose fastest is measured beside them (every comparison uses a crate's fastest), and the
/// exact sets, whose builds (several seconds each at 10M keys) no goal rests on: they are
/// there for their memory and lookups.
pub const BUILT_ONCE: [PeerKind; 4] = [
    PeerKind::FastbloomDefault,
    PeerKind::Cuckoofilter,
    PeerKind::HashSet,
    PeerKind::HashSetBytes,
];

/// One slot of the loop: a contender's timings over the rounds and its latest build.
struct Slot<T> {
    one: Vec<f64>,
    batched: Vec<f64>,
    kept: Option<T>,
}

impl<T> Default for Slot<T> {
    fn default() -> Self {
        Slot {
            one: Vec::new(),
            batched: Vec::new(),
            kept: None,
        }
    }
}

/// One round of our builds at the timed rate: each slot's previous filter dropped before its
/// build, so that only one of each is held.
fn our_round(
    ctx: &Ctx<'_>,
    n: usize,
    timed: &[(f64, Contender)],
    slots: &mut [Slot<(AnyFilter, Option<f64>)>],
    first: bool,
) -> Result<()> {
    for (slot, &(p, kind)) in slots.iter_mut().zip(timed) {
        slot.kept = None;
        let (f, secs) = build_one(kind, ctx.members, n, p, false)?;
        slot.one.push(secs);
        if !kind.capabilities().static_set {
            let (g, secs) = build_one(kind, ctx.members, n, p, true)?;
            slot.batched.push(secs);
            // Same keys, same order every round: one check of the batched build suffices (the
            // kept filter is checked by the matrix).
            if first {
                check_no_false_negatives(&g, ctx.members, 0..n)?;
            }
        }
        let coverage = measure::table_huge_page_coverage(&f);
        slot.kept = Some((f, coverage));
    }
    Ok(())
}

/// Runs interleaved rounds of every timed build under `policy` (ours at `peer_fpr`, or at the
/// first target when no peers are asked for, and the peers' fastest configurations), then
/// builds the rest once. Returns the filters and the loop's record.
pub fn interleaved(
    ctx: &Ctx<'_>,
    n: usize,
    targets: &[f64],
    peer_fpr: Option<f64>,
    policy: Policy,
) -> Result<(Builds, LoopRecord)> {
    ensure!(
        ctx.members.len() >= n,
        "need {n} members, have {}",
        ctx.members.len()
    );
    let grid = grid(n, targets);
    let rate = peer_fpr.or(targets.first().copied()).unwrap_or(0.01);
    let (timed, rest): (Vec<(f64, Contender)>, Vec<_>) = grid.iter().partition(|(p, _)| *p == rate);
    let peers: Vec<PeerKind> = if peer_fpr.is_some() {
        PeerKind::ALL
            .into_iter()
            .filter(|k| !BUILT_ONCE.contains(k))
            .collect()
    } else {
        Vec::new()
    };
    let ours = std::cell::RefCell::new(
        (0..timed.len())
            .map(|_| Slot::default())
            .collect::<Vec<_>>(),
    );
    let theirs = std::cell::RefCell::new(
        (0..peers.len())
            .map(|_| Slot::default())
            .collect::<Vec<_>>(),
    );
    let pb = bar(policy.max as u64, "builds");
    let record = rounds::run(
        &format!("builds at {rate}"),
        policy,
        |round| -> Result<()> {
            our_round(ctx, n, &timed, &mut ours.borrow_mut(), round == 0)?;
            for (slot, &kind) in theirs.borrow_mut().iter_mut().zip(&peers) {
                slot.kept = None;
                let (peer, refused, s, coverage) = timed_peer(kind, ctx, (n, rate))?;
                slot.one.push(s);
                slot.kept = Some((peer, refused, coverage));
            }
            pb.inc(1);
            Ok(())
        },
        || {
            let (o, t) = (ours.borrow(), theirs.borrow());
            o.iter()
                .flat_map(|s| [s.one.clone(), s.batched.clone()])
                .filter(|v| !v.is_empty())
                .chain(t.iter().map(|s| s.one.clone()))
                .collect()
        },
    )?;
    pb.finish_and_clear();
    let mut built = built_ours(ours.into_inner(), &timed)?;
    built.extend(built_once(ctx, n, &rest)?);
    // Back in the grid's order: the timed rate's rows among the others, as `grid` lists them.
    built.sort_by_key(|b| {
        grid.iter().position(|&(p, k)| {
            p == b.target_fpr && crate::filters::row_name(&b.filter) == k.name()
        })
    });
    let mut peers_built = built_peers(theirs.into_inner(), &peers)?;
    if peer_fpr.is_some() {
        peers_built.extend(peers_once(ctx, (n, rate))?);
        peers_built.sort_by_key(|b| PeerKind::ALL.iter().position(|&k| k == b.peer.kind()));
    }
    Ok((
        Builds {
            ours: built,
            peers: peers_built,
        },
        record,
    ))
}

/// Our filters at `targets` (the rates the build loop does not time), in [`grid`] order: each
/// built once through `insert_batch` (a static one from its key set), that build timed as one
/// round.
///
/// # Errors
/// A filter that cannot be built.
pub fn once(ctx: &Ctx<'_>, n: usize, targets: &[f64]) -> Result<Vec<BuiltFilter>> {
    built_once(ctx, n, &grid(n, targets))
}

/// [`once`] over the pairs `rest`.
fn built_once(ctx: &Ctx<'_>, n: usize, rest: &[(f64, Contender)]) -> Result<Vec<BuiltFilter>> {
    let pb = bar(rest.len() as u64, "builds at the tighter rates");
    let mut out = Vec::new();
    for &(p, kind) in rest {
        let is_static = kind.capabilities().static_set;
        let (f, secs) = build_one(kind, ctx.members, n, p, !is_static)?;
        let coverage = measure::table_huge_page_coverage(&f);
        out.push(BuiltFilter {
            filter: f,
            target_fpr: p,
            seconds: is_static.then(|| Spread::single(secs)),
            seconds_batched: (!is_static).then(|| Spread::single(secs)),
            huge_page_coverage: coverage,
        });
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(out)
}

/// The peers of [`BUILT_ONCE`] but the [`EXACT_SETS`], each built and timed once.
fn peers_once(ctx: &Ctx<'_>, (n, p): (usize, f64)) -> Result<Vec<BuiltPeer>> {
    BUILT_ONCE
        .iter()
        .filter(|k| !EXACT_SETS.contains(k))
        .map(|&kind| {
            let (peer, refused, s, coverage) = timed_peer(kind, ctx, (n, p))?;
            Ok(BuiltPeer {
                peer,
                refused,
                seconds: Spread::single(s),
                huge_page_coverage: coverage,
            })
        })
        .collect()
}

/// The (target, variant) pairs of the matrix at `n` keys: every matrix row at every target
/// the registry can size it for (a binary fuse filter of 8-bit fingerprints only at rates of
/// 2^-8 and above).
#[must_use]
pub fn grid(n: usize, targets: &[f64]) -> Vec<(f64, Contender)> {
    targets
        .iter()
        .flat_map(|&p| {
            crate::filters::contenders()
                .into_iter()
                .filter(move |&k| crate::filters::buildable(k, n as u64, p))
                .map(move |k| (p, k))
        })
        .collect()
}

/// Our filters of the last round with the spreads of their build times over the rounds.
fn built_ours(
    slots: Vec<Slot<(AnyFilter, Option<f64>)>>,
    timed: &[(f64, Contender)],
) -> Result<Vec<BuiltFilter>> {
    slots
        .into_iter()
        .zip(timed)
        .map(|(mut slot, &(p, kind))| {
            let (filter, coverage) = slot
                .kept
                .with_context(|| format!("no build of {} was kept", kind.name()))?;
            Ok(BuiltFilter {
                filter,
                target_fpr: p,
                seconds: Some(Spread::of(&mut slot.one)),
                seconds_batched: (!slot.batched.is_empty()).then(|| Spread::of(&mut slot.batched)),
                huge_page_coverage: coverage,
            })
        })
        .collect()
}

/// The peers of the last round with the spreads of their build times over the rounds.
fn built_peers(
    slots: Vec<Slot<(Peer, u64, Option<f64>)>>,
    kinds: &[PeerKind],
) -> Result<Vec<BuiltPeer>> {
    slots
        .into_iter()
        .zip(kinds)
        .map(|(mut slot, kind)| {
            let (peer, refused, coverage) = slot
                .kept
                .with_context(|| format!("no build of {} was kept", kind.name()))?;
            Ok(BuiltPeer {
                peer,
                refused,
                seconds: Spread::of(&mut slot.one),
                huge_page_coverage: coverage,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
