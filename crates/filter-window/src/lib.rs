//! Sliding-window filters: "seen in the last 24 hours", "in the last million events".
//!
//! A filter reset at midnight answers "seen today"; the questions people ask are rolling. The
//! filters here forget by themselves: an item is always found while it is younger than the
//! window, and no longer found (apart from false positives) a little after it leaves.
//!
//! | type           | window counted in   | structure                                        | paper |
//! |----------------|---------------------|--------------------------------------------------|-------|
//! | [`ItemWindow`] | items (inserts)     | `N + 1` generations in the bit lanes of one table | this crate |
//! | [`TimeWindow`] | caller's time ticks | the same, generations are slices of time          | this crate |
//! | [`Apbf`]       | items (inserts)     | `k + l` age-partitioned slices                    | Shtul, Baquero & Almeida 2020 |
//!
//! # Lane-sliced generations
//! The window is cut into `N` generations (of `window / N` items, or `window / N` ticks);
//! `N + 1` are kept, the youngest being filled. Each is a Bloom filter (Bloom 1970) sized for its
//! share `q = 1 - (1 - p)^(1/(N + 1))` of the target `p`, so that the union of all of them stays
//! at `p`. They share the `m` positions and the `k` probes (Kirsch & Mitzenmacher 2006 double
//! hashing, through [`filter_core::IndexGen`]) of a key: each position is a lane of `N + 1` bits,
//! one per generation, packed into 64-bit words. An insert sets its generation's bit at `k`
//! positions; a lookup reads `k` words and ANDs their lanes, and answers "maybe" when some kept
//! generation has all `k` bits — one memory access per probe however many generations there are.
//! When a new generation starts, the oldest leaves: its bit is cleared in every lane, a
//! sequential pass over the table that costs, spread over a generation's inserts, about
//! `m / (64 / (N + 1)) / g` word writes per insert.
//!
//! Guarantees (tested in `tests/guarantees.rs`):
//! * no false negative for an item younger than the window: the last `window` inserts (or every
//!   insert of the last `window` ticks) sit in kept generations;
//! * an item leaves its bits at most `1 + 1/N` windows after its last insert (its generation
//!   leaves when `N + 1` newer ones have begun; `(N + 1) · ceil(window / N)` exactly), so a
//!   stale "maybe" is a false positive;
//! * the rate over the window stays at or under `p` (worst case: all `N + 1` generations full);
//! * memory is allocated once: `size_in_bytes` never changes.
//!
//! Measured (`design_point_rate_over_ten_windows_of_a_million`, ignored by default, seeded):
//! a window of 10^6 items at 1%, ten windows of a stream with one stranger query per insert:
//! 89 096 false positives in 10^7 queries (0.891%; the model at each query sums to 89 085);
//! keys past `1 + 1/N` windows: 18 559 "maybe" of 1 857 136 (0.999%; model 18 569).
//!
//! ## What it reaches (computed by [`math::SlicedPlan`], tested in `filter_core::math::window`)
//! Bits of table per in-window item, `(N + 1) · m / (N · g)`, at the worst-case rate `p`:
//!
//! | `N` (kept)   | 1 (2) | 3 (4) | **7 (8)** | 15 (16) | 31 (32) | 63 (64) |
//! |--------------|-------|-------|-----------|---------|---------|---------|
//! | `p` = 1%     | 22.06 | 16.63 | **15.90** | 16.38   | 17.34   | 18.53   |
//! | `p` = 0.1%   | 31.64 | 23.02 | **21.38** | 21.49   | 22.29   | 23.40   |
//!
//! `N = 1` is the two-buffer rotation (about 22 bits at 1%). The default, `N = 7` with eight
//! one-byte lanes, reaches **15.90 bits per in-window item at 1%**, under the goal of 16.5;
//! the age-partitioned filter below needs 19.6 at its least (`k = 10`, `l = 53`), 23.5 at the
//! paper's `k = l = 8` (23.1 with the paper's sizing, whose worst case is then 1.1%). Checking each of 24 slices at the full target instead of its
//! share gives `1 - 0.99^24` ≈ 21% over the window.
//!
//! A [`TimeWindow`] is sized for the most items a window receives (`items_per_window`); a
//! slice of time that receives more than its share raises the rate while it is in the window,
//! and [`TimeWindow::expected_fpr_at`] reports the rate from the real counts.
//!
//! # Age-partitioned Bloom filter
//! [`Apbf`] follows Shtul, Baquero & Almeida, "Age-Partitioned Bloom Filters" (2020,
//! arXiv:2001.03147): `k + l` slices; an insert sets one bit in each of the `k` youngest; every
//! `g = window / l` inserts the oldest slice is emptied and becomes the youngest; a lookup looks
//! for `k` consecutive slices all holding the key's bit. It is here as the reference design; its
//! rate is [`math::apbf_fpr`], and `k` and `l` are chosen for the least memory that meets it
//! ([`math::ApbfPlan::least`]). Besides its memory (19.6 bits per item at 1%), it has a tail:
//! a key just past `1 + 1/l` windows keeps `k - 1` of its bits in a row, and is "maybe"
//! whenever a neighbouring slice matches by chance (measured at a 1% target and `k = l = 8`:
//! 7% of the keys 9 to 24 generations old); it is gone only after `l + k` generations (see
//! [`Apbf`]).
//!
//! # Time
//! The core API takes the time as a [`Timestamp`] in the caller's ticks
//! ([`TimeWindow::insert_at`], [`TimeWindow::contains_at`]), so behaviour is deterministic and
//! testable; [`InstantClock`] turns [`std::time::Instant`]s into timestamps.
//!
//! # Saving
//! The three filters are [`Persist`](filter_core::Persist) in the project's versioned,
//! checksummed format (file kinds [`ITEM_WINDOW_FILE_KIND`], [`TIME_WINDOW_FILE_KIND`],
//! [`APBF_FILE_KIND`]); a [`TimeWindow`] keeps its place in time across a save (see its docs).
//!
//! # In the facade
//! The three are rows of `filterlab`'s registry (`item-window`, `time-window`, `apbf`, with the
//! capability `windowed`), so the CLI, the conformance suite and the fuzz targets reach them
//! there. Their formulas are in [`filter_core::math::window`] (re-exported as [`math`]).
#![deny(missing_docs)]
#![forbid(unsafe_code)]

#[macro_use]
mod macros;

mod apbf;
mod codec;
mod explain;
mod lanes;
pub mod math;
mod sliced;
mod time;

pub use apbf::{Apbf, ApbfBuilder, ApbfSizing, MAX_SLICES};
pub use codec::{APBF_FILE_KIND, ITEM_WINDOW_FILE_KIND, TIME_WINDOW_FILE_KIND};
pub use sliced::{ItemWindow, ItemWindowBuilder, GENERATION_CHOICES};
pub use time::{InstantClock, TimeWindow, TimeWindowBuilder, Timestamp};

/// Generations per window by default: 8 kept, the leanest choice at 1% (crate docs).
pub const DEFAULT_GENERATIONS: u32 = 7;

#[cfg(test)]
mod tests;

/// The README's examples, compiled as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
