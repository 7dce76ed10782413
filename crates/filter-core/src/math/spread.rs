//! How far one built table's false-positive rate strays from the formula's mean: each table is
//! one random draw of its fill, and for a small table that draw spreads the rate by more than the
//! binomial error of a million probes. Measurement checks add this variance to the probes'.

/// Variance of `ρ^k` over tables, `ρ` the share of set bits of `m` after `k·n` uniform sets:
/// the set bits' occupancy variance `m e^-a (1 - (1 + a) e^-a)`, `a = kn/m`, carried to the
/// rate by the delta method (Mitzenmacher & Upfal 2005, §5.4; Bose et al. 2008 on the spread).
#[must_use]
pub fn bloom_rate_variance(m: u64, n: u64, k: u32) -> f64 {
    if m == 0 {
        return 0.0;
    }
    let (m, k) = (m as f64, f64::from(k));
    let a = k * n as f64 / m;
    let rho = 1.0 - (-a).exp();
    let var_set = m * (-a).exp() * (1.0 - (1.0 + a) * (-a).exp());
    let var_rho = var_set.max(0.0) / (m * m);
    (k * rho.powf(k - 1.0)).powi(2) * var_rho
}

/// Variance of the mean of the per-lane rate `(1 - (31/32)^c)^8` over the `blocks` blocks of a
/// split-block filter, `c` a block's load, Poisson with mean `n / blocks` (the model of
/// [`split_block_fpr`](super::split_block_fpr)).
#[must_use]
pub fn split_block_rate_variance(blocks: u64, n: u64) -> f64 {
    if blocks == 0 {
        return 0.0;
    }
    let lambda = n as f64 / blocks as f64;
    let top = (lambda + 12.0 * lambda.sqrt() + 30.0).ceil() as u64;
    let (mut pmf, mut m1, mut m2) = ((-lambda).exp(), 0.0, 0.0);
    for c in 0..=top {
        if c > 0 {
            pmf *= lambda / c as f64;
        }
        let f = (1.0 - (31.0f64 / 32.0).powf(c as f64)).powi(8);
        m1 += pmf * f;
        m2 += pmf * f * f;
    }
    (m2 - m1 * m1).max(0.0) / blocks as f64
}

#[cfg(test)]
mod tests;
