//! Rank and select on the 128-bit bucket code, without the `popcnt` and `pdep` instructions
//! that the baseline x86-64 target lacks (`filter_core::select_or_count`, the quotient
//! filter's broadword select).

/// 1 bits of `x` (one `popcnt` in code compiled for it, a SWAR sum otherwise).
#[inline(always)]
pub fn ones128(x: u128) -> u32 {
    (x as u64).count_ones() + ((x >> 64) as u64).count_ones()
}

/// The position of the `r`-th 0 bit of `x` (from 0), or 127 when `x` has no more than `r`
/// zeros (only in a damaged block: a valid code has a zero per bucket).
#[inline]
pub fn select_zero128(x: u128, r: u32) -> u32 {
    // Selects the word by conditional moves, not a branch: a lookup that mispredicts one on
    // the block it has just loaded stalls the lookups after it, whose cache misses would
    // otherwise overlap with its own.
    let z = !x;
    let (lo, hi) = (z as u64, (z >> 64) as u64);
    let in_lo = lo.count_ones();
    let high = r >= in_lo;
    let word = if high { hi } else { lo };
    let rank = if high { r.wrapping_sub(in_lo) } else { r };
    filter_core::select_or_count(word, rank).map_or(127, |at| at + 64 * u32::from(high))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn select_zero_crosses_the_word_boundary_and_answers_127_past_the_last_zero() {
        let x: u128 = (1u128 << 70) - 1; // zeros from 70
        assert_eq!(select_zero128(x, 0), 70);
        assert_eq!(select_zero128(x, 5), 75);
        let y: u128 = !(1u128 << 3 | 1u128 << 100);
        assert_eq!(select_zero128(y, 0), 3);
        assert_eq!(select_zero128(y, 1), 100);
        assert_eq!(select_zero128(y, 2), 127);
        assert_eq!(select_zero128(u128::MAX, 0), 127);
        assert_eq!(ones128(y), 126);
    }
}
