//! Loading the kinds that have no `Filter::insert`: the static filters (built once from a key
//! set) and the time window (inserts at a caller's timestamp). Whatever loads must save back to
//! the same bytes, report a rate in [0, 1], and answer (the time window: take inserts at any
//! time and find them) without panicking.

use filter_core::{Persist, StaticFilter};
use filter_window::{TimeWindow, Timestamp};

pub fn exercise_static<F: StaticFilter + Persist>(bytes: &[u8]) {
    let Ok(f) = F::from_bytes(bytes) else {
        return;
    };
    assert_eq!(f.to_bytes(), bytes, "a loaded filter saves differently");
    let p = f.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    let _ = (f.len(), f.size_in_bytes(), f.bits_per_key());
    let keys: Vec<[u8; 2]> = (0..=255u8).map(|i| [b'p', i]).collect();
    let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
    let mut out = Vec::new();
    f.contains_batch(&refs, &mut out);
    let single: Vec<bool> = refs.iter().map(|k| f.contains(k)).collect();
    assert_eq!(out, single, "batch answers differ");
}

pub fn exercise_time(bytes: &[u8]) {
    let Ok(mut f) = TimeWindow::from_bytes(bytes) else {
        return;
    };
    assert_eq!(f.to_bytes(), bytes, "a loaded filter saves differently");
    for t in [0, 1, f.window(), u64::MAX / 2, u64::MAX].map(Timestamp) {
        let p = f.expected_fpr_at(t);
        assert!((0.0..=1.0).contains(&p), "expected_fpr_at {p}");
        let _ = (f.len_at(t), f.contains_at(b"probe", t));
    }
    for (key, t) in [(&b"a"[..], 0), (b"b", 1_000), (b"c", u64::MAX)] {
        f.insert_at(key, Timestamp(t))
            .expect("a time window takes every insert");
        assert!(
            f.contains_at(key, Timestamp(t)),
            "false negative after loading"
        );
    }
}
