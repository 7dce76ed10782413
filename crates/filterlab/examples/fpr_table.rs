//! Measured against theoretical false-positive rate and bits per key for every variant.
//!
//! `cargo run --release -p filterlab --example fpr_table -- [n] [p] [probes]`
//! (defaults: n = 1,000,000, p = 0.01, probes = 10,000,000). Members and probes are disjoint
//! (`member-i` vs `probe-i`), hashed with xxh3-128 seed 0, so every run prints the same numbers.

use filterlab::{
    math, BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Filter, ScalableBloom,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: u64 = args.first().map_or(Ok(1_000_000), |s| s.parse())?;
    let p: f64 = args.get(1).map_or(Ok(0.01), |s| s.parse())?;
    let probes: u64 = args.get(2).map_or(Ok(10_000_000), |s| s.parse())?;

    let filters: Vec<Box<dyn Filter>> = vec![
        Box::new(ClassicBloom::builder().capacity(n).fpr(p).build()?),
        Box::new(CountingBloom::builder().capacity(n).fpr(p).build()?),
        Box::new(ScalableBloom::builder().capacity(n).fpr(p).build()?),
        Box::new(CuckooFilter::builder().capacity(n).fpr(p).build()?),
        Box::new(BlockedBloom::builder().capacity(n).fpr(p).build()?),
    ];
    println!(
        "n = {n}, target p = {p}, {probes} non-member probes, lower bound {:.2} bits/key",
        math::lower_bound_bits(n, p) / n as f64
    );
    println!(
        "| variant | bytes | bits/key | theoretical FPR | measured FPR | Wilson 95% CI | false negatives |"
    );
    println!("|---|---:|---:|---:|---:|---|---:|");
    for mut f in filters {
        let hasher = f.hasher();
        for i in 0..n {
            f.insert_hash(hasher.hash(format!("member-{i}").as_bytes()))?;
        }
        let false_negatives = (0..n)
            .filter(|i| !f.contains_hash(hasher.hash(format!("member-{i}").as_bytes())))
            .count();
        let fp = (0..probes)
            .filter(|i| f.contains_hash(hasher.hash(format!("probe-{i}").as_bytes())))
            .count() as u64;
        let (lo, hi) = math::wilson_interval(fp, probes, 1.96);
        println!(
            "| {} | {} | {:.2} | {:.5}% | {:.5}% | [{:.5}%, {:.5}%] | {} |",
            f.name(),
            f.size_in_bytes(),
            f.size_in_bytes() as f64 * 8.0 / n as f64,
            f.expected_fpr() * 100.0,
            fp as f64 / probes as f64 * 100.0,
            lo * 100.0,
            hi * 100.0,
            false_negatives
        );
    }
    Ok(())
}
