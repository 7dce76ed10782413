//! The `python-peers` study's stage: the contenders the main job measures on a sample only
//! (pybloom_live's two filters, bloom-filter2, the first article's class) built and probed at
//! the run's full size, beside the package's ClassicBloom in the same interleaved rounds, in
//! one timing process ([`super::session`]); written to python-peers.json and python-peers.md
//! ([`crate::record::python::peers`]).

use super::session::{run_loop, Keys, Loop, Session};
use super::{key_files, ready, Script, FPR};
use crate::measure::rounds::Policy;
use crate::plan::{Run, Stage};
use crate::record::python::peers::{self, PeersMeasured, PythonPeersReport};
use crate::record::python::{self as model, Outcome, Sample, Scale, Settings, Timing, STUDY};
use anyhow::Result;
use std::path::Path;

/// The study's size in a `--quick` run: every slow contender inserts 20k keys in about a
/// second, so that CI runs its code.
pub const QUICK: Sample = Sample {
    keys: 20_000,
    probes: 10_000,
};

/// Its rounds at full size: a round builds 10M keys into each slow contender (about ten
/// minutes together), so at least 3 and at most 5 rounds, within 25 minutes.
pub fn policy(quick: bool) -> Policy {
    if quick {
        Policy::adaptive(2, 2, 0.0)
    } else {
        Policy::adaptive(3, 5, 1500.0)
    }
}

/// The stage.
pub struct PythonPeers;

impl Stage for PythonPeers {
    fn name(&self) -> &'static str {
        "the pure-Python filters and the first article's class at full size"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        run.n
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let script = Script::here();
        let dir = Path::new("target/python-keys");
        let queries = run.plan.python_queries.min(run.ctx.probes.len()).min(run.n) as u64;
        let full = Sample {
            keys: run.n as u64,
            probes: queries,
        };
        let size = if run.plan.quick {
            QUICK.within(full.keys, full.probes)
        } else {
            full
        };
        let mut settings = Settings {
            n: size.keys,
            queries: size.probes,
            sample: None,
            ..Settings::default()
        };
        let committed = run
            .plan
            .is_committed_run()
            .then_some(run.results.machine.commit.as_str());
        let outcome = match ready(&script, committed)? {
            Some(reason) => Outcome::Skipped { reason },
            None => {
                let counts = (size.keys as usize, size.probes as usize);
                let (members, probes) = key_files(run, dir, "python-peers", counts)?;
                settings.members_file = members.to_string_lossy().into_owned();
                settings.probes_file = probes.to_string_lossy().into_owned();
                eprintln!("   {} keys, {} probes", size.keys, size.probes);
                let timing = timing(&script, &settings, dir, policy(run.plan.quick))?;
                let goals = peers::goals(&timing)?;
                Outcome::Measured(Box::new(PeersMeasured { timing, goals }))
            }
        };
        run.outputs.push(Box::new(PythonPeersReport {
            machine: run.results.machine.clone(),
            settings,
            outcome,
        }));
        Ok(())
    }
}

/// The study's one loop: [`STUDY`] at full size in interleaved rounds.
fn timing(s: &Script, settings: &Settings, dir: &Path, policy: Policy) -> Result<Timing> {
    let keys = Keys {
        members: Path::new(&settings.members_file),
        probes: Path::new(&settings.probes_file),
        n: settings.n,
        queries: settings.queries,
        sample: None,
    };
    let stderr = dir.join("python-peers-session.stderr");
    let mut session = Session::start(&s.python, &s.script, &keys, FPR, &stderr)?;
    let spec = Loop {
        what: "python-peers: the slow contenders and ClassicBloom at full size",
        scale: Scale::Full,
        ids: &STUDY,
        policy: Some(policy),
        one_at_a_time: true,
    };
    let mut rows = Vec::new();
    let record = run_loop(&mut session, &mut rows, &spec)?;
    let h = &session.hello;
    let timing = Timing {
        python: h.python.clone(),
        versions: h.versions.clone(),
        n: h.n,
        queries: h.queries,
        sample: None,
        loops: vec![record],
        contenders: rows,
    };
    timing.validate(&model::study_rows())?;
    Ok(timing)
}

#[cfg(test)]
mod tests;
