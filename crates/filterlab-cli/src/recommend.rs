//! `filterlab recommend`: which variant, sized how, and why; what happens if `n` was
//! underestimated; and, for a request no variant can meet, the reason and the nearest request
//! that can be met.

use crate::plan::{plan, Plan, Variant};
use filterlab::math;
use serde::Serialize;

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
    let plan = plan(variant, needs.n, needs.fpr).map_err(|e| Refusal {
        reason: e.to_string(),
        nearest: format!("filterlab recommend --n {} --fpr 0.01", needs.n),
    })?;
    if let Some(budget) = needs.max_memory {
        if plan.bytes > budget {
            return Err(over_budget(needs, &plan, budget));
        }
        why.push(format!("fits the budget: {} of {budget} bytes", plan.bytes));
    }
    let what_if = [2, 10]
        .into_iter()
        .map(|multiple| WhatIf {
            multiple,
            fpr: rate_at(&plan, needs.n.saturating_mul(multiple)),
        })
        .collect();
    Ok(Recommendation { plan, why, what_if })
}

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
            "and it can delete; inserts fail past about 95% load, so size n generously".into(),
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

/// The refusal for a budget that is too small, with the nearest rate and count that fit.
fn over_budget(needs: &Needs, plan: &Plan, budget: u64) -> Refusal {
    let v = plan.variant;
    let bytes_at = |n: u64, p: f64| crate::plan::plan(v, n, p).map_or(u64::MAX, |q| q.bytes);
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
    Refusal {
        reason: format!(
            "a {} filter for {} items at {} needs {} bytes, over the {budget}-byte budget",
            v.name(),
            needs.n,
            needs.fpr,
            plan.bytes
        ),
        nearest: match (fpr_fits, n_lo) {
            (true, 0) => format!("--fpr {nearest_fpr}"),
            (true, n) => format!("--fpr {nearest_fpr} (same n), or --n {n} (same fpr)"),
            (false, 0) => "a larger --max-memory".into(),
            (false, n) => format!("--n {n} (same fpr)"),
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
