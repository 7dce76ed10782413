//! Key files, one key a line, read the same way by the `filterlab` command and the benchmark
//! harness.
//!
//! # Format
//!
//! - A line ends in `\n` or `\r\n`; the last line may have no ending.
//! - Empty lines are skipped everywhere, and counted.
//! - A UTF-8 byte-order mark (`EF BB BF`) at the start of the file is not part of the first key.
//! - A carriage return left inside a line is kept in the key, and counted: a file with CR-only
//!   line endings (classic Mac OS) reads as one long key, which callers warn about
//!   ([`LineCounts::cr_warning`]).
//! - Keys are bytes: they need not be UTF-8. [`escape`] prints any key so that a script can
//!   match it exactly.
//! - A key longer than the limit is an error naming its line, found without reading the rest of
//!   the line (an endless line costs at most the limit).
//!
//! ```
//! use filterlab::keylines::KeyLines;
//!
//! let mut lines = KeyLines::new(&b"\xEF\xBB\xBFalice\r\n\nbob\n"[..], 1024);
//! let mut keys = Vec::new();
//! while let Some((_, key)) = lines.next_key()? {
//!     keys.push(key.to_vec());
//! }
//! assert_eq!(keys, [b"alice".to_vec(), b"bob".to_vec()]);
//! assert_eq!((lines.counts().lines, lines.counts().empty), (3, 1));
//! # Ok::<(), filterlab::keylines::KeyLineError>(())
//! ```

use std::fmt::Write as _;
use std::io::{self, BufRead, Read};

/// The UTF-8 byte-order mark.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// What a read has seen so far besides its keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LineCounts {
    /// Lines read, empty ones included.
    pub lines: u64,
    /// Empty lines skipped.
    pub empty: u64,
    /// Keys holding a carriage return (CR-only line endings, or `\r\r\n`).
    pub inner_cr: u64,
    /// The first line with such a key.
    pub first_inner_cr: Option<u64>,
    /// Whether the file began with a byte-order mark (dropped).
    pub bom: bool,
}

/// Why a key line could not be read.
#[derive(Debug)]
pub enum KeyLineError {
    /// The reader failed.
    Io(io::Error),
    /// A key longer than the limit.
    TooLong {
        /// Its line number (from 1).
        line: u64,
        /// The limit, in bytes.
        max: usize,
    },
}

impl std::fmt::Display for KeyLineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeyLineError::Io(e) => write!(f, "{e}"),
            KeyLineError::TooLong { line, max } => write!(
                f,
                "line {line}: a key longer than {max} bytes; keys are one per line"
            ),
        }
    }
}

/// Transparent over the reader's error: its message is this error's, so its source is that
/// error's source (returning the error itself would print its message twice in a chain).
impl std::error::Error for KeyLineError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            KeyLineError::Io(e) => e.source(),
            KeyLineError::TooLong { .. } => None,
        }
    }
}

impl From<io::Error> for KeyLineError {
    fn from(e: io::Error) -> Self {
        KeyLineError::Io(e)
    }
}

/// Reads keys one line at a time, in bounded memory (one line of at most the limit).
#[derive(Debug)]
pub struct KeyLines<R> {
    reader: R,
    line: Vec<u8>,
    max: usize,
    counts: LineCounts,
}

impl LineCounts {
    /// The warning to show when keys held carriage returns, if any did.
    pub fn cr_warning(&self) -> Option<String> {
        self.first_inner_cr.map(|first| {
            format!(
                "{} key(s) hold a carriage return (first at line {first}): the file may use \
                 CR-only line endings, read here as one key; convert it with `tr '\\r' '\\n'`",
                self.inner_cr
            )
        })
    }
}

impl<R: BufRead> KeyLines<R> {
    /// Keys of `reader`, each at most `max_key_bytes` long.
    pub fn new(reader: R, max_key_bytes: usize) -> Self {
        KeyLines {
            reader,
            line: Vec::new(),
            max: max_key_bytes,
            counts: LineCounts::default(),
        }
    }

    /// The next non-empty key and its line number, or `None` at the end.
    ///
    /// # Errors
    /// A read error, or a key longer than the limit.
    pub fn next_key(&mut self) -> Result<Option<(u64, &[u8])>, KeyLineError> {
        loop {
            self.line.clear();
            // The key, a BOM on the first line, "\r\n", and one byte more to tell a long key.
            let limit = (self.max as u64).saturating_add(6);
            let read = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.line)?;
            if read == 0 {
                return Ok(None);
            }
            self.counts.lines += 1;
            let number = self.counts.lines;
            let start = if number == 1 && self.line.starts_with(BOM) {
                self.counts.bom = true;
                BOM.len()
            } else {
                0
            };
            let mut end = self.line.len();
            if self.line[start..end].ends_with(b"\n") {
                end -= 1;
                if self.line[start..end].ends_with(b"\r") {
                    end -= 1;
                }
            }
            let key = &self.line[start..end];
            if key.len() > self.max {
                return Err(KeyLineError::TooLong {
                    line: number,
                    max: self.max,
                });
            }
            if key.is_empty() {
                self.counts.empty += 1;
                continue;
            }
            if key.contains(&b'\r') {
                self.counts.inner_cr += 1;
                self.counts.first_inner_cr.get_or_insert(number);
            }
            return Ok(Some((number, &self.line[start..end])));
        }
    }

    /// What the read has seen so far.
    pub fn counts(&self) -> LineCounts {
        self.counts
    }
}

/// `key` as printable text that names it exactly: valid UTF-8 is kept except control
/// characters and the backslash, which are escaped (`\\`, `\t`, `\r`, `\n`, `\x1b`, `\u{85}`);
/// bytes that are not UTF-8 become `\xHH`. Different keys never print the same.
pub fn escape(key: &[u8]) -> String {
    let mut out = String::with_capacity(key.len());
    for chunk in key.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '\t' => out.push_str("\\t"),
                '\r' => out.push_str("\\r"),
                '\n' => out.push_str("\\n"),
                c if c.is_control() && c.is_ascii() => {
                    let _ = write!(out, "\\x{:02x}", c as u32);
                }
                c if c.is_control() => {
                    let _ = write!(out, "\\u{{{:x}}}", c as u32);
                }
                c => out.push(c),
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// Lower-case hex of `key`.
pub fn hex(key: &[u8]) -> String {
    key.iter()
        .fold(String::with_capacity(2 * key.len()), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[cfg(test)]
mod tests;
