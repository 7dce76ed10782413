//! One gate for a server's threads: `&self` checks and registrations from many threads, on
//! SQLite and PostgreSQL, and recovery after every connection of the gate is cut.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use filter_classic::AtomicClassicBloom;
use filter_gate::{
    Availability, PgOptions, PgStore, Registration, SharedGate, SqliteStore, Startup, Store, Stores,
};

const THREADS: usize = 4;
const PER_THREAD: usize = 100;

fn atomic(n: u64) -> AtomicClassicBloom {
    filter_classic::ClassicBloom::builder()
        .capacity(n)
        .fpr(0.01)
        .build_atomic()
        .unwrap()
}

/// Each thread registers its own keys and checks them at once, and checks the other threads'
/// keys; then all threads register one common set of keys at once.
fn many_threads<S: Store + Send + 'static>(gate: &SharedGate<AtomicClassicBloom, S>) {
    std::thread::scope(|s| {
        for t in 0..THREADS {
            s.spawn(move || {
                for i in 0..PER_THREAD {
                    let key = format!("t{t}-{i}@x.org");
                    assert_eq!(gate.is_taken(&key).unwrap(), Availability::Available);
                    assert_eq!(gate.register(&key).unwrap(), Registration::Registered);
                    // Read-your-writes: right after the commit, from the same thread.
                    assert_eq!(gate.is_taken(&key).unwrap(), Availability::Taken);
                }
            });
        }
    });
    for t in 0..THREADS {
        for i in 0..PER_THREAD {
            let key = format!("t{t}-{i}@x.org");
            assert_eq!(gate.is_taken(&key).unwrap(), Availability::Taken, "{key}");
        }
    }
    let winners = AtomicU32::new(0);
    std::thread::scope(|s| {
        for _ in 0..THREADS {
            s.spawn(|| {
                for i in 0..50 {
                    if gate.register(&format!("common{i}@x.org")).unwrap()
                        == Registration::Registered
                    {
                        winners.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    assert_eq!(
        winners.load(Ordering::Relaxed),
        50,
        "one success per address"
    );
    assert_eq!(gate.unsettled(), 0);
}

fn sqlite_stores(db: &Path) -> Stores<SqliteStore> {
    let path = db.to_owned();
    Stores {
        control: SqliteStore::open(db, "users").unwrap(),
        make: Box::new(move || SqliteStore::open(&path, "users")),
        pool_size: THREADS as u32,
        checkout_timeout: Duration::from_secs(10),
    }
}

#[test]
fn many_threads_share_one_gate_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("gate-shared-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("users.db");
    let gate = SharedGate::rebuild(atomic(10_000), sqlite_stores(&db)).unwrap();
    many_threads(&gate);
    let snap = dir.join("users.filter");
    gate.save(&snap).unwrap();
    drop(gate);
    let (gate, startup) =
        SharedGate::open(&snap, sqlite_stores(&db), || Ok(atomic(10_000))).unwrap();
    assert!(
        matches!(startup, Startup::Loaded { caught_up: 0 }),
        "{startup:?}"
    );
    assert!(gate.filter().contains(b"t3-99@x.org"));
    std::fs::remove_dir_all(dir).unwrap();
}

fn pg_stores(conn: &str, table: &str) -> Stores<PgStore> {
    Stores::postgres(conn, table, &PgOptions::default())
        .unwrap()
        .with_pool_size(THREADS as u32)
}

#[test]
fn many_threads_share_one_gate_on_postgres() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "shared");
    let gate = SharedGate::rebuild(atomic(10_000), pg_stores(&conn, &table)).unwrap();
    many_threads(&gate);
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// Every connection of the gate is cut (as by a server restart): checks reconnect, and the
/// feed comes back by itself; meanwhile nothing committed is answered Available.
#[test]
fn a_gate_whose_connections_are_all_cut_recovers_by_itself() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "cutall");
    let app = format!("gate_cut_{}", std::process::id());
    let gate_conn = format!("{conn} application_name={app}");
    let gate = SharedGate::rebuild(atomic(1000), pg_stores(&gate_conn, &table)).unwrap();
    gate.register("before@x.org").unwrap();
    let mut admin = common::client(&conn);
    let killed: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
             WHERE application_name = $1",
            &[&app],
        )
        .unwrap()
        .get(0);
    assert!(killed >= 3, "pool, control and listener: {killed}");
    // Committed while the gate has no connection at all: only a catch-up can bring it in.
    admin
        .execute(
            &format!("INSERT INTO {table} (email) VALUES ('during@x.org')"),
            &[],
        )
        .unwrap();
    let start = Instant::now();
    let mut noticed = false;
    while start.elapsed() < Duration::from_secs(5) {
        gate.is_taken("probe@x.org").unwrap();
        noticed |= !gate.filter_trusted();
        if noticed && gate.filter_trusted() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(noticed, "the lost feed must be noticed");
    assert!(gate.filter_trusted(), "the feed must come back by itself");
    assert!(gate.filter().contains(b"during@x.org"), "caught up");
    // The pooled connections reconnect on their first use.
    assert_eq!(gate.is_taken("during@x.org").unwrap(), Availability::Taken);
    assert_eq!(gate.is_taken("before@x.org").unwrap(), Availability::Taken);
    assert_eq!(
        gate.register("after@x.org").unwrap(),
        Registration::Registered
    );
    drop(gate);
    common::drop_pg(&conn, &table);
}
