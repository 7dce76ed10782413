//! Axis ranges, tick positions and tick labels.

use crate::style::TICK_SIZE;

/// The plot rectangle in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Frame {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) right: f64,
    pub(crate) bottom: f64,
}

impl Frame {
    pub(crate) fn x(&self, frac: f64) -> f64 {
        self.left + frac * (self.right - self.left)
    }

    pub(crate) fn y(&self, frac: f64) -> f64 {
        self.bottom - frac * (self.bottom - self.top)
    }
}

/// One axis: its range in transformed units (log10 of the value on a log axis) and its ticks.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Axis {
    pub(crate) log: bool,
    pub(crate) lo: f64,
    pub(crate) hi: f64,
    /// Labelled ticks, as (transformed position, label).
    pub(crate) major: Vec<(f64, String)>,
    /// Unlabelled ticks with a lighter grid line, in transformed units.
    pub(crate) minor: Vec<f64>,
}

impl Axis {
    pub(crate) fn transform(log: bool, v: f64) -> f64 {
        if log {
            v.log10()
        } else {
            v
        }
    }

    /// Position of the data value `v` along the axis: 0 at `lo`, 1 at `hi`.
    pub(crate) fn frac(&self, v: f64) -> f64 {
        (Self::transform(self.log, v) - self.lo) / (self.hi - self.lo)
    }

    /// An axis over data `[min, max]` (finite, and positive if `log`), widened by `pad` of
    /// its span on each side, with about `target` labels.
    pub(crate) fn fit(log: bool, min: f64, max: f64, pad: f64, target: usize) -> Self {
        let (mut lo, mut hi) = (Self::transform(log, min), Self::transform(log, max));
        if hi - lo <= 1e-12 * lo.abs().max(1.0) {
            let half = if log { 0.5 } else { (lo.abs() * 0.1).max(0.5) };
            lo -= half;
            hi += half;
        } else {
            let span = hi - lo;
            lo -= pad * span;
            hi += pad * span;
        }
        Self::with_range(log, lo, hi, target)
    }

    /// An axis over exactly `[lo, hi]`, in transformed units.
    pub(crate) fn with_range(log: bool, lo: f64, hi: f64, target: usize) -> Self {
        let (major, minor) = if log {
            log_ticks(lo, hi)
        } else {
            (linear_ticks(lo, hi, target), Vec::new())
        };
        Self {
            log,
            lo,
            hi,
            major,
            minor,
        }
    }

    /// Keeps every k-th label, for the smallest k that leaves neighbouring labels at least
    /// `gap(i, j)` logical pixels apart on an axis `length` long; the dropped labels become
    /// minor ticks.
    pub(crate) fn thin(&mut self, length: f64, gap: impl Fn(usize, usize) -> f64) {
        let n = self.major.len();
        let at = |i: usize| (self.major[i].0 - self.lo) / (self.hi - self.lo) * length;
        let every = (1..n.max(2))
            .find(|&k| {
                let kept: Vec<usize> = (0..n).step_by(k).collect();
                kept.windows(2)
                    .all(|w| (at(w[1]) - at(w[0])).abs() >= gap(w[0], w[1]))
            })
            .unwrap_or(n.max(1));
        if every > 1 {
            for (i, (t, label)) in std::mem::take(&mut self.major).into_iter().enumerate() {
                if i % every == 0 {
                    self.major.push((t, label));
                } else {
                    self.minor.push(t);
                }
            }
        }
    }

    /// Thins y labels so that they do not touch.
    pub(crate) fn thin_vertical(&mut self, frame: &Frame) {
        self.thin(frame.bottom - frame.top, |_, _| TICK_SIZE * 1.2);
    }

    /// Thins x labels of width `widths` so that they do not touch.
    pub(crate) fn thin_horizontal(&mut self, frame: &Frame, widths: &[f64]) {
        self.thin(frame.right - frame.left, |i, j| {
            (widths[i] + widths[j]) / 2.0 + 12.0
        });
    }

    /// The axis of a chart with no data.
    pub(crate) fn placeholder(log: bool) -> Self {
        Self::with_range(log, 0.0, 1.0, 5)
    }
}

/// The step of 1, 2 or 5 times a power of ten that splits `span` into the number of
/// intervals nearest to `target` (the larger step on a tie).
pub(crate) fn nice_step(span: f64, target: usize) -> f64 {
    let target = target.max(1) as f64;
    let magnitude = 10f64.powf((span / target).log10().floor());
    [10.0, 5.0, 2.0, 1.0]
        .into_iter()
        .map(|m| m * magnitude)
        .fold(f64::NAN, |best, step| {
            let miss = |s: f64| (span / s - target).abs();
            if best.is_nan() || miss(step) < miss(best) - 1e-9 {
                step
            } else {
                best
            }
        })
}

/// Short labels such as `10⁻⁵` fit this many times on either axis.
pub(crate) const MAX_DECADE_LABELS: usize = 12;

pub(crate) fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<(f64, String)> {
    let step = nice_step(hi - lo, target);
    if !step.is_finite() || step <= 0.0 {
        return Vec::new();
    }
    let first = (lo / step - 1e-9).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    let values: Vec<f64> = (first..=last).map(|k| k as f64 * step).collect();
    let labels = format_linear(&values, step);
    values.into_iter().zip(labels).collect()
}

/// Labels for evenly spaced `values`: one unit suffix and one number of decimals for all.
pub(crate) fn format_linear(values: &[f64], step: f64) -> Vec<String> {
    let biggest = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let (unit, suffix) = if biggest >= 1e9 {
        (1e9, "G")
    } else if biggest >= 1e6 {
        (1e6, "M")
    } else if biggest >= 1e4 {
        (1e3, "k")
    } else {
        (1.0, "")
    };
    let decimals = decimals_for(step / unit);
    values
        .iter()
        .map(|v| {
            let scaled = v / unit;
            if scaled.abs() < step / unit * 1e-6 {
                // One zero for every unit: "0" beside "2M", "0.0" beside "0.5".
                if suffix.is_empty() {
                    format!("{:.decimals$}", 0.0)
                } else {
                    "0".to_string()
                }
            } else {
                minus_sign(format!("{scaled:.decimals$}{suffix}"))
            }
        })
        .collect()
}

/// Fewest decimals that show `step` exactly (up to 9).
pub(crate) fn decimals_for(step: f64) -> usize {
    (0..9)
        .find(|&d| {
            let m = step * 10f64.powi(d as i32);
            (m - m.round()).abs() < 1e-6 * m.max(1.0)
        })
        .unwrap_or(9)
}

pub(crate) fn minus_sign(s: String) -> String {
    s.replace('-', "\u{2212}")
}

/// `10` with a superscript exponent.
pub(crate) fn power_of_ten(exponent: i32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if exponent < 0 {
        s.push('⁻');
    }
    for d in exponent.unsigned_abs().to_string().bytes() {
        s.push(DIGITS[usize::from(d - b'0')]);
    }
    s
}

/// Labels for the ticks of a log axis: plain (`0.02`, `500`, `20k`, `3M`) when every value
/// allows it, otherwise all in powers of ten (`10⁻⁵`, `2×10⁻⁵`).
pub(crate) fn format_log_values(values: &[f64]) -> Vec<String> {
    let exponent = |v: f64| v.log10().floor() as i32;
    let plain = values.iter().all(|&v| (-3..=6).contains(&exponent(v)));
    values
        .iter()
        .map(|&v| {
            let e = exponent(v);
            if plain {
                let (unit, suffix) = if e >= 6 {
                    (1e6, "M")
                } else if e >= 4 {
                    (1e3, "k")
                } else {
                    (1.0, "")
                };
                let scaled = v / unit;
                format!("{scaled:.0$}{suffix}", decimals_for(scaled))
            } else {
                let mantissa = v / 10f64.powi(e);
                if (mantissa - 1.0).abs() < 1e-6 {
                    power_of_ten(e)
                } else if (mantissa - mantissa.round()).abs() < 1e-6 {
                    format!("{}×{}", mantissa.round(), power_of_ten(e))
                } else {
                    format!("{mantissa:.1}×{}", power_of_ten(e))
                }
            }
        })
        .collect()
}

/// Ticks for a log axis over `[lo, hi]` (log10 units): labelled and minor positions.
///
/// Decades are all labelled, up to [`MAX_DECADE_LABELS`] of them; under three decades the
/// labels are 1-2-5 multiples, or every multiple when those are too few.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> (Vec<(f64, String)>, Vec<f64>) {
    let first = (lo - 1e-9).ceil() as i32;
    let last = (hi + 1e-9).floor() as i32;
    let inside = |t: f64| t >= lo - 1e-9 && t <= hi + 1e-9;
    let decades = (last - first + 1).max(0);

    if decades >= 3 {
        let every = (decades as usize).div_ceil(MAX_DECADE_LABELS).max(1) as i32;
        let labelled: Vec<i32> = (first..=last)
            .filter(|k| k.rem_euclid(every) == 0)
            .collect();
        // Plain numbers only while they stay short: 0.01 .. 1000.
        let labels: Vec<String> = if labelled.iter().all(|k| (-2..=3).contains(k)) {
            let values: Vec<f64> = labelled.iter().map(|&k| 10f64.powi(k)).collect();
            format_log_values(&values)
        } else {
            labelled.iter().map(|&k| power_of_ten(k)).collect()
        };
        let major = labelled.iter().map(|&k| f64::from(k)).zip(labels).collect();
        let minor = if every == 1 {
            (first - 1..=last)
                .flat_map(|k| (2..10).map(move |m| f64::from(k) + f64::from(m).log10()))
                .filter(|&t| inside(t))
                .collect()
        } else if decades <= 40 {
            (first..=last)
                .filter(|k| k.rem_euclid(every) != 0)
                .map(f64::from)
                .collect()
        } else {
            Vec::new()
        };
        return (major, minor);
    }

    // Under three decades: label 1-2-5 multiples, or every integer multiple if that is too
    // sparse, or fall back to linear steps placed on the log scale.
    let candidates = |mantissas: &[u32]| -> Vec<f64> {
        (first - 1..=last)
            .flat_map(|k| {
                mantissas
                    .iter()
                    .map(move |&m| f64::from(k) + f64::from(m).log10())
            })
            .filter(|&t| inside(t))
            .collect()
    };
    let all: Vec<f64> = candidates(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let mut chosen = candidates(&[1, 2, 5]);
    if chosen.len() < 3 {
        chosen = all.clone();
    }
    if chosen.len() < 3 {
        let (vlo, vhi) = (10f64.powf(lo), 10f64.powf(hi));
        let major = linear_ticks(vlo, vhi, 4)
            .into_iter()
            .filter(|(v, _)| *v > 0.0)
            .map(|(v, label)| (v.log10(), label))
            .collect();
        return (major, Vec::new());
    }
    let minor = all
        .iter()
        .copied()
        .filter(|t| !chosen.iter().any(|c| (c - t).abs() < 1e-9))
        .collect();
    let values: Vec<f64> = chosen.iter().map(|&t| 10f64.powf(t)).collect();
    let major = chosen.into_iter().zip(format_log_values(&values)).collect();
    (major, minor)
}
