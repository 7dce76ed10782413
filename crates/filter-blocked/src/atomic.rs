//! [`AtomicBlockedBloom`]: the split-block filter shared by many threads without a lock.

use crate::{Block, BlockedBloom, Kernel};
use filter_core::concurrent::{try_atomic_table, words, LenCounter, LockFree, SharedInsert};
use filter_core::{math, Filter, Hash128, Result, Sizing, Table};
use std::sync::atomic::{AtomicU64, Ordering};

/// One block as four atomic 64-bit words, each holding two lanes (lane `2j` in the low half of
/// word `j`, lane `2j + 1` in the high half): the size and alignment of [`Block`], so a table
/// converts in place, and half the loads and `fetch_or`s of eight 32-bit lanes.
#[derive(Debug, Default)]
#[repr(C, align(32))]
struct AtomicBlock([AtomicU64; 4]);
filter_core::zeroable!(AtomicBlock([AtomicU64; 4]));

impl AtomicBlock {
    fn new(b: &Block) -> Self {
        AtomicBlock(std::array::from_fn(|j| AtomicU64::new(pair(&b.0, j))))
    }
}

/// Lanes `2j` and `2j + 1` as one word.
#[inline(always)]
fn pair(lanes: &[u32; 8], j: usize) -> u64 {
    u64::from(lanes[2 * j]) | u64::from(lanes[2 * j + 1]) << 32
}

/// The eight lanes of four words.
fn unpair(words: [u64; 4]) -> Block {
    Block(std::array::from_fn(|i| {
        (words[i / 2] >> (32 * (i % 2))) as u32
    }))
}

/// A split-block Bloom filter whose [`insert`](Self::insert) and [`contains`](Self::contains)
/// take `&self`, so many threads share one filter. It is `Send + Sync`.
///
/// Same sizing, block addressing, lane masks, formula and file as [`BlockedBloom`]: the same keys
/// set the same bits, and each loads the other's bytes. Build one with
/// [`BlockedBuilder::build_atomic`](crate::BlockedBuilder::build_atomic) or convert with
/// `From<BlockedBloom>` / [`Self::into_inner`].
///
/// # Why relaxed ordering has no false negative
///
/// Bits are set with `fetch_or`, a read-modify-write: it always acts on the latest value in the
/// word's modification order, so two threads setting different bits of one word never erase
/// each other's (a load, an OR and a store could).
///
/// The block is four 64-bit words of two lanes each. A lookup is four relaxed loads, never a
/// read-modify-write; an insert counts the key, then loads each word of its block and makes a
/// `fetch_or` (with `Release`, which only a snapshot for saving needs; the lookup needs none)
/// only on a word missing one of the key's two bits in it — at most four locked instructions
/// (eight with 32-bit lanes), none for a key already present. Words only gain bits. Each word
/// has one modification order that every thread agrees on, and a thread's load cannot return a
/// value older than its own earlier store to, or load of, that word (coherence): after
/// `insert(key)` returns, having set each bit or seen it set, `contains(key)` on the same thread
/// sees all eight bits. Another thread is owed the same answer once the insert *happens before*
/// its lookup (a join, a channel or mutex hand-off, or a `Release` store of a flag read with
/// `Acquire`). A lookup racing with the insert may see only some of the eight bits and say
/// "absent" — the insert had not finished, so no inserted key was lost.
///
/// # Saving
///
/// `to_bytes` and `save` may run while other threads insert: they write a [`Self::snapshot`],
/// whose lanes are read before its item count (`filter_core::concurrent::words`, checked under
/// loom), so every saved bit belongs to a counted item and the file loads. An insert racing with
/// the save may be in the file whole, in part or not at all: save after joining the inserting
/// threads for a file that holds every key. The snapshot is a copy of the table, allocated
/// fallibly by `try_to_bytes`, `write_to` and `save`, which stream the file from it.
///
/// # False-positive rate
///
/// As [`BlockedBloom`]: [`math::split_block_fpr`].
///
/// # Kernels
///
/// As [`BlockedBloom`]: the lane masks come from the detected [`Kernel`]; the block is always
/// read and updated word by word (two lanes a word) with atomic operations.
#[derive(Debug)]
pub struct AtomicBlockedBloom {
    blocks: filter_core::Table<AtomicBlock>,
    len: LenCounter,
    sizing: Sizing,
    kernel: Kernel,
}

impl crate::BlockedBuilder {
    /// Builds the lock-free, shareable form ([`AtomicBlockedBloom`]) with the same sizing.
    ///
    /// # Errors
    /// As [`Self::build`](crate::BlockedBuilder::build).
    pub fn build_atomic(self) -> Result<AtomicBlockedBloom> {
        let (sizing, blocks) = self.shape()?;
        Ok(AtomicBlockedBloom {
            blocks: try_atomic_table(blocks, self.table_options(), "block array")?,
            len: LenCounter::default(),
            sizing,
            kernel: Kernel::detect(),
        })
    }
}

filter_core::lock_free_form!(AtomicBlockedBloom, BlockedBloom);

impl AtomicBlockedBloom {
    #[inline(always)]
    fn block(&self, hash: Hash128) -> &AtomicBlock {
        &self.blocks[crate::block_index(hash, self.blocks.len() as u64) as usize]
    }
}

impl SharedInsert for AtomicBlockedBloom {
    #[inline]
    fn insert_hash_shared(&self, hash: Hash128) {
        // Counted first, lanes set with Release (`filter_core::concurrent::words`): a snapshot
        // then holds no uncounted bit.
        let masks = self.kernel.masks(hash.lo as u32);
        words::insert(
            &self.block(hash).0,
            &self.len,
            (0..4).map(|j| (j, pair(&masks, j))),
        );
    }
}

block_accessors!(AtomicBlockedBloom);

impl LockFree for AtomicBlockedBloom {
    type Single = BlockedBloom;

    fn snapshot(&self) -> Result<BlockedBloom> {
        let mut blocks: Table<Block> = filter_core::try_zeroed_table(
            self.blocks.len(),
            filter_core::MemoryCap::NONE,
            "snapshot",
        )?;
        // Each word holds two lanes (see `pair`): word `i` goes to lanes 2(i % 4) and
        // 2(i % 4) + 1 of block i / 4.
        let mut i = 0usize;
        let len = words::snapshot_with(
            self.blocks.iter().flat_map(|b| &b.0),
            |w: u64| {
                let lanes = &mut blocks[i / 4].0;
                lanes[2 * (i % 4)] = w as u32;
                lanes[2 * (i % 4) + 1] = (w >> 32) as u32;
                i += 1;
            },
            &self.len,
        );
        Ok(BlockedBloom {
            blocks,
            len,
            sizing: self.sizing,
            kernel: self.kernel,
        })
    }

    fn into_inner(self) -> BlockedBloom {
        let len = self.len.get();
        BlockedBloom {
            blocks: self
                .blocks
                .convert(|b| unpair(b.0.map(AtomicU64::into_inner))),
            len,
            sizing: self.sizing,
            kernel: self.kernel,
        }
    }
}

impl From<BlockedBloom> for AtomicBlockedBloom {
    fn from(f: BlockedBloom) -> Self {
        AtomicBlockedBloom {
            len: LenCounter::new(f.len),
            sizing: f.sizing,
            kernel: f.kernel,
            // Same size and alignment: converted in place, in the same memory.
            blocks: f.blocks.convert(|b| AtomicBlock::new(&b)),
        }
    }
}

impl Filter for AtomicBlockedBloom {
    filter_core::lock_free_insert!();

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        // No early exit: a branch on the block's bits would mispredict on negatives.
        let block = self.block(hash);
        let masks = self.kernel.masks(hash.lo as u32);
        block.0.iter().enumerate().fold(0u64, |miss, (j, w)| {
            miss | (pair(&masks, j) & !w.load(Ordering::Relaxed))
        }) == 0
    }

    filter_core::filter_accessors!(self,
        name: "blocked-atomic",
        table: self.blocks,
        len: self.len.get(),
        expected_fpr: math::split_block_fpr(self.blocks(), self.len.get()),
    );
}
