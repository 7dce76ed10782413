//! The own-INSERT path (a table with NOT NULL columns the gate knows nothing of): the team
//! inserts with its own SQL and tells the gate. When the COMMIT's reply is lost (a loopback
//! proxy forwards the COMMIT, lets the server answer, then drops the answer and the
//! connection), the row is committed and the team's call fails; the README says to call
//! `may_have_committed` on such an error, after which no gate answers Available for the row,
//! even without the feed.

mod common;

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use filter_gate::{Availability, Gate, PgStore, Route, SharedGate, Stores};

/// Forwards one loopback connection to the server. Once `armed`, the next message the client
/// sends (the COMMIT) is forwarded, and what the server sends from then on is dropped until
/// the COMMIT's answer (its `CommandComplete` tag, sent after the commit is visible) has come;
/// then both connections are closed: the client never hears that its COMMIT succeeded.
struct DropReply {
    port: u16,
    armed: Arc<AtomicBool>,
}

impl DropReply {
    fn start(server: (String, u16)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let armed = Arc::new(AtomicBool::new(false));
        let cut = Arc::new(AtomicBool::new(false));
        let (a, c) = (Arc::clone(&armed), Arc::clone(&cut));
        std::thread::spawn(move || {
            let (client, _) = listener.accept().unwrap();
            let upstream = TcpStream::connect((server.0.as_str(), server.1)).unwrap();
            let (c2, u2) = (client.try_clone().unwrap(), upstream.try_clone().unwrap());
            std::thread::spawn(move || to_server(c2, u2, &a, &c));
            to_client(upstream, client, &cut);
        });
        Self { port, armed }
    }
}

/// Client to server: the first message after `armed` sets `cut` once it is forwarded.
fn to_server(mut from: TcpStream, mut to: TcpStream, armed: &AtomicBool, cut: &AtomicBool) {
    let mut buf = [0u8; 16 * 1024];
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 || to.write_all(&buf[..n]).is_err() {
            break;
        }
        if armed.load(Ordering::SeqCst) {
            cut.store(true, Ordering::SeqCst);
        }
    }
}

/// Server to client: forwards until `cut`, then drops everything up to the COMMIT's answer
/// and closes both connections.
fn to_client(mut from: TcpStream, mut to: TcpStream, cut: &AtomicBool) {
    let mut buf = [0u8; 16 * 1024];
    let mut dropped = Vec::new();
    while let Ok(n) = from.read(&mut buf) {
        if n == 0 {
            break;
        }
        if cut.load(Ordering::SeqCst) {
            dropped.extend_from_slice(&buf[..n]);
            if dropped.windows(7).any(|w| w == b"COMMIT\0") {
                break;
            }
        } else if to.write_all(&buf[..n]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(Shutdown::Both);
    let _ = from.shutdown(Shutdown::Both);
}

/// A client of the team's own SQL, through a [`DropReply`] proxy.
fn team_client(conn: &str) -> (postgres::Client, DropReply) {
    let config = postgres::Config::from_str(conn).unwrap();
    let host = match &config.get_hosts()[0] {
        postgres::config::Host::Tcp(h) => h.clone(),
        other => panic!("the test needs a TCP server, not {other:?}"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let proxy = DropReply::start((host, port));
    let proxied = conn
        .split_whitespace()
        .map(|kv| match kv.split_once('=') {
            Some(("port", _)) => format!("port={}", proxy.port),
            Some(("host", _)) => "host=127.0.0.1".to_owned(),
            _ => kv.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    (common::client(&proxied), proxy)
}

/// The team's table: a NOT NULL column besides the key, so that only its own SQL can insert.
fn team_table(conn: &str) -> String {
    let t = common::table("own");
    common::client(conn)
        .batch_execute(&format!(
            "CREATE TABLE {t} (id bigserial PRIMARY KEY, email text NOT NULL UNIQUE,
                               password_hash text NOT NULL)"
        ))
        .unwrap();
    PgStore::migrate(conn, &t, "email").unwrap();
    t
}

/// The team's INSERT of `key`, whose COMMIT reaches the server but whose answer is lost.
/// Returns whether the team's call failed (it must) and the rows holding `key` afterwards.
fn insert_losing_the_reply(conn: &str, table: &str, key: &str) -> (bool, i64) {
    let (mut team, proxy) = team_client(conn);
    let mut tx = team.transaction().unwrap();
    tx.execute(
        &format!("INSERT INTO {table} (email, password_hash) VALUES ($1, 'h')"),
        &[&key],
    )
    .unwrap();
    proxy.armed.store(true, Ordering::SeqCst);
    let failed = tx.commit().is_err();
    let rows: i64 = common::client(conn)
        .query_one(
            &format!("SELECT count(*) FROM {table} WHERE email = $1"),
            &[&key],
        )
        .unwrap()
        .get(0);
    (failed, rows)
}

#[test]
fn a_commit_whose_answer_is_lost_is_not_answered_available() {
    let Some(conn) = common::pg() else { return };
    let table = team_table(&conn);
    // No feed: only the gate's own bookkeeping can keep the committed row from being
    // answered Available.
    let store = PgStore::connect(&conn, &table).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    let key = gate.normalizer().normalize(" Cut.Off@X.org").unwrap();
    let (failed, rows) = insert_losing_the_reply(&conn, &table, &key);
    assert!(failed, "the team's COMMIT must report the lost answer");
    assert_eq!(rows, 1, "the row did commit");
    // The README's recipe: on any such error, tell the gate the row may have committed.
    gate.may_have_committed(&key).unwrap();
    assert_eq!(gate.unsettled(), 1);
    assert_eq!(
        gate.check("cut.off@x.org").unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    assert_eq!(gate.unsettled(), 0, "settled: the database shows the row");
    assert_eq!(gate.check("cut.off@x.org").unwrap(), Route::ConfirmedTaken);
    drop(gate);
    common::drop_pg(&conn, &table);
}

#[test]
fn a_shared_gate_keeps_a_commit_whose_answer_is_lost_out_of_available() {
    let Some(conn) = common::pg() else { return };
    let table = team_table(&conn);
    let (c, t) = (conn.clone(), table.clone());
    let stores = Stores::new(move || PgStore::connect(&c, &t)).unwrap();
    let atomic = filter_classic::ClassicBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build_atomic()
        .unwrap();
    let gate = SharedGate::rebuild(atomic, stores).unwrap();
    let key = gate.normalizer().normalize("Shared.Cut@X.org").unwrap();
    let (failed, rows) = insert_losing_the_reply(&conn, &table, &key);
    assert!(failed && rows == 1, "failed {failed}, rows {rows}");
    gate.may_have_committed(&key).unwrap();
    assert_eq!(
        gate.check(&key).unwrap(),
        Route::Bypassed(Availability::Taken)
    );
    assert_eq!(gate.check(&key).unwrap(), Route::ConfirmedTaken);
    // A key whose INSERT never committed stays in the database's hands, and is then free.
    gate.may_have_committed("never@x.org").unwrap();
    for _ in 0..2 {
        assert_eq!(
            gate.check("never@x.org").unwrap(),
            Route::Bypassed(Availability::Available)
        );
    }
    drop(gate);
    common::drop_pg(&conn, &table);
}
