//! The rank-and-select table of Pandey, Bender, Johnson & Patro 2017 (§3, the RSQF).
//!
//! Per slot: an `occupieds` bit (some stored fingerprint has this slot as its quotient), a
//! `runends` bit (this slot holds the last remainder of a run) and an `r`-bit remainder. A *run*
//! is the remainders of one quotient, stored contiguously; runs are in quotient order, and the
//! run of quotient `q` starts at `max(q, end of the previous run + 1)`. So the run of an
//! occupied `q` is the `k`-th run, `k = rank(occupieds, q)`, and ends at the `k`-th set bit of
//! `runends`: no per-slot "shifted" or "continuation" bits are needed (Bender et al. 2012 use
//! three per slot).
//!
//! The table does not wrap around: it has `Q` quotients and [`extra_slots`] more slots at the
//! end for the runs that spill past the last quotient (as the CQF's `xnslots`).
//!
//! To keep rank and select local, Pandey et al. store per block of 64 slots an *offset*; here it
//! is the block's `spill`: how many slots at the start of block `b` hold runs of quotients
//! before the block. The runs of quotients `64b..=q` then start at `64b + spill` or later, so
//! finding a run reads one `occupieds` word and the `runends` words from there on (the
//! cluster, short at 95% load). `spill` is derived from the metadata, after an insert or
//! removal for the blocks the shift crossed. Deriving it for a whole table reads the whole
//! table, so files save it (a load checks it against the one it derives; version 1 files leave
//! it to the load), and a table opened in place reads it from the file. It is a `u32` (a run
//! may cover whole blocks), so a table has fewer than 2^32 slots.
//!
//! # Blocks
//! The table is one array of blocks ([`block`]), as in the RSQF and the `qfilter` crate: block
//! `b` holds its `spill`, its `occupieds` and `runends` words and the remainders of its 64
//! slots side by side (`20 + 8r` bytes), so a lookup whose run lies in its home block reads
//! that block only (and the next one when the run crosses into it). Bits per slot are those
//! of four separate arrays (2 + r, and 32 per block for the offset). Version 1 and 2 files hold
//! the four arrays apart; a load copies them into blocks ([`Slots::from_words`]).
//!
//! # Lookups on a table opened in place
//! An open checks none of the table ([`Slots::in_place`]), so a lookup ([`Slots::contains`],
//! [`Slots::count`]) must stay in bounds and end whatever the bytes hold: every block index is
//! below the number of blocks ([`Slots::kth_run_end`] answers `slots` past the last block,
//! whatever offset it starts from), every slot read is below `slots` (whose remainders' reads
//! stay inside the table's trailing bytes), a run is read only if its end lies inside the table
//! ([`Slots::run_of`]; a valid table never takes that branch), and no loop runs past the
//! table's end. A damaged table gives wrong answers, not a panic; a change checks it first.

use filter_core::{Error, Result, Table, TableOptions};

/// Slots per block of the `spill` index (one `occupieds` word).
const BLOCK: u64 = 64;
/// Most quotients: `2^31`, so that they and their extra slots stay below 2^32 slots (the
/// `spill` index is 32-bit).
pub const MAX_QUOTIENTS: u64 = 1 << 31;
/// Fewest quotients: one block.
pub const MIN_QUOTIENTS: u64 = BLOCK;

/// Slots after the last quotient for runs that spill past it: `10·sqrt(Q)` for `Q` quotients,
/// at least 64 (Pandey et al.'s `xnslots = nslots + 10·sqrt(nslots)`); the table is then
/// rounded up to whole blocks. The longest cluster at 95% load is far shorter; an insert that
/// would still run off the end is refused ([`Error::Full`]).
pub fn extra_slots(quotients: u64) -> u64 {
    let ten_roots = (10.0 * (quotients as f64).sqrt()).ceil() as u64;
    ten_roots.max(BLOCK)
}

/// The word counts of a table as version 1 and 2 files save it: `(slots, words per bit
/// vector, words of remainders)`; its blocked form has `words per bit vector` blocks.
///
/// # Errors
/// Quotients outside 64..=2^31, remainder bits outside 1..=64.
pub fn layout(quotients: u64, rbits: u32) -> Result<(u64, usize, usize)> {
    let home = "between 64 and 2^31 quotients (home slots); lower the capacity";
    let ok = (MIN_QUOTIENTS..=MAX_QUOTIENTS).contains(&quotients);
    filter_core::accept_if(ok, "quotients", quotients, home)?;
    let remainders = "between 1 and 64 remainder bits (raise the fpr)";
    filter_core::accept_if(
        (1..=64).contains(&rbits),
        "remainder_bits",
        rbits,
        remainders,
    )?;
    let slots = (quotients + extra_slots(quotients)).div_ceil(BLOCK) * BLOCK;
    let bit_words = (slots / BLOCK) as usize;
    let rem_words = (slots * u64::from(rbits)).div_ceil(64);
    let rem_words = usize::try_from(rem_words)
        .ok()
        .filter(|_| block::table_len(bit_words, rbits).is_some())
        .ok_or_else(|| Error::SizeOverflow {
            what: "quotient table",
            hint: format!("{slots} slots of {rbits} bits; lower the capacity"),
        })?;
    Ok((slots, bit_words, rem_words))
}

/// The slots and heap bytes of a table of `quotients` quotients and `r`-bit remainders: its
/// blocks of 64 slots (`20 + 8r` bytes each: offset, two metadata words, remainders) and the
/// 16-byte tail.
///
/// # Errors
/// Those of [`layout`].
pub fn table_bytes(quotients: u64, rbits: u32) -> Result<(u64, u64)> {
    let (slots, blocks, _) = layout(quotients, rbits)?;
    let bytes = block::table_len(blocks, rbits).expect("checked by layout");
    Ok((slots, bytes as u64))
}

/// The packed table: per block of 64 slots its `spill` offset, its metadata words and its
/// remainders (module `rsqf::block`), and the end's offset.
#[derive(Clone, Debug)]
pub struct Slots {
    quotients: u64,
    rbits: u32,
    slots: u64,
    /// `slots / 64`.
    blocks: usize,
    /// Bytes per block.
    stride: usize,
    /// The blocks and the tail.
    table: Table<u8>,
    /// Whether the words passed [`Slots::check`] (or were built here): `false` for a table
    /// opened in place, until a change checks it.
    checked: bool,
    /// Whether every table is memory of its own (built, loaded, or copied out of the file by
    /// [`Slots::own_tables`]): `false` for a table opened in place.
    owned: bool,
}

impl PartialEq for Slots {
    /// The same table, checked or not.
    fn eq(&self, other: &Self) -> bool {
        let shape = |t: &Slots| (t.quotients, t.rbits, t.slots);
        shape(self) == shape(other) && self.table == other.table
    }
}

/// [`filter_core::select_or_count`] by `pdep` and `popcnt`: the `PDEP = true` forms of the lookup use it,
/// and only `kernel::with_bmi2` calls those (compiled for BMI2, after the CPU was seen to have
/// it and to run `pdep` in hardware).
#[inline(always)]
#[allow(unsafe_code)]
pub(super) fn select_or_count_pdep(w: u64, k: u32) -> std::result::Result<u32, u32> {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let ones = w.count_ones();
        if k >= ones {
            return Err(ones);
        }
        // SAFETY: reached only from `kernel::with_bmi2` (see above): the CPU has BMI2.
        Ok(unsafe { std::arch::x86_64::_pdep_u64(1u64 << k, w) }.trailing_zeros())
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    filter_core::select_or_count(w, k)
}

impl Slots {
    /// An empty table, its bytes checked against the cap of `tables` first, its large
    /// arrays allocated with their page advice.
    ///
    /// # Errors
    /// Those of [`layout`], the memory cap, or an allocation failure.
    pub fn new(quotients: u64, rbits: u32, tables: impl Into<TableOptions>) -> Result<Slots> {
        let tables = tables.into();
        let (_, blocks, _) = layout(quotients, rbits)?;
        let bytes = block::table_len(blocks, rbits).expect("checked by layout");
        let table = filter_core::try_zeroed_table(bytes, tables, "quotient table")?;
        Ok(Slots::of_table(quotients, rbits, table))
    }

    /// The table of `quotients` and `r`-bit remainders over `table` (its length checked by
    /// the caller), marked checked and owned.
    fn of_table(quotients: u64, rbits: u32, table: Table<u8>) -> Slots {
        let (slots, blocks, _) = layout(quotients, rbits).expect("checked by the caller");
        debug_assert_eq!(Some(table.len()), block::table_len(blocks, rbits));
        Slots {
            quotients,
            rbits,
            slots,
            blocks,
            stride: block::stride(rbits),
            table,
            checked: true,
            owned: true,
        }
    }

    /// The checks of the metadata and remainders in [`Slots::check`]; returns the number of
    /// used slots.
    fn validate(&self) -> std::result::Result<u64, String> {
        let quotients = self.quotients;
        if (quotients..self.slots).any(|i| self.occupied(i)) {
            return Err("an occupied bit past the last quotient".into());
        }
        self.check_ends()?;
        let runs: u64 = (0..self.blocks)
            .map(|b| u64::from(self.occupieds(b).count_ones()))
            .sum();
        let ends: u64 = (0..self.blocks)
            .map(|b| u64::from(self.runends(b).count_ones()))
            .sum();
        if runs != ends {
            return Err(format!("{runs} occupied quotients but {ends} run ends"));
        }
        let (mut next_free, mut used) = (0u64, 0u64);
        let empty =
            |t: &Slots, from: u64, to: u64| (from..to).all(|i| !t.runend(i) && t.rem(i) == 0);
        for q in (0..quotients).filter(|&q| self.occupied(q)) {
            let start = q.max(next_free);
            if !empty(self, next_free, start) {
                return Err(format!(
                    "a run end or remainder in an empty slot before {start}"
                ));
            }
            let end = self.run_end_from(start);
            if end >= self.slots {
                return Err(format!("the run of quotient {q} has no end"));
            }
            used += end + 1 - start;
            next_free = end + 1;
        }
        if !empty(self, next_free, self.slots) {
            return Err("a run end or remainder in an empty slot at the end".into());
        }
        Ok(used)
    }

    /// For tests: the largest `spill` (above 64, a run covers a whole block).
    #[cfg(test)]
    pub fn max_spill(&self) -> u32 {
        (0..=self.blocks).map(|b| self.spill(b)).max().unwrap_or(0)
    }

    /// For tests: spoils the `spill` index of block `b`.
    #[cfg(test)]
    pub fn spoil_spill(&mut self, b: usize) {
        self.set_spill(b, self.spill(b) + 1);
    }

    /// Quotients `Q` (home slots).
    pub fn quotients(&self) -> u64 {
        self.quotients
    }

    /// Remainder bits `r`.
    pub fn rbits(&self) -> u32 {
        self.rbits
    }

    /// All slots, the extra ones included.
    pub fn slots(&self) -> u64 {
        self.slots
    }

    /// Bytes of the table on transparent huge pages now (`None`: not measurable).
    pub fn huge_page_bytes(&self) -> Option<u64> {
        self.table.huge_page_bytes()
    }

    /// Blocks of 64 slots.
    pub fn blocks(&self) -> usize {
        self.blocks
    }

    /// Heap bytes of the table, offsets included.
    pub fn bytes(&self) -> usize {
        self.table.len()
    }

    /// The first slot at or after `from` that ends a run (`slots` if none: only in a table
    /// being validated).
    fn run_end_from(&self, from: u64) -> u64 {
        self.kth_run_end(from, 0)
    }

    /// The `k`-th (from 0) set `runends` bit at or after slot `p`; `slots` if there is none.
    #[inline(always)]
    fn kth_run_end(&self, p: u64, mut k: u32) -> u64 {
        let mut w = (p / 64) as usize;
        let Some(first) = self.runends_of(w) else {
            return self.slots;
        };
        let mut word = first & (!0u64 << (p % 64));
        loop {
            match filter_core::select_or_count(word, k) {
                Ok(at) => return w as u64 * 64 + u64::from(at),
                Err(ones) => k -= ones,
            }
            w += 1;
            match self.runends_of(w) {
                Some(next) => word = next,
                None => return self.slots,
            }
        }
    }

    /// The first slot after every run of the quotients below `q`, or, when no run of the
    /// quotients `64·(q/64) .. q` exists, the first slot after the runs spilling into `q`'s
    /// block (a slot at or before `q` when nothing spills): where a new run of `q` starts,
    /// with `max(q, _)`.
    fn after_runs_below(&self, q: u64) -> u64 {
        self.after_runs_in_block(q, (q % BLOCK) as u32)
    }

    /// As [`Slots::after_runs_below`] for the quotients up to `x` included: slot `x` is empty
    /// exactly when this is at most `x` (later quotients' runs start after it).
    fn after_runs_through(&self, x: u64) -> u64 {
        self.after_runs_in_block(x, (x % BLOCK) as u32 + 1)
    }

    /// The first slot after the runs of the first `quotients` quotients of `x`'s block, and of
    /// all quotients before the block.
    fn after_runs_in_block(&self, x: u64, quotients: u32) -> u64 {
        let b = (x / BLOCK) as usize;
        let p = b as u64 * BLOCK + u64::from(self.spill(b));
        let runs = (self.occupieds(b) & mask(quotients)).count_ones();
        if runs == 0 {
            p
        } else {
            self.kth_run_end(p, runs - 1) + 1
        }
    }

    /// The slots `(start, end)` of the run of quotient `q`, if `q` is occupied (`end < slots`;
    /// `start <= end` unless the table is damaged, when the range is empty). One block's offset
    /// and occupieds word give the run's rank among the runs from the block's offset on; its
    /// end is the run end of that rank, its start one past the end before it (or `q`).
    #[inline(always)]
    fn run_of(&self, q: u64) -> Option<(u64, u64)> {
        let b = (q / BLOCK) as usize;
        let (occupieds, bit) = (self.occupieds(b), (q % BLOCK) as u32);
        if occupieds >> bit & 1 == 0 {
            return None;
        }
        let p = b as u64 * BLOCK + u64::from(self.spill(b));
        let before = (occupieds & mask(bit)).count_ones();
        let start = match before {
            0 => q.max(p),
            _ => q.max(self.kth_run_end(p, before - 1) + 1),
        };
        let end = self.kth_run_end(p, before);
        // A run end is found, or `slots` is returned: past the table only in a damaged table
        // opened in place, whose offsets or run ends lead nowhere.
        (end < self.slots).then_some((start, end))
    }

    /// The first empty slot at or after `from`, if the table has one. Slot `x` is empty exactly
    /// when the runs of the quotients up to `x` end before it (later quotients start after it).
    fn first_empty(&self, mut x: u64) -> Option<u64> {
        while x < self.slots {
            let end = self.after_runs_through(x);
            if end <= x {
                return Some(x);
            }
            x = end;
        }
        None
    }

    /// How many copies of remainder `r` the run of `q` holds.
    pub fn count(&self, q: u64, r: u64) -> u64 {
        self.run_backwards(q).filter(|&i| self.rem(i) == r).count() as u64
    }

    /// The slots of the run of `q` from its end back to its start: one select finds the end
    /// (as in [`Slots::run_of`]), and the walk back stops at `q` or after a slot that ends the
    /// run before (a valid table's start; in a damaged one, the walk still stays between `q`
    /// and the end found, inside the table).
    #[inline(always)]
    fn run_backwards(&self, q: u64) -> impl Iterator<Item = u64> + '_ {
        let b = (q / BLOCK) as usize;
        let (occupieds, bit) = (self.occupieds(b), (q % BLOCK) as u32);
        let end = match occupieds >> bit & 1 {
            0 => None,
            _ => {
                let p = b as u64 * BLOCK + u64::from(self.spill(b));
                let end = self.kth_run_end(p, (occupieds & mask(bit)).count_ones());
                (end < self.slots).then_some(end)
            }
        };
        let mut next = end;
        std::iter::from_fn(move || {
            let i = next?;
            next = (i > q && !self.runend(i - 1)).then(|| i - 1);
            Some(i)
        })
    }

    /// The remainders of the run of `q`, in slot order: none when `q` has no run (or, in a
    /// damaged table opened in place, a run that ends past the table).
    #[inline(always)]
    pub fn run(&self, q: u64) -> impl Iterator<Item = u64> + '_ {
        let (start, end) = self.run_of(q).unwrap_or((1, 0));
        (start..=end).map(move |i| self.rem(i))
    }

    /// Whether some entry of the run of `q` satisfies `pred`, by the fastest code this CPU runs
    /// (compiled for `popcnt`, and BMI2 where it runs `pdep` in hardware).
    #[inline]
    pub fn run_any<F: Fn(u64) -> bool>(&self, q: u64, pred: F) -> bool {
        crate::kernel::run_any(self, q, pred)
    }

    /// [`Slots::run_any`], its select by `pdep` when `PDEP` (only `kernel::with_bmi2`).
    #[inline(always)]
    pub(crate) fn run_any_by<const PDEP: bool, F: Fn(u64) -> bool>(&self, q: u64, pred: F) -> bool {
        self.lookup::<PDEP, F>(q, pred)
    }

    /// Whether the run of `q` holds `r`.
    #[inline(always)]
    pub fn contains(&self, q: u64, r: u64) -> bool {
        self.contains_by::<false>(q, r)
    }

    /// [`Slots::contains`], its select by `pdep` when `PDEP` (only `kernel::with_bmi2`): the
    /// lookup of module `block`, on the table's bytes.
    #[inline(always)]
    pub(crate) fn contains_by<const PDEP: bool>(&self, q: u64, r: u64) -> bool {
        self.lookup::<PDEP, _>(q, |v| v == r)
    }

    /// Appends `r` to the run of `q`, shifting the slots up to the next empty one right by one.
    /// `false` (and nothing changed) when no slot is free up to the end of the table.
    pub fn insert(&mut self, q: u64, r: u64) -> bool {
        let run = self.run_of(q);
        let s = match run {
            Some((_, end)) => end + 1,
            None => q.max(self.after_runs_below(q)),
        };
        let Some(e) = self.first_empty(s) else {
            return false;
        };
        for i in (s + 1..=e).rev() {
            let (v, end) = (self.rem(i - 1), self.runend(i - 1));
            self.set_rem(i, v);
            self.set_runend(i, end);
        }
        self.set_rem(s, r);
        self.set_runend(s, true);
        match run {
            Some(_) => self.set_runend(s - 1, false),
            None => self.set_occupied(q, true),
        }
        self.fix_spill_between(q, e);
        true
    }

    /// Removes one copy of `r` from the run of `q`, moving the later runs of its cluster back
    /// by one slot. `false` (and nothing changed) when the run does not hold `r`.
    pub fn remove(&mut self, q: u64, r: u64) -> bool {
        let Some((start, end)) = self.run_of(q) else {
            return false;
        };
        let Some(j) = (start..=end).rev().find(|&i| self.rem(i) == r) else {
            return false;
        };
        self.shift_left(j, end, start < end);
        if start == end {
            self.set_occupied(q, false);
        }
        let (mut hole, mut cur) = (end, q);
        // A later run moves back iff it starts after its quotient, that is right after `hole`.
        while let Some(q2) = self.next_occupied(cur + 1, hole) {
            let e2 = self.run_end_from(hole + 1);
            self.shift_left(hole, e2, true);
            hole = e2;
            cur = q2;
        }
        self.set_rem(hole, 0);
        self.fix_spill_between(q, hole);
        true
    }

    /// Moves the remainders of slots `from + 1 ..= to` (the rest of a run that ends at `to`)
    /// to `from .. to`, and the run's end to `to - 1`, or drops it when the run is now empty.
    fn shift_left(&mut self, from: u64, to: u64, run_remains: bool) {
        for i in from..to {
            let v = self.rem(i + 1);
            self.set_rem(i, v);
        }
        self.set_runend(to, false);
        if run_remains {
            self.set_runend(to - 1, true);
        }
    }

    /// The first occupied quotient in `from..=to`.
    fn next_occupied(&self, from: u64, to: u64) -> Option<u64> {
        (from..=to.min(self.quotients - 1)).find(|&i| self.occupied(i))
    }

    /// Recomputes `spill` for the blocks whose start lies in `(q, last + 64]`: an insert or
    /// removal of quotient `q` that shifted slots up to `last` changes no other.
    fn fix_spill_between(&mut self, q: u64, last: u64) {
        let first = (q / BLOCK + 1) as usize;
        let last = ((last / BLOCK + 1) as usize).min(self.blocks);
        self.fix_spill(first, last);
    }

    /// Recomputes `spill[first..=last]` in order, each block from the one before it.
    fn fix_spill(&mut self, first: usize, last: usize) {
        for b in first..=last {
            let s = self.derived_spill(b);
            self.set_spill(b, s);
        }
    }

    /// `spill[b]` as the metadata and `spill[b - 1]` give it (`b >= 1`): the slots at the start
    /// of block `b` that the runs of the quotients before it fill.
    fn derived_spill(&self, b: usize) -> u32 {
        let prev = b - 1;
        let p = prev as u64 * BLOCK + u64::from(self.spill(prev));
        let runs = self.occupieds(prev).count_ones();
        let end_plus_one = if runs == 0 {
            p
        } else {
            self.kth_run_end(p, runs - 1) + 1
        };
        // Below 2^32: a valid table has fewer slots (a damaged one saturates, and is refused).
        u32::try_from(end_plus_one.saturating_sub(b as u64 * BLOCK)).unwrap_or(u32::MAX)
    }

    /// Calls `f(quotient, remainder)` for every stored remainder, in slot order.
    pub fn for_each(&self, mut f: impl FnMut(u64, u64)) {
        let mut next_free = 0;
        for w in 0..self.blocks {
            let mut bits = self.occupieds(w);
            while bits != 0 {
                let q = w as u64 * 64 + u64::from(bits.trailing_zeros());
                bits &= bits - 1;
                let start = q.max(next_free);
                let end = self.run_end_from(start);
                if end >= self.slots {
                    // Only in a damaged table, which a caller checks first (`Slots::check`).
                    return;
                }
                (start..=end).for_each(|i| f(q, self.rem(i)));
                next_free = end + 1;
            }
        }
    }
}

/// The low `bits` bits set (`bits` up to 64).
#[inline]
pub fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        !0
    } else {
        (1u64 << bits) - 1
    }
}

pub mod block;
pub mod bulk;
mod saved;
#[cfg(test)]
mod tests;
