//! The windows' formulas with a plan's numbers (`filterlab explain`) and their shape in one line
//! (`filterlab calc`).

use super::super::formulas::{rate, Formula};
use super::super::sizing::{Detail, Plan};
use crate::math::{self, window as wm};

/// The formulas of a window's plan; none for another variant.
pub(crate) fn window_formulas(plan: &Plan) -> Vec<Formula> {
    let p = plan.fpr;
    match plan.detail {
        Detail::Sliced {
            generations,
            per_generation,
            m,
            k,
        } => {
            let mut out = sliced(p, generations, per_generation, m, k);
            out.push(Formula {
                name: "lifetime",
                symbolic: "found for the last w inserts; gone after (N + 1) g (1 + 1/N windows)",
                substituted: format!(
                    "w = {}, (N + 1) g = {}",
                    plan.n,
                    u64::from(generations + 1) * per_generation
                ),
                source: "filter-window: the oldest generation leaves when N + 1 newer ones began",
            });
            out
        }
        Detail::TimeSliced {
            window_ticks,
            slice_ticks,
            generations,
            per_generation,
            m,
            k,
        } => {
            let mut out = sliced(p, generations, per_generation, m, k);
            out.push(Formula {
                name: "slices of time",
                symbolic: "slice = ceil(T / N); a key inserted at t is found before t + T, gone \
                           from t + (N + 1) slice",
                substituted: format!(
                    "T = {window_ticks} ticks, slice = {slice_ticks}, gone after {} ticks",
                    u64::from(generations + 1) * slice_ticks
                ),
                source: "time-partitioned slices, each sized for its share of the target (not \
                         the full target each: 24 slices at 1% would give 1 - 0.99^24 = 21%)",
            });
            out
        }
        Detail::AgePartitioned {
            k,
            l,
            per_generation,
            slice_bits,
        } => apbf(p, k, l, per_generation, slice_bits),
        _ => Vec::new(),
    }
}

fn sliced(p: f64, n: u32, g: u64, m: u64, k: u32) -> Vec<Formula> {
    let s = n + 1;
    let q = wm::per_part_target(p, s);
    let worst = wm::sliced_fpr(k, m, (0..s).map(|_| g));
    let bits = f64::from(s) * m as f64 / (f64::from(n) * g as f64);
    vec![
        Formula {
            name: "share of the target per generation",
            symbolic: "q = 1 - (1 - p)^(1/(N + 1))",
            substituted: format!("1 - (1 - {})^(1/{s}) = {}", math::format_real(p), rate(q)),
            source: "N + 1 kept generations answer independently: their union stays at p",
        },
        Formula {
            name: "generation",
            symbolic: "g = ceil(w / N); the smallest m (over k) with (1 - (1 - 1/m)^(k g))^k <= q",
            substituted: format!("g = {g}, m = {m} positions, k = {k}"),
            source: "Bloom 1970, per generation; the k probes shared by every generation \
                     (Kirsch & Mitzenmacher 2006)",
        },
        Formula {
            name: "false-positive rate over the window",
            symbolic: "p = 1 - Π_j (1 - (1 - (1 - 1/m)^(k c_j))^k), worst with every c_j = g",
            substituted: format!("{s} generations of {g}: {}", rate(worst)),
            source: "math::window::sliced_fpr",
        },
        Formula {
            name: "bits per in-window item",
            symbolic: "C = (N + 1) m / (N g)",
            substituted: format!("{s} × {m} / ({n} × {g}) = {bits:.3}"),
            source: "at 1%, fewer than the two-buffer rotation (N = 1) and the age-partitioned \
                     filter even at its least (`filterlab calc --variant apbf`)",
        },
    ]
}

fn apbf(p: f64, k: u32, l: u32, g: u64, m: u64) -> Vec<Formula> {
    let worst = wm::apbf_fpr(k, m, &wm::apbf_worst_counts(k, l, g));
    let paper = wm::ApbfPlan::paper(g * u64::from(l), k, l);
    let bits = f64::from(k + l) * m as f64 / (f64::from(l) * g as f64);
    vec![
        Formula {
            name: "slices",
            symbolic:
                "k + l slices of m bits; an insert sets one bit in each of the k youngest; \
                       every g = ceil(w / l) inserts the oldest is emptied and becomes the youngest",
            substituted: format!("k = {k}, l = {l}, g = {g}, m = {m} bits"),
            source: "Shtul, Baquero & Almeida 2020, Age-Partitioned Bloom Filters, §3",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "P(a run of k matches among the k + l slices), slice i matching with \
                       1 - (1 - 1/m)^(c_i); worst just before a shift",
            substituted: format!("{} (target {})", rate(worst), math::format_real(p)),
            source: "Shtul, Baquero & Almeida 2020, §4; computed exactly (math::window::apbf_fpr)",
        },
        Formula {
            name: "the paper's sizing",
            symbolic: "m = ceil(k g / ln 2): each slice ends half full",
            substituted: paper.map_or("too large".into(), |q| {
                format!(
                    "m = {} bits, {:.2} bits per item, worst rate {}",
                    q.m,
                    q.bits_per_item(),
                    rate(q.worst_fpr())
                )
            }),
            source: "Shtul, Baquero & Almeida 2020 (this crate sizes m for the target instead)",
        },
        Formula {
            name: "bits per in-window item",
            symbolic: "C = (k + l) m / (l g)",
            substituted: format!("{} × {m} / ({l} × {g}) = {bits:.3}", k + l),
            source: "Shtul, Baquero & Almeida 2020",
        },
    ]
}

/// A window's shape in one line; `None` for another variant.
pub(crate) fn detail_lines(detail: &Detail) -> Option<Vec<String>> {
    let line = match detail {
        Detail::Sliced {
            generations,
            per_generation,
            m,
            k,
        } => format!(
            "{generations} generations of {per_generation} items per window ({} kept), {m} lanes, k = {k}",
            generations + 1
        ),
        Detail::TimeSliced {
            window_ticks,
            slice_ticks,
            generations,
            per_generation,
            m,
            k,
        } => format!(
            "a window of {window_ticks} ticks in {generations} slices of {slice_ticks} ticks, {per_generation} items each; {m} lanes, k = {k}"
        ),
        Detail::AgePartitioned {
            k,
            l,
            per_generation,
            slice_bits,
        } => format!(
            "{} slices of {slice_bits} bits (k = {k}, l = {l}), a shift every {per_generation} inserts",
            k + l
        ),
        _ => return None,
    };
    Some(vec![line])
}
