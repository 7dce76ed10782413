//! One filter shared by many threads: insert and lookup throughput of the lock-free classic and
//! split-block filters on 1 thread, 2 threads and every thread, against fastbloom's `AtomicBloomFilter`
//! hashed with foldhash (its fastest configuration) on the same threads, same keys, interleaved
//! rounds.

use crate::filters::BESIDE_PEERS;
use crate::measure::Spread;
use crate::plan::{Run, Stage};
use crate::record::Machine;
use crate::record::{Bound, Verdict};
use anyhow::{ensure, Result};
use filterlab::{AtomicBlockedBloom, AtomicClassicBloom, BlockedBloom, ClassicBloom};
use filterlab_peers::{fastbloom_atomic_parallel_build, AtomicPeer};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Target rate of every filter here.
const FPR: f64 = 0.01;

/// Who is timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// Inserting the n members.
    Insert,
    /// Looking up a 50/50 mix of members and non-members (each query repeated so that the pass
    /// makes as many lookups as the insert pass made inserts).
    Lookup,
}

/// One figure: nanoseconds per operation (wall time of the whole threaded pass / operations).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Size {
    /// Who.
    pub contender: Contender,
    /// Bytes of the bit table.
    pub bytes: usize,
    /// False positives over non-member lookups.
    pub fpr: f64,
    /// The filter's own formula for its rate at its load (`None` for the peer, which has none).
    pub theory: Option<f64>,
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

    fn expected_fpr(&self) -> Option<f64> {
        match self {
            Built::Classic(f) => Some(filterlab::Filter::expected_fpr(f)),
            Built::Blocked(f) => Some(filterlab::Filter::expected_fpr(f)),
            Built::Fastbloom(_) => None,
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

/// Lookups that returned true, split by whether the key was a member.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Tally {
    /// True answers for members (anything short of every member is a false negative).
    members: u64,
    /// True answers for non-members: false positives.
    others: u64,
}

impl Tally {
    fn of(member: bool, found: bool) -> Tally {
        Tally {
            members: u64::from(member && found),
            others: u64::from(!member && found),
        }
    }

    fn add(self, o: Tally) -> Tally {
        Tally {
            members: self.members + o.members,
            others: self.others + o.others,
        }
    }
}

/// One lookup of the mixed pass: the key and whether it was inserted.
#[derive(Clone, Copy, Debug)]
pub struct Query<'a> {
    /// The key.
    pub key: &'a [u8],
    /// Whether it is one of the members.
    pub member: bool,
}

/// The positions of the `total`-long walk (`passes` times over the items) that thread `i` of
/// `threads` takes: one contiguous share, so that with `passes >= threads` every thread walks the
/// whole list, as one thread does.
///
/// Two earlier splits measured the cache, not the threads: contiguous shards of the *items*
/// repeated `passes` times gave each of two threads half the working set, and a stride of
/// `threads` over a list that alternates members and non-members gave one thread every member
/// and the other every non-member (half the keys each, and unlike work): speed-ups above the
/// thread count for every contender.
fn share(total: usize, threads: usize, i: usize) -> std::ops::Range<usize> {
    let threads = threads.max(1);
    (total * i / threads)..(total * (i + 1) / threads)
}

/// Runs `op` on every item, `passes` times over, from `threads` threads; returns the seconds from
/// before the first spawn to after the last join, and the summed tallies. Thread `i` takes
/// [`share`]`(items.len() * passes, threads, i)` of the walk.
fn threaded<T: Sync>(
    items: &[T],
    passes: usize,
    threads: usize,
    op: impl Fn(&T) -> Tally + Sync,
) -> (f64, Tally) {
    let threads = threads.max(1);
    let total = items.len() * passes;
    let members = AtomicU64::new(0);
    let others = AtomicU64::new(0);
    crate::measure::settle_heap();
    let start = Instant::now();
    std::thread::scope(|s| {
        for i in 0..threads.min(total) {
            let (op, members, others) = (&op, &members, &others);
            s.spawn(move || {
                let t = share(total, threads, i)
                    .fold(Tally::default(), |t, p| t.add(op(&items[p % items.len()])));
                members.fetch_add(t.members, Ordering::Relaxed);
                others.fetch_add(t.others, Ordering::Relaxed);
            });
        }
    });
    let t = Tally {
        members: members.into_inner(),
        others: others.into_inner(),
    };
    (start.elapsed().as_secs_f64(), t)
}

/// Inserts every key on `threads` threads through `insert` (one shared filter's); the seconds.
fn shared_inserts(keys: &[&[u8]], threads: usize, insert: impl Fn(&[u8]) + Sync) -> f64 {
    let (secs, _) = threaded(keys, 1, threads, |k| {
        insert(k);
        Tally::default()
    });
    secs
}

/// Builds `who` from `keys` on `threads` threads; returns it and the insert seconds (the zeroed
/// table's allocation is not timed, for any contender).
fn build(who: Contender, keys: &[&[u8]], threads: usize) -> Result<(Built, f64)> {
    let n = keys.len() as u64;
    // Ours: the atomic filter built as beside the peers, every key inserted into the one shared
    // filter from `threads` threads.
    macro_rules! ours {
        ($filter:ident, $built:ident) => {{
            let f = $filter::builder()
                .capacity(n)
                .fpr(FPR)
                .pages(BESIDE_PEERS)
                .build_atomic()?;
            let secs = shared_inserts(keys, threads, |k| f.insert(k));
            (Built::$built(f), secs)
        }};
    }
    Ok(match who {
        Contender::Classic => ours!(ClassicBloom, Classic),
        Contender::Blocked => ours!(BlockedBloom, Blocked),
        Contender::Fastbloom => {
            let (f, secs) = fastbloom_atomic_parallel_build(keys, keys.len(), FPR, threads)?;
            (Built::Fastbloom(f), secs)
        }
    })
}

/// Checks a lookup pass's tally: every member lookup (`positives * reps` of them) must have
/// answered true; returns the false-positive rate over the `negatives * reps` non-member lookups.
///
/// # Errors
/// A false negative, or a tally counting more than were asked.
fn rate(
    who: Contender,
    threads: usize,
    t: Tally,
    counts: (usize, usize),
    reps: usize,
) -> Result<f64> {
    let (positives, negatives) = counts;
    let (asked, nonmembers) = ((positives * reps) as u64, (negatives * reps) as u64);
    ensure!(
        t.members == asked,
        "{} on {threads} threads found {} of {asked} member lookups: false negatives",
        who.name(),
        t.members
    );
    ensure!(
        t.others <= nonmembers,
        "{} on {threads} threads counted {} hits over {nonmembers} non-member lookups",
        who.name(),
        t.others
    );
    Ok(t.others as f64 / nonmembers.max(1) as f64)
}

/// Times every contender on 1, 2 and all threads over `rounds` interleaved rounds; `queries` is
/// the lookup pass's mix of members and non-members.
///
/// # Errors
/// A build error, or a false negative (a member looked up and not found).
pub fn measure(
    members: &[&[u8]],
    queries: &[Query<'_>],
    rounds: usize,
) -> Result<(Vec<Row>, Vec<Size>)> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    // 2 threads as well as every thread: the targets name 1 and 2 (a server's request threads
    // on a small machine), whatever the core count of the machine the run is on.
    let mut threads = vec![1, 2.min(all), all];
    threads.dedup();
    let mut samples: Vec<(Contender, usize, Op, Vec<f64>)> = Vec::new();
    let mut push = |c, t, op, ns| match samples
        .iter_mut()
        .find(|(c2, t2, op2, _)| (*c2, *t2, *op2) == (c, t, op))
    {
        Some((.., v)) => v.push(ns),
        None => samples.push((c, t, op, vec![ns])),
    };
    let positives = queries.iter().filter(|q| q.member).count();
    let counts = (positives, queries.len() - positives);
    let mut sizes: Vec<Size> = Vec::new();
    for round in 0..rounds.max(1) {
        // 1 thread first in even rounds, every thread first in odd ones: neither order is
        // favoured by what ran just before (warm caches, a settled heap, the CPU's clock).
        let order: Vec<usize> = if round % 2 == 0 {
            threads.clone()
        } else {
            threads.iter().rev().copied().collect()
        };
        for &t in &order {
            for who in Contender::ALL {
                let (f, secs) = build(who, members, t)?;
                push(who, t, Op::Insert, secs * 1e9 / members.len().max(1) as f64);
                // As many lookups as inserts, so that both passes last long enough to time.
                let reps = members.len().div_ceil(queries.len().max(1)).max(1);
                let (secs, tally) =
                    threaded(queries, reps, t, |q| Tally::of(q.member, f.contains(q.key)));
                push(
                    who,
                    t,
                    Op::Lookup,
                    secs * 1e9 / (queries.len() * reps).max(1) as f64,
                );
                let fpr = rate(who, t, tally, counts, reps)?;
                if !sizes.iter().any(|s| s.contender == who) {
                    sizes.push(Size {
                        contender: who,
                        bytes: f.size_in_bytes(),
                        fpr,
                        theory: f.expected_fpr(),
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

/// One of the targets, computed from the rows.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Target {
    /// What is claimed.
    pub claim: String,
    /// The measured ratio (of medians), if there is one.
    pub measured: Option<f64>,
    /// Its 95% bootstrap interval over the paired rounds.
    pub interval: Option<(f64, f64)>,
    /// The bound it is held to.
    pub bound: Bound,
    /// The interval against the bound.
    pub verdict: Verdict,
}

/// The settings of a threads run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Keys inserted.
    pub n: usize,
    /// Target rate of every filter.
    pub fpr: f64,
    /// Interleaved rounds (the 1-thread and N-thread order alternating).
    pub rounds: usize,
    /// Queries of the lookup mix (half members).
    pub queries: usize,
}

/// Everything the threads stage measured, as written to `threads.json`; `threads.md` is
/// rendered from it alone (`render::threads`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ThreadsReport {
    /// Where and how (the commit included).
    pub machine: Machine,
    /// Sizes and rounds.
    pub settings: Settings,
    /// Every timing.
    pub rows: Vec<Row>,
    /// Every contender's bytes and FP rate.
    pub sizes: Vec<Size>,
    /// The targets, as the run judged them (`check` recomputes them from the rows).
    pub targets: Vec<Target>,
}

/// The stage: runs [`measure`] on the run's members; the report is judged by
/// `judge::threads` and written by `render::threads` (`<out>/threads.md`).
pub struct Threads;

impl Stage for Threads {
    fn name(&self) -> &'static str {
        "threads"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let (ctx, n) = (&run.ctx, run.n);
        let members: Vec<&[u8]> = (0..n).map(|i| ctx.members.get(i)).collect();
        let most = n.min(ctx.probes.len());
        ensure!(
            most > 0,
            "the threads stage needs members and probes ({n} members, {} probes)",
            ctx.probes.len()
        );
        let q = (run.plan.queries / 2).clamp(1, most);
        let queries: Vec<Query<'_>> = (0..q)
            .flat_map(|i| {
                [
                    Query {
                        key: ctx.members.get(i),
                        member: true,
                    },
                    Query {
                        key: ctx.probes.get(i),
                        member: false,
                    },
                ]
            })
            .collect();
        let rounds = run.plan.build_rounds;
        let (rows, sizes) = measure(&members, &queries, rounds)?;
        run.outputs.push(Box::new(ThreadsReport {
            machine: run.results.machine.clone(),
            settings: Settings {
                n,
                fpr: FPR,
                rounds,
                queries: queries.len(),
            },
            targets: Vec::new(),
            rows,
            sizes,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests;
