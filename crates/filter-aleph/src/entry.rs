//! An entry in a `w`-bit slot: a fingerprint of `L ≤ w - 1` bits, a 1 (the *marker*), then
//! zeros: `((f << 1) | 1) << (w - 1 - L)`. The marker's position gives the length, so entries
//! of every generation share one table (InfiniFilter's unary padding, Dayan et al. 2023 §4).
//! A *void* entry has no fingerprint bits left: `1 << (w - 1)`, which matches every key. No
//! entry is 0.
//!
//! A key is compared as its *code*: its first `w - 1` fingerprint bits and the marker. An
//! entry with marker at bit `d` matches exactly when the key's code agrees with it above bit
//! `d`, one XOR, one count of trailing zeros and one shift per remainder read.

use filter_quotient::table::mask;

/// The key's code in a `w`-bit slot from its fingerprint bits, first bit at bit 63 of `rest`.
#[inline]
pub fn key_code(rest: u64, w: u32) -> u64 {
    debug_assert!((2..=63).contains(&w));
    ((rest >> (65 - w)) << 1) | 1
}

/// The entry that stores the first `len` fingerprint bits of the key whose code is `key`.
#[inline]
pub fn entry(key: u64, w: u32, len: u32) -> u64 {
    debug_assert!(len < w);
    let drop = w - 1 - len;
    (((key >> 1) >> drop) << 1 | 1) << drop
}

/// The void entry of a `w`-bit slot.
#[inline]
pub fn void(w: u32) -> u64 {
    1 << (w - 1)
}

/// Whether the entry `v` matches the key whose code is `key` (a 0, only in a damaged table,
/// matches nothing).
#[inline]
pub fn matches(v: u64, key: u64) -> bool {
    (v ^ key).checked_shr(v.trailing_zeros() + 1) == Some(0)
}

/// The fingerprint bits entry `v` of a `w`-bit slot holds (0 for a void entry).
#[inline]
pub fn len(v: u64, w: u32) -> u32 {
    (w - 1).saturating_sub(v.trailing_zeros())
}

/// Where entry `v` goes when the table doubles, and what it becomes: its first fingerprint
/// bit joins the address (`2a + bit`), the rest is re-encoded in a `w2`-bit slot. `None` for a
/// void entry, which goes to both `2a` and `2a + 1`.
#[inline]
pub fn split(v: u64, w: u32, w2: u32) -> Option<(u64, u64)> {
    let l = len(v, w);
    if l == 0 {
        return None;
    }
    let f = v >> (w - l);
    let bit = f >> (l - 1);
    let rest = f & mask(l - 1);
    Some((bit, ((rest << 1) | 1) << (w2 - l)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_matches_every_key_that_shares_its_bits() {
        let w = 10;
        let key = key_code(0b1_0110_1101_u64 << 55, w);
        assert_eq!(key, 0b10_1101_1011);
        for l in 0..w {
            let e = entry(key, w, l);
            assert_eq!(len(e, w), l);
            assert!(matches(e, key), "length {l}");
            // A key differing in the entry's last bit does not match it.
            if l > 0 {
                let other = key ^ (1 << (w - l));
                assert!(!matches(e, other), "length {l}");
                // But it matches the shorter entries.
                assert!(matches(entry(key, w, l - 1), other));
            }
        }
        assert_eq!(entry(key, w, 0), void(w));
        assert!(matches(void(w), 0b1));
        assert!(!matches(0, key), "a zero matches nothing");
    }

    #[test]
    fn a_split_moves_the_first_bit_into_the_address() {
        let (w, w2) = (10, 11);
        let key = key_code(0b1_0110_1101u64 << 55, w);
        let e = entry(key, w, 5); // bits 10110
        let (bit, e2) = split(e, w, w2).unwrap();
        assert_eq!(bit, 1);
        assert_eq!(len(e2, w2), 4);
        // The key one doubling later: the bit gone from its fingerprint.
        let key2 = key_code(0b0110_1101u64 << 56, w2);
        assert!(matches(e2, key2));
        assert!(!matches(e2, key2 ^ (1 << (w2 - 4))));
        assert_eq!(split(void(w), w, w2), None);
        let (bit, e3) = split(entry(key, w, 1), w, w2).unwrap();
        assert_eq!((bit, e3), (1, void(w2)));
    }
}
