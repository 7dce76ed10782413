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
use filter_blocked::parquet::file::{write_keys, ParquetFile};
use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::interop::redisbloom::{RedisBloom, Scaling};
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
    /// RedisBloom's scalable Bloom filter (one link), in the one-file form of its chunks.
    RedisBloom,
    /// A Parquet file of the keys (one column, one row group) with its column chunk's filter;
    /// its bytes are the filter's (the file also holds the keys, which a read skips).
    Parquet,
}

impl Foreign {
    /// Every format, in the order of the tables.
    pub const ALL: [Foreign; 3] = [Foreign::Guava, Foreign::RedisBloom, Foreign::Parquet];

    /// Its name in the tables.
    #[must_use]
    pub fn word(self) -> &'static str {
        match self {
            Foreign::Guava => "Guava BloomFilter (writeTo)",
            Foreign::RedisBloom => "RedisBloom scalable Bloom filter (BF.SCANDUMP chunks)",
            Foreign::Parquet => "Parquet column chunk's bloom filter",
        }
    }

    /// How it is read.
    #[must_use]
    pub fn reader(self) -> &'static str {
        match self {
            Foreign::Guava => "GuavaBloom::load",
            Foreign::RedisBloom => "RedisBloom::load",
            Foreign::Parquet => "ParquetFile::open (footer and filters)",
        }
    }

    /// Its hash, as the conditions name it.
    #[must_use]
    pub fn hash(self) -> &'static str {
        match self {
            Foreign::Guava => "murmur3-x64-128 seed 0 (Guava's)",
            Foreign::RedisBloom => "murmur64a (RedisBloom's)",
            Foreign::Parquet => "xxh64 seed 0 (Parquet's)",
        }
    }

    /// filterlab's like variant.
    #[must_use]
    pub fn own(self) -> Variant {
        match self {
            Foreign::Guava | Foreign::RedisBloom => Variant::Classic,
            Foreign::Parquet => Variant::Blocked,
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

/// Writes the foreign file of the first `n` members; returns the bytes a read takes in (the
/// filter's, for a Parquet file).
fn write_foreign(ctx: &Ctx<'_>, foreign: Foreign, n: usize, path: &Path) -> Result<u64> {
    match foreign {
        Foreign::Guava => {
            let mut g = GuavaBloom::new(n as u64, TARGET_FPR, Strategy::Murmur128Mitz64)?;
            (0..n).try_for_each(|i| g.insert(ctx.members.get(i)))?;
            g.save(path)?;
        }
        Foreign::RedisBloom => {
            let mut r = RedisBloom::reserve(TARGET_FPR, n as u64, Scaling::Expand(2))?;
            (0..n).try_for_each(|i| r.insert(ctx.members.get(i)))?;
            r.save(path)?;
        }
        Foreign::Parquet => {
            let keys: Vec<Vec<u8>> = (0..n).map(|i| ctx.members.get(i).to_vec()).collect();
            let written = write_keys(&keys, "email", n as u64, TARGET_FPR)
                .map_err(|e| anyhow::anyhow!("{}", e.0))?;
            std::fs::write(path, &written.bytes)?;
            return Ok(written.filter.to_bytes().len() as u64);
        }
    }
    Ok(std::fs::metadata(path)?.len())
}

/// A foreign file read into something that answers keys.
enum Read {
    Filter(Box<dyn Filter>),
    Parquet(ParquetFile),
}

impl Read {
    fn contains(&self, key: &[u8]) -> bool {
        match self {
            Read::Filter(f) => f.contains(key),
            // One column, one row group; a BYTE_ARRAY value's plain encoding is its bytes.
            Read::Parquet(p) => p.chunks[0][0].may_hold(key),
        }
    }
}

/// Reads the foreign file at `path` into a queryable filter.
fn read_foreign(foreign: Foreign, path: &Path) -> Result<Read> {
    Ok(match foreign {
        Foreign::Guava => Read::Filter(Box::new(GuavaBloom::load(path)?)),
        Foreign::RedisBloom => Read::Filter(Box::new(RedisBloom::load(path)?)),
        Foreign::Parquet => {
            let p = ParquetFile::open(path).map_err(|e| anyhow::anyhow!("{}", e.0))?;
            anyhow::ensure!(
                p.chunks
                    .first()
                    .and_then(|g| g.first())
                    .is_some_and(|c| c.filter.is_some()),
                "the study's Parquet file has no filter"
            );
            Read::Parquet(p)
        }
    })
}

/// Members of `0..n` that `contains` does not find.
fn missed(ctx: &Ctx<'_>, contains: impl Fn(&[u8]) -> bool, n: usize) -> u64 {
    (0..n).filter(|&i| !contains(ctx.members.get(i))).count() as u64
}

fn pair(ctx: &Ctx<'_>, settings: &Settings, foreign: Foreign) -> Result<ReadPair> {
    let dir = scratch_dir();
    std::fs::create_dir_all(&dir)?;
    let n = settings.read_keys as usize;
    let (fpath, opath) = (dir.join("foreign.bin"), dir.join("own.flt"));
    let foreign_bytes = write_foreign(ctx, foreign, n, &fpath)?;
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
        foreign_bytes,
        own_bytes: std::fs::metadata(&opath)?.len(),
        foreign_ms,
        own_ms,
        foreign_missed: missed(ctx, |k| read.contains(k), n),
        own_missed: missed(ctx, |k| loaded.contains(k), n),
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
