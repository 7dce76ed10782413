//! Writes `reports/`: results.json, the plots, and README.md with the headline tables, the
//! machine the run was on and the articles' claims checked against the run.

use crate::charts::{by, pct, targets};
use crate::measure::Spread;
use crate::record::{Record, Scenario, SCHEMA};
use anyhow::{Context, Result};
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
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
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
    pub parallel_builds: Vec<(String, Spread)>,
    /// The targets of the comparison, as measured ratios.
    #[serde(default)]
    pub ratios: Vec<crate::targets::Ratio>,
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

/// A timing as `median (min–max)`, or `–` when it was not taken.
fn ns(v: Option<Spread>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.1}"))
}

/// A huge-page coverage as a percentage, or "not obtained".
fn coverage(c: Option<f64>) -> String {
    c.map_or_else(|| "not obtained".into(), |c| format!("{:.0}%", c * 100.0))
}

/// A single figure with one decimal, or `–`.
fn num(v: Option<f64>) -> String {
    v.map_or_else(|| "–".into(), |x| format!("{x:.1}"))
}

/// `a / b` of two medians as `1.23×`, or `–`.
fn ratio(a: Option<Spread>, b: Option<Spread>) -> String {
    match (a, b) {
        (Some(a), Some(b)) if b.median > 0.0 => format!("{:.2}×", a.median / b.median),
        _ => "–".into(),
    }
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
    let plots = crate::charts::render(dir, &crate::charts::all(&results.records))?;
    std::fs::write(dir.join("README.md"), readme(results, &plots))?;
    Ok(())
}

/// reports/README.md as [`write`] renders it from `results` (the charts' stems and captions
/// included, without drawing them); `check` compares it with the committed file.
#[must_use]
pub fn render_readme(results: &Results) -> String {
    let plots: Vec<(String, String)> = crate::charts::all(&results.records)
        .into_iter()
        .map(|c| (c.stem, c.caption))
        .collect();
    readme(results, &plots)
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

    let matrix: Vec<&Record> = by(r, Scenario::Matrix).collect();
    for t in targets(r) {
        let n = matrix.first().map_or(0, |x| x.n);
        let _ = writeln!(s, "## n = {n}, target FP rate {}\n", pct(t));
        let _ = writeln!(
            s,
            "| variant | parameters | memory | bits/key | over lower bound at target | at achieved FP | theory FPR | measured FPR | Wilson 95% CI | measured/theory | theory in CI | false neg. | ns/insert | ns/lookup 0% | 25% | 50% | 75% | 100% | p50 ns | p99 ns |"
        );
        let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|---:|---|---:|:-:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for x in matrix.iter().filter(|x| x.target_fpr == t) {
            let l = |k: &str| ns(x.ns_per_lookup.get(k).copied());
            let _ = writeln!(
                s,
                "| {} | {} | {} | {:.2} | {:+.0}% | {} | {} | {} | [{}, {}] | {:.3} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                x.variant,
                x.params,
                mb(x.bytes),
                x.bits_per_key,
                x.overhead_over_lower_bound * 100.0,
                x.overhead_at_achieved_fpr
                    .map_or_else(|| "–".into(), |o| format!("{:+.0}%", o * 100.0)),
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
                num(x.latency_p50_ns),
                num(x.latency_p99_ns),
            );
        }
        s.push('\n');
    }
    batched_table(&mut s, &matrix);
    // A sweep-only run has no matrix: no "0 of 0 rows" sentence.
    if !matrix.is_empty() {
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
    }

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
        claims(&mut s, results);
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
    let _ = writeln!(s, "Timings are `median (min–max)` over interleaved rounds; builds include construction and allocation for every contender.\n");
    let _ = writeln!(s, "| contender | source | build s | build s (batched) | ns/negative | ns/positive | ns/negative batched | ns/positive batched | measured FPR | bytes | bits/key | huge pages | false neg. | refused inserts |");
    let _ = writeln!(
        s,
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {:.3} | {} | {:.1} | {:.1} | {} | {} | {} | {} | {:.2} | {} | {} | {} |",
            r.name,
            r.source,
            r.build_seconds,
            r.build_seconds_batched
                .map_or_else(|| "–".into(), |v| format!("{v:.3}")),
            r.ns_negative,
            r.ns_positive,
            ns(r.ns_negative_batched),
            ns(r.ns_positive_batched),
            pct(r.empirical_fpr),
            mb(r.bytes),
            r.bits_per_key,
            coverage(r.huge_page_coverage),
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
            "### Parallel builds (seconds, median (min–max) of interleaved rounds)\n\n| build | seconds |\n|---|---:|"
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
             lookups timed in interleaved rounds (median (min–max)). Coverage is each table's share \
             on huge pages, from AnonHugePages around its own build. Our other tables are advised, \
             the peers' are not (the kernel's policy here decides whether they get any): the \
             peers table lists each contender's coverage, and this table gives ours without the \
             advice, so both policies are reported.\n"
        );
        let _ = writeln!(s, "| variant | memory | ns/negative, advised | not advised | gain | batched, advised | batched, not advised | gain | coverage advised | not advised |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for h in &results.huge_pages {
            let _ = writeln!(
                s,
                "| {} | {} | {:.1} | {:.1} | {} | {:.1} | {:.1} | {} | {} | {} |",
                h.variant,
                mb(h.bytes),
                h.ns_negative_huge,
                h.ns_negative_small,
                ratio(Some(h.ns_negative_small), Some(h.ns_negative_huge)),
                h.ns_negative_batched_huge,
                h.ns_negative_batched_small,
                ratio(
                    Some(h.ns_negative_batched_small),
                    Some(h.ns_negative_batched_huge)
                ),
                coverage(h.coverage_huge),
                coverage(h.coverage_small)
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
        let same = results.ratios.iter().filter(|r| r.same_conditions).count();
        let _ = writeln!(
            s,
            "Ratio = numerator / denominator (medians). \"Same conditions?\" is computed: same API \
             mode (batched or one at a time) and achieved FP rates within {}× of each other; \
             {same} of {} rows compare equal conditions.\n",
            crate::targets::FP_TOLERANCE,
            results.ratios.len()
        );
        let _ = writeln!(
            s,
            "| comparison | numerator | value | denominator | value | ratio | target | met | same conditions? |\n|---|---|---:|---|---:|---:|---|:-:|---|"
        );
        for r in &results.ratios {
            let _ = writeln!(
                s,
                "| {} | {} | {:.4} | {} | {:.4} | {:.3} | {} | {} | {} |",
                r.what,
                r.numerator,
                r.numerator_value,
                r.denominator,
                r.denominator_value,
                r.ratio,
                r.target,
                if r.met { "yes" } else { "**no**" },
                if r.same_conditions {
                    "yes".to_string()
                } else {
                    format!("no: {}", r.differences)
                }
            );
        }
        s.push('\n');
    }
}

fn scenario_tables(s: &mut String, r: &[Record]) {
    let growth: Vec<&Record> = by(r, Scenario::Growth).collect();
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
    let churn: Vec<&Record> = by(r, Scenario::Churn).collect();
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
    let sweep: Vec<&Record> = by(r, Scenario::SizeSweep).collect();
    if !sweep.is_empty() {
        let _ = writeln!(s, "## Size sweep (target 1%)\n");
        let _ = writeln!(s, "| variant | n | memory | ns/lookup 0% | 50% | 100% | batched 0% | batched 100% | batched speed-up 0% / 100% | measured FPR |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for x in &sweep {
            let l = |k: &str| ns(x.ns_per_lookup.get(k).copied());
            let b = |k: &str| ns(x.ns_per_lookup_batched.get(k).copied());
            let up = |k: &str| {
                ratio(
                    x.ns_per_lookup.get(k).copied(),
                    x.ns_per_lookup_batched.get(k).copied(),
                )
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
    let par: Vec<&Record> = by(r, Scenario::Parallel).collect();
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
fn claims(s: &mut String, results: &Results) {
    let _ = writeln!(s, "## The articles' claims, checked\n");
    let _ = writeln!(
        s,
        "Every verdict is computed from the formulas or this run's records against the stated \
         threshold. The database and unique-count claims are in the systems section.\n"
    );
    s.push_str(&crate::claims::table(&crate::claims::claims(results)));
    s.push('\n');
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
    let block = readme_block(results);
    let updated = format!("{}{}{}", &text[..b], block, &text[e + END.len()..]);
    std::fs::write(path, updated)?;
    Ok(())
}

/// The block between the root README's markers, markers included, as [`update_readme_block`]
/// writes it; `check` compares it with the committed README.
#[must_use]
pub fn readme_block(results: &Results) -> String {
    let mut block = String::new();
    let rows: Vec<&Record> = by(&results.records, Scenario::Matrix)
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
    block
}

/// The block between the markers in `text`, markers included.
#[must_use]
pub fn committed_block(text: &str) -> Option<&str> {
    let (b, e) = (text.find(BEGIN)?, text.find(END)?);
    text.get(b..e + END.len())
}
