//! The sign-up service in use (issue 17, "Show it in a real service"): `filter_gate::service`
//! (the core of `examples/signup_service.rs`) on the stage's PostgreSQL, many concurrent
//! keep-alive clients on loopback, with and without the gate: throughput, p50/p99 of sign-ups
//! and availability checks, and the count of duplicate accounts (must be 0).

use std::time::Duration;

use filter_gate::service::{self, LoadConfig, Mode, ModeReport, ServiceReport};
use serde::{Deserialize, Serialize};

/// The articles' scale: 32 clients × 250 checks over 1M preloaded accounts, then 200 contested
/// addresses signed up by every client at once; at most 6 s of checks per mode. The checks are
/// a sample (8k per mode, 80 of them above the p99); the duplicate count covers every account,
/// whatever the sample.
pub fn full_load() -> LoadConfig {
    LoadConfig {
        clients: 32,
        ops: 250,
        preload: 1_000_000,
        contested: 200,
        max_duration: Duration::from_secs(6),
    }
}

/// Seconds: 8 clients × 150 checks over 20k accounts, at most 10 s per mode.
pub fn quick_load() -> LoadConfig {
    LoadConfig {
        clients: 8,
        ops: 150,
        preload: 20_000,
        contested: 20,
        max_duration: Duration::from_secs(10),
    }
}

/// With or without the gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ServiceMode {
    /// Every availability check asks the database.
    DbOnly,
    /// The gate answers; "maybe" asks the database.
    Gate,
}

/// One mode's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModeResult {
    /// The mode.
    pub mode: ServiceMode,
    /// Requests served (checks, sign-ups, contested sign-ups).
    pub requests: u64,
    /// Wall time of the load, seconds.
    pub seconds: f64,
    /// Availability checks timed.
    pub checks: u64,
    /// Sign-ups timed.
    pub signups: u64,
    /// Median availability check, µs.
    pub check_p50_us: f64,
    /// 99th percentile availability check, µs.
    pub check_p99_us: f64,
    /// Median sign-up, µs.
    pub signup_p50_us: f64,
    /// 99th percentile sign-up, µs.
    pub signup_p99_us: f64,
    /// Whether a client stopped at the time bound (fewer checks than asked).
    pub hit_time_bound: bool,
    /// The gate's measured false-positive rate (gate mode).
    pub gate_fpr: Option<f64>,
}

/// The service run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServiceResult {
    /// Concurrent clients (and server threads).
    pub clients: u64,
    /// Availability checks asked of each client.
    pub ops_per_client: u64,
    /// Accounts in the table before the load.
    pub preload: u64,
    /// Addresses every client signs up at once.
    pub contested: u64,
    /// The time bound per mode, seconds.
    pub max_seconds: f64,
    /// Database only, then with the gate.
    pub modes: Vec<ModeResult>,
    /// `count(*) - count(DISTINCT lower(email))` after both modes.
    pub duplicates: i64,
}

/// Measured, or why not.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum ServiceOutcome {
    /// The service ran.
    Measured(ServiceResult),
    /// No PostgreSQL, or the run failed.
    NotMeasured {
        /// Why.
        why: String,
    },
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn mode_result(m: &ModeReport) -> ModeResult {
    ModeResult {
        mode: match m.mode {
            Mode::DbOnly => ServiceMode::DbOnly,
            Mode::Gate => ServiceMode::Gate,
        },
        requests: m.requests,
        seconds: m.seconds,
        checks: m.checks,
        signups: m.signups,
        check_p50_us: us(m.check_p50),
        check_p99_us: us(m.check_p99),
        signup_p50_us: us(m.signup_p50),
        signup_p99_us: us(m.signup_p99),
        hit_time_bound: m.hit_time_bound,
        gate_fpr: m.gate_fpr,
    }
}

fn result(r: &ServiceReport) -> ServiceResult {
    ServiceResult {
        clients: r.load.clients as u64,
        ops_per_client: r.load.ops as u64,
        preload: r.load.preload as u64,
        contested: r.load.contested as u64,
        max_seconds: r.load.max_duration.as_secs_f64(),
        modes: r.modes.iter().map(mode_result).collect(),
        duplicates: r.duplicates,
    }
}

/// Runs the service on `pg` (a connection string, or why there is none).
pub fn run(pg: Result<&str, &str>, load: &LoadConfig) -> ServiceOutcome {
    let conn = match pg {
        Ok(c) => c,
        Err(why) => {
            return ServiceOutcome::NotMeasured {
                why: why.to_owned(),
            }
        }
    };
    eprintln!(
        "systems: sign-up service ({} clients × {} checks, {} accounts)",
        load.clients, load.ops, load.preload
    );
    match service::run(conn, load) {
        Ok(r) => ServiceOutcome::Measured(result(&r)),
        Err(e) => ServiceOutcome::NotMeasured {
            why: format!("the service run failed: {e}"),
        },
    }
}

#[cfg(test)]
mod tests;
