//! The table's bytes: one block per 64 slots, then a short tail (format version 3).
//!
//! ```text
//! block b, at b·(20 + 8r):
//!   0   4  spill      u32: slots at the block's start that runs of earlier quotients fill
//!   4   8  occupieds  u64: bit i set when quotient 64b + i has a run
//!  12   8  runends    u64: bit i set when slot 64b + i ends a run
//!  20  8r  remainders: slot 64b + i's r bits at bit r·i (little-endian, packed)
//! tail, after the last block:
//!   0   4  spill of the table's end (0 in a valid table)
//!   4  12  zeros
//! ```
//!
//! All fields little-endian, read and written by byte offset (the table is a `Table<u8>`, so a
//! mapped file's bytes are the table whatever their alignment). A remainder is read with one
//! 8-byte load from the byte holding its first bit (a 16-byte one when `r` and the bit's offset
//! in its byte pass 64); the tail keeps such a read of the last slot inside the table.

use super::{mask, Slots, BLOCK};

/// Bytes before a block's remainders: its offset and its two metadata words.
const HEAD: usize = 20;
/// Where a block's `occupieds` and `runends` words are.
const OCCUPIEDS: usize = 4;
const RUNENDS: usize = 12;
/// Bytes after the last block: the end's offset and zeros.
pub(super) const TAIL: usize = 16;

/// Bytes per block for `r`-bit remainders.
#[inline]
pub(super) fn stride(rbits: u32) -> usize {
    HEAD + 8 * rbits as usize
}

/// Bytes of a table of `blocks` blocks of `r`-bit remainders, tail included (`None` past the
/// address space).
pub fn table_len(blocks: usize, rbits: u32) -> Option<usize> {
    blocks.checked_mul(stride(rbits))?.checked_add(TAIL)
}

#[inline]
fn read_u64(t: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(t[at..at + 8].try_into().expect("8 bytes"))
}

#[inline]
fn write_u64(t: &mut [u8], at: usize, v: u64) {
    t[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

impl Slots {
    /// The byte where slot `i`'s remainder starts, and its bit in that byte.
    #[inline]
    fn rem_at(&self, i: u64) -> (usize, u32) {
        let (b, j) = ((i / BLOCK) as usize, (i % BLOCK) as u32);
        let bit = j * self.rbits;
        (b * self.stride + HEAD + (bit / 8) as usize, bit % 8)
    }

    /// Slot `i`'s remainder.
    #[inline]
    pub(super) fn rem(&self, i: u64) -> u64 {
        let (at, shift) = self.rem_at(i);
        if shift + self.rbits <= 64 {
            (read_u64(&self.table, at) >> shift) & mask(self.rbits)
        } else {
            let lo = u128::from(read_u64(&self.table, at));
            let v = lo | u128::from(read_u64(&self.table, at + 8)) << 64;
            (v >> shift) as u64 & mask(self.rbits)
        }
    }

    /// Sets slot `i`'s remainder to `v` (its low `r` bits).
    #[inline]
    pub(super) fn set_rem(&mut self, i: u64, v: u64) {
        let (at, shift) = self.rem_at(i);
        let m = mask(self.rbits);
        if shift + self.rbits <= 64 {
            let w = read_u64(&self.table, at);
            write_u64(
                &mut self.table,
                at,
                (w & !(m << shift)) | ((v & m) << shift),
            );
        } else {
            let lo = u128::from(read_u64(&self.table, at));
            let w = lo | u128::from(read_u64(&self.table, at + 8)) << 64;
            let m = u128::from(m) << shift;
            let w = (w & !m) | (u128::from(v) << shift & m);
            write_u64(&mut self.table, at, w as u64);
            write_u64(&mut self.table, at + 8, (w >> 64) as u64);
        }
    }

    /// Starts loading the memory a lookup of quotient `q` reads: its block's head and the line
    /// of its home slot's remainder (a block spans two cache lines for most widths; the two
    /// misses then overlap instead of following one another).
    #[inline]
    pub fn prefetch(&self, q: u64) {
        let (at, _) = self.rem_at(q);
        let head = (q / BLOCK) as usize * self.stride;
        filter_core::prefetch(&self.table[head]);
        filter_core::prefetch(&self.table[at]);
    }

    /// Block `b`'s offset (`b == blocks`: the table's end).
    #[inline]
    pub(crate) fn spill(&self, b: usize) -> u32 {
        let at = b * self.stride;
        u32::from_le_bytes(self.table[at..at + 4].try_into().expect("4 bytes"))
    }

    #[inline]
    pub(super) fn set_spill(&mut self, b: usize, v: u32) {
        let at = b * self.stride;
        self.table[at..at + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Block `b`'s offset, `occupieds` and `runends` words, read with one bounds check; `None`
    /// for `b` at or past the number of blocks.
    #[inline(always)]
    fn head(&self, b: usize) -> Option<(u32, u64, u64)> {
        let at = b * self.stride;
        let head: &[u8; HEAD] = self.table.get(at..at + HEAD)?.try_into().ok()?;
        let word = |at: usize| u64::from_le_bytes(head[at..at + 8].try_into().expect("8 bytes"));
        let spill = u32::from_le_bytes(head[..4].try_into().expect("4 bytes"));
        Some((spill, word(OCCUPIEDS), word(RUNENDS)))
    }

    /// Whether some entry of the run of `q` satisfies `pred` (the quotient filter's: equals the
    /// key's remainder), read from the table's bytes in one pass: the home
    /// block's head (one bounds check), then the `runends` words from the block's offset on
    /// to the run's end (a select), then the run's remainders from its end back to its start.
    /// The same answers as walking [`Slots::run_backwards`] (the tests compare them on valid and
    /// on damaged tables), at about half its time at 10M keys: the walk's iterator rebuilt each
    /// slot's block and word through `Option`s, where this loop keeps the block and its word.
    ///
    /// On a damaged table opened in place it stays in bounds: blocks are checked against the
    /// table's before they are read (an offset or run ends that lead past it answer `false`),
    /// and the walk back reads slots between `q` and a run end inside the table.
    #[inline(always)]
    pub(super) fn lookup<const PDEP: bool, F: Fn(u64) -> bool>(&self, q: u64, pred: F) -> bool {
        let (b, bit) = ((q / BLOCK) as usize, (q % BLOCK) as u32);
        let Some((spill, occupieds, home_runends)) = self.head(b) else {
            return false;
        };
        if occupieds >> bit & 1 == 0 {
            return false;
        }
        let p = b as u64 * BLOCK + u64::from(spill);
        let mut k = (occupieds & mask(bit)).count_ones();
        let mut w = (p / BLOCK) as usize;
        let mut word = match w == b {
            true => home_runends,
            false if w < self.blocks => self.runends(w),
            false => return false,
        } & (!0u64 << (p % BLOCK));
        let at = loop {
            let found = match PDEP {
                true => super::select_or_count_pdep(word, k),
                false => filter_core::select_or_count(word, k),
            };
            match found {
                Ok(at) => break at,
                Err(ones) => k -= ones,
            }
            w += 1;
            if w >= self.blocks {
                return false;
            }
            word = self.runends(w);
        };
        self.run_holds(q, w as u64 * BLOCK + u64::from(at), pred)
    }

    /// Whether some entry of the run that ends at slot `end` (inside the table) and starts at
    /// `q` or after satisfies `pred`: its entries tried from the end back, stopping at `q` or after the slot
    /// that ends the run before. A remainder of at most 57 bits is one 8-byte load from the
    /// byte of its first bit (the width's test made once, not per slot).
    #[inline(always)]
    fn run_holds<F: Fn(u64) -> bool>(&self, q: u64, end: u64, pred: F) -> bool {
        let (t, stride, width) = (&self.table[..], self.stride, self.rbits);
        let m = mask(width);
        let mut i = end;
        loop {
            let v = match width <= 57 {
                true => {
                    let bit = (i % BLOCK) as u32 * width;
                    let at = (i / BLOCK) as usize * stride + HEAD + (bit / 8) as usize;
                    (read_u64(t, at) >> (bit % 8)) & m
                }
                false => self.rem(i),
            };
            if pred(v) {
                return true;
            }
            if i <= q {
                return false;
            }
            i -= 1;
            if read_u64(t, (i / BLOCK) as usize * stride + RUNENDS) >> (i % BLOCK) & 1 == 1 {
                return false;
            }
        }
    }

    /// Block `b`'s `occupieds` word.
    #[inline]
    pub(crate) fn occupieds(&self, b: usize) -> u64 {
        read_u64(&self.table, b * self.stride + OCCUPIEDS)
    }

    /// Block `b`'s `runends` word.
    #[inline]
    pub(crate) fn runends(&self, b: usize) -> u64 {
        read_u64(&self.table, b * self.stride + RUNENDS)
    }

    /// Block `b`'s `runends` word, if the table has block `b`.
    #[inline]
    pub(super) fn runends_of(&self, b: usize) -> Option<u64> {
        (b < self.blocks).then(|| self.runends(b))
    }

    #[inline]
    pub(super) fn occupied(&self, i: u64) -> bool {
        self.occupieds((i / BLOCK) as usize) >> (i % BLOCK) & 1 == 1
    }

    #[inline]
    pub(super) fn runend(&self, i: u64) -> bool {
        self.runends((i / BLOCK) as usize) >> (i % BLOCK) & 1 == 1
    }

    #[inline]
    pub(super) fn set_occupied(&mut self, i: u64, v: bool) {
        self.set_bit(i, OCCUPIEDS, v);
    }

    #[inline]
    pub(super) fn set_runend(&mut self, i: u64, v: bool) {
        self.set_bit(i, RUNENDS, v);
    }

    #[inline]
    fn set_bit(&mut self, i: u64, field: usize, v: bool) {
        let at = (i / BLOCK) as usize * self.stride + field;
        let w = read_u64(&self.table, at);
        let b = i % BLOCK;
        write_u64(&mut self.table, at, (w & !(1 << b)) | (u64::from(v) << b));
    }

    /// Whether the tail's padding is zero (its offset is checked with the first block's).
    pub(super) fn tail_is_zero(&self) -> bool {
        self.table[self.blocks * self.stride + 4..]
            .iter()
            .all(|&b| b == 0)
    }

    /// The table's bytes as saved in a version 3 file.
    pub fn blocked_bytes(&self) -> &[u8] {
        &self.table
    }

    /// Block `b`'s remainders as the `r` words a version 1 or 2 file saves for it.
    pub(crate) fn remainder_words(&self, b: usize) -> impl Iterator<Item = u64> + '_ {
        let at = b * self.stride + HEAD;
        (0..self.rbits as usize).map(move |w| read_u64(&self.table, at + 8 * w))
    }

    /// Copies block `b` of the separate arrays of a version 1 or 2 file in: its metadata words
    /// and its `r` remainder words (the remainders of 64 slots fill exactly `r` words).
    pub(super) fn put_block(&mut self, b: usize, occupieds: u64, runends: u64, rems: &[u64]) {
        debug_assert_eq!(rems.len(), self.rbits as usize);
        let at = b * self.stride;
        write_u64(&mut self.table, at + OCCUPIEDS, occupieds);
        write_u64(&mut self.table, at + RUNENDS, runends);
        for (w, &v) in rems.iter().enumerate() {
            write_u64(&mut self.table, at + HEAD + 8 * w, v);
        }
    }
}
