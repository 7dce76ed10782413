//! The run as a plan (built from the flags) and a list of stages.
//!
//! `main` turns the command line into a [`Plan`], loads the dataset, and hands a [`Run`] to
//! every stage of [`crate::pipeline::stages`] whose [`Stage::wanted`] says yes, in order: the
//! main job's ([`crate::pipeline::MAIN`]), or one study's. A stage reads the plan and the
//! dataset, and appends to `run.results`; the last stages check and write. A new stage (a
//! systems benchmark, the course's figures) is a type implementing [`Stage`] and one line in
//! [`crate::pipeline::MAIN`] or [`crate::pipeline::studies`].

pub mod policies;

use crate::dataset::KeySet;
use crate::record::Results;
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What every scenario shares.
pub struct Ctx<'a> {
    /// Keys to insert (distinct).
    pub members: &'a KeySet,
    /// Keys never inserted (distinct, disjoint from members).
    pub probes: &'a KeySet,
    /// Interleaved timing rounds; the median is reported.
    pub rounds: usize,
    /// Seed of the query mixes.
    pub seed: u64,
    /// Queries per timed pass.
    pub queries: usize,
    /// Probes for the FP rate in the scenarios (the matrix uses all of them).
    pub scenario_probes: usize,
}

/// What the flags asked for, resolved to figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// `--quick`: at most 200k keys, fewer rounds.
    pub quick: bool,
    /// `--large`: the size sweep study up to 10^8 keys.
    pub large: bool,
    /// The study this run makes (`None`: the main job, which under `--quick` also runs every
    /// study at its quick size).
    pub study: Option<crate::record::study::Study>,
    /// The team's keys, if any.
    pub keys: Option<PathBuf>,
    /// The team's probes, if any.
    pub probes: Option<PathBuf>,
    /// Where the reports go.
    pub out: PathBuf,
    /// Interleaved lookup rounds.
    pub rounds: usize,
    /// Interleaved build rounds (ours and the peers') where a fixed count is wanted (parallel
    /// builds, threads).
    pub build_rounds: usize,
    /// The build loop of ours and the peers' ([`crate::measure::rounds`]).
    pub builds: crate::measure::rounds::Policy,
    /// The matrix's lookup loop.
    pub lookups: crate::measure::rounds::Policy,
    /// The lookup loop beside the peers.
    pub peer_lookups: crate::measure::rounds::Policy,
    /// Interleaved lookup rounds beside the peers.
    pub peer_rounds: usize,
    /// Queries per timed pass.
    pub queries: usize,
    /// Probes behind each scenario's FP figure.
    pub scenario_probes: usize,
    /// Probes the articles' Python code is timed on.
    pub python_queries: usize,
    /// The matrix's target rates.
    pub targets: Vec<f64>,
}

impl Plan {
    /// Whether this is a run whose output is committed: the full synthetic main job, or a study
    /// at its full size.
    #[must_use]
    pub fn is_committed_run(&self) -> bool {
        self.keys.is_none() && !self.quick && !self.large
    }
}

/// The state every stage shares: the plan, the keys, and the results so far.
pub struct Run<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// Keys, probes and timing settings.
    pub ctx: Ctx<'a>,
    /// Keys in the matrix (the members, at most 10M).
    pub n: usize,
    /// What the stages measured so far.
    pub results: Results,
    /// When the run started.
    pub started: Instant,
    /// Reports of their own a stage handed back (threads.json, systems.json, ...): [`execute`]
    /// judges and writes them after the stage.
    pub outputs: Vec<Box<dyn Output>>,
}

/// A stage's report of its own (beside `results.json`): the stage measures, `judge` computes
/// its verdicts and `render` writes it, through this trait, so that the stage imports neither.
pub trait Output {
    /// Records the wall seconds of the stage that made it (a study's report keeps them).
    fn stamp(&mut self, _wall_seconds: f64) {}
    /// Computes the report's verdicts from its measurements.
    fn judge(&mut self) {}
    /// Writes the report (its JSON and the Markdown rendered from it) into `out`.
    ///
    /// # Errors
    /// I/O errors.
    fn write(&self, out: &Path) -> Result<()>;
}

/// One step of the pipeline.
pub trait Stage: Sync {
    /// Shown in the progress output.
    fn name(&self) -> &'static str;
    /// Whether the plan asks for this stage, of those [`crate::pipeline::stages`] lists for
    /// it; by default yes (a stage that measures systems or its own keys says no to a team's key
    /// file).
    fn wanted(&self, _plan: &Plan) -> bool {
        true
    }
    /// Members (keys to insert) this stage needs for `run`'s dataset; [`execute`] checks every
    /// wanted stage's need before the first measures anything.
    fn members_needed(&self, _run: &Run<'_>) -> usize {
        0
    }
    /// Whether this stage writes results.json (its own time is then printed, not recorded).
    fn writes_the_results(&self) -> bool {
        false
    }
    /// Measures (or checks, or writes), adding to `run.results`.
    ///
    /// # Errors
    /// Whatever stops the run: a broken filter, an I/O error.
    fn run(&self, run: &mut Run<'_>) -> Result<()>;
}

/// Checks that the dataset has the members every wanted stage needs, so that a run on too few
/// keys stops before measuring anything rather than at the stage that needs them.
///
/// # Errors
/// The first stage that needs more members than the dataset has, named with both counts.
pub fn check_members(run: &Run<'_>, stages: &[&dyn Stage]) -> Result<()> {
    let have = run.ctx.members.len();
    for stage in stages.iter().filter(|s| s.wanted(run.plan)) {
        let need = stage.members_needed(run);
        anyhow::ensure!(
            need <= have,
            "stage {} needs {need} members, but the dataset has {have}: give it at least {need} \
             keys",
            stage.name()
        );
    }
    Ok(())
}

/// Times the calibration loop at `at` into the results.
fn calibrate(run: &mut Run<'_>, calibration: &crate::measure::calibration::Calibration, at: &str) {
    let point = calibration.point(at);
    eprintln!(
        "   calibration {at}: {:.1} ns an operation ({:.1}–{:.1})",
        point.ns, point.range.0, point.range.1
    );
    run.results.calibration.push(point);
}

/// Runs every wanted stage of `stages` in order, after [`check_members`], timing the
/// calibration loop before each stage that measures and before the one that writes the
/// results (the last).
///
/// # Errors
/// Too few members for a stage, or the first stage that fails, named.
pub fn execute(run: &mut Run<'_>, stages: &[&dyn Stage]) -> Result<()> {
    check_members(run, stages)?;
    let calibration = crate::measure::calibration::Calibration::new();
    for stage in stages.iter().filter(|s| s.wanted(run.plan)) {
        if stage.writes_the_results() {
            calibrate(run, &calibration, "after the last stage");
        } else {
            calibrate(run, &calibration, &format!("before {}", stage.name()));
        }
        eprintln!("== {}", stage.name());
        crate::measure::memory::start_stage();
        let t = Instant::now();
        stage
            .run(run)
            .map_err(|e| e.context(format!("stage {}", stage.name())))?;
        let seconds = t.elapsed().as_secs_f64();
        eprintln!("   ({seconds:.1} s)");
        if !stage.writes_the_results() {
            run.results.stages.push(crate::record::StageTime {
                name: stage.name().into(),
                seconds,
                peak_rss: crate::measure::memory::stage_peak(),
            });
        }
        for mut output in std::mem::take(&mut run.outputs) {
            output.stamp(seconds);
            output.judge();
            output
                .write(&run.plan.out)
                .map_err(|e| e.context(format!("writing the report of stage {}", stage.name())))?;
        }
    }
    Ok(())
}
