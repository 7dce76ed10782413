//! Numbers as people read them: byte sizes in decimal and binary units, rates in percent.

/// `12.0 MB (11.4 MiB)`.
pub fn size(bytes: u64) -> String {
    let b = bytes as f64;
    let (dec, bin) = [
        (1e12, 1u64 << 40, "TB", "TiB"),
        (1e9, 1 << 30, "GB", "GiB"),
        (1e6, 1 << 20, "MB", "MiB"),
        (1e3, 1 << 10, "kB", "KiB"),
    ]
    .into_iter()
    .find(|&(d, _, _, _)| b >= d)
    .map_or((format!("{bytes} B"), String::new()), |(d, bi, ds, bs)| {
        (
            format!("{:.2} {ds}", b / d),
            format!(" ({:.2} {bs})", b / bi as f64),
        )
    });
    format!("{dec}{bin}")
}

/// A rate as a percentage with enough digits.
pub fn pct(p: f64) -> String {
    if p >= 1e-4 {
        format!("{:.4}%", p * 100.0)
    } else {
        format!("{:.3e}", p)
    }
}

#[cfg(test)]
mod tests;
