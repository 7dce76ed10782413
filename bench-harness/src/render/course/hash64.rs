//! The 64-bit-hash study as a course section and its plot, rendered from the recorded
//! [`Hash64Study`] alone (every number is a count, a setting or a judged figure of the record,
//! or arithmetic on them).

use crate::record::pct;
use crate::record::Verdict;
use crate::render::table::{Align, Table};
use crate::stages::course::hash64::{Hash64Study, KindCount, SliceJudged, SliceRun};
use filterlab_charts::{LineChart, Series, SeriesStyle};
use std::fmt::Write;

/// The plot's file stem.
pub const STEM: &str = "hash64";

/// `10^9` for powers of ten, else the number.
fn keys(n: u64) -> String {
    let e = (n as f64).log10().round() as i32;
    if e > 0 && 10f64.powi(e) == n as f64 {
        format!("10^{e}")
    } else {
        n.to_string()
    }
}

fn interval((lo, hi): (f64, f64)) -> String {
    format!("{} – {}", pct(lo), pct(hi))
}

/// A signed difference in percentage points.
fn points(d: f64) -> String {
    if d.is_finite() {
        format!("{:+.4} pp", d * 100.0)
    } else {
        "–".into()
    }
}

fn word(v: Option<Verdict>) -> &'static str {
    v.map_or("–", Verdict::word)
}

fn derivation(s: &Hash64Study) -> Vec<String> {
    vec![
        "xxh3-64 gives one 64-bit h; the filter reads it as lo = h and hi = h·0x9E3779B97F4A7C15 (an odd multiplier: a bijection, no bit added)".into(),
        "the block is the top bits of hi (a multiply-high onto [0, B)), the eight lane bits come from the 32 low bits of lo: log2 B + 32 of the 64 bits, none used twice".into(),
        "given the 32 lane bits, the other 2^32 values of h spread over the B blocks within one part in 2^32/B, so (block, lanes) is as uniform as with 128 bits and the per-lane rate Σ_c Pois(c; n/B) (1 - (31/32)^c)^8 holds up to B = 2^32".into(),
        "two floors remain: a non-member with a member's block and 32 lane bits passes for certain, (n/B)/2^32, with either hash and whatever n; one with a member's whole 64-bit hash passes, n/2^64, with the 64-bit hash only".into(),
        format!(
            "measured on a slice: a non-member's answer depends only on its own block, so the probes that land in the first 1/{} of the blocks measure the whole filter's rate without bias; all n members are hashed with both kinds and those in the slice set their bits with the filter's own block_index and lane_bits",
            s.slice
        ),
    ]
}

fn example(s: &Hash64Study) -> String {
    let Some((r, j)) = s.runs.last().and_then(|r| r.judged.map(|j| (r, j))) else {
        return "–".into();
    };
    let lambda = r.n as f64 / r.blocks as f64;
    let log_b = (r.blocks as f64).log2();
    format!(
        "n = {} keys at {}: λ = n/B = {lambda:.2} keys a block, B = {} blocks = 2^{log_b:.1} ({:.1} GiB), so block and lanes take {:.1} of the 64 bits; the floors are (n/B)/2^32 = {:.2e} and n/2^64 = {:.2e}, {:.0} and {:.0} orders of magnitude under the rate {}",
        keys(r.n),
        pct(s.fpr),
        r.blocks,
        r.blocks as f64 * 32.0 / 2f64.powi(30),
        log_b + 32.0,
        j.floor_lanes,
        j.floor_whole,
        (j.formula / j.floor_lanes).log10().floor(),
        (j.formula / j.floor_whole).log10().floor(),
        pct(j.formula),
    )
}

/// One row per (size, kind): the counts, the measured rate and its interval against the formula.
fn rates(s: &Hash64Study) -> Table {
    let within = format!("within ±{:.0}% of it", s.margin * 100.0);
    let mut t = Table::new(&[
        ("keys n", Align::Right),
        ("blocks B", Align::Right),
        ("slice blocks", Align::Right),
        ("hash", Align::Left),
        ("members in slice", Align::Right),
        ("false positives / probes in slice", Align::Right),
        ("measured", Align::Right),
        ("95% interval", Align::Right),
        ("formula", Align::Right),
        (within.as_str(), Align::Center),
    ]);
    for r in &s.runs {
        let j = r.judged;
        let kinds = [
            ("xxh3-128", r.wide, j.map(|j| (j.wide, j.wide_vs_formula))),
            (
                "xxh3-64",
                r.narrow,
                j.map(|j| (j.narrow, j.narrow_vs_formula)),
            ),
        ];
        for (name, c, judged) in kinds {
            let measured = c.hits as f64 / c.trials as f64;
            t.row([
                keys(r.n),
                r.blocks.to_string(),
                r.slice_blocks.to_string(),
                name.into(),
                c.members.to_string(),
                format!("{} / {}", c.hits, c.trials),
                pct(measured),
                judged.map_or("–".into(), |(iv, _)| interval(iv)),
                j.map_or("–".into(), |j| pct(j.formula)),
                word(judged.map(|(_, v)| v)).into(),
            ]);
        }
    }
    t
}

/// One row per size: the difference, its interval, the margin, the verdict and the floors.
fn differences(s: &Hash64Study) -> Table {
    let mut t = Table::new(&[
        ("keys n", Align::Right),
        ("xxh3-64 − xxh3-128", Align::Right),
        ("95% interval", Align::Right),
        ("equal within", Align::Right),
        ("verdict", Align::Center),
        ("floor (n/B)/2^32", Align::Right),
        ("floor n/2^64 (64-bit only)", Align::Right),
    ]);
    for r in &s.runs {
        let j = r.judged;
        let d = |c: KindCount| c.hits as f64 / c.trials as f64;
        t.row([
            keys(r.n),
            points(d(r.narrow) - d(r.wide)),
            j.map_or("–".into(), |j| {
                format!("{} – {}", points(j.difference.0), points(j.difference.1))
            }),
            j.map_or("–".into(), |j| {
                format!("± {}", points(j.formula * s.margin).trim_start_matches('+'))
            }),
            word(j.map(|j| j.equal)).into(),
            j.map_or("–".into(), |j| format!("{:.2e}", j.floor_lanes)),
            j.map_or("–".into(), |j| format!("{:.2e}", j.floor_whole)),
        ]);
    }
    t
}

/// What the verdicts say, counted from them.
fn finding(s: &Hash64Study) -> String {
    let verdicts: Vec<(&SliceRun, SliceJudged)> = s
        .runs
        .iter()
        .filter_map(|r| r.judged.map(|j| (r, j)))
        .collect();
    let met: Vec<String> = verdicts
        .iter()
        .filter(|(_, j)| j.equal == Verdict::Met)
        .map(|(r, _)| keys(r.n))
        .collect();
    let others: Vec<String> = verdicts
        .iter()
        .filter(|(_, j)| j.equal != Verdict::Met)
        .map(|(r, j)| format!("{} at {}", j.equal.word(), keys(r.n)))
        .collect();
    let probed = s.runs.iter().map(|r| r.probed).max().unwrap_or(0);
    format!(
        "Both kinds hash the same {}-byte e-mail-like keys with seed {:#x}; each size's slice is its first 1/{} of the blocks, and {probed} non-member keys were hashed to land the probes in every slice. \
         The 64-bit rate equals the 128-bit one within ±{:.0}% of the formula's rate (the difference's whole 95% interval inside: met; wholly outside: not met; else undecided) at {} of {} sizes{}{}.",
        s.key_bytes,
        s.seed,
        s.slice,
        s.margin * 100.0,
        met.len(),
        verdicts.len(),
        if met.is_empty() { String::new() } else { format!(" ({})", met.join(", ")) },
        if others.is_empty() { String::new() } else { format!("; {}", others.join(", ")) },
    )
}

const DEFAULT: &str = "Which hash is the default: **xxh3-128**. The split-block filter needs only log2 B + 32 bits and, as measured above, loses nothing measurable with xxh3-64 below 2^32 blocks (a 128 GiB table); above that fewer than 32 bits are left for the lanes and the rate rises. But the classic filter's enhanced double hashing draws its start and step from the two halves (2 log2 m bits, more than 64 above 2^32 bits), the cuckoo filter its bucket and fingerprint, and the harness hashes a key once for every variant: xxh3-128 is right for all of them, so it stays the default, and xxh3-64 is opt-in for the split-block filter (`.hasher(KeyHasher::new(HashKind::Xxh3_64, seed)?)`, stored in the file as hash id 3).";

/// The study as section `number` of the course.
pub fn section(number: usize, s: &Hash64Study, out: &mut String) {
    let sizes: Vec<String> = s.runs.iter().map(|r| keys(r.n)).collect();
    let _ = writeln!(
        out,
        "## {number}. A 64-bit hash at {} keys: what xxh3-64 costs the split-block filter\n",
        sizes.join(" and ")
    );
    for line in derivation(s) {
        let _ = writeln!(out, "    {line}");
    }
    let _ = writeln!(
        out,
        "\nSource: `HashKind::Xxh3_64`'s docs (crates/filter-core/src/hash.rs); Putze, Sanders & Singler 2007 (the per-lane rate)\n"
    );
    let _ = writeln!(out, "Worked example: {}\n", example(s));
    out.push_str(&rates(s).render());
    out.push('\n');
    out.push_str(&differences(s).render());
    let _ = writeln!(out, "\n{}\n\n{DEFAULT}\n", finding(s));
    let _ = writeln!(out, "![A 64-bit hash]({STEM}.svg)\n");
}

/// Measured rates of both kinds against n, with the formula and both floors.
#[must_use]
pub fn chart(s: &Hash64Study) -> LineChart {
    let judged: Vec<(&SliceRun, SliceJudged)> = s
        .runs
        .iter()
        .filter_map(|r| r.judged.map(|j| (r, j)))
        .collect();
    let line = |f: fn(&SliceJudged) -> f64| -> Vec<(f64, f64)> {
        judged.iter().map(|(r, j)| (r.n as f64, f(j))).collect()
    };
    let measured = |c: fn(&SliceRun) -> KindCount, iv: fn(&SliceJudged) -> (f64, f64)| {
        let points = judged
            .iter()
            .map(|(r, _)| (r.n as f64, c(r).hits as f64 / c(r).trials as f64))
            .collect();
        let spread = judged.iter().map(|(_, j)| iv(j)).collect();
        (points, spread)
    };
    let (wide, wide_spread) = measured(|r| r.wide, |j| j.wide);
    let (narrow, narrow_spread) = measured(|r| r.narrow, |j| j.narrow);
    LineChart {
        title: "Split-block filter at 1%: xxh3-64 against xxh3-128, measured on a slice".into(),
        x_label: "keys n".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: true,
        series: vec![
            Series::new("per-lane formula", line(|j| j.formula), SeriesStyle::Dashed),
            Series::new(
                "floor (n/B)/2^32, both hashes",
                line(|j| j.floor_lanes),
                SeriesStyle::Line,
            ),
            Series::new(
                "floor n/2^64, 64-bit only",
                line(|j| j.floor_whole),
                SeriesStyle::Line,
            ),
            Series::new("xxh3-128", wide, SeriesStyle::Points).with_spread(wide_spread),
            Series::new("xxh3-64", narrow, SeriesStyle::Points).with_spread(narrow_spread),
        ],
    }
}

/// `hashing.md`: the study on a page of its own.
#[must_use]
pub fn page(r: &crate::stages::course::hash64::HashingReport) -> String {
    let m = &r.machine;
    let mut out = String::from("# The 64-bit hash study\n\n");
    let _ = writeln!(
        out,
        "Measured at commit {} ({}, {} cores of a {}, {:.0} s): what hashing with xxh3-64 instead of \
         xxh3-128 costs the split-block filter at very large key counts (`bench-harness study \
         hashing`; written by the harness from hashing.json, do not edit). The formula course \
         ([course/course.md](course/course.md)) derives the rates it checks.\n",
        m.commit, m.date, m.cores, m.cpu, m.wall_seconds
    );
    section(1, &r.study, &mut out);
    out
}

/// Writes `hashing.json`, `hashing.md` and its plot into `out`.
///
/// # Errors
/// I/O errors.
pub fn write(
    r: &crate::stages::course::hash64::HashingReport,
    out: &std::path::Path,
) -> anyhow::Result<()> {
    crate::render::write_section(out, "hashing", r, page)?;
    filterlab_charts::render_line(&chart(&r.study), &out.join(STEM))?;
    Ok(())
}

impl crate::plan::Output for crate::stages::course::hash64::HashingReport {
    fn stamp(&mut self, wall_seconds: f64) {
        self.machine.wall_seconds = wall_seconds;
    }

    fn judge(&mut self) {
        crate::judge::course::judge_hash64(&mut self.study);
    }

    fn write(&self, out: &std::path::Path) -> anyhow::Result<()> {
        write(self, out)
    }
}
