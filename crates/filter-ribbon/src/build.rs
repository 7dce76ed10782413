//! Banding (on-the-fly Gaussian elimination, Dillinger & Walzer 2021, §2 and Alg. 1) and back
//! substitution into the interleaved column layout.

use crate::order::sort_dedup;
use crate::{derive, key_of, math, row_of, Ribbon, Row, BLOCK, W};
use filter_core::static_filter::construction_seed as seed_for;
use filter_core::{try_zeroed_table, Error, Hash128, KeyHasher, Pages, Result, Table};

/// Seeds tried before the construction gives up (never reached in practice: the slack grows
/// every [`ATTEMPTS_PER_BUMP`] failures).
pub const MAX_ATTEMPTS: u32 = 1000;

/// Failed seeds after which the slot count grows by [`math::BUMP_FRACTION`] of the keys (at
/// least 64 slots; [`math::ribbon_slots`]).
pub const ATTEMPTS_PER_BUMP: u32 = 2;

/// The banded system: row `i` holds a coefficient band starting at slot `i` (bit 0 set) and its
/// right-hand side, or nothing (`coeff == 0`).
///
/// Both start as fresh zero pages ([`filter_core::try_zeroed_table`]), written by nothing but
/// banding, and advised as the build's `pages` says, as is the solution.
pub(crate) struct Band {
    pub(crate) coeff: Table<u128>,
    pub(crate) result: Table<u16>,
    pages: Pages,
}

impl Band {
    pub(crate) fn new(slots: usize, pages: Pages) -> Result<Self> {
        Ok(Band {
            coeff: try_zeroed_table(slots, pages, "ribbon banding coefficients")?,
            result: try_zeroed_table(slots, pages, "ribbon banding results")?,
            pages,
        })
    }

    /// Adds one equation; false when it contradicts the rows already there (the attempt fails).
    /// An equation the rows already imply (a repeated key) is accepted and changes nothing.
    #[cfg(test)]
    pub(crate) fn add(&mut self, row: Row) -> bool {
        self.insert(row, u16::MAX) != Insert::Contradiction
    }

    /// Eliminates one equation against the rows already there, comparing only the result bits
    /// in `mask` when it reduces to nothing. Rows already placed never change.
    ///
    /// The equation only ever meets the `W` rows from its start on: its coefficients span
    /// `W` slots, each step clears the lowest and shifts by at least one, so the offset of
    /// the current row from the start stays below `W` while any coefficient is left. The
    /// coefficients are kept as two words: the low one is zero only when the shift reaches
    /// past it (rare), and a placed row is empty exactly when its low word is (bit 0 is set).
    pub(crate) fn insert(&mut self, row: Row, mask: u16) -> Insert {
        let s0 = row.start as usize;
        let coeffs = &mut self.coeff[s0..s0 + W];
        let results = &mut self.result[s0..s0 + W];
        let (mut lo, mut hi) = (row.coeff as u64, (row.coeff >> 64) as u64);
        let mut result = row.result;
        let mut off = 0;
        loop {
            let i = off % W;
            let other = coeffs[i];
            if other as u64 == 0 {
                coeffs[i] = u128::from(hi) << 64 | u128::from(lo);
                results[i] = result;
                return Insert::Placed(s0 + i);
            }
            lo ^= other as u64;
            hi ^= (other >> 64) as u64;
            result ^= results[i];
            if lo == 0 {
                if hi == 0 {
                    return if result & mask == 0 {
                        Insert::Implied
                    } else {
                        Insert::Contradiction
                    };
                }
                let tz = hi.trailing_zeros();
                (lo, hi) = (hi >> tz, 0);
                off += 64 + tz as usize;
            } else {
                // Both rows had bit 0 set, so 1 <= tz < 64.
                let tz = lo.trailing_zeros();
                lo = lo >> tz | (hi << 1) << (63 - tz);
                hi >>= tz;
                off += tz as usize;
            }
        }
    }

    /// Back substitution of all rows into `r` columns (result bits 0 to `r - 1`): the reference
    /// [`Band::solve_both`] is checked against.
    #[cfg(test)]
    pub(crate) fn solve(&self, r: u32) -> Result<Table<u64>> {
        self.solve_rows(self.coeff.len(), r, 0, &[])
    }

    /// Back substitution of both systems in one pass from the last row up: the `r` shared
    /// columns over all rows, and the extra column (result bit `r`) over the first
    /// `extra_slots` rows (whole blocks), its rows marked in `late` treated as free. The same
    /// tables as `Band::solve` and `solve_rows(extra_slots, 1, r, late)`, for one read of the
    /// rows instead of two (at 10^7 keys they lie far beyond the caches) and one loop over them.
    pub(crate) fn solve_both(
        &self,
        r: u32,
        extra_slots: usize,
        late: &[u64],
    ) -> Result<(Table<u64>, Table<u64>)> {
        let slots = self.coeff.len();
        let mut table = try_zeroed_table(slots / BLOCK * r as usize, self.pages, "ribbon table")?;
        let mut extra = try_zeroed_table(extra_slots / BLOCK, self.pages, "ribbon table")?;
        let rows = (&self.coeff[..], &self.result[..]);
        crate::by_columns!(r, R => back_substitute_both::<R>(&mut table, &mut extra, rows, late));
        Ok((table, extra))
    }

    /// Back substitution, from the last row up, one 128-bit window per result column (bit `k`
    /// of column `j`'s window is bit `j` of slot `i + k`'s solution), over the first `slots`
    /// rows (whole blocks), with result bits from `shift` up; free rows, and rows whose bit is
    /// set in `skip`, get 0. Writes the solution in the interleaved layout: for block `b` and
    /// column `j`, one `u64` at `b * r + j`, which is the low half of column `j`'s window once
    /// the block's first slot is solved.
    #[cfg(test)]
    pub(crate) fn solve_rows(
        &self,
        slots: usize,
        r: u32,
        shift: u32,
        skip: &[u64],
    ) -> Result<Table<u64>> {
        let mut table = try_zeroed_table(slots / BLOCK * r as usize, self.pages, "ribbon table")?;
        let rows = (&self.coeff[..slots], &self.result[..slots]);
        macro_rules! columns {
            ($($n:literal)*) => {
                match r {
                    $($n => back_substitute::<$n>(&mut table, rows, shift, skip),)*
                    // r <= MAX_RESULT_BITS = 16 (RibbonBuilder::columns, the decoder).
                    _ => back_substitute::<16>(&mut table, rows, shift, skip),
                }
            };
        }
        columns!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        Ok(table)
    }
}

/// [`Band::solve_rows`] for `R` columns, a constant, so that the windows stay in registers and
/// the loop over the columns unrolls.
#[cfg(test)]
fn back_substitute<const R: usize>(
    table: &mut [u64],
    (coeffs, results): (&[u128], &[u16]),
    shift: u32,
    skip: &[u64],
) {
    let mut windows = [0u128; R];
    let rows = coeffs.chunks_exact(BLOCK).zip(results.chunks_exact(BLOCK));
    for (b, (words, (coeffs, results))) in table.chunks_exact_mut(R).zip(rows).enumerate().rev() {
        let skipped = skip.get(b).copied().unwrap_or(0);
        for (k, (&c, &result)) in coeffs.iter().zip(results).enumerate().rev() {
            if c == 0 || skipped >> k & 1 == 1 {
                windows.iter_mut().for_each(|w| *w <<= 1);
                continue;
            }
            let result = u64::from(result >> shift);
            // Bit 0 of `c` is this slot, the unknown; bit `k + 1` selects bit `k` of the windows
            // (slot `i + 1 + k`). Shifting `c` once here spares a 128-bit shift per column.
            let (lo, hi) = ((c >> 1) as u64, (c >> 65) as u64);
            for (j, w) in windows.iter_mut().enumerate() {
                // Result bit `j` moved to bit 63, where the parity lands.
                let bit =
                    parity64_top(*w as u64 & lo ^ (*w >> 64) as u64 & hi) ^ result << (63 - j);
                *w = *w << 1 | u128::from(bit >> 63);
            }
        }
        for (word, w) in words.iter_mut().zip(windows.iter()) {
            *word = *w as u64;
        }
    }
}

/// [`Band::solve_both`] for `R` columns: `back_substitute` (the tests' reference) with one more window, for result
/// bit `R`, updated over the blocks of `extra` only (it holds zeros above them, as the extra
/// system's own back substitution starts with), and shifted in as 0 at the rows of `skip`.
fn back_substitute_both<const R: usize>(
    table: &mut [u64],
    extra: &mut [u64],
    (coeffs, results): (&[u128], &[u16]),
    skip: &[u64],
) {
    let mut windows = [0u128; R];
    let mut top = 0u128;
    let rows = coeffs.chunks_exact(BLOCK).zip(results.chunks_exact(BLOCK));
    for (b, (words, (coeffs, results))) in table.chunks_exact_mut(R).zip(rows).enumerate().rev() {
        let Some(extra_word) = extra.get_mut(b) else {
            substitute_block(&mut windows, coeffs, results);
            for (word, w) in words.iter_mut().zip(windows.iter()) {
                *word = *w as u64;
            }
            continue;
        };
        let skipped = skip.get(b).copied().unwrap_or(0);
        for (k, (&c, &result)) in coeffs.iter().zip(results).enumerate().rev() {
            if c == 0 {
                windows.iter_mut().for_each(|w| *w <<= 1);
                top <<= 1;
                continue;
            }
            let result = u64::from(result);
            let (lo, hi) = ((c >> 1) as u64, (c >> 65) as u64);
            substitute_row(&mut windows, lo, hi, result);
            let bit = if skipped >> k & 1 == 1 {
                0
            } else {
                parity64_top(top as u64 & lo ^ (top >> 64) as u64 & hi) ^ result << (63 - R)
            };
            top = top << 1 | u128::from(bit >> 63);
        }
        for (word, w) in words.iter_mut().zip(windows.iter()) {
            *word = *w as u64;
        }
        *extra_word = top as u64;
    }
}

/// One block of [`back_substitute_both`] below the extra column's slots: the `R` windows only.
#[inline]
fn substitute_block<const R: usize>(windows: &mut [u128; R], coeffs: &[u128], results: &[u16]) {
    for (&c, &result) in coeffs.iter().zip(results).rev() {
        if c == 0 {
            windows.iter_mut().for_each(|w| *w <<= 1);
            continue;
        }
        substitute_row(
            windows,
            (c >> 1) as u64,
            (c >> 65) as u64,
            u64::from(result),
        );
    }
}

/// One solved row: window `j` gains, at its bottom, the parity of the bits it holds selected by
/// the row's coefficients above its own slot (`lo`, `hi`: bit `k` selects bit `k` of the
/// window, slot `i + 1 + k`) plus result bit `j`.
#[inline(always)]
fn substitute_row<const R: usize>(windows: &mut [u128; R], lo: u64, hi: u64, result: u64) {
    for (j, w) in windows.iter_mut().enumerate() {
        let bit = parity64_top(*w as u64 & lo ^ (*w >> 64) as u64 & hi) ^ result << (63 - j);
        *w = *w << 1 | u128::from(bit >> 63);
    }
}

/// What [`Band::insert`] did with an equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Insert {
    /// It became the row of this slot.
    Placed(usize),
    /// The rows already there imply it (a repeated key, or a lucky combination).
    Implied,
    /// It contradicts them: this attempt fails.
    Contradiction,
}

impl Ribbon {
    /// Builds from key hashes: bands every distinct key under a seed, retrying with a new seed
    /// (and, every [`ATTEMPTS_PER_BUMP`] failures, more slots) until no equation contradicts
    /// another. The `r` shared columns are one system over all keys; the extra column (keys
    /// starting below the boundary, a fraction `upper` of the starts) is a second system over
    /// those keys, on the slots they reach. Both are banded in one pass over the keys sorted by
    /// start ([`sort_dedup`]), which also removes repeats (the per-seed hash is a bijection of
    /// the key, so equal keys, and only they, meet). The band and both tables are advised as
    /// `pages` says.
    pub(crate) fn build(
        hashes: &[Hash128],
        (r, upper): (u32, f64),
        hasher: KeyHasher,
        pages: Pages,
    ) -> Result<Self> {
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
            slots = math::ribbon_slots(n, attempt / ATTEMPTS_PER_BUMP)?;
            let math::RibbonShape {
                starts,
                boundary,
                extra_slots,
            } = math::ribbon_shape(slots, upper)?;
            let mut band = Band::new(to_usize(slots)?, pages)?;
            if let Some(late) = band_all(&keys, r, starts, boundary, extra_slots, &mut band)? {
                let (table, extra) = band.solve_both(r, to_usize(extra_slots)?, &late)?;
                let span = (slots, boundary);
                return Ok(Ribbon::assemble(hasher, seed, r, span, (table, extra), n));
            }
        }
        Err(Error::Full {
            len: n,
            load_factor: n as f64 / slots as f64,
        })
    }
}

/// Bands the keys (per-seed hashes, ascending, so by start) into one band holding both
/// systems; `None` at the first contradiction.
///
/// The keys starting below `boundary` come first: they are banded with `r + 1` result bits,
/// checked in full. Their rows are then exactly the rows the extra column's system alone
/// would have (the same equations, eliminated in the same order), and later rows only fill
/// empty slots. The keys from `boundary` on are checked on their `r` bits only (the top bit of
/// their rows is meaningless); those placed among the extra column's first `extra_slots` slots
/// are marked in the returned bit set, so that the extra column's back substitution treats
/// their slots as free, as its own system would.
pub(crate) fn band_all(
    keys: &[u64],
    r: u32,
    starts: u64,
    boundary: u64,
    extra_slots: u64,
    band: &mut Band,
) -> Result<Option<Vec<u64>>> {
    let low_mask = ((1u32 << r) - 1) as u16; // r = 16 is allowed (then the boundary is 0)
    let mut late =
        filter_core::try_filled(to_usize(extra_slots)? / BLOCK, 0u64, "ribbon banding marks")?;
    for &d in keys {
        let row = row_of(d, starts, r + 1);
        let (mask, lower) = if row.start < boundary {
            (u16::MAX, true)
        } else {
            (low_mask, false)
        };
        match band.insert(row, mask) {
            Insert::Contradiction => return Ok(None),
            Insert::Placed(s) if !lower && (s as u64) < extra_slots => {
                late[s / BLOCK] |= 1 << (s % BLOCK);
            }
            Insert::Placed(_) | Insert::Implied => {}
        }
    }
    Ok(Some(late))
}

/// The parity of the bits of `y` in bit 63, the lower bits not meaningful, without a popcount
/// instruction (the baseline x86-64 target has none): one parity bit per nibble (at bits
/// `4k`), which a multiply by `8 · 0x1111…` sums into bit 63 and up. Bit 63 receives the sum of
/// all 16 nibble bits, whose parity is that of `y`; its carries leave the word, and the partial
/// sums below (at bit `4m + 3`, at most `m + 1 <= 15`) stay under bit `4m + 7`, so none reaches
/// bit 63. One instruction less than moving the sum to bit 0 and masking it.
#[inline]
pub(crate) fn parity64_top(mut y: u64) -> u64 {
    y ^= y >> 1;
    y ^= y >> 2;
    (y & 0x1111_1111_1111_1111).wrapping_mul(0x8888_8888_8888_8888)
}

/// The parity of the bits of `y` (0 or 1).
#[cfg(test)]
pub(crate) fn parity64(y: u64) -> u64 {
    parity64_top(y) >> 63
}

fn to_usize(slots: u64) -> Result<usize> {
    usize::try_from(slots).map_err(|_| Error::SizeOverflow {
        what: "ribbon filter",
        hint: format!("{slots} slots do not fit this platform: split the set"),
    })
}
