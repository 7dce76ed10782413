//! Adaptive interleaved rounds: a timing loop runs rounds until every figure it times is known
//! narrowly enough, or its time budget is spent, and records which ended it.
//!
//! The rule: after at least `min` rounds, stop when every series' spread over its rounds,
//! `(max - min) / median`, is at most `spread` (5% by default). A ratio's 95% bootstrap interval
//! over the rounds lies between the ratios of the two sides' extremes, so two series each within
//! 5% give every ratio of them an interval within about ±5% of its value: the half-width the
//! targets ask for. Otherwise stop when the budget is spent or at `max` rounds.

use serde::{Deserialize, Serialize};
use std::time::Instant;

/// What ended a timing loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Every series within the spread asked for.
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
    /// Seconds the loop may take; checked after each round, so the last round may overrun it.
    pub budget_seconds: f64,
    /// The widest spread, `(max - min) / median`, every series must reach.
    pub spread: f64,
}

impl Policy {
    /// Exactly `n` rounds.
    #[must_use]
    pub fn fixed(n: usize) -> Self {
        Policy {
            min: n.max(1),
            max: n.max(1),
            // No budget: the largest finite figure, not infinity, which JSON cannot hold
            // (serde_json writes it as null and then refuses to read results.json back).
            budget_seconds: f64::MAX,
            spread: 0.0,
        }
    }

    /// At least `min` and at most `max` rounds within `budget_seconds`, each series within 5%.
    #[must_use]
    pub fn adaptive(min: usize, max: usize, budget_seconds: f64) -> Self {
        Policy {
            min: min.max(1),
            max: max.max(min.max(1)),
            budget_seconds,
            spread: 0.05,
        }
    }

    /// Whether to stop after `done` rounds and `elapsed` seconds, given every series' samples so
    /// far; `None`: run another round.
    #[must_use]
    pub fn stop(&self, done: usize, elapsed: f64, series: &[&[f64]]) -> Option<Stop> {
        if done < self.min {
            return None;
        }
        if series.iter().all(|s| spread(s) <= self.spread) {
            return Some(Stop::Converged);
        }
        if done >= self.max {
            return Some(Stop::MaxRounds);
        }
        (elapsed >= self.budget_seconds).then_some(Stop::Budget)
    }
}

/// `(max - min) / median` of `samples`; infinite for none or a median of 0.
#[must_use]
pub fn spread(samples: &[f64]) -> f64 {
    if samples.is_empty() {
        return f64::INFINITY;
    }
    let mut v = samples.to_vec();
    v.sort_by(f64::total_cmp);
    let median = super::median(&mut v);
    let (lo, hi) = (v[0], v[v.len() - 1]);
    if median > 0.0 && median.is_finite() {
        (hi - lo) / median
    } else {
        f64::INFINITY
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
    /// The widest series spread at the end, `(max - min) / median`.
    pub widest: f64,
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
            let widest = views.iter().map(|s| spread(s)).fold(0.0, f64::max);
            eprintln!(
                "   {what}: {done} rounds in {elapsed:.0} s ({}; widest spread {:.1}%)",
                stop.word(),
                widest * 100.0
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

#[cfg(test)]
mod tests;
