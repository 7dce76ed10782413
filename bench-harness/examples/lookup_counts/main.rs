//! One contender's hot loop, alone, for instruction, miss and branch counts under valgrind's
//! callgrind (never for timing): the contenders of issue 21's goals and the floor's two parts,
//! and issue 19's binary fuse filters beside xorf's (`fuse8`, `fuse16`, `fuse8-hash64`,
//! `xorf-fuse8`, `xorf-fuse16`: `bash scripts/counts.sh --members 1000000 --ops 100000 fuse8:negative ...`).
//!
//! `run --contender NAME --mix negative|positive|half [--members N] [--ops N] [--wait-for FILE]`
//! generates the full run's e-mails (`--members`, default 10M, seed 42), builds that contender's
//! table at 1% exactly as the harness does (registry filters through `filters::build_from_keys`,
//! fastbloom+foldhash through `Peer::build`, the atomic forms as the threads stage builds them;
//! 4 KiB pages), so that the table, and with it every miss, is the full run's size. It then makes
//! `--ops` operations (default 200,000) through the harness's own timing loop where there is one
//! (`measure::time_lookups`, `time_peer_lookups`, `time_batch_lookups`), inside
//! [`counts_measured`]: `scripts/counts.sh` collects that function alone
//! (`--toggle-collect=*counts_measured*`). With `--wait-for FILE` it stops after the build until
//! FILE exists, so that valgrind can run the build uninstrumented (`--instr-atstart=no`, then
//! `callgrind_control -i on`); a warm-up pass of `ops / 4` other operations then fills the
//! simulated caches before the measured pass.
//!
//! `table FILE...` reads callgrind output files and prints the counts per operation
//! ([`report`]).
//!
//! Issue 19's ribbon filter has two contenders: `ribbon-batch` (batched lookups, as above) and
//! `ribbon-build`, whose measured pass is the build itself (`filters::build_from_keys`, hashing
//! included, as the builds stage times it) from `--ops` members other than the warm-up's, so
//! that its counts per operation are per key (`--members 1000000 --ops 750000` keeps it quick).
//!
//! ```text
//! just counts                      # every contender of the goals, 10M e-mails, 200k operations
//! ```
#![allow(missing_docs)]

mod report;
mod workload;

use anyhow::{bail, Context, Result};
use std::hint::black_box;
use std::path::PathBuf;
use workload::{Contender, Mix};

/// What `run` was asked.
struct Args {
    contender: Contender,
    mix: Mix,
    members: usize,
    ops: usize,
    wait_for: Option<PathBuf>,
}

const USAGE: &str = "usage: lookup_counts run --contender NAME --mix negative|positive|half \
                     [--members N] [--ops N] [--wait-for FILE] | lookup_counts table FILE...";

fn run_args(mut it: impl Iterator<Item = String>) -> Result<Args> {
    let (mut contender, mut mix) = (None, None);
    let (mut members, mut ops, mut wait_for) = (10_000_000, 200_000, None);
    while let Some(flag) = it.next() {
        let value = it
            .next()
            .with_context(|| format!("{flag} needs a value\n{USAGE}"))?;
        match flag.as_str() {
            "--contender" => {
                contender = Some(Contender::from_name(&value).with_context(|| {
                    format!("no contender {value:?}; one of {}", Contender::names())
                })?);
            }
            "--mix" => {
                mix = Some(Mix::from_name(&value).with_context(|| {
                    format!("no mix {value:?}; one of negative, positive, half")
                })?);
            }
            "--members" => members = value.parse().context("--members")?,
            "--ops" => ops = value.parse().context("--ops")?,
            "--wait-for" => wait_for = Some(PathBuf::from(value)),
            _ => bail!("unknown flag {flag}\n{USAGE}"),
        }
    }
    let (Some(contender), Some(mix)) = (contender, mix) else {
        bail!("--contender and --mix are required\n{USAGE}");
    };
    anyhow::ensure!(
        ops > 0 && members > ops + ops / 4,
        "--ops must be positive and --members above 1.25 x --ops (inserts build from the rest)"
    );
    Ok(Args {
        contender,
        mix,
        members,
        ops,
        wait_for,
    })
}

/// Spins (valgrind polls for `callgrind_control` between basic blocks, not in a blocked
/// syscall) until `path` exists; ten minutes at most.
fn wait_for(path: &std::path::Path) -> Result<()> {
    eprintln!("lookup_counts: ready, waiting for {}", path.display());
    let start = std::time::Instant::now();
    while !path.exists() {
        anyhow::ensure!(
            start.elapsed().as_secs() < 600,
            "{} did not appear within ten minutes",
            path.display()
        );
        for _ in 0..10_000 {
            std::hint::spin_loop();
        }
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut it = std::env::args().skip(1);
    match it.next().as_deref() {
        Some("run") => {
            let a = run_args(it)?;
            let w = workload::Workload::build(a.contender, a.mix, a.members, a.ops)?;
            if let Some(path) = &a.wait_for {
                wait_for(path)?;
            }
            w.warm_up();
            black_box(counts_measured(&w));
            let answer = w.answers();
            println!(
                "{} {}: {} operations, {answer} answered true (0 for inserts and the floor)",
                a.contender.name(),
                a.mix.name(),
                a.ops
            );
            Ok(())
        }
        Some("table") => {
            let files: Vec<PathBuf> = it.map(PathBuf::from).collect();
            anyhow::ensure!(!files.is_empty(), "table needs callgrind files\n{USAGE}");
            let mut rows = Vec::new();
            for f in &files {
                let text = std::fs::read_to_string(f)
                    .with_context(|| format!("reading {}", f.display()))?;
                rows.push(
                    report::Counts::parse(&text)
                        .with_context(|| format!("parsing {}", f.display()))?,
                );
            }
            print!("{}", report::table(&rows));
            Ok(())
        }
        _ => bail!("{USAGE}"),
    }
}

/// The measured pass: the only code callgrind collects (`--toggle-collect=*counts_measured*`).
#[inline(never)]
fn counts_measured(w: &workload::Workload) -> u64 {
    w.measured()
}
