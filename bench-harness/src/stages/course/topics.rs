//! Course topics on using a filter: estimating n from the fill, union and intersection,
//! deleting keys never inserted, repeated queries, adversaries, and reading a Wilson interval.

use super::figures::{Figures, Formula, Shown};
use super::model::{Row, Section};
use super::probe::{fill, fp, remix, Draw};
use super::stats::Count;
use super::tables::poisson_tail;
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::Result;
use filterlab::{
    cuckoo, math, ClassicBloom, CountingBloom, CuckooFilter, Deletable, Filter, Hash128,
};

const P: f64 = 0.01;

fn classic(m: u64, k: u32) -> filterlab::Result<ClassicBloom> {
    ClassicBloom::builder()
        .capacity(1000)
        .fpr(P)
        .bits(m)
        .hashes(k)
        .build()
}

/// Estimating n from the fraction of bits set.
pub fn fill_ratio(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k = math::optimal_hashes(m, n);
    let mut estimates = Vec::new();
    let (_, counts) = lab.repeat("fill_ratio", |d| {
        let mut f = classic(m, k)?;
        fill(&mut f, &d.members)?;
        estimates.push(f.estimate_distinct());
        Ok(((), d.count((f.fill_ratio() * m as f64).round() as u64, m)))
    })?;
    let lambda = f64::from(k) * n as f64 / m as f64;
    // Exact mean fill 1 - (1 - 1/m)^(kn); occupancy variance of X, through dn/dX = 1/(k e^-λ).
    let expected = -(f64::from(k) * n as f64 * (-1.0 / m as f64).ln_1p()).exp_m1();
    let var_x = m as f64 * (-lambda).exp() * (1.0 - (1.0 + lambda) * (-lambda).exp());
    let sd_n = var_x.sqrt() / (f64::from(k) * (-lambda).exp());
    let mean = estimates.iter().sum::<f64>() / estimates.len() as f64;
    let sd = (estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>()
        / (estimates.len() as f64 - 1.0).max(1.0))
    .sqrt();
    let section = Section {
        figures: Vec::new(),
        title: "Estimating n from the fill ratio".into(),
        source: "Swamidass & Baldi 2007; Papapetrou, Siberski & Nejdl 2010".into(),
        example: {
            let (m10, n10) = (math::optimal_bits(10_000_000, P)?, 10_000_000f64);
            let k10 = math::optimal_hashes(m10, 10_000_000);
            let l = f64::from(k10) * n10 / m10 as f64;
            let v = m10 as f64 * (-l).exp() * (1.0 - (1.0 + l) * (-l).exp());
            format!(
                "at 10M keys and 1% (k = {k10}, λ = {l:.3}) the fill is {:.4} and sd(n̂) ≈ {:.0} keys ({:.3}%)",
                -(-l).exp_m1(),
                v.sqrt() / (f64::from(k10) * (-l).exp()),
                v.sqrt() / (f64::from(k10) * (-l).exp()) / n10 * 100.0
            )
        },
        rows: vec![Row::new("fraction of bits set", expected, counts)],
        finding: format!(
            "m = {m}, k = {k}, n = {n}: over {} repetitions n̂ averaged {mean:.0} ({:+.3}%), spread (sd) {sd:.1} against the predicted {sd_n:.1}.",
            estimates.len(),
            (mean / n as f64 - 1.0) * 100.0
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Union (OR) and intersection (AND) of two classic filters with equal m, k and hasher.
pub fn union_intersection(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let q = lab.n / 4;
    let m = math::optimal_bits(lab.n as u64, P)?;
    let k = math::optimal_hashes(m, lab.n as u64);
    let mut identical = 0;
    let (_, union) = lab.repeat("union", |d| {
        let (mut a, mut b, mut both) = (classic(m, k)?, classic(m, k)?, classic(m, k)?);
        fill(&mut a, &d.members[..2 * q])?;
        fill(&mut b, &d.members[q..3 * q])?;
        fill(&mut both, &d.members[..3 * q])?;
        a.union(&b)?;
        identical += usize::from(a.fill_ratio() == both.fill_ratio() && fp(&a, d) == fp(&both, d));
        Ok(((), fp(&a, d)))
    })?;
    let (_, inter) = lab.repeat("intersection", |d| {
        let (mut a, mut b) = (classic(m, k)?, classic(m, k)?);
        fill(&mut a, &d.members[..2 * q])?;
        fill(&mut b, &d.members[q..3 * q])?;
        a.intersect(&b)?;
        Ok(((), fp(&a, d)))
    })?;
    let (_, alone) = lab.repeat("intersection_alone", |d| {
        let mut f = classic(m, k)?;
        fill(&mut f, &d.members[q..2 * q])?;
        Ok(((), fp(&f, d)))
    })?;
    // A bit is 0 after j keys with probability z^j, z = (1 - 1/m)^k.
    let z = |j: usize| (j as f64 * f64::from(k) * (-1.0 / m as f64).ln_1p()).exp();
    let and_bit = 1.0 - z(q) + z(q) * (1.0 - z(q)) * (1.0 - z(q));
    let and_formula = and_bit.powi(k as i32);
    let section = Section {
        figures: Vec::new(),
        title: "Union and intersection".into(),
        source: "Broder & Mitzenmacher 2004, §2.5; Guo et al. 2010 for the intersection".into(),
        example: format!(
            "two filters of 10M keys each sized for 20M at 1% sharing 5M keys: the union is the filter of 15M keys, the intersection's bits are 1 with probability {}",
            pct({
                let (m10, k10) = (math::optimal_bits(20_000_000, P)?, 7);
                let z10 = |j: f64| (j * f64::from(k10) * (-1.0 / m10 as f64).ln_1p()).exp();
                1.0 - z10(5e6) + z10(5e6) * (1.0 - z10(5e6)).powi(2)
            })
        ),
        rows: vec![
            Row::new(format!("A | B ({} keys)", 3 * q), math::classic_fpr(m, 3 * q as u64, k), union),
            Row::new(format!("A & B (|I| = {q}, |A \\ I| = |B \\ I| = {q})"), and_formula, inter),
            Row::new(format!("filter of A ∩ B alone ({q} keys)"), math::classic_fpr(m, q as u64, k), alone),
        ],
        finding: format!(
            "m = {m}, k = {k}. The union equalled the filter built from A ∪ B (same fill, same answers on every probe) in {identical} of {} repetitions.",
            lab.reps
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// `(applied deletions, members lost)` after removing every probe of `d` from a filled filter.
fn delete_probes<F: Filter + Deletable>(f: &mut F, members: &[Hash128], d: &Draw) -> (u64, u64) {
    let applied = d
        .probes
        .iter()
        .filter(|&&h| f.remove_hash(h).is_ok())
        .count() as u64;
    let lost = members.iter().filter(|&&h| !f.contains_hash(h)).count() as u64;
    (applied, lost)
}

/// Deleting keys that were never inserted, from counting and cuckoo filters.
pub fn deleting_non_members(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n0 = lab.n / 4;
    let d_count = (lab.probes.len() / lab.reps) as f64;
    let (mut c_applied, mut c_lost, mut k_applied, mut k_lost) = (vec![], vec![], vec![], vec![]);
    let (mut c_shape, mut k_shape) = ((0u64, 0u32, 0.0), (0u32, 0.0));
    for d in lab.draws("deletes") {
        let mut c = CountingBloom::builder()
            .capacity(n0 as u64)
            .fpr(P)
            .build()?;
        fill(&mut c, &d.members[..n0])?;
        c_shape = (c.counters(), c.hashes(), c.expected_fpr());
        let (a, l) = delete_probes(&mut c, &d.members[..n0], &d);
        c_applied.push(d.count(a, d.probes.len() as u64));
        c_lost.push(d.count(l, n0 as u64));
        let mut t = CuckooFilter::builder().capacity(n0 as u64).fpr(P).build()?;
        fill(&mut t, &d.members[..n0])?;
        k_shape = (t.fingerprint_bits(), t.load_factor());
        let (a, l) = delete_probes(&mut t, &d.members[..n0], &d);
        k_applied.push(d.count(a, d.probes.len() as u64));
        k_lost.push(d.count(l, n0 as u64));
    }
    let (m, k, pc) = c_shape;
    let lambda = f64::from(k) * n0 as f64 / m as f64;
    // Decrements land on the non-zero counters: μ per counter; a member's counter holds
    // V = 1 + Poisson(λ) and is emptied if it takes at least V of them.
    let mu = d_count * pc * f64::from(k) / (m as f64 * -(-lambda).exp_m1());
    let emptied: f64 = (1..60)
        .map(|v| {
            let pv = (-lambda).exp() * lambda.powi(v - 1) / (1..v).map(f64::from).product::<f64>();
            pv * poisson_tail(mu, v as u32)
        })
        .sum();
    let c_fn = 1.0 - (1.0 - emptied).powi(k as i32);
    let (f, load) = k_shape;
    let pk = math::cuckoo_fpr(f, cuckoo::SLOTS, load);
    let mut fig = Figures::default();
    let f10 = Formula::CuckooFingerprintBits {
        p: P,
        slots: cuckoo::SLOTS,
    };
    let f10_text = fig.add(f10, Shown::Decimals(0))?;
    let p10 = math::cuckoo_fpr(f10.value()? as u32, cuckoo::SLOTS, cuckoo::DESIGN_LOAD);
    let section = Section {
        figures: fig.into_vec(),
        title: "Deleting keys that were never inserted".into(),
        source: "Fan, Cao, Almeida & Broder 2000; Fan, Andersen, Kaminsky & Mitzenmacher 2014, §3.3 (deletion needs a key that was inserted)".into(),
        example: format!(
            "a cuckoo filter of 10M keys at {} (f = {f10_text}, α = {}, p = {}) that is asked to delete 1M random non-members loses about {:.0} members",
            pct(P),
            cuckoo::DESIGN_LOAD,
            pct(p10),
            1e6 * p10
        ),
        rows: vec![
            Row::new("counting: deletions applied", pc, c_applied),
            Row::new("counting: members lost", c_fn, c_lost),
            Row::new("cuckoo: deletions applied", pk, k_applied),
            Row::new("cuckoo: members lost", d_count * pk / n0 as f64, k_lost),
        ],
        finding: format!(
            "{n0} members, then remove() on {d_count:.0} non-members per repetition. Counting: m = {m}, k = {k}, μ = {mu:.4}. \
             Cuckoo: f = {f}, load {load:.3}. A key the filter proves absent is refused; the harm comes only from false positives. \
             The counting formulas are first order: they take p before the deletions, while every applied deletion empties \
             counters and lowers p for the ones after it, so they err high when D is large beside n (here D = {:.1} n).",
            d_count / n0 as f64
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Queries the draw's probes `times` times on `f`: how many were positive every time.
fn always_positive(f: &ClassicBloom, probes: &[Hash128], times: usize) -> u64 {
    probes
        .iter()
        .filter(|&&h| (0..times).all(|_| f.contains_hash(h)))
        .count() as u64
}

/// Repeated queries of one non-member are one trial, not many.
pub fn repeated_queries(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k = math::optimal_hashes(m, n);
    let p = math::classic_fpr_best(m, n, k);
    let (mut thrice, mut again, mut fresh) = (vec![], vec![], vec![]);
    for d in lab.draws("repeated") {
        let mut f = classic(m, k)?;
        fill(&mut f, &d.members)?;
        let found: Vec<Hash128> = d
            .probes
            .iter()
            .copied()
            .filter(|&h| f.contains_hash(h))
            .collect();
        thrice.push(d.count(always_positive(&f, &d.probes, 3), d.probes.len() as u64));
        again.push(d.count(always_positive(&f, &found, 1), found.len() as u64));
        // The same keys under a fresh seed: a new filter, new positions.
        let other = d.seed ^ 0x6a09_e667_f3bc_c908;
        let mut g = classic(m, k)?;
        let members: Vec<Hash128> = d.members.iter().map(|&h| remix(h, other)).collect();
        fill(&mut g, &members)?;
        let hits = found
            .iter()
            .filter(|&&h| g.contains_hash(remix(h, other)))
            .count();
        fresh.push(d.count(hits as u64, found.len() as u64));
    }
    let section = Section {
        figures: Vec::new(),
        title: "Repeated queries of one non-member are not independent".into(),
        source: "Bloom 1970 (the answer is deterministic); Broder & Mitzenmacher 2004".into(),
        example: format!(
            "at p = 1%, three queries of one non-member pass together with probability 1%, not {}",
            pct(1e-6)
        ),
        rows: vec![
            Row::new(
                "non-members positive on 3 of 3 queries (p, not p^3)",
                p,
                thrice,
            ),
            Row::new("false positives asked again, same filter", 1.0, again),
            Row::new(
                "the same false positives, filter rebuilt with a fresh seed",
                p,
                fresh,
            ),
        ],
        finding: format!(
            "m = {m}, k = {k}, n = {n}; p^3 would be {}.",
            pct(p.powi(3))
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Reading a Wilson interval: its formula, and its coverage when the fill varies.
pub fn wilson(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let probes = (lab.probes.len() / lab.reps).min(2000);
    let per_rep = 40u64;
    let mut rows = Vec::new();
    for (n, label) in [(lab.n.min(2000), "large"), (32, "small")] {
        let m = math::optimal_bits(n as u64, P)?;
        let k = math::optimal_hashes(m, n as u64);
        let formula = math::classic_fpr_best(m, n as u64, k);
        let mut counts: Vec<Count> = Vec::new();
        for d in lab.draws(&format!("wilson/{label}")) {
            let mut covered = 0;
            for j in 0..per_rep {
                let s = d.seed.wrapping_add(j);
                let mut f = classic(m, k)?;
                for &h in &d.members[..n] {
                    f.insert_hash(remix(h, s))?;
                }
                let hits = d.probes[..probes]
                    .iter()
                    .filter(|&&h| f.contains_hash(remix(h, s)))
                    .count();
                let (lo, hi) = math::wilson_interval(hits as u64, probes as u64, super::stats::Z95);
                covered += u64::from(lo <= formula && formula <= hi);
            }
            counts.push(d.count(covered, per_rep));
        }
        rows.push(Row::new(
            format!("coverage of the per-filter 95% interval: m = {m}, n = {n}, {probes} probes"),
            0.95,
            counts,
        ));
    }
    let (lo, hi) = math::wilson_interval(100, 10_000, super::stats::Z95);
    let section = Section {
        figures: Vec::new(),
        title: "Reading a Wilson interval".into(),
        source: "Wilson 1927; Brown, Cai & DasGupta 2001".into(),
        example: format!(
            "100 false positives in 10,000 probes: p̂ = 1%, interval {} – {} (not symmetric); 0 in 10,000: 0 – {}",
            pct(lo),
            pct(hi),
            pct(math::wilson_interval(0, 10_000, super::stats::Z95).1)
        ),
        rows,
        finding: format!(
            "Each repetition builds {per_rep} filters with fresh seeds and asks whether each one's interval over {probes} probes holds the formula: \
             near 95% where the fill barely varies, below it for the small filter."
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}
