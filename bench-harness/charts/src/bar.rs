//! Grouped bar charts: layout, legend rows, bars and whiskers.

use plotters::prelude::*;

use crate::axis::{Axis, Frame};
use crate::canvas::{text_width, Align, Canvas, CAP_HEIGHT};
use crate::decor::Decor;
use crate::line::ErrorBar;
use crate::output::Figure;
use crate::style::*;
use crate::{BarChart, WIDTH};

pub(crate) struct BarGroup<'a> {
    pub(crate) name: &'a str,
    pub(crate) colour: RGBColor,
    /// One entry per category; `None` leaves the bar out.
    pub(crate) values: Vec<Option<f64>>,
    /// One entry per category (or none); `x` of each bar is its category index.
    pub(crate) whiskers: Vec<Option<ErrorBar>>,
}

/// One entry of the legend row(s) above a bar chart.
pub(crate) struct Swatch {
    pub(crate) group: usize,
    pub(crate) left: f64,
    pub(crate) baseline: f64,
}

pub(crate) struct BarFigure<'a> {
    pub(crate) decor: Decor,
    pub(crate) frame: Frame,
    pub(crate) categories: &'a [String],
    pub(crate) category_size: f64,
    pub(crate) groups: Vec<BarGroup<'a>>,
    pub(crate) legend: Vec<Swatch>,
    /// Value the bars rise from, in transformed units.
    pub(crate) base: f64,
    pub(crate) has_data: bool,
}

pub(crate) const SWATCH: f64 = 13.0;

impl<'a> BarFigure<'a> {
    pub(crate) fn new(chart: &'a BarChart) -> anyhow::Result<Self> {
        let groups = bar_groups(chart);
        let (y, base, has_data) = y_axis(chart, &groups);
        let decor = Decor {
            title: chart.title.clone(),
            x_label: chart.x_label.clone(),
            y_label: chart.y_label.clone(),
            y,
        };
        let left = decor.plot_left()?;
        let right = f64::from(WIDTH) - MARGIN - 4.0;
        let (legend, top) = legend(&groups, left, right, decor.below_title() + 4.0)?;
        let frame = Frame {
            left,
            top,
            right,
            bottom: decor.plot_bottom(),
        };
        let mut decor = decor;
        decor.y.thin_vertical(&frame);
        Ok(Self {
            decor,
            category_size: category_size(&chart.categories, &frame)?,
            frame,
            categories: &chart.categories,
            groups,
            legend,
            base,
            has_data,
        })
    }
}

/// The chart's groups with their colours, drawable values and whiskers.
fn bar_groups(chart: &BarChart) -> Vec<BarGroup<'_>> {
    let slots = palette_slots(chart.groups.iter().map(|(n, _)| n.as_str()));
    chart
        .groups
        .iter()
        .enumerate()
        .map(|(g, (name, values))| BarGroup {
            name,
            colour: PALETTE[slot_of(&slots, name)],
            values: values
                .iter()
                .map(|&v| (v.is_finite() && (!chart.y_log || v > 0.0)).then_some(v))
                .collect(),
            whiskers: chart.spread.get(g).map_or_else(Vec::new, |spread| {
                let fit = |(c, &r)| ErrorBar::fit(c as f64, r, chart.y_log);
                spread.iter().enumerate().map(fit).collect()
            }),
        })
        .collect()
}

/// The y axis covering the bars and the whisker ends that fit it, the value the bars rise
/// from (in transformed units), and whether there is anything to draw.
fn y_axis(chart: &BarChart, groups: &[BarGroup<'_>]) -> (Axis, f64, bool) {
    let present = || {
        groups.iter().flat_map(|g| {
            let ends = g
                .whiskers
                .iter()
                .flatten()
                .flat_map(|b| b.low.into_iter().chain([b.high]));
            g.values.iter().flatten().copied().chain(ends)
        })
    };
    let has_data = present().next().is_some() && !chart.categories.is_empty();
    if !has_data {
        return (Axis::placeholder(chart.y_log), 0.0, false);
    }
    if chart.y_log {
        let (min, max) = present().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        // Rise from the decade strictly below the smallest bar, so every bar shows.
        let base = (min.log10() - 1e-9).floor();
        let top = max.log10();
        let axis = Axis::with_range(true, base, top + 0.06 * (top - base), 6);
        return (axis, base, true);
    }
    let (min, max) = present().fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let span = if max > min { max - min } else { 1.0 };
    let lo = if min < 0.0 { min - 0.06 * span } else { 0.0 };
    let hi = if max > 0.0 || min >= 0.0 {
        max.max(0.0) + 0.06 * span
    } else {
        0.0
    };
    (Axis::with_range(false, lo, hi, 6), 0.0, true)
}

/// Legend entries in rows above the plot (from `top`), each row centred between `left` and
/// `right`; returns them and the top of the plot below them.
fn legend(
    groups: &[BarGroup<'_>],
    left: f64,
    right: f64,
    mut top: f64,
) -> anyhow::Result<(Vec<Swatch>, f64)> {
    let mut legend = Vec::new();
    let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new()];
    let mut row_width = 0.0;
    let entry_gap = 24.0;
    for (i, g) in groups.iter().enumerate() {
        let w = SWATCH + 6.0 + text_width(g.name, LEGEND_SIZE, false)?;
        let needed = if row_width > 0.0 { entry_gap + w } else { w };
        if row_width > 0.0 && row_width + needed > right - left {
            rows.push(Vec::new());
            row_width = 0.0;
        }
        row_width += if row_width > 0.0 { entry_gap + w } else { w };
        if let Some(row) = rows.last_mut() {
            row.push((i, w));
        }
    }
    if groups.is_empty() {
        return Ok((legend, top + TICK_SIZE * 0.5));
    }
    for row in &rows {
        let total: f64 =
            row.iter().map(|(_, w)| w).sum::<f64>() + entry_gap * (row.len().max(1) - 1) as f64;
        let mut x = (left + right - total) / 2.0;
        let baseline = top + LEGEND_SIZE * CAP_HEIGHT;
        for &(group, w) in row {
            legend.push(Swatch {
                group,
                left: x,
                baseline,
            });
            x += w + entry_gap;
        }
        top += LEGEND_ROW;
    }
    Ok((legend, top + 6.0))
}

/// The category labels' size: shrunk where they would run into each other.
fn category_size(categories: &[String], frame: &Frame) -> anyhow::Result<f64> {
    let slot = (frame.right - frame.left) / categories.len().max(1) as f64;
    let mut size = TICK_SIZE;
    for c in categories {
        let w = text_width(c, TICK_SIZE, false)?;
        if w > slot * 0.92 {
            size = size.min((TICK_SIZE * slot * 0.92 / w).max(9.0));
        }
    }
    Ok(size)
}

impl BarFigure<'_> {
    /// The category ticks and labels under the plot, `slot` pixels apart.
    fn draw_categories<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        slot: f64,
    ) -> anyhow::Result<()> {
        let f = &self.frame;
        for (c, label) in self.categories.iter().enumerate() {
            let px = f.left + slot * (c as f64 + 0.5);
            canvas.vline(px, f.bottom, f.bottom + TICK_LEN, INK, 1.0)?;
            canvas.text(
                label,
                (
                    px,
                    f.bottom + TICK_LEN + 5.0 + self.category_size * CAP_HEIGHT,
                ),
                self.category_size,
                Align::Center,
                false,
                &INK,
                false,
            )?;
        }
        Ok(())
    }

    /// The legend's swatches and names above the plot.
    fn draw_legend<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()> {
        for s in &self.legend {
            let group = &self.groups[s.group];
            let top = s.baseline - LEGEND_SIZE * CAP_HEIGHT / 2.0 - SWATCH / 2.0;
            canvas.fill_rect(
                (s.left, top),
                (s.left + SWATCH, top + SWATCH),
                group.colour.to_rgba(),
            )?;
            canvas.legend_label(group.name, (s.left + SWATCH + 6.0, s.baseline))?;
        }
        Ok(())
    }

    /// A min..max whisker at pixel column `x`, capped at ends inside the plot; dark, so it
    /// shows on every bar colour.
    fn draw_whisker<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        x: f64,
        w: &ErrorBar,
        bar_width: f64,
    ) -> anyhow::Result<()> {
        let f = &self.frame;
        let y = &self.decor.y;
        let top = f.y(y.frac(w.high)).clamp(f.top, f.bottom);
        let bottom = w
            .low
            .map_or(f.bottom, |l| f.y(y.frac(l)).clamp(f.top, f.bottom));
        let half = (ERROR_BAR_CAP / 2.0).min(bar_width * 0.35);
        let caps = (top > f.top, bottom < f.bottom && w.low.is_some());
        canvas.error_bar((x, top, bottom), half, caps, INK)
    }
}

impl Figure for BarFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()> {
        let f = &self.frame;
        let y = &self.decor.y;
        self.decor.draw_title(canvas, f)?;
        self.decor.draw_grid(canvas, f, None)?;

        let n = self.categories.len().max(1) as f64;
        let slot = (f.right - f.left) / n;
        let group_width = slot * 0.8;
        let bar = group_width / self.groups.len().max(1) as f64;
        let gap = (bar * 0.08).min(2.0);
        let base_y = f.y((self.base - y.lo) / (y.hi - y.lo));
        for (c, _) in self.categories.iter().enumerate() {
            let x0 = f.left + slot * c as f64 + (slot - group_width) / 2.0;
            for (g, group) in self.groups.iter().enumerate() {
                let Some(v) = group.values.get(c).copied().flatten() else {
                    continue;
                };
                let top = f.y(y.frac(v)).clamp(f.top, f.bottom);
                let (bx0, bx1) = (
                    x0 + bar * g as f64 + gap / 2.0,
                    x0 + bar * (g + 1) as f64 - gap / 2.0,
                );
                let (ya, yb) = if top < base_y {
                    (top, base_y)
                } else {
                    (base_y, top)
                };
                canvas.fill_rect((bx0, ya), (bx1, yb), group.colour.to_rgba())?;
            }
        }
        for (c, _) in self.categories.iter().enumerate() {
            let x0 = f.left + slot * c as f64 + (slot - group_width) / 2.0;
            for (g, group) in self.groups.iter().enumerate() {
                if let Some(Some(w)) = group.whiskers.get(c) {
                    self.draw_whisker(canvas, x0 + bar * (g as f64 + 0.5), w, bar)?;
                }
            }
        }
        // A zero line where bars go both ways.
        if !y.log && y.lo < 0.0 && y.hi > 0.0 {
            canvas.hline(f.left, f.right, base_y, INK, 1.0)?;
        }

        self.decor.draw_axes(canvas, f)?;
        self.draw_categories(canvas, slot)?;
        self.draw_legend(canvas)?;

        if !self.has_data {
            self.decor.draw_no_data(canvas, f)?;
        }
        Ok(())
    }
}
