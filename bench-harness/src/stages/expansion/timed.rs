//! The timed lookups: a contender grown to n against itself grown to the small size, in
//! interleaved rounds, and (for the expandable filter) the references that do not grow timed
//! in the same rounds on the same queries.

use super::grown::Grown;
use super::{Batched, Contender, Lookups, Outcome, Reference, ReferenceKind, Settings};
use crate::dataset::KeySet;
use crate::measure::{query_mix, Spread};
use crate::plan::Ctx;
use anyhow::{ensure, Result};
use filterlab::{AnyFilter, Filter, BATCH};
use std::hint::black_box;
use std::time::Instant;

/// ns per lookup of `queries` in `f`, and how many answered present.
#[inline(never)]
fn time(f: &Grown, queries: &KeySet) -> (f64, usize) {
    let start = Instant::now();
    let hits = queries.iter().filter(|q| f.contains(black_box(q))).count();
    let ns = start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64;
    (ns, black_box(hits))
}

/// ns per lookup of `queries` through `f.contains_batch`, [`BATCH`] keys a call (the key slices
/// gathered inside the timed loop, as a caller holding a `KeySet` would), and how many answered
/// present.
#[inline(never)]
fn time_batched(f: &AnyFilter, queries: &KeySet) -> (f64, usize) {
    let mut refs: Vec<&[u8]> = Vec::with_capacity(BATCH);
    let mut out = Vec::with_capacity(BATCH);
    let start = Instant::now();
    let mut hits = 0usize;
    for from in (0..queries.len()).step_by(BATCH) {
        refs.clear();
        refs.extend((from..(from + BATCH).min(queries.len())).map(|j| queries.get(j)));
        f.contains_batch(black_box(&refs), &mut out);
        hits += out.iter().filter(|&&b| b).count();
    }
    let ns = start.elapsed().as_nanos() as f64 / queries.len().max(1) as f64;
    (ns, black_box(hits))
}

/// The samples of one timed pair: `[one at a time, batched]` × `[non-member small, large,
/// member small, large]`.
type Samples = [[Vec<f64>; 4]; 2];

/// One round's passes over one filter (`at`: 0 small, 1 large): non-members and members, one at
/// a time and, for ours, batched; every member must be found.
fn passes(
    who: Contender,
    f: &Grown,
    (negatives, positives): (&KeySet, &KeySet),
    at: usize,
    samples: &mut Samples,
) -> Result<()> {
    let found = |hits: usize, how: &str| {
        ensure!(
            hits == positives.len(),
            "{} answered {hits} of {} members present ({how}): false negatives",
            who.name(),
            positives.len()
        );
        Ok(())
    };
    samples[0][at].push(time(f, negatives).0);
    let (ns, hits) = time(f, positives);
    found(hits, "one at a time")?;
    samples[0][2 + at].push(ns);
    if let Some(ours) = f.batchable() {
        samples[1][at].push(time_batched(ours, negatives).0);
        let (ns, hits) = time_batched(ours, positives);
        found(hits, "batched")?;
        samples[1][2 + at].push(ns);
    }
    Ok(())
}

/// The two filters of one timed pair, and whose they are.
struct Pair<'a> {
    who: Contender,
    small: &'a Grown,
    large: &'a Grown,
}

/// Every filter of every pair timed in the same interleaved rounds (the order of all of them
/// reversed from one round to the next), non-members and members, one at a time and (ours)
/// batched, on the same queries: the samples of each pair.
fn time_pairs(
    ctx: &Ctx<'_>,
    s: &Settings,
    small_n: u64,
    pairs: &[Pair<'_>],
) -> Result<Vec<Samples>> {
    let q = s.queries as usize;
    let negatives = query_mix(ctx.members, 1, ctx.probes, 0, q, ctx.seed);
    let pos_small = query_mix(ctx.members, small_n as usize, ctx.probes, 100, q, ctx.seed);
    let pos_large = query_mix(ctx.members, s.n as usize, ctx.probes, 100, q, ctx.seed);
    let mut samples: Vec<Samples> = pairs.iter().map(|_| Samples::default()).collect();
    let mut order: Vec<(usize, usize)> = (0..pairs.len()).flat_map(|i| [(i, 0), (i, 1)]).collect();
    for round in 0..s.rounds.max(1) {
        if round > 0 {
            order.reverse();
        }
        for &(i, at) in &order {
            let p = &pairs[i];
            let (f, positives) = match at {
                0 => (p.small, &pos_small),
                _ => (p.large, &pos_large),
            };
            passes(p.who, f, (&negatives, positives), at, &mut samples[i])?;
        }
    }
    Ok(samples)
}

/// The record of one pair's samples.
fn lookups(p: &Pair<'_>, (small_n, large_n): (u64, u64), samples: Samples) -> Lookups {
    let [[mut ns, mut nl, mut ps, mut pl], batched] = samples;
    let batched = match p.small.batchable() {
        Some(_) => {
            let [mut ns, mut nl, mut ps, mut pl] = batched;
            Outcome::Measured(Batched {
                negative_small: Spread::of(&mut ns),
                negative_large: Spread::of(&mut nl),
                positive_small: Spread::of(&mut ps),
                positive_large: Spread::of(&mut pl),
            })
        }
        None => Outcome::Unsupported {
            why: format!("{}: its crate has no batch lookup", p.who.name()),
        },
    };
    Lookups {
        contender: p.who,
        small_n,
        large_n,
        small_bytes: p.small.bytes(),
        large_bytes: p.large.bytes(),
        negative_small: Spread::of(&mut ns),
        negative_large: Spread::of(&mut nl),
        positive_small: Spread::of(&mut ps),
        positive_large: Spread::of(&mut pl),
        batched,
    }
}

/// `who` declared for `keys` keys and filled with members `0..keys`; why not when it refuses.
fn declared(
    ctx: &Ctx<'_>,
    s: &Settings,
    who: Contender,
    keys: u64,
) -> Result<Result<Grown, String>> {
    let mut f = Grown::new(who, keys, s.target_fpr, keys)?;
    Ok(match super::run::fill(ctx, &mut f, 0, keys)? {
        Some(at) => Err(format!(
            "declared for {keys} keys, refused an insert holding {at}"
        )),
        None => Ok(f),
    })
}

/// `who` grown from the declared capacity to `keys` keys; why not when it refuses.
fn grown(ctx: &Ctx<'_>, s: &Settings, who: Contender, keys: u64) -> Result<Result<Grown, String>> {
    let mut f = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    Ok(match super::run::fill(ctx, &mut f, 0, keys)? {
        Some(at) => Err(format!(
            "grown from {}, refused an insert holding {at}",
            s.declared
        )),
        None => Ok(f),
    })
}

/// The reference filters at both sizes, or why not.
type Built = Vec<(ReferenceKind, Result<(Grown, Grown), String>)>;

/// Every reference built at `small_n` and at n, each declared for the keys it holds or (a
/// peer) grown to them from the declared capacity.
fn references(ctx: &Ctx<'_>, s: &Settings, who: Contender, small_n: u64) -> Result<Built> {
    let mut out = Vec::new();
    for &kind in ReferenceKind::of(who) {
        let who = kind.contender();
        let make = |keys| match kind.grows() {
            true => grown(ctx, s, who, keys),
            false => declared(ctx, s, who, keys),
        };
        let pair = match (make(small_n)?, make(s.n)?) {
            (Ok(a), Ok(b)) => Ok((a, b)),
            (Err(why), _) | (_, Err(why)) => Err(why),
        };
        out.push((kind, pair));
    }
    Ok(out)
}

/// The large filter `big` against one of the same contender grown to `s.small_n`, timed in
/// interleaved rounds (their order alternating), non-members and members, one at a time and
/// (ours) batched; for the expandable filter, the references that do not grow (each declared
/// for the keys it holds) timed in the same rounds on the same queries.
pub fn time_pair(
    ctx: &Ctx<'_>,
    s: &Settings,
    who: Contender,
    big: &Grown,
) -> Result<(Outcome<Lookups>, Vec<Reference>)> {
    let small_n = s.small_n.min(s.n);
    let mut small = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    if let Some(at) = super::run::fill(ctx, &mut small, 0, small_n)? {
        let why = format!("refused an insert holding {at} keys");
        return Ok((Outcome::Unsupported { why }, Vec::new()));
    }
    let built = references(ctx, s, who, small_n)?;
    let mut pairs = vec![Pair {
        who,
        small: &small,
        large: big,
    }];
    pairs.extend(built.iter().filter_map(|(kind, b)| {
        let (small, large) = b.as_ref().ok()?;
        Some(Pair {
            who: kind.contender(),
            small,
            large,
        })
    }));
    let mut samples = time_pairs(ctx, s, small_n, &pairs)?.into_iter();
    let sizes = (small_n, s.n);
    let own = samples.next().map(|x| lookups(&pairs[0], sizes, x));
    let mut timed = pairs[1..].iter().zip(samples);
    let refs = built
        .iter()
        .map(|(kind, b)| Reference {
            kind: *kind,
            lookups: match b {
                Ok(_) => match timed.next() {
                    Some((p, x)) => Outcome::Measured(lookups(p, sizes, x)),
                    None => Outcome::Unsupported {
                        why: "not timed".into(),
                    },
                },
                Err(why) => Outcome::Unsupported { why: why.clone() },
            },
        })
        .collect();
    let own = own.map_or_else(
        || Outcome::Unsupported {
            why: "not timed".into(),
        },
        Outcome::Measured,
    );
    Ok((own, refs))
}
