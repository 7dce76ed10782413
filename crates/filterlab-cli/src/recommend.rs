//! `filterlab recommend`: which variant, sized how, and why; what happens if `n` was
//! underestimated; and, for a request no variant can meet, the reason and the nearest request
//! that can be met.

use crate::plan::{plan, scalable_at, Plan, Variant};
use crate::render::{pct, size};
use filterlab::{cuckoo, math};
use serde::Serialize;

/// With `--growth` and no `--max-n`: the budget is judged at this multiple of `n`, the largest
/// the growth table shows.
pub const GROWTH_DEFAULT_MAX: u64 = 10;

/// At most this many items, an exact set is mentioned as the better choice.
const TINY_N: u64 = 1000;

/// From this many bytes, sharding is mentioned.
const HUGE_BYTES: u64 = 4 << 30;

/// What the user needs.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// Expected items.
    pub n: u64,
    /// Target rate.
    pub fpr: f64,
    /// Items must be removable.
    pub deletes: bool,
    /// The item count is unknown or grows.
    pub growth: bool,
    /// With `growth`: the most items expected (default [`GROWTH_DEFAULT_MAX`] x `n`).
    pub max_n: Option<u64>,
    /// Memory budget in bytes.
    pub max_memory: Option<u64>,
    /// Threads that will query the filter.
    pub threads: u32,
}

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
    let (variant, why) = choose(needs)?;
    let mut notes = Vec::new();
    let plan = plan(variant, needs.n, needs.fpr).map_err(|e| Refusal {
        reason: e.to_string(),
        nearest: nearest_count(variant, needs.fpr),
    })?;
    let judged = judged_bytes(needs, &plan);
    if variant == Variant::Scalable {
        notes.extend(scalable_costs(needs, &plan, judged));
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
    if variant == Variant::Cuckoo {
        notes.push(format!(
            "a cuckoo filter holds at most 2b = {} copies of one key (its two buckets of {} \
             slots); insert a key once, or use a counting filter for multisets",
            2 * cuckoo::SLOTS,
            cuckoo::SLOTS
        ));
    }
    if matches!(variant, Variant::Cuckoo | Variant::Counting) {
        notes.push(DELETE_WARNING.into());
    }
    notes.extend(scale_notes(needs.n, judged));
    let what_if = [2, 10]
        .into_iter()
        .map(|multiple| WhatIf {
            multiple,
            fpr: rate_at(&plan, needs.n.saturating_mul(multiple)),
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
    if plan.variant == Variant::Scalable {
        scalable_at(needs.n, needs.fpr, expected_max(needs)).map_or(u64::MAX, |g| g.bytes)
    } else {
        plan.bytes
    }
}

/// What growth costs: the first stage's tighter rate, and the memory at the expected maximum.
fn scalable_costs(needs: &Needs, plan: &Plan, judged: u64) -> Vec<String> {
    let mut why = Vec::new();
    if let (crate::plan::Detail::Scalable { p0, .. }, Ok(classic)) = (
        &plan.detail,
        crate::plan::plan(Variant::Classic, needs.n, needs.fpr),
    ) {
        why.push(format!(
            "the first stage is sized for P0 = {} rather than {}: {} instead of {} for a classic \
             filter of n items ({:+.0}%), the price of a compound rate that stays under the target",
            pct(*p0),
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
        if plan(variant, mid, fpr).is_ok() {
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

/// Picks the variant from the needs alone, with the reasons.
fn choose(needs: &Needs) -> Result<(Variant, Vec<String>), Refusal> {
    match (needs.deletes, needs.growth) {
        (true, true) => Err(Refusal {
            reason: "no variant both deletes and grows: a cuckoo table is fixed-size, a \
                     scalable filter cannot remove"
                .into(),
            nearest: format!(
                "filterlab recommend --n {} --fpr {} --deletes   (size n for the largest count you expect)",
                needs.n.saturating_mul(10),
                needs.fpr
            ),
        }),
        (true, false) => {
            let cuckoo_ok = math::cuckoo_fingerprint_bits(needs.fpr, 4).is_ok_and(|f| f <= 32);
            if cuckoo_ok {
                Ok((Variant::Cuckoo, vec![
                    "deletes needed: a cuckoo filter removes items at about classic memory".into(),
                    "a counting filter would also delete, at 4 bits per classic bit (4x the memory)".into(),
                    "the table is fixed: inserts fail past about 95% load, so size n generously".into(),
                ]))
            } else {
                Ok((Variant::Counting, vec![
                    "deletes needed, and the rate is too low for 32-bit cuckoo fingerprints".into(),
                    "a counting filter deletes at 4x the memory of a classic filter".into(),
                ]))
            }
        }
        (false, true) => Ok((Variant::Scalable, vec![
            "the count grows: a scalable filter adds stages and never fails an insert".into(),
            "each stage tightens its rate by r = 0.9 so the compound rate stays under the target".into(),
        ])),
        (false, false) => Ok(choose_fixed(needs)),
    }
}

/// A fixed, insert-only set: the smallest of classic and cuckoo, or split-block for throughput.
fn choose_fixed(needs: &Needs) -> (Variant, Vec<String>) {
    let size = |v| plan(v, needs.n, needs.fpr).map_or(u64::MAX, |p| p.bytes);
    let (classic, cuckoo, blocked) = (
        size(Variant::Classic),
        size(Variant::Cuckoo),
        size(Variant::Blocked),
    );
    let fits = |b: u64| needs.max_memory.is_none_or(|m| b <= m);
    if needs.threads > 1 && fits(blocked) {
        return (Variant::Blocked, vec![
            format!("{} threads query it: a split-block filter reads one cache line per lookup, not k", needs.threads),
            format!("it costs {:+.1}% memory over a classic filter for that", (blocked as f64 / classic as f64 - 1.0) * 100.0),
        ]);
    }
    if cuckoo < classic && fits(cuckoo) {
        return (Variant::Cuckoo, vec![
            format!("at this rate a cuckoo filter is smaller than a classic one ({cuckoo} vs {classic} bytes)"),
            "it can also delete; its inserts fail past about 95% load, so size n generously".into(),
        ]);
    }
    (Variant::Classic, vec![
        format!("a fixed, insert-only set: a classic filter is the smallest here ({classic} bytes; cuckoo {cuckoo})"),
        format!("for faster lookups (one cache line) a split-block filter costs {:+.1}% memory", (blocked as f64 / classic as f64 - 1.0) * 100.0),
    ])
}

/// The rate of `plan`'s filter after `items` inserts, `None` if it cannot hold them.
pub fn rate_at(plan: &Plan, items: u64) -> Option<f64> {
    use crate::plan::Detail;
    match &plan.detail {
        Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
            Some(math::classic_fpr_best(*m, items, *k))
        }
        Detail::Blocked { blocks, .. } => Some(math::split_block_fpr(*blocks, items)),
        Detail::Cuckoo {
            fingerprint_bits,
            buckets,
            slots,
            ..
        } => {
            let load = items as f64 / (*buckets as f64 * f64::from(*slots));
            (load <= filterlab::cuckoo::DESIGN_LOAD + 1e-9)
                .then(|| math::cuckoo_fpr(*fingerprint_bits, *slots, load))
        }
        Detail::Scalable { growth, .. } => {
            let multiple = items / plan.n.max(1);
            growth
                .iter()
                .find(|g| g.multiple == multiple)
                .map(|g| g.compound_fpr)
        }
    }
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
        crate::plan::plan(v, n, p).map_or(u64::MAX, |q| judged_bytes(&needs, &q))
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
    let growing = if v == Variant::Scalable {
        format!(" when grown to {} items", expected_max(needs))
    } else {
        String::new()
    };
    let count = match (v, n_lo) {
        (Variant::Scalable, n) => format!("--n {n} --max-n {} (same fpr)", n.saturating_mul(times)),
        (_, n) => format!("--n {n} (same fpr)"),
    };
    Refusal {
        reason: format!(
            "a {} filter for {} items at {} needs {} bytes{growing}, over the {budget}-byte budget",
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
mod tests {
    use super::*;

    fn needs(n: u64, fpr: f64) -> Needs {
        Needs {
            n,
            fpr,
            deletes: false,
            growth: false,
            max_n: None,
            max_memory: None,
            threads: 1,
        }
    }

    #[test]
    fn capabilities_pick_the_variant() {
        assert_eq!(
            recommend(&needs(10_000_000, 0.01)).unwrap().plan.variant,
            Variant::Classic
        );
        let d = Needs {
            deletes: true,
            ..needs(1000, 0.01)
        };
        assert_eq!(recommend(&d).unwrap().plan.variant, Variant::Cuckoo);
        let g = Needs {
            growth: true,
            ..needs(1000, 0.01)
        };
        assert_eq!(recommend(&g).unwrap().plan.variant, Variant::Scalable);
        let t = Needs {
            threads: 8,
            ..needs(1000, 0.01)
        };
        assert_eq!(recommend(&t).unwrap().plan.variant, Variant::Blocked);
        // At 0.01% the cuckoo filter is smaller than the classic one.
        assert_eq!(
            recommend(&needs(1000, 1e-4)).unwrap().plan.variant,
            Variant::Cuckoo
        );
        assert!(recommend(&Needs {
            deletes: true,
            growth: true,
            ..needs(1000, 0.01)
        })
        .is_err());
    }

    #[test]
    fn what_if_shows_the_rate_rising_with_an_underestimate() {
        let r = recommend(&needs(1_000_000, 0.01)).unwrap();
        let at = |m| {
            r.what_if
                .iter()
                .find(|w| w.multiple == m)
                .unwrap()
                .fpr
                .unwrap()
        };
        assert!(at(2) > r.plan.expected_fpr && at(10) > at(2));
    }

    #[test]
    fn a_small_budget_is_refused_with_a_request_that_fits() {
        let n = 10_000_000;
        let r = recommend(&Needs {
            max_memory: Some(4 << 20),
            ..needs(n, 0.01)
        })
        .unwrap_err();
        assert!(r.reason.contains("budget"), "{}", r.reason);
        assert!(
            r.nearest.contains("--fpr") && r.nearest.contains("--n"),
            "{}",
            r.nearest
        );
        // The nearest rate really fits and is not far from the edge.
        let fpr: f64 = r
            .nearest
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let at = |p| plan(Variant::Classic, n, p).unwrap().bytes;
        assert!(at(fpr) <= 4 << 20 && at(fpr * 0.99) > 4 << 20, "{fpr}");
        assert!(recommend(&Needs {
            max_memory: Some(64 << 20),
            ..needs(n, 0.01)
        })
        .is_ok());
    }
}
