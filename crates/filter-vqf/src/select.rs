//! Rank and select on the 128-bit bucket code, without the `popcnt` and `pdep` instructions
//! that the baseline x86-64 target lacks: byte counts by SWAR, the byte found by a broadword
//! comparison (Vigna, "Broadword Implementation of Rank/Select Queries", WEA 2008), the bit
//! within it from a 2 KiB table.

const L8: u64 = 0x0101_0101_0101_0101;
const H8: u64 = 0x8080_8080_8080_8080;

/// `SELECT_IN_BYTE[b * 8 + r]`: the position of the `r`-th 1 bit (from 0) of byte `b`.
static SELECT_IN_BYTE: [u8; 2048] = select_in_byte();

const fn select_in_byte() -> [u8; 2048] {
    let mut t = [0u8; 2048];
    let mut b = 0;
    while b < 256 {
        let mut r = 0;
        let mut bit = 0;
        while bit < 8 {
            if (b >> bit) & 1 == 1 {
                t[b * 8 + r] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    t
}

/// The number of 1 bits of each byte of `x`, in that byte.
#[inline]
fn byte_counts(x: u64) -> u64 {
    let s = x - ((x >> 1) & 0x5555_5555_5555_5555);
    let s = (s & 0x3333_3333_3333_3333) + ((s >> 2) & 0x3333_3333_3333_3333);
    (s + (s >> 4)) & 0x0f0f_0f0f_0f0f_0f0f
}

/// 1 bits of `x` (one `popcnt` in code compiled for it, a SWAR sum otherwise).
#[inline(always)]
pub fn ones64(x: u64) -> u32 {
    x.count_ones()
}

/// 1 bits of `x`.
#[inline]
pub fn ones128(x: u128) -> u32 {
    ones64(x as u64) + ones64((x >> 64) as u64)
}

/// The position of the `r`-th 1 bit of `x` (from 0); `x` must have more than `r`.
#[inline]
pub fn select64(x: u64, r: u32) -> u32 {
    debug_assert!(r < x.count_ones());
    // Byte i of `cum`: the 1 bits of bytes 0..=i (at most 64, so no byte overflows).
    let cum = byte_counts(x).wrapping_mul(L8);
    // High bit of byte i set where cum_i <= r: (r | 0x80) - cum_i never borrows.
    let le = (((u64::from(r) * L8) | H8) - cum) & H8;
    // Bytes with cum_i <= r: the index of the byte that holds the bit.
    let byte = ((le >> 7).wrapping_mul(L8) >> 56) as u32;
    let before = ((cum << 8) >> (8 * byte)) as u32 & 0xff;
    let b = ((x >> (8 * byte)) & 0xff) as usize;
    8 * byte + u32::from(SELECT_IN_BYTE[b * 8 + (r - before) as usize])
}

/// The position of the `r`-th 0 bit of `x` (from 0); `x` must have more than `r` zeros.
#[inline]
pub fn select_zero128(x: u128, r: u32) -> u32 {
    // Selects the word by conditional moves, not a branch: a lookup that mispredicts one on the block it has just loaded stalls
    // the lookups after it, whose cache misses would otherwise overlap with its own.
    let z = !x;
    let (lo, hi) = (z as u64, (z >> 64) as u64);
    let in_lo = ones64(lo);
    let high = r >= in_lo;
    let word = if high { hi } else { lo };
    let rank = if high { r.wrapping_sub(in_lo) } else { r };
    select64(word, rank) + 64 * u32::from(high)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_select(x: u64, r: u32) -> u32 {
        (0..64)
            .filter(|&i| x >> i & 1 == 1)
            .nth(r as usize)
            .unwrap()
    }

    #[test]
    fn select_and_counts_agree_with_bit_by_bit() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Sparse, dense and random words.
            let x = match i % 3 {
                0 => s & (s >> 3),
                1 => s | (s >> 5),
                _ => s,
            };
            for r in 0..x.count_ones() {
                assert_eq!(select64(x, r), naive_select(x, r), "{x:#x} {r}");
            }
        }
        assert_eq!(select64(u64::MAX, 63), 63);
        assert_eq!(select64(1 << 63, 0), 63);
        assert_eq!(select64(1, 0), 0);
    }

    #[test]
    fn select_zero_crosses_the_word_boundary() {
        let x: u128 = (1u128 << 70) - 1; // zeros from 70
        assert_eq!(select_zero128(x, 0), 70);
        assert_eq!(select_zero128(x, 5), 75);
        let y: u128 = !(1u128 << 3 | 1u128 << 100);
        assert_eq!(select_zero128(y, 0), 3);
        assert_eq!(select_zero128(y, 1), 100);
        assert_eq!(ones128(y), 126);
    }
}
