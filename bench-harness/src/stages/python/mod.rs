//! The Python section (issue 20): filterlab's Python package beside rbloom, pybloom_live,
//! bloom-filter2 and the first article's class, on the run's own key files, in the project's
//! virtual environment; written to `<out>/python.json` and `<out>/python.md`. And the
//! `python-peers` study ([`study`]): the slow contenders at full size.
//!
//! The measuring is `bench-harness/python/bench.py`, run as subprocesses of the venv's python
//! (target/python-venv, or `$FILTERLAB_VENV`, made by `scripts/python.sh` from PyPI, never a
//! global interpreter): one timing process that loads the keys once and runs the rounds the
//! harness asks for ([`session`]): ClassicBloom and rbloom at full size in adaptive interleaved
//! rounds (the goals' ratios), the package's other classes and its drop-in module once at full
//! size (their FP goals), the pure-Python filters on a stated [`SAMPLE`] with ClassicBloom
//! beside them at that size; then a fresh process per contender on the sample for its peak
//! memory, rbloom's own benchmark, where one `in` of ClassicBloom goes (a part of the call at
//! a time: [`crate::record::python::costs`]), and a filter file made and loaded in a fresh
//! process.
//! Everything the script prints is parsed into the typed records of [`crate::record::python`]
//! (unknown fields and contenders rejected) and judged in [`crate::record::python::goals`];
//! `render/python.rs` writes the page from the JSON alone (the stage hands its report to the
//! pipeline), and `check` re-renders it and recomputes the goals.
//!
//! Where the section cannot run (no venv, a module missing) it writes a page that says so and
//! the run goes on; under CI (`CI=true`) or with `FILTERLAB_REQUIRE_PYTHON=1` that is an error.

pub mod session;
pub mod study;
#[cfg(test)]
pub(crate) mod tests;
pub mod venv;

use crate::dataset::KeySet;
use crate::measure::rounds::Policy;
use crate::plan::{Run, Stage};
use crate::record::python::costs::CallCosts;
use crate::record::python::goals;
use crate::record::python::{
    self as model, ContenderId, LoadCheck, LoadOut, MemoryOut, PeakRow, RbloomBench, RustBatched,
    Sample, Scale, Timing, JUDGED,
};
pub use crate::record::python::{Goal, Measured, Outcome, PythonReport, Settings};
use anyhow::{bail, ensure, Context, Result};
use session::{run_loop, Keys, Loop, Session};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The rate every contender is built for.
pub const FPR: f64 = 0.01;
/// The slow contenders' sample in the main job: a pure-Python filter inserts a key in 2 to
/// 25 µs (bloom-filter2 and pybloom_live's scalable filter took minutes for 10M keys), so
/// 100k keys and 50k probes keep their loop to seconds a round.
pub const SAMPLE: Sample = Sample {
    keys: 100_000,
    probes: 50_000,
};
/// The sample of a `--quick` run.
pub const SAMPLE_QUICK: Sample = Sample {
    keys: 10_000,
    probes: 5_000,
};
/// Floats of rbloom's benchmark (its own uses 10M; 1M keeps three rounds to seconds).
pub const RBLOOM_BENCH_N: u64 = 1_000_000;
/// The same in a `--quick` run.
pub const RBLOOM_BENCH_N_QUICK: u64 = 50_000;
/// Rounds of rbloom's benchmark (no goal rests on it).
pub const RBLOOM_ROUNDS: usize = 3;
/// Rounds of the call costs (no goal rests on them; a part's cost is a paired difference
/// within a round, summarised over the rounds).
pub const CALL_COST_ROUNDS: usize = 5;
/// The filter file of a `--quick` run (the goal's 1.2 GB is the full run's).
pub const QUICK_FILE_BYTES: u64 = 16 << 20;
/// Memory the machine must have available per byte of the file before the run makes it (the
/// maker's table, then the loader's peak, with room for the rest of the machine).
pub const MEMORY_PER_FILE_BYTE: u64 = 4;

/// The loops' policies: the goals' pair until its spreads are within 5% or 15 s are spent, the
/// sample's rows for 2 to 4 rounds within 10 s (no goal rests on them); a quick run's fixed.
fn policies(quick: bool) -> (Policy, Policy) {
    if quick {
        (Policy::adaptive(3, 3, 0.0), Policy::adaptive(2, 2, 0.0))
    } else {
        (Policy::adaptive(3, 10, 15.0), Policy::adaptive(2, 4, 10.0))
    }
}

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
pub struct Script {
    python: PathBuf,
    script: PathBuf,
}

impl Script {
    fn run(&self, args: &[&str]) -> Result<Vec<u8>> {
        let mut command = Command::new(&self.python);
        command
            .arg(&self.script)
            .args(args)
            // rbloom hashes str with Python's hash(): fixed, so that a run's FP counts repeat.
            .env("PYTHONHASHSEED", "0")
            // The articles' class is imported from bench-harness/python: no __pycache__ there.
            .env("PYTHONDONTWRITEBYTECODE", "1");
        let out = crate::measure::memory::output(&mut command)
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

impl Script {
    /// bench.py in the venv of this checkout.
    #[must_use]
    pub fn here() -> Script {
        let root = root();
        Script {
            python: venv_python(&root),
            script: root.join("bench-harness/python/bench.py"),
        }
    }
}

/// The checkout's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
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

/// Makes a filter file of about `bytes` holding the first `keys` members (its size and its load
/// do not depend on how many it holds: the sample's keep the maker quick) and loads it in a
/// fresh process.
fn load_check(
    s: &Script,
    dir: &Path,
    (members, keys): (&Path, u64),
    quick: bool,
) -> Result<LoadCheck> {
    let (bytes, smaller_because) = file_size(quick, mem_available());
    let path = dir.join("python-load-test.filter");
    let p = path.to_string_lossy().into_owned();
    let made = s.run(&[
        "make-file",
        &p,
        &bytes.to_string(),
        &members.to_string_lossy(),
        &keys.to_string(),
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

/// Writes the first `n` members and `queries` probes as key files named `stem-members.txt`
/// and `stem-probes.txt` in `dir` (a sample is their first lines).
fn key_files(
    run: &Run<'_>,
    dir: &Path,
    stem: &str,
    (n, queries): (usize, usize),
) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir)?;
    let head = |keys: &KeySet, count: usize| -> KeySet {
        (0..count.min(keys.len())).map(|i| keys.get(i)).collect()
    };
    let members = dir.join(format!("{stem}-members.txt"));
    let probes = dir.join(format!("{stem}-probes.txt"));
    crate::dataset::write_keys(&head(run.ctx.members, n), &members)?;
    crate::dataset::write_keys(&head(run.ctx.probes, queries), &probes)?;
    Ok((members, probes))
}

/// The timing process: the goals' pair in adaptive rounds, the package's other classes once
/// (built by `add_many` alone: their goals are FP rates) with the drop-in module, the slow
/// contenders on the sample with ClassicBloom beside them.
fn timing(s: &Script, settings: &Settings, dir: &Path, quick: bool) -> Result<Timing> {
    let keys = Keys {
        members: Path::new(&settings.members_file),
        probes: Path::new(&settings.probes_file),
        n: settings.n,
        queries: settings.queries,
        sample: settings.sample,
    };
    let mut session = Session::start(
        &s.python,
        &s.script,
        &keys,
        FPR,
        &dir.join("session.stderr"),
    )?;
    let (judged, sampled) = policies(quick);
    let once: Vec<ContenderId> = model::main_rows()
        .into_iter()
        .filter(|&(id, scale)| scale == Scale::Full && !JUDGED.contains(&id))
        .map(|(id, _)| id)
        .collect();
    let slow: Vec<ContenderId> = model::main_rows()
        .into_iter()
        .filter(|&(_, scale)| scale == Scale::Sample)
        .map(|(id, _)| id)
        .collect();
    let loops = [
        Loop {
            what: "Python at full size: ClassicBloom and rbloom",
            scale: Scale::Full,
            ids: &JUDGED,
            policy: Some(judged),
            one_at_a_time: true,
        },
        Loop {
            what: "Python at full size: the package's other classes and its drop-in module, once",
            scale: Scale::Full,
            ids: &once,
            policy: None,
            one_at_a_time: false,
        },
        Loop {
            what: "Python on the sample: the pure-Python filters and ClassicBloom",
            scale: Scale::Sample,
            ids: &slow,
            policy: Some(sampled),
            one_at_a_time: true,
        },
    ];
    let mut rows = Vec::new();
    let mut records = Vec::new();
    for spec in &loops {
        records.push(run_loop(&mut session, &mut rows, spec)?);
    }
    let h = &session.hello;
    let timing = Timing {
        python: h.python.clone(),
        versions: h.versions.clone(),
        n: h.n,
        queries: h.queries,
        sample: h.sample,
        loops: records,
        contenders: rows,
    };
    timing.validate(&model::main_rows())?;
    Ok(timing)
}

/// Every contender's peak memory on the sample, a fresh process each.
fn peaks(s: &Script, members: &str, sample: Sample) -> Result<Vec<PeakRow>> {
    let (n, p) = (sample.keys.to_string(), FPR.to_string());
    let mut out = Vec::new();
    for id in ContenderId::ALL {
        let m: MemoryOut = model::parse(
            "memory",
            &s.run(&["memory", members, &n, &p, id.script_name()])?,
        )?;
        ensure!(m.id == id, "memory of {:?} for {id:?}", m.id);
        out.push(PeakRow {
            id,
            n: sample.keys,
            peak: model::Peak {
                bytes: m.peak_bytes,
                method: m.method,
            },
            bytes: m.bytes,
        });
    }
    Ok(out)
}

/// Where one `in` of ClassicBloom goes, on the section's members and probes.
fn call_costs(s: &Script, settings: &Settings, rounds: usize) -> Result<CallCosts> {
    let out = s.run(&[
        "call-costs",
        &settings.members_file,
        &settings.probes_file,
        &settings.n.to_string(),
        &FPR.to_string(),
        &settings.queries.to_string(),
        &rounds.to_string(),
    ])?;
    let costs: CallCosts = model::parse("call-costs", &out)?;
    costs.validate()?;
    Ok(costs)
}

/// Everything the section measures, judged.
fn measure(
    s: &Script,
    settings: &Settings,
    (dir, quick): (&Path, bool),
    rust: Option<RustBatched>,
) -> Result<Measured> {
    let sample = settings
        .sample
        .context("the main job's section has a sample")?;
    let timing = timing(s, settings, dir, quick)?;
    eprintln!("   peak memory: a fresh process per contender, on the sample");
    let peaks = peaks(s, &settings.members_file, sample)?;
    let n = if quick {
        RBLOOM_BENCH_N_QUICK
    } else {
        RBLOOM_BENCH_N
    };
    eprintln!("   rbloom's benchmark at {n} floats, filterlab added");
    let rounds = RBLOOM_ROUNDS.to_string();
    let bench: RbloomBench = model::parse(
        "rbloom-bench",
        &s.run(&["rbloom-bench", &n.to_string(), &rounds])?,
    )?;
    bench.validate()?;
    eprintln!("   where one `in` goes: ClassicBloom's call a part at a time, on fresh keys");
    let call_costs = call_costs(s, settings, if quick { 3 } else { CALL_COST_ROUNDS })?;
    eprintln!("   a filter file, made and loaded");
    let members = (Path::new(&settings.members_file), sample.keys);
    let load = load_check(s, dir, members, quick)?;
    let goals = goals::goals(&timing, &load, rust.as_ref())?;
    Ok(Measured {
        timing,
        peaks,
        rbloom_bench: Some(bench),
        load,
        call_costs: Some(call_costs),
        rust,
        goals,
    })
}

/// Whether the section can run, after making the venv where it is missing (a committed run at
/// `commit` makes it afresh from this checkout unless its wheel was built from the same code:
/// [`venv::wheel_is_current`]): `Some(reason)` when it cannot, and an error when that must
/// fail the run.
///
/// # Errors
/// The section cannot run under CI (`CI=true`) or with `FILTERLAB_REQUIRE_PYTHON=1`.
pub fn ready(script: &Script, committed: Option<&str>) -> Result<Option<String>> {
    let root = root();
    let stale = committed.map(|commit| venv::wheel_is_current(&venv_python(&root), commit));
    match (stale, unavailable(script)) {
        (Some(Err(why)), _) => {
            eprintln!("   a fresh venv: {why}");
            venv::make(&root);
        }
        (_, Some(_)) => venv::make(&root),
        (Some(Ok(at)), None) => {
            eprintln!(
                "   the venv's wheel was built at {at}, and no code of the package changed since"
            );
        }
        (None, None) => {}
    }
    let Some(reason) = unavailable(script) else {
        return Ok(None);
    };
    let ci = std::env::var("CI").ok();
    let require = std::env::var("FILTERLAB_REQUIRE_PYTHON").ok();
    if skip_is_failure(ci.as_deref(), require.as_deref()) {
        bail!("the Python section cannot run under CI: {reason}");
    }
    eprintln!("note: the Python section is skipped: {reason}");
    Ok(Some(reason))
}

/// The classic filter's batched lookups from the comparison's row (the filter `ClassicBloom`
/// wraps, at the same size), or `None` when the run has no such row.
fn rust_batched(peers: &[crate::record::PeerRecord]) -> Option<RustBatched> {
    let row = peers
        .iter()
        .find(|r| r.name == crate::filters::Variant::Classic.name())?;
    let samples = |s: &Option<crate::measure::Spread>| s.as_ref().map(|s| s.samples.clone());
    Some(RustBatched {
        filter: row.name.clone(),
        n: row.n,
        negative: samples(&row.ns_negative_batched)?,
        positive: samples(&row.ns_positive_batched)?,
    })
}

/// The stage.
pub struct Python;

impl Stage for Python {
    fn name(&self) -> &'static str {
        "Python: the package beside rbloom, pybloom_live, bloom-filter2 and the articles' class"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let script = Script::here();
        let dir = Path::new("target/python-keys");
        let queries = run.plan.python_queries.min(run.ctx.probes.len()).min(run.n);
        let sample = if run.plan.quick { SAMPLE_QUICK } else { SAMPLE };
        let mut settings = Settings {
            n: run.n as u64,
            queries: queries as u64,
            sample: Some(sample.within(run.n as u64, queries as u64)),
            ..Settings::default()
        };
        let committed = run
            .plan
            .is_committed_run()
            .then_some(run.results.machine.commit.as_str());
        let outcome = match ready(&script, committed)? {
            Some(reason) => Outcome::Skipped { reason },
            None => {
                let (members, probes) = key_files(run, dir, "python", (run.n, queries))?;
                settings.members_file = members.to_string_lossy().into_owned();
                settings.probes_file = probes.to_string_lossy().into_owned();
                let started = std::time::Instant::now();
                let rust = rust_batched(&run.results.peers);
                let m = measure(&script, &settings, (dir, run.plan.quick), rust)?;
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
