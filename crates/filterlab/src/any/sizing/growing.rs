//! Sizing of the variants that grow, the expandable cuckoo and the scalable Bloom filter: their
//! first stage, and what their stages come to after more inserts than the capacity (the
//! schedule of an expandable plan, the [`Growth`] rows of a scalable one). The fixed-size
//! variants are sized in the parent module.

use super::{bloom_bytes, rsqf_bytes, Detail, Growth, Plan, Sizing, GROWTH_SHOWN};
use crate::any::Params;
use crate::{aleph, expandable, math, quotient, scalable, Result};

/// The first stage and growth schedule of an expandable cuckoo plan, read once from its
/// [`Detail::Expandable`] by [`Detail::expandable_schedule`]: `(f0, B0, growth, period, bound)`,
/// the first stage's fingerprint bits and buckets, the growth factor, the stages per added
/// fingerprint bit, and the rate bound over every stage.
pub(crate) type Schedule = (u32, u64, u32, u32, f64);

impl Detail {
    /// An expandable plan's schedule; `None` for every other variant.
    pub(crate) fn expandable_schedule(&self) -> Option<Schedule> {
        match self {
            Detail::Expandable {
                fingerprint_bits,
                buckets,
                growth,
                period,
                bound,
                ..
            } => Some((*fingerprint_bits, *buckets, *growth, *period, *bound)),
            _ => None,
        }
    }
}

/// The compound rate of an expandable filter after `items` inserts, each stage filled to its
/// capacity before the next is made; `None` past the last stage it can have.
pub(super) fn expandable_rate((f0, b0, growth, period, _): Schedule, items: u64) -> Option<f64> {
    use expandable::math as em;
    let (mut left, mut rates, mut i) = (items, Vec::new(), 0u32);
    loop {
        let b = em::stage_buckets(b0, growth.trailing_zeros(), i)?;
        let here = left.min(em::stage_capacity(b));
        rates.push(em::stage_fpr(
            em::stage_fingerprint_bits(f0, period, i),
            b,
            here,
        ));
        left -= here;
        i += 1;
        if left == 0 {
            return Some(math::compound_fpr(rates));
        }
    }
}

pub(crate) fn expandable(p: &Params) -> Result<Sizing> {
    use expandable::math as em;
    let (n, growth, period) = (
        p.capacity,
        expandable::DEFAULT_GROWTH,
        expandable::DEFAULT_PERIOD,
    );
    let b0 = em::initial_buckets(n);
    let stages = em::possible_stages(b0, growth.trailing_zeros());
    let too_many = || crate::Error::SizeOverflow {
        what: "expandable filter",
        hint: format!("{n} items need too many buckets; lower the capacity"),
    };
    // As the builder: a first stage past the most buckets a stage may have is refused.
    if stages == 0 {
        return Err(too_many());
    }
    let f0 = em::initial_fingerprint_bits(p.fpr, period, stages)?;
    let bytes = em::stage_table_bytes(b0, f0).ok_or_else(too_many)?;
    // The rate at the first stage's capacity (>= n): what the built filter reports.
    let expected = em::stage_fpr(f0, b0, em::stage_capacity(b0));
    let detail = Detail::Expandable {
        fingerprint_bits: f0,
        buckets: b0,
        growth,
        period,
        bound: em::schedule_bound(f0, period, stages),
        stages: Vec::new(),
    };
    Ok((bytes, expected, detail))
}

/// An Aleph filter's first table: sized for the capacity, or, with an estimate, for the keys
/// that reach it after whole doublings (`filter_aleph::math::planned_doublings`).
pub(crate) fn aleph(p: &Params) -> Result<Sizing> {
    use aleph::math as am;
    let (planned, first) = match p.max_n {
        Some(n) => am::planned_doublings(p.capacity, n).map(|(k, f)| (Some(k), f))?,
        None => (None, p.capacity),
    };
    let q = quotient::math::quotients_for(
        first,
        am::MAX_LOAD,
        quotient::MIN_QUOTIENTS,
        quotient::MAX_QUOTIENTS,
    )?;
    let widening = am::Widening::new(p.fpr, planned)?;
    let w = widening.slot_width(0);
    let (_, bytes) = rsqf_bytes(q, w)?;
    let detail = Detail::Aleph {
        quotients: q,
        slot_width: w,
        fingerprint_bits: widening.fingerprint_bits(0),
        doublings: 0,
        target: p.fpr,
        planned,
        bound: widening.fpr_bound((quotient::MAX_QUOTIENTS / q).ilog2()),
    };
    Ok((
        bytes,
        widening.fpr_after(0, p.capacity as f64 / q as f64),
        detail,
    ))
}

/// An Aleph plan after `items` inserts (no deletes): `(k, bytes, rate)`; `None` past the
/// largest table or for another variant's plan.
pub(super) fn aleph_after(plan: &Plan, items: u64) -> Option<(u32, u64, f64)> {
    let Detail::Aleph {
        quotients,
        target,
        planned,
        ..
    } = plan.detail
    else {
        return None;
    };
    let widening = aleph::math::Widening::new(target, planned).ok()?;
    let (k, q, p) = widening.after_inserts(quotients, items)?;
    let (_, bytes) = rsqf_bytes(q, widening.slot_width(k)).ok()?;
    Some((k, bytes, p))
}

pub(crate) fn scalable(p: &Params) -> Result<Sizing> {
    let (n, (r, s)) = (p.capacity, scalable_knobs(p));
    let first = scalable_growth(p, 1)?;
    let mut growth = vec![first.clone()];
    for g in GROWTH_SHOWN {
        growth.push(scalable_growth(p, g)?);
    }
    let p0 = math::scalable_initial_fpr(p.fpr, r);
    debug_assert!(n > 0);
    let detail = Detail::Scalable {
        p0,
        r,
        s,
        growth,
        stages: Vec::new(),
    };
    Ok((first.bytes, first.compound_fpr, detail))
}

/// A scalable plan's `(r, s)`: the knobs, or the defaults.
fn scalable_knobs(p: &Params) -> (f64, f64) {
    (
        p.tightening.unwrap_or(scalable::DEFAULT_TIGHTENING),
        p.growth.unwrap_or(scalable::DEFAULT_GROWTH),
    )
}

/// The scalable filter after `multiple · n` inserts.
fn scalable_growth(p: &Params, multiple: u64) -> Result<Growth> {
    let mut g = scalable_at(p, p.capacity.saturating_mul(multiple))?;
    g.multiple = multiple;
    Ok(g)
}

/// A scalable filter built with `p` after `items` inserts (its multiple is `items / n`
/// rounded down): the stages fill in order, as `ScalableBloom` derives them.
///
/// # Errors
/// The errors of [`crate::math`] (bad `n` or `p`, a size that overflows).
pub fn scalable_at(p: &Params, items: u64) -> Result<Growth> {
    let (n, (r, s)) = (p.capacity, scalable_knobs(p));
    let p0 = math::scalable_initial_fpr(p.fpr, r);
    let mut left = items;
    let (mut bytes, mut rates, mut i) = (0u64, Vec::new(), 0u32);
    loop {
        let cap = (n as f64 * s.powi(i as i32)).ceil() as u64;
        let (m, k) = scalable::StageSizing::Exact.shape(cap, math::scalable_stage_fpr(p0, r, i))?;
        let here = left.min(cap);
        bytes = bytes.saturating_add(bloom_bytes(m));
        rates.push(math::classic_fpr_best(m, here, k));
        left -= here;
        i += 1;
        if left == 0 || i as usize >= scalable::MAX_STAGES {
            break;
        }
    }
    Ok(Growth {
        multiple: items / n.max(1),
        stages: rates.len(),
        bytes,
        compound_fpr: math::compound_fpr(rates),
        bound: math::scalable_fpr_bound(p0, r),
    })
}
