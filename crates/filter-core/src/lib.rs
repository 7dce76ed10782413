//! The shared core of filterlab: the [`Filter`] trait family, errors, hashing, the formulas
//! ([`math`]), the file format ([`format`](mod@format)) and a conformance test kit (`testkit` feature).
//!
//! An approximate-membership filter answers "is `x` in the set?" with *no* (certainly not) or
//! *maybe* (yes, or a false positive with probability about `p`), in far less memory than the set.
//! Bloom (1970) introduced the bit-array version; the variants in the sibling crates trade memory,
//! speed and capabilities:
//!
//! | crate             | structure                            | delete | grows | paper                         |
//! |-------------------|--------------------------------------|--------|-------|-------------------------------|
//! | `filter-classic`  | m bits, k hash functions             | no     | no    | Bloom 1970                    |
//! | `filter-counting` | m 4-bit counters                     | yes    | no    | Fan, Cao, Almeida, Broder 2000 |
//! | `filter-scalable` | a series of tightening classic stages | no    | yes   | Almeida et al. 2007           |
//! | `filter-cuckoo`   | buckets of 4 fingerprints            | yes    | no    | Fan, Andersen, Kaminsky, Mitzenmacher 2014 |
//! | `filter-blocked`  | 256-bit blocks of eight 32-bit lanes | no     | no    | Putze, Sanders, Singler 2007  |
//! | `filter-quotient` | remainders in runs of home slots     | yes    | by resize | Bender et al. 2012; Pandey et al. 2017 |
//! | `filter-expand`   | nested stages of cuckoo tables       | yes    | yes   | after Fan et al. 2014; Dayan et al. 2023 |
//! | `filter-fuse`     | fingerprints XORed over 3 slots (static) | no | no  | Graf & Lemire 2022            |
//! | `filter-ribbon`   | a banded linear system (static)      | no     | no    | Dillinger & Walzer 2021       |
//!
//! # The trait family
//!
//! * [`Filter`]: insert and query, either by key bytes or by a precomputed [`Hash128`], so a key is
//!   hashed once and can probe several filters; size, load and the expected false-positive rate.
//! * [`Deletable`]: removal, for the variants that support it. Code that deletes asks for
//!   `F: Deletable`, so passing a classic filter is a compile error, not a runtime surprise.
//! * [`Growable`]: filters whose inserts never fail for lack of capacity.
//! * [`Persist`]: save to and load from the stable, checksummed format of [`format`](mod@format),
//!   in memory or to a file ([`Persist::save`] replaces a file atomically).
//! * [`Prefetch`]: the two hooks (which memory a key touches, how many lines) from which
//!   [`prefetched_batches!`] builds a variant's pipelined batch insert and lookup.
//!
//! Builders allocate fallibly and accept a memory cap (`max_bytes`): a size that does not fit is
//! an [`Error`], never an abort. Loaders validate every field arithmetically against the bytes
//! present before allocating anything. For keys chosen by untrusted parties, seed the hash with
//! [`KeyHasher::secret`].
//!
//! ```
//! use filter_core::{Filter, KeyHasher};
//! fn seen_before<F: Filter>(filter: &mut F, email: &str) -> filter_core::Result<bool> {
//!     if filter.contains(email.as_bytes()) {
//!         return Ok(true); // maybe: confirm in the database
//!     }
//!     filter.insert(email.as_bytes())?;
//!     Ok(false) // certainly new: no database lookup needed
//! }
//! ```
#![deny(missing_docs)]
// Unsafe code in the crate: the prefetch intrinsic in [`prefetch`], and the `table` module (the
// `Zeroable` contract, `Table`'s raw parts, the mmap/madvise calls). filter-blocked allows it in
// one module (its AVX2 lane kernel, beside a portable one); every other filter crate forbids
// unsafe code outright.
#![deny(unsafe_code)]

mod accessors;
pub mod auth;
mod batch;
pub mod bits;
mod capability;
pub mod concurrent;
pub mod cpu;
mod error;
pub mod explain;
mod file;
pub mod format;
mod hash;
mod kicks;
pub mod math;
mod persist;
mod select;
#[cfg(feature = "serde")]
pub mod serde_bytes;
pub mod static_filter;
#[allow(unsafe_code)] // The one module with unsafe code for tables; see its header.
mod table;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

pub use accessors::TableMemory;
pub use batch::{
    contains_hash_batch_prefetched, insert_batch_at_once, insert_hash_batch_prefetched,
    insert_pipelined, lookup_pipelined, worth_prefetching, Prefetch, BATCH, PREFETCH_AHEAD,
    PREFETCH_MIN_BYTES, PREFETCH_MIN_BYTES_MULTI,
};
pub use bits::BloomBits;
pub use capability::{Deletable, Growable};
pub use error::{accept_if, Error, FormatError, Result};
pub use explain::{Explain, Positions};
pub use file::{
    lock_for_writing, no_check, open_regular, read_fallibly, read_fallibly_from, read_limited,
    remove_stale_temporaries, try_lock, wait_for_lock, write_atomically, write_atomically_with,
    HeadCheck, WriteLock, DEFAULT_READ_LIMIT, STALE_AFTER,
};
pub use format::FileKind;
pub use hash::{murmur3_x64_128, reduce, widen64, Hash128, HashKind, IndexGen, KeyHasher};
pub use kicks::{check_max_kicks, DEFAULT_MAX_KICKS, MAX_KICKS};
pub use persist::Persist;
pub use select::select_or_count;
pub use static_filter::StaticFilter;
pub use table::{
    try_filled, try_zeroed_table, zeroed_table, FileMap, MemoryCap, Pages, Plain, Table,
    TableOptions, Zeroable, HUGE_PAGE_MIN_BYTES,
};

/// An approximate-membership filter.
///
/// A filter never gives a false negative: after `insert(x)` succeeds, `contains(x)` is `true` (for
/// deletable filters, until `x` is removed as many times as it was inserted).
pub trait Filter {
    /// Adds the key whose hash is `hash` (computed with [`Filter::hasher`]).
    ///
    /// # Errors
    /// Only variants with a bounded table fail ([`Error::Full`]); when they do, the filter is left
    /// exactly as it was.
    fn insert_hash(&mut self, hash: Hash128) -> Result<()>;

    /// Whether the key whose hash is `hash` may be in the set (`false`: certainly not).
    fn contains_hash(&self, hash: Hash128) -> bool;

    /// The hash function and seed this filter was built with.
    fn hasher(&self) -> KeyHasher;

    /// Adds a key.
    ///
    /// # Errors
    /// As [`Filter::insert_hash`].
    fn insert(&mut self, key: &[u8]) -> Result<()> {
        let hash = self.hasher().hash(key);
        self.insert_hash(hash)
    }

    /// Whether a key may be in the set (`false`: certainly not).
    fn contains(&self, key: &[u8]) -> bool {
        self.contains_hash(self.hasher().hash(key))
    }

    /// Test-and-insert: inserts the key whose hash is `hash` unless the filter already reports
    /// it present, and returns whether it did. `true` means the key was certainly new (the
    /// sign-up dedup and unique-counting question); `false` means it may have been seen, and
    /// nothing changed, so for deletable filters a repeated key is not counted twice. A key that
    /// is new but a false positive returns `false`, with probability [`Filter::expected_fpr`].
    ///
    /// # Errors
    /// As [`Filter::insert_hash`]; the filter is then unchanged.
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> Result<bool> {
        if self.contains_hash(hash) {
            return Ok(false);
        }
        self.insert_hash(hash)?;
        Ok(true)
    }

    /// [`Filter::insert_if_absent_hash`] for key bytes, hashed once.
    ///
    /// # Errors
    /// As [`Filter::insert_hash`].
    fn insert_if_absent(&mut self, key: &[u8]) -> Result<bool> {
        let hash = self.hasher().hash(key);
        self.insert_if_absent_hash(hash)
    }

    /// Items inserted (minus those removed), counting repeated inserts of one key each time.
    fn len(&self) -> u64;

    /// Whether nothing was inserted.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of items the filter was sized for at its target false-positive rate.
    /// For a [`Growable`] filter, the capacity of the stages allocated so far.
    fn capacity(&self) -> u64;

    /// Heap memory used by the filter's table(s), in bytes.
    fn size_in_bytes(&self) -> usize;

    /// Bytes of the filter's table(s) on transparent huge pages now, measured for these very
    /// tables ([`Table::huge_page_bytes`]); `None` where that cannot be measured (the default).
    fn huge_page_bytes(&self) -> Option<u64> {
        None
    }

    /// The false-positive rate predicted by [`math`] at the current load and the realised
    /// parameters (not the requested target).
    fn expected_fpr(&self) -> f64;

    /// The variant's short name (`"classic"`, `"cuckoo"`, …), for reports.
    fn name(&self) -> &'static str;

    /// Inserts many hashed keys. Variants override it to prefetch the memory of later keys
    /// while earlier ones are inserted.
    ///
    /// # Errors
    /// As [`Filter::insert_hash`], at the first key that fails: the keys before it are in the
    /// filter, that key and the ones after it are not.
    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> Result<()> {
        hashes.iter().try_for_each(|&h| self.insert_hash(h))
    }

    /// Answers many hashed queries: `out[i] = contains_hash(hashes[i])`. `out` is cleared first.
    /// Variants override it to prefetch the memory of later queries while earlier ones are
    /// answered.
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        out.clear();
        out.extend(hashes.iter().map(|&h| self.contains_hash(h)));
    }

    /// Inserts many keys: hashes them a block at a time, then [`Filter::insert_hash_batch`].
    ///
    /// # Errors
    /// As [`Filter::insert_hash_batch`].
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        crate::batch::hashed_chunks(&self.hasher(), keys, |hashes| {
            self.insert_hash_batch(hashes)
        })
    }

    /// Answers many queries: `out[i] = contains(keys[i])`. `out` is cleared first.
    fn contains_batch(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        crate::batch::contains_keys_hashed(&self.hasher(), keys, out, |h, part| {
            self.contains_hash_batch(h, part);
        });
    }
}

/// Asks the CPU to start loading the cache line holding `r` (a no-op off x86-64).
///
/// The batch methods call it for the memory of the next keys while answering the current ones,
/// so that cache misses overlap instead of following one another. Miri runs this block too (it
/// implements the prefetch intrinsic as a no-op after checking its arguments), so `just miri`
/// exercises the same code as a release build.
#[inline(always)]
#[allow(unsafe_code)]
pub fn prefetch<T: ?Sized>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` requires SSE, which every x86-64 CPU has (it is in the baseline
    // target, so the feature is enabled for this whole build). A prefetch is a hint: it reads
    // nothing into the program, cannot fault, and here is given the address of a live reference.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (r as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

#[cfg(test)]
mod tests;

/// The settings every builder shares: how many items, at what false-positive rate, hashed how.
/// Validated once, in [`Sizing::validate`], so every variant rejects bad input the same way.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    /// Items the filter must hold at its target rate.
    pub capacity: u64,
    /// Target false-positive rate.
    pub fpr: f64,
    /// Hash function and seed.
    pub hasher: KeyHasher,
}

impl Default for Sizing {
    /// One million items at 1%, xxh3-128 with seed 0.
    fn default() -> Self {
        Sizing {
            capacity: 1_000_000,
            fpr: 0.01,
            hasher: KeyHasher::default(),
        }
    }
}

impl Sizing {
    /// Checks capacity and rate.
    ///
    /// # Errors
    /// A capacity of 0, or a rate that is NaN or outside (0, 1).
    pub fn validate(&self) -> Result<Self> {
        math::check_capacity(self.capacity)?;
        math::check_fpr(self.fpr)?;
        Ok(*self)
    }

    /// Writes capacity and rate to a parameter section (the hasher is in the file's header).
    pub fn encode_params(&self, e: &mut format::Encoder<'_>) {
        e.u64(self.capacity).f64(self.fpr);
    }

    /// Reads what [`Sizing::encode_params`] wrote, with the header's `hasher`, and validates it.
    ///
    /// # Errors
    /// Truncated parameters, or values [`Sizing::validate`] refuses.
    pub fn decode_params(
        params: &mut format::Reader<'_>,
        hasher: KeyHasher,
    ) -> Result<Self, FormatError> {
        Sizing {
            capacity: params.u64()?,
            fpr: params.f64()?,
            hasher,
        }
        .validate()
        .map_err(format::refused)
    }
}

/// Builder setters from a table, one row a setter: its docs, `name(arg: Type)`, and the field
/// it stores the argument in (a path such as `sizing.fpr`; `as Some` stores `Some(arg)`). Each
/// setter takes the builder by value and returns it, so the rows read as the builder's options.
///
/// ```
/// #[derive(Default)]
/// struct Builder {
///     window: u64,
///     bits: Option<u32>,
/// }
/// impl Builder {
///     filter_core::setters! {
///         /// The window, in items.
///         window(items: u64) => window;
///         /// Exactly `b` bits.
///         bits(b: u32) => bits as Some;
///     }
/// }
/// let b = Builder::default().window(5).bits(3);
/// assert_eq!((b.window, b.bits), (5, Some(3)));
/// ```
#[macro_export]
macro_rules! setters {
    ($($(#[doc = $doc:expr])* $name:ident($arg:ident: $ty:ty) => $($field:ident).+ $(as $wrap:ident)?;)*) => {$(
        $(#[doc = $doc])*
        pub fn $name(mut self, $arg: $ty) -> Self {
            self.$($field).+ = $crate::setters!(@store $($wrap)? $arg);
            self
        }
    )*};
    (@store Some $arg:ident) => {
        Some($arg)
    };
    (@store $arg:ident) => {
        $arg
    };
}

/// Generates the `capacity`, `fpr` and `hasher` setters of a builder that has a
/// `sizing: Sizing` field, so every variant's builder reads the same.
#[macro_export]
macro_rules! sizing_setters {
    () => {
        $crate::setters! {
            /// Items the filter must hold at its target false-positive rate (at least 1).
            capacity(items: u64) => sizing.capacity;
            /// Target false-positive rate, strictly between 0 and 1 (0.01 is 1%).
            fpr(rate: f64) => sizing.fpr;
            /// Hash function and seed (default: xxh3-128, seed 0).
            hasher(hasher: $crate::KeyHasher) => sizing.hasher;
        }
    };
}

/// The setters of a builder of table-backed filters, which has `sizing: Sizing`,
/// `cap: MemoryCap` and `pages: Pages` fields: [`sizing_setters!`]
/// (`capacity`, `fpr`, `hasher`), [`memory_cap_setter!`] (`max_bytes`) and
/// [`pages_setter!`] (`pages`, and the `table_options` its allocations take).
#[macro_export]
macro_rules! table_builder_setters {
    () => {
        $crate::sizing_setters!();
        $crate::memory_cap_setter!();
        $crate::pages_setter!();
    };
}

/// Generates the `pages` setter of a builder that has a `pages: Pages` field and hands
/// `TableOptions { cap, pages }` to its table allocations; `pages_setter!(only)` generates the
/// setter alone, for a builder without a memory cap (the static filters').
#[macro_export]
macro_rules! pages_setter {
    () => {
        $crate::pages_setter!(only);

        /// The memory cap and page advice this builder's tables are allocated with.
        fn table_options(&self) -> $crate::TableOptions {
            $crate::TableOptions {
                cap: self.cap,
                pages: self.pages,
            }
        }
    };
    (only) => {
        /// The page advice for tables of at least
        /// [`HUGE_PAGE_MIN_BYTES`](filter_core::HUGE_PAGE_MIN_BYTES) (default:
        /// [`Pages::Huge`](filter_core::Pages::Huge), advised onto transparent huge pages);
        /// [`Pages::Small`](filter_core::Pages::Small) advises against them, for a benchmark
        /// that compares both. Not saved with the filter.
        pub fn pages(mut self, pages: $crate::Pages) -> Self {
            self.pages = pages;
            self
        }
    };
}

/// Generates the `max_bytes` setter of a builder that has a `cap: MemoryCap` field.
#[macro_export]
macro_rules! memory_cap_setter {
    () => {
        /// Refuses to build (with [`Error::MemoryCap`](filter_core::Error::MemoryCap)) a filter
        /// whose tables would take more than `bytes`; a scalable filter also refuses to grow
        /// past it. Default: no cap, only what the allocator can give.
        pub fn max_bytes(mut self, bytes: u64) -> Self {
            self.cap = $crate::MemoryCap(Some(bytes));
            self
        }
    };
}

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
