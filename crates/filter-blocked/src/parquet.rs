//! Apache Parquet's split-block Bloom filters, bit for bit.
//!
//! Parquet (and so Spark, DataFusion, Trino, DuckDB and arrow-rs) stores one split-block Bloom
//! filter per column chunk, in the layout of [`BlockedBloom`](crate::BlockedBloom): 256-bit
//! blocks of eight 32-bit lanes, one bit per lane set by the same eight salts. What a file fixes
//! beyond the layout, and what [`ParquetBloom`] follows exactly
//! ([Parquet format, `BloomFilter.md`](https://github.com/apache/parquet-format/blob/master/BloomFilter.md)):
//!
//! - **Hash**: XXH64 with seed 0 over the value's *plain encoding*: the raw bytes for a
//!   `BYTE_ARRAY` column (an e-mail is hashed as its UTF-8 bytes, no length prefix), 4 or 8
//!   little-endian bytes for `INT32`/`INT64`, the IEEE-754 bits little-endian for floats.
//! - **Addressing**: the block is `((h >> 32) · B) >> 32` for `B` blocks, the lanes' bits come
//!   from the low 32 bits of `h`. (Our own filters take the block from another 64-bit half with
//!   the same multiply-high reduction; feeding `h`'s high half shifted into the top of that word
//!   gives the same block, which is how this type reuses the lane masks.)
//! - **Size**: a power of two between 32 bytes and 128 MiB. Writers size for a number of
//!   distinct values `ndv` and a rate `fpp` by `m = -8·ndv / ln(1 - fpp^(1/8))` bits, and
//!   arrow-rs then *folds* the filter (ORs groups of adjacent blocks, halving it each time) while
//!   its estimated rate stays under `fpp`: [`ParquetBloom::fold_to_target_fpp`].
//! - **Bytes**: a Thrift compact-protocol `BloomFilterHeader` (`num_bytes`, and the `BLOCK`,
//!   `XXHASH`, `UNCOMPRESSED` choices of its three unions) followed by the blocks, lanes
//!   little-endian. [`ParquetBloom::to_bytes`] writes exactly that, [`ParquetBloom::from_bytes`]
//!   reads it from a column chunk's `bloom_filter_offset`.
//!
//! The `parquet_interop` test writes e-mails through the `parquet` crate, finds the column
//! chunk's filter in the file and checks that these bytes equal ours, then queries each with
//! the other.
//!
//! ```
//! use filter_blocked::parquet::ParquetBloom;
//!
//! let mut f = ParquetBloom::with_ndv_fpp(10_000, 0.01)?;
//! f.insert(b"alice@example.com");
//! f.fold_to_target_fpp(0.01)?;
//! let bytes = f.to_bytes(); // what a Parquet writer stores for this column chunk
//! let back = ParquetBloom::from_bytes(&bytes)?;
//! assert!(back.contains(b"alice@example.com"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use crate::{Block, Kernel};
use filter_core::format::invalid;
use filter_core::{Error, FormatError, Result};

/// The smallest bitset Parquet writes (one block).
pub const MIN_BYTES: usize = 32;
/// The largest bitset Parquet writes.
pub const MAX_BYTES: usize = 128 << 20;

/// `fpp` if it is a usable rate, strictly between 0 and 1.
fn check_fpp(fpp: f64) -> Result<f64> {
    if fpp > 0.0 && fpp < 1.0 {
        Ok(fpp)
    } else {
        Err(Error::InvalidParameter {
            name: "fpp",
            value: filter_core::math::format_real(fpp),
            expected: "a false-positive probability strictly between 0 and 1",
        })
    }
}

/// The hash Parquet uses: XXH64, seed 0, over the value's plain encoding.
#[inline]
pub fn hash(plain: &[u8]) -> u64 {
    xxhash_rust::xxh64::xxh64(plain, 0)
}

/// A split-block Bloom filter as Parquet files hold it.
///
/// # False-positive rate
///
/// The split-block formula of [`BlockedBloom`](crate::BlockedBloom)
/// ([`filter_core::math::split_block_fpr`]) with this filter's block count.
///
/// # Kernels
///
/// As [`BlockedBloom`](crate::BlockedBloom): the detected [`Kernel`] sets and tests the bits,
/// every kernel the same ones; `==` compares the bits only.
#[derive(Clone, Debug)]
pub struct ParquetBloom {
    blocks: filter_core::Table<Block>,
    kernel: Kernel,
}

impl PartialEq for ParquetBloom {
    fn eq(&self, other: &Self) -> bool {
        self.blocks == other.blocks
    }
}

impl Eq for ParquetBloom {}

impl ParquetBloom {
    /// Sized as Parquet writers size a column chunk's filter for `ndv` distinct values at rate
    /// `fpp`: `m = -8·ndv / ln(1 - fpp^(1/8))` bits, rounded up to a power of two of bytes
    /// between [`MIN_BYTES`] and [`MAX_BYTES`].
    ///
    /// Evaluated as `8·ndv / -ln_1p(-e^(ln(fpp)/8))`: written as the writers write it,
    /// `ln(1 - fpp^(1/8))` rounds to 0 for `fpp` below about 1e-128 and the size to one block
    /// that answers "maybe" to everything; here such a request gets the largest filter.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `fpp` outside (0, 1).
    pub fn with_ndv_fpp(ndv: u64, fpp: f64) -> Result<Self> {
        let fpp = check_fpp(fpp)?;
        let lane_miss = -(-(fpp.ln() / 8.0).exp()).ln_1p(); // -ln(1 - fpp^(1/8)) > 0
        let bits = 8.0 * ndv as f64 / lane_miss;
        // `as` saturates, as the writers' float-to-integer conversion does.
        Self::with_bytes(bits as u64 / 8)
    }

    /// A filter of `bytes` rounded up to a power of two between [`MIN_BYTES`] and
    /// [`MAX_BYTES`].
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the (at most 128 MiB) table cannot be allocated.
    pub fn with_bytes(bytes: u64) -> Result<Self> {
        let bytes = bytes
            .clamp(MIN_BYTES as u64, MAX_BYTES as u64)
            .next_power_of_two();
        Ok(ParquetBloom {
            blocks: filter_core::try_zeroed_table(
                bytes as usize / 32,
                filter_core::MemoryCap::NONE,
                "Parquet bitset",
            )?,
            kernel: Kernel::detect(),
        })
    }

    /// The lane kernel this filter runs.
    pub fn kernel(&self) -> Kernel {
        self.kernel
    }

    /// Runs `kernel` from now on (the bits and answers stay the same).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when this CPU cannot run it; the filter is then unchanged.
    pub fn set_kernel(&mut self, kernel: Kernel) -> Result<()> {
        self.kernel = kernel.checked()?;
        Ok(())
    }

    /// Number of 256-bit blocks.
    pub fn blocks(&self) -> usize {
        self.blocks.len()
    }

    /// Bytes of the bitset (without the header).
    pub fn size_in_bytes(&self) -> usize {
        self.blocks.len() * 32
    }

    #[inline]
    fn block_of(&self, h: u64) -> usize {
        (((h >> 32) * self.blocks.len() as u64) >> 32) as usize
    }

    /// Inserts a value given by its plain encoding (see the module docs).
    #[inline]
    pub fn insert(&mut self, plain: &[u8]) {
        self.insert_hash(hash(plain));
    }

    /// Inserts a value by its Parquet hash ([`hash`]).
    #[inline]
    pub fn insert_hash(&mut self, h: u64) {
        let b = self.block_of(h);
        self.kernel.set(&mut self.blocks[b], h as u32);
    }

    /// Whether a value, given by its plain encoding, may be in the column chunk.
    #[inline]
    pub fn contains(&self, plain: &[u8]) -> bool {
        self.contains_hash(hash(plain))
    }

    /// [`Self::contains`] of a Parquet hash.
    #[inline]
    pub fn contains_hash(&self, h: u64) -> bool {
        self.kernel.test(&self.blocks[self.block_of(h)], h as u32)
    }

    /// Bits set in the bitset.
    pub fn ones(&self) -> u64 {
        self.blocks
            .iter()
            .map(|b| u64::from(b.0.iter().map(|w| w.count_ones()).sum::<u32>()))
            .sum()
    }

    /// Fraction of the bitset's bits that are set.
    fn fill(&self) -> f64 {
        self.ones() as f64 / (self.blocks.len() as f64 * 256.0)
    }

    /// The distinct values the set bits account for: lane by lane a split-block filter of `B`
    /// blocks is a partitioned Bloom filter of 8 partitions of `32·B` bits, so the Swamidass &
    /// Baldi estimate [`filter_core::math::bloom_count_estimate`] with `m = 256·B`, `k = 8`.
    /// Infinite when every bit is set.
    pub fn estimated_count(&self) -> f64 {
        let m = self.blocks.len() as u64 * 256;
        filter_core::math::bloom_count_estimate(m, 8, self.ones()).unwrap_or(f64::NAN)
    }

    /// Shrinks the filter as arrow-rs's writer does after a column chunk: ORs groups of `2^f`
    /// adjacent blocks, for the largest `f` whose estimated rate `(1 - (1 - fill)^(2^f))^8`
    /// stays at or under `target`. Folding keeps every key (a key's block `i` becomes block
    /// `i >> f`, which is where the halved addressing looks). Returns `f`; 0 when the block count
    /// is not a power of two (a filter from another writer), which this refuses to fold.
    ///
    /// The estimate is evaluated as `(-expm1(2^f · ln_1p(-fill)))^8`, which keeps its digits for
    /// a nearly empty filter, where `1 - (1 - fill)^(2^f)` would cancel.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a `target` outside (0, 1) (NaN, or a rate of 1 or more,
    /// which would fold every filter to one block); the filter is then unchanged.
    pub fn fold_to_target_fpp(&mut self, target: f64) -> Result<u32> {
        let target = check_fpp(target)?;
        let len = self.blocks.len();
        if len < 2 || !len.is_power_of_two() {
            return Ok(0);
        }
        let ln_empty = (-self.fill()).ln_1p();
        let max = len.trailing_zeros();
        let mut folds = 0;
        while folds < max {
            let ln_empty_folded = ln_empty * f64::from(1u32 << (folds + 1));
            if (-ln_empty_folded.exp_m1()).powi(8) > target {
                break;
            }
            folds += 1;
        }
        if folds > 0 {
            let group = 1usize << folds;
            for i in 0..len / group {
                let mut merged = self.blocks[i * group];
                for b in &self.blocks[i * group + 1..(i + 1) * group] {
                    merged.0.iter_mut().zip(b.0).for_each(|(x, y)| *x |= y);
                }
                self.blocks[i] = merged;
            }
            self.blocks.truncate(len / group);
        }
        Ok(folds)
    }

    /// The bitset as Parquet stores it: blocks in order, lanes little-endian.
    pub fn bitset(&self) -> Vec<u8> {
        self.blocks
            .iter()
            .flat_map(|b| b.0)
            .flat_map(u32::to_le_bytes)
            .collect()
    }

    /// The bytes a Parquet file holds at the column chunk's `bloom_filter_offset`: the Thrift
    /// compact `BloomFilterHeader`, then the bitset.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = thrift::header(self.size_in_bytes() as u32);
        out.extend(self.bitset());
        out
    }

    /// A filter from a bitset alone (its header already read).
    ///
    /// # Errors
    /// [`FormatError::Invalid`] unless the length is a multiple of 32 between [`MIN_BYTES`] and
    /// [`MAX_BYTES`].
    pub fn from_bitset(bitset: &[u8]) -> Result<Self, FormatError> {
        if bitset.len() % 32 != 0 || !(MIN_BYTES..=MAX_BYTES).contains(&bitset.len()) {
            return Err(invalid(format!(
                "a {} byte bitset: Parquet bitsets are whole 32-byte blocks, 32 B to 128 MiB",
                bitset.len()
            )));
        }
        let blocks = bitset
            .chunks_exact(32)
            .map(|c| {
                let mut b = Block::default();
                for (w, bytes) in b.0.iter_mut().zip(c.chunks_exact(4)) {
                    *w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                }
                b
            })
            .collect();
        Ok(ParquetBloom {
            blocks,
            kernel: Kernel::detect(),
        })
    }

    /// Reads what [`Self::to_bytes`] writes, or what any Parquet writer stored at a column
    /// chunk's `bloom_filter_offset` (exactly `bloom_filter_length` bytes).
    ///
    /// # Errors
    /// A damaged or truncated header, an algorithm, hash or compression other than
    /// `BLOCK`/`XXHASH`/`UNCOMPRESSED`, a bitset length that disagrees with `num_bytes`, or
    /// bytes left over.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        let (num_bytes, header_len) = thrift::read_header(bytes)?;
        let bitset = &bytes[header_len..];
        match bitset.len().cmp(&num_bytes) {
            std::cmp::Ordering::Less => Err(FormatError::Truncated {
                needed: num_bytes as u64,
                available: bitset.len() as u64,
            }),
            std::cmp::Ordering::Greater => Err(FormatError::TrailingBytes(
                (bitset.len() - num_bytes) as u64,
            )),
            std::cmp::Ordering::Equal => Self::from_bitset(bitset),
        }
    }
}

mod thrift;

#[cfg(feature = "parquet-file")]
pub mod file;

#[cfg(test)]
mod tests;
