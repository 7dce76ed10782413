//! Choosing an age-partitioned filter's shape (Shtul, Baquero & Almeida 2020, "Age-Partitioned
//! Bloom Filters", arXiv:2001.03147): the `k` and `l` whose slices, sized so that the exact
//! worst-case rate ([`super::apbf_fpr`]) meets the target, take the least memory.
//!
//! The paper's `k = l = 8` takes 23.5 bits per in-window item at 1% and 98 at 1e-6; the least
//! is about 19.6 (`k = 10`, `l = 53`) and 50 (`k = 17`, `l = 47`). More generations (`l`) make
//! each smaller, so the `k` slices a key sets cost less per window; a larger `k` lowers the
//! rate a run of matches has; the search weighs the two.
//!
//! The search runs in the large-table limit, where the slice of age `i` at its worst is filled
//! to `1 - e^(-min(i + 1, k)·x)` at the load `x = g / m` (`g` inserts per generation, `m` bits
//! per slice), so the largest load that meets the target depends on `(k, l, p)` only. For each
//! `k` it scans `l` down from the most slices allowed, and walks `k` away from a start on
//! either side. Each shape's bits in that limit (at least a word per slice) bound its bits as
//! built from below (an exact fill is higher, whole words are more); a shape whose bound is
//! below the best plan so far is sized exactly ([`ApbfPlan::for_target`], in whole 64-bit
//! words). A scan or a walk stops once, past its least, the cost in that limit (with `g` not
//! rounded up, which keeps it unimodal) reaches the best plan's bits: every shape further on
//! costs at least as much. `tests` compares the result with every `(k, l)`.

use super::{fill, run_rate, ApbfPlan};

/// The most slices (`k + l`) a filter has (`filter_window::MAX_SLICES`: a key's indexes live in
/// a stack array).
pub const APBF_MAX_SLICES: u32 = 64;

/// The worst-case rate at load `x = g / m` in the large-table limit.
fn limit_rate(k: u32, l: u32, x: f64) -> f64 {
    let fills = (0..k + l).map(|i| -(-(f64::from((i + 1).min(k))) * x).exp_m1());
    run_rate(k, fills)
}

/// The largest load `x = g / m` at which the limit rate is at most `p` (to a relative 1e-9),
/// searched from `guess`; `None` for a `p` below what `f64` resolves.
pub(super) fn largest_load(k: u32, l: u32, p: f64, guess: f64) -> Option<f64> {
    // f(ln x) = ln rate - ln p rises with x; rates below f64's range count as its least.
    let ln_p = p.ln();
    let f = |ln_x: f64| limit_rate(k, l, ln_x.exp()).max(f64::MIN_POSITIVE).ln() - ln_p;
    let (mut a, mut b) = (guess.ln(), guess.ln());
    let (mut fa, mut fb) = (f(a), f(b));
    // Widen until f(a) <= 0 < f(b).
    while fa > 0.0 {
        (b, fb) = (a, fa);
        a -= 1.0;
        fa = f(a);
        if a < -800.0 {
            return None;
        }
    }
    while fb <= 0.0 {
        (a, fa) = (b, fb);
        b += 1.0;
        fb = f(b);
        if b > 10.0 {
            return Some(b.exp()); // every slice full still meets p (p near 1)
        }
    }
    // Regula falsi, Illinois variant: superlinear, and the bracket always holds the root.
    let mut side = 0i8;
    while b - a > 1e-9 {
        let c = (a * fb - b * fa) / (fb - fa);
        let c = if c > a && c < b { c } else { (a + b) / 2.0 };
        let fc = f(c);
        if fc <= 0.0 {
            (a, fa) = (c, fc);
            if side == -1 {
                fb /= 2.0;
            }
            side = -1;
        } else {
            (b, fb) = (c, fc);
            if side == 1 {
                fa /= 2.0;
            }
            side = 1;
        }
    }
    Some(a.exp())
}

/// A search for the least memory: the best exact plan so far and its bits (an upper bound on
/// the answer), which the lower bounds of the shapes still to try are compared with.
struct Search {
    window: u64,
    p: f64,
    l_given: Option<u32>,
    best: Option<ApbfPlan>,
    bound: f64,
    guess: f64,
}

/// Bits of a plan as built: whole 64-bit words per slice.
fn built_bits(plan: &ApbfPlan) -> f64 {
    (plan.m.div_ceil(64) * 64 * u64::from(plan.k + plan.l)) as f64
}

impl Search {
    /// Tries `(k, l)`: sizes it exactly when a lower bound on its bits as built (its bits in the
    /// large-table limit, where the fills are lowest, and at least a word per slice) is below
    /// the best so far. Returns its bits in the limit without rounding `g` up: a smooth cost,
    /// unimodal in `l` and (at its least) in `k`, and at most the lower bound.
    fn try_shape(&mut self, k: u32, l: u32) -> f64 {
        let Some(load) = largest_load(k, l, self.p, self.guess) else {
            return f64::INFINITY;
        };
        self.guess = load;
        let g = self.window.div_ceil(u64::from(l)).max(1);
        let smooth = f64::from(k + l) * self.window as f64 / f64::from(l) / load;
        let floor = f64::from(64 * (k + l));
        let lower = (f64::from(k + l) * g as f64 / load).max(floor);
        if lower < self.bound {
            let estimate = (g as f64 / load).ceil() as u64;
            if let Some(plan) = ApbfPlan::sized(k, l, g, self.p, estimate) {
                let bits = built_bits(&plan);
                let fewer = self.best.is_some_and(|b| plan.k + plan.l < b.k + b.l);
                if bits < self.bound || (bits == self.bound && fewer) {
                    (self.bound, self.best) = (bits, Some(plan));
                }
            }
        }
        smooth
    }

    /// Tries the shapes with this `k`: every `l` from the most allowed down (or the one `l`
    /// given), past those whose slices alone, a word each, cost the best plan's bits, until
    /// the smooth cost, past its least, reaches the best plan's bits (every smaller `l` then
    /// costs at least as much). Returns the least smooth cost seen.
    fn scan_l(&mut self, k: u32) -> f64 {
        let ls: Vec<u32> = self
            .l_given
            .map_or_else(|| (1..=APBF_MAX_SLICES - k).rev().collect(), |l| vec![l]);
        let mut least = f64::INFINITY;
        self.guess = 0.5 / f64::from(k);
        for l in ls {
            if f64::from(64 * (k + l)) >= self.bound {
                continue;
            }
            let smooth = self.try_shape(k, l);
            if smooth < least {
                least = smooth;
            } else if smooth >= self.bound {
                break;
            }
        }
        least
    }

    /// Walks `k` from `start` by `way` until the least smooth cost of a `k`, past the least of
    /// all, reaches the best plan's bits, or (walking up) `k + 1` slices of a word each do.
    fn walk_k(&mut self, start: i64, way: i64, most: i64, mut least: f64) -> f64 {
        let mut k = start;
        while k >= 1 && k <= most {
            if way > 0 && (64 * (k + 1)) as f64 >= self.bound {
                break;
            }
            let cost = self.scan_l(k as u32);
            if cost < least {
                least = cost;
            } else if cost >= self.bound {
                break;
            }
            k += way;
        }
        least
    }
}

impl ApbfPlan {
    /// The shape with the least memory whose exact worst-case rate is at most `p` for a window
    /// of `window` items: `k` and `l` searched (either may be given), the slices sized as
    /// [`ApbfPlan::for_target`] sizes them and compared in whole 64-bit words (as built). Ties
    /// go to fewer slices. `None` for a `k` or `l` of 0, more than [`APBF_MAX_SLICES`] slices,
    /// or a target no shape reaches.
    pub fn least(window: u64, p: f64, k: Option<u32>, l: Option<u32>) -> Option<Self> {
        let max = APBF_MAX_SLICES;
        let valid = |v: Option<u32>| v.is_none_or(|v| v >= 1 && v < max);
        if !valid(k) || !valid(l) || k.unwrap_or(1) + l.unwrap_or(1) > max || p.is_nan() || p <= 0.0
        {
            return None;
        }
        let mut search = Search {
            window,
            p,
            l_given: l,
            best: None,
            bound: f64::INFINITY,
            guess: 0.5,
        };
        if let Some(k) = k {
            search.scan_l(k);
        } else {
            // Start near the least for a large window (k = 10 at 1%, 17 at 1e-6, 24 at 1e-12)
            // and walk both ways.
            let most = i64::from(max - l.unwrap_or(1));
            let start = ((-p.log2() / 2.0 + 5.0).round() as i64).clamp(1, most);
            let least = search.walk_k(start, 1, most, f64::INFINITY);
            search.walk_k(start - 1, -1, most, least);
        }
        search.best
    }

    /// The least `m` (below 2^56) whose exact worst-case rate for `k`, `l`, `g` is at most `p`,
    /// searched from `estimate` outwards, then by bisection.
    pub(super) fn sized(k: u32, l: u32, g: u64, p: f64, estimate: u64) -> Option<Self> {
        const MOST: u64 = 1 << 56;
        let counts = super::apbf_worst_counts(k, l, g);
        let ok = |m: u64| {
            let fills = counts.iter().map(|&c| fill(c as f64, m));
            run_rate(k, fills) <= p
        };
        let m = crate::math::search::least(estimate, (0, MOST), ok)?;
        Some(ApbfPlan {
            k,
            l,
            per_generation: g,
            m,
        })
    }
}
