//! Adaptive interleaved rounds: a timing loop runs rounds until every figure it times is known
//! narrowly enough, or its time budget is spent, and records which ended it.
//!
//! The rule: after at least `min` rounds, stop when every series' median is known to within
//! `half_width` (2.5% by default): the 95% percentile-bootstrap interval of the median over its
//! rounds ([`half_width`], the same bootstrap the verdicts use) has a half-width of at most that
//! share of the median. A ratio of two such medians then has an interval within about the sum of
//! the two, ±5%: the half-width the targets ask for (a paired bootstrap over interleaved rounds,
//! as the verdicts take, is narrower still when both sides drift together). Unlike the range of
//! the rounds, the interval narrows as rounds are added: one disturbed round no longer keeps a
//! loop running to its limit. Otherwise stop when the budget is spent or at `max` rounds.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What ended a timing loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Every series' median known as narrowly as asked for.
    #[default]
    Converged,
    /// The time budget was spent first.
    Budget,
    /// The most rounds allowed were run.
    MaxRounds,
}

impl Stop {
    /// In words, for the reports.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Stop::Converged => "narrow enough",
            Stop::Budget => "the time budget ended it",
            Stop::MaxRounds => "the most rounds allowed",
        }
    }
}

/// How many rounds a loop may run.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Policy {
    /// Rounds before the rule is asked (at least 1).
    pub min: usize,
    /// Rounds at most.
    pub max: usize,
    /// Seconds the loop may take (`None`: no budget); checked after each round, so the last
    /// round may overrun it.
    pub budget_seconds: Option<f64>,
    /// The largest half-width of a median's 95% interval, as a share of the median, that every
    /// series must reach ([`half_width`]).
    #[serde(alias = "spread")]
    pub half_width: f64,
}

impl Policy {
    /// Exactly `n` rounds.
    #[must_use]
    pub fn fixed(n: usize) -> Self {
        Policy {
            min: n.max(1),
            max: n.max(1),
            budget_seconds: None,
            half_width: 0.0,
        }
    }

    /// At least `min` and at most `max` rounds within `budget_seconds`, each series' median known
    /// to ±2.5%.
    #[must_use]
    pub fn adaptive(min: usize, max: usize, budget_seconds: f64) -> Self {
        Policy {
            min: min.max(1),
            max: max.max(min.max(1)),
            budget_seconds: Some(budget_seconds),
            half_width: 0.025,
        }
    }

    /// Whether to stop after `done` rounds and `elapsed` seconds, given every series' samples so
    /// far; `None`: run another round.
    #[must_use]
    pub fn stop(&self, done: usize, elapsed: f64, series: &[&[f64]]) -> Option<Stop> {
        if done < self.min {
            return None;
        }
        if series.iter().all(|s| half_width(s) <= self.half_width) {
            return Some(Stop::Converged);
        }
        if done >= self.max {
            return Some(Stop::MaxRounds);
        }
        self.budget_seconds
            .is_some_and(|b| elapsed >= b)
            .then_some(Stop::Budget)
    }
}

/// Half the width of the 95% percentile-bootstrap interval of the median of `samples`, over the
/// median ([`super::bootstrap::ratio_interval`] of the samples over 1); infinite for none or
/// a median of 0. With 3 rounds it is half the range over the median; it narrows with more.
#[must_use]
pub fn half_width(samples: &[f64]) -> f64 {
    let median = super::median(&mut samples.to_vec());
    if samples.is_empty() || !(median > 0.0 && median.is_finite()) {
        return f64::INFINITY;
    }
    match super::bootstrap::ratio_interval(samples, &[1.0]) {
        Some((lo, hi)) => (hi - lo) / 2.0 / median,
        None => f64::INFINITY,
    }
}

/// One loop as results.json records it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LoopRecord {
    /// Which loop (`builds at 1%`, `lookups beside the peers`, ...).
    pub what: String,
    /// Its policy.
    pub policy: Option<Policy>,
    /// Rounds it ran.
    pub rounds: usize,
    /// Seconds it took.
    pub seconds: f64,
    /// What ended it.
    pub stop: Stop,
    /// The widest series at the end: the largest [`half_width`] (`None`: a series without a
    /// finite one, such as one never timed).
    pub widest: Option<f64>,
}

/// A run whose timing loops say the machine was not quiet: loops whose time budget ran out
/// before their medians were known as narrowly as their policy asks.
///
/// A loop's budget is sized for its most rounds on a quiet machine, so running out of it means
/// the rounds took longer than they do there; a loop that stops at its round limit, wide or not,
/// says nothing about the machine (with 3 to 5 rounds a median's bootstrap interval spans every
/// round, and one slow round of one of its dozens of series widens it).
#[derive(Clone, Debug, PartialEq)]
pub struct Disturbance {
    /// Loops that ran out of their budget with a median wider than their policy asks.
    pub loops: usize,
    /// Timed loops of the run.
    pub of: usize,
    /// The widest of their median intervals (a half-width, as a share of the median; infinite
    /// for a series with no finite one).
    pub widest: f64,
    /// The narrowest half-width their policies asked for.
    pub asked: f64,
}

impl Disturbance {
    /// The sentence the reports print.
    #[must_use]
    pub fn sentence(&self) -> String {
        let widest = if self.widest.is_finite() {
            format!("±{:.0}%", self.widest * 100.0)
        } else {
            "no finite interval".into()
        };
        format!(
            "**This run was disturbed**: {} of its {} timing loops ran out of their time budget \
             (sized for their most rounds on a quiet machine) before every median was known to \
             ±{:.1}% ({widest} at worst). Compare figures within one table; rerun on a quiet machine \
             before relying on absolute times.",
            self.loops,
            self.of,
            self.asked * 100.0
        )
    }
}

/// Whether `loops` say the run was disturbed: any loop that ran out of its time budget
/// ([`Stop::Budget`]) with a median interval wider than its policy's half-width. Loops of one
/// round (nothing to compare) and loops without a policy are not counted.
#[must_use]
pub fn disturbed(loops: &[LoopRecord]) -> Option<Disturbance> {
    let timed: Vec<&LoopRecord> = loops.iter().filter(|l| l.rounds > 1).collect();
    let over: Vec<(f64, f64)> = timed
        .iter()
        .filter(|l| l.stop == Stop::Budget)
        .filter_map(|l| {
            let asked = l.policy?.half_width;
            let widest = l.widest.unwrap_or(f64::INFINITY);
            (widest > asked).then_some((widest, asked))
        })
        .collect();
    (!over.is_empty()).then(|| Disturbance {
        loops: over.len(),
        of: timed.len(),
        widest: over.iter().map(|o| o.0).fold(0.0, f64::max),
        asked: over.iter().map(|o| o.1).fold(f64::INFINITY, f64::min),
    })
}

/// Runs `round` (given the round's index) until `policy` says stop; `series` reads every
/// series' samples after a round.
///
/// # Errors
/// The first error `round` returns.
pub fn run<E>(
    what: &str,
    policy: Policy,
    mut round: impl FnMut(usize) -> Result<(), E>,
    series: impl Fn() -> Vec<Vec<f64>>,
) -> Result<LoopRecord, E> {
    let started = Instant::now();
    let mut done = 0;
    loop {
        round(done)?;
        done += 1;
        let all = series();
        let views: Vec<&[f64]> = all.iter().map(Vec::as_slice).collect();
        let elapsed = started.elapsed().as_secs_f64();
        if let Some(stop) = policy.stop(done, elapsed, &views) {
            let widest = views.iter().map(|s| half_width(s)).fold(0.0, f64::max);
            let widest = widest.is_finite().then_some(widest);
            eprintln!(
                "   {what}: {done} rounds in {elapsed:.0} s ({}; widest median interval ±{})",
                stop.word(),
                widest.map_or_else(|| "not finite".into(), |w| format!("{:.1}%", w * 100.0))
            );
            return Ok(LoopRecord {
                what: what.into(),
                policy: Some(policy),
                rounds: done,
                seconds: elapsed,
                stop,
                widest,
            });
        }
    }
}

/// Runs rounds of `round` under `policy` over `count` series of samples, each round pushing one
/// sample to each series it times; returns the series and the loop's record.
pub fn series(
    what: &str,
    policy: Policy,
    count: usize,
    mut round: impl FnMut(&mut [Vec<f64>]),
) -> (Vec<Vec<f64>>, LoopRecord) {
    let samples = std::cell::RefCell::new(vec![Vec::new(); count]);
    let record = run(
        what,
        policy,
        |_| -> Result<(), std::convert::Infallible> {
            round(&mut samples.borrow_mut());
            Ok(())
        },
        || samples.borrow().clone(),
    )
    .unwrap_or_else(|never| match never {});
    (samples.into_inner(), record)
}

#[cfg(test)]
mod tests;
