//! Filters in other ecosystems' formats, recognised by their bytes (issue 40): Guava's
//! `BloomFilter` as its `writeTo` wrote it, and RedisBloom's scalable Bloom filter in the
//! one-file form of its `BF.SCANDUMP` chunks (`filterlab::interop::redisbloom::FILE_MAGIC`).
//! `info` describes one, a Guava filter with the count its set bits imply and the rate at that
//! count, a RedisBloom chain link by link with the count it records and the rate at that count;
//! `query` answers keys as Guava's `mightContain` or RedisBloom's `BF.EXISTS` does (Guava's keys
//! hashed as `Funnels.byteArrayFunnel()` and `Funnels.stringFunnel(UTF_8)` hash them).

use anyhow::{Context, Result};
use filterlab::interop::guava::{GuavaBloom, Header, HEADER_LEN};
use filterlab::interop::redisbloom::{RedisBloom, FILE_MAGIC};
use filterlab::Filter;
use serde::Serialize;
use std::io::Read;
use std::path::Path;

/// A filter in a foreign format.
#[derive(Debug)]
pub enum Foreign {
    /// Guava's `BloomFilter` (`writeTo` / `readFrom`).
    Guava(GuavaBloom),
    /// RedisBloom's scalable Bloom filter (`BF.SCANDUMP`'s chunks in one file).
    RedisBloom(RedisBloom),
}

impl Foreign {
    /// Whether the key may be in the set, as its home library answers.
    pub fn contains(&self, key: &[u8]) -> bool {
        match self {
            Foreign::Guava(g) => g.contains(key),
            Foreign::RedisBloom(r) => r.contains(key),
        }
    }

    /// What it is, in messages: "a Guava BloomFilter (MURMUR128_MITZ_64)".
    pub fn describe(&self) -> String {
        match self {
            Foreign::Guava(g) => format!("a Guava BloomFilter ({})", g.strategy().name()),
            Foreign::RedisBloom(_) => "a RedisBloom scalable Bloom filter".to_string(),
        }
    }

    /// Its expected false-positive rate at its recorded or estimated count.
    pub fn expected_fpr(&self) -> f64 {
        match self {
            Foreign::Guava(g) => g.estimated_fpr(),
            Foreign::RedisBloom(r) => r.expected_fpr(),
        }
    }
}

/// The foreign filter at `path` when its bytes are one: a file that opens with RedisBloom's
/// one-file magic (`RBLOOMSB`), or a valid Guava header whose declared size is exactly the
/// file's (a filterlab file opens with its magic `FLTRLAB`, never with a Guava strategy ordinal
/// 0 or 1). `None` for anything else, which the filterlab loader then reads, naming what is
/// wrong.
///
/// # Errors
/// Something other than a regular file at `path`, an I/O error, a file with RedisBloom's magic
/// whose header is invalid or whose size is not the one it declares (the message says which),
/// a file that has a Guava header but not the size it declares (cut, or with bytes after it),
/// or one that has both but cannot be loaded (out of memory).
pub fn sniff(path: &Path) -> Result<Option<Foreign>> {
    if let Some(r) = sniff_redisbloom(path)? {
        return Ok(Some(Foreign::RedisBloom(r)));
    }
    let Some(mut file) = crate::file::open_regular(path)? else {
        return Ok(None);
    };
    let len = file
        .metadata()
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    let mut head = [0u8; HEADER_LEN];
    if file.read_exact(&mut head).is_err() {
        return Ok(None);
    }
    match Header::parse(&head) {
        Ok(h) if h.file_len() == len => {}
        // A filterlab file opens with its magic, never with a strategy ordinal, a k and a
        // count of longs Guava would write: this is a Guava file that lost or gained bytes.
        Ok(h) => {
            anyhow::bail!(
            "{} has a Guava BloomFilter's header ({}, k = {}, {} longs: {} bytes) but is {len} \
             bytes long: {}; copy it again from where Guava wrote it",
            path.display(),
            h.strategy.name(),
            h.hashes,
            h.words,
            h.file_len(),
            if len < h.file_len() { "cut short" } else { "with bytes after the filter" }
        )
        }
        Err(_) => return Ok(None),
    }
    let guava = GuavaBloom::load(path).with_context(|| {
        format!(
            "{} has a Guava BloomFilter's header but cannot be read",
            path.display()
        )
    })?;
    Ok(Some(Foreign::Guava(guava)))
}

/// The RedisBloom chain at `path` when the file opens with its magic.
fn sniff_redisbloom(path: &Path) -> Result<Option<RedisBloom>> {
    let Some(mut file) = crate::file::open_regular(path)? else {
        return Ok(None);
    };
    let mut magic = [0u8; FILE_MAGIC.len()];
    if file.read_exact(&mut magic).is_err() || magic != FILE_MAGIC {
        return Ok(None);
    }
    RedisBloom::load(path).map(Some).with_context(|| {
        format!(
            "{} opens as a RedisBloom BF file (RBLOOMSB) but cannot be read",
            path.display()
        )
    })
}

/// What `info` shows of a foreign filter.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ForeignInfo {
    /// A Guava filter.
    Guava(GuavaInfo),
    /// A RedisBloom chain.
    RedisBloom(RedisBloomInfo),
}

/// What `info` shows of a RedisBloom chain.
#[derive(Debug, Serialize)]
pub struct RedisBloomInfo {
    /// `"redisbloom"`.
    pub format: &'static str,
    /// Keys the chain records (those that were new when added).
    pub items: u64,
    /// Keys the links were sized for (`BF.INFO`'s capacity).
    pub capacity: u64,
    /// The false-positive rate at the recorded counts: `1 - Π (1 - p_i)` over the links.
    pub expected_fpr: f64,
    /// Each new link's capacity over the last one's; `null` for a NONSCALING chain.
    pub expansion: Option<u32>,
    /// The options RedisBloom records (`NOROUND` 1, `ENTS_IS_BITS` 2, `FORCE64` 4,
    /// `NO_SCALING` 8).
    pub options: u32,
    /// The hash: MurmurHash64A with `FORCE64`, else 32-bit MurmurHash2.
    pub hash: &'static str,
    /// Bytes of the bit arrays.
    pub bytes: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// The links, oldest first.
    pub links: Vec<RedisBloomLink>,
}

/// One link of a RedisBloom chain, for `info`.
#[derive(Debug, Serialize)]
pub struct RedisBloomLink {
    /// Bits.
    pub bits: u64,
    /// Bits a probe reaches (all, or `2^n2`).
    pub reachable_bits: u64,
    /// Hash functions, `k`.
    pub hashes: u32,
    /// Keys it was sized for.
    pub capacity: u64,
    /// Keys it records.
    pub items: u64,
    /// Its target error rate.
    pub error_rate: f64,
    /// The false-positive rate at its recorded count.
    pub expected_fpr: f64,
}

fn redisbloom_info(r: &RedisBloom) -> RedisBloomInfo {
    use filterlab::interop::redisbloom::OPT_NO_SCALING;
    RedisBloomInfo {
        format: "redisbloom",
        items: r.len(),
        capacity: r.capacity(),
        expected_fpr: r.expected_fpr(),
        expansion: (r.options() & OPT_NO_SCALING == 0).then_some(r.growth()),
        options: r.options(),
        hash: if r.force64() {
            "murmur64a seed 0xc6a4a7935bd1e995 (FORCE64)"
        } else {
            "murmur2-32 seed 0x9747b28c"
        },
        bytes: r.size_in_bytes() as u64,
        file_bytes: r.header().file_len(),
        links: r
            .links()
            .iter()
            .map(|l| RedisBloomLink {
                bits: l.bits(),
                reachable_bits: l.modulus(),
                hashes: l.hashes(),
                capacity: l.entries(),
                items: l.size(),
                error_rate: l.error(),
                expected_fpr: l.expected_fpr(),
            })
            .collect(),
    }
}

/// What `info` shows of a Guava filter.
#[derive(Debug, Serialize)]
pub struct GuavaInfo {
    /// `"guava"`.
    pub format: &'static str,
    /// The strategy, by Guava's name.
    pub strategy: &'static str,
    /// Bits, `m`.
    pub bits: u64,
    /// Hash functions, `k`.
    pub hashes: u32,
    /// Bits set.
    pub bits_set: u64,
    /// Bytes of the file.
    pub file_bytes: u64,
    /// Items the set bits account for (Swamidass & Baldi 2007); a Guava file stores no count.
    pub estimated_items: f64,
    /// Its standard deviation over filters holding that many items.
    pub estimated_items_sd: f64,
    /// The false-positive rate at the estimated count (Guava's `expectedFpp()`).
    pub expected_fpr: f64,
    /// The count at which `k` is optimal, `m ln 2 / k`: about what the filter was sized for.
    pub capacity: u64,
    /// The hash function and seed (`Hashing.murmur3_128()`).
    pub hash: &'static str,
}

/// `info` of a foreign filter.
pub fn info(f: &Foreign) -> ForeignInfo {
    match f {
        Foreign::RedisBloom(r) => ForeignInfo::RedisBloom(redisbloom_info(r)),
        Foreign::Guava(g) => ForeignInfo::Guava(GuavaInfo {
            format: "guava",
            strategy: g.strategy().name(),
            bits: g.bits(),
            hashes: g.hashes(),
            bits_set: g.ones(),
            file_bytes: g.header().file_len(),
            estimated_items: g.estimated_count(),
            estimated_items_sd: g.estimated_count_sd(),
            expected_fpr: g.estimated_fpr(),
            capacity: g.capacity(),
            hash: "murmur3-x64-128 seed 0",
        }),
    }
}
