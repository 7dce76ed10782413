//! RedisBloom's cuckoo filter (`CF.*`), read from `CF.SCANDUMP` and written back for
//! `CF.LOADCHUNK`: [`RedisCuckoo::contains`] answers as `CF.EXISTS` does.
//!
//! Read from RedisBloom's `src/cf.h`, `src/cf.c` and `src/cuckoo.c` (2.8):
//!
//! - **Header chunk** (iterator 1): a packed `CFHeader` of [`CF_HEADER_LEN`] bytes, little-endian:
//!   items, buckets, deletes, sub-filters (`u64` each), bucket size, max iterations, expansion
//!   (`u16` each).
//! - **Data**: sub-filter `i` holds `buckets · expansion^i` buckets of `bucket size` one-byte
//!   fingerprints (0 is an empty slot), in order; the data chunks are those bytes, sub-filter
//!   after sub-filter, each at most 16 MiB and within one sub-filter, a chunk's iterator 1 plus
//!   the data bytes up to and including it. (`CF.SCANDUMP` of a filter with no items returns
//!   `(0, nil)` at once: no header, nothing to read.)
//! - **Lookup**: `h = MurmurHash64A(key, 0)`, fingerprint `fp = h mod 255 + 1`, alternative
//!   hash `h2 = h ^ (fp · 0x5bd1e995)`; in each sub-filter of `n` buckets the key's buckets start
//!   at byte `(h mod n) · size` and `(h2 mod n) · size`, **cut to 32 bits** (`SubCF_GetIndex`
//!   returns `uint32_t`); `CF.EXISTS` is yes when either bucket of any sub-filter holds `fp`.
//!
//! Building one here (`CF.ADD`'s cuckoo kicks, `CF.DEL`) is not implemented: a filter read from
//! a dump is answered and written back, not changed.

use super::codec::{check_data_len, u16_at, u64_at};
use super::hash::murmur64a;
use super::MAX_CHUNK;
use filter_core::FormatError;

/// Bytes of the header chunk (a packed `CFHeader`).
pub const CF_HEADER_LEN: usize = 38;
/// RedisBloom's most buckets (56 bits).
pub const CF_MAX_BUCKETS: u64 = (1 << 56) - 1;

/// RedisBloom's cuckoo filter (a `CF` key), as `CF.SCANDUMP` gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisCuckoo {
    items: u64,
    buckets: u64,
    deletes: u64,
    bucket_size: u16,
    max_iterations: u16,
    expansion: u16,
    /// Each sub-filter's buckets and its fingerprints.
    subs: Vec<(u64, Vec<u8>)>,
}

fn invalid(why: String) -> FormatError {
    FormatError::Invalid(format!("RedisBloom CF header: {why}"))
}

/// The sub-filters' bucket counts a header declares, checked: `buckets · expansion^i`.
fn sub_buckets(buckets: u64, expansion: u16, filters: u64) -> Result<Vec<u64>, FormatError> {
    let mut out = Vec::new();
    out.try_reserve_exact(filters as usize)
        .map_err(|_| FormatError::OutOfMemory { bytes: filters * 8 })?;
    let mut n = buckets;
    for i in 0..filters {
        if i > 0 {
            n = n
                .checked_mul(u64::from(expansion))
                .filter(|&n| n > 0)
                .ok_or_else(|| {
                    invalid(format!(
                        "sub-filter {i} of {buckets} · {expansion}^{i} buckets: 0 or beyond 2^64"
                    ))
                })?;
        }
        out.push(n);
    }
    Ok(out)
}

impl RedisCuckoo {
    /// Reads the chunks of a `CF.SCANDUMP`, in the order it gave them: the header at iterator
    /// 1, then data chunks, each starting where the last one ended and within one sub-filter
    /// (a closing `(0, "")` may be included). Nothing is allocated before the data present is
    /// found to be what the header declares.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] for a short header or less data than declared;
    /// [`FormatError::TrailingBytes`] for more; [`FormatError::Invalid`] for a header RedisBloom
    /// refuses (bucket size 0, buckets 0, not a power of two or beyond 2^56, no sub-filters or
    /// more than 65,535, max iterations 0), sub-filter sizes beyond 2^64, or a chunk whose
    /// iterator puts it elsewhere than next or across two sub-filters;
    /// [`FormatError::OutOfMemory`].
    pub fn from_chunks<B: AsRef<[u8]>>(chunks: &[(i64, B)]) -> Result<Self, FormatError> {
        let Some(((first, head), mut data)) = chunks.split_first() else {
            return Err(FormatError::Truncated {
                needed: CF_HEADER_LEN as u64,
                available: 0,
            });
        };
        if *first != 1 {
            return Err(invalid(format!(
                "the first chunk's iterator is {first}; CF.SCANDUMP gives the header at 1"
            )));
        }
        let mut f = Self::parse_header(head.as_ref())?;
        if let Some(((0, end), rest)) = data.split_last() {
            if end.as_ref().is_empty() {
                data = rest;
            }
        }
        let declared = f.subs.iter().try_fold(0u64, |s, (n, _)| {
            n.checked_mul(u64::from(f.bucket_size))
                .and_then(|b| s.checked_add(b))
        });
        let declared =
            declared.ok_or_else(|| invalid("sub-filters of more than 2^64 bytes".into()))?;
        let present = data
            .iter()
            .fold(0u64, |s, (_, c)| s.saturating_add(c.as_ref().len() as u64));
        check_data_len(declared, present)?;
        f.fill(data)?;
        Ok(f)
    }

    fn parse_header(h: &[u8]) -> Result<Self, FormatError> {
        match h.len().cmp(&CF_HEADER_LEN) {
            std::cmp::Ordering::Less => {
                return Err(FormatError::Truncated {
                    needed: CF_HEADER_LEN as u64,
                    available: h.len() as u64,
                })
            }
            std::cmp::Ordering::Greater => {
                return Err(FormatError::TrailingBytes((h.len() - CF_HEADER_LEN) as u64))
            }
            std::cmp::Ordering::Equal => {}
        }
        let (items, buckets, deletes, filters) =
            (u64_at(h, 0), u64_at(h, 8), u64_at(h, 16), u64_at(h, 24));
        let (bucket_size, max_iterations, expansion) =
            (u16_at(h, 32), u16_at(h, 34), u16_at(h, 36));
        let why = if bucket_size == 0 || bucket_size > 255 {
            format!("a bucket size of {bucket_size} (RedisBloom's are 1 to 255)")
        } else if buckets == 0 || buckets > CF_MAX_BUCKETS || !buckets.is_power_of_two() {
            format!("{buckets} buckets (a power of two, 1 to 2^56 - 1)")
        } else if filters == 0 || filters > u64::from(u16::MAX) {
            format!("{filters} sub-filters (1 to 65,535)")
        } else if max_iterations == 0 {
            "max iterations 0 (at least 1)".to_owned()
        } else {
            let subs = sub_buckets(buckets, expansion, filters)?
                .into_iter()
                .map(|n| (n, Vec::new()))
                .collect();
            return Ok(RedisCuckoo {
                items,
                buckets,
                deletes,
                bucket_size,
                max_iterations,
                expansion,
                subs,
            });
        };
        Err(invalid(why))
    }

    /// Copies the data chunks into the sub-filters (their total already checked).
    fn fill<B: AsRef<[u8]>>(&mut self, data: &[(i64, B)]) -> Result<(), FormatError> {
        let bs = u64::from(self.bucket_size);
        for (n, v) in &mut self.subs {
            v.try_reserve_exact((*n * bs) as usize)
                .map_err(|_| FormatError::OutOfMemory { bytes: *n * bs })?;
        }
        let (mut sub, mut pos) = (0, 0u64);
        for (i, (iter, chunk)) in data.iter().enumerate() {
            let len = chunk.as_ref().len() as u64;
            while len > 0 && self.subs[sub].1.len() as u64 == self.subs[sub].0 * bs {
                sub += 1;
            }
            let room = self.subs[sub].0 * bs - self.subs[sub].1.len() as u64;
            if len == 0 || *iter < 0 || *iter as u64 != 1 + pos + len || len > room {
                return Err(FormatError::Invalid(format!(
                    "RedisBloom CF chunk {}: {len} bytes at iterator {iter}; the next chunk \
                     starts at data byte {pos}, so its iterator is {} and it holds 1 to {room} \
                     bytes (the rest of sub-filter {sub})",
                    i + 1,
                    1 + pos + len.max(1)
                )));
            }
            self.subs[sub].1.extend_from_slice(chunk.as_ref());
            pos += len;
        }
        Ok(())
    }

    /// The header chunk's bytes.
    pub fn header_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(CF_HEADER_LEN);
        for v in [
            self.items,
            self.buckets,
            self.deletes,
            self.subs.len() as u64,
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        for v in [self.bucket_size, self.max_iterations, self.expansion] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// The `(iterator, bytes)` pairs `CF.SCANDUMP` returns for this filter, its closing
    /// `(0, nil)` left out: each can be given to `CF.LOADCHUNK key iterator bytes`.
    pub fn to_chunks(&self) -> Vec<(i64, Vec<u8>)> {
        let mut out = vec![(1, self.header_bytes())];
        let mut pos = 0i64;
        for (_, data) in &self.subs {
            for piece in data.chunks(MAX_CHUNK) {
                pos += piece.len() as i64;
                out.push((1 + pos, piece.to_vec()));
            }
        }
        out
    }

    /// `CF.EXISTS`: whether either of the key's buckets in any sub-filter holds its fingerprint.
    pub fn contains(&self, key: &[u8]) -> bool {
        let h = murmur64a(key, 0);
        let fp = (h % 255 + 1) as u8;
        let h2 = h ^ u64::from(fp).wrapping_mul(0x5bd1_e995);
        let bs = usize::from(self.bucket_size);
        let holds = |data: &[u8], at: u64| {
            let at = at as u32 as usize; // SubCF_GetIndex's uint32_t
            data.get(at..at + bs).is_some_and(|b| b.contains(&fp))
        };
        self.subs
            .iter()
            .any(|(n, data)| holds(data, (h % n) * bs as u64) || holds(data, (h2 % n) * bs as u64))
    }

    /// Items, as the header counts them (`CF.INFO`'s "Number of items inserted").
    pub fn items(&self) -> u64 {
        self.items
    }

    /// Deletes, as the header counts them.
    pub fn deletes(&self) -> u64 {
        self.deletes
    }

    /// Buckets of the first sub-filter.
    pub fn buckets(&self) -> u64 {
        self.buckets
    }

    /// Fingerprints per bucket.
    pub fn bucket_size(&self) -> u16 {
        self.bucket_size
    }

    /// Kicks before an insert gives up (or grows the filter).
    pub fn max_iterations(&self) -> u16 {
        self.max_iterations
    }

    /// Each new sub-filter's buckets over the previous one's.
    pub fn expansion(&self) -> u16 {
        self.expansion
    }

    /// Each sub-filter's bucket count, oldest first.
    pub fn sub_filter_buckets(&self) -> Vec<u64> {
        self.subs.iter().map(|(n, _)| *n).collect()
    }

    /// Non-empty slots (fingerprints stored), over all sub-filters.
    pub fn occupied(&self) -> u64 {
        self.subs
            .iter()
            .map(|(_, d)| d.iter().filter(|&&b| b != 0).count() as u64)
            .sum()
    }
}
