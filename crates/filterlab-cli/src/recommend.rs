//! `filterlab recommend`: which variant, sized how, and why; what happens if `n` was
//! underestimated; and, for a request no variant can meet, the reason and the nearest request
//! that can be met.

use crate::units::{pct, size};
use crate::window::Window;
use filterlab::any::{Capabilities, Detail, Plan};
use filterlab::{Params, Variant};
use serde::Serialize;

mod needs;
pub use needs::{Needs, GROWTH_DEFAULT_MAX};

/// `variant` sized for `n` items at rate `p`.
fn sized(variant: Variant, n: u64, p: f64) -> filterlab::Result<Plan> {
    variant.plan(&Params::new(n, p))
}

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
    /// Why, in a few lines.
    pub why: Vec<String>,
    /// What to know before using it: costs, the budget, warnings.
    pub notes: Vec<String>,
    /// The rate at 2x and 10x the estimate.
    pub what_if: Vec<WhatIf>,
}

/// A request no variant can meet.
#[derive(Debug, Serialize)]
pub struct Refusal {
    /// Why.
    pub reason: String,
    /// The nearest request that can be met, as a command line.
    pub nearest: String,
}

/// Recommends a variant, or refuses with the nearest possible request.
///
/// # Errors
/// A [`Refusal`] when the needs cannot be met together.
pub fn recommend(needs: &Needs) -> Result<Recommendation, Refusal> {
    let (variant, mut why) = choose(needs)?;
    let mut notes = Vec::new();
    let mut params = Params::new(needs.n, needs.fpr);
    if let Some(w) = needs.window {
        why.insert(0, w.reason(needs.n));
        if let Window::Seconds(s) = w {
            params = params.window_ticks(s);
        }
    }
    let plan = variant.plan(&params).map_err(|e| Refusal {
        reason: e.to_string(),
        nearest: nearest_count(variant, needs.fpr),
    })?;
    let caps = variant.capabilities();
    let judged = judged_bytes(needs, &plan);
    if caps.grows {
        notes.extend(growth_costs(needs, &plan, judged));
    }
    if let Some(budget) = needs.max_memory {
        if judged > budget {
            return Err(over_budget(needs, &plan, judged, budget));
        }
        notes.push(format!(
            "fits the budget: {} of {}",
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
            "the table is fixed: inserts fail once it is full (about 95% load), so size n \
             generously"
                .into(),
        );
    }
    if caps.windowed && !caps.timed {
        notes.push(
            "it never fills: an item lives between 1 and 1 + 1/N windows, then is forgotten; the rate stays at or under the target however long the stream"
                .into(),
        );
    }
    notes.extend(scale_notes(needs.n, judged));
    // A static filter holds exactly its set, a window of items forgets: no what-if.
    let multiples = if caps.static_set || (caps.windowed && !caps.timed) {
        &[][..]
    } else {
        &[2, 10][..]
    };
    let what_if = multiples
        .iter()
        .copied()
        .map(|multiple| WhatIf {
            multiple,
            fpr: plan.rate_at(needs.n.saturating_mul(multiple)),
        })
        .collect();
    Ok(Recommendation {
        plan,
        why,
        notes,
        what_if,
    })
}

/// The items a growing filter is judged at: `--max-n`, or [`GROWTH_DEFAULT_MAX`] x `n`.
fn expected_max(needs: &Needs) -> u64 {
    needs
        .max_n
        .unwrap_or(needs.n.saturating_mul(GROWTH_DEFAULT_MAX))
        .max(needs.n)
}

/// The bytes the budget is judged against: a growing filter's at its expected maximum.
fn judged_bytes(needs: &Needs, plan: &Plan) -> u64 {
    plan.bytes_after(expected_max(needs))
}

/// What growth costs: the first stage's tighter rate, and the memory at the expected maximum.
fn growth_costs(needs: &Needs, plan: &Plan, judged: u64) -> Vec<String> {
    let mut why = Vec::new();
    if let (&Detail::Scalable { p0, .. }, Ok(classic)) =
        (&plan.detail, sized(Variant::Classic, needs.n, needs.fpr))
    {
        why.push(format!(
            "the first stage is sized for P0 = {} rather than {}: {} instead of {} for a classic \
             filter of n items ({:+.0}%), the price of a compound rate that stays under the target",
            pct(p0),
            pct(needs.fpr),
            size(plan.bytes),
            size(classic.bytes),
            (plan.bytes as f64 / classic.bytes as f64 - 1.0) * 100.0
        ));
    }
    let max = expected_max(needs);
    why.push(format!(
        "at its expected maximum of {max} items ({}x n{}) it takes {}",
        max / needs.n.max(1),
        if needs.max_n.is_some() {
            ", --max-n"
        } else {
            ", the default; set --max-n"
        },
        size(judged)
    ));
    why
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

/// The largest count `variant` can be sized for at `fpr`, as a request.
fn nearest_count(variant: Variant, fpr: f64) -> String {
    let (mut lo, mut hi) = (0u64, u64::MAX);
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if sized(variant, mid, fpr).is_ok() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    match lo {
        0 => "a larger --fpr".into(),
        n => format!("--n {n} (same fpr)"),
    }
}

/// The warning every deletable recommendation carries.
const DELETE_WARNING: &str = "remove only keys that were inserted: deleting a key never \
     inserted (one the filter reports present by a false positive) corrupts counting and \
     cuckoo filters, and another key may then be reported absent";

/// The names of `variants`, comma-separated.
fn names(variants: &[Variant]) -> String {
    variants
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The variants a request with these needs may get: those with every capability asked for,
/// built once from the set when it is fixed and filled by inserts otherwise, windowed (of the
/// kind asked) when a window is asked for and not otherwise.
fn candidates(needs: &Needs) -> Vec<Variant> {
    let fits = |c: Capabilities| {
        (!needs.deletes || c.deletes)
            && (!needs.growth || c.grows)
            && c.static_set == needs.fixed_set
            && needs.window.map_or(!c.windowed, |w| w.fits(c))
    };
    Variant::ALL
        .iter()
        .copied()
        .filter(|v| fits(v.capabilities()))
        .collect()
}

/// The smallest of `variants` for the needs' `n` and rate with its bytes (`u64::MAX` when
/// none can be sized), among those within the budget when any is.
fn smallest(needs: &Needs, variants: &[Variant]) -> Option<(Variant, u64)> {
    let sized: Vec<(Variant, u64)> = variants
        .iter()
        .map(|&v| {
            (
                v,
                sized(v, needs.n, needs.fpr).map_or(u64::MAX, |p| p.bytes),
            )
        })
        .collect();
    let fits = |b: u64| needs.max_memory.is_none_or(|m| b <= m);
    let within: Vec<(Variant, u64)> = sized.iter().copied().filter(|&(_, b)| fits(b)).collect();
    let pool = if within.is_empty() { &sized } else { &within };
    // The first of the smallest, in the registry's order.
    pool.iter().copied().min_by_key(|&(_, b)| b)
}

/// Picks the variant from the needs and the registry's capabilities, with the reasons.
fn choose(needs: &Needs) -> Result<(Variant, Vec<String>), Refusal> {
    let pool = candidates(needs);
    // A one-cache-line variant trades memory for lookup speed: it is chosen for many threads
    // (below), not as the smallest.
    let compact: Vec<Variant> = pool
        .iter()
        .copied()
        .filter(|v| !v.capabilities().one_line_lookup)
        .collect();
    let by_size = if compact.is_empty() { &pool } else { &compact };
    let Some((chosen, bytes)) = smallest(needs, by_size) else {
        return Err(no_variant_fits(needs));
    };
    let others: Vec<String> = by_size
        .iter()
        .filter(|&&v| v != chosen)
        .map(|&v| {
            let b = sized(v, needs.n, needs.fpr).map_or("too large".into(), |p| size(p.bytes));
            format!("{v} {b}")
        })
        .collect();
    let against = if others.is_empty() {
        String::new()
    } else {
        format!(" (against {})", others.join(", "))
    };
    let mut why = needs_reasons(needs, chosen, &pool);
    if needs.threads > 1 {
        let fast: Vec<Variant> = pool
            .iter()
            .copied()
            .filter(|v| v.capabilities().one_line_lookup)
            .collect();
        let within = |v: &(Variant, u64)| needs.max_memory.is_none_or(|m| v.1 <= m);
        if let Some(fast) = smallest(needs, &fast).filter(within) {
            return Ok((fast.0, threads_reasons(needs, fast, (chosen, bytes))));
        }
    }
    why.push(format!(
        "the {chosen} filter is the smallest here: {}{against}",
        size(bytes)
    ));
    if let Some((fast, fast_bytes)) = pool
        .iter()
        .copied()
        .filter(|v| v.capabilities().one_line_lookup && *v != chosen)
        .find_map(|v| sized(v, needs.n, needs.fpr).ok().map(|p| (v, p.bytes)))
    {
        why.push(format!(
            "for faster lookups (one cache line) a {fast} filter costs {:+.1}% memory",
            (fast_bytes as f64 / bytes as f64 - 1.0) * 100.0
        ));
    }
    Ok((chosen, why))
}

/// The refusal when no variant has every capability asked for, with the nearest call that works.
fn no_variant_fits(needs: &Needs) -> Refusal {
    let with = |has: fn(Capabilities) -> bool| Variant::names_with(has);
    Refusal {
        reason: format!(
            "no variant has every capability asked for (variants that delete: {}; that \
             grow: {})",
            with(|c| c.deletes),
            with(|c| c.grows)
        ),
        nearest: format!(
            "filterlab recommend --n {} --fpr {} --deletes   (size n for the largest count you expect)",
            needs.n.saturating_mul(10),
            needs.fpr
        ),
    }
}

/// The reasons the needs themselves give (deletes, growth, a fixed set) for `chosen` out of `pool`.
fn needs_reasons(needs: &Needs, chosen: Variant, pool: &[Variant]) -> Vec<String> {
    let mut why = Vec::new();
    if needs.deletes {
        why.push(match pool {
            [only] => format!("deletes needed: of the variants that fit, only {only} deletes"),
            _ => format!(
                "deletes needed: the variants that delete are {}",
                names(pool)
            ),
        });
    }
    if needs.growth {
        why.push(format!(
            "the count grows: the {chosen} filter adds capacity and never fails an insert"
        ));
    }
    if needs.fixed_set {
        why.push(format!(
            "the set is known and fixed: a static filter solves for all its keys at once, \
             nearer the n log2(1/p) bound than any filter filled by inserts ({})",
            names(pool)
        ));
    }
    why
}

/// Why a one-cache-line variant for many threads, and what it costs over the smallest.
fn threads_reasons(needs: &Needs, fast: (Variant, u64), small: (Variant, u64)) -> Vec<String> {
    vec![
        format!(
            "{} threads query it: the {} filter reads one cache line per lookup, not k",
            needs.threads, fast.0
        ),
        format!(
            "it costs {:+.1}% memory over the {} filter for that",
            (fast.1 as f64 / small.1 as f64 - 1.0) * 100.0,
            small.0
        ),
    ]
}

/// The refusal for a budget that is too small, with the nearest rate and count that fit
/// (a growing filter judged at the same multiple of n).
fn over_budget(needs: &Needs, plan: &Plan, judged: u64, budget: u64) -> Refusal {
    let v = plan.variant;
    let times = expected_max(needs) / needs.n.max(1);
    let bytes_at = |n: u64, p: f64| {
        let needs = Needs {
            n,
            fpr: p,
            max_n: Some(n.saturating_mul(times)),
            ..*needs
        };
        sized(v, n, p).map_or(u64::MAX, |q| judged_bytes(&needs, &q))
    };
    // Bisection on log p for the lowest rate that fits, and on n for the largest count.
    let (mut lo, mut hi) = (needs.fpr.ln(), (0.5f64).ln());
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if bytes_at(needs.n, mid.exp()) > budget {
            lo = mid
        } else {
            hi = mid
        }
    }
    let nearest_fpr = round_up_3(hi.exp());
    let (mut n_lo, mut n_hi) = (0u64, needs.n);
    while n_lo + 1 < n_hi {
        let mid = n_lo + (n_hi - n_lo) / 2;
        if bytes_at(mid, needs.fpr) > budget {
            n_hi = mid
        } else {
            n_lo = mid
        }
    }
    let fpr_fits = bytes_at(needs.n, nearest_fpr) <= budget;
    let grows = v.capabilities().grows;
    let growing = if grows {
        format!(" when grown to {} items", expected_max(needs))
    } else {
        String::new()
    };
    let count = if grows {
        format!(
            "--n {n_lo} --max-n {} (same fpr)",
            n_lo.saturating_mul(times)
        )
    } else {
        format!("--n {n_lo} (same fpr)")
    };
    Refusal {
        reason: format!(
            "the {} filter for {} items at {} needs {} bytes{growing}, over the {budget}-byte budget",
            v.name(),
            needs.n,
            needs.fpr,
            judged
        ),
        nearest: match (fpr_fits, n_lo) {
            (true, 0) => format!("--fpr {nearest_fpr}"),
            (true, _) => format!("--fpr {nearest_fpr} (same n), or {count}"),
            (false, 0) => "a larger --max-memory".into(),
            (false, _) => count,
        },
    }
}

/// `p` rounded *up* to three significant digits, so a printed suggestion still fits.
fn round_up_3(p: f64) -> f64 {
    let scale = 10f64.powi(p.log10().floor() as i32 - 2);
    let r = (p / scale).ceil() * scale;
    // Printing through a shortest decimal string keeps `0.2` from showing as `0.20000000000000001`.
    format!("{r:.*}", (2 - p.log10().floor() as i32).max(0) as usize)
        .parse()
        .unwrap_or(r)
}

#[cfg(test)]
mod tests;
