//! `bench-harness`: regenerates `reports/` (results.json, README.md, plots).
//!
//! ```text
//! cargo run --release -p bench-harness                 # the full run: 10M e-mails
//! cargo run --release -p bench-harness -- --quick      # 200k keys, under a minute
//! cargo run --release -p bench-harness -- --keys my_keys.txt --probes my_probes.txt
//! cargo run --release -p bench-harness -- generate     # write the key files to datasets/generated/
//! ```

use anyhow::{bail, ensure, Context, Result};
use bench_harness::dataset::{self, Dataset, DatasetSpec, KeySet};
use bench_harness::filters::Kind;
use bench_harness::record::Record;
use bench_harness::report::{self, DatasetInfo, Machine, Results};
use bench_harness::scenarios::{self, Ctx};
use bench_harness::systems::{self, Config as SysConfig};
use bench_harness::versus;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seed of the synthetic e-mails; changing it changes every FP figure.
const DATA_SEED: u64 = 0x0f11_7e21_ab00_0001;
/// Seed of the shuffled lookup mixes.
const QUERY_SEED: u64 = 42;
const TARGETS: [f64; 3] = [0.01, 0.001, 0.0001];

#[derive(Parser, Debug)]
#[command(about = "filterlab's benchmark harness: theory vs measurement, memory and latency")]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
    /// At most 200k keys: the whole pipeline in under a minute (CI runs this).
    #[arg(long)]
    quick: bool,
    /// Extend the size sweep to 10^8 keys (needs about 8 GB of memory and several minutes more).
    #[arg(long)]
    large: bool,
    /// Run only the size sweep (with --large: the 10^8-key check of batched against one-at-a-time
    /// lookups); writes to reports/large unless --out says otherwise.
    #[arg(long)]
    sweep_only: bool,
    /// Insert the keys of this file (one per line) instead of the synthetic e-mails.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Probe with the keys of this file (never inserted) instead of synthetic e-mails.
    #[arg(long, value_name = "FILE", requires = "keys")]
    probes: Option<PathBuf>,
    /// Where to write the reports.
    #[arg(long, default_value = "reports")]
    out: PathBuf,
    /// Interleaved timing rounds (medians are reported).
    #[arg(long)]
    rounds: Option<usize>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Generate the synthetic dataset and write it, one key per line, with its manifest.
    Generate {
        /// Members to generate.
        #[arg(long, default_value_t = 10_000_000)]
        members: usize,
        /// Non-members to generate.
        #[arg(long, default_value_t = 10_000_000)]
        non_members: usize,
        /// Output directory.
        #[arg(long, default_value = "datasets/generated")]
        out: PathBuf,
    },
    /// Only the systems stage (sign-up gate, unique users, the articles' claims), at the given sizes.
    Systems {
        /// Rows in the users table.
        #[arg(long, default_value_t = 10_000_000)]
        rows: usize,
        /// Sign-up checks.
        #[arg(long, default_value_t = 1_000_000)]
        checks: usize,
        /// Share of the checks that are new addresses.
        #[arg(long, default_value_t = 0.95)]
        new_share: f64,
        /// Events of the unique-users stream.
        #[arg(long, default_value_t = 10_000_000)]
        events: usize,
        /// Users of that stream.
        #[arg(long, default_value_t = 2_000_000)]
        users: u64,
        /// Output directory (systems.md, systems.json).
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// Check a results.json: it parses, every scenario is there, and no run saw a false negative.
    Check {
        /// The file to check.
        #[arg(default_value = "reports/results.json")]
        file: PathBuf,
    },
}

fn main() -> Result<()> {
    let cli = Cli::parse();
    let command_line = std::iter::once("bench-harness".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    match cli.command {
        Some(Cmd::Generate {
            members,
            non_members,
            ref out,
        }) => generate(members, non_members, out),
        Some(Cmd::Check { ref file }) => check(file),
        Some(Cmd::Systems {
            rows,
            checks,
            new_share,
            events,
            users,
            ref out,
        }) => {
            ensure!(
                (0.0..=1.0).contains(&new_share),
                "--new-share must lie in [0, 1], got {new_share}"
            );
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
            let cfg = SysConfig {
                rows,
                checks,
                new_share,
                events,
                users,
                ..SysConfig::full(root)
            };
            let r = systems::run(&cfg)?;
            systems::write(&r, out)?;
            println!("{}", systems::render_markdown(&r));
            Ok(())
        }
        None => run(&cli, command_line),
    }
}

fn generate(members: usize, non_members: usize, out: &Path) -> Result<()> {
    let spec = DatasetSpec {
        members,
        non_members,
        seed: DATA_SEED,
    };
    let t = Instant::now();
    let ds = dataset::generate(&spec);
    dataset::verify(&ds)?;
    std::fs::create_dir_all(out)?;
    dataset::write_keys(&ds.members, &out.join("members.txt"))?;
    dataset::write_keys(&ds.non_members, &out.join("non_members.txt"))?;
    let manifest = dataset::manifest(&spec, &ds);
    std::fs::write(
        out.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)? + "\n",
    )?;
    println!(
        "wrote {} members and {} non-members to {} in {:.1} s",
        ds.members.len(),
        ds.non_members.len(),
        out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

fn check(file: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let results: Results =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", file.display()))?;
    for scenario in ["matrix", "growth", "churn", "size_sweep", "parallel"] {
        let n = results
            .records
            .iter()
            .filter(|r| r.scenario == scenario)
            .count();
        ensure!(n > 0, "{}: no {scenario} records", file.display());
    }
    for kind in Kind::ALL {
        ensure!(
            results
                .records
                .iter()
                .any(|r| r.scenario == "matrix" && r.variant == kind.name()),
            "{}: no matrix record for {}",
            file.display(),
            kind.name()
        );
    }
    let fneg: u64 = results.records.iter().map(|r| r.false_negatives).sum();
    ensure!(fneg == 0, "{}: {fneg} false negatives", file.display());
    let bad = results
        .records
        .iter()
        .filter(|r| !(r.empirical_fpr.is_finite() && r.theoretical_fpr.is_finite() && r.bytes > 0))
        .count();
    ensure!(
        bad == 0,
        "{}: {bad} records with missing figures",
        file.display()
    );
    println!(
        "{}: {} records, every scenario present, 0 false negatives",
        file.display(),
        results.records.len()
    );
    Ok(())
}

/// Loads the team's key files: duplicates dropped (reported), probes that are members dropped.
fn load_files(keys: &Path, probes: Option<&Path>) -> Result<Dataset> {
    let raw = dataset::read_keys(keys).with_context(|| format!("reading {}", keys.display()))?;
    let mut seen = std::collections::HashSet::with_capacity(raw.len());
    let members: KeySet = raw.iter().filter(|k| seen.insert(*k)).collect();
    if members.len() < raw.len() {
        eprintln!(
            "note: dropped {} duplicate keys from {}",
            raw.len() - members.len(),
            keys.display()
        );
    }
    let candidates = match probes {
        Some(p) => dataset::read_keys(p).with_context(|| format!("reading {}", p.display()))?,
        None => {
            let spec = DatasetSpec {
                members: 0,
                non_members: members.len(),
                seed: DATA_SEED,
            };
            dataset::generate(&spec).non_members
        }
    };
    let mut probe_seen = std::collections::HashSet::with_capacity(candidates.len());
    let non_members: KeySet = candidates
        .iter()
        .filter(|k| !seen.contains(*k) && probe_seen.insert(*k))
        .collect();
    if non_members.len() < candidates.len() {
        eprintln!(
            "note: dropped {} probes that are members or repeated",
            candidates.len() - non_members.len()
        );
    }
    ensure!(!members.is_empty(), "{} holds no keys", keys.display());
    ensure!(
        !non_members.is_empty(),
        "no probes left that are not members"
    );
    Ok(Dataset {
        members,
        non_members,
    })
}

fn run(cli: &Cli, command_line: String) -> Result<()> {
    let started = Instant::now();
    let out = if cli.sweep_only && cli.out == Path::new("reports") {
        PathBuf::from("reports/large")
    } else {
        cli.out.clone()
    };
    let mut machine = Machine::detect(command_line);
    let (n_target, source) = match &cli.keys {
        Some(p) => (usize::MAX, p.display().to_string()),
        None if cli.quick => (200_000, "synthetic e-mails (quick)".to_string()),
        None if cli.large => (100_000_000, "synthetic e-mails".to_string()),
        None => (10_000_000, "synthetic e-mails".to_string()),
    };

    eprintln!("== dataset");
    let t = Instant::now();
    let ds = match &cli.keys {
        Some(k) => load_files(k, cli.probes.as_deref())?,
        None => {
            let spec = DatasetSpec {
                members: n_target,
                non_members: n_target.min(10_000_000).max(n_target / 10),
                seed: DATA_SEED,
            };
            let ds = dataset::generate(&spec);
            if !cli.quick && !cli.large && cli.out == Path::new("reports") {
                write_manifest(&spec, &ds)?;
            }
            ds
        }
    };
    dataset::verify(&ds)?;
    eprintln!(
        "   {} members, {} non-members, distinct and disjoint ({:.1} s)",
        ds.members.len(),
        ds.non_members.len(),
        t.elapsed().as_secs_f64()
    );

    // The matrix runs at 10M (or the team's count); --large only extends the sweep.
    let n = ds.members.len().min(10_000_000);
    let ctx = Ctx {
        members: &ds.members,
        probes: &ds.non_members,
        rounds: cli.rounds.unwrap_or(if cli.quick { 3 } else { 5 }),
        seed: QUERY_SEED,
        queries: if cli.quick { 100_000 } else { 1_000_000 },
        scenario_probes: if cli.quick { 200_000 } else { 1_000_000 },
    };
    let mut records: Vec<Record> = Vec::new();

    let (peers, parallel_builds, ratios, huge_pages) = if cli.sweep_only {
        Default::default()
    } else {
        eprintln!(
            "== matrix: {} variants x {} targets at n = {n}",
            Kind::ALL.len(),
            TARGETS.len()
        );
        let (matrix, filters) = scenarios::matrix(&ctx, n, &TARGETS)?;
        records.extend(matrix.iter().cloned());

        eprintln!("== parallel lookups");
        let at_1pct: Vec<_> = filters.iter().take(Kind::ALL.len()).collect();
        records.extend(scenarios::parallel(
            &ctx,
            &at_1pct,
            &matrix[..Kind::ALL.len()],
        )?);

        eprintln!("== beside the peers at n = {n}, 1%");
        let peer_rounds = cli.rounds.unwrap_or(if cli.quick { 3 } else { 9 });
        let mut peers = versus::compare(
            &ctx,
            &at_1pct,
            &matrix[..Kind::ALL.len()],
            n,
            0.01,
            peer_rounds,
        )?;
        drop(at_1pct);
        drop(filters);
        eprintln!("== parallel builds");
        let parallel_builds =
            versus::parallel_builds(&ctx, n, 0.01, if cli.quick { 3 } else { 5 })?;
        eprintln!("== the articles' Python code");
        let py_queries = if cli.quick { 50_000 } else { 1_000_000 };
        if let Some(py) =
            versus::python(&ctx, n, 0.01, py_queries, Path::new("target/python-keys"))?
        {
            peers.push(py);
        }
        let ratios = versus::ratios(&peers, &parallel_builds);
        eprintln!("== huge pages on and off");
        let huge_pages = versus::huge_pages(&ctx, n, 0.01, peer_rounds)?;

        let cap = (n / 10).max(1000).min(ds.members.len() / 4);
        eprintln!("== growth to 4x a capacity of {cap}");
        records.extend(scenarios::growth(&ctx, cap, 0.01)?);

        let churn_cap = cap.min(ds.members.len() / 2);
        eprintln!("== deletion churn at capacity {churn_cap}");
        records.extend(scenarios::churn(&ctx, churn_cap, 0.01, 10)?);
        (peers, parallel_builds, ratios, huge_pages)
    };

    let top = if cli.large { ds.members.len() } else { n };
    let mut sizes: Vec<usize> = (4..=8)
        .map(|e| 10usize.pow(e))
        .filter(|&s| s <= top)
        .collect();
    if sizes.last() != Some(&top) {
        sizes.push(top);
    }
    eprintln!("== size sweep over {sizes:?}");
    records.extend(scenarios::size_sweep(&ctx, &sizes, 0.01)?);

    let false_negatives: u64 = records.iter().map(|r| r.false_negatives).sum();
    if false_negatives > 0 {
        bail!("{false_negatives} false negatives: a filter is broken");
    }

    machine.wall_seconds = started.elapsed().as_secs_f64();
    let results = Results {
        machine,
        dataset: DatasetInfo {
            source,
            members: n,
            non_members: ds.non_members.len(),
            members_sha256: dataset::sha256_hex(&ds.members),
            non_members_sha256: dataset::sha256_hex(&ds.non_members),
            top_domains: dataset::domain_histogram(&ds.members, 10),
        },
        records,
        peers,
        parallel_builds,
        ratios,
        huge_pages,
    };
    report::write(&out, &results)?;
    if cli.keys.is_none() && !cli.sweep_only {
        eprintln!("== systems: sign-up gate and unique users (servers from scripts/)");
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        let cfg = if cli.quick {
            SysConfig::quick(root)
        } else {
            SysConfig::full(root)
        };
        systems::write(&systems::run(&cfg)?, &out)?;
    }
    if out == Path::new("reports") && cli.keys.is_none() && !cli.quick && !cli.sweep_only {
        report::update_readme_block(Path::new("README.md"), &results)?;
    }
    let headline = results
        .records
        .iter()
        .filter(|r| r.scenario == "matrix" && r.target_fpr == 0.01)
        .map(|r| format!("{} {:.3}%", r.variant, r.empirical_fpr * 100.0))
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "done in {:.0} s: {} records, 0 false negatives, FP at 1%: {headline}; wrote {}",
        results.machine.wall_seconds,
        results.records.len(),
        out.display()
    );
    Ok(())
}

/// Writes `datasets/manifest.json` (committed) so a change of generator output shows in review.
fn write_manifest(spec: &DatasetSpec, ds: &Dataset) -> Result<()> {
    let manifest = dataset::manifest(spec, ds);
    std::fs::create_dir_all("datasets")?;
    std::fs::write(
        "datasets/manifest.json",
        serde_json::to_string_pretty(&manifest)? + "\n",
    )?;
    Ok(())
}
