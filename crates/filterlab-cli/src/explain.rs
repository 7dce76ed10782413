//! The teaching mode: each formula of a variant with this filter's numbers substituted, and for a
//! key the positions it touches.
//!
//! The positions are computed the way the variants compute them (their index functions are
//! private); the tests insert the key into a real filter and check that exactly the reported
//! bits, counters, lanes or slot changed in the saved bytes, so the explanation cannot drift.

use crate::plan::{Detail, Plan};
use filter_core::{math, reduce, Hash128, IndexGen, KeyHasher};
use serde::Serialize;

/// One formula, symbolic and substituted.
#[derive(Debug, Serialize)]
pub struct Formula {
    /// What it computes.
    pub name: &'static str,
    /// The formula in symbols.
    pub symbolic: &'static str,
    /// The formula with this filter's numbers, and its value.
    pub substituted: String,
    /// Where it comes from.
    pub source: &'static str,
}

/// Where a key lands in a filter.
#[derive(Debug, Serialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Touch {
    /// Classic and counting: the k bit (counter) positions, in probe order.
    Positions {
        /// Positions in `[0, m)`.
        positions: Vec<u64>,
    },
    /// Scalable: the positions in the first stage (later stages use their own `m` and `k`).
    Stage0 {
        /// Positions in `[0, m0)`.
        positions: Vec<u64>,
    },
    /// Blocked: one block, one bit per 32-bit lane.
    Block {
        /// Block index.
        block: u64,
        /// Bit (0..32) set in each of the eight lanes.
        lane_bits: [u32; 8],
    },
    /// Cuckoo: the fingerprint and its two candidate buckets.
    Buckets {
        /// Fingerprint, in `1..2^f`.
        fingerprint: u64,
        /// Primary bucket.
        primary: u64,
        /// Alternate bucket.
        alternate: u64,
    },
}

/// The formulas of `plan`'s variant with its numbers.
pub fn formulas(plan: &Plan) -> Vec<Formula> {
    let (n, p) = (plan.n, plan.fpr);
    let mut out = vec![Formula {
        name: "lower bound",
        symbolic: "bits >= n log2(1/p)",
        substituted: format!(
            "{n} × log2(1/{}) = {:.0} bits; this variant uses {:.0} bits ({:+.1}%)",
            math::format_real(p),
            plan.lower_bound_bits,
            plan.bytes as f64 * 8.0,
            plan.overhead_pct
        ),
        source: "Carter, Floyd, Gill, Markowsky & Wegman 1978",
    }];
    match &plan.detail {
        Detail::Classic { m, k } => out.extend(bloom_formulas(n, p, *m, *k)),
        Detail::Counting {
            m,
            k,
            counter_bits,
            overflow_bound,
        } => {
            out.extend(bloom_formulas(n, p, *m, *k));
            out.push(counting_formula(n, *m, *k, *counter_bits, *overflow_bound));
        }
        _ => {}
    }
    if let Detail::Cuckoo {
        fingerprint_bits: f,
        buckets,
        slots: b,
        load,
    } = &plan.detail
    {
        out.extend(cuckoo_formulas(p, *f, *buckets, *b, *load));
    }
    if let Detail::Blocked {
        blocks,
        keys_per_block,
    } = &plan.detail
    {
        out.push(Formula {
            name: "false-positive rate (per-lane)",
            symbolic: "p = Σ_c Pois(c; n/B) · (1 - (31/32)^c)^8",
            substituted: format!(
                "B = ceil({n} / λ = {keys_per_block:.3}) = {blocks}; p = {}",
                rate(math::split_block_fpr(*blocks, n))
            ),
            source: "Putze, Sanders & Singler 2007, §3 (split-block layout of Parquet)",
        });
        out.push(Formula {
            name: "256-bit-block model (underestimates)",
            symbolic: "p = Σ_c Pois(c; n/B) · (1 - (255/256)^(8c))^8",
            substituted: rate(math::split_block_fpr_block_model(*blocks, n)),
            source: "ignores that a key's 8 bits are confined to 8 distinct lanes",
        });
    }
    if let Detail::Scalable { p0, r, s, growth } = &plan.detail {
        out.extend(scalable_formulas(p, *p0, *r, *s, growth));
    }
    out
}

fn counting_formula(n: u64, m: u64, k: u32, counter_bits: u32, bound: f64) -> Formula {
    let j = 1u64 << counter_bits;
    Formula {
        name: "counter overflow",
        symbolic: "P(max counter >= 2^c) <= m · C(nk, 2^c) · m^-(2^c)",
        substituted: format!("{m} · C({n}·{k}, {j}) · {m}^-{j} = {bound:.3e}"),
        source: "Fan, Cao, Almeida & Broder 2000, Summary Cache, §5.2",
    }
}

/// A rate with six decimals, or in scientific notation below 1e-4 (where six decimals read 0).
fn rate(x: f64) -> String {
    if x >= 1e-4 {
        format!("{x:.6}")
    } else {
        format!("{x:.4e}")
    }
}

/// The textbook `m`, and what `math::classic_shape` made of it when the exact rate missed `p`.
fn bits_substituted(n: u64, p: f64, m: u64) -> String {
    let textbook = math::optimal_bits(n, p).unwrap_or(m);
    let first = format!(
        "ceil(-{n} × ln {} / 0.4805) = {textbook}",
        math::format_real(p)
    );
    if textbook == m {
        first
    } else {
        format!("{first}, grown to {m} so that the exact rate meets the target (small n)")
    }
}

fn bloom_formulas(n: u64, p: f64, m: u64, k: u32) -> Vec<Formula> {
    let ratio = m as f64 / n as f64;
    vec![
        Formula {
            name: "bits",
            symbolic: "m = ceil(-n ln p / (ln 2)^2)",
            substituted: bits_substituted(n, p, m),
            source: "Bloom 1970; Broder & Mitzenmacher 2004, §2.1",
        },
        Formula {
            name: "hash functions",
            symbolic: "k = round((m/n) ln 2)",
            substituted: format!(
                "round({ratio:.4} × 0.6931) = round({:.4}) = {k}",
                ratio * std::f64::consts::LN_2
            ),
            source: "Bloom 1970 (rounded, not truncated by int())",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "p ≈ (1 - e^(-kn/m))^k",
            substituted: format!(
                "(1 - e^(-{k}/{ratio:.4}))^{k} = {}",
                rate(math::classic_fpr(m, n, k))
            ),
            source: "Bloom 1970; Broder & Mitzenmacher 2004",
        },
        Formula {
            name: "false-positive rate (exact)",
            symbolic: "p = Σ_d S(k,d) (m)_d / m^k · Σ_i (-1)^i C(d,i) (1 - i/m)^(kn)",
            substituted: rate(math::classic_fpr_best(m, n, k)),
            source: "Christensen, Roginsky & Jimeno 2010",
        },
    ]
}

fn cuckoo_formulas(p: f64, f: u32, buckets: u64, b: u32, load: f64) -> Vec<Formula> {
    vec![
        Formula {
            name: "fingerprint bits",
            symbolic: "f = ceil(log2(2b / p))",
            substituted: format!("ceil(log2(2·{b} / {})) = {f}", math::format_real(p)),
            source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.1",
        },
        Formula {
            name: "buckets",
            symbolic: "buckets = ceil(n / (b · 0.95))",
            substituted: format!("{buckets} buckets of {b} slots, load α = {load:.4}"),
            source: "partial-key cuckoo hashing fails near 95-98% load with b = 4",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "p = 1 - e^(-2bα/(2^f - 1)), below the bound 1 - (1 - 1/(2^f - 1))^(2bα)",
            substituted: format!(
                "1 - e^(-2·{b}·{load:.4}/{}) = {} (bound {})",
                (1u64 << f) - 1,
                rate(math::cuckoo_fpr(f, b, load)),
                rate(math::cuckoo_fpr_upper_bound(f, b, load))
            ),
            source: "Fan et al. 2014, §5.1, counting only keys of the query's bucket pair \
                     (math::cuckoo_fpr_exact; 0 reserved for an empty slot)",
        },
        Formula {
            name: "bits per item",
            symbolic: "C = f / α",
            substituted: format!(
                "{f} / {load:.4} = {:.3}",
                math::cuckoo_bits_per_item(f, load)
            ),
            source: "Fan et al. 2014, §5.2",
        },
    ]
}

fn scalable_formulas(
    p: f64,
    p0: f64,
    r: f64,
    s: f64,
    growth: &[crate::plan::Growth],
) -> Vec<Formula> {
    let mut out = vec![
        Formula {
            name: "first-stage rate",
            symbolic: "P0 = P (1 - r)",
            substituted: format!("{} × (1 - {r}) = {}", math::format_real(p), rate(p0)),
            source: "Almeida, Baquero, Preguiça & Hutchison 2007, §4",
        },
        Formula {
            name: "stage i",
            symbolic: "n_i = n0 s^i,  P_i = P0 r^i",
            substituted: format!(
                "s = {s}, r = {r}: stage 1 at {}",
                rate(math::scalable_stage_fpr(p0, r, 1))
            ),
            source: "Almeida et al. 2007",
        },
        Formula {
            name: "compound bound",
            symbolic: "P <= Σ P0 r^i = P0 / (1 - r)",
            substituted: format!(
                "{} / (1 - {r}) = {}",
                rate(p0),
                rate(math::scalable_fpr_bound(p0, r))
            ),
            source: "Almeida et al. 2007, eq. 3",
        },
    ];
    for g in growth {
        out.push(Formula {
            name: "compound rate after growth",
            symbolic: "p = 1 - Π (1 - p_i)",
            substituted: format!(
                "at {}x: {} stages, {} bytes, p = {} <= {}",
                g.multiple,
                g.stages,
                g.bytes,
                rate(g.compound_fpr),
                rate(g.bound)
            ),
            source: "independent stages queried in turn",
        });
    }
    out
}

/// Where `key` lands in a filter of `plan`'s shape, hashed with `hasher`.
pub fn touch(plan: &Plan, hasher: KeyHasher, key: &[u8]) -> Touch {
    let h = hasher.hash(key);
    match &plan.detail {
        Detail::Classic { m, k } | Detail::Counting { m, k, .. } => Touch::Positions {
            positions: bloom_positions(h, *m, *k),
        },
        Detail::Scalable { p0, .. } => {
            let m = math::optimal_bits(plan.n, *p0).unwrap_or(1);
            let k = math::optimal_hashes(m, plan.n);
            Touch::Stage0 {
                positions: bloom_positions(h, m, k),
            }
        }
        Detail::Blocked { blocks, .. } => {
            let lo = h.lo as u32;
            Touch::Block {
                block: reduce(h.hi, *blocks),
                lane_bits: filterlab::blocked::lane_bits(lo),
            }
        }
        Detail::Cuckoo {
            fingerprint_bits: f,
            buckets,
            ..
        } => {
            let fingerprint = 1 + reduce(h.hi, (1u64 << f) - 1);
            let primary = reduce(h.lo, *buckets);
            let x = reduce(fp_mix(fingerprint), *buckets);
            let alternate = if x >= primary {
                x - primary
            } else {
                x + buckets - primary
            };
            Touch::Buckets {
                fingerprint,
                primary,
                alternate,
            }
        }
    }
}

pub(crate) fn bloom_positions(h: Hash128, m: u64, k: u32) -> Vec<u64> {
    let mut g = IndexGen::new(h, m);
    (0..k).map(|_| g.next()).collect()
}

/// The fingerprint mixer of `filter-cuckoo` (Murmur3's finaliser).
fn fp_mix(fp: u64) -> u64 {
    let mut k = fp.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^ (k >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{plan, Variant};
    use crate::store::AnyFilter;
    use filterlab::format;

    /// The payload of a saved filter (after the header, parameters and payload length).
    fn payload(bytes: &[u8]) -> Vec<u8> {
        let params = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
        let start = 24 + params + 8;
        bytes[start..bytes.len() - 8].to_vec()
    }

    /// Bit indexes of the payload that differ between two saves.
    fn changed_bits(before: &[u8], after: &[u8]) -> Vec<u64> {
        let mut out = Vec::new();
        for (i, (a, b)) in before.iter().zip(after).enumerate() {
            for bit in 0..8 {
                if (a ^ b) >> bit & 1 == 1 {
                    out.push(i as u64 * 8 + bit);
                }
            }
        }
        out
    }

    fn changes(variant: Variant, key: &[u8]) -> (Touch, Vec<u64>, Vec<u8>) {
        let (n, p) = (3000, 0.01);
        let mut f = AnyFilter::build(variant, n, p).unwrap();
        let before = payload(&f.to_bytes());
        f.insert_hash(f.hash(key)).unwrap();
        let after = payload(&f.to_bytes());
        let t = touch(&plan(variant, n, p).unwrap(), KeyHasher::default(), key);
        (t, changed_bits(&before, &after), after)
    }

    #[test]
    fn classic_positions_are_the_bits_an_insert_sets() {
        for key in [&b"alice@example.com"[..], b"bob", b""] {
            let (t, changed, _) = changes(Variant::Classic, key);
            let Touch::Positions { mut positions } = t else {
                panic!("{t:?}")
            };
            positions.sort_unstable();
            positions.dedup();
            assert_eq!(positions, changed);
        }
    }

    #[test]
    fn counting_positions_are_the_counters_an_insert_raises() {
        let (t, changed, _) = changes(Variant::Counting, b"alice@example.com");
        let Touch::Positions { mut positions } = t else {
            panic!("{t:?}")
        };
        positions.sort_unstable();
        positions.dedup();
        let mut counters: Vec<u64> = changed.iter().map(|b| b / 4).collect();
        counters.dedup();
        assert_eq!(positions, counters);
    }

    #[test]
    fn scalable_positions_are_the_first_stage_bits() {
        let (t, changed, _) = changes(Variant::Scalable, b"carol@example.com");
        let Touch::Stage0 { mut positions } = t else {
            panic!("{t:?}")
        };
        positions.sort_unstable();
        positions.dedup();
        // The stage payload starts with its item count and m, k (8 + 8 + 4 bytes): 160 bits,
        // and the item count changes too.
        let bits: Vec<u64> = changed
            .iter()
            .filter(|&&b| b >= 160)
            .map(|b| b - 160)
            .collect();
        assert_eq!(positions, bits);
    }

    #[test]
    fn blocked_lanes_are_the_bits_an_insert_sets() {
        let (t, changed, _) = changes(Variant::Blocked, b"dave@example.com");
        let Touch::Block { block, lane_bits } = t else {
            panic!("{t:?}")
        };
        let mut want: Vec<u64> = (0..8)
            .map(|j| (block * 8 + j) * 32 + u64::from(lane_bits[j as usize]))
            .collect();
        want.sort_unstable();
        assert_eq!(want, changed);
    }

    #[test]
    fn cuckoo_fingerprint_lands_in_the_primary_bucket() {
        let (t, _, after) = changes(Variant::Cuckoo, b"erin@example.com");
        let Touch::Buckets {
            fingerprint,
            primary,
            alternate,
        } = t
        else {
            panic!("{t:?}")
        };
        let f = math::cuckoo_fingerprint_bits(0.01, 4).unwrap() as u64;
        let bit = primary * 4 * f;
        let mut v = 0u64;
        for i in 0..f {
            let b = bit + i;
            v |= u64::from(after[(b / 8) as usize] >> (b % 8) & 1) << i;
        }
        assert_eq!(v, fingerprint);
        assert_ne!(primary, alternate);
        assert!(fingerprint >= 1 && fingerprint < 1 << f);
    }

    #[test]
    fn the_payload_helper_finds_the_magic_first() {
        let f = AnyFilter::build(Variant::Classic, 10, 0.01).unwrap();
        assert!(f.to_bytes().starts_with(&format::MAGIC));
    }

    #[test]
    fn formulas_substitute_the_plans_numbers() {
        for v in Variant::ALL {
            let p = plan(v, 10_000, 0.01).unwrap();
            let fs = formulas(&p);
            assert!(fs.len() >= 2, "{v:?}");
            assert!(fs[0].substituted.contains("10000"), "{}", fs[0].substituted);
        }
    }
}
