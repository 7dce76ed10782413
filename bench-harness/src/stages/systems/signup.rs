//! The sign-up scenario: a users table with a unique index on `email`, and a stream of checks
//! (mostly new addresses) answered three ways: the database alone, the gate (a filterlab filter
//! in front), and RedisBloom in front of the database.

use std::time::Instant;

use anyhow::{Context, Result};
use filterlab::gate::{Gate, PgStore, Route, SqliteStore, Store};
use filterlab::{BlockedBloom, Filter};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;
use serde::{Deserialize, Serialize};

use super::sample::{self, Intervals};
use super::steps::{Clock, Step};
use crate::dataset::KeySet;

/// The filters' target false-positive rate (the article's 1%).
pub const TARGET_FPR: f64 = 0.01;
/// Interleaved rounds: each contender runs over each slice of the checks in turn.
pub const ROUNDS: usize = 4;

/// Which database holds the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum StoreKind {
    /// Embedded SQLite (a file in a temporary directory).
    Sqlite,
    /// A PostgreSQL 15 server on loopback.
    Postgres,
}

/// What answers a check first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Front {
    /// `SELECT 1 ... WHERE email = ?` for every check.
    DbOnly,
    /// filterlab's gate with a split-block filter at 1%.
    Gate,
    /// A RedisBloom filter at 1% (BF.EXISTS over loopback), then the database on "maybe".
    RedisBloom,
}

/// One contender's figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FrontResult {
    /// The contender.
    pub front: Front,
    /// Checks answered and timed: the stated sample ([`super::Settings::checks`]).
    pub checks: u64,
    /// Share of checks that reached the database.
    pub db_share: f64,
    /// Median latency per check, µs.
    pub p50_us: f64,
    /// 99th percentile latency per check, µs.
    pub p99_us: f64,
    /// Mean latency per check, µs.
    pub mean_us: f64,
    /// Checks per second (checks / summed check time).
    pub checks_per_s: f64,
    /// The 95% intervals of the latencies and the throughput over the sample.
    pub intervals: Intervals,
    /// Answers that differ from the truth (must be 0).
    pub wrong: u64,
    /// Bytes of the filter in front (none for DB-only).
    pub filter_bytes: Option<u64>,
    /// Seconds to build the front from the table (none for DB-only).
    pub build_s: Option<f64>,
}

/// The scenario on one store.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SignupResult {
    /// The database.
    pub store: StoreKind,
    /// Rows in the users table.
    pub rows: u64,
    /// Share of checks that were new addresses.
    pub new_share: f64,
    /// On-disk bytes of the unique index on `email`.
    pub index_bytes: Option<u64>,
    /// Seconds to load the table: the rows, the unique index built after them, the planner's
    /// statistics (and on PostgreSQL the migration's trigger).
    pub load_s: f64,
    /// Mean time of one filter lookup alone (no database, no normalisation), ns.
    pub filter_lookup_ns: f64,
    /// The gate's measured false-positive rate, its 95% Wilson interval and `expected_fpr()`.
    pub gate_fpr: (f64, f64, f64, f64),
    /// What timing one empty check costs (two clock reads), ns: included in every latency.
    pub timer_overhead_ns: f64,
    /// One row per contender.
    pub fronts: Vec<FrontResult>,
    /// Why RedisBloom is missing, when it is.
    pub redis_absent: Option<String>,
}

/// The timed checks, exactly `checks` of them: `(address, registered?)`, a share `new_share`
/// of new addresses (the first of `non_members`) and the rest drawn from the table's addresses
/// without repeats, shuffled with a fixed seed.
///
/// # Errors
/// Fewer new or registered addresses than the sample needs (the message says which size to
/// change).
pub fn workload(
    members: &KeySet,
    non_members: &KeySet,
    checks: usize,
    new_share: f64,
    seed: u64,
) -> Result<Vec<(String, bool)>> {
    let new = ((checks as f64 * new_share).round() as usize).min(checks);
    let old = checks - new;
    anyhow::ensure!(
        new <= non_members.len() && old <= members.len(),
        "{checks} checks at {new_share} new need {new} new and {old} registered addresses; \
         there are {} and {}: lower the checks or raise the rows",
        non_members.len(),
        members.len()
    );
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let picks = rand::seq::index::sample(&mut rng, members.len(), old);
    let as_str = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    let mut w: Vec<(String, bool)> = (0..new)
        .map(|i| (as_str(non_members.get(i)), false))
        .collect();
    w.extend(picks.iter().map(|i| (as_str(members.get(i)), true)));
    w.shuffle(&mut rng);
    Ok(w)
}

/// Latency samples of one contender.
#[derive(Default)]
struct Samples {
    ns: Vec<u64>,
    db: u64,
    wrong: u64,
}

impl Samples {
    /// The summed time of the checks, seconds.
    fn seconds(&self) -> f64 {
        self.ns.iter().sum::<u64>() as f64 / 1e9
    }

    fn finish(
        mut self,
        front: Front,
        filter_bytes: Option<u64>,
        build_s: Option<f64>,
    ) -> FrontResult {
        let n = self.ns.len();
        let s = sample::summarise(&mut self.ns);
        FrontResult {
            front,
            checks: n as u64,
            db_share: self.db as f64 / n.max(1) as f64,
            p50_us: s.p50_us,
            p99_us: s.p99_us,
            mean_us: s.mean_us,
            checks_per_s: s.checks_per_s,
            intervals: s.intervals,
            wrong: self.wrong,
            filter_bytes,
            build_s,
        }
    }
}

/// RedisBloom in front: a connection and the key of its filter.
pub struct Redis {
    conn: redis::Connection,
    key: String,
}

impl Redis {
    /// Connects and loads every address of `members` into a fresh BF at [`TARGET_FPR`]; returns
    /// the connection and the load time.
    ///
    /// # Errors
    /// Redis unreachable or without the module.
    pub fn load(url: &str, members: &KeySet, key: &str) -> Result<(Self, f64)> {
        let client = redis::Client::open(url)?;
        let mut conn = client.get_connection()?;
        let t = Instant::now();
        redis::cmd("DEL").arg(key).query::<()>(&mut conn)?;
        redis::cmd("BF.RESERVE")
            .arg(key)
            .arg(TARGET_FPR)
            .arg(members.len().max(1))
            .query::<()>(&mut conn)?;
        let keys: Vec<&[u8]> = members.iter().collect();
        for chunk in keys.chunks(10_000) {
            let mut c = redis::cmd("BF.MADD");
            c.arg(key);
            for k in chunk {
                c.arg(*k);
            }
            c.query::<Vec<i64>>(&mut conn)?;
        }
        Ok((
            Self {
                conn,
                key: key.to_owned(),
            },
            t.elapsed().as_secs_f64(),
        ))
    }

    fn exists(&mut self, email: &str) -> Result<bool> {
        Ok(redis::cmd("BF.EXISTS")
            .arg(&self.key)
            .arg(email)
            .query::<i64>(&mut self.conn)?
            == 1)
    }

    /// The filter's size as RedisBloom reports it (`BF.INFO key SIZE`).
    fn bytes(&mut self) -> Option<u64> {
        let v: redis::Value = redis::cmd("BF.INFO")
            .arg(&self.key)
            .arg("SIZE")
            .query(&mut self.conn)
            .ok()?;
        match v {
            redis::Value::Int(n) => Some(n as u64),
            redis::Value::Array(a) => match a.first() {
                Some(redis::Value::Int(n)) => Some(*n as u64),
                _ => None,
            },
            _ => None,
        }
    }
}

/// One check through `front`: `(taken, reached the database)`.
fn check<S: Store>(
    front: Front,
    gate: &mut Gate<BlockedBloom, S>,
    redis: Option<&mut Redis>,
    email: &str,
) -> Result<(bool, bool)> {
    Ok(match front {
        Front::DbOnly => (gate.store_mut().exists(email)?, true),
        Front::Gate => match gate.check(email)? {
            Route::FilterAbsent => (false, false),
            Route::ConfirmedTaken => (true, true),
            Route::FalsePositive => (false, true),
            Route::Bypassed(a) => (a == filterlab::gate::Availability::Taken, true),
        },
        Front::RedisBloom => {
            let r = redis.context("RedisBloom not connected")?;
            if r.exists(email)? {
                (gate.store_mut().exists(email)?, true)
            } else {
                (false, false)
            }
        }
    })
}

/// Runs the contenders over `work` in interleaved rounds.
fn run_fronts<S: Store>(
    gate: &mut Gate<BlockedBloom, S>,
    mut redis: Option<&mut Redis>,
    work: &[(String, bool)],
) -> Result<Vec<(Front, Samples)>> {
    let mut fronts = vec![
        (Front::DbOnly, Samples::default()),
        (Front::Gate, Samples::default()),
    ];
    if redis.is_some() {
        fronts.push((Front::RedisBloom, Samples::default()));
    }
    let slice = work.len().div_ceil(ROUNDS).max(1);
    for (round, part) in work.chunks(slice).enumerate() {
        // Rotate the order so no contender always runs first (colder caches).
        let n = fronts.len();
        for j in 0..n {
            let (front, samples) = &mut fronts[(round + j) % n];
            for (email, truth) in part {
                let t = Instant::now();
                let (taken, db) = check(*front, gate, redis.as_deref_mut(), email)?;
                samples.ns.push(t.elapsed().as_nanos() as u64);
                samples.db += u64::from(db);
                samples.wrong += u64::from(taken != *truth);
            }
        }
    }
    Ok(fronts)
}

fn filter_lookup_ns(filter: &BlockedBloom, work: &[(String, bool)]) -> f64 {
    let keys: Vec<&[u8]> = work
        .iter()
        .take(200_000)
        .map(|(e, _)| e.as_bytes())
        .collect();
    let t = Instant::now();
    let hits = keys
        .iter()
        .filter(|k| filter.contains(std::hint::black_box(k)))
        .count();
    std::hint::black_box(hits);
    t.elapsed().as_nanos() as f64 / keys.len().max(1) as f64
}

/// The cost of the timing itself: an empty check between two clock reads, mean ns.
fn timer_overhead_ns() -> f64 {
    const N: u64 = 100_000;
    let sum: u64 = (0..N)
        .map(|i| {
            let t = Instant::now();
            std::hint::black_box(i);
            t.elapsed().as_nanos() as u64
        })
        .sum();
    sum as f64 / N as f64
}

fn fresh_filter(rows: usize) -> Result<BlockedBloom> {
    Ok(BlockedBloom::builder()
        .capacity(rows.max(1) as u64)
        .fpr(TARGET_FPR)
        .build()?)
}

/// What the caller hands over: the table's addresses, the checks, and RedisBloom if reachable.
pub struct Input<'a> {
    /// Addresses in the table.
    pub members: &'a KeySet,
    /// The checks.
    pub work: &'a [(String, bool)],
    /// Share of new addresses among the checks.
    pub new_share: f64,
}

/// RedisBloom loaded with the table's addresses (shared by the SQLite and PostgreSQL runs), or
/// why there is none.
pub type RedisFront = std::result::Result<(Redis, f64), String>;

/// Connects to RedisBloom at `url` (or keeps the reason it is missing) and loads the table's
/// addresses into one filter, timed.
pub fn redis_front(url: std::result::Result<String, String>, members: &KeySet) -> RedisFront {
    let url = url?;
    Redis::load(&url, members, "filterlab:signup").map_err(|e| format!("RedisBloom at {url}: {e}"))
}

/// The loaded table on `store`, as the checks find it.
struct Loaded<S> {
    store: StoreKind,
    load_s: f64,
    index_bytes: Option<u64>,
    table: S,
}

fn finish<S: Store>(
    loaded: Loaded<S>,
    input: &Input<'_>,
    bloom: &mut RedisFront,
    clock: &mut Clock,
) -> Result<SignupResult> {
    let Loaded {
        store,
        load_s,
        index_bytes,
        table,
    } = loaded;
    let t = Instant::now();
    let mut gate =
        Gate::rebuild(fresh_filter(input.members.len())?, table)?.with_target_fpr(TARGET_FPR);
    let rebuild_s = t.elapsed().as_secs_f64();
    clock.record(Step::GateBuild(store), rebuild_s);
    let redis_absent = bloom.as_ref().err().cloned();
    let mut redis = bloom.as_mut().ok();
    let fronts = run_fronts(&mut gate, redis.as_mut().map(|(r, _)| r), input.work)?;
    for (front, samples) in &fronts {
        clock.record(Step::Checks(store, *front), samples.seconds());
    }
    let gate_bytes = gate.filter().size_in_bytes() as u64;
    let redis_build = redis.as_ref().map(|(_, s)| *s);
    let redis_bytes = redis.as_mut().and_then(|(r, _)| r.bytes());
    let fronts = fronts
        .into_iter()
        .map(|(f, s)| match f {
            Front::DbOnly => s.finish(f, None, None),
            Front::Gate => s.finish(f, Some(gate_bytes), Some(rebuild_s)),
            Front::RedisBloom => s.finish(f, redis_bytes, redis_build),
        })
        .collect();
    let r = gate.fpr_report();
    Ok(SignupResult {
        store,
        rows: input.members.len() as u64,
        new_share: input.new_share,
        index_bytes,
        load_s,
        filter_lookup_ns: filter_lookup_ns(gate.filter(), input.work),
        gate_fpr: (r.rate, r.interval.0, r.interval.1, r.expected),
        timer_overhead_ns: timer_overhead_ns(),
        fronts,
        redis_absent,
    })
}

/// The table's addresses as text (the generator writes UTF-8 only).
fn addresses(members: &KeySet) -> impl Iterator<Item = &str> {
    members
        .iter()
        .map(|k| std::str::from_utf8(k).unwrap_or_default())
}

/// The scenario on SQLite (a database file under `dir`), the table loaded as a first load is
/// done ([`SqliteStore::create_loaded`]: the rows, then the unique index).
///
/// # Errors
/// SQLite failing, a filter that cannot be built.
pub fn run_sqlite(
    dir: &std::path::Path,
    input: &Input<'_>,
    redis: &mut RedisFront,
    clock: &mut Clock,
) -> Result<SignupResult> {
    let path = dir.join("signup.db");
    let _ = std::fs::remove_file(&path);
    let t = Instant::now();
    let (table, _) = SqliteStore::create_loaded(&path, "users", addresses(input.members))?;
    let load_s = t.elapsed().as_secs_f64();
    clock.record(Step::Load(StoreKind::Sqlite), load_s);
    let loaded = Loaded {
        store: StoreKind::Sqlite,
        load_s,
        index_bytes: table.index_bytes().ok(),
        table,
    };
    finish(loaded, input, redis, clock)
}

/// The scenario on PostgreSQL (`conn`), in a table loaded as a first load is done
/// ([`PgStore::create_loaded`]: COPY, then the unique index) and dropped afterwards.
///
/// # Errors
/// The server failing, a filter that cannot be built.
pub fn run_postgres(
    conn: &str,
    input: &Input<'_>,
    redis: &mut RedisFront,
    clock: &mut Clock,
) -> Result<SignupResult> {
    let table = "filterlab_signup";
    PgStore::drop_table(conn, table)?;
    let t = Instant::now();
    PgStore::create_loaded(conn, table, addresses(input.members))?;
    let load_s = t.elapsed().as_secs_f64();
    clock.record(Step::Load(StoreKind::Postgres), load_s);
    let mut table_store = PgStore::connect(conn, table)?;
    let loaded = Loaded {
        store: StoreKind::Postgres,
        load_s,
        index_bytes: table_store.index_bytes().ok(),
        table: table_store,
    };
    let result = finish(loaded, input, redis, clock);
    PgStore::drop_table(conn, table)?;
    result
}
