//! One filter shared by many threads: insert and lookup throughput of the lock-free classic and
//! split-block filters on 1 thread and on every thread, against fastbloom's `AtomicBloomFilter`
//! hashed with foldhash (its fastest configuration) on the same threads, same keys, interleaved
//! rounds. Writes `<out>/threads.md`.

use crate::measure::Spread;
use crate::plan::{Plan, Run, Stage};
use crate::table::{Align, Table};
use anyhow::{ensure, Result};
use filterlab::{AtomicBlockedBloom, AtomicClassicBloom, BlockedBloom, ClassicBloom};
use filterlab_peers::{fastbloom_atomic_parallel_build, AtomicPeer};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Target rate of every filter here.
const FPR: f64 = 0.01;

/// Who is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// `filterlab::AtomicClassicBloom`.
    Classic,
    /// `filterlab::AtomicBlockedBloom`.
    Blocked,
    /// fastbloom's `AtomicBloomFilter` with foldhash.
    Fastbloom,
}

impl Contender {
    /// Every contender, in table order.
    pub const ALL: [Contender; 3] = [Contender::Classic, Contender::Blocked, Contender::Fastbloom];

    /// Its name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Classic => "classic (atomic)",
            Contender::Blocked => "blocked (atomic)",
            Contender::Fastbloom => "fastbloom AtomicBloomFilter+foldhash",
        }
    }
}

/// What is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Inserting the n members.
    Insert,
    /// Looking up a 50/50 mix of members and non-members (each query repeated so that the pass
    /// makes as many lookups as the insert pass made inserts).
    Lookup,
}

/// One figure: nanoseconds per operation (wall time of the whole threaded pass / operations).
#[derive(Clone, Debug)]
pub struct Row {
    /// Who.
    pub contender: Contender,
    /// Threads sharing the filter.
    pub threads: usize,
    /// What.
    pub op: Op,
    /// ns/op over the rounds.
    pub ns: Spread,
}

/// What a contender holds the keys in: its table's bytes and the false-positive rate measured on
/// the lookup pass's non-members (so that the times compare filters of like size and rate).
#[derive(Clone, Debug)]
pub struct Size {
    /// Who.
    pub contender: Contender,
    /// Bytes of the bit table.
    pub bytes: usize,
    /// False positives over non-member lookups.
    pub fpr: f64,
}

/// A filled filter of one contender.
enum Built {
    Classic(AtomicClassicBloom),
    Blocked(AtomicBlockedBloom),
    Fastbloom(AtomicPeer),
}

impl Built {
    fn size_in_bytes(&self) -> usize {
        match self {
            Built::Classic(f) => filterlab::Filter::size_in_bytes(f),
            Built::Blocked(f) => filterlab::Filter::size_in_bytes(f),
            Built::Fastbloom(f) => f.size_in_bytes(),
        }
    }

    fn contains(&self, key: &[u8]) -> bool {
        match self {
            Built::Classic(f) => f.contains(key),
            Built::Blocked(f) => f.contains(key),
            Built::Fastbloom(f) => f.contains(key),
        }
    }
}

/// Runs `op` on every key, `passes` times over, from `threads` threads (contiguous shards);
/// returns the seconds from before the first spawn to after the last join, and how many calls
/// returned true.
fn threaded(
    keys: &[&[u8]],
    passes: usize,
    threads: usize,
    op: impl Fn(&[u8]) -> bool + Sync,
) -> (f64, u64) {
    let shard = keys.len().div_ceil(threads.max(1)).max(1);
    let hits = AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|s| {
        for chunk in keys.chunks(shard) {
            let (op, hits) = (&op, &hits);
            s.spawn(move || {
                let h = (0..passes)
                    .map(|_| chunk.iter().filter(|k| op(k)).count() as u64)
                    .sum::<u64>();
                hits.fetch_add(h, Ordering::Relaxed);
            });
        }
    });
    (start.elapsed().as_secs_f64(), hits.into_inner())
}

/// Builds `who` from `keys` on `threads` threads; returns it and the insert seconds (the zeroed
/// table's allocation is not timed, for any contender).
fn build(who: Contender, keys: &[&[u8]], threads: usize) -> Result<(Built, f64)> {
    let n = keys.len() as u64;
    Ok(match who {
        Contender::Classic => {
            let f = ClassicBloom::builder()
                .capacity(n)
                .fpr(FPR)
                .build_atomic()?;
            let (secs, _) = threaded(keys, 1, threads, |k| {
                f.insert(k);
                true
            });
            (Built::Classic(f), secs)
        }
        Contender::Blocked => {
            let f = BlockedBloom::builder()
                .capacity(n)
                .fpr(FPR)
                .build_atomic()?;
            let (secs, _) = threaded(keys, 1, threads, |k| {
                f.insert(k);
                true
            });
            (Built::Blocked(f), secs)
        }
        Contender::Fastbloom => {
            let (f, secs) = fastbloom_atomic_parallel_build(keys, keys.len(), FPR, threads)?;
            (Built::Fastbloom(f), secs)
        }
    })
}

/// Times every contender on 1 and on all threads over `rounds` interleaved rounds.
///
/// # Errors
/// A build error, or a false negative (a member looked up and not found).
pub fn measure(
    members: &[&[u8]],
    queries: &[&[u8]],
    rounds: usize,
) -> Result<(Vec<Row>, Vec<Size>)> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut threads = vec![1, all];
    threads.dedup();
    let mut samples: Vec<(Contender, usize, Op, Vec<f64>)> = Vec::new();
    let mut push = |c, t, op, ns| match samples
        .iter_mut()
        .find(|(c2, t2, op2, _)| (*c2, *t2, *op2) == (c, t, op))
    {
        Some((.., v)) => v.push(ns),
        None => samples.push((c, t, op, vec![ns])),
    };
    let positives = queries.len() / 2;
    let mut sizes: Vec<Size> = Vec::new();
    for _ in 0..rounds.max(1) {
        for &t in &threads {
            for who in Contender::ALL {
                let (f, secs) = build(who, members, t)?;
                push(who, t, Op::Insert, secs * 1e9 / members.len() as f64);
                // As many lookups as inserts, so that both passes last long enough to time.
                let reps = members.len().div_ceil(queries.len().max(1)).max(1);
                let (secs, hits) = threaded(queries, reps, t, |k| f.contains(k));
                push(
                    who,
                    t,
                    Op::Lookup,
                    secs * 1e9 / (queries.len() * reps) as f64,
                );
                ensure!(
                    hits >= (positives * reps) as u64,
                    "{} on {t} threads found {hits} of {positives} members: false negatives",
                    who.name()
                );
                if !sizes.iter().any(|s| s.contender == who) {
                    let negatives = (queries.len() - positives) * reps;
                    sizes.push(Size {
                        contender: who,
                        bytes: f.size_in_bytes(),
                        fpr: (hits - (positives * reps) as u64) as f64 / negatives.max(1) as f64,
                    });
                }
            }
        }
    }
    let rows = samples
        .into_iter()
        .map(|(contender, threads, op, mut v)| Row {
            contender,
            threads,
            op,
            ns: Spread::of(&mut v),
        })
        .collect();
    Ok((rows, sizes))
}

fn find(rows: &[Row], c: Contender, t: usize, op: Op) -> Option<f64> {
    rows.iter()
        .find(|r| (r.contender, r.threads, r.op) == (c, t, op))
        .map(|r| r.ns.median)
}

/// The targets, computed from the rows: (claim, measured ratio, bound, met).
pub fn targets(rows: &[Row]) -> Vec<(String, f64, f64, bool)> {
    let all = rows.iter().map(|r| r.threads).max().unwrap_or(1);
    let mut out = Vec::new();
    for c in [Contender::Classic, Contender::Blocked] {
        for (op, bound) in [(Op::Insert, 1.6), (Op::Lookup, 1.8)] {
            if let (Some(one), Some(many)) = (find(rows, c, 1, op), find(rows, c, all, op)) {
                let speedup = one / many;
                out.push((
                    format!("{} {op:?}: {all}-thread speed-up >= {bound}x", c.name()),
                    speedup,
                    bound,
                    speedup >= bound,
                ));
            }
            for t in [1, all] {
                if let (Some(ours), Some(peer)) = (
                    find(rows, c, t, op),
                    find(rows, Contender::Fastbloom, t, op),
                ) {
                    let ratio = ours / peer;
                    out.push((
                        format!(
                            "{} {op:?} on {t} threads: time <= 0.8x fastbloom's",
                            c.name()
                        ),
                        ratio,
                        0.8,
                        ratio <= 0.8,
                    ));
                }
            }
        }
    }
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

/// The Markdown page.
pub fn render(rows: &[Row], sizes: &[Size], n: usize) -> String {
    let mut z = Table::new(&[
        ("filter", Align::Left),
        ("bytes", Align::Right),
        ("bits/key", Align::Right),
        ("FP rate", Align::Right),
    ]);
    for s in sizes {
        z.row([
            s.contender.name().to_string(),
            s.bytes.to_string(),
            format!("{:.2}", s.bytes as f64 * 8.0 / n.max(1) as f64),
            format!("{:.3}%", s.fpr * 100.0),
        ]);
    }
    let mut t = Table::new(&[
        ("filter", Align::Left),
        ("threads", Align::Right),
        ("op", Align::Left),
        ("ns/op median", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("rounds", Align::Right),
    ]);
    for r in rows {
        t.row([
            r.contender.name().to_string(),
            r.threads.to_string(),
            format!("{:?}", r.op),
            format!("{:.2}", r.ns.median),
            format!("{:.2}", r.ns.min),
            format!("{:.2}", r.ns.max),
            r.ns.rounds.to_string(),
        ]);
    }
    let mut v = Table::new(&[
        ("target", Align::Left),
        ("measured", Align::Right),
        ("bound", Align::Right),
        ("verdict", Align::Center),
    ]);
    for (claim, got, bound, met) in targets(rows) {
        let verdict = if met { "met" } else { "not met" };
        v.row([
            claim,
            format!("{got:.2}"),
            format!("{bound}"),
            verdict.into(),
        ]);
    }
    format!(
        "# One filter, many threads\n\n{n} keys at {FPR}; inserts of every key split over the \
         threads, lookups of a 50/50 member/non-member mix; wall time of the whole threaded pass \
         per operation (thread start-up included), interleaved rounds.\n\n{}\n{}\n## Targets\n\n{}",
        z.render(),
        t.render(),
        v.render()
    )
}

/// The stage: runs [`measure`] on the run's members and writes `<out>/threads.md`.
pub struct Threads;

impl Stage for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn wanted(&self, plan: &Plan) -> bool {
        !plan.sweep_only
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let (ctx, n) = (&run.ctx, run.n);
        let members: Vec<&[u8]> = (0..n).map(|i| ctx.members.get(i)).collect();
        let q = (run.plan.queries / 2).clamp(1, n.min(ctx.probes.len()));
        let queries: Vec<&[u8]> = (0..q)
            .flat_map(|i| [ctx.members.get(i), ctx.probes.get(i)])
            .collect();
        let (rows, sizes) = measure(&members, &queries, run.plan.build_rounds)?;
        let page = render(&rows, &sizes, n);
        std::fs::create_dir_all(&run.plan.out)?;
        std::fs::write(run.plan.out.join("threads.md"), &page)?;
        eprintln!("{page}");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(c: Contender, threads: usize, op: Op, ns: f64) -> Row {
        let mut v = [ns];
        Row {
            contender: c,
            threads,
            op,
            ns: Spread::of(&mut v),
        }
    }

    #[test]
    fn targets_are_computed_from_the_rows() {
        let rows = vec![
            row(Contender::Classic, 1, Op::Insert, 100.0),
            row(Contender::Classic, 2, Op::Insert, 50.0),
            row(Contender::Fastbloom, 1, Op::Insert, 100.0),
            row(Contender::Fastbloom, 2, Op::Insert, 80.0),
        ];
        let t = targets(&rows);
        let speedup = t.iter().find(|x| x.0.contains("speed-up")).unwrap();
        assert_eq!((speedup.1, speedup.3), (2.0, true));
        let one = t.iter().find(|x| x.0.contains("on 1 threads")).unwrap();
        assert_eq!((one.1, one.3), (1.0, false), "1.0x fastbloom is above 0.8x");
        let two = t.iter().find(|x| x.0.contains("on 2 threads")).unwrap();
        assert_eq!((two.1, two.3), (0.625, true));
        let sizes = [Size {
            contender: Contender::Classic,
            bytes: 12,
            fpr: 0.01,
        }];
        let page = render(&rows, &sizes, 10);
        assert!(page.contains("not met") && page.contains("| 9.60 | 1.000% |"));
    }

    #[test]
    fn a_small_run_finds_every_member() {
        let owned: Vec<Vec<u8>> = (0..2000)
            .map(|i| format!("m{i}@x.org").into_bytes())
            .collect();
        let other: Vec<Vec<u8>> = (0..2000)
            .map(|i| format!("o{i}@x.org").into_bytes())
            .collect();
        let members: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let queries: Vec<&[u8]> = (0..1000)
            .flat_map(|i| [owned[i].as_slice(), other[i].as_slice()])
            .collect();
        let (rows, sizes) = measure(&members, &queries, 1).unwrap();
        assert!(rows.len() >= 6);
        assert_eq!(sizes.len(), 3);
        assert!(
            sizes.iter().all(|s| s.fpr < 0.05 && s.bytes > 2000),
            "{sizes:?}"
        );
        assert!(rows.iter().all(|r| r.ns.median > 0.0));
    }
}
