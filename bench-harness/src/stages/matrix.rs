//! The measurements behind the reports: the main matrix and the four scenarios.

use crate::dataset::KeySet;
use crate::filters::AnyFilter;
use crate::measure::rounds::{self, LoopRecord, Policy};
use crate::measure::{self, Mix, Spread};
use crate::plan::Ctx;
use crate::record::{Record, Scenario};
use crate::stages::{bar, check_no_false_negatives, fill_fpr_fields, BuiltFilter};
use anyhow::{bail, ensure, Result};
use filterlab::Filter;
use filterlab::{Pages, BATCH};
use std::collections::BTreeMap;

/// Times `filters` on every mix in interleaved rounds under `policy`, one at a time and
/// batched: `[filter][mix]` spreads of ns per lookup, and the loop's record.
fn interleaved_lookups<'f>(
    policy: Policy,
    filters: impl Iterator<Item = &'f AnyFilter> + Clone,
    mixes: &[KeySet],
    what: &str,
) -> (Vec<Vec<Spread>>, Vec<Vec<Spread>>, LoopRecord) {
    let (count, per) = (filters.clone().count(), mixes.len());
    let pb = bar(policy.max as u64, what);
    // Series `2 (f per + m)` is filter f on mix m one at a time, the next one batched.
    let (mut samples, record) = rounds::series(what, policy, 2 * count * per, |s| {
        for (fi, f) in filters.clone().enumerate() {
            for (mi, queries) in mixes.iter().enumerate() {
                s[2 * (fi * per + mi)].push(measure::time_lookups(f, queries));
                s[2 * (fi * per + mi) + 1].push(measure::time_batch_lookups(f, queries, BATCH));
            }
        }
        pb.inc(1);
    });
    pb.finish_and_clear();
    let spreads = |offset: usize, samples: &mut [Vec<f64>]| -> Vec<Vec<Spread>> {
        (0..count)
            .map(|fi| {
                (0..per)
                    .map(|mi| Spread::of(&mut samples[2 * (fi * per + mi) + offset]))
                    .collect()
            })
            .collect()
    };
    let one = spreads(0, &mut samples);
    (one, spreads(1, &mut samples), record)
}

/// `mix percent → spread` for a record.
fn by_mix(mixes: &[Mix], spreads: &[Spread]) -> BTreeMap<String, Spread> {
    mixes
        .iter()
        .map(|m| m.key().to_string())
        .zip(spreads.iter().cloned())
        .collect()
}

/// The main matrix: every variant at `n` items and each target rate it can be built for, from
/// the filters the interleaved build loop kept (see [`crate::stages::builds`]), their lookups
/// timed in rounds under `policy`. Returns the records, the filters (in the build grid's
/// order) for the parallel scenario and the peers, and the lookup loop's record.
pub fn matrix(
    ctx: &Ctx<'_>,
    n: usize,
    built: Vec<BuiltFilter>,
    policy: Policy,
) -> Result<(Vec<Record>, Vec<AnyFilter>, LoopRecord)> {
    let mut filters = Vec::new();
    let mut records = Vec::new();
    let pb = bar(built.len() as u64, "FP");
    for b in built {
        let f = b.filter;
        // A filter that skips keys it already reports present holds fewer entries than keys:
        // those that were false positives when they came (all n are checked present below).
        let skips = f.variant().capabilities().skips_present;
        ensure!(
            f.len() == n as u64 || (skips && f.len() <= n as u64),
            "{} holds {} keys, not {n}",
            f.name(),
            f.len()
        );
        let per_key = 1e9 / n as f64;
        let rec = Record {
            scenario: Scenario::Matrix,
            target_fpr: b.target_fpr,
            ns_per_insert: b.seconds.as_ref().map(|s| s.scaled(per_key)),
            ns_per_insert_batched: b.seconds_batched.map(|s| s.scaled(per_key)),
            build_seconds: b.seconds,
            huge_page_coverage: b.huge_page_coverage,
            ..Record::default()
        };
        records.push(checked_record(ctx, &f, 0..n, ctx.probes.len(), rec)?);
        filters.push(f);
        pb.inc(1);
    }
    pb.finish_and_clear();

    // Throughput: the same shuffled queries for every filter, rounds interleaved so that a
    // noisy moment of the machine hits every filter alike.
    let q = ctx.queries.min(n.max(1));
    let mixes: Vec<KeySet> = Mix::ALL
        .iter()
        .map(|m| measure::query_mix(ctx.members, n, ctx.probes, m.percent(), q, ctx.seed))
        .collect();
    let (one, batched, record) =
        interleaved_lookups(policy, filters.iter(), &mixes, "the matrix's lookups");
    let overhead = measure::timer_overhead_ns();
    let latency_sample = &mixes[Mix::ALL.iter().position(|&m| m == Mix::Half).unwrap_or(0)];
    for (fi, f) in filters.iter().enumerate() {
        let rec = &mut records[fi];
        rec.ns_per_lookup = by_mix(&Mix::ALL, &one[fi]);
        rec.ns_per_lookup_batched = by_mix(&Mix::ALL, &batched[fi]);
        let (p50, p99) = measure::latency_percentiles(f, latency_sample, 20_000, overhead);
        rec.latency_p50_ns = Some(p50);
        rec.latency_p99_ns = Some(p99);
    }
    Ok((records, filters, record))
}

/// The scenario record of `f` after `inserted` members: the false-negative check over them,
/// then the FP rate on the first `probes` probes, on top of `rec`'s scenario fields.
fn checked_record(
    ctx: &Ctx<'_>,
    f: &AnyFilter,
    inserted: std::ops::Range<usize>,
    probes: usize,
    rec: Record,
) -> Result<Record> {
    let false_negatives = check_no_false_negatives(f, ctx.members, inserted)?;
    let fp = measure::count_present(f, ctx.probes, 0..probes);
    let mut rec = Record {
        false_negatives,
        ..rec
    };
    fill_fpr_fields(&mut rec, f, fp, probes as u64);
    Ok(rec)
}

/// Growth: insert 0 → 4× the declared capacity, measuring the FP rate at every quarter.
pub fn growth(ctx: &Ctx<'_>, capacity: usize, p: f64) -> Result<Vec<Record>> {
    let end = 4 * capacity;
    ensure!(ctx.members.len() >= end, "growth needs {end} members");
    let step = (capacity / 4).max(1);
    let probes = ctx.scenario_probes.min(ctx.probes.len());
    let mut records = Vec::new();
    let pb = bar(crate::filters::measured().len() as u64, "growth");
    for kind in crate::filters::measured() {
        let mut f = crate::filters::build(kind, capacity as u64, p, Pages::Huge)?;
        let mut inserted = 0usize;
        let mut first_failure_load = None;
        let mut failures = 0u64;
        for checkpoint in (step..=end).step_by(step) {
            while inserted < checkpoint && first_failure_load.is_none() {
                match f.insert(ctx.members.get(inserted)) {
                    Ok(()) => inserted += 1,
                    Err(filterlab::Error::Full { load_factor, .. }) => {
                        // The table is full: stop inserting into it, and prove nothing was lost.
                        first_failure_load = Some(load_factor);
                        failures += 1;
                    }
                    Err(e) => bail!("{}: unexpected insert error {e}", kind.name()),
                }
            }
            let rec = Record {
                scenario: Scenario::Growth,
                target_fpr: p,
                step: Some(checkpoint as u64),
                insert_failures: Some(failures),
                first_failure_load,
                ..Record::default()
            };
            records.push(checked_record(ctx, &f, 0..inserted, probes, rec)?);
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(records)
}

/// Keys deleted and inserted per churn round: a tenth of the capacity, at least one.
fn churn_batch(capacity: usize) -> usize {
    (capacity / 10).max(1)
}

/// Members [`churn`] inserts: the capacity, then a fresh batch each round.
#[must_use]
pub fn churn_members_needed(capacity: usize, rounds: usize) -> usize {
    capacity + rounds * churn_batch(capacity)
}

/// Deletion churn: fill to capacity, then each round delete the oldest tenth and insert a fresh
/// tenth; FP rate and false negatives after every round.
pub fn churn(ctx: &Ctx<'_>, capacity: usize, p: f64, rounds: usize) -> Result<Vec<Record>> {
    let batch = churn_batch(capacity);
    let needed = churn_members_needed(capacity, rounds);
    ensure!(ctx.members.len() >= needed, "churn needs {needed} members");
    let probes = ctx.scenario_probes.min(ctx.probes.len());
    let mut records = Vec::new();
    let kinds = crate::filters::churned();
    let pb = bar(kinds.len() as u64, "churn");
    for kind in kinds {
        let mut f = crate::filters::build(kind, capacity as u64, p, Pages::Huge)?;
        let (mut lo, mut hi) = (0usize, 0usize);
        let mut failures = 0u64;
        for round in 0..=rounds {
            if round == 0 {
                let (_, refused) = measure::time_inserts(&mut f, ctx.members, 0..capacity);
                failures += refused;
                hi = capacity;
            } else {
                for i in lo..lo + batch {
                    remove(&mut f, ctx.members.get(i))?;
                }
                let (_, refused) = measure::time_inserts(&mut f, ctx.members, hi..hi + batch);
                failures += refused;
                lo += batch;
                hi += batch;
            }
            ensure!(
                failures == 0,
                "{} refused an insert during churn",
                kind.name()
            );
            let rec = Record {
                scenario: Scenario::Churn,
                target_fpr: p,
                step: Some(round as u64),
                insert_failures: Some(failures),
                ..Record::default()
            };
            records.push(checked_record(ctx, &f, lo..hi, probes, rec)?);
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    Ok(records)
}

fn remove(f: &mut AnyFilter, key: &[u8]) -> Result<()> {
    f.remove(key)
        .map_err(|e| anyhow::anyhow!("{}: removing an inserted key failed: {e}", f.name()))
}

/// Size sweep: lookup cost against filter size, from cache-resident to memory-resident.
pub fn size_sweep(ctx: &Ctx<'_>, sizes: &[usize], p: f64) -> Result<Vec<Record>> {
    let mut records = Vec::new();
    let sweep_mixes = Mix::SWEEP;
    for &n in sizes {
        ensure!(ctx.members.len() >= n, "sweep needs {n} members");
        eprintln!("   n = {n}");
        let mut filters = Vec::new();
        let mut recs = Vec::new();
        let probes = ctx.scenario_probes.min(ctx.probes.len());
        for kind in crate::filters::measured() {
            // Built once and not timed: this scenario measures lookups against size (build
            // cost is the matrix's, in interleaved rounds), which also keeps the 10^8-key sweep
            // to one build per filter.
            let mut f = crate::filters::build(kind, n as u64, p, Pages::Huge)?;
            measure::time_batch_inserts(&mut f, ctx.members, 0..n)?;
            let rec = Record {
                scenario: Scenario::SizeSweep,
                target_fpr: p,
                ..Record::default()
            };
            recs.push(checked_record(ctx, &f, 0..n, probes, rec)?);
            filters.push(f);
        }
        let mixes: Vec<KeySet> = sweep_mixes
            .iter()
            .map(|m| {
                measure::query_mix(
                    ctx.members,
                    n,
                    ctx.probes,
                    m.percent(),
                    ctx.queries,
                    ctx.seed,
                )
            })
            .collect();
        let (one, batched, _) = interleaved_lookups(
            Policy::fixed(ctx.rounds),
            filters.iter(),
            &mixes,
            "sweep lookups",
        );
        for ((rec, s), b) in recs.iter_mut().zip(&one).zip(&batched) {
            rec.ns_per_lookup = by_mix(&sweep_mixes, s);
            rec.ns_per_lookup_batched = by_mix(&sweep_mixes, b);
        }
        records.extend(recs);
    }
    Ok(records)
}

/// Parallel lookups: every core against one, on the same filter and queries (50% positive).
pub fn parallel(ctx: &Ctx<'_>, filters: &[&AnyFilter], base: &[Record]) -> Result<Vec<Record>> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build()?;
    let all = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let n = filters.first().map_or(0, |f| f.len() as usize);
    let queries = measure::query_mix(ctx.members, n, ctx.probes, 50, ctx.queries * 2, ctx.seed);
    let mut t1 = vec![Vec::new(); filters.len()];
    let mut tn = vec![Vec::new(); filters.len()];
    let pb = bar(ctx.rounds as u64, "parallel");
    for _ in 0..ctx.rounds {
        for (i, f) in filters.iter().enumerate() {
            t1[i].push(measure::time_parallel_lookups(*f, &queries, &one));
            tn[i].push(measure::time_parallel_lookups(*f, &queries, &all));
        }
        pb.inc(1);
    }
    pb.finish_and_clear();
    // Only what this scenario measured: identity, size, threads and times. The FP fields stay
    // empty (the matrix row of the same filter has them).
    let mut out = Vec::new();
    for (i, base) in base.iter().enumerate() {
        let single = Spread::of(&mut t1[i]);
        let multi = Spread::of(&mut tn[i]);
        for (th, ns) in [(1, single.clone()), (threads, multi)] {
            out.push(Record {
                scenario: Scenario::Parallel,
                variant: base.variant.clone(),
                n: base.n,
                capacity: base.capacity,
                target_fpr: base.target_fpr,
                params: base.params.clone(),
                shape: base.shape.clone(),
                bytes: base.bytes,
                bits_per_key: base.bits_per_key,
                threads: Some(th),
                parallel_speedup: Some(single.median / ns.median),
                ns_per_lookup: BTreeMap::from([(Mix::Half.key().to_string(), ns)]),
                ..Record::default()
            });
        }
    }
    Ok(out)
}

/// The second article's filter: `m` bits and `k` hashes given explicitly (9,585,059 and 7 for
/// its 1M users at 1%), filled to its design load `design` and on to 4x, with the FP rate
/// measured at every half of the design load past it: "rejects 99% of the uninvited", and how
/// that climbs when the real count exceeds the plan.
pub fn users(ctx: &Ctx<'_>, design: usize, m: u64, k: u32) -> Result<Vec<Record>> {
    let end = 4 * design;
    ensure!(
        ctx.members.len() >= end,
        "the users scenario needs {end} members"
    );
    let mut f = AnyFilter::Classic(
        filterlab::ClassicBloom::builder()
            .capacity(design as u64)
            .fpr(0.01)
            .bits(m)
            .hashes(k)
            .build()?,
    );
    let probes = ctx.scenario_probes.min(ctx.probes.len());
    let mut records = Vec::new();
    let mut inserted = 0;
    let checkpoints = [2, 3, 4, 5, 6, 8].map(|half| design * half / 2);
    for checkpoint in checkpoints {
        let (_, failures) = measure::time_inserts(&mut f, ctx.members, inserted..checkpoint);
        ensure!(failures == 0, "the article's filter refused an insert");
        inserted = checkpoint;
        let rec = Record {
            scenario: Scenario::Users,
            target_fpr: 0.01,
            step: Some(checkpoint as u64),
            ..Record::default()
        };
        records.push(checked_record(ctx, &f, 0..inserted, probes, rec)?);
    }
    Ok(records)
}
