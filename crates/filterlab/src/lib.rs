//! filterlab: approximate-membership filters of the Bloom family behind one set of traits, with
//! their formulas checked against measurement.
//!
//! This facade re-exports every variant. Pick one by what your system needs:
//!
//! | need                                   | type              | crate             |
//! |----------------------------------------|-------------------|-------------------|
//! | smallest simple filter, known size     | [`ClassicBloom`]  | `filter-classic`  |
//! | deletions, memory no object (4×)       | [`CountingBloom`] | `filter-counting` |
//! | size unknown in advance                | [`ScalableBloom`] | `filter-scalable` |
//! | deletions at about classic memory      | [`CuckooFilter`]  | `filter-cuckoo`   |
//! | deletions, one cache line per lookup   | [`VectorQuotient`] | `filter-vqf`     |
//! | fastest lookups, a bit more memory     | [`BlockedBloom`]  | `filter-blocked`  |
//! | deletions and copies, resize and merge | [`QuotientFilter`] | `filter-quotient` |
//! | deletions, size unknown in advance     | [`ExpandableCuckoo`] | `filter-expand` |
//! | deletions and growth in one table      | [`AlephFilter`] | `filter-aleph` |
//! | a known, fixed set (built once)        | [`BinaryFuse8`], [`BinaryFuse16`] | `filter-fuse` |
//! | a known, fixed set, any rate to 2^-16  | [`Ribbon`]        | `filter-ribbon`   |
//! | only the last `w` items (sliding window) | [`ItemWindow`], [`Apbf`] | `filter-window` |
//! | only the last `T` of time (a timestamp per call) | [`TimedWindow`] | `filter-window` |
//!
//! ```
//! use filterlab::{ClassicBloom, CuckooFilter, Deletable, Filter};
//!
//! // Reject duplicate sign-ups without a database lookup for most requests.
//! let mut emails = ClassicBloom::builder().capacity(10_000_000).fpr(0.01).build()?;
//! let email = b"new.user@example.com";
//! if !emails.contains(email) {
//!     // certainly new: accept without asking the database
//!     emails.insert(email)?;
//! }
//!
//! // One hash, several filters.
//! let mut sessions = CuckooFilter::builder().capacity(1_000).build()?;
//! let h = sessions.hasher().hash(b"token");
//! sessions.insert_hash(h)?;
//! sessions.remove_hash(h)?;
//! # Ok::<(), filterlab::Error>(())
//! ```
//!
//! Deletion is a capability the compiler checks: a classic filter has no `remove`.
//!
//! ```compile_fail
//! use filterlab::{ClassicBloom, Deletable};
//! let mut f = ClassicBloom::builder().build().unwrap();
//! f.remove(b"x"); // error[E0599]: ClassicBloom does not implement Deletable
//! ```
//!
//! # Many threads
//!
//! [`AtomicClassicBloom`] and [`AtomicBlockedBloom`] take `&self` to insert and query, so one
//! filter serves every request thread; they hold the same bits and write the same files as their
//! single-threaded forms. The other variants are shared through [`concurrent::Sharded`] (`N`
//! filters, each behind its own lock), here a cuckoo filter that deletes from many threads:
//!
//! ```
//! use filterlab::concurrent::Sharded;
//! use filterlab::CuckooFilter;
//!
//! let sessions = Sharded::new(8, |_| CuckooFilter::builder().capacity(10_000).build())?;
//! std::thread::scope(|s| {
//!     s.spawn(|| sessions.insert(b"token-1"));
//!     s.spawn(|| sessions.insert(b"token-2"));
//! });
//! sessions.remove(b"token-1")?;
//! assert!(sessions.contains(b"token-2")?);
//! # Ok::<(), filterlab::Error>(())
//! ```
//!
//!
//! ```
//! use filterlab::{AtomicBlockedBloom, BlockedBloom};
//!
//! let seen: AtomicBlockedBloom = BlockedBloom::builder().capacity(100_000).build_atomic()?;
//! std::thread::scope(|s| {
//!     s.spawn(|| seen.insert(b"alice@example.com"));
//!     s.spawn(|| seen.insert(b"bob@example.com"));
//! });
//! assert!(seen.contains(b"alice@example.com") && seen.contains(b"bob@example.com"));
//! # Ok::<(), filterlab::Error>(())
//! ```
//!
//! # Partitioned builds (Spark, Flink, any map-reduce engine)
//!
//! A table too large for one job is built in partitions that merge exactly:
//!
//! 1. Fix the parameters once, on the driver: capacity for the *whole* table, rate, and an
//!    explicit hasher seed (`KeyHasher::new(kind, seed)`), and ship them to every task.
//! 2. Each task builds its partition's filter with those parameters and writes
//!    [`Persist::to_bytes`] (a few MB; any blob store will do).
//! 3. One reducer loads the files and folds them with `union` ([`ClassicBloom::union`],
//!    [`BlockedBloom::union`], [`CountingBloom::union`]). The result is bit for bit the filter
//!    built from all keys at once (`tests/partitioned.rs` checks it over 8 parallel partitions);
//!    a partition built with other parameters or another seed is refused with
//!    [`Error::Incompatible`], never merged into nonsense.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use filter_aleph::{AlephBuilder, AlephFilter};
pub use filter_blocked::{AtomicBlockedBloom, BlockedBloom, BlockedBuilder};
pub use filter_classic::{AtomicClassicBloom, ClassicBloom, ClassicBuilder};
pub use filter_core::{
    auth, format, math, murmur3_x64_128, no_check, open_regular, prefetch, read_fallibly,
    read_fallibly_from, read_limited, reduce, remove_stale_temporaries, try_zeroed_table,
    write_atomically, write_atomically_with, zeroed_table, Deletable, Error, Explain, FileKind,
    FileMap, Filter, FormatError, Growable, Hash128, HashKind, KeyHasher, MemoryCap, Pages,
    Persist, Positions, Prefetch, Result, Sizing, StaticFilter, Table, BATCH, DEFAULT_READ_LIMIT,
    HUGE_PAGE_MIN_BYTES, PREFETCH_AHEAD, PREFETCH_MIN_BYTES, PREFETCH_MIN_BYTES_MULTI, STALE_AFTER,
};
pub use filter_counting::{CountingBloom, CountingBuilder};
pub use filter_cuckoo::{CuckooBuilder, CuckooFilter};
pub use filter_expand::{ExpandableBuilder, ExpandableCuckoo};
pub use filter_fuse::{BinaryFuse16, BinaryFuse8};
pub use filter_quotient::{QuotientBuilder, QuotientFilter};
pub use filter_ribbon::{Ribbon, RibbonBuilder};
pub use filter_vqf::{VectorQuotient, VqfBuilder};

/// A [`BinaryFuse8`] as a [`Filter`] (inserts refused), as the registry holds it.
pub type StaticFuse8 = any::Static<BinaryFuse8>;
/// A [`BinaryFuse16`] as a [`Filter`] (inserts refused), as the registry holds it.
pub type StaticFuse16 = any::Static<BinaryFuse16>;
/// A [`Ribbon`] as a [`Filter`] (inserts refused), as the registry holds it.
pub type StaticRibbon = any::Static<Ribbon>;
pub use filter_scalable::{ScalableBloom, ScalableBuilder, StageSizing};
pub use filter_window::{Apbf, ItemWindow, TimeWindow, Timestamp};

/// A [`TimeWindow`] as a [`Filter`], as the registry holds it: inserts need a time
/// ([`AnyFilter::insert_at`]); a query without one answers as of its latest slice.
pub type TimedWindow = any::Timed;

pub mod any;
pub mod keylines;

/// Sharing filters between threads: [`Sharded`](concurrent::Sharded) for every variant (`N`
/// filters, each behind its own lock), the lock-free forms' traits ([`LockFree`](concurrent::LockFree),
/// [`SharedInsert`](concurrent::SharedInsert)) and their parts.
pub mod concurrent {
    pub use filter_core::concurrent::*;
}

/// The first 16 bytes of a file saved by the Python package's `filterlab.Bloom` (rbloom's API):
/// a classic filter's file follows, keyed by the integers its `hash_func` returned rather than
/// by bytes, so only `filterlab.Bloom.load(path, hash_func)` can answer for its keys. Readers of
/// filterlab files check for it to name the class instead of "bad magic bytes".
pub const PYTHON_BLOOM_MAGIC: &[u8; 16] = b"filterlab.Bloom\x01";

pub use any::{AnyFilter, Capabilities, Params, Variant};

/// The classic Bloom filter crate.
pub mod classic {
    pub use filter_classic::*;
}
/// The counting Bloom filter crate.
pub mod counting {
    pub use filter_counting::*;
}
/// The scalable Bloom filter crate.
pub mod scalable {
    pub use filter_scalable::*;
}
/// The cuckoo filter crate.
pub mod cuckoo {
    pub use filter_cuckoo::*;
}
/// The vector quotient filter crate.
pub mod vqf {
    pub use filter_vqf::*;
}
/// The split-block Bloom filter crate.
pub mod blocked {
    pub use filter_blocked::*;
}
/// The quotient filter crate.
pub mod quotient {
    pub use filter_quotient::*;
}
/// The Aleph filter crate.
pub mod aleph {
    pub use filter_aleph::*;
}
/// The expandable cuckoo filter crate.
pub mod expandable {
    pub use filter_expand::*;
}
/// The binary fuse filter crate (static).
pub mod fuse {
    pub use filter_fuse::*;
}
/// The ribbon filter crate (static).
pub mod ribbon {
    pub use filter_ribbon::*;
}
/// The sliding-window filters' crate (windows counted in items or in time).
pub mod window {
    pub use filter_window::*;
}
/// Other ecosystems' filters, bit for bit (`filter-interop`): Guava's `BloomFilter`, RedisBloom's
/// scalable Bloom filter.
pub mod interop {
    pub use filter_interop::*;
}

/// The sign-up gate: a filter in front of a SQLite or PostgreSQL users table (feature `gate`).
#[cfg(feature = "gate")]
pub mod gate {
    pub use crate::replica::{open_replica, Replica};
    pub use filter_gate::*;
}
#[cfg(feature = "gate")]
mod replica;

/// The repository README's examples, compiled and run as doctests so they cannot rot. That file
/// is outside the package; a `cfg(doctest)` item is not expanded when the package is built, so
/// `cargo package` and `cargo publish` never read it.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

/// The crate's own README (the one packaged and shown on crates.io), its examples compiled as
/// doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct CrateReadmeDoctests;
