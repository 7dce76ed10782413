//! Writes `reports/`: results.json, the plots, and README.md with the headline tables, the
//! machine the run was on and the articles' claims checked against the run.

use crate::plot::{self, BarChart, LineChart, Series, SeriesStyle};
use crate::record::{Record, SCHEMA};
use anyhow::{Context, Result};
use filterlab::math;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

/// Where and how the run happened.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model from /proc/cpuinfo.
    pub cpu: String,
    /// Logical cores available to the process.
    pub cores: usize,
    /// Memory from /proc/meminfo.
    pub memory: String,
    /// `rustc --version`.
    pub rustc: String,
    /// `git rev-parse --short HEAD`, with `-dirty` for uncommitted changes.
    pub commit: String,
    /// UTC start of the run.
    pub date: String,
    /// Seconds the whole run took.
    pub wall_seconds: f64,
    /// The command line.
    pub command: String,
}

fn first_line_of(cmd: &str, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then(|| {
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    })
}

impl Machine {
    /// Reads the machine's description (everything but the wall time).
    pub fn detect(command: String) -> Machine {
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let cpu = cpuinfo
            .lines()
            .find(|l| l.starts_with("model name"))
            .and_then(|l| l.split(':').nth(1))
            .map_or_else(
                || std::env::consts::ARCH.to_string(),
                |s| s.trim().to_string(),
            );
        let memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                let kb: f64 = m.lines().next()?.split_whitespace().nth(1)?.parse().ok()?;
                Some(format!("{:.1} GiB", kb / 1024.0 / 1024.0))
            })
            .unwrap_or_else(|| "unknown".into());
        let mut commit = first_line_of("git", &["rev-parse", "--short", "HEAD"])
            .unwrap_or_else(|| "unknown".into());
        if first_line_of("git", &["status", "--porcelain", "--untracked-files=no"])
            .is_some_and(|s| !s.is_empty())
        {
            commit.push_str("-dirty");
        }
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, usize::from),
            memory,
            rustc: first_line_of("rustc", &["--version"]).unwrap_or_else(|| "unknown".into()),
            commit,
            date: utc_now(),
            wall_seconds: 0.0,
            command,
        }
    }
}

/// The current UTC time as `YYYY-MM-DD HH:MM:SS UTC`, without a date crate.
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Everything a run produced, as written to results.json.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Results {
    /// Where and how.
    pub machine: Machine,
    /// Members, non-members and where they came from.
    pub dataset: DatasetInfo,
    /// Every measurement.
    pub records: Vec<Record>,
    /// filterlab beside the peers, same keys and run.
    #[serde(default)]
    pub peers: Vec<crate::versus::PeerRecord>,
    /// Parallel builds: (what, median seconds).
    #[serde(default)]
    pub parallel_builds: Vec<(String, f64)>,
    /// The targets of the comparison, as measured ratios.
    #[serde(default)]
    pub ratios: Vec<crate::versus::Ratio>,
    /// Lookups with and without transparent huge pages.
    #[serde(default)]
    pub huge_pages: Vec<crate::versus::HugePageRecord>,
}

/// The dataset of a run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct DatasetInfo {
    /// `synthetic` or the key file's path.
    pub source: String,
    /// Members inserted (the matrix's n).
    pub members: usize,
    /// Non-members probed.
    pub non_members: usize,
    /// SHA-256 of the members as a one-key-per-line file.
    pub members_sha256: String,
    /// SHA-256 of the non-members.
    pub non_members_sha256: String,
    /// Most frequent domains of the members, with counts.
    pub top_domains: Vec<(String, u64)>,
}

fn pct(p: f64) -> String {
    let v = p * 100.0;
    if v >= 0.1 {
        format!("{v:.3}%")
    } else {
        format!("{v:.4}%")
    }
}

fn ns(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.1}"))
}

fn mb(bytes: u64) -> String {
    format!("{:.2} MB", bytes as f64 / 1e6)
}

/// Writes results.json, the plots and README.md into `dir`.
///
/// # Errors
/// I/O errors.
pub fn write(dir: &Path, results: &Results) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let json = serde_json::to_string_pretty(results)?;
    std::fs::write(dir.join("results.json"), json + "\n")?;
    let plots = write_plots(dir, &results.records)?;
    std::fs::write(dir.join("README.md"), readme(results, &plots))?;
    Ok(())
}

fn by<'a>(records: &'a [Record], scenario: &'a str) -> impl Iterator<Item = &'a Record> + 'a {
    records.iter().filter(move |r| r.scenario == scenario)
}

fn variants(records: &[Record], scenario: &str) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for r in by(records, scenario) {
        if !v.contains(&r.variant) {
            v.push(r.variant.clone());
        }
    }
    v
}

fn targets(records: &[Record]) -> Vec<f64> {
    let mut t: Vec<f64> = Vec::new();
    for r in by(records, "matrix") {
        if !t.contains(&r.target_fpr) {
            t.push(r.target_fpr);
        }
    }
    t
}

/// Renders every chart; returns `(stem, caption)` pairs for the README.
fn write_plots(dir: &Path, records: &[Record]) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut emit =
        |stem: &str, caption: &str, line: Option<LineChart>, bar: Option<BarChart>| -> Result<()> {
            let path = dir.join(stem);
            if let Some(c) = line {
                plot::render_line(&c, &path)?;
            }
            if let Some(c) = bar {
                plot::render_bar(&c, &path)?;
            }
            out.push((stem.to_string(), caption.to_string()));
            Ok(())
        };
    let matrix: Vec<&Record> = by(records, "matrix").collect();
    let names = variants(records, "matrix");
    let n = matrix.first().map_or(0, |r| r.n);

    // 1-4 need the matrix (absent from a --sweep-only run).
    if !matrix.is_empty() {
        // 1. Calibration: measured against theory, log-log, with the diagonal.
        let mut series: Vec<Series> = names
            .iter()
            .map(|v| {
                let pts = matrix
                    .iter()
                    .filter(|r| &r.variant == v)
                    .map(|r| (r.theoretical_fpr, r.empirical_fpr))
                    .collect();
                Series::new(v.as_str(), pts, SeriesStyle::Points)
            })
            .collect();
        let (lo, hi) = matrix.iter().fold((1.0f64, 0.0f64), |(lo, hi), r| {
            (
                lo.min(r.theoretical_fpr.min(r.empirical_fpr)),
                hi.max(r.theoretical_fpr.max(r.empirical_fpr)),
            )
        });
        series.push(Series::new(
            "measured = theory",
            vec![(lo * 0.8, lo * 0.8), (hi * 1.25, hi * 1.25)],
            SeriesStyle::Dashed,
        ));
        emit(
        "fpr_measured_vs_theory",
        &format!("Measured FP rate against each variant's formula at its realised parameters (n = {n}); points on the diagonal mean the formula holds."),
        Some(LineChart {
            title: format!("False-positive rate: measured vs theory, n = {n}"),
            x_label: "theoretical FP rate".into(),
            y_label: "measured FP rate".into(),
            x_log: true,
            y_log: true,
            series,
        }),
        None,
    )?;

        // 2. Memory against FP rate, with the lower bound.
        let mut series: Vec<Series> = names
            .iter()
            .map(|v| {
                let mut pts: Vec<(f64, f64)> = matrix
                    .iter()
                    .filter(|r| &r.variant == v)
                    .map(|r| (r.empirical_fpr, r.bits_per_key))
                    .collect();
                pts.sort_by(|a, b| a.0.total_cmp(&b.0));
                Series::new(v.as_str(), pts, SeriesStyle::LinePoints)
            })
            .collect();
        let grid: Vec<f64> = (0..=40)
            .map(|i| 10f64.powf(-5.0 + 4.0 * f64::from(i) / 40.0))
            .collect();
        series.push(Series::new(
            "lower bound log2(1/p)",
            grid.iter().map(|&p| (p, (1.0 / p).log2())).collect(),
            SeriesStyle::Dashed,
        ));
        series.push(Series::new(
            "ideal Bloom 1.44·log2(1/p)",
            grid.iter()
                .map(|&p| (p, (1.0 / p).log2() / std::f64::consts::LN_2))
                .collect(),
            SeriesStyle::Dashed,
        ));
        emit(
        "bits_per_key_vs_fpr",
        "Bits per key against the measured FP rate, with the information-theoretic lower bound n·log2(1/p).",
        Some(LineChart {
            title: format!("Memory vs false-positive rate, n = {n}"),
            x_label: "measured FP rate".into(),
            y_label: "bits per key".into(),
            x_log: true,
            y_log: false,
            series,
        }),
        None,
    )?;

        // 3. Lookup cost per mix, at each target.
        for &t in &targets(records) {
            let rows: Vec<&&Record> = matrix.iter().filter(|r| r.target_fpr == t).collect();
            let cats: Vec<String> = rows
                .first()
                .map(|r| {
                    r.ns_per_lookup
                        .keys()
                        .map(|k| k.parse::<u32>().unwrap_or(0))
                        .collect::<Vec<_>>()
                })
                .map(|mut ks| {
                    ks.sort_unstable();
                    ks.into_iter().map(|k| format!("{k}%")).collect()
                })
                .unwrap_or_default();
            let groups = rows
                .iter()
                .map(|r| {
                    let vals = cats
                        .iter()
                        .map(|c| {
                            r.ns_per_lookup
                                .get(c.trim_end_matches('%'))
                                .copied()
                                .unwrap_or(f64::NAN)
                        })
                        .collect();
                    (r.variant.clone(), vals)
                })
                .collect();
            let stem = format!("lookup_ns_{}", target_slug(t));
            emit(
            &stem,
            &format!("ns per lookup by share of positive queries, target {} (median of interleaved rounds, hashing included).", pct(t)),
            None,
            Some(BarChart {
                title: format!("Lookup cost by positive share, n = {n}, target {}", pct(t)),
                x_label: "positive queries".into(),
                y_label: "ns per lookup".into(),
                categories: cats,
                groups,
                y_log: false,
                spread: Vec::new(),
            }),
        )?;
        }

        // 4. Build cost.
        let ts = targets(records);
        emit(
            "insert_ns",
            "ns per insert, one thread, key bytes in (hashing included).",
            None,
            Some(BarChart {
                title: format!("Build cost, n = {n}"),
                x_label: "target FP rate".into(),
                y_label: "ns per insert".into(),
                categories: ts.iter().map(|&t| pct(t)).collect(),
                groups: names
                    .iter()
                    .map(|v| {
                        let vals = ts
                            .iter()
                            .map(|&t| {
                                matrix
                                    .iter()
                                    .find(|r| &r.variant == v && r.target_fpr == t)
                                    .and_then(|r| r.ns_per_insert)
                                    .unwrap_or(f64::NAN)
                            })
                            .collect();
                        (v.clone(), vals)
                    })
                    .collect(),
                y_log: false,
                spread: Vec::new(),
            }),
        )?;
    }

    // 5. Growth.
    let growth: Vec<&Record> = by(records, "growth").collect();
    if let Some(first) = growth.first() {
        let cap = first.capacity as f64;
        let mut series: Vec<Series> = variants(records, "growth")
            .iter()
            .map(|v| {
                let pts = growth
                    .iter()
                    .filter(|r| &r.variant == v)
                    .map(|r| (r.n as f64 / cap, r.empirical_fpr))
                    .collect();
                Series::new(v.as_str(), pts, SeriesStyle::LinePoints)
            })
            .collect();
        series.push(Series::new(
            "target",
            vec![(0.0, first.target_fpr), (4.0, first.target_fpr)],
            SeriesStyle::Dashed,
        ));
        emit(
            "growth",
            &format!("Measured FP rate while inserting up to 4× the declared capacity ({}); the cuckoo table stops at its first refused insert.", first.capacity),
            Some(LineChart {
                title: "Growth past the declared capacity".into(),
                x_label: "items inserted / declared capacity".into(),
                y_label: "measured FP rate".into(),
                x_log: false,
                y_log: true,
                series,
            }),
            None,
        )?;
    }

    // 6. Churn.
    let churn: Vec<&Record> = by(records, "churn").collect();
    if !churn.is_empty() {
        let mut series = Vec::new();
        for v in variants(records, "churn") {
            let rows: Vec<&&Record> = churn.iter().filter(|r| r.variant == v).collect();
            series.push(Series::new(
                format!("{v} measured"),
                rows.iter()
                    .map(|r| (r.step.unwrap_or(0) as f64, r.empirical_fpr))
                    .collect(),
                SeriesStyle::LinePoints,
            ));
            series.push(Series::new(
                format!("{v} theory"),
                rows.iter()
                    .map(|r| (r.step.unwrap_or(0) as f64, r.theoretical_fpr))
                    .collect(),
                SeriesStyle::Dashed,
            ));
        }
        emit(
            "churn",
            "Deletion churn: each round removes the oldest 10% of the keys and inserts 10% new ones.",
            Some(LineChart {
                title: "FP rate under deletion churn".into(),
                x_label: "round".into(),
                y_label: "FP rate".into(),
                x_log: false,
                y_log: false,
                series,
            }),
            None,
        )?;
    }

    // 7. Size sweep: negative and positive lookups, one chart each so colours stay per variant.
    let sweep: Vec<&Record> = by(records, "size_sweep").collect();
    if !sweep.is_empty() {
        for (mix, word) in [("0", "negative"), ("100", "positive")] {
            let series = variants(records, "size_sweep")
                .iter()
                .map(|v| {
                    let pts = sweep
                        .iter()
                        .filter(|r| &r.variant == v)
                        .filter_map(|r| r.ns_per_lookup.get(mix).map(|&t| (r.bytes as f64, t)))
                        .collect();
                    Series::new(v.as_str(), pts, SeriesStyle::LinePoints)
                })
                .collect();
            emit(
                &format!("size_sweep_{word}"),
                &format!("ns per {word} lookup against filter size (target 1%): the steps are the caches."),
                Some(LineChart {
                    title: format!("{} lookups vs filter size (target 1%)", if mix == "0" { "Negative" } else { "Positive" }),
                    x_label: "filter bytes".into(),
                    y_label: "ns per lookup".into(),
                    x_log: true,
                    y_log: true,
                    series,
                }),
                None,
            )?;
        }
    }

    // 8. Parallel.
    let par: Vec<&Record> = by(records, "parallel").collect();
    if !par.is_empty() {
        let names = variants(records, "parallel");
        let mut threads: Vec<usize> = par.iter().filter_map(|r| r.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        let groups = threads
            .iter()
            .map(|&t| {
                let vals = names
                    .iter()
                    .map(|v| {
                        par.iter()
                            .find(|r| &r.variant == v && r.threads == Some(t))
                            .and_then(|r| r.ns_per_lookup.get("50").copied())
                            .unwrap_or(f64::NAN)
                    })
                    .collect();
                (format!("{t} thread{}", if t == 1 { "" } else { "s" }), vals)
            })
            .collect();
        emit(
            "parallel",
            "Lookup throughput (wall ns per lookup, 50% positive) with one thread and with every core.",
            None,
            Some(BarChart {
                title: "Parallel lookups (rayon)".into(),
                x_label: "variant".into(),
                y_label: "wall ns per lookup".into(),
                categories: names,
                groups,
                y_log: false,
                spread: Vec::new(),
            }),
        )?;
    }
    Ok(out)
}

fn target_slug(t: f64) -> String {
    format!("{}", t * 100.0).replace('.', "_") + "pct"
}

fn readme(results: &Results, plots: &[(String, String)]) -> String {
    let r = &results.records;
    let m = &results.machine;
    let d = &results.dataset;
    let mut s = String::new();
    let _ = writeln!(s, "# filterlab benchmark report\n");
    let _ = writeln!(
        s,
        "Written by the harness (`{}`); do not edit by hand. Every figure below comes from `results.json`.\n",
        m.command
    );
    let _ = writeln!(s, "## Machine\n");
    let _ = writeln!(
        s,
        "| CPU | cores | memory | rustc | commit | date | wall time of the run |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    let _ = writeln!(
        s,
        "| {} | {} | {} | {} | {} | {} | {:.0} s ({:.1} min) |\n",
        m.cpu,
        m.cores,
        m.memory,
        m.rustc,
        m.commit,
        m.date,
        m.wall_seconds,
        m.wall_seconds / 60.0
    );
    let _ = writeln!(
        s,
        "Absolute times are this machine's and swing between runs on a shared 2-core VM; compare \
         figures within one table (same run, medians of interleaved rounds).\n"
    );
    let _ = writeln!(s, "## Dataset\n");
    let _ = writeln!(
        s,
        "{} members and {} non-members ({}), distinct and disjoint (verified). SHA-256 of the \
         one-key-per-line files: members `{}`, non-members `{}`.\n",
        d.members, d.non_members, d.source, d.members_sha256, d.non_members_sha256
    );
    if !d.top_domains.is_empty() {
        let _ = writeln!(s, "| domain | members | share |\n|---|---:|---:|");
        for (dom, c) in d.top_domains.iter().take(10) {
            let _ = writeln!(
                s,
                "| {dom} | {c} | {:.1}% |",
                *c as f64 * 100.0 / d.members.max(1) as f64
            );
        }
        s.push('\n');
    }

    let matrix: Vec<&Record> = by(r, "matrix").collect();
    for t in targets(r) {
        let n = matrix.first().map_or(0, |x| x.n);
        let _ = writeln!(s, "## n = {n}, target FP rate {}\n", pct(t));
        let _ = writeln!(
            s,
            "| variant | parameters | memory | bits/key | over lower bound | theory FPR | measured FPR | Wilson 95% CI | measured/theory | theory in CI | false neg. | ns/insert | ns/lookup 0% | 25% | 50% | 75% | 100% | p50 ns | p99 ns |"
        );
        let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---|---:|:-:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for x in matrix.iter().filter(|x| x.target_fpr == t) {
            let l = |k: &str| ns(x.ns_per_lookup.get(k).copied());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.2} | {:+.0}% | {} | {} | [{}, {}] | {:.3} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                x.variant,
                x.params,
                mb(x.bytes),
                x.bits_per_key,
                x.overhead_over_lower_bound * 100.0,
                pct(x.theoretical_fpr),
                pct(x.empirical_fpr),
                pct(x.fpr_ci_low),
                pct(x.fpr_ci_high),
                x.measured_over_theory,
                if x.theory_in_ci { "yes" } else { "**no**" },
                x.false_negatives,
                ns(x.ns_per_insert),
                l("0"),
                l("25"),
                l("50"),
                l("75"),
                l("100"),
                ns(x.latency_p50_ns),
                ns(x.latency_p99_ns),
            );
        }
        s.push('\n');
    }
    batched_table(&mut s, &matrix);
    let flagged = matrix.iter().filter(|x| !x.theory_in_ci).count();
    let r_default = filterlab::scalable::DEFAULT_TIGHTENING;
    let _ = writeln!(
        s,
        "Theory lies outside the measured 95% interval for {flagged} of {} rows; by chance alone about \
         one row in twenty would be. The counting filters are hashed with seed {} (the others with 0) \
         so that their false positives are an independent sample rather than a copy of the classic \
         filter's. The scalable filter's first stage is built at P0 = P(1 - r) with r = {r_default} so \
         that the compound rate stays under P however far it grows; at its declared capacity it \
         therefore sits near P0 and pays for that headroom in bits per key.\n",
        matrix.len(),
        crate::filters::COUNTING_SEED
    );

    let _ = writeln!(s, "## Plots\n");
    for (stem, caption) in plots {
        let _ = writeln!(
            s,
            "![{caption}]({stem}.svg)\n\n*{caption}* ([PNG]({stem}.png))\n"
        );
    }

    peers_tables(&mut s, results);
    scenario_tables(&mut s, r);
    if !matrix.is_empty() {
        claims(&mut s, r, &results.peers);
    }

    let _ = writeln!(s, "## results.json\n");
    let _ = writeln!(
        s,
        "`{{ \"machine\": {{…}}, \"dataset\": {{…}}, \"records\": [ … ] }}`; one record per (variant, n, \
         target FP rate, scenario, step):\n"
    );
    let _ = writeln!(s, "| field | meaning |\n|---|---|");
    for (f, what) in SCHEMA {
        let _ = writeln!(s, "| `{f}` | {what} |");
    }
    s
}

/// One-at-a-time against `insert_batch` / `contains_batch`, same filters, same queries, same run.
fn batched_table(s: &mut String, matrix: &[&Record]) {
    if matrix.iter().all(|x| x.ns_per_lookup_batched.is_empty()) {
        return;
    }
    let _ = writeln!(s, "## Batched against one at a time\n");
    let _ = writeln!(
        s,
        "`contains_batch` hashes a block of keys, then probes them prefetching a few keys ahead; \
         `insert_batch` likewise. Same filters and queries as above; ratio = one-at-a-time / batched.\n"
    );
    let _ = writeln!(
        s,
        "| variant | target | ns/insert | batched | ratio | ns/lookup 0% | batched | ratio | ns/lookup 100% | batched | ratio |"
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for x in matrix {
        let one = |k: &str| x.ns_per_lookup.get(k).copied();
        let bat = |k: &str| x.ns_per_lookup_batched.get(k).copied();
        let ratio = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
            _ => "–".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            x.variant,
            pct(x.target_fpr),
            ns(x.ns_per_insert),
            ns(x.ns_per_insert_batched),
            ratio(x.ns_per_insert, x.ns_per_insert_batched),
            ns(one("0")),
            ns(bat("0")),
            ratio(one("0"), bat("0")),
            ns(one("100")),
            ns(bat("100")),
            ratio(one("100"), bat("100")),
        );
    }
    s.push('\n');
}

fn peers_tables(s: &mut String, results: &Results) {
    let rows = &results.peers;
    let Some(first) = rows.first() else { return };
    let _ = writeln!(
        s,
        "## Beside the peers (n = {}, target {})\n",
        first.n,
        pct(first.target_fpr)
    );
    let _ = writeln!(
        s,
        "Same keys, same process, same run; lookups are medians of interleaved rounds over the same \
         shuffled query sets (keys copied contiguously, hashing included). \"batched\" uses \
         `contains_batch` / `insert_batch`; the peers have no batch API.\n"
    );
    let _ = writeln!(s, "| contender | source | build s | build s (batched) | ns/negative | ns/positive | ns/negative batched | ns/positive batched | measured FPR | bytes | bits/key | false neg. | refused inserts |");
    let _ = writeln!(
        s,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {:.2} | {} | {:.1} | {:.1} | {} | {} | {} | {} | {:.2} | {} | {} |",
            r.name,
            r.source,
            r.build_seconds,
            r.build_seconds_batched
                .map_or_else(|| "–".into(), |v| format!("{v:.2}")),
            r.ns_negative,
            r.ns_positive,
            ns(r.ns_negative_batched),
            ns(r.ns_positive_batched),
            pct(r.empirical_fpr),
            mb(r.bytes),
            r.bits_per_key,
            r.false_negatives,
            r.insert_failures
        );
    }
    let _ = writeln!(s, "\nHow to read each row:\n");
    for r in rows {
        let _ = writeln!(s, "* **{}**: {}", r.name, r.quirks);
    }
    s.push('\n');
    if !results.parallel_builds.is_empty() {
        let _ = writeln!(
            s,
            "### Parallel builds (median seconds)\n\n| build | seconds |\n|---|---:|"
        );
        for (what, t) in &results.parallel_builds {
            let _ = writeln!(s, "| {what} | {t:.3} |");
        }
        s.push('\n');
    }
    if !results.huge_pages.is_empty() {
        let _ = writeln!(
            s,
            "### Transparent huge pages\n\nThe same filters built twice, with and without \
             `madvise(MADV_HUGEPAGE)` on their tables (`filter_core::zeroed_table`), negative \
             lookups timed in interleaved rounds. AnonHugePages grew by {} kB during the advised builds.\n",
            results.huge_pages[0].anon_huge_pages_kb.map_or_else(|| "an unknown number of".into(), |k| k.to_string())
        );
        let _ = writeln!(s, "| variant | memory | ns/negative 2 MiB pages | 4 KiB pages | gain | batched, 2 MiB | batched, 4 KiB | gain |\n|---|---:|---:|---:|---:|---:|---:|---:|");
        for h in &results.huge_pages {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {:.1} | {:.2}× | {:.1} | {:.1} | {:.2}× |",
                h.variant,
                mb(h.bytes),
                h.ns_negative_huge,
                h.ns_negative_small,
                h.ns_negative_small / h.ns_negative_huge,
                h.ns_negative_batched_huge,
                h.ns_negative_batched_small,
                h.ns_negative_batched_small / h.ns_negative_batched_huge
            );
        }
        s.push('\n');
    }
    if !results.ratios.is_empty() {
        let met = results.ratios.iter().filter(|r| r.met).count();
        let _ = writeln!(
            s,
            "### Targets, as ratios measured in this run ({met} of {} met)\n",
            results.ratios.len()
        );
        let _ = writeln!(
            s,
            "| comparison | ours | theirs | ratio | target | met |\n|---|---:|---:|---:|---|:-:|"
        );
        for r in &results.ratios {
            let _ = writeln!(
                s,
                "| {} | {:.4} | {:.4} | {:.3} | {} | {} |",
                r.what,
                r.ours,
                r.theirs,
                r.ratio,
                r.target,
                if r.met { "yes" } else { "**no**" }
            );
        }
        s.push('\n');
    }
}

fn scenario_tables(s: &mut String, r: &[Record]) {
    let growth: Vec<&Record> = by(r, "growth").collect();
    if let Some(first) = growth.first() {
        let cap = first.capacity;
        let _ = writeln!(
            s,
            "## Growth to 4× capacity ({cap} declared, target {})\n",
            pct(first.target_fpr)
        );
        let _ = writeln!(s, "| variant | items | × capacity | measured FPR | theory FPR | refused inserts | first refusal at load | false neg. | bits/key |");
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        // Whole multiples of the capacity, plus the first checkpoint after a refusal; a table
        // that stopped accepting keys is not repeated at every later checkpoint.
        let mut last: Option<(&str, u64)> = None;
        for x in growth.iter().filter(|x| {
            let ratio = x.step.unwrap_or(0) as f64 / cap as f64;
            (ratio - ratio.round()).abs() < 1e-9 || x.insert_failures.unwrap_or(0) > 0
        }) {
            if last == Some((x.variant.as_str(), x.n)) {
                continue;
            }
            last = Some((x.variant.as_str(), x.n));
            let _ = writeln!(
                s,
                "| {} | {} | {:.2} | {} | {} | {} | {} | {} | {:.2} |",
                x.variant,
                x.n,
                x.n as f64 / cap as f64,
                pct(x.empirical_fpr),
                pct(x.theoretical_fpr),
                x.insert_failures.unwrap_or(0),
                x.first_failure_load
                    .map_or_else(|| "–".into(), |l| format!("{l:.4}")),
                x.false_negatives,
                x.bits_per_key
            );
        }
        s.push('\n');
    }
    let churn: Vec<&Record> = by(r, "churn").collect();
    if !churn.is_empty() {
        let _ = writeln!(s, "## Deletion churn\n");
        let _ = writeln!(s, "| variant | round | items | measured FPR | theory FPR | false neg. |\n|---|---:|---:|---:|---:|---:|");
        for x in &churn {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} |",
                x.variant,
                x.step.unwrap_or(0),
                x.n,
                pct(x.empirical_fpr),
                pct(x.theoretical_fpr),
                x.false_negatives
            );
        }
        s.push('\n');
    }
    let sweep: Vec<&Record> = by(r, "size_sweep").collect();
    if !sweep.is_empty() {
        let _ = writeln!(s, "## Size sweep (target 1%)\n");
        let _ = writeln!(s, "| variant | n | memory | ns/lookup 0% | 50% | 100% | batched 0% | batched 100% | batched speed-up 0% / 100% | measured FPR |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for x in &sweep {
            let l = |k: &str| ns(x.ns_per_lookup.get(k).copied());
            let b = |k: &str| ns(x.ns_per_lookup_batched.get(k).copied());
            let up = |k: &str| match (x.ns_per_lookup.get(k), x.ns_per_lookup_batched.get(k)) {
                (Some(a), Some(b)) => format!("{:.2}×", a / b),
                _ => "–".into(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |",
                x.variant,
                x.n,
                mb(x.bytes),
                l("0"),
                l("50"),
                l("100"),
                b("0"),
                b("100"),
                up("0"),
                up("100"),
                pct(x.empirical_fpr)
            );
        }
        s.push('\n');
    }
    let par: Vec<&Record> = by(r, "parallel").collect();
    if !par.is_empty() {
        let _ = writeln!(s, "## Parallel lookups\n");
        let _ = writeln!(s, "| variant | threads | wall ns/lookup (50% positive) | speed-up over 1 thread |\n|---|---:|---:|---:|");
        for x in &par {
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.2}× |",
                x.variant,
                x.threads.unwrap_or(1),
                ns(x.ns_per_lookup.get("50").copied()),
                x.parallel_speedup.unwrap_or(1.0)
            );
        }
        s.push('\n');
    }
}

/// The articles' claims (../shared/seeds), each against the formulas and this run.
fn claims(s: &mut String, r: &[Record], peers: &[crate::versus::PeerRecord]) {
    const N: u64 = 10_000_000;
    let _ = writeln!(s, "## The articles' claims, checked\n");
    let _ = writeln!(
        s,
        "| claim | what the formulas and this run say | holds? |\n|---|---|---|"
    );
    let bits = |n: u64, p: f64| math::optimal_bits(n, p).unwrap_or(0);
    let m10 = bits(N, 0.01);
    let m1 = bits(N / 10, 0.01);
    let _ = writeln!(
        s,
        "| 10M e-mails at 1% need ~9.6M bits ≈ 1.20 MB | m = {m10} bits = {} for 10M; {m1} bits = {} is the figure for 1M | no (off by 10×) |",
        mb(m10.div_ceil(8)),
        mb(m1.div_ceil(8))
    );
    let k_real = m10 as f64 / N as f64 * std::f64::consts::LN_2;
    let k_trunc = (k_real as u32).max(1);
    let k_round = math::optimal_hashes(m10, N);
    let _ = writeln!(
        s,
        "| k = 7 | optimum (m/n)·ln 2 = {k_real:.2}: rounding gives {k_round}, the article's own `int()` gives {k_trunc} (FP {} vs {}) | only with rounding |",
        pct(math::classic_fpr(m10, N, k_round)),
        pct(math::classic_fpr(m10, N, k_trunc))
    );
    for p in [0.001, 0.0001] {
        let b10 = bits(N, p).div_ceil(8);
        let b1 = bits(N / 10, p).div_ceil(8);
        let _ = writeln!(
            s,
            "| {} → {} | {} for 10M; {} for 1M | no for 10M |",
            pct(p),
            if p == 0.001 { "1.8 MB" } else { "2.4 MB" },
            mb(b10),
            mb(b1)
        );
    }
    let at = |v: &str, t: f64| {
        r.iter()
            .find(|x| x.scenario == "matrix" && x.variant == v && x.target_fpr == t)
    };
    if let Some(c) = at("classic", 0.01) {
        let _ = writeln!(
            s,
            "| FP 0.97% on 100K new e-mails | measured {} on {} non-members (95% CI [{}, {}]) with n = {} | consistent with ~1% |",
            pct(c.empirical_fpr),
            c.probes,
            pct(c.fpr_ci_low),
            pct(c.fpr_ci_high),
            c.n
        );
        let db = 0.05 + 0.95 * c.empirical_fpr;
        let _ = writeln!(
            s,
            "| with 95% new e-mails the DB sees 5.95% of checks | 5% duplicates + 95% × measured {} = {} | yes |",
            pct(c.empirical_fpr),
            pct(db)
        );
        if let Some(k) = at("counting", 0.01) {
            let _ = writeln!(
                s,
                "| a counting filter costs 4× the memory | {} vs {}: {:.2}× | yes |",
                mb(k.bytes),
                mb(c.bytes),
                k.bytes as f64 / c.bytes as f64
            );
        }
        if let Some(k) = at("cuckoo", 0.01) {
            let _ = writeln!(
                s,
                "| a cuckoo filter deletes at about the same memory | {} vs {}: {:.2}×, at measured FP {} | yes |",
                mb(k.bytes),
                mb(c.bytes),
                k.bytes as f64 / c.bytes as f64,
                pct(k.empirical_fpr)
            );
        }
    }
    let growth_end = |v: &str| {
        r.iter()
            .filter(|x| x.scenario == "growth" && x.variant == v)
            .max_by_key(|x| x.step)
    };
    if let (Some(sc), Some(cl)) = (growth_end("scalable"), growth_end("classic")) {
        let _ = writeln!(
            s,
            "| a scalable filter keeps the FP rate bounded past its capacity | at {:.0}× capacity: scalable {} (target {}), classic {} | {} |",
            sc.n as f64 / cl.capacity.max(1) as f64,
            pct(sc.empirical_fpr),
            pct(sc.target_fpr),
            pct(cl.empirical_fpr),
            if sc.fpr_ci_low <= sc.target_fpr { "yes" } else { "**no**" }
        );
    }
    match peers.iter().find(|p| p.side == "python") {
        Some(py) => {
            let _ = writeln!(
                s,
                "| the Python filter builds 10M e-mails in 18.4 s and answers in 48 µs (M2 Pro) | here: {} keys in {:.1} s ({:.0} ns/insert), {:.2} µs per negative and {:.2} µs per positive lookup, FP {} ({}) | measured on this machine |",
                py.n,
                py.build_seconds,
                py.build_seconds * 1e9 / py.n.max(1) as f64,
                py.ns_negative / 1000.0,
                py.ns_positive / 1000.0,
                pct(py.empirical_fpr),
                py.source
            );
        }
        None => {
            let _ = writeln!(s, "| the Python filter: build 18.4 s, 48 µs per lookup | not measured: python3 with mmh3 and bitarray was not available | – |");
        }
    }
    let _ = writeln!(
        s,
        "| PostgreSQL: 8.2 ms per lookup, 240–320 MB B-tree index | not measured by this run (needs a database server) | – |\n"
    );
}

const BEGIN: &str = "<!-- harness:begin variants -->";
const END: &str = "<!-- harness:end variants -->";

/// Rewrites the generated block of the top-level README (between the harness markers): memory
/// per key and measured FP rate of each variant at 1%, from this run.
///
/// # Errors
/// I/O errors, or a README without the markers.
pub fn update_readme_block(path: &Path, results: &Results) -> Result<()> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
    let (Some(b), Some(e)) = (text.find(BEGIN), text.find(END)) else {
        anyhow::bail!("{} lacks the {BEGIN} / {END} markers", path.display());
    };
    let mut block = String::new();
    let rows: Vec<&Record> = by(&results.records, "matrix")
        .filter(|r| r.target_fpr == 0.01)
        .collect();
    let n = rows.first().map_or(0, |r| r.n);
    let _ = writeln!(block, "{BEGIN}");
    let _ = writeln!(
        block,
        "Measured by the harness on {} synthetic e-mails at a 1% target ({}, commit {}; the whole \
         run took {:.1} minutes on {} cores of a {}):\n",
        n,
        results.machine.date,
        results.machine.commit,
        results.machine.wall_seconds / 60.0,
        results.machine.cores,
        results.machine.cpu
    );
    let _ = writeln!(block, "| variant | memory | bits/key | measured FP rate | ns/lookup (50% positive) |\n|---|---:|---:|---:|---:|");
    for r in rows {
        let _ = writeln!(
            block,
            "| {} | {} | {:.2} | {} | {} |",
            r.variant,
            mb(r.bytes),
            r.bits_per_key,
            pct(r.empirical_fpr),
            ns(r.ns_per_lookup.get("50").copied())
        );
    }
    let _ = write!(block, "{END}");
    let updated = format!("{}{}{}", &text[..b], block, &text[e + END.len()..]);
    std::fs::write(path, updated)?;
    Ok(())
}
