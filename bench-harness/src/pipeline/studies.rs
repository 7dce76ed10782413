//! The studies: the long experiments the main job leaves out, each run on demand by
//! `bench-harness study NAME` into its own JSON and page ([`crate::record::study::Study`]), and
//! [`Index`], which then lists them in reports/README.md and gathers their goals in goals.md.

use crate::judge::targets;
use crate::plan::{Plan, Run, Stage};
use crate::record::study::Study;
use crate::stages::{matrix, sweep, window};
use anyhow::Result;

/// The stage that makes `study`.
#[must_use]
pub fn stage(study: Study) -> &'static dyn Stage {
    match study {
        Study::Growth => &Expansion,
        Study::Window => &Windows,
        Study::Sweep => &SizeSweep,
        Study::Course => &crate::stages::course::Course,
        Study::Hashing => &crate::stages::course::Hashing,
        Study::PythonPeers => &crate::stages::python::study::PythonPeers,
        Study::Mapped => &MappedFiles,
        Study::Interop => &Interop,
    }
}

/// The capacity the growth from a small declaration starts from.
pub const DECLARED: u64 = 1000;
/// Keys of the small filter whose lookups are timed against the grown one.
pub const SMALL_KEYS: u64 = 10_000;
/// Keys of the merge (two halves), at most.
pub const MERGE_KEYS: u64 = 1_000_000;

/// Growing from [`DECLARED`] keys to n at 1%: our expandable, scalable and cuckoo filters,
/// qfilter and growable-bloom-filter ([`crate::stages::expansion`]), with its goals:
/// `expansion.md`.
pub struct Expansion;

impl Stage for Expansion {
    fn name(&self) -> &'static str {
        "growth from a small declared capacity"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        run.n
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        use crate::stages::expansion::{self, ExpansionReport, Settings};
        let n = run.n as u64;
        let checkpoints = expansion::checkpoints(DECLARED, n);
        let windows = checkpoints.len() as u64 + 1;
        let settings = Settings {
            declared: DECLARED,
            target_fpr: 0.01,
            n,
            probes: (run.plan.scenario_probes as u64).min(run.ctx.probes.len() as u64 / windows),
            checkpoints,
            small_n: SMALL_KEYS.min(n),
            queries: run.plan.queries as u64,
            rounds: run.plan.rounds,
            merge_keys: MERGE_KEYS.min(n),
        };
        eprintln!("   from {DECLARED} to {n} keys");
        let (checkpoints, summaries) = expansion::measure(&run.ctx, &settings)?;
        eprintln!("   aleph over one doubling cycle");
        let cycle = expansion::measure_cycle(&run.ctx, &settings)?;
        let mut report = ExpansionReport {
            machine: run.results.machine.clone(),
            settings,
            checkpoints,
            summaries,
            cycle,
            goals: Vec::new(),
        };
        report.goals = targets::growth::goals(&report);
        run.outputs.push(Box::new(report));
        Ok(())
    }
}

/// Lookup cost against filter size ([`crate::stages::sweep`]): `sweep.md`.
pub struct SizeSweep;

impl Stage for SizeSweep {
    fn name(&self) -> &'static str {
        "size sweep"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        run.n
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let top = if run.plan.large {
            run.ctx.members.len()
        } else {
            run.n
        };
        let sizes = crate::stages::sweep::sizes(top);
        eprintln!("   over {sizes:?}");
        let records = matrix::size_sweep(&run.ctx, &sizes, sweep::TARGET_FPR)?;
        run.outputs.push(Box::new(sweep::SweepReport {
            machine: run.results.machine.clone(),
            sizes,
            records,
        }));
        Ok(())
    }
}

/// Sliding windows (issue 22): every design through a stream of ten windows at 1%, side by side,
/// with its goals (`window.md`). Skipped for `--keys` runs: its keys are its own.
pub struct Windows;

impl Stage for Windows {
    fn name(&self) -> &'static str {
        "sliding windows: guarantees and goals, side by side"
    }

    fn wanted(&self, plan: &Plan) -> bool {
        plan.keys.is_none()
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let settings = if run.plan.quick {
            window::Settings::quick()
        } else {
            window::Settings::full()
        };
        let report = window::run(&settings, run.results.machine.clone())?;
        run.outputs.push(Box::new(report));
        Ok(())
    }
}

/// After a study: reports/README.md's index of studies and goals.md, re-rendered from the
/// directory's JSON (nothing, with a note, where the main job's results.json is not there yet).
pub struct Index;

impl Stage for Index {
    fn name(&self) -> &'static str {
        "the index of studies and the goals"
    }

    fn writes_the_results(&self) -> bool {
        true
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        crate::render::rewrite_index(&run.plan.out)
    }
}

/// Saved filters opened in place against loaded (issue 39, [`crate::stages::mapped`]), with its
/// goals: `mapped.md`. Its files hold the run's first members, a team's keys included.
pub struct MappedFiles;

impl Stage for MappedFiles {
    fn name(&self) -> &'static str {
        "mapped files: opened in place against loaded"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        run.n
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        use crate::stages::mapped::{self, Settings};
        let keys = run.n as u64;
        let settings = if run.plan.quick {
            Settings::quick(keys)
        } else {
            Settings::full(keys)
        };
        let mut report = mapped::run(&run.ctx, settings, run.results.machine.clone())?;
        report.goals = targets::mapped::goals(&report);
        run.outputs.push(Box::new(report));
        Ok(())
    }
}

/// Other ecosystems' filter files read by filterlab, and the count estimate (issue 40,
/// [`crate::stages::interop`]), with its goals: `interop.md`.
pub struct Interop;

impl Stage for Interop {
    fn name(&self) -> &'static str {
        "interop: foreign filter files and the count estimate"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        run.n
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        use crate::stages::interop::{self, Settings};
        let keys = run.n as u64;
        let settings = if run.plan.quick {
            Settings::quick(keys)
        } else {
            Settings::full(keys)
        };
        let mut report = interop::run(&run.ctx, settings, run.results.machine.clone())?;
        report.goals = targets::interop::goals(&report);
        run.outputs.push(Box::new(report));
        Ok(())
    }
}
