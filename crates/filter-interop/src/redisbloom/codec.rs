//! The bytes of `BF.SCANDUMP` / `BF.LOADCHUNK`, and the one-file form, read and written without
//! trusting them.
//!
//! RedisBloom's `SB_NewChainFromHeader` checks the header's length against its link count, each
//! link's shape (`bloom_validate_integrity`) and the counts (`SB_ValidateIntegrity`), then
//! allocates every link's bytes before any data arrives. Here the same checks are made, and one
//! more (the bits per entry must be what RedisBloom derives from the error rate, which bounds
//! `k`); the data present is counted against what the header declares before anything is
//! allocated, and memory is reserved fallibly.

use super::{bits_per_entry, hashes_for, Link, RedisBloom, OPT_ALL};
use filter_core::FormatError;
use std::io::{self, Read};
use std::path::Path;

/// Bytes of the header before its links: count (`u64`), links, options, growth (`u32` each).
pub const CHAIN_HEADER_LEN: usize = 20;
/// Bytes of each link in the header (a packed `dumpedChainLink`).
pub const LINK_HEADER_LEN: usize = 53;
/// The most data bytes in one chunk: `BF.SCANDUMP`'s `MAX_SCANDUMP_SIZE`, 16 MiB.
pub const MAX_CHUNK: usize = 16 << 20;
/// The first 8 bytes of the one-file form, which goes on with the header chunk, then the data
/// chunks' bytes in order (exactly what `BF.SCANDUMP` returns, concatenated without the
/// iterators): ASCII `RBLOOMSB`. Nothing else is in the file; its length is what the header
/// declares.
pub const FILE_MAGIC: [u8; 8] = *b"RBLOOMSB";

/// One link as the header describes it (`dumpedChainLink`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinkHeader {
    /// Bytes of its bit array.
    pub bytes: u64,
    /// Bits, `8 · bytes`.
    pub bits: u64,
    /// Keys added to it.
    pub size: u64,
    /// Its error rate, in (0, 1).
    pub error: f64,
    /// Bits per entry, `-ln(error) / ln(2)²`.
    pub bpe: f64,
    /// `k`, `ceil(0.693147180559945 · bpe)`.
    pub hashes: u32,
    /// Keys it was sized for.
    pub entries: u64,
    /// `log2` of the reachable bits, or 0 for all of them.
    pub n2: u8,
}

/// The header chunk (`dumpedChainHeader`), validated.
#[derive(Clone, Debug, PartialEq)]
pub struct Header {
    /// Keys in the chain (the sum of the links' counts).
    pub size: u64,
    /// Options (`OPT_*`).
    pub options: u32,
    /// Growth (`EXPANSION`).
    pub growth: u32,
    /// The links, oldest first (at least one).
    pub links: Vec<LinkHeader>,
}

fn invalid(why: String) -> FormatError {
    FormatError::Invalid(format!("RedisBloom BF header: {why}"))
}

pub(super) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

pub(super) fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(b[at..at + 2].try_into().expect("2 bytes"))
}

impl LinkHeader {
    fn parse(b: &[u8]) -> Self {
        LinkHeader {
            bytes: u64_at(b, 0),
            bits: u64_at(b, 8),
            size: u64_at(b, 16),
            error: f64::from_bits(u64_at(b, 24)),
            bpe: f64::from_bits(u64_at(b, 32)),
            hashes: u32_at(b, 40),
            entries: u64_at(b, 44),
            n2: b[52],
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        for v in [
            self.bytes,
            self.bits,
            self.size,
            self.error.to_bits(),
            self.bpe.to_bits(),
        ] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.hashes.to_le_bytes());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.push(self.n2);
    }

    /// RedisBloom's `bloom_validate_integrity`, and the bits per entry against the error rate.
    fn check(&self, i: usize) -> Result<(), FormatError> {
        let why = if !(self.error > 0.0 && self.error < 1.0) {
            format!(
                "an error rate of {} (RedisBloom's are in (0, 1))",
                self.error
            )
        } else if self.n2 > 63 {
            format!("n2 = {} (log2 of the bits, at most 63)", self.n2)
        } else if self.bits == 0 || self.bytes.checked_mul(8) != Some(self.bits) {
            format!(
                "{} bits in {} bytes (RedisBloom keeps bits = 8 · bytes, not 0)",
                self.bits, self.bytes
            )
        } else if self.n2 != 0 && self.bits < 1u64 << self.n2 {
            format!("{} bits, fewer than 2^n2 = 2^{}", self.bits, self.n2)
        } else if !(self.bpe - bits_per_entry(self.error))
            .abs()
            .le(&(1e-9 * self.bpe))
        {
            format!(
                "{} bits per entry for an error rate of {} (RedisBloom derives {})",
                self.bpe,
                self.error,
                bits_per_entry(self.error)
            )
        } else if f64::from(self.hashes) != hashes_for(self.bpe) {
            format!(
                "k = {} where {} bits per entry give {}",
                self.hashes,
                self.bpe,
                hashes_for(self.bpe)
            )
        } else {
            return Ok(());
        };
        Err(invalid(format!("link {i}: {why}")))
    }
}

impl Header {
    /// Bytes of the header of a chain of `links` links.
    pub fn len_for(links: u64) -> u64 {
        CHAIN_HEADER_LEN as u64 + LINK_HEADER_LEN as u64 * links
    }

    /// Reads and checks a header chunk: exactly one header, nothing after it.
    ///
    /// # Errors
    /// As [`Self::parse_prefix`], and [`FormatError::TrailingBytes`] after the links.
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        let (h, used) = Self::parse_prefix(bytes)?;
        match bytes.len() - used {
            0 => Ok(h),
            extra => Err(FormatError::TrailingBytes(extra as u64)),
        }
    }

    /// Reads and checks the header at the start of `bytes` (which may go on with the data);
    /// returns it and its length.
    ///
    /// # Errors
    /// [`FormatError::Truncated`] below the 20 fixed bytes or the links they announce (checked
    /// before the links are read); [`FormatError::Invalid`] for no links, options RedisBloom does
    /// not know, a link of an impossible shape, counts that do not add up, or data beyond 2^64
    /// bytes.
    pub fn parse_prefix(bytes: &[u8]) -> Result<(Self, usize), FormatError> {
        if bytes.len() < CHAIN_HEADER_LEN {
            return Err(FormatError::Truncated {
                needed: CHAIN_HEADER_LEN as u64,
                available: bytes.len() as u64,
            });
        }
        let (size, n) = (u64_at(bytes, 0), u32_at(bytes, 8));
        let (options, growth) = (u32_at(bytes, 12), u32_at(bytes, 16));
        if n == 0 {
            return Err(invalid(
                "a chain of 0 links (RedisBloom's have at least one)".into(),
            ));
        }
        if options & !OPT_ALL != 0 {
            return Err(invalid(format!(
                "options {options:#x}: RedisBloom knows NOROUND (1), ENTS_IS_BITS (2), FORCE64 \
                 (4) and NO_SCALING (8)"
            )));
        }
        let len = Self::len_for(u64::from(n));
        if (bytes.len() as u64) < len {
            return Err(FormatError::Truncated {
                needed: len,
                available: bytes.len() as u64,
            });
        }
        let links: Vec<LinkHeader> = bytes[CHAIN_HEADER_LEN..len as usize]
            .chunks_exact(LINK_HEADER_LEN)
            .map(LinkHeader::parse)
            .collect();
        let h = Header {
            size,
            options,
            growth,
            links,
        };
        h.check()?;
        Ok((h, len as usize))
    }

    fn check(&self) -> Result<(), FormatError> {
        for (i, l) in self.links.iter().enumerate() {
            l.check(i)?;
        }
        let sum = self
            .links
            .iter()
            .try_fold(0u64, |s, l| s.checked_add(l.size));
        if sum != Some(self.size) {
            return Err(invalid(format!(
                "the chain counts {} keys, its links {} (RedisBloom requires them equal)",
                self.size,
                sum.map_or("more than 2^64".into(), |s| s.to_string())
            )));
        }
        self.checked_data_len()
            .ok_or_else(|| invalid("links of more than 2^64 bytes in all".into()))?;
        Ok(())
    }

    fn checked_data_len(&self) -> Option<u64> {
        self.links
            .iter()
            .try_fold(0u64, |s, l| s.checked_add(l.bytes))
    }

    /// Bytes of the data chunks: the links' bit arrays.
    pub fn data_len(&self) -> u64 {
        self.checked_data_len().expect("checked when parsed")
    }

    /// Bytes of the header chunk.
    pub fn encoded_len(&self) -> u64 {
        Self::len_for(self.links.len() as u64)
    }

    /// Bytes of the one-file form: magic, header, data.
    pub fn file_len(&self) -> u64 {
        FILE_MAGIC.len() as u64 + self.encoded_len() + self.data_len()
    }

    /// The header chunk's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len() as usize);
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&(self.links.len() as u32).to_le_bytes());
        out.extend_from_slice(&self.options.to_le_bytes());
        out.extend_from_slice(&self.growth.to_le_bytes());
        self.links.iter().for_each(|l| l.write(&mut out));
        out
    }

    /// Empty links of the declared shapes, their memory reserved fallibly.
    fn empty_links(&self) -> Result<Vec<Link>, FormatError> {
        let oom = |bytes| FormatError::OutOfMemory { bytes };
        let mut links = Vec::new();
        links
            .try_reserve_exact(self.links.len())
            .map_err(|_| oom(self.encoded_len()))?;
        for l in &self.links {
            let len = usize::try_from(l.bytes).map_err(|_| oom(l.bytes))?;
            let mut bf = Vec::new();
            bf.try_reserve_exact(len).map_err(|_| oom(l.bytes))?;
            links.push(Link {
                bf,
                n2: l.n2,
                hashes: l.hashes,
                entries: l.entries,
                error: l.error,
                bpe: l.bpe,
                size: l.size,
            });
        }
        Ok(links)
    }

    fn into_chain(self, links: Vec<Link>) -> RedisBloom {
        RedisBloom {
            links,
            size: self.size,
            options: self.options,
            growth: self.growth,
        }
    }
}

/// Compares the data present with the data declared.
pub(super) fn check_data_len(declared: u64, present: u64) -> Result<(), FormatError> {
    match present.cmp(&declared) {
        std::cmp::Ordering::Less => Err(FormatError::Truncated {
            needed: declared,
            available: present,
        }),
        std::cmp::Ordering::Greater => Err(FormatError::TrailingBytes(present - declared)),
        std::cmp::Ordering::Equal => Ok(()),
    }
}

fn in_io(e: FormatError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

impl RedisBloom {
    /// The header chunk's fields.
    pub fn header(&self) -> Header {
        Header {
            size: self.size,
            options: self.options,
            growth: self.growth,
            links: self
                .links
                .iter()
                .map(|l| LinkHeader {
                    bytes: l.bf.len() as u64,
                    bits: l.bits(),
                    size: l.size,
                    error: l.error,
                    bpe: l.bpe,
                    hashes: l.hashes,
                    entries: l.entries,
                    n2: l.n2,
                })
                .collect(),
        }
    }

    /// The `(iterator, bytes)` pairs `BF.SCANDUMP` returns for this filter, in its order (its
    /// closing `(0, "")` left out): each can be given to `BF.LOADCHUNK key iterator bytes`.
    pub fn to_chunks(&self) -> Vec<(i64, Vec<u8>)> {
        self.to_chunks_of(MAX_CHUNK)
    }

    /// [`Self::to_chunks`] with data chunks of at most `max` bytes (at least 1), as a
    /// `BF.SCANDUMP` with another `MAX_SCANDUMP_SIZE` would cut them; `BF.LOADCHUNK` takes any.
    pub fn to_chunks_of(&self, max: usize) -> Vec<(i64, Vec<u8>)> {
        let mut out = vec![(1, self.header().to_bytes())];
        let mut pos = 0i64;
        for l in &self.links {
            for piece in l.bf.chunks(max.max(1)) {
                pos += piece.len() as i64;
                out.push((1 + pos, piece.to_vec()));
            }
        }
        out
    }

    /// Reads the chunks of a `BF.SCANDUMP`, in the order it gave them: the header at iterator
    /// 1, then data chunks, each starting where the last one ended and within one link (a
    /// closing `(0, "")` may be included). Nothing is allocated before the data present is
    /// found to be what the header declares.
    ///
    /// # Errors
    /// As [`Header::parse`] for the first chunk; [`FormatError::Truncated`] or
    /// [`FormatError::TrailingBytes`] when the data chunks hold less or more than the header
    /// declares; [`FormatError::Invalid`] for a chunk whose iterator puts it elsewhere than
    /// next, or across two links; [`FormatError::OutOfMemory`].
    pub fn from_chunks<B: AsRef<[u8]>>(chunks: &[(i64, B)]) -> Result<Self, FormatError> {
        let Some(((first, head), mut data)) = chunks.split_first() else {
            return Err(FormatError::Truncated {
                needed: CHAIN_HEADER_LEN as u64,
                available: 0,
            });
        };
        if *first != 1 {
            return Err(invalid(format!(
                "the first chunk's iterator is {first}; BF.SCANDUMP gives the header at 1"
            )));
        }
        let header = Header::parse(head.as_ref())?;
        if let Some(((0, end), rest)) = data.split_last() {
            if end.as_ref().is_empty() {
                data = rest;
            }
        }
        let present = data
            .iter()
            .fold(0u64, |s, (_, c)| s.saturating_add(c.as_ref().len() as u64));
        check_data_len(header.data_len(), present)?;
        let mut links = header.empty_links()?;
        let mut pos = 0u64;
        let mut link = 0;
        for (i, (iter, chunk)) in data.iter().enumerate() {
            let chunk = chunk.as_ref();
            let len = chunk.len() as u64;
            // The data present is what the header declares, so a non-empty chunk has a link
            // with room left.
            while len > 0 && links[link].bf.len() as u64 == header.links[link].bytes {
                link += 1;
            }
            let room = header.links[link].bytes - links[link].bf.len() as u64;
            if len == 0 || *iter < 0 || *iter as u64 != 1 + pos + len || len > room {
                return Err(FormatError::Invalid(format!(
                    "RedisBloom BF chunk {}: {len} bytes at iterator {iter}; the next chunk \
                     starts at data byte {pos}, so its iterator is {} and it holds 1 to {room} \
                     bytes (the rest of link {link})",
                    i + 1,
                    1 + pos + len.max(1)
                )));
            }
            links[link].bf.extend_from_slice(chunk);
            pos += len;
        }
        Ok(header.into_chain(links))
    }

    /// The one-file form: [`FILE_MAGIC`], the header chunk, the data chunks' bytes in order.
    pub fn to_bytes(&self) -> Vec<u8> {
        let header = self.header();
        let mut out = Vec::with_capacity(header.file_len() as usize);
        out.extend_from_slice(&FILE_MAGIC);
        out.extend_from_slice(&header.to_bytes());
        self.links.iter().for_each(|l| out.extend_from_slice(&l.bf));
        out
    }

    /// Writes [`Self::to_bytes`] to `path`, replacing the file atomically.
    ///
    /// # Errors
    /// I/O errors; the old file is then left as it was.
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        filter_core::write_atomically(path.as_ref(), &self.to_bytes())
    }

    /// Reads the one-file form: exactly one filter, nothing after it.
    ///
    /// # Errors
    /// [`FormatError::Invalid`] without [`FILE_MAGIC`]; as [`Header::parse_prefix`];
    /// [`FormatError::Truncated`] or [`FormatError::TrailingBytes`] when the data is shorter or
    /// longer than declared, found before anything is allocated; [`FormatError::OutOfMemory`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        let rest = check_magic(bytes)?;
        let (header, used) = Header::parse_prefix(rest)?;
        let data = &rest[used..];
        check_data_len(header.data_len(), data.len() as u64)?;
        let mut links = header.empty_links()?;
        let mut at = 0;
        for (l, h) in links.iter_mut().zip(&header.links) {
            l.bf.extend_from_slice(&data[at..at + h.bytes as usize]);
            at += h.bytes as usize;
        }
        Ok(header.into_chain(links))
    }

    /// Loads a file in the one-file form: the header is read and checked against the file's
    /// length before the data is read.
    ///
    /// # Errors
    /// I/O errors; [`io::ErrorKind::InvalidData`] holding the [`FormatError`] for a bad magic
    /// or header, or a file shorter or longer than the header declares.
    pub fn load(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut fixed = [0u8; 8 + CHAIN_HEADER_LEN];
        read_exact_or_truncated(&mut file, &mut fixed, 8 + CHAIN_HEADER_LEN as u64)?;
        check_magic(&fixed).map_err(in_io)?;
        let links = u64::from(u32_at(&fixed, 8 + 8));
        let head_len = Header::len_for(links);
        if len < 8 + head_len {
            return Err(in_io(FormatError::Truncated {
                needed: 8 + head_len,
                available: len,
            }));
        }
        let mut head = fixed[8..].to_vec();
        head.resize(head_len as usize, 0);
        read_exact_or_truncated(&mut file, &mut head[CHAIN_HEADER_LEN..], head_len)?;
        let header = Header::parse(&head).map_err(in_io)?;
        check_data_len(header.data_len(), len - 8 - head_len).map_err(in_io)?;
        let mut chain = header.empty_links().map_err(in_io)?;
        let mut r = io::BufReader::new(file);
        for (l, h) in chain.iter_mut().zip(&header.links) {
            l.bf.resize(h.bytes as usize, 0);
            read_exact_or_truncated(&mut r, &mut l.bf, h.bytes)?;
        }
        Ok(header.into_chain(chain))
    }
}

/// `bytes` after [`FILE_MAGIC`].
fn check_magic(bytes: &[u8]) -> Result<&[u8], FormatError> {
    match bytes.strip_prefix(&FILE_MAGIC[..]) {
        Some(rest) => Ok(rest),
        None if bytes.len() < FILE_MAGIC.len() && FILE_MAGIC.starts_with(bytes) => {
            Err(FormatError::Truncated {
                needed: FILE_MAGIC.len() as u64,
                available: bytes.len() as u64,
            })
        }
        None => Err(FormatError::Invalid(format!(
            "not a RedisBloom BF file: it does not open with {:?}",
            String::from_utf8_lossy(&FILE_MAGIC)
        ))),
    }
}

/// Fills `buf` from `r`; at the end of input, [`FormatError::Truncated`] with the `needed` bytes
/// the structure still wanted from here and the bytes that were left.
fn read_exact_or_truncated<R: Read>(r: &mut R, buf: &mut [u8], needed: u64) -> io::Result<()> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => {
                return Err(in_io(FormatError::Truncated {
                    needed,
                    available: got as u64,
                }))
            }
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
