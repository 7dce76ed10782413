//! Criterion micro-benchmarks: hashing, insert, contains (hit and miss) for every variant.
//!
//! `cargo bench -p bench-harness` (the 10M-key comparisons are the harness's job, not these).

use bench_harness::dataset::{self, DatasetSpec};
use bench_harness::filters::measured;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use filterlab::{murmur3_x64_128, Filter, KeyHasher};
use std::hint::black_box;

const N: usize = 1_000_000;
const BATCH: usize = 10_000;

fn benches(c: &mut Criterion) {
    let ds = dataset::generate(&DatasetSpec {
        members: N,
        non_members: BATCH,
        seed: 7,
    });
    // Pre-generated distinct keys, never one repeated key.
    let hits: Vec<&[u8]> = (0..BATCH)
        .map(|i| ds.members.get(i * (N / BATCH)))
        .collect();
    let misses: Vec<&[u8]> = (0..BATCH).map(|i| ds.non_members.get(i)).collect();

    let mut g = c.benchmark_group("hash");
    g.throughput(Throughput::Elements(BATCH as u64));
    let xxh3 = KeyHasher::default();
    g.bench_function("xxh3-128", |b| {
        b.iter(|| {
            misses
                .iter()
                .map(|k| xxh3.hash(black_box(k)).lo)
                .fold(0, u64::wrapping_add)
        })
    });
    g.bench_function("murmur3-x64-128", |b| {
        b.iter(|| {
            misses
                .iter()
                .map(|k| murmur3_x64_128(black_box(k), 0).lo)
                .fold(0, u64::wrapping_add)
        })
    });
    g.finish();

    for kind in measured() {
        let mut full = bench_harness::filters::build(kind, N as u64, 0.01, filterlab::Pages::Huge)
            .expect("valid parameters");
        for k in ds.members.iter() {
            full.insert(k).expect("within capacity");
        }
        let mut g = c.benchmark_group(kind.name());
        g.throughput(Throughput::Elements(BATCH as u64));
        g.bench_function("contains_hit", |b| {
            b.iter(|| hits.iter().filter(|k| full.contains(black_box(k))).count())
        });
        g.bench_function("contains_miss", |b| {
            b.iter(|| {
                misses
                    .iter()
                    .filter(|k| full.contains(black_box(k)))
                    .count()
            })
        });
        g.bench_function("insert", |b| {
            b.iter_batched_ref(
                || {
                    bench_harness::filters::build(kind, N as u64, 0.01, filterlab::Pages::Huge)
                        .expect("valid parameters")
                },
                |f| {
                    for k in &misses {
                        f.insert(black_box(k)).expect("within capacity");
                    }
                },
                BatchSize::LargeInput,
            )
        });
        g.finish();
    }
}

criterion_group!(filters, benches);
criterion_main!(filters);
