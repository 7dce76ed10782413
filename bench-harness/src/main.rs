//! `bench-harness`: regenerates `reports/` (results.json, README.md, plots).
//!
//! ```text
//! cargo run --release -p bench-harness                 # the full run: 10M e-mails
//! cargo run --release -p bench-harness -- --quick      # 200k keys, every study too (CI)
//! cargo run --release -p bench-harness -- study growth # one study (or `all`) into reports/
//! cargo run --release -p bench-harness -- --keys my_keys.txt --probes my_probes.txt
//! cargo run --release -p bench-harness -- generate     # write the key files to datasets/generated/
//! cargo run --release -p bench-harness -- check        # check reports/results.json (see check.rs)
//! ```
//!
//! The pipeline: flags -> [`Plan`] -> dataset -> the stages of `bench_harness::pipeline::ALL`
//! (measure, check, write). `--quick` and `--keys` runs write under target/ unless `--out`
//! says otherwise; only the full synthetic run writes reports/ and the root README's block.

use anyhow::{ensure, Context, Result};
use bench_harness::check::Floors;
use bench_harness::dataset::{self, Dataset, DatasetSpec};
use bench_harness::measure::rounds::Policy;
use bench_harness::pipeline;
use bench_harness::plan::policies;
use bench_harness::plan::Ctx;
use bench_harness::plan::{Output as _, Plan, Run};
use bench_harness::record::study::Study;
use bench_harness::record::Scenario;
use bench_harness::record::{DatasetInfo, Machine, Results};
use bench_harness::stages::systems::{self, Config as SysConfig};
use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Seed of the synthetic e-mails; changing it changes every FP figure.
const DATA_SEED: u64 = 0x0f11_7e21_ab00_0001;
/// Seed of the shuffled lookup mixes.
const QUERY_SEED: u64 = 42;
const TARGETS: [f64; 3] = [0.01, 0.001, 0.0001];
/// Rounds of the fixed-count build loops (parallel builds, threads).
const BUILD_ROUNDS: usize = 3;
/// Queries per timed pass of the full run.
const QUERIES: usize = 250_000;

/// `default` for the full run; a fixed count with `--rounds`, and 3 under `--quick`.
fn loop_policy(cli: &Cli, default: Policy) -> Policy {
    match (cli.rounds, cli.quick) {
        (Some(r), _) => Policy::fixed(r),
        (None, true) => Policy::fixed(3),
        (None, false) => default,
    }
}

#[derive(Parser, Debug)]
#[command(about = "filterlab's benchmark harness: theory vs measurement, memory and latency")]
struct Cli {
    #[command(subcommand)]
    command: Option<Cmd>,
    /// At most 200k keys: the whole pipeline, every study at its quick size (CI runs this; the
    /// wall time of each stage is printed at the end and recorded in its results.json).
    #[arg(long)]
    quick: bool,

    /// Insert the keys of this file instead of the synthetic e-mails: UTF-8 text, one key per
    /// `\n` or `\r\n` line, empty lines skipped, repeats dropped, at least 4 keys (see
    /// `bench_harness::keyfile`). Checked in full before anything is measured.
    #[arg(long, value_name = "FILE")]
    keys: Option<PathBuf>,
    /// Probe with the keys of this file (same format; members among them are dropped) instead
    /// of synthetic e-mails.
    #[arg(long, value_name = "FILE", requires = "keys")]
    probes: Option<PathBuf>,
    /// Where to write the reports. Default: reports/ for the full synthetic run (and a study),
    /// target/large-reports for `study sweep --large`, and target/quick-reports or
    /// target/custom-reports for --quick and --keys runs, so that they never overwrite the
    /// committed reports.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Interleaved timing rounds (medians are reported).
    #[arg(long)]
    rounds: Option<usize>,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Run one study, or every one (`all`), into its own JSON and page under reports/ (or
    /// --out), then re-render the index of studies in README.md and goals.md there.
    Study {
        /// The study: hashing, growth, window, sweep, course, python-peers, mapped, interop, or all.
        name: String,
        /// At its quick size, into target/quick-reports unless --out says otherwise.
        #[arg(long)]
        quick: bool,
        /// The size sweep up to 10^8 keys (about 8 GB of memory), into target/large-reports
        /// unless --out says otherwise (a 10^8-key run is not part of the committed evidence).
        #[arg(long)]
        large: bool,
        /// Where to write.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Rewrite every page of a reports directory (Markdown, plots, goals, the index, and for
    /// reports/ the root README's block) from its JSON with this code, measuring nothing: what a
    /// change to the harness's render, check or book code needs instead of a new run (see
    /// `bench_harness::render::again`).
    Render {
        /// The reports directory.
        #[arg(default_value = "reports")]
        dir: PathBuf,
    },
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
        /// Timed sign-up checks per contender and store: the stated sample the latencies and
        /// their 95% intervals rest on (the table keeps --rows rows).
        #[arg(long, default_value_t = systems::SAMPLE_CHECKS)]
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
        /// The sign-up service at its quick load (8 clients × 150 checks over 20k accounts, at
        /// most 10 s per mode) instead of 32 × 250 over 1M (at most 6 s per mode).
        #[arg(long)]
        service_quick: bool,
        /// Output directory (systems.md, systems.json).
        #[arg(long, default_value = "reports")]
        out: PathBuf,
    },
    /// The mapped study's reader process: opens or loads PATH, makes its lookups, prints its
    /// ready line and holds the filter until stdin closes.
    #[command(hide = true)]
    MappedReader {
        /// The saved filter.
        path: PathBuf,
        /// mapped or loaded.
        #[arg(long)]
        access: String,
        /// Random lookups before the ready line.
        #[arg(long)]
        lookups: u64,
        /// Seed of the random keys.
        #[arg(long)]
        seed: u64,
    },
    /// The mapped study's spawner: runs COMMAND and prints its exit code, peak memory and wall
    /// time, from a process small enough not to lend it its own peak.
    #[command(hide = true)]
    MappedSpawn {
        /// The command and its arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, required = true)]
        command: Vec<std::ffi::OsString>,
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
        /// The fewest non-member probes an FP figure may rest on (lower it for a small team
        /// dataset, and say so).
        #[arg(long, default_value_t = Floors::default().probes)]
        min_probes: u64,
    },
}

fn main() -> ExitCode {
    match dispatch(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{}", error_chain(&e));
            ExitCode::FAILURE
        }
    }
}

/// `e` and its causes, one a line, without the backtrace that anyhow's `Debug` adds when
/// `RUST_BACKTRACE` is set: a failed run or check is the reader's news, not a crash.
fn error_chain(e: &anyhow::Error) -> String {
    let mut out = format!("error: {e}");
    for cause in e.chain().skip(1) {
        out.push_str(&format!("\n  caused by: {cause}"));
    }
    out
}

/// Runs the command `cli` names.
fn dispatch(cli: Cli) -> Result<()> {
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
            min_probes,
        }) => {
            bench_harness::check::command::run(file, manifest, root_readme.as_deref(), min_probes)
        }
        Some(Cmd::Systems {
            rows,
            checks,
            new_share,
            events,
            users,
            service_quick,
            ref out,
        }) => systems_only(
            {
                let full = SysConfig::full(repo_root());
                SysConfig {
                    sizes: systems::Settings {
                        rows,
                        checks,
                        new_share,
                        events,
                        users,
                        ..full.sizes
                    },
                    machine: Machine::detect(command_line.clone()),
                    service: if service_quick {
                        bench_harness::stages::systems::service::quick_load()
                    } else {
                        bench_harness::stages::systems::service::full_load()
                    },
                    ..full
                }
            },
            out,
        ),
        Some(Cmd::MappedReader {
            ref path,
            ref access,
            lookups,
            seed,
        }) => {
            use bench_harness::stages::mapped::{reader, Access};
            let access = Access::from_word(access)
                .with_context(|| format!("--access {access}: mapped or loaded"))?;
            reader::serve(path, access, lookups, seed)
        }
        Some(Cmd::MappedSpawn { ref command }) => {
            bench_harness::stages::mapped::reader::spawn_measured(command)
        }
        Some(Cmd::Render { ref dir }) => render_again(dir),
        Some(Cmd::Study {
            ref name,
            quick,
            large,
            ref out,
        }) => study(&cli, name, (quick, large), out.as_deref(), &command_line),
        None => run(&plan(&cli), command_line),
    }
}

/// `render DIR`: every page of DIR rewritten from its JSON ([`bench_harness::render::again`]).
fn render_again(dir: &Path) -> Result<()> {
    let rendered = bench_harness::render::again::all(dir)?;
    println!(
        "{}: re-rendered from {} ({} files), nothing measured",
        dir.display(),
        rendered.join(", "),
        rendered.len()
    );
    Ok(())
}

/// `study NAME` (or `all`): each study's plan, run in turn.
fn study(
    cli: &Cli,
    name: &str,
    (quick, large): (bool, bool),
    out: Option<&Path>,
    command_line: &str,
) -> Result<()> {
    let studies: Vec<Study> = match name {
        "all" => Study::ALL.to_vec(),
        one => vec![Study::from_name(one).with_context(|| {
            format!(
                "no study is called {one:?}: choose one of {}, or all",
                Study::ALL.map(Study::name).join(", ")
            )
        })?],
    };
    ensure!(
        !large || studies == [Study::Sweep],
        "--large extends the size sweep only: `study sweep --large`"
    );
    for study in studies {
        let plan = Plan {
            study: Some(study),
            quick,
            large,
            out: out.map_or_else(|| default_out(quick, large), Path::to_path_buf),
            ..plan(cli)
        };
        run(&plan, command_line.to_string())?;
    }
    Ok(())
}

/// Where a study writes unless --out says otherwise.
fn default_out(quick: bool, large: bool) -> PathBuf {
    PathBuf::from(match (quick, large) {
        (true, _) => "target/quick-reports",
        (false, true) => "target/large-reports",
        (false, false) => "reports",
    })
}

/// The systems stage alone (`bench-harness systems`), at the sizes given on the command line.
fn systems_only(cfg: SysConfig, out: &Path) -> Result<()> {
    ensure!(
        (0.0..=1.0).contains(&cfg.sizes.new_share),
        "--new-share must lie in [0, 1], got {}",
        cfg.sizes.new_share
    );
    let mut r = systems::run(&cfg)?;
    r.judge();
    r.write(out)?;
    println!("{}", bench_harness::render::systems::markdown(&r));
    Ok(())
}

/// The repository's root, where scripts/ lives.
fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
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

/// The plan the flags ask for.
fn plan(cli: &Cli) -> Plan {
    Plan {
        quick: cli.quick,
        large: false,
        study: None,
        keys: cli.keys.clone(),
        probes: cli.probes.clone(),
        out: out_dir(cli),
        rounds: cli.rounds.unwrap_or(if cli.quick { 3 } else { 5 }),
        build_rounds: cli
            .rounds
            .unwrap_or(if cli.quick { 3 } else { BUILD_ROUNDS })
            .max(1),
        builds: loop_policy(cli, policies::BUILDS),
        lookups: loop_policy(cli, policies::LOOKUPS),
        peer_lookups: loop_policy(cli, policies::PEER_LOOKUPS),
        peer_rounds: cli.rounds.unwrap_or(if cli.quick { 3 } else { 9 }),
        queries: if cli.quick { 100_000 } else { QUERIES },
        scenario_probes: if cli.quick { 200_000 } else { 1_000_000 },
        python_queries: if cli.quick { 50_000 } else { 1_000_000 },
        targets: TARGETS.to_vec(),
    }
}

/// The keys: the team's files (validated in full first) or the synthetic e-mails (checked
/// against the committed manifest when it covers them). Returns the dataset and its source.
fn load_dataset(plan: &Plan) -> Result<(Dataset, String)> {
    let t = Instant::now();
    let (ds, source) = match &plan.keys {
        Some(k) => {
            let limit = if plan.quick { QUICK_KEYS } else { usize::MAX };
            let ds = bench_harness::dataset::keyfile::load(
                k,
                plan.probes.as_deref(),
                limit,
                |members| {
                    let spec = DatasetSpec {
                        members: 0,
                        non_members: members,
                        seed: DATA_SEED,
                    };
                    dataset::generate(&spec).non_members
                },
            )?;
            (ds, k.display().to_string())
        }
        None => {
            let (n, source) = match () {
                () if plan.quick => (QUICK_KEYS, "synthetic e-mails (quick)"),
                () if plan.large => (100_000_000, "synthetic e-mails"),
                () => (10_000_000, "synthetic e-mails"),
            };
            let spec = DatasetSpec {
                members: n,
                non_members: n.min(10_000_000).max(n / 10),
                seed: DATA_SEED,
            };
            let ds = dataset::generate(&spec);
            check_manifest(&spec, &ds, Path::new(MANIFEST))?;
            (ds, source.to_string())
        }
    };
    dataset::verify(&ds)?;
    eprintln!(
        "   {} members, {} non-members, distinct and disjoint ({:.1} s)",
        ds.members.len(),
        ds.non_members.len(),
        t.elapsed().as_secs_f64()
    );
    Ok((ds, source))
}

/// plan -> dataset -> stages (measure, check, write).
fn run(plan: &Plan, command_line: String) -> Result<()> {
    let started = Instant::now();
    eprintln!("== dataset");
    let (ds, source) = load_dataset(plan)?;
    let results = Results {
        machine: Machine::detect(command_line),
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
        ..Results::default()
    };
    let mut run = Run {
        plan,
        ctx: Ctx {
            members: &ds.members,
            probes: &ds.non_members,
            rounds: plan.rounds,
            seed: QUERY_SEED,
            queries: plan.queries,
            scenario_probes: plan.scenario_probes,
        },
        // The matrix runs at 10M (or the team's count); `study sweep --large` only extends the
        // sweep.
        n: ds.members.len().min(10_000_000),
        results,
        started,
        outputs: Vec::new(),
    };
    bench_harness::plan::execute(&mut run, &pipeline::stages(plan))?;
    if let Some(study) = plan.study {
        println!(
            "study {} done in {:.0} s; wrote {} into {}",
            study.name(),
            started.elapsed().as_secs_f64(),
            study.page(),
            plan.out.display()
        );
        return Ok(());
    }
    eprintln!("== wall time of each stage");
    for st in &run.results.stages {
        eprintln!("   {:>7.1} s  {}", st.seconds, st.name);
    }
    if let Some(peak) = run.results.peak_rss {
        eprintln!(
            "   peak memory: {:.2} GB (harness), {:.2} GB (largest child)",
            peak.harness as f64 / 1e9,
            peak.children as f64 / 1e9
        );
    }
    let headline = run
        .results
        .records
        .iter()
        .filter(|r| r.scenario == Scenario::Matrix && r.target_fpr == 0.01)
        .map(|r| {
            format!(
                "{} {}",
                r.variant,
                bench_harness::record::pct(r.empirical_fpr)
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "done in {:.0} s: {} records, 0 false negatives, FP at 1%: {headline}; wrote {}",
        run.results.machine.wall_seconds,
        run.results.records.len(),
        plan.out.display()
    );
    Ok(())
}

/// `--quick` caps the keys, synthetic or the team's, at this many.
const QUICK_KEYS: usize = 200_000;

/// The output directory: `--out`, else where this kind of run belongs.
fn out_dir(cli: &Cli) -> PathBuf {
    match &cli.out {
        Some(out) => out.clone(),
        None if cli.keys.is_some() => PathBuf::from("target/custom-reports"),
        None if cli.quick => PathBuf::from("target/quick-reports"),
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
mod tests;
