//! Inserts: the first block when it has room (biased insertion); else, in this order, the
//! second block if the key's group has already overflowed, room in the first block made by
//! moving out a resident of an already overflowed group, the second block (setting the
//! group's overflow bit), or room made by moving a resident fingerprint of one of the two
//! blocks to its own other block, one or two moves deep. The moves are found before any is
//! made, so a refused insert changes nothing.

use crate::block::group;
use crate::{Place, VectorQuotient};
use filter_core::Result;

/// A fingerprint to move: from block `from`, its bucket and value, to block `to`.
#[derive(Clone, Copy, Debug)]
struct Move {
    from: u64,
    bucket: u32,
    fp: u8,
    to: u64,
}

impl VectorQuotient {
    /// An insert by kernel `k`: the common case, a first block with room, inlined into each
    /// kernel's own function; the rest out of line.
    #[inline(always)]
    pub(crate) fn insert_with(&mut self, k: crate::kernel::Kernel, p: Place) -> Result<()> {
        let first = &mut self.blocks[p.block as usize];
        if !first.is_full() {
            first.insert_with(k, p.bucket, p.fp);
            self.len += 1;
            return Ok(());
        }
        self.insert_place(p)
    }

    #[inline(never)]
    pub(crate) fn insert_place(&mut self, p: Place) -> Result<()> {
        if !self.block(p.block).is_full() {
            self.put(p.block, p.bucket, p.fp);
            return Ok(());
        }
        let second = self.other(p.block, p.bucket, p.fp);
        let room_in_second = !self.block(second).is_full();
        let marked = self.block(p.block).overflowed(group(p.bucket));
        if room_in_second && marked {
            self.put(second, p.bucket, p.fp);
            return Ok(());
        }
        // Keep the share of overflow bits low (each one sends a share of all negative lookups
        // to a second block): move out a resident of the first block whose group's bit is
        // already set, so the new key takes its slot and no bit is added.
        if let Some(m) = self.marked_move(p.block) {
            self.apply(m);
            self.put(p.block, p.bucket, p.fp);
            return Ok(());
        }
        if room_in_second {
            self.put(second, p.bucket, p.fp);
            self.mark(p.block, p.bucket);
            return Ok(());
        }
        for (target, depth) in [(p.block, 1), (second, 1), (p.block, 2), (second, 2)] {
            if let Some(moves) = self.room_in(target, depth) {
                for m in moves.iter().rev() {
                    self.apply(*m);
                }
                self.put(target, p.bucket, p.fp);
                if target != p.block {
                    self.mark(p.block, p.bucket);
                }
                return Ok(());
            }
        }
        Err(self.full_error())
    }

    fn put(&mut self, b: u64, q: u32, fp: u8) {
        self.blocks[b as usize].insert(q, fp);
        self.len += 1;
    }

    fn mark(&mut self, b: u64, q: u32) {
        if self.blocks[b as usize].mark_overflow(group(q)) {
            self.overflow_marks += 1;
        }
    }

    fn apply(&mut self, m: Move) {
        let removed = self.blocks[m.from as usize].remove(m.bucket, m.fp);
        debug_assert!(removed);
        self.blocks[m.to as usize].insert(m.bucket, m.fp);
        self.mark(m.from, m.bucket);
    }

    /// A move out of block `b` to a block with room, of a fingerprint whose group's overflow
    /// bit `b` has already set.
    fn marked_move(&self, b: u64) -> Option<Move> {
        let block = self.block(b);
        block
            .entries()
            .into_iter()
            .filter(|&(q, _)| block.overflowed(group(q)))
            .map(|(q, fp)| Move {
                from: b,
                bucket: q,
                fp,
                to: self.other(b, q, fp),
            })
            .find(|m| m.to != b && !self.block(m.to).is_full())
    }

    /// The moves (last first) that free a slot of full block `b`, at most `depth` deep.
    fn room_in(&self, b: u64, depth: u32) -> Option<Vec<Move>> {
        let entries = self.block(b).entries();
        let moves = |&(q, fp): &(u32, u8)| Move {
            from: b,
            bucket: q,
            fp,
            to: self.other(b, q, fp),
        };
        let candidates = entries.iter().map(moves).filter(|m| m.to != b);
        if depth == 1 {
            return candidates
                .into_iter()
                .find(|m| !self.block(m.to).is_full())
                .map(|m| vec![m]);
        }
        for m in candidates {
            if let Some(mut deeper) = self.room_in(m.to, depth - 1) {
                // `deeper` frees a slot of `m.to` without touching `b` (`b` is full).
                if deeper.iter().all(|d| d.to != b && d.from != b) {
                    deeper.insert(0, m);
                    return Some(deeper);
                }
            }
        }
        None
    }
}
