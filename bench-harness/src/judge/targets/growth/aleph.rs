//! The goals of the Aleph filter (issues 41 and 52), from the growth stage's report: its FP
//! rate at every doubling against the target, with and without a growth estimate; its bits per
//! key against quotient filters declared at the same counts at the same measured rate (told n:
//! at n, at most 1.15; without an estimate: averaged over a doubling cycle and just before a
//! doubling, at most 1.5, [`cycle`]; at n for information); its lookups at n against that
//! quotient filter of fixed size timed in the same rounds (at most 1.2, told n 1.1, one at a
//! time and batched) and against qfilter and aleph-filter grown the same way, in the same
//! rounds (at most 1.0 and 0.8); and, for information, its bits per key against those peers.

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
/// The same for the Aleph filter told n (issue 52).
pub const GOAL_LOOKUPS_TOLD: f64 = 1.1;
/// The Aleph filter's lookups at n over the aleph-filter crate's, both grown from the declared
/// keys, in the same rounds (issue 52).
pub const GOAL_LOOKUPS_ALEPH_CRATE: f64 = 0.8;
/// The same over qfilter's (issue 52).
pub const GOAL_LOOKUPS_QFILTER: f64 = 1.0;

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
pub(crate) fn quotient_bits(n: u64, fpr: f64) -> f64 {
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

/// The bound and role of `who`'s lookups over a reference timed in its rounds: the fixed
/// quotient filter at most [`GOAL_LOOKUPS`] for the Aleph filter and [`GOAL_LOOKUPS_TOLD`] told
/// n; the grown peers (issue 52) at most [`GOAL_LOOKUPS_ALEPH_CRATE`] and [`GOAL_LOOKUPS_QFILTER`].
fn lookup_goal(who: Contender, kind: ReferenceKind) -> (f64, Role) {
    match (who, kind) {
        (ALEPH, ReferenceKind::FixedQuotient) => (GOAL_LOOKUPS, Role::Target),
        (_, ReferenceKind::FixedQuotient) => (GOAL_LOOKUPS_TOLD, Role::Target),
        (_, ReferenceKind::GrownAlephCrate) => (GOAL_LOOKUPS_ALEPH_CRATE, Role::Target),
        (_, ReferenceKind::GrownQfilter) => (GOAL_LOOKUPS_QFILTER, Role::Target),
        _ => (1.0, Role::Information),
    }
}

/// How a reference is named in a row: the fixed quotient filter, or a peer grown as `who` was.
fn reference_name(kind: ReferenceKind, declared: u64, n: u64) -> String {
    match kind {
        ReferenceKind::FixedQuotient => format!("a quotient filter of fixed size at {n} keys"),
        _ => format!("{} grown from {declared} keys", kind.contender().name()),
    }
}

/// `who`'s lookups at n over each reference timed in the same rounds: the quotient filter
/// declared at n, and (the Aleph filter) the peers grown from the declared capacity.
fn lookup_rows(who: Contender, x: &Summary, declared: u64) -> Vec<Ratio> {
    let Some(own) = x.lookups.measured() else {
        return Vec::new();
    };
    let side = |api, bytes| Conditions {
        api,
        ..conditions(bytes, None, Timed::Lookups)
    };
    let mut out = Vec::new();
    for r in &x.references {
        let Some(other) = r.lookups.measured() else {
            continue;
        };
        let (goal, role) = lookup_goal(who, r.kind);
        let name = reference_name(r.kind, declared, other.large_n);
        let short = match r.kind {
            ReferenceKind::FixedQuotient => "quotient, declared at n".to_string(),
            _ => r.kind.contender().name().to_string(),
        };
        out.extend(pairs(own, other).into_iter().map(|(api, what, a, b)| {
            let how = if api == Api::Batched { "batched " } else { "" };
            Ratio {
                what: format!(
                    "growth: {} {how}ns per {what} lookup at {} keys / {name} (same rounds)",
                    who.name(),
                    own.large_n,
                ),
                role: if own.large_n >= super::GOAL_KEYS {
                    role
                } else {
                    Role::Information
                },
                numerator: format!("{}: {how}ns per {what} lookup", who.name()),
                numerator_value: a.median,
                numerator_samples: a.samples.clone(),
                denominator: format!("{short}: {how}ns per {what} lookup"),
                denominator_value: b.median,
                denominator_samples: b.samples.clone(),
                bound: Bound::AtMost(goal),
                terms: Terms::Growth,
                numerator_conditions: grown_if(r.kind, side(api, own.large_bytes), declared),
                denominator_conditions: grown_if(r.kind, side(api, other.large_bytes), declared),
                ..Ratio::default()
            }
            .recomputed()
        }));
    }
    out
}

/// Against a grown peer both sides say they grew from `declared`; against a fixed reference
/// neither does (the rows' terms allow the difference).
fn grown_if(kind: ReferenceKind, cond: Conditions, declared: u64) -> Conditions {
    match kind.grows() {
        true => grown(cond, declared),
        false => cond,
    }
}

/// For information: the Aleph filter's bits per key at n over a peer's, both grown from the
/// declared keys (their lookups are judged in the same rounds: [`lookup_rows`]).
fn peer_rows(r: &ExpansionReport, peer: Contender) -> Vec<Ratio> {
    let (Some(a), Some(b)) = (
        checkpoints(r, ALEPH).last().copied(),
        checkpoints(r, peer).last().copied(),
    ) else {
        return Vec::new();
    };
    let declared = r.settings.declared;
    let side = |c: &Checkpoint| grown(conditions(c.bytes, Some(c.fpr()), Timed::Bytes), declared);
    vec![Ratio {
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
    .recomputed()]
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
            let mut row = bits_row(who, last, s.declared, goal);
            // Without an estimate, judged over a doubling cycle instead ([`cycle`]).
            if who == ALEPH {
                row.role = Role::Information;
            }
            out.push(row);
        }
        if who == ALEPH {
            out.extend(cycle::rows(r));
        }
        out.extend(summary(r, who).map_or_else(Vec::new, |x| lookup_rows(who, x, s.declared)));
        out.extend(theory_rows(r, who));
    }
    for peer in [Contender::Qfilter, Contender::AlephCrate] {
        out.extend(peer_rows(r, peer));
    }
    out
}

pub mod cycle;
#[cfg(test)]
mod tests;
