//! Where the systems stage's time goes: the wall time of each sub-step, printed to stderr as it
//! ends and written to `systems.json`, so that a run that grows shows which step grew.

use std::cmp::Ordering;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::signup::{Front, StoreKind};

/// A sub-step of the stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Generating the table's addresses and the checks.
    Dataset,
    /// Loading every address into RedisBloom (shared by both stores).
    RedisLoad,
    /// Loading the users table (rows, unique index, statistics).
    Load(StoreKind),
    /// Building the gate's filter from the table.
    GateBuild(StoreKind),
    /// One contender's timed checks: the sum of its check times (the contenders take turns
    /// over slices of the sample, so each one's share of the wall time is that sum).
    Checks(StoreKind, Front),
    /// The sign-up service: preload, both modes, the duplicate count.
    Service,
    /// The cross-instance lag: two gates on one table, registrations on one, checks on the other.
    Lag,
    /// The unique-users counter.
    Unique,
    /// The rolling 24-hour count.
    Rolling,
}

/// One sub-step's time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepTime {
    /// The sub-step.
    pub step: Step,
    /// Its time, seconds.
    pub seconds: f64,
}

/// The stage's sub-step times and its whole wall time, as written to `systems.json`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    /// The sub-steps in the order they ran.
    pub steps: Vec<StepTime>,
    /// The whole stage, seconds (the sub-steps and what lies between them: index sizes, the
    /// filter's own lookup timing, dropping the tables, starting and stopping the servers).
    pub wall_s: f64,
}

impl Timing {
    /// What is wrong with it: a negative or non-finite time, or sub-steps that add up to more
    /// than the whole.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .steps
            .iter()
            .filter(|s| !(s.seconds.is_finite() && s.seconds >= 0.0))
            .map(|s| format!("step {:?} took {} s", s.step, s.seconds))
            .collect();
        let sum: f64 = self.steps.iter().map(|s| s.seconds).sum();
        // A microsecond of slack for the rounding of the separately read clocks; a NaN on
        // either side does not fit either.
        let limit = self.wall_s + 1e-6;
        if matches!(sum.partial_cmp(&limit), Some(Ordering::Greater) | None) {
            out.push(format!(
                "the steps add up to {sum} s, more than the stage's {} s",
                self.wall_s
            ));
        }
        out
    }
}

/// The clock of a running stage.
pub struct Clock {
    start: Instant,
    steps: Vec<StepTime>,
}

impl Default for Clock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock {
    /// Starts the stage's clock.
    pub fn new() -> Self {
        Self {
            start: Instant::now(),
            steps: Vec::new(),
        }
    }

    /// Records `step` as taking `seconds`, and says so on stderr.
    pub fn record(&mut self, step: Step, seconds: f64) {
        eprintln!("systems: {:<58} {seconds:>7.1} s", label(step));
        self.steps.push(StepTime { step, seconds });
    }

    /// Runs `f` as `step`, timed.
    pub fn time<T>(&mut self, step: Step, f: impl FnOnce() -> T) -> T {
        let t = Instant::now();
        let out = f();
        self.record(step, t.elapsed().as_secs_f64());
        out
    }

    /// The steps and the stage's wall time so far.
    pub fn finish(self) -> Timing {
        let wall_s = self.start.elapsed().as_secs_f64();
        eprintln!("systems: {:<58} {wall_s:>7.1} s", "the whole stage");
        Timing {
            steps: self.steps,
            wall_s,
        }
    }
}

fn store_name(s: StoreKind) -> &'static str {
    match s {
        StoreKind::Sqlite => "SQLite",
        StoreKind::Postgres => "PostgreSQL",
    }
}

/// The step in words (stderr and `systems.md`).
pub fn label(step: Step) -> String {
    match step {
        Step::Dataset => "addresses and checks generated".into(),
        Step::RedisLoad => "RedisBloom loaded".into(),
        Step::Load(s) => format!("{} table loaded", store_name(s)),
        Step::GateBuild(s) => format!("gate built from {}", store_name(s)),
        Step::Checks(s, f) => {
            let front = match f {
                Front::DbOnly => "DB only",
                Front::Gate => "the gate",
                Front::RedisBloom => "RedisBloom",
            };
            format!("checks on {} through {front} (summed)", store_name(s))
        }
        Step::Service => "sign-up service".into(),
        Step::Lag => "cross-instance lag".into(),
        Step::Unique => "unique-users counter".into(),
        Step::Rolling => "rolling 24-hour count".into(),
    }
}
