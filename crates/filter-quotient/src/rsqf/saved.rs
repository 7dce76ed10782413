//! A table from a file: loaded, and checked in full, or opened in place, and checked in O(1)
//! until a change checks it as a load does.

use super::{block, layout, Slots};
use filter_core::{Result, Table, TableOptions};

impl Slots {
    /// A table from the separate arrays of a version 1 or 2 file (their counts already checked
    /// against [`layout`]) and, from a version 2 file, its saved `spill` index, copied into
    /// blocks and validated: every occupied quotient has its run, no run end lies outside a
    /// run, empty slots are zero, and a saved index is the one the words give (without one, it
    /// is derived). Returns the table and the number of stored remainders.
    ///
    /// # Errors
    /// What is wrong with the words, in words.
    pub fn from_words(
        quotients: u64,
        rbits: u32,
        [occupieds, runends, rems]: [Table<u64>; 3],
        saved: Option<Table<u32>>,
    ) -> std::result::Result<(Slots, u64), String> {
        let (_, blocks, rem_words) = layout(quotients, rbits).map_err(|e| e.to_string())?;
        debug_assert_eq!((occupieds.len(), rems.len()), (blocks, rem_words));
        let mut t =
            Slots::new(quotients, rbits, TableOptions::default()).map_err(|e| e.to_string())?;
        let r = rbits as usize;
        for b in 0..blocks {
            t.put_block(b, occupieds[b], runends[b], &rems[b * r..(b + 1) * r]);
        }
        t.checked = false;
        let used = match saved {
            Some(spill) => {
                (0..=blocks).for_each(|b| t.set_spill(b, spill[b]));
                t.check()?
            }
            None => {
                let used = t.validate()?;
                t.fix_spill(1, blocks);
                used
            }
        };
        t.checked = true;
        Ok((t, used))
    }

    /// A table from the blocked bytes of a version 3 file (its length already checked),
    /// validated as [`Slots::check`] validates it. Returns the table and the number of stored
    /// remainders.
    ///
    /// # Errors
    /// What is wrong with the table, in words.
    pub fn from_blocks(
        quotients: u64,
        rbits: u32,
        table: Table<u8>,
    ) -> std::result::Result<(Slots, u64), String> {
        let mut t = Slots::in_place(quotients, rbits, table)?;
        let used = t.check()?;
        t.checked = true;
        t.owned = !t.table.is_in_file();
        Ok((t, used))
    }

    /// A table opened in place: its saved blocks, checked in O(1) only (their length, the
    /// first and last offsets and the tail's padding). Lookups stay in bounds whatever the rest
    /// holds (see the module docs); a change first makes the checks of a load
    /// ([`Slots::check`]).
    ///
    /// # Errors
    /// What is wrong with the bytes read, in words.
    pub fn in_place(
        quotients: u64,
        rbits: u32,
        table: Table<u8>,
    ) -> std::result::Result<Slots, String> {
        let (slots, blocks, _) = layout(quotients, rbits).map_err(|e| e.to_string())?;
        let expected = block::table_len(blocks, rbits);
        if Some(table.len()) != expected {
            return Err(format!(
                "a table of {} bytes for {slots} slots of {rbits} bits",
                table.len()
            ));
        }
        let mut t = Slots::of_table(quotients, rbits, table);
        t.checked = false;
        t.owned = false;
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

    /// Whether the table is memory of its own (every table but one opened in place, until
    /// [`Slots::own_tables`]).
    #[inline]
    pub fn is_owned(&self) -> bool {
        self.owned
    }

    /// For tests: whether the table lies in a file.
    #[cfg(test)]
    pub fn tables_in_file(&self) -> usize {
        usize::from(self.table.is_in_file())
    }

    /// Makes the table a copy of its own if it lies in a file, allocated fallibly (with
    /// `tables`' advice), so that a change writes memory, not the file's pages.
    ///
    /// # Errors
    /// An allocation failure; the table is then the same.
    pub fn own_tables(&mut self, tables: TableOptions) -> Result<()> {
        if self.table.is_in_file() {
            let mut copy =
                filter_core::try_zeroed_table(self.table.len(), tables, "quotient table")?;
            copy.copy_from_slice(&self.table);
            self.table = copy;
        }
        self.owned = true;
        Ok(())
    }

    /// The checks a load makes ([`Slots::from_blocks`]) of a table: `Slots::validate` (every
    /// occupied quotient has its run, empty slots are zero, the tail is), then each saved
    /// offset against the one the table gives (each derived from the one before it, checked
    /// before it). Returns the number of used slots.
    ///
    /// # Errors
    /// What is wrong, in words.
    pub fn check(&self) -> std::result::Result<u64, String> {
        let used = self.validate()?;
        for b in 1..=self.blocks {
            let derived = self.derived_spill(b);
            if self.spill(b) != derived {
                return Err(format!(
                    "the saved offset of block {b} is {}, the table gives {derived}",
                    self.spill(b)
                ));
            }
        }
        Ok(used)
    }

    /// The O(1) checks: offsets of 0 at the first block and at the table's end, and zeros in
    /// the tail after it. (No bits lie past the last remainder of a block: 64 remainders of
    /// `r` bits fill `8r` bytes.)
    pub(super) fn check_ends(&self) -> std::result::Result<(), String> {
        let (first, last) = (self.spill(0), self.spill(self.blocks));
        if first != 0 || last != 0 {
            return Err(format!(
                "offsets of {first} at the first block and {last} at the end, not 0"
            ));
        }
        if !self.tail_is_zero() {
            return Err("bytes other than zero after the table's end".into());
        }
        Ok(())
    }
}
