//! Structure-aware loading: a valid filter of each variant is saved, its parameter and payload
//! sections are mutated (bytes, whole fields set to edge values, truncation, extension), and the
//! file is re-enveloped with correct section lengths and a recomputed checksum, so that every
//! input reaches the variant's decoder. A load must return an error or a filter that saves back
//! to the same bytes and answers queries, inserts and removals without panicking.
//!
//! The variants' files are also opened in place (`mapped.rs`), answering as the load does.
//!
//! The atomic forms go through the same envelope; Parquet's split-block filter has its own
//! layout (a Thrift compact header, then the bitset), mutated as two sections the same way.
#![no_main]

mod common;
mod load_more;
mod mapped;

use arbitrary::Arbitrary;
use common::{Pick, Shape};
use filterlab::blocked::parquet::ParquetBloom;
use filterlab::format::{self, Encoder};
use filterlab::{
    AnyFilter, AtomicBlockedBloom, AtomicClassicBloom, BlockedBloom, ClassicBloom, Error, FileKind,
    Filter, FormatError, Persist, Timestamp, Variant,
};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Value {
    Zero,
    One,
    Max,
    Pow2(u8),
    Add(i8),
    Raw(u64),
}

impl Value {
    fn apply(&self, old: u64) -> u64 {
        match *self {
            Value::Zero => 0,
            Value::One => 1,
            Value::Max => u64::MAX,
            Value::Pow2(e) => 1u64 << (e % 64),
            Value::Add(d) => old.wrapping_add(d as i64 as u64),
            Value::Raw(v) => v,
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Section {
    Params,
    Payload,
}

#[derive(Arbitrary, Debug)]
enum Edit {
    Byte {
        section: Section,
        at: u16,
        value: u8,
    },
    U64 {
        section: Section,
        at: u16,
        value: Value,
    },
    U32 {
        section: Section,
        at: u16,
        value: Value,
    },
    Truncate {
        section: Section,
        to: u16,
    },
    Extend {
        section: Section,
        by: u8,
        fill: u8,
    },
}

/// A variant of the registry, or a form only loading concerns.
#[derive(Arbitrary, Debug)]
enum Target {
    Variant(Pick),
    AtomicClassic,
    AtomicBlocked,
    /// `blocks` (mod 64, plus one) 32-byte blocks.
    Parquet {
        blocks: u8,
    },
}

#[derive(Arbitrary, Debug)]
struct Input {
    target: Target,
    shape: Shape,
    keys: u8,
    edits: Vec<Edit>,
}

fn pick<'a>(s: &Section, params: &'a mut Vec<u8>, payload: &'a mut Vec<u8>) -> &'a mut Vec<u8> {
    match s {
        Section::Params => params,
        Section::Payload => payload,
    }
}

fn set_field<const N: usize>(buf: &mut [u8], at: u16, value: &Value) {
    if buf.len() < N {
        return;
    }
    let at = usize::from(at) % (buf.len() - N + 1);
    let mut old = [0u8; 8];
    old[..N].copy_from_slice(&buf[at..at + N]);
    let new = value.apply(u64::from_le_bytes(old)).to_le_bytes();
    buf[at..at + N].copy_from_slice(&new[..N]);
}

fn apply(edit: &Edit, params: &mut Vec<u8>, payload: &mut Vec<u8>) {
    match edit {
        Edit::Byte { section, at, value } => {
            let buf = pick(section, params, payload);
            if !buf.is_empty() {
                let i = usize::from(*at) % buf.len();
                buf[i] = *value;
            }
        }
        Edit::U64 { section, at, value } => {
            set_field::<8>(pick(section, params, payload), *at, value)
        }
        Edit::U32 { section, at, value } => {
            set_field::<4>(pick(section, params, payload), *at, value)
        }
        Edit::Truncate { section, to } => {
            let buf = pick(section, params, payload);
            let len = usize::from(*to) % (buf.len() + 1);
            buf.truncate(len);
        }
        Edit::Extend { section, by, fill } => {
            let buf = pick(section, params, payload);
            buf.resize(buf.len() + usize::from(*by), *fill);
        }
    }
}

/// A filter as loading sees it: its file kind, its bytes, and its loader.
trait Loadable: Filter + Sized {
    fn kind(&self) -> FileKind;
    fn save(&self) -> Vec<u8>;
    fn load(bytes: &[u8]) -> Result<Self, FormatError>;
    /// Removes `key` where the variant can: `None` when it cannot (or did).
    fn remove_key(&mut self, _key: &[u8]) -> Option<Error> {
        None
    }
    /// Whether a plain insert is refused by design (a static filter, a window counted in time).
    fn refuses_plain_inserts(&self) -> bool {
        false
    }
}

impl Loadable for AnyFilter {
    fn kind(&self) -> FileKind {
        self.variant().kind()
    }
    fn save(&self) -> Vec<u8> {
        self.to_bytes()
    }
    fn load(bytes: &[u8]) -> Result<Self, FormatError> {
        AnyFilter::from_bytes(bytes)
    }
    fn remove_key(&mut self, key: &[u8]) -> Option<Error> {
        match self.remove(key) {
            Ok(()) | Err(Error::Unsupported { .. }) => None,
            Err(e) => Some(e),
        }
    }
    fn refuses_plain_inserts(&self) -> bool {
        let c = self.capabilities();
        c.static_set || c.timed
    }
}

macro_rules! persisted {
    ($($t:ty),*) => {$(
        impl Loadable for $t {
            fn kind(&self) -> FileKind {
                <$t as Persist>::KIND
            }
            fn save(&self) -> Vec<u8> {
                self.to_bytes()
            }
            fn load(bytes: &[u8]) -> Result<Self, FormatError> {
                <$t as Persist>::from_bytes(bytes)
            }
        }
    )*};
}
persisted!(AtomicClassicBloom, AtomicBlockedBloom);

/// Saves `f`, mutates its sections and re-envelopes them.
fn mutate<F: Loadable>(f: &F, edits: &[Edit]) -> Vec<u8> {
    mutate_bytes(&f.save(), f.kind(), edits)
}

fn mutate_bytes(bytes: &[u8], kind: FileKind, edits: &[Edit]) -> Vec<u8> {
    let mut d = format::decode(bytes, kind).expect("own bytes");
    let mut params = d.params.take(d.params.remaining()).unwrap().to_vec();
    let mut payload = d.payload.take(d.payload.remaining()).unwrap().to_vec();
    for e in edits {
        apply(e, &mut params, &mut payload);
    }
    // In the file's own version: the quotient and Aleph payloads differ between 2 and 3.
    let version = d.payload.format_version();
    let mut e = Encoder::of_version(kind, d.hasher, payload.len(), version);
    e.bytes(&params).begin_payload().bytes(&payload);
    e.finish()
}

/// Whatever loads must behave: re-save identically, answer, take inserts without losing them,
/// and give them back on removal where the variant removes.
fn exercise<F: Loadable>(bytes: &[u8]) {
    let Ok(mut f) = F::load(bytes) else {
        return;
    };
    assert_eq!(f.save(), bytes, "a loaded filter saves differently");
    let p = f.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    let _ = (
        f.len(),
        f.capacity(),
        f.size_in_bytes(),
        f.contains(b"probe"),
    );
    for key in [&b"a"[..], b"b", b"probe"] {
        match f.insert(key) {
            Ok(()) => {
                assert!(f.contains(key), "false negative after loading");
                if let Some(e) = f.remove_key(key) {
                    panic!("removing an inserted key failed: {e}");
                }
            }
            Err(
                Error::Full { .. }
                | Error::TooManyCopies { .. }
                | Error::MemoryCap { .. }
                | Error::OutOfMemory { .. },
            ) => {}
            Err(Error::SizeOverflow { .. }) => {}
            Err(Error::Unsupported { .. }) if f.refuses_plain_inserts() => {
                assert_eq!(f.save(), bytes, "a refused insert changed the filter");
            }
            Err(e) => panic!("unexpected insert error {e}"),
        }
    }
}

/// Inserts the input's keys, mutates the file and exercises it; returns the mutated file.
fn run<F: Loadable>(mut f: F, input: &Input) -> Vec<u8> {
    for i in 0..input.keys {
        let _ = f.insert(&[i]);
    }
    let bytes = mutate(&f, &input.edits);
    exercise::<F>(&bytes);
    bytes
}

fn classic(s: Shape) -> ClassicBloom {
    match common::build(Variant::Classic, s) {
        AnyFilter::Classic(f) => f,
        other => unreachable!("built {other:?}"),
    }
}

fn blocked(s: Shape) -> BlockedBloom {
    match common::build(Variant::Blocked, s) {
        AnyFilter::Blocked(f) => f,
        other => unreachable!("built {other:?}"),
    }
}

/// Parquet bytes: header and bitset mutated as the two sections; whatever loads keeps exactly
/// the bytes after its header as its bitset and has no false negatives.
fn parquet(blocks: u8, input: &Input) {
    let mut f = ParquetBloom::with_bytes(32 * (u64::from(blocks % 64) + 1)).expect("small");
    for i in 0..input.keys {
        f.insert(&[i]);
    }
    let bytes = f.to_bytes();
    let (header, bitset) = bytes.split_at(bytes.len() - f.size_in_bytes());
    let (mut header, mut bitset) = (header.to_vec(), bitset.to_vec());
    for e in &input.edits {
        apply(e, &mut header, &mut bitset);
    }
    header.extend(&bitset);
    let Ok(mut g) = ParquetBloom::from_bytes(&header) else {
        return;
    };
    // The header may have changed length: the bitset is whatever follows it, to the end.
    let tail = &header[header.len() - g.size_in_bytes()..];
    assert_eq!(g.bitset(), tail, "a loaded Parquet filter holds other bits");
    let _ = g.contains(b"probe");
    g.insert(b"probe");
    assert!(g.contains(b"probe"), "false negative after loading");
}

fuzz_target!(|input: Input| {
    let s = input.shape;
    match input.target {
        // A window counted in time takes its keys with a time (`Filter::insert` refuses).
        Target::Variant(pick) if pick.variant().capabilities().timed => {
            let mut f = common::build(pick.variant(), s);
            for i in 0..input.keys {
                let _ = f.insert_at(&[i], Timestamp(u64::from(i) * 3));
            }
            load_more::exercise_time(&mutate(&f, &input.edits));
        }
        Target::Variant(pick) => {
            let bytes = run(common::build(pick.variant(), s), &input);
            mapped::exercise(&bytes, AnyFilter::from_bytes(&bytes).ok().as_ref());
        }
        Target::AtomicClassic => drop(run(AtomicClassicBloom::from(classic(s)), &input)),
        Target::AtomicBlocked => drop(run(AtomicBlockedBloom::from(blocked(s)), &input)),
        Target::Parquet { blocks } => parquet(blocks, &input),
    }
});
