//! `filterlab recommend`: which variant, sized how, and why; what happens if `n` was
//! underestimated; and, for a request no variant can meet, the reason and the nearest requests
//! that can be met, as command lines.
//!
//! One criterion throughout: every candidate is sized for `n`, ranked, and checked against the
//! budget at the same number of items ([`Needs::judged_items`]: the expected maximum when growth
//! is asked for, `n` otherwise), and the answer says which.

use crate::units::size;
use filterlab::any::{Detail, Plan};
use serde::Serialize;

mod choose;
mod needs;
mod refuse;
pub use needs::{Needs, GROWTH_DEFAULT_MAX};
pub use refuse::Refusal;

/// At most this many items, an exact set is mentioned as the better choice.
const TINY_N: u64 = 1000;

/// From this many bytes, sharding is mentioned.
const HUGE_BYTES: u64 = 4 << 30;

/// The FP rate if the real count is a multiple of the estimate.
#[derive(Debug, Serialize)]
pub struct WhatIf {
    /// Real items / estimated items.
    pub multiple: u64,
    /// The rate then, or `None` when inserts fail (a full cuckoo table).
    pub fpr: Option<f64>,
}

/// A recommendation.
#[derive(Debug, Serialize)]
pub struct Recommendation {
    /// The sized variant.
    pub plan: Plan,
    /// Its bytes at the items the request was judged at ([`Needs::judged_items`]): the plan's
    /// at `n`, or a growing filter's at its expected maximum when growth was asked for.
    pub judged_bytes: u64,
    /// The items the request was judged at.
    pub judged_items: u64,
    /// Why, in a few lines.
    pub why: Vec<String>,
    /// What to know before using it: costs, the budget, warnings.
    pub notes: Vec<String>,
    /// The rate at 2x and 10x the estimate.
    pub what_if: Vec<WhatIf>,
}

/// Recommends a variant, or refuses with the nearest requests that can be met.
///
/// # Errors
/// A [`Refusal`] when the needs cannot be met together.
pub fn recommend(needs: &Needs) -> Result<Recommendation, Refusal> {
    let choice = choose::evaluate(needs).map_err(|miss| refuse::refusal(needs, &miss))?;
    let (plan, judged, mut why) = (choice.sized.plan, choice.sized.judged, choice.why);
    if let Some(w) = needs.window {
        why.insert(0, w.reason(needs.n));
    }
    let mut notes = Vec::new();
    let caps = plan.variant.capabilities();
    if caps.grows {
        notes.extend(growth_costs(needs, &plan));
    }
    if let Some(budget) = needs.max_memory {
        notes.push(format!(
            "fits the budget{}: {} of {}",
            needs.judged_at(),
            size(judged),
            size(budget)
        ));
    }
    if let Detail::Cuckoo { slots, .. } = plan.detail {
        notes.push(format!(
            "a cuckoo filter holds at most 2b = {} copies of one key (its two buckets of {slots} \
             slots); insert a key once, or use a counting filter for multisets",
            2 * slots,
        ));
    }
    if caps.deletes {
        notes.push(DELETE_WARNING.into());
    }
    if caps.static_set {
        notes.push(
            "built once from the key set (`filterlab build` reads the whole key file): it takes \
             no later key and removes none; rebuild it when the set changes"
                .into(),
        );
    } else if plan.rate_at(needs.n.saturating_mul(2)).is_none() {
        notes.push(
            "the table is fixed: inserts fail once it is full (at most a little past n), so \
             size n generously"
                .into(),
        );
    }
    if caps.windowed && !caps.timed {
        notes.push(
            "it never fills: an item lives between 1 and 1 + 1/N windows, then is forgotten; \
             the rate stays at or under the target however long the stream"
                .into(),
        );
    }
    notes.extend(scale_notes(needs.n, judged));
    Ok(Recommendation {
        what_if: what_if(needs, &plan),
        plan,
        judged_bytes: judged,
        judged_items: needs.judged_items(),
        why,
        notes,
    })
}

/// Whether [`recommend`] answers `needs` (rather than refusing it), without ranking the
/// candidates: the test the searches for a refusal's nearest requests repeat.
pub fn answers(needs: &Needs) -> bool {
    choose::admits(needs)
}

/// The rate at 2x and 10x the estimate; none for a static filter (it holds exactly its set)
/// or a window of items (it forgets).
fn what_if(needs: &Needs, plan: &Plan) -> Vec<WhatIf> {
    let caps = plan.variant.capabilities();
    if caps.static_set || (caps.windowed && !caps.timed) {
        return Vec::new();
    }
    [2, 10]
        .into_iter()
        .map(|multiple| WhatIf {
            multiple,
            fpr: plan.rate_at(needs.n.saturating_mul(multiple)),
        })
        .collect()
}

/// What growth costs: the first stage's tighter rate; and, when growth was not asked for, what
/// the filter takes if it does grow.
fn growth_costs(needs: &Needs, plan: &Plan) -> Vec<String> {
    let mut notes = Vec::new();
    if let (&Detail::Scalable { p0, .. }, Ok(classic)) = (
        &plan.detail,
        filterlab::Variant::Classic.plan(&filterlab::Params::new(needs.n, needs.fpr)),
    ) {
        notes.push(format!(
            "the first stage is sized for P0 = {} rather than {}: {} instead of {} for a classic \
             filter of n items ({:+.0}%), the price of a compound rate that stays under the target",
            crate::units::pct(p0),
            crate::units::pct(needs.fpr),
            size(plan.bytes),
            size(classic.bytes),
            (plan.bytes as f64 / classic.bytes as f64 - 1.0) * 100.0
        ));
    }
    if !needs.growth {
        let max = needs.n.saturating_mul(GROWTH_DEFAULT_MAX);
        notes.push(format!(
            "it grows past n if more keys come: at {max} items ({GROWTH_DEFAULT_MAX}x n) it \
             takes {}; ask with --growth to have the budget judged there",
            size(plan.bytes_after(max))
        ));
    }
    notes
}

/// Notes for a tiny set (an exact set does better) and a huge one (sharding, the machine).
fn scale_notes(n: u64, bytes: u64) -> Vec<String> {
    let mut notes = Vec::new();
    if n <= TINY_N {
        notes.push(format!(
            "for {n} items an exact set (a hash set of the keys themselves) is small too and \
             never errs; a filter pays off for large sets or long keys"
        ));
    }
    let memory = machine_memory();
    if bytes >= HUGE_BYTES || memory.is_some_and(|m| bytes > m / 2) {
        let machine = memory.map_or(String::new(), |m| {
            format!(" (this machine has {} of memory)", size(m))
        });
        notes.push(format!(
            "{} is a lot for one process{machine}: shard the keys over several filters by a \
             hash of the key, each loaded where its queries run",
            size(bytes)
        ));
    }
    notes
}

/// Total memory of this machine, where the operating system says (Linux: `/proc/meminfo`).
fn machine_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The warning every deletable recommendation carries.
const DELETE_WARNING: &str = "remove only keys that were inserted: deleting a key never \
     inserted (one the filter reports present by a false positive) removes another key's \
     counters or fingerprint, and that key may then be reported absent";

#[cfg(test)]
mod tests;
