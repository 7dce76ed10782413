//! Sizing and construction: the layout formulas of Graf & Lemire (2022, §4) and the peeling of
//! the 3-uniform hypergraph, with a new seed (and, after a few failures, more room) until it
//! peels.

use crate::{derive, fingerprint_of, positions, BinaryFuse, Fingerprint};
use filter_core::{Error, Hash128, KeyHasher, Result};

/// The largest segment (2^18 slots), as in the reference implementations: beyond it a larger
/// segment buys no construction reliability and costs locality.
pub const MAX_SEGMENT_LENGTH: u32 = 1 << 18;

/// The most distinct keys a filter takes: slot indexes are 32-bit.
pub const MAX_KEYS: u64 = 1 << 31;

/// Seeds tried before the construction gives up (never reached in practice: each attempt at
/// the paper's sizing succeeds with probability well above 1/2, and the room grows every
/// [`ATTEMPTS_PER_BUMP`] failures).
pub const MAX_ATTEMPTS: u32 = 1000;

/// Failed seeds after which one more segment is added to the array.
pub const ATTEMPTS_PER_BUMP: u32 = 8;

/// Where a filter's slots are: `segment_count + 2` segments of `segment_length` slots; a key's
/// first slot is in one of the first `segment_count` segments, its others in the next two.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Slots per segment, a power of two.
    pub segment_length: u32,
    /// Segments a key's first slot may fall in.
    pub segment_count: u32,
    /// Total slots: `(segment_count + 2) * segment_length`.
    pub array_length: u32,
}

impl Layout {
    /// The layout for `n` distinct keys, with `bumps` extra segments of slack.
    ///
    /// The formulas are the paper's for arity 3 (Graf & Lemire 2022, §4 and their reference C
    /// library): segment length `2^floor(ln n / ln 3.33 + 2.25)` capped at 2^18, and
    /// `n * max(1.125, 0.875 + 0.25 * ln 10^6 / ln n)` slots, rounded up to whole segments, of
    /// which the last two hold only second and third slots. Sets of 0 or 1 key get one segment
    /// of 4 slots (12 in all).
    ///
    /// # Errors
    /// [`Error::SizeOverflow`] past [`MAX_KEYS`].
    pub fn for_keys(n: u64, bumps: u32) -> Result<Self> {
        if n > MAX_KEYS {
            return Err(Error::SizeOverflow {
                what: "binary fuse filter",
                hint: format!("{n} distinct keys is above the limit of {MAX_KEYS}: split the set"),
            });
        }
        let segment_length = segment_length(n);
        let capacity = if n <= 1 {
            0
        } else {
            (n as f64 * size_factor(n)).round() as u64
        };
        let seg = u64::from(segment_length);
        let segments = capacity.div_ceil(seg).saturating_sub(2).max(1) + u64::from(bumps);
        let array_length = (segments + 2) * seg;
        // n <= 2^31 and a size factor below 2 keep this under 2^32 with room for the bumps.
        let array_length = u32::try_from(array_length).map_err(|_| Error::SizeOverflow {
            what: "binary fuse filter",
            hint: format!("{array_length} slots do not fit 32-bit indexes: split the set"),
        })?;
        Ok(Layout {
            segment_length,
            segment_count: segments as u32,
            array_length,
        })
    }
}

/// `2^floor(ln n / ln 3.33 + 2.25)`, at most [`MAX_SEGMENT_LENGTH`]; 4 for `n <= 1`.
pub fn segment_length(n: u64) -> u32 {
    if n <= 1 {
        return 4;
    }
    let exp = ((n as f64).ln() / 3.33f64.ln() + 2.25).floor() as u32;
    1u32.checked_shl(exp)
        .unwrap_or(MAX_SEGMENT_LENGTH)
        .min(MAX_SEGMENT_LENGTH)
}

/// Slots per key before rounding: `max(1.125, 0.875 + 0.25 * ln 10^6 / ln n)`, for `n >= 2`.
pub fn size_factor(n: u64) -> f64 {
    (0.875 + 0.25 * 1e6f64.ln() / (n as f64).ln()).max(1.125)
}

/// The 64-bit values a filter is built from: one per distinct key hash, sorted.
pub(crate) fn distinct_keys(hashes: &[Hash128]) -> Result<Vec<u64>> {
    let mut keys = filter_core::try_filled(hashes.len(), 0u64, "binary fuse key hashes")?;
    for (k, h) in keys.iter_mut().zip(hashes) {
        *k = crate::key_of(*h);
    }
    keys.sort_unstable();
    keys.dedup();
    Ok(keys)
}

/// The `i`-th construction seed: splitmix64 steps, so builds are deterministic.
fn seed_for(attempt: u32) -> u64 {
    let mut z = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(u64::from(attempt) + 1);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The working memory of one peeling, reused across attempts.
pub(crate) struct Scratch {
    /// Per slot: keys touching it, times 4, plus (mod 4) the XOR of the positions (0, 1, 2)
    /// those keys give the slot. When one key is left the low bits say which of its slots this is.
    count: Vec<u32>,
    /// Per slot: the XOR of the derived hashes of the keys touching it.
    xor: Vec<u64>,
    /// Slots with exactly one key, to peel.
    queue: Vec<u32>,
    /// Peeled keys in order, with the position of the slot they were peeled from.
    stack: Vec<(u64, u8)>,
}

impl Scratch {
    pub(crate) fn new(layout: Layout, n: usize) -> Result<Self> {
        let slots = layout.array_length as usize;
        let mut queue = Vec::new();
        queue
            .try_reserve_exact(slots)
            .map_err(|_| Error::OutOfMemory {
                what: "binary fuse construction queue",
                bytes: slots as u64 * 4,
            })?;
        let mut stack = Vec::new();
        stack.try_reserve_exact(n).map_err(|_| Error::OutOfMemory {
            what: "binary fuse construction stack",
            bytes: n as u64 * 16,
        })?;
        Ok(Scratch {
            count: filter_core::try_filled(slots, 0, "binary fuse construction counts")?,
            xor: filter_core::try_filled(slots, 0, "binary fuse construction hashes")?,
            queue,
            stack,
        })
    }

    /// Peels the hypergraph of `keys` under `seed`; true when every key was peeled.
    pub(crate) fn peel(&mut self, keys: &[u64], seed: u64, layout: Layout) -> bool {
        self.count.fill(0);
        self.xor.fill(0);
        self.queue.clear();
        self.stack.clear();
        for &k in keys {
            let d = derive(k, seed);
            for (pos, slot) in positions(d, layout).into_iter().enumerate() {
                let s = slot as usize;
                self.count[s] = (self.count[s] + 4) ^ pos as u32;
                self.xor[s] ^= d;
            }
        }
        self.queue
            .extend((0..layout.array_length).filter(|&s| self.count[s as usize] >> 2 == 1));
        while let Some(slot) = self.queue.pop() {
            let s = slot as usize;
            if self.count[s] >> 2 != 1 {
                continue; // its last key was peeled from another of its slots
            }
            let d = self.xor[s];
            let found = (self.count[s] & 3) as usize;
            self.stack.push((d, found as u8));
            let slots = positions(d, layout);
            for step in 1..=2 {
                let pos = (found + step) % 3;
                let o = slots[pos] as usize;
                self.xor[o] ^= d;
                self.count[o] = (self.count[o] - 4) ^ pos as u32;
                if self.count[o] >> 2 == 1 {
                    self.queue.push(o as u32);
                }
            }
            self.count[s] = 0;
        }
        self.stack.len() == keys.len()
    }
}

impl<F: Fingerprint> BinaryFuse<F> {
    /// Builds the filter from distinct, derived keys: tries seeds until the hypergraph peels,
    /// then assigns fingerprints in the reverse of the peeling order (Graf & Lemire 2022, Alg. 3).
    pub(crate) fn build(keys: &[u64], hasher: KeyHasher) -> Result<Self> {
        let n = keys.len();
        let mut layout = Layout::for_keys(n as u64, 0)?;
        let mut scratch = Scratch::new(layout, n)?;
        for attempt in 0..MAX_ATTEMPTS {
            let bumps = attempt / ATTEMPTS_PER_BUMP;
            if attempt > 0 && attempt % ATTEMPTS_PER_BUMP == 0 {
                layout = Layout::for_keys(n as u64, bumps)?;
                scratch = Scratch::new(layout, n)?;
            }
            let seed = seed_for(attempt);
            if !scratch.peel(keys, seed, layout) {
                continue;
            }
            let mut fingerprints = filter_core::try_filled(
                layout.array_length as usize,
                F::default(),
                "binary fuse table",
            )?;
            for &(d, found) in scratch.stack.iter().rev() {
                let slots = positions(d, layout);
                let found = usize::from(found);
                let others = fingerprints[slots[(found + 1) % 3] as usize]
                    ^ fingerprints[slots[(found + 2) % 3] as usize];
                fingerprints[slots[found] as usize] = fingerprint_of::<F>(d) ^ others;
            }
            return Ok(BinaryFuse {
                hasher,
                seed,
                layout,
                fingerprints,
                len: n as u64,
            });
        }
        Err(Error::Full {
            len: n as u64,
            load_factor: n as f64 / f64::from(layout.array_length),
        })
    }
}
