//! The errata: each common mistake run beside the right way, measured.

use super::model::{Erratum, Pair, Row};
use super::probe::{fill, fp};
use super::Lab;
use crate::record::pct;
use anyhow::Result;
use filterlab::{cuckoo, math, ClassicBloom, CuckooFilter, Filter, ScalableBloom};

const P: f64 = 0.01;

/// int(k) instead of round(k).
pub fn truncated_k(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k_star = m as f64 / n as f64 * std::f64::consts::LN_2;
    let run = |k: u32| super::classic_run(lab, &format!("truncated_k/{k}"), m, k);
    let (kr, kt) = (k_star.round() as u32, k_star.trunc() as u32);
    let (right, wrong) = (run(kr)?, run(kt)?);
    Ok(Erratum {
        title: "k truncated by int()".into(),
        mistake: format!("`k = int(m/n * ln 2)` gives k = {kt} where (m/n) ln 2 = {k_star:.3} rounds to {kr}."),
        run: vec![format!("classic filter, n = {n}, m = {m} bits, {} probes, once with k = {kr} and once with k = {kt}", lab.probes.len())],
        finding: format!(
            "The formula says truncation costs {:+.2}% at 1%: expect no difference a run of this size can resolve.",
            (wrong.0 / right.0 - 1.0) * 100.0,
        ),
        rows: vec![Row::new(format!("k = {kr} (rounded)"), right.0, right.1), Row::new(format!("k = {kt} (int)"), wrong.0, wrong.1)],
        pairs: vec![Pair::new(1, 0)],
    })
}

/// The size for n/10 quoted for n.
pub fn size_for_a_tenth(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n as u64;
    let run = |cap: u64| {
        lab.repeat(&format!("tenth/{cap}"), |d| {
            let mut f = ClassicBloom::builder().capacity(cap).fpr(P).build()?;
            fill(&mut f, &d.members)?;
            Ok(((f.expected_fpr(), f.bits()), fp(&f, d)))
        })
    };
    let (right, wrong) = (run(n)?, run(n / 10)?);
    Ok(Erratum {
        title: "The size for 1M quoted as the size for 10M".into(),
        mistake: format!(
            "an article's m for 1M keys at 1% ({} bits, {:.2} MB) reused for 10M keys ({} bits needed).",
            math::optimal_bits(1_000_000, P)?,
            math::optimal_bits(1_000_000, P)? as f64 / 8e6,
            math::optimal_bits(10_000_000, P)?
        ),
        run: vec![format!(
            "scaled by 1/{}: {n} keys into a filter sized for {} ({} bits) and into one sized for {n} ({} bits)",
            10_000_000 / n.max(1),
            n / 10,
            wrong.0 .1,
            right.0 .1
        )],
        finding: String::new(),
        rows: vec![Row::new(format!("sized for {n}"), right.0 .0, right.1), Row::new(format!("sized for {}", n / 10), wrong.0 .0, wrong.1)],
        pairs: vec![Pair::new(1, 0)],
    })
}

/// P0 = P instead of P(1 - r) in a scalable filter.
pub fn scalable_p0(lab: &Lab<'_>) -> Result<Erratum> {
    let r = 0.9;
    let c0 = (lab.n / 32).max(1) as u64;
    let run = |fpr: f64| {
        lab.repeat(&format!("scalable_p0/{fpr}"), |d| {
            let mut f = ScalableBloom::builder()
                .capacity(c0)
                .fpr(fpr)
                .tightening(r)
                .build()?;
            fill(&mut f, &d.members)?;
            Ok(((f.initial_fpr(), f.expected_fpr()), fp(&f, d)))
        })
    };
    // Asking for P / (1 - r) makes the library start at P0 = P: the mistake, reproduced.
    let (right, wrong) = (run(P)?, run(P / (1.0 - r))?);
    Ok(Erratum {
        title: "P0 = P in a scalable filter".into(),
        mistake: format!("starting the first stage at the target P; the stages then sum to P/(1-r) = {:.0}P at r = {r}.", 1.0 / (1.0 - r)),
        run: vec![format!("r = {r}, s = 2, grown from {c0} to {} items; P0 = {} (right) and P0 = {} (wrong)", lab.n, pct(right.0 .0), pct(wrong.0 .0))],
        finding: "The target row tests the mistake's rate against the target P as an upper bound.".into(),
        rows: vec![
            Row::new("P0 = P(1 - r)", right.0 .1, right.1.clone()),
            Row::new("P0 = P", wrong.0 .1, wrong.1.clone()),
            Row::upper("P0 = P against the target P", P, wrong.1),
        ],
        pairs: vec![Pair::new(1, 0)],
    })
}

/// A cuckoo table rounded up to a power of two.
pub fn power_of_two_cuckoo(lab: &Lab<'_>) -> Result<Erratum> {
    let f = math::cuckoo_fingerprint_bits(P, cuckoo::SLOTS)?;
    let slots = f64::from(cuckoo::SLOTS);
    let buckets = 1u64 << ((lab.n as f64 / (slots * 0.6)).log2().floor() as u32);
    let n = (buckets as f64 * slots * 0.6).round() as usize;
    let build = |cap: u64, bits: u32| {
        lab.repeat(&format!("pow2/{cap}/{bits}"), |d| {
            let mut c = CuckooFilter::builder()
                .capacity(cap)
                .fingerprint_bits(bits)
                .build()?;
            fill(&mut c, &d.members[..n])?;
            let load = c.load_factor();
            let bpk = c.size_in_bytes() as f64 * 8.0 / n as f64;
            let formula = math::cuckoo_fpr(bits, cuckoo::SLOTS, load);
            Ok(((load, formula, bpk), fp(&c, d)))
        })
    };
    // capacity b·0.95·2^j makes the library allocate the power-of-two table.
    let (pow2, pow2_c) = build(
        (buckets as f64 * slots * cuckoo::DESIGN_LOAD).floor() as u64,
        f,
    )?;
    let (right, right_c) = build(n as u64, f)?;
    let f_same = (f64::from(f) * right.0 / pow2.0).floor() as u32;
    let (same, same_c) = build(n as u64, f_same)?;
    // n = 10M: 10M / (4 · 0.95) = 2.63M buckets, rounded up to 2^22 = 4.19M.
    let ten_m = 10_000_000f64;
    let b10 = 2f64.powf((ten_m / (slots * cuckoo::DESIGN_LOAD)).log2().ceil());
    let just_above = (b10 / 2.0) * slots * cuckoo::DESIGN_LOAD + 1.0;
    Ok(Erratum {
        title: "Power-of-two cuckoo tables".into(),
        mistake: format!(
            "rounding the bucket count up to a power of two. Just above a power of two the table sits at about 50% load \
             ({just_above:.0} keys sized for 95% need {} buckets, rounded up to {b10:.0}: load {:.3}); 10M keys land at {:.3}. \
             Tables are often powers of two because the original alternate bucket alt(i, φ) = i XOR h(φ) must stay inside the \
             table and be its own inverse, which XOR guarantees only for a power-of-two B. This library uses \
             alt(i, φ) = (h(φ) - i) mod B, an involution for any B, and sizes the table for 95%.",
            (just_above / (slots * cuckoo::DESIGN_LOAD)).ceil(),
            just_above / (b10 * slots),
            ten_m / (b10 * slots)
        ),
        run: vec![format!(
            "this run places {n} keys at 60% of a power-of-two table, f = {f}: {buckets} buckets (load {:.3}, {:.2} bits/key); \
             right-sized (load {:.3}, {:.2} bits/key); right-sized with the memory spent on f = {f_same} (load {:.3}, {:.2} bits/key); \
             formulas: the bucket-pair formula of section \"Cuckoo filter\"",
            pow2.0, pow2.2, right.0, right.2, same.0, same.2
        )],
        finding: format!("The power-of-two table spends {:.2}x the bits per key.", pow2.2 / right.2),
        rows: vec![
            Row::new(format!("power of two, f = {f}"), pow2.1, pow2_c),
            Row::new(format!("right-sized, f = {f}"), right.1, right_c),
            Row::new(format!("right-sized, f = {f_same}"), same.1, same_c),
        ],
        pairs: vec![Pair::new(0, 2)],
    })
}

#[cfg(test)]
mod tests;
