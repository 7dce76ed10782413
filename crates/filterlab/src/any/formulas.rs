//! Each variant's formulas with a plan's numbers substituted (`filterlab explain`), and the
//! plan's shape in one line (`filterlab calc`): the text that teaches a variant lives beside its
//! sizing, so a new variant adds its formulas here and nowhere else.

mod aleph;
mod vqf;

use super::sizing::{Detail, Growth, Plan, Schedule};
use crate::math;

/// One formula, symbolic and substituted.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
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

/// The formulas of `plan`'s variant with its numbers: the course's teaching text, each
/// formula symbolic and substituted, with its source.
#[must_use]
pub fn formulas(plan: &Plan) -> Vec<Formula> {
    let mut out = vec![lower_bound_formula(plan)];
    out.extend(variant_formulas(plan));
    out.extend(super::window::window_formulas(plan));
    out
}

/// The lower bound every variant is measured against, and what the plan uses.
fn lower_bound_formula(plan: &Plan) -> Formula {
    Formula {
        name: "lower bound",
        symbolic: "bits >= n log2(1/p)",
        substituted: format!(
            "{} × log2(1/{}) = {:.0} bits; this variant uses {:.0} bits ({:+.1}%)",
            plan.n,
            math::format_real(plan.fpr),
            plan.lower_bound_bits,
            plan.bytes as f64 * 8.0,
            plan.overhead_pct
        ),
        source: "Carter, Floyd, Gill, Markowsky & Wegman 1978",
    }
}

/// The formulas of the plan's own variant (none for the windows, which
/// [`super::window::window_formulas`] writes).
fn variant_formulas(plan: &Plan) -> Vec<Formula> {
    let (n, p) = (plan.n, plan.fpr);
    match &plan.detail {
        Detail::Classic { m, k } => bloom_formulas(n, p, *m, *k),
        Detail::Counting {
            m,
            k,
            counter_bits,
            overflow_bound,
        } => {
            let mut out = bloom_formulas(n, p, *m, *k);
            out.push(counting_formula(n, *m, *k, *counter_bits, *overflow_bound));
            out
        }
        Detail::Cuckoo {
            fingerprint_bits: f,
            buckets,
            slots: b,
            load,
            near_window,
        } => {
            let mut out = cuckoo_formulas(n, p, *f, *buckets, *b, *load);
            out.insert(
                2,
                match near_window {
                    Some(w) => near_formula(n, *f, *buckets, *w),
                    None => spread_formula(n, *f, *buckets, *b),
                },
            );
            out
        }
        Detail::Blocked {
            blocks,
            keys_per_block,
        } => blocked_formulas(n, *blocks, *keys_per_block),
        Detail::Scalable {
            p0, r, s, growth, ..
        } => scalable_formulas(p, *p0, *r, *s, growth),
        Detail::Fuse {
            fingerprint_bits,
            slots,
            segment_length,
        } => fuse_formulas(n, *fingerprint_bits, *slots, *segment_length),
        Detail::Ribbon {
            result_bits,
            slots,
            boundary,
        } => ribbon_formulas(n, p, *result_bits, *slots, *boundary),
        Detail::Expandable { .. } => plan
            .detail
            .expandable_schedule()
            .map_or_else(Vec::new, |s| expandable_formulas(p, s)),
        Detail::Quotient {
            quotients,
            remainder_bits,
            slots,
            load,
        } => quotient_formulas(n, p, *quotients, *remainder_bits, *slots, *load),
        Detail::Aleph { .. } => aleph::aleph_formulas(plan),
        Detail::Vqf {
            blocks,
            load,
            overflow_share,
        } => vqf::vqf_formulas(n, *blocks, *load, *overflow_share),
        // The windows' formulas come from `super::window`. No `_` arm: a new variant's detail
        // must say here what it shows.
        Detail::Sliced { .. } | Detail::TimeSliced { .. } | Detail::AgePartitioned { .. } => {
            Vec::new()
        }
    }
}

/// The split-block filter's per-lane rate and the block model it corrects.
fn blocked_formulas(n: u64, blocks: u64, keys_per_block: f64) -> Vec<Formula> {
    vec![
        Formula {
            name: "false-positive rate (per-lane)",
            symbolic: "p = Σ_c Pois(c; n/B) · (1 - (31/32)^c)^8",
            substituted: format!(
                "B = ceil({n} / λ = {keys_per_block:.3}) = {blocks}; p = {}",
                rate(math::split_block_fpr(blocks, n))
            ),
            source: "Putze, Sanders & Singler 2007, §3 (split-block layout of Parquet)",
        },
        Formula {
            name: "256-bit-block model (underestimates)",
            symbolic: "p = Σ_c Pois(c; n/B) · (1 - (255/256)^(8c))^8",
            substituted: rate(math::split_block_fpr_block_model(blocks, n)),
            source: "ignores that a key's 8 bits are confined to 8 distinct lanes",
        },
    ]
}

fn fuse_formulas(n: u64, f: u32, slots: u64, segment: u32) -> Vec<Formula> {
    vec![
        Formula {
            name: "false-positive rate",
            symbolic: "p = 2^-F",
            substituted: format!("2^-{f} = {}", rate(crate::fuse::math::fuse_fpr(f))),
            source: "Graf & Lemire 2022: a key is a false positive when the XOR of its three \
                     slots equals its F-bit fingerprint",
        },
        Formula {
            name: "slots",
            symbolic: "m = (c + 2) L,  c L ≈ n · max(1.125, 0.875 + 0.25 ln(10^6) / ln n)",
            substituted: format!(
                "{} + 2 segments of L = {segment} slots = {slots}",
                (slots / u64::from(segment.max(1))).saturating_sub(2)
            ),
            source: "Graf & Lemire 2022, §4 (arity 3)",
        },
        Formula {
            name: "bits per key",
            symbolic: "C = F m / n",
            substituted: format!(
                "{f} × {slots} / {n} = {:.3}",
                f64::from(f) * slots as f64 / n as f64
            ),
            source: "about 1.125 F at scale",
        },
    ]
}

fn ribbon_formulas(n: u64, p: f64, r: u32, slots: u64, boundary: u64) -> Vec<Formula> {
    let starts = slots.saturating_sub(127).max(1);
    let f = boundary as f64 / starts as f64;
    vec![
        Formula {
            name: "result columns",
            symbolic: "r = floor(log2(1/p)); a fraction f = 2 - p 2^(r+1) of keys get r + 1",
            substituted: format!(
                "r = {r} for p = {}; f = {boundary}/{starts} = {f:.4}",
                math::format_real(p)
            ),
            source: "Dillinger & Walzer 2021 (fractional result bits)",
        },
        Formula {
            name: "slots",
            symbolic: "m = n (1 + 0.03 + 4/sqrt(n) + 0.0045 max(0, log2 n - 20)), in whole 64-slot blocks",
            substituted: format!("{n} keys → {slots} slots"),
            source: "Dillinger & Walzer 2021, w = 128 (the 4/sqrt(n) margin and the growth per doubling are this crate's, measured)",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "p = f 2^-(r+1) + (1 - f) 2^-r",
            substituted: format!(
                "{f:.4} × 2^-{} + {:.4} × 2^-{r} = {}",
                r + 1,
                1.0 - f,
                rate(crate::ribbon::math::ribbon_fpr(r, boundary, starts))
            ),
            source: "Dillinger & Walzer 2021",
        },
    ]
}

fn expandable_formulas(p: f64, (f0, b0, growth, period, bound): Schedule) -> Vec<Formula> {
    use crate::expandable::math as em;
    vec![
        Formula {
            name: "stage i",
            symbolic: "B_i = B0 g^i,  f_i = f0 + floor(i / k)",
            substituted: format!(
                "B0 = {b0} buckets (3.8 B0 >= n), g = {growth}, f0 = {f0} bits, k = {period}"
            ),
            source: "filter-expand: the addresses of stage i nest in those of the older stages",
        },
        Formula {
            name: "stage rate",
            symbolic: "p_i = 1 - (1 - q(f_i) 2/B_i)^(n_i), below 7.6 q(f_i) at capacity",
            substituted: format!(
                "stage 0 full: {}",
                rate(em::stage_fpr(f0, b0, em::stage_capacity(b0)))
            ),
            source: "Fan et al. 2014, §5.1, per stage",
        },
        Formula {
            name: "compound bound",
            symbolic: "p <= Σ_i 7.6 q(f_i) <= P",
            substituted: format!("{} <= {}", rate(bound), math::format_real(p)),
            source: "union bound over every stage the filter can ever have",
        },
    ]
}

fn quotient_formulas(n: u64, p: f64, q: u64, r: u32, slots: u64, load: f64) -> Vec<Formula> {
    use crate::quotient::math as qm;
    vec![
        Formula {
            name: "remainder bits",
            symbolic: "r = ceil(log2(0.95 / -ln(1 - p)))",
            substituted: format!("ceil(log2(0.95 / -ln(1 - {}))) = {r}", math::format_real(p)),
            source: "Bender et al. 2012, §2, at the 95% load of Pandey et al. 2017",
        },
        Formula {
            name: "quotients",
            symbolic: "Q = min { Q : floor(0.95 Q) >= n }",
            substituted: format!(
                "{q} home slots, {slots} slots with the extra ones, load α = {n}/{q} = {load:.4}"
            ),
            source: "Pandey, Bender, Johnson & Patro 2017 (rank-and-select layout)",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "p = 1 - (1 - 1/(Q 2^r))^n ≈ 1 - e^(-α/2^r)",
            substituted: format!(
                "1 - (1 - 1/({q}·2^{r}))^{n} = {}",
                rate(qm::quotient_fpr_exact(q, r, n))
            ),
            source: "Bender et al. 2012, §2",
        },
        Formula {
            name: "bits per item",
            symbolic: "C = (r + 2.5) / α",
            substituted: format!(
                "({r} + 2.5) / {load:.4} = {:.3}",
                qm::quotient_bits_per_item(r, load)
            ),
            source: "two metadata bits per slot and a 32-bit offset per 64 slots",
        },
    ]
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
pub(crate) fn rate(x: f64) -> String {
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
        format!("{first}, grown to {m} so that the exact rate meets the target")
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

/// The cuckoo table's buckets for `n` items: the 95% design load, then what the sizing adds,
/// each step shown (`filter_cuckoo::buckets_for` gives tables under about 2,700 items slack for
/// the wide spread of the load at which their first insert fails; the near layout rounds to an
/// even count).
fn cuckoo_buckets(n: u64, buckets: u64, b: u32, load: f64) -> Formula {
    let design = crate::cuckoo::DESIGN_LOAD;
    let at_design = if n <= u64::from(b) {
        1
    } else {
        (n as f64 / (f64::from(b) * design)).ceil() as u64
    };
    let sized = crate::cuckoo::buckets_for(n)
        .unwrap_or(buckets)
        .max(at_design);
    let mut text = format!("ceil({n} / ({b} · {design})) = {at_design}");
    if sized > at_design {
        text.push_str(&format!(
            " + {} of small-table slack = {sized}",
            sized - at_design
        ));
    }
    if buckets != sized {
        text.push_str(&format!(", {buckets} in the table's layout"));
    }
    text.push_str(&format!(
        "; {buckets} buckets of {b} slots, load α = {load:.4}"
    ));
    Formula {
        name: "buckets",
        symbolic: "buckets = ceil(n / (b · 0.95)), plus slack below about 2,700 items",
        substituted: text,
        source: "partial-key cuckoo hashing fails near 95-98% load with b = 4, over a wider \
                 spread of loads in small tables (filter_cuckoo::buckets_for)",
    }
}

fn cuckoo_formulas(n: u64, p: f64, f: u32, buckets: u64, b: u32, load: f64) -> Vec<Formula> {
    vec![
        Formula {
            name: "fingerprint bits",
            symbolic: "f = ceil(log2(2b / p))",
            substituted: format!("ceil(log2(2·{b} / {})) = {f}", math::format_real(p)),
            source: "Fan, Andersen, Kaminsky & Mitzenmacher 2014, §5.1",
        },
        cuckoo_buckets(n, buckets, b, load),
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

/// The near layout's exact rate: no bucket is its own partner, so each stored key of the
/// query's fingerprint value matches with probability `2/B`.
/// The rate of the table (spread layout), from the function the filter reports its rate with
/// (`build`, `info` and `explain` print one number), beside its large-table form.
fn spread_formula(n: u64, f: u32, buckets: u64, b: u32) -> Formula {
    let layout = crate::cuckoo::Layout::Spread;
    let load = n as f64 / (buckets as f64 * f64::from(b));
    Formula {
        name: "false-positive rate",
        symbolic: "p = (1 - 1/B)(1 - (1 - 2/(B·V))^n) + (1/B)(1 - (1 - 1/(B·V))^n), V = 2^f - 1; \
                   for a large table p ≈ 1 - e^(-2bα/V), below the bound 1 - (1 - 1/V)^(2bα)",
        substituted: format!(
            "B = {buckets}, V = {}, n = {n}: p = {} (large-table form {}, bound {})",
            (1u64 << f) - 1,
            rate(crate::cuckoo::layout::fpr_exact(layout, f, buckets, n)),
            rate(math::cuckoo_fpr(f, b, load)),
            rate(math::cuckoo_fpr_upper_bound(f, b, load))
        ),
        source: "Fan et al. 2014, §5.1, counting only keys of the query's bucket pair (0 \
                 reserved for an empty slot): filter_cuckoo::layout::fpr_exact, \
                 math::cuckoo_fpr_exact",
    }
}

fn near_formula(n: u64, f: u32, buckets: u64, window: u32) -> Formula {
    let layout = crate::cuckoo::Layout::Near { window };
    Formula {
        name: "false-positive rate (near layout, exact)",
        symbolic: "p = 1 - (1 - 2/(B·(2^f - 1)))^n, second bucket within the window",
        substituted: format!(
            "1 - (1 - 2/({buckets}·{}))^{n} = {} (window {window} buckets)",
            (1u64 << f) - 1,
            rate(crate::cuckoo::layout::fpr_exact(layout, f, buckets, n))
        ),
        source: "filter_cuckoo::layout::fpr_exact (the bucket-pair derivation of \
                 math::cuckoo_fpr_exact without its self-paired term)",
    }
}

fn scalable_formulas(p: f64, p0: f64, r: f64, s: f64, growth: &[Growth]) -> Vec<Formula> {
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

impl Plan {
    /// The shape of the planned filter, in lines of text (`m = ... bits, k = ...`).
    #[must_use]
    pub fn detail_lines(&self) -> Vec<String> {
        super::window::detail_lines(&self.detail).unwrap_or_else(|| shape_lines(&self.detail))
    }
}

/// [`Plan::detail_lines`] of every variant but the windows (their lines come from
/// [`super::window::detail_lines`]).
fn shape_lines(detail: &Detail) -> Vec<String> {
    match detail {
        Detail::Classic { m, k } => vec![format!("m = {m} bits, k = {k}")],
        Detail::Vqf {
            blocks,
            load,
            overflow_share,
        } => vqf::vqf_shape(*blocks, *load, *overflow_share),
        Detail::Counting {
            m,
            k,
            counter_bits,
            overflow_bound,
        } => vec![
            format!("m = {m} counters of {counter_bits} bits, k = {k}"),
            format!("P(any counter overflows at n) <= {overflow_bound:.3e}"),
        ],
        Detail::Cuckoo {
            fingerprint_bits,
            buckets,
            slots,
            load,
            near_window,
        } => {
            let mut lines = vec![format!(
                "fingerprint {fingerprint_bits} bits, {buckets} buckets x {slots} slots, load {load:.4}"
            )];
            lines.extend(near_window.map(|w| {
                format!("near layout: the second bucket within {w} buckets of the first")
            }));
            lines
        }
        Detail::Blocked {
            blocks,
            keys_per_block,
        } => vec![format!(
            "{blocks} blocks of 256 bits, {keys_per_block:.3} keys per block"
        )],
        Detail::Fuse {
            fingerprint_bits,
            slots,
            segment_length,
        } => vec![format!(
            "{slots} slots of {fingerprint_bits} bits in segments of {segment_length}; built once from the key set"
        )],
        Detail::Ribbon {
            result_bits,
            slots,
            boundary,
        } => vec![format!(
            "{slots} rows, {result_bits} result bits (one more for starts below {boundary}); built once from the key set"
        )],
        Detail::Expandable { .. } => detail
            .expandable_schedule()
            .map(|(f0, b0, growth, period, bound)| {
                format!(
                    "first stage {b0} buckets x 4 slots of {f0} bits; growth {growth}, +1 bit every {period} stages; bound {}",
                    rate(bound)
                )
            })
            .into_iter()
            .collect(),
        Detail::Quotient {
            quotients,
            remainder_bits,
            slots,
            load,
        } => vec![format!(
            "{quotients} quotients, {remainder_bits}-bit remainders, {slots} slots, load {load:.4}"
        )],
        Detail::Scalable {
            p0, r, s, growth, ..
        } => scalable_lines(*p0, *r, *s, growth),
        Detail::Aleph { .. } => aleph::aleph_lines(detail),
        // The windows' lines come from `super::window`. No `_` arm (as above).
        Detail::Sliced { .. } | Detail::TimeSliced { .. } | Detail::AgePartitioned { .. } => {
            Vec::new()
        }
    }
}

/// The scalable filter's bound and its growth, one line per multiple of `n`.
fn scalable_lines(p0: f64, r: f64, s: f64, growth: &[Growth]) -> Vec<String> {
    let mut out = vec![format!(
        "P0 = {}, r = {r}, s = {s}; bound P0/(1-r) = {}",
        rate(p0),
        rate(growth.first().map_or(p0 / (1.0 - r), |g| g.bound))
    )];
    out.extend(growth.iter().map(|g| {
        format!(
            "at {:>2}x n: {:>2} stages, {:>14} bytes, compound FPR {}",
            g.multiple,
            g.stages,
            g.bytes,
            rate(g.compound_fpr)
        )
    }));
    out
}

#[cfg(test)]
mod tests;
