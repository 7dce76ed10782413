//! The errata: each common mistake run beside the right way, measured.

use super::markdown::{rate, Erratum, Row};
use super::probe::{clearly_above, fill, fp, Measured};
use super::Lab;
use anyhow::Result;
use filterlab::{
    cuckoo, math, ClassicBloom, CountingBloom, CuckooFilter, Deletable, Filter, ScalableBloom,
};
use xxhash_rust::xxh3::xxh3_64_with_seed;

const P: f64 = 0.01;

/// "clearly worse (intervals apart), x times the right rate" or "no difference this run can see".
fn compare(wrong: &Measured, right: &Measured) -> String {
    let ratio = wrong.rate / right.rate.max(f64::MIN_POSITIVE);
    if clearly_above(wrong, right) {
        format!("The mistake is clearly worse: {ratio:.2}x the right rate, the 95% intervals do not overlap.")
    } else if clearly_above(right, wrong) {
        format!("The mistake measured lower here ({ratio:.2}x), intervals apart.")
    } else {
        format!("No difference this run can resolve: ratio {ratio:.3}, the 95% intervals overlap.")
    }
}

/// int(k) instead of round(k).
pub fn truncated_k(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k_star = m as f64 / n as f64 * std::f64::consts::LN_2;
    let run = |k: u32| super::classic_run(lab, m, k);
    let (kr, kt) = (k_star.round() as u32, k_star.trunc() as u32);
    let (right, wrong) = (run(kr)?, run(kt)?);
    Ok(Erratum {
        title: "k truncated by int()".into(),
        mistake: format!("`k = int(m/n * ln 2)` gives k = {kt} where (m/n) ln 2 = {k_star:.3} rounds to {kr}."),
        run: vec![format!("classic filter, n = {n}, m = {m} bits, {} probes, once with k = {kr} and once with k = {kt}", lab.probes.len())],
        finding: format!(
            "The formula says truncation costs {:+.2}% at 1%. {}",
            (wrong.0 / right.0 - 1.0) * 100.0,
            compare(&wrong.1, &right.1)
        ),
        rows: vec![Row::new(format!("k = {kr} (rounded)"), right.0, right.1), Row::new(format!("k = {kt} (int)"), wrong.0, wrong.1)],
    })
}

/// The size for n/10 quoted for n.
pub fn size_for_a_tenth(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n as u64;
    let run = |cap: u64| -> Result<(f64, Measured, u64)> {
        let mut f = ClassicBloom::builder().capacity(cap).fpr(P).build()?;
        fill(&mut f, &lab.members[..lab.n])?;
        Ok((f.expected_fpr(), fp(&f, &lab.probes), f.bits()))
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
            wrong.2,
            right.2
        )],
        finding: compare(&wrong.1, &right.1),
        rows: vec![Row::new(format!("sized for {n}"), right.0, right.1), Row::new(format!("sized for {}", n / 10), wrong.0, wrong.1)],
    })
}

/// A plain bit array for the experiments whose hashing differs from the library's.
struct Bits {
    words: Vec<u64>,
    m: u64,
}

impl Bits {
    fn new(m: u64) -> Self {
        Bits {
            words: vec![0; m.div_ceil(64) as usize],
            m,
        }
    }
    fn set(&mut self, i: u64) {
        self.words[(i / 64) as usize] |= 1 << (i % 64);
    }
    fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize] >> (i % 64) & 1 == 1
    }
    /// Inserts every member with `pos`, then counts the probes whose positions are all set.
    fn run(&mut self, lab: &Lab<'_>, n: usize, pos: impl Fn(&[u8], &mut Vec<u64>)) -> Measured {
        let mut p = Vec::new();
        for i in 0..n {
            pos(lab.member_keys.get(i), &mut p);
            p.iter().for_each(|&x| self.set(x % self.m));
        }
        let probes = lab.probes.len();
        let hits = (0..probes)
            .filter(|&i| {
                pos(lab.probe_keys.get(i), &mut p);
                p.iter().all(|&x| self.get(x % self.m))
            })
            .count();
        Measured::new(hits as u64, probes as u64)
    }
}

/// The classic approximation for positions that are not uniform: position j is hit with
/// probability q_j, so p ≈ (Σ q_j (1 - e^(-kn q_j)))^k. Here `b`-bit hashes taken `% m` hit the
/// first `2^b mod m` positions `floor(2^b/m) + 1` times each and the rest `floor(2^b/m)` times.
/// (Not in `filter_core::math`, whose formulas assume uniform positions.)
fn fpr_modulo_bias(b: u32, m: u64, n: u64, k: u32) -> f64 {
    let space = 2f64.powi(b as i32);
    let (heavy, light) = if m as f64 >= space {
        (0.0, space)
    } else {
        ((space as u64 % m) as f64, (m - space as u64 % m) as f64)
    };
    let per = (space / m as f64).floor();
    let term = |count: f64, weight: f64| {
        let q = weight / space;
        count * q * -(-(f64::from(k) * n as f64 * q)).exp_m1()
    };
    let reach = if m as f64 >= space {
        term(space, 1.0)
    } else {
        term(heavy, per + 1.0) + term(light, per)
    };
    reach.powi(k as i32)
}

/// 32-bit hashes taken `% m`, as in the articles' code, at 100M and 1B keys.
pub fn hash32(lab: &Lab<'_>) -> Result<Erratum> {
    let mut run = Vec::new();
    let mut rows = Vec::new();
    let b = lab.scale.hash_bits;
    for big in [100_000_000u64, 1_000_000_000] {
        let m_real = math::optimal_bits(big, P)?;
        let k = math::optimal_hashes(m_real, big);
        let per_bucket = 2f64.powi(32) / m_real as f64;
        run.push(format!(
            "{big} keys at 1%: m = {m_real} bits, 2^32/m = {per_bucket:.3}: {}; formula with the real 32-bit positions {} (intended {})",
            if per_bucket >= 1.0 {
                format!("bits below 2^32 mod m are hit {} times as often as the rest", per_bucket.floor() + 1.0)
            } else {
                format!("only {:.1}% of the bits can ever be set", per_bucket * 100.0)
            },
            rate(fpr_modulo_bias(32, m_real, big, k)),
            rate(math::classic_fpr(m_real, big, k))
        ));
        // The same ratio 2^b / m at a size this machine affords.
        let m = (2f64.powi(b as i32) / per_bucket).round() as u64;
        let n = ((m as f64 * big as f64 / m_real as f64) as usize).min(lab.member_keys.len());
        let seeded = |key: &[u8], out: &mut Vec<u64>| {
            out.clear();
            out.extend((0..u64::from(k)).map(|s| xxh3_64_with_seed(key, s) >> (64 - b)));
        };
        let full =
            |key: &[u8], out: &mut Vec<u64>| {
                out.clear();
                out.extend((0..u64::from(k)).map(|s| {
                    ((u128::from(xxh3_64_with_seed(key, s)) * u128::from(m)) >> 64) as u64
                }));
            };
        let wrong = Bits::new(m).run(lab, n, seeded);
        let right = Bits::new(m).run(lab, n, full);
        run.push(format!("measured stand-in for {big}: {b}-bit hashes % m with m = {m}, n = {n}, k = {k}, against 64-bit hashes mapped onto [0, m)"));
        rows.push(Row::new(
            format!("{big} stand-in, 64-bit hash"),
            math::classic_fpr(m, n as u64, k),
            right,
        ));
        rows.push(Row::new(
            format!("{big} stand-in, {b}-bit hash % m"),
            fpr_modulo_bias(b, m, n as u64, k),
            wrong,
        ));
    }
    let finding = format!(
        "100M: {} 1B: {}",
        compare(&rows[1].measured, &rows[0].measured),
        compare(&rows[3].measured, &rows[2].measured)
    );
    Ok(Erratum {
        title: "32-bit hashes with % m at 100M+ keys".into(),
        mistake: "`mmh3.hash(key, seed) % m`: a 32-bit hash reaches 2^32 positions, unevenly once m is not tiny beside 2^32, and not at all beyond it.".into(),
        run,
        rows,
        finding,
    })
}

/// P0 = P instead of P(1 - r) in a scalable filter.
pub fn scalable_p0(lab: &Lab<'_>) -> Result<Erratum> {
    let r = 0.9;
    let c0 = (lab.n / 32).max(1) as u64;
    let run = |fpr: f64| -> Result<(f64, f64, Measured)> {
        let mut f = ScalableBloom::builder()
            .capacity(c0)
            .fpr(fpr)
            .tightening(r)
            .build()?;
        fill(&mut f, &lab.members[..lab.n])?;
        Ok((f.initial_fpr(), f.expected_fpr(), fp(&f, &lab.probes)))
    };
    // Asking for P / (1 - r) makes the library start at P0 = P: the mistake, reproduced.
    let (right, wrong) = (run(P)?, run(P / (1.0 - r))?);
    let over = wrong.2.lo > P;
    Ok(Erratum {
        title: "P0 = P in a scalable filter".into(),
        mistake: format!("starting the first stage at the target P; the stages then sum to P/(1-r) = {:.0}P at r = {r}.", 1.0 / (1.0 - r)),
        run: vec![format!("r = {r}, s = 2, grown from {c0} to {} items; P0 = {} (right) and P0 = {} (wrong)", lab.n, rate(right.0), rate(wrong.0))],
        finding: format!(
            "{} With P0 = P the measured rate {} the target {} (lower end of its interval {}).",
            compare(&wrong.2, &right.2),
            if over { "exceeds" } else { "does not yet exceed" },
            rate(P),
            rate(wrong.2.lo)
        ),
        rows: vec![Row::new("P0 = P(1 - r)", right.1, right.2), Row::new("P0 = P", wrong.1, wrong.2)],
    })
}

/// A cuckoo table rounded up to a power of two and left at 60% load.
pub fn power_of_two_cuckoo(lab: &Lab<'_>) -> Result<Erratum> {
    let f = math::cuckoo_fingerprint_bits(P, cuckoo::SLOTS)?;
    let slots = f64::from(cuckoo::SLOTS);
    let buckets = 1u64 << ((lab.n as f64 / (slots * 0.6)).log2().floor() as u32);
    let n = (buckets as f64 * slots * 0.6).round() as usize;
    let build = |cap: u64, bits: u32| -> Result<(f64, f64, Measured, f64)> {
        let mut c = CuckooFilter::builder()
            .capacity(cap)
            .fingerprint_bits(bits)
            .build()?;
        fill(&mut c, &lab.members[..n])?;
        Ok((
            c.load_factor(),
            c.expected_fpr(),
            fp(&c, &lab.probes),
            c.size_in_bytes() as f64 * 8.0 / n as f64,
        ))
    };
    // capacity b·0.95·2^j makes the library allocate the power-of-two table.
    let pow2 = build(
        (buckets as f64 * slots * cuckoo::DESIGN_LOAD).floor() as u64,
        f,
    )?;
    let right = build(n as u64, f)?;
    let f_same = (f64::from(f) * right.0 / pow2.0).floor() as u32;
    let same_mem = build(n as u64, f_same)?;
    Ok(Erratum {
        title: "Power-of-two cuckoo tables at 60% load".into(),
        mistake: "rounding the bucket count up to a power of two: with n just above a power of two the table sits near 60% load.".into(),
        run: vec![format!(
            "{n} keys, f = {f}: {buckets} buckets (load {:.3}, {:.2} bits/key); right-sized (load {:.3}, {:.2} bits/key); right-sized with the memory spent on f = {f_same} (load {:.3}, {:.2} bits/key)",
            pow2.0, pow2.3, right.0, right.3, same_mem.0, same_mem.3
        )],
        finding: format!(
            "The power-of-two table spends {:.2}x the bits per key. Spent on fingerprints instead: {}",
            pow2.3 / right.3,
            compare(&pow2.2, &same_mem.2)
        ),
        rows: vec![
            Row::new(format!("power of two, f = {f}"), pow2.1, pow2.2),
            Row::new(format!("right-sized, f = {f}"), right.1, right.2),
            Row::new(format!("right-sized, f = {f_same}"), same_mem.1, same_mem.2),
        ],
    })
}

/// Deleting keys that were never inserted from a counting filter.
pub fn bogus_deletes(lab: &Lab<'_>) -> Result<Erratum> {
    let n0 = (lab.n / 4).max(1);
    let mut f = CountingBloom::builder()
        .capacity(n0 as u64)
        .fpr(P)
        .build()?;
    fill(&mut f, &lab.members[..n0])?;
    let fneg = |f: &CountingBloom| {
        Measured::new(
            lab.members[..n0]
                .iter()
                .filter(|&&h| !f.contains_hash(h))
                .count() as u64,
            n0 as u64,
        )
    };
    let before = fneg(&f);
    let (mut applied, mut refused) = (0u64, 0u64);
    for &h in &lab.probes {
        match f.remove_hash(h) {
            Ok(()) => applied += 1,
            Err(_) => refused += 1,
        }
    }
    let after = fneg(&f);
    Ok(Erratum {
        title: "Deleting a never-inserted key from a counting filter".into(),
        mistake: "removing keys that were never inserted; the filter refuses those it proves absent, but a false positive looks present.".into(),
        run: vec![format!(
            "counting filter for {n0} keys at 1%, filled; then remove() on {} non-members: {refused} refused (a zero counter proves them absent), {applied} applied (false positives)",
            lab.probes.len()
        )],
        finding: format!(
            "False negatives among the inserted keys: {} before, {} after the {applied} wrong deletions. {}",
            before.hits,
            after.hits,
            if after.hits > before.hits { "Each wrong deletion decremented counters that real keys rely on." } else { "None appeared in this run." }
        ),
        rows: vec![Row::measured("false negatives before", before), Row::measured("false negatives after", after)],
    })
}

/// Two equal hash seeds.
pub fn equal_seeds(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n;
    let m = math::optimal_bits(n as u64, P)?;
    let k = math::optimal_hashes(m, n as u64);
    let formula = math::classic_fpr(m, n as u64, k);
    let double = |s2: u64| {
        move |key: &[u8], out: &mut Vec<u64>| {
            let (h1, h2) = (
                xxh3_64_with_seed(key, 1) % m,
                xxh3_64_with_seed(key, s2) % m,
            );
            out.clear();
            out.extend((0..u64::from(k)).map(|i| (h1 + i * h2) % m));
        }
    };
    let seeded = |dup: bool| {
        move |key: &[u8], out: &mut Vec<u64>| {
            out.clear();
            out.extend(
                (0..u64::from(k))
                    .map(|i| xxh3_64_with_seed(key, if dup && i == 1 { 0 } else { i }) % m),
            );
        }
    };
    let rows = vec![
        Row::new(
            "k seeds 0..k",
            formula,
            Bits::new(m).run(lab, n, seeded(false)),
        ),
        Row::new(
            "k seeds, two equal",
            formula,
            Bits::new(m).run(lab, n, seeded(true)),
        ),
        Row::new(
            "double hashing, seeds 1 and 2",
            formula,
            Bits::new(m).run(lab, n, double(2)),
        ),
        Row::new(
            "double hashing, seeds 1 and 1",
            formula,
            Bits::new(m).run(lab, n, double(1)),
        ),
    ];
    let finding = format!(
        "k seeded hashes with two equal: {} Double hashing with h1 = h2: {}",
        compare(&rows[1].measured, &rows[0].measured),
        compare(&rows[3].measured, &rows[2].measured)
    );
    Ok(Erratum {
        title: "Two equal hash seeds".into(),
        mistake: "two of the k hash functions given the same seed (or h2 seeded like h1 in double hashing), so fewer independent positions than k.".into(),
        run: vec![format!("m = {m} bits, n = {n}, k = {k}, xxh3-64 with the seeds shown; the formula column is what the author expects")],
        rows,
        finding,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modulo_bias_formula_reduces_to_the_classic_one() {
        // m dividing 2^b: uniform positions, the classic approximation.
        let (m, n, k) = (1u64 << 16, 5000, 7);
        assert!((fpr_modulo_bias(20, m, n, k) / math::classic_fpr(m, n, k) - 1.0).abs() < 1e-9);
        // m beyond 2^b: only 2^b bits reachable.
        assert!(
            (fpr_modulo_bias(16, 1 << 18, n, k) / math::classic_fpr(1 << 16, n, k) - 1.0).abs()
                < 1e-9
        );
        // Uneven coverage raises the rate.
        let uneven = fpr_modulo_bias(20, 234_000, 24_000, 7);
        assert!(uneven > math::classic_fpr(234_000, 24_000, 7));
    }

    #[test]
    fn compare_says_what_the_intervals_allow() {
        let low = Measured::new(100, 10_000);
        let high = Measured::new(400, 10_000);
        assert!(compare(&high, &low).starts_with("The mistake is clearly worse: 4.00x"));
        assert!(compare(&low, &low).starts_with("No difference"));
        assert!(compare(&low, &high).starts_with("The mistake measured lower"));
    }
}
