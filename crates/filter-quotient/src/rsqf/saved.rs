//! A table from a file: loaded, and checked in full, or opened in place, and checked in O(1)
//! until a change checks it as a load does.

use super::{layout, Slots};
use filter_core::{MemoryCap, Result, Table, TableOptions, Zeroable};

impl Slots {
    /// A table from saved words and, from a version 2 file, its saved `spill` index (their
    /// counts already checked against [`layout`]), validated: every occupied quotient has its
    /// run, no run end lies outside a run, empty slots are zero, and a saved index is the one
    /// the words give (without one, it is derived). Returns the table and the number of stored
    /// remainders.
    ///
    /// # Errors
    /// What is wrong with the words, in words.
    pub fn from_words(
        quotients: u64,
        rbits: u32,
        [occupieds, runends, rems]: [Table<u64>; 3],
        saved: Option<Table<u32>>,
    ) -> std::result::Result<(Slots, u64), String> {
        let (slots, bit_words, rem_words) = layout(quotients, rbits).map_err(|e| e.to_string())?;
        debug_assert_eq!((occupieds.len(), rems.len()), (bit_words, rem_words));
        let derive = saved.is_none();
        let spill = match saved {
            Some(spill) => spill,
            None => filter_core::try_zeroed_table(bit_words + 1, MemoryCap::NONE, "spill")
                .map_err(|e| e.to_string())?,
        };
        let mut t = Slots {
            quotients,
            rbits,
            slots,
            occupieds,
            runends,
            rems,
            spill,
            checked: false,
            owned: true,
        };
        let used = if derive {
            let used = t.validate()?;
            t.fix_spill(1, bit_words);
            used
        } else {
            t.check()?
        };
        t.checked = true;
        Ok((t, used))
    }

    /// A table opened in place: its saved words and `spill` index, checked in O(1) only (their
    /// lengths, and the first and last offsets). Lookups stay in bounds whatever the rest holds
    /// (see the module docs); a change first makes the checks of a load ([`Slots::check`]).
    ///
    /// # Errors
    /// What is wrong with the words read, in words.
    pub fn in_place(
        quotients: u64,
        rbits: u32,
        [occupieds, runends, rems]: [Table<u64>; 3],
        spill: Table<u32>,
    ) -> std::result::Result<Slots, String> {
        let (slots, bit_words, rem_words) = layout(quotients, rbits).map_err(|e| e.to_string())?;
        let lens = (occupieds.len(), runends.len(), rems.len(), spill.len());
        if lens != (bit_words, bit_words, rem_words, bit_words + 1) {
            return Err(format!("tables of {lens:?} words for {slots} slots"));
        }
        let t = Slots {
            quotients,
            rbits,
            slots,
            occupieds,
            runends,
            rems,
            spill,
            checked: false,
            owned: false,
        };
        t.check_ends()?;
        Ok(t)
    }

    /// Whether the table passed [`Slots::check`] (every table but one opened in place).
    pub fn is_checked(&self) -> bool {
        self.checked
    }

    /// Records that the table passed [`Slots::check`].
    pub fn set_checked(&mut self) {
        self.checked = true;
    }

    /// Whether every table is memory of its own (every table but one opened in place, until
    /// [`Slots::own_tables`]).
    #[inline]
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// For tests: how many of the four tables lie in a file.
    #[cfg(test)]
    pub fn tables_in_file(&self) -> usize {
        let words = [&self.occupieds, &self.runends, &self.rems];
        words.iter().filter(|t| t.is_in_file()).count() + usize::from(self.spill.is_in_file())
    }

    /// Makes every table that lies in a file a copy of its own, allocated fallibly (with
    /// `tables`' advice), so that a change writes memory, not the file's pages.
    ///
    /// # Errors
    /// An allocation failure; the table is then the same, partly copied.
    pub fn own_tables(&mut self, tables: TableOptions) -> Result<()> {
        fn own<T: Zeroable + Copy>(t: &mut Table<T>, tables: TableOptions) -> Result<()> {
            if t.is_in_file() {
                let mut copy = filter_core::try_zeroed_table(t.len(), tables, "quotient table")?;
                copy.copy_from_slice(t);
                *t = copy;
            }
            Ok(())
        }
        own(&mut self.occupieds, tables)?;
        own(&mut self.runends, tables)?;
        own(&mut self.rems, tables)?;
        own(&mut self.spill, tables)?;
        self.owned = true;
        Ok(())
    }

    /// The checks a load makes ([`Slots::from_words`]) of a table's words and its `spill`
    /// index: `Slots::validate` (every occupied quotient has its run, empty slots are zero),
    /// then each saved offset against the one the table gives (each derived from the one
    /// before it, checked before it). Returns the number of used slots.
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn check(&self) -> std::result::Result<u64, String> {
        let used = self.validate()?;
        for b in 1..self.spill.len() {
            let derived = self.derived_spill(b);
            if self.spill[b] != derived {
                return Err(format!(
                    "the saved offset of block {b} is {}, the table gives {derived}",
                    self.spill[b]
                ));
            }
        }
        Ok(used)
    }

    /// The O(1) checks: offsets of 0 at the first block and at the table's end. (No bits lie
    /// past the last remainder: the slots are whole blocks of 64, so the remainders fill their
    /// last word.)
    pub(super) fn check_ends(&self) -> std::result::Result<(), String> {
        debug_assert_eq!(self.slots * u64::from(self.rbits) % 64, 0);
        let last = self.spill.len() - 1;
        if self.spill[0] != 0 || self.spill[last] != 0 {
            return Err(format!(
                "offsets of {} at the first block and {} at the end, not 0",
                self.spill[0], self.spill[last]
            ));
        }
        Ok(())
    }
}
