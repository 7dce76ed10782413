//! `bench-harness`: regenerates `reports/` (results.json, README.md, plots).
//!
//! ```text
//! cargo run --release -p bench-harness                 # the full run: 10M e-mails
//! cargo run --release -p bench-harness -- --quick      # 200k keys, under a minute
//! cargo run --release -p bench-harness -- --keys my_keys.txt --probes my_probes.txt
//! cargo run --release -p bench-harness -- generate     # write the key files to datasets/generated/
//! ```

use anyhow::{bail, Context, Result};
use bench_harness::check::Floors;
use bench_harness::dataset::{self, Dataset, DatasetSpec};
use bench_harness::filters::Kind;
use bench_harness::record::Record;
use bench_harness::report::{self, DatasetInfo, Machine, Results};
use bench_harness::scenarios::{self, Ctx};
use bench_harness::versus;
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Seed of the synthetic e-mails; changing it changes every FP figure.
const DATA_SEED: u64 = 0x0f11_7e21_ab00_0001;
/// Seed of the shuffled lookup mixes.
const QUERY_SEED: u64 = 42;
const TARGETS: [f64; 3] = [0.01, 0.001, 0.0001];
/// Interleaved rounds of every build (ours and the peers'), quick or full: at 10M keys the
/// matrix's 30 builds and the 8 peers' take about 40 s a round on 2 cores, so 5 rounds keep
/// the full run near 15 minutes.
const BUILD_ROUNDS: usize = 5;

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
    /// Insert the keys of this file instead of the synthetic e-mails: UTF-8 text, one key per
    /// `\n` or `\r\n` line, empty lines skipped, repeats dropped, at least 4 keys (see
    /// `bench_harness::keyfile`). Checked in full before anything is measured.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Probe with the keys of this file (same format; members among them are dropped) instead
    /// of synthetic e-mails.
    #[arg(long, value_name = "FILE", requires = "keys")]
    probes: Option<PathBuf>,
    /// Where to write the reports. Default: reports/ for the full synthetic run, reports/large
    /// for --sweep-only, and target/quick-reports or target/custom-reports for --quick and
    /// --keys runs, so that they never overwrite the committed reports.
    #[arg(long)]
    out: Option<PathBuf>,
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
    /// Check a results.json as a sceptical reviewer would (see `bench_harness::check`): record
    /// counts, timings with spread, probe floors, theory within binomial bounds, zero false
    /// negatives for every contender, the dataset against the manifest, and the README next to
    /// it re-rendered identically. Exits non-zero on any problem.
    Check {
        /// The file to check.
        #[arg(default_value = "reports/results.json")]
        file: PathBuf,
        /// The dataset manifest to compare hashes with (skipped when the file is absent).
        #[arg(long, default_value = "datasets/manifest.json")]
        manifest: PathBuf,
        /// Also compare the results block of this README (the root README.md, for the
        /// committed reports/).
        #[arg(long, value_name = "FILE")]
        root_readme: Option<PathBuf>,
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
        Some(Cmd::Check {
            ref file,
            ref manifest,
            ref root_readme,
        }) => check(file, manifest, root_readme.as_deref()),
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
    let manifest = serde_json::to_string_pretty(&dataset::manifest(&spec, &ds))? + "\n";
    std::fs::write(out.join("manifest.json"), &manifest)?;
    // The committed manifest follows the full run's spec, and only this command rewrites it.
    if members == 10_000_000 && non_members == 10_000_000 {
        std::fs::write(MANIFEST, &manifest).with_context(|| format!("writing {MANIFEST}"))?;
        println!("rewrote {MANIFEST}");
    }
    println!(
        "wrote {} members and {} non-members to {} in {:.1} s",
        ds.members.len(),
        ds.non_members.len(),
        out.display(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

fn check(file: &Path, manifest: &Path, root_readme: Option<&Path>) -> Result<()> {
    let read =
        |p: &Path| std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()));
    let results: Results = serde_json::from_str(&read(file)?)
        .with_context(|| format!("parsing {}", file.display()))?;
    let manifest: Option<dataset::Manifest> = match std::fs::read_to_string(manifest) {
        Ok(text) => Some(
            serde_json::from_str(&text)
                .with_context(|| format!("parsing {}", manifest.display()))?,
        ),
        Err(_) => None,
    };
    let readme = read(&file.with_file_name("README.md"))?;
    let root = root_readme.map(read).transpose()?;
    let against = bench_harness::check::Against {
        manifest: manifest.as_ref(),
        readme: Some(&readme),
        root_readme: root.as_deref(),
    };
    let problems = bench_harness::check::check(&results, Floors::default(), &against);
    if !problems.is_empty() {
        for p in &problems {
            eprintln!("{}: {p}", file.display());
        }
        bail!("{}: {} problems", file.display(), problems.len());
    }
    println!(
        "{}: {} records and {} contenders pass every check (counts, timings, probes, theory, false negatives, peers, dataset{}, tables)",
        file.display(),
        results.records.len(),
        results.peers.len(),
        match &manifest {
            Some(m) if bench_harness::check::manifest_covers(&results, m) => " against the manifest",
            _ => " (not covered by the manifest)",
        }
    );
    Ok(())
}

fn run(cli: &Cli, command_line: String) -> Result<()> {
    let started = Instant::now();
    let out = out_dir(cli);
    let mut machine = Machine::detect(command_line);
    let (n_target, source) = match &cli.keys {
        Some(p) => (usize::MAX, p.display().to_string()),
        None if cli.quick => (QUICK_KEYS, "synthetic e-mails (quick)".to_string()),
        None if cli.large => (100_000_000, "synthetic e-mails".to_string()),
        None => (10_000_000, "synthetic e-mails".to_string()),
    };

    eprintln!("== dataset");
    let t = Instant::now();
    let ds = match &cli.keys {
        Some(k) => {
            let limit = if cli.quick { QUICK_KEYS } else { usize::MAX };
            bench_harness::keyfile::load(k, cli.probes.as_deref(), limit, |members| {
                let spec = DatasetSpec {
                    members: 0,
                    non_members: members,
                    seed: DATA_SEED,
                };
                dataset::generate(&spec).non_members
            })?
        }
        None => {
            let spec = DatasetSpec {
                members: n_target,
                non_members: n_target.min(10_000_000).max(n_target / 10),
                seed: DATA_SEED,
            };
            let ds = dataset::generate(&spec);
            check_manifest(&spec, &ds, Path::new(MANIFEST))?;
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
        let build_rounds = cli.rounds.unwrap_or(BUILD_ROUNDS).max(1);
        eprintln!("   builds: ours and the peers', {build_rounds} interleaved rounds");
        let builds =
            bench_harness::builds::interleaved(&ctx, n, &TARGETS, Some(0.01), build_rounds)?;
        let (matrix, filters) = scenarios::matrix(&ctx, n, builds.ours)?;
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
            builds.peers,
            n,
            0.01,
            peer_rounds,
        )?;
        drop(at_1pct);
        drop(filters);
        eprintln!("== parallel builds");
        let parallel_builds = versus::parallel_builds(&ctx, n, 0.01, build_rounds)?;
        eprintln!("== the articles' Python code");
        let py_queries = if cli.quick { 50_000 } else { 1_000_000 };
        if let Some(py) =
            versus::python(&ctx, n, 0.01, py_queries, Path::new("target/python-keys"))?
        {
            peers.push(py);
        }
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let ratios = bench_harness::targets::ratios(&peers, &parallel_builds, threads)?;
        eprintln!("== huge pages on and off");
        let huge_pages = versus::huge_pages(&ctx, n, 0.01, peer_rounds)?;

        let cap = (n / 10).max(1000).min(ds.members.len() / 4);
        eprintln!("== growth to 4x a capacity of {cap}");
        records.extend(scenarios::growth(&ctx, cap, 0.01)?);

        // The second article's filter: m = 9,585,059 bits, k = 7 for 1M users; a run with
        // fewer than 4M keys scales m with the design load (the report says so).
        let design = ARTICLE_USERS.min(ds.members.len() / 4);
        let m = (ARTICLE_BITS as f64 * design as f64 / ARTICLE_USERS as f64).round() as u64;
        eprintln!("== the second article's filter: m = {m}, k = 7, {design} users and past");
        records.extend(scenarios::users(&ctx, design, m, 7)?);

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
    records.extend(scenarios::size_sweep(
        &ctx,
        &sizes,
        0.01,
        cli.rounds.unwrap_or(BUILD_ROUNDS).max(1),
    )?);

    let false_negatives: u64 = records.iter().map(|r| r.false_negatives).sum();
    if false_negatives > 0 {
        bail!("{false_negatives} false negatives: a filter is broken");
    }

    machine.wall_seconds = started.elapsed().as_secs_f64();
    let results = Results {
        machine,
        dataset: DatasetInfo {
            source,
            // Every member the run held (the hashes and the domain shares cover them all); the
            // matrix's n is in its records.
            members: ds.members.len(),
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
    if is_committed_run(cli) && out == Path::new("reports") {
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

/// The second article's design load and its explicit bit count.
const ARTICLE_USERS: usize = 1_000_000;
const ARTICLE_BITS: u64 = 9_585_059;

/// `--quick` caps the keys, synthetic or the team's, at this many.
const QUICK_KEYS: usize = 200_000;

/// Whether this run is the one whose output is committed (the full synthetic run).
fn is_committed_run(cli: &Cli) -> bool {
    cli.keys.is_none() && !cli.quick && !cli.sweep_only
}

/// The output directory: `--out`, else where this kind of run belongs.
fn out_dir(cli: &Cli) -> PathBuf {
    match &cli.out {
        Some(out) => out.clone(),
        None if cli.keys.is_some() => PathBuf::from("target/custom-reports"),
        None if cli.quick => PathBuf::from("target/quick-reports"),
        None if cli.sweep_only => PathBuf::from("reports/large"),
        None => PathBuf::from("reports"),
    }
}

/// Where the committed manifest lives; only `generate` writes it.
const MANIFEST: &str = "datasets/manifest.json";

/// Before measuring: when the run uses the committed manifest's spec, the generated keys must
/// hash to the manifest's digests, or the generator changed and every figure with it. Other
/// specs (`--quick`, `--large`) are not covered by the manifest and say so.
fn check_manifest(spec: &DatasetSpec, ds: &Dataset, path: &Path) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let committed: dataset::Manifest =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
    if committed.spec != *spec {
        eprintln!(
            "   {} covers {:?}, not this run's {:?}: hashes not compared",
            path.display(),
            committed.spec,
            spec
        );
        return Ok(());
    }
    committed.check(ds).with_context(|| {
        format!(
            "the generated dataset differs from {}: if the generator change is intended, run \
             `cargo run --release -p bench-harness -- generate` to rewrite the manifest and commit it",
            path.display()
        )
    })?;
    eprintln!("   dataset matches {}", path.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &[&str]) -> Cli {
        Cli::try_parse_from(std::iter::once("bench-harness").chain(args.iter().copied())).unwrap()
    }

    #[test]
    fn only_the_full_synthetic_run_writes_the_committed_reports() {
        assert_eq!(out_dir(&cli(&[])), Path::new("reports"));
        assert!(is_committed_run(&cli(&[])));
        assert_eq!(
            out_dir(&cli(&["--quick"])),
            Path::new("target/quick-reports")
        );
        assert_eq!(
            out_dir(&cli(&["--keys", "k.txt"])),
            Path::new("target/custom-reports")
        );
        assert_eq!(
            out_dir(&cli(&["--keys", "k.txt", "--quick"])),
            Path::new("target/custom-reports")
        );
        assert_eq!(out_dir(&cli(&["--sweep-only"])), Path::new("reports/large"));
        assert_eq!(out_dir(&cli(&["--quick", "--out", "x"])), Path::new("x"));
        for args in [&["--quick"][..], &["--keys", "k"], &["--sweep-only"]] {
            assert!(!is_committed_run(&cli(args)), "{args:?}");
        }
    }

    #[test]
    fn a_dataset_that_differs_from_the_manifest_stops_the_run() {
        let spec = DatasetSpec {
            members: 500,
            non_members: 500,
            seed: DATA_SEED,
        };
        let ds = dataset::generate(&spec);
        let dir = std::env::temp_dir().join(format!("filterlab-manifest-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("manifest.json");
        let mut m = dataset::manifest(&spec, &ds);
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        check_manifest(&spec, &ds, &path).unwrap();
        m.members.sha256 = "0".repeat(64);
        std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
        let err = format!("{:#}", check_manifest(&spec, &ds, &path).unwrap_err());
        assert!(err.contains("differs from"), "{err}");
        // Another spec is not covered by the manifest: no comparison, no error.
        let other = DatasetSpec {
            members: 100,
            ..spec
        };
        check_manifest(&other, &ds, &path).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}
