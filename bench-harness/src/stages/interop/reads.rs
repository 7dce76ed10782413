//! Reading a foreign filter file against reading filterlab's own, in interleaved rounds.
//!
//! Each pair holds the same keys (the run's first members) at the same rate: a foreign file as
//! its home library writes it, and a filterlab file of the like variant. Each round reads both
//! from their paths into queryable filters, the order alternating from round to round; both
//! files are read once untimed first, so the page cache holds them for every timed read. After
//! the rounds, every member is asked of both filters.

use super::{Settings, TARGET_FPR};
use crate::plan::Ctx;
use anyhow::{Context, Result};
use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::Filter;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// A foreign format the study reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Foreign {
    /// Guava's `BloomFilter`, `MURMUR128_MITZ_64`, as `writeTo` writes it.
    Guava,
}

impl Foreign {
    /// Every format, in the order of the tables.
    pub const ALL: [Foreign; 1] = [Foreign::Guava];

    /// Its name in the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Foreign::Guava => "Guava BloomFilter (writeTo)",
        }
    }

    /// How it is read.
    #[must_use]
    pub fn reader(self) -> &'static str {
        match self {
            Foreign::Guava => "GuavaBloom::load",
        }
    }

    /// filterlab's like variant.
    #[must_use]
    pub fn own(self) -> Variant {
        match self {
            Foreign::Guava => Variant::Classic,
        }
    }
}

/// One format's reads against filterlab's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReadPair {
    /// The foreign format.
    pub foreign: Foreign,
    /// Keys each file holds.
    pub keys: u64,
    /// The foreign file's bytes.
    pub foreign_bytes: u64,
    /// The filterlab file's bytes.
    pub own_bytes: u64,
    /// Each round's read of the foreign file, milliseconds, in the order the rounds ran.
    pub foreign_ms: Vec<f64>,
    /// Each round's `AnyFilter::load` of the filterlab file, milliseconds.
    pub own_ms: Vec<f64>,
    /// Members the filter read from the foreign file did not find.
    pub foreign_missed: u64,
    /// Members the filter read from the filterlab file did not find.
    pub own_missed: u64,
}

impl ReadPair {
    /// Milliseconds per MB of each foreign read.
    #[must_use]
    pub fn foreign_ms_per_mb(&self) -> Vec<f64> {
        per_mb(&self.foreign_ms, self.foreign_bytes)
    }

    /// Milliseconds per MB of each filterlab read.
    #[must_use]
    pub fn own_ms_per_mb(&self) -> Vec<f64> {
        per_mb(&self.own_ms, self.own_bytes)
    }
}

fn per_mb(ms: &[f64], bytes: u64) -> Vec<f64> {
    ms.iter().map(|m| m / (bytes as f64 / 1e6)).collect()
}

/// Where the study writes its files (removed at its end).
#[must_use]
pub fn scratch_dir() -> PathBuf {
    PathBuf::from("target/interop-study")
}

/// Milliseconds `f` took.
fn millis<T>(f: impl FnOnce() -> Result<T>) -> Result<f64> {
    let t = Instant::now();
    black_box(f()?);
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

/// Writes the foreign file of the first `n` members; returns its reader.
fn write_foreign(ctx: &Ctx<'_>, foreign: Foreign, n: usize, path: &Path) -> Result<()> {
    match foreign {
        Foreign::Guava => {
            let mut g = GuavaBloom::new(n as u64, TARGET_FPR, Strategy::Murmur128Mitz64)?;
            (0..n).try_for_each(|i| g.insert(ctx.members.get(i)))?;
            g.save(path)?;
        }
    }
    Ok(())
}

/// Reads the foreign file at `path` into a queryable filter.
fn read_foreign(foreign: Foreign, path: &Path) -> Result<Box<dyn Filter>> {
    Ok(match foreign {
        Foreign::Guava => Box::new(GuavaBloom::load(path)?),
    })
}

/// Members of `0..n` that `f` does not find.
fn missed(ctx: &Ctx<'_>, f: &dyn Filter, n: usize) -> u64 {
    (0..n).filter(|&i| !f.contains(ctx.members.get(i))).count() as u64
}

fn pair(ctx: &Ctx<'_>, settings: &Settings, foreign: Foreign) -> Result<ReadPair> {
    let dir = scratch_dir();
    std::fs::create_dir_all(&dir)?;
    let n = settings.read_keys as usize;
    let (fpath, opath) = (dir.join("foreign.bin"), dir.join("own.flt"));
    write_foreign(ctx, foreign, n, &fpath)?;
    let mut own = AnyFilter::build(foreign.own(), &Params::new(n as u64, TARGET_FPR))?;
    let keys: Vec<&[u8]> = (0..n).map(|i| ctx.members.get(i)).collect();
    keys.chunks(filterlab::BATCH)
        .try_for_each(|c| own.insert_batch(c))?;
    own.save(&opath)?;
    drop(own);
    // Untimed reads: both files in the page cache.
    black_box(std::fs::read(&fpath)?);
    black_box(std::fs::read(&opath)?);
    let (mut foreign_ms, mut own_ms) = (Vec::new(), Vec::new());
    for round in 0..settings.read_rounds {
        let f = || read_foreign(foreign, &fpath);
        let o = || Ok(AnyFilter::load(&opath)?);
        if round % 2 == 0 {
            foreign_ms.push(millis(f)?);
            own_ms.push(millis(o)?);
        } else {
            own_ms.push(millis(o)?);
            foreign_ms.push(millis(f)?);
        }
    }
    let read = read_foreign(foreign, &fpath)?;
    let loaded = AnyFilter::load(&opath)?;
    let out = ReadPair {
        foreign,
        keys: n as u64,
        foreign_bytes: std::fs::metadata(&fpath)?.len(),
        own_bytes: std::fs::metadata(&opath)?.len(),
        foreign_ms,
        own_ms,
        foreign_missed: missed(ctx, read.as_ref(), n),
        own_missed: missed(ctx, &loaded, n),
    };
    for p in [&fpath, &opath] {
        std::fs::remove_file(p).with_context(|| format!("removing {}", p.display()))?;
    }
    Ok(out)
}

/// Every format's pair.
///
/// # Errors
/// A file that cannot be written or read.
pub fn measure(ctx: &Ctx<'_>, settings: &Settings) -> Result<Vec<ReadPair>> {
    let pairs = Foreign::ALL
        .iter()
        .map(|&f| {
            let p = pair(ctx, settings, f)?;
            eprintln!(
                "   {}: {} bytes against {} bytes of {}",
                f.word(),
                p.foreign_bytes,
                p.own_bytes,
                f.own()
            );
            Ok(p)
        })
        .collect::<Result<Vec<_>>>()?;
    let _ = std::fs::remove_dir(scratch_dir());
    Ok(pairs)
}
