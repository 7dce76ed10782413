//! The goals of the Aleph filter (issue 41), from the growth stage's report: its FP rate at
//! every doubling against the target, with and without a growth estimate; its bits per key at
//! n against a quotient filter declared at n at the same measured rate (at most 1.5 without an
//! estimate, 1.15 with one); its lookups at n against that quotient filter of fixed size timed
//! in the same rounds (at most 1.2, one at a time and batched); and, for information, its
//! bits per key and lookups against the peers that grow the same way (each timed in its own
//! rounds of the same run).

use super::{at_most_one, conditions, grown, role};
use crate::measure::Spread;
use crate::record::conditions::{Api, Conditions, Terms, Timed};
use crate::record::{Bound, Ratio, Role};
use crate::stages::expansion::{
    Checkpoint, Contender, ExpansionReport, Lookups, Outcome, ReferenceKind, Summary, ALEPH,
};
use filterlab::aleph::math::{self as am, Widening};
use filterlab::any::Detail;
use filterlab::{Params, Variant};

/// Bits per key at n over a quotient filter declared at n: without an estimate.
pub const GOAL_BITS_NO_ESTIMATE: f64 = 1.5;
/// The same with the growth estimate given.
pub const GOAL_BITS_ESTIMATE: f64 = 1.15;
/// Lookups at n over a quotient filter of fixed size at n.
pub const GOAL_LOOKUPS: f64 = 1.2;

fn checkpoints(r: &ExpansionReport, who: Contender) -> Vec<&Checkpoint> {
    r.checkpoints
        .iter()
        .filter(|c| c.contender == who)
        .collect()
}

fn summary(r: &ExpansionReport, who: Contender) -> Option<&Summary> {
    r.summaries.iter().find(|x| x.contender == who)
}

/// The FP row of one checkpoint of `who`: measured rate / target.
fn fp_row(who: Contender, c: &Checkpoint, target: f64, declared: u64) -> Ratio {
    let cond = conditions(c.bytes, Some(c.fpr()), Timed::Lookups);
    Ratio {
        what: format!(
            "growth: {} at {} keys (declared {declared}): measured FP / target",
            who.name(),
            c.n
        ),
        role: Role::Target,
        numerator: format!(
            "{}: FP on fresh non-members ({} of {})",
            who.name(),
            c.false_positives,
            c.probes
        ),
        numerator_value: c.fpr(),
        numerator_counts: Some((c.false_positives, c.probes)),
        denominator: "the target rate".into(),
        denominator_value: target,
        denominator_samples: vec![target],
        ..at_most_one(cond)
    }
    .recomputed()
}

/// Bits per key of a quotient filter declared for `n` keys at `fpr` (its plan: the table is
/// the same full or empty).
fn quotient_bits(n: u64, fpr: f64) -> f64 {
    let fpr = fpr.clamp(1e-12, 0.5);
    Variant::Quotient
        .plan(&Params::new(n, fpr))
        .map_or(f64::NAN, |p| p.bytes as f64 * 8.0 / n as f64)
}

/// `who`'s bits per key at its last checkpoint over a quotient filter declared at that size at
/// the rate `who` measured there (the Wilson interval's ends give the ratio's interval).
fn bits_row(who: Contender, c: &Checkpoint, declared: u64, goal: f64) -> Ratio {
    let (lo, hi) = filterlab::math::wilson_interval(c.false_positives, c.probes, 1.96);
    let at = quotient_bits(c.n, c.fpr());
    // A lower rate needs more bits: the interval's high end gives the smaller reference.
    let range = [quotient_bits(c.n, hi), at, quotient_bits(c.n, lo)];
    let cond = conditions(c.bytes, Some(c.fpr()), Timed::Bytes);
    let bits = c.bits_per_key();
    Ratio {
        what: format!(
            "growth: {} bits per key at {} keys / a quotient filter declared at {} keys at the \
             same measured FP",
            who.name(),
            c.n,
            c.n
        ),
        role: role(c.n),
        numerator: format!("{}: bits per key grown from {declared} keys", who.name()),
        numerator_value: bits,
        numerator_samples: vec![bits],
        denominator: format!(
            "quotient declared for {} keys at {} (the Wilson interval's ends: {:.2}–{:.2} bits)",
            c.n,
            filterlab::math::format_real(c.fpr()),
            range[0],
            range[2]
        ),
        denominator_value: at,
        denominator_samples: range.to_vec(),
        bound: Bound::AtMost(goal),
        numerator_conditions: grown(cond.clone(), declared),
        ..at_most_one(cond)
    }
    .recomputed()
}

/// One kind of lookup: through which API, of what, and `who`'s large spread against the
/// reference's.
type Pair<'a> = (Api, &'static str, &'a Spread, &'a Spread);

fn pairs<'a>(own: &'a Lookups, fixed: &'a Lookups) -> Vec<Pair<'a>> {
    let mut out = vec![
        (
            Api::OneAtATime,
            "non-member",
            &own.negative_large,
            &fixed.negative_large,
        ),
        (
            Api::OneAtATime,
            "member",
            &own.positive_large,
            &fixed.positive_large,
        ),
    ];
    if let (Outcome::Measured(a), Outcome::Measured(b)) = (&own.batched, &fixed.batched) {
        out.push((
            Api::Batched,
            "non-member",
            &a.negative_large,
            &b.negative_large,
        ));
        out.push((Api::Batched, "member", &a.positive_large, &b.positive_large));
    }
    out
}

/// `who`'s lookups at n over the quotient filter declared at n, timed in the same rounds.
fn lookup_rows(who: Contender, x: &Summary, role: Role) -> Vec<Ratio> {
    let fixed = x
        .references
        .iter()
        .find(|r| r.kind == ReferenceKind::FixedQuotient)
        .and_then(|r| r.lookups.measured());
    let (Some(own), Some(fixed)) = (x.lookups.measured(), fixed) else {
        return Vec::new();
    };
    let side = |api, bytes| Conditions {
        api,
        ..conditions(bytes, None, Timed::Lookups)
    };
    pairs(own, fixed)
        .into_iter()
        .map(|(api, what, a, b)| {
            let how = if api == Api::Batched { "batched " } else { "" };
            Ratio {
                what: format!(
                    "growth: {} {how}ns per {what} lookup at {} keys / a quotient filter of \
                     fixed size at {} keys (same rounds)",
                    who.name(),
                    own.large_n,
                    fixed.large_n
                ),
                role: if own.large_n >= super::GOAL_KEYS {
                    role
                } else {
                    Role::Information
                },
                numerator: format!("{}: {how}ns per {what} lookup", who.name()),
                numerator_value: a.median,
                numerator_samples: a.samples.clone(),
                denominator: format!("quotient, declared at n: {how}ns per {what} lookup"),
                denominator_value: b.median,
                denominator_samples: b.samples.clone(),
                bound: Bound::AtMost(GOAL_LOOKUPS),
                terms: Terms::Growth,
                numerator_conditions: side(api, own.large_bytes),
                denominator_conditions: side(api, fixed.large_bytes),
                ..Ratio::default()
            }
            .recomputed()
        })
        .collect()
}

/// For information: the Aleph filter's bits per key and one-at-a-time non-member lookups at n
/// over a peer's, both grown from the declared keys (the peers timed in their own rounds).
fn peer_rows(r: &ExpansionReport, peer: Contender) -> Vec<Ratio> {
    let (Some(a), Some(b)) = (
        checkpoints(r, ALEPH).last().copied(),
        checkpoints(r, peer).last().copied(),
    ) else {
        return Vec::new();
    };
    let declared = r.settings.declared;
    let side = |c: &Checkpoint| grown(conditions(c.bytes, Some(c.fpr()), Timed::Bytes), declared);
    let mut out = vec![Ratio {
        what: format!(
            "growth: aleph / {} bits per key at {} keys, both grown from {declared} (FP {} \
             against {})",
            peer.name(),
            a.n,
            filterlab::math::format_real(a.fpr()),
            filterlab::math::format_real(b.fpr())
        ),
        role: Role::Information,
        numerator: "aleph: bits per key".into(),
        numerator_value: a.bits_per_key(),
        numerator_samples: vec![a.bits_per_key()],
        denominator: format!("{}: bits per key at {} keys", peer.name(), b.n),
        denominator_value: b.bits_per_key(),
        denominator_samples: vec![b.bits_per_key()],
        numerator_conditions: side(a),
        denominator_conditions: side(b),
        ..at_most_one(side(a))
    }
    .recomputed()];
    let timed = |who| summary(r, who).and_then(|x| x.lookups.measured());
    if let (Some(x), Some(y)) = (timed(ALEPH), timed(peer)) {
        let cond = conditions(x.large_bytes, None, Timed::Lookups);
        out.push(
            Ratio {
                what: format!(
                    "growth: aleph / {} ns per non-member lookup at {} keys (separate rounds \
                     of one run)",
                    peer.name(),
                    x.large_n
                ),
                role: Role::Information,
                numerator: "aleph: ns per non-member lookup".into(),
                numerator_value: x.negative_large.median,
                numerator_samples: x.negative_large.samples.clone(),
                denominator: format!("{}: ns per non-member lookup", peer.name()),
                denominator_value: y.negative_large.median,
                denominator_samples: y.negative_large.samples.clone(),
                terms: Terms::Growth,
                numerator_conditions: cond.clone(),
                denominator_conditions: conditions(y.large_bytes, None, Timed::Lookups),
                ..at_most_one(cond)
            }
            .recomputed(),
        );
    }
    out
}

/// The formulas of `who` (`filter_core::math::aleph`): its table after `c.n` inserts from the
/// declared keys, `(k, Q, FP)`, and the widening policy. `None` when it cannot be sized.
fn formula(r: &ExpansionReport, who: Contender) -> Option<(Widening, u64)> {
    let s = &r.settings;
    let params = Params::new(s.declared, s.target_fpr);
    let params = match who {
        Contender::AlephEstimate => params.max_n(s.n),
        _ => params,
    };
    let plan = Variant::Aleph.plan(&params).ok()?;
    match plan.detail {
        Detail::Aleph {
            quotients,
            target,
            planned,
            ..
        } => Some((Widening::new(target, planned).ok()?, quotients)),
        _ => None,
    }
}

/// For information, theory against measurement: the measured FP over the formula's at every
/// checkpoint (Wilson interval), and the bits per key over `(w_k + 2.5)/α` at the last one.
fn theory_rows(r: &ExpansionReport, who: Contender) -> Vec<Ratio> {
    let Some((w, q0)) = formula(r, who) else {
        return Vec::new();
    };
    let cps = checkpoints(r, who);
    let mut out = Vec::new();
    for c in &cps {
        let Some((k, q, fp)) = w.after_inserts(q0, c.n) else {
            continue;
        };
        let cond = conditions(c.bytes, Some(c.fpr()), Timed::Lookups);
        out.push(
            Ratio {
                what: format!(
                    "growth: {} measured FP / the formula's at {} keys ({k} doublings, {q} \
                     quotients)",
                    who.name(),
                    c.n
                ),
                role: Role::Information,
                numerator: format!("{}: FP on fresh non-members", who.name()),
                numerator_value: c.fpr(),
                numerator_counts: Some((c.false_positives, c.probes)),
                denominator: "1 - exp(-Σ λ_x 2^-F_x) (filter_core::math::aleph)".into(),
                denominator_value: fp,
                denominator_samples: vec![fp],
                bound: Bound::Between(0.85, 1.15),
                ..at_most_one(cond)
            }
            .recomputed(),
        );
    }
    if let Some(c) = cps.last() {
        if let Some((k, q, _)) = w.after_inserts(q0, c.n) {
            let want = am::bits_per_key(w.slot_width(k), c.n as f64 / q as f64);
            let cond = conditions(c.bytes, Some(c.fpr()), Timed::Bytes);
            out.push(
                Ratio {
                    what: format!(
                        "growth: {} measured bits per key / the formula's at {} keys",
                        who.name(),
                        c.n
                    ),
                    role: Role::Information,
                    numerator: format!("{}: bits per key", who.name()),
                    numerator_value: c.bits_per_key(),
                    numerator_samples: vec![c.bits_per_key()],
                    denominator: format!(
                        "(w + 2.5) / α with w = {} bits, α = {:.4}",
                        w.slot_width(k),
                        c.n as f64 / q as f64
                    ),
                    denominator_value: want,
                    denominator_samples: vec![want],
                    bound: Bound::Between(0.95, 1.05),
                    ..at_most_one(cond)
                }
                .recomputed(),
            );
        }
    }
    out
}

/// Every Aleph row of the goals.
#[must_use]
pub fn rows(r: &ExpansionReport) -> Vec<Ratio> {
    let s = &r.settings;
    let mut out = Vec::new();
    for (who, goal) in [
        (ALEPH, GOAL_BITS_NO_ESTIMATE),
        (Contender::AlephEstimate, GOAL_BITS_ESTIMATE),
    ] {
        let cps = checkpoints(r, who);
        out.extend(cps.iter().map(|c| fp_row(who, c, s.target_fpr, s.declared)));
        if let Some(last) = cps.last() {
            out.push(bits_row(who, last, s.declared, goal));
        }
        let role = if who == ALEPH {
            Role::Target
        } else {
            Role::Information
        };
        out.extend(summary(r, who).map_or_else(Vec::new, |x| lookup_rows(who, x, role)));
        out.extend(theory_rows(r, who));
    }
    for peer in [Contender::Qfilter, Contender::AlephCrate] {
        out.extend(peer_rows(r, peer));
    }
    out
}

#[cfg(test)]
mod tests;
