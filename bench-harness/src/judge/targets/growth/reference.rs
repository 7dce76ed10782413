//! Rows for information beside the lookup goals: the references that do not grow (our cuckoo
//! filter of fixed size, our expandable filter declared at each size), at the large size over
//! at the small one on the expandable pair's rounds and queries, and the price of growth: the
//! expandable filter's ratio over the fixed cuckoo filter's, round by round.
//!
//! The price rows resample rounds: each side's samples are its per-round ratios (large / small,
//! both filters timed in that round), and the two sides were timed in the same rounds, so the
//! existing paired bootstrap ([`crate::record::verdict::ratio_interval`], which draws the same
//! round on both sides when they have as many) gives the interval of the median per-round
//! ratio over the median per-round ratio.

use super::{conditions, GOAL_LOOKUP_RATIO};
use crate::measure::Spread;
use crate::record::conditions::{Api, Conditions, Terms, Timed};
use crate::record::{Bound, Ratio, Role};
use crate::stages::expansion::{Lookups, Outcome, Reference, ReferenceKind, Summary};

/// One lookup kind of a pair: through which API, of what, and its large and small spreads.
type Side<'a> = (Api, &'static str, &'a Spread, &'a Spread);

/// The timed kinds of `l`: non-members and members, one at a time and, when measured, batched.
fn sides(l: &Lookups) -> Vec<Side<'_>> {
    let mut out = vec![
        (
            Api::OneAtATime,
            "non-member",
            &l.negative_large,
            &l.negative_small,
        ),
        (
            Api::OneAtATime,
            "member",
            &l.positive_large,
            &l.positive_small,
        ),
    ];
    if let Outcome::Measured(b) = &l.batched {
        out.push((
            Api::Batched,
            "non-member",
            &b.negative_large,
            &b.negative_small,
        ));
        out.push((Api::Batched, "member", &b.positive_large, &b.positive_small));
    }
    out
}

fn how(api: Api) -> &'static str {
    match api {
        Api::Batched => "batched ",
        Api::OneAtATime => "",
    }
}

fn side(api: Api, bytes: u64) -> Conditions {
    Conditions {
        api,
        ..conditions(bytes, None, Timed::Lookups)
    }
}

/// A row for information, at most [`GOAL_LOOKUP_RATIO`] (what the goal asks of the grown
/// filter, asked here of a filter that does not grow).
fn information() -> Ratio {
    Ratio {
        role: Role::Information,
        bound: Bound::AtMost(GOAL_LOOKUP_RATIO),
        terms: Terms::Growth,
        ..Ratio::default()
    }
}

/// One reference row: large over small ns per lookup.
fn reference_row(kind: ReferenceKind, l: &Lookups, (api, what, large, small): Side<'_>) -> Ratio {
    let how = how(api);
    let name = kind.label();
    Ratio {
        what: format!(
            "growth reference: {name}: {how}ns per {what} lookup at {} keys / at {} keys",
            l.large_n, l.small_n
        ),
        numerator: format!("{name} at {} keys: {how}ns per {what} lookup", l.large_n),
        numerator_value: large.median,
        numerator_samples: large.samples.clone(),
        denominator: format!("{name} at {} keys: {how}ns per {what} lookup", l.small_n),
        denominator_value: small.median,
        denominator_samples: small.samples.clone(),
        numerator_conditions: side(api, l.large_bytes),
        denominator_conditions: side(api, l.small_bytes),
        ..information()
    }
    .recomputed()
}

/// A row that could not be measured: `why`.
fn unmeasured(what: String, why: &str) -> Ratio {
    Ratio {
        what,
        numerator_value: f64::NAN,
        denominator_value: f64::NAN,
        differences: format!("not measured: {why}"),
        ..information()
    }
    .recomputed()
}

/// Each round's large / small; `None` unless both sides have the same finite rounds.
fn per_round(large: &Spread, small: &Spread) -> Option<Vec<f64>> {
    let ok = large.samples.len() == small.samples.len() && !large.samples.is_empty();
    let r: Vec<f64> = large
        .samples
        .iter()
        .zip(&small.samples)
        .map(|(a, b)| a / b)
        .collect();
    (ok && r.iter().all(|x| x.is_finite())).then_some(r)
}

/// The price of growth for one lookup kind: the grown filter's per-round ratios over the fixed
/// cuckoo filter's, both timed in the same rounds.
fn price_row(grown: (&Lookups, Side<'_>), fixed: (&Lookups, Side<'_>)) -> Ratio {
    let ((g, (api, what, gl, gs)), (f, (_, _, fl, fs))) = (grown, fixed);
    let how = how(api);
    let what_row = format!(
        "growth: price of growth, {how}ns per {what} lookup: expandable's {} / {} keys over the \
         fixed cuckoo filter's (per round)",
        g.large_n, g.small_n
    );
    let paired = per_round(gl, gs).zip(per_round(fl, fs));
    let Some((mut num, mut den)) = paired.filter(|(a, b)| a.len() == b.len()) else {
        return unmeasured(what_row, "the two pairs were not timed in the same rounds");
    };
    let (n, d) = (num.clone(), den.clone());
    Ratio {
        what: what_row,
        numerator: format!("expandable grown: median per-round {how}{what} ratio"),
        numerator_value: Spread::of(&mut num).median,
        numerator_samples: n,
        denominator: format!("cuckoo, fixed size: median per-round {how}{what} ratio"),
        denominator_value: Spread::of(&mut den).median,
        denominator_samples: d,
        numerator_conditions: side(api, g.large_bytes),
        denominator_conditions: side(api, f.large_bytes),
        ..information()
    }
    .recomputed()
}

/// The reference rows and the price-of-growth rows of the expandable filter's summary (none
/// when it timed no references: an older report, or a contender that is not the expandable).
#[must_use]
pub fn rows(summary: &Summary) -> Vec<Ratio> {
    let mut out = Vec::new();
    for Reference { kind, lookups } in &summary.references {
        match lookups {
            Outcome::Measured(l) => {
                out.extend(sides(l).into_iter().map(|x| reference_row(*kind, l, x)))
            }
            Outcome::Unsupported { why } => out.push(unmeasured(
                format!("growth reference: {}: lookups", kind.label()),
                why,
            )),
        }
    }
    let fixed = summary
        .references
        .iter()
        .find(|r| r.kind == ReferenceKind::FixedCuckoo)
        .and_then(|r| r.lookups.measured());
    if let (Some(g), Some(f)) = (summary.lookups.measured(), fixed) {
        let fixed_sides = sides(f);
        for x in sides(g) {
            match fixed_sides.iter().find(|y| (y.0, y.1) == (x.0, x.1)) {
                Some(y) => out.push(price_row((g, x), (f, *y))),
                None => out.push(unmeasured(
                    format!("growth: price of growth, {}{} lookups", how(x.0), x.1),
                    "the fixed cuckoo filter was not timed so",
                )),
            }
        }
    }
    out
}
