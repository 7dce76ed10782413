//! A split-block Bloom filter: Putze, Sanders & Singler's Bloom filter of cache-line blocks
//! ("Cache-, hash- and space-efficient Bloom filters", WEA 2007) in the layout used by Apache
//! Parquet and Impala.
//!
//! One name per concept: the structure is called *split-block* in prose; the type keeps the
//! short name [`BlockedBloom`] (and its lock-free form [`AtomicBlockedBloom`]), the crate
//! `filter-blocked`, and its files the variant name `blocked`.
//!
//! A classic Bloom filter touches `k` random cache lines per key; at 10M keys (12 MB, larger than
//! the caches) each is a miss. Here the bit array is cut into 256-bit *blocks* of eight 32-bit
//! *lanes*. A key picks one block from its hash and sets exactly one bit in each lane, so an
//! insert or a lookup touches a single 32-byte block: one cache miss, eight independent bit tests
//! that the compiler can vectorise.
//!
//! The price is a higher false-positive rate at the same memory, because blocks receive unequal
//! numbers of keys: at 1% it needs about a tenth more bits per key than a classic filter (the
//! example below checks it). The formula is in [`math::split_block_fpr`]; the builder sizes the
//! filter with it, so the target is met.
//!
//! ```
//! use filter_blocked::BlockedBloom;
//! use filter_core::Filter;
//!
//! let mut emails = BlockedBloom::builder().capacity(10_000_000).fpr(0.01).build()?;
//! emails.insert(b"alice@example.com")?;
//! assert!(emails.contains(b"alice@example.com"));
//! let bits_per_key = emails.size_in_bytes() as f64 * 8.0 / 10_000_000.0;
//! let classic = filter_core::math::optimal_bits(10_000_000, 0.01)? as f64 / 10_000_000.0;
//! assert!(bits_per_key > classic && bits_per_key < 1.15 * classic);
//! # Ok::<(), filter_core::Error>(())
//! ```
#![deny(missing_docs)]
// One module holds `unsafe` code: the AVX2 lane kernel in `kernel.rs`, behind runtime detection,
// with the portable kernel beside it.
#![deny(unsafe_code)]

use filter_core::format::{invalid, refused, Codec, Encoder, Parts, Reader};
use filter_core::{
    math, prefetch, reduce, Error, FileKind, Filter, FormatError, Hash128, KeyHasher, MemoryCap,
    Prefetch, Result, Sizing,
};

/// The id and name this variant's files carry in their header (listed in `filterlab::any`).
pub const FILE_KIND: FileKind = FileKind::new(5, "blocked");

/// The eight odd multipliers that spread a 32-bit key over the eight lanes (the constants of the
/// Parquet split-block Bloom filter specification).
const SALT: [u32; 8] = [
    0x47b6_137b,
    0x4497_4d91,
    0x8824_ad5b,
    0xa2b7_289d,
    0x7054_95c7,
    0x2df1_424b,
    0x9efc_4947,
    0x5c6b_fb31,
];

/// The bit a key sets in each of the eight lanes of its block: the top five bits of
/// `key · salt[i]`, `key` being the low 32 bits of the key's hash (what `filterlab explain` shows;
/// the kernels set `1 << lane_bits(key)[i]` in lane `i`).
#[inline(always)]
pub fn lane_bits(key: u32) -> [u32; 8] {
    SALT.map(|salt| key.wrapping_mul(salt) >> 27)
}

/// The block, of `blocks`, that a key with `hash` sets and tests: the top bits of `hash.hi`
/// mapped onto `[0, blocks)` by a multiply-high ([`filter_core::reduce`]). Its lane bits come
/// from the other half ([`lane_bits`] of `hash.lo as u32`), so the two never share a bit.
/// Both forms of the filter place keys with it; code that models the filter outside it (the
/// harness measures a slice of a 10^10-key filter's blocks) calls it rather than copying it.
#[inline(always)]
pub fn block_index(hash: Hash128, blocks: u64) -> u64 {
    reduce(hash.hi, blocks)
}

mod kernel;
pub use kernel::Kernel;

/// One 256-bit block, aligned so that it never straddles two cache lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(C, align(32))]
struct Block([u32; 8]);
filter_core::plain!(Block([u32; 8]));

/// A split-block Bloom filter.
///
/// # False-positive rate
///
/// With `B` blocks and `n` keys, a block holds `c ~ Poisson(n/B)` keys; each lane bit is then set
/// with probability `1 - (31/32)^c`, and a negative query tests one bit per lane:
///
/// ```text
/// p = Σ_c Pois(c; n/B) · (1 - (31/32)^c)^8
/// ```
///
/// ([`math::split_block_fpr`]; the often-quoted 256-bit-block formula underestimates it).
///
/// ```
/// use filter_blocked::BlockedBloom;
/// use filter_core::{math, testkit, HashKind, KeyHasher};
///
/// let hasher = KeyHasher::new(HashKind::Xxh3_128, 13)?;
/// let mut f = BlockedBloom::builder().capacity(20_000).fpr(0.01).hasher(hasher).build()?;
/// testkit::insert_members(&mut f, 20_000)?;
/// let theory = math::split_block_fpr(f.blocks(), 20_000);
/// testkit::assert_others_fpr("blocked", &f, 200_000, theory);
/// # Ok::<(), filter_core::Error>(())
/// ```
///
/// # Kernels
///
/// The lane masks and the block test run on the fastest [`Kernel`] the CPU has, detected when
/// the filter is built or loaded ([`Kernel::detect`]); [`BlockedBloom::set_kernel`] picks
/// another. Every kernel sets the same bits and gives the same answers, so files and equality
/// (`==` compares the sizing, count and bits, not the kernel) do not depend on it.
#[doc = filter_core::files_doc!()]
#[derive(Clone, Debug)]
pub struct BlockedBloom {
    blocks: filter_core::Table<Block>,
    len: u64,
    sizing: Sizing,
    kernel: Kernel,
}

impl PartialEq for BlockedBloom {
    fn eq(&self, other: &Self) -> bool {
        (self.len, self.sizing) == (other.len, other.sizing) && self.blocks == other.blocks
    }
}

/// Builds a [`BlockedBloom`].
#[derive(Clone, Debug, Default)]
pub struct BlockedBuilder {
    sizing: Sizing,
    cap: MemoryCap,
    pages: filter_core::Pages,
}

impl BlockedBuilder {
    filter_core::table_builder_setters!();

    /// Builds the filter with `ceil(n / λ)` blocks, `λ` the keys per block that give the target
    /// rate ([`math::split_block_keys_per_block`]).
    ///
    /// # Errors
    /// A capacity of 0, a rate outside (0, 1) or below what a split-block filter can reach
    /// (about 1e-15), a size above the memory cap, or a size that cannot be allocated.
    pub fn build(self) -> Result<BlockedBloom> {
        let (sizing, blocks) = self.shape()?;
        Ok(BlockedBloom {
            blocks: filter_core::try_zeroed_table(blocks, self.table_options(), "block array")?,
            len: 0,
            sizing,
            kernel: Kernel::detect(),
        })
    }
}

impl BlockedBuilder {
    /// The validated sizing and block count (shared by both forms of the filter).
    fn shape(&self) -> Result<(Sizing, usize)> {
        let sizing = self.sizing.validate()?;
        let blocks = math::split_block_blocks(sizing.capacity, sizing.fpr)?;
        let blocks = usize::try_from(blocks)
            .ok()
            .filter(|&b| b < isize::MAX as usize / 32)
            .ok_or_else(|| Error::SizeOverflow {
                what: "block array",
                hint: format!(
                    "{} items at fpr {} need {:.3e} blocks; lower the capacity",
                    sizing.capacity, sizing.fpr, blocks as f64
                ),
            })?;
        Ok((sizing, blocks))
    }
}

/// Writes the accessors the plain and the atomic filter share (their `blocks` and `kernel`
/// fields): block count, kernel, and kernel switch.
macro_rules! block_accessors {
    ($ty:ty) => {
        impl $ty {
            /// Number of 256-bit blocks.
            pub fn blocks(&self) -> u64 {
                self.blocks.len() as u64
            }

            /// The lane kernel this filter runs.
            pub fn kernel(&self) -> Kernel {
                self.kernel
            }

            /// Runs `kernel` from now on (the bits and answers stay the same).
            ///
            /// # Errors
            /// [`filter_core::Error::InvalidParameter`] when this CPU cannot run it; the filter
            /// is then unchanged.
            pub fn set_kernel(&mut self, kernel: Kernel) -> filter_core::Result<()> {
                self.kernel = kernel.checked()?;
                Ok(())
            }
        }
    };
}

block_accessors!(BlockedBloom);

impl BlockedBloom {
    /// A builder; defaults to one million items at 1%.
    pub fn builder() -> BlockedBuilder {
        BlockedBuilder::default()
    }

    #[inline(always)]
    fn block_of(&self, hash: Hash128) -> usize {
        block_index(hash, self.blocks.len() as u64) as usize
    }

    /// Makes `self` the union of both filters (same shape and hasher required).
    ///
    /// # Errors
    /// [`Error::Incompatible`]; `self` is then unchanged.
    pub fn union(&mut self, other: &Self) -> Result<()> {
        if self.blocks.len() != other.blocks.len() || self.sizing.hasher != other.sizing.hasher {
            return Err(Error::Incompatible(format!(
                "{} blocks / {:?} vs {} blocks / {:?}",
                self.blocks.len(),
                self.sizing.hasher,
                other.blocks.len(),
                other.sizing.hasher
            )));
        }
        for (a, b) in self.blocks.iter_mut().zip(&other.blocks) {
            for (x, y) in a.0.iter_mut().zip(b.0) {
                *x |= y;
            }
        }
        self.len = self.len.saturating_add(other.len);
        Ok(())
    }
}

impl Filter for BlockedBloom {
    #[inline]
    fn insert_hash(&mut self, hash: Hash128) -> Result<()> {
        let b = self.block_of(hash);
        self.kernel.set(&mut self.blocks[b], hash.lo as u32);
        // Saturating: a loaded file may hold any count up to u64::MAX (it only feeds the rate
        // estimate, which is 1 long before), and an insert must not panic or wrap.
        self.len = self.len.saturating_add(1);
        Ok(())
    }

    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        // No early exit in either kernel: a branch on the block's bits would mispredict on
        // negatives and throw away the lookups the core had started after this one.
        self.kernel
            .test(&self.blocks[self.block_of(hash)], hash.lo as u32)
    }

    /// One pass over the block: sets the eight bits and notes whether any was clear.
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        let b = self.block_of(hash);
        let new = self.kernel.set(&mut self.blocks[b], hash.lo as u32);
        self.len = self.len.saturating_add(u64::from(new));
        Ok(new)
    }

    filter_core::prefetched_batches!();

    filter_core::filter_accessors!(self,
        name: "blocked",
        table: self.blocks,
        len: self.len,
        expected_fpr: math::split_block_fpr(self.blocks(), self.len),
    );
}

impl Prefetch for BlockedBloom {
    fn lines_per_key(&self) -> u32 {
        1
    }

    fn prefetch_hash(&self, hash: Hash128) {
        prefetch(&self.blocks[self.block_of(hash)]);
    }
}

impl Codec for BlockedBloom {
    const KIND: FileKind = FILE_KIND;

    fn encode_params(&self, e: &mut Encoder<'_>) {
        e.u64(self.blocks()).u64(self.len);
        self.sizing.encode_params(e);
    }

    fn encode_payload(&self, e: &mut Encoder<'_>) {
        for b in &self.blocks {
            for w in b.0 {
                e.u32(w);
            }
        }
    }

    fn max_payload_len(_: KeyHasher, params: &mut Reader<'_>) -> Result<u64, FormatError> {
        // Blocks of eight 32-bit words.
        let n_blocks = params.u64()?;
        n_blocks
            .checked_mul(32)
            .filter(|_| n_blocks >= 1)
            .ok_or_else(|| invalid(format!("{n_blocks} blocks")))
    }

    fn decode(Parts(hasher, params, payload): Parts<'_, '_>) -> Result<Self, FormatError> {
        let n_blocks = params.u64()?;
        let len = params.u64()?;
        let sizing = Sizing::decode_params(params, hasher)?;
        // The builder's own check: a file cannot hold a rate the builder refuses.
        math::split_block_keys_per_block(sizing.fpr).map_err(refused)?;
        let n_blocks = usize::try_from(n_blocks)
            .ok()
            .filter(|&b| b >= 1 && b <= payload.remaining() / 32)
            .ok_or_else(|| {
                invalid(format!(
                    "{n_blocks} blocks for a {} byte payload",
                    payload.remaining()
                ))
            })?;
        // Opened in place: the blocks are the file's, and the count below, which reads them
        // all, is left to `format::mapped::verify` (the file's checksum).
        if let Some(blocks) = payload.table::<Block>(n_blocks)? {
            return Ok(BlockedBloom {
                blocks,
                len,
                sizing,
                kernel: Kernel::detect(),
            });
        }
        // Loaded from a file: read straight into the filter's memory, then checked below.
        let blocks = match payload.streamed_table::<Block>(n_blocks)? {
            Some(blocks) => blocks,
            None => decode_blocks(n_blocks, payload)?,
        };
        // Each insert sets at most one bit per lane, eight per key.
        let ones: u64 = blocks
            .iter()
            .flat_map(|b| b.0)
            .map(|w| u64::from(w.count_ones()))
            .sum();
        if ones > len.saturating_mul(8) {
            return Err(invalid(format!("{ones} bits set by {len} items")));
        }
        Ok(BlockedBloom {
            blocks,
            len,
            sizing,
            kernel: Kernel::detect(),
        })
    }
}

/// `n_blocks` blocks decoded word by word from `payload`, into a table allocated as a built
/// filter's blocks are (a large table on huge pages).
fn decode_blocks(
    n_blocks: usize,
    payload: &mut Reader<'_>,
) -> Result<filter_core::Table<Block>, FormatError> {
    let mut blocks: filter_core::Table<Block> =
        filter_core::try_zeroed_table(n_blocks, MemoryCap::NONE, "block array").map_err(|_| {
            FormatError::OutOfMemory {
                bytes: n_blocks as u64 * 32,
            }
        })?;
    for b in blocks.iter_mut() {
        for w in &mut b.0 {
            *w = payload.u32()?;
        }
    }
    Ok(blocks)
}

#[cfg(feature = "serde")]
filter_core::impl_serde_via_persist!(BlockedBloom);

mod atomic;
mod explain;
pub use atomic::AtomicBlockedBloom;
pub mod parquet;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
