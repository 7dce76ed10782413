//! One doubling cycle of the Aleph filter without an estimate (issue 52): its bits per key
//! swing by 2x between two doublings (a table just doubled is half empty), so one checkpoint
//! says little. The cycle measured is the last complete one below the run's n: the key counts
//! at which the table doubled are found by growing a filter and watching its bytes, then a
//! second filter (the same keys, so the same table) is grown through [`POINTS`] points
//! log-uniform in the cycle and to the last count before the next doubling, each probed with a
//! window of fresh non-members.

use super::grown::Grown;
use super::run::{false_negatives, false_positives, fill};
use super::{Checkpoint, Contender, Settings, ALEPH};
use crate::plan::Ctx;
use anyhow::Result;
use serde::{Deserialize, Serialize};

/// Points of the cycle average: at the log-midpoints of `POINTS` equal steps of `log n`.
pub const POINTS: usize = 8;

/// The Aleph filter over one doubling cycle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cycle {
    /// Who grew (the Aleph filter without an estimate).
    pub contender: Contender,
    /// Keys held right after the doubling that starts the cycle.
    pub from: u64,
    /// Keys held right after the next doubling (the cycle is `from..to`).
    pub to: u64,
    /// The filter at [`POINTS`] key counts log-uniform in the cycle (`from·(to/from)^((i+½)/POINTS)`).
    pub points: Vec<Checkpoint>,
    /// The filter holding `to - 1` keys: the fullest before the next doubling.
    pub before: Checkpoint,
}

/// The key counts at which growing `who` through `n` keys changed its bytes (held after the
/// insert that doubled it).
fn doublings(ctx: &Ctx<'_>, s: &Settings, who: Contender) -> Result<Vec<u64>> {
    let mut f = Grown::new(who, s.declared, s.target_fpr, s.n)?;
    let (mut bytes, mut out) = (f.bytes(), Vec::new());
    for held in 1..=s.n {
        if fill(ctx, &mut f, held - 1, held)?.is_some() {
            break;
        }
        let now = f.bytes();
        if now != bytes {
            out.push(held);
            bytes = now;
        }
    }
    Ok(out)
}

/// The key counts of the cycle `from..to`: the log-midpoints, ascending and distinct.
#[must_use]
pub fn points(from: u64, to: u64) -> Vec<u64> {
    let ratio = to as f64 / from as f64;
    let mut out: Vec<u64> = (0..POINTS)
        .map(|i| (from as f64 * ratio.powf((i as f64 + 0.5) / POINTS as f64)).round() as u64)
        .map(|n| n.clamp(from, to - 1))
        .collect();
    out.dedup();
    out
}

/// The last complete doubling cycle of the Aleph filter below `s.n`, measured; `None` when it
/// doubled fewer than twice, refused an insert, or the probes hold fewer than `POINTS + 1`
/// windows.
///
/// # Errors
/// A constructor's or an insert's error.
pub fn measure(ctx: &Ctx<'_>, s: &Settings) -> Result<Option<Cycle>> {
    // A window of probes per point and one for the fullest table.
    if (ctx.probes.len() as u64) < (POINTS as u64 + 1) * s.probes {
        return Ok(None);
    }
    let d = doublings(ctx, s, ALEPH)?;
    let [.., from, to] = d[..] else {
        return Ok(None);
    };
    let mut f = Grown::new(ALEPH, s.declared, s.target_fpr, s.n)?;
    let mut held = 0;
    let mut at = |f: &mut Grown, n: u64, window: u64| -> Result<Option<Checkpoint>> {
        if fill(ctx, f, held, n)?.is_some() {
            return Ok(None);
        }
        held = n;
        Ok(Some(Checkpoint {
            contender: ALEPH,
            n,
            false_positives: false_positives(ctx, f, window, s.probes),
            probes: s.probes,
            bytes: f.bytes(),
            refused: 0,
            false_negatives: false_negatives(ctx, f, 0..n),
        }))
    };
    let mut measured = Vec::new();
    for (window, n) in points(from, to).into_iter().enumerate() {
        match at(&mut f, n, window as u64)? {
            Some(c) => measured.push(c),
            None => return Ok(None),
        }
    }
    let Some(before) = at(&mut f, to - 1, POINTS as u64)? else {
        return Ok(None);
    };
    Ok(Some(Cycle {
        contender: ALEPH,
        from,
        to,
        points: measured,
        before,
    }))
}
