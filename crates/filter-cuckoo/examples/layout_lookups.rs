//! A fixed workload for instruction and miss counts of the two layouts under valgrind (never
//! for timing): builds a table of `n` keys at 1%, then looks up `probes` pre-hashed keys, half
//! members, one at a time. A fourth argument `4k` advises the table against huge pages, so that
//! address translation matters (for TLB-miss counts with `perf stat -e dTLB-load-misses`).
//!
//! ```text
//! cargo build --release -p filter-cuckoo --example layout_lookups
//! valgrind --tool=cachegrind --cache-sim=yes target/release/examples/layout_lookups near 1000000 0
//! valgrind --tool=cachegrind --cache-sim=yes target/release/examples/layout_lookups near 1000000 1000000
//! ```
//!
//! The difference between the two runs, divided by the probes, is the cost of one lookup.

use filter_core::{Filter, KeyHasher};
use filter_cuckoo::{CuckooFilter, Layout};
use std::hint::black_box;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: layout_lookups spread|near <keys> <probes> [4k]";
    let layout = match args.get(1).map(String::as_str) {
        Some("spread") => Layout::Spread,
        Some("near") => Layout::near(),
        _ => return Err(usage.into()),
    };
    let n: u64 = args.get(2).ok_or(usage)?.parse()?;
    let probes: u64 = args.get(3).ok_or(usage)?.parse()?;
    let hasher = KeyHasher::default();
    let mut f = CuckooFilter::builder()
        .capacity(n)
        .fpr(0.01)
        .hasher(hasher)
        .layout(layout)
        .pages(match args.get(4).map(String::as_str) {
            Some("4k") => filter_core::Pages::Small,
            _ => filter_core::Pages::Huge,
        })
        .build()?;
    for i in 0..n {
        f.insert_hash(hasher.hash(&i.to_le_bytes()))?;
    }
    // Keys `0..probes/2` are members, the rest not; hashed before the lookups.
    let hashes: Vec<_> = (0..probes)
        .map(|i| hasher.hash(&(i / 2 + (i % 2) * (u64::MAX / 2)).to_le_bytes()))
        .collect();
    let mut found = 0u64;
    for &h in &hashes {
        found += u64::from(f.contains_hash(black_box(h)));
    }
    println!(
        "{layout:?}: {found} of {probes} found, load {:.3}",
        f.load_factor()
    );
    Ok(())
}
