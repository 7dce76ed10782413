//! The Thrift compact-protocol encoding of Parquet's `BloomFilterHeader`:
//!
//! ```text
//! struct BloomFilterHeader {
//!   1: required i32 numBytes;
//!   2: required BloomFilterAlgorithm algorithm;      // union { 1: SplitBlockAlgorithm BLOCK }
//!   3: required BloomFilterHash hash;                // union { 1: XxHash XXHASH }
//!   4: required BloomFilterCompression compression;  // union { 1: Uncompressed UNCOMPRESSED }
//! }
//! ```
//!
//! Written with the fixed choices above; read by a small general decoder that skips fields it
//! does not know (as Thrift readers do) and refuses union members it does not implement.

use filter_core::format::invalid;
use filter_core::FormatError;

/// Compact-protocol type ids.
const I32: u8 = 5;
const STRUCT: u8 = 12;
/// Deepest nesting the skipper follows; the header itself needs 2.
const MAX_DEPTH: u32 = 16;

/// The header for a bitset of `num_bytes`.
pub(super) fn header(num_bytes: u32) -> Vec<u8> {
    // Field 1 (delta 1) of type i32, then its zigzag varint.
    let mut out = vec![(1 << 4) | I32];
    let mut v = u64::from(num_bytes) << 1; // zigzag of a non-negative value
    while v >= 0x80 {
        out.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    // Fields 2, 3 and 4 (delta 1 each): a union whose member 1 is an empty struct.
    for _ in 0..3 {
        out.extend([(1 << 4) | STRUCT, (1 << 4) | STRUCT, 0, 0]);
    }
    out.push(0); // end of struct
    out
}

struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn byte(&mut self) -> Result<u8, FormatError> {
        let b = *self.bytes.get(self.pos).ok_or(FormatError::Truncated {
            needed: 1,
            available: 0,
        })?;
        self.pos += 1;
        Ok(b)
    }

    fn skip_bytes(&mut self, n: u64) -> Result<(), FormatError> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(FormatError::Truncated {
                needed: n,
                available: left,
            });
        }
        self.pos += n as usize;
        Ok(())
    }

    fn varint(&mut self) -> Result<u64, FormatError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            // The tenth byte holds bit 63 only; more would be silently dropped.
            if shift == 63 && b > 1 {
                return Err(invalid("Thrift varint overflows 64 bits"));
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(invalid("Thrift varint longer than 10 bytes"))
    }

    fn zigzag(&mut self) -> Result<i64, FormatError> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// The next field's id and type, or `None` at the end of the struct. Thrift field ids are
    /// i16: a long-form id outside it, or a delta that carries past it, is refused.
    fn field(&mut self, last: i16) -> Result<Option<(i16, u8)>, FormatError> {
        let b = self.byte()?;
        if b == 0 {
            return Ok(None);
        }
        let delta = i16::from(b >> 4);
        let id = if delta == 0 {
            let id = self.zigzag()?;
            i16::try_from(id).map_err(|_| invalid(format!("Thrift field id {id} outside i16")))?
        } else {
            last.checked_add(delta)
                .ok_or_else(|| invalid(format!("Thrift field id {last} + {delta} outside i16")))?
        };
        Ok(Some((id, b & 0x0f)))
    }

    /// Element count of a list or set header whose first byte was `b`.
    fn list_len(&mut self, b: u8) -> Result<u64, FormatError> {
        let n = match b >> 4 {
            15 => self.varint()?,
            n => u64::from(n),
        };
        self.bounded(n)
    }

    /// `n` elements, refused when the input cannot hold them: every element takes at least one
    /// byte, so a crafted count cannot make the skipper spin.
    fn bounded(&self, n: u64) -> Result<u64, FormatError> {
        let left = (self.bytes.len() - self.pos) as u64;
        if n > left {
            return Err(FormatError::Truncated {
                needed: n,
                available: left,
            });
        }
        Ok(n)
    }

    fn skip(&mut self, ty: u8, depth: u32) -> Result<(), FormatError> {
        if depth > MAX_DEPTH {
            return Err(invalid("Thrift structure nested too deeply"));
        }
        match ty {
            1 | 2 => Ok(()),                  // booleans live in the field header
            3 => self.skip_bytes(1),          // byte
            4..=6 => self.varint().map(drop), // i16, i32, i64
            7 => self.skip_bytes(8),          // double
            8 => {
                let n = self.varint()?;
                self.skip_bytes(n)
            }
            9 | 10 => {
                let b = self.byte()?;
                for _ in 0..self.list_len(b)? {
                    self.skip_element(b & 0x0f, depth + 1)?;
                }
                Ok(())
            }
            11 => {
                let n = self.varint()?;
                if n > 0 {
                    let kv = self.byte()?;
                    for _ in 0..self.bounded(n)? {
                        self.skip_element(kv >> 4, depth + 1)?;
                        self.skip_element(kv & 0x0f, depth + 1)?;
                    }
                }
                Ok(())
            }
            STRUCT => {
                let mut last = 0;
                while let Some((id, t)) = self.field(last)? {
                    self.skip(t, depth + 1)?;
                    last = id;
                }
                Ok(())
            }
            t => Err(invalid(format!("unknown Thrift type {t}"))),
        }
    }

    /// A list element: booleans take a byte there.
    fn skip_element(&mut self, ty: u8, depth: u32) -> Result<(), FormatError> {
        match ty {
            1 | 2 => self.skip_bytes(1),
            t => self.skip(t, depth),
        }
    }

    /// A union field whose only supported member is 1 (an empty struct in all three).
    fn union_member_1(&mut self, what: &str, ty: u8) -> Result<(), FormatError> {
        if ty != STRUCT {
            return Err(invalid(format!("{what} is not a Thrift union")));
        }
        let (id, t) = self
            .field(0)?
            .ok_or_else(|| invalid(format!("{what} names no member")))?;
        if id != 1 || t != STRUCT {
            return Err(invalid(format!(
                "unsupported {what} (union member {id}): only {} is implemented",
                match what {
                    "algorithm" => "BLOCK",
                    "hash" => "XXHASH",
                    _ => "UNCOMPRESSED",
                }
            )));
        }
        self.skip(STRUCT, 1)?;
        match self.field(id)? {
            None => Ok(()),
            Some(_) => Err(invalid(format!("{what} union has more than one member"))),
        }
    }
}

/// Reads a `BloomFilterHeader`; returns `num_bytes` and the header's length.
pub(super) fn read_header(bytes: &[u8]) -> Result<(usize, usize), FormatError> {
    let mut c = Cursor { bytes, pos: 0 };
    let (mut num_bytes, mut seen) = (None, [false; 3]);
    let mut last = 0;
    while let Some((id, ty)) = c.field(last)? {
        match (id, ty) {
            (1, I32) => num_bytes = Some(c.zigzag()?),
            (2..=4, _) => {
                let i = (id - 2) as usize;
                c.union_member_1(["algorithm", "hash", "compression"][i], ty)?;
                seen[i] = true;
            }
            (_, t) => c.skip(t, 1)?,
        }
        last = id;
    }
    let num_bytes = num_bytes.ok_or_else(|| invalid("BloomFilterHeader without numBytes"))?;
    if let Some(i) = seen.iter().position(|s| !s) {
        let name = ["algorithm", "hash", "compression"][i];
        return Err(invalid(format!("BloomFilterHeader without {name}")));
    }
    let num_bytes = usize::try_from(num_bytes)
        .ok()
        .filter(|&n| n > 0 && n <= super::MAX_BYTES)
        .ok_or_else(|| invalid(format!("numBytes {num_bytes} outside 1 B to 128 MiB")))?;
    Ok((num_bytes, c.pos))
}
