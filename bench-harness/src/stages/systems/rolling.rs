//! The rolling count beside the daily reset: unique users in the last 24 hours, from a
//! [`TimeWindow`] (`filter-window`, lane-sliced generations, 1%) against an exact map of each
//! user's last-seen time, at checkpoints of a timestamped stream.
//!
//! The stream: `events` events over `users` users (the Zipf law of [`super::unique::events`]),
//! spread evenly over [`DAYS`] days in seconds. Every event refreshes its user in both
//! structures. At a checkpoint `T`:
//! * exact: users whose last event lies in `(T - 24 h, T]`;
//! * held: users whose last event lies in a slice the filter still keeps at `T` (the window plus
//!   up to one slice, `1 + 1/N` windows — exact, from the map);
//! * filter: users of the population the filter answers "maybe" for at `T` (the population is
//!   known, as a users table is);
//! * predicted: `held + q · (users - held)`, with `q` the model rate
//!   ([`filter_window::math::sliced_fpr`]) at the real distinct count of each kept slice.
//!
//! The filter is sized for the events a window receives (its contract: the most items per
//! window), so the rate stays under the target even with every event re-inserted.

use std::collections::HashMap;

use anyhow::Result;
use filter_window::{math, TimeWindow, Timestamp};
use rand::{RngExt, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::unique::user_id;

/// Days the stream spans.
pub const DAYS: u64 = 3;
/// The window: 24 hours in seconds.
pub const WINDOW_S: u64 = 86_400;
/// Checkpoints every this many slices, from the first slice boundary at or after a full window.
/// On a boundary the `N` kept past slices cover `N · slice` ≈ the window (86 401 s for 24 h and
/// `N = 7`); between boundaries the filter also holds up to one more slice (1/N of a window).
pub const CHECKPOINT_EVERY_SLICES: u64 = 3;
/// The filter's target rate over the window.
pub const TARGET_FPR: f64 = 0.01;

/// One checkpoint's counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint {
    /// Seconds since the start of the stream (a slice boundary).
    pub at_s: u64,
    /// Users last seen in the last 24 hours (exact).
    pub exact: u64,
    /// Users last seen in a slice the filter still keeps (exact; ≥ `exact`).
    pub held: u64,
    /// Users of the population the filter answers "maybe" for.
    pub filter: u64,
    /// `(filter - exact) / exact`.
    pub rel_error: f64,
    /// `(held + q · (users - held) - exact) / exact`.
    pub predicted_rel_error: f64,
    /// Measured false-positive rate: `(filter - held) / (users - held)`.
    pub measured_fpr: f64,
    /// The model rate `q` at the kept slices' real distinct counts.
    pub predicted_fpr: f64,
}

/// The rolling count's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RollingResult {
    /// Events in the stream.
    pub events: u64,
    /// Size of the user population.
    pub users: u64,
    /// The window, seconds.
    pub window_s: u64,
    /// Seconds per slice of the filter.
    pub slice_s: u64,
    /// Generations per window (`N`; `N + 1` kept).
    pub generations: u32,
    /// Items per window the filter is sized for.
    pub items_per_window: u64,
    /// The filter's target rate.
    pub target_fpr: f64,
    /// The filter's memory (constant).
    pub filter_bytes: u64,
    /// The exact map's largest memory at a checkpoint, pruned to the window.
    pub exact_bytes: u64,
    /// The checkpoints.
    pub checkpoints: Vec<Checkpoint>,
}

fn map_bytes(m: &HashMap<String, u64>) -> u64 {
    // hashbrown: one control byte and one (String, u64) slot per bucket; plus the strings' heap.
    let slot = std::mem::size_of::<(String, u64)>() as u64 + 1;
    m.capacity() as u64 * slot + m.keys().map(|k| k.capacity() as u64).sum::<u64>()
}

/// The exact side: last-seen times, and distinct users per slice epoch.
struct Exact {
    last: HashMap<String, u64>,
    per_epoch: Vec<u64>,
    slice: u64,
}

impl Exact {
    fn see(&mut self, id: &str, t: u64) {
        let epoch = (t / self.slice) as usize;
        if self.per_epoch.len() <= epoch {
            self.per_epoch.resize(epoch + 1, 0);
        }
        let prev = self.last.insert(id.to_owned(), t);
        if prev.is_none_or(|p| (p / self.slice) as usize != epoch) {
            self.per_epoch[epoch] += 1;
        }
    }
}

/// Runs the rolling count over `n` events, `users` users.
///
/// # Errors
/// A filter that cannot be built (a table too large).
pub fn run(n: usize, users: u64, seed: u64) -> Result<RollingResult> {
    let users = users.max(1);
    let span = DAYS * WINDOW_S;
    let per_window = (n as u64 * WINDOW_S).div_ceil(span).max(1);
    let mut filter = TimeWindow::builder()
        .window(WINDOW_S)
        .items_per_window(per_window)
        .fpr(TARGET_FPR)
        .build()?;
    let (slice, plan) = (filter.slice(), filter.plan());
    let mut exact = Exact {
        last: HashMap::new(),
        per_epoch: Vec::new(),
        slice,
    };
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x2024_0e11);
    let mut next_cp = WINDOW_S.div_ceil(slice) * slice;
    let (mut checkpoints, mut exact_bytes) = (Vec::new(), 0u64);
    for i in 0..n as u64 {
        let t = i * span / n as u64;
        while t >= next_cp {
            let (cp, bytes) = checkpoint(&filter, &mut exact, users, next_cp);
            checkpoints.push(cp);
            exact_bytes = exact_bytes.max(bytes);
            next_cp += CHECKPOINT_EVERY_SLICES * slice;
        }
        let u: f64 = rng.random();
        let rank = ((users as f64).powf(u) as u64)
            .saturating_sub(1)
            .min(users - 1);
        let id = user_id(rank);
        filter.insert_at(id.as_bytes(), Timestamp(t))?;
        exact.see(&id, t);
    }
    while next_cp <= span {
        let (cp, bytes) = checkpoint(&filter, &mut exact, users, next_cp);
        checkpoints.push(cp);
        exact_bytes = exact_bytes.max(bytes);
        next_cp += CHECKPOINT_EVERY_SLICES * slice;
    }
    Ok(RollingResult {
        events: n as u64,
        users,
        window_s: WINDOW_S,
        slice_s: slice,
        generations: plan.generations,
        items_per_window: per_window,
        target_fpr: TARGET_FPR,
        filter_bytes: filter.size_in_bytes() as u64,
        exact_bytes,
        checkpoints,
    })
}

/// The counts at `at` (events before `at` seen), and the exact map's bytes pruned to the window.
fn checkpoint(filter: &TimeWindow, exact: &mut Exact, users: u64, at: u64) -> (Checkpoint, u64) {
    let epoch = at / exact.slice;
    let first_kept = epoch.saturating_sub(u64::from(filter.plan().generations));
    let since = at.saturating_sub(WINDOW_S);
    let count = |pred: &dyn Fn(u64) -> bool| exact.last.values().filter(|&&t| pred(t)).count();
    let in_window = count(&|t| t >= since) as u64;
    let held = count(&|t| t / exact.slice >= first_kept) as u64;
    let found = (0..users)
        .filter(|&r| filter.contains_at(user_id(r).as_bytes(), Timestamp(at)))
        .count() as u64;
    let kept = (first_kept..=epoch).map(|e| exact.per_epoch.get(e as usize).copied().unwrap_or(0));
    let q = math::sliced_fpr(filter.plan().k, filter.plan().m, kept);
    let others = users.saturating_sub(held);
    let denom = in_window.max(1) as f64;
    let cp = Checkpoint {
        at_s: at,
        exact: in_window,
        held,
        filter: found,
        rel_error: (found as f64 - in_window as f64) / denom,
        predicted_rel_error: (held as f64 + q * others as f64 - in_window as f64) / denom,
        measured_fpr: found.saturating_sub(held) as f64 / others.max(1) as f64,
        predicted_fpr: q,
    };
    exact.last.retain(|_, &mut t| t / exact.slice >= first_kept);
    (cp, map_bytes(&exact.last))
}

#[cfg(test)]
mod tests;
