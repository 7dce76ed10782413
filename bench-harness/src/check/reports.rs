//! Every report file under a reports directory, checked from its JSON: one [`FileCheck`] per
//! kind of report in [`CHECKERS`]. Each reads its JSON, recomputes its verdicts, re-renders its
//! Markdown and compares it byte for byte with the file, and checks that the JSON comes from
//! the same run (the same commit) as results.json. A Markdown file that no checker covers is a
//! problem: nothing under the directory goes unchecked.
//!
//! A new kind of report adds one entry to [`CHECKERS`].

use crate::check::provenance::{self, Repo};
use crate::record::python::peers::PythonPeersReport;
use crate::record::python::PythonReport;
use crate::record::study::Study;
use crate::record::{differ, Machine, Results};
use crate::stages::course::hash64::HashingReport;
use crate::stages::expansion::ExpansionReport;
use crate::stages::sweep::SweepReport;
use crate::stages::systems::SystemsResults;
use crate::stages::threads::ThreadsReport;
use crate::stages::window::WindowReport;
use std::path::{Path, PathBuf};

/// What one checker found: the Markdown files it re-rendered (relative to the reports
/// directory), the problems, and notices that are printed but do not fail the check.
#[derive(Debug, Default)]
pub struct Coverage {
    /// Markdown files this checker accounts for.
    pub covered: Vec<PathBuf>,
    /// What is wrong.
    pub problems: Vec<String>,
    /// What the reader should know.
    pub notices: Vec<String>,
}

/// One kind of report file.
pub struct FileCheck {
    /// Its name in messages.
    pub name: &'static str,
    /// Checks it in `dir` against the run's results.
    pub check: fn(dir: &Path, cx: &Context<'_>) -> Coverage,
}

/// What every checker reads besides its own files.
pub struct Context<'a> {
    /// The main report's results.json.
    pub results: &'a Results,
    /// The repository, for the committed reports: a study may then be older than the main
    /// report (its commit in HEAD's history). Without it (a `--quick` or team run's directory),
    /// every file must come from the main report's run.
    pub repo: Option<&'a dyn Repo>,
}

/// Every kind of report file, in the order they are checked.
pub const CHECKERS: &[FileCheck] = &[
    FileCheck {
        name: "results",
        check: results_readme,
    },
    FileCheck {
        name: "threads",
        check: section::<ThreadsReport>,
    },
    FileCheck {
        name: "systems",
        check: section::<SystemsResults>,
    },
    FileCheck {
        name: "window",
        check: section::<WindowReport>,
    },
    FileCheck {
        name: "course",
        check: course,
    },
    FileCheck {
        name: "python",
        check: section::<PythonReport>,
    },
    FileCheck {
        name: "python-peers",
        check: section::<PythonPeersReport>,
    },
    FileCheck {
        name: "expansion",
        check: section::<ExpansionReport>,
    },
    FileCheck {
        name: "sweep",
        check: section::<SweepReport>,
    },
    FileCheck {
        name: "hashing",
        check: section::<HashingReport>,
    },
    FileCheck {
        name: "mapped",
        check: section::<crate::stages::mapped::MappedReport>,
    },
    FileCheck {
        name: "interop",
        check: section::<crate::stages::interop::InteropReport>,
    },
    FileCheck {
        name: "goals",
        check: goals,
    },
];

/// Runs every checker on `dir`, then fails every Markdown file under it that none covered.
#[must_use]
pub fn check_dir(dir: &Path, results: &Results, repo: Option<&dyn Repo>) -> Coverage {
    let cx = Context { results, repo };
    let mut all = Coverage::default();
    for c in CHECKERS {
        let found = (c.check)(dir, &cx);
        all.covered.extend(found.covered);
        all.problems.extend(
            found
                .problems
                .into_iter()
                .map(|p| format!("{}: {p}", c.name)),
        );
        all.notices.extend(found.notices);
    }
    match markdown_files(dir) {
        Ok(files) => {
            for f in files {
                if !all.covered.contains(&f) {
                    all.problems.push(format!(
                        "{}: no JSON renders it, so nothing checks it",
                        f.display()
                    ));
                }
            }
        }
        Err(e) => all
            .problems
            .push(format!("cannot list {}: {e}", dir.display())),
    }
    all
}

/// Every `*.md` under `dir`, relative to it, sorted.
fn markdown_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d)? {
            let path = entry?.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path.strip_prefix(dir).unwrap_or(&path).to_path_buf());
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The first line where `rendered` and `file` differ (1-based).
fn first_difference(rendered: &str, file: &str) -> usize {
    rendered
        .lines()
        .zip(file.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| rendered.lines().count().min(file.lines().count()))
        + 1
}

/// Reads `dir/json` as `T`; `Ok(None)` when the file is absent.
fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, json: &str) -> Result<Option<T>, String> {
    let path = dir.join(json);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("reading {json}: {e}")),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| format!("parsing {json}: {e}"))
}

/// The Markdown `md` against `rendered`, and the JSON's commit against the run's
/// ([`commit_stands`]).
fn rendered_and_current(
    dir: &Path,
    (md, rendered): (&str, &str),
    (commit, study): (&str, Option<Study>),
    cx: &Context<'_>,
    c: &mut Coverage,
) {
    c.covered.push(PathBuf::from(md));
    match std::fs::read_to_string(dir.join(md)) {
        Ok(file) if file == rendered => {}
        Ok(file) => c.problems.push(format!(
            "{md} differs from the one rendered from its JSON, first at line {}",
            first_difference(rendered, &file)
        )),
        Err(e) => c.problems.push(format!("reading {md}: {e}")),
    }
    commit_stands(md, commit, study, cx, c);
}

/// A report of the main job must come from the main report's commit. A study may come from an
/// older one, where the repository is known: its commit must be in HEAD's history, and the code
/// changed since is a notice.
pub fn commit_stands(
    md: &str,
    commit: &str,
    study: Option<Study>,
    cx: &Context<'_>,
    c: &mut Coverage,
) {
    let main = cx.results.machine.commit.as_str();
    match (study, cx.repo) {
        _ if commit == main => {}
        (Some(_), Some(repo)) => match provenance::study(commit, main, repo) {
            Ok(code) if code.is_empty() => {}
            Ok(code) => c.notices.push(format!(
                "{md}: measured at {commit}; the code it measures changed since in: {}",
                provenance::listed(&code, 5)
            )),
            Err(problem) => c.problems.push(format!("{md}: {problem}")),
        },
        _ => c.problems.push(format!(
            "{md} comes from commit {commit:?}, results.json from {main:?}: not the same run"
        )),
    }
}

/// README.md is re-rendered from results.json by [`super::tables`]; this accounts for it.
fn results_readme(dir: &Path, _: &Context<'_>) -> Coverage {
    Coverage {
        covered: [PathBuf::from("README.md")]
            .into_iter()
            .filter(|p| dir.join(p).exists())
            .collect(),
        ..Coverage::default()
    }
}

/// goals.md, re-rendered from results.json, the studies' JSON and goals-by-cpu.json (checked
/// first: its entry for this run's CPU is this run's goals, every verdict follows from its
/// interval).
fn goals(dir: &Path, cx: &Context<'_>) -> Coverage {
    let md = "goals.md";
    let mut c = Coverage::default();
    if !dir.join(md).exists() {
        if dir.join("results.json").exists() {
            c.problems
                .push(format!("{md} is missing (the main job writes it)"));
        }
        return c;
    }
    let by_cpu = crate::record::by_cpu::read(dir)
        .and_then(|all| crate::record::by_cpu::check(&all, cx.results).map(|()| all));
    let by_cpu = match by_cpu {
        Ok(all) => {
            c.covered.push(PathBuf::from(crate::record::by_cpu::FILE));
            all
        }
        Err(e) => {
            c.problems.push(format!("{e:#}"));
            return c;
        }
    };
    match crate::render::studies::read_studies(dir) {
        Ok(found) => {
            let page = crate::render::studies::goals_page(cx.results, &found, &by_cpu);
            rendered_and_current(
                dir,
                (md, &page),
                (&cx.results.machine.commit, None),
                cx,
                &mut c,
            );
        }
        Err(e) => c.problems.push(format!("{md}: {e:#}")),
    }
    c
}

/// A report section stored as `NAME.json` and rendered as `NAME.md`: what its checker reads,
/// recomputes and re-renders.
trait Section: serde::de::DeserializeOwned {
    /// The files' stem.
    const NAME: &'static str;
    /// The study it belongs to (`None`: a part of the main job).
    const STUDY: Option<Study> = None;
    /// The run it comes from.
    fn machine(&self) -> &Machine;
    /// What is wrong in it, its page aside.
    fn problems(&self, results: &Results) -> Vec<String>;
    /// Its page, re-rendered.
    fn render(&self) -> String;
}

/// One section: `NAME.json` read (absent: nothing to check), its problems recomputed,
/// `NAME.md` re-rendered and compared, and its commit against the run's.
fn section<S: Section>(dir: &Path, cx: &Context<'_>) -> Coverage {
    let mut c = Coverage::default();
    let report: S = match read_json(dir, &format!("{}.json", S::NAME)) {
        Ok(Some(r)) => r,
        Ok(None) => return c,
        Err(e) => {
            c.problems.push(e);
            return c;
        }
    };
    c.problems.extend(report.problems(cx.results));
    let rendered = report.render();
    rendered_and_current(
        dir,
        (&format!("{}.md", S::NAME), &rendered),
        (&report.machine().commit, S::STUDY),
        cx,
        &mut c,
    );
    c
}

/// threads.json: targets recomputed from the rows, threads.md re-rendered.
impl Section for ThreadsReport {
    const NAME: &'static str = "threads";
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        let again = crate::judge::threads::targets(&self.rows);
        let labels = ("targets", "the rows");
        let rows = (again.as_slice(), self.targets.as_slice());
        differ(Self::NAME, labels, rows, PartialEq::eq, |t| {
            (format!("{:?}", t.claim), format!("{:?}", t.verdict))
        })
        .into_iter()
        .collect()
    }
    fn render(&self) -> String {
        crate::render::threads::render(self)
    }
}

/// systems.json: claims recomputed from the measurements, systems.md re-rendered.
impl Section for SystemsResults {
    const NAME: &'static str = "systems";
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        let again = crate::judge::systems::claims(
            &self.signup,
            &self.unique,
            &self.lag,
            self.python_lookup_ns,
        );
        let labels = ("claims", "the measurements");
        let rows = (again.as_slice(), self.claims.as_slice());
        let sample = crate::judge::systems::sample_problems(self).into_iter();
        differ(Self::NAME, labels, rows, PartialEq::eq, |c| {
            (
                format!("claim {:?}", c.text),
                format!("{:?} ({:?})", c.measured, c.verdict),
            )
        })
        .into_iter()
        .chain(sample.map(|p| format!("{}.json: {p}", Self::NAME)))
        .collect()
    }
    fn render(&self) -> String {
        crate::render::systems::markdown(self)
    }
}

/// window.json: every design's guarantees recomputed from its checkpoints, window.md re-rendered.
impl Section for WindowReport {
    const NAME: &'static str = "window";
    const STUDY: Option<Study> = Some(Study::Window);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        crate::judge::window::check(self)
    }
    fn render(&self) -> String {
        crate::render::window::render(self)
    }
}

/// python.json: the goals recomputed from the records, python.md re-rendered.
impl Section for PythonReport {
    const NAME: &'static str = "python";
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        crate::record::python::goals::check_report(self)
    }
    fn render(&self) -> String {
        crate::render::python::render(self)
    }
}

/// python-peers.json (a study): its rows validated, its goals recomputed from them and each
/// goal's own figures re-derived (a goal comparing figures taken at different sizes among
/// them), python-peers.md re-rendered.
impl Section for PythonPeersReport {
    const NAME: &'static str = "python-peers";
    const STUDY: Option<Study> = Some(Study::PythonPeers);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        let mut p = crate::record::python::peers::check_report(self);
        p.extend(
            self.goals()
                .iter()
                .flat_map(|g| crate::check::ratio_problems(g, "python-peers.json: goal")),
        );
        p
    }
    fn render(&self) -> String {
        crate::render::python_peers::render(self)
    }
}

/// expansion.json: no false negative anywhere, the goals recomputed from the measurements and
/// found, identical, among results.json's targets, expansion.md re-rendered.
impl Section for ExpansionReport {
    const NAME: &'static str = "expansion";
    const STUDY: Option<Study> = Some(Study::Growth);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        expansion_problems(self)
    }
    fn render(&self) -> String {
        crate::render::expansion::render(self)
    }
}

/// sweep.json: every variant at every size, sound timings, theory within bounds, no false
/// negative; sweep.md re-rendered.
impl Section for SweepReport {
    const NAME: &'static str = "sweep";
    const STUDY: Option<Study> = Some(Study::Sweep);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        let floors = crate::check::Floors::default();
        let mut p = crate::check::sweep_counts(&self.records);
        p.extend(crate::check::timings(&self.records, floors, None));
        p.extend(crate::check::probes(&self.records, floors));
        p.extend(crate::check::theory(&self.records));
        p.extend(
            self.records
                .iter()
                .filter(|r| r.false_negatives > 0)
                .map(|r| {
                    format!(
                        "{} at {} keys: {} false negatives",
                        r.variant, r.n, r.false_negatives
                    )
                }),
        );
        p.into_iter().map(|m| format!("sweep.json: {m}")).collect()
    }
    fn render(&self) -> String {
        crate::render::sweep::render(self)
    }
}

/// mapped.json (a study): [`crate::check::mapped::problems`]; mapped.md re-rendered.
impl Section for crate::stages::mapped::MappedReport {
    const NAME: &'static str = "mapped";
    const STUDY: Option<Study> = Some(Study::Mapped);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        crate::check::mapped::problems(self)
    }
    fn render(&self) -> String {
        crate::render::mapped::render(self)
    }
}

/// interop.json (a study): [`crate::check::interop::problems`]; interop.md re-rendered.
impl Section for crate::stages::interop::InteropReport {
    const NAME: &'static str = "interop";
    const STUDY: Option<Study> = Some(Study::Interop);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        crate::check::interop::problems(self)
    }
    fn render(&self) -> String {
        crate::render::interop::render(self)
    }
}

/// hashing.json: the study's sizes, counts, intervals and verdicts recomputed
/// ([`crate::check::course::hash64_problems`]); hashing.md re-rendered.
impl Section for HashingReport {
    const NAME: &'static str = "hashing";
    const STUDY: Option<Study> = Some(Study::Hashing);
    fn machine(&self) -> &Machine {
        &self.machine
    }
    fn problems(&self, _: &Results) -> Vec<String> {
        let mut fresh = self.study.clone();
        crate::judge::course::judge_hash64(&mut fresh);
        crate::check::course::hash64_problems(&self.study, &fresh)
    }
    fn render(&self) -> String {
        crate::render::course::hash64::page(self)
    }
}

/// What the expansion section's check finds wrong in a report, besides its page.
fn expansion_problems(report: &ExpansionReport) -> Vec<String> {
    let mut p = Vec::new();
    for x in &report.checkpoints {
        if x.false_negatives > 0 {
            p.push(format!(
                "expansion.json: {} at {} keys: {} false negatives",
                x.contender.name(),
                x.n,
                x.false_negatives
            ));
        }
    }
    for x in &report.summaries {
        let deletes = x.deletes.measured().map_or(0, |d| d.false_negatives);
        let merge = x.merge.measured().map_or(0, |m| m.false_negatives);
        if deletes + merge > 0 {
            p.push(format!(
                "expansion.json: {}: {deletes} false negatives after deletes, {merge} after the merge",
                x.contender.name()
            ));
        }
    }
    // Compared through `Debug`, where a not-measured row's NaN equals itself.
    let same =
        |a: &crate::record::Ratio, b: &crate::record::Ratio| format!("{a:?}") == format!("{b:?}");
    let again = crate::judge::targets::growth::goals(report);
    let labels = ("goals", "the measurements");
    let rows = (again.as_slice(), report.goals.as_slice());
    p.extend(differ(ExpansionReport::NAME, labels, rows, same, |g| {
        (format!("{:?}", g.what), format!("{:?}", g.verdict))
    }));
    p.extend(
        report
            .goals
            .iter()
            .flat_map(|g| crate::check::ratio_problems(g, "expansion.json: goal")),
    );
    p
}

/// The course (`course/course.json` and `course/course.md`, when the run wrote a course):
/// [`crate::check::course::check`] re-renders the Markdown from the JSON, recomputes every verdict
/// (z, Holm-adjusted p), checks the repetitions' seeds and plots; its commit stands as a study's
/// ([`commit_stands`]).
fn course(dir: &Path, cx: &Context<'_>) -> Coverage {
    let md = "course/course.md";
    let course_dir = dir.join("course");
    if !course_dir.join("course.md").exists() && !course_dir.join("course.json").exists() {
        return Coverage::default();
    }
    let mut c = Coverage {
        problems: crate::check::course::check(&course_dir, None),
        covered: vec![PathBuf::from(md)],
        ..Coverage::default()
    };
    if let Ok(Some(commit)) = crate::check::course::recorded_commit(&course_dir) {
        commit_stands(md, &commit, Some(Study::Course), cx, &mut c);
    }
    c
}

#[cfg(test)]
mod expansion_tests;
#[cfg(test)]
mod systems_tests;
#[cfg(test)]
mod tests;
