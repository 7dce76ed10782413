//! Sizing without allocating: what each variant's builder would allocate for `n` items at rate
//! `p`, from the formulas of `filterlab::math` and the variants' public constants. Nothing here is
//! a formula of its own: the tests build the real filters and check the plan against them.

use filterlab::{counting, cuckoo, math, scalable};
use serde::Serialize;

/// The five variants.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    /// Classic Bloom filter (Bloom 1970).
    Classic,
    /// Counting Bloom filter with 4-bit counters (Fan et al. 2000).
    Counting,
    /// Scalable Bloom filter (Almeida et al. 2007).
    Scalable,
    /// Cuckoo filter (Fan et al. 2014).
    Cuckoo,
    /// Split-block Bloom filter (Putze et al. 2007; Parquet layout).
    Blocked,
}

impl Variant {
    /// Every variant, in display order.
    pub const ALL: [Variant; 5] = [
        Variant::Classic,
        Variant::Counting,
        Variant::Scalable,
        Variant::Cuckoo,
        Variant::Blocked,
    ];

    /// The variant id of the file format.
    pub fn core(self) -> filterlab::Variant {
        match self {
            Variant::Classic => filterlab::Variant::Classic,
            Variant::Counting => filterlab::Variant::Counting,
            Variant::Scalable => filterlab::Variant::Scalable,
            Variant::Cuckoo => filterlab::Variant::Cuckoo,
            Variant::Blocked => filterlab::Variant::Blocked,
        }
    }

    /// The name used on the command line and in files.
    pub fn name(self) -> &'static str {
        self.core().name()
    }
}

/// Growth multiples the scalable plan is shown at.
pub const GROWTH_SHOWN: [u64; 3] = [2, 4, 10];

/// One variant sized for `n` items at rate `fpr`.
#[derive(Clone, Debug, Serialize)]
pub struct Plan {
    /// The variant.
    pub variant: Variant,
    /// Items.
    pub n: u64,
    /// Target rate.
    pub fpr: f64,
    /// Bytes of the table(s) the builder allocates.
    pub bytes: u64,
    /// `8 · bytes / n`.
    pub bits_per_key: f64,
    /// `n log2(1/p)` bits: no structure can do with less.
    pub lower_bound_bits: f64,
    /// `bits / lower bound - 1`, in percent.
    pub overhead_pct: f64,
    /// The rate the formula predicts at `n` items with the realised parameters.
    pub expected_fpr: f64,
    /// Variant-specific parameters.
    pub detail: Detail,
}

/// Variant-specific parameters of a [`Plan`].
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Detail {
    /// Classic: bits and hashes.
    Classic {
        /// Bits `m`.
        m: u64,
        /// Hash functions `k`.
        k: u32,
    },
    /// Counting: counters, hashes, counter width and the overflow bound at `n`.
    Counting {
        /// Counters `m`.
        m: u64,
        /// Hash functions `k`.
        k: u32,
        /// Bits per counter.
        counter_bits: u32,
        /// Upper bound on P(some counter overflows) at `n` items.
        overflow_bound: f64,
    },
    /// Cuckoo: fingerprint bits, buckets, slots per bucket and load at `n`.
    Cuckoo {
        /// Fingerprint bits `f`.
        fingerprint_bits: u32,
        /// Buckets.
        buckets: u64,
        /// Slots per bucket `b`.
        slots: u32,
        /// Load factor at `n` items.
        load: f64,
    },
    /// Blocked: 256-bit blocks and the keys per block the rate allows.
    Blocked {
        /// Blocks.
        blocks: u64,
        /// Keys per block `λ` at the target rate.
        keys_per_block: f64,
    },
    /// Scalable: the first stage and the stage plan as the filter grows.
    Scalable {
        /// First-stage rate `P0 = P(1 - r)`.
        p0: f64,
        /// Tightening ratio `r`.
        r: f64,
        /// Growth factor `s`.
        s: f64,
        /// The filter at 1x and at each multiple of [`GROWTH_SHOWN`].
        growth: Vec<Growth>,
    },
}

/// A scalable filter after `multiple · n` inserts.
#[derive(Clone, Debug, Serialize)]
pub struct Growth {
    /// Items inserted, as a multiple of the initial capacity.
    pub multiple: u64,
    /// Stages allocated.
    pub stages: usize,
    /// Bytes of all stages.
    pub bytes: u64,
    /// Compound rate `1 - Π(1 - p_i)` at that load.
    pub compound_fpr: f64,
    /// The bound `P0 / (1 - r)` it never exceeds.
    pub bound: f64,
}

/// Bytes of a `BloomBits` array of `m` bits (whole 64-bit words).
fn bloom_bytes(m: u64) -> u64 {
    m.div_ceil(64) * 8
}

/// One scalable stage: `(capacity, bits, hashes)`, as `ScalableBloom` derives stage `i`.
fn scalable_stage(n: u64, p0: f64, r: f64, s: f64, i: u32) -> filterlab::Result<(u64, u64, u32)> {
    let cap = (n as f64 * s.powi(i as i32)).ceil() as u64;
    let fpr = math::scalable_stage_fpr(p0, r, i);
    let m = math::optimal_bits(cap, fpr)?;
    Ok((cap, m, math::optimal_hashes(m, cap)))
}

/// A scalable filter of initial capacity `n` at rate `p` (default `s` and `r`) after `items`
/// inserts (its multiple is `items / n` rounded down).
///
/// # Errors
/// As [`plan`].
pub fn scalable_at(n: u64, p: f64, items: u64) -> filterlab::Result<Growth> {
    let (r, s) = (scalable::DEFAULT_TIGHTENING, scalable::DEFAULT_GROWTH);
    scalable_items(n, p, r, s, items)
}

/// The scalable filter after `multiple · n` inserts.
fn scalable_growth(n: u64, p: f64, r: f64, s: f64, multiple: u64) -> filterlab::Result<Growth> {
    let mut g = scalable_items(n, p, r, s, n.saturating_mul(multiple))?;
    g.multiple = multiple;
    Ok(g)
}

/// The scalable filter after `items` inserts: stages fill in order.
fn scalable_items(n: u64, p: f64, r: f64, s: f64, items: u64) -> filterlab::Result<Growth> {
    let p0 = math::scalable_initial_fpr(p, r);
    let mut left = items;
    let (mut bytes, mut rates, mut i) = (0u64, Vec::new(), 0u32);
    loop {
        let (cap, m, k) = scalable_stage(n, p0, r, s, i)?;
        let here = left.min(cap);
        bytes = bytes.saturating_add(bloom_bytes(m));
        rates.push(math::classic_fpr_best(m, here, k));
        left -= here;
        i += 1;
        if left == 0 || i as usize >= scalable::MAX_STAGES {
            break;
        }
    }
    Ok(Growth {
        multiple: items / n.max(1),
        stages: rates.len(),
        bytes,
        compound_fpr: math::compound_fpr(rates),
        bound: math::scalable_fpr_bound(p0, r),
    })
}

/// Sizes `variant` for `n` items at rate `p` (scalable with the default `s` and `r`).
///
/// # Errors
/// The errors of `filterlab::math` (bad `n` or `p`, a size that overflows).
pub fn plan(variant: Variant, n: u64, p: f64) -> filterlab::Result<Plan> {
    plan_scalable_with(variant, n, p, scalable::DEFAULT_TIGHTENING)
}

/// As [`plan`], with tightening ratio `r` for the scalable variant.
///
/// # Errors
/// As [`plan`].
pub fn plan_scalable_with(variant: Variant, n: u64, p: f64, r: f64) -> filterlab::Result<Plan> {
    math::check_capacity(n)?;
    math::check_fpr(p)?;
    let (bytes, expected_fpr, detail) = match variant {
        Variant::Classic => {
            let (m, k) = math::classic_shape(n, p)?;
            (
                bloom_bytes(m),
                math::classic_fpr_best(m, n, k),
                Detail::Classic { m, k },
            )
        }
        Variant::Counting => {
            let (m, k) = math::classic_shape(n, p)?;
            let counter_bits = counting::COUNTER_BITS;
            let overflow_bound = math::counting_overflow_bound(m, n, k, counter_bits);
            let detail = Detail::Counting {
                m,
                k,
                counter_bits,
                overflow_bound,
            };
            (m.div_ceil(2), math::classic_fpr_best(m, n, k), detail)
        }
        Variant::Cuckoo => cuckoo_plan(n, p)?,
        Variant::Blocked => {
            let keys_per_block = math::split_block_keys_per_block(p)?;
            let blocks = (n as f64 / keys_per_block).ceil().max(1.0) as u64;
            let detail = Detail::Blocked {
                blocks,
                keys_per_block,
            };
            (
                blocks.saturating_mul(32),
                math::split_block_fpr(blocks, n),
                detail,
            )
        }
        Variant::Scalable => {
            let s = scalable::DEFAULT_GROWTH;
            let p0 = math::scalable_initial_fpr(p, r);
            let first = scalable_growth(n, p, r, s, 1)?;
            let mut growth = vec![first.clone()];
            for g in GROWTH_SHOWN {
                growth.push(scalable_growth(n, p, r, s, g)?);
            }
            let detail = Detail::Scalable { p0, r, s, growth };
            (first.bytes, first.compound_fpr, detail)
        }
    };
    let lower_bound_bits = math::lower_bound_bits(n, p);
    let bits = bytes as f64 * 8.0;
    Ok(Plan {
        variant,
        n,
        fpr: p,
        bytes,
        bits_per_key: bits / n as f64,
        lower_bound_bits,
        overhead_pct: (bits / lower_bound_bits - 1.0) * 100.0,
        expected_fpr,
        detail,
    })
}

fn cuckoo_plan(n: u64, p: f64) -> filterlab::Result<(u64, f64, Detail)> {
    let slots = cuckoo::SLOTS;
    let f = math::cuckoo_fingerprint_bits(p, slots)?;
    if f > 32 {
        return Err(filterlab::Error::InvalidParameter {
            name: "fpr",
            value: math::format_real(p),
            expected: "a rate above about 2e-9 for a cuckoo filter (32-bit fingerprints at most); \
                       use a Bloom filter below it",
        });
    }
    let buckets = cuckoo::buckets_for(n)?;
    let table_bits = buckets
        .checked_mul(u64::from(slots) * u64::from(f))
        .ok_or_else(|| filterlab::Error::SizeOverflow {
            what: "cuckoo table",
            hint: format!("{n} items need {buckets} buckets of {f}-bit slots; lower the capacity"),
        })?;
    // The table is padded with 8 bytes so every slot can be read as one 8-byte window.
    let bytes = table_bits.div_ceil(8).saturating_add(8);
    let load = n as f64 / (buckets as f64 * f64::from(slots));
    let detail = Detail::Cuckoo {
        fingerprint_bits: f,
        buckets,
        slots,
        load,
    };
    let expected = math::cuckoo_fpr_exact(f, slots, buckets, n);
    Ok((bytes, expected, detail))
}

#[cfg(test)]
mod tests {
    use super::*;
    use filterlab::{
        BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Filter, Growable, ScalableBloom,
    };

    const SIZES: [(u64, f64); 4] = [(1, 0.5), (1000, 0.01), (12_345, 0.001), (50_000, 0.0001)];

    #[test]
    fn plans_match_what_the_builders_allocate() {
        for (n, p) in SIZES {
            let c = ClassicBloom::builder().capacity(n).fpr(p).build().unwrap();
            let plan_c = plan(Variant::Classic, n, p).unwrap();
            assert_eq!(plan_c.bytes, c.size_in_bytes() as u64, "classic {n} {p}");
            assert!(
                matches!(plan_c.detail, Detail::Classic { m, k } if m == c.bits() && k == c.hashes())
            );

            let f = CountingBloom::builder().capacity(n).fpr(p).build().unwrap();
            let plan_f = plan(Variant::Counting, n, p).unwrap();
            assert_eq!(plan_f.bytes, f.size_in_bytes() as u64, "counting {n} {p}");

            let f = CuckooFilter::builder().capacity(n).fpr(p).build().unwrap();
            let plan_f = plan(Variant::Cuckoo, n, p).unwrap();
            assert_eq!(plan_f.bytes, f.size_in_bytes() as u64, "cuckoo {n} {p}");
            assert!(
                matches!(plan_f.detail, Detail::Cuckoo { buckets, fingerprint_bits, .. }
                if buckets == f.buckets() && fingerprint_bits == f.fingerprint_bits())
            );

            let f = BlockedBloom::builder().capacity(n).fpr(p).build().unwrap();
            let plan_f = plan(Variant::Blocked, n, p).unwrap();
            assert_eq!(plan_f.bytes, f.size_in_bytes() as u64, "blocked {n} {p}");

            let f = ScalableBloom::builder().capacity(n).fpr(p).build().unwrap();
            assert_eq!(
                plan(Variant::Scalable, n, p).unwrap().bytes,
                f.size_in_bytes() as u64
            );
        }
    }

    #[test]
    fn the_scalable_growth_plan_matches_a_filter_that_grew() {
        let (n, p) = (500u64, 0.01);
        let mut f = ScalableBloom::builder().capacity(n).fpr(p).build().unwrap();
        let Detail::Scalable { growth, .. } = plan(Variant::Scalable, n, p).unwrap().detail else {
            panic!("not a scalable plan");
        };
        let mut inserted = 0u64;
        for g in &growth {
            while inserted < n * g.multiple {
                f.insert(format!("k{inserted}").as_bytes()).unwrap();
                inserted += 1;
            }
            assert_eq!(g.stages, f.stages(), "{}x", g.multiple);
            assert_eq!(g.bytes, f.size_in_bytes() as u64, "{}x", g.multiple);
            assert!(
                (g.compound_fpr - f.expected_fpr()).abs() < 1e-12,
                "{}x",
                g.multiple
            );
            assert!((g.bound - f.fpr_bound()).abs() < 1e-15);
        }
    }

    #[test]
    fn impossible_sizes_are_errors_not_panics() {
        assert!(plan(Variant::Classic, u64::MAX, 1e-300).is_err());
        assert!(plan(Variant::Cuckoo, 10, 1e-12).is_err());
        assert!(plan(Variant::Blocked, 10, 0.0).is_err());
        // Huge but representable: a plan, no allocation.
        let p = plan(Variant::Cuckoo, u64::MAX / 64, 0.01).unwrap();
        assert!(p.bytes > 0);
        // Beyond 2^64 slot bits: an error, not an overflow.
        assert!(plan(Variant::Cuckoo, u64::MAX / 2, 0.01).is_err());
        for v in Variant::ALL {
            assert!(plan(v, 0, 0.01).is_err(), "{v:?}");
        }
    }
}
