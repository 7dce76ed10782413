//! The least size that meets a target, for the sizing searches: a rate that falls as the size
//! grows, evaluated exactly at each candidate.

/// The least `m` in `(floor, ceiling]` for which `meets(m)` holds, where `meets` is monotone (false
/// up to some size, true from it on) and `meets(floor)` is taken as false: a gallop from `start`
/// (clamped into the range) to a bracket, then a bisection, so that a good estimate costs a
/// few evaluations. `None` when even `ceiling` does not meet it.
pub(crate) fn least(
    start: u64,
    (floor, ceiling): (u64, u64),
    meets: impl Fn(u64) -> bool,
) -> Option<u64> {
    if floor >= ceiling {
        return None;
    }
    let start = start.clamp(floor + 1, ceiling);
    // `lo` misses (or is the floor), `hi` meets.
    let (mut lo, mut hi) = if meets(start) {
        let (mut hi, mut step) = (start, 1u64);
        loop {
            let below = hi.saturating_sub(step).max(floor);
            if below == floor || !meets(below) {
                break (below, hi);
            }
            hi = below;
            step = step.saturating_mul(2);
        }
    } else {
        let (mut lo, mut step) = (start, 1u64);
        loop {
            let above = lo.saturating_add(step).min(ceiling);
            if meets(above) {
                break (lo, above);
            }
            if above == ceiling {
                return None;
            }
            lo = above;
            step = step.saturating_mul(2);
        }
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if meets(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

#[cfg(test)]
mod tests;
