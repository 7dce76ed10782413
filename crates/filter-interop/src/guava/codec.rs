//! The bytes of Guava's `BloomFilter.writeTo`, read and written without trusting them.
//!
//! `writeTo` writes, through a `DataOutputStream` (so big-endian): the strategy's ordinal as a
//! signed byte, `k` as an unsigned byte, the number of longs as an `int`, then the longs. Guava's
//! `readFrom` allocates the declared array before reading it; here the declared length is
//! checked against the bytes (or the file) present first, and memory is reserved fallibly, so a
//! crafted header costs an error, not an abort or gigabytes.

use super::{GuavaBloom, Strategy, MAX_WORDS};
use filter_core::FormatError;
use std::io::{self, Read, Write};
use std::path::Path;

/// Bytes before the longs: strategy, `k`, the count of longs.
pub const HEADER_LEN: usize = 6;

/// Longs read per step from a stream: memory grows with the bytes that really arrive.
const STREAM_CHUNK: usize = 8 << 10;

/// The six bytes that open a Guava filter, validated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The strategy (first byte).
    pub strategy: Strategy,
    /// `k` (second byte), 1 to 255.
    pub hashes: u8,
    /// Longs in the bit array, 1 to [`MAX_WORDS`].
    pub words: u32,
}

impl Header {
    /// Reads and checks the header at the start of `bytes` (which may go on with the longs).
    ///
    /// # Errors
    /// [`FormatError::Truncated`] below six bytes; [`FormatError::Invalid`] for a strategy
    /// ordinal other than 0 or 1, `k = 0`, or a count of longs below 1 (Guava's own checks,
    /// made before anything is allocated).
    pub fn parse(bytes: &[u8]) -> Result<Self, FormatError> {
        let Some(head) = bytes.first_chunk::<HEADER_LEN>() else {
            return Err(FormatError::Truncated {
                needed: HEADER_LEN as u64,
                available: bytes.len() as u64,
            });
        };
        let ordinal = head[0] as i8;
        let strategy = Strategy::from_ordinal(ordinal).ok_or_else(|| {
            invalid(format!(
                "strategy ordinal {ordinal}: Guava defines 0 (MURMUR128_MITZ_32) and 1 \
                 (MURMUR128_MITZ_64); the data is not a Guava BloomFilter written by writeTo"
            ))
        })?;
        if head[1] == 0 {
            return Err(invalid(
                "0 hash functions: Guava writes 1 to 255; the data is damaged or not a Guava \
                 BloomFilter"
                    .into(),
            ));
        }
        let words = i32::from_be_bytes([head[2], head[3], head[4], head[5]]);
        if words < 1 {
            return Err(invalid(format!(
                "a bit array of {words} longs: Guava writes at least one; the data is damaged \
                 or not a Guava BloomFilter"
            )));
        }
        debug_assert!(words as u64 <= MAX_WORDS);
        Ok(Header {
            strategy,
            hashes: head[1],
            words: words as u32,
        })
    }

    /// Bytes of the longs that follow the header.
    pub fn payload_len(&self) -> u64 {
        u64::from(self.words) * 8
    }

    /// Bytes of the whole filter, header included.
    pub fn file_len(&self) -> u64 {
        HEADER_LEN as u64 + self.payload_len()
    }

    fn to_bytes(self) -> [u8; HEADER_LEN] {
        let w = self.words.to_be_bytes();
        [self.strategy.ordinal(), self.hashes, w[0], w[1], w[2], w[3]]
    }
}

fn invalid(why: String) -> FormatError {
    FormatError::Invalid(format!("Guava BloomFilter: {why}"))
}

fn in_io(e: FormatError) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e)
}

/// An empty vector with room for `words` longs, reserved fallibly.
fn reserve_words(words: usize) -> Result<Vec<u64>, FormatError> {
    let mut v = Vec::new();
    v.try_reserve_exact(words)
        .map_err(|_| FormatError::OutOfMemory {
            bytes: words as u64 * 8,
        })?;
    Ok(v)
}

impl GuavaBloom {
    /// The header [`Self::to_bytes`] starts with.
    pub fn header(&self) -> Header {
        Header {
            strategy: self.strategy,
            hashes: self.hashes,
            // At most MAX_WORDS by construction.
            words: self.words.len() as u32,
        }
    }

    /// Exactly the bytes Guava's `writeTo` writes for the same filter.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.header().file_len() as usize);
        out.extend_from_slice(&self.header().to_bytes());
        for w in &self.words {
            out.extend_from_slice(&w.to_be_bytes());
        }
        out
    }

    /// Writes [`Self::to_bytes`] to `w`, a buffer of longs at a time.
    ///
    /// # Errors
    /// Those of `w`.
    pub fn write_to<W: Write>(&self, mut w: W) -> io::Result<()> {
        w.write_all(&self.header().to_bytes())?;
        let mut buf = Vec::with_capacity(STREAM_CHUNK * 8);
        for chunk in self.words.chunks(STREAM_CHUNK) {
            buf.clear();
            chunk
                .iter()
                .for_each(|x| buf.extend_from_slice(&x.to_be_bytes()));
            w.write_all(&buf)?;
        }
        w.flush()
    }

    /// Writes the filter to `path` in Guava's layout, replacing the file atomically.
    ///
    /// # Errors
    /// I/O errors; the old file is then left as it was.
    pub fn save(&self, path: impl AsRef<Path>) -> io::Result<()> {
        filter_core::write_atomically(path.as_ref(), &self.to_bytes())
    }

    /// Reads what Guava's `writeTo` wrote: exactly one filter, nothing after it.
    ///
    /// # Errors
    /// As [`Header::parse`]; [`FormatError::Truncated`] when fewer longs follow than the header
    /// declares and [`FormatError::TrailingBytes`] when more bytes follow, both found before
    /// anything is allocated; [`FormatError::OutOfMemory`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
        let header = Header::parse(bytes)?;
        let payload = &bytes[HEADER_LEN..];
        let declared = header.payload_len();
        match (payload.len() as u64).cmp(&declared) {
            std::cmp::Ordering::Less => {
                return Err(FormatError::Truncated {
                    needed: declared,
                    available: payload.len() as u64,
                })
            }
            std::cmp::Ordering::Greater => {
                return Err(FormatError::TrailingBytes(payload.len() as u64 - declared))
            }
            std::cmp::Ordering::Equal => {}
        }
        let mut words = reserve_words(header.words as usize)?;
        words.extend(
            payload
                .chunks_exact(8)
                .map(|c| u64::from_be_bytes(c.try_into().expect("8-byte chunk"))),
        );
        Ok(Self::from_parts(
            header.strategy,
            header.hashes,
            words,
            None,
        ))
    }

    /// Reads one filter from a stream as Guava's `readFrom` does, leaving the stream just after
    /// it. The longs are read a chunk at a time into memory reserved as they arrive, so a header
    /// that declares more than the stream holds costs at most what the stream holds.
    ///
    /// # Errors
    /// I/O errors; [`io::ErrorKind::InvalidData`] holding the [`FormatError`] for a bad header
    /// or a stream that ends before the declared longs.
    pub fn read_from<R: Read>(mut r: R) -> io::Result<Self> {
        let mut head = [0u8; HEADER_LEN];
        read_exact_or_truncated(&mut r, &mut head, HEADER_LEN as u64)?;
        let header = Header::parse(&head).map_err(in_io)?;
        Self::read_words(r, header)
    }

    /// The longs after `header`, from `r`.
    fn read_words<R: Read>(mut r: R, header: Header) -> io::Result<Self> {
        let total = header.words as usize;
        let mut words = reserve_words(total.min(STREAM_CHUNK)).map_err(in_io)?;
        let mut buf = vec![0u8; STREAM_CHUNK.min(total) * 8];
        while words.len() < total {
            let n = STREAM_CHUNK.min(total - words.len());
            words.try_reserve_exact(n).map_err(|_| {
                in_io(FormatError::OutOfMemory {
                    bytes: total as u64 * 8,
                })
            })?;
            let left = header.payload_len() - words.len() as u64 * 8;
            read_exact_or_truncated(&mut r, &mut buf[..n * 8], left)?;
            words.extend(
                buf[..n * 8]
                    .chunks_exact(8)
                    .map(|c| u64::from_be_bytes(c.try_into().expect("8-byte chunk"))),
            );
        }
        Ok(Self::from_parts(
            header.strategy,
            header.hashes,
            words,
            None,
        ))
    }

    /// Loads a file Guava's `writeTo` wrote: the header is checked against the file's length
    /// before the longs are read.
    ///
    /// # Errors
    /// I/O errors; [`io::ErrorKind::InvalidData`] holding the [`FormatError`] for a bad header
    /// or a file shorter or longer than the header declares.
    pub fn load(path: impl AsRef<Path>) -> io::Result<Self> {
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut head = [0u8; HEADER_LEN];
        read_exact_or_truncated(&mut file, &mut head, HEADER_LEN as u64)?;
        let header = Header::parse(&head).map_err(in_io)?;
        let present = len.saturating_sub(HEADER_LEN as u64);
        if present < header.payload_len() {
            return Err(in_io(FormatError::Truncated {
                needed: header.payload_len(),
                available: present,
            }));
        }
        if present > header.payload_len() {
            return Err(in_io(FormatError::TrailingBytes(
                present - header.payload_len(),
            )));
        }
        Self::read_words(io::BufReader::new(file), header)
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
