//! Our cuckoo filter against `cuckoofilter+xxh3` and our blocked filter, in one process, over
//! the same e-mail keys, in interleaved rounds: builds (one key at a time and batched) and
//! lookups (negative and positive, one at a time and batched). Prints each round and the
//! median ratios the cuckoo targets of issue 11 are stated in.
//!
//! ```text
//! cargo run --release -p bench-harness --example cuckoo_race -- [keys] [rounds] [only]
//! ```
//! `CUCKOO_RACE_CHUNK=65536` interleaves the lookups per chunk of keys (see [`CHUNK`]).
//! `only` (for `perf stat` / callgrind) runs one contender's one phase:
//! `cuckoo-build`, `cuckoo-build-batched`, `peer-build`, `blocked-build`, `cuckoo-lookup`,
//! `cuckoo-lookup-batched`, `peer-lookup`, `blocked-lookup`, `blocked-lookup-batched`
//! (lookups include the build they need).

use anyhow::{ensure, Result};
use bench_harness::dataset::{generate, DatasetSpec, KeySet};
use filterlab::{BlockedBloom, CuckooFilter, Filter, BATCH};
use filterlab_peers::{Peer, PeerKind};
use std::hint::black_box;
use std::time::Instant;

const P: f64 = 0.01;
/// Keys per interleaved lookup chunk unless `CUCKOO_RACE_CHUNK` says otherwise: by default all
/// probes, so each contender's table settles in the caches as it would alone (the three tables,
/// 43 MB, do not fit a 32 MB L3 together). Small chunks (65536) measure the regime where every
/// table comes from DRAM, with a slow moment of the machine hitting all contenders alike.
const CHUNK: usize = usize::MAX;

fn refs(keys: &KeySet, n: usize) -> Vec<&[u8]> {
    (0..n).map(|i| keys.get(i)).collect()
}

fn timed<T>(f: impl FnOnce() -> Result<T>) -> Result<(T, f64)> {
    let start = Instant::now();
    let t = f()?;
    Ok((t, start.elapsed().as_secs_f64()))
}

fn build_ours<F: Filter>(mut f: F, keys: &[&[u8]], batched: bool) -> Result<F> {
    if batched {
        for c in keys.chunks(BATCH) {
            f.insert_batch(c)?;
        }
    } else {
        for k in keys {
            f.insert(k)?;
        }
    }
    Ok(f)
}

fn cuckoo(n: usize) -> Result<CuckooFilter> {
    Ok(CuckooFilter::builder().capacity(n as u64).fpr(P).build()?)
}

fn blocked(n: usize) -> Result<BlockedBloom> {
    Ok(BlockedBloom::builder().capacity(n as u64).fpr(P).build()?)
}

fn peer(keys: &[&[u8]]) -> Result<Peer> {
    let (p, refused) = Peer::build(
        PeerKind::CuckoofilterXxh3,
        keys.len(),
        P,
        keys.iter().copied(),
    )?;
    ensure!(refused == 0, "cuckoofilter refused {refused} inserts");
    Ok(p)
}

/// Nanoseconds per lookup, one at a time, and the number of hits.
fn lookup_one(contains: impl Fn(&[u8]) -> bool, keys: &[&[u8]]) -> (f64, usize) {
    let start = Instant::now();
    let hits = keys.iter().filter(|k| contains(black_box(k))).count();
    (
        start.elapsed().as_secs_f64() * 1e9 / keys.len() as f64,
        hits,
    )
}

/// Nanoseconds per lookup through `contains_batch`, and the number of hits.
fn lookup_batch<F: Filter>(f: &F, keys: &[&[u8]]) -> (f64, usize) {
    let mut out = Vec::with_capacity(BATCH);
    let start = Instant::now();
    let mut hits = 0;
    for c in keys.chunks(BATCH) {
        f.contains_batch(c, &mut out);
        hits += out.iter().filter(|&&b| b).count();
    }
    (
        start.elapsed().as_secs_f64() * 1e9 / keys.len() as f64,
        hits,
    )
}

#[derive(Default)]
struct Samples {
    rows: Vec<(&'static str, Vec<f64>)>,
}

impl Samples {
    fn add(&mut self, name: &'static str, v: f64) {
        match self.rows.iter_mut().find(|(n, _)| *n == name) {
            Some((_, vs)) => vs.push(v),
            None => self.rows.push((name, vec![v])),
        }
    }

    fn min(&self, name: &str) -> f64 {
        let v = &self.rows.iter().find(|(n, _)| *n == name).expect(name).1;
        v.iter().copied().fold(f64::INFINITY, f64::min)
    }

    fn median(&self, name: &str) -> f64 {
        let mut v = self
            .rows
            .iter()
            .find(|(n, _)| *n == name)
            .expect(name)
            .1
            .clone();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    }
}

/// `f` filled with `members` (batched), then `probes` looked up: (hits, seconds).
fn lookups<F: Filter>(
    f: F,
    members: &[&[u8]],
    probes: &[&[u8]],
    batched: bool,
) -> Result<(usize, f64)> {
    let f = build_ours(f, members, true)?;
    let (t, hits) = if batched {
        lookup_batch(&f, probes)
    } else {
        lookup_one(|k| f.contains(k), probes)
    };
    Ok((hits, t))
}

fn only(phase: &str, members: &[&[u8]], probes: &[&[u8]]) -> Result<()> {
    let n = members.len();
    let (hits, t) = match phase {
        "cuckoo-build" => timed(|| Ok(build_ours(cuckoo(n)?, members, false)?.len() as usize))?,
        "cuckoo-build-batched" => {
            timed(|| Ok(build_ours(cuckoo(n)?, members, true)?.len() as usize))?
        }
        "blocked-build" => timed(|| Ok(build_ours(blocked(n)?, members, false)?.len() as usize))?,
        "peer-build" => timed(|| Ok(peer(members)?.contains(members[0]) as usize))?,
        "cuckoo-lookup" | "cuckoo-lookup-batched" => {
            lookups(cuckoo(n)?, members, probes, phase.ends_with("batched"))?
        }
        "blocked-lookup" | "blocked-lookup-batched" => {
            lookups(blocked(n)?, members, probes, phase.ends_with("batched"))?
        }
        "peer-lookup" => {
            let p = peer(members)?;
            let r = lookup_one(|k| p.contains(k), probes);
            (r.1, r.0)
        }
        other => anyhow::bail!("unknown phase {other}"),
    };
    println!("{phase}: {t:.4} (s for builds, ns/lookup for lookups), result {hits}");
    Ok(())
}

/// The row names of one side's five lookups (`neg` or `pos`), in the order they are timed.
fn lookup_names(side: &str) -> [&'static str; 5] {
    if side == "neg" {
        [
            "cuckoo neg",
            "peer neg",
            "blocked neg",
            "cuckoo neg batched",
            "blocked neg batched",
        ]
    } else {
        [
            "cuckoo pos",
            "peer pos",
            "blocked pos",
            "cuckoo pos batched",
            "blocked pos batched",
        ]
    }
}

/// The medians, minimums and maximums over the rounds, and the ratios the targets are about.
fn summary(s: &Samples, rounds: usize) {
    println!("over {rounds} rounds (builds in s, lookups in ns): median, min, max");
    for (name, v) in &s.rows {
        let max = v.iter().copied().fold(0.0, f64::max);
        println!(
            "  {name:<22} {:>9.3} {:>9.3} {:>9.3}",
            s.median(name),
            s.min(name),
            max
        );
    }
    for (label, of) in [
        ("medians", Samples::median as fn(&Samples, &str) -> f64),
        ("minimums", Samples::min),
    ] {
        let ratio = |a: &str, b: &str| of(s, a) / of(s, b);
        println!("ratios of {label}:");
        println!(
            "  cuckoo/blocked one at a time: neg {:.3} pos {:.3} (target <= 1.2)",
            ratio("cuckoo neg", "blocked neg"),
            ratio("cuckoo pos", "blocked pos")
        );
        println!(
            "  cuckoo/blocked batched:       neg {:.3} pos {:.3} (target <= 1.3)",
            ratio("cuckoo neg batched", "blocked neg batched"),
            ratio("cuckoo pos batched", "blocked pos batched")
        );
        println!(
            "  cuckoo/peer build:     one at a time {:.3}, batched {:.3} (target <= 1.0)",
            ratio("cuckoo build", "peer build"),
            ratio("cuckoo build batched", "peer build")
        );
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(10_000_000), |s| s.parse())?;
    let rounds: usize = args.get(1).map_or(Ok(3), |s| s.parse())?;
    let probes_n = n.min(2_000_000);
    let ds = generate(&DatasetSpec {
        members: n,
        non_members: probes_n,
        seed: 42,
    });
    let members = refs(&ds.members, n);
    let negatives = refs(&ds.non_members, probes_n);
    // Positives: the first members, read in order like the negatives (scattered reads of the key
    // bytes themselves would time the key store, not the filter).
    let positives: Vec<&[u8]> = members[..probes_n].to_vec();
    if let Some(phase) = args.get(2) {
        return only(phase, &members, &negatives);
    }
    let chunk_keys = match std::env::var("CUCKOO_RACE_CHUNK") {
        Ok(v) => v.parse()?,
        Err(_) => CHUNK,
    };
    ensure!(chunk_keys > 0, "CUCKOO_RACE_CHUNK must be positive");
    let mut s = Samples::default();
    for round in 0..rounds {
        let (c, t) = timed(|| build_ours(cuckoo(n)?, &members, false))?;
        s.add("cuckoo build", t);
        let (_, t) = timed(|| build_ours(cuckoo(n)?, &members, true))?;
        s.add("cuckoo build batched", t);
        let (p, t) = timed(|| peer(&members))?;
        s.add("peer build", t);
        let (b, t) = timed(|| build_ours(blocked(n)?, &members, false))?;
        s.add("blocked build", t);
        let (_, t) = timed(|| build_ours(blocked(n)?, &members, true))?;
        s.add("blocked build batched", t);
        for (side, keys) in [("neg", &negatives), ("pos", &positives)] {
            // Interleaved in chunks of keys, not per contender: a slow moment of the (shared)
            // machine then hits every contender's share of the same chunk.
            let mut ns = [0.0f64; 5];
            let mut hits = [0usize; 5];
            for chunk in keys.chunks(chunk_keys) {
                let runs: [(f64, usize); 5] = [
                    lookup_one(|k| c.contains(k), chunk),
                    lookup_one(|k| p.contains(k), chunk),
                    lookup_one(|k| b.contains(k), chunk),
                    lookup_batch(&c, chunk),
                    lookup_batch(&b, chunk),
                ];
                for (i, (t, h)) in runs.into_iter().enumerate() {
                    ns[i] += t * chunk.len() as f64;
                    hits[i] += h;
                }
            }
            let names = lookup_names(side);
            for (name, t) in names.into_iter().zip(ns) {
                s.add(name, t / keys.len() as f64);
            }
            let [cf, pf, bf, cb, bb] = hits;
            ensure!(cf == cb && bf == bb, "batched and single lookups disagree");
            if side == "pos" {
                ensure!(
                    cf == keys.len() && pf == keys.len() && bf == keys.len(),
                    "false negative"
                );
            } else if round == 0 {
                let r = |h: usize| 100.0 * h as f64 / keys.len() as f64;
                println!(
                    "FP%: cuckoo {:.3} peer {:.3} blocked {:.3}; bytes: cuckoo {} peer {} blocked {}; cuckoo load {:.4}",
                    r(cf), r(pf), r(bf), c.size_in_bytes(), p.size_in_bytes(), b.size_in_bytes(), c.load_factor()
                );
            }
        }
        println!("round {round}:");
        for (name, v) in &s.rows {
            println!("  {name:<22} {:>9.3}", v[round]);
        }
    }
    summary(&s, rounds);
    Ok(())
}
