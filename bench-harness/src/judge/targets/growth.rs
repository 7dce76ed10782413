//! The goals of the expandable filter (issue 19, item 2), computed from the growth stage's
//! report as rows of the targets table: its FP rate at every doubling against the target
//! (Wilson 95% interval), its bits per key at 10M against 14.38 (our scalable filter's figure
//! when the goal was set), and its lookups at 10M against at 10k (bootstrap over the paired,
//! interleaved rounds), one at a time and batched (the fastest configuration, in which peers
//! are compared; the goal applies to each). Every row is three-way, through [`Ratio::recomputed`].

use crate::measure::Spread;
use crate::record::conditions::{Api, Conditions, Terms, Timed, OURS_HASH};
use crate::record::{Bound, Ratio, Role, Verdict};
use crate::stages::expansion::{
    Checkpoint, Contender, ExpansionReport, Lookups, Outcome, EXPANDABLE,
};

/// The goals' size: 10M keys. A run grown to fewer keys judges the same rows for information.
pub const GOAL_KEYS: u64 = 10_000_000;
/// Bits per key at [`GOAL_KEYS`]: our scalable filter's figure when the issue was filed.
pub const GOAL_BITS_PER_KEY: f64 = 14.38;
/// Lookups at [`GOAL_KEYS`] over lookups at 10k.
pub const GOAL_LOOKUP_RATIO: f64 = 1.5;

fn conditions(bytes: u64, fpr: Option<f64>, timed: Timed) -> Conditions {
    Conditions {
        api: Api::OneAtATime,
        achieved_fpr: fpr,
        hash: OURS_HASH.into(),
        threads: 1,
        huge_pages: None,
        bytes: Some(bytes),
        timed,
        grown_from: None,
        keys: None,
    }
}

/// `cond` of a filter grown from `declared` keys.
fn grown(cond: Conditions, declared: u64) -> Conditions {
    Conditions {
        grown_from: Some(declared),
        ..cond
    }
}

fn role(n: u64) -> Role {
    if n >= GOAL_KEYS {
        Role::Target
    } else {
        Role::Information
    }
}

/// Whether the measured rate of `c` is at or under `target`, on its Wilson 95% interval.
#[must_use]
pub fn fp_verdict(c: &Checkpoint, target: f64) -> Verdict {
    let interval = filterlab::math::wilson_interval(c.false_positives, c.probes, 1.96);
    Verdict::of(Bound::AtMost(target), (c.probes > 0).then_some(interval))
}

/// A growth row's common part: measured / goal at most 1, both sides under `cond`.
fn at_most_one(cond: Conditions) -> Ratio {
    Ratio {
        bound: Bound::AtMost(1.0),
        terms: Terms::Growth,
        numerator_conditions: cond.clone(),
        denominator_conditions: cond,
        ..Ratio::default()
    }
}

/// The FP row of one checkpoint: measured rate / target, interval Wilson's.
fn fp_row(c: &Checkpoint, target: f64, declared: u64) -> Ratio {
    let cond = conditions(c.bytes, Some(c.fpr()), Timed::Lookups);
    Ratio {
        what: format!(
            "growth: expandable at {} keys (declared {declared}): measured FP / target",
            c.n
        ),
        role: Role::Target,
        numerator: format!(
            "expandable: FP on fresh non-members ({} of {})",
            c.false_positives, c.probes
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

/// The bits-per-key row at the largest checkpoint, against the fixed goal: our scalable
/// filter's figure *declared* at 10M. The filter measured grew from `declared` keys and the goal
/// did not: the row records that difference, so it is not counted as a like comparison (the
/// like one is [`grown_bits_row`]).
fn bits_row(c: &Checkpoint, declared: u64) -> Ratio {
    let cond = conditions(c.bytes, Some(c.fpr()), Timed::Bytes);
    let bits = c.bits_per_key();
    Ratio {
        what: format!(
            "growth: expandable bits per key at {} keys / the goal at {GOAL_KEYS}",
            c.n
        ),
        role: role(c.n),
        numerator: format!("expandable: bits per key at {} keys", c.n),
        numerator_value: bits,
        numerator_samples: vec![bits],
        denominator: "the goal: 14.38 bits per key (our scalable filter's figure, declared at 10M)"
            .into(),
        denominator_value: GOAL_BITS_PER_KEY,
        denominator_samples: vec![GOAL_BITS_PER_KEY],
        numerator_conditions: grown(cond.clone(), declared),
        ..at_most_one(cond)
    }
    .recomputed()
}

/// Like for like: the expandable filter's bits per key over the scalable filter's, both grown
/// from `declared` keys to the same checkpoint at the same target. `None` when the run has no
/// scalable checkpoint of that size.
fn grown_bits_row(r: &ExpansionReport, ours: &Checkpoint) -> Option<Ratio> {
    let theirs = r
        .checkpoints
        .iter()
        .find(|c| c.contender == Contender::Ours(filterlab::Variant::Scalable) && c.n == ours.n)?;
    let declared = r.settings.declared;
    let side = |c: &Checkpoint| grown(conditions(c.bytes, Some(c.fpr()), Timed::Bytes), declared);
    Some(
        Ratio {
            what: format!(
                "growth: expandable / scalable bits per key, both grown from {declared} to {} keys",
                ours.n
            ),
            role: role(ours.n),
            numerator: format!("expandable: bits per key at {} keys", ours.n),
            numerator_value: ours.bits_per_key(),
            numerator_samples: vec![ours.bits_per_key()],
            denominator: format!("scalable: bits per key at {} keys", theirs.n),
            denominator_value: theirs.bits_per_key(),
            denominator_samples: vec![theirs.bits_per_key()],
            numerator_conditions: side(ours),
            denominator_conditions: side(theirs),
            ..at_most_one(side(ours))
        }
        .recomputed(),
    )
}

/// The floor of any cuckoo design that grows by doubling stages from the declared capacity, at
/// the largest checkpoint ([`filterlab::math::expandable::doubling_floor_bits_per_key`]), over
/// the 14.38 goal: for information, so that a reader sees whether the goal is reachable by such
/// a design (a floor above the goal says it is not).
fn floor_row(c: &Checkpoint, declared: u64, target: f64) -> Ratio {
    let cond = conditions(c.bytes, Some(c.fpr()), Timed::Bytes);
    let (floor, differences) =
        match filterlab::math::expandable::doubling_floor_bits_per_key(declared, target, c.n) {
            Ok(f) => (f, String::new()),
            Err(e) => (f64::NAN, format!("not computed: {e}")),
        };
    Ratio {
        what: format!(
            "growth: floor of any doubling cuckoo design from {declared} keys at {} keys / the \
             goal at {GOAL_KEYS}",
            c.n
        ),
        role: Role::Information,
        numerator: format!(
            "floor: the slots of the doubling stages {} keys need, each at the narrowest width \
             one full stage allows at the target, per key",
            c.n
        ),
        numerator_value: floor,
        numerator_samples: vec![floor],
        denominator: "the goal: 14.38 bits per key (our scalable filter's figure)".into(),
        denominator_value: GOAL_BITS_PER_KEY,
        denominator_samples: vec![GOAL_BITS_PER_KEY],
        differences,
        ..at_most_one(cond)
    }
    .recomputed()
}

/// One lookup row: `large` over `small` ns per `what` lookup through `api`, at most 1.5.
fn lookup_row(l: &Lookups, api: Api, what: &str, large: &Spread, small: &Spread) -> Ratio {
    let how = match api {
        Api::Batched => "batched ",
        Api::OneAtATime => "",
    };
    let side = |bytes| Conditions {
        api,
        ..conditions(bytes, None, Timed::Lookups)
    };
    Ratio {
        what: format!(
            "growth: expandable {how}ns per {what} lookup at {} keys / at {} keys",
            l.large_n, l.small_n
        ),
        role: role(l.large_n),
        numerator: format!(
            "expandable at {} keys: {how}ns per {what} lookup",
            l.large_n
        ),
        numerator_value: large.median,
        numerator_samples: large.samples.clone(),
        denominator: format!(
            "expandable at {} keys: {how}ns per {what} lookup",
            l.small_n
        ),
        denominator_value: small.median,
        denominator_samples: small.samples.clone(),
        bound: Bound::AtMost(GOAL_LOOKUP_RATIO),
        terms: Terms::Growth,
        numerator_conditions: side(l.large_bytes),
        denominator_conditions: side(l.small_bytes),
        ..Ratio::default()
    }
    .recomputed()
}

/// A lookup row that could not be measured: `why`.
fn unmeasured_lookup_row(what: &str, why: &str) -> Ratio {
    Ratio {
        what: format!("growth: expandable {what} at n / at 10k"),
        role: Role::Target,
        numerator: "expandable at n".into(),
        numerator_value: f64::NAN,
        denominator: "expandable at 10k".into(),
        denominator_value: f64::NAN,
        bound: Bound::AtMost(GOAL_LOOKUP_RATIO),
        terms: Terms::Growth,
        differences: format!("not measured: {why}"),
        ..Ratio::default()
    }
    .recomputed()
}

/// The lookup rows: at the large size over at the small one, non-members and members, one at
/// a time and batched (the goal applies to each).
fn lookup_rows(l: &Lookups) -> Vec<Ratio> {
    let mut rows = vec![
        lookup_row(
            l,
            Api::OneAtATime,
            "non-member",
            &l.negative_large,
            &l.negative_small,
        ),
        lookup_row(
            l,
            Api::OneAtATime,
            "member",
            &l.positive_large,
            &l.positive_small,
        ),
    ];
    match &l.batched {
        Outcome::Measured(b) => rows.extend([
            lookup_row(
                l,
                Api::Batched,
                "non-member",
                &b.negative_large,
                &b.negative_small,
            ),
            lookup_row(
                l,
                Api::Batched,
                "member",
                &b.positive_large,
                &b.positive_small,
            ),
        ]),
        Outcome::Unsupported { why } => rows.push(unmeasured_lookup_row("batched lookups", why)),
    }
    rows
}

/// Every goal row, from the report's measurements (its `goals` field is not read).
#[must_use]
pub fn goals(r: &ExpansionReport) -> Vec<Ratio> {
    let ours: Vec<&Checkpoint> = r
        .checkpoints
        .iter()
        .filter(|c| c.contender == EXPANDABLE)
        .collect();
    let s = &r.settings;
    let mut out: Vec<Ratio> = ours
        .iter()
        .map(|c| fp_row(c, s.target_fpr, s.declared))
        .collect();
    if let Some(last) = ours.last() {
        out.push(bits_row(last, s.declared));
        out.extend(grown_bits_row(r, last));
        out.push(floor_row(last, s.declared, s.target_fpr));
    }
    let lookups = r
        .summaries
        .iter()
        .find(|x| x.contender == EXPANDABLE)
        .and_then(|x| x.lookups.measured());
    match lookups {
        Some(l) => out.extend(lookup_rows(l)),
        None => out.push(unmeasured_lookup_row(
            "lookups",
            "the stage timed no lookups",
        )),
    }
    if let Some(x) = r.summaries.iter().find(|x| x.contender == EXPANDABLE) {
        out.extend(reference::rows(x));
    }
    out.extend(aleph::rows(r));
    out
}

pub mod aleph;
pub mod reference;

#[cfg(test)]
mod tests;
