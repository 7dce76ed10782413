//! The batch lookups of a grown filter at several pipeline depths, timed in interleaved rounds:
//! the A/B of the depth and stage threshold of `ExpandableCuckoo::batch_plan` on an idle
//! machine (a loaded one times nothing useful).
//!
//! ```text
//! cargo build --release -p filter-expand --example expand_batch
//! target/release/examples/expand_batch 10000000 0 2 3 4 8 16 16@65536
//! ```
//!
//! The first argument is the keys the filter grows to (declared for 1,000 at 1%, xxh3-128
//! hashes of synthetic e-mail-like keys; default 4,000,000). Each further argument is a
//! pipeline, timed on the same 1,000,000 non-member and 1,000,000 member hashes (precomputed,
//! looked up [`filter_core::BATCH`] = 256 at a time):
//!
//! * `0`: the default, [`Filter::contains_hash_batch`] (its plan is printed);
//! * `K`: `K` keys ahead, the default stage threshold;
//! * `K@B`: `K` keys ahead, prefetching the stages of at least `B` bytes (`16@65536` is the
//!   pipeline before the plan: 16 ahead, every stage of 64 KiB or more);
//! * `single`: no pipeline, one key at a time.
//!
//! With no pipeline given: `0 2 4 8 16 16@65536 single`. Every pipeline is run once unmeasured,
//! then 5 rounds, each timing every pipeline, in forward order in even rounds and backward in
//! odd ones. It prints, per pipeline, the median and min-max ns per lookup over the rounds, and
//! fails if two pipelines answer differently.

use filter_core::{Filter, Growable, Hash128, BATCH};
use filter_expand::ExpandableCuckoo;
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 5;
const PROBES: u64 = 1_000_000;

/// The `i`-th inserted key; non-members use indices from `u64::MAX / 2` on.
fn key(i: u64) -> Vec<u8> {
    format!("user{i}@mail{}.example.com", i % 97).into_bytes()
}

/// A pipeline to time: `None` for the default, else `(ahead, stage bytes)`.
#[derive(Clone, Copy)]
struct Pipeline {
    label: &'static str,
    tuned: Option<(usize, usize)>,
}

fn parse(arg: &str, default_bytes: usize) -> Result<Pipeline, String> {
    let label: &'static str = Box::leak(arg.to_owned().into_boxed_str());
    let bad = || format!("pipeline {arg:?}: want 0, K, K@BYTES or single");
    let tuned = match arg {
        "0" => None,
        "single" => Some((0, default_bytes)),
        _ => {
            let (k, b) = arg.split_once('@').unwrap_or((arg, ""));
            let k = k.parse().map_err(|_| bad())?;
            let b = if b.is_empty() {
                default_bytes
            } else {
                b.parse().map_err(|_| bad())?
            };
            Some((k, b))
        }
    };
    Ok(Pipeline { label, tuned })
}

/// Looks up every hash, [`BATCH`] at a time, through `p`; returns the members found.
#[inline(never)]
fn batches(f: &ExpandableCuckoo, hashes: &[Hash128], p: Pipeline, out: &mut Vec<bool>) -> u64 {
    let mut found = 0;
    for chunk in hashes.chunks(BATCH) {
        match p.tuned {
            None => f.contains_hash_batch(black_box(chunk), out),
            Some((ahead, bytes)) => {
                f.contains_hash_batch_ahead(black_box(chunk), out, ahead, bytes)
            }
        }
        found += out.iter().filter(|&&b| b).count() as u64;
    }
    found
}

/// `(median, min, max)` of the samples.
fn spread(mut xs: Vec<f64>) -> (f64, f64, f64) {
    xs.sort_by(f64::total_cmp);
    (xs[xs.len() / 2], xs[0], xs[xs.len() - 1])
}

/// The filter grown from 1,000 declared keys to `n`, and the hashes of the keys inserted.
fn grow(n: u64) -> Result<(ExpandableCuckoo, Vec<Hash128>), Box<dyn std::error::Error>> {
    let mut f = ExpandableCuckoo::builder()
        .capacity(1_000)
        .fpr(0.01)
        .build()?;
    let hasher = f.hasher();
    let inserted: Vec<Hash128> = (0..n).map(|i| hasher.hash(&key(i))).collect();
    for chunk in inserted.chunks(BATCH) {
        f.insert_hash_batch(chunk)?;
    }
    Ok((f, inserted))
}

/// One line on the grown filter: keys, hash, stages, bytes and the default batch plan.
fn describe(f: &ExpandableCuckoo) {
    let (ahead, bytes) = f.batch_plan();
    let sizes: Vec<String> = f
        .stage_shapes()
        .iter()
        .map(|s| format!("{}", s.0 * 4 * u64::from(s.1) / 8))
        .collect();
    println!(
        "{} keys ({}), {} stages, {} bytes; stage bytes [{}]; default plan: {ahead} ahead, \
         stages of >= {bytes} bytes",
        f.len(),
        f.hasher().kind().name(),
        f.stages(),
        f.size_in_bytes(),
        sizes.join(" "),
    );
}

/// Per pipeline, the ns per lookup of each round (non-members, members), in interleaved
/// rounds whose order alternates; and the `(false positives, member hits)` every round agreed on.
type Timings = (Vec<(Vec<f64>, Vec<f64>)>, (u64, u64));

/// Times every pipeline over the same `members` and `others`, checking that every pipeline and
/// every round gives the same answers (and finds every member).
fn time_pipelines(
    f: &ExpandableCuckoo,
    pipelines: &[Pipeline],
    members: &[Hash128],
    others: &[Hash128],
) -> Result<Timings, Box<dyn std::error::Error>> {
    let mut out = Vec::with_capacity(BATCH);
    let mut times = vec![(Vec::new(), Vec::new()); pipelines.len()];
    let mut found = None;
    for round in 0..=ROUNDS {
        let order: Vec<usize> = match round % 2 {
            0 => (0..pipelines.len()).collect(),
            _ => (0..pipelines.len()).rev().collect(),
        };
        for i in order {
            let p = pipelines[i];
            let start = Instant::now();
            let fp = batches(f, others, p, &mut out);
            let t_others = start.elapsed().as_nanos() as f64 / PROBES as f64;
            let start = Instant::now();
            let hits = batches(f, members, p, &mut out);
            let t_members = start.elapsed().as_nanos() as f64 / PROBES as f64;
            if *found.get_or_insert((fp, hits)) != (fp, hits) || hits != PROBES {
                return Err(
                    format!("{}: answers differ from the first pipeline's", p.label).into(),
                );
            }
            if round > 0 {
                times[i].0.push(t_others);
                times[i].1.push(t_members);
            }
        }
    }
    Ok((times, found.unwrap_or_default()))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = match args.first() {
        Some(a) => a.parse()?,
        None => 4_000_000,
    };
    let (f, inserted) = grow(n)?;
    describe(&f);
    let list: Vec<&str> = match args.len() {
        0 | 1 => vec!["0", "2", "4", "8", "16", "16@65536", "single"],
        _ => args[1..].iter().map(String::as_str).collect(),
    };
    let bytes = f.batch_plan().1;
    let pipelines = list
        .iter()
        .map(|a| parse(a, bytes))
        .collect::<Result<Vec<_>, _>>()?;
    // Members spread over the whole key range (old and new stages alike).
    let step = (n / PROBES).max(1);
    let members: Vec<Hash128> = (0..PROBES)
        .map(|i| inserted[((i * step) % n.max(1)) as usize])
        .collect();
    let others: Vec<Hash128> = (0..PROBES)
        .map(|i| f.hasher().hash(&key(u64::MAX / 2 + i)))
        .collect();
    drop(inserted);
    let (times, (fp, _)) = time_pipelines(&f, &pipelines, &members, &others)?;
    println!("{ROUNDS} rounds of {PROBES} lookups each, ns per lookup: median [min-max]");
    println!(
        "{:>10}  {:>24}  {:>24}",
        "pipeline", "non-members", "members"
    );
    for (p, (o, m)) in pipelines.iter().zip(times) {
        let ((om, olo, ohi), (mm, mlo, mhi)) = (spread(o), spread(m));
        println!(
            "{:>10}  {om:>7.1} [{olo:>6.1}-{ohi:>6.1}]  {mm:>7.1} [{mlo:>6.1}-{mhi:>6.1}]",
            p.label
        );
    }
    println!("false positives: {fp} of {PROBES}");
    Ok(())
}
