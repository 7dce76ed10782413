//! Crash safety: a child process registers an address and is killed (SIGKILL) after the database
//! commit and before the filter insert. The restarted gate, loading the filter saved before the
//! registration, must still answer `Taken`.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use filter_classic::ClassicBloom;
use filter_core::Filter;
use filter_gate::{snapshot, Availability, Gate, PgStore, SqliteStore, Startup, Store};

const CHILD_ENV: &str = "FILTERLAB_GATE_CRASH_CHILD";
const VICTIM: &str = "victim@example.org";

/// The child: opens the gate from the saved filter, registers the victim and waits, after the
/// commit and before the filter insert, to be killed.
fn child_body(store_spec: &str, snap: &Path) {
    let (mut gate, _) =
        Gate::open(snap, store_from(store_spec), || Ok(common::classic(1000))).unwrap();
    let _ = gate.register_observed(VICTIM, || {
        println!("COMMITTED");
        std::thread::sleep(std::time::Duration::from_secs(120));
    });
}

/// Where a database is: `sqlite:<path>` or `pg:<table>` (on the server of `common::pg`).
fn store_from(spec: &str) -> Box<dyn Store> {
    match spec.split_once(':') {
        Some(("sqlite", path)) => Box::new(SqliteStore::open(path, "users").unwrap()),
        Some(("pg", table)) => {
            // In the child, FILTERLAB_PG names the parent's server.
            let conn = common::pg().expect("a PostgreSQL server");
            Box::new(PgStore::connect(&conn, table).unwrap())
        }
        _ => panic!("bad {CHILD_ENV}: {spec}"),
    }
}

/// The child's body; run only by `kill_between_commit_and_filter_insert`.
#[test]
#[ignore = "run by the crash tests as a child process"]
fn crash_child() {
    let spec = std::env::var(CHILD_ENV).expect("run by the crash tests only");
    let (store, snap) = spec.split_once('|').expect("store|snapshot");
    child_body(store, Path::new(snap));
    unreachable!("the parent kills this process before the registration returns");
}

fn kill_between_commit_and_filter_insert(store_spec: &str, dir: &Path) {
    let snap: PathBuf = dir.join("users.filter");
    // A saved filter that knows one earlier address, as a running service would have.
    {
        let mut gate = Gate::rebuild(common::classic(1000), store_from(store_spec)).unwrap();
        gate.register("earlier@example.org").unwrap();
        gate.save(&snap).unwrap();
    }
    let mut child = Command::new(std::env::current_exe().unwrap());
    if store_spec.starts_with("pg:") {
        // The child uses the parent's server, never one of its own.
        child.env("FILTERLAB_PG", common::pg().expect("a PostgreSQL server"));
    }
    let mut child = child
        .args([
            "--exact",
            "crash_child",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_ENV, format!("{store_spec}|{}", snap.display()))
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let out = BufReader::new(child.stdout.take().unwrap());
    let committed = out
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("COMMITTED"));
    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert!(
        committed.is_some(),
        "the child never reached the commit ({status})"
    );
    assert!(!status.success(), "the child must have been killed");

    // The saved filter alone does not know the victim: only the catch-up can bring it back.
    let (saved, _): (ClassicBloom, _) = snapshot::load(&snap).unwrap();
    assert!(
        !saved.contains(VICTIM.as_bytes()),
        "the fixture must not already hold the key"
    );

    let (mut gate, startup) =
        Gate::open(&snap, store_from(store_spec), || Ok(common::classic(1000))).unwrap();
    assert!(matches!(startup, Startup::Loaded { .. }), "{startup:?}");
    assert_eq!(gate.is_taken(VICTIM).unwrap(), Availability::Taken);
    assert!(gate.filter().contains(VICTIM.as_bytes()));
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gate-crash-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn a_kill_after_commit_still_answers_taken_on_sqlite() {
    let dir = tmpdir("sqlite");
    let spec = format!("sqlite:{}", dir.join("users.db").display());
    kill_between_commit_and_filter_insert(&spec, &dir);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_kill_after_commit_still_answers_taken_on_postgres() {
    let Some(conn) = common::pg() else { return };
    let dir = tmpdir("pg");
    let table = common::pg_table(&conn, "crash");
    kill_between_commit_and_filter_insert(&format!("pg:{table}"), &dir);
    common::drop_pg(&conn, &table);
    std::fs::remove_dir_all(dir).unwrap();
}
