//! Loading the kind that has no `Filter::insert` and no registry row: the time window (inserts
//! at a caller's timestamp; the static filters are rows, loaded through `AnyFilter`). Whatever
//! loads must save back to the same bytes, report a rate in [0, 1], take inserts at any time
//! and find them, without panicking.

use filter_core::Persist;
use filter_window::{TimeWindow, Timestamp};

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
