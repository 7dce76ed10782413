//! The measurements: growth with checkpoints, lookups at two sizes, deletes, merges.

use super::grown::{deletes, merges, Grown};
use super::{Batched, Checkpoint, Contender, Deletes, Lookups, Merge, Outcome, Settings, Summary};
use crate::dataset::KeySet;
use crate::measure::{query_mix, Spread};
use crate::plan::Ctx;
use anyhow::{ensure, Result};
use filterlab::{AnyFilter, Filter, BATCH};
use std::hint::black_box;
use std::ops::Range;
use std::time::Instant;

/// Every contender grown through `s.checkpoints`, then timed, deleted from and merged.
///
/// # Errors
/// A constructor's error, a growing filter that cannot grow, a member not found by a timed
/// pass, or too few keys for the settings.
pub fn measure(ctx: &Ctx<'_>, s: &Settings) -> Result<(Vec<Checkpoint>, Vec<Summary>)> {
    let windows = s.checkpoints.len() as u64 + 1;
    ensure!(
        ctx.probes.len() as u64 >= windows * s.probes && ctx.members.len() as u64 >= s.n,
        "the growth stage needs {} members and {} probes",
        s.n,
        windows * s.probes
    );
    let mut rows = Vec::new();
    let mut summaries = Vec::new();
    for who in Contender::all() {
        eprintln!("   {}", who.name());
        let (mut f, grown, first_refusal) = grow(ctx, s, who)?;
        let held = grown.last().map_or(0, |c| c.n);
        rows.extend(grown);
        let lookups = match first_refusal {
            Some(at) => Outcome::Unsupported {
                why: format!(
                    "refused an insert holding {at} keys: never reached {} keys",
                    s.small_n.min(s.n)
                ),
            },
            None => time_pair(ctx, s, who, &f)?,
        };
        let deletes = match deletes(who) {
            Ok(()) => Outcome::Measured(delete_tenth(ctx, &mut f, held)),
            Err(why) => Outcome::Unsupported { why },
        };
        drop(f);
        let merge = match merges(who) {
            Ok(()) => merge(ctx, s, who)?,
            Err(why) => Outcome::Unsupported { why },
        };
        summaries.push(Summary {
            contender: who,
            first_refusal,
            lookups,
            deletes,
            merge,
        });
    }
    Ok((rows, summaries))
}

/// Fresh non-members `window` of `len` answered present.
fn false_positives(ctx: &Ctx<'_>, f: &Grown, window: u64, len: u64) -> u64 {
    let start = (window * len) as usize;
    (start..start + len as usize)
        .filter(|&i| f.contains(ctx.probes.get(i)))
        .count() as u64
}

/// Members `range` answered absent.
fn false_negatives(ctx: &Ctx<'_>, f: &Grown, range: Range<u64>) -> u64 {
    range
        .filter(|&i| !f.contains(ctx.members.get(i as usize)))
        .count() as u64
}

/// Inserts members `from..to` into `f` in order; `Ok(Some(held))` at the first refusal.
fn fill(ctx: &Ctx<'_>, f: &mut Grown, from: u64, to: u64) -> Result<Option<u64>> {
    for i in from..to {
        if !f.insert(ctx.members.get(i as usize))? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

/// `who` grown from the declared capacity through every checkpoint (or to its first refusal):
/// the filter, a row per checkpoint reached, and the keys held at the first refusal.
fn grow(
    ctx: &Ctx<'_>,
    s: &Settings,
    who: Contender,
) -> Result<(Grown, Vec<Checkpoint>, Option<u64>)> {
    let mut f = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    let (mut held, mut rows, mut refusal) = (0u64, Vec::new(), None);
    for (window, &cp) in s.checkpoints.iter().enumerate() {
        refusal = fill(ctx, &mut f, held, cp)?;
        held = refusal.unwrap_or(cp);
        rows.push(Checkpoint {
            contender: who,
            n: held,
            false_positives: false_positives(ctx, &f, window as u64, s.probes),
            probes: s.probes,
            bytes: f.bytes(),
            refused: u64::from(refusal.is_some()),
            false_negatives: false_negatives(ctx, &f, 0..held),
        });
        if refusal.is_some() {
            break;
        }
    }
    Ok((f, rows, refusal))
}

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

/// The large filter `big` against one of the same contender grown to `s.small_n`, timed in
/// interleaved rounds (their order alternating), non-members and members, one at a time and
/// (ours) batched.
fn time_pair(ctx: &Ctx<'_>, s: &Settings, who: Contender, big: &Grown) -> Result<Outcome<Lookups>> {
    let small_n = s.small_n.min(s.n);
    let mut small = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    if let Some(at) = fill(ctx, &mut small, 0, small_n)? {
        return Ok(Outcome::Unsupported {
            why: format!("refused an insert holding {at} keys"),
        });
    }
    let q = s.queries as usize;
    let negatives = query_mix(ctx.members, 1, ctx.probes, 0, q, ctx.seed);
    let pos_small = query_mix(ctx.members, small_n as usize, ctx.probes, 100, q, ctx.seed);
    let pos_large = query_mix(ctx.members, s.n as usize, ctx.probes, 100, q, ctx.seed);
    let mut samples: Samples = Default::default();
    for round in 0..s.rounds.max(1) {
        let mut order = [(&small, &pos_small, 0), (big, &pos_large, 1)];
        if round % 2 == 1 {
            order.reverse();
        }
        for (f, positives, at) in order {
            passes(who, f, (&negatives, positives), at, &mut samples)?;
        }
    }
    let [[mut ns, mut nl, mut ps, mut pl], batched] = samples;
    let batched = match small.batchable() {
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
            why: format!("{}: its crate has no batch lookup", who.name()),
        },
    };
    Ok(Outcome::Measured(Lookups {
        contender: who,
        small_n,
        large_n: s.n,
        small_bytes: small.bytes(),
        large_bytes: big.bytes(),
        negative_small: Spread::of(&mut ns),
        negative_large: Spread::of(&mut nl),
        positive_small: Spread::of(&mut ps),
        positive_large: Spread::of(&mut pl),
        batched,
    }))
}

/// Removes every tenth of the `held` keys of `f`, then looks up every key.
fn delete_tenth(ctx: &Ctx<'_>, f: &mut Grown, held: u64) -> Deletes {
    let mut d = Deletes {
        held,
        asked: 0,
        refused: 0,
        false_negatives: 0,
        remaining: 0,
        deleted_still_present: 0,
    };
    for i in (0..held).step_by(10) {
        d.asked += 1;
        if f.remove(ctx.members.get(i as usize)) != Some(true) {
            d.refused += 1;
        }
    }
    for i in 0..held {
        let found = f.contains(ctx.members.get(i as usize));
        if i % 10 == 0 {
            d.deleted_still_present += u64::from(found);
        } else {
            d.remaining += 1;
            d.false_negatives += u64::from(!found);
        }
    }
    d
}

/// Two filters grown from the declared capacity on the halves of the first `s.merge_keys`
/// members, the second merged into the first, which is then looked up for every key and
/// probed with the last window of fresh non-members.
fn merge(ctx: &Ctx<'_>, s: &Settings, who: Contender) -> Result<Outcome<Merge>> {
    let half = s.merge_keys / 2;
    let mut a = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    let mut b = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    for (f, from, to) in [(&mut a, 0, half), (&mut b, half, s.merge_keys)] {
        if let Some(at) = fill(ctx, f, from, to)? {
            return Ok(Outcome::Unsupported {
                why: format!("a half refused an insert holding {} keys", at - from),
            });
        }
    }
    match a.merge(&b) {
        Some(Ok(())) => {}
        Some(Err(e)) => {
            return Ok(Outcome::Unsupported {
                why: format!("the merge failed: {e:#}"),
            })
        }
        None => {
            return Ok(Outcome::Unsupported {
                why: "no merge".into(),
            })
        }
    }
    let window = s.checkpoints.len() as u64;
    Ok(Outcome::Measured(Merge {
        halves: (half, s.merge_keys - half),
        false_negatives: false_negatives(ctx, &a, 0..s.merge_keys),
        false_positives: false_positives(ctx, &a, window, s.probes),
        probes: s.probes,
        bytes: a.bytes(),
    }))
}
