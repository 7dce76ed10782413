//! `build --to guava` and `build --to redisbloom`: the keys into another library's Bloom
//! filter, sized as that library sizes it for `--n` (or the key lines counted) and `--fpr`, and
//! saved in the bytes it reads.

use super::guava_hasher;
use crate::args::{Build, Format, GuavaStrategyArg, HashArg};
use crate::build::{check_directory, check_space, progress, waiting, Built};
use crate::file;
use crate::keys;
use crate::output::Out;
use anyhow::{bail, Context, Result};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::interop::redisbloom::{RedisBloom, Scaling};
use filterlab::{Filter, Hash128, HashKind, Variant};
use std::io::BufReader;

/// The filter being built.
enum Bloom {
    Guava(GuavaBloom),
    Redis(RedisBloom),
}

impl Bloom {
    /// Sized for `n` keys at `fpr`, as `BloomFilter.create` or `BF.RESERVE … EXPANSION 2`.
    fn new(b: &Build, n: u64) -> Result<Self> {
        Ok(match b.to {
            Some(Format::Guava) => {
                let strategy = b
                    .guava_strategy
                    .map_or(Strategy::Murmur128Mitz64, GuavaStrategyArg::strategy);
                Bloom::Guava(
                    GuavaBloom::new(n, b.fpr, strategy).with_context(|| {
                        format!("a Guava BloomFilter for {n} items at {}", b.fpr)
                    })?,
                )
            }
            _ => Bloom::Redis(
                RedisBloom::reserve(b.fpr, n.max(1), Scaling::Expand(2))
                    .with_context(|| format!("BF.RESERVE {} {n}", b.fpr))?,
            ),
        })
    }

    fn hash(&self, key: &[u8]) -> Hash128 {
        match self {
            Bloom::Guava(_) => guava_hasher().hash(key),
            Bloom::Redis(r) => r.hash(key),
        }
    }

    fn filter(&mut self) -> &mut dyn Filter {
        match self {
            Bloom::Guava(g) => g,
            Bloom::Redis(r) => r,
        }
    }

    /// Bytes of the file before any key (a chain that grows writes more).
    fn bytes(&self) -> u64 {
        match self {
            Bloom::Guava(g) => g.header().file_len(),
            Bloom::Redis(r) => r.to_bytes().len() as u64,
        }
    }

    fn save(&self, path: &std::path::Path) -> std::io::Result<()> {
        match self {
            Bloom::Guava(g) => g.save(path),
            Bloom::Redis(r) => r.save(path),
        }
    }

    /// Its capacity: `--n` for Guava; the chain's, which grows past `--n`, for RedisBloom.
    fn capacity(&self, n: u64) -> u64 {
        match self {
            Bloom::Guava(_) => n,
            Bloom::Redis(r) => r.capacity(),
        }
    }

    fn hash_name(&self) -> &'static str {
        match self {
            Bloom::Guava(_) => HashKind::Murmur3X64_128.name(),
            Bloom::Redis(_) => "murmur64a (RedisBloom's)",
        }
    }
}

/// Every key's hash in the order of the lines, repeats included, with the counts (repeats
/// counted exactly).
fn in_order(
    reader: impl std::io::BufRead,
    source: &str,
    hash: impl Fn(&[u8]) -> Hash128,
) -> Result<(Vec<Hash128>, keys::Counts)> {
    let mut hashes = Vec::new();
    let lines = keys::for_each_key(reader, keys::MAX_KEY_BYTES, source, |line, key| {
        hashes
            .try_reserve(1)
            .map_err(|_| anyhow::anyhow!("line {line}: no memory to hold the key hashes"))?;
        hashes.push(hash(key));
        Ok(())
    })?;
    let mut distinct: Vec<u128> = hashes.iter().map(|h| h.to_u128()).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let counts = keys::Counts {
        lines,
        duplicates: (hashes.len() - distinct.len()) as u64,
        maybe_duplicates: 0,
    };
    Ok((hashes, counts))
}

/// Refuses the flags the other library's filter has no place for.
fn check_flags(b: &Build, name: &str) -> Result<()> {
    if let Some(v) = b.variant.filter(|&v| v != Variant::Classic) {
        bail!("--to {name} writes a classic Bloom filter, not {v}: drop --variant or give classic");
    }
    let h = &b.hashing;
    if h.seed.is_some() || h.secret_seed || h.hash != HashArg::Xxh3 {
        bail!("--to {name} hashes as its library does: drop --hash, --seed and --secret-seed");
    }
    if b.at.is_some() || b.window_ticks.is_some() || b.cuckoo_layout.is_some() {
        bail!("--at, --window-ticks and --cuckoo-layout have no place in a {name} filter");
    }
    if b.guava_strategy.is_some() && b.to != Some(Format::Guava) {
        bail!("--guava-strategy is for --to guava");
    }
    Ok(())
}

/// The warning for a Guava filter given more distinct keys than `--n` (an error under
/// `--strict`).
fn guava_over_n(inserted: u64, n: u64, expected_fpr: f64, out: Out) -> Result<Option<String>> {
    if inserted <= n {
        return Ok(None);
    }
    let message = format!(
        "{inserted} distinct keys exceed --n {n}; the rate is above the target (expected {})",
        crate::units::pct(expected_fpr)
    );
    if out.strict {
        bail!("{message}; not saved (--strict)");
    }
    out.warn(&message);
    Ok(Some(message))
}

/// Saves `bloom` to `output` holding the writers' lock, after removing what killed writers of
/// it left.
fn save_locked(bloom: &Bloom, output: &std::path::Path, out: Out) -> Result<()> {
    let locked = file::exclusive(output, waiting(out, output))?;
    if let Some(l) = &locked {
        file::remove_killed_saves(l);
    }
    bloom
        .save(output)
        .with_context(|| format!("cannot save {}", output.display()))?;
    drop(locked);
    Ok(())
}

/// `build --to guava|redisbloom`.
///
/// # Errors
/// Flags the library has no place for (another variant, hash or seed), a filter that cannot be
/// allocated, unreadable keys, a failed save; under `--strict`, a Guava filter given more keys
/// than `--n`.
pub fn build_foreign(b: &Build, out: Out) -> Result<Built> {
    let format = b.to.unwrap_or_default();
    let name = match format {
        Format::Guava => "guava",
        Format::Redisbloom => "redisbloom",
        other => bail!("build --to {other:?} is not a foreign Bloom filter"),
    };
    check_flags(b, name)?;
    // Sized first when --n is given, so that a filter that cannot be made or saved is refused
    // before any key is read; else sized for the key lines, read once (a pipe cannot be read
    // twice), as every key's hash is held anyway.
    let sized = b.n.map(|n| Bloom::new(b, n)).transpose()?;
    check_directory(&b.output)?;
    if let Some(bloom) = &sized {
        check_space(&b.output, bloom.bytes())?;
    }
    // Either library hashes a key the same whatever the filter's size.
    let hashing = Bloom::new(b, 1)?;
    let (reader, total) = keys::open(&b.keys)?;
    let bar = progress(total);
    let reader = BufReader::with_capacity(1 << 16, bar.wrap_read(reader));
    let source = keys::source_name(&b.keys);
    let (mut hashes, counts) = in_order(reader, &source, |k| hashing.hash(k))?;
    bar.finish_and_clear();
    let empty = keys::no_keys(&counts.lines, &source, b.n.is_none(), out)?;
    let (mut bloom, n, counted) = match (sized, b.n) {
        (Some(bloom), Some(n)) => (bloom, n, false),
        _ => {
            let n = hashes.len() as u64;
            let bloom = Bloom::new(b, n)?;
            check_space(&b.output, bloom.bytes())?;
            (bloom, n, true)
        }
    };
    if format == Format::Guava {
        // Each key once: Guava keeps no count, so its rate counts every put.
        hashes.sort_unstable_by_key(|h| h.to_u128());
        hashes.dedup();
    }
    let filter = bloom.filter();
    // RedisBloom: in the key file's order, repeats included, as `BF.ADD` of each line would:
    // which link of the chain a key lands in, and whether it counts as new, follow that order.
    hashes.iter().try_for_each(|&h| filter.insert_hash(h))?;
    let (inserted, expected_fpr) = (filter.len(), filter.expected_fpr());
    let mut warnings: Vec<String> = empty.into_iter().collect();
    // A RedisBloom chain grows past --n by design (a new link at the halved rate).
    if format == Format::Guava {
        warnings.extend(guava_over_n(inserted, n, expected_fpr, out)?);
    }
    save_locked(&bloom, &b.output, out)?;
    Ok(Built {
        variant: Variant::Classic,
        format,
        lines: counts.lines.lines,
        inserted,
        duplicates: counts.duplicates,
        maybe_duplicates: 0,
        empty: counts.lines.empty,
        capacity: bloom.capacity(n),
        capacity_counted: counted,
        expected_fpr,
        hash: bloom.hash_name(),
        seed: 0,
        output: b.output.display().to_string(),
        file_bytes: std::fs::metadata(&b.output).map_or(0, |m| m.len()),
        warnings,
    })
}
