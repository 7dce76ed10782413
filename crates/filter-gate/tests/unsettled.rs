//! The bounded set of registrations whose outcome is unknown: beyond its cap every check goes to
//! the database until a catch-up late enough to have read every such row, which the gates run
//! by themselves.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use filter_gate::{
    Availability, Gate, Insert, Route, SharedGate, SqliteStore, Store, StoreError, StoreErrorKind,
    StoreResult, Stores,
};

const SETTLE: Duration = Duration::from_millis(300);

/// A store whose connection breaks right after each INSERT committed while `cut` is set, and
/// whose statements may still commit `SETTLE` after a failure.
struct Cut {
    inner: SqliteStore,
    cut: Arc<AtomicBool>,
}

impl Store for Cut {
    common::forward_store!(inner => exists, scan_since);
    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        let done = self.inner.insert(email)?;
        if self.cut.load(Ordering::Relaxed) {
            return Err(StoreError::new(
                StoreErrorKind::Unavailable,
                "insert",
                "connection lost after the commit",
            ));
        }
        Ok(done)
    }
    fn settle_time(&self) -> Duration {
        SETTLE
    }
}

fn cut_store(db: &Path, cut: &Arc<AtomicBool>) -> StoreResult<Cut> {
    Ok(Cut {
        inner: SqliteStore::open(db, "users")?,
        cut: Arc::clone(cut),
    })
}

fn tmp(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("gate-unsettled-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn unknown_registrations_beyond_the_cap_send_every_check_to_the_database() {
    let dir = tmp("gate");
    let cut = Arc::new(AtomicBool::new(true));
    let store = cut_store(&dir.join("users.db"), &cut).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store)
        .unwrap()
        .with_unsettled_cap(3);
    for i in 0..5 {
        assert!(gate.register(&format!("k{i}@x.org")).is_err());
    }
    assert_eq!(gate.unsettled(), 3, "the cap holds");
    assert!(!gate.filter_trusted());
    // k4 was not tracked, and committed: the filter alone would say Available.
    assert!(!filter_core::Filter::contains(gate.filter(), b"k4@x.org"));
    assert_eq!(
        gate.check("k4@x.org").unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    // A catch-up too soon after the last dropped key does not restore trust.
    gate.catch_up().unwrap();
    assert!(!gate.filter_trusted());
    cut.store(false, Ordering::Relaxed);
    std::thread::sleep(SETTLE + Duration::from_millis(50));
    // The next check runs the catch-up by itself.
    assert_eq!(
        gate.check("new@x.org").unwrap(),
        Route::FilterAbsent,
        "trusted again"
    );
    assert_eq!(gate.unsettled(), 0, "the catch-up read every tracked key");
    assert_eq!(gate.check("k4@x.org").unwrap(), Route::ConfirmedTaken);
    drop(gate);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_shared_gate_keeps_the_same_cap() {
    let dir = tmp("shared");
    let db = dir.join("users.db");
    let cut = Arc::new(AtomicBool::new(true));
    let (db2, cut2) = (db.clone(), Arc::clone(&cut));
    let stores = Stores {
        control: cut_store(&db, &cut).unwrap(),
        make: Box::new(move || cut_store(&db2, &cut2)),
        pool_size: 2,
        checkout_timeout: Duration::from_secs(10),
    };
    let atomic = filter_classic::ClassicBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build_atomic()
        .unwrap();
    let gate = SharedGate::rebuild(atomic, stores)
        .unwrap()
        .with_unsettled_cap(2);
    for i in 0..4 {
        assert!(gate.register(&format!("k{i}@x.org")).is_err());
    }
    assert_eq!(gate.unsettled(), 2);
    assert!(!gate.filter_trusted());
    assert_eq!(
        gate.check("k3@x.org").unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    cut.store(false, Ordering::Relaxed);
    std::thread::sleep(SETTLE + Duration::from_millis(50));
    assert_eq!(gate.check("new@x.org").unwrap(), Route::FilterAbsent);
    assert!(gate.filter_trusted());
    assert_eq!(gate.unsettled(), 0);
    assert_eq!(gate.check("k3@x.org").unwrap(), Route::ConfirmedTaken);
    drop(gate);
    std::fs::remove_dir_all(dir).unwrap();
}
