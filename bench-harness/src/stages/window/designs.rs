//! The sliding-window designs side by side, behind one small interface ([`Windowed`]): ours
//! (every windowed row of the registry, the one counted in time on a clock of one tick per
//! insert), a two-buffer rotation
//! built from two classic filters, and probabilistic-rs's expiring Bloom filter driven by the
//! insert count.

use super::Design;
use crate::filters::BESIDE_PEERS;
use anyhow::{anyhow, bail, Result};
use filter_window::math as wmath;
use filter_window::Timestamp;
use filterlab::any::Detail;
use filterlab::{AnyFilter, ClassicBloom, Filter, Params, Variant};
use probabilistic_rs::ebloom::config::ExpiringFilterConfigBuilder;
use probabilistic_rs::ebloom::filter::ExpiringBloomFilter;
use probabilistic_rs::ebloom::traits::{BulkExpiringBloomFilterOps, ExpiringBloomFilterOps};
use std::future::Future;
use std::task::{Context, Poll, Waker};

/// Generations per window of our lane-sliced filters and levels-minus-one of the peer's.
pub const GENERATIONS: u32 = 7;

/// A window over the last `window` inserts, as the stream drives it.
pub trait Windowed {
    /// Inserts `keys`, in order, as the next inserts of the stream.
    ///
    /// # Errors
    /// An insert the filter refuses.
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()>;
    /// Whether `key` is (maybe) among the items held now.
    fn contains(&self, key: &[u8]) -> bool;
    /// Bytes of the tables held now.
    fn bytes(&self) -> u64;
    /// The design's own formula for its rate now (`None`: none known).
    fn model(&self) -> Option<f64>;
}

/// The design's shape for a window of `window` items at `fpr`: the realised parameters in
/// words, and the age (in inserts, the latest insert being of age 1) past which an item must
/// no longer be found from its own bits.
pub fn shape(design: Design, window: u64, fpr: f64) -> Result<(String, u64)> {
    let n = u64::from(GENERATIONS);
    Ok(match design {
        Design::Ours(v) => {
            let f = ours(v, window, fpr)?;
            let horizon = match f.detail()? {
                Detail::Sliced {
                    generations,
                    per_generation,
                    ..
                }
                | Detail::TimeSliced {
                    generations,
                    per_generation,
                    ..
                } => (u64::from(generations) + 1) * per_generation,
                Detail::AgePartitioned {
                    l, per_generation, ..
                } => (u64::from(l) + 1) * per_generation,
                other => bail!("{v} is not a sliding window: {other:?}"),
            };
            (crate::filters::Shaped::design(&f), horizon)
        }
        Design::TwoBuffer => (
            format!(
                "2 classic filters of {window} items at {:.5} each",
                wmath::per_part_target(fpr, 2)
            ),
            2 * window,
        ),
        Design::ProbabilisticRs | Design::ProbabilisticRsAsDocumented => {
            let per_level = window.div_ceil(n);
            let (text, _) = peer_config(design, window, fpr);
            (text, (n + 1) * per_level)
        }
    })
}

/// Our windowed `variant` for a window of `window` items at `fpr`, through the registry: the
/// lane-sliced windows with [`GENERATIONS`] generations (the one counted in time `window` ticks
/// long, one tick per insert), the age-partitioned filter at `k = l = 8` (its paper's design).
/// Every design of this stage, ours and the two-buffer baseline, allocates with
/// [`BESIDE_PEERS`]: the probabilistic-rs peer cannot take huge pages.
fn ours(variant: Variant, window: u64, fpr: f64) -> Result<AnyFilter> {
    let mut params = Params::new(window, fpr)
        .generations(GENERATIONS)
        .pages(BESIDE_PEERS);
    if variant == Variant::Apbf {
        params = params.hashes(8).generations(8);
    }
    if variant.capabilities().timed {
        params = params.window_ticks(window);
    }
    Ok(AnyFilter::build(variant, &params)?)
}

/// Builds `design` for a window of `window` items at `fpr`.
///
/// # Errors
/// A filter that refuses the sizes.
pub fn build(design: Design, window: u64, fpr: f64) -> Result<Box<dyn Windowed>> {
    Ok(match design {
        Design::Ours(v) => {
            let filter = ours(v, window, fpr)?;
            let slice = match filter.detail()? {
                Detail::TimeSliced { slice_ticks, .. } => Some(slice_ticks),
                _ => None,
            };
            Box::new(Ours {
                filter,
                slice,
                inserted: 0,
            })
        }
        Design::TwoBuffer => Box::new(TwoBuffer::new(window, fpr)?),
        Design::ProbabilisticRs | Design::ProbabilisticRsAsDocumented => {
            Box::new(Expiring::new(design, window, fpr)?)
        }
    })
}

/// One of our windows. A window counted in items takes the stream's inserts as they come; one
/// counted in time (`slice`: its ticks per slice) runs on a clock of one tick per insert: the
/// `i`-th insert happens at tick `i`, and lookups are made at the tick of the latest insert.
struct Ours {
    filter: AnyFilter,
    slice: Option<u64>,
    inserted: u64,
}

impl Ours {
    fn now(&self) -> Timestamp {
        Timestamp(self.inserted.saturating_sub(1))
    }
}

impl Windowed for Ours {
    /// In time: runs of keys within one slice go in one batch, filed at the tick of the run's
    /// last key: the same slice as each key's own tick, so the batch changes nothing.
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        let Some(slice) = self.slice else {
            self.inserted += keys.len() as u64;
            return Ok(self.filter.insert_batch(keys)?);
        };
        let hasher = self.filter.hasher();
        let mut hashes = Vec::with_capacity(filterlab::BATCH);
        let mut rest = keys;
        while !rest.is_empty() {
            let left_in_slice = slice - self.inserted % slice;
            let run = rest.len().min(left_in_slice as usize).min(filterlab::BATCH);
            hashes.clear();
            hashes.extend(rest[..run].iter().map(|k| hasher.hash(k)));
            let last = Timestamp(self.inserted + run as u64 - 1);
            self.filter.insert_hash_batch_at(&hashes, last)?;
            self.inserted += run as u64;
            rest = &rest[run..];
        }
        Ok(())
    }
    /// A lookup the filter refuses answers "absent": the stage then stops on a false negative.
    fn contains(&self, key: &[u8]) -> bool {
        if self.slice.is_some() {
            self.filter.contains_at(key, self.now()).unwrap_or(false)
        } else {
            self.filter.contains(key)
        }
    }
    fn bytes(&self) -> u64 {
        self.filter.size_in_bytes() as u64
    }
    fn model(&self) -> Option<f64> {
        if self.slice.is_some() {
            self.filter.expected_fpr_at(self.now()).ok()
        } else {
            Some(self.filter.expected_fpr())
        }
    }
}

/// A design filled one part at a time (a buffer, a level): the current part takes
/// [`Parts::room`] more items, then the design rotates to a fresh one.
trait Parts {
    /// Items the current part still takes.
    fn room(&self) -> u64;
    /// Starts a fresh part.
    fn rotate(&mut self) -> Result<()>;
    /// Inserts `run` (no more than [`Parts::room`] items) into the current part.
    fn fill(&mut self, run: &[&[u8]]) -> Result<()>;
}

/// Inserts `keys` part by part, rotating whenever the current part is full.
fn insert_in_parts(d: &mut impl Parts, keys: &[&[u8]]) -> Result<()> {
    let mut rest = keys;
    while !rest.is_empty() {
        if d.room() == 0 {
            d.rotate()?;
        }
        let run = rest.len().min(d.room() as usize);
        d.fill(&rest[..run])?;
        rest = &rest[run..];
    }
    Ok(())
}

/// Two classic filters of `window` items each at the share `1 - sqrt(1 - p)`: inserts go to the
/// current one; when it holds `window` items, the older is dropped and an empty one takes its
/// place. An item lives one to two windows.
struct TwoBuffer {
    current: ClassicBloom,
    older: ClassicBloom,
    in_current: u64,
    window: u64,
    share: f64,
}

impl TwoBuffer {
    fn new(window: u64, fpr: f64) -> Result<Self> {
        let share = wmath::per_part_target(fpr, 2);
        let empty = || {
            ClassicBloom::builder()
                .capacity(window)
                .fpr(share)
                .pages(BESIDE_PEERS)
                .build()
        };
        Ok(TwoBuffer {
            current: empty()?,
            older: empty()?,
            in_current: 0,
            window,
            share,
        })
    }
}

impl Parts for TwoBuffer {
    fn room(&self) -> u64 {
        self.window - self.in_current
    }
    fn rotate(&mut self) -> Result<()> {
        let fresh = ClassicBloom::builder()
            .capacity(self.window)
            .fpr(self.share)
            .pages(BESIDE_PEERS)
            .build()?;
        self.older = std::mem::replace(&mut self.current, fresh);
        self.in_current = 0;
        Ok(())
    }
    fn fill(&mut self, run: &[&[u8]]) -> Result<()> {
        self.current.insert_batch(run)?;
        self.in_current += run.len() as u64;
        Ok(())
    }
}

impl Windowed for TwoBuffer {
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        insert_in_parts(self, keys)
    }
    fn contains(&self, key: &[u8]) -> bool {
        self.current.contains(key) || self.older.contains(key)
    }
    fn bytes(&self) -> u64 {
        (self.current.size_in_bytes() + self.older.size_in_bytes()) as u64
    }
    fn model(&self) -> Option<f64> {
        let (a, b) = (self.current.expected_fpr(), self.older.expected_fpr());
        Some(1.0 - (1.0 - a) * (1.0 - b))
    }
}

/// probabilistic-rs's configuration for `design`: `N + 1` levels of `ceil(window / N)` items,
/// each at the share of the target that keeps the union at `fpr` (the honest sizing), or each
/// at `fpr` itself (as its docs configure it). Its text and the per-level rate.
fn peer_config(design: Design, window: u64, fpr: f64) -> (String, f64) {
    let levels = GENERATIONS + 1;
    let per_level = window.div_ceil(u64::from(GENERATIONS));
    let rate = if design == Design::ProbabilisticRs {
        wmath::per_part_target(fpr, levels)
    } else {
        fpr
    };
    let m = probabilistic_rs::optimal_bit_vector_size(per_level as usize, rate);
    let k = probabilistic_rs::optimal_num_hashes(per_level as usize, m);
    let text = format!("{levels} levels of {per_level} items at {rate:.5}, m = {m}, k = {k}");
    (text, rate)
}

/// probabilistic-rs's `ExpiringBloomFilter` in memory (no persistence), its levels rotated every
/// `ceil(window / N)` inserts by the stream (its own clock rotates by wall time, which a
/// benchmark cannot use).
struct Expiring {
    filter: ExpiringBloomFilter,
    per_level: u64,
    in_level: u64,
    bytes: u64,
}

impl Expiring {
    fn new(design: Design, window: u64, fpr: f64) -> Result<Self> {
        let (_, rate) = peer_config(design, window, fpr);
        let levels = GENERATIONS as usize + 1;
        let per_level = window.div_ceil(u64::from(GENERATIONS));
        let config = ExpiringFilterConfigBuilder::default()
            .capacity_per_level(per_level as usize)
            .target_fpr(rate)
            .num_levels(levels)
            .level_duration(std::time::Duration::from_secs(365 * 86_400))
            .build()
            .map_err(|e| anyhow!("probabilistic-rs config: {e}"))?;
        let m = probabilistic_rs::optimal_bit_vector_size(per_level as usize, rate) as u64;
        Ok(Expiring {
            filter: ExpiringBloomFilter::new(config)
                .map_err(|e| anyhow!("probabilistic-rs: {e}"))?,
            per_level,
            in_level: 0,
            // Its levels are `bitvec` vectors of machine words.
            bytes: levels as u64 * m.div_ceil(64) * 8,
        })
    }
}

impl Parts for Expiring {
    fn room(&self) -> u64 {
        self.per_level - self.in_level
    }
    /// Its `rotate_levels` is `async`; without persistence it never waits, so one poll ends it.
    fn rotate(&mut self) -> Result<()> {
        let fut = std::pin::pin!(self.filter.rotate_levels());
        match fut.poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(r) => r.map_err(|e| anyhow!("probabilistic-rs rotation: {e}"))?,
            Poll::Pending => bail!("probabilistic-rs: rotate_levels waited on I/O in memory"),
        }
        self.in_level = 0;
        Ok(())
    }
    fn fill(&mut self, run: &[&[u8]]) -> Result<()> {
        self.filter
            .insert_bulk(run)
            .map_err(|e| anyhow!("probabilistic-rs insert: {e}"))?;
        self.in_level += run.len() as u64;
        Ok(())
    }
}

impl Windowed for Expiring {
    fn insert_batch(&mut self, keys: &[&[u8]]) -> Result<()> {
        insert_in_parts(self, keys)
    }
    /// A lock error (a poisoned lock: impossible on one thread) reads as absent, which the
    /// no-false-negative check reports.
    fn contains(&self, key: &[u8]) -> bool {
        matches!(self.filter.contains(key), Ok(true))
    }
    fn bytes(&self) -> u64 {
        self.bytes
    }
    fn model(&self) -> Option<f64> {
        None
    }
}
