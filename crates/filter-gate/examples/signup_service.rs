//! A sign-up service with the gate in front of PostgreSQL, and a load generator, in one binary.
//!
//! ```text
//! eval "$(bash scripts/pg.sh start)"
//! cargo run --release -p filter-gate --example signup_service -- [--clients 32] [--ops 2000] [--preload 100000]
//! bash scripts/pg.sh stop
//! ```
//!
//! It creates a table `signup_demo (id bigserial, email text unique, created_at, password_hash
//! text not null)` with a unique index on `lower(email)` and runs the migration (the deployment
//! step), loads `--preload` accounts, then serves HTTP on a loopback port twice, once with the
//! gate and once asking the database for every check, while `--clients` clients each run `--ops`
//! requests over keep-alive connections: `GET /available?email=` (95% new addresses) and, for an
//! available one, `POST /signup`; a shared set of contested addresses is signed up by every
//! client at once. It prints throughput and p50/p99 of both request kinds per mode, and the
//! number of duplicate accounts (`count(*) - count(DISTINCT lower(email))`), which must be 0.
//!
//! The service inserts with its own SQL (the table has a NOT NULL column the gate knows nothing
//! of) and tells the gate with `SharedGate::observe` after the commit.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use filter_classic::{AtomicClassicBloom, ClassicBloom};
use filter_gate::{Availability, PgOptions, PgStore, SharedGate, Stores};

type Error = Box<dyn std::error::Error + Send + Sync>;
type Gate = SharedGate<AtomicClassicBloom, PgStore>;

const TABLE: &str = "signup_demo";
const CONTESTED: usize = 200;

struct Args {
    clients: usize,
    ops: usize,
    preload: usize,
}

fn args() -> Result<Args, Error> {
    let mut a = Args {
        clients: 32,
        ops: 2000,
        preload: 100_000,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value: usize = it.next().ok_or("a flag needs a value")?.parse()?;
        match flag.as_str() {
            "--clients" => a.clients = value.max(1),
            "--ops" => a.ops = value,
            "--preload" => a.preload = value,
            other => return Err(format!("unknown flag {other}").into()),
        }
    }
    Ok(a)
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
    fn available(&self, email: &str) -> Result<bool, Error> {
        if let Some(g) = &self.gate {
            return Ok(g.is_taken(email)? == Availability::Available);
        }
        let key = filter_gate::Normalizer::default().normalize(email)?;
        let sql = format!("SELECT 1 FROM {TABLE} WHERE lower(email) = $1");
        Ok(self.db.get()?.query_opt(&sql, &[&key])?.is_none())
    }

    /// The team's own INSERT (with its NOT NULL column), then `observe` after the commit.
    fn signup(&self, email: &str) -> Result<bool, Error> {
        let key = filter_gate::Normalizer::default().normalize(email)?;
        let sql = format!(
            "INSERT INTO {TABLE} (email, password_hash) VALUES ($1, 'x') ON CONFLICT DO NOTHING"
        );
        let inserted = self.db.get()?.execute(&sql, &[&key])? == 1;
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

/// Serves one keep-alive connection.
fn serve(service: &Service, stream: TcpStream) -> std::io::Result<()> {
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
        write!(
            out,
            "HTTP/1.1 {code} X\r\nContent-Length: {}\r\n\r\n{text}",
            text.len()
        )?;
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
        write!(
            self.out,
            "{method} {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )?;
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
}

fn percentile(v: &mut [Duration], p: f64) -> Duration {
    if v.is_empty() {
        return Duration::ZERO;
    }
    v.sort_unstable();
    v[((v.len() - 1) as f64 * p).round() as usize]
}

/// Client `c`: `ops` checks (95% new addresses), a sign-up for each available one, then the
/// contested addresses.
fn client_run(
    port: u16,
    c: usize,
    ops: usize,
    preload: usize,
    mode: &str,
) -> Result<Latencies, Error> {
    let mut client = Client::connect(port)?;
    let mut lat = Latencies::default();
    for i in 0..ops {
        let email = if i % 20 == 0 && preload > 0 {
            format!("member{}@x.org", (c * 7919 + i) % preload)
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
    for k in 0..CONTESTED {
        client.request("POST", "/signup", &format!("{mode}-contested{k}@x.org"))?;
    }
    Ok(lat)
}

fn build_gate(conn: &str, args: &Args) -> Result<Gate, Error> {
    let opts = PgOptions {
        feed: true,
        ..PgOptions::default()
    };
    let c = conn.to_owned();
    let stores = Stores {
        control: PgStore::connect_with(conn, TABLE, &opts)?,
        make: Box::new(move || PgStore::connect(&c, TABLE)),
        pool_size: args.clients as u32,
        checkout_timeout: Duration::from_secs(10),
    };
    let capacity = (args.preload + args.clients * (args.ops + CONTESTED)) as u64 * 2;
    let filter = ClassicBloom::builder()
        .capacity(capacity.max(1000))
        .fpr(0.01)
        .build_atomic()?;
    Ok(SharedGate::rebuild(filter, stores)?)
}

fn run_mode(conn: &str, args: &Args, with_gate: bool) -> Result<(), Error> {
    let mode = if with_gate { "gate" } else { "db-only" };
    let gate = if with_gate {
        Some(build_gate(conn, args)?)
    } else {
        None
    };
    let db = r2d2::Pool::builder()
        .max_size(args.clients as u32)
        .build(ClientMaker(conn.to_owned()))?;
    let service = Arc::new(Service { gate, db });
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let stop = Arc::new(AtomicBool::new(false));
    for _ in 0..args.clients {
        let (l, s, stop) = (
            listener.try_clone()?,
            Arc::clone(&service),
            Arc::clone(&stop),
        );
        std::thread::spawn(move || {
            while let Ok((stream, _)) = l.accept() {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let _ = serve(&s, stream);
            }
        });
    }
    let start = Instant::now();
    let handles: Vec<_> = (0..args.clients)
        .map(|c| {
            let (ops, preload) = (args.ops, args.preload);
            std::thread::spawn(move || client_run(port, c, ops, preload, mode))
        })
        .collect();
    let mut all = Latencies::default();
    for h in handles {
        let l = h.join().map_err(|_| "a client panicked")??;
        all.checks.extend(l.checks);
        all.signups.extend(l.signups);
    }
    let secs = start.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    for _ in 0..args.clients {
        let _ = TcpStream::connect(("127.0.0.1", port));
    }
    let requests = all.checks.len() + all.signups.len() + args.clients * CONTESTED;
    println!(
        "{mode:8} {:>9.0} req/s   check p50 {:>8.3} ms p99 {:>8.3} ms   sign-up p50 {:>8.3} ms p99 {:>8.3} ms",
        requests as f64 / secs,
        percentile(&mut all.checks, 0.5).as_secs_f64() * 1e3,
        percentile(&mut all.checks, 0.99).as_secs_f64() * 1e3,
        percentile(&mut all.signups, 0.5).as_secs_f64() * 1e3,
        percentile(&mut all.signups, 0.99).as_secs_f64() * 1e3,
    );
    if let Some(g) = &service.gate {
        let r = g.fpr_report();
        println!(
            "         gate: {:?}; measured FP rate {:.4}",
            g.counts(),
            r.rate
        );
    }
    Ok(())
}

fn setup(conn: &str, preload: usize) -> Result<(), Error> {
    let mut c = postgres::Client::connect(conn, postgres::NoTls)?;
    c.batch_execute(&format!(
        "DROP TABLE IF EXISTS {TABLE};
         CREATE TABLE {TABLE} (id bigserial PRIMARY KEY, email text UNIQUE,
             created_at timestamptz DEFAULT now(), password_hash text NOT NULL);
         CREATE UNIQUE INDEX ON {TABLE} (lower(email));"
    ))?;
    c.execute(
        &format!(
            "INSERT INTO {TABLE} (email, password_hash)
             SELECT 'member' || g || '@x.org', 'x' FROM generate_series(0, $1::int8 - 1) g"
        ),
        &[&(preload as i64)],
    )?;
    c.batch_execute(&format!("ANALYZE {TABLE}"))?;
    // The deployment step, as the table's owner.
    PgStore::migrate(conn, TABLE, "email")?;
    Ok(())
}

fn main() -> Result<(), Error> {
    let args = args()?;
    let conn = std::env::var("FILTERLAB_PG")
        .map_err(|_| "set FILTERLAB_PG (eval \"$(bash scripts/pg.sh start)\")")?;
    setup(&conn, args.preload)?;
    println!(
        "{} clients x {} checks, {} accounts preloaded, {CONTESTED} contested addresses",
        args.clients, args.ops, args.preload
    );
    run_mode(&conn, &args, false)?;
    run_mode(&conn, &args, true)?;
    let mut c = postgres::Client::connect(&conn, postgres::NoTls)?;
    let dup: i64 = c
        .query_one(
            &format!("SELECT count(*) - count(DISTINCT lower(email)) FROM {TABLE}"),
            &[],
        )?
        .get(0);
    println!("duplicate accounts: {dup}");
    c.batch_execute(&format!("DROP TABLE {TABLE}"))?;
    if dup != 0 {
        return Err(format!("{dup} duplicate accounts").into());
    }
    Ok(())
}
