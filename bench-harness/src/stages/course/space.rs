//! Course topics on space: cuckoo insertion failure, semi-sorting, the classic/cuckoo
//! crossover, the memory of a scalable filter, and static filters.

use super::figures::{Figures, Formula, Prose, Shown};
use super::model::{Row, Section};
use super::probe::{fill, fp};
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::Result;
use filterlab::{
    cuckoo, math, ClassicBloom, CuckooFilter, Filter, Growable, Hash128, ScalableBloom,
};

const P: f64 = 0.01;
/// The worked examples' keys.
const TEN_M: u64 = 10_000_000;

/// Partial-key cuckoo hashing with `b`-slot buckets and a plain random walk of at most
/// `kicks` evictions: the number of items placed before the first failure in `slots` slots.
fn first_failure(hashes: &[Hash128], slots: usize, b: usize, kicks: u32) -> u64 {
    let buckets = (slots / b) as u64;
    let mut table = vec![0u16; slots];
    let alt = |i: u64, fp: u16| {
        let h = filterlab::reduce(u64::from(fp).wrapping_mul(0x9e37_79b9_7f4a_7c15), buckets);
        (h + buckets - i) % buckets
    };
    for (placed, h) in hashes.iter().enumerate() {
        let mut fp = 1 + (h.hi % 65_535) as u16;
        let mut i = filterlab::reduce(h.lo, buckets);
        let mut rng = h.hi;
        let mut done = false;
        for kick in 0..=kicks {
            let alt_i = alt(i, fp);
            for bucket in [i, alt_i] {
                let s = &mut table[bucket as usize * b..(bucket as usize + 1) * b];
                if let Some(slot) = s.iter_mut().find(|x| **x == 0) {
                    *slot = fp;
                    done = true;
                    break;
                }
            }
            if done || kick == kicks {
                break;
            }
            // Evict a pseudo-random resident of one of the two buckets.
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let bucket = if rng >> 63 == 0 { i } else { alt_i };
            let j = bucket as usize * b + ((rng >> 32) as usize % b);
            std::mem::swap(&mut fp, &mut table[j]);
            i = alt(bucket, fp);
        }
        if !done {
            return placed as u64;
        }
    }
    hashes.len() as u64
}

/// Cuckoo insertion failure against bucket size, and the library's table at b = 4.
pub fn cuckoo_failure(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let slots = (lab.n / 2).next_power_of_two().min(1 << 16) / 2;
    let mut rows = Vec::new();
    for (b, reported) in [(1usize, "50%"), (2, "84%"), (4, "95%"), (8, "98%")] {
        let (_, counts) = lab.repeat(&format!("cuckoo_failure/{b}"), |d| {
            Ok((
                (),
                d.count(first_failure(&d.members, slots, b, 500), slots as u64),
            ))
        })?;
        rows.push(Row::measured(
            format!("random walk, b = {b}: load at first failure (reported: {reported})"),
            counts,
        ));
    }
    let cap = (lab.n / 2) as u64;
    let (slots_lib, counts) = lab.repeat("cuckoo_failure/library", |d| {
        let mut c = CuckooFilter::builder().capacity(cap).fpr(P).build()?;
        let slots = c.buckets() * u64::from(cuckoo::SLOTS);
        let placed = d
            .members
            .iter()
            .take_while(|&&h| c.insert_hash(h).is_ok())
            .count();
        Ok((slots, d.count(placed as u64, slots)))
    })?;
    rows.push(Row::lower(
        format!("library, b = 4 ({slots_lib} slots, two choices then a walk of at most {} kicks): design load as a lower bound", cuckoo::DEFAULT_MAX_KICKS),
        cuckoo::DESIGN_LOAD,
        counts,
    ));
    let section = Section {
        figures: Vec::new(),
        title: "Cuckoo insertion failure against bucket size and load".into(),
        source: "Pagh & Rodler 2004; Dietzfelbinger & Weidling 2007; Fan, Andersen, Kaminsky & Mitzenmacher 2014, §4".into(),
        example: {
            let at = |b: u32, load: f64| -> Result<String> {
                let f = math::cuckoo_fingerprint_bits(P, b)?;
                Ok(format!(
                    "b = {b}: f = {f}, {:.2}M buckets at {:.0}% load, {:.2} bits per key",
                    1e7 / (f64::from(b) * load) / 1e6,
                    load * 100.0,
                    f64::from(f) / load
                ))
            };
            format!("10M keys at 1%: {}; {}; {}", at(2, 0.84)?, at(4, 0.95)?, at(8, 0.98)?)
        },
        rows,
        finding: format!("The simulation uses {slots} slots, 16-bit fingerprints and the library's alternate bucket; each load is items placed before the first failed insert, over slots."),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Semi-sorting: the bits a sorted bucket saves.
pub fn semi_sorting(_lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let b = 4u32;
    // Multisets of b values from 16: C(16 + b - 1, b).
    let multisets: f64 = (0..b)
        .map(|i| f64::from(16 + i) / f64::from(i + 1))
        .product();
    let bits = multisets.log2().ceil();
    let f = math::cuckoo_fingerprint_bits(P, b)?;
    let section = Section {
        figures: Vec::new(),
        title: "Semi-sorting buckets".into(),
        source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.2".into(),
        example: format!(
            "C(19, 4) = {multisets:.0} → {bits:.0} bits for 4 × 4 = 16; at 1% (f = {f}) the table costs {:.3} bits per key instead of {:.3}. This library does not semi-sort (its slots are packed to f bits)",
            f64::from(f - 1) / cuckoo::DESIGN_LOAD,
            f64::from(f) / cuckoo::DESIGN_LOAD
        ),
        rows: vec![],
        finding: String::new(),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Where cuckoo needs fewer bits per key than classic, from the builders' real sizes.
pub fn crossover(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let mut cheaper = Vec::new();
    let mut table = Vec::new();
    for i in 0..=40 {
        let p = 10f64.powf(-1.0 - f64::from(i) * 0.1);
        let c = ClassicBloom::builder()
            .capacity(n)
            .fpr(p)
            .build()?
            .size_in_bytes() as f64
            * 8.0
            / n as f64;
        let k = CuckooFilter::builder()
            .capacity(n)
            .fpr(p)
            .build()?
            .size_in_bytes() as f64
            * 8.0
            / n as f64;
        if k < c {
            cheaper.push(p);
        }
        if i % 5 == 0 {
            table.push(format!("{}: classic {c:.2}, cuckoo {k:.2}", pct(p)));
        }
    }
    let first = cheaper.first().copied().unwrap_or(f64::NAN);
    // Targets at or below the first crossing where classic is still (or again) smaller.
    let below = (0..=40)
        .map(|i| 10f64.powf(-1.0 - f64::from(i) * 0.1))
        .filter(|&p| p <= first)
        .count();
    let exceptions = below - cheaper.len();
    // Textbook comparison: f = log2(1/p) + 3 bits (b = 4), one fewer with semi-sorting.
    let mut figures = Figures::default();
    let cross = |extra: f64, alpha: f64| Formula::CuckooCrossover { extra, alpha };
    let semi = figures.add(cross(2.0, 0.955), Shown::Rate)?;
    let plain = figures.add(cross(3.0, cuckoo::DESIGN_LOAD), Shown::Rate)?;
    let section = Section {
        title: "The classic/cuckoo space crossover".into(),
        source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.2 and Fig. 5".into(),
        example: format!(
            "e = 2, α = 0.955 (semi-sorted): crossover at p = {semi}; e = 3, α = {} (this library's layout): p = {plain}",
            cuckoo::DESIGN_LOAD
        ),
        rows: vec![],
        finding: format!(
            "Built here for n = {n} on a grid of 41 targets from 10% to 0.001% (bits per key from size_in_bytes): {}. Cuckoo is smaller first at p = {}; \
             of the {below} targets from there down, classic is smaller at {exceptions} (f and k step by whole bits).",
            table.join("; "),
            pct(first),
        ),
        plots: vec![],
        figures: figures.into_vec(),
    };
    Ok((section, vec![]))
}

/// Scalable filters: memory as they grow, for growth s and tightening r.
pub fn scalable_memory(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let c0 = (lab.n / 32).max(1) as u64;
    let mut rows = Vec::new();
    let mut lines = Vec::new();
    for (s, r) in [(2.0, 0.5), (2.0, 0.8), (2.0, 0.9), (4.0, 0.8), (4.0, 0.9)] {
        let ((bpk, formula_bpk, stages, fpr), counts) =
            lab.repeat(&format!("scalable_memory/{s}/{r}"), |d| {
                let mut f = ScalableBloom::builder()
                    .capacity(c0)
                    .fpr(P)
                    .growth(s)
                    .tightening(r)
                    .build()?;
                fill(&mut f, &d.members)?;
                let p0 = f.initial_fpr();
                let formula: f64 = f
                    .stage_shapes()
                    .iter()
                    .enumerate()
                    .map(|(i, &(_, _, cap, _))| {
                        math::optimal_bits(cap, math::scalable_stage_fpr(p0, r, i as u32))
                            .map(|b| b as f64)
                    })
                    .sum::<filterlab::Result<f64>>()?;
                let n = d.members.len() as f64;
                Ok((
                    (
                        f.size_in_bytes() as f64 * 8.0 / n,
                        formula / n,
                        f.stages(),
                        f.expected_fpr(),
                    ),
                    fp(&f, d),
                ))
            })?;
        lines.push(format!("s = {s}, r = {r}: {stages} stages, {bpk:.2} bits/key (sum of the stages' optimal sizes: {formula_bpk:.2})"));
        rows.push(Row::new(
            format!("s = {s}, r = {r}, {stages} stages, {bpk:.2} bits/key"),
            fpr,
            counts,
        ));
    }
    let prose = scalable_prose()?;
    let section = Section {
        figures: prose.figures,
        title: "Scalable filters: memory growth and the choice of s and r".into(),
        source: "Almeida, Baquero, Preguiça & Hutchison 2007, §4-5".into(),
        example: prose.example,
        rows,
        finding: format!("Grown from {c0} to {} keys: {}.", lab.n, lines.join("; ")),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// The derivation and worked example of the scalable filters' memory, their numbers from the
/// library's sizing of 10M keys (`math::classic_shape`): a stage at `P0` costs what a classic
/// filter at `P0` allocates.
fn scalable_prose() -> Result<Prose> {
    let mut fig = Figures::default();
    let bits = |p: f64| Formula::ClassicBitsPerKey { n: TEN_M, p };
    let more = |p: f64, ratio: f64| Formula::ClassicBitsForRatio { n: TEN_M, p, ratio };
    let p0 = |r: f64| math::scalable_initial_fpr(P, r);
    let formula = fig.add(
        Formula::OptimalBitsForRatio { ratio: 1.0 - 0.9 },
        Shown::Decimals(2),
    )?;
    let up_front = fig.add(more(P, 1.0 - 0.9), Shown::Decimals(2))?;
    let at_p = fig.add(bits(P), Shown::Decimals(2))?;
    let first_9 = fig.add(bits(p0(0.9)), Shown::Decimals(2))?;
    let first_5 = fig.add(bits(p0(0.5)), Shown::Decimals(2))?;
    let next_9 = fig.add(more(p0(0.9), 0.9), Shown::Decimals(2))?;
    let next_5 = fig.add(more(p0(0.5), 0.5), Shown::Decimals(2))?;
    let example = format!(
        "P = {}, 10M keys as this library sizes them: r = 0.9 starts at P0 = {} ({first_9} bits per key for the first stage against {at_p} at P), r = 0.5 at {} ({first_5}); r = 0.9's up-front cost is log2(1/(1 - r)) / ln 2 = {formula} bits per key by the formula, {up_front} as this library sizes 10M keys; each further stage adds {next_9} (r = 0.9) or {next_5} (r = 0.5) bits per key",
        pct(P),
        pct(p0(0.9)),
        pct(p0(0.5)),
    );
    Ok(Prose {
        example,
        figures: fig.into_vec(),
    })
}

/// Static filters: xor, binary fuse and ribbon, by formula.
pub fn static_filters(_lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let f = (1.0 / P).log2().ceil();
    let lb = (1.0 / P).log2();
    let classic = math::optimal_bits(10_000_000, P)? as f64 / 1e7;
    let ck = f64::from(math::cuckoo_fingerprint_bits(P, cuckoo::SLOTS)?) / cuckoo::DESIGN_LOAD;
    let section = Section {
        figures: Vec::new(),
        title: "Static filters: xor, binary fuse and ribbon".into(),
        source: "Graf & Lemire 2020 (xor); Graf & Lemire 2022 (binary fuse); Dillinger & Walzer 2021 (ribbon)".into(),
        example: format!(
            "10M keys at 1% (f = {f:.0}): xor {:.2}, binary fuse 1.125 f = {:.2} (3-wise) / {:.2} (4-wise), this library's ribbon {:.2} (fractional columns, filter_core::math::ribbon), against classic {classic:.2}, this library's cuckoo {ck:.2}, the bound {lb:.2} bits per key; this library's binary fuse has 8- or 16-bit fingerprints: {:.2} bits per key at 2^-8 (filter_core::math::fuse)",
            1.23 * f,
            1.125 * f,
            1.075 * f,
            math::ribbon::ribbon_bits_per_key(10_000_000, P)?,
            math::fuse::fuse_bits_per_key(10_000_000, 8)?,
        ),
        rows: vec![],
        finding: "By formula here (the sizing functions of filter_core::math); the measured figures of this library's ribbon and binary fuse filters are in the matrix and the targets table.".into(),
        plots: vec![],
    };
    Ok((section, vec![]))
}
