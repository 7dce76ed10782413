//! The first article's Python code run on the same keys, as one row beside the peers.

use crate::dataset::KeySet;
use crate::measure::Spread;
use crate::plan::Ctx;
use crate::record::{PeerRecord, Side};
use anyhow::{ensure, Context, Result};
use std::path::Path;
use std::process::Command;

/// Where python3 finds mmh3 and bitarray: `None` when it has them already, otherwise the private
/// directory `scripts/python-peers.sh` installed the pinned versions into (PyPI), so that the
/// report needs nothing installed by hand. An error says why the Python code cannot run.
fn python_packages() -> Result<Option<String>, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/python-peers.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!(
            "python3 with mmh3 and bitarray not available: {}",
            err.trim()
        ));
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Ok((!dir.is_empty()).then_some(dir))
}

/// The fewest rounds the articles' Python code is run for, whatever the plan says.
pub const PYTHON_ROUNDS: usize = 5;

/// Runs the first article's Python code on the same keys, `rounds` times (at least
/// [`PYTHON_ROUNDS`]), if python3 with mmh3 and bitarray is there or can be installed through
/// `scripts/python-peers.sh`. Returns `Ok(None)` (after printing why) when it is not.
pub fn python(
    ctx: &Ctx<'_>,
    n: usize,
    p: f64,
    (queries, rounds): (usize, usize),
    dir: &Path,
) -> Result<Option<PeerRecord>> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/articles_bloom.py");
    let pythonpath = match python_packages() {
        Ok(path) => path,
        Err(why) => {
            eprintln!("note: {why}; the articles' Python code is skipped");
            return Ok(None);
        }
    };
    std::fs::create_dir_all(dir)?;
    let members = dir.join("python-members.txt");
    let probes = dir.join("python-probes.txt");
    let head = |keys: &KeySet, count: usize| -> KeySet {
        (0..count.min(keys.len())).map(|i| keys.get(i)).collect()
    };
    crate::dataset::write_keys(&head(ctx.members, n), &members)?;
    crate::dataset::write_keys(&head(ctx.probes, queries), &probes)?;
    let mut python = Command::new("python3");
    if let Some(path) = &pythonpath {
        python.env("PYTHONPATH", path);
    }
    let out = python
        .arg(&script)
        .arg(&members)
        .arg(&probes)
        .arg(n.to_string())
        .arg(p.to_string())
        .arg(queries.to_string())
        .arg(rounds.max(PYTHON_ROUNDS).to_string())
        .output()
        .context("running python3")?;
    ensure!(
        out.status.success(),
        "the articles' Python code failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    python_record(&out.stdout, p).map(Some)
}

/// The row of the articles' Python code from its JSON output, every figure checked present and
/// finite (a NaN would be written to results.json as null).
fn python_record(stdout: &[u8], p: f64) -> Result<PeerRecord> {
    let v: serde_json::Value =
        serde_json::from_slice(stdout).context("parsing the Python output")?;
    // Every figure must be there and finite: a NaN would be written to results.json as null.
    for k in [
        "m",
        "k",
        "n",
        "probes",
        "false_positives",
        "false_negatives",
        "bytes",
    ] {
        ensure!(
            v[k].as_f64().is_some_and(f64::is_finite),
            "the Python output lacks a finite {k:?}: {v}"
        );
    }
    let f = |k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let rounds_of = |k: &str| -> Result<Spread> {
        let mut xs: Vec<f64> = v[k]
            .as_array()
            .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
            .unwrap_or_default();
        ensure!(
            xs.len() >= PYTHON_ROUNDS && xs.iter().all(|x| x.is_finite()),
            "the Python output has no {PYTHON_ROUNDS} finite rounds of {k:?}: {v}"
        );
        Ok(Spread::of(&mut xs))
    };
    Ok(PeerRecord {
        name: "articles' Python".into(),
        side: Side::Python,
        source: format!("CPython {} + mmh3 + bitarray", v["python"].as_str().unwrap_or("?")),
        quirks: format!(
            "the first article's class verbatim: m = int(...) = {}, k = int(...) = {}, k seeded 32-bit mmh3 calls, % m indexing; lookups over a scan of {} keys",
            f("m"),
            f("k"),
            f("probes")
        ),
        n: f("n") as u64,
        target_fpr: p,
        // Rounds of the script's own loop (a fresh filter each), in round order.
        build_seconds: rounds_of("build_seconds_rounds")?,
        ns_negative: rounds_of("ns_per_negative_lookup_rounds")?,
        ns_positive: rounds_of("ns_per_positive_lookup_rounds")?,
        empirical_fpr: f("false_positives") / f("probes"),
        probes: f("probes") as u64,
        false_negatives: f("false_negatives") as u64,
        bytes: f("bytes") as u64,
        bits_per_key: f("bytes") * 8.0 / f("n"),
        ..PeerRecord::default()
    })
}
