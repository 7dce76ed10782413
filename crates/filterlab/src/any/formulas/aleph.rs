//! The Aleph filter's formulas with a plan's numbers, and its one-line description.

use super::{rate, Formula};
use crate::aleph::math::{self as am, Widening};
use crate::any::sizing::{Detail, Plan};

/// The rate after `k` doublings, the widening policy's fingerprint bits, and the bits per key
/// at the plan's capacity and ten and a thousand times it.
pub(super) fn aleph_formulas(plan: &Plan) -> Vec<Formula> {
    let Detail::Aleph {
        quotients,
        target,
        planned,
        bound,
        ..
    } = plan.detail
    else {
        return Vec::new();
    };
    let Ok(w) = Widening::new(target, planned) else {
        return Vec::new();
    };
    let policy = match planned {
        Some(k) => format!(
            "estimate reached after K = {k} doublings: F_x = F + K - x with F = {} bits",
            am::estimated_bits(target)
        ),
        None => format!(
            "no estimate: F_0 = {}, F_1 = {}, F_10 = {} bits",
            w.fingerprint_bits(0),
            w.fingerprint_bits(1),
            w.fingerprint_bits(10)
        ),
    };
    let mut out = vec![
        Formula {
            name: "false-positive rate after k doublings",
            symbolic: "FP(k) = 1 - exp(-Σ_{x≤k} λ_x 2^-F_x),  λ_0 = 0.95, λ_x = 0.475",
            substituted: format!("{policy}; bound over every doubling {}", rate(bound)),
            source: "Dayan, Bercea & Pagh 2024 (Aleph), §4; each generation adds λ_x 2^-F_x \
                     whatever k is, void entries included",
        },
        Formula {
            name: "fingerprint bits of generation x",
            symbolic: "F_x = ceil(log2(λ_x (x+1)(x+2) / ε)), or F + K - x up to an estimate",
            substituted: format!("Q0 = {quotients} quotients, slot width {}", w.slot_width(0)),
            source: "a budget ε/((x+1)(x+2)) per generation sums to ε (InfiniFilter's widening, \
                     Dayan et al. 2023, §4)",
        },
    ];
    for times in [1u64, 10, 1000] {
        let items = plan.n.saturating_mul(times);
        if let Some((k, q, p)) = w.after_inserts(quotients, items) {
            let load = items as f64 / q as f64;
            out.push(Formula {
                name: "bits per key as it grows",
                symbolic: "C = (w_k + 2.5) / α,  w_k = max_x (F_x - (k - x)) + 1",
                substituted: format!(
                    "{items} keys: k = {k}, w = {}, α = {load:.3}: {:.2} bits per key, rate {}",
                    w.slot_width(k),
                    am::bits_per_key(w.slot_width(k), load),
                    rate(p)
                ),
                source: "the rank-and-select table's 2.5 metadata bits per slot, the marker bit",
            });
        }
    }
    out
}

/// The plan's table and policy in one line.
pub(super) fn aleph_lines(detail: &Detail) -> Vec<String> {
    match detail {
        Detail::Aleph {
            quotients,
            slot_width,
            fingerprint_bits,
            doublings,
            planned,
            bound,
            ..
        } => vec![format!(
            "{quotients} quotients after {doublings} doublings, {slot_width}-bit slots, \
             new keys get {fingerprint_bits} fingerprint bits; {}; bound {}",
            planned.map_or("no estimate".into(), |k| format!(
                "estimate at {k} doublings"
            )),
            rate(*bound)
        )],
        _ => Vec::new(),
    }
}
