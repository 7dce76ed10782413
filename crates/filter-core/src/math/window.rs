//! The formulas of the sliding-window filters (the `filter-window` crate), apart from their
//! implementation.
//!
//! Everything is computed in `f64` with `ln_1p`/`expm1`, so rates near 0 and per-slot targets
//! such as `1 - (1 - p)^(1/S)` keep their precision.
//!
//! # Fill of a table
//! After `c` bits are set at uniform positions of `m`, a given bit is set with probability
//! `1 - (1 - 1/m)^c` (Bloom 1970), computed as `-expm1(c · ln_1p(-1/m))`.
//!
//! # Lane-sliced generations (`filter_window::ItemWindow`, `filter_window::TimeWindow`)
//! `S = N + 1` generations share the `m` positions and the `k` probes of a key; generation `j`
//! holding `c_j` items matches a foreign key with probability `f_j = fill(k·c_j, m)^k` (the
//! classic approximation; Bose et al. 2008 bound its error, negligible at these sizes). The
//! generations are independent, so the filter answers "maybe" for a foreign key with
//! `1 - Π_j (1 - f_j)`. At its worst (every generation full, `g` items each) that is
//! `1 - (1 - f)^S`, so each generation is sized for its share `q = 1 - (1 - p)^(1/S)`.
//!
//! # Age-partitioned Bloom filter (`filter_window::Apbf`)
//! Shtul, Baquero & Almeida, "Age-Partitioned Bloom Filters" (2020, arXiv:2001.03147): `k + l`
//! slices of `m` bits, one bit per insert in each of the `k` youngest slices, a shift every
//! `g = n / l` inserts. A foreign key matches slice `i` independently with probability `r_i`
//! (its fill), and is reported when some `k` consecutive slices all match: the probability of
//! a run of `k` successes in independent Bernoulli trials, computed exactly by a dynamic
//! programme over the current run length ([`apbf_fpr`]).

/// Fraction of `m` bits set after `c` uniform bit sets: `1 - (1 - 1/m)^c`. `m` of 0 gives 1.
pub fn fill(c: f64, m: u64) -> f64 {
    if m == 0 {
        return 1.0;
    }
    -(c * (-1.0 / m as f64).ln_1p()).exp_m1()
}

/// The share of a target `p` left to each of `s` independent parts so that their union stays
/// at `p`: `1 - (1 - p)^(1/s)`.
pub fn per_part_target(p: f64, s: u32) -> f64 {
    -((-p).ln_1p() / f64::from(s.max(1))).exp_m1()
}

/// The rate at which one generation of `items` keys, `k` probes into `m` positions, matches a
/// foreign key: `fill(k · items, m)^k`.
pub fn slot_fpr(k: u32, items: u64, m: u64) -> f64 {
    if items == 0 {
        return 0.0;
    }
    fill(f64::from(k) * items as f64, m).powi(k as i32)
}

/// The false-positive rate of lane-sliced generations holding `counts` items each (only the
/// generations still in the window): `1 - Π (1 - slot_fpr)`, summed in log space.
pub fn sliced_fpr(k: u32, m: u64, counts: impl IntoIterator<Item = u64>) -> f64 {
    let log_miss: f64 = counts
        .into_iter()
        .map(|c| (-slot_fpr(k, c, m)).ln_1p())
        .sum();
    -log_miss.exp_m1()
}

/// The shape of lane-sliced generations, derived arithmetically.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlicedPlan {
    /// Generations per window (`N`); `N + 1` are kept.
    pub generations: u32,
    /// Items per generation, `ceil(window / N)`.
    pub per_generation: u64,
    /// Positions (each holding one bit per kept generation).
    pub m: u64,
    /// Probes per key.
    pub k: u32,
}

impl SlicedPlan {
    /// Positions needed so that `per_generation` items at `k` probes match a foreign key with
    /// at most `q`: `fill(k·g, m)^k <= q` solved for `m` exactly (not through `e^(-kg/m)`).
    fn positions(k: u32, g: u64, q: f64) -> f64 {
        // fill <= x  <=>  kg · ln(1 - 1/m) >= ln(1 - x)  <=>  1/m <= -expm1(ln(1 - x) / kg).
        let x = (q.ln() / f64::from(k)).exp();
        let y = (-x).ln_1p() / (f64::from(k) * g as f64);
        (1.0 / -y.exp_m1()).ceil()
    }

    /// The smallest generations (over `k` in `1..=32`) for a window of `window` items at `p`
    /// over the window, `generations` generations per window. `None` when the sizes overflow.
    pub fn new(window: u64, generations: u32, p: f64) -> Option<Self> {
        let n = u64::from(generations.max(1));
        let g = window.div_ceil(n).max(1);
        let q = per_part_target(p, generations + 1);
        let (k, m) = (1..=32u32)
            .map(|k| (k, Self::positions(k, g, q)))
            .filter(|(_, m)| m.is_finite())
            .min_by(|a, b| a.1.total_cmp(&b.1))?;
        (m <= (1u64 << 62) as f64).then_some(SlicedPlan {
            generations,
            per_generation: g,
            m: m.max(1.0) as u64,
            k,
        })
    }

    /// Worst-case rate: every kept generation full.
    pub fn worst_fpr(&self) -> f64 {
        let s = self.generations + 1;
        sliced_fpr(self.k, self.m, (0..s).map(|_| self.per_generation))
    }

    /// Bits of memory per in-window item: `(N + 1) · m / (N · g)`.
    pub fn bits_per_item(&self) -> f64 {
        let s = f64::from(self.generations + 1);
        s * self.m as f64 / (f64::from(self.generations) * self.per_generation as f64)
    }
}

/// The false-positive rate of an age-partitioned filter whose slices, youngest first, have
/// received `counts` bit sets each, `m` bits per slice: the probability that `k` consecutive
/// slices all match a foreign key. The mass absorbed into a run of `k` is summed directly, so a
/// tiny rate is not lost in `1 - (1 - tiny)`.
pub fn apbf_fpr(k: u32, m: u64, counts: &[u64]) -> f64 {
    run_rate(k, counts.iter().map(|&c| fill(c as f64, m)))
}

/// The probability of a run of `k` successes in independent trials of success probabilities
/// `fills`, by a dynamic programme over the current run length.
pub(crate) fn run_rate(k: u32, fills: impl IntoIterator<Item = f64>) -> f64 {
    let k = k.max(1) as usize;
    // run[j]: probability that no run of k was seen and the current run has length j (on the
    // stack for the filters' at most 64 slices: the shape search calls this many times).
    let (mut stack, mut heap) = ([0.0f64; APBF_MAX_SLICES as usize], Vec::new());
    let run: &mut [f64] = if k <= stack.len() {
        &mut stack[..k]
    } else {
        heap.resize(k, 0.0);
        &mut heap
    };
    run[0] = 1.0;
    let mut hit = 0.0;
    for r in fills {
        let alive: f64 = run.iter().sum();
        hit += run[k - 1] * r;
        for j in (1..k).rev() {
            run[j] = run[j - 1] * r;
        }
        run[0] = alive * (1.0 - r);
    }
    hit
}

/// The bit sets of each slice of an age-partitioned filter, youngest first, at its worst (just
/// before a shift): `g · min(i + 1, k)` for slice `i`.
pub fn apbf_worst_counts(k: u32, l: u32, g: u64) -> Vec<u64> {
    (0..k + l)
        .map(|i| g.saturating_mul(u64::from((i + 1).min(k))))
        .collect()
}

/// The shape of an age-partitioned filter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ApbfPlan {
    /// Slices that each insert sets a bit in.
    pub k: u32,
    /// Further slices: the window is `l` generations.
    pub l: u32,
    /// Inserts per generation, `ceil(window / l)`.
    pub per_generation: u64,
    /// Bits per slice.
    pub m: u64,
}

impl ApbfPlan {
    /// The paper's sizing: each slice ends half full, `m = ceil(k · g / ln 2)`. `None` above
    /// 2^56 bits per slice.
    pub fn paper(window: u64, k: u32, l: u32) -> Option<Self> {
        let g = window.div_ceil(u64::from(l.max(1))).max(1);
        let m = (f64::from(k) * g as f64 / std::f64::consts::LN_2).ceil();
        (m <= (1u64 << 56) as f64).then_some(ApbfPlan {
            k,
            l,
            per_generation: g,
            m: (m as u64).max(1),
        })
    }

    /// The smallest slices whose worst-case rate is at most `p`, for the given `k` and `l`
    /// (from the large-table estimate outwards, then by bisection on `m`). `None` when no size
    /// below 2^56 bits per slice reaches `p`. [`ApbfPlan::least`] also chooses `k` and `l`.
    pub fn for_target(window: u64, k: u32, l: u32, p: f64) -> Option<Self> {
        let g = window.div_ceil(u64::from(l.max(1))).max(1);
        let k = k.max(1);
        let estimate = apbf::largest_load(k, l.max(1), p, 0.5 / f64::from(k))
            .map_or(1 << 56, |x| (g as f64 / x).ceil() as u64);
        ApbfPlan::sized(k, l, g, p, estimate)
    }

    /// Worst-case rate, just before a shift.
    pub fn worst_fpr(&self) -> f64 {
        apbf_fpr(
            self.k,
            self.m,
            &apbf_worst_counts(self.k, self.l, self.per_generation),
        )
    }

    /// Bits of memory per in-window item: `(k + l) · m / (l · g)`.
    pub fn bits_per_item(&self) -> f64 {
        f64::from(self.k + self.l) * self.m as f64
            / (f64::from(self.l) * self.per_generation as f64)
    }
}

mod apbf;
pub use apbf::APBF_MAX_SLICES;

#[cfg(test)]
mod tests;
