//! Hashing: k positions from one hash (double hashing), and the errata of hashes done wrong
//! (32-bit hashes taken `% m`, two equal seeds). These runs hash keys themselves, so each
//! repetition's seed enters the hash functions directly.

use super::figures::{Figures, Formula, Shown};
use super::model::{Erratum, Pair, Row, Section};
use super::probe::{fill, fp, Draw};
use super::stats::Count;
use super::{Lab, Plot};
use crate::record::pct;
use anyhow::Result;
use filterlab::{math, ClassicBloom};
use xxhash_rust::xxh3::xxh3_64_with_seed;

const P: f64 = 0.01;

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
    /// Inserts every member with `pos`, then counts the draw's probes whose positions are all
    /// set.
    fn run(
        &mut self,
        lab: &Lab<'_>,
        d: &Draw,
        n: usize,
        pos: impl Fn(&[u8], &mut Vec<u64>),
    ) -> Count {
        let mut p = Vec::new();
        for i in 0..n {
            pos(lab.member_keys.get(i), &mut p);
            p.iter().for_each(|&x| self.set(x % self.m));
        }
        self.probe(lab, d, &pos)
    }

    /// Counts the draw's probes whose positions are all set.
    fn probe(&self, lab: &Lab<'_>, d: &Draw, pos: &impl Fn(&[u8], &mut Vec<u64>)) -> Count {
        let mut p = Vec::new();
        let hits = d
            .probe_range
            .clone()
            .filter(|&i| {
                pos(lab.probe_keys.get(i), &mut p);
                p.iter().all(|&x| self.get(x % self.m))
            })
            .count();
        d.count(hits as u64, d.probe_range.len() as u64)
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
    let mut pairs = Vec::new();
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
                let per = per_bucket.floor();
                format!(
                    "the bits below 2^32 mod m have {} preimages, the rest {per}: hit {:.2}x as often",
                    per + 1.0,
                    (per + 1.0) / per
                )
            } else {
                format!("only {:.1}% of the bits can ever be set", per_bucket * 100.0)
            },
            pct(fpr_modulo_bias(32, m_real, big, k)),
            pct(math::classic_fpr(m_real, big, k))
        ));
        // The same ratio 2^b / m at a size this machine affords.
        let m = (2f64.powi(b as i32) / per_bucket).round() as u64;
        let n = ((m as f64 * big as f64 / m_real as f64) as usize).min(lab.member_keys.len());
        let (mut wrong, mut right) = (Vec::new(), Vec::new());
        for d in lab.draws(&format!("hash32/{big}")) {
            let seeded = |key: &[u8], out: &mut Vec<u64>| {
                out.clear();
                out.extend(
                    (0..u64::from(k))
                        .map(|s| xxh3_64_with_seed(key, d.seed.wrapping_add(s)) >> (64 - b)),
                );
            };
            let full = |key: &[u8], out: &mut Vec<u64>| {
                out.clear();
                out.extend((0..u64::from(k)).map(|s| {
                    ((u128::from(xxh3_64_with_seed(key, d.seed.wrapping_add(s))) * u128::from(m))
                        >> 64) as u64
                }));
            };
            wrong.push(Bits::new(m).run(lab, &d, n, seeded));
            right.push(Bits::new(m).run(lab, &d, n, full));
        }
        run.push(format!("measured stand-in for {big}: {b}-bit hashes % m with m = {m}, n = {n}, k = {k}, against 64-bit hashes mapped onto [0, m)"));
        pairs.push(Pair::new(rows.len() + 1, rows.len()));
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
    let finding = String::new();
    Ok(Erratum {
        title: "32-bit hashes with % m at 100M+ keys".into(),
        mistake: "`mmh3.hash(key, seed) % m`: a 32-bit hash reaches 2^32 positions, unevenly once m is not tiny beside 2^32, and not at all beyond it.".into(),
        run,
        rows,
        pairs,
        finding,
    })
}

/// Position makers for the double-hashing runs: `k` seeded hashes, or `h1 + i·h2`.
fn seeded(m: u64, k: u32, seed: u64, dup: bool) -> impl Fn(&[u8], &mut Vec<u64>) {
    move |key: &[u8], out: &mut Vec<u64>| {
        out.clear();
        out.extend((0..u64::from(k)).map(|i| {
            let s = if dup && i == 1 { 0 } else { i };
            xxh3_64_with_seed(key, seed.wrapping_add(s)) % m
        }));
    }
}

fn double(m: u64, k: u32, seed: u64, same: bool) -> impl Fn(&[u8], &mut Vec<u64>) {
    move |key: &[u8], out: &mut Vec<u64>| {
        let h1 = xxh3_64_with_seed(key, seed) % m;
        let h2 = xxh3_64_with_seed(key, seed.wrapping_add(u64::from(!same))) % m;
        out.clear();
        out.extend((0..u64::from(k)).map(|i| (h1 + i * h2) % m));
    }
}

/// Repetitions of a [`Bits`] run named `name`, positions from `pos(seed)`.
fn bits_reps<F: Fn(&[u8], &mut Vec<u64>)>(
    lab: &Lab<'_>,
    name: &str,
    m: u64,
    pos: impl Fn(u64) -> F,
) -> Vec<Count> {
    lab.draws(name)
        .map(|d| Bits::new(m).run(lab, &d, lab.n, pos(d.seed)))
        .collect()
}

/// k positions from one hash: double hashing against k independent hashes.
pub fn one_hash(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n as u64;
    let m = math::optimal_bits(n, P)?;
    let k = math::optimal_hashes(m, n);
    let formula = math::classic_fpr(m, n, k);
    let (_, library) = lab.repeat("one_hash/library", |d| {
        let mut f = ClassicBloom::builder()
            .capacity(n)
            .fpr(P)
            .bits(m)
            .hashes(k)
            .build()?;
        fill(&mut f, &d.members)?;
        Ok(((), fp(&f, d)))
    })?;
    // A probe matches every member that shares its h1: P(some of n does) = 1 - (1 - 1/m)^n.
    let floor = -(n as f64 * (-1.0 / m as f64).ln_1p()).exp_m1();
    let rows = vec![
        Row::new(
            "k independent hashes",
            formula,
            bits_reps(lab, "one_hash/k", m, |s| seeded(m, k, s, false)),
        ),
        Row::new(
            "double hashing h1 + i·h2",
            formula,
            bits_reps(lab, "one_hash/double", m, |s| double(m, k, s, false)),
        ),
        Row::new(
            "library: enhanced double hashing of one 128-bit hash",
            math::classic_fpr_best(m, n, k),
            library,
        ),
        Row::lower(
            "double hashing with h2 = h1 (equal seeds)",
            floor,
            bits_reps(lab, "one_hash/same", m, |s| double(m, k, s, true)),
        ),
    ];
    // 10M keys at 1% as this library sizes them.
    let mut fig = Figures::default();
    let (ten_m, bits) = (
        10_000_000,
        Formula::ClassicBitsPerKey {
            n: 10_000_000,
            p: P,
        },
    );
    let m_per_n = fig.add(bits, Shown::Decimals(3))?;
    let k10 = fig.add(
        Formula::ClassicHashes { n: ten_m, p: P },
        Shown::Decimals(0),
    )?;
    let floor10 = -(-1.0 / bits.value()?).exp_m1();
    let section = Section {
        figures: fig.into_vec(),
        title: "k positions from one hash".into(),
        source: "Kirsch & Mitzenmacher 2006 (\"Less hashing, same performance\"); Dillinger & Manolios 2004 (enhanced double hashing)".into(),
        example: format!(
            "at 10M keys and {} (m/n = {m_per_n}, k = {k10}), h2 = h1 gives p >= 1 - e^(-n/m) = {}: {:.0} times the target, from one bad seed",
            pct(P),
            pct(floor10),
            floor10 / P
        ),
        rows,
        finding: format!("m = {m} bits, n = {n}, k = {k}, xxh3-64 seeded per repetition."),
        plots: vec![],
    };
    Ok((section, vec![]))
}

/// Two equal hash seeds among k seeded hashes.
pub fn equal_seeds(lab: &Lab<'_>) -> Result<Erratum> {
    let n = lab.n;
    let m = math::optimal_bits(n as u64, P)?;
    let k = math::optimal_hashes(m, n as u64);
    let rows = vec![
        Row::new(
            format!("k = {k} distinct seeds"),
            math::classic_fpr(m, n as u64, k),
            bits_reps(lab, "equal_seeds/k", m, |s| seeded(m, k, s, false)),
        ),
        Row::new(
            "two of the k seeds equal: expected as k - 1 hashes",
            math::classic_fpr(m, n as u64, k - 1),
            bits_reps(lab, "equal_seeds/dup", m, |s| seeded(m, k, s, true)),
        ),
    ];
    Ok(Erratum {
        title: "Two equal hash seeds".into(),
        mistake: format!(
            "two of the k hash functions given the same seed. Expected effect, before measuring: those two always give the same \
             position, so each key sets and tests k - 1 distinct positions in the same m bits: the rate of a filter with k - 1 \
             hashes, (1 - e^(-(k-1)n/m))^(k-1) = {} instead of {} here. (Double hashing with h2 seeded like h1 fails far worse: \
             section \"k positions from one hash\".)",
            pct(math::classic_fpr(m, n as u64, k - 1)),
            pct(math::classic_fpr(m, n as u64, k))
        ),
        run: vec![format!("m = {m} bits, n = {n}, k = {k}, xxh3-64 with seeds s, s+1, ... (s fresh per repetition)")],
        rows,
        pairs: vec![Pair::new(1, 0)],
        finding: String::new(),
    })
}

/// Fills `bits` with `n` attacker keys under `seed`: each the best of `tries` candidates (the
/// fewest positions already set). Returns the keys chosen.
fn pollute(
    bits: &mut Bits,
    n: usize,
    tries: u64,
    pos: &impl Fn(&[u8], &mut Vec<u64>),
    salt: u64,
) -> Vec<[u8; 8]> {
    let mut p = Vec::new();
    let mut chosen = Vec::with_capacity(n);
    let mut next = 0u64;
    for _ in 0..n {
        let mut best = ([0u8; 8], usize::MAX);
        for _ in 0..tries {
            let key = (next ^ salt).to_le_bytes();
            next += 1;
            pos(&key, &mut p);
            let set = p.iter().filter(|&&x| bits.get(x % bits.m)).count();
            if set < best.1 {
                best = (key, set);
            }
        }
        pos(&best.0, &mut p);
        p.iter().for_each(|&x| bits.set(x % bits.m));
        chosen.push(best.0);
    }
    chosen
}

/// Adversarial keys: inserts chosen with the seed known, against the same keys under a
/// secret seed.
pub fn adversarial(lab: &Lab<'_>) -> Result<(Section, Vec<Plot>)> {
    let n = lab.n;
    let m = math::optimal_bits(n as u64, P)?;
    let k = math::optimal_hashes(m, n as u64);
    let formula = math::classic_fpr(m, n as u64, k);
    let tries = 8;
    let (mut honest, mut known, mut secret, mut fills) = (vec![], vec![], vec![], vec![]);
    for d in lab.draws("adversarial") {
        honest.push(Bits::new(m).run(lab, &d, n, seeded(m, k, d.seed, false)));
        let open = seeded(m, k, d.seed, false);
        let mut bits = Bits::new(m);
        let chosen = pollute(&mut bits, n, tries, &open, d.seed);
        let ones: u64 = bits.words.iter().map(|w| u64::from(w.count_ones())).sum();
        fills.push(ones as f64 / m as f64);
        known.push(bits.probe(lab, &d, &open));
        let hidden = seeded(m, k, d.seed ^ 0xbb67_ae85_84ca_a73b, false);
        let mut other = Bits::new(m);
        let mut p = Vec::new();
        for key in &chosen {
            hidden(key, &mut p);
            p.iter().for_each(|&x| other.set(x % m));
        }
        secret.push(other.probe(lab, &d, &hidden));
    }
    let fill = fills.iter().sum::<f64>() / fills.len() as f64;
    let mut fig = Figures::default();
    let hashes = Formula::ClassicHashes {
        n: 10_000_000,
        p: P,
    };
    let k10 = fig.add(hashes, Shown::Decimals(0))?;
    let load = Formula::ClassicLoad {
        n: 10_000_000,
        p: P,
    }
    .value()?;
    let fill10 = -(-load).exp_m1();
    let section = Section {
        figures: fig.into_vec(),
        title: "Adversarial keys and secret seeds".into(),
        source: "Gerbet, Kumar & Lauradoux 2015 (\"The power of evil choices in Bloom filters\"); Naor & Yogev 2015".into(),
        example: format!(
            "at 10M keys and {} (k = {k10}, a fill of 1 - e^(-kn/m) = {fill10:.3}) a fill of 0.6 gives 0.6^{k10} = {} instead of {fill10:.3}^{k10} = {}",
            pct(P),
            pct(0.6f64.powf(hashes.value()?)),
            pct(fill10.powf(hashes.value()?))
        ),
        rows: vec![
            Row::new("random keys", formula, honest),
            Row::new("chosen keys (best of 8 under the known seed): operator's formula", formula, known.clone()),
            Row::new("chosen keys, known seed: (measured fill)^k", fill.powi(k as i32), known),
            Row::new("the same chosen keys under a secret seed", formula, secret),
        ],
        finding: format!(
            "m = {m}, n = {n}, k = {k}, xxh3-64 with k seeds; each attacker key is the candidate, of {tries}, with the fewest positions already set. The fill reached {fill:.4} against {:.4} for random keys.",
            -(-(k as f64) * n as f64 / m as f64).exp_m1()
        ),
        plots: vec![],
    };
    Ok((section, vec![]))
}

#[cfg(test)]
mod tests;
