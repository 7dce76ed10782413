//! The writing half of the format: [`Encoder`], and [`write_to`], which streams a filter into
//! any [`Write`] without holding a second copy of its table.
//!
//! A file states the lengths of its two sections before them, so a stream cannot go back to
//! fill them in. [`write_to`] runs the variant's encoder twice: first to measure the sections
//! (nothing is stored), then to write them through a small fixed buffer: the parameters are
//! held (a few bytes) until the head they belong to is complete, then the head (version 2:
//! with the payload's offset and the head's checksum), the padding to the payload's boundary,
//! and the payload, and the file's checksum is computed as the bytes go by. The second pass
//! checks that it wrote exactly what the first measured (a variant whose encoding changed
//! between the passes would otherwise write a corrupted file).

use super::{checksum, layout, Codec, FileKind, DEFAULT_WRITE_VERSION, MAGIC, MAX_PARAMS_LEN};
use crate::KeyHasher;
use std::io::{self, Write};
use xxhash_rust::xxh3::Xxh3Default;

/// Bytes staged before each write when streaming.
const STAGE: usize = 64 << 10;

/// Writes one filter: header, parameters, payload, checksum. A variant's
/// [`Codec::encode_params`] and [`Codec::encode_payload`] call its field methods; where the
/// bytes go (a buffer, a measurement, a stream) is the encoder's business.
#[derive(Debug)]
pub struct Encoder<'w> {
    sink: Sink<'w>,
    /// The format version of the file being written.
    version: u16,
    /// Bytes of the current section so far.
    section: u64,
    in_payload: bool,
}

// The stream's state (its hasher's buffer) is inline rather than boxed: the encoder lives on
// the stack for one save, and the save path allocates nothing infallibly.
#[allow(clippy::large_enum_variant)]
enum Sink<'w> {
    /// The whole file in memory, laid out at the end (tests and fuzzers).
    Buffer {
        header: [u8; 20],
        params: Vec<u8>,
        payload: Vec<u8>,
    },
    /// Counting only: the section lengths, for a stream.
    Measure { params: u64 },
    /// Straight to a writer, with the lengths measured before.
    Stream(Stream<'w>),
}

struct Stream<'w> {
    out: &'w mut dyn Write,
    header: [u8; 20],
    /// The parameter section, held until the head is complete.
    held: Vec<u8>,
    hasher: Xxh3Default,
    stage: Vec<u8>,
    /// The section lengths the measuring pass found.
    params: u64,
    payload: u64,
    /// The first error; later writes are skipped and [`Encoder::finish_stream`] returns it.
    error: Option<io::Error>,
}

impl std::fmt::Debug for Sink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Sink::Buffer {
                params, payload, ..
            } => write!(f, "Buffer({} + {} bytes)", params.len(), payload.len()),
            Sink::Measure { .. } => write!(f, "Measure"),
            Sink::Stream(s) => write!(f, "Stream({} + {} bytes)", s.params, s.payload),
        }
    }
}

impl Stream<'_> {
    fn emit(&mut self, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        if self.stage.len() + bytes.len() > self.stage.capacity() {
            self.flush();
            if bytes.len() >= self.stage.capacity() {
                // A large slice (a table) goes out as it is: no copy.
                self.hasher.update(bytes);
                if let Err(e) = self.out.write_all(bytes) {
                    self.error = Some(e);
                }
                return;
            }
        }
        self.stage.extend_from_slice(bytes);
    }

    fn flush(&mut self) {
        if self.error.is_some() || self.stage.is_empty() {
            return;
        }
        self.hasher.update(&self.stage);
        if let Err(e) = self.out.write_all(&self.stage) {
            self.error = Some(e);
        }
        self.stage.clear();
    }

    /// Emits the head (the parameters held so far with the measured payload length) and the
    /// padding up to the payload's offset.
    fn head(&mut self) {
        let head = layout::head(&self.header, &self.held, self.payload);
        self.emit(&head);
        let offset = layout::payload_offset(head.len() as u64, self.payload).unwrap_or(0);
        let mut pad = offset.saturating_sub(head.len() as u64) as usize;
        const ZEROS: [u8; 512] = [0; 512];
        while pad > 0 {
            let n = pad.min(ZEROS.len());
            self.emit(&ZEROS[..n]);
            pad -= n;
        }
    }

    fn fail(&mut self, why: String) {
        if self.error.is_none() {
            self.error = Some(io::Error::new(io::ErrorKind::InvalidData, why));
        }
    }
}

fn header(kind: FileKind, hasher: KeyHasher, version: u16) -> [u8; 20] {
    let mut h = [0u8; 20];
    h[..8].copy_from_slice(&MAGIC);
    h[8..10].copy_from_slice(&version.to_le_bytes());
    h[10] = kind.id();
    h[11] = hasher.kind().id();
    h[12..20].copy_from_slice(&hasher.seed().to_le_bytes());
    h
}

impl<'w> Encoder<'w> {
    /// Starts a file in memory for `kind` hashed with `hasher`; `payload_hint` pre-sizes the
    /// buffer (which grows infallibly: for tests and tools; [`write_to`] and
    /// [`crate::Persist::try_to_bytes`] are the fallible paths).
    pub fn new(kind: FileKind, hasher: KeyHasher, payload_hint: usize) -> Self {
        Self::of_version(kind, hasher, payload_hint, DEFAULT_WRITE_VERSION)
    }

    /// [`Encoder::new`] for a file of format version `version` (1, 2 or 3), laid out as that
    /// version is by [`Encoder::finish`] (a variant's [`Codec::WRITE_VERSION`] for its saves).
    pub fn of_version(
        kind: FileKind,
        hasher: KeyHasher,
        payload_hint: usize,
        version: u16,
    ) -> Self {
        Encoder {
            sink: Sink::Buffer {
                header: header(kind, hasher, version),
                params: Vec::with_capacity(64),
                payload: Vec::with_capacity(payload_hint),
            },
            version,
            section: 0,
            in_payload: false,
        }
    }

    /// The format version of the file being written: the variant's [`Codec::WRITE_VERSION`]
    /// for every save. A variant whose payload differs between versions writes it by this (the
    /// quotient filter adds its offsets table from version 2 on, and lays its table out in
    /// blocks from version 3 on).
    pub fn format_version(&self) -> u16 {
        self.version
    }

    fn put(&mut self, bytes: &[u8]) -> &mut Self {
        self.section += bytes.len() as u64;
        let in_payload = self.in_payload;
        match &mut self.sink {
            Sink::Buffer { params, .. } if !in_payload => params.extend_from_slice(bytes),
            Sink::Buffer { payload, .. } => payload.extend_from_slice(bytes),
            Sink::Measure { .. } => {}
            // The parameters are at most `MAX_PARAMS_LEN` bytes (checked before the pass).
            Sink::Stream(s) if !in_payload => s.held.extend_from_slice(bytes),
            Sink::Stream(s) => s.emit(bytes),
        }
        self
    }

    /// Appends a byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.put(&[v])
    }

    /// Appends a `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    /// Appends a `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.put(&v.to_le_bytes())
    }

    /// Appends an `f64` by its IEEE-754 bits.
    pub fn f64(&mut self, v: f64) -> &mut Self {
        self.u64(v.to_bits())
    }

    /// Appends raw bytes.
    pub fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.put(v)
    }

    /// Appends `u64` words.
    pub fn u64s(&mut self, v: &[u64]) -> &mut Self {
        if let Sink::Measure { .. } = self.sink {
            self.section += v.len() as u64 * 8;
            return self;
        }
        let mut chunk = [0u8; 512];
        for words in v.chunks(64) {
            for (c, w) in chunk.chunks_exact_mut(8).zip(words) {
                c.copy_from_slice(&w.to_le_bytes());
            }
            self.put(&chunk[..words.len() * 8]);
        }
        self
    }

    /// Ends the parameter section; what follows is payload.
    ///
    /// # Panics
    /// If called twice (a bug in the variant's encoder).
    pub fn begin_payload(&mut self) -> &mut Self {
        assert!(!self.in_payload, "begin_payload called twice");
        let params = std::mem::take(&mut self.section);
        match &mut self.sink {
            Sink::Buffer { params: p, .. } => {
                assert!(
                    p.len() <= u32::MAX as usize,
                    "parameter section under 4 GiB"
                );
            }
            Sink::Measure { params: p } => *p = params,
            Sink::Stream(s) => {
                if params != s.params {
                    s.fail(format!(
                        "the parameters took {params} bytes, {} when measured",
                        s.params
                    ));
                }
                s.head();
            }
        }
        self.in_payload = true;
        self
    }

    /// Closes the payload and appends the checksum (the in-memory encoder of [`Encoder::new`]),
    /// laid out as the encoder's version is.
    ///
    /// # Panics
    /// On an encoder that is not the in-memory one.
    pub fn finish(mut self) -> Vec<u8> {
        if !self.in_payload {
            self.begin_payload();
        }
        let Sink::Buffer {
            header,
            params,
            payload,
        } = self.sink
        else {
            panic!("Encoder::finish on a streaming encoder");
        };
        if self.version < layout::IN_PLACE_VERSION {
            return layout::version_1(&header, &params, &payload);
        }
        let mut buf = layout::head(&header, &params, payload.len() as u64);
        let offset = layout::payload_offset(buf.len() as u64, payload.len() as u64)
            .expect("a payload in memory");
        buf.resize(offset as usize, 0);
        buf.extend_from_slice(&payload);
        let sum = checksum(&buf);
        buf.extend_from_slice(&sum.to_le_bytes());
        buf
    }

    fn finish_stream(mut self) -> io::Result<()> {
        if !self.in_payload {
            self.begin_payload();
        }
        let payload = self.section;
        let Sink::Stream(mut s) = self.sink else {
            unreachable!("finish_stream on a streaming encoder only")
        };
        if payload != s.payload {
            s.fail(format!(
                "the payload took {payload} bytes, {} when measured",
                s.payload
            ));
        }
        s.flush();
        if let Some(e) = s.error {
            return Err(e);
        }
        let sum = s.hasher.digest();
        s.out.write_all(&sum.to_le_bytes())
    }
}

/// The lengths of a filter's two sections, measured by running its encoder without storing.
fn measure<C: Codec>(filter: &C) -> (u64, u64) {
    let mut e = Encoder {
        sink: Sink::Measure { params: 0 },
        version: C::WRITE_VERSION,
        section: 0,
        in_payload: false,
    };
    filter.encode_params(&mut e);
    e.begin_payload();
    filter.encode_payload(&mut e);
    let Sink::Measure { params } = e.sink else {
        unreachable!("a measuring encoder")
    };
    (params, e.section)
}

/// The length of the file [`write_to`] writes for `filter`.
pub fn encoded_len<C: Codec>(filter: &C) -> u64 {
    let (params, payload) = measure(filter);
    let head = layout::head_len(params as usize) as u64;
    layout::payload_offset(head, payload).map_or(u64::MAX, |o| o.saturating_add(payload + 8))
}

/// Streams `filter`'s file into `out`: the header, the sections and the checksum, through a
/// 64 KiB buffer (reserved fallibly); the table is never copied whole. `out` is not flushed.
///
/// # Errors
/// I/O errors of `out`; `OutOfMemory` when the 64 KiB cannot be had; `InvalidData` if the
/// filter's encoding changed between the measuring and the writing pass (nothing valid was
/// written then).
pub fn write_to<C: Codec>(filter: &C, out: &mut dyn Write) -> io::Result<()> {
    let (params, payload) = measure(filter);
    if params > u64::from(MAX_PARAMS_LEN) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a parameter section of {params} bytes (readers take {MAX_PARAMS_LEN})"),
        ));
    }
    let mut stage = Vec::new();
    let mut held = Vec::new();
    stage
        .try_reserve_exact(STAGE)
        .and_then(|()| held.try_reserve_exact(params as usize))
        .map_err(|_| io::Error::new(io::ErrorKind::OutOfMemory, "no 64 KiB for the save"))?;
    let s = Stream {
        out,
        header: header(C::KIND, filter.key_hasher(), C::WRITE_VERSION),
        held,
        hasher: Xxh3Default::new(),
        stage,
        params,
        payload,
        error: None,
    };
    let mut e = Encoder {
        sink: Sink::Stream(s),
        version: C::WRITE_VERSION,
        section: 0,
        in_payload: false,
    };
    filter.encode_params(&mut e);
    e.begin_payload();
    filter.encode_payload(&mut e);
    e.finish_stream()
}
