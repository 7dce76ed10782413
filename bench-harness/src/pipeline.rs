//! The harness's stages, in pipeline order: the main job's ([`MAIN`]) and the studies'
//! ([`studies`]); [`stages`] picks what a plan runs (see [`crate::plan`] for how they are driven).

use crate::judge::floor as judge_floor;
use crate::judge::targets;
use crate::plan::{Plan, Run, Stage};
use crate::record::floor::FloorTable;
use crate::record::study::Study;
use crate::render;
use crate::stages::{builds, floor, matrix, peers};
use anyhow::{bail, Result};
use std::path::Path;

pub mod studies;

/// The main job (`just bench`), in the order its stages run. Add a stage with one line here.
pub const MAIN: &[&dyn Stage] = &[
    &Comparison,
    &Floor,
    &Growth,
    &Users,
    &Churn,
    &crate::stages::cli_build::CliBuild,
    &crate::stages::threads::Threads,
    &crate::stages::systems::Systems,
    &crate::stages::python::Python,
    &NoFalseNegatives,
    &WriteReports,
];

/// The stages `plan` runs: one study's (and the index that lists it), or the main job's; a
/// `--quick` main job runs every study too, at its quick size, before its last checks.
#[must_use]
pub fn stages(plan: &Plan) -> Vec<&'static dyn Stage> {
    if let Some(study) = plan.study {
        return vec![studies::stage(study), &studies::Index];
    }
    let mut all: Vec<&'static dyn Stage> = MAIN.to_vec();
    if plan.quick && plan.keys.is_none() {
        let at = all.len() - 2;
        all.splice(at..at, Study::ALL.iter().map(|&s| studies::stage(s)));
    }
    all
}

/// The rate the builds and the peers are timed at; the matrix's other targets are built once.
const RATE: f64 = 0.01;

/// Every target rate at n keys: interleaved builds (ours and the peers'), the matrix, parallel
/// lookups, the peers side by side, parallel builds, the articles' Python code, the targets
/// and the huge-page A/B.
pub struct Comparison;

impl Stage for Comparison {
    fn name(&self) -> &'static str {
        "matrix, peers and targets"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let (ctx, plan, n) = (&run.ctx, run.plan, run.n);
        let started = std::time::Instant::now();
        eprintln!(
            "   {} variants x {} targets at n = {n} ({} filters); builds: ours and the peers', {} to {} interleaved rounds",
            crate::filters::in_matrix().len(),
            plan.targets.len(),
            builds::grid(n, &plan.targets).len(),
            plan.builds.min,
            plan.builds.max
        );
        // The tighter rates first, each filter built once, measured and dropped, so that they
        // are not held beside the peers (the run's peak memory). Ours are built on the peers'
        // 4 KiB pages here (`filters::BESIDE_PEERS`); the A/B at the end measures what the
        // huge-page advice gains.
        let tighter: Vec<f64> = plan
            .targets
            .iter()
            .copied()
            .filter(|&t| t != RATE)
            .collect();
        let once = builds::once(ctx, n, &tighter)?;
        let (tight_rows, tight, mut tight_loop) = matrix::matrix(ctx, n, once, plan.lookups)?;
        tight_loop.what = format!("the matrix's lookups at {tighter:?}");
        drop(tight);
        let (built, build_loop) = builds::interleaved(ctx, n, &[RATE], Some(RATE), plan.builds)?;
        let (matrix, filters, mut lookup_loop) = matrix::matrix(ctx, n, built.ours, plan.lookups)?;
        lookup_loop.what = format!("the matrix's lookups at {RATE}");
        let at_1pct: Vec<_> = filters.iter().collect();
        let base = &matrix[..];
        eprintln!(
            "   parallel lookups (at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let parallel = matrix::parallel(ctx, &at_1pct, base)?;
        eprintln!(
            "   beside the peers at 1% (at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let (mut peers, peer_loops) =
            peers::compare(ctx, &at_1pct, base, built.peers, n, 0.01, plan.peer_lookups)?;
        drop(at_1pct);
        drop(filters);
        eprintln!(
            "   parallel builds (at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let parallel_builds = peers::parallel_builds(ctx, n, 0.01, plan.build_rounds)?;
        eprintln!(
            "   the articles' Python code, on a sample (at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let dir = Path::new("target/python-keys");
        let article = peers::python(ctx, n, 0.01, plan.quick, dir)?;
        let article_loop = article.map(|a| {
            peers.extend(a.records);
            a.loop_record
        });
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let ratios = targets::ratios(&peers, &parallel_builds, threads)?;
        eprintln!(
            "   huge pages advised and not (at {:.0} s)",
            started.elapsed().as_secs_f64()
        );
        let huge_pages = peers::huge_pages(ctx, n, 0.01, plan.peer_rounds)?;
        let r = &mut run.results;
        r.records.extend(matrix);
        r.records.extend(tight_rows);
        r.records.extend(parallel);
        r.peers = peers;
        r.parallel_builds = parallel_builds;
        r.ratios = ratios;
        r.huge_pages = huge_pages;
        r.loops.extend([build_loop, lookup_loop, tight_loop]);
        r.loops.extend(peer_loops);
        r.loops.extend(article_loop);
        Ok(())
    }
}

/// The limit, measured: line reads over tables of the split-block and cuckoo filters' sizes
/// (taken from the comparison's rows) and the hashing of the comparison's negative queries; the
/// lookups judged as multiples of it, and the floor target added to the targets.
pub struct Floor;

impl Stage for Floor {
    fn name(&self) -> &'static str {
        "the limit: line reads and hashing"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let (ctx, n) = (&run.ctx, run.n);
        let peers = &run.results.peers;
        let tables = FloorTable::ALL
            .iter()
            .map(|&t| match peers.iter().find(|r| r.name == t.name()) {
                Some(r) => Ok((t, r.bytes)),
                None => bail!("the floor stage needs the comparison's {} row", t.name()),
            })
            .collect::<Result<Vec<_>>>()?;
        // The comparison's negative queries: the same keys, hashed.
        let q = ctx.queries.min(n);
        let keys = crate::measure::query_mix(ctx.members, n, ctx.probes, 0, q, ctx.seed ^ 1);
        // One round more than the peers': these rounds did not run interleaved with theirs, and
        // unequal counts keep the ratio's bootstrap from pairing them (`ratio_interval`).
        let rounds = run.plan.peer_rounds + 1;
        eprintln!("   {} tables, {q} keys, {rounds} rounds", tables.len());
        let mut report = floor::measure(&tables, &keys, rounds)?;
        report.multiples = judge_floor::multiples(&report, peers)?;
        let rows = targets::hot::floor_rows(peers, &report)?;
        run.results.ratios.extend(rows);
        run.results.floor = Some(report);
        Ok(())
    }
}

/// Capacity of the growth and churn scenarios: a tenth of n, at least 1000, and small enough
/// that 4x of it fits in the members.
fn scenario_capacity(run: &Run<'_>) -> usize {
    (run.n / 10).max(1000).min(run.ctx.members.len() / 4)
}

/// Inserting up to 4x the declared capacity.
pub struct Growth;

impl Stage for Growth {
    fn name(&self) -> &'static str {
        "growth past the declared capacity"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let cap = scenario_capacity(run);
        eprintln!("   to 4x a capacity of {cap}");
        let records = matrix::growth(&run.ctx, cap, 0.01)?;
        run.results.records.extend(records);
        Ok(())
    }
}

/// The second article's design load and its explicit bit count.
pub const ARTICLE_USERS: usize = 1_000_000;
/// m of the second article's filter.
pub const ARTICLE_BITS: u64 = 9_585_059;

/// The second article's filter, m = 9,585,059 bits and k = 7 for 1M users, at and past its
/// design load. A run with fewer than 4M keys scales m with the design load (the claims table
/// says so).
pub struct Users;

impl Stage for Users {
    fn name(&self) -> &'static str {
        "the second article's filter"
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let design = ARTICLE_USERS.min(run.ctx.members.len() / 4);
        let m = (ARTICLE_BITS as f64 * design as f64 / ARTICLE_USERS as f64).round() as u64;
        eprintln!("   m = {m}, k = 7, {design} users and past");
        let records = matrix::users(&run.ctx, design, m, 7)?;
        run.results.records.extend(records);
        Ok(())
    }
}

/// Rounds of the churn scenario.
const CHURN_ROUNDS: usize = 10;

fn churn_capacity(run: &Run<'_>) -> usize {
    scenario_capacity(run).min(run.ctx.members.len() / 2)
}

/// Deleting the oldest tenth and inserting a fresh tenth, ten times.
pub struct Churn;

impl Stage for Churn {
    fn name(&self) -> &'static str {
        "deletion churn"
    }

    fn members_needed(&self, run: &Run<'_>) -> usize {
        matrix::churn_members_needed(churn_capacity(run), CHURN_ROUNDS)
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let cap = churn_capacity(run);
        eprintln!("   at capacity {cap}");
        let records = matrix::churn(&run.ctx, cap, 0.01, CHURN_ROUNDS)?;
        run.results.records.extend(records);
        Ok(())
    }
}

/// Stops the run if any record or contender saw a false negative.
pub struct NoFalseNegatives;

impl Stage for NoFalseNegatives {
    fn name(&self) -> &'static str {
        "false negatives"
    }

    fn wanted(&self, _: &Plan) -> bool {
        true
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        let problems = crate::check::false_negatives(&run.results);
        if !problems.is_empty() {
            bail!("a filter is broken: {}", problems.join("; "));
        }
        Ok(())
    }
}

/// results.json, the tables and the charts; the root README's block for the committed run.
pub struct WriteReports;

impl Stage for WriteReports {
    fn name(&self) -> &'static str {
        "reports"
    }

    fn wanted(&self, _: &Plan) -> bool {
        true
    }

    fn writes_the_results(&self) -> bool {
        true
    }

    fn run(&self, run: &mut Run<'_>) -> Result<()> {
        run.results.machine.wall_seconds = run.started.elapsed().as_secs_f64();
        run.results.peak_rss = crate::measure::peak_rss();
        let out = &run.plan.out;
        let git = crate::record::provenance::Git(Path::new("."));
        let repo = run
            .plan
            .is_committed_run()
            .then_some(&git as &dyn crate::record::provenance::Repo);
        // With the repository (the committed reports/), the root README's block is rewritten too.
        render::write(out, &run.results, repo)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
