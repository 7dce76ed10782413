//! The registry's side of the sliding-window filters (`filter-window`): their builders fed from
//! [`Params`] (the window in items is the capacity; [`Params::generations`], the age-partitioned
//! filter's [`Params::hashes`] and, for the window counted in time, [`Params::window_ticks`]), their sizing without allocating, and the rate
//! after a number of inserts. The time window is held as [`Timed`].

mod formulas;
mod timed;

pub(crate) use formulas::{detail_lines, window_formulas};
pub use timed::Timed;

use super::members::Member;
use super::sizing::{Detail, Sizing};
use super::{Knob, Parameter, Params, Value};
use crate::math::window::{self as wm, ApbfPlan, SlicedPlan};
use crate::window::{GENERATION_CHOICES, MAX_SLICES};
use crate::{Apbf, Error, Filter, ItemWindow, Result, TimeWindow};

/// Generations per window of a lane-sliced plan, refused as the builders refuse them.
fn generations(p: &Params) -> Result<u32> {
    let n = p.generations.unwrap_or(crate::window::DEFAULT_GENERATIONS);
    if GENERATION_CHOICES.contains(&n) {
        Ok(n)
    } else {
        Err(Error::InvalidParameter {
            name: "generations",
            value: n.to_string(),
            expected: "one of 1, 3, 7, 15, 31, 63 (N + 1 generations are kept, one bit each per \
                       position); 7 takes the least memory at 1%",
        })
    }
}

/// Lane-sliced generations for `items` per window at `p`'s rate.
fn sliced_plan(p: &Params, items: u64) -> Result<SlicedPlan> {
    let n = generations(p)?;
    SlicedPlan::new(items, n, p.fpr).ok_or_else(|| Error::SizeOverflow {
        what: "window lanes",
        hint: format!(
            "{items} items per window at {} need more than 2^62 positions: ask for fewer items \
             or a larger rate",
            p.fpr
        ),
    })
}

/// Bytes of the lanes of `plan`: `m` positions of `N + 1` bits, whole 64-bit words.
fn lane_bytes(plan: &SlicedPlan) -> u64 {
    let per_word = 64 / u64::from(plan.generations + 1);
    plan.m.max(1).div_ceil(per_word) * 8
}

fn sliced_detail(plan: &SlicedPlan) -> Detail {
    Detail::Sliced {
        generations: plan.generations,
        per_generation: plan.per_generation,
        m: plan.m,
        k: plan.k,
    }
}

/// The rate of a window's plan after `items` inserts; `None` for a detail that is not a
/// window's.
pub(super) fn rate_at(detail: &Detail, items: u64) -> Option<f64> {
    match detail {
        // A window forgets: its rate after any number of inserts is that of the
        // generations it keeps.
        Detail::Sliced {
            generations,
            per_generation,
            m,
            k,
        } => Some(sliced_rate_at(*generations, *per_generation, *m, *k, items)),
        // `items` per window of time: each slice receives its share.
        Detail::TimeSliced {
            generations, m, k, ..
        } => {
            let per_slice = items.div_ceil(u64::from(*generations).max(1));
            let slices = (0..=*generations).map(|_| per_slice);
            Some(wm::sliced_fpr(*k, *m, slices))
        }
        Detail::AgePartitioned {
            k,
            l,
            per_generation,
            slice_bits,
        } => Some(wm::apbf_fpr(
            *k,
            *slice_bits,
            &apbf_counts(*k, *l, *per_generation, items),
        )),
        _ => None,
    }
}

/// The rate of lane-sliced generations of `g` items after `items` inserts: the last `N + 1`
/// generations kept, the current one partly filled.
pub(crate) fn sliced_rate_at(generations: u32, g: u64, m: u64, k: u32, items: u64) -> f64 {
    let g = g.max(1);
    let made = items.div_ceil(g);
    let kept = made.min(u64::from(generations) + 1);
    let current = items - made.saturating_sub(1) * g;
    let counts = (0..kept).map(|i| if i == 0 { current } else { g });
    wm::sliced_fpr(k, m, counts)
}

/// The bits set in each slice of an age-partitioned filter, youngest first, after `items`
/// inserts (the slice of age `i` received the generations `cur - i ..= cur - i + k - 1` that
/// exist, the current one partly filled).
pub(crate) fn apbf_counts(k: u32, l: u32, g: u64, items: u64) -> Vec<u64> {
    let Some(last) = items.checked_sub(1) else {
        return vec![0; (k + l) as usize];
    };
    let g = g.max(1);
    let cur = i128::from(last / g);
    let in_generation = items - (last / g) * g;
    (0..k + l)
        .map(|age| {
            let youngest = cur - i128::from(age);
            let (lo, hi) = (youngest.max(0), (youngest + i128::from(k) - 1).min(cur));
            if lo > hi {
                return 0;
            }
            let full = (hi.min(cur - 1) - lo + 1).max(0) as u64;
            full * g + if hi == cur { in_generation } else { 0 }
        })
        .collect()
}

/// A built window's [`Member::shape`]: its target is the plan's worst-case rate, which is also
/// the rate it expects.
fn worst_shape(bytes: usize, worst: f64, detail: Detail) -> Result<(f64, Sizing)> {
    Ok((worst, (bytes as u64, worst, detail)))
}

/// Builds from the window builder `$b` with `$p`'s rate, hasher, page advice and memory cap
/// (the builders share these setters but no trait).
macro_rules! windowed {
    ($b:expr, $p:expr) => {{
        let b = $b.fpr($p.fpr).hasher($p.hasher).pages($p.pages);
        match $p.max_bytes {
            Some(cap) => b.max_bytes(cap).build(),
            None => b.build(),
        }
    }};
}

impl Member for ItemWindow {
    fn build(p: &Params) -> Result<Self> {
        p.only(&[Knob::Generations])?;
        let b = ItemWindow::builder().window(p.capacity);
        windowed!(b.generations(generations(p)?), p)
    }
    fn size(p: &Params) -> Result<Sizing> {
        let plan = sliced_plan(p, p.capacity)?;
        Ok((lane_bytes(&plan), plan.worst_fpr(), sliced_detail(&plan)))
    }
    fn shape(&self) -> Result<(f64, Sizing)> {
        let plan = self.plan();
        worst_shape(self.size_in_bytes(), plan.worst_fpr(), sliced_detail(&plan))
    }
    fn parameters(&self) -> Vec<Parameter> {
        let plan = self.plan();
        vec![
            Parameter::design("window", Value::Count(self.capacity())),
            Parameter::design("generations", Value::Count(plan.generations.into())),
            Parameter::design("per_generation", Value::Count(plan.per_generation)),
            Parameter::design("m", Value::Count(plan.m)),
            Parameter::design("k", Value::Count(plan.k.into())),
            Parameter::running("inserted", Value::Count(self.inserted())),
            Parameter::design("bits_per_item", Value::Ratio(self.bits_per_item())),
        ]
    }
}

impl Member for Timed {
    fn build(p: &Params) -> Result<Self> {
        p.only(&[Knob::Generations, Knob::WindowTicks])?;
        let mut b = TimeWindow::builder()
            .items_per_window(p.capacity)
            .generations(generations(p)?);
        if let Some(t) = p.window_ticks {
            b = b.window(t);
        }
        windowed!(b, p).map(Timed::new)
    }
    fn size(p: &Params) -> Result<Sizing> {
        let plan = sliced_plan(p, p.capacity)?;
        let ticks = p.window_ticks.unwrap_or(DEFAULT_TICKS);
        if ticks < u64::from(plan.generations) {
            return Err(Error::InvalidParameter {
                name: "window",
                value: ticks.to_string(),
                expected: "a window of at least as many ticks as generations (use finer ticks, \
                           milliseconds rather than seconds)",
            });
        }
        let detail = time_detail(&plan, ticks);
        Ok((lane_bytes(&plan), plan.worst_fpr(), detail))
    }
    fn shape(&self) -> Result<(f64, Sizing)> {
        let plan = self.get().plan();
        let detail = time_detail(&plan, self.get().window());
        worst_shape(self.size_in_bytes(), plan.worst_fpr(), detail)
    }
    fn parameters(&self) -> Vec<Parameter> {
        let w = self.get();
        let plan = w.plan();
        let mut out = vec![
            Parameter::design("window_ticks", Value::Count(w.window())),
            Parameter::design("slice_ticks", Value::Count(w.slice())),
            Parameter::design("generations", Value::Count(plan.generations.into())),
            Parameter::design("items_per_window", Value::Count(w.items_per_window())),
            Parameter::design("m", Value::Count(plan.m)),
            Parameter::design("k", Value::Count(plan.k.into())),
        ];
        if let Some(t) = w.latest() {
            out.push(Parameter::running("latest_slice_start", Value::Count(t.0)));
        }
        out
    }
}

/// A time window's default: a day in seconds (as `TimeWindow::builder`).
const DEFAULT_TICKS: u64 = 86_400;

fn time_detail(plan: &SlicedPlan, ticks: u64) -> Detail {
    Detail::TimeSliced {
        window_ticks: ticks,
        slice_ticks: ticks.div_ceil(u64::from(plan.generations)),
        generations: plan.generations,
        per_generation: plan.per_generation,
        m: plan.m,
        k: plan.k,
    }
}

/// A `k` or `l` as given, or `chosen`.
fn shown(v: Option<u32>) -> String {
    v.map_or_else(|| "chosen".into(), |v| v.to_string())
}

/// An age-partitioned plan as the builder makes it: `k` and `l` as given ([`Params::hashes`],
/// [`Params::generations`]) or chosen for the least memory ([`ApbfPlan::least`]), slices sized
/// for the target, `m` rounded up to whole words.
fn apbf_plan(p: &Params) -> Result<ApbfPlan> {
    let (k, l) = (p.hashes, p.generations);
    let slices = k.unwrap_or(1).saturating_add(l.unwrap_or(1));
    if k == Some(0) || l == Some(0) || slices > MAX_SLICES {
        return Err(Error::InvalidParameter {
            name: "hashes, generations",
            value: format!("{}, {}", shown(k), shown(l)),
            expected: "k >= 1 and l >= 1 with k + l <= 64 slices for an age-partitioned filter, \
                       or leave them unset: the shape with the least memory is chosen",
        });
    }
    let plan = ApbfPlan::least(p.capacity, p.fpr, k, l).ok_or_else(|| Error::SizeOverflow {
        what: "age-partitioned slices",
        hint: format!(
            "no shape with k = {} and at most 2^56 bits per slice reaches {} for a window of \
             {} items: ask for fewer items or a larger rate",
            shown(k),
            crate::math::format_real(p.fpr),
            p.capacity
        ),
    })?;
    Ok(ApbfPlan {
        m: plan.m.div_ceil(64) * 64,
        ..plan
    })
}

fn apbf_detail(plan: &ApbfPlan) -> Detail {
    Detail::AgePartitioned {
        k: plan.k,
        l: plan.l,
        per_generation: plan.per_generation,
        slice_bits: plan.m,
    }
}

impl Member for Apbf {
    fn build(p: &Params) -> Result<Self> {
        p.only(&[Knob::Generations, Knob::Hashes])?;
        let mut b = Apbf::builder().window(p.capacity);
        if let Some(k) = p.hashes {
            b = b.k(k);
        }
        if let Some(l) = p.generations {
            b = b.l(l);
        }
        windowed!(b, p)
    }
    fn size(p: &Params) -> Result<Sizing> {
        let plan = apbf_plan(p)?;
        let bytes = plan.m / 8 * u64::from(plan.k + plan.l);
        Ok((bytes, plan.worst_fpr(), apbf_detail(&plan)))
    }
    fn shape(&self) -> Result<(f64, Sizing)> {
        let plan = self.plan();
        worst_shape(self.size_in_bytes(), plan.worst_fpr(), apbf_detail(&plan))
    }
    fn parameters(&self) -> Vec<Parameter> {
        let plan = self.plan();
        vec![
            Parameter::design("window", Value::Count(self.capacity())),
            Parameter::design("k", Value::Count(plan.k.into())),
            Parameter::design("l", Value::Count(plan.l.into())),
            Parameter::design("per_generation", Value::Count(plan.per_generation)),
            Parameter::design("slice_bits", Value::Count(plan.m)),
        ]
    }
}
