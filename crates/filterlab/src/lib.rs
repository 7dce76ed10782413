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
//! | fastest lookups, a bit more memory     | [`BlockedBloom`]  | `filter-blocked`  |
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
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use filter_blocked::{BlockedBloom, BlockedBuilder};
pub use filter_classic::{ClassicBloom, ClassicBuilder};
pub use filter_core::{
    format, math, murmur3_x64_128, prefetch, set_huge_pages, zeroed_table, Deletable, Error,
    Filter, FormatError, Growable, Hash128, HashKind, KeyHasher, Persist, Result, Sizing, Variant,
    BATCH, PREFETCH_AHEAD, PREFETCH_MIN_BYTES, PREFETCH_MIN_BYTES_MULTI,
};
pub use filter_counting::{CountingBloom, CountingBuilder};
pub use filter_cuckoo::{CuckooBuilder, CuckooFilter};
pub use filter_scalable::{ScalableBloom, ScalableBuilder};

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
/// The split-block Bloom filter crate.
pub mod blocked {
    pub use filter_blocked::*;
}

/// The sign-up gate: a filter in front of a SQLite or PostgreSQL users table (feature `gate`).
#[cfg(feature = "gate")]
pub mod gate {
    pub use filter_gate::*;
}

/// The README's examples, compiled and run as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
