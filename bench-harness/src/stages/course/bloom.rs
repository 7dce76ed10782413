//! Course sections on the Bloom-filter formulas: FP rate against memory for every variant, the
//! choice of k, the exact formula at small m, and the split-block model.

use super::figures::{Figures, Formula, Shown};
use super::model::{Row, Section};
use super::probe::{fill, fp};
use super::stats::{pooled, Count};
use super::{variants, Lab, Plot};
use crate::filters::Variant;
use crate::record::pct;
use anyhow::Result;
use filterlab::any::Params;
use filterlab::{math, AnyFilter, BlockedBloom, ClassicBloom, Filter, HashKind, KeyHasher};
use filterlab_charts::{LineChart, Series, SeriesStyle};
use xxhash_rust::xxh3::xxh3_64_with_seed;

const P: f64 = 0.01;
const TEN_M: u64 = 10_000_000;

/// One variant built for `n` at `target` holding the draw's members (through the registry's
/// one constructor: filled by inserts, or a static variant built once from the set), in
/// repetitions named after both: `(bits per key, formula, counts)`.
fn point(
    lab: &Lab<'_>,
    variant: Variant,
    label: &str,
    target: f64,
) -> Result<(f64, f64, Vec<Count>)> {
    let n = lab.n;
    let cap = n as u64;
    let name = format!("fp_vs_bits/{label}/{target}");
    let ((bpk, formula), counts) = lab.repeat(&name, |d| {
        // A growing variant starts from an eighth of n (a scalable filter: four stages).
        let start = if variant.capabilities().grows {
            cap / 8
        } else {
            cap
        };
        let f = AnyFilter::build_from_hashes(variant, &Params::new(start, target), &d.members)?;
        let bpk = f.size_in_bytes() as f64 * 8.0 / n as f64;
        Ok(((bpk, f.expected_fpr()), fp(&f, d)))
    })?;
    Ok((bpk, formula, counts))
}

/// FP rate against bits per key, every variant, theory and measurement.
pub fn fp_vs_bits(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let targets = [0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];
    let mut series = Vec::new();
    let mut rows = Vec::new();
    let mut lowest: Vec<f64> = Vec::new();
    for (variant, label) in variants() {
        let mut theory = Vec::new();
        let mut measured = Vec::new();
        let mut spread = Vec::new();
        // Not the targets the registry cannot size it for (an 8-bit fuse below 2^-8).
        let sized = |t: &&f64| crate::filters::buildable(variant, lab.n as u64, **t);
        for &t in targets.iter().filter(sized) {
            let (bpk, formula, counts) = point(lab, variant, label, t)?;
            let m = pooled(&counts);
            theory.push((bpk, formula));
            measured.push((bpk, m.rate));
            spread.push(m.spread());
            lowest.push(bpk);
            if t == P {
                rows.push(Row::new(
                    format!("{label} at 1%, {bpk:.2} bits/key"),
                    formula,
                    counts,
                ));
            }
        }
        series.push(Series::new(label, theory, SeriesStyle::Dashed));
        series.push(Series::new(label, measured, SeriesStyle::Points).with_spread(spread));
    }
    // The lower bound n log2(1/p) bits, i.e. p = 2^-(bits per key), over the plotted range.
    let (lo, hi) = lowest
        .iter()
        .fold((f64::INFINITY, 0f64), |(a, b), &x| (a.min(x), b.max(x)));
    // Cut where the bound leaves the measured range (below 1e-4), so the data keep the axis.
    let hi = hi.min(1e4f64.log2());
    let bound: Vec<(f64, f64)> = (0..=24)
        .map(|i| lo * (hi / lo).powf(f64::from(i) / 24.0))
        .map(|b| (b, 2f64.powf(-b)))
        .collect();
    series.push(Series::new(
        "lower bound log2(1/p) bits/key",
        bound,
        SeriesStyle::Line,
    ));
    let section = fp_vs_bits_section(rows)?;
    let chart = LineChart {
        title: format!("False-positive rate against memory (n = {})", lab.n),
        x_label: "bits per key".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: true,
        series,
    };
    Ok((section, vec![Plot::new("fp_vs_bits", chart)]))
}

/// The text around [`fp_vs_bits`]'s rows.
fn fp_vs_bits_section(rows: Vec<Row>) -> Result<Section> {
    let m10 = math::optimal_bits(TEN_M, P)?;
    let mut fig = Figures::default();
    let allocated = fig.add(
        Formula::ClassicBitsPerKey { n: TEN_M, p: P },
        Shown::Decimals(3),
    )?;
    Ok(Section {
        title: "False-positive rate against memory, every variant".into(),
        source: "Bloom 1970; Broder & Mitzenmacher 2004 (survey); each variant's paper for its own curve".into(),
        example: format!(
            "10M keys at 1%: the formula's m = {m10} bits = {:.3} bits per key (this library allocates {allocated}: with k rounded to a whole 7 the formula's m misses 1% slightly), the lower bound is log2(100) = {:.3} bits per key ({:+.1}%)",
            m10 as f64 / TEN_M as f64,
            math::lower_bound_bits(TEN_M, P) / TEN_M as f64,
            (m10 as f64 / math::lower_bound_bits(TEN_M, P) - 1.0) * 100.0
        ),
        rows,
        finding: "Dashed lines: each variant's formula at its realised parameters; markers: measured (pooled over the repetitions), \
             with 95% Wilson intervals; one legend entry per variant; the solid line is the lower bound p = 2^-(bits per key). \
             Counting sits at 4x the memory of classic (4-bit counters). The scalable points are filters built for n/8 at each target \
             and grown to n, i.e. four stages (n/8, n/4, n/2, n at s = 2) with the stage rates tightened by r = 0.9: each point is the \
             compound rate at n, below the target, and its memory is the sum of the stages. The static filters (binary fuse, ribbon) \
             are built once from the whole set: a binary fuse filter's rate is 2^-F whatever the target (so its points pile up at \
             8 and 16 bits), the 8-bit one cannot meet a target below 2^-8 = 0.39%, and the ribbon filter sits closest to the bound.".into(),
        plots: vec!["fp_vs_bits".into()],
        figures: fig.into_vec(),
    })
}

/// FP rate against k at the m/n of 1%.
pub fn fp_vs_k(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k_opt = math::optimal_hashes(m, n);
    let (mut theory, mut measured, mut spread, mut rows) = (vec![], vec![], vec![], vec![]);
    let mut best = (0u32, f64::MAX);
    for k in 1..=14u32 {
        let (formula, counts) = super::classic_run(lab, &format!("fp_vs_k/{k}"), m, k)?;
        let got = pooled(&counts);
        theory.push((f64::from(k), formula));
        measured.push((f64::from(k), got.rate));
        spread.push(got.spread());
        if got.rate < best.1 {
            best = (k, got.rate);
        }
        if (k_opt.saturating_sub(2)..=k_opt + 2).contains(&k) {
            rows.push(Row::new(format!("k = {k}"), formula, counts));
        }
    }
    let at = |k: u32| math::classic_fpr_best(m, n, k);
    let flat: Vec<String> = [k_opt - 1, k_opt + 1]
        .iter()
        .map(|&k| format!("k = {k} costs {:+.1}%", (at(k) / at(k_opt) - 1.0) * 100.0))
        .collect();
    let m10 = math::optimal_bits(TEN_M, P)?;
    let section = Section {
        figures: Vec::new(),
        title: "The number of hash functions k".into(),
        source: "Bloom 1970; Broder & Mitzenmacher 2004, §2.1".into(),
        example: format!(
            "10M keys at 1%: m/n = {:.4}, k* = {:.3}, k = {}",
            m10 as f64 / TEN_M as f64,
            m10 as f64 / TEN_M as f64 * std::f64::consts::LN_2,
            math::optimal_hashes(m10, TEN_M)
        ),
        rows: rows.clone(),
        finding: format!(
            "Formula optimum k = {k_opt}; lowest pooled measured rate at k = {}. Near the optimum the curve is flat: {}.",
            best.0,
            flat.join(", "),
        ),
        plots: vec!["fp_vs_k".into()],
    };
    let chart = LineChart {
        title: format!(
            "False-positive rate against k at m/n = {:.2}",
            m as f64 / n as f64
        ),
        x_label: "hash functions k".into(),
        y_label: "false-positive rate".into(),
        x_log: false,
        y_log: true,
        series: vec![
            Series::new("formula", theory, SeriesStyle::Dashed),
            Series::new("classic", measured, SeriesStyle::Points).with_spread(spread),
        ],
    };
    Ok((section, vec![Plot::new("fp_vs_k", chart)]))
}

/// The approximate and the exact classic formula at small m, against many small filters.
pub fn exact_small_m(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let bits_per_key = 8u64;
    let (mut approx, mut exact, mut measured, mut spread, mut rows) =
        (vec![], vec![], vec![], vec![], vec![]);
    let (mut indep, mut indep_spread) = (vec![], vec![]);
    for m in [16u64, 32, 64, 128, 256, 512, 1024] {
        let n = m / bits_per_key;
        let k = math::optimal_hashes(m, n);
        let (lib_counts, ind_counts) = small_filters(lab, m, n, k)?;
        let (library, independent) = (pooled(&lib_counts), pooled(&ind_counts));
        let (a, e) = (
            math::classic_fpr(m, n, k),
            math::classic_fpr_exact(m, n, k).unwrap_or(f64::NAN),
        );
        approx.push((m as f64, a));
        exact.push((m as f64, e));
        measured.push((m as f64, library.rate));
        spread.push(library.spread());
        // Beside the library's marker, not on it.
        indep.push((m as f64 * 1.08, independent.rate));
        indep_spread.push(independent.spread());
        rows.push(Row::new(
            format!("m = {m}, n = {n}, k = {k}: approximation"),
            a,
            lib_counts.clone(),
        ));
        rows.push(Row::new(
            format!("m = {m}, n = {n}, k = {k}: exact"),
            e,
            lib_counts,
        ));
        rows.push(Row::new(
            format!("m = {m}, n = {n}, k = {k}: exact, independent positions"),
            e,
            ind_counts,
        ));
    }
    let m10 = math::optimal_bits(TEN_M, P)?;
    let k10 = math::optimal_hashes(m10, TEN_M);
    let section = Section {
        figures: Vec::new(),
        title: "The exact formula at small m".into(),
        source: "Christensen, Roginsky & Jimeno 2010; Bose et al. 2008".into(),
        example: format!(
            "10M keys at 1%: approximation {} and exact {} (relative gap {:.2e})",
            pct(math::classic_fpr(m10, TEN_M, k10)),
            pct(math::classic_fpr_best(m10, TEN_M, k10)),
            math::classic_fpr_best(m10, TEN_M, k10) / math::classic_fpr(m10, TEN_M, k10) - 1.0
        ),
        rows,
        finding: format!(
            "Each size asks one probe of each of {} independently seeded filters (the probes of one small filter share its fill), \
             grouped into {} repetitions. The second marker set (drawn just right of the first) uses k truly independent positions. \
             The exact formula assumes independent positions; the library derives its k positions from two hashes (enhanced double \
             hashing, section \"k positions from one hash\"), which is exact only as m grows.",
            lab.scale.small_filters,
            lab.reps
        ),
        plots: vec!["exact_small_m".into()],
    };
    let chart = LineChart {
        title: format!("Approximate and exact formula at {bits_per_key} bits per key"),
        x_label: "bits m".into(),
        y_label: "false-positive rate".into(),
        x_log: true,
        y_log: false,
        series: vec![
            Series::new("approximate (Bloom)", approx, SeriesStyle::Dashed),
            Series::new("exact formula", exact, SeriesStyle::Line),
            Series::new("classic", measured, SeriesStyle::Points).with_spread(spread),
            Series::new("independent hashes", indep, SeriesStyle::Points).with_spread(indep_spread),
        ],
    };
    Ok((section, vec![Plot::new("exact_small_m", chart)]))
}

/// `(library filter, k independent positions)`: false positives over many small filters of `m`
/// bits and `n` keys, each with its own seed.
fn small_filters(lab: &Lab<'_>, m: u64, n: u64, k: u32) -> Result<(Vec<Count>, Vec<Count>)> {
    let probes = lab.scale.small_probes;
    let (mut library, mut independent) = (Vec::new(), Vec::new());
    let mut words = vec![0u64; m.div_ceil(64) as usize];
    let per_rep = (lab.scale.small_filters / lab.reps).max(1) as u64;
    for rep in 0..lab.reps {
        let base = super::probe::seed_of(&format!("small_m/{m}"), rep);
        let (mut lib_hits, mut ind_hits) = (0u64, 0u64);
        for j in 0..per_rep {
            let seed = base.wrapping_add(j);
            let hasher = KeyHasher::new(HashKind::Xxh3_128, seed)?;
            let mut f = ClassicBloom::builder()
                .capacity(n)
                .fpr(P)
                .bits(m)
                .hashes(k)
                .hasher(hasher)
                .build()?;
            for i in 0..n as usize {
                f.insert(lab.member_keys.get(i))?;
            }
            lib_hits += (0..probes)
                .filter(|&i| f.contains(lab.probe_keys.get(i)))
                .count() as u64;
            // k independent positions: one seeded 64-bit hash each, mapped onto [0, m).
            let pos = |key: &[u8], i: u32| {
                let h = xxh3_64_with_seed(key, seed.wrapping_mul(64) + u64::from(i));
                ((u128::from(h) * u128::from(m)) >> 64) as u64
            };
            words.iter_mut().for_each(|w| *w = 0);
            for i in 0..n as usize {
                for j in 0..k {
                    let b = pos(lab.member_keys.get(i), j);
                    words[(b / 64) as usize] |= 1 << (b % 64);
                }
            }
            ind_hits += (0..probes)
                .filter(|&i| {
                    (0..k).all(|j| {
                        let b = pos(lab.probe_keys.get(i), j);
                        words[(b / 64) as usize] >> (b % 64) & 1 == 1
                    })
                })
                .count() as u64;
        }
        let trials = per_rep * probes as u64;
        library.push(Count {
            seed: base,
            hits: lib_hits,
            trials,
        });
        independent.push(Count {
            seed: base,
            hits: ind_hits,
            trials,
        });
    }
    Ok((library, independent))
}

/// The split-block filter: per-lane formula, 256-bit-block model and measurement.
pub fn split_block(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let (mut lane, mut block, mut measured, mut spread, mut rows) =
        (vec![], vec![], vec![], vec![], vec![]);
    for target in [0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001] {
        let (blocks, counts) = lab.repeat(&format!("split_block/{target}"), |d| {
            let mut f = BlockedBloom::builder().capacity(n).fpr(target).build()?;
            fill(&mut f, &d.members)?;
            Ok((f.blocks(), fp(&f, d)))
        })?;
        let got = pooled(&counts);
        let lambda = n as f64 / blocks as f64;
        let (pl, pb) = (
            math::split_block_fpr(blocks, n),
            math::split_block_fpr_block_model(blocks, n),
        );
        // Relative to the per-lane formula, so a 7% gap is visible on a slide.
        lane.push((lambda, 1.0));
        block.push((lambda, pb / pl));
        measured.push((lambda, got.rate / pl));
        spread.push((got.lo / pl, got.hi / pl));
        rows.push(Row::new(
            format!("{lambda:.1} keys/block: per-lane"),
            pl,
            counts.clone(),
        ));
        rows.push(Row::new(
            format!("{lambda:.1} keys/block: 256-bit block model"),
            pb,
            counts,
        ));
    }
    let lambda = math::split_block_keys_per_block(P)?;
    let blocks = math::split_block_blocks(TEN_M, P)?;
    let section = Section {
        figures: Vec::new(),
        title: "The split-block filter: per lane, not per block".into(),
        source: "Putze, Sanders & Singler 2007, §3; the Parquet split-block specification".into(),
        example: format!(
            "10M keys at 1%: λ = {lambda:.3} keys per block, B = {blocks} blocks ({:.3} bits per key); per-lane {} against block model {}",
            blocks as f64 * 256.0 / TEN_M as f64,
            pct(math::split_block_fpr(blocks, TEN_M)),
            pct(math::split_block_fpr_block_model(blocks, TEN_M))
        ),
        finding: "The plot shows each rate relative to the per-lane formula, so a few-percent gap is visible.".into(),
        rows,
        plots: vec!["split_block".into()],
    };
    let chart = LineChart {
        title: "Split-block filter: rate relative to the per-lane formula".into(),
        x_label: "keys per 256-bit block".into(),
        y_label: "rate / per-lane formula".into(),
        x_log: false,
        y_log: false,
        series: vec![
            Series::new("per-lane formula", lane, SeriesStyle::Dashed),
            Series::new("block model", block, SeriesStyle::Line),
            Series::new(Variant::Blocked.name(), measured, SeriesStyle::Points).with_spread(spread),
        ],
    };
    Ok((section, vec![Plot::new("split_block", chart)]))
}
