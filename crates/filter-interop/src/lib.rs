//! Other ecosystems' filters, read and written bit for bit, so that a filter a team already runs
//! can be inspected, compared with filterlab's variants, and moved in either direction.
//!
//! | module    | format                                           | checked against            |
//! |-----------|--------------------------------------------------|----------------------------|
//! | [`guava`] | Guava's `BloomFilter` (`writeTo` / `readFrom`), both strategies | Guava on the JDK (`tests/guava_peer.rs`) |
//! | [`redisbloom`] | RedisBloom's scalable Bloom filter (`BF.SCANDUMP` / `BF.LOADCHUNK`, built natively too); its cuckoo filter (`CF.SCANDUMP` / `CF.LOADCHUNK`, read and written back, not built) | RedisBloom 2.8 in redis-server (`tests/redisbloom_peer.rs`) |
//!
//! Parquet's split-block filters live beside the split-block variant they share a layout with
//! (`filter_blocked::parquet`).
//!
//! Each foreign filter implements [`filter_core::Filter`], hashing keys exactly as its home
//! library does (RedisBloom's hash is none of filter-core's, so its `_hash` methods take its own
//! pair: see [`redisbloom`]), and reports its false-positive rate from [`filter_core::math`]. A foreign file
//! that stores no item count gets one estimated from its set bits (Swamidass & Baldi 2007,
//! [`filter_core::math::bloom_count_estimate`]), so the rate of a filter that has run for years
//! can be read off its bytes.
//!
//! Loaders trust nothing in the bytes: a declared size is checked against the bytes present
//! before anything is allocated, memory is reserved fallibly, and every refusal is a
//! [`filter_core::FormatError`] that says what was wrong.
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod guava;
pub mod redisbloom;

pub use guava::GuavaBloom;
pub use redisbloom::RedisBloom;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
