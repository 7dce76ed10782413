//! The cross-instance window (issue 37, item 4): how long after instance A's `register` returns
//! instance B still answers Available. Two `SharedGate`s on one PostgreSQL table, each with the
//! LISTEN/NOTIFY feed; A registers a new address, B checks it at once and then polls until it
//! answers Taken. The lag is the time from A's return to B's first Taken, measured with B idle
//! and with B saving its filter in a loop (each save catches up over the whole table, seals and
//! writes the file, holding B's control lock all along).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use filterlab::gate::{Availability, PgOptions, PgStore, SharedGate, Stores};
use filterlab::{AtomicClassicBloom, ClassicBloom};
use serde::{Deserialize, Serialize};

use crate::measure::quantile;

/// The table both instances front.
const TABLE: &str = "filterlab_lag";
/// A registration B has not answered Taken after this long counts as unseen.
const BOUND: Duration = Duration::from_secs(5);
/// B's pause between two checks of the same address while it waits.
const POLL: Duration = Duration::from_micros(100);

/// The sizes of the lag measurement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LagLoad {
    /// Rows in the table before the measurement (what each of B's saves reads).
    pub preload: usize,
    /// Registrations through A per condition.
    pub registrations: usize,
}

/// The articles' scale: 2,000 registrations per condition over 1M rows.
pub fn full_load() -> LagLoad {
    LagLoad {
        preload: 1_000_000,
        registrations: 2_000,
    }
}

/// Seconds: 200 registrations per condition over 200k rows (the quick run's table size, so
/// that a save takes long enough to tell a feed held back for it from one drained meanwhile).
pub fn quick_load() -> LagLoad {
    LagLoad {
        preload: 200_000,
        registrations: 200,
    }
}

/// What B is doing while A registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LagCondition {
    /// Nothing but the checks.
    Idle,
    /// Saving its filter in a loop.
    Saving,
}

/// One condition's distribution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LagRow {
    /// What B was doing.
    pub condition: LagCondition,
    /// Registrations through A.
    pub registrations: u64,
    /// B's first check, right after A's `register` returned, answered Available.
    pub immediately_available: u64,
    /// Registrations B did not answer Taken within the bound (not in the percentiles).
    pub unseen: u64,
    /// Lag from A's return to B's first Taken, ms: median.
    pub p50_ms: f64,
    /// 90th percentile, ms.
    pub p90_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Largest, ms.
    pub max_ms: f64,
    /// Saves B completed meanwhile (0 when idle).
    pub saves: u64,
    /// Median save, ms (`None` when idle).
    pub save_p50_ms: Option<f64>,
}

/// The measurement.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LagResult {
    /// Rows in the table before the measurement.
    pub preload: u64,
    /// How long B waited for a registration before counting it unseen, ms.
    pub bound_ms: f64,
    /// B idle, then B saving.
    pub rows: Vec<LagRow>,
}

/// Measured, or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum LagOutcome {
    /// The lag was measured.
    Measured(LagResult),
    /// No PostgreSQL, or the run failed.
    NotMeasured {
        /// Why.
        why: String,
    },
}

impl Default for LagOutcome {
    /// What a report written before this measurement existed reads as.
    fn default() -> Self {
        Self::NotMeasured {
            why: "not run (the report predates the measurement)".into(),
        }
    }
}

type Instance = SharedGate<AtomicClassicBloom, PgStore>;

fn instance(conn: &str, capacity: u64) -> Result<Instance> {
    let filter = ClassicBloom::builder()
        .capacity(capacity)
        .fpr(0.01)
        .build_atomic()?;
    let stores = Stores::postgres(conn, TABLE, &PgOptions::default())?.with_pool_size(2);
    Ok(SharedGate::rebuild(filter, stores)?)
}

/// The table with `preload` rows (COPY, which notifies no listener).
fn setup(conn: &str, preload: usize) -> Result<()> {
    PgStore::drop_table(conn, TABLE)?;
    PgStore::create_table(conn, TABLE)?;
    let mut store = PgStore::connect(conn, TABLE)?;
    let emails: Vec<String> = (0..preload).map(|i| format!("member{i}@x.org")).collect();
    store.bulk_load(emails.iter().map(String::as_str))?;
    store.analyze()?;
    Ok(())
}

/// A registers `n` new addresses; returns B's lags (ms, the unseen left out), how many first
/// checks answered Available, and how many were never seen within [`BOUND`].
fn lags(a: &Instance, b: &Instance, tag: &str, n: usize) -> Result<(Vec<f64>, u64, u64)> {
    let (mut out, mut immediate, mut unseen) = (Vec::with_capacity(n), 0, 0);
    for i in 0..n {
        let key = format!("lag-{tag}-{i}@x.org");
        a.register(&key)?;
        let start = Instant::now();
        let mut answer = b.is_taken(&key)?;
        immediate += u64::from(answer == Availability::Available);
        while answer == Availability::Available && start.elapsed() < BOUND {
            std::thread::sleep(POLL);
            answer = b.is_taken(&key)?;
        }
        if answer == Availability::Taken {
            out.push(start.elapsed().as_secs_f64() * 1e3);
        } else {
            unseen += 1;
        }
    }
    Ok((out, immediate, unseen))
}

/// The distribution of `lags` under `condition`; `saves` are the save durations, ms.
fn row(
    condition: LagCondition,
    n: usize,
    (mut lags, immediate, unseen): (Vec<f64>, u64, u64),
    mut saves: Vec<f64>,
) -> LagRow {
    lags.sort_by(f64::total_cmp);
    saves.sort_by(f64::total_cmp);
    LagRow {
        condition,
        registrations: n as u64,
        immediately_available: immediate,
        unseen,
        p50_ms: quantile(&lags, 0.5),
        p90_ms: quantile(&lags, 0.9),
        p99_ms: quantile(&lags, 0.99),
        max_ms: lags.last().copied().unwrap_or(f64::NAN),
        saves: saves.len() as u64,
        save_p50_ms: (!saves.is_empty()).then(|| quantile(&saves, 0.5)),
    }
}

/// B saving to `snap` in a loop while A registers.
fn while_saving(a: &Instance, b: &Instance, snap: &Path, n: usize) -> Result<LagRow> {
    let stop = AtomicBool::new(false);
    let (measured, saves) = std::thread::scope(|s| {
        let saver = s.spawn(|| {
            let mut took = Vec::new();
            while !stop.load(Ordering::Relaxed) {
                let t = Instant::now();
                b.save(snap)?;
                took.push(t.elapsed().as_secs_f64() * 1e3);
            }
            Ok::<_, filterlab::gate::GateError>(took)
        });
        let measured = lags(a, b, "saving", n);
        stop.store(true, Ordering::Relaxed);
        (measured, saver.join())
    });
    let saves = match saves {
        Ok(r) => r?,
        Err(_) => bail!("the saving thread panicked"),
    };
    Ok(row(LagCondition::Saving, n, measured?, saves))
}

fn measure(conn: &str, load: &LagLoad) -> Result<LagResult> {
    setup(conn, load.preload)?;
    let capacity = (load.preload + 2 * load.registrations).max(1_000) as u64 * 2;
    let (a, b) = (instance(conn, capacity)?, instance(conn, capacity)?);
    let n = load.registrations;
    let idle = row(LagCondition::Idle, n, lags(&a, &b, "idle", n)?, Vec::new());
    let dir = std::env::temp_dir().join(format!("filterlab-lag-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let saving = while_saving(&a, &b, &dir.join("b.filter"), n);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(LagResult {
        preload: load.preload as u64,
        bound_ms: BOUND.as_secs_f64() * 1e3,
        rows: vec![idle, saving?],
    })
}

/// Runs the measurement on `pg` (a connection string, or why there is none); drops its table.
pub fn run(pg: Result<&str, &str>, load: &LagLoad) -> LagOutcome {
    let conn = match pg {
        Ok(c) => c,
        Err(why) => {
            return LagOutcome::NotMeasured {
                why: why.to_owned(),
            }
        }
    };
    eprintln!(
        "systems: cross-instance lag ({} registrations per condition, {} rows)",
        load.registrations, load.preload
    );
    let outcome = match measure(conn, load) {
        Ok(r) => LagOutcome::Measured(r),
        Err(e) => LagOutcome::NotMeasured {
            why: format!("the lag measurement failed: {e:#}"),
        },
    };
    let _ = PgStore::drop_table(conn, TABLE);
    outcome
}

#[cfg(test)]
mod tests;
