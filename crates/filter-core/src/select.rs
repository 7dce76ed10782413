//! Select in a 64-bit word without the `pdep` instruction (which the baseline x86-64 target
//! lacks): the quotient filter's runs and the vector quotient filter's buckets.

/// Each byte 1.
const BYTES_1: u64 = 0x0101_0101_0101_0101;
/// Each byte's high bit.
const BYTES_HIGH: u64 = 0x8080_8080_8080_8080;

/// `SELECT_IN_BYTE[8·v + j]`: the position of the `j`-th (from 0) set bit of byte `v` (8 when
/// `v` has fewer than `j + 1`).
const SELECT_IN_BYTE: [u8; 2048] = {
    let mut t = [8u8; 2048];
    let mut v = 0;
    while v < 256 {
        let (mut bit, mut j) = (0, 0);
        while bit < 8 {
            if v >> bit & 1 == 1 {
                t[8 * v + j] = bit as u8;
                j += 1;
            }
            bit += 1;
        }
        v += 1;
    }
    t
};

/// The position of the `k`-th (from 0) set bit of `w`, or, when `w` has no more than `k`
/// ones, how many it has (`Err`). Without a loop over the bits: the running count of ones per
/// byte (a multiply sums the byte counts; its top byte is the word's count), the byte where it
/// passes `k` (a byte-wise compare of all eight at once), then a table for the bit inside that
/// byte (Vigna, "Broadword implementation of rank/select queries", 2008, §5, in the form for
/// 8-bit steps).
#[inline(always)]
pub fn select_or_count(w: u64, k: u32) -> std::result::Result<u32, u32> {
    let mut c = w - ((w >> 1) & 0x5555_5555_5555_5555);
    c = (c & 0x3333_3333_3333_3333) + ((c >> 2) & 0x3333_3333_3333_3333);
    // Byte i: the ones of bytes 0..=i (at most 64, so no byte overflows).
    let running = ((c + (c >> 4)) & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(BYTES_1);
    let ones = (running >> 56) as u32;
    if k >= ones {
        return Err(ones);
    }
    let ks = u64::from(k) * BYTES_1;
    // High bit of byte i set where running[i] <= k: bytes wholly before the k-th one.
    let le = (((ks | BYTES_HIGH) - (running & !BYTES_HIGH)) ^ running ^ ks) & BYTES_HIGH;
    let byte = ((le >> 7).wrapping_mul(BYTES_1) >> 56) as u32 * 8;
    // Ones before that byte: running[i - 1] (0 for the first).
    let before = ((running << 8) >> byte & 0xFF) as u32;
    let v = (w >> byte & 0xFF) as usize;
    Ok(byte + u32::from(SELECT_IN_BYTE[8 * v + (k - before) as usize]))
}
