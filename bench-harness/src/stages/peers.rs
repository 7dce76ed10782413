//! filterlab beside the peers: same keys, same process, same run, same timing loops.

use crate::dataset::KeySet;
use crate::filters::{AnyFilter, Shaped, Variant, BESIDE_PEERS};
use crate::measure::rounds::{self, LoopRecord, Policy};
use crate::measure::{self, Spread};
use crate::plan::Ctx;
use crate::record::conditions::OurHash;
use crate::record::{HugePageRecord, PeerRecord, Record, Side};
use crate::stages::{bar, BuiltPeer};
use anyhow::{ensure, Context, Result};
use filterlab::{Filter, Pages, BATCH};
use filterlab_peers::{Peer, PeerKind};
use rayon::prelude::*;
use std::time::Instant;

mod article;

pub use article::{python, Article, ARTICLE_ROW, ARTICLE_SAMPLE, ARTICLE_TWIN, PYTHON_ROUNDS};

/// Every contender at `n` keys and rate `p`: ours are the matrix's filters at `p` (with their
/// records); the peers come built from the same interleaved build loop.
pub fn compare(
    ctx: &Ctx<'_>,
    ours: &[&AnyFilter],
    base: &[Record],
    peers: Vec<BuiltPeer>,
    n: usize,
    p: f64,
    policy: Policy,
) -> Result<(Vec<PeerRecord>, Vec<LoopRecord>)> {
    let q = ctx.queries.min(n);
    let negatives = measure::query_mix(ctx.members, n, ctx.probes, 0, q, ctx.seed ^ 1);
    let positives = measure::query_mix(ctx.members, n, ctx.probes, 100, q, ctx.seed ^ 1);

    // Our build times, FP rates and false negatives were measured on these very filters.
    let mut records = our_records(ours, base, n, p)?;
    let pb = bar(peers.len() as u64, "peers FP");
    let mut peer_records = Vec::new();
    for b in &peers {
        peer_records.push(peer_record(ctx, b, n, p));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let peers: Vec<Peer> = peers.into_iter().map(|b| b.peer).collect();

    // Our twins at the peers' achieved FP rates and with the peers' hash, timed in the same
    // rounds as everyone.
    let (mut twin_filters, mut twin_records) = twins(ctx, &peer_records, n)?;
    let (hashed, hashed_records) = hash_twins(ctx, n, p)?;
    twin_filters.extend(hashed);
    twin_records.extend(hashed_records);
    let mut ours: Vec<&AnyFilter> = ours.to_vec();
    ours.extend(twin_filters.iter());
    records.extend(twin_records);
    records.extend(peer_records);

    // Lookups: every contender, interleaved rounds, the same two query sets.
    let (one, many, record) = lookups(
        "lookups beside the peers",
        &ours,
        &peers,
        [&negatives, &positives],
        policy,
    );
    for (i, r) in records.iter_mut().enumerate() {
        [r.ns_negative, r.ns_positive] = one[i].clone();
        if let Some([neg, pos]) = many.get(i) {
            r.ns_negative_batched = Some(neg.clone());
            r.ns_positive_batched = Some(pos.clone());
        }
    }
    let mut loops = vec![record];
    for kind in crate::stages::EXACT_SETS {
        let (r, l) = exact_set(ctx, kind, (n, p), [&negatives, &positives], policy)?;
        records.push(r);
        loops.push(l);
    }
    Ok((records, loops))
}

/// How an exact set is measured, said beside its row.
pub const EXACT_SET_NOTE: &str = "Built after the filters' lookups, alone: its build timed once, \
    its lookups in rounds of its own, then dropped before the next exact set (a gigabyte between \
    the two at 10M keys, kept off the run's peak memory).";

/// An exact set ([`crate::stages::EXACT_SETS`]) on its own: built and timed once, its
/// answers counted, its lookups of `queries` timed in rounds of its own under `policy`; dropped
/// on return.
fn exact_set(
    ctx: &Ctx<'_>,
    kind: PeerKind,
    (n, p): (usize, f64),
    queries: [&KeySet; 2],
    policy: Policy,
) -> Result<(PeerRecord, LoopRecord)> {
    let (peer, refused, s, coverage) = crate::stages::timed_peer(kind, ctx, (n, p))?;
    let built = BuiltPeer {
        peer,
        refused,
        seconds: Spread::single(s),
        huge_page_coverage: coverage,
    };
    let mut record = peer_record(ctx, &built, n, p);
    record.quirks = format!("{} {EXACT_SET_NOTE}", record.quirks);
    let what = format!("lookups of {}, alone", kind.name());
    let (one, _, l) = lookups(
        &what,
        &[],
        std::slice::from_ref(&built.peer),
        queries,
        policy,
    );
    [record.ns_negative, record.ns_positive] = one[0].clone();
    Ok((record, l))
}

/// Every contender's lookups of `[negatives, positives]` in interleaved rounds under `policy`:
/// one at a time (ours, then the peers), batched (ours), and the loop's record.
fn lookups(
    what: &str,
    ours: &[&AnyFilter],
    peers: &[Peer],
    queries: [&KeySet; 2],
    policy: Policy,
) -> (Vec<[Spread; 2]>, Vec<[Spread; 2]>, LoopRecord) {
    let (o, total) = (ours.len(), ours.len() + peers.len());
    let pb = bar(policy.max as u64, "peers lookups");
    // Series 2c + side: contender c one at a time (ours, then the peers); then 2(total + i)
    // + side: our filter i batched.
    let (mut s, record) = rounds::series(what, policy, 2 * (total + o), |s| {
        for (side, q) in queries.iter().enumerate() {
            for (i, f) in ours.iter().enumerate() {
                s[2 * i + side].push(measure::time_lookups(*f, q));
                s[2 * (total + i) + side].push(measure::time_batch_lookups(*f, q, BATCH));
            }
            for (j, peer) in peers.iter().enumerate() {
                s[2 * (o + j) + side].push(measure::time_peer_lookups(peer, q));
            }
        }
        pb.inc(1);
    });
    pb.finish_and_clear();
    let mut pair = |c: usize| [Spread::of(&mut s[2 * c]), Spread::of(&mut s[2 * c + 1])];
    let one: Vec<[Spread; 2]> = (0..total).map(&mut pair).collect();
    let many: Vec<[Spread; 2]> = (total..total + o).map(&mut pair).collect();
    (one, many, record)
}

/// Our filters' rows of the comparison, from the matrix records of these very filters.
fn our_records(ours: &[&AnyFilter], base: &[Record], n: usize, p: f64) -> Result<Vec<PeerRecord>> {
    let mut records = Vec::new();
    for (f, r) in ours.iter().zip(base) {
        ensure!(
            crate::filters::row_name(f) == r.variant && r.target_fpr == p,
            "matrix rows out of order"
        );
        records.push(PeerRecord {
            name: r.variant.clone(),
            side: Side::Filterlab,
            source: format!("filterlab {}", env!("CARGO_PKG_VERSION")),
            quirks: r.params.clone(),
            n: n as u64,
            target_fpr: p,
            build_seconds: r.build_seconds.clone().unwrap_or_default(),
            build_seconds_batched: r
                .ns_per_insert_batched
                .as_ref()
                .map(|ns| ns.scaled(n as f64 / 1e9)),
            empirical_fpr: r.empirical_fpr,
            probes: r.probes,
            false_negatives: r.false_negatives,
            bytes: r.bytes,
            bits_per_key: r.bits_per_key,
            huge_page_coverage: r.huge_page_coverage,
            ..PeerRecord::default()
        });
    }
    Ok(records)
}

/// A built peer's row: false negatives over the members, false positives over every probe.
fn peer_record(ctx: &Ctx<'_>, b: &BuiltPeer, n: usize, p: f64) -> PeerRecord {
    let probes = ctx.probes.len();
    let (peer, refused) = (&b.peer, b.refused);
    let kind = peer.kind();
    // Counted on every core: these are answers, not timings.
    let count = |keys: &KeySet, len: usize| {
        (0..len)
            .into_par_iter()
            .with_min_len(4096)
            .filter(|&i| peer.contains(keys.get(i)))
            .count() as u64
    };
    let present = count(ctx.members, n);
    let fp = count(ctx.probes, probes);
    PeerRecord {
        name: kind.name().into(),
        side: Side::Peer,
        source: kind.crate_version().into(),
        quirks: kind.quirks().into(),
        n: n as u64,
        target_fpr: p,
        build_seconds: b.seconds.clone(),
        empirical_fpr: fp as f64 / probes as f64,
        probes: probes as u64,
        // A refused insert is not a false negative; count only keys the peer accepted.
        false_negatives: (n as u64 - refused).saturating_sub(present),
        insert_failures: refused,
        bytes: peer.size_in_bytes() as u64,
        bits_per_key: peer.size_in_bytes() as f64 * 8.0 / n as f64,
        huge_page_coverage: b.huge_page_coverage,
        ..PeerRecord::default()
    }
}

/// Our variants rebuilt at a peer's achieved FP rate, so that lookups and memory can be compared
/// at equal FP: (our kind, the peer whose rate it takes).
pub const TWINS: [(Variant, PeerKind); 3] = [
    (Variant::Cuckoo, PeerKind::Cuckoofilter),
    (Variant::Scalable, PeerKind::GrowableBloom),
    (Variant::Quotient, PeerKind::Qfilter),
];

/// The name of `kind` rebuilt at `peer`'s achieved FP rate.
#[must_use]
pub fn twin_name(kind: Variant, peer: PeerKind) -> String {
    format!("{} at {}'s FP", kind.name(), peer.name())
}

/// Our filters built again from the same keys with xxh3-64 (`HashKind::Xxh3_64`), the hash
/// of the peer they face, so that those goals compare the filters rather than the hashes: the
/// static filters against xorf's binary fuse filters, the split-block filter against fastbloom
/// hashing with xxh3-64 (`PeerKind::FastbloomXxh3`).
pub const HASH_TWINS: [(Variant, OurHash); 3] = [
    (Variant::BinaryFuse8, OurHash::Xxh3_64),
    (Variant::BinaryFuse16, OurHash::Xxh3_64),
    (Variant::Blocked, OurHash::Xxh3_64),
];

/// The name of `kind` built with `hash` ([`HASH_TWINS`]): `binary-fuse8 with xxh3-64`.
#[must_use]
pub fn hash_twin_name(kind: Variant, hash: OurHash) -> String {
    format!("{} with {}", kind.name(), hash.name())
}

/// A filter of ours beside the peers that is not a matrix row (a twin): false negatives over
/// the members, false positives over every probe, its bytes and huge-page coverage (as the
/// matrix rows report theirs); no timing yet.
fn twin_record(
    ctx: &Ctx<'_>,
    f: &AnyFilter,
    n: usize,
    (name, quirks): (String, String),
) -> PeerRecord {
    let probes = ctx.probes.len();
    let present = measure::count_present(f, ctx.members, 0..n);
    let fp = measure::count_present(f, ctx.probes, 0..probes);
    PeerRecord {
        name,
        side: Side::Filterlab,
        source: format!("filterlab {}", env!("CARGO_PKG_VERSION")),
        quirks,
        n: n as u64,
        empirical_fpr: fp as f64 / probes as f64,
        probes: probes as u64,
        false_negatives: n as u64 - present,
        bytes: f.size_in_bytes() as u64,
        bits_per_key: f.size_in_bytes() as f64 * 8.0 / n as f64,
        huge_page_coverage: measure::table_huge_page_coverage(f),
        ..PeerRecord::default()
    }
}

/// Builds each of [`HASH_TWINS`] from the members at rate `p`, checks that it hashes as
/// asked, and measures its FP rate. One untimed build each, like [`twins`]: the fuse goals are
/// lookups and bytes.
fn hash_twins(ctx: &Ctx<'_>, n: usize, p: f64) -> Result<(Vec<AnyFilter>, Vec<PeerRecord>)> {
    let mut filters = Vec::new();
    let mut out = Vec::new();
    for (kind, hash) in HASH_TWINS {
        let f = crate::filters::build_from_keys_hashed(
            kind,
            (ctx.members, n),
            p,
            BESIDE_PEERS,
            hash.kind(),
        )?;
        ensure!(
            f.hasher().kind() == hash.kind(),
            "{} was not built with {}",
            kind.name(),
            hash.name()
        );
        let quirks = format!(
            "{} built from the same keys with {} (`HashKind::{:?}`, the hash of the xorf filter it faces) instead of the default xxh3-128: {}; one untimed build (no build figure), lookups in the same interleaved rounds",
            kind.name(),
            hash.name(),
            hash.kind(),
            f.params()
        );
        let mut r = twin_record(ctx, &f, n, (hash_twin_name(kind, hash), quirks));
        r.target_fpr = p;
        r.hash = Some(hash);
        out.push(r);
        filters.push(f);
    }
    Ok((filters, out))
}

/// `kind` filled with `n` keys, built for the target among a few multiples of `rate` whose
/// formula at full load comes closest to `rate` (a scalable filter's first stage runs at a
/// tenth of its target; a cuckoo filter's fingerprints come in whole bits).
fn closest_build(ctx: &Ctx<'_>, kind: Variant, n: usize, rate: f64) -> Result<(AnyFilter, f64)> {
    let candidates = [1.0, 1.5, 2.0, 5.0, 10.0].map(|m| (rate * m).clamp(1e-6, 0.5));
    // The registry's plan gives a fixed-size filter's rate at n without building it: only the
    // closest candidate is filled. A growing filter's rate depends on its stages, so each
    // candidate is built and filled.
    let planned: Option<Vec<f64>> = candidates
        .iter()
        .map(|&t| crate::filters::planned_fpr(kind, n as u64, t))
        .collect();
    let mut best: Option<(f64, AnyFilter, f64)> = None;
    for (i, &target) in candidates.iter().enumerate() {
        let miss = |fpr: f64| (fpr / rate.max(1e-9)).ln().abs();
        if let Some(p) = &planned {
            let closest = p
                .iter()
                .map(|&x| miss(x))
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(&b.1));
            if closest.map(|(j, _)| j) != Some(i) {
                continue;
            }
        }
        let mut f = crate::filters::build(kind, n as u64, target, BESIDE_PEERS)?;
        measure::time_batch_inserts(&mut f, ctx.members, 0..n)?;
        let m = miss(f.expected_fpr());
        if best.as_ref().is_none_or(|(b, _, _)| m < *b) {
            best = Some((m, f, target));
        }
    }
    best.map(|(_, f, t)| (f, t))
        .ok_or_else(|| anyhow::anyhow!("no candidate build"))
}

/// Builds each of [`TWINS`] at its peer's achieved rate (found in `records`), checks it, and
/// measures its FP rate. Builds are not timed (a single build; the build targets compare the
/// interleaved ones).
fn twins(
    ctx: &Ctx<'_>,
    records: &[PeerRecord],
    n: usize,
) -> Result<(Vec<AnyFilter>, Vec<PeerRecord>)> {
    let mut filters = Vec::new();
    let mut out = Vec::new();
    for (kind, peer) in TWINS {
        let Some(theirs) = records.iter().find(|r| r.name == peer.name()) else {
            anyhow::bail!("no {} row to take the FP rate of", peer.name());
        };
        let (f, target) = closest_build(ctx, kind, n, theirs.empirical_fpr)?;
        let quirks = format!(
            "{} built for p = {target:.5}, {}'s measured rate: {}",
            kind.name(),
            peer.name(),
            f.params()
        );
        let mut r = twin_record(ctx, &f, n, (twin_name(kind, peer), quirks));
        r.target_fpr = target;
        out.push(r);
        filters.push(f);
    }
    Ok((filters, out))
}

/// One timed build of [`parallel_builds`]; its name in `results.json` comes from here only, so
/// the targets look rows up by this id, not by a prefix of the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// Our filter, `insert_batch` on one thread.
    Batched(Variant),
    /// Our filter from private shards OR-merged, on every thread.
    Sharded(Variant),
    /// fastbloom's `AtomicBloomFilter` with foldhash, on every thread.
    FastbloomAtomic,
}

impl Build {
    /// Its row name in a run on `threads` threads.
    #[must_use]
    pub fn name(self, threads: usize) -> String {
        match self {
            Build::Batched(kind) => format!("{} batched, 1 thread", kind.name()),
            Build::Sharded(kind) => format!("{} sharded, {threads} threads", kind.name()),
            Build::FastbloomAtomic => {
                format!("fastbloom AtomicBloomFilter+foldhash, {threads} threads")
            }
        }
    }
}

/// Parallel builds: our classic and blocked filters from private shards OR-merged, against
/// fastbloom's `AtomicBloomFilter` (foldhash), on every core; and each filter's single-thread batched build.
pub fn parallel_builds(
    ctx: &Ctx<'_>,
    n: usize,
    p: f64,
    rounds: usize,
) -> Result<Vec<(String, Spread)>> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let keys: Vec<&[u8]> = (0..n).map(|i| ctx.members.get(i)).collect();
    let mut times: Vec<(String, Vec<f64>)> = Vec::new();
    let mut push = |name: String, t: f64| match times.iter_mut().find(|(n, _)| *n == name) {
        Some((_, v)) => v.push(t),
        None => times.push((name, vec![t])),
    };
    for _ in 0..rounds {
        for kind in [Variant::Classic, Variant::Blocked] {
            let mut f = crate::filters::build(kind, n as u64, p, BESIDE_PEERS)?;
            measure::settle_heap();
            let t = Instant::now();
            for chunk in keys.chunks(BATCH) {
                f.insert_batch(chunk)?;
            }
            push(
                Build::Batched(kind).name(threads),
                t.elapsed().as_secs_f64(),
            );
            measure::settle_heap();
            let t = Instant::now();
            let merged = sharded_build(kind, &keys, n, p, threads)?;
            push(
                Build::Sharded(kind).name(threads),
                t.elapsed().as_secs_f64(),
            );
            ensure!(
                measure::count_present(&merged, ctx.members, 0..n) == n as u64,
                "sharded {} build lost keys",
                kind.name()
            );
        }
        measure::settle_heap();
        let (_, secs) = filterlab_peers::fastbloom_atomic_parallel_build(&keys, n, p, threads)?;
        push(Build::FastbloomAtomic.name(threads), secs);
    }
    Ok(times
        .into_iter()
        .map(|(n, mut v)| (n, Spread::of(&mut v)))
        .collect())
}

/// Each thread fills a private filter from its shard with `insert_batch`; the shards are then
/// OR-merged (`union`), which gives exactly the bits of a sequential build.
fn sharded_build(
    kind: Variant,
    keys: &[&[u8]],
    n: usize,
    p: f64,
    threads: usize,
) -> Result<AnyFilter> {
    let shard = keys.len().div_ceil(threads.max(1)).max(1);
    let parts: Vec<AnyFilter> = keys
        .par_chunks(shard)
        .map(|chunk| -> Result<AnyFilter> {
            let mut f = crate::filters::build(kind, n as u64, p, BESIDE_PEERS)?;
            for c in chunk.chunks(BATCH) {
                f.insert_batch(c)?;
            }
            Ok(f)
        })
        .collect::<Result<_>>()?;
    let mut parts = parts.into_iter();
    let mut acc = parts.next().context("no shards")?;
    for part in parts {
        match (&mut acc, &part) {
            (AnyFilter::Classic(a), AnyFilter::Classic(b)) => a.union(b)?,
            (AnyFilter::Blocked(a), AnyFilter::Blocked(b)) => a.union(b)?,
            _ => anyhow::bail!("{} has no union", kind.name()),
        }
    }
    Ok(acc)
}

/// Builds classic, cuckoo and blocked filters twice, with and without the huge-page advice of
/// `filter_core::try_zeroed_table` (the registry's `Params::pages`), and times negative
/// lookups on both in interleaved rounds.
pub fn huge_pages(ctx: &Ctx<'_>, n: usize, p: f64, rounds: usize) -> Result<Vec<HugePageRecord>> {
    let queries = measure::query_mix(
        ctx.members,
        n,
        ctx.probes,
        0,
        ctx.queries.min(n),
        ctx.seed ^ 2,
    );
    let kinds = [Variant::Classic, Variant::Cuckoo, Variant::Blocked];
    let build_all = |pages| -> Result<Vec<(AnyFilter, Option<f64>)>> {
        kinds
            .iter()
            .map(|kind| {
                let mut f = crate::filters::build(*kind, n as u64, p, pages)?;
                measure::time_batch_inserts(&mut f, ctx.members, 0..n)?;
                let coverage = measure::table_huge_page_coverage(&f);
                Ok((f, coverage))
            })
            .collect()
    };
    let pairs = build_all(Pages::Huge)?;
    let off_filters = build_all(Pages::Small)?;
    let mut t = vec![[Vec::new(), Vec::new(), Vec::new(), Vec::new()]; kinds.len()];
    for _ in 0..rounds {
        for (i, ((on, _), (off, _))) in pairs.iter().zip(&off_filters).enumerate() {
            t[i][0].push(measure::time_lookups(on, &queries));
            t[i][1].push(measure::time_lookups(off, &queries));
            t[i][2].push(measure::time_batch_lookups(on, &queries, BATCH));
            t[i][3].push(measure::time_batch_lookups(off, &queries, BATCH));
        }
    }
    Ok(pairs
        .iter()
        .zip(&off_filters)
        .zip(t.iter_mut())
        .map(|(((f, on), (_, off)), [a, b, c, d])| HugePageRecord {
            variant: f.name().into(),
            bytes: f.size_in_bytes() as u64,
            ns_negative_huge: Spread::of(a),
            ns_negative_small: Spread::of(b),
            ns_negative_batched_huge: Spread::of(c),
            ns_negative_batched_small: Spread::of(d),
            coverage_huge: *on,
            coverage_small: *off,
        })
        .collect())
}
