//! `bench-harness render`: every page of a reports directory rewritten from its JSON with the
//! code of HEAD, nothing measured.
//!
//! A change to code that only renders (see [`crate::record::code::Role`]) needs no new run:
//! after it, `render` rewrites each report's Markdown and plots from the JSON the run wrote (each
//! report judged again from its stored measurements, as the run judged it), then README.md,
//! goals.md and the root README's block from results.json. `check` re-renders every page the
//! same way and compares byte for byte, so the pages it accepts are what HEAD's code makes of
//! the committed measurements. A change to code that measures still needs `just bench`: `check`
//! refuses it ([`crate::record::provenance::main_report`]).
//!
//! The course's plots are drawn from data the course run keeps in memory, not from
//! `course.json`: `render` rewrites `course.md` (and `course.json`, judged again) but leaves the
//! course's plots as the run drew them.

use crate::plan::Output;
use crate::record::provenance::{Git, Repo};
use crate::record::python::peers::PythonPeersReport;
use crate::record::python::PythonReport;
use crate::record::Results;
use crate::stages::course::hash64::HashingReport;
use crate::stages::course::model::CourseDoc;
use crate::stages::expansion::ExpansionReport;
use crate::stages::interop::InteropReport;
use crate::stages::mapped::MappedReport;
use crate::stages::sweep::SweepReport;
use crate::stages::systems::SystemsResults;
use crate::stages::threads::ThreadsReport;
use crate::stages::window::WindowReport;
use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use std::path::Path;

/// Re-renders one kind of report found at `dir/<json>`; `false` when there is none.
type Again = fn(dir: &Path, json: &str) -> Result<bool>;

/// Every report kind whose JSON the main job or a study writes, by its path under the reports
/// directory (results.json last: its index and goals page read the others).
pub const REPORTS: &[(&str, Again)] = &[
    ("threads.json", output::<ThreadsReport>),
    ("systems.json", output::<SystemsResults>),
    ("window.json", output::<WindowReport>),
    ("python.json", output::<PythonReport>),
    ("python-peers.json", output::<PythonPeersReport>),
    ("expansion.json", output::<ExpansionReport>),
    ("sweep.json", output::<SweepReport>),
    ("mapped.json", output::<MappedReport>),
    ("interop.json", output::<InteropReport>),
    ("hashing.json", output::<HashingReport>),
    ("course/course.json", course),
];

/// Rewrites every page of `dir` from its JSON; returns the JSON files it rendered from. The
/// root README's block is rewritten too when `dir` is the committed `reports`.
///
/// # Errors
/// A JSON file that cannot be read or parsed, a page or plot that cannot be written, or no
/// results.json in `dir`.
pub fn all(dir: &Path) -> Result<Vec<String>> {
    let mut rendered = Vec::new();
    for (json, again) in REPORTS {
        if again(dir, json).with_context(|| format!("re-rendering from {json}"))? {
            rendered.push((*json).to_string());
        }
    }
    let path = dir.join("results.json");
    let results: Results =
        parse(&path)?.with_context(|| format!("{}: nothing to render from", path.display()))?;
    let git = Git(Path::new("."));
    let repo = (dir == Path::new("reports")).then_some(&git as &dyn Repo);
    super::write(dir, &results, repo)?;
    rendered.push("results.json".to_string());
    Ok(rendered)
}

/// `path` parsed, or `None` when it does not exist.
fn parse<T: DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
    };
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("parsing {}", path.display()))
}

/// A report that is an [`Output`]: read, judged again, written as its run writes it.
fn output<T: DeserializeOwned + Output>(dir: &Path, json: &str) -> Result<bool> {
    let Some(mut report) = parse::<T>(&dir.join(json))? else {
        return Ok(false);
    };
    report.judge();
    report.write(dir)?;
    Ok(true)
}

/// The course: `course.json` judged again, `course.md` rendered from it (its plots stay).
fn course(dir: &Path, json: &str) -> Result<bool> {
    let Some(mut doc) = parse::<CourseDoc>(&dir.join(json))? else {
        return Ok(false);
    };
    crate::judge::course::judge_course(&mut doc);
    let course_dir = dir.join("course");
    let text = serde_json::to_string_pretty(&doc)?;
    std::fs::write(course_dir.join("course.json"), text)
        .with_context(|| format!("writing {}/course.json", course_dir.display()))?;
    std::fs::write(course_dir.join("course.md"), super::course::course(&doc))
        .with_context(|| format!("writing {}/course.md", course_dir.display()))?;
    Ok(true)
}
