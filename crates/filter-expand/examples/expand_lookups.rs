//! A fixed workload for instruction and miss counts of lookups under valgrind (never for
//! timing). `build` grows a filter from 1,000 to `n` keys at 1% and saves it; `probe` loads the
//! file and looks up `probes` pre-hashed keys one at a time, all members (`positive`) or none
//! (`negative`), inside `lookup_loop`, the only function callgrind is told to count:
//!
//! ```text
//! cargo build --release -p filter-expand --example expand_lookups
//! target/release/examples/expand_lookups build 10000000 target/expand-10m.bin
//! valgrind --tool=callgrind --cache-sim=yes --toggle-collect='*lookup_loop*' \
//!     target/release/examples/expand_lookups probe target/expand-10m.bin negative 200000
//! ```
//!
//! The counts of `lookup_loop` divided by the probes are the cost of one lookup. `probe-batch`
//! answers the same keys through `contains_hash_batch`, [`filter_core::BATCH`] at a time, inside
//! `batch_loop`. Both print the stages a lookup probes: every stage holding entries for a
//! non-member; for a member, newest first, the stages down to the one holding it (counted from
//! the stages' entries, false positives in newer stages aside).

use filter_core::{Filter, Hash128, Persist};
use filter_expand::ExpandableCuckoo;
use std::hint::black_box;

/// The `i`-th inserted key; non-members use indices from `u64::MAX / 2` on.
fn key(i: u64) -> Vec<u8> {
    format!("user{i}@mail{}.example.com", i % 97).into_bytes()
}

#[inline(never)]
fn lookup_loop(f: &ExpandableCuckoo, hashes: &[Hash128]) -> u64 {
    hashes
        .iter()
        .map(|&h| u64::from(f.contains_hash(black_box(h))))
        .sum()
}

#[inline(never)]
fn batch_loop(f: &ExpandableCuckoo, hashes: &[Hash128]) -> u64 {
    let mut out = Vec::with_capacity(filter_core::BATCH);
    let mut found = 0;
    for chunk in hashes.chunks(filter_core::BATCH) {
        f.contains_hash_batch(black_box(chunk), &mut out);
        found += out.iter().filter(|&&b| b).count() as u64;
    }
    found
}

/// Stages a lookup probes: `(non-member, member)`, from the stages' entries.
fn stages_probed(f: &ExpandableCuckoo) -> (usize, f64) {
    let shapes = f.stage_shapes();
    let held: Vec<u64> = shapes.iter().map(|s| s.3).filter(|&n| n > 0).collect();
    let (k, n) = (held.len(), held.iter().sum::<u64>().max(1));
    let member: f64 = (0..k).map(|j| held[j] as f64 * (k - j) as f64).sum::<f64>() / n as f64;
    (k, member)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage =
        "usage: expand_lookups build <keys> <file> | probe[-batch] <file> positive|negative <probes>";
    match args.get(1).map(String::as_str) {
        Some("build") => {
            let n: u64 = args.get(2).ok_or(usage)?.parse()?;
            let mut f = ExpandableCuckoo::builder()
                .capacity(1_000)
                .fpr(0.01)
                .build()?;
            for i in 0..n {
                f.insert(&key(i))?;
            }
            std::fs::write(args.get(3).ok_or(usage)?, f.to_bytes())?;
            println!(
                "{} keys, {} stages, {:.2} bits per key, fingerprint bits {:?}",
                f.len(),
                f.stage_shapes().len(),
                f.size_in_bytes() as f64 * 8.0 / f.len().max(1) as f64,
                f.stage_shapes().iter().map(|s| s.1).collect::<Vec<_>>()
            );
        }
        Some(mode @ ("probe" | "probe-batch")) => {
            let f = ExpandableCuckoo::from_bytes(&std::fs::read(args.get(2).ok_or(usage)?)?)?;
            let offset = match args.get(3).map(String::as_str) {
                Some("positive") => 0,
                Some("negative") => u64::MAX / 2,
                _ => return Err(usage.into()),
            };
            let probes: u64 = args.get(4).ok_or(usage)?.parse()?;
            // Members are spread over the whole key range (old and new stages alike).
            let step = (f.len() / probes.max(1)).max(1);
            let hashes: Vec<Hash128> = (0..probes)
                .map(|i| f.hasher().hash(&key(offset + i * step)))
                .collect();
            let found = if mode == "probe" {
                lookup_loop(&f, &hashes)
            } else {
                batch_loop(&f, &hashes)
            };
            let (negative, member) = stages_probed(&f);
            println!(
                "{found} of {probes} found, {} stages; stages probed per lookup: \
                 {negative} for a non-member, {member:.2} for a member (newest first)",
                f.stage_shapes().len()
            );
        }
        _ => return Err(usage.into()),
    }
    Ok(())
}
