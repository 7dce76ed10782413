//! The Python section (issue 20): filterlab's Python package beside rbloom, pybloom_live,
//! bloom-filter2 and the first article's class, on the run's own key files, in the project's
//! virtual environment; written to `<out>/python.json` and `<out>/python.md`.
//!
//! The measuring is `bench-harness/python/bench.py`, run as subprocesses of the venv's python
//! (target/python-venv, or `$FILTERLAB_VENV`, made by `scripts/python.sh` from PyPI, never a
//! global interpreter): one timing process with interleaved rounds, then a fresh process per
//! contender for its peak memory, rbloom's own benchmark, and a filter file made and loaded in a
//! fresh process. Everything the script prints is parsed into the typed records of
//! [`crate::record::python`] (unknown fields and contenders rejected) and judged in
//! [`crate::record::python::goals`]; `render/python.rs` writes the page from the JSON alone (the
//! stage hands its report to the pipeline), and `check` re-renders it and recomputes the goals.
//!
//! Where the section cannot run (no venv, a module missing) it writes a page that says so and
//! the run goes on; under CI (`CI=true`) or with `FILTERLAB_REQUIRE_PYTHON=1` that is an error.

#[cfg(test)]
mod tests;

use crate::dataset::KeySet;
use crate::plan::{Run, Stage};
use crate::record::python::{
    self as model, LoadCheck, LoadOut, MemoryOut, Peak, RbloomBench, Timing,
};
use crate::record::python::{goals, MEMORY_SKIP_BUILD_SECONDS};
pub use crate::record::python::{Goal, Measured, Outcome, PythonReport, Settings};
use anyhow::{bail, ensure, Context, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Interleaved rounds of the timing process and of rbloom's benchmark.
pub const ROUNDS: usize = 3;
/// The rate every contender is built for.
pub const FPR: f64 = 0.01;
/// The filter file of a `--quick` run (the goal's 1.2 GB is the full run's).
pub const QUICK_FILE_BYTES: u64 = 16 << 20;
/// Memory the machine must have available per byte of the file before the run makes it (the
/// maker's table, then the loader's peak, with room for the rest of the machine).
pub const MEMORY_PER_FILE_BYTE: u64 = 4;

/// The venv's interpreter: `$FILTERLAB_VENV/bin/python`, else target/python-venv's.
#[must_use]
pub fn venv_python(root: &Path) -> PathBuf {
    std::env::var_os("FILTERLAB_VENV")
        .filter(|v| !v.is_empty())
        .map_or_else(|| root.join("target/python-venv"), PathBuf::from)
        .join("bin/python")
}

/// Whether a skipped section fails the run: under CI (`CI=true`) or when asked.
#[must_use]
pub fn skip_is_failure(ci: Option<&str>, require: Option<&str>) -> bool {
    ci == Some("true") || require == Some("1")
}

/// The script's subcommands, run with the venv's python.
struct Script {
    python: PathBuf,
    script: PathBuf,
}

impl Script {
    fn run(&self, args: &[&str]) -> Result<Vec<u8>> {
        let out = Command::new(&self.python)
            .arg(&self.script)
            .args(args)
            // rbloom hashes str with Python's hash(): fixed, so that a run's FP counts repeat.
            .env("PYTHONHASHSEED", "0")
            // The articles' class is imported from bench-harness/python: no __pycache__ there.
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .output()
            .with_context(|| format!("running {}", self.python.display()))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(6).collect();
            bail!(
                "bench.py {} failed ({}): {}",
                args.first().unwrap_or(&""),
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
            );
        }
        Ok(out.stdout)
    }
}

/// Why the section cannot run here, if it cannot: no venv, or a module missing from it.
fn unavailable(s: &Script) -> Option<String> {
    if !s.python.exists() {
        return Some(format!(
            "no virtual environment at {} (make it with `bash scripts/python.sh`)",
            s.python.display()
        ));
    }
    match s.run(&["check"]) {
        Ok(_) => None,
        Err(e) => Some(format!(
            "the virtual environment lacks a module (run `bash scripts/python.sh`): {e:#}"
        )),
    }
}

/// The file size the run makes for the load goal, and why it is smaller than the goal's.
fn file_size(quick: bool, available: Option<u64>) -> (u64, Option<String>) {
    let goal = goals::GOAL_FILE_BYTES;
    if quick {
        return (QUICK_FILE_BYTES, Some("this is a --quick run".into()));
    }
    let Some(avail) = available else {
        return (
            QUICK_FILE_BYTES,
            Some("MemAvailable could not be read".into()),
        );
    };
    let mut size = goal;
    while size > QUICK_FILE_BYTES && size.saturating_mul(MEMORY_PER_FILE_BYTE) > avail {
        size /= 2;
    }
    let why = (size < goal).then(|| {
        format!(
            "the machine had {:.1} GB available, under {MEMORY_PER_FILE_BYTE}× the 1.2 GB file",
            avail as f64 / 1e9
        )
    });
    (size, why)
}

fn mem_available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Makes a filter file of about `bytes` and loads it in a fresh process.
fn load_check(s: &Script, dir: &Path, members: &Path, quick: bool) -> Result<LoadCheck> {
    let (bytes, smaller_because) = file_size(quick, mem_available());
    let path = dir.join("python-load-test.filter");
    let p = path.to_string_lossy().into_owned();
    let made = s.run(&[
        "make-file",
        &p,
        &bytes.to_string(),
        &members.to_string_lossy(),
    ]);
    let loaded = made.and_then(|_| s.run(&["load-file", &p]));
    let _ = std::fs::remove_file(&path);
    let measured: LoadOut = model::parse("load-file", &loaded?)?;
    Ok(LoadCheck {
        goal_bytes: goals::GOAL_FILE_BYTES,
        measured: Some(measured),
        smaller_because,
    })
}

/// Writes the first `n` members and `queries` probes as the run's key files (the same files
/// and contents the articles' Python code is run on).
fn key_files(run: &Run<'_>, dir: &Path, queries: usize) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let head = |keys: &KeySet, count: usize| -> KeySet {
        (0..count.min(keys.len())).map(|i| keys.get(i)).collect()
    };
    let members = dir.join("python-members.txt");
    let probes = dir.join("python-probes.txt");
    crate::dataset::write_keys(&head(run.ctx.members, run.n), &members)?;
    crate::dataset::write_keys(&head(run.ctx.probes, queries), &probes)?;
    Ok((members, probes))
}

/// Everything the section measures, judged.
fn measure(s: &Script, settings: &Settings, dir: &Path, quick: bool) -> Result<Measured> {
    let (members, probes) = (&settings.members_file, &settings.probes_file);
    let (n, q) = (settings.n.to_string(), settings.queries.to_string());
    let (p, rounds) = (FPR.to_string(), settings.rounds.to_string());
    eprintln!("   timing: every contender, {rounds} interleaved rounds");
    let out = s.run(&["timing", members, probes, &n, &p, &q, &rounds])?;
    let mut timing: Timing = model::parse("timing", &out)?;
    timing.validate()?;
    ensure!(
        timing.n == settings.n,
        "the timing inserted {} keys, not {}",
        timing.n,
        settings.n
    );
    eprintln!("   peak memory: a fresh process per contender");
    for row in &mut timing.contenders {
        if row
            .build_seconds
            .first()
            .is_some_and(|&b| b > MEMORY_SKIP_BUILD_SECONDS)
        {
            eprintln!(
                "     {:?}: its build takes minutes, peak not measured",
                row.id
            );
            continue;
        }
        let id = serde_json::to_value(row.id)?;
        let id = id.as_str().context("a contender id is a string")?;
        let m: MemoryOut = model::parse("memory", &s.run(&["memory", members, &n, &p, id])?)?;
        ensure!(m.id == row.id, "memory of {:?} for {:?}", m.id, row.id);
        row.peak = Some(Peak {
            bytes: m.peak_bytes,
            method: m.method,
        });
    }
    eprintln!("   rbloom's benchmark, filterlab added");
    let bench: RbloomBench = model::parse("rbloom-bench", &s.run(&["rbloom-bench", &n, &rounds])?)?;
    bench.validate()?;
    eprintln!("   a filter file, made and loaded");
    let load = load_check(s, dir, Path::new(members), quick)?;
    let goals = goals::goals(&timing, &load)?;
    Ok(Measured {
        timing,
        rbloom_bench: Some(bench),
        load,
        goals,
    })
}

/// Runs `bash scripts/python.sh --no-tests` (a fresh venv with the peers, the wheel built from
/// this checkout); a failure (no python3, no network) is reported and left to
/// [`unavailable`], which then says what is missing.
fn make_venv(root: &Path) {
    eprintln!("   the Python venv: bash scripts/python.sh --no-tests");
    let status = Command::new("bash")
        .arg(root.join("scripts/python.sh"))
        .arg("--no-tests")
        .current_dir(root)
        .status();
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => eprintln!("note: scripts/python.sh --no-tests failed ({s})"),
        Err(e) => eprintln!("note: scripts/python.sh could not run: {e}"),
    }
}

/// The stage.
pub struct Python;

impl Stage for Python {
    fn name(&self) -> &'static str {
        "Python: the package beside rbloom, pybloom_live, bloom-filter2 and the articles' class"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let script = Script {
            python: venv_python(&root),
            script: root.join("bench-harness/python/bench.py"),
        };
        let dir = Path::new("target/python-keys");
        let queries = run.plan.python_queries.min(run.ctx.probes.len()).min(run.n);
        let mut settings = Settings {
            n: run.n as u64,
            queries: queries as u64,
            rounds: ROUNDS,
            ..Settings::default()
        };
        // The committed run measures the package built from this checkout: it makes the venv
        // (and its wheel) afresh with the project's script, as it starts the database servers;
        // another run makes it only when it is missing or incomplete.
        if run.plan.is_committed_run() || unavailable(&script).is_some() {
            make_venv(&root);
        }
        let outcome = match unavailable(&script) {
            Some(reason) => {
                let ci = std::env::var("CI").ok();
                let require = std::env::var("FILTERLAB_REQUIRE_PYTHON").ok();
                if skip_is_failure(ci.as_deref(), require.as_deref()) {
                    bail!("the Python section cannot run under CI: {reason}");
                }
                eprintln!("note: the Python section is skipped: {reason}");
                Outcome::Skipped { reason }
            }
            None => {
                let (members, probes) = key_files(run, dir, queries)?;
                settings.members_file = members.to_string_lossy().into_owned();
                settings.probes_file = probes.to_string_lossy().into_owned();
                let started = std::time::Instant::now();
                let m = measure(&script, &settings, dir, run.plan.quick)?;
                eprintln!(
                    "   the Python section took {:.0} s",
                    started.elapsed().as_secs_f64()
                );
                run.results.ratios.extend(goals::target_ratios(&m.timing)?);
                Outcome::Measured(Box::new(m))
            }
        };
        let report = PythonReport {
            machine: run.results.machine.clone(),
            settings,
            outcome,
        };
        run.outputs.push(Box::new(report));
        Ok(())
    }
}
