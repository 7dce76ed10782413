//! Worked examples, computed by `filter_core::math` (through `filterlab::math`) when the book
//! is built: a chapter names the example and its parameters (`{{#example classic n=10M p=1%}}`)
//! and never types a result.

use filterlab::math;
use std::collections::HashMap;

mod more;
mod planned;

/// The examples a chapter can ask for: one formula family each (a chapter names it by a
/// short word, often its structure's: `classic` is the Bloom sizing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// m, k and the rate of a classic filter for n keys at p, against the lower bound.
    Sizing,
    /// The rate at whole k around the best k.
    BestK,
    /// The approximation against the exact rate at small m.
    Exact,
    /// The overflow bound of 4-bit counters.
    Overflow,
    /// Stage rates and the compound rate of a scalable filter.
    Compound,
    /// Fingerprint bits, rate and bits per key of a cuckoo filter.
    Fingerprint,
    /// Blocks, keys per block and rate of a split-block filter.
    Lanes,
    /// Remainder bits, rate and bits per key of a quotient filter.
    Remainders,
    /// Blocks, the overflow share's bracket, rate and bits per key of a vector quotient filter.
    Blocks,
    /// The first stage's fingerprint and the bound of an expandable cuckoo filter.
    StageSeries,
    /// Fingerprint bits and rate of an Aleph filter at each doubling.
    Widening,
    /// Rate and bits per key of binary fuse and ribbon filters.
    Static,
    /// The age-partitioned filter's worst rate and memory.
    Window,
    /// Chance that a non-member's hash equals a member's, at 32 and 64 bits.
    Hash,
    /// A Wilson interval.
    Wilson,
    /// The count estimated from the number of set bits.
    Count,
    /// The target rate below which a cuckoo filter is smaller than a classic one.
    Crossover,
    /// The first target at which a variant's builder allocates fewer bits a key than another's.
    FirstSmaller,
    /// The slot of a filter told its final size against a static quotient filter's remainder.
    EstimateWidth,
}

impl Kind {
    fn parse(s: &str) -> Result<Kind, String> {
        Ok(match s {
            "classic" => Kind::Sizing,
            "best-k" => Kind::BestK,
            "exact" => Kind::Exact,
            "counting" => Kind::Overflow,
            "scalable" => Kind::Compound,
            "cuckoo" => Kind::Fingerprint,
            "split-block" => Kind::Lanes,
            "quotient" => Kind::Remainders,
            "vqf" => Kind::Blocks,
            "expandable" => Kind::StageSeries,
            "aleph" => Kind::Widening,
            "static" => Kind::Static,
            "window" => Kind::Window,
            "hash" => Kind::Hash,
            "wilson" => Kind::Wilson,
            "count" => Kind::Count,
            "crossover" => Kind::Crossover,
            "first-smaller" => Kind::FirstSmaller,
            "aleph-estimate" => Kind::EstimateWidth,
            other => return Err(format!("unknown example {other:?}")),
        })
    }
}

/// An example's parameters, each read once.
pub(crate) struct Params(HashMap<String, String>);

impl Params {
    /// A count: `10M`, `1e7`, `10_000_000`, `64K`.
    pub(crate) fn count(&self, key: &str, default: u64) -> Result<u64, String> {
        let Some(v) = self.0.get(key) else {
            return Ok(default);
        };
        let t = v.replace('_', "");
        let (num, mult) = match t.chars().last() {
            Some('K') => (&t[..t.len() - 1], 1e3),
            Some('M') => (&t[..t.len() - 1], 1e6),
            Some('G') => (&t[..t.len() - 1], 1e9),
            _ => (t.as_str(), 1.0),
        };
        let x: f64 = num
            .parse()
            .map_err(|_| format!("{key}={v} is not a count"))?;
        let n = x * mult;
        if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n < 1.8e19 {
            Ok(n as u64)
        } else {
            Err(format!("{key}={v} is not a whole count"))
        }
    }

    /// A text value (a variant's name, a list of them).
    pub(crate) fn text(&self, key: &str, default: &str) -> String {
        self.0
            .get(key)
            .map_or_else(|| default.to_string(), Clone::clone)
    }

    /// A real number; `1%` reads as 0.01.
    pub(crate) fn real(&self, key: &str, default: f64) -> Result<f64, String> {
        let Some(v) = self.0.get(key) else {
            return Ok(default);
        };
        let (num, scale) = v.strip_suffix('%').map_or((v.as_str(), 1.0), |s| (s, 0.01));
        num.parse::<f64>()
            .map(|x| x * scale)
            .map_err(|_| format!("{key}={v} is not a number"))
    }
}

/// Thousands apart with thin spaces, for LaTeX (`95\,850\,584`).
pub(crate) fn int(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push_str("\\,");
        }
        out.push(c);
    }
    out
}

/// A real with `digits` significant digits, in LaTeX (`1.004`, `2.3 \times 10^{-8}`).
pub(crate) fn real(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let mut e = x.abs().log10().floor() as i32;
    // 9.9996e6 shows as 10.000e6 at four digits: count it in the next decade.
    if format!(
        "{:.prec$}",
        x.abs() / 10f64.powi(e),
        prec = digits.saturating_sub(1)
    )
    .starts_with("10")
    {
        e += 1;
    }
    if (-4..6).contains(&e) {
        let decimals = (digits as i32 - 1 - e).max(0) as usize;
        format!("{x:.decimals$}")
    } else {
        let m = x / 10f64.powi(e);
        format!(
            "{m:.prec$} \\times 10^{{{e}}}",
            prec = digits.saturating_sub(1)
        )
    }
}

/// A rate as a percentage in LaTeX (`1.004\%`).
pub(crate) fn percent(p: f64) -> String {
    format!("{}\\%", real(p * 100.0, 4))
}

/// The example `kind` with `params`, as Markdown with LaTeX.
///
/// # Errors
/// An unknown kind or parameter, or parameters the formulas refuse.
pub fn render(kind: &str, params: &[(String, String)]) -> Result<String, String> {
    let p = Params(params.iter().cloned().collect());
    let body = match Kind::parse(kind)? {
        Kind::Sizing => classic(&p),
        Kind::BestK => best_k(&p),
        Kind::Exact => exact(&p),
        Kind::Overflow => counting(&p),
        Kind::Compound => more::scalable(&p),
        Kind::Fingerprint => more::cuckoo(&p),
        Kind::Lanes => more::split_block(&p),
        Kind::Remainders => more::quotient(&p),
        Kind::Blocks => more::vqf(&p),
        Kind::StageSeries => more::expandable(&p),
        Kind::Widening => more::aleph(&p),
        Kind::Static => more::fixed(&p),
        Kind::Window => more::window(&p),
        Kind::Hash => more::hash(&p),
        Kind::Wilson => more::wilson(&p),
        Kind::Count => more::count(&p),
        Kind::Crossover => more::crossover(&p),
        Kind::FirstSmaller => planned::first_smaller(&p),
        Kind::EstimateWidth => planned::estimate_width(&p),
    }?;
    Ok(format!(
        "> **Worked example** (computed by `filter_core::math` when this book was built)\n>\n{}\n",
        body.lines()
            .map(|l| format!("> {l}"))
            .collect::<Vec<_>>()
            .join("\n")
    ))
}

fn err(e: impl std::fmt::Display) -> String {
    e.to_string()
}

fn classic(p: &Params) -> Result<String, String> {
    let (n, fpr) = (p.count("n", 10_000_000)?, p.real("p", 0.01)?);
    let m_formula = math::optimal_bits(n, fpr).map_err(err)?;
    let (m, k) = math::classic_shape(n, fpr).map_err(err)?;
    let k_star = m_formula as f64 / n as f64 * std::f64::consts::LN_2;
    let bound = math::lower_bound_bits(n, fpr);
    Ok(format!(
        "- $n = {}$ keys at $p = {}$: $m = \\lceil -n \\ln p / (\\ln 2)^2 \\rceil = {}$ bits, \
         ${}$ bits per key.\n\
         - The best $k^* = (m/n) \\ln 2 = {}$; whole, $k = {k}$. This library allocates $m = {}$ \
         (${}$ bits per key) so that $k = {k}$ meets $p$: its rate is ${}$.\n\
         - The lower bound $n \\log_2(1/p) = {}$ bits (${}$ per key): the classic filter pays \
         ${}\\%$ over it.",
        int(n),
        percent(fpr),
        int(m_formula),
        real(m_formula as f64 / n as f64, 4),
        real(k_star, 4),
        int(m),
        real(m as f64 / n as f64, 4),
        percent(math::classic_fpr(m, n, k)),
        int(bound.ceil() as u64),
        real(bound / n as f64, 4),
        real((m as f64 / bound - 1.0) * 100.0, 3),
    ))
}

fn best_k(p: &Params) -> Result<String, String> {
    let (n, fpr) = (p.count("n", 10_000_000)?, p.real("p", 0.01)?);
    let m = math::optimal_bits(n, fpr).map_err(err)?;
    let best = math::optimal_hashes(m, n);
    let mut out = format!(
        "At $n = {}$ and $m = {}$ bits ($m/n = {}$), $k^* = {}$ and the whole best is $k = {best}$:\n\n",
        int(n),
        int(m),
        real(m as f64 / n as f64, 4),
        real(m as f64 / n as f64 * std::f64::consts::LN_2, 4),
    );
    let mut t = crate::render::table::Table::with_head(&format!(
        "| $k$ | $p(k)$ | against $k = {best}$ |\n|---:|---:|---:|"
    ));
    let at_best = math::classic_fpr(m, n, best);
    for k in best.saturating_sub(2).max(1)..=best + 2 {
        let r = math::classic_fpr(m, n, k);
        t.row([
            k.to_string(),
            format!("${}$", percent(r)),
            format!("${:+.1}\\%$", (r / at_best - 1.0) * 100.0),
        ]);
    }
    out.push_str(&t.render());
    Ok(out)
}

fn exact(p: &Params) -> Result<String, String> {
    let (m, n) = (p.count("m", 16)?, p.count("n", 2)?);
    let k = u32::try_from(p.count("k", 6)?).map_err(err)?;
    let approx = math::classic_fpr(m, n, k);
    let exact = math::classic_fpr_exact(m, n, k)
        .ok_or_else(|| format!("the exact formula is not computable at m={m}, n={n}, k={k}"))?;
    Ok(format!(
        "- At $m = {}$, $n = {}$, $k = {k}$: the approximation $(1 - e^{{-kn/m}})^k = {}$, \
         the exact rate ${}$.\n\
         - The approximation is ${}\\%$ low.",
        int(m),
        int(n),
        percent(approx),
        percent(exact),
        real((1.0 - approx / exact) * 100.0, 3)
    ))
}

fn counting(p: &Params) -> Result<String, String> {
    let (n, fpr) = (p.count("n", 10_000_000)?, p.real("p", 0.01)?);
    let bits = u32::try_from(p.count("bits", 4)?).map_err(err)?;
    let (m, k) = math::classic_shape(n, fpr).map_err(err)?;
    let bound = math::counting_overflow_bound(m, n, k, bits);
    let j = 2f64.powi(i32::try_from(bits).map_err(err)?);
    let lambda = f64::from(k) * n as f64 / m as f64;
    let closed = |l: f64| m as f64 * (std::f64::consts::E * l / j).powf(j);
    Ok(format!(
        "- $n = {}$ at $p = {}$: $m = {}$ counters of {bits} bits, $k = {k}$: ${}$ bits per key, \
         {bits} times the classic filter's.\n\
         - A counter is about Poisson with $\\lambda = kn/m = {}$ (not $\\ln 2 = {}$: $k$ is whole).\n\
         - $P(\\text{{any counter}} \\ge 2^{{{bits}}}) \\le m \\binom{{nk}}{{2^{bits}}} m^{{-2^{bits}}} = {}$; \
         the looser closed form $m (e \\lambda / 2^{bits})^{{2^{bits}}} = {}$, and with $\\ln 2$ in place of \
         $\\lambda$ ${}$.",
        int(n),
        percent(fpr),
        int(m),
        real(m as f64 * f64::from(bits) / n as f64, 4),
        real(lambda, 4),
        real(std::f64::consts::LN_2, 4),
        real(bound, 3),
        real(closed(lambda), 3),
        real(closed(std::f64::consts::LN_2), 3),
    ))
}
