//! Line charts: layout, legend placement, series and error bars.

use plotters::prelude::*;

use crate::axis::{Axis, Frame};
use crate::canvas::{text_width, Align, Canvas, Stroke, CAP_HEIGHT};
use crate::decor::{x_tick_baseline, Decor};
use crate::output::Figure;
use crate::style::*;
use crate::{LineChart, SeriesStyle, WIDTH};

pub(crate) struct LineSeries<'a> {
    pub(crate) name: &'a str,
    pub(crate) style: SeriesStyle,
    pub(crate) colour: RGBColor,
    pub(crate) marker: Marker,
    /// Points with finite coordinates that fit the axes.
    pub(crate) points: Vec<(f64, f64)>,
    /// Error bars of the kept points that have one.
    pub(crate) bars: Vec<ErrorBar>,
}

/// A vertical error bar in data units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ErrorBar {
    pub(crate) x: f64,
    /// `None` when the low end does not fit a log axis: the bar runs to the plot's bottom.
    pub(crate) low: Option<f64>,
    pub(crate) high: f64,
}

impl ErrorBar {
    /// The bar for `(low, high)` at `x`, if it shows on the axis (`y_log`: positive `high`).
    pub(crate) fn fit(x: f64, (low, high): (f64, f64), y_log: bool) -> Option<Self> {
        let (low, high) = (low.min(high), low.max(high));
        if !low.is_finite() || !high.is_finite() || (y_log && high <= 0.0) {
            return None;
        }
        let low = (!y_log || low > 0.0).then_some(low);
        Some(Self { x, low, high })
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LegendBox {
    pub(crate) left: f64,
    pub(crate) top: f64,
    pub(crate) width: f64,
    pub(crate) height: f64,
}

pub(crate) struct LineFigure<'a> {
    pub(crate) decor: Decor,
    pub(crate) x: Axis,
    pub(crate) frame: Frame,
    pub(crate) series: Vec<LineSeries<'a>>,
    pub(crate) legend: Option<LegendBox>,
}

impl<'a> LineFigure<'a> {
    pub(crate) fn new(chart: &'a LineChart) -> anyhow::Result<Self> {
        let series = line_series(chart);
        let (x, y) = axes(chart, &series);
        let decor = Decor {
            title: chart.title.clone(),
            x_label: chart.x_label.clone(),
            y_label: chart.y_label.clone(),
            y,
        };
        let last_x_label = x.major.last().map(|(_, l)| l.as_str()).unwrap_or("");
        let right_overhang = text_width(last_x_label, TICK_SIZE, false)? / 2.0 + 4.0;
        let frame = Frame {
            left: decor.plot_left()?,
            top: decor.below_title()
                + if decor.title.is_empty() {
                    TICK_SIZE * 0.5
                } else {
                    6.0
                },
            right: f64::from(WIDTH) - MARGIN.max(right_overhang),
            bottom: decor.plot_bottom(),
        };
        let mut figure = Self {
            decor,
            x,
            frame,
            series,
            legend: None,
        };
        if figure.series.is_empty() {
            figure.decor.y.thin_vertical(&frame);
            return Ok(figure);
        }
        figure.place_legend()?;
        let frame = figure.frame;
        figure.decor.y.thin_vertical(&frame);
        let widths = figure
            .x
            .major
            .iter()
            .map(|(_, label)| text_width(label, TICK_SIZE, false))
            .collect::<anyhow::Result<Vec<f64>>>()?;
        figure.x.thin_horizontal(&frame, &widths);
        Ok(figure)
    }

    /// The legend in a free corner of the plot, or, when every spot inside covers data,
    /// beside a narrowed plot.
    fn place_legend(&mut self) -> anyhow::Result<()> {
        let mut widest: f64 = 0.0;
        for s in &self.series {
            widest = widest.max(text_width(s.name, LEGEND_SIZE, false)?);
        }
        let width = 2.0 * LEGEND_PAD + LEGEND_SAMPLE + 8.0 + widest;
        let height = 2.0 * LEGEND_PAD + self.legend_rows().len() as f64 * LEGEND_ROW;
        if let Some(inside) = self.free_corner(width, height) {
            self.legend = Some(inside);
        } else {
            self.frame.right = f64::from(WIDTH) - MARGIN - width - 12.0;
            self.legend = Some(LegendBox {
                left: self.frame.right + 12.0,
                top: self.frame.top,
                width,
                height,
            });
        }
        Ok(())
    }

    pub(crate) fn map(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.frame.x(self.x.frac(x)),
            self.frame.y(self.decor.y.frac(y)),
        )
    }

    /// The first spot inside the plot (corners first, then edge middles) where a legend of
    /// this size covers no line or marker.
    pub(crate) fn free_corner(&self, width: f64, height: f64) -> Option<LegendBox> {
        let f = self.frame;
        let inset = 10.0;
        let (l, r) = (f.left + inset, f.right - inset - width);
        let (t, b) = (f.top + inset, f.bottom - inset - height);
        let (cx, cy) = (
            (f.left + f.right - width) / 2.0,
            (f.top + f.bottom - height) / 2.0,
        );
        let spots = [
            (r, t),
            (l, t),
            (r, b),
            (l, b),
            (cx, t),
            (cx, b),
            (r, cy),
            (l, cy),
        ];

        // Sample every line every 2 px, and every point with its marker's reach.
        let mut samples = Vec::new();
        for s in &self.series {
            let mapped: Vec<(f64, f64)> = s.points.iter().map(|&p| self.map(p)).collect();
            samples.extend(mapped.iter().copied());
            for bar in &s.bars {
                let (top, bottom) = self.bar_ends(bar);
                let steps = ((bottom.1 - top.1) / 2.0).ceil().clamp(1.0, 10_000.0) as usize;
                samples.extend((0..=steps).map(|i| {
                    let t = i as f64 / steps as f64;
                    (top.0, top.1 + t * (bottom.1 - top.1))
                }));
            }
            if s.style.has_line() {
                for w in mapped.windows(2) {
                    let (a, b) = (w[0], w[1]);
                    let steps = ((b.0 - a.0).hypot(b.1 - a.1) / 2.0).ceil().min(10_000.0) as usize;
                    for i in 1..steps {
                        let t = i as f64 / steps as f64;
                        samples.push((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)));
                    }
                }
            }
        }
        let reach = MARKER_RADIUS + 4.0;
        spots
            .into_iter()
            .filter(|&(x, y)| x >= f.left && y >= f.top)
            .map(|(left, top)| LegendBox {
                left,
                top,
                width,
                height,
            })
            .find(|b| {
                !samples.iter().any(|&(x, y)| {
                    x >= b.left - reach
                        && x <= b.left + b.width + reach
                        && y >= b.top - reach
                        && y <= b.top + b.height + reach
                })
            })
    }

    pub(crate) fn draw_series<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
    ) -> anyhow::Result<()> {
        for s in &self.series {
            let mapped: Vec<(f64, f64)> = s.points.iter().map(|&p| self.map(p)).collect();
            match s.style {
                SeriesStyle::Line | SeriesStyle::LinePoints => {
                    canvas.path(&mapped, s.colour, LINE_WIDTH, Stroke::Solid)?
                }
                SeriesStyle::Dashed => {
                    canvas.path(&mapped, s.colour, LINE_WIDTH, Stroke::Dashed)?
                }
                SeriesStyle::Points => {}
            }
        }
        for s in &self.series {
            for bar in &s.bars {
                self.draw_bar(canvas, bar, s.colour)?;
            }
        }
        // Markers go on top of every line and bar.
        for s in self.series.iter().filter(|s| s.style.has_markers()) {
            for &p in &s.points {
                canvas.marker(s.marker, self.map(p), s.colour)?;
            }
        }
        Ok(())
    }

    /// Top and bottom of an error bar in pixels, inside the frame.
    pub(crate) fn bar_ends(&self, bar: &ErrorBar) -> ((f64, f64), (f64, f64)) {
        let f = &self.frame;
        let (x, top) = self.map((bar.x, bar.high));
        let bottom = bar.low.map_or(f.bottom, |low| self.map((bar.x, low)).1);
        (
            (x, top.clamp(f.top, f.bottom)),
            (x, bottom.clamp(f.top, f.bottom)),
        )
    }

    /// A vertical bar with a cap at each end that lies inside the plot.
    pub(crate) fn draw_bar<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        bar: &ErrorBar,
        colour: RGBColor,
    ) -> anyhow::Result<()> {
        let ((x, top), (_, bottom)) = self.bar_ends(bar);
        let caps = (
            top > self.frame.top,
            bottom < self.frame.bottom && bar.low.is_some(),
        );
        canvas.error_bar((x, top, bottom), ERROR_BAR_CAP / 2.0, caps, colour)
    }

    /// The legend's rows: the series grouped by name, in order of first appearance.
    pub(crate) fn legend_rows(&self) -> Vec<Vec<&LineSeries<'a>>> {
        let mut rows: Vec<Vec<&LineSeries<'a>>> = Vec::new();
        for s in &self.series {
            match rows.iter_mut().find(|r| r[0].name == s.name) {
                Some(r) => r.push(s),
                None => rows.push(vec![s]),
            }
        }
        rows
    }

    pub(crate) fn draw_legend<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        b: &LegendBox,
    ) -> anyhow::Result<()> {
        let (x0, y0, x1, y1) = (b.left, b.top, b.left + b.width, b.top + b.height);
        canvas.fill_rect((x0, y0), (x1, y1), WHITE.mix(0.92))?;
        canvas.stroke_rect((x0, y0), (x1, y1), LEGEND_EDGE, 1.0)?;
        for (i, rows) in self.legend_rows().iter().enumerate() {
            let cy = y0 + LEGEND_PAD + (i as f64 + 0.5) * LEGEND_ROW;
            let (sx0, sx1) = (x0 + LEGEND_PAD, x0 + LEGEND_PAD + LEGEND_SAMPLE);
            let s = rows[0];
            // One row per name: a formula line and its measured markers share one entry.
            let line = rows.iter().find(|r| r.style.has_line()).map(|r| r.style);
            match line {
                Some(SeriesStyle::Dashed) => {
                    // Centre one gap so both ends show a dash.
                    let dash = (LEGEND_SAMPLE - DASH_GAP) / 2.0;
                    canvas.hline(sx0, sx0 + dash, cy, s.colour, LINE_WIDTH)?;
                    canvas.hline(sx1 - dash, sx1, cy, s.colour, LINE_WIDTH)?;
                }
                Some(_) => canvas.hline(sx0, sx1, cy, s.colour, LINE_WIDTH)?,
                None => {}
            }
            if let Some(m) = rows.iter().find(|r| r.style.has_markers()) {
                canvas.marker(m.marker, ((sx0 + sx1) / 2.0, cy), m.colour)?;
            }
            canvas.legend_label(s.name, (sx1 + 8.0, cy + LEGEND_SIZE * CAP_HEIGHT / 2.0))?;
        }
        Ok(())
    }
}

/// The chart's series with their colours and markers, the points and error bars a log axis
/// can show; series left with no point are dropped.
fn line_series(chart: &LineChart) -> Vec<LineSeries<'_>> {
    let fits = |log: bool, v: f64| v.is_finite() && (!log || v > 0.0);
    let slots = palette_slots(chart.series.iter().map(|s| s.name.as_str()));
    chart
        .series
        .iter()
        .map(|s| {
            let slot = slot_of(&slots, &s.name);
            let kept = |&(x, y): &(f64, f64)| fits(chart.x_log, x) && fits(chart.y_log, y);
            let bars = s
                .points
                .iter()
                .zip(&s.spread)
                .filter(|(p, _)| kept(p))
                .filter_map(|(&(x, _), &range)| ErrorBar::fit(x, range, chart.y_log))
                .collect();
            LineSeries {
                name: &s.name,
                style: s.style,
                colour: PALETTE[slot],
                marker: MARKERS[slot % MARKERS.len()],
                points: s.points.iter().copied().filter(kept).collect(),
                bars,
            }
        })
        .filter(|s| !s.points.is_empty())
        .collect()
}

/// The axes, covering the points and both ends of every error bar that fit them.
fn axes(chart: &LineChart, series: &[LineSeries<'_>]) -> (Axis, Axis) {
    if series.is_empty() {
        return (
            Axis::placeholder(chart.x_log),
            Axis::placeholder(chart.y_log),
        );
    }
    let all = || {
        series.iter().flat_map(|s| {
            let ends = s.bars.iter().flat_map(|b| {
                let low = b.low.map(|l| (b.x, l));
                low.into_iter().chain([(b.x, b.high)])
            });
            s.points.iter().copied().chain(ends)
        })
    };
    let (x_min, x_max) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (x, _)| {
        (lo.min(x), hi.max(x))
    });
    let (y_min, y_max) = all().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, y)| {
        (lo.min(y), hi.max(y))
    });
    (
        Axis::fit(chart.x_log, x_min, x_max, 0.04, 8),
        Axis::fit(chart.y_log, y_min, y_max, 0.05, 6),
    )
}

impl Figure for LineFigure<'_> {
    fn draw<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()> {
        let f = &self.frame;
        self.decor.draw_title(canvas, f)?;
        self.decor.draw_grid(canvas, f, Some(&self.x))?;
        self.draw_series(canvas)?;
        self.decor.draw_axes(canvas, f)?;

        let xf = |t: f64| f.x((t - self.x.lo) / (self.x.hi - self.x.lo));
        for &t in &self.x.minor {
            canvas.vline(xf(t), f.bottom, f.bottom + MINOR_TICK_LEN, INK, 1.0)?;
        }
        for (t, label) in &self.x.major {
            let px = xf(*t);
            canvas.vline(px, f.bottom, f.bottom + TICK_LEN, INK, 1.0)?;
            canvas.text(
                label,
                (px, x_tick_baseline(f)),
                TICK_SIZE,
                Align::Center,
                false,
                &INK,
                false,
            )?;
        }

        match &self.legend {
            Some(b) => self.draw_legend(canvas, b),
            None => self.decor.draw_no_data(canvas, f),
        }
    }
}
