//! The calibration loop: a fixed piece of work timed before every stage and after the last,
//! so that a run knows whether the machine stayed as fast as it was when the run began.
//!
//! The work is the floor's (see `stages::floor`): hash a fixed 26-byte key with xxh3-64 and
//! read one random 64-byte line of a 32 MiB table, [`OPS`] times. It depends on nothing the run
//! changes, so on a quiet machine every point times the same; a busy neighbour (another
//! process, a build, a second VM on the host) slows the points it overlaps. A run whose points
//! spread beyond [`SWING`] says at the top of its report that it was disturbed.

use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Operations (a hash and a line read) a repetition times.
pub const OPS: usize = 200_000;
/// Repetitions a point times; its figure is their median, its spread their range.
pub const REPS: usize = 7;
/// Words of the table read: 32 MiB, beyond every last-level cache here, as the filters are.
const WORDS: usize = 32 << 17;
/// The largest ratio of the slowest point's median to the quickest's on a machine that counts
/// as quiet.
pub const SWING: f64 = 1.25;

/// One timing of the calibration loop.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// Where in the run: `before <stage>` or `after the last stage`.
    pub at: String,
    /// Median nanoseconds per operation over [`REPS`] repetitions.
    pub ns: f64,
    /// The quickest and slowest repetitions' nanoseconds per operation.
    pub range: (f64, f64),
}

/// The loop's table, allocated once for a run.
pub struct Calibration {
    table: Vec<u64>,
}

impl Default for Calibration {
    fn default() -> Self {
        Self::new()
    }
}

impl Calibration {
    /// The table, written once so that every page is mapped before the first timing.
    #[must_use]
    pub fn new() -> Self {
        let table = (0..WORDS as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        Calibration { table }
    }

    /// Nanoseconds per operation of one repetition.
    fn rep(&self) -> f64 {
        let mut key = *b"calibration.key@example.cm";
        let mut acc = 0u64;
        let start = Instant::now();
        for i in 0..OPS {
            key[..8].copy_from_slice(&(i as u64).to_le_bytes());
            let h = xxh3_64_with_seed(&key, 0x5EED);
            // One line a read: the word index keeps 8-word (64-byte) alignment.
            let at = ((h as usize) % (WORDS / 8)) * 8;
            acc = acc.wrapping_add(self.table[at]);
        }
        black_box(acc);
        start.elapsed().as_secs_f64() * 1e9 / OPS as f64
    }

    /// Times the loop ([`REPS`] repetitions after one untimed) at `at`.
    #[must_use]
    pub fn point(&self, at: &str) -> Point {
        black_box(self.rep());
        let mut ns: Vec<f64> = (0..REPS).map(|_| self.rep()).collect();
        let range = (
            ns.iter().copied().fold(f64::INFINITY, f64::min),
            ns.iter().copied().fold(0.0, f64::max),
        );
        Point {
            at: at.into(),
            ns: super::median(&mut ns),
            range,
        }
    }
}

/// A run whose calibration points say the machine's speed changed during it.
#[derive(Clone, Debug, PartialEq)]
pub struct Swing {
    /// The quickest point.
    pub quickest: Point,
    /// The slowest point.
    pub slowest: Point,
}

impl Swing {
    /// The slowest point's median over the quickest's.
    #[must_use]
    pub fn ratio(&self) -> f64 {
        self.slowest.ns / self.quickest.ns
    }

    /// The sentence the reports print.
    #[must_use]
    pub fn sentence(&self) -> String {
        format!(
            "**The machine's speed changed during this run**: the calibration loop (xxh3-64 of \
             a key and one random line read over 32 MiB, timed before every stage) took {:.1} ns \
             an operation {} and {:.1} ns {}, {:.2}× (a quiet machine stays within {SWING}×). \
             Ratios measured within one loop compare sides under the same load; absolute times \
             and verdicts near their bounds need a rerun on a quiet machine.",
            self.quickest.ns,
            self.quickest.at,
            self.slowest.ns,
            self.slowest.at,
            self.ratio()
        )
    }
}

/// The swing of `points` when the slowest point's median is more than [`SWING`] times the
/// quickest's; `None` for a steady run or fewer than two points.
#[must_use]
pub fn swing(points: &[Point]) -> Option<Swing> {
    let valid = || points.iter().filter(|p| p.ns.is_finite() && p.ns > 0.0);
    let quickest = valid().min_by(|a, b| a.ns.total_cmp(&b.ns))?;
    let slowest = valid().max_by(|a, b| a.ns.total_cmp(&b.ns))?;
    (slowest.ns > quickest.ns * SWING).then(|| Swing {
        quickest: quickest.clone(),
        slowest: slowest.clone(),
    })
}

#[cfg(test)]
mod tests;
