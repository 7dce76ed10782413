//! The examples past the classic filter's: one function per [`super::Kind`].

use super::{err, int, percent, real, Params};
use crate::render::table::Table;
use filterlab::math;
use std::fmt::Write;

fn whole(p: &Params, key: &str, default: u64) -> Result<u32, String> {
    u32::try_from(p.count(key, default)?).map_err(err)
}

pub(super) fn scalable(p: &Params) -> Result<String, String> {
    let (target, r) = (p.real("p", 0.01)?, p.real("r", 0.9)?);
    let stages = whole(p, "stages", 4)?;
    let p0 = math::scalable_initial_fpr(target, r);
    let mut out = format!(
        "With target $P = {}$ and tightening $r = {}$: $P_0 = P(1 - r) = {}$.\n\n",
        percent(target),
        real(r, 3),
        percent(p0)
    );
    let mut t = Table::with_head(
        "| stages | stage $i$ rate $P_0 r^i$ | compound $1 - \\prod (1 - P_i)$ |\n|---:|---:|---:|",
    );
    let mut rates = Vec::new();
    for i in 0..stages {
        rates.push(math::scalable_stage_fpr(p0, r, i));
        t.row([
            (i + 1).to_string(),
            format!("${}$", percent(rates[i as usize])),
            format!("${}$", percent(math::compound_fpr(rates.iter().copied()))),
        ]);
    }
    out.push_str(&t.render());
    let _ = write!(
        out,
        "\nHowever many stages: at most $P_0 / (1 - r) = {}$.",
        percent(math::scalable_fpr_bound(p0, r))
    );
    // Memory, as this library sizes a classic stage (`classic_shape` at 10M keys).
    let n = p.count("n", 10_000_000)?;
    let bits = |q: f64| {
        math::classic_shape(n, q)
            .map(|(m, _)| m as f64 / n as f64)
            .map_err(err)
    };
    let _ = write!(
        out,
        "\n\nMemory, as this library sizes a stage of ${}$ keys: the first stage at $P_0$ takes \
         ${}$ bits per key against ${}$ at $P$, so $r = {}$ costs ${}$ bits per key up front \
         ($\\log_2(1/(1 - r))/\\ln 2 = {}$ by the formula); each further stage, at a rate $r$ times \
         lower, adds ${}$ bits per key it holds ($\\log_2(1/r)/\\ln 2 = {}$).",
        int(n),
        real(bits(p0)?, 4),
        real(bits(target)?, 4),
        real(r, 3),
        real(bits(p0)? - bits(target)?, 3),
        real((1.0 / (1.0 - r)).log2() / std::f64::consts::LN_2, 3),
        real(bits(p0 * r)? - bits(p0)?, 3),
        real((1.0 / r).log2() / std::f64::consts::LN_2, 3),
    );
    Ok(out)
}

/// Top bits of each fingerprint a semi-sorted bucket codes together (Fan et al. 2014, §5.2).
const SEMI_SORT_TOP_BITS: u32 = 4;

/// Bits a semi-sorted bucket of `b` slots saves per fingerprint: the `b` top-`t`-bit values, in
/// no order, are one of `C(2^t + b - 1, b)` multisets, an index of `⌈log2 C⌉` bits in place of
/// `t·b`; the saving is `(t·b - ⌈log2 C⌉) / b` (0 where the index is no shorter). With `t = 4`:
/// 0 at `b = 2` (136 multisets, 8 bits for 8), 1 at `b = 4` (3876, 12 for 16), 1.625 at `b = 8`
/// (490314, 19 for 32).
/// Returns the saving, the number of multisets and the index's bits.
pub(crate) fn semi_sort_saving(b: u32, t: u32) -> (f64, f64, f64) {
    let values = 2f64.powi(t as i32);
    // C(values + b - 1, b) as a product of b ratios (exact in f64 for these sizes).
    let multisets: f64 = (0..b)
        .map(|i| (values + f64::from(i)) / f64::from(i + 1))
        .product();
    let index = multisets.log2().ceil();
    let plain = f64::from(t * b);
    (((plain - index) / f64::from(b)).max(0.0), multisets, index)
}

pub(super) fn cuckoo(p: &Params) -> Result<String, String> {
    let (target, load) = (p.real("p", 0.01)?, p.real("load", 0.95)?);
    let b = whole(p, "b", 4)?;
    let f = math::cuckoo_fingerprint_bits(target, b).map_err(err)?;
    let t = SEMI_SORT_TOP_BITS;
    let (saving, multisets, index) = semi_sort_saving(b, t);
    let semi = if saving > 0.0 {
        format!(
            "the index of $\\lceil \\log_2 {} \\rceil = {}$ bits replaces ${}$, {} bits a \
             fingerprint saved, so the table would take $(f - {})/\\alpha = {}$",
            int(multisets.round() as u64),
            index,
            t * b,
            real(saving, 4),
            real(saving, 4),
            real((f64::from(f) - saving) / load, 4),
        )
    } else {
        format!(
            "the index of $\\lceil \\log_2 {} \\rceil$ bits is no shorter than the ${}$ it \
             replaces: at $b = {b}$ semi-sorting saves nothing",
            int(multisets.round() as u64),
            t * b,
        )
    };
    Ok(format!(
        "- Target ${}$ with $b = {b}$ slots a bucket: $f = \\lceil \\log_2(2b/p) \\rceil = {f}$ bits.\n\
         - At load $\\alpha = {}$: the textbook bound $1 - (1 - 1/(2^f - 1))^{{2b\\alpha}} = {}$; \
         the large-table rate $1 - e^{{-2b\\alpha/(2^f - 1)}} = {}$.\n\
         - Memory: $f / \\alpha = {}$ bits per key. Semi-sorted buckets code the top {t} bits of \
         the {b} fingerprints together, as one of $\\binom{{2^{t} + {b} - 1}}{{{b}}}$ multisets: {semi}.",
        percent(target),
        real(load, 3),
        percent(math::cuckoo_fpr_upper_bound(f, b, load)),
        percent(math::cuckoo_fpr(f, b, load)),
        real(math::cuckoo_bits_per_item(f, load), 4),
    ))
}

/// `lambda` with as many decimals as a reader needs to get `blocks = ceil(n / lambda)` back from
/// the printed number (at least 2, at most 15: past that the printed value is `lambda` itself).
fn digits_for_ceiling(lambda: f64, n: u64, blocks: u64) -> String {
    (2..=15)
        .map(|d| format!("{lambda:.d$}"))
        .find(|shown| {
            shown
                .parse::<f64>()
                .is_ok_and(|l| (n as f64 / l).ceil() as u64 == blocks)
        })
        .unwrap_or_else(|| format!("{lambda:.15}"))
}

pub(super) fn split_block(p: &Params) -> Result<String, String> {
    let (n, target) = (p.count("n", 10_000_000)?, p.real("p", 0.01)?);
    let blocks = math::split_block_blocks(n, target).map_err(err)?;
    let allowed = math::split_block_keys_per_block(target).map_err(err)?;
    let lambda = n as f64 / blocks as f64;
    Ok(format!(
        "- The most keys a block may hold at ${}$: $\\lambda = {}$, so \
         $B = \\lceil n / \\lambda \\rceil$ blocks.\n\
         - $n = {}$ at ${}$: ${}$ blocks of 256 bits, $n / B = {}$ keys a block, ${}$ bits per key.\n\
         - Per lane: $\\sum_c \\mathrm{{Pois}}(c; n/B)(1 - (31/32)^c)^8 = {}$.\n\
         - As one 256-bit block with $k = 8$ (the wrong model): ${}$.",
        percent(target),
        digits_for_ceiling(allowed, n, blocks),
        int(n),
        percent(target),
        int(blocks),
        real(lambda, 4),
        real(blocks as f64 * 256.0 / n as f64, 4),
        percent(math::split_block_fpr(blocks, n)),
        percent(math::split_block_fpr_block_model(blocks, n)),
    ))
}

pub(super) fn quotient(p: &Params) -> Result<String, String> {
    use math::quotient as q;
    let (n, target, load) = (
        p.count("n", 10_000_000)?,
        p.real("p", 0.01)?,
        p.real("load", 0.95)?,
    );
    let r = q::quotient_remainder_bits(target, load).map_err(err)?;
    let quotients = q::quotients_for(n, load, 1, u64::MAX).map_err(err)?;
    let at_n = n as f64 / quotients as f64;
    Ok(format!(
        "- Target ${}$ at most load $\\alpha = {}$: $r = {r}$ remainder bits, $2^{{-r}} = {}$.\n\
         - $n = {}$: ${}$ quotients, load ${}$; the rate $1 - e^{{-\\alpha / 2^r}} = {}$.\n\
         - Memory: $(r + 2.5)/\\alpha = {}$ bits per key (2.5 bits of metadata a slot in the rank-and-select layout).",
        percent(target),
        real(load, 3),
        percent((-f64::from(r)).exp2()),
        int(n),
        int(quotients),
        real(at_n, 4),
        percent(q::quotient_fpr(r, at_n)),
        real(q::quotient_bits_per_item(r, at_n), 4),
    ))
}

pub(super) fn vqf(p: &Params) -> Result<String, String> {
    use math::vqf as v;
    let n = p.count("n", 10_000_000)?;
    let blocks = filterlab::vqf::blocks_for(n).map_err(err)?;
    let load = n as f64 / (blocks * u64::from(v::SLOTS)) as f64;
    let (floor, random) = (
        v::vqf_overflow_share_floor(load),
        v::vqf_overflow_share(load),
    );
    Ok(format!(
        "- $n = {}$ keys: $B = {}$ blocks of 64 bytes, load $\\alpha = {}$, \
         $\\lambda = 48\\alpha/72 = {}$ fingerprints per bucket.\n\
         - Overflow share: ${} \\le \\omega \\le {}$, so the rate lies between ${}$ and ${}$; \
         with every bit set ($\\omega = 1$) it is ${}$.\n\
         - Memory: $512/(48\\alpha) = {}$ bits per key.",
        int(n),
        int(blocks),
        real(load, 4),
        real(v::vqf_bucket_mean(load), 4),
        real(floor, 3),
        real(random, 3),
        percent(v::vqf_fpr(load, floor)),
        percent(v::vqf_fpr(load, random)),
        percent(v::vqf_fpr_bound(load)),
        real(v::vqf_bits_per_item(load), 4),
    ))
}

pub(super) fn expandable(p: &Params) -> Result<String, String> {
    use math::expandable as e;
    let target = p.real("p", 0.01)?;
    let (period, stages) = (whole(p, "period", 8)?, whole(p, "stages", 24)?);
    let f0 = e::initial_fingerprint_bits(target, period, stages).map_err(err)?;
    let mut out = format!(
        "Target ${}$, one more fingerprint bit every {period} stages: the first stage takes \
         $f_0 = {f0}$ bits.\n\n",
        percent(target)
    );
    let mut t = Table::with_head(
        "| stage | $f_i$ | bound $2b\\alpha\\,q(f_i)$, $q(f) = 2^{-f} + 2 \\cdot 4^{-f}$ |\n|---:|---:|---:|",
    );
    for i in [0, 1, period, 2 * period] {
        let f = e::stage_fingerprint_bits(f0, period, i);
        t.row([
            i.to_string(),
            f.to_string(),
            format!("${}$", percent(e::stage_bound(f))),
        ]);
    }
    out.push_str(&t.render());
    let _ = write!(
        out,
        "\nOver every stage, the series sums to at most ${}$.",
        percent(e::series_bound(f0, period))
    );
    Ok(out)
}

pub(super) fn aleph(p: &Params) -> Result<String, String> {
    use math::aleph as a;
    let target = p.real("p", 0.01)?;
    let doublings = whole(p, "doublings", 4)?;
    let w = a::Widening::new(target, None).map_err(err)?;
    let mut out = format!(
        "Target ${}$, no estimate of $n$: generation $x$ gets $F_x$ fingerprint bits.\n\n",
        percent(target)
    );
    let mut t = Table::with_head(
        "| doublings $k$ | $F_k$ (new keys) | slot width | $\\mathrm{FP}(k)$, table full |\n|---:|---:|---:|---:|",
    );
    for k in 0..=doublings {
        t.row([
            k.to_string(),
            w.fingerprint_bits(k).to_string(),
            w.slot_width(k).to_string(),
            format!("${}$", percent(w.fpr_bound(k))),
        ]);
    }
    out.push_str(&t.render());
    Ok(out)
}

pub(super) fn fixed(p: &Params) -> Result<String, String> {
    let (n, target) = (p.count("n", 10_000_000)?, p.real("p", 0.01)?);
    let f8 = math::fuse::fuse_bits_per_key(n, 8).map_err(err)?;
    let f16 = math::fuse::fuse_bits_per_key(n, 16).map_err(err)?;
    let ribbon = math::ribbon::ribbon_bits_per_key(n, target).map_err(err)?;
    // The fuse array as the library lays it out: the size factor sizes the whole array.
    let layout = math::fuse::Layout::for_keys(n, 0).map_err(err)?;
    let factor = math::fuse::fuse_size_factor(n);
    Ok(format!(
        "At $n = {}$:\n\n\
         - the binary fuse array: $L = {}$ cells a segment, $n \\cdot {} = {}$ cells rounded up \
         to whole segments, $(c + 2) L = {}$ cells in all ($c = {}$);\n\
         - binary fuse, 8-bit: rate $2^{{-8}} = {}$ at ${}$ bits per key;\n\
         - binary fuse, 16-bit: rate $2^{{-16}} = {}$ at ${}$ bits per key;\n\
         - ribbon at ${}$: ${}$ bits per key, against the lower bound $\\log_2(1/p) = {}$.",
        int(n),
        int(u64::from(layout.segment_length)),
        real(factor, 4),
        int((n as f64 * factor).round() as u64),
        int(u64::from(layout.array_length)),
        layout.segment_count,
        percent(math::fuse::fuse_fpr(8)),
        real(f8, 4),
        percent(math::fuse::fuse_fpr(16)),
        real(f16, 4),
        percent(target),
        real(ribbon, 4),
        real(-target.log2(), 4),
    ))
}

pub(super) fn window(p: &Params) -> Result<String, String> {
    use math::window as w;
    let (window, target) = (p.count("n", 1_000_000)?, p.real("p", 0.01)?);
    let (k, l) = (whole(p, "k", 10)?, whole(p, "l", 52)?);
    let apbf = w::ApbfPlan::for_target(window, k, l, target)
        .ok_or_else(|| format!("no age-partitioned filter for k={k}, l={l} at {target}"))?;
    Ok(format!(
        "A window of $n = {}$ items, $k = {k}$ slices queried in a row out of $k + l = {}$: \
         worst rate ${}$ at ${}$ bits per item (target ${}$).",
        int(window),
        k + l,
        percent(apbf.worst_fpr()),
        real(apbf.bits_per_item(), 4),
        percent(target),
    ))
}

pub(super) fn hash(p: &Params) -> Result<String, String> {
    let n = p.count("n", 10_000_000)?;
    let line = |bits: i32| {
        // 1 - (1 - 2^-b)^n, kept precise where it is tiny.
        let rate = -(n as f64 * (-(2f64.powi(-bits))).ln_1p()).exp_m1();
        format!(
            "- {bits}-bit hashes: $1 - (1 - 2^{{-{bits}}})^n = {}$",
            percent(rate)
        )
    };
    Ok(format!(
        "A non-member whose hash equals a member's passes every filter built on that hash. \
         At $n = {}$:\n\n{}\n{}",
        int(n),
        line(32),
        line(64)
    ))
}

pub(super) fn wilson(p: &Params) -> Result<String, String> {
    let (hits, trials) = (p.count("hits", 20_044)?, p.count("trials", 2_000_000)?);
    if trials == 0 || hits > trials {
        return Err(format!(
            "wilson needs 0 <= hits <= trials > 0 (hits={hits}, trials={trials})"
        ));
    }
    let (lo, hi) = math::wilson_interval(hits, trials, 1.959_963_984_540_054);
    let rate = hits as f64 / trials as f64;
    Ok(format!(
        "${}$ hits in ${}$ trials: $\\hat p = {}$, 95% Wilson interval ${}$ to ${}$ \
         (binomial $\\sigma = {}$).",
        int(hits),
        int(trials),
        percent(rate),
        percent(lo),
        percent(hi),
        percent(math::binomial_sigma(rate, trials)),
    ))
}

pub(super) fn count(p: &Params) -> Result<String, String> {
    let (n, target) = (p.count("n", 1_000_000)?, p.real("p", 0.01)?);
    let (m, k) = math::classic_shape(n, target).map_err(err)?;
    // The fill a filter of that shape has on average after n inserts.
    let ones = (m as f64 * -(-(n as f64) * f64::from(k) / m as f64).exp_m1()).round() as u64;
    let est = math::bloom_count_estimate(m, k, ones).ok_or("the filter is full: no estimate")?;
    Ok(format!(
        "A filter with $m = {}$, $k = {k}$ and $X = {}$ bits set: \
         $\\hat n = -(m/k) \\ln(1 - X/m) = {}$ (standard deviation ${}$); \
         its rate read from the fill, $(X/m)^k = {}$.",
        int(m),
        int(ones),
        real(est, 6),
        real(math::bloom_count_estimate_sd(m, k, est), 3),
        percent(math::bloom_fpr_at_fill(m, k, ones).unwrap_or(f64::NAN)),
    ))
}

pub(super) fn crossover(p: &Params) -> Result<String, String> {
    let (e, alpha) = (p.real("e", 3.0)?, p.real("alpha", 0.95)?);
    if !(e > 0.0 && alpha > std::f64::consts::LN_2 && alpha <= 1.0) {
        return Err(format!(
            "crossover needs e > 0 and ln 2 < alpha <= 1 (e={e}, alpha={alpha})"
        ));
    }
    let x = (e / alpha) / (std::f64::consts::LOG2_E - 1.0 / alpha);
    Ok(format!(
        "With $e = {}$ extra bits a fingerprint and load $\\alpha = {}$: cuckoo is smaller once \
         $\\log_2(1/p) > (e/\\alpha)/(1/\\ln 2 - 1/\\alpha) = {}$, that is below $p = {}$.",
        real(e, 3),
        real(alpha, 3),
        real(x, 4),
        percent((-x).exp2()),
    ))
}
