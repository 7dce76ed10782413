//! `filterlab build --keys FILE` against the library (issue 52): the run's members written
//! one a line, then in interleaved rounds the CLI's whole process (no `--n`: it counts the
//! keys, finds the repeats, builds and saves) against the Rust batched build of the same
//! filter plus one plain read of the same file (the file's bytes split into lines), for the
//! classic and cuckoo filters at 1%. The goal: the CLI within 1.3x of that sum.

use crate::plan::{Run, Stage};
use crate::record::conditions::{Api, Conditions, Timed};
use crate::record::{Bound, Ratio, Role};
use anyhow::{ensure, Context, Result};
use filterlab::{AnyFilter, Filter, Params, Variant};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The CLI's time over the library's read and build.
pub const GOAL: f64 = 1.3;
/// Interleaved rounds.
pub const ROUNDS: usize = 5;
/// The filters built: the articles' filter and the one teams pick for deletions.
pub const VARIANTS: &[Variant] = &[Variant::Classic, Variant::Cuckoo];
/// The rate they are built at.
const RATE: f64 = 0.01;

/// Seconds of one `filterlab build` process of `variant` from `keys` into `out`.
fn cli_seconds(bin: &Path, keys: &Path, variant: Variant, out: &Path) -> Result<f64> {
    let started = Instant::now();
    let run = Command::new(bin)
        .args([
            "build",
            "--variant",
            variant.name(),
            "--fpr",
            "0.01",
            "--keys",
        ])
        .arg(keys)
        .arg("--output")
        .arg(out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .context("starting filterlab build")?;
    let seconds = started.elapsed().as_secs_f64();
    ensure!(
        run.status.success(),
        "filterlab build --variant {variant} failed: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    Ok(seconds)
}

/// Seconds to read `keys` once (its bytes, split into lines), and seconds of the batched build
/// of `variant` from those lines (hashing included), checked to hold `n` keys.
fn library_seconds(keys: &Path, variant: Variant, n: usize) -> Result<(f64, f64)> {
    let started = Instant::now();
    let bytes = std::fs::read(keys)?;
    let lines: Vec<&[u8]> = bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let read = started.elapsed().as_secs_f64();
    ensure!(
        lines.len() == n,
        "{} lines in the key file, not {n}",
        lines.len()
    );
    let started = Instant::now();
    let mut f = AnyFilter::build(variant, &Params::new(n as u64, RATE))?;
    f.insert_batch(&lines)?;
    let build = started.elapsed().as_secs_f64();
    ensure!(
        f.len() == n as u64,
        "the batched build holds {} keys",
        f.len()
    );
    Ok((read, build))
}

/// One variant's samples: the CLI's seconds and the library's read + build, per round.
#[derive(Default)]
struct Samples {
    cli: Vec<f64>,
    library: Vec<f64>,
}

/// The goal's row of one variant.
fn row(variant: Variant, n: usize, s: &Samples) -> Ratio {
    let median = |v: &[f64]| crate::measure::median(&mut v.to_vec());
    let side = |timed| Conditions {
        api: Api::Batched,
        achieved_fpr: None,
        hash: crate::record::conditions::OURS_HASH.into(),
        threads: 1,
        timed,
        keys: Some(n as u64),
        ..Conditions::default()
    };
    Ratio {
        what: format!(
            "filterlab build --keys FILE ({variant}, {n} e-mails, no --n): seconds / the Rust \
             batched build + one read of the file"
        ),
        role: Role::Target,
        numerator: "the CLI's process: seconds".into(),
        numerator_value: median(&s.cli),
        numerator_samples: s.cli.clone(),
        denominator: "fs::read and split into lines, then AnyFilter::build + insert_batch: \
                      seconds"
            .into(),
        denominator_value: median(&s.library),
        denominator_samples: s.library.clone(),
        bound: Bound::AtMost(GOAL),
        numerator_conditions: side(Timed::Process),
        denominator_conditions: side(Timed::ReadAndBuild),
        ..Ratio::default()
    }
    .recomputed()
}

/// The members, one a line, in `dir`.
fn key_file(run: &Run<'_>, dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("members.txt");
    let keys: crate::dataset::KeySet = (0..run.n).map(|i| run.ctx.members.get(i)).collect();
    crate::dataset::write_keys(&keys, &path)?;
    Ok(path)
}

/// The stage.
pub struct CliBuild;

impl Stage for CliBuild {
    fn name(&self) -> &'static str {
        "filterlab build --keys FILE against the library's batched build"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let bin = crate::measure::binary::cli_binary()?;
        let dir = Path::new("target/cli-build");
        let keys = key_file(run, dir)?;
        let out = dir.join("built.bin");
        let mut samples: Vec<Samples> = VARIANTS.iter().map(|_| Samples::default()).collect();
        for round in 0..ROUNDS {
            for (i, &v) in VARIANTS.iter().enumerate() {
                // The two sides' order alternates from round to round.
                let (cli, (read, build)) = if round % 2 == 0 {
                    let cli = cli_seconds(&bin, &keys, v, &out)?;
                    (cli, library_seconds(&keys, v, run.n)?)
                } else {
                    let lib = library_seconds(&keys, v, run.n)?;
                    (cli_seconds(&bin, &keys, v, &out)?, lib)
                };
                samples[i].cli.push(cli);
                samples[i].library.push(read + build);
            }
        }
        std::fs::remove_dir_all(dir)?;
        let rows = VARIANTS
            .iter()
            .zip(&samples)
            .map(|(&v, s)| row(v, run.n, s));
        run.results.ratios.extend(rows);
        Ok(())
    }
}

#[cfg(test)]
mod tests;
