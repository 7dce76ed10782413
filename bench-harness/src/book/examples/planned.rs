//! Examples computed from the sizes the registry's builders would allocate (`Variant::plan`,
//! which allocates nothing), rather than from a formula alone: where rounding `k`, `f` or `r`
//! to whole numbers moves a comparison away from the formulas' smooth curves.

use super::{err, int, percent, real, Params};
use filterlab::any::{Params as Sizing, Variant};

/// The variant named by parameter `key`.
fn variant(p: &Params, key: &str, default: &str) -> Result<Variant, String> {
    let name = p.text(key, default);
    Variant::from_name(&name).ok_or_else(|| format!("{key}={name} is not a variant"))
}

/// Bits per key the builder of `v` allocates for `n` keys at rate `fpr`.
fn bits(v: Variant, n: u64, fpr: f64) -> Result<f64, String> {
    Ok(v.plan(&Sizing::new(n, fpr)).map_err(err)?.bits_per_key)
}

/// Where each variant of `of` (comma-separated names) first takes fewer bits per key than
/// `than`, scanning targets from `from` down to `to` on a grid of `per_decade` targets a
/// decade, at `n` keys.
pub(super) fn first_smaller(p: &Params) -> Result<String, String> {
    let n = p.count("n", 10_000_000)?;
    let than = variant(p, "than", "classic")?;
    let (from, to) = (p.real("from", 0.1)?, p.real("to", 1e-5)?);
    let per_decade = p.count("per_decade", 200)?;
    if !(0.0 < to && to < from && from < 1.0) || per_decade == 0 || per_decade > 10_000 {
        return Err(format!(
            "first-smaller needs 0 < to < from < 1 and 1..=10000 targets a decade \
             (from={from}, to={to}, per_decade={per_decade})"
        ));
    }
    let steps = ((from / to).log10() * per_decade as f64).floor() as u64;
    let grid = (0..=steps).map(|i| from * 10f64.powf(-(i as f64) / per_decade as f64));
    let grid: Vec<f64> = grid.collect();
    let names = p.text("of", "quotient,cuckoo");
    let mut found = Vec::new();
    for name in names.split(',').map(str::trim) {
        let v = Variant::from_name(name).ok_or_else(|| format!("of={name} is not a variant"))?;
        let mut first = None;
        for &q in &grid {
            let (ours, theirs) = (bits(v, n, q)?, bits(than, n, q)?);
            if ours < theirs {
                first = Some((q, ours, theirs));
                break;
            }
        }
        found.push(match first {
            Some((q, ours, theirs)) => format!(
                "the {name} filter at $p = {}$ (${}$ bits a key against ${}$)",
                percent(q),
                real(ours, 4),
                real(theirs, 4)
            ),
            None => format!("the {name} filter nowhere on the grid"),
        });
    }
    Ok(format!(
        "From the sizes the builders allocate for $n = {}$ keys, on a grid of {per_decade} targets \
         a decade from ${}$ down to ${}$, the first target at which each takes fewer bits a key \
         than the {} filter: {}.",
        int(n),
        percent(from),
        percent(to),
        than.name(),
        found.join("; ")
    ))
}

/// An Aleph filter told its final size against a static quotient filter at the same target:
/// at the estimate every entry has `F` bits and a marker, `F + 1` a slot, where the static
/// filter's remainders take `r`. `F` is the fewest bits with `0.95·2^-F ≤ 15/16·ε`, `r` the
/// fewest with `1 - e^(-0.95/2^r) ≤ ε`: `F ≥ r`, so the Aleph slot is one bit wider, or two
/// where `F = r + 1`. Shown at `p`, then counted over a grid of `per_decade` targets a decade
/// from `from` down to `to`.
pub(super) fn estimate_width(p: &Params) -> Result<String, String> {
    use filterlab::math::{aleph, quotient};
    let target = p.real("p", 0.01)?;
    let (from, to) = (p.real("from", 0.1)?, p.real("to", 1e-6)?);
    let per_decade = p.count("per_decade", 100)?;
    if !(0.0 < to && to < from && from < 1.0) || per_decade == 0 || per_decade > 10_000 {
        return Err(format!(
            "aleph-estimate needs 0 < to < from < 1 and 1..=10000 targets a decade \
             (from={from}, to={to}, per_decade={per_decade})"
        ));
    }
    let extra = |q: f64| -> Result<(u32, u32), String> {
        let f = aleph::estimated_bits(q);
        let r = quotient::quotient_remainder_bits(q, aleph::MAX_LOAD).map_err(err)?;
        Ok((f, r))
    };
    let (f, r) = extra(target)?;
    let steps = ((from / to).log10() * per_decade as f64).round() as u64;
    // The targets where F = r + 1, as runs of neighbouring grid points: (loosest, tightest).
    let (mut wider, mut runs) = (0u64, Vec::<(f64, f64)>::new());
    let mut last = None;
    for i in 0..=steps {
        let q = from * 10f64.powf(-(i as f64) / per_decade as f64);
        let (f, r) = extra(q)?;
        if f > r {
            wider += 1;
            match runs.last_mut() {
                Some(run) if last == Some(i - 1) => run.1 = q,
                _ => runs.push((q, q)),
            }
            last = Some(i);
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                format!("${}$", percent(a))
            } else {
                format!("${}$ to ${}$", percent(a), percent(b))
            }
        })
        .collect();
    Ok(format!(
        "At ${}$: $F = {f}$ bits at the estimate, a slot of $F + 1 = {}$; a static quotient \
         filter's remainders take $r = {r}$: {} bit{} more.\n\n\
         Over {} targets, {per_decade} a decade from ${}$ down to ${}$: $F = r + 1$ (two bits more \
         than the static filter) at {} of them ({}), $F = r$ (one bit more) at the other {}.",
        percent(target),
        f + 1,
        f + 1 - r,
        if f + 1 - r == 1 { "" } else { "s" },
        steps + 1,
        percent(from),
        percent(to),
        wider,
        shown.join(", "),
        steps + 1 - wider,
    ))
}
