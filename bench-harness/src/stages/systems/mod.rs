//! The articles' two systems, end to end: a sign-up gate in front of SQLite and PostgreSQL (with
//! RedisBloom as the shared-filter alternative), and an exact unique-user counter; then every
//! claim of both articles with its measured value and a computed verdict.
//!
//! Entry points: [`run`] (starts the servers through `scripts/`, unless the environment names
//! them, and stops what it started); the claims are judged by [`crate::judge::systems`], and
//! [`crate::render::systems`] writes `systems.json` and `systems.md` into `out/`.

pub mod claims;
pub mod lag;
pub mod rolling;
pub mod sample;
mod servers;
pub mod service;
pub mod signup;
mod stage;
pub mod steps;
pub mod unique;

use std::path::PathBuf;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::record::Machine;

use crate::dataset::{self, DatasetSpec};
use claims::Claim;
use signup::SignupResult;
use steps::{Clock, Step, Timing};
use unique::UniqueResult;

pub use stage::Systems;

/// Timed sign-up checks per contender and store at the articles' sizes: a stated sample of
/// the workload (the table keeps its 10M rows). At 50k the p99's 95% interval spans the order
/// statistics of ranks n·0.99 ∓ 44 ([`sample`]), and the contenders that make a round trip per
/// check (the database alone, RedisBloom) are timed over 50k round trips instead of 1M (about
/// 25 s less than 100k at the rates of the run at 0002ac0, in a main job of ten minutes).
pub const SAMPLE_CHECKS: usize = 50_000;

/// Sizes of the systems stage.
#[derive(Clone, Debug)]
pub struct Config {
    /// The sizes and seed, written with the results.
    pub sizes: Settings,
    /// The load of the sign-up service.
    pub service: filter_gate::service::LoadConfig,
    /// The sizes of the cross-instance lag measurement.
    pub lag: lag::LagLoad,
    /// The project root (for `scripts/`).
    pub root: PathBuf,
    /// The machine and commit, written with the results.
    pub machine: Machine,
    /// The articles' Python filter's lookup, ns, measured earlier in the same run (the 170×
    /// claim is judged against it).
    pub python_lookup_ns: Option<f64>,
}

impl Config {
    /// The articles' sizes: 10M rows, a sample of [`SAMPLE_CHECKS`] timed checks at 95% new,
    /// 10M events over 2M users.
    pub fn full(root: PathBuf) -> Self {
        Self {
            sizes: Settings {
                rows: 10_000_000,
                checks: SAMPLE_CHECKS,
                new_share: 0.95,
                events: 10_000_000,
                users: 2_000_000,
                set_sizes: vec![1_000_000, 10_000_000],
                seed: 0x5157_e45e,
            },
            service: service::full_load(),
            lag: lag::full_load(),
            root,
            machine: Machine::default(),
            python_lookup_ns: None,
        }
    }

    /// A small run for `--quick` and CI.
    pub fn quick(root: PathBuf) -> Self {
        let full = Self::full(root);
        Self {
            sizes: Settings {
                rows: 200_000,
                checks: 10_000,
                events: 600_000,
                users: 120_000,
                set_sizes: vec![100_000],
                ..full.sizes
            },
            service: service::quick_load(),
            lag: lag::quick_load(),
            ..full
        }
    }
}

/// The sizes a systems run used (its [`Config`]'s `sizes`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Rows in the users table.
    pub rows: usize,
    /// Timed sign-up checks per contender and store: the sample every latency figure and its
    /// interval rest on.
    pub checks: usize,
    /// Share of checks that are new addresses.
    pub new_share: f64,
    /// Events of the unique-users stream.
    pub events: usize,
    /// User population of that stream.
    pub users: u64,
    /// Sizes of the HashSet measurements.
    pub set_sizes: Vec<u64>,
    /// Seed of the data.
    pub seed: u64,
}

/// Everything the stage measured, as written to `systems.json`; `systems.md` is rendered from
/// it alone ([`crate::render::systems::markdown`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SystemsResults {
    /// Where and how (the commit included).
    pub machine: Machine,
    /// The sizes.
    pub settings: Settings,
    /// The articles' Python filter's lookup in the same run, ns (`None`: not run).
    pub python_lookup_ns: Option<f64>,
    /// Rows in the users table.
    pub rows: u64,
    /// Sign-up results per store.
    pub signup: Vec<SignupResult>,
    /// Why PostgreSQL is missing, when it is.
    pub postgres_absent: Option<String>,
    /// The sign-up service under concurrent load.
    pub service: service::ServiceOutcome,
    /// How long after one instance registers another still answers Available.
    #[serde(default)]
    pub lag: lag::LagOutcome,
    /// The unique-users results.
    pub unique: UniqueResult,
    /// The rolling 24-hour count beside the daily reset.
    pub rolling: rolling::RollingResult,
    /// The claims with their measured values.
    pub claims: Vec<Claim>,
    /// Where the stage's time went.
    pub timing: Timing,
}

/// What [`sign_ups`] measured: the results per store, why PostgreSQL is missing (if it is), the
/// service's outcome and the cross-instance lag.
type SignUps = (
    Vec<SignupResult>,
    Option<String>,
    service::ServiceOutcome,
    lag::LagOutcome,
);

/// The sign-up gate on SQLite and, when a server can be had, PostgreSQL (RedisBloom in front
/// when Redis can be had), then the sign-up service under load and the cross-instance lag.
///
/// # Errors
/// SQLite or a filter failing.
fn sign_ups(
    cfg: &Config,
    members: &dataset::KeySet,
    work: &[(String, bool)],
    clock: &mut Clock,
) -> Result<SignUps> {
    let redis = servers::obtain(
        &cfg.root,
        "redis.sh",
        "FILTERLAB_REDIS",
        "FILTERLAB_REDIS_DIR",
    );
    let input = signup::Input {
        members,
        work,
        new_share: cfg.sizes.new_share,
    };
    let redis_url = redis.as_ref().map(|s| s.conn.clone()).map_err(Clone::clone);
    let mut bloom = clock.time(Step::RedisLoad, || signup::redis_front(redis_url, members));
    let dir = std::env::temp_dir().join(format!("filterlab-systems-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    eprintln!(
        "systems: sign-up on SQLite ({} rows, {} checks)",
        cfg.sizes.rows,
        work.len()
    );
    let mut results = vec![signup::run_sqlite(&dir, &input, &mut bloom, clock)?];
    let _ = std::fs::remove_dir_all(&dir);
    let pg = servers::obtain(&cfg.root, "pg.sh", "FILTERLAB_PG", "FILTERLAB_PG_DIR");
    let postgres_absent = match &pg {
        Ok(server) => {
            eprintln!("systems: sign-up on PostgreSQL");
            match signup::run_postgres(&server.conn, &input, &mut bloom, clock) {
                Ok(r) => {
                    results.push(r);
                    None
                }
                Err(e) => Some(format!("PostgreSQL failed: {e:#}")),
            }
        }
        Err(why) => Some(why.clone()),
    };
    let pg_conn = pg.as_ref().map(|s| s.conn.as_str()).map_err(String::as_str);
    let service = clock.time(Step::Service, || service::run(pg_conn, &cfg.service));
    let lag = clock.time(Step::Lag, || lag::run(pg_conn, &cfg.lag));
    drop((bloom, pg, redis));
    Ok((results, postgres_absent, service, lag))
}

/// Runs both scenarios.
///
/// # Errors
/// SQLite or a filter failing. A PostgreSQL or Redis server that cannot be had is reported in
/// the results, not an error.
pub fn run(cfg: &Config) -> Result<SystemsResults> {
    let mut clock = Clock::new();
    let sizes = &cfg.sizes;
    let (ds, work) = clock.time(Step::Dataset, || {
        let ds = dataset::generate(&DatasetSpec {
            members: sizes.rows,
            non_members: sizes.checks,
            seed: sizes.seed,
        });
        let work = signup::workload(
            &ds.members,
            &ds.non_members,
            sizes.checks,
            sizes.new_share,
            sizes.seed,
        );
        work.map(|w| (ds, w))
    })?;
    let (results, postgres_absent, service, lag) = sign_ups(cfg, &ds.members, &work, &mut clock)?;
    drop((ds, work));
    eprintln!(
        "systems: unique users ({} events over {} users)",
        sizes.events, sizes.users
    );
    let unique = clock.time(Step::Unique, || {
        unique::run(sizes.events, sizes.users, sizes.seed, &sizes.set_sizes)
    })?;
    eprintln!("systems: rolling 24-hour count");
    let rolling = clock.time(Step::Rolling, || {
        rolling::run(sizes.events, sizes.users, sizes.seed)
    })?;
    Ok(SystemsResults {
        machine: cfg.machine.clone(),
        settings: cfg.sizes.clone(),
        python_lookup_ns: cfg.python_lookup_ns,
        rows: cfg.sizes.rows as u64,
        signup: results,
        postgres_absent,
        service,
        lag,
        unique,
        rolling,
        // Judged from the measurements by `judge::systems` before the report is written.
        claims: Vec::new(),
        timing: clock.finish(),
    })
}

#[cfg(test)]
pub(crate) mod tests;
