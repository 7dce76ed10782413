//! Charts for the benchmark reports: line charts and grouped bar charts, each written as an
//! SVG (committed next to the Markdown tables, diff-friendly) and a PNG (for quick viewing).
//!
//! ```no_run
//! use bench_harness::plot::{render_line, LineChart, Series, SeriesStyle};
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
//!     )],
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
//! category count) and I/O failures are errors.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context as _};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{register_font, FontDesc, FontFamily, FontStyle, FontTransform};

/// Width in pixels of the PNG, and in user units of the SVG.
pub const WIDTH: u32 = 1000;
/// Height in pixels of the PNG, and in user units of the SVG.
pub const HEIGHT: u32 = 640;

/// The PNG is drawn this many times larger, then averaged down (see [`halve`]).
const SUPERSAMPLE: u32 = 2;
const _: () = assert!(SUPERSAMPLE == 2, "halve() averages 2 x 2 blocks");
/// Registered under this name so that the SVG's `font-family` attribute is a valid CSS
/// list with a generic fallback.
const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";

// Sizes in logical pixels (a PNG pixel, an SVG user unit). Font sizes are plotters' sizes,
// which are about 1.2 em.
const MARGIN: f64 = 14.0;
const TITLE_SIZE: f64 = 23.0;
const LABEL_SIZE: f64 = 19.0;
const TICK_SIZE: f64 = 16.5;
const LEGEND_SIZE: f64 = 16.5;
const TICK_LEN: f64 = 5.0;
const MINOR_TICK_LEN: f64 = 3.0;
const LINE_WIDTH: f64 = 2.0;
const MARKER_RADIUS: f64 = 4.5;
const DASH: f64 = 9.0;
const DASH_GAP: f64 = 5.0;

const INK: RGBColor = RGBColor(34, 34, 34);
const SOFT_INK: RGBColor = RGBColor(110, 110, 110);
const GRID: RGBColor = RGBColor(221, 221, 221);
const MINOR_GRID: RGBColor = RGBColor(240, 240, 240);
const LEGEND_EDGE: RGBColor = RGBColor(190, 190, 190);

/// matplotlib's "tab10": distinct on white, and still told apart by most colour-blind readers
/// thanks to the marker shapes paired with them.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

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
}

impl Series {
    /// A series from its parts.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: SeriesStyle) -> Self {
        Self {
            name: name.into(),
            points,
            style,
        }
    }
}

/// An x-y chart of one or more [`Series`], rendered by [`render_line`].
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
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
    let figure = BarFigure::new(chart)?;
    write_figure(&figure, stem)
}

// ---------------------------------------------------------------------------------------
// Output

/// Something laid out in logical pixels that can draw itself on any backend.
trait Figure {
    fn draw<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()>;
}

fn with_suffix(stem: &Path, extension: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

fn write_figure<F: Figure>(figure: &F, stem: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if stem.as_os_str().is_empty() {
        bail!("empty output path: give a file stem such as reports/fpr_vs_bits");
    }
    // Draw both before touching the disk, so a failed draw leaves no half-written file.
    let svg = draw_svg(figure)?;
    let rgb = draw_rgb(figure)?;

    if let Some(parent) = stem.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent)
            .with_context(|| format!("creating directory {}", parent.display()))?;
    }
    let svg_path = with_suffix(stem, "svg");
    let png_path = with_suffix(stem, "png");
    fs::write(&svg_path, svg).with_context(|| format!("writing {}", svg_path.display()))?;
    {
        let mut png = BitMapBackend::new(&png_path, (WIDTH, HEIGHT));
        png.blit_bitmap((0, 0), (WIDTH, HEIGHT), &rgb)
            .and_then(|()| png.present())
            .map_err(|e| anyhow!("writing {}: {e}", png_path.display()))?;
    }
    Ok(vec![svg_path, png_path])
}

fn draw_svg<F: Figure>(figure: &F) -> anyhow::Result<String> {
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (WIDTH, HEIGHT)).into_drawing_area();
        let canvas = Canvas {
            area: &area,
            scale: 1.0,
            text_drop: SVG_TEXT_DROP,
        };
        area.fill(&WHITE).map_err(drawing_error)?;
        figure.draw(&canvas)?;
        area.present().map_err(drawing_error)?;
    }
    Ok(svg)
}

/// The figure as [`WIDTH`] x [`HEIGHT`] RGB pixels, drawn [`SUPERSAMPLE`] times larger and
/// averaged down.
fn draw_rgb<F: Figure>(figure: &F) -> anyhow::Result<Vec<u8>> {
    let (w, h) = (WIDTH * SUPERSAMPLE, HEIGHT * SUPERSAMPLE);
    // White from the start: much cheaper than a fill in unoptimised builds.
    let mut big = vec![255u8; (w * h * 3) as usize];
    {
        let backend = BitMapBackend::with_buffer(&mut big, (w, h));
        let area = backend.into_drawing_area();
        let canvas = Canvas {
            area: &area,
            scale: f64::from(SUPERSAMPLE),
            text_drop: RASTER_TEXT_DROP,
        };
        figure.draw(&canvas)?;
        area.present().map_err(drawing_error)?;
    }
    Ok(halve(&big, w as usize))
}

/// Halves an RGB image `width` pixels wide in both directions, averaging 2 x 2 blocks.
// Written for speed in unoptimised test builds too, where a naive per-byte loop over the
// 7.7 MB source costs half a second: one iteration per output pixel, fixed-size arrays.
fn halve(src: &[u8], width: usize) -> Vec<u8> {
    let stride = width * 3;
    let mut out = Vec::with_capacity(src.len() / 4);
    for rows in src.chunks_exact(2 * stride) {
        let (upper, lower) = rows.split_at(stride);
        for (a, b) in upper.chunks_exact(6).zip(lower.chunks_exact(6)) {
            let (a, b): (&[u8; 6], &[u8; 6]) = match (a.try_into(), b.try_into()) {
                (Ok(a), Ok(b)) => (a, b),
                _ => continue,
            };
            let avg = |c: usize| {
                let sum =
                    u16::from(a[c]) + u16::from(a[c + 3]) + u16::from(b[c]) + u16::from(b[c + 3]);
                ((sum + 2) / 4) as u8
            };
            out.extend_from_slice(&[avg(0), avg(1), avg(2)]);
        }
    }
    out
}

fn drawing_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("plotting failed: {e}")
}

// ---------------------------------------------------------------------------------------
// Canvas: logical-pixel drawing on either backend

/// How far below a `VPos::Top` anchor each backend puts the baseline, per unit of font size.
/// The SVG backend writes `dy="0.76em"` with `font-size = size / 1.24`; plotters' ab_glyph
/// rasteriser puts the baseline half a size below the anchor.
const SVG_TEXT_DROP: f64 = 0.76 / 1.24;
const RASTER_TEXT_DROP: f64 = 0.5;

struct Canvas<'a, DB: DrawingBackend> {
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    scale: f64,
    text_drop: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Align {
    Left,
    Center,
    Right,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    fn pt(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px(x), self.px(y))
    }

    fn width(&self, w: f64) -> u32 {
        ((w * self.scale).round() as u32).max(1)
    }

    fn polyline(&self, points: &[(f64, f64)], colour: RGBColor, width: f64) -> anyhow::Result<()> {
        let points: Vec<_> = points.iter().map(|&p| self.pt(p)).collect();
        self.area
            .draw(&PathElement::new(
                points,
                colour.stroke_width(self.width(width)),
            ))
            .map_err(drawing_error)
    }

    fn dashed(&self, points: &[(f64, f64)], colour: RGBColor, width: f64) -> anyhow::Result<()> {
        let points: Vec<_> = points.iter().map(|&p| self.pt(p)).collect();
        self.area
            .draw(&DashedPathElement::new(
                points,
                self.px(DASH),
                self.px(DASH_GAP),
                colour.stroke_width(self.width(width)),
            ))
            .map_err(drawing_error)
    }

    /// A horizontal line `width` thick, drawn as a rectangle so that it stays crisp.
    fn hline(&self, x0: f64, x1: f64, y: f64, colour: RGBColor, width: f64) -> anyhow::Result<()> {
        let top = self.px(y - width / 2.0);
        let thickness = self.width(width) as i32;
        let (a, b) = (self.px(x0.min(x1)), self.px(x0.max(x1)));
        self.area
            .draw(&Rectangle::new(
                [(a, top), (b, top + thickness)],
                colour.filled(),
            ))
            .map_err(drawing_error)
    }

    /// A vertical line `width` thick, drawn as a rectangle so that it stays crisp.
    fn vline(&self, x: f64, y0: f64, y1: f64, colour: RGBColor, width: f64) -> anyhow::Result<()> {
        let left = self.px(x - width / 2.0);
        let thickness = self.width(width) as i32;
        let (a, b) = (self.px(y0.min(y1)), self.px(y0.max(y1)));
        self.area
            .draw(&Rectangle::new(
                [(left, a), (left + thickness, b)],
                colour.filled(),
            ))
            .map_err(drawing_error)
    }

    fn fill_rect(
        &self,
        (x0, y0): (f64, f64),
        (x1, y1): (f64, f64),
        colour: RGBAColor,
    ) -> anyhow::Result<()> {
        self.area
            .draw(&Rectangle::new(
                [self.pt((x0, y0)), self.pt((x1, y1))],
                colour.filled(),
            ))
            .map_err(drawing_error)
    }

    fn stroke_rect(
        &self,
        (x0, y0): (f64, f64),
        (x1, y1): (f64, f64),
        colour: RGBColor,
        width: f64,
    ) -> anyhow::Result<()> {
        let half = width / 2.0;
        self.hline(x0 - half, x1 + half, y0, colour, width)?;
        self.hline(x0 - half, x1 + half, y1, colour, width)?;
        self.vline(x0, y0, y1, colour, width)?;
        self.vline(x1, y0, y1, colour, width)
    }

    fn marker(&self, shape: Marker, (x, y): (f64, f64), colour: RGBColor) -> anyhow::Result<()> {
        // A white rim keeps overlapping markers and crossing lines apart.
        self.marker_shape(shape, (x, y), MARKER_RADIUS + 1.2, WHITE)?;
        self.marker_shape(shape, (x, y), MARKER_RADIUS, colour)
    }

    fn marker_shape(
        &self,
        shape: Marker,
        (x, y): (f64, f64),
        r: f64,
        colour: RGBColor,
    ) -> anyhow::Result<()> {
        let polygon = |corners: &[(f64, f64)]| -> Vec<(i32, i32)> {
            corners
                .iter()
                .map(|&(dx, dy)| self.pt((x + dx * r, y + dy * r)))
                .collect()
        };
        let result = match shape {
            Marker::Circle => self.area.draw(&Circle::new(
                self.pt((x, y)),
                ((r * self.scale).round() as i32).max(1),
                colour.filled(),
            )),
            Marker::Square => {
                let s = 0.88;
                self.area.draw(&Polygon::new(
                    polygon(&[(-s, -s), (s, -s), (s, s), (-s, s)]),
                    colour.filled(),
                ))
            }
            Marker::TriangleUp => self.area.draw(&Polygon::new(
                polygon(&[(0.0, -1.25), (1.1, 0.75), (-1.1, 0.75)]),
                colour.filled(),
            )),
            Marker::Diamond => self.area.draw(&Polygon::new(
                polygon(&[(0.0, -1.25), (1.1, 0.0), (0.0, 1.25), (-1.1, 0.0)]),
                colour.filled(),
            )),
            Marker::TriangleDown => self.area.draw(&Polygon::new(
                polygon(&[(0.0, 1.25), (1.1, -0.75), (-1.1, -0.75)]),
                colour.filled(),
            )),
        };
        result.map_err(drawing_error)
    }

    /// Draws `text` with its baseline at `y` (horizontal text) or, when `rotated`, reading
    /// bottom to top with its baseline at `x` (the y-axis label).
    #[allow(clippy::too_many_arguments)]
    fn text(
        &self,
        text: &str,
        (x, y): (f64, f64),
        size: f64,
        align: Align,
        bold: bool,
        colour: &RGBColor,
        rotated: bool,
    ) -> anyhow::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let style = if bold {
            FontStyle::Bold
        } else {
            FontStyle::Normal
        };
        let font = FontDesc::new(FontFamily::Name(FONT_FAMILY), size * self.scale, style);
        let h_pos = match align {
            Align::Left => HPos::Left,
            Align::Center => HPos::Center,
            Align::Right => HPos::Right,
        };
        let mut text_style = TextStyle::from(font)
            .color(colour)
            .pos(Pos::new(h_pos, VPos::Top));
        let drop = self.text_drop * size;
        let anchor = if rotated {
            text_style = text_style.transform(FontTransform::Rotate270);
            (x - drop, y)
        } else {
            (x, y - drop)
        };
        self.area
            .draw(&Text::new(text, self.pt(anchor), text_style))
            .map_err(drawing_error)
    }
}

/// Width in logical pixels of `text` at `size`.
fn text_width(text: &str, size: f64, bold: bool) -> anyhow::Result<f64> {
    if text.is_empty() {
        return Ok(0.0);
    }
    let style = if bold {
        FontStyle::Bold
    } else {
        FontStyle::Normal
    };
    let (w, _) = FontDesc::new(FontFamily::Name(FONT_FAMILY), size, style)
        .box_size(text)
        .map_err(|e| anyhow!("measuring text {text:?}: {e}"))?;
    Ok(f64::from(w))
}

/// Ascent of caps and digits, and the depth of descenders, per unit of font size.
const CAP_HEIGHT: f64 = 0.62;
const DESCENT: f64 = 0.2;

// ---------------------------------------------------------------------------------------
// Colours and markers

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
}

const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
];

fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Palette slot of each distinct name (see the module docs), as a sorted list.
fn palette_slots<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
    let distinct: BTreeSet<&str> = names.into_iter().collect();
    let mut taken = [false; PALETTE.len()];
    let mut slots = Vec::with_capacity(distinct.len());
    for (placed, name) in distinct.into_iter().enumerate() {
        let mut slot = (fnv1a(name) % PALETTE.len() as u64) as usize;
        if placed < PALETTE.len() {
            while taken[slot] {
                slot = (slot + 1) % PALETTE.len();
            }
        }
        taken[slot] = true;
        slots.push((name, slot));
    }
    slots
}

fn slot_of(slots: &[(&str, usize)], name: &str) -> usize {
    slots
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .map(|i| slots[i].1)
        .unwrap_or(0)
}

// ---------------------------------------------------------------------------------------
// Axes

/// One axis: its range in transformed units (log10 of the value on a log axis) and its ticks.
#[derive(Debug, Clone, PartialEq)]
struct Axis {
    log: bool,
    lo: f64,
    hi: f64,
    /// Labelled ticks, as (transformed position, label).
    major: Vec<(f64, String)>,
    /// Unlabelled ticks with a lighter grid line, in transformed units.
    minor: Vec<f64>,
}

impl Axis {
    fn transform(log: bool, v: f64) -> f64 {
        if log {
            v.log10()
        } else {
            v
        }
    }

    /// Position of the data value `v` along the axis: 0 at `lo`, 1 at `hi`.
    fn frac(&self, v: f64) -> f64 {
        (Self::transform(self.log, v) - self.lo) / (self.hi - self.lo)
    }

    /// An axis over data `[min, max]` (finite, and positive if `log`), widened by `pad` of
    /// its span on each side, with about `target` labels.
    fn fit(log: bool, min: f64, max: f64, pad: f64, target: usize) -> Self {
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
    fn with_range(log: bool, lo: f64, hi: f64, target: usize) -> Self {
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
    fn thin(&mut self, length: f64, gap: impl Fn(usize, usize) -> f64) {
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
    fn thin_vertical(&mut self, frame: &Frame) {
        self.thin(frame.bottom - frame.top, |_, _| TICK_SIZE * 1.2);
    }

    /// Thins x labels of width `widths` so that they do not touch.
    fn thin_horizontal(&mut self, frame: &Frame, widths: &[f64]) {
        self.thin(frame.right - frame.left, |i, j| {
            (widths[i] + widths[j]) / 2.0 + 12.0
        });
    }

    /// The axis of a chart with no data.
    fn placeholder(log: bool) -> Self {
        Self::with_range(log, 0.0, 1.0, 5)
    }
}

/// The step of 1, 2 or 5 times a power of ten that splits `span` into the number of
/// intervals nearest to `target` (the larger step on a tie).
fn nice_step(span: f64, target: usize) -> f64 {
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
const MAX_DECADE_LABELS: usize = 12;

fn linear_ticks(lo: f64, hi: f64, target: usize) -> Vec<(f64, String)> {
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
fn format_linear(values: &[f64], step: f64) -> Vec<String> {
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
fn decimals_for(step: f64) -> usize {
    (0..9)
        .find(|&d| {
            let m = step * 10f64.powi(d as i32);
            (m - m.round()).abs() < 1e-6 * m.max(1.0)
        })
        .unwrap_or(9)
}

fn minus_sign(s: String) -> String {
    s.replace('-', "\u{2212}")
}

/// `10` with a superscript exponent.
fn power_of_ten(exponent: i32) -> String {
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
fn format_log_values(values: &[f64]) -> Vec<String> {
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
fn log_ticks(lo: f64, hi: f64) -> (Vec<(f64, String)>, Vec<f64>) {
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

// ---------------------------------------------------------------------------------------
// Shared layout: frame, grid, axes, title

/// The plot rectangle in logical pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Frame {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
}

impl Frame {
    fn x(&self, frac: f64) -> f64 {
        self.left + frac * (self.right - self.left)
    }

    fn y(&self, frac: f64) -> f64 {
        self.bottom - frac * (self.bottom - self.top)
    }
}

/// Texts and y axis common to both chart kinds.
#[derive(Debug, Clone)]
struct Decor {
    title: String,
    x_label: String,
    y_label: String,
    y: Axis,
}

impl Decor {
    /// Top of the space below the title.
    fn below_title(&self) -> f64 {
        if self.title.is_empty() {
            MARGIN
        } else {
            MARGIN + TITLE_SIZE * 1.25 + 6.0
        }
    }

    /// Left edge of the plot: room for the y label and the widest y tick label.
    fn plot_left(&self) -> anyhow::Result<f64> {
        let mut widest: f64 = 0.0;
        for (_, label) in &self.y.major {
            widest = widest.max(text_width(label, TICK_SIZE, false)?);
        }
        let label_room = if self.y_label.is_empty() {
            0.0
        } else {
            LABEL_SIZE + 10.0
        };
        Ok(MARGIN + label_room + widest + 7.0 + TICK_LEN)
    }

    /// Bottom edge of the plot: room for the x tick labels and the x label.
    fn plot_bottom(&self) -> f64 {
        let label_room = if self.x_label.is_empty() {
            0.0
        } else {
            LABEL_SIZE * (CAP_HEIGHT + DESCENT) + 12.0
        };
        f64::from(HEIGHT)
            - MARGIN
            - label_room
            - (TICK_LEN + 7.0 + TICK_SIZE * (CAP_HEIGHT + DESCENT))
    }

    fn draw_title<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        frame: &Frame,
    ) -> anyhow::Result<()> {
        let centre = (frame.left + frame.right) / 2.0;
        let fits = text_width(&self.title, TITLE_SIZE, true)? <= frame.right - frame.left;
        let x = if fits { centre } else { f64::from(WIDTH) / 2.0 };
        canvas.text(
            &self.title,
            (x, MARGIN + TITLE_SIZE * 0.85),
            TITLE_SIZE,
            Align::Center,
            true,
            &INK,
            false,
        )
    }

    /// Grid lines behind the data: the y axis's, and the given x positions (fractions).
    fn draw_grid<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        frame: &Frame,
        x: Option<&Axis>,
    ) -> anyhow::Result<()> {
        let y = &self.y;
        let yf = |t: f64| frame.y((t - y.lo) / (y.hi - y.lo));
        for &t in &y.minor {
            canvas.hline(frame.left, frame.right, yf(t), MINOR_GRID, 1.0)?;
        }
        if let Some(x) = x {
            let xf = |t: f64| frame.x((t - x.lo) / (x.hi - x.lo));
            for &t in &x.minor {
                canvas.vline(xf(t), frame.top, frame.bottom, MINOR_GRID, 1.0)?;
            }
            for (t, _) in &x.major {
                canvas.vline(xf(*t), frame.top, frame.bottom, GRID, 1.0)?;
            }
        }
        for (t, _) in &y.major {
            canvas.hline(frame.left, frame.right, yf(*t), GRID, 1.0)?;
        }
        Ok(())
    }

    /// Frame, y ticks and labels, the y label and the x label.
    fn draw_axes<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        frame: &Frame,
    ) -> anyhow::Result<()> {
        let y = &self.y;
        let yf = |t: f64| frame.y((t - y.lo) / (y.hi - y.lo));
        for &t in &y.minor {
            canvas.hline(frame.left - MINOR_TICK_LEN, frame.left, yf(t), INK, 1.0)?;
        }
        for (t, label) in &y.major {
            let py = yf(*t);
            canvas.hline(frame.left - TICK_LEN, frame.left, py, INK, 1.0)?;
            canvas.text(
                label,
                (
                    frame.left - TICK_LEN - 5.0,
                    py + TICK_SIZE * CAP_HEIGHT / 2.0,
                ),
                TICK_SIZE,
                Align::Right,
                false,
                &INK,
                false,
            )?;
        }
        canvas.stroke_rect(
            (frame.left, frame.top),
            (frame.right, frame.bottom),
            INK,
            1.0,
        )?;
        canvas.text(
            &self.y_label,
            (MARGIN + LABEL_SIZE * 0.8, (frame.top + frame.bottom) / 2.0),
            LABEL_SIZE,
            Align::Center,
            false,
            &INK,
            true,
        )?;
        canvas.text(
            &self.x_label,
            (
                (frame.left + frame.right) / 2.0,
                f64::from(HEIGHT) - MARGIN - LABEL_SIZE * DESCENT,
            ),
            LABEL_SIZE,
            Align::Center,
            false,
            &INK,
            false,
        )
    }

    fn draw_no_data<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        frame: &Frame,
    ) -> anyhow::Result<()> {
        canvas.text(
            "no data",
            (
                (frame.left + frame.right) / 2.0,
                (frame.top + frame.bottom) / 2.0,
            ),
            LABEL_SIZE,
            Align::Center,
            false,
            &SOFT_INK,
            false,
        )
    }
}

/// Baseline of the x tick labels.
fn x_tick_baseline(frame: &Frame) -> f64 {
    frame.bottom + TICK_LEN + 5.0 + TICK_SIZE * CAP_HEIGHT
}

// ---------------------------------------------------------------------------------------
// Line charts

struct LineSeries<'a> {
    name: &'a str,
    style: SeriesStyle,
    colour: RGBColor,
    marker: Marker,
    /// Points with finite coordinates that fit the axes.
    points: Vec<(f64, f64)>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct LegendBox {
    left: f64,
    top: f64,
    width: f64,
    height: f64,
}

struct LineFigure<'a> {
    decor: Decor,
    x: Axis,
    frame: Frame,
    series: Vec<LineSeries<'a>>,
    legend: Option<LegendBox>,
}

const LEGEND_PAD: f64 = 9.0;
const LEGEND_SAMPLE: f64 = 34.0;
const LEGEND_ROW: f64 = LEGEND_SIZE * 1.4;

impl<'a> LineFigure<'a> {
    fn new(chart: &'a LineChart) -> anyhow::Result<Self> {
        let fits = |log: bool, v: f64| v.is_finite() && (!log || v > 0.0);
        let slots = palette_slots(chart.series.iter().map(|s| s.name.as_str()));
        let series: Vec<LineSeries<'a>> = chart
            .series
            .iter()
            .map(|s| {
                let slot = slot_of(&slots, &s.name);
                LineSeries {
                    name: &s.name,
                    style: s.style,
                    colour: PALETTE[slot],
                    marker: MARKERS[slot % MARKERS.len()],
                    points: s
                        .points
                        .iter()
                        .copied()
                        .filter(|&(x, y)| fits(chart.x_log, x) && fits(chart.y_log, y))
                        .collect(),
                }
            })
            .filter(|s| !s.points.is_empty())
            .collect();

        let all = || series.iter().flat_map(|s| s.points.iter().copied());
        let (x, y) = if series.is_empty() {
            (
                Axis::placeholder(chart.x_log),
                Axis::placeholder(chart.y_log),
            )
        } else {
            let (x_min, x_max) = all()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (x, _)| {
                    (lo.min(x), hi.max(x))
                });
            let (y_min, y_max) = all()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (_, y)| {
                    (lo.min(y), hi.max(y))
                });
            (
                Axis::fit(chart.x_log, x_min, x_max, 0.04, 8),
                Axis::fit(chart.y_log, y_min, y_max, 0.05, 6),
            )
        };

        let decor = Decor {
            title: chart.title.clone(),
            x_label: chart.x_label.clone(),
            y_label: chart.y_label.clone(),
            y,
        };
        let last_x_label = x.major.last().map(|(_, l)| l.as_str()).unwrap_or("");
        let right_overhang = text_width(last_x_label, TICK_SIZE, false)? / 2.0 + 4.0;
        let mut frame = Frame {
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

        let mut widest: f64 = 0.0;
        for s in &figure.series {
            widest = widest.max(text_width(s.name, LEGEND_SIZE, false)?);
        }
        let width = 2.0 * LEGEND_PAD + LEGEND_SAMPLE + 8.0 + widest;
        let height = 2.0 * LEGEND_PAD + figure.series.len() as f64 * LEGEND_ROW;
        if let Some(inside) = figure.free_corner(width, height) {
            figure.legend = Some(inside);
        } else {
            // Every spot inside covers data: shrink the plot and put the legend beside it.
            frame.right = f64::from(WIDTH) - MARGIN - width - 12.0;
            figure.frame = frame;
            figure.legend = Some(LegendBox {
                left: frame.right + 12.0,
                top: frame.top,
                width,
                height,
            });
        }

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

    fn map(&self, (x, y): (f64, f64)) -> (f64, f64) {
        (
            self.frame.x(self.x.frac(x)),
            self.frame.y(self.decor.y.frac(y)),
        )
    }

    /// The first spot inside the plot (corners first, then edge middles) where a legend of
    /// this size covers no line or marker.
    fn free_corner(&self, width: f64, height: f64) -> Option<LegendBox> {
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

    fn draw_series<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()> {
        for s in &self.series {
            let mapped: Vec<(f64, f64)> = s.points.iter().map(|&p| self.map(p)).collect();
            match s.style {
                SeriesStyle::Line | SeriesStyle::LinePoints => {
                    canvas.polyline(&mapped, s.colour, LINE_WIDTH)?
                }
                SeriesStyle::Dashed => canvas.dashed(&mapped, s.colour, LINE_WIDTH)?,
                SeriesStyle::Points => {}
            }
        }
        // Markers go on top of every line.
        for s in self.series.iter().filter(|s| s.style.has_markers()) {
            for &p in &s.points {
                canvas.marker(s.marker, self.map(p), s.colour)?;
            }
        }
        Ok(())
    }

    fn draw_legend<DB: DrawingBackend>(
        &self,
        canvas: &Canvas<'_, DB>,
        b: &LegendBox,
    ) -> anyhow::Result<()> {
        let (x0, y0, x1, y1) = (b.left, b.top, b.left + b.width, b.top + b.height);
        canvas.fill_rect((x0, y0), (x1, y1), WHITE.mix(0.92))?;
        canvas.stroke_rect((x0, y0), (x1, y1), LEGEND_EDGE, 1.0)?;
        for (i, s) in self.series.iter().enumerate() {
            let cy = y0 + LEGEND_PAD + (i as f64 + 0.5) * LEGEND_ROW;
            let (sx0, sx1) = (x0 + LEGEND_PAD, x0 + LEGEND_PAD + LEGEND_SAMPLE);
            match s.style {
                SeriesStyle::Line | SeriesStyle::LinePoints => {
                    canvas.hline(sx0, sx1, cy, s.colour, LINE_WIDTH)?;
                }
                SeriesStyle::Dashed => {
                    // Centre one gap so both ends show a dash.
                    let dash = (LEGEND_SAMPLE - DASH_GAP) / 2.0;
                    canvas.hline(sx0, sx0 + dash, cy, s.colour, LINE_WIDTH)?;
                    canvas.hline(sx1 - dash, sx1, cy, s.colour, LINE_WIDTH)?;
                }
                SeriesStyle::Points => {}
            }
            if s.style.has_markers() {
                canvas.marker(s.marker, ((sx0 + sx1) / 2.0, cy), s.colour)?;
            }
            canvas.text(
                s.name,
                (sx1 + 8.0, cy + LEGEND_SIZE * CAP_HEIGHT / 2.0),
                LEGEND_SIZE,
                Align::Left,
                false,
                &INK,
                false,
            )?;
        }
        Ok(())
    }
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

// ---------------------------------------------------------------------------------------
// Bar charts

struct BarGroup<'a> {
    name: &'a str,
    colour: RGBColor,
    /// One entry per category; `None` leaves the bar out.
    values: Vec<Option<f64>>,
}

/// One entry of the legend row(s) above a bar chart.
struct Swatch {
    group: usize,
    left: f64,
    baseline: f64,
}

struct BarFigure<'a> {
    decor: Decor,
    frame: Frame,
    categories: &'a [String],
    category_size: f64,
    groups: Vec<BarGroup<'a>>,
    legend: Vec<Swatch>,
    /// Value the bars rise from, in transformed units.
    base: f64,
    has_data: bool,
}

const SWATCH: f64 = 13.0;

impl<'a> BarFigure<'a> {
    fn new(chart: &'a BarChart) -> anyhow::Result<Self> {
        let slots = palette_slots(chart.groups.iter().map(|(n, _)| n.as_str()));
        let groups: Vec<BarGroup<'a>> = chart
            .groups
            .iter()
            .map(|(name, values)| BarGroup {
                name,
                colour: PALETTE[slot_of(&slots, name)],
                values: values
                    .iter()
                    .map(|&v| (v.is_finite() && (!chart.y_log || v > 0.0)).then_some(v))
                    .collect(),
            })
            .collect();

        let present = || {
            groups
                .iter()
                .flat_map(|g| g.values.iter().flatten().copied())
        };
        let has_data = present().next().is_some() && !chart.categories.is_empty();
        let (y, base) = if !has_data {
            (Axis::placeholder(chart.y_log), 0.0)
        } else if chart.y_log {
            let (min, max) = present().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
            // Rise from the decade strictly below the smallest bar, so every bar shows.
            let base = (min.log10() - 1e-9).floor();
            let top = max.log10();
            let axis = Axis::with_range(true, base, top + 0.06 * (top - base), 6);
            (axis, base)
        } else {
            let (min, max) = present().fold((0.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let span = if max > min { max - min } else { 1.0 };
            let lo = if min < 0.0 { min - 0.06 * span } else { 0.0 };
            let hi = if max > 0.0 || min >= 0.0 {
                max.max(0.0) + 0.06 * span
            } else {
                0.0
            };
            (Axis::with_range(false, lo, hi, 6), 0.0)
        };

        let decor = Decor {
            title: chart.title.clone(),
            x_label: chart.x_label.clone(),
            y_label: chart.y_label.clone(),
            y,
        };
        let left = decor.plot_left()?;
        let right = f64::from(WIDTH) - MARGIN - 4.0;

        // Legend entries in rows above the plot, each row centred over it.
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
        let mut top = decor.below_title() + 4.0;
        if groups.is_empty() {
            top += TICK_SIZE * 0.5;
        } else {
            for row in &rows {
                let total: f64 = row.iter().map(|(_, w)| w).sum::<f64>()
                    + entry_gap * (row.len().max(1) - 1) as f64;
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
            top += 6.0;
        }

        let frame = Frame {
            left,
            top,
            right,
            bottom: decor.plot_bottom(),
        };
        let mut decor = decor;
        decor.y.thin_vertical(&frame);

        // Shrink category labels that would run into each other.
        let slot = (frame.right - frame.left) / chart.categories.len().max(1) as f64;
        let mut category_size = TICK_SIZE;
        for c in &chart.categories {
            let w = text_width(c, TICK_SIZE, false)?;
            if w > slot * 0.92 {
                category_size = category_size.min((TICK_SIZE * slot * 0.92 / w).max(9.0));
            }
        }

        Ok(Self {
            decor,
            frame,
            categories: &chart.categories,
            category_size,
            groups,
            legend,
            base,
            has_data,
        })
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
        // A zero line where bars go both ways.
        if !y.log && y.lo < 0.0 && y.hi > 0.0 {
            canvas.hline(f.left, f.right, base_y, INK, 1.0)?;
        }

        self.decor.draw_axes(canvas, f)?;
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

        for s in &self.legend {
            let group = &self.groups[s.group];
            let top = s.baseline - LEGEND_SIZE * CAP_HEIGHT / 2.0 - SWATCH / 2.0;
            canvas.fill_rect(
                (s.left, top),
                (s.left + SWATCH, top + SWATCH),
                group.colour.to_rgba(),
            )?;
            canvas.text(
                group.name,
                (s.left + SWATCH + 6.0, s.baseline),
                LEGEND_SIZE,
                Align::Left,
                false,
                &INK,
                false,
            )?;
        }

        if !self.has_data {
            self.decor.draw_no_data(canvas, f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Encoding a PNG takes a few hundred ms in a debug build, so only a handful of tests go
    // through the files; the degenerate cases draw both images in memory instead.

    /// A scratch directory, removed when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn join(&self, name: &str) -> PathBuf {
            self.0.join(name)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    fn temp_dir(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("filterlab-plot-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn png_size(path: &Path) -> (u32, u32) {
        let bytes = fs::read(path).unwrap();
        assert_eq!(
            &bytes[..8],
            b"\x89PNG\r\n\x1a\n",
            "{} is not a PNG",
            path.display()
        );
        assert_eq!(&bytes[12..16], b"IHDR");
        let be =
            |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        (be(16), be(20))
    }

    /// True if `svg` has a `<text>` element whose content is exactly `text`.
    fn svg_has_text(svg: &str, text: &str) -> bool {
        svg.split("<text").skip(1).any(|element| {
            element
                .split_once('>')
                .and_then(|(_, rest)| rest.split_once("</text>"))
                .is_some_and(|(content, _)| content.trim() == text)
        })
    }

    /// Draws both images in memory, as the render functions do before writing.
    fn draw_both<F: Figure>(figure: &F) -> anyhow::Result<(String, Vec<u8>)> {
        let svg = draw_svg(figure)?;
        let rgb = draw_rgb(figure)?;
        assert_eq!(rgb.len(), (WIDTH * HEIGHT * 3) as usize);
        Ok((svg, rgb))
    }

    fn fpr_chart() -> LineChart {
        let bits = [4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 20.0];
        let theory = |b: f64| 0.6185f64.powf(b);
        let curve = |f: &dyn Fn(f64) -> f64| bits.iter().map(|&b| (b, f(b))).collect();
        LineChart {
            title: "False-positive rate vs memory".into(),
            x_label: "bits per key".into(),
            y_label: "false-positive rate".into(),
            x_log: false,
            y_log: true,
            series: vec![
                Series::new(
                    "classic",
                    curve(&|b| theory(b) * 1.05),
                    SeriesStyle::LinePoints,
                ),
                Series::new(
                    "cuckoo",
                    curve(&|b| 8.0 / 2f64.powf(b - 3.0)),
                    SeriesStyle::LinePoints,
                ),
                Series::new("classic theory", curve(&theory), SeriesStyle::Dashed),
                Series::new(
                    "lower bound",
                    curve(&|b| 2f64.powf(-b)),
                    SeriesStyle::Dashed,
                ),
            ],
        }
    }

    fn mix_chart() -> BarChart {
        BarChart {
            title: "Lookup time by positive-query mix".into(),
            x_label: "share of queries that are members".into(),
            y_label: "ns per lookup".into(),
            categories: ["0%", "25%", "50%", "75%", "100%"]
                .map(String::from)
                .to_vec(),
            groups: vec![
                ("classic".into(), vec![31.0, 38.5, 46.0, 53.2, 60.1]),
                ("counting".into(), vec![44.0, 52.0, 61.0, 70.5, 79.0]),
                ("scalable".into(), vec![58.0, 66.0, 73.0, 81.0, 90.0]),
                ("cuckoo".into(), vec![22.0, 23.5, 24.0, 25.1, 26.0]),
            ],
            y_log: false,
        }
    }

    #[test]
    fn line_chart_writes_a_deterministic_svg_and_a_png() {
        let dir = temp_dir("line");
        let paths = render_line(&fpr_chart(), &dir.join("fpr.v1")).unwrap();
        assert_eq!(paths, [dir.join("fpr.v1.svg"), dir.join("fpr.v1.png")]);
        assert_eq!(png_size(&paths[1]), (WIDTH, HEIGHT));
        let svg = fs::read_to_string(&paths[0]).unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg_has_text(&svg, "False-positive rate vs memory"));
        assert!(svg_has_text(&svg, "classic theory"), "legend entry");
        assert!(svg_has_text(&svg, "10⁻⁴"), "decade label on the log axis");

        let again = render_line(&fpr_chart(), &dir.join("nested/again")).unwrap();
        assert_eq!(
            fs::read(&again[0]).unwrap(),
            svg.as_bytes(),
            "same input, same bytes"
        );
    }

    #[test]
    fn bar_chart_writes_a_deterministic_svg_and_a_png() {
        let dir = temp_dir("bar");
        let mut chart = mix_chart();
        let paths = render_bar(&chart, &dir.join("mix")).unwrap();
        assert_eq!(png_size(&paths[1]), (WIDTH, HEIGHT));
        let svg = fs::read_to_string(&paths[0]).unwrap();
        assert!(svg_has_text(&svg, "Lookup time by positive-query mix"));
        assert!(svg_has_text(&svg, "75%"));
        assert!(svg_has_text(&svg, "cuckoo"));
        let redrawn = draw_svg(&BarFigure::new(&mix_chart()).unwrap()).unwrap();
        assert_eq!(redrawn, svg, "same input, same bytes");

        chart.y_log = true;
        let paths = render_bar(&chart, &dir.join("mix-log")).unwrap();
        assert_eq!(png_size(&paths[1]), (WIDTH, HEIGHT));
    }

    #[test]
    fn degenerate_line_charts_draw_without_panicking() {
        register_fonts().unwrap();
        let cases = [
            vec![],
            vec![Series::new("empty", vec![], SeriesStyle::Line)],
            vec![Series::new(
                "one point",
                vec![(1e6, 1e-3)],
                SeriesStyle::LinePoints,
            )],
            vec![Series::new(
                "flat",
                vec![(1.0, 5.0), (10.0, 5.0), (100.0, 5.0)],
                SeriesStyle::Line,
            )],
            vec![Series::new(
                "bad values",
                vec![
                    (0.0, 1.0),
                    (-3.0, 2.0),
                    (f64::NAN, 1.0),
                    (1.0, f64::INFINITY),
                    (2.0, 0.0),
                    (3.0, 3.0),
                ],
                SeriesStyle::Points,
            )],
            vec![Series::new(
                "huge span",
                vec![(1e-300, 1e-300), (1e300, 1e300)],
                SeriesStyle::Dashed,
            )],
            vec![Series::new(
                "extremes",
                vec![(f64::MIN_POSITIVE, 1.0), (f64::MAX, f64::MAX)],
                SeriesStyle::Line,
            )],
        ];
        for series in cases {
            for (x_log, y_log) in [(true, true), (false, false)] {
                let chart = LineChart {
                    title: String::new(),
                    x_label: String::new(),
                    y_label: String::new(),
                    x_log,
                    y_log,
                    series: series.clone(),
                };
                let figure = LineFigure::new(&chart).unwrap();
                let svg = if x_log {
                    draw_both(&figure).unwrap().0
                } else {
                    // The layout is what the linear variant exercises; spare the raster time.
                    draw_svg(&figure).unwrap()
                };
                assert!(svg.contains("</svg>"));
            }
        }
    }

    #[test]
    fn empty_line_chart_is_written_as_empty_axes() {
        let dir = temp_dir("empty");
        let chart = LineChart {
            series: vec![Series::new(
                "nothing",
                vec![(f64::NAN, 1.0)],
                SeriesStyle::Line,
            )],
            ..fpr_chart()
        };
        let paths = render_line(&chart, &dir.join("empty")).unwrap();
        let svg = fs::read_to_string(&paths[0]).unwrap();
        assert!(svg_has_text(&svg, "no data"));
        assert!(
            !svg_has_text(&svg, "nothing"),
            "a series with no points has no legend entry"
        );
    }

    #[test]
    fn degenerate_bar_charts_draw_or_fail_clearly() {
        let dir = temp_dir("degenerate-bar");
        let mut chart = mix_chart();
        chart.groups[1].1.pop();
        let err = render_bar(&chart, &dir.join("mismatch"))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("\"counting\" has 4 values but there are 5 categories"),
            "{err}"
        );
        assert!(!dir.join("mismatch.svg").exists());

        let empty = BarChart {
            categories: Vec::new(),
            groups: Vec::new(),
            ..mix_chart()
        };
        let (svg, _) = draw_both(&BarFigure::new(&empty).unwrap()).unwrap();
        assert!(svg_has_text(&svg, "no data"));

        let mut odd = mix_chart();
        odd.groups[0].1 = vec![f64::NAN, 0.0, -5.0, f64::INFINITY, 12.0];
        draw_both(&BarFigure::new(&odd).unwrap()).unwrap();
        odd.y_log = true;
        draw_both(&BarFigure::new(&odd).unwrap()).unwrap();
        for g in &mut odd.groups {
            g.1 = vec![0.0; 5];
        }
        let (svg, _) = draw_both(&BarFigure::new(&odd).unwrap()).unwrap();
        assert!(svg_has_text(&svg, "no data"));
    }

    #[test]
    fn unwritable_stem_is_an_error() {
        let dir = temp_dir("unwritable");
        let blocker = dir.join("file");
        fs::write(&blocker, b"not a directory").unwrap();
        let err = render_line(&fpr_chart(), &blocker.join("chart")).unwrap_err();
        assert!(format!("{err:#}").contains("creating directory"), "{err:#}");
        assert!(render_line(&fpr_chart(), Path::new("")).is_err());
    }

    #[test]
    fn log_axes_label_decades() {
        let labels = |axis: &Axis| {
            axis.major
                .iter()
                .map(|(_, l)| l.clone())
                .collect::<Vec<_>>()
        };
        let fpr = Axis::fit(true, 1e-5, 1e-1, 0.05, 6);
        assert_eq!(labels(&fpr), ["10⁻⁵", "10⁻⁴", "10⁻³", "10⁻²", "10⁻¹"]);
        assert!(fpr
            .minor
            .iter()
            .any(|t| (t - 2e-3f64.log10()).abs() < 1e-12));
        assert!(
            fpr.minor.iter().all(|t| t.fract().abs() > 1e-9),
            "no minor tick on a decade"
        );

        let sizes = Axis::fit(true, 1e4, 1e8, 0.04, 8);
        assert_eq!(labels(&sizes), ["10⁴", "10⁵", "10⁶", "10⁷", "10⁸"]);

        let ns = Axis::fit(true, 1.5, 900.0, 0.05, 6);
        assert_eq!(labels(&ns), ["10", "100", "1000"]);

        let narrow = Axis::fit(true, 18.0, 95.0, 0.05, 6);
        assert_eq!(labels(&narrow), ["20", "50", "100"]);

        let wide = Axis::fit(true, 1e-30, 1e30, 0.0, 6);
        assert!(wide.major.len() <= MAX_DECADE_LABELS, "{:?}", labels(&wide));
    }

    #[test]
    fn linear_axes_use_round_steps_and_shared_formats() {
        let labels = |axis: &Axis| {
            axis.major
                .iter()
                .map(|(_, l)| l.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            labels(&Axis::fit(false, 4.0, 20.0, 0.04, 8)),
            ["4", "6", "8", "10", "12", "14", "16", "18", "20"]
        );
        assert_eq!(format_linear(&[0.0, 2.5, 5.0], 2.5), ["0.0", "2.5", "5.0"]);
        assert_eq!(format_linear(&[0.0, 2e6, 4e6], 2e6), ["0", "2M", "4M"]);
        assert_eq!(
            format_linear(&[-0.5, 0.0, 0.5], 0.5),
            ["\u{2212}0.5", "0.0", "0.5"]
        );
        assert_eq!(power_of_ten(-12), "10⁻¹²");
        assert_eq!(format_log_values(&[0.05, 0.1, 0.2]), ["0.05", "0.1", "0.2"]);
        assert_eq!(format_log_values(&[5e5, 1e6, 2e6]), ["500k", "1M", "2M"]);
        assert_eq!(
            format_log_values(&[5e-4, 1e-3, 2e-3]),
            ["5×10⁻⁴", "10⁻³", "2×10⁻³"]
        );
    }

    #[test]
    fn crowded_labels_are_thinned() {
        let mut axis = Axis::with_range(false, 0.0, 100.0, 10);
        assert_eq!(axis.major.len(), 11);
        let frame = Frame {
            left: 0.0,
            top: 0.0,
            right: 200.0,
            bottom: 100.0,
        };
        axis.thin_vertical(&frame);
        assert!(axis.major.len() < 11);
        assert_eq!(
            axis.major.len() + axis.minor.len(),
            11,
            "dropped labels stay as ticks"
        );
    }

    #[test]
    fn colours_depend_on_the_name_and_never_repeat_within_a_chart() {
        let names = [
            "classic", "counting", "scalable", "cuckoo", "blocked", "xor",
        ];
        let slots = palette_slots(names);
        let distinct: BTreeSet<usize> = slots.iter().map(|&(_, s)| s).collect();
        assert_eq!(distinct.len(), names.len());
        let reversed = palette_slots(names.iter().rev().copied());
        assert_eq!(slots, reversed, "series order does not matter");
        let alone = palette_slots(["classic"])[0].1;
        assert_eq!(alone as u64, fnv1a("classic") % PALETTE.len() as u64);
    }
}
