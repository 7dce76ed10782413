//! The open in place of a fuzzed file (issue 39): whatever opens answers without panicking, as
//! the loaded filter does where the file also loads, and passes `verify` (the fuzzer's files
//! have their checksums recomputed); an open refuses nothing that loads.

use filterlab::any::Mapped;
use filterlab::{AnyFilter, Explain, Filter};

/// `bytes` written to a file of this process and opened in place; `None` when the open
/// refuses it. The file is also loaded from its path (a version 2 file streams its tables
/// from the file): it must load exactly as the bytes do, to the same filter or to an error.
fn open(bytes: &[u8]) -> Option<Mapped> {
    let path = std::env::temp_dir().join(format!("filterlab-fuzz-{}.bin", std::process::id()));
    std::fs::write(&path, bytes).expect("a temporary file");
    let streamed = AnyFilter::load(&path).map(|f| f.to_bytes());
    let copied = AnyFilter::from_bytes(bytes).map(|f| f.to_bytes());
    assert_eq!(streamed.is_ok(), copied.is_ok(), "a load from the file and from its bytes disagree");
    if let (Ok(a), Ok(b)) = (&streamed, &copied) {
        assert_eq!(a, b, "a load from the file and from its bytes give different filters");
    }
    let opened = AnyFilter::open(&path).ok();
    // The mapping keeps the file; the name can go (and the next input reuses it).
    let _ = std::fs::remove_file(&path);
    opened
}

const PROBES: [&[u8]; 5] = [b"a", b"b", b"probe", b"", b"\xff\x00"];

/// Opens `bytes` in place and checks it against `loaded`, the filter loaded from them if any.
pub fn exercise(bytes: &[u8], loaded: Option<&AnyFilter>) {
    let Some(m) = open(bytes) else {
        if let Some(f) = loaded {
            assert!(
                !f.capabilities().in_place,
                "a {} file that loads was refused in place",
                f.variant()
            );
        }
        return;
    };
    let mut batch = Vec::new();
    m.contains_batch(&PROBES, &mut batch);
    let single: Vec<bool> = PROBES.iter().map(|k| m.contains(k)).collect();
    assert_eq!(batch, single, "batch answers differ in place");
    // The other read-only lookups: copies (a quotient filter's run, a counting filter's
    // counters) and the positions a key touches.
    for (k, &present) in PROBES.iter().zip(&single) {
        if let Ok(n) = m.count_hash(m.hasher().hash(k)) {
            assert_eq!(n > 0, present, "count and contains differ in place");
        }
        let _ = m.positions(k);
    }
    let p = m.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p} in place");
    m.verify().expect("a file with recomputed checksums verifies");
    if let Some(f) = loaded {
        let theirs: Vec<bool> = PROBES.iter().map(|k| f.contains(k)).collect();
        assert_eq!(single, theirs, "in place and loaded answer differently");
        assert_eq!(m.to_bytes(), f.to_bytes(), "in place and loaded save differently");
    }
}
