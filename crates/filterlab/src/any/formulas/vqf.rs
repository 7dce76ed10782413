//! The vector quotient filter's formulas (`filter_core::math::vqf`), with a plan's numbers.

use super::{rate, Formula};
use crate::math::vqf as vm;

/// Blocks, the rate with the model's overflow share and its bound, bits per item.
pub(super) fn vqf_formulas(n: u64, blocks: u64, load: f64, overflow_share: f64) -> Vec<Formula> {
    let lambda = vm::vqf_bucket_mean(load);
    vec![
        Formula {
            name: "blocks",
            symbolic: "B = ceil(n / (48 · 0.9)), more in small tables",
            substituted: format!(
                "{blocks} blocks of 48 slots, load α = {n}/({blocks}·48) = {load:.4}"
            ),
            source: "filter_vqf::blocks_for: two blocks per key and up to two moves fill \
                     99.9% of the slots; the table is sized for 90%, where few lookups read a \
                     second block",
        },
        Formula {
            name: "overflow share (inserts only)",
            symbolic: "P(X > 48)/8 <= ω <= 1 - e^(-E[(X - 48)+]/8),  X ~ Pois(48α)",
            substituted: format!(
                "{:.4} <= ω <= {overflow_share:.4}",
                vm::vqf_overflow_share_floor(load)
            ),
            source: "the Morton filter's overflow bits (Breslow & Jayasena 2018), one per group \
                     of 9 buckets: a lookup reads its second block only when its group's is set",
        },
        Formula {
            name: "false-positive rate",
            symbolic: "p = 1 - (1 - 1/255)^(λ(1 + ω)),  λ = 48α/72",
            substituted: format!(
                "λ = {lambda:.4}; p = {}; every overflow bit set (ω = 1): {}",
                rate(vm::vqf_fpr(load, overflow_share)),
                rate(vm::vqf_fpr_bound(load))
            ),
            source: "Pandey et al. 2021, §4 (p ≈ 2λ/2^8 when both blocks are read)",
        },
        Formula {
            name: "bits per item",
            symbolic: "C = 512 / (48 α)",
            substituted: format!(
                "512 / (48 × {load:.4}) = {:.3}",
                vm::vqf_bits_per_item(load)
            ),
            source: "a 64-byte block per 48 slots: 8-bit fingerprints and 128 bits of bucket \
                     code and overflow bits",
        },
    ]
}

/// The plan's shape in one line.
pub(super) fn vqf_shape(blocks: u64, load: f64, overflow_share: f64) -> Vec<String> {
    vec![format!(
        "{blocks} blocks of 48 one-byte fingerprints in 72 buckets, load {load:.4}, \
         overflow share {overflow_share:.4}"
    )]
}
