//! Measuring a rate by independent repetitions. Keys are hashed once with the default hasher;
//! each repetition re-mixes those hashes with its own seed (a bijective mixer, so a fresh,
//! independent-looking hash function per seed) and takes its own slice of the probes. Seeds are
//! derived from a name per measurement, so two measurements (the classic and the counting row)
//! never share one.

use super::stats::Count;
use super::Lab;
use filterlab::{Filter, Hash128, KeyHasher};
use std::ops::Range;
use xxhash_rust::xxh3::xxh3_64;

/// One repetition's keys, hashed with its seed.
pub struct Draw {
    /// The repetition's seed.
    pub seed: u64,
    /// The first `lab.n` members, hashed with `seed`.
    pub members: Vec<Hash128>,
    /// This repetition's slice of the probes, hashed with `seed`.
    pub probes: Vec<Hash128>,
    /// Which probe keys the slice holds (for runs that hash keys themselves).
    pub probe_range: Range<usize>,
}

impl Draw {
    /// `hits` of `trials` as this repetition's count.
    pub fn count(&self, hits: u64, trials: u64) -> Count {
        Count {
            seed: self.seed,
            hits,
            trials,
        }
    }
}

fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// `h` re-mixed with `seed`: each half through splitmix64's bijective finalizer.
pub fn remix(h: Hash128, seed: u64) -> Hash128 {
    Hash128 {
        lo: splitmix(h.lo ^ seed),
        hi: splitmix(h.hi ^ seed.rotate_left(29) ^ 0x5851_f42d_4c95_7f2d),
    }
}

/// The seed of repetition `rep` of the measurement called `name`.
pub fn seed_of(name: &str, rep: usize) -> u64 {
    splitmix(xxh3_64(name.as_bytes()) ^ (rep as u64).wrapping_mul(0xd1b5_4a32_d192_ed03))
}

impl Lab<'_> {
    /// Repetitions of the measurement `name`: the probes split into `reps` disjoint slices.
    pub fn draws<'s>(&'s self, name: &'s str) -> impl Iterator<Item = Draw> + 's {
        let reps = self.reps;
        let per = self.probes.len() / reps;
        (0..reps).map(move |r| {
            let seed = seed_of(name, r);
            let range = r * per..(r + 1) * per;
            Draw {
                seed,
                members: self.members[..self.n]
                    .iter()
                    .map(|&h| remix(h, seed))
                    .collect(),
                probes: self.probes[range.clone()]
                    .iter()
                    .map(|&h| remix(h, seed))
                    .collect(),
                probe_range: range,
            }
        })
    }

    /// Runs `f` on every repetition of `name`: the first repetition's value and every count.
    ///
    /// # Errors
    /// The first error of `f`.
    pub fn repeat<X>(
        &self,
        name: &str,
        mut f: impl FnMut(&Draw) -> anyhow::Result<(X, Count)>,
    ) -> anyhow::Result<(X, Vec<Count>)> {
        let mut first = None;
        let mut counts = Vec::with_capacity(self.reps);
        for d in self.draws(name) {
            let (x, c) = f(&d)?;
            first.get_or_insert(x);
            counts.push(c);
        }
        first
            .map(|x| (x, counts))
            .ok_or_else(|| anyhow::anyhow!("no repetitions for {name}"))
    }
}

/// Keys hashed once with the default hasher (every library filter here uses it).
pub fn hash_all<'a>(keys: impl Iterator<Item = &'a [u8]>) -> Vec<Hash128> {
    let h = KeyHasher::default();
    keys.map(|k| h.hash(k)).collect()
}

/// Inserts `members` (already hashed) into `f`.
///
/// # Errors
/// A full table.
pub fn fill<F: Filter>(f: &mut F, members: &[Hash128]) -> filterlab::Result<()> {
    f.insert_hash_batch(members)
}

/// The false positives of `f` over the draw's probes (keys never inserted).
pub fn fp<F: Filter>(f: &F, d: &Draw) -> Count {
    let mut out = Vec::with_capacity(d.probes.len());
    f.contains_hash_batch(&d.probes, &mut out);
    d.count(
        out.iter().filter(|&&b| b).count() as u64,
        d.probes.len() as u64,
    )
}

#[cfg(test)]
mod tests;
