//! The measurements: growth with checkpoints, lookups at two sizes, deletes, merges.

use super::grown::{deletes, merges, Grown};
use super::timed::time_pair;
use super::{Checkpoint, Contender, Deletes, Merge, Outcome, Settings, Summary};
use crate::plan::Ctx;
use anyhow::{ensure, Result};
use std::ops::Range;

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
        let (lookups, references) = match first_refusal {
            Some(at) => {
                let why = format!(
                    "refused an insert holding {at} keys: never reached {} keys",
                    s.small_n.min(s.n)
                );
                (Outcome::Unsupported { why }, Vec::new())
            }
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
            references,
        });
    }
    Ok((rows, summaries))
}

/// Fresh non-members `window` of `len` answered present.
pub(super) fn false_positives(ctx: &Ctx<'_>, f: &Grown, window: u64, len: u64) -> u64 {
    let start = (window * len) as usize;
    (start..start + len as usize)
        .filter(|&i| f.contains(ctx.probes.get(i)))
        .count() as u64
}

/// Members `range` answered absent.
pub(super) fn false_negatives(ctx: &Ctx<'_>, f: &Grown, range: Range<u64>) -> u64 {
    range
        .filter(|&i| !f.contains(ctx.members.get(i as usize)))
        .count() as u64
}

/// Inserts members `from..to` into `f` in order; `Ok(Some(held))` at the first refusal.
pub(super) fn fill(ctx: &Ctx<'_>, f: &mut Grown, from: u64, to: u64) -> Result<Option<u64>> {
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
