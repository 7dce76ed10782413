//! Human numbers on the command line: counts (`10M`, `1e7`, `10_000_000`), rates (`1%`, `0.01`,
//! `1/100`) and byte sizes (`64MiB`, `64MB`, `1048576`). Each parser returns a one-line message
//! that says what was expected, which clap prints after the offending value.

/// A variant by name, as the registry spells it; `--help` lists every name of
/// `filterlab::Variant::ALL`.
#[derive(Clone, Copy, Debug, Default)]
pub struct VariantParser;

impl clap::builder::TypedValueParser for VariantParser {
    type Value = filterlab::Variant;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Self::Value, clap::Error> {
        let text = value.to_string_lossy();
        text.parse().map_err(|e: filterlab::any::UnknownVariant| {
            let name = arg.map_or_else(|| "--variant".into(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!("invalid value for {name}: {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        let names = filterlab::Variant::ALL
            .iter()
            .map(|v| clap::builder::PossibleValue::new(v.name()).help(v.summary()));
        Some(Box::new(names))
    }
}

/// A count of items: a plain integer with optional `_` or `,` separators, a decimal or exponent
/// form that is a whole number (`1e7`, `2.5k`), or a number with a suffix `k`, `M`, `G`/`B`
/// (billion) or `T`, powers of 1000.
///
/// # Errors
/// Anything that is not a whole, positive count that fits in 64 bits.
pub fn count(s: &str) -> Result<u64, String> {
    let expected = "expected a positive whole count such as 10M, 1e7, 2.5k or 10_000_000";
    let clean: String = s.trim().chars().filter(|&c| c != '_' && c != ',').collect();
    if clean.is_empty() {
        return Err(format!("empty count; {expected}"));
    }
    if let Ok(v) = clean.parse::<u64>() {
        return positive(v, expected);
    }
    let (body, scale) = split_suffix(
        &clean,
        &[
            ("k", 1e3),
            ("K", 1e3),
            ("M", 1e6),
            ("G", 1e9),
            ("B", 1e9),
            ("T", 1e12),
        ],
    );
    let x: f64 = body.parse().map_err(|_| expected.to_string())?;
    let v = x * scale;
    if !v.is_finite() || v < 0.0 {
        return Err(expected.into());
    }
    if v >= u64::MAX as f64 {
        return Err(format!("{s} is larger than 2^64; {expected}"));
    }
    if v.fract() != 0.0 {
        return Err(format!("{s} is not a whole number of items; {expected}"));
    }
    positive(v as u64, expected)
}

fn positive(v: u64, expected: &str) -> Result<u64, String> {
    if v == 0 {
        Err(format!("0 items; {expected}"))
    } else {
        Ok(v)
    }
}

/// `(number part, multiplier)` for the first suffix of `table` that `s` ends with.
fn split_suffix<'a>(s: &'a str, table: &[(&str, f64)]) -> (&'a str, f64) {
    table
        .iter()
        .find_map(|&(suffix, scale)| s.strip_suffix(suffix).map(|body| (body.trim(), scale)))
        .unwrap_or((s, 1.0))
}

/// A false-positive rate: `1%`, `0.01`, `1e-2` or `1/100`, strictly between 0 and 1.
///
/// # Errors
/// Anything else, with the accepted forms.
pub fn rate(s: &str) -> Result<f64, String> {
    let expected = "expected a rate strictly between 0 and 1, such as 1%, 0.01 or 1/100";
    let t = s.trim();
    let number = |x: &str| x.trim().parse::<f64>().map_err(|_| expected.to_string());
    let p = if let Some(pct) = t.strip_suffix('%') {
        number(pct)? / 100.0
    } else if let Some((a, b)) = t.split_once('/') {
        let (a, b) = (number(a)?, number(b)?);
        if b == 0.0 {
            return Err(format!("division by zero; {expected}"));
        }
        a / b
    } else {
        number(t)?
    };
    if p.is_finite() && p > 0.0 && p < 1.0 {
        Ok(p)
    } else {
        Err(format!("{s} is not strictly between 0 and 1; {expected}"))
    }
}

/// A memory size in bytes: a plain number of bytes, or a number with `KiB`/`MiB`/`GiB`/`TiB`
/// (powers of 1024) or `kB`/`KB`/`MB`/`GB`/`TB` (powers of 1000); `B` alone means bytes. A bare
/// `K`/`k`, `M`, `G` or `T` means the binary unit, as in `ulimit`, `sort -S` and `dd`.
///
/// # Errors
/// Anything else, or a size that is not positive or does not fit in 64 bits.
pub fn bytes(s: &str) -> Result<u64, String> {
    let expected = "expected a memory size such as 64MiB, 64M (= MiB), 512MB, 2GiB or 1048576";
    let clean: String = s.trim().chars().filter(|&c| c != '_' && c != ',').collect();
    // A plain number of bytes is read exactly (through f64 it would round above 2^53, and a
    // size `recommend` prints would not read back as itself).
    if let Ok(v) = clean.parse::<u64>() {
        return if v >= 1 {
            Ok(v)
        } else {
            Err(format!("{s} is not a usable size; {expected}"))
        };
    }
    let table = [
        ("KiB", 1024f64),
        ("MiB", 1024f64.powi(2)),
        ("GiB", 1024f64.powi(3)),
        ("TiB", 1024f64.powi(4)),
        ("kB", 1e3),
        ("KB", 1e3),
        ("MB", 1e6),
        ("GB", 1e9),
        ("TB", 1e12),
        ("B", 1.0),
        ("K", 1024f64),
        ("k", 1024f64),
        ("M", 1024f64.powi(2)),
        ("G", 1024f64.powi(3)),
        ("T", 1024f64.powi(4)),
    ];
    let (body, scale) = split_suffix(&clean, &table);
    let x: f64 = body.parse().map_err(|_| expected.to_string())?;
    let v = (x * scale).floor();
    if !v.is_finite() || v < 1.0 || v >= u64::MAX as f64 {
        return Err(format!("{s} is not a usable size; {expected}"));
    }
    Ok(v as u64)
}

/// A thread count, at least 1.
///
/// # Errors
/// 0 or a non-integer.
pub fn threads(s: &str) -> Result<u32, String> {
    match s.trim().parse::<u32>() {
        Ok(t) if t >= 1 => Ok(t),
        _ => Err("expected a thread count of at least 1, such as 4".into()),
    }
}

#[cfg(test)]
mod tests;
