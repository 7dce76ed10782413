//! The formula course: for each formula a derivation, its source, a worked example at 10M keys
//! and 1%, the measured value beside it and a plot; then the errata, each mistake shown by a
//! run. Written to `<out>/course/course.md` with its plots by the harness's `course` stage.
//!
//! Every number and verdict in the course is computed by this run: formulas from
//! `filter_core::math` (through the variants' `expected_fpr`), measurements from filters built
//! here, 95% Wilson intervals from `math::wilson_interval`, seeds fixed.

mod bloom;
mod errata;
mod markdown;
pub mod probe;
mod tables;

use crate::dataset::KeySet;
use crate::plot::{render_line, LineChart};
use anyhow::{ensure, Context, Result};
use filterlab::Hash128;
use std::path::Path;
use std::time::Instant;

/// The variants, and the name each has in every course figure (so one colour each).
pub const VARIANTS: [(crate::filters::Kind, &str); 5] = [
    (crate::filters::Kind::Classic, "classic"),
    (crate::filters::Kind::Counting, "counting"),
    (crate::filters::Kind::Scalable, "scalable"),
    (crate::filters::Kind::Cuckoo, "cuckoo"),
    (crate::filters::Kind::Blocked, "split block"),
];

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
}

impl Scale {
    /// The full run: minutes on two cores.
    pub const FULL: Scale = Scale {
        n: 1_000_000,
        probes: 2_000_000,
        small_filters: 500_000,
        small_probes: 1,
        hash_bits: 22,
    };
    /// `--quick`: seconds.
    pub const QUICK: Scale = Scale {
        n: 20_000,
        probes: 100_000,
        small_filters: 20_000,
        small_probes: 1,
        hash_bits: 17,
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
    stem: String,
    chart: LineChart,
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

/// A classic filter of `m` bits and `k` hashes holding the lab's `n` keys: `(formula, measured)`.
///
/// # Errors
/// Parameters the builder refuses.
pub fn classic_run(lab: &Lab<'_>, m: u64, k: u32) -> Result<(f64, probe::Measured)> {
    let n = lab.n as u64;
    let mut f = filterlab::ClassicBloom::builder()
        .capacity(n)
        .fpr(0.01)
        .bits(m)
        .hashes(k)
        .build()?;
    probe::fill(&mut f, &lab.members[..lab.n])?;
    Ok((
        filterlab::math::classic_fpr_best(m, n, k),
        probe::fp(&f, &lab.probes),
    ))
}

/// The harness stage that writes the course to `<out>/course/`, at [`Scale::QUICK`] under
/// `--quick`. Skipped for `--sweep-only` and for a team's own key files.
pub struct Course;

impl crate::plan::Stage for Course {
    fn name(&self) -> &'static str {
        "the formula course"
    }

    fn wanted(&self, plan: &crate::plan::Plan) -> bool {
        !plan.sweep_only && plan.keys.is_none()
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
        write(&dir, run.ctx.members, run.ctx.probes, scale)
    }
}

/// Keys `0..count` of `keys` as a new set.
fn prefix(keys: &KeySet, count: usize) -> KeySet {
    let mut out = KeySet::new();
    keys.iter().take(count).for_each(|k| out.push(k));
    out
}

/// Runs the course on `members` and `probes` (disjoint) and writes it to `dir`.
///
/// # Errors
/// Too few keys for the scale, a filter that cannot be built, a file that cannot be written.
pub fn write(dir: &Path, members: &KeySet, probes: &KeySet, scale: Scale) -> Result<()> {
    let started = Instant::now();
    let need = scale.members_needed();
    let scale = Scale {
        n: scale.n.min(members.len()),
        probes: scale.probes.min(probes.len()),
        ..scale
    };
    ensure!(
        scale.n >= 1000 && probes.len() >= scale.small_probes,
        "the course needs at least 1000 keys and probes"
    );
    let member_keys = prefix(members, need.min(members.len()));
    let probe_keys = prefix(probes, scale.probes);
    let lab = Lab {
        scale,
        n: scale.n,
        members: probe::hash_all(member_keys.iter()),
        probes: probe::hash_all(probe_keys.iter()),
        member_keys: &member_keys,
        probe_keys: &probe_keys,
    };
    let mut sections = Vec::new();
    let mut plots = Vec::new();
    for step in [
        bloom::fp_vs_bits,
        bloom::fp_vs_k,
        bloom::exact_small_m,
        bloom::split_block,
    ] {
        let (s, p) = step(&lab)?;
        sections.push(s);
        plots.push(p);
    }
    let (s, ps) = tables::cuckoo(&lab)?;
    sections.push(s);
    plots.extend(ps);
    for step in [tables::scalable, tables::counting] {
        let (s, p) = step(&lab)?;
        sections.push(s);
        plots.push(p);
    }
    let errata = [
        errata::truncated_k,
        errata::size_for_a_tenth,
        errata::hash32,
        errata::scalable_p0,
        errata::power_of_two_cuckoo,
        errata::bogus_deletes,
        errata::equal_seeds,
    ]
    .iter()
    .map(|e| e(&lab))
    .collect::<Result<Vec<_>>>()?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    for p in &plots {
        render_line(&p.chart, &dir.join(&p.stem))?;
    }
    let header = format!(
        "Generated by `cargo run --release -p bench-harness` (the `course` stage) in {:.0} s; do not edit. \
         Runs at n = {} keys per filter with {} non-member probes per measurement (synthetic e-mails, fixed seeds); \
         intervals are 95% Wilson intervals over the probes; a verdict says whether the formula lies inside the measured interval. \
         The interval covers the sampling of probes, not the filter's own fill, which varies too (by about k/sqrt(m) relative): \
         the small-m section therefore asks one probe of each of many independently seeded filters. \
         The worked examples are computed at 10M keys and 1% by `filter_core::math` (`filterlab calc --n 10M --fpr 1%` prints the same sizes). \
         In every figure a variant keeps one colour; dashed lines are formulas, markers are measurements.",
        started.elapsed().as_secs_f64(),
        lab.n,
        lab.probes.len()
    );
    let md = markdown::course(&header, &sections, &errata);
    std::fs::write(dir.join("course.md"), md)
        .with_context(|| format!("writing {}/course.md", dir.display()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dataset::{generate, DatasetSpec};

    #[test]
    fn a_tiny_course_writes_every_section_plot_and_erratum() {
        let ds = generate(&DatasetSpec {
            members: 4000,
            non_members: 20_000,
            seed: 7,
        });
        let scale = Scale {
            n: 2000,
            probes: 20_000,
            small_filters: 20,
            small_probes: 100,
            hash_bits: 14,
        };
        let dir =
            std::env::temp_dir().join(format!("filterlab-course-test-{}", std::process::id()));
        write(&dir, &ds.members, &ds.non_members, scale).unwrap();
        let md = std::fs::read_to_string(dir.join("course.md")).unwrap();
        for title in [
            "## 7. Counting",
            "### k truncated",
            "### Two equal hash seeds",
            "### 32-bit hashes",
        ] {
            assert!(md.contains(title), "{title} missing");
        }
        for stem in [
            "fp_vs_bits",
            "fp_vs_k",
            "exact_small_m",
            "split_block",
            "cuckoo_fingerprint",
            "cuckoo_load",
            "scalable",
            "counting_overflow",
        ] {
            assert!(
                dir.join(format!("{stem}.svg")).exists(),
                "{stem}.svg missing"
            );
        }
        // Every plot the text links exists, and every plot written is linked.
        let linked: Vec<&str> = md
            .split("](")
            .skip(1)
            .filter_map(|t| t.split(')').next())
            .collect();
        assert_eq!(linked.len(), 8, "{linked:?}");
        for l in linked {
            assert!(dir.join(l).exists(), "{l} linked but not written");
        }
        // Every table row carries a measurement with its interval.
        assert!(md.matches(" / 20000 |").count() > 20);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The course alone at full scale, into target/course-full (the harness's `course` stage
    /// does the same inside the full run):
    /// `cargo test --release -p bench-harness --lib course::tests::full_scale -- --ignored`.
    #[test]
    #[ignore = "full scale: about a minute in release"]
    fn full_scale() {
        let scale = Scale::FULL;
        let ds = generate(&DatasetSpec {
            members: scale.members_needed(),
            non_members: scale.probes,
            seed: 0x0f11_7e21_ab00_0001,
        });
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/course-full");
        write(&dir, &ds.members, &ds.non_members, scale).unwrap();
        assert!(dir.join("course.md").exists());
    }

    #[test]
    fn too_few_keys_is_an_error() {
        let ds = generate(&DatasetSpec {
            members: 100,
            non_members: 100,
            seed: 7,
        });
        assert!(write(
            Path::new("/nonexistent/never"),
            &ds.members,
            &ds.non_members,
            Scale::QUICK
        )
        .is_err());
    }
}
