//! Issue 51, item 4: rows written with the notify trigger off (`SET session_replication_role =
//! replica`, as logical replication's apply and `pg_restore --disable-triggers` do, or `ALTER
//! TABLE ... DISABLE TRIGGER`) never reached a running gate: they stayed Available in `Gate`
//! and `SharedGate` until the next save or restart. The periodic catch-up by the commit-order
//! mark (`PgOptions::catch_up_every`) finds them within its period, feed or no feed, and in a
//! replica too. Each test prints how long the row took to be Taken.

mod common;

use std::time::{Duration, Instant};

use filter_classic::ClassicBloom;
use filter_core::Filter;
use filter_gate::{
    snapshot, Availability, Gate, GateError, PgOptions, PgStore, SharedGate, Stores,
};

/// The period the tests run with (the default is 10 s; see `DEFAULT_CATCH_UP_EVERY`).
const PERIOD: Duration = Duration::from_millis(200);
/// How long a row may take: the period, a catch-up, and a loaded machine's slack.
const BOUND: Duration = Duration::from_secs(10);

fn opts(feed: bool) -> PgOptions {
    PgOptions {
        feed,
        catch_up_every: Some(PERIOD),
        ..PgOptions::default()
    }
}

/// The two ways a row reaches the table without firing the trigger.
fn write_without_trigger(conn: &str, table: &str, email: &str, how: usize) {
    let mut c = common::client(conn);
    let sql = match how {
        0 => format!(
            "SET session_replication_role = replica;
             INSERT INTO {table} (email) VALUES ('{email}');
             RESET session_replication_role"
        ),
        _ => format!(
            "ALTER TABLE {table} DISABLE TRIGGER filter_gate_notify;
             INSERT INTO {table} (email) VALUES ('{email}');
             ALTER TABLE {table} ENABLE TRIGGER filter_gate_notify"
        ),
    };
    c.batch_execute(&sql).unwrap();
}

/// Checks `email` until it is Taken; returns how long that took, or fails after [`BOUND`].
fn taken_within(what: &str, email: &str, is_taken: &mut dyn FnMut(&str) -> Availability) {
    let start = Instant::now();
    while is_taken(email) != Availability::Taken {
        assert!(
            start.elapsed() < BOUND,
            "{what}: {email} still Available after {BOUND:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    eprintln!(
        "{what}: Taken {:?} after the commit (period {PERIOD:?})",
        start.elapsed()
    );
}

#[test]
fn rows_written_with_the_trigger_off_reach_a_running_gate_within_the_period() {
    let Some(conn) = common::pg() else { return };
    for feed in [true, false] {
        let table = common::pg_table(&conn, "trig_off");
        let store = PgStore::connect_with(&conn, &table, &opts(feed)).unwrap();
        let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
        let filter = ClassicBloom::builder()
            .capacity(1000)
            .fpr(0.01)
            .build_atomic()
            .unwrap();
        let stores = Stores::postgres(&conn, &table, &opts(feed)).unwrap();
        let shared = SharedGate::rebuild(filter, stores).unwrap();
        for how in 0..2 {
            let email = format!("replicated{how}@x.org");
            assert_eq!(gate.is_taken(&email).unwrap(), Availability::Available);
            assert_eq!(shared.is_taken(&email).unwrap(), Availability::Available);
            write_without_trigger(&conn, &table, &email, how);
            let what = format!("feed {feed}, way {how}");
            taken_within(&format!("Gate, {what}"), &email, &mut |e| {
                gate.is_taken(e).unwrap()
            });
            taken_within(&format!("SharedGate, {what}"), &email, &mut |e| {
                shared.is_taken(e).unwrap()
            });
        }
        drop((gate, shared));
        common::drop_pg(&conn, &table);
    }
}

/// A replica without the feed learns other writers' rows at its periodic catch-ups.
#[test]
fn a_replica_without_the_feed_learns_other_writers_rows() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "trig_replica");
    let dir = std::env::temp_dir().join(common::table("trig_replica"));
    std::fs::create_dir_all(&dir).unwrap();
    let snap = dir.join("gate.snap");
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut primary = Gate::rebuild(common::classic(1000), store).unwrap();
    primary.register("saved@x.org").unwrap();
    primary.save(&snap).unwrap();
    drop(primary);
    let (base, mark) = snapshot::load::<ClassicBloom>(&snap).unwrap();
    let top = ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .hasher(base.hasher())
        .build()
        .unwrap();
    let store = PgStore::connect_with(&conn, &table, &opts(false)).unwrap();
    let (mut replica, _) = Gate::replica(Box::new(base), mark, top, store).unwrap();
    assert_eq!(
        replica.is_taken("saved@x.org").unwrap(),
        Availability::Taken
    );
    common::client(&conn)
        .batch_execute(&format!(
            "INSERT INTO {table} (email) VALUES ('other@x.org')"
        ))
        .unwrap();
    let mut check = |e: &str| -> Availability {
        match replica.is_taken(e) {
            Ok(a) => a,
            Err(GateError::Store(s)) => panic!("{s}"),
            Err(e) => panic!("{e}"),
        }
    };
    taken_within("replica, no feed", "other@x.org", &mut check);
    drop(replica);
    common::drop_pg(&conn, &table);
    std::fs::remove_dir_all(dir).unwrap();
}
