//! The first article's Python code run on the same keys, as one row beside the peers, on a
//! stated sample: its class inserts one key at a time through k seeded mmh3 calls (about 17 s
//! for 10M keys a round), so the main job builds it on [`ARTICLE_SAMPLE`] keys and probes it with
//! as many non-members as the sample names. Its per-key figures are compared only with ours at
//! the same size: our classic filter is built and probed on the very same keys in the same
//! interleaved rounds ([`ARTICLE_TWIN`]). Its FP promise at 10M keys is checked by the
//! `python-peers` study.

use crate::dataset::KeySet;
use crate::filters::{Variant, BESIDE_PEERS};
use crate::measure::rounds::{self, LoopRecord, Policy};
use crate::measure::{self, Spread};
use crate::plan::Ctx;
use crate::record::python::Sample;
use crate::record::{PeerRecord, Side};
use anyhow::{ensure, Context, Result};
use filterlab::{Filter, BATCH};
use serde::Deserialize;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The sample of the main job: 1M keys built (a tenth of the run), 200k non-members and as many
/// members probed.
pub const ARTICLE_SAMPLE: Sample = Sample {
    keys: 1_000_000,
    probes: 200_000,
};
/// The sample of a `--quick` run (smaller than its 200k keys, so that the sampled path runs).
pub const ARTICLE_SAMPLE_QUICK: Sample = Sample {
    keys: 20_000,
    probes: 10_000,
};

/// The fewest interleaved rounds the articles' Python code and its twin run for (`check`
/// refuses fewer).
pub const PYTHON_ROUNDS: usize = 3;
/// The most rounds, and the seconds the rounds may take: the article's class and its twin take
/// 1.5 to 2.4 s a round at 1M keys, so the budget runs out before the most rounds only when the
/// rounds were slower than that (which flags the run as disturbed).
const MOST_ROUNDS: usize = 8;
const BUDGET_SECONDS: f64 = 24.0;

/// The name of our classic filter measured on the articles' sample, beside their class.
pub const ARTICLE_TWIN: &str = "classic on the articles' sample";
/// The name of the articles' Python code's row.
pub const ARTICLE_ROW: &str = "articles' Python";

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

/// The articles' code and our twin, as the comparison records them.
pub struct Article {
    /// The articles' Python row ([`ARTICLE_ROW`]) and our classic on the same sample
    /// ([`ARTICLE_TWIN`]).
    pub records: Vec<PeerRecord>,
    /// Their interleaved rounds.
    pub loop_record: LoopRecord,
}

/// One round's output of `articles_bloom.py` (its rounds argument 1).
#[derive(Debug, Deserialize)]
struct ScriptRound {
    n: u64,
    m: u64,
    k: u64,
    bytes: u64,
    rounds: usize,
    build_seconds_rounds: Vec<f64>,
    ns_per_negative_lookup_rounds: Vec<f64>,
    ns_per_positive_lookup_rounds: Vec<f64>,
    false_positives: u64,
    probes: u64,
    false_negatives: u64,
    python: String,
}

/// Every series of the loop, each side's rounds in order: the script's then the twin's.
#[derive(Default)]
struct Series {
    last: Option<ScriptRound>,
    py: [Vec<f64>; 3],
    twin: [Vec<f64>; 6],
    twin_counts: (u64, u64, u64),
}

/// Runs the first article's Python code on a sample of the keys (`quick`: the quick sample),
/// with our classic filter built and probed on the same keys in the same interleaved rounds, if
/// python3 with mmh3 and bitarray is there or can be installed through
/// `scripts/python-peers.sh`. Returns `Ok(None)` (after printing why) when it is not.
pub fn python(ctx: &Ctx<'_>, n: usize, p: f64, quick: bool, dir: &Path) -> Result<Option<Article>> {
    let pythonpath = match python_packages() {
        Ok(path) => path,
        Err(why) => {
            eprintln!("note: {why}; the articles' Python code is skipped");
            return Ok(None);
        }
    };
    let sample = if quick {
        ARTICLE_SAMPLE_QUICK
    } else {
        ARTICLE_SAMPLE
    }
    .within(n as u64, ctx.probes.len() as u64);
    let (s, q) = (sample.keys as usize, sample.probes as usize);
    let head = |keys: &KeySet, count: usize| -> KeySet {
        (0..count.min(keys.len())).map(|i| keys.get(i)).collect()
    };
    let (members, negatives, positives) = (
        head(ctx.members, s),
        head(ctx.probes, q),
        head(ctx.members, q.min(s)),
    );
    std::fs::create_dir_all(dir)?;
    let files = (
        dir.join("article-members.txt"),
        dir.join("article-probes.txt"),
    );
    crate::dataset::write_keys(&members, &files.0)?;
    crate::dataset::write_keys(&negatives, &files.1)?;
    eprintln!("   on a sample of {s} keys and {q} probes, classic beside it");
    let series = RefCell::new(Series::default());
    let policy = if quick {
        Policy::adaptive(PYTHON_ROUNDS, PYTHON_ROUNDS, 0.0)
    } else {
        Policy::adaptive(PYTHON_ROUNDS, MOST_ROUNDS, BUDGET_SECONDS)
    };
    let loop_record = rounds::run(
        "the articles' Python code and classic, on a sample",
        policy,
        |_| -> Result<()> {
            let round = script_round(&files, (s, q), p, pythonpath.as_deref())?;
            let mut x = series.borrow_mut();
            for (xs, v) in x.py.iter_mut().zip([
                &round.build_seconds_rounds,
                &round.ns_per_negative_lookup_rounds,
                &round.ns_per_positive_lookup_rounds,
            ]) {
                xs.extend(v);
            }
            x.last = Some(round);
            twin_round(&mut x, (&members, &negatives, &positives), p)
        },
        || {
            let x = series.borrow();
            x.py.iter().chain(x.twin.iter()).cloned().collect()
        },
    )?;
    let x = series.into_inner();
    let records = vec![python_record(&x, p)?, twin_record(&x, &sample, p)];
    Ok(Some(Article {
        records,
        loop_record,
    }))
}

/// One run of the script on the sample's files, checked.
fn script_round(
    (members, probes): &(PathBuf, PathBuf),
    (s, q): (usize, usize),
    p: f64,
    pythonpath: Option<&str>,
) -> Result<ScriptRound> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("python/articles_bloom.py");
    let mut python = Command::new("python3");
    if let Some(path) = pythonpath {
        python.env("PYTHONPATH", path);
    }
    python.arg(&script).arg(members).arg(probes).args([
        s.to_string(),
        p.to_string(),
        q.to_string(),
        "1".into(),
    ]);
    let out = crate::measure::memory::output(&mut python).context("running python3")?;
    ensure!(
        out.status.success(),
        "the articles' Python code failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_round(&out.stdout, s as u64)
}

/// A round of the script's output: one finite positive figure of each series, `n` keys.
fn parse_round(stdout: &[u8], n: u64) -> Result<ScriptRound> {
    let r: ScriptRound = serde_json::from_slice(stdout).with_context(|| {
        format!(
            "parsing the Python output {:?}",
            String::from_utf8_lossy(&stdout[..stdout.len().min(200)])
        )
    })?;
    for (what, xs) in [
        ("build_seconds_rounds", &r.build_seconds_rounds),
        (
            "ns_per_negative_lookup_rounds",
            &r.ns_per_negative_lookup_rounds,
        ),
        (
            "ns_per_positive_lookup_rounds",
            &r.ns_per_positive_lookup_rounds,
        ),
    ] {
        ensure!(
            xs.len() == r.rounds && r.rounds == 1 && xs.iter().all(|x| x.is_finite() && *x > 0.0),
            "the Python output has not one finite positive round of {what:?}: {xs:?}"
        );
    }
    ensure!(
        r.n == n && r.probes > 0 && r.false_positives <= r.probes,
        "the Python code inserted {} keys (not {n}) or counted {} false positives of {} probes",
        r.n,
        r.false_positives,
        r.probes
    );
    Ok(r)
}

/// Our classic filter on the sample: built one key at a time and in batches (allocation
/// timed, as every build), probed with the script's very keys one at a time and batched.
fn twin_round(
    x: &mut Series,
    (members, negatives, positives): (&KeySet, &KeySet, &KeySet),
    p: f64,
) -> Result<()> {
    let s = members.len();
    let start = Instant::now();
    let mut f = crate::filters::build(Variant::Classic, s as u64, p, BESIDE_PEERS)?;
    let (_, refused) = measure::time_inserts(&mut f, members, 0..s);
    let one = start.elapsed().as_secs_f64();
    ensure!(refused == 0, "classic refused {refused} inserts");
    measure::settle_heap();
    let start = Instant::now();
    let mut g = crate::filters::build(Variant::Classic, s as u64, p, BESIDE_PEERS)?;
    measure::time_batch_inserts(&mut g, members, 0..s)?;
    let batched = start.elapsed().as_secs_f64();
    drop(g);
    let figures = [
        one,
        batched,
        measure::time_lookups(&f, negatives),
        measure::time_lookups(&f, positives),
        measure::time_batch_lookups(&f, negatives, BATCH),
        measure::time_batch_lookups(&f, positives, BATCH),
    ];
    for (xs, v) in x.twin.iter_mut().zip(figures) {
        xs.push(v);
    }
    let fp = measure::count_present(&f, negatives, 0..negatives.len()) as u64;
    let found = measure::count_present(&f, positives, 0..positives.len()) as u64;
    x.twin_counts = (fp, positives.len() as u64 - found, f.size_in_bytes() as u64);
    Ok(())
}

/// The row of the articles' Python code over its rounds.
fn python_record(x: &Series, p: f64) -> Result<PeerRecord> {
    let r = x
        .last
        .as_ref()
        .context("the articles' Python code ran no round")?;
    let spread = |i: usize| Spread::of(&mut x.py[i].clone());
    Ok(PeerRecord {
        name: ARTICLE_ROW.into(),
        side: Side::Python,
        source: format!("CPython {} + mmh3 + bitarray", r.python),
        quirks: format!(
            "the first article's class verbatim: m = int(...) = {}, k = int(...) = {}, k seeded 32-bit mmh3 calls, % m indexing; \
             built on a sample of {} keys (n of this row; at the run's full size in the python-peers study), lookups over {} non-members and as many members, \
             a fresh process each round; compared only with \"{ARTICLE_TWIN}\", timed on the same keys in the same interleaved rounds; \
             its FP promise at 10M keys is checked by the python-peers study",
            r.m, r.k, r.n, r.probes
        ),
        n: r.n,
        target_fpr: p,
        build_seconds: spread(0),
        ns_negative: spread(1),
        ns_positive: spread(2),
        empirical_fpr: r.false_positives as f64 / r.probes as f64,
        probes: r.probes,
        false_negatives: r.false_negatives,
        bytes: r.bytes,
        bits_per_key: r.bytes as f64 * 8.0 / r.n as f64,
        ..PeerRecord::default()
    })
}

/// Our classic filter's row on the articles' sample.
fn twin_record(x: &Series, sample: &Sample, p: f64) -> PeerRecord {
    let spread = |i: usize| Spread::of(&mut x.twin[i].clone());
    let (fp, missed, bytes) = x.twin_counts;
    PeerRecord {
        name: ARTICLE_TWIN.into(),
        side: Side::Filterlab,
        source: format!("filterlab {}", env!("CARGO_PKG_VERSION")),
        quirks: format!(
            "classic built on the articles' sample ({} keys, n of this row) and probed with its {} non-members and as many members, \
             in the same interleaved rounds as the articles' Python code: the speed-up targets over their class compare these two rows",
            sample.keys, sample.probes
        ),
        n: sample.keys,
        target_fpr: p,
        build_seconds: spread(0),
        build_seconds_batched: Some(spread(1)),
        ns_negative: spread(2),
        ns_positive: spread(3),
        ns_negative_batched: Some(spread(4)),
        ns_positive_batched: Some(spread(5)),
        empirical_fpr: fp as f64 / sample.probes.max(1) as f64,
        probes: sample.probes,
        false_negatives: missed,
        bytes,
        bits_per_key: bytes as f64 * 8.0 / sample.keys.max(1) as f64,
        ..PeerRecord::default()
    }
}

#[cfg(test)]
mod tests;
