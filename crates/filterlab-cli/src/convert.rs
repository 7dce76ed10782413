//! `convert`, and `build --to guava` (issue 40, item 4).
//!
//! A filter holds bits or fingerprints, never its keys. A conversion is exact only where both
//! formats place every key by the same hash and the same layout; then the bits are carried
//! over and every key is answered as before. That is so for a filterlab file re-saved (in the
//! current format version, so that an old version 1 file opens in place) and for a Guava file
//! re-encoded with its own strategy. Between any other two formats the positions of a key
//! differ, and which bits to set in the target depends on keys the source no longer has:
//! `convert` refuses and says why ([`Inexact`]).
//!
//! With `--keys`, it rebuilds instead, and says so: each key is asked of the input first, and
//! one the input reports absent stops the rebuild before anything is written (those are not
//! the keys it holds, or they were hashed another way, as through another Guava funnel). The
//! target is sized for the distinct keys at the input's expected rate, or `--fpr`.

use crate::args::{Convert, Format, GuavaStrategyArg};
use crate::build::{check_directory, waiting};
use crate::file::{self, Role};
use crate::foreign::{self, Foreign};
use crate::keys;
use crate::output::Out;
use anyhow::{bail, Context, Result};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::interop::redisbloom::{RedisBloom, Scaling};
use filterlab::keylines::escape;
use filterlab::{AnyFilter, Filter, Hash128, HashKind, KeyHasher, Params, Variant};
use serde::Serialize;
use std::io::BufReader;
use std::path::Path;

/// What `convert` did.
#[derive(Debug, Serialize)]
pub struct Converted {
    /// The input file.
    pub input: String,
    /// What the input is.
    pub from: String,
    /// The format written.
    pub to: Format,
    /// The file written.
    pub output: String,
    /// Whether the bits were carried over or the filter rebuilt from keys.
    pub method: Method,
    /// With `--keys`: the distinct keys read, each held by the input.
    pub keys: Option<u64>,
    /// The written filter's expected false-positive rate at its count.
    pub expected_fpr: f64,
    /// Bytes written.
    pub file_bytes: u64,
}

/// How a conversion was made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// The same bits: every key is answered as the input answers it.
    Exact,
    /// Built anew from `--keys`, every one of them held by the input.
    Rebuilt,
}

/// A filter read by `convert`: filterlab's own, or a foreign one.
enum Source {
    /// Boxed: a filterlab filter is several times the size of a foreign one's header.
    Own(Box<AnyFilter>),
    Foreign(Foreign),
}

impl Source {
    fn read(path: &Path) -> Result<Self> {
        if crate::parquet::sniff(path)?.is_some() {
            bail!(
                "{} is a Parquet file: it holds one filter per column chunk, each hashed by XXH64 \
                 of its values' plain encoding, and convert takes one filter; query it with \
                 filterlab query FILE --column NAME, or build a filter from the column's values",
                path.display()
            );
        }
        Ok(match foreign::sniff(path)? {
            Some(f) => Source::Foreign(f),
            None => Source::Own(Box::new(file::load(path)?.0)),
        })
    }

    fn describe(&self) -> String {
        match self {
            Source::Own(f) => format!("a filterlab {} filter", f.variant()),
            Source::Foreign(f) => f.describe(),
        }
    }

    fn contains(&self, key: &[u8]) -> bool {
        match self {
            Source::Own(f) => f.contains(key),
            Source::Foreign(f) => f.contains(key),
        }
    }

    fn expected_fpr(&self) -> f64 {
        match self {
            Source::Own(f) => f.expected_fpr(),
            Source::Foreign(f) => f.expected_fpr(),
        }
    }
}

/// A filter `convert` writes.
enum Target {
    /// Boxed, as in [`Source`].
    Own(Box<AnyFilter>),
    Guava(GuavaBloom),
    RedisBloom(RedisBloom),
}

impl Target {
    fn save(&self, path: &Path) -> Result<()> {
        match self {
            Target::Own(f) => file::save(f, path, Role::Output),
            Target::Guava(g) => g
                .save(path)
                .with_context(|| format!("cannot save {}", path.display())),
            Target::RedisBloom(r) => r
                .save(path)
                .with_context(|| format!("cannot save {}", path.display())),
        }
    }

    fn expected_fpr(&self) -> f64 {
        match self {
            Target::Own(f) => f.expected_fpr(),
            Target::Guava(g) => g.expected_fpr(),
            Target::RedisBloom(r) => r.expected_fpr(),
        }
    }
}

/// Why a conversion cannot carry the bits over.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inexact {
    /// Two formats that place a key by different hashes or index sequences.
    Positions,
    /// Two Guava strategies: the same hash, read as two 32-bit halves or as 64-bit steps.
    Strategy,
    /// A filterlab variant that is not a Bloom filter of `k` bits spread over one array.
    Layout,
}

impl Inexact {
    /// The reason, for the refusal's message.
    pub fn reason(self) -> &'static str {
        match self {
            Inexact::Positions => {
                "the two formats place a key's bits by different hashes and index sequences \
                 (filterlab: its recorded hash and seed, then its own probe sequence; Guava: \
                 murmur3_128 with seed 0, then its strategy; RedisBloom: MurmurHash64A, then \
                 its chain of links), and a bit cannot be moved without the key that set it"
            }
            Inexact::Strategy => {
                "Guava's two strategies read the same hash differently (MITZ_32: two 32-bit \
                 halves, at most 2^31 positions; MITZ_64: 64-bit steps), so a key's bits sit \
                 elsewhere"
            }
            Inexact::Layout => {
                "a Guava BloomFilter or a RedisBloom chain is made of classic Bloom filters (k \
                 bits anywhere in one array); this variant stores fingerprints or blocks, which \
                 no array of bits can stand for"
            }
        }
    }
}

/// `convert`.
///
/// # Errors
/// An unreadable input, a conversion that cannot be exact without `--keys` (with the reason),
/// a key the input reports absent, a bad output path, a failed save.
pub fn convert(c: &Convert, out: Out) -> Result<Converted> {
    if c.to == Format::Parquet {
        bail!(
            "convert --to parquet: a Parquet bloom filter belongs to a column of values; \
             write one with build --to parquet --keys FILE"
        );
    }
    file::check_output(&c.output, Role::Output)?;
    let source = Source::read(&c.input)?;
    let from = source.describe();
    let (target, method, keys) = match (inexact(&source, c), &c.keys) {
        (None, _) => (carried(source)?, Method::Exact, None),
        (Some(why), None) => bail!(
            "cannot convert {} ({from}) to {} exactly: {}. Give --keys FILE with the keys it \
             holds to rebuild it instead (each key is checked against {} first)",
            c.input.display(),
            c.to.describe(),
            why.reason(),
            c.input.display()
        ),
        (Some(_), Some(path)) => {
            let (target, n) = rebuild(&source, c, path)?;
            (target, Method::Rebuilt, Some(n))
        }
    };
    check_directory(&c.output)?;
    let locked = file::exclusive(&c.output, waiting(out, &c.output))?;
    if let Some(l) = &locked {
        file::remove_killed_saves(l);
    }
    target.save(&c.output)?;
    drop(locked);
    Ok(Converted {
        input: c.input.display().to_string(),
        from,
        to: c.to,
        output: c.output.display().to_string(),
        method,
        keys,
        expected_fpr: target.expected_fpr(),
        file_bytes: std::fs::metadata(&c.output).map_or(0, |m| m.len()),
    })
}

/// Why the input's bits cannot be carried over to the target format; `None` when they can.
fn inexact(source: &Source, c: &Convert) -> Option<Inexact> {
    let wanted = c.guava_strategy.map(GuavaStrategyArg::strategy);
    match (source, c.to) {
        (Source::Own(_), Format::Filterlab) => None,
        (Source::Foreign(Foreign::Guava(g)), Format::Guava) => wanted
            .filter(|&s| s != g.strategy())
            .map(|_| Inexact::Strategy),
        (Source::Foreign(Foreign::RedisBloom(_)), Format::Redisbloom) => None,
        (Source::Own(f), Format::Guava | Format::Redisbloom)
            if !matches!(f.variant(), Variant::Classic | Variant::Scalable) =>
        {
            Some(Inexact::Layout)
        }
        _ => Some(Inexact::Positions),
    }
}

/// The input as the target, once [`inexact`] found nothing in the way.
fn carried(source: Source) -> Result<Target> {
    match source {
        Source::Own(f) => Ok(Target::Own(f)),
        Source::Foreign(Foreign::Guava(g)) => Ok(Target::Guava(g)),
        Source::Foreign(Foreign::RedisBloom(r)) => Ok(Target::RedisBloom(r)),
        #[allow(unreachable_patterns)]
        Source::Foreign(other) => bail!("{} cannot be carried over", other.describe()),
    }
}

/// The target built from the keys of `path`, each first asked of the input; with the count of
/// distinct keys.
fn rebuild(source: &Source, c: &Convert, path: &Path) -> Result<(Target, u64)> {
    let fpr = match c.fpr {
        Some(p) => p,
        None => {
            let p = source.expected_fpr();
            if !(p > 0.0 && p < 1.0) {
                bail!(
                    "{} expects a rate of {p}, which no filter can be built for: give --fpr",
                    c.input.display()
                );
            }
            p
        }
    };
    // RedisBloom hashes by its own pair (MurmurHash64A), the same for every chain it reserves.
    let redis = RedisBloom::reserve(fpr, 1, Scaling::Expand(2))?;
    let hasher = match c.to {
        Format::Guava => guava_hasher(),
        Format::Filterlab => KeyHasher::new(HashKind::Xxh3_128, 0)?,
        Format::Redisbloom => KeyHasher::new(HashKind::Xxh3_128, 0)?,
        Format::Parquet => bail!("convert --to parquet: use build --to parquet"),
    };
    let hash = |key: &[u8]| match c.to {
        Format::Redisbloom => redis.hash(key),
        _ => hasher.hash(key),
    };
    let hashes = held_keys(source, path, &hash, &c.input)?;
    let n = hashes.len() as u64;
    let target = match c.to {
        Format::Guava => {
            let strategy = c
                .guava_strategy
                .map_or(Strategy::Murmur128Mitz64, GuavaStrategyArg::strategy);
            Target::Guava(guava_from(&hashes, n, fpr, strategy)?)
        }
        Format::Parquet => bail!("convert --to parquet: use build --to parquet"),
        Format::Redisbloom => {
            let mut r = RedisBloom::reserve(fpr, n.max(1), Scaling::Expand(2))?;
            hashes.iter().try_for_each(|&h| r.insert_hash(h))?;
            Target::RedisBloom(r)
        }
        Format::Filterlab => {
            let variant = c.variant.unwrap_or(Variant::Classic);
            let params = Params::new(n.max(1), fpr).hasher(hasher);
            Target::Own(Box::new(if variant.capabilities().static_set {
                AnyFilter::build_from_hashes(variant, &params, &hashes)?
            } else {
                let mut f = AnyFilter::build(variant, &params)?;
                hashes.iter().try_for_each(|&h| f.insert_hash(h))?;
                f
            }))
        }
    };
    Ok((target, n))
}

/// The distinct keys of `path` hashed by `hasher`, after checking that the input holds each.
fn held_keys(
    source: &Source,
    path: &Path,
    hash: &dyn Fn(&[u8]) -> Hash128,
    input: &Path,
) -> Result<Vec<Hash128>> {
    let (reader, _) = keys::open(path)?;
    let name = path.display().to_string();
    let (mut absent, mut first_absent) = (0u64, None);
    let mut hashes = Vec::new();
    let reader = BufReader::with_capacity(1 << 16, reader);
    let lines = keys::for_each_key(reader, keys::MAX_KEY_BYTES, &name, |line, key| {
        if !source.contains(key) {
            absent += 1;
            first_absent.get_or_insert_with(|| format!("line {line}: {}", escape(key)));
            return Ok(());
        }
        hashes
            .try_reserve(1)
            .map_err(|_| anyhow::anyhow!("line {line}: no memory to hold the key hashes"))?;
        hashes.push(hash(key));
        Ok(())
    })?;
    if let Some(first) = first_absent {
        bail!(
            "{absent} of {} keys are absent from {} (first, {first}): they are not the keys it \
             holds, or were hashed another way (a Guava filter filled through another funnel); \
             nothing written",
            lines.lines - lines.empty,
            input.display()
        );
    }
    if lines.lines == lines.empty {
        bail!(
            "{name} yielded no keys ({} lines, {} of them empty); nothing written: a rebuild \
             from no keys would answer \"absent\" for every key {} holds",
            lines.lines,
            lines.empty,
            input.display()
        );
    }
    hashes.sort_unstable_by_key(|h| h.to_u128());
    hashes.dedup();
    Ok(hashes)
}

/// Guava's hash: `Hashing.murmur3_128()`, MurmurHash3 x64_128 with seed 0.
pub(crate) fn guava_hasher() -> KeyHasher {
    KeyHasher::new(HashKind::Murmur3X64_128, 0).expect("seed 0 fits MurmurHash3's 32 bits")
}

/// A Guava filter sized as `BloomFilter.create(funnel, n, fpr)` sizes it, holding `hashes`.
fn guava_from(hashes: &[Hash128], n: u64, fpr: f64, strategy: Strategy) -> Result<GuavaBloom> {
    let mut g = GuavaBloom::new(n, fpr, strategy)?;
    hashes.iter().try_for_each(|&h| g.insert_hash(h))?;
    Ok(g)
}

mod build;

pub use build::build_foreign;

#[cfg(test)]
mod tests;
