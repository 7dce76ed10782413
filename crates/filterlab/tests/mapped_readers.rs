//! Issue 39: a save while eight readers have the file mapped neither crashes a reader nor
//! changes its answers (saves write a new file and rename it; a mapping keeps the old one).

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::Filter;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Barrier};

mod common;
use common::tempdir;

fn key(i: u64) -> Vec<u8> {
    format!("reader{i}@example.com").into_bytes()
}

fn filled(range: std::ops::Range<u64>) -> AnyFilter {
    let mut f = AnyFilter::build(Variant::Blocked, &Params::new(200_000, 0.01)).unwrap();
    for i in range {
        f.insert(&key(i)).unwrap();
    }
    f
}

#[test]
fn a_save_while_eight_readers_are_mapped_changes_none_of_their_answers() {
    let dir = tempdir("readers");
    let path = dir.path().join("shared.bin");
    filled(0..100_000).save(&path).unwrap();
    // What the first file answers for members and strangers alike.
    let probes: Vec<Vec<u8>> = (0..200_000).step_by(7).map(key).collect();
    let expected: Vec<bool> = {
        let m = AnyFilter::open(&path).unwrap();
        probes.iter().map(|k| m.contains(k)).collect()
    };
    let (probes, expected) = (Arc::new(probes), Arc::new(expected));
    let start = Arc::new(Barrier::new(9));
    let done = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..8)
        .map(|_| {
            let (path, probes, expected) = (path.clone(), probes.clone(), expected.clone());
            let (start, done) = (start.clone(), done.clone());
            std::thread::spawn(move || {
                let m = AnyFilter::open(&path).unwrap();
                start.wait();
                let mut rounds = 0u32;
                while !done.load(Ordering::Relaxed) || rounds < 3 {
                    let answers: Vec<bool> = probes.iter().map(|k| m.contains(k)).collect();
                    assert!(answers == *expected, "an answer changed under a save");
                    rounds += 1;
                }
                m.verify().unwrap();
                rounds
            })
        })
        .collect();
    start.wait();
    // Other filters saved over the path, again and again, while the readers run.
    for round in 0..6u64 {
        let other = filled(round * 1000 + 500_000..round * 1000 + 600_000);
        other.save(&path).unwrap();
    }
    done.store(true, Ordering::Relaxed);
    for r in readers {
        assert!(r.join().expect("a reader crashed") >= 3);
    }
    // A new open sees the new file.
    let now = AnyFilter::open(&path).unwrap();
    assert!((505_000..600_000)
        .step_by(97)
        .all(|i| now.contains(&key(i))));
}
