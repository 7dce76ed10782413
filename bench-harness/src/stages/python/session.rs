//! One timing process (`bench.py session`) driven round by round: the script loads the keys
//! once, and the harness asks for each round, so that the rounds' count is decided here by a
//! [`Policy`] ([`crate::measure::rounds`]) from the figures so far, as every other timing loop
//! of the harness decides it.

use crate::measure::rounds::{self, LoopRecord, Policy, Stop};
use crate::record::python::{
    self as model, ContenderId, ContenderRow, RoundRow, Sample, Scale, TimingLoop,
};
use anyhow::{bail, ensure, Context, Result};
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

/// What the script prints once its keys are loaded.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Hello {
    /// CPython's version.
    pub python: String,
    /// Every module's distribution version.
    pub versions: BTreeMap<String, String>,
    /// Members loaded.
    pub n: u64,
    /// Probes loaded.
    pub queries: u64,
    /// The sample it cut (`None`: none asked for).
    pub sample: Option<Sample>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RoundOut {
    rows: Vec<RoundRow>,
}

/// The running timing process.
pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Its resident memory, sampled while it runs (dropped after the wait).
    watch: Option<crate::measure::memory::Watch>,
    stdout: BufReader<ChildStdout>,
    stderr: PathBuf,
    /// Its hello.
    pub hello: Hello,
}

/// The files and sizes a session runs on.
pub struct Keys<'a> {
    /// The members' file (at least `n` keys).
    pub members: &'a Path,
    /// The probes' file (at least `queries` keys).
    pub probes: &'a Path,
    /// Keys at full size.
    pub n: u64,
    /// Probes at full size.
    pub queries: u64,
    /// The sample, if any.
    pub sample: Option<Sample>,
}

impl Session {
    /// Starts `script session` with `python` on `keys` at rate `p`; its stderr goes to
    /// `stderr` (read back when it fails).
    ///
    /// # Errors
    /// The process cannot start, or prints no valid hello.
    pub fn start(
        python: &Path,
        script: &Path,
        keys: &Keys<'_>,
        p: f64,
        stderr: &Path,
    ) -> Result<Session> {
        let sample = keys.sample.unwrap_or_default();
        let log = std::fs::File::create(stderr)
            .with_context(|| format!("creating {}", stderr.display()))?;
        let mut child = Command::new(python)
            .arg(script)
            .arg("session")
            .arg(keys.members)
            .arg(keys.probes)
            .args([
                keys.n.to_string(),
                p.to_string(),
                keys.queries.to_string(),
                sample.keys.to_string(),
                sample.probes.to_string(),
            ])
            // rbloom hashes str with Python's hash(): fixed, so that a run's FP counts repeat.
            .env("PYTHONHASHSEED", "0")
            .env("PYTHONDONTWRITEBYTECODE", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .with_context(|| format!("running {}", python.display()))?;
        let (stdin, stdout) = (child.stdin.take(), child.stdout.take());
        let watch = Some(crate::measure::memory::watch(child.id()));
        let stdout = BufReader::new(stdout.context("the session's stdout")?);
        let mut s = Session {
            child,
            stdin,
            watch,
            stdout,
            stderr: stderr.to_path_buf(),
            hello: Hello {
                python: String::new(),
                versions: BTreeMap::new(),
                n: 0,
                queries: 0,
                sample: None,
            },
        };
        let line = s.line()?;
        s.hello = model::parse("session hello", line.as_bytes())?;
        let h = &s.hello;
        ensure!(
            (h.n, h.queries, h.sample) == (keys.n, keys.queries, keys.sample),
            "the session loaded {} keys, {} probes and the sample {:?}, not {}, {} and {:?}",
            h.n,
            h.queries,
            h.sample,
            keys.n,
            keys.queries,
            keys.sample
        );
        Ok(s)
    }

    /// The next line the script prints, or its stderr's tail if it printed none.
    fn line(&mut self) -> Result<String> {
        let mut line = String::new();
        let read = self
            .stdout
            .read_line(&mut line)
            .context("reading the session")?;
        if read == 0 {
            let err = std::fs::read_to_string(&self.stderr).unwrap_or_default();
            let tail: Vec<&str> = err.lines().rev().take(6).collect();
            bail!(
                "bench.py session ended: {}",
                tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
            );
        }
        Ok(line)
    }

    /// One round of `ids` at `scale`: each contender's figures, in the order asked; without
    /// `one_at_a_time`, a contender with a batch call is built by it alone.
    ///
    /// # Errors
    /// The process failing, or printing other contenders or sizes than asked.
    pub fn round(
        &mut self,
        scale: Scale,
        ids: &[ContenderId],
        one_at_a_time: bool,
    ) -> Result<Vec<RoundRow>> {
        let names: Vec<&str> = ids.iter().map(|id| id.script_name()).collect();
        let ask = serde_json::json!({
            "scale": scale.word(),
            "contenders": names,
            "one_at_a_time": one_at_a_time,
        });
        let stdin = self.stdin.as_mut().context("the session is closed")?;
        writeln!(stdin, "{ask}")
            .and_then(|()| stdin.flush())
            .context("writing to the session")?;
        let line = self.line()?;
        let out: RoundOut = model::parse("session round", line.as_bytes())?;
        let got: Vec<ContenderId> = out.rows.iter().map(|r| r.id).collect();
        ensure!(
            got == ids,
            "asked the session for {ids:?}, it answered {got:?}"
        );
        Ok(out.rows)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        // End of input ends the script's loop; it is waited for, never left behind.
        drop(self.stdin.take());
        let _ = self.child.wait();
        drop(self.watch.take());
    }
}

/// What a loop runs: its name, its contenders at one scale, and its policy (`None`: one round).
pub struct Loop<'a> {
    /// Its name in the output and the report.
    pub what: &'a str,
    /// Full size or the sample.
    pub scale: Scale,
    /// Its contenders, in the order each round runs them.
    pub ids: &'a [ContenderId],
    /// Its rounds.
    pub policy: Option<Policy>,
    /// Whether a contender with a batch call is also built one key at a time
    /// ([`crate::record::python::one_at_a_time`]).
    pub one_at_a_time: bool,
}

/// Runs `spec` on `session`, adding each round to the rows of `rows`.
///
/// # Errors
/// The session failing.
pub fn run_loop(
    session: &mut Session,
    rows: &mut Vec<ContenderRow>,
    spec: &Loop<'_>,
) -> Result<TimingLoop> {
    let (session, rows) = (RefCell::new(session), RefCell::new(rows));
    let round = |_| -> Result<()> {
        let got = session
            .borrow_mut()
            .round(spec.scale, spec.ids, spec.one_at_a_time)?;
        let mut rows = rows.borrow_mut();
        for r in &got {
            match rows
                .iter_mut()
                .find(|c| (c.id, c.scale) == (r.id, spec.scale))
            {
                Some(c) => c.push(r)?,
                None => rows.push(ContenderRow::first(r, spec.scale)),
            }
        }
        Ok(())
    };
    let record = match spec.policy {
        Some(policy) => rounds::run(spec.what, policy, round, || {
            rows.borrow()
                .iter()
                .filter(|c| c.scale == spec.scale && spec.ids.contains(&c.id))
                .flat_map(|c| c.series().into_iter().map(<[f64]>::to_vec))
                .collect()
        })?,
        None => once(spec.what, round)?,
    };
    Ok(TimingLoop {
        scale: spec.scale,
        contenders: spec.ids.to_vec(),
        record,
    })
}

/// One round, recorded as a loop of one round that its count ended.
fn once(what: &str, mut round: impl FnMut(usize) -> Result<()>) -> Result<LoopRecord> {
    let started = Instant::now();
    round(0)?;
    let seconds = started.elapsed().as_secs_f64();
    eprintln!("   {what}: 1 round in {seconds:.0} s (once)");
    Ok(LoopRecord {
        what: what.into(),
        policy: Some(Policy::fixed(1)),
        rounds: 1,
        seconds,
        stop: Stop::MaxRounds,
        widest: Some(0.0),
    })
}
