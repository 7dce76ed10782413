//! A request no variant meets: why, and the nearest requests that are met. Each suggestion is
//! a whole `filterlab recommend` command line, and only one that `recommend` accepts is offered.

use super::choose::{self, Miss};
use super::needs::Needs;
use crate::units::size;
use crate::window::Window;
use filterlab::math::format_real;
use filterlab::{Capabilities, Variant};
use serde::Serialize;

/// A request no variant can meet.
#[derive(Debug, Serialize)]
pub struct Refusal {
    /// Why.
    pub reason: String,
    /// The nearest requests that can be met, each a whole `filterlab recommend` command line.
    pub nearest: Vec<String>,
}

/// The highest rate a suggestion offers: a filter at a coin's rate is no filter.
const HIGHEST_RATE: f64 = 0.5;

/// Whether `recommend` answers `needs`.
fn accepted(needs: &Needs) -> bool {
    super::answers(needs)
}

/// The refusal of `needs` for `miss`, with the nearest requests that are met: the lowest rate
/// at the same count, the largest count at the same rate, a longer window of time, the budget
/// the smallest candidate needs, or (no variant with every capability) fewer capabilities.
pub(super) fn refusal(needs: &Needs, miss: &Miss) -> Refusal {
    let mut tries: Vec<Needs> = Vec::new();
    if let Miss::NoCapability = miss {
        tries.extend([
            Needs {
                growth: false,
                max_n: None,
                ..*needs
            },
            Needs {
                deletes: false,
                ..*needs
            },
            Needs {
                fixed_set: false,
                ..*needs
            },
            Needs {
                window: None,
                ..*needs
            },
        ]);
    } else {
        tries.extend(lowest_rate(needs));
        tries.extend(largest_count(needs));
        tries.extend(longer_window(needs));
    }
    // A saturated size (u64::MAX: more than 2^64 bytes) is no budget anyone can give, and the
    // parser refuses it: never suggested.
    match miss {
        Miss::OverBudget { judged, .. } if *judged < u64::MAX => tries.push(Needs {
            max_memory: Some(*judged),
            ..*needs
        }),
        _ => {}
    }
    let mut nearest: Vec<String> = Vec::new();
    for t in tries.iter().filter(|t| *t != needs && accepted(t)) {
        let line = t.command_line();
        if !nearest.contains(&line) {
            nearest.push(line);
        }
    }
    Refusal {
        reason: reason(needs, miss),
        nearest,
    }
}

/// Why `needs` is refused.
fn reason(needs: &Needs, miss: &Miss) -> String {
    let with = |has: fn(Capabilities) -> bool| Variant::names_with(has);
    match miss {
        Miss::NoCapability => format!(
            "no variant has every capability asked for (variants that delete: {}; that grow: \
             {}; built once from a fixed set: {}; windowed: {})",
            with(|c| c.deletes),
            with(|c| c.grows),
            with(|c| c.static_set),
            with(|c| c.windowed)
        ),
        Miss::Unsizable(refused) => {
            let names: Vec<&str> = refused.iter().map(|(v, _)| v.name()).collect();
            let first = refused
                .first()
                .map_or(String::new(), |(v, e)| format!(" ({v}: {e})"));
            format!(
                "none of the variants that fit the request ({}) can be sized for {} items at \
                 {}{first}",
                names.join(", "),
                needs.n,
                format_real(needs.fpr)
            )
        }
        Miss::OverBudget { variant, judged } => {
            let growing = if needs.growth {
                format!(" when grown to {} items", needs.judged_items())
            } else {
                String::new()
            };
            let judged = if *judged == u64::MAX {
                "more than 2^64".to_string()
            } else {
                judged.to_string()
            };
            format!(
                "the {} filter, the smallest that fits the request, needs {} bytes for {} items \
                 at {}{growing}, over the {}-byte budget",
                variant,
                judged,
                needs.n,
                format_real(needs.fpr),
                needs.max_memory.unwrap_or(0)
            )
        }
    }
}

/// The lowest rate at the same count that is accepted (rounded up to three significant
/// digits), if any up to [`HIGHEST_RATE`] is.
fn lowest_rate(needs: &Needs) -> Option<Needs> {
    let at = |p: f64| Needs { fpr: p, ..*needs };
    let hi = lowest_accepted_rate(needs.fpr, |p| accepted(&at(p)))?;
    let rounded = round_up_3(hi);
    Some(at(if accepted(&at(rounded)) { rounded } else { hi }))
}

/// How close a suggestion comes to the edge of what is accepted: a relative 1e-3 (a rate or a
/// count within 0.1% of the best one; a suggested rate is then rounded up to three digits).
const EDGE: f64 = 1e-3;

/// The lowest rate in `[from, HIGHEST_RATE]` at which `ok` holds (assumed to hold from some
/// rate on), to a relative [`EDGE`]; `None` if it does not hold at [`HIGHEST_RATE`].
pub(super) fn lowest_accepted_rate(from: f64, ok: impl Fn(f64) -> bool) -> Option<f64> {
    if !ok(HIGHEST_RATE) {
        return None;
    }
    let (mut lo, mut hi) = (from.min(HIGHEST_RATE).ln(), HIGHEST_RATE.ln());
    while hi - lo > EDGE {
        let mid = (lo + hi) / 2.0;
        if ok(mid.exp()) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi.exp())
}

/// The largest count below `n` (to a relative [`EDGE`], bisecting on its logarithm) that is
/// accepted at the same rate (a growing request's `--max-n` scaled with it), if any is.
fn largest_count(needs: &Needs) -> Option<Needs> {
    let (mut lo, mut hi) = (1u64, needs.n);
    if hi <= lo || !accepted(&needs.with_n(lo)) {
        return None;
    }
    while lo + 1 < hi && (hi - lo) as f64 > lo as f64 * EDGE {
        // The geometric mean, strictly between lo and hi.
        let mid = ((lo as f64 * hi as f64).sqrt() as u64).clamp(lo + 1, hi - 1);
        if accepted(&needs.with_n(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(needs.with_n(lo))
}

/// The shortest longer window of time that is accepted (a window of fewer seconds than it has
/// slices cannot be sized), if one up to a thousand times longer is.
fn longer_window(needs: &Needs) -> Option<Needs> {
    let Some(Window::Seconds(s)) = needs.window else {
        return None;
    };
    let at = |t: u64| Needs {
        window: Some(Window::Seconds(t)),
        ..*needs
    };
    let (mut lo, mut hi) = (s, s.saturating_mul(1000));
    if !accepted(&at(hi)) {
        return None;
    }
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if accepted(&at(mid)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(at(hi))
}

/// Why a fixed set gets a filter filled by inserts: no static filter reaches the rate (its
/// lowest named), or none fits the budget.
pub(super) fn static_fallback(needs: &Needs, miss: &Miss) -> String {
    let tail = "a filter filled by inserts does (`filterlab build` inserts the keys one by one)";
    match miss {
        Miss::OverBudget { variant, judged } => format!(
            "the set is known and fixed, but the smallest filter built once from it, {variant}, \
             needs {}, over the budget: {tail}",
            size(*judged)
        ),
        Miss::Unsizable(refused) => match static_floor(needs) {
            Some((floor, reach)) => format!(
                "the set is known and fixed, but no filter built once from it reaches {}: the \
                 lowest rate one reaches is {} ({}); {tail}",
                format_real(needs.fpr),
                rate_text(floor),
                reach.join(", ")
            ),
            None => format!(
                "the set is known and fixed, but no filter built once from it can be sized for \
                 {} keys{}: {tail}",
                needs.n,
                refused
                    .first()
                    .map_or(String::new(), |(v, e)| format!(" ({v}: {e})"))
            ),
        },
        Miss::NoCapability => format!("no variant is built once from a fixed set: {tail}"),
    }
}

/// The lowest rate a static filter reaches for `needs.n` keys, exactly at a power of two where
/// that is where its fingerprints end, with the variants that reach it.
pub(super) fn static_floor(needs: &Needs) -> Option<(f64, Vec<&'static str>)> {
    let pool = choose::candidates(needs);
    let reach = |p: f64| -> Vec<&'static str> {
        let at = Needs { fpr: p, ..*needs };
        pool.iter()
            .filter(|&&v| choose::sized(&at, v).is_ok())
            .map(|v| v.name())
            .collect()
    };
    let hi = lowest_accepted_rate(f64::MIN_POSITIVE, |p| !reach(p).is_empty())?;
    let power = hi.log2().round().exp2();
    let floor = if power <= hi && !reach(power).is_empty() {
        power
    } else {
        hi
    };
    Some((floor, reach(floor)))
}

/// A rate for people: `2^-16 = 1.53e-5` at a power of two, else its shortest decimal.
pub(super) fn rate_text(p: f64) -> String {
    let bits = -p.log2();
    if bits.fract() == 0.0 && bits > 0.0 {
        format!("2^-{bits} = {}", format_real(round_up_3(p)))
    } else {
        format_real(p)
    }
}

/// `p` rounded *up* to three significant digits, so a printed suggestion still fits.
pub(super) fn round_up_3(p: f64) -> f64 {
    let scale = 10f64.powi(p.log10().floor() as i32 - 2);
    let r = (p / scale).ceil() * scale;
    // Printing through a shortest decimal string keeps `0.2` from showing as `0.20000000000000001`.
    format!("{r:.*}", (2 - p.log10().floor() as i32).max(0) as usize)
        .parse()
        .unwrap_or(r)
}
