//! Banding (on-the-fly Gaussian elimination, Dillinger & Walzer 2021, §2 and Alg. 1) and back
//! substitution into the interleaved column layout.

use crate::order::sort_dedup;
use crate::{derive, key_of, row_of, Ribbon, Row, BLOCK, W};
use filter_core::{Error, Hash128, KeyHasher, Result};

/// Seeds tried before the construction gives up (never reached in practice: the slack grows
/// every [`ATTEMPTS_PER_BUMP`] failures).
pub const MAX_ATTEMPTS: u32 = 1000;

/// Failed seeds after which the slot count grows by [`BUMP_FRACTION`] of the keys (at least
/// 64 slots).
pub const ATTEMPTS_PER_BUMP: u32 = 4;

/// Extra slots per key added at each bump.
pub const BUMP_FRACTION: f64 = 0.01;

/// Slots per key, `m / n`, for a first attempt on a large set: `1 + BASE_OVERHEAD`.
///
/// Standard ribbon's success probability rises gradually with the overhead (Dillinger & Walzer
/// 2021, §4). Measured here at 10^6 keys, `w = 128`, seeded: 0 of 4 seeds band at 2.5 %,
/// about half at 2.85–3.6 %, all 8 at 8 %. At 3 % a build takes about two attempts on average.
pub const BASE_OVERHEAD: f64 = 0.03;

/// The most distinct keys a filter takes.
pub const MAX_KEYS: u64 = 1 << 40;

/// Slots for `n` distinct keys after `bumps` failed rounds: `n (1 + 0.03 + 4 / sqrt(n)) +
/// bumps * max(0.01 n, 64)`, at least one band (128), rounded up to whole 64-slot blocks.
///
/// The `4 / sqrt(n)` term is our own margin for small sets (their load varies more between
/// 128-slot windows), chosen so that the first attempt usually succeeds; it vanishes at scale.
///
/// # Errors
/// [`Error::SizeOverflow`] past [`MAX_KEYS`].
pub fn slots_for(n: u64, bumps: u32) -> Result<u64> {
    if n > MAX_KEYS {
        return Err(Error::SizeOverflow {
            what: "ribbon filter",
            hint: format!("{n} distinct keys is above the limit of {MAX_KEYS}: split the set"),
        });
    }
    let nf = n as f64;
    let overhead = BASE_OVERHEAD + 4.0 / nf.max(1.0).sqrt();
    let bump = (nf * BUMP_FRACTION).max(BLOCK as f64) * f64::from(bumps);
    let slots = ((nf * (1.0 + overhead) + bump).ceil() as u64).max(W as u64);
    Ok(slots.div_ceil(BLOCK as u64) * BLOCK as u64)
}

/// The `i`-th construction seed (splitmix64 steps), so builds are deterministic.
fn seed_for(attempt: u32) -> u64 {
    let mut z = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(u64::from(attempt) + 1);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The banded system: row `i` holds a coefficient band starting at slot `i` (bit 0 set) and its
/// right-hand side, or nothing (`coeff == 0`).
pub(crate) struct Band {
    pub(crate) coeff: Vec<u128>,
    pub(crate) result: Vec<u16>,
}

impl Band {
    pub(crate) fn new(slots: usize) -> Result<Self> {
        Ok(Band {
            coeff: filter_core::try_filled(slots, 0, "ribbon banding coefficients")?,
            result: filter_core::try_filled(slots, 0, "ribbon banding results")?,
        })
    }

    /// Adds one equation; false when it contradicts the rows already there (the attempt fails).
    /// An equation the rows already imply (a repeated key) is accepted and changes nothing.
    pub(crate) fn add(&mut self, row: Row) -> bool {
        let Row {
            mut start,
            mut coeff,
            mut result,
        } = row;
        loop {
            let s = start as usize;
            if self.coeff[s] == 0 {
                self.coeff[s] = coeff;
                self.result[s] = result;
                return true;
            }
            coeff ^= self.coeff[s];
            result ^= self.result[s];
            if coeff == 0 {
                return result == 0;
            }
            let tz = coeff.trailing_zeros();
            start += u64::from(tz);
            coeff >>= tz;
        }
    }

    /// Back substitution, from the last row up, one 128-bit window per result column (bit `k`
    /// of column `j`'s window is bit `j` of slot `i + k`'s solution); free rows get 0. Writes
    /// the solution in the interleaved layout: for block `b` and column `j`, one `u64` at
    /// `b * r + j`, which is the low half of column `j`'s window once the block's first slot is
    /// solved.
    pub(crate) fn solve(&self, r: u32) -> Result<Vec<u64>> {
        let slots = self.coeff.len();
        let r = r as usize;
        let mut table = filter_core::try_filled(slots / BLOCK * r, 0u64, "ribbon table")?;
        let mut windows = [0u128; 16];
        let windows = &mut windows[..r];
        let rows = self
            .coeff
            .chunks_exact(BLOCK)
            .zip(self.result.chunks_exact(BLOCK));
        for (words, (coeffs, results)) in table.chunks_exact_mut(r).zip(rows).rev() {
            for (&c, &result) in coeffs.iter().zip(results).rev() {
                if c == 0 {
                    windows.iter_mut().for_each(|w| *w <<= 1);
                    continue;
                }
                for (j, w) in windows.iter_mut().enumerate() {
                    let bit = (parity(*w << 1 & c) ^ u64::from(result >> j)) & 1;
                    *w = *w << 1 | u128::from(bit);
                }
            }
            for (word, w) in words.iter_mut().zip(windows.iter()) {
                *word = *w as u64;
            }
        }
        Ok(table)
    }
}

impl Ribbon {
    /// Builds from key hashes: bands every distinct key under a seed, retrying with a new seed
    /// (and, every [`ATTEMPTS_PER_BUMP`] failures, more slots) until no equation contradicts
    /// another. The `r` shared columns are one system over all keys; the extra column (keys
    /// starting below the boundary, a fraction `upper` of the starts) is a second system over
    /// those keys, on the slots they reach. Both are banded in one pass over the keys sorted by
    /// start ([`sort_dedup`]), which also removes repeats (the per-seed hash is a bijection of
    /// the key, so equal keys, and only they, meet).
    pub(crate) fn build(hashes: &[Hash128], r: u32, upper: f64, hasher: KeyHasher) -> Result<Self> {
        let oom = |what| Error::OutOfMemory {
            what,
            bytes: hashes.len() as u64 * 8,
        };
        let mut keys = Vec::new();
        keys.try_reserve_exact(hashes.len())
            .map_err(|_| oom("ribbon key hashes"))?;
        let mut scratch = Vec::new();
        let mut n = 0;
        let mut slots = 0;
        for attempt in 0..MAX_ATTEMPTS {
            let seed = seed_for(attempt);
            keys.clear();
            keys.extend(hashes.iter().map(|&h| derive(key_of(h), seed)));
            sort_dedup(&mut keys, &mut scratch)?;
            n = keys.len() as u64;
            slots = slots_for(n, attempt / ATTEMPTS_PER_BUMP)?;
            let starts = slots - W as u64 + 1;
            let boundary = ((upper * starts as f64).ceil() as u64).min(starts);
            let extra_slots = if boundary == 0 {
                0
            } else {
                (boundary + W as u64 - 1).div_ceil(BLOCK as u64) * BLOCK as u64
            };
            let mut band = Band::new(to_usize(slots)?)?;
            let mut extra = Band::new(to_usize(extra_slots)?)?;
            if band_all(&keys, r, starts, boundary, &mut band, &mut extra) {
                return Ok(Ribbon {
                    hasher,
                    seed,
                    r,
                    slots,
                    boundary,
                    table: band.solve(r)?,
                    extra: extra.solve(1)?,
                    len: n,
                });
            }
        }
        Err(Error::Full {
            len: n,
            load_factor: n as f64 / slots as f64,
        })
    }
}

/// Bands the keys (per-seed hashes, ascending) into the shared columns and, for those starting
/// below `boundary`, the extra column; false at the first contradiction.
fn band_all(
    keys: &[u64],
    r: u32,
    starts: u64,
    boundary: u64,
    band: &mut Band,
    extra: &mut Band,
) -> bool {
    let low_mask = ((1u32 << r) - 1) as u16; // r = 16 is allowed
    keys.iter().all(|&d| {
        let row = row_of(d, starts, r + 1);
        band.add(Row {
            result: row.result & low_mask,
            ..row
        }) && (row.start >= boundary
            || extra.add(Row {
                result: row.result >> r,
                ..row
            }))
    })
}

/// The parity of the bits of `x` (0 or 1) without a popcount instruction (the baseline x86-64
/// target has none): fold to 64 bits, then to one parity bit per nibble, which a multiply sums
/// into the top nibble (at most 16 ones, so bit 60 is their parity).
#[inline]
pub(crate) fn parity(x: u128) -> u64 {
    let mut y = x as u64 ^ (x >> 64) as u64;
    y ^= y >> 1;
    y ^= y >> 2;
    ((y & 0x1111_1111_1111_1111).wrapping_mul(0x1111_1111_1111_1111) >> 60) & 1
}

fn to_usize(slots: u64) -> Result<usize> {
    usize::try_from(slots).map_err(|_| Error::SizeOverflow {
        what: "ribbon filter",
        hint: format!("{slots} slots do not fit this platform: split the set"),
    })
}
