//! Which variant a request gets: the variants with every capability asked for, each sized for
//! `n` and judged at the request's [`Needs::judged_items`] (ranked and checked against the
//! budget at the same number of items), the smallest that fits.

use super::needs::Needs;
use super::refuse;
use crate::units::size;
use crate::window::Window;
use filterlab::any::Plan;
use filterlab::{Capabilities, Params, Variant};

/// A variant sized for a request.
#[derive(Clone, Debug)]
pub(super) struct Sized {
    /// The plan for `n` items (what `calc` shows).
    pub plan: Plan,
    /// Its bytes at the request's judged items ([`Needs::judged_items`]).
    pub judged: u64,
}

/// Why a request has no answer.
#[derive(Debug)]
pub(super) enum Miss {
    /// No variant has every capability asked for.
    NoCapability,
    /// No candidate can be sized for `n` items at the rate: each one's refusal, in the
    /// registry's order.
    Unsizable(Vec<(Variant, filterlab::Error)>),
    /// Every candidate is over the budget: the smallest, and its bytes where judged.
    OverBudget {
        /// The smallest candidate.
        variant: Variant,
        /// Its bytes at the judged items.
        judged: u64,
    },
}

/// A variant chosen for a request, with the reasons.
#[derive(Debug)]
pub(super) struct Choice {
    /// The variant, sized.
    pub sized: Sized,
    /// Why, in a few lines.
    pub why: Vec<String>,
}

/// The registry's parameters for a request (a window counted in time takes its length).
fn params(needs: &Needs) -> Params {
    let params = Params::new(needs.n, needs.fpr);
    match needs.window {
        Some(Window::Seconds(s)) => params.window_ticks(s),
        _ => params,
    }
}

/// `variant` sized for the request, and its bytes at the judged items; refused when its plan
/// expects more than the target at `n` (the scalable filter's stages cap `k` at 64, so below
/// about 1e-20 they miss their rates: never an answer).
pub(super) fn sized(needs: &Needs, variant: Variant) -> filterlab::Result<Sized> {
    // The Aleph filter sizes its first table for a growth estimate when there is one.
    let params = match (variant, needs.max_n) {
        (Variant::Aleph, Some(n)) => params(needs).max_n(n),
        _ => params(needs),
    };
    let plan = variant.plan(&params)?;
    if plan.expected_fpr > needs.fpr {
        return Err(filterlab::Error::InvalidParameter {
            name: "fpr",
            value: filterlab::math::format_real(needs.fpr),
            expected: "a rate this variant's sizing meets at n (`filterlab calc` shows the \
                       rate its plan expects)",
        });
    }
    let judged = plan.bytes_after(needs.judged_items());
    Ok(Sized { plan, judged })
}

/// The variants a request with these needs may get: those with every capability asked for,
/// built once from the set when it is fixed and filled by inserts otherwise, windowed (of the
/// kind asked) when a window is asked for and not otherwise.
pub(super) fn candidates(needs: &Needs) -> Vec<Variant> {
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

/// The answer to a request, or why there is none. A fixed set that no static filter meets
/// (below their lowest rate, or over the budget) gets the smallest filter filled by inserts
/// that does, with the reason.
pub(super) fn evaluate(needs: &Needs) -> Result<Choice, Miss> {
    if !needs.fixed_set {
        return choose_from(needs, &candidates(needs));
    }
    let inserted = Needs {
        fixed_set: false,
        ..*needs
    };
    let by_inserts = choose_from(&inserted, &candidates(&inserted));
    match (choose_from(needs, &candidates(needs)), by_inserts) {
        (Err(miss), Ok(mut choice)) => {
            choice.why.insert(0, refuse::static_fallback(needs, &miss));
            Ok(choice)
        }
        // A static table has a floor of its own, which a small set does not fill: at 10 and
        // 100 keys at 1% a classic filter is smaller (16 B against 48 B, 128 B against 168 B).
        (Ok(fixed), Ok(mut choice)) if choice.sized.judged < fixed.sized.judged => {
            choice
                .why
                .insert(0, smaller_than_static(needs, &fixed.sized, &choice.sized));
            Ok(choice)
        }
        (fixed, _) => fixed,
    }
}

/// Why a fixed set gets a filter filled by inserts that is smaller than every static one.
fn smaller_than_static(needs: &Needs, fixed: &Sized, chosen: &Sized) -> String {
    format!(
        "the set is known and fixed, but at {} keys the smallest filter built once from it, {}, \
         takes {} against {} for the {} filter: a static table has a floor a small set does not \
         fill (a binary fuse filter's whole segments, a ribbon filter's 128-column band past \
         its last start), so a filter filled by inserts is the smaller here (`filterlab build` \
         inserts the keys one by one)",
        needs.n,
        fixed.plan.variant,
        size(fixed.judged),
        size(chosen.judged),
        chosen.plan.variant
    )
}

/// Whether the request has an answer: what `evaluate(needs).is_ok()` says, without ranking
/// (it stops at the first candidate that fits). The searches for the nearest requests ask it
/// many times.
pub(super) fn admits(needs: &Needs) -> bool {
    let any_fits = |needs: &Needs| {
        candidates(needs)
            .into_iter()
            .any(|v| sized(needs, v).is_ok_and(|s| needs.max_memory.is_none_or(|m| s.judged <= m)))
    };
    any_fits(needs)
        || (needs.fixed_set
            && any_fits(&Needs {
                fixed_set: false,
                ..*needs
            }))
}

/// The smallest of `pool` within the budget; a one-cache-line variant (which trades memory for
/// lookup speed) only for many threads or when nothing else fits.
fn choose_from(needs: &Needs, pool: &[Variant]) -> Result<Choice, Miss> {
    if pool.is_empty() {
        return Err(Miss::NoCapability);
    }
    let (mut ok, mut refused) = (Vec::new(), Vec::new());
    for &v in pool {
        match sized(needs, v) {
            Ok(s) => ok.push(s),
            Err(e) => refused.push((v, e)),
        }
    }
    let sized = ok;
    let fits = |s: &Sized| needs.max_memory.is_none_or(|m| s.judged <= m);
    let one_line = |s: &Sized| s.plan.variant.capabilities().one_line_lookup;
    // The first of the smallest, in the registry's order.
    let smallest = |keep: &dyn Fn(&Sized) -> bool| {
        sized
            .iter()
            .filter(|s| keep(s))
            .min_by_key(|s| s.judged)
            .cloned()
    };
    let Some(overall) = smallest(&|_| true) else {
        return Err(Miss::Unsizable(refused));
    };
    let Some(chosen) = smallest(&|s| !one_line(s) && fits(s)).or_else(|| smallest(&fits)) else {
        return Err(Miss::OverBudget {
            variant: overall.plan.variant,
            judged: overall.judged,
        });
    };
    if needs.threads > 1 {
        if let Some(fast) = smallest(&|s| one_line(s) && fits(s)) {
            let why = threads_reasons(needs, &fast, &chosen);
            return Ok(Choice { sized: fast, why });
        }
    }
    let mut why = needs_reasons(needs, chosen.plan.variant, pool);
    why.push(smallest_reason(needs, &chosen, &overall, &sized, &refused));
    why.extend(estimate_reason(needs, &chosen));
    if let Some(fast) = sized.iter().find(|s| one_line(s) && !one_line(&chosen)) {
        why.push(format!(
            "for faster lookups (one cache line) a {} filter costs {:+.1}% memory",
            fast.plan.variant,
            (fast.judged as f64 / chosen.judged as f64 - 1.0) * 100.0
        ));
    }
    Ok(Choice { sized: chosen, why })
}

/// "The X filter is the smallest here", at the items it was judged at, against the others.
fn smallest_reason(
    needs: &Needs,
    chosen: &Sized,
    overall: &Sized,
    sized: &[Sized],
    refused: &[(Variant, filterlab::Error)],
) -> String {
    let others: Vec<String> = sized
        .iter()
        .filter(|s| {
            s.plan.variant != chosen.plan.variant && !s.plan.variant.capabilities().one_line_lookup
        })
        .map(|s| format!("{} {}", s.plan.variant, size(s.judged)))
        .chain(
            refused
                .iter()
                .map(|(v, _)| format!("{v} cannot be sized for this")),
        )
        .collect();
    let against = if others.is_empty() {
        String::new()
    } else {
        format!(" (against {})", others.join(", "))
    };
    let which = if chosen.judged <= overall.judged {
        "the smallest here"
    } else {
        "the smallest within the budget"
    };
    format!(
        "the {} filter is {which}{}: {}{against}",
        chosen.plan.variant,
        needs.judged_at(),
        size(chosen.judged)
    )
}

/// For a chosen Aleph filter: what the growth estimate (`--max-n`) saves where the request is
/// judged, or would save if one were given (at the default, ten times `n`).
fn estimate_reason(needs: &Needs, chosen: &Sized) -> Option<String> {
    if chosen.plan.variant != Variant::Aleph {
        return None;
    }
    let at = needs.judged_items();
    let without = Variant::Aleph.plan(&params(needs)).ok()?.bytes_after(at);
    let told = Variant::Aleph
        .plan(&params(needs).max_n(at))
        .ok()?
        .bytes_after(at);
    let saved = (1.0 - told as f64 / without as f64) * 100.0;
    Some(match needs.max_n {
        Some(n) => format!(
            "the growth estimate --max-n {n} sizes its table to reach {n} with a static \
             filter's fingerprints: {} there, against {} without an estimate ({saved:.0}% less)",
            size(told),
            size(without)
        ),
        None => format!(
            "told the most items it will hold (--max-n), it would take {} at {at}, not {} \
             ({saved:.0}% less)",
            size(told),
            size(without)
        ),
    })
}

/// The names of `variants`, comma-separated.
fn names(variants: &[Variant]) -> String {
    variants
        .iter()
        .map(|v| v.name())
        .collect::<Vec<_>>()
        .join(", ")
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
fn threads_reasons(needs: &Needs, fast: &Sized, small: &Sized) -> Vec<String> {
    vec![
        format!(
            "{} threads query it: the {} filter reads one cache line per lookup, not k",
            needs.threads, fast.plan.variant
        ),
        format!(
            "it costs {:+.1}% memory over the {} filter for that",
            (fast.judged as f64 / small.judged as f64 - 1.0) * 100.0,
            small.plan.variant
        ),
    ]
}
