//! `bench-harness check`: what a sceptical reviewer would verify in a results.json before
//! believing it. Every rule returns the problems it found; an empty list is a pass.
//!
//! The rules, each with a fixture in the tests that it must reject:
//! - record counts: every scenario present, every variant in each, with the counts the
//!   pipeline produces (one matrix row per variant and target, two parallel rows per variant,
//!   every variant at every sweep size, at least four growth checkpoints, churn rounds);
//! - timings: every lookup mix and every build present, finite, `min ≤ median ≤ max`, with at
//!   least [`Floors::rounds`] interleaved rounds;
//! - probes: every FP figure rests on at least [`Floors::probes`] non-member probes;
//! - theory: the false-positive count lies within 4 binomial sigmas of the theory's expected
//!   count wherever that count is at least [`MIN_EXPECTED`] (matrix, size sweep, churn, and
//!   growth up to the declared capacity), and at most the expected share of the independent
//!   rows (5%, plus a 3-sigma allowance) have theory outside their 95% Wilson interval;
//! - false negatives: zero for every record and every contender, peers and Python included;
//! - peers: every peer of [`PeerKind::ALL`] and every variant measured beside them (the
//!   matrix's rows, [`crate::filters::in_matrix`]) is in the comparison with sound timings;
//! - dataset: the members' and non-members' SHA-256 equal datasets/manifest.json's when the
//!   run used the manifest's spec;
//! - tables: the README next to results.json is byte-identical to the one re-rendered from it
//!   (and the root README's block, when given);
//! - provenance (with the root README, i.e. for the committed reports/): the run recorded a
//!   clean commit;
//! - floor ([`floor`]): a run with a comparison has the limit measured, every figure of it sound,
//!   its multiples and its target rows what the comparison's rows and its own figures give;
//! - every other report file ([`reports`]): threads.md and systems.md re-rendered from their
//!   JSON byte for byte, their verdicts recomputed, their commit the run's; and no Markdown file
//!   under the reports directory that no JSON renders.

use crate::dataset::Manifest;
use crate::filters::Variant;
use crate::measure::{Mix, Spread};
use crate::record::{Record, Results, Scenario, Side};
use crate::render;
use filterlab_peers::PeerKind;

/// Rows whose expected false-positive count is below this are not tested against theory: a
/// count of a few has too little power to say anything.
pub const MIN_EXPECTED: f64 = 20.0;
/// Sigmas a row's count may stray from theory before the run is rejected.
pub const SIGMAS: f64 = 4.0;

/// The minimums a run must meet.
#[derive(Clone, Copy, Debug)]
pub struct Floors {
    /// Non-member probes behind every FP figure.
    pub probes: u64,
    /// Interleaved rounds behind every timing.
    pub rounds: usize,
    /// Interleaved rounds behind every build timing.
    pub build_rounds: usize,
}

impl Default for Floors {
    fn default() -> Self {
        Self {
            probes: 100_000,
            rounds: 3,
            build_rounds: 3,
        }
    }
}

/// What to compare the results with besides themselves.
#[derive(Debug, Default)]
pub struct Against<'a> {
    /// datasets/manifest.json.
    pub manifest: Option<&'a Manifest>,
    /// The README.md next to results.json.
    pub readme: Option<&'a str>,
    /// The repository's root README.md (only for the committed reports/).
    pub root_readme: Option<&'a str>,
    /// The studies next to results.json, as README.md's index lists them.
    pub stamps: &'a [crate::record::study::Stamp],
}

/// Every problem found in `results`; empty when it passes.
#[must_use]
pub fn check(results: &Results, floors: Floors, against: &Against<'_>) -> Vec<String> {
    let mut p = Vec::new();
    p.extend(counts(&results.records));
    let timed_rate = results.peers.first().map(|r| r.target_fpr);
    p.extend(timings(&results.records, floors, timed_rate));
    p.extend(probes(&results.records, floors));
    p.extend(theory(&results.records));
    p.extend(false_negatives(results));
    if results
        .records
        .iter()
        .any(|r| r.scenario == Scenario::Matrix)
    {
        p.extend(peers(results, floors));
    }
    p.extend(ratios(results));
    p.extend(floor::floor(results, floors));
    p.extend(dataset(results, against.manifest));
    p.extend(tables(results, against));
    if against.root_readme.is_some() {
        p.extend(provenance(results));
    }
    p
}

/// The committed reports come from a committed, clean tree: the recorded commit is a hex id
/// without `-dirty`.
pub fn provenance(results: &Results) -> Vec<String> {
    let c = &results.machine.commit;
    if c.len() >= 7 && c.chars().all(|ch| ch.is_ascii_hexdigit()) {
        Vec::new()
    } else {
        vec![format!(
            "the run recorded commit {c:?}: committed reports must come from a clean checkout of a commit"
        )]
    }
}

/// The committed reports come from the measuring code at HEAD: the recorded commit is an
/// ancestor of HEAD and no code that measures changed since ([`provenance::main_report`]; what
/// counts as code and which code only renders: [`provenance::role`]).
pub fn commit_is_current(results: &Results, repo: &dyn provenance::Repo) -> Vec<String> {
    if !provenance(results).is_empty() {
        return Vec::new(); // reported by `provenance`
    }
    provenance::main_report(&results.machine.commit, repo)
}

/// Each target's ratio, interval, verdict and conditions recomputed from its values, rounds,
/// typed bound and recorded conditions.
pub fn ratios(results: &Results) -> Vec<String> {
    results
        .ratios
        .iter()
        .flat_map(|r| ratio_problems(r, "target"))
        .collect()
}

/// A study's goals recomputed from its figures (`again`) against the ones its JSON stores,
/// and each stored goal's own problems ([`ratio_problems`]); messages name the study's file
/// (`name`.json).
#[must_use]
pub fn goal_problems(
    name: &str,
    again: &[crate::record::Ratio],
    stored: &[crate::record::Ratio],
) -> Vec<String> {
    let same =
        |a: &crate::record::Ratio, b: &crate::record::Ratio| format!("{a:?}") == format!("{b:?}");
    let mut p: Vec<String> =
        crate::record::differ(name, ("goals", "the figures"), (again, stored), same, |g| {
            (g.what.clone(), format!("{:?}", g.verdict))
        })
        .into_iter()
        .collect();
    let label = format!("{name}.json: goal");
    p.extend(stored.iter().flat_map(|g| ratio_problems(g, &label)));
    p
}

/// One ratio's problems (see [`ratios`]), each message opening with `label`.
#[must_use]
pub fn ratio_problems(r: &crate::record::Ratio, label: &str) -> Vec<String> {
    let mut p = Vec::new();
    let again = r.recomputed();
    if r.measured() && !same(again.ratio, r.ratio) {
        p.push(format!(
            "{label} {}: stored ratio {} but {} / {} = {}",
            r.what, r.ratio, r.numerator_value, r.denominator_value, again.ratio
        ));
    }
    if again.interval != r.interval {
        p.push(format!(
            "{label} {}: stored interval {:?} but its rounds give {:?}",
            r.what, r.interval, again.interval
        ));
    }
    if again.verdict != r.verdict {
        p.push(format!(
            "{label} {}: stored verdict {:?} but {:?} against {} says {:?}",
            r.what,
            r.verdict,
            again.interval,
            r.bound.text(),
            again.verdict
        ));
    }
    // Listed as a difference above, and refused here: a per-key figure taken on a sample says
    // nothing about a figure taken at another size, whatever the verdict.
    let sizes = crate::record::conditions::keys_differ(
        &r.numerator_conditions,
        &r.denominator_conditions,
        r.terms,
    );
    if let Some((a, b)) = sizes {
        p.push(format!(
            "{label} {}: compares a figure taken at {a} keys with one taken at {b}: a contender \
             measured on a sample is compared only with figures taken at the sample's size",
            r.what
        ));
    }
    if (again.same_conditions, &again.differences) != (r.same_conditions, &r.differences) {
        p.push(format!(
            "{label} {}: stored conditions {:?} ({:?}) but the recorded conditions give {:?} ({:?})",
            r.what, r.same_conditions, r.differences, again.same_conditions, again.differences
        ));
    }
    p
}

/// Why the dataset's hashes were not compared with the manifest, if they were not.
#[must_use]
pub fn dataset_skipped(results: &Results, manifest: Option<&Manifest>) -> Option<String> {
    let d = &results.dataset;
    match manifest {
        None => Some("no manifest to compare with".into()),
        Some(m) if !manifest_covers(results, m) => Some(format!(
            "the run's dataset ({}, {} members, {} non-members) is not the manifest's ({} members, {} non-members)",
            d.source, d.members, d.non_members, m.members.keys, m.non_members.keys
        )),
        Some(_) => None,
    }
}

fn of(records: &[Record], scenario: Scenario) -> impl Iterator<Item = &Record> + '_ {
    records.iter().filter(move |r| r.scenario == scenario)
}

/// Record counts per scenario and variant.
pub fn counts(records: &[Record]) -> Vec<String> {
    let mut p = Vec::new();
    let matrix = of(records, Scenario::Matrix).count();
    if matrix == 0 {
        return vec!["no matrix records".into()];
    }
    let count = |s: Scenario, v: &str| of(records, s).filter(|r| r.variant == v).count();
    if matrix > 0 {
        let mut targets: Vec<f64> = of(records, Scenario::Matrix)
            .map(|r| r.target_fpr)
            .collect();
        targets.sort_by(f64::total_cmp);
        targets.dedup();
        let n = of(records, Scenario::Matrix).next().map_or(0, |r| r.n);
        for kind in crate::filters::contenders() {
            let v = kind.name();
            // One row per target the registry can size the variant for.
            let sized = targets
                .iter()
                .filter(|&&t| crate::filters::buildable(kind, n, t))
                .count();
            if count(Scenario::Matrix, v) != sized {
                p.push(format!(
                    "matrix: {} rows for {v}, expected one per target it can be built for ({sized})",
                    count(Scenario::Matrix, v),
                ));
            }
            if count(Scenario::Parallel, v) != 2 {
                p.push(format!(
                    "parallel: {} rows for {v}, expected 2 (one thread, every core)",
                    count(Scenario::Parallel, v)
                ));
            }
        }
        for kind in crate::filters::measured() {
            let v = kind.name();
            if count(Scenario::Growth, v) < 4 {
                p.push(format!(
                    "growth: {} checkpoints for {v}, expected at least 4",
                    count(Scenario::Growth, v)
                ));
            }
        }
        if count(Scenario::Users, Variant::Classic.name()) < 2 {
            p.push(
                "users: the second article's filter needs its design-load row and one past it"
                    .into(),
            );
        }
        for kind in crate::filters::churned() {
            if count(Scenario::Churn, kind.name()) < 2 {
                p.push(format!(
                    "churn: {} rounds for {}, expected at least 2",
                    count(Scenario::Churn, kind.name()),
                    kind.name()
                ));
            }
        }
    }
    if of(records, Scenario::SizeSweep).next().is_some() {
        p.push("size_sweep rows belong to the sweep study (sweep.json), not here".into());
    }
    p
}

/// The size sweep study's rows: every variant at every size.
pub fn sweep_counts(records: &[Record]) -> Vec<String> {
    let mut p = Vec::new();
    let count = |s: Scenario, v: &str| of(records, s).filter(|r| r.variant == v).count();
    // Sizes by the keys each filter holds: a filter may round its capacity up (an expandable
    // filter's first stage holds whole buckets). A filter that skips keys it already reports
    // present holds fewer than it was given (its false positives at insert), so the sizes are
    // read from the others.
    let skips = |r: &&Record| {
        crate::filters::Contender::from_name(&r.variant)
            .is_some_and(|c| c.capabilities().skips_present)
    };
    let mut sizes: Vec<u64> = of(records, Scenario::SizeSweep)
        .filter(|r| !skips(r))
        .map(|r| r.n)
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    if sizes.is_empty() {
        p.push("size_sweep: no records".into());
    }
    for kind in crate::filters::measured() {
        if count(Scenario::SizeSweep, kind.name()) != sizes.len() {
            p.push(format!(
                "size_sweep: {} sizes for {}, expected {}",
                count(Scenario::SizeSweep, kind.name()),
                kind.name(),
                sizes.len()
            ));
        }
    }
    p
}

fn spread_problem(what: &str, s: Option<&Spread>, rounds: usize) -> Option<String> {
    match s {
        None => Some(format!("{what}: missing")),
        Some(s) if !s.is_sound() => Some(format!("{what}: not a sound timing {s:?}")),
        Some(s) if s.rounds < rounds => {
            Some(format!("{what}: {} rounds, fewer than {rounds}", s.rounds))
        }
        Some(_) => None,
    }
}

/// Every mix and every build timed, finite, ordered, with enough rounds; builds at
/// `timed_rate` (the peers' rate, where the build loop ran) in interleaved rounds, the others
/// once (`None`: every rate in rounds).
pub fn timings(records: &[Record], floors: Floors, timed_rate: Option<f64>) -> Vec<String> {
    let mut p = Vec::new();
    for r in records {
        let id = format!("{} {} n={} p={}", r.scenario, r.variant, r.n, r.target_fpr);
        let mixes: &[Mix] = match r.scenario {
            Scenario::Matrix => &Mix::ALL,
            Scenario::SizeSweep => &Mix::SWEEP,
            Scenario::Parallel => &[Mix::Half],
            _ => &[],
        };
        for m in mixes {
            let k = m.key();
            p.extend(spread_problem(
                &format!("{id}: ns_per_lookup[{k}%]"),
                r.ns_per_lookup.get(k),
                floors.rounds,
            ));
            if r.scenario != Scenario::Parallel {
                p.extend(spread_problem(
                    &format!("{id}: ns_per_lookup_batched[{k}%]"),
                    r.ns_per_lookup_batched.get(k),
                    floors.rounds,
                ));
            }
        }
        if r.scenario == Scenario::Matrix {
            p.extend(build_problems(r, &id, floors, timed_rate));
        }
    }
    p
}

/// A matrix row's build timings. At the timed rate (the peers'), every build in interleaved
/// rounds: one key at a time, and through `insert_batch` unless the variant is static. At the
/// other rates each filter was built once (see `stages::builds`): through `insert_batch`, or
/// from its key set for a static one.
fn build_problems(r: &Record, id: &str, floors: Floors, timed_rate: Option<f64>) -> Vec<String> {
    let is_static = crate::filters::Contender::from_name(&r.variant)
        .is_some_and(|v| v.capabilities().static_set);
    if timed_rate.is_none_or(|t| t == r.target_fpr) {
        let one = format!("{id}: ns_per_insert");
        return spread_problem(&one, r.ns_per_insert.as_ref(), floors.build_rounds)
            .into_iter()
            .chain(batched_insert_problem(r, id, floors.build_rounds))
            .collect();
    }
    let (timed, absent, name) = if is_static {
        (&r.ns_per_insert, &r.ns_per_insert_batched, "ns_per_insert")
    } else {
        (
            &r.ns_per_insert_batched,
            &r.ns_per_insert,
            "ns_per_insert_batched",
        )
    };
    let mut p: Vec<String> = spread_problem(&format!("{id}: {name}"), timed.as_ref(), 1)
        .into_iter()
        .collect();
    if absent.is_some() {
        p.push(format!(
            "{id}: a build of the untimed rates is timed once, as {name}; another figure is there"
        ));
    }
    p
}

/// A matrix row's batched-insert timing: present for a variant filled by inserts, absent for a
/// static one (built once from its key set, it takes no inserts).
fn batched_insert_problem(r: &Record, id: &str, rounds: usize) -> Option<String> {
    let what = format!("{id}: ns_per_insert_batched");
    let Some(variant) = crate::filters::Contender::from_name(&r.variant) else {
        return Some(format!(
            "{id}: no contender of the matrix is called {:?}",
            r.variant
        ));
    };
    if variant.capabilities().static_set {
        return r
            .ns_per_insert_batched
            .as_ref()
            .map(|_| format!("{what}: a static filter takes no inserts, yet one is timed"));
    }
    spread_problem(&what, r.ns_per_insert_batched.as_ref(), rounds)
}

/// A floor on the probes behind every FP figure.
pub fn probes(records: &[Record], floors: Floors) -> Vec<String> {
    records
        .iter()
        .filter(|r| r.scenario != Scenario::Parallel && r.probes < floors.probes)
        .map(|r| {
            format!(
                "{} {} n={}: {} probes, fewer than {}",
                r.scenario, r.variant, r.n, r.probes, floors.probes
            )
        })
        .collect()
}

/// Zero false negatives everywhere, peers and Python included.
pub fn false_negatives(results: &Results) -> Vec<String> {
    let records = results
        .records
        .iter()
        .filter(|r| r.false_negatives > 0)
        .map(|r| {
            format!(
                "{} {} n={}: {} false negatives",
                r.scenario, r.variant, r.n, r.false_negatives
            )
        });
    let peers = results
        .peers
        .iter()
        .filter(|r| r.false_negatives > 0)
        .map(|r| format!("peer {}: {} false negatives", r.name, r.false_negatives));
    records.chain(peers).collect()
}

/// Every peer present, with sound timings and enough probes.
pub fn peers(results: &Results, floors: Floors) -> Vec<String> {
    let mut p = Vec::new();
    let names = crate::filters::contenders()
        .into_iter()
        .map(|k| k.name())
        .chain(PeerKind::ALL.iter().map(|k| k.name()));
    for name in names {
        let Some(r) = results.peers.iter().find(|r| r.name == name) else {
            p.push(format!("peers: {name} is missing from the comparison"));
            continue;
        };
        for (what, s) in [
            ("ns_negative", &r.ns_negative),
            ("ns_positive", &r.ns_positive),
        ] {
            p.extend(spread_problem(
                &format!("peer {name}: {what}"),
                Some(s),
                floors.rounds,
            ));
        }
        // A crate's slower configuration is built once beside its fastest (stages::builds).
        let once = crate::stages::builds::BUILT_ONCE
            .iter()
            .any(|k| k.name() == name);
        p.extend(spread_problem(
            &format!("peer {name}: build_seconds"),
            Some(&r.build_seconds),
            if once { 1 } else { floors.build_rounds },
        ));
        if r.probes < floors.probes {
            p.push(format!(
                "peer {name}: {} probes, fewer than {}",
                r.probes, floors.probes
            ));
        }
    }
    // The articles' Python code, when it ran, rests on its own rounds too, as does our classic
    // filter measured beside it on its sample.
    let twin = |r: &&crate::record::PeerRecord| r.name == crate::stages::peers::ARTICLE_TWIN;
    for r in results
        .peers
        .iter()
        .filter(|r| r.side == Side::Python || twin(r))
    {
        for (what, s) in [
            ("ns_negative", &r.ns_negative),
            ("ns_positive", &r.ns_positive),
            ("build_seconds", &r.build_seconds),
        ] {
            p.extend(spread_problem(
                &format!("{}: {what}", r.name),
                Some(s),
                crate::stages::peers::PYTHON_ROUNDS,
            ));
        }
    }
    p
}

/// Whether the run used the dataset `manifest` describes (same source and key counts).
#[must_use]
pub fn manifest_covers(results: &Results, manifest: &Manifest) -> bool {
    let d = &results.dataset;
    d.members as u64 == manifest.members.keys
        && d.non_members as u64 == manifest.non_members.keys
        && d.source == "synthetic e-mails"
}

/// The dataset's hashes against the manifest, when the run used the manifest's spec.
pub fn dataset(results: &Results, manifest: Option<&Manifest>) -> Vec<String> {
    let Some(m) = manifest.filter(|m| manifest_covers(results, m)) else {
        return Vec::new();
    };
    let d = &results.dataset;
    let mut p = Vec::new();
    if d.members_sha256 != m.members.sha256 {
        p.push(format!(
            "dataset: members hash {} differs from the manifest's {}",
            d.members_sha256, m.members.sha256
        ));
    }
    if d.non_members_sha256 != m.non_members.sha256 {
        p.push(format!(
            "dataset: non-members hash {} differs from the manifest's {}",
            d.non_members_sha256, m.non_members.sha256
        ));
    }
    p
}

/// The committed tables against the ones re-rendered from `results`.
pub fn tables(results: &Results, against: &Against<'_>) -> Vec<String> {
    let mut p = Vec::new();
    if let Some(readme) = against.readme {
        let rendered = render::render_readme(results, against.stamps);
        if rendered != readme {
            let line = rendered
                .lines()
                .zip(readme.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| rendered.lines().count().min(readme.lines().count()))
                + 1;
            p.push(format!(
                "README.md differs from the one rendered from results.json, first at line {line}"
            ));
        }
    }
    if let Some(root) = against.root_readme {
        match render::committed_block(root) {
            Some(block) if block == render::readme_block(results, against.stamps) => {}
            Some(_) => p.push(
                "the root README's results block differs from the one rendered from results.json"
                    .into(),
            ),
            None => p.push("the root README has no results block".into()),
        }
    }
    p
}

pub mod command;
pub mod course;
pub mod floor;
pub mod interop;
pub mod mapped;
pub use crate::record::provenance;
pub mod reports;
mod theory;

use theory::same;
pub use theory::theory;

#[cfg(test)]
mod tests;
