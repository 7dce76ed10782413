//! One-at-a-time lookups of the split-block filter against fastbloom+foldhash (or, with `--fuse`,
//! of the binary fuse 8 filter against xorf), in one process.
//!
//! The harness's peers stage times the same thing at the end of a full run; this example isolates
//! it so that a change to the blocked filter's hot path can be judged in a minute: the same
//! e-mails (`--members` of them, default 10M, p = 1%), the same shuffled query sets copied
//! contiguously (all negatives, all positives), the same timing loops as the harness
//! (`measure::time_lookups` over `AnyFilter`, `measure::time_peer_lookups` over a `Peer`), and interleaved rounds
//! with the median and range printed. With `--kernels` it also times each lane kernel this CPU
//! has (portable, AVX2) on the same filter; `--kernel NAME` times that kernel alone (for
//! `valgrind --tool=callgrind` counts). With `--fuse` it times our binary fuse 8 filter instead
//! (with the default xxh3-128 and with xorf's xxh3-64) against xorf's `BinaryFuse8`, the pair of
//! issue 19's fuse goals.
//!
//! Run it on a quiet machine (timings taken beside other work say nothing):
//!
//! ```text
//! cargo run --release -p bench-harness --example blocked_lookups -- --rounds 7
//! ```
#![allow(missing_docs)]

use bench_harness::dataset::KeySet;
use bench_harness::dataset::{generate, DatasetSpec};
use bench_harness::filters::{build_from_keys_hashed, AnyFilter, Variant, BESIDE_PEERS};
use bench_harness::measure::{median, query_mix, time_lookups, time_peer_lookups};
use filterlab::HashKind;
use filterlab_peers::{Peer, PeerKind};
use std::time::Instant;

struct Args {
    members: usize,
    queries: usize,
    rounds: usize,
    kernels: bool,
    only: Option<String>,
    fuse: bool,
}

fn args() -> anyhow::Result<Args> {
    let mut a = Args {
        members: 10_000_000,
        queries: 2_000_000,
        rounds: 5,
        kernels: false,
        only: None,
        fuse: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .ok_or_else(|| anyhow::anyhow!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--members" => a.members = value()?.parse()?,
            "--queries" => a.queries = value()?.parse()?,
            "--rounds" => a.rounds = value()?.parse()?,
            "--kernel" => a.only = Some(value()?),
            "--kernels" => a.kernels = true,
            "--fuse" => a.fuse = true,
            _ => anyhow::bail!(
                "unknown flag {flag} (--members N --queries N --rounds N --kernels --kernel NAME --fuse)"
            ),
        }
    }
    anyhow::ensure!(
        a.members > 0 && a.queries > 0 && a.rounds > 0,
        "sizes must be positive"
    );
    Ok(a)
}

/// Median and range of a contender's rounds.
fn summary(v: &mut [f64]) -> (f64, f64, f64) {
    let m = median(v);
    (m, v[0], v[v.len() - 1])
}

/// The blocked filters to time: the default one, and one per available kernel with
/// `--kernels`; only the named kernel with `--kernel NAME` (for instruction counts).
fn contenders(f: &AnyFilter, a: &Args) -> anyhow::Result<Vec<(String, AnyFilter)>> {
    let AnyFilter::Blocked(b) = f else {
        anyhow::bail!("not a blocked filter");
    };
    let mut out = Vec::new();
    if a.only.is_none() {
        out.push(("blocked".to_string(), AnyFilter::Blocked(b.clone())));
    }
    for k in filterlab::blocked::Kernel::ALL {
        if a.kernels || a.only.as_deref() == Some(k.name()) {
            let mut b = b.clone();
            match b.set_kernel(k) {
                Ok(()) => out.push((format!("blocked/{}", k.name()), AnyFilter::Blocked(b))),
                Err(e) => println!("{}: not timed ({e})", k.name()),
            }
        }
    }
    anyhow::ensure!(!out.is_empty(), "no kernel named {:?}", a.only);
    Ok(out)
}

/// Median of the per-round ratios `ours[r] / peer[r]`: each round's contenders ran within
/// seconds of each other, so a burst of load from other processes touches both sides.
fn round_ratio(ours: &[f64], peer: &[f64]) -> f64 {
    let mut r: Vec<f64> = ours.iter().zip(peer).map(|(o, p)| o / p).collect();
    median(&mut r)
}

/// The binary fuse 8 filters to time: the default hash, and xorf's (xxh3-64).
fn fuse_contenders(keys: &KeySet, n: usize) -> anyhow::Result<Vec<(String, AnyFilter)>> {
    let mut out = Vec::new();
    for kind in [HashKind::Xxh3_128, HashKind::Xxh3_64] {
        let f = build_from_keys_hashed(Variant::BinaryFuse8, (keys, n), 0.01, BESIDE_PEERS, kind)?;
        out.push((format!("binary-fuse8 {}", kind.name()), f));
    }
    Ok(out)
}

/// Our contenders and the peer they are timed against, built from the same members.
fn setup(a: &Args, members: &KeySet) -> anyhow::Result<(Vec<(String, AnyFilter)>, Peer)> {
    let p = 0.01;
    if a.fuse {
        let (peer, _) = Peer::build(PeerKind::BinaryFuse8, a.members, p, members.iter())?;
        return Ok((fuse_contenders(members, a.members)?, peer));
    }
    let mut ours =
        bench_harness::filters::build(Variant::Blocked, a.members as u64, p, BESIDE_PEERS)?;
    for k in members.iter() {
        filterlab::Filter::insert(&mut ours, k)?;
    }
    let (peer, _) = Peer::build(PeerKind::FastbloomFoldhash, a.members, p, members.iter())?;
    Ok((contenders(&ours, a)?, peer))
}

fn main() -> anyhow::Result<()> {
    let a = args()?;
    let t = Instant::now();
    let ds = generate(&DatasetSpec {
        members: a.members,
        non_members: a.queries,
        seed: 42,
    });
    let (ours, peer) = setup(&a, &ds.members)?;
    let neg = query_mix(&ds.members, a.members, &ds.non_members, 0, a.queries, 7);
    let pos = query_mix(&ds.members, a.members, &ds.non_members, 100, a.queries, 7);
    println!(
        "{} members, {} queries per set, {} rounds, set up in {:.1} s",
        a.members,
        a.queries,
        a.rounds,
        t.elapsed().as_secs_f64()
    );
    let mut times = vec![(Vec::new(), Vec::new()); ours.len() + 1];
    for _ in 0..a.rounds {
        for (i, (_, f)) in ours.iter().enumerate() {
            times[i].0.push(time_lookups(f, &neg));
            times[i].1.push(time_lookups(f, &pos));
        }
        let last = times.len() - 1;
        times[last].0.push(time_peer_lookups(&peer, &neg));
        times[last].1.push(time_peer_lookups(&peer, &pos));
    }
    let (peer_neg, peer_pos) = times.pop().expect("the peer's row");
    let (pn, pn_lo, pn_hi) = summary(&mut peer_neg.clone());
    let (pp, pp_lo, pp_hi) = summary(&mut peer_pos.clone());
    println!("ratio = median ns / peer's median ns; per round = median of the rounds' ratios");
    println!(
        "| contender | ns/negative (range) | ns/positive (range) | ratio neg (per round) | ratio pos (per round) |"
    );
    println!("|---|---|---|---|---|");
    for ((name, _), (n, q)) in ours.iter().zip(times) {
        let (nm, nlo, nhi) = summary(&mut n.clone());
        let (qm, qlo, qhi) = summary(&mut q.clone());
        println!(
            "| {name} | {nm:.1} ({nlo:.1}-{nhi:.1}) | {qm:.1} ({qlo:.1}-{qhi:.1}) | {:.3} ({:.3}) | {:.3} ({:.3}) |",
            nm / pn,
            round_ratio(&n, &peer_neg),
            qm / pp,
            round_ratio(&q, &peer_pos)
        );
    }
    let peer_name = peer.kind().name();
    println!("| {peer_name} | {pn:.1} ({pn_lo:.1}-{pn_hi:.1}) | {pp:.1} ({pp_lo:.1}-{pp_hi:.1}) | 1 | 1 |");
    Ok(())
}
