//! The main job's goal verdicts kept per processor model (`reports/goals-by-cpu.json`).
//!
//! A ratio such as "split-block at most 0.7× fastbloom" depends on the processor: the machines
//! that run the main job differ (AMD EPYC, Intel Xeon). Each run replaces the entry of its own
//! CPU model and keeps every other model's, so that a run on one model never silently replaces
//! another's verdicts; goals.md shows them side by side, each with its commit and date.

use super::{Bound, Ratio, Results, Role, Verdict};
use anyhow::{ensure, Context, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The file beside results.json.
pub const FILE: &str = "goals-by-cpu.json";

/// One goal's verdict on one processor model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Goal {
    /// The goal (a targets row's `what`).
    pub what: String,
    /// The measured ratio.
    pub ratio: f64,
    /// Its 95% interval.
    pub interval: Option<(f64, f64)>,
    /// The bound.
    pub bound: Bound,
    /// The verdict of the interval against the bound.
    pub verdict: Verdict,
}

/// One processor model's latest main job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CpuRun {
    /// The commit the run measured.
    pub commit: String,
    /// When it ran.
    pub date: String,
    /// Its goals (the targets rows, not the information rows).
    pub goals: Vec<Goal>,
}

/// Every processor model's latest main job, by model name.
pub type ByCpu = BTreeMap<String, CpuRun>;

/// The run of `results`, as its CPU model's entry.
#[must_use]
pub fn entry(results: &Results) -> CpuRun {
    let goals = results
        .ratios
        .iter()
        .filter(|r| r.role == Role::Target)
        .map(|r: &Ratio| Goal {
            what: r.what.clone(),
            ratio: r.ratio,
            interval: r.interval,
            bound: r.bound,
            verdict: r.verdict,
        })
        .collect();
    CpuRun {
        commit: results.machine.commit.clone(),
        date: results.machine.date.clone(),
        goals,
    }
}

/// The file in `dir` (empty when there is none yet).
///
/// # Errors
/// A file that cannot be read or parsed.
pub fn read(dir: &Path) -> Result<ByCpu> {
    let path = dir.join(FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(ByCpu::new()),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// `dir`'s file with the entry of `results`' CPU model replaced by this run's.
///
/// # Errors
/// The file cannot be read, parsed or written.
pub fn update(dir: &Path, results: &Results) -> Result<ByCpu> {
    let mut all = read(dir)?;
    all.insert(results.machine.cpu.clone(), entry(results));
    let json = serde_json::to_string_pretty(&all)? + "\n";
    std::fs::write(dir.join(FILE), json).with_context(|| format!("writing {FILE}"))?;
    Ok(all)
}

/// Checks `all` against `results`: the entry of this run's CPU model is this run's goals, and
/// every other entry's verdicts follow from its intervals and bounds.
///
/// # Errors
/// The first disagreement, named.
pub fn check(all: &ByCpu, results: &Results) -> Result<()> {
    let cpu = &results.machine.cpu;
    let own = all
        .get(cpu)
        .with_context(|| format!("{FILE} has no entry for this run's CPU, {cpu}"))?;
    ensure!(
        *own == entry(results),
        "{FILE}'s entry for {cpu} is not the goals of results.json (commit {})",
        results.machine.commit
    );
    for (model, run) in all {
        for g in &run.goals {
            let again = Verdict::of(g.bound, g.interval);
            ensure!(
                again == g.verdict,
                "{FILE}: {model} at {}: {:?} says {}, but its interval against its bound gives {}",
                run.commit,
                g.what,
                g.verdict.word(),
                again.word()
            );
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
