//! A replica gate started from a saved snapshot (issue 39): its base filter is only read, the
//! rows added since the snapshot go into a small filter on top, and every answer stays true:
//! every registered address Taken, whether it was in the snapshot, added after it, or learnt
//! while the top filter was full.

mod common;

use filter_classic::ClassicBloom;
use filter_core::{Filter, KeyHasher};
use filter_cuckoo::CuckooFilter;
use filter_gate::snapshot::{self, HEADER};
use filter_gate::{Availability, Gate, GateError, Mark, SnapshotError, SqliteStore};

fn user(i: u64) -> String {
    format!("user{i}@replica.example")
}

/// A primary gate with `saved` users at its snapshot in `dir` and `after` more registered
/// since; returns the database's and the snapshot's paths.
fn primary(
    dir: &std::path::Path,
    saved: u64,
    after: u64,
) -> (std::path::PathBuf, std::path::PathBuf) {
    let (db, snap) = (dir.join("users.db"), dir.join("gate.snap"));
    let mut gate = Gate::rebuild(
        common::classic(10_000),
        SqliteStore::open(&db, "users").unwrap(),
    )
    .unwrap();
    for i in 0..saved {
        gate.register(&user(i)).unwrap();
    }
    gate.save(&snap).unwrap();
    for i in saved..saved + after {
        gate.register(&user(i)).unwrap();
    }
    (db, snap)
}

fn tempdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(common::table(tag));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn top(n: u64, hasher: KeyHasher) -> ClassicBloom {
    ClassicBloom::builder()
        .capacity(n)
        .fpr(0.01)
        .hasher(hasher)
        .build()
        .unwrap()
}

#[test]
fn a_replica_answers_taken_for_every_row_before_and_after_its_snapshot() {
    let dir = tempdir("replica");
    let (db, snap) = primary(&dir, 500, 300);
    let head = snapshot::read_head(&snap).unwrap();
    assert_eq!(
        head.filter_offset, HEADER as u64,
        "the filter starts on a page"
    );
    let (base, mark): (ClassicBloom, Mark) = snapshot::load(&snap).unwrap();
    assert_eq!(mark, head.mark);
    let hasher = base.hasher();
    let store = SqliteStore::open(&db, "users").unwrap();
    let (mut replica, caught_up) =
        Gate::replica(Box::new(base), mark, top(1_000, hasher), store).unwrap();
    assert_eq!(caught_up, 300, "the rows registered after the snapshot");
    assert_eq!(
        replica.filter().top().len(),
        300,
        "they went on top, the base is untouched"
    );
    for i in 0..800 {
        assert_eq!(
            replica.is_taken(&user(i)).unwrap(),
            Availability::Taken,
            "{}",
            user(i)
        );
    }
    let mut available = 0;
    for i in 800..10_800 {
        available += usize::from(replica.is_taken(&user(i)).unwrap() == Availability::Available);
    }
    assert_eq!(available, 10_000, "no stranger is taken");
    // The replica keeps learning: a row registered through it goes on top too.
    replica.register(&user(20_000)).unwrap();
    assert_eq!(
        replica.is_taken(&user(20_000)).unwrap(),
        Availability::Taken
    );
    assert_eq!(replica.filter().top().len(), 301);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_full_top_filter_sends_checks_to_the_database_and_loses_no_row() {
    let dir = tempdir("replica-full");
    let (db, snap) = primary(&dir, 200, 400);
    let (base, mark): (ClassicBloom, Mark) = snapshot::load(&snap).unwrap();
    let small = CuckooFilter::builder()
        .capacity(16)
        .fpr(0.01)
        .hasher(base.hasher())
        .build()
        .unwrap();
    let store = SqliteStore::open(&db, "users").unwrap();
    let (mut replica, _) = Gate::replica(Box::new(base), mark, small, store).unwrap();
    assert!(
        !replica.filter_trusted(),
        "a top filter that could not take every row is not trusted"
    );
    for i in 0..600 {
        assert_eq!(
            replica.is_taken(&user(i)).unwrap(),
            Availability::Taken,
            "{}",
            user(i)
        );
    }
    assert_eq!(
        replica.is_taken(&user(5_000)).unwrap(),
        Availability::Available
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_replica_refuses_a_top_filter_hashed_otherwise_and_a_mark_of_another_database() {
    let dir = tempdir("replica-refused");
    let (db, snap) = primary(&dir, 50, 0);
    let (base, mark): (ClassicBloom, Mark) = snapshot::load(&snap).unwrap();
    let h = base.hasher();
    let other = KeyHasher::new(h.kind(), h.seed() ^ 1).unwrap();
    let store = SqliteStore::open(&db, "users").unwrap();
    let err = Gate::replica(Box::new(base), mark, top(100, other), store).unwrap_err();
    assert!(matches!(err, GateError::Filter(_)), "{err}");
    // A fresh database has handed out no row id yet: the mark describes another one.
    let (base, mark): (ClassicBloom, Mark) = snapshot::load(&snap).unwrap();
    let hasher = base.hasher();
    let fresh = SqliteStore::open(dir.join("other.db"), "users").unwrap();
    let err = Gate::replica(Box::new(base), mark, top(100, hasher), fresh).unwrap_err();
    assert!(
        matches!(err, GateError::Snapshot(SnapshotError::Stale(_))),
        "{err}"
    );
    assert!(err.to_string().contains("save a new snapshot"), "{err}");
    std::fs::remove_dir_all(dir).unwrap();
}
