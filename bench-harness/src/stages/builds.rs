//! Build timings, ours and the peers', in one interleaved loop.
//!
//! Every round builds every contender once, in the same order: each of our variants at each
//! target rate one key at a time and again through `insert_batch` (a static variant once, from
//! its whole key set: it takes no inserts), then each peer. A build is
//! timed from before the filter is constructed (so its allocation, and the zeroing of its
//! table, count) to after the last insert, for ours and the peers' alike. A slow moment of the
//! machine therefore hits one round of every contender, and the median, min and max over the
//! rounds say how much a figure moved within the run.
//!
//! The filters of the last round are kept: the matrix measures their FP rate and lookups, the
//! comparison with the peers probes the peers.

use crate::dataset::KeySet;
use crate::filters::{AnyFilter, Contender, BESIDE_PEERS};
use crate::measure::{self, Spread};
use crate::plan::Ctx;
use crate::stages::{bar, check_no_false_negatives, BuiltFilter, BuiltPeer};
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
/// time (`batched`: through `insert_batch`); a static `kind`: to hash `keys[..n]` and build the
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
    if batched {
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

/// Seconds to construct a peer and insert `keys[..n]` (the peer's own build call).
fn build_peer(kind: PeerKind, keys: &KeySet, n: usize, p: f64) -> Result<(Peer, u64, f64)> {
    measure::settle_heap();
    let start = Instant::now();
    let (peer, refused) = Peer::build(kind, n, p, (0..n).map(|i| keys.get(i)))
        .with_context(|| format!("building {}", kind.name()))?;
    Ok((peer, refused, start.elapsed().as_secs_f64()))
}

/// One round of the peers' builds at `p`: timings pushed to `secs`, the peers kept when `last`.
fn peer_round(
    ctx: &Ctx<'_>,
    (n, p): (usize, f64),
    secs: &mut [Vec<f64>],
    kept: Option<&mut Vec<(Peer, u64, Option<f64>)>>,
) -> Result<()> {
    let mut built = Vec::new();
    for (j, &kind) in PeerKind::ALL.iter().enumerate() {
        let ((peer, refused, s), coverage) = measure::with_huge_page_coverage(
            || build_peer(kind, ctx.members, n, p),
            |(peer, _, _)| peer.size_in_bytes(),
        )?;
        secs[j].push(s);
        built.push((peer, refused, coverage));
    }
    if let Some(kept) = kept {
        kept.extend(built);
    }
    Ok(())
}

/// Runs `rounds` interleaved rounds (at least one) of every build: ours at every target, and,
/// when `peer_fpr` is given, the peers at that rate.
/// Checks the kept filters for false negatives.
pub fn interleaved(
    ctx: &Ctx<'_>,
    n: usize,
    targets: &[f64],
    peer_fpr: Option<f64>,
    rounds: usize,
) -> Result<Builds> {
    ensure!(
        ctx.members.len() >= n,
        "need {n} members, have {}",
        ctx.members.len()
    );
    let rounds = rounds.max(1);
    let grid = grid(n, targets);
    let mut one = vec![Vec::with_capacity(rounds); grid.len()];
    let mut batched = vec![Vec::with_capacity(rounds); grid.len()];
    let mut peer_secs = vec![Vec::with_capacity(rounds); PeerKind::ALL.len()];
    let mut kept: Vec<(AnyFilter, Option<f64>)> = Vec::new();
    let mut kept_peers: Vec<(Peer, u64, Option<f64>)> = Vec::new();
    let pb = bar(rounds as u64, "builds");
    for round in 0..rounds {
        let last = round + 1 == rounds;
        for (i, &(p, kind)) in grid.iter().enumerate() {
            pb.set_message(format!("{} at {p}", kind.name()));
            let (f, secs) = build_one(kind, ctx.members, n, p, false)?;
            one[i].push(secs);
            let g = if kind.capabilities().static_set {
                None
            } else {
                let (g, secs) = build_one(kind, ctx.members, n, p, true)?;
                batched[i].push(secs);
                Some(g)
            };
            if last {
                check_no_false_negatives(&f, ctx.members, 0..n)?;
                if let Some(g) = &g {
                    check_no_false_negatives(g, ctx.members, 0..n)?;
                }
                let coverage = measure::table_huge_page_coverage(&f);
                kept.push((f, coverage));
            }
        }
        if let Some(p) = peer_fpr {
            pb.set_message("the peers");
            peer_round(ctx, (n, p), &mut peer_secs, last.then_some(&mut kept_peers))?;
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(Builds {
        ours: built_ours(kept, &grid, &mut one, &mut batched),
        peers: built_peers(kept_peers, &mut peer_secs),
    })
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
    kept: Vec<(AnyFilter, Option<f64>)>,
    grid: &[(f64, Contender)],
    one: &mut [Vec<f64>],
    batched: &mut [Vec<f64>],
) -> Vec<BuiltFilter> {
    kept.into_iter()
        .zip(grid)
        .zip(one.iter_mut().zip(batched))
        .map(|(((filter, coverage), &(p, _)), (a, b))| BuiltFilter {
            filter,
            target_fpr: p,
            seconds: Spread::of(a),
            seconds_batched: (!b.is_empty()).then(|| Spread::of(b)),
            huge_page_coverage: coverage,
        })
        .collect()
}

/// The peers of the last round with the spreads of their build times over the rounds.
fn built_peers(kept: Vec<(Peer, u64, Option<f64>)>, secs: &mut [Vec<f64>]) -> Vec<BuiltPeer> {
    kept.into_iter()
        .zip(secs)
        .map(|((peer, refused, coverage), s)| BuiltPeer {
            peer,
            refused,
            seconds: Spread::of(s),
            huge_page_coverage: coverage,
        })
        .collect()
}

#[cfg(test)]
mod tests;
