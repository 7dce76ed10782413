//! The studies as the reports list them: the index in reports/README.md (each study with the
//! commit and date it was measured at, and the code changed since) and `goals.md`, every goal of
//! the project in one table: the main job's targets and the studies' goals.

use crate::measure::rounds::{LoopRecord, Stop};
use crate::record::provenance::{self, Repo};
use crate::record::python::peers::PythonPeersReport;
use crate::record::study::{Stamp, Study};
use crate::record::{Machine, Ratio, Results, Verdict};
use crate::render::table::{Align, Table};
use crate::stages::course::hash64::HashingReport;
use crate::stages::course::model::CourseDoc;
use crate::stages::expansion::ExpansionReport;
use crate::stages::sweep::SweepReport;
use crate::stages::window::WindowReport;
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// A study found in a reports directory: when it was measured, and its goals.
#[derive(Clone, Debug)]
pub struct Found {
    /// Which.
    pub study: Study,
    /// Its commit, date and wall time.
    pub machine: Machine,
    /// Its goals, judged (none for a study without goals).
    pub goals: Vec<Ratio>,
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .with_context(|| format!("parsing {}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("reading {}", path.display())),
    }
}

/// The course's provenance as a machine (its JSON records the commit, date and seconds).
fn course_machine(doc: &CourseDoc) -> Machine {
    Machine {
        commit: doc.settings.commit.clone(),
        date: doc.settings.date.clone(),
        wall_seconds: doc.settings.seconds,
        ..Machine::default()
    }
}

/// One study's JSON in `dir`, if it is there.
fn find(dir: &Path, study: Study) -> Result<Option<Found>> {
    let path = dir.join(study.json());
    let found = |machine: Machine, goals: Vec<Ratio>| Found {
        study,
        machine,
        goals,
    };
    Ok(match study {
        Study::Growth => read::<ExpansionReport>(&path)?.map(|r| found(r.machine, r.goals)),
        Study::Window => read::<WindowReport>(&path)?
            .map(|r| found(r.machine.clone(), crate::judge::targets::window::rows(&r))),
        Study::Sweep => read::<SweepReport>(&path)?.map(|r| found(r.machine, Vec::new())),
        Study::Hashing => read::<HashingReport>(&path)?.map(|r| found(r.machine, Vec::new())),
        Study::Course => read::<CourseDoc>(&path)?.map(|d| found(course_machine(&d), Vec::new())),
        Study::PythonPeers => {
            read::<PythonPeersReport>(&path)?.map(|r| found(r.machine.clone(), r.goals()))
        }
        Study::Interop => {
            read::<crate::stages::interop::InteropReport>(&path)?.map(|r| found(r.machine, r.goals))
        }
        Study::Mapped => {
            read::<crate::stages::mapped::MappedReport>(&path)?.map(|r| found(r.machine, r.goals))
        }
    })
}

/// Every study whose JSON is in `dir`, in [`Study::ALL`] order.
///
/// # Errors
/// A study's JSON that cannot be read or parsed.
pub fn read_studies(dir: &Path) -> Result<Vec<Found>> {
    Study::ALL
        .iter()
        .filter_map(|&s| find(dir, s).transpose())
        .collect()
}

/// The index's rows: each study's commit and date, and the code that changed between it and the
/// main report's commit `main` (asked of `repo`; without one, none is listed).
///
/// # Errors
/// A study measured at a commit outside HEAD's history, or git failing.
pub fn stamps(found: &[Found], main: &str, repo: Option<&dyn Repo>) -> Result<Vec<Stamp>> {
    found
        .iter()
        .map(|f| {
            let changed_since = match repo {
                Some(repo) => provenance::study(&f.machine.commit, main, repo)
                    .map_err(|e| anyhow::anyhow!("{}: {e}", f.study.page()))?,
                None => Vec::new(),
            };
            Ok(Stamp {
                study: f.study,
                commit: f.machine.commit.clone(),
                date: f.machine.date.clone(),
                wall_seconds: f.machine.wall_seconds,
                changed_since,
            })
        })
        .collect()
}

/// The index of studies, for reports/README.md.
pub fn index_section(s: &mut String, stamps: &[Stamp]) {
    let _ = writeln!(
        s,
        "## Studies (run on demand: `just study NAME`, `just study all`)\n"
    );
    let mut t = Table::new(&[
        ("study", Align::Left),
        ("what it measures", Align::Left),
        ("commit", Align::Left),
        ("date", Align::Left),
        ("wall time", Align::Right),
        ("code since", Align::Left),
    ]);
    for study in Study::ALL {
        let row = match stamps.iter().find(|x| x.study == study) {
            Some(x) => [
                format!("[{}]({})", study.name(), study.page()),
                study.what().into(),
                x.commit.clone(),
                x.date.clone(),
                format!("{:.0} s", x.wall_seconds),
                if x.changed_since.is_empty() {
                    "unchanged".into()
                } else {
                    format!("changed in {}", provenance::listed(&x.changed_since, 3))
                },
            ],
            None => [
                study.name().into(),
                study.what().into(),
                "not measured".into(),
                "–".into(),
                "–".into(),
                "–".into(),
            ],
        };
        t.row(row);
    }
    s.push_str(&t.render());
    s.push('\n');
}

/// `goals.md`: one row a goal, the main job's targets first, then each study's.
#[must_use]
pub fn goals_page(
    results: &Results,
    found: &[Found],
    by_cpu: &crate::record::by_cpu::ByCpu,
) -> String {
    let mut s = String::new();
    let m = &results.machine;
    let _ = writeln!(s, "# The project's goals\n");
    let _ = writeln!(
        s,
        "Every goal the project set itself, judged on measurements: the main job's at commit {} \
         ({}), each study's at the commit its row names (written by the harness from results.json \
         and the studies' JSON; do not edit). A ratio is numerator / denominator (medians of \
         interleaved rounds) with its 95% interval; met: the whole interval meets the bound; not \
         met: none of it does; otherwise undecided.\n",
        m.commit, m.date
    );
    let mut t = Table::new(&[
        ("goal", Align::Left),
        ("measured", Align::Right),
        ("95% interval", Align::Left),
        ("bound", Align::Left),
        ("verdict", Align::Center),
        ("conditions", Align::Left),
        ("from", Align::Left),
    ]);
    let main = ("main job".to_string(), results.ratios.iter());
    let rows = std::iter::once(main).chain(found.iter().map(|f| {
        (
            format!("{} at {}", f.study.name(), f.machine.commit),
            f.goals.iter(),
        )
    }));
    let mut counts = [0usize; 3];
    for (from, goals) in rows {
        for r in goals.filter(|r| r.role == crate::record::Role::Target) {
            counts[match r.verdict {
                Verdict::Met => 0,
                Verdict::NotMet => 1,
                _ => 2,
            }] += 1;
            let ended = (r.verdict == Verdict::Undecided && from == "main job")
                .then(|| budget_ended(r, &results.loops))
                .flatten();
            t.row([
                r.what.clone(),
                format!("{:.3}", r.ratio),
                r.interval
                    .map_or_else(|| "–".into(), |(lo, hi)| format!("{lo:.3}–{hi:.3}")),
                r.bound.text(),
                match ended {
                    Some(what) => format!("undecided: the budget of {what} ended its rounds"),
                    None => r.verdict.word().into(),
                },
                if r.same_conditions {
                    "same".into()
                } else {
                    format!("differ: {}", r.differences)
                },
                from.clone(),
            ]);
        }
    }
    let _ = writeln!(
        s,
        "{} met, {} not met, {} undecided.\n",
        counts[0], counts[1], counts[2]
    );
    s.push_str(&t.render());
    loops_table(&mut s, &results.loops);
    s.push_str(&super::by_cpu::section(results, by_cpu));
    s
}

/// The timing loop a ratio's figures came from, by the figure's name: build seconds from the
/// build loop, lookups from the loop beside the peers; `Some(loop)` when that loop ended on its
/// budget rather than on narrow enough intervals.
fn budget_ended<'a>(r: &Ratio, loops: &'a [LoopRecord]) -> Option<&'a str> {
    let prefix = if r.numerator.contains("build seconds") {
        "builds"
    } else if r.numerator.contains("ns per") {
        "lookups beside the peers"
    } else {
        return None;
    };
    loops
        .iter()
        .find(|l| l.what.starts_with(prefix) && l.stop == Stop::Budget)
        .map(|l| l.what.as_str())
}

/// The main job's timing loops: rounds, seconds and what ended each.
fn loops_table(s: &mut String, loops: &[LoopRecord]) {
    if loops.is_empty() {
        return;
    }
    let _ = writeln!(
        s,
        "\nThe timing loops ran interleaved rounds until every figure's median was known to \
         within its limit (the half-width of the median's 95% bootstrap interval over its rounds, \
         as a share of the median; two such figures give their ratio an interval within about \
         twice that), or their budget was spent:\n"
    );
    let mut t = Table::new(&[
        ("loop", Align::Left),
        ("rounds", Align::Right),
        ("seconds", Align::Right),
        ("widest median interval", Align::Right),
        ("ended by", Align::Left),
    ]);
    for l in loops {
        t.row([
            l.what.clone(),
            l.rounds.to_string(),
            format!("{:.0}", l.seconds),
            l.widest
                .map_or_else(|| "–".into(), |w| format!("±{:.1}%", w * 100.0)),
            l.stop.word().to_string(),
        ]);
    }
    s.push_str(&t.render());
}
