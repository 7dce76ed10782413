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
