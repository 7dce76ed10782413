//! The formula course: for each formula a derivation, its source, a worked example at 10M keys
//! and 1%, the measured value beside it and a plot; then the errata, each mistake shown by a
//! run. Written to `<out>/course/course.md` with its plots by the harness's `course` stage.
//!
//! Every number and verdict in the course is computed by this run: formulas from
//! `filter_core::math` (through the variants' `expected_fpr`), measurements from filters built
//! here in independent repetitions (a fresh seed each), verdicts by [`stats`] with Holm's
//! correction per table. The last section measures what a 64-bit hash costs the split-block
//! filter at 10^9 and 10^10 keys on a slice of each filter's blocks ([`hash64`]; judged by
//! `judge::course`). The run is recorded in `course.json` ([`model::CourseDoc`]);
//! `course.md` is rendered from it alone, and [`crate::check::course::check`] re-renders and re-judges it.

mod aleph;
mod bloom;
mod errata;
mod expand;
pub mod figures;
pub mod hash64;
mod hashing;
pub mod model;
pub mod probe;
mod quotient;
mod space;
pub mod stats;
mod tables;
mod topics;
mod vqf;
mod window;

use crate::dataset::KeySet;
use anyhow::{ensure, Result};
use filterlab::Hash128;
use filterlab_charts::LineChart;
use model::{CourseDoc, Settings};
use std::time::Instant;

/// The variants the course measures (the matrix's rows of the registry: every one but the
/// windowed), each named in every course figure by its registry name (so one colour each).
#[must_use]
pub fn variants() -> Vec<(crate::filters::Variant, &'static str)> {
    crate::filters::in_matrix()
        .into_iter()
        .map(|v| (v, v.name()))
        .collect()
}

/// How large the course's runs are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scale {
    /// Keys per filter in most runs.
    pub n: usize,
    /// Non-member probes per measurement.
    pub probes: usize,
    /// Independent small filters per point of the small-m section.
    pub small_filters: usize,
    /// Probes per small filter. One keeps the trials independent: the probes of one small
    /// filter share its fill, so more would make the Wilson interval too narrow.
    pub small_probes: usize,
    /// Hash width of the scaled-down 32-bit-hash erratum.
    pub hash_bits: u32,
    /// Independent repetitions per measurement (a fresh seed each; the probes are split
    /// between them).
    pub reps: usize,
    /// The 64-bit-hash study's sizes, slice and probes; `None` leaves it out (it is a study of
    /// its own, [`Hashing`]; the course links its page).
    pub hash64: Option<hash64::Hash64Scale>,
}

impl Scale {
    /// The full run: minutes on two cores.
    pub const FULL: Scale = Scale {
        n: 1_000_000,
        probes: 2_000_000,
        small_filters: 500_000,
        small_probes: 1,
        hash_bits: 22,
        reps: 8,
        hash64: None,
    };
    /// `--quick`: seconds.
    pub const QUICK: Scale = Scale {
        n: 20_000,
        probes: 100_000,
        small_filters: 20_000,
        small_probes: 1,
        hash_bits: 17,
        reps: 5,
        hash64: None,
    };

    /// Member keys the course needs (the 1B stand-in of the 32-bit-hash erratum needs most).
    pub fn members_needed(&self) -> usize {
        // The stand-in keeps 1B's ratio of keys to hash values: n = 2^b · 10^9 / 2^32.
        let n_1b = (2f64.powi(self.hash_bits as i32) * 1e9 / 2f64.powi(32)).ceil() as usize;
        self.n.max(n_1b)
    }
}

/// Keys and probes shared by every section.
pub struct Lab<'a> {
    /// The run's size.
    pub scale: Scale,
    /// Keys per filter.
    pub n: usize,
    /// Independent repetitions per measurement.
    pub reps: usize,
    /// Member hashes (default hasher).
    pub members: Vec<Hash128>,
    /// Probe hashes (never inserted).
    pub probes: Vec<Hash128>,
    /// Member keys, for runs with their own hashing.
    pub member_keys: &'a KeySet,
    /// Probe keys.
    pub probe_keys: &'a KeySet,
}

/// A chart and the file stem it is written to.
pub struct Plot {
    pub(crate) stem: String,
    pub(crate) chart: LineChart,
}

/// What the course stage measured: the document (judged by `judge::course::judge_course`
/// before it is written) and its plots; `render::course` writes them.
pub struct CourseReport {
    /// The sections, errata and settings, as written to `course.json`.
    pub doc: CourseDoc,
    /// The charts, to be written beside it.
    pub plots: Vec<Plot>,
}

impl<'a> Lab<'a> {
    /// The lab of `scale` on `member_keys` and `probe_keys`, hashed once with the default hasher.
    pub fn new(scale: Scale, member_keys: &'a KeySet, probe_keys: &'a KeySet) -> Self {
        Lab {
            scale,
            n: scale.n,
            reps: scale.reps,
            members: probe::hash_all(member_keys.iter()),
            probes: probe::hash_all(probe_keys.iter()),
            member_keys,
            probe_keys,
        }
    }
}

impl Plot {
    /// `chart`, to be written as `<stem>.svg` and `.png`.
    pub fn new(stem: &str, chart: LineChart) -> Self {
        Plot {
            stem: stem.into(),
            chart,
        }
    }
}

/// A classic filter of `m` bits and `k` hashes holding the lab's `n` keys, in repetitions named
/// `name`: `(formula, counts)`.
///
/// # Errors
/// Parameters the builder refuses.
pub fn classic_run(lab: &Lab<'_>, name: &str, m: u64, k: u32) -> Result<(f64, Vec<stats::Count>)> {
    let n = lab.n as u64;
    let formula = filterlab::math::classic_fpr_best(m, n, k);
    let ((), counts) = lab.repeat(name, |d| {
        let mut f = filterlab::ClassicBloom::builder()
            .capacity(n)
            .fpr(0.01)
            .bits(m)
            .hashes(k)
            .build()?;
        probe::fill(&mut f, &d.members)?;
        Ok(((), probe::fp(&f, d)))
    })?;
    Ok((formula, counts))
}

/// The harness stage that writes the course to `<out>/course/`, at [`Scale::QUICK`] under
/// `--quick`. Skipped for a team's own key files.
pub struct Course;

impl crate::plan::Stage for Course {
    fn name(&self) -> &'static str {
        "the formula course"
    }

    fn wanted(&self, plan: &crate::plan::Plan) -> bool {
        plan.keys.is_none()
    }

    fn run(&self, run: &mut crate::plan::Run<'_>) -> Result<()> {
        let scale = if run.plan.quick {
            Scale::QUICK
        } else {
            Scale::FULL
        };
        let dir = run.plan.out.join("course");
        eprintln!(
            "   n = {} keys per filter, {} probes per measurement, into {}",
            scale.n,
            scale.probes,
            dir.display()
        );
        let m = &run.results.machine;
        let report = self::run(run.ctx.members, run.ctx.probes, scale, (&m.commit, &m.date))?;
        run.outputs.push(Box::new(report));
        Ok(())
    }
}

/// The 64-bit-hash study (`bench-harness study hashing`): what xxh3-64 costs the split-block
/// filter at 10^9 and 10^10 keys, on a slice of each filter's blocks; `hashing.md`.
pub struct Hashing;

impl crate::plan::Stage for Hashing {
    fn name(&self) -> &'static str {
        "the 64-bit hash at 10^9 and 10^10 keys"
    }

    fn wanted(&self, plan: &crate::plan::Plan) -> bool {
        plan.keys.is_none()
    }

    fn run(&self, run: &mut crate::plan::Run<'_>) -> Result<()> {
        let scale = if run.plan.quick {
            hash64::Hash64Scale::QUICK
        } else {
            hash64::Hash64Scale::FULL
        };
        eprintln!(
            "   {:?} keys, a 1/{} slice, {} probes in each",
            scale.sizes, scale.slice, scale.probes
        );
        let study = hash64::run(scale)?;
        run.outputs.push(Box::new(hash64::HashingReport {
            machine: run.results.machine.clone(),
            study,
        }));
        Ok(())
    }
}

/// Keys `0..count` of `keys` as a new set.
fn prefix(keys: &KeySet, count: usize) -> KeySet {
    let mut out = KeySet::new();
    keys.iter().take(count).for_each(|k| out.push(k));
    out
}

/// Every section and erratum of the course, run on `lab`, with the plots they draw.
///
/// # Errors
/// A filter that cannot be built.
fn run_all(lab: &Lab<'_>) -> Result<(Vec<model::Section>, Vec<model::Erratum>, Vec<Plot>)> {
    type Step = fn(&Lab<'_>) -> Result<(model::Section, Vec<Plot>)>;
    let steps: [Step; 24] = [
        bloom::fp_vs_bits,
        bloom::fp_vs_k,
        bloom::exact_small_m,
        bloom::split_block,
        tables::cuckoo,
        tables::scalable,
        tables::counting,
        hashing::one_hash,
        topics::fill_ratio,
        topics::union_intersection,
        space::cuckoo_failure,
        space::semi_sorting,
        space::crossover,
        topics::deleting_non_members,
        space::scalable_memory,
        space::static_filters,
        topics::repeated_queries,
        hashing::adversarial,
        topics::wilson,
        window::sliding_windows,
        quotient::quotient,
        expand::expandable,
        aleph::aleph,
        vqf::vqf,
    ];
    let (mut sections, mut plots) = (Vec::new(), Vec::new());
    for step in steps {
        let (s, p) = step(lab)?;
        sections.push(s);
        plots.extend(p);
    }
    let errata = [
        errata::truncated_k,
        errata::size_for_a_tenth,
        hashing::hash32,
        errata::scalable_p0,
        errata::power_of_two_cuckoo,
        hashing::equal_seeds,
    ]
    .iter()
    .map(|e| e(lab))
    .collect::<Result<Vec<_>>>()?;
    Ok((sections, errata, plots))
}

/// Runs the course on `members` and `probes` (disjoint): the document, not yet judged, and
/// its plots; `commit` and `date` are recorded as the run's provenance.
///
/// # Errors
/// Too few keys for the scale, a filter that cannot be built.
pub fn run(
    members: &KeySet,
    probes: &KeySet,
    scale: Scale,
    (commit, date): (&str, &str),
) -> Result<CourseReport> {
    let started = Instant::now();
    let need = scale.members_needed();
    let scale = Scale {
        n: scale.n.min(members.len()),
        probes: scale.probes.min(probes.len()),
        ..scale
    };
    ensure!(
        scale.n >= 1000 && scale.reps >= 2 && scale.probes >= 100 * scale.reps,
        "the course needs at least 1000 keys, 2 repetitions and 100 probes per repetition"
    );
    let member_keys = prefix(members, need.min(members.len()));
    let probe_keys = prefix(probes, scale.probes);
    let lab = Lab::new(scale, &member_keys, &probe_keys);
    let (sections, errata, plots) = run_all(&lab)?;
    let hash64 = scale.hash64.map(hash64::run).transpose()?;
    let doc = CourseDoc {
        settings: Settings {
            n: lab.n,
            probes: lab.probes.len(),
            reps: lab.reps,
            small_filters: scale.small_filters,
            hash_bits: scale.hash_bits,
            alpha: stats::ALPHA,
            commit: commit.into(),
            date: date.into(),
            seconds: started.elapsed().as_secs_f64().round(),
        },
        sections,
        errata,
        hash64,
    };
    Ok(CourseReport { doc, plots })
}

#[cfg(test)]
mod tests;
