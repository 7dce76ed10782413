//! Loading a window counted in time (a row whose inserts take a timestamp, so `Filter::insert`
//! refuses). Whatever loads must save back to the same bytes, report a rate in [0, 1], take
//! inserts at any time and find them, without panicking.

use filterlab::{AnyFilter, Filter, Timestamp};

pub fn exercise_time(bytes: &[u8]) {
    let Ok(mut f) = AnyFilter::from_bytes(bytes) else {
        return;
    };
    assert_eq!(f.to_bytes(), bytes, "a loaded filter saves differently");
    let p = f.expected_fpr();
    assert!((0.0..=1.0).contains(&p), "expected_fpr {p}");
    let _ = (f.len(), f.capacity(), f.contains(b"probe"));
    for t in [0, 1, 1 << 20, u64::MAX / 2, u64::MAX].map(Timestamp) {
        let p = f.expected_fpr_at(t).expect("a time window");
        assert!((0.0..=1.0).contains(&p), "expected_fpr_at {p}");
        let _ = (f.len_at(t), f.contains_at(b"probe", t));
    }
    for (key, t) in [(&b"a"[..], 0), (b"b", 1_000), (b"c", u64::MAX)] {
        f.insert_at(key, Timestamp(t))
            .expect("a time window takes every insert");
        assert!(
            f.contains_at(key, Timestamp(t)).expect("a time window"),
            "false negative after loading"
        );
    }
}
