//! The threads stage's targets, computed from its rows.

use crate::record::verdict::{ratio_interval, Bound, Verdict};
use crate::stages::threads::{Contender, Op, Row, Target};

fn find_row(rows: &[Row], c: Contender, t: usize, op: Op) -> Option<&Row> {
    rows.iter()
        .find(|r| (r.contender, r.threads, r.op) == (c, t, op))
}

/// `a / b` of two rows: the ratio of medians and its interval over the paired rounds.
fn judged(claim: String, a: Option<&Row>, b: Option<&Row>, bound: Bound) -> Option<Target> {
    let (a, b) = (a?, b?);
    let interval = ratio_interval(&a.ns.samples, &b.ns.samples);
    Some(Target {
        claim,
        measured: Some(a.ns.median / b.ns.median),
        interval,
        bound,
        verdict: Verdict::of(bound, interval),
    })
}

/// The targets, computed from the rows. A speed-up is held between its bound and the
/// thread count; one above the thread count is a measurement fault ([`faults`]) and stays
/// [`Verdict::Undecided`]. It needs more than one thread: on a one-thread machine it is
/// [`Verdict::NotMeasured`].
pub fn targets(rows: &[Row]) -> Vec<Target> {
    let all = rows.iter().map(|r| r.threads).max().unwrap_or(1);
    let mut out = Vec::new();
    for c in [Contender::Classic, Contender::Blocked] {
        for (op, least) in [(Op::Insert, 1.6), (Op::Lookup, 1.8)] {
            let claim = format!("{} {op:?}: {all}-thread speed-up >= {least}x", c.name());
            let bound = Bound::Between(least, all as f64);
            if all < 2 {
                out.push(Target {
                    claim,
                    measured: None,
                    interval: None,
                    bound,
                    verdict: Verdict::NotMeasured,
                });
            } else {
                let one = find_row(rows, c, 1, op);
                let mut t = judged(claim, one, find_row(rows, c, all, op), bound);
                // More than `all` times faster on `all` threads cannot be: a measurement fault
                // (a round slowed by a neighbour), which decides nothing.
                if let Some(t) = t
                    .as_mut()
                    .filter(|t| t.measured.is_some_and(|m| m > all as f64))
                {
                    t.verdict = Verdict::Undecided;
                }
                out.extend(t);
            }
            // 1 and 2 threads are the issue's; every thread is the machine's.
            for t in [1, 2.min(all), all] {
                let claim = format!(
                    "{} {op:?} on {t} threads: time <= 0.8x fastbloom's",
                    c.name()
                );
                let peer = find_row(rows, Contender::Fastbloom, t, op);
                out.extend(judged(
                    claim,
                    find_row(rows, c, t, op),
                    peer,
                    Bound::AtMost(0.8),
                ));
            }
        }
    }
    out.dedup_by(|a, b| a.claim == b.claim);
    out
}

/// Every speed-up above the thread count that gave it, in words: a measurement fault (no
/// filter runs more than `t` times faster on `t` threads; a round slowed by a neighbour makes
/// the one-thread side look slow). The page lists them at its top.
#[must_use]
pub fn faults(rows: &[Row]) -> Vec<String> {
    let mut out = Vec::new();
    for r in rows.iter().filter(|r| r.threads > 1) {
        let Some(one) = find_row(rows, r.contender, 1, r.op) else {
            continue;
        };
        let speed_up = one.ns.median / r.ns.median;
        if speed_up > r.threads as f64 {
            out.push(format!(
                "{} {:?} on {} threads: {speed_up:.2}× the one-thread rate",
                r.contender.name(),
                r.op,
                r.threads
            ));
        }
    }
    out
}
