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
/// thread count (above the thread count is a measurement artefact, not met); it needs more than
/// one thread: on a one-thread machine it is [`Verdict::NotMeasured`].
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
                out.extend(judged(claim, one, find_row(rows, c, all, op), bound));
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
