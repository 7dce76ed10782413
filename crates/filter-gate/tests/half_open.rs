//! A connection on which the server stops answering mid-statement (issue 17: "a register hung
//! 95 s on a half-open connection"): a loopback proxy between the gate and PostgreSQL forwards,
//! then swallows every byte in both directions while keeping the sockets open, then forwards
//! again. The kernel sees a healthy connection all along, so only the store's own deadline can
//! end the call.

mod common;

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use filter_gate::{
    Availability, Gate, GateError, PgOptions, PgStore, Registration, Route, StoreErrorKind,
};

/// Forwards loopback connections to `target` while `forward` is set and swallows their bytes
/// while it is not. A connection that lost bytes is closed once forwarding resumes (its
/// protocol stream is broken), as a half-open connection is once the network comes back.
struct Proxy {
    port: u16,
    forward: Arc<AtomicBool>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    fn start(target: (String, u16)) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let forward = Arc::new(AtomicBool::new(true));
        let stop = Arc::new(AtomicBool::new(false));
        let (fwd, stp) = (Arc::clone(&forward), Arc::clone(&stop));
        std::thread::spawn(move || {
            while !stp.load(Ordering::Relaxed) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let Ok(server) = TcpStream::connect((target.0.as_str(), target.1)) else {
                            continue;
                        };
                        let lost = Arc::new(AtomicBool::new(false));
                        for (from, to) in [
                            (client.try_clone().unwrap(), server.try_clone().unwrap()),
                            (server, client),
                        ] {
                            let flags = [Arc::clone(&fwd), Arc::clone(&stp), Arc::clone(&lost)];
                            std::thread::spawn(move || pump(from, to, &flags));
                        }
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(5)),
                }
            }
        });
        Self {
            port,
            forward,
            stop,
        }
    }

    fn set_forwarding(&self, on: bool) {
        self.forward.store(on, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

/// Copies `from` to `to`; `flags` are [forward, stop, lost].
fn pump(mut from: TcpStream, mut to: TcpStream, flags: &[Arc<AtomicBool>; 3]) {
    let [forward, stop, lost] = flags;
    from.set_read_timeout(Some(Duration::from_millis(20)))
        .unwrap();
    let mut buf = [0u8; 16 * 1024];
    while !stop.load(Ordering::Relaxed) {
        match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                if forward.load(Ordering::SeqCst) && !lost.load(Ordering::SeqCst) {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                } else {
                    lost.store(true, Ordering::SeqCst);
                }
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if lost.load(Ordering::SeqCst) && forward.load(Ordering::SeqCst) {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    let _ = from.shutdown(Shutdown::Both);
    let _ = to.shutdown(Shutdown::Both);
}

/// The server's address from a `host=... port=...` connection string, and that string with the
/// proxy's port instead.
fn through_proxy(conn: &str) -> ((String, u16), Proxy, String) {
    let config = postgres::Config::from_str(conn).unwrap();
    let host = match &config.get_hosts()[0] {
        postgres::config::Host::Tcp(h) => h.clone(),
        other => panic!("the test needs a TCP server, not {other:?}"),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let proxy = Proxy::start((host.clone(), port));
    let proxied = conn
        .split_whitespace()
        .map(|kv| match kv.split_once('=') {
            Some(("port", _)) => format!("port={}", proxy.port),
            Some(("host", _)) => "host=127.0.0.1".to_owned(),
            _ => kv.to_owned(),
        })
        .collect::<Vec<_>>()
        .join(" ");
    ((host, port), proxy, proxied)
}

const STATEMENT: Duration = Duration::from_millis(300);
const CONNECT: Duration = Duration::from_millis(700);
/// What a call may take at most: the statement timeout, the second the store allows for the
/// server's cancellation, and slack for a loaded machine.
const BOUND: Duration = Duration::from_secs(4);

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

fn timeout_kind(r: Result<impl std::fmt::Debug, GateError>) -> StoreErrorKind {
    match r {
        Err(GateError::Store(e)) => e.kind,
        other => panic!("expected a store error, got {other:?}"),
    }
}

#[test]
fn a_server_that_stops_answering_fails_calls_in_time_and_the_gate_recovers() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "halfopen");
    let (_, proxy, proxied) = through_proxy(&conn);
    let opts = PgOptions {
        statement_timeout: STATEMENT,
        connect_timeout: CONNECT,
        ..PgOptions::default()
    };
    let store = PgStore::connect_with(&proxied, &table, &opts).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.register("a@x.org").unwrap(), Registration::Registered);

    proxy.set_forwarding(false);
    // Mid-statement: the INSERT is sent, nothing comes back.
    let (r, took) = timed(|| gate.register("b@x.org"));
    assert_eq!(timeout_kind(r), StoreErrorKind::Timeout);
    assert!(took < BOUND, "register took {took:?}");
    assert_eq!(gate.unsettled(), 1, "its outcome is unknown");
    // The next call reconnects, through the same silent path: the connect timeout ends it.
    let (r, took) = timed(|| gate.is_taken("a@x.org"));
    assert_eq!(timeout_kind(r), StoreErrorKind::Timeout);
    assert!(took < BOUND, "is_taken took {took:?}");
    // A filter "absent" needs no database.
    assert_eq!(gate.check("c@x.org").unwrap(), Route::FilterAbsent);

    proxy.set_forwarding(true);
    // Recovered by itself: a new connection, the unknown key asked of the database.
    assert_eq!(gate.is_taken("a@x.org").unwrap(), Availability::Taken);
    assert_eq!(
        gate.check("b@x.org").unwrap(),
        Route::Bypassed(Availability::Available),
        "the INSERT never reached the server"
    );
    assert_eq!(gate.register("b@x.org").unwrap(), Registration::Registered);
    assert_eq!(gate.unsettled(), 0);
    drop(gate);
    common::drop_pg(&conn, &table);
}

/// The fixture: without a statement timeout (hence without the store's deadline) the same
/// register waits for as long as the path stays silent.
#[test]
fn without_a_timeout_the_same_register_waits_as_long_as_the_silence() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "halfopen_fixture");
    let (_, proxy, proxied) = through_proxy(&conn);
    let opts = PgOptions {
        statement_timeout: Duration::ZERO,
        ..PgOptions::default()
    };
    let store = PgStore::connect_with(&proxied, &table, &opts).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    assert_eq!(gate.register("a@x.org").unwrap(), Registration::Registered);
    proxy.set_forwarding(false);
    let silence = BOUND + Duration::from_secs(1);
    let waiter = std::thread::spawn(move || {
        let (r, took) = timed(|| gate.register("b@x.org"));
        (r.is_err(), took)
    });
    std::thread::sleep(silence);
    assert!(!waiter.is_finished(), "the register must still be waiting");
    // The path comes back, the proxy closes the broken connection, and the call ends.
    proxy.set_forwarding(true);
    let (failed, took) = waiter.join().unwrap();
    // The waiter's clock starts when its thread runs, a little after this thread began the
    // silence (CI measured 4.9996 s against 5 s): 100 ms of slack for that start.
    let started_late = Duration::from_millis(100);
    assert!(
        failed && took + started_late >= silence,
        "{failed} after {took:?}"
    );
    common::drop_pg(&conn, &table);
}

/// The feed's connection goes silent too: the listener's heartbeat reports it lost, every check
/// then goes to the database (and fails in time while the path is silent, never answering
/// Available for a row committed meanwhile), and once the path is back the gate restarts the
/// feed and catches up by itself.
#[test]
fn a_silent_feed_is_noticed_and_restarted_by_itself() {
    let Some(conn) = common::pg() else { return };
    let table = common::pg_table(&conn, "halfopen_feed");
    let (_, proxy, proxied) = through_proxy(&conn);
    let opts = PgOptions {
        statement_timeout: STATEMENT,
        connect_timeout: CONNECT,
        feed: true,
        ..PgOptions::default()
    };
    let store = PgStore::connect_with(&proxied, &table, &opts).unwrap();
    let mut gate = Gate::rebuild(common::classic(1000), store).unwrap();
    proxy.set_forwarding(false);
    // Committed by another instance while the gate hears nothing.
    common::client(&conn)
        .batch_execute(&format!(
            "INSERT INTO {table} (email) VALUES ('during@x.org')"
        ))
        .unwrap();
    let start = Instant::now();
    while gate.filter_trusted() && start.elapsed() < Duration::from_secs(10) {
        let _ = gate.check("probe@x.org");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!gate.filter_trusted(), "the silent feed must be noticed");
    let (r, took) = timed(|| gate.is_taken("during@x.org"));
    assert_eq!(timeout_kind(r), StoreErrorKind::Timeout);
    assert!(took < BOUND + CONNECT, "is_taken took {took:?}");

    proxy.set_forwarding(true);
    let start = Instant::now();
    while !gate.filter_trusted() && start.elapsed() < Duration::from_secs(10) {
        if let Ok(a) = gate.is_taken("during@x.org") {
            assert_eq!(a, Availability::Taken);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(gate.filter_trusted(), "the feed must come back by itself");
    assert_eq!(gate.check("during@x.org").unwrap(), Route::ConfirmedTaken);
    drop(gate);
    common::drop_pg(&conn, &table);
}
