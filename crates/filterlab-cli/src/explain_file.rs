//! `explain FILE [KEY]`: the formulas with a saved filter's own parameters, and where a key
//! lands in it, hashed with the file's hash function and seed.

use crate::explain::{self, Touch};
use crate::plan::{self, Detail, Plan, Variant};
use crate::store::AnyFilter;
use anyhow::{Context, Result};
use filterlab::{counting, cuckoo, math, Growable};

/// The plan of a saved filter: sized from its capacity and rate, then given the parameters
/// the file actually holds (so a file written by another version is still explained as it is).
///
/// # Errors
/// Parameters the formulas cannot size (not expected of a file that loaded).
pub fn plan_of(f: &AnyFilter) -> Result<Plan> {
    let n = f.capacity();
    let (p, detail) = match f {
        AnyFilter::Classic(c) => {
            let (m, k) = (c.bits(), c.hashes());
            (c.target_fpr(), Detail::Classic { m, k })
        }
        AnyFilter::Counting(c) => {
            let (m, k) = (c.counters(), c.hashes());
            let counter_bits = counting::COUNTER_BITS;
            let detail = Detail::Counting {
                m,
                k,
                counter_bits,
                overflow_bound: math::counting_overflow_bound(m, n, k, counter_bits),
            };
            (math::classic_fpr_best(m, n, k), detail)
        }
        AnyFilter::Scalable(s) => {
            // Stage 0 carries the sizing; the growth table is the plan's.
            let first = s.stage_shapes().first().map_or(n, |&(_, _, cap, _)| cap);
            let plan =
                plan::plan_scalable_with(Variant::Scalable, first, s.fpr_bound(), s.tightening())
                    .context("the file's scalable parameters")?;
            return Ok(plan);
        }
        AnyFilter::Cuckoo(c) => {
            let (fingerprint_bits, buckets, slots) =
                (c.fingerprint_bits(), c.buckets(), cuckoo::SLOTS);
            let load = n as f64 / (buckets as f64 * f64::from(slots));
            let detail = Detail::Cuckoo {
                fingerprint_bits,
                buckets,
                slots,
                load,
            };
            (math::cuckoo_fpr(fingerprint_bits, slots, load), detail)
        }
        AnyFilter::Blocked(b) => {
            let blocks = b.blocks();
            let detail = Detail::Blocked {
                blocks,
                keys_per_block: n as f64 / blocks as f64,
            };
            (math::split_block_fpr(blocks, n), detail)
        }
    };
    let mut plan = plan::plan(f.variant(), n, p).context("the file's parameters")?;
    let bits = f.bytes() as f64 * 8.0;
    plan.bytes = f.bytes();
    plan.bits_per_key = bits / n as f64;
    plan.overhead_pct = (bits / plan.lower_bound_bits - 1.0) * 100.0;
    plan.expected_fpr = match &detail {
        Detail::Classic { m, k } | Detail::Counting { m, k, .. } => {
            math::classic_fpr_best(*m, n, *k)
        }
        _ => p,
    };
    plan.detail = detail;
    Ok(plan)
}

/// Where `key` lands in `f`, with the file's hasher.
pub fn touch(f: &AnyFilter, plan: &Plan, key: &[u8]) -> Touch {
    match f {
        AnyFilter::Scalable(s) => {
            let (m, k) = s
                .stage_shapes()
                .first()
                .map_or((1, 1), |&(m, k, _, _)| (m, k));
            Touch::Stage0 {
                positions: explain::bloom_positions(f.hash(key), m, k),
            }
        }
        _ => explain::touch(plan, f.hasher(), key),
    }
}
