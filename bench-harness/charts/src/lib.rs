//! filterlab-charts: line charts and grouped bar charts for the benchmark reports, each written as an
//! SVG (committed next to the Markdown tables, diff-friendly) and a PNG (for quick viewing).
//!
//! ```no_run
//! use filterlab_charts::{render_line, LineChart, Series, SeriesStyle};
//! # fn main() -> anyhow::Result<()> {
//! let chart = LineChart {
//!     title: "False-positive rate vs memory".into(),
//!     x_label: "bits per key".into(),
//!     y_label: "false-positive rate".into(),
//!     x_log: false,
//!     y_log: true,
//!     series: vec![Series::new(
//!         "classic",
//!         vec![(4.0, 0.147), (8.0, 0.0216), (12.0, 0.0031), (16.0, 0.00046)],
//!         SeriesStyle::LinePoints,
//!     )
//!     // Optional error bars: one (low, high) of y per point, e.g. 95% Wilson intervals.
//!     .with_spread(vec![(0.140, 0.154), (0.0200, 0.0233), (0.0027, 0.0036), (0.0003, 0.0006)])],
//! };
//! let written = render_line(&chart, "reports/fpr_vs_bits".as_ref())?; // .svg and .png
//! # let _ = written; Ok(()) }
//! ```
//!
//! # How it is drawn
//!
//! Everything is laid out in pixel space and drawn with plotters' primitives rather than
//! with `ChartBuilder`, because
//! - label areas and the legend are sized from real glyph metrics, so nothing is clipped or
//!   drawn over the data (a line chart's legend goes to the first spot inside the plot,
//!   corners first, where it covers no line or marker, else beside the plot; a bar chart's
//!   legend is a row under the title);
//! - the SVG and the PNG share one layout;
//! - the PNG is drawn at twice its size and averaged down, which anti-aliases the lines
//!   and markers that plotters' bitmap backend draws aliased.
//!
//! Text is DejaVu Sans, embedded by the `dejavu` crate and rasterised by `ab_glyph`, so
//! rendering needs no system fonts and no C library (fontconfig, freetype). The SVG names
//! the family `DejaVu Sans, sans-serif`, so a viewer without DejaVu falls back gracefully.
//!
//! # Axes
//!
//! Axes are ranged from the data with a small margin (bar charts always include zero). A log
//! axis spanning three or more decades is labelled at powers of ten (`10⁻⁵`, or plain
//! `0.01`..`1000` when all of them are short), with light minor grid lines at 2..9 × 10ᵏ; a
//! narrower log axis is labelled at 1-2-5 multiples (`20`, `50`, `100`). Linear axes use
//! 1-2-5 steps, one number format per axis, and `k`/`M`/`G` for large values. Labels that
//! would touch are thinned to every second (third, ...) one.
//!
//! # Colours
//!
//! Each distinct series (or bar group) name gets a colour from the 10-colour "tab10"
//! palette, and a marker shape, chosen by a hash of the name; a name whose slot is already
//! taken in the same chart moves to the next free one (names are placed in sorted order).
//! A name therefore keeps its colour across charts unless it collides with another name
//! of that chart, and two names in one chart never share a colour while there are at most
//! ten of them.
//!
//! # Determinism
//!
//! Equal inputs give byte-identical SVGs: nothing depends on clocks, randomness, hash-map
//! order or the environment.
//!
//! # Degenerate input
//!
//! Points with a non-finite coordinate, and points that are zero or negative on a log axis,
//! are skipped. A series left with no points is left out, legend included. A chart with
//! nothing left to draw is still written, as empty axes saying "no data", so report links
//! never dangle. Only malformed input (a bar group whose value count differs from the
//! category count, a spread whose length differs from its points or values) and I/O failures
//! are errors.
//!
//! # Error bars
//!
//! A line series can carry a spread: one `(low, high)` of y per point, drawn as a vertical
//! bar with caps in the series' colour (a 95% Wilson interval around a measured rate, the
//! min..max of repeated timings around their median). Give it with
//! [`Series::with_spread`]. A bar chart takes whiskers the same way, one `(low, high)` per
//! bar, in [`BarChart::spread`]. A pair with a non-finite end draws nothing; on a log axis a
//! low end at or below zero runs the bar to the bottom of the plot. Axes are ranged to
//! include the spread, so no bar is cut.

mod axis;
mod bar;
mod canvas;
mod decor;
mod line;
mod output;
mod style;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::bail;
use plotters::style::{register_font, FontStyle};

use crate::bar::BarFigure;
use crate::line::LineFigure;
use crate::output::write_figure;
use crate::style::FONT_FAMILY;
pub use crate::style::{HEIGHT, WIDTH};

/// How a [`Series`] is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SeriesStyle {
    /// A solid line through the points, in the order given.
    Line,
    /// A dashed line: for theory curves and lower bounds.
    Dashed,
    /// Markers only.
    Points,
    /// A solid line with a marker at each point.
    LinePoints,
}

impl SeriesStyle {
    fn has_line(self) -> bool {
        matches!(self, Self::Line | Self::Dashed | Self::LinePoints)
    }

    fn has_markers(self) -> bool {
        matches!(self, Self::Points | Self::LinePoints)
    }
}

/// One named curve of a [`LineChart`].
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend text; also picks the colour (see the module docs).
    pub name: String,
    /// `(x, y)` points, connected in the order given.
    pub points: Vec<(f64, f64)>,
    /// Line, dashes and/or markers.
    pub style: SeriesStyle,
    /// Error bars: empty for none, else one `(low, high)` of y per point (see the module
    /// docs).
    pub spread: Vec<(f64, f64)>,
}

impl Series {
    /// A series from its parts.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: SeriesStyle) -> Self {
        Self {
            name: name.into(),
            points,
            style,
            spread: Vec::new(),
        }
    }

    /// The series with an error bar at each point: `spread[i]` is the `(low, high)` of y
    /// around `points[i]`, so it needs one entry per point ([`render_line`] rejects another
    /// length).
    #[must_use]
    pub fn with_spread(mut self, spread: Vec<(f64, f64)>) -> Self {
        self.spread = spread;
        self
    }
}

/// An x-y chart of one or more [`Series`], rendered by [`render_line`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LineChart {
    /// Drawn above the plot; empty for none.
    pub title: String,
    /// Text under the x axis; empty for none.
    pub x_label: String,
    /// Text beside the y axis; empty for none.
    pub y_label: String,
    /// Logarithmic x axis (non-positive x values are skipped).
    pub x_log: bool,
    /// Logarithmic y axis (non-positive y values are skipped).
    pub y_log: bool,
    /// The curves, drawn in order (later ones on top) and listed in that order in the legend.
    pub series: Vec<Series>,
}

/// A grouped bar chart, rendered by [`render_bar`]: along x one slot per category, and in
/// each slot one bar per group, in the order of `groups`.
///
/// For "ns per lookup of each variant at each positive-query mix", the categories are the
/// mixes (`"0%"`, `"25%"`, ...) and each group is a variant with one value per mix.
///
/// Build it with `..Default::default()` for the fields you leave empty (`spread`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BarChart {
    /// Drawn above the plot; empty for none.
    pub title: String,
    /// Text under the category labels; empty for none.
    pub x_label: String,
    /// Text beside the y axis; empty for none.
    pub y_label: String,
    /// One label per slot along x.
    pub categories: Vec<String>,
    /// `(name, values)`: one bar per category, so `values.len() == categories.len()`.
    /// A non-finite value (or a non-positive one on a log axis) leaves its bar out.
    pub groups: Vec<(String, Vec<f64>)>,
    /// Logarithmic y axis; the bars then rise from the decade below the smallest value.
    pub y_log: bool,
    /// Whiskers: empty for none, else one entry per group (in the order of `groups`), each
    /// empty (no whiskers for that group) or one `(low, high)` per category, e.g. the min and
    /// max of repeated timings whose median is the bar.
    pub spread: Vec<Vec<(f64, f64)>>,
}

/// Registers the embedded DejaVu Sans (regular and bold) with plotters under the names
/// `"DejaVu Sans, sans-serif"` and `"sans-serif"`.
///
/// The render functions call this themselves; call it before using plotters directly with
/// its default `sans-serif` family. Safe to call any number of times, from any thread.
///
/// # Errors
///
/// Only if the embedded font fails to parse, which would be a broken `dejavu` build.
pub fn register_fonts() -> anyhow::Result<()> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            let faces = [
                (FontStyle::Normal, dejavu::sans::regular()),
                (FontStyle::Bold, dejavu::sans::bold()),
            ];
            for family in [FONT_FAMILY, "sans-serif"] {
                for (style, bytes) in faces {
                    register_font(family, style, bytes).map_err(|_| {
                        format!(
                            "the embedded DejaVu Sans ({}) is not a valid font",
                            style.as_str()
                        )
                    })?;
                }
            }
            Ok(())
        })
        .clone()
        .map_err(anyhow::Error::msg)
}

/// Renders `chart` to `<stem>.svg` and `<stem>.png` (both [`WIDTH`] x [`HEIGHT`]) and returns
/// their paths, SVG first. Missing parent directories are created.
///
/// `stem` is a path without the extension; any dots in it are kept (`fpr.v2` gives
/// `fpr.v2.svg`).
///
/// # Errors
///
/// When a file cannot be written. Degenerate data is not an error (see the module docs).
pub fn render_line(chart: &LineChart, stem: &Path) -> anyhow::Result<Vec<PathBuf>> {
    register_fonts()?;
    for s in &chart.series {
        if !s.spread.is_empty() && s.spread.len() != s.points.len() {
            bail!(
                "line chart {:?}: series {:?} has {} points but {} spread entries; give one \
                 (low, high) per point, or none",
                chart.title,
                s.name,
                s.points.len(),
                s.spread.len()
            );
        }
    }
    let figure = LineFigure::new(chart)?;
    write_figure(&figure, stem)
}

/// Renders `chart` to `<stem>.svg` and `<stem>.png` (both [`WIDTH`] x [`HEIGHT`]) and returns
/// their paths, SVG first. Missing parent directories are created.
///
/// # Errors
///
/// When a group's value count differs from the number of categories, or when a file cannot
/// be written. Other degenerate data is not an error (see the module docs).
pub fn render_bar(chart: &BarChart, stem: &Path) -> anyhow::Result<Vec<PathBuf>> {
    register_fonts()?;
    for (name, values) in &chart.groups {
        if values.len() != chart.categories.len() {
            bail!(
                "bar chart {:?}: group {name:?} has {} values but there are {} categories; \
                 give exactly one value per category (NaN for a missing bar)",
                chart.title,
                values.len(),
                chart.categories.len()
            );
        }
    }
    if !chart.spread.is_empty() && chart.spread.len() != chart.groups.len() {
        bail!(
            "bar chart {:?}: {} spread entries for {} groups; give one per group, or none",
            chart.title,
            chart.spread.len(),
            chart.groups.len()
        );
    }
    for (spread, (name, _)) in chart.spread.iter().zip(&chart.groups) {
        if !spread.is_empty() && spread.len() != chart.categories.len() {
            bail!(
                "bar chart {:?}: group {name:?} has {} whiskers but there are {} categories; \
                 give one (low, high) per category, or none",
                chart.title,
                spread.len(),
                chart.categories.len()
            );
        }
    }
    let figure = BarFigure::new(chart)?;
    write_figure(&figure, stem)
}
