//! Issue 39: a read-only replica gate on a saved snapshot, its filter mapped in place
//! (`filterlab::gate::open_replica`): every row before and after the snapshot Taken, the mapped
//! base answering as the snapshot's filter loaded, and a filter off a page refused at open.
#![cfg(feature = "gate")]

mod common;

use filterlab::any::AnyFilter;
use filterlab::gate::{open_replica, snapshot, Availability, Gate, SqliteStore};
use filterlab::{BlockedBloom, ClassicBloom, Filter};

fn user(i: u64) -> String {
    format!("user{i}@mapped-replica.example")
}

#[test]
fn a_replica_on_a_mapped_snapshot_answers_taken_for_every_row_and_strangers_available() {
    let dir = common::tempdir("replica");
    let (db, snap) = (dir.path().join("users.db"), dir.path().join("gate.snap"));
    let filter = BlockedBloom::builder()
        .capacity(20_000)
        .fpr(0.01)
        .build()
        .unwrap();
    let mut primary = Gate::rebuild(filter, SqliteStore::open(&db, "users").unwrap()).unwrap();
    for i in 0..2_000 {
        primary.register(&user(i)).unwrap();
    }
    primary.save(&snap).unwrap();
    for i in 2_000..2_500 {
        primary.register(&user(i)).unwrap();
    }
    let top = |h| {
        ClassicBloom::builder()
            .capacity(5_000)
            .fpr(0.01)
            .hasher(h)
            .build()
    };
    let (mut replica, caught_up) =
        open_replica(&snap, top, SqliteStore::open(&db, "users").unwrap()).unwrap();
    assert_eq!(caught_up, 500);
    // The base is the snapshot's bytes, mapped: its type says so (`Layered<Mapped, _>`).
    let base = replica.filter().base();
    // The mapped base answers as the snapshot's filter loaded, member or stranger.
    let (loaded, _): (BlockedBloom, _) = snapshot::load(&snap).unwrap();
    for i in 0..10_000 {
        assert_eq!(
            base.contains(user(i).as_bytes()),
            loaded.contains(user(i).as_bytes())
        );
    }
    for i in 0..2_500 {
        assert_eq!(replica.is_taken(&user(i)).unwrap(), Availability::Taken);
    }
    for i in 2_500..12_500 {
        assert_eq!(replica.is_taken(&user(i)).unwrap(), Availability::Available);
    }
}

#[test]
fn a_filter_off_a_page_or_past_the_end_is_refused_and_the_snapshot_is_no_filter_at_zero() {
    let dir = common::tempdir("replica-offsets");
    let snap = dir.path().join("gate.snap");
    let db = dir.path().join("users.db");
    let filter = BlockedBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    let mut g = Gate::rebuild(filter, SqliteStore::open(&db, "users").unwrap()).unwrap();
    g.register("a@b.org").unwrap();
    g.save(&snap).unwrap();
    let head = snapshot::read_head(&snap).unwrap();
    assert!(AnyFilter::open_at(&snap, head.filter_offset)
        .unwrap()
        .contains(b"a@b.org"));
    let len = std::fs::metadata(&snap).unwrap().len();
    for bad in [56, 4095, len.next_multiple_of(4096)] {
        let e = AnyFilter::open_at(&snap, bad).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::InvalidInput | std::io::ErrorKind::InvalidData
            ),
            "offset {bad}: {e}"
        );
    }
    assert!(
        AnyFilter::open(&snap).is_err(),
        "a snapshot's header is not a filter's"
    );
}
