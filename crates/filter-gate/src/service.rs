//! A sign-up service with the gate in front of PostgreSQL, and its load generator (feature
//! `service`): the core of `examples/signup_service.rs`, also run by the harness's systems stage.
//!
//! [`run`] creates a table `signup_demo (id bigserial, email text unique, created_at,
//! password_hash text not null)` with a unique index on `lower(email)`, runs the migration (the
//! deployment step), loads [`LoadConfig::preload`] accounts, then serves HTTP on a loopback port
//! twice, once asking the database for every check ([`Mode::DbOnly`]) and once with the gate
//! ([`Mode::Gate`]), while [`LoadConfig::clients`] clients each run up to [`LoadConfig::ops`]
//! requests over keep-alive connections (stopping at [`LoadConfig::max_duration`]):
//! `GET /available?email=` (95% new addresses) and, for an available one, `POST /signup`; a
//! shared set of [`LoadConfig::contested`] addresses is then signed up by every client at once.
//! It reports throughput and p50/p99 of both request kinds per mode, and the number of
//! duplicate accounts (`count(*) - count(DISTINCT lower(email))`), which must be 0.
//!
//! The service inserts with its own SQL (the table has a NOT NULL column the gate knows nothing
//! of) and tells the gate with [`SharedGate::observe`] after the commit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use filter_classic::{AtomicClassicBloom, ClassicBloom};

use crate::{Availability, GateError, PgOptions, PgStore, SharedGate, StoreError, Stores};

type Gate = SharedGate<AtomicClassicBloom, PgStore>;

/// The demo table (dropped and created by [`run`]).
pub const TABLE: &str = "signup_demo";

/// Everything that can stop a service run.
#[derive(Debug)]
pub enum ServiceError {
    /// The gate failed.
    Gate(GateError),
    /// The gate's store (connect, migration) failed.
    Store(StoreError),
    /// The filter could not be built.
    Filter(filter_core::Error),
    /// The service's own SQL failed.
    Db(postgres::Error),
    /// The service's connection pool failed.
    Pool(r2d2::Error),
    /// A socket of the server or of a client failed.
    Io(std::io::Error),
    /// A client thread panicked.
    ClientPanicked,
}

impl std::fmt::Display for ServiceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Gate(e) => write!(f, "gate: {e}"),
            Self::Store(e) => write!(f, "gate store: {e}"),
            Self::Filter(e) => write!(f, "filter: {e}"),
            Self::Db(e) => write!(f, "database: {e}"),
            Self::Pool(e) => write!(f, "connection pool: {e}"),
            Self::Io(e) => write!(f, "socket: {e}"),
            Self::ClientPanicked => write!(f, "a load-generator client panicked"),
        }
    }
}

impl std::error::Error for ServiceError {}

macro_rules! from_error {
    ($($t:ty => $v:ident),*) => {$(
        impl From<$t> for ServiceError {
            fn from(e: $t) -> Self {
                Self::$v(e)
            }
        }
    )*};
}
from_error!(GateError => Gate, StoreError => Store, filter_core::Error => Filter,
    postgres::Error => Db, r2d2::Error => Pool, std::io::Error => Io);

/// The load: how many clients, how many checks each, how much is preloaded, and a time bound.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadConfig {
    /// Concurrent clients (and server threads); at least 1.
    pub clients: usize,
    /// Availability checks per client (each available one is followed by a sign-up).
    pub ops: usize,
    /// Accounts in the table before the load.
    pub preload: usize,
    /// Addresses every client then tries to sign up at once.
    pub contested: usize,
    /// A client stops its checks once this much time has passed in its mode.
    pub max_duration: Duration,
}

impl Default for LoadConfig {
    fn default() -> Self {
        Self {
            clients: 32,
            ops: 2000,
            preload: 100_000,
            contested: 200,
            max_duration: Duration::from_secs(60),
        }
    }
}

/// With or without the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every check asks the database.
    DbOnly,
    /// The gate answers checks; "maybe" asks the database.
    Gate,
}

impl Mode {
    fn tag(self) -> &'static str {
        match self {
            Self::DbOnly => "db-only",
            Self::Gate => "gate",
        }
    }
}

/// One mode's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct ModeReport {
    /// The mode.
    pub mode: Mode,
    /// Requests served (checks, sign-ups, contested sign-ups).
    pub requests: u64,
    /// Wall time of the load, seconds.
    pub seconds: f64,
    /// Availability checks timed.
    pub checks: u64,
    /// Sign-ups timed (after an "available" answer).
    pub signups: u64,
    /// Median availability check.
    pub check_p50: Duration,
    /// 99th percentile availability check.
    pub check_p99: Duration,
    /// Median sign-up.
    pub signup_p50: Duration,
    /// 99th percentile sign-up.
    pub signup_p99: Duration,
    /// Whether some client stopped at [`LoadConfig::max_duration`].
    pub hit_time_bound: bool,
    /// The gate's measured false-positive rate (gate mode only).
    pub gate_fpr: Option<f64>,
}

/// The whole run.
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceReport {
    /// The load.
    pub load: LoadConfig,
    /// Database only, then with the gate.
    pub modes: Vec<ModeReport>,
    /// `count(*) - count(DISTINCT lower(email))` after both modes: must be 0.
    pub duplicates: i64,
}

/// The service's state: the gate (or none: every check asks the database) and a pool of
/// plain clients for its own inserts.
struct Service {
    gate: Option<Gate>,
    db: r2d2::Pool<ClientMaker>,
}

struct ClientMaker(String);

impl r2d2::ManageConnection for ClientMaker {
    type Connection = postgres::Client;
    type Error = postgres::Error;
    fn connect(&self) -> Result<postgres::Client, postgres::Error> {
        postgres::Client::connect(&self.0, postgres::NoTls)
    }
    fn is_valid(&self, c: &mut postgres::Client) -> Result<(), postgres::Error> {
        c.simple_query("").map(|_| ())
    }
    fn has_broken(&self, c: &mut postgres::Client) -> bool {
        c.is_closed()
    }
}

impl Service {
    fn available(&self, email: &str) -> Result<bool, ServiceError> {
        if let Some(g) = &self.gate {
            return Ok(g.is_taken(email)? == Availability::Available);
        }
        let key = crate::Normalizer::default()
            .normalize(email)
            .map_err(GateError::from)?;
        let sql = format!("SELECT 1 FROM {TABLE} WHERE lower(email) = $1");
        Ok(self.db.get()?.query_opt(&sql, &[&key])?.is_none())
    }

    /// The team's own INSERT (with its NOT NULL column) of the normalised key, then `observe`
    /// after the commit, or `may_have_committed` when the outcome is unknown (the README's
    /// recipe).
    fn signup(&self, email: &str) -> Result<bool, ServiceError> {
        // The gate's key is the unique index's (see `Gate::key`); without a gate, the
        // normaliser's (the load's addresses are ASCII, which both fold alike).
        let key = match &self.gate {
            Some(g) => g.key(email)?,
            None => crate::Normalizer::default()
                .normalize(email)
                .map_err(GateError::from)?,
        };
        let sql = format!(
            "INSERT INTO {TABLE} (email, password_hash) VALUES ($1, 'x') ON CONFLICT DO NOTHING"
        );
        let inserted = match self.db.get()?.execute(&sql, &[&key]) {
            Ok(n) => n == 1,
            Err(e) => {
                // A refusal by the server committed nothing; any other error (a broken
                // connection, a lost answer) may have followed the commit.
                if let (None, Some(g)) = (e.as_db_error(), &self.gate) {
                    g.may_have_committed(&key)?;
                }
                return Err(e.into());
            }
        };
        if let Some(g) = &self.gate {
            g.observe(&key)?;
        }
        Ok(inserted)
    }

    fn handle(&self, method: &str, target: &str, body: &str) -> (u16, &'static str) {
        let answer = match (method, target.split_once('?')) {
            ("GET", Some(("/available", q))) => {
                let email = decode(q.strip_prefix("email=").unwrap_or(""));
                self.available(&email).map(|a| {
                    if a {
                        (200, "available")
                    } else {
                        (200, "taken")
                    }
                })
            }
            ("POST", None) if target == "/signup" => self.signup(body.trim()).map(|ok| {
                if ok {
                    (201, "registered")
                } else {
                    (409, "taken")
                }
            }),
            _ => return (404, "not found"),
        };
        answer.unwrap_or((503, "error"))
    }
}

fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = b
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (b[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(v)) => {
                out.push(v);
                i += 3;
            }
            (c, _) => {
                out.push(c);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Serves one keep-alive connection. Each response leaves in one write, without Nagle's delay
/// (a response split over writes waits for the client's delayed ACK, about 40 ms on Linux).
fn serve(service: &Service, stream: TcpStream) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut out = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            reader.read_line(&mut h)?;
            if h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap_or(0).min(4096);
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        let (code, text) = service.handle(method, target, &String::from_utf8_lossy(&body));
        let response = format!(
            "HTTP/1.1 {code} X\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        );
        out.write_all(response.as_bytes())?;
    }
}

/// One client of the load generator: a keep-alive connection.
struct Client {
    reader: BufReader<TcpStream>,
    out: TcpStream,
}

impl Client {
    fn connect(port: u16) -> std::io::Result<Self> {
        let s = TcpStream::connect(("127.0.0.1", port))?;
        s.set_nodelay(true)?;
        Ok(Self {
            out: s.try_clone()?,
            reader: BufReader::new(s),
        })
    }

    fn request(
        &mut self,
        method: &str,
        target: &str,
        body: &str,
    ) -> std::io::Result<(u16, String)> {
        let request = format!(
            "{method} {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        self.out.write_all(request.as_bytes())?;
        let mut status = String::new();
        self.reader.read_line(&mut status)?;
        let code = status
            .split_whitespace()
            .nth(1)
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let mut length = 0usize;
        loop {
            let mut h = String::new();
            self.reader.read_line(&mut h)?;
            if h.trim().is_empty() {
                break;
            }
            if let Some(v) = h.strip_prefix("Content-Length:") {
                length = v.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        self.reader.read_exact(&mut body)?;
        Ok((code, String::from_utf8_lossy(&body).into_owned()))
    }
}

#[derive(Default)]
struct Latencies {
    checks: Vec<Duration>,
    signups: Vec<Duration>,
    hit_time_bound: bool,
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Client `c`: up to `ops` checks (95% new addresses) before `deadline`, a sign-up for each
/// available one, then the contested addresses.
fn client_run(
    port: u16,
    c: usize,
    load: &LoadConfig,
    mode: Mode,
    deadline: Instant,
) -> Result<Latencies, ServiceError> {
    let mut client = Client::connect(port)?;
    let mut lat = Latencies::default();
    let mode = mode.tag();
    for i in 0..load.ops {
        if Instant::now() >= deadline {
            lat.hit_time_bound = true;
            break;
        }
        let email = if i % 20 == 0 && load.preload > 0 {
            format!("member{}@x.org", (c * 7919 + i) % load.preload)
        } else {
            format!("{mode}-c{c}-{i}@new.org")
        };
        let t = Instant::now();
        let (code, text) = client.request("GET", &format!("/available?email={email}"), "")?;
        lat.checks.push(t.elapsed());
        if code == 200 && text == "available" {
            let t = Instant::now();
            client.request("POST", "/signup", &email)?;
            lat.signups.push(t.elapsed());
        }
    }
    for k in 0..load.contested {
        client.request("POST", "/signup", &format!("{mode}-contested{k}@x.org"))?;
    }
    Ok(lat)
}

fn build_gate(conn: &str, load: &LoadConfig) -> Result<Gate, ServiceError> {
    let stores = Stores::postgres(conn, TABLE, &PgOptions::default())?
        .with_pool_size(load.clients as u32)
        .with_checkout_timeout(Duration::from_secs(10));
    let capacity = (load.preload + load.clients * (load.ops + load.contested)) as u64 * 2;
    let filter = ClassicBloom::builder()
        .capacity(capacity.max(1000))
        .fpr(0.01)
        .build_atomic()?;
    Ok(SharedGate::rebuild(filter, stores)?)
}

/// Serves on a loopback port with `clients` threads until `stop`; returns the port and the
/// threads (they return once `stop` is set and each has been woken by a connection).
type Servers = (u16, Vec<std::thread::JoinHandle<()>>);

fn start_servers(
    service: &Arc<Service>,
    n: usize,
    stop: &Arc<AtomicBool>,
) -> Result<Servers, ServiceError> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let mut threads = Vec::with_capacity(n);
    for _ in 0..n {
        let (l, s, stop) = (listener.try_clone()?, Arc::clone(service), Arc::clone(stop));
        threads.push(std::thread::spawn(move || {
            while let Ok((stream, _)) = l.accept() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let _ = serve(&s, stream);
            }
        }));
    }
    Ok((port, threads))
}

/// Runs the load against the service in one mode (the table must be set up, see [`run`]).
///
/// # Errors
/// The gate, the database or a socket failing.
pub fn run_mode(conn: &str, load: &LoadConfig, mode: Mode) -> Result<ModeReport, ServiceError> {
    let load = LoadConfig {
        clients: load.clients.max(1),
        ..load.clone()
    };
    let gate = match mode {
        Mode::Gate => Some(build_gate(conn, &load)?),
        Mode::DbOnly => None,
    };
    let db = r2d2::Pool::builder()
        .max_size(load.clients as u32)
        .build(ClientMaker(conn.to_owned()))?;
    let service = Arc::new(Service { gate, db });
    let stop = Arc::new(AtomicBool::new(false));
    let (port, servers) = start_servers(&service, load.clients, &stop)?;
    let start = Instant::now();
    let deadline = start + load.max_duration;
    let clients: Vec<_> = (0..load.clients)
        .map(|c| {
            let load = load.clone();
            std::thread::spawn(move || client_run(port, c, &load, mode, deadline))
        })
        .collect();
    let mut all = Latencies::default();
    let mut failed = None;
    for h in clients {
        match h.join() {
            Ok(Ok(l)) => {
                all.checks.extend(l.checks);
                all.signups.extend(l.signups);
                all.hit_time_bound |= l.hit_time_bound;
            }
            Ok(Err(e)) => failed = failed.or(Some(e)),
            Err(_) => failed = failed.or(Some(ServiceError::ClientPanicked)),
        }
    }
    let seconds = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for _ in 0..load.clients {
        let _ = TcpStream::connect(("127.0.0.1", port));
    }
    for t in servers {
        let _ = t.join();
    }
    if let Some(e) = failed {
        return Err(e);
    }
    let requests = all.checks.len() + all.signups.len() + load.clients * load.contested;
    Ok(ModeReport {
        mode,
        requests: requests as u64,
        seconds,
        checks: all.checks.len() as u64,
        signups: all.signups.len() as u64,
        check_p50: percentile(&mut all.checks, 0.5),
        check_p99: percentile(&mut all.checks, 0.99),
        signup_p50: percentile(&mut all.signups, 0.5),
        signup_p99: percentile(&mut all.signups, 0.99),
        hit_time_bound: all.hit_time_bound,
        gate_fpr: service.gate.as_ref().map(|g| g.fpr_report().rate),
    })
}

/// Creates [`TABLE`] with `preload` accounts and runs the migration (as the table's owner).
/// The unique indexes are built after the rows, as a first load is done: one sort each instead
/// of an index insertion per row.
///
/// # Errors
/// The database failing.
pub fn setup(conn: &str, preload: usize) -> Result<(), ServiceError> {
    let mut c = postgres::Client::connect(conn, postgres::NoTls)?;
    c.batch_execute(&format!(
        "DROP TABLE IF EXISTS {TABLE};
         CREATE TABLE {TABLE} (id bigserial PRIMARY KEY, email text,
             created_at timestamptz DEFAULT now(), password_hash text NOT NULL);"
    ))?;
    c.execute(
        &format!(
            "INSERT INTO {TABLE} (email, password_hash)
             SELECT 'member' || g || '@x.org', 'x' FROM generate_series(0, $1::int8 - 1) g"
        ),
        &[&(preload as i64)],
    )?;
    c.batch_execute(&format!(
        "ALTER TABLE {TABLE} ADD UNIQUE (email);
         CREATE UNIQUE INDEX ON {TABLE} (lower(email));
         ANALYZE {TABLE}"
    ))?;
    PgStore::migrate(conn, TABLE, "email")?;
    Ok(())
}

/// Sets up, runs both modes, counts the duplicate accounts and drops the table.
///
/// # Errors
/// The gate, the database or a socket failing (the table is dropped on a best-effort basis).
pub fn run(conn: &str, load: &LoadConfig) -> Result<ServiceReport, ServiceError> {
    setup(conn, load.preload)?;
    let modes = [Mode::DbOnly, Mode::Gate]
        .into_iter()
        .map(|m| run_mode(conn, load, m))
        .collect::<Result<Vec<_>, _>>();
    let mut c = postgres::Client::connect(conn, postgres::NoTls)?;
    let dup = c.query_one(
        &format!("SELECT count(*) - count(DISTINCT lower(email)) FROM {TABLE}"),
        &[],
    );
    let _ = c.batch_execute(&format!("DROP TABLE {TABLE}"));
    Ok(ServiceReport {
        load: load.clone(),
        modes: modes?,
        duplicates: dup?.get(0),
    })
}

#[cfg(test)]
mod tests;
