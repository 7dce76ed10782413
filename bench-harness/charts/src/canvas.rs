//! Drawing in logical pixels on either backend (SVG or the supersampled bitmap).

use anyhow::{anyhow, Result};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontDesc, FontFamily, FontStyle, FontTransform};

use crate::style::*;

/// How far below a `VPos::Top` anchor each backend puts the baseline, per unit of font size.
/// The SVG backend writes `dy="0.76em"` with `font-size = size / 1.24`; plotters' ab_glyph
/// rasteriser puts the baseline half a size below the anchor.
pub(crate) const SVG_TEXT_DROP: f64 = 0.76 / 1.24;
pub(crate) const RASTER_TEXT_DROP: f64 = 0.5;

/// How [`Canvas::path`] strokes its line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stroke {
    Solid,
    Dashed,
}

pub(crate) struct Canvas<'a, DB: DrawingBackend> {
    pub(crate) area: &'a DrawingArea<DB, plotters::coord::Shift>,
    pub(crate) scale: f64,
    pub(crate) text_drop: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Center,
    Right,
}

impl<DB: DrawingBackend> Canvas<'_, DB> {
    pub(crate) fn px(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    pub(crate) fn pt(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (self.px(x), self.px(y))
    }

    pub(crate) fn width(&self, w: f64) -> u32 {
        ((w * self.scale).round() as u32).max(1)
    }

    /// A line through `points`, solid or dashed.
    pub(crate) fn path(
        &self,
        points: &[(f64, f64)],
        colour: RGBColor,
        width: f64,
        stroke: Stroke,
    ) -> anyhow::Result<()> {
        let points: Vec<_> = points.iter().map(|&p| self.pt(p)).collect();
        let style = colour.stroke_width(self.width(width));
        match stroke {
            Stroke::Solid => self.area.draw(&PathElement::new(points, style)),
            Stroke::Dashed => self.area.draw(&DashedPathElement::new(
                points,
                self.px(DASH),
                self.px(DASH_GAP),
                style,
            )),
        }
        .map_err(drawing_error)
    }

    /// A horizontal line `w` thick, drawn as a rectangle so that it stays crisp.
    pub(crate) fn hline(&self, x0: f64, x1: f64, y: f64, c: RGBColor, w: f64) -> Result<()> {
        let ((a, b), (top, bottom)) = (self.span(x0, x1), self.band(y, w));
        self.solid([(a, top), (b, bottom)], c)
    }

    /// A vertical line `w` thick, drawn as a rectangle so that it stays crisp.
    pub(crate) fn vline(&self, x: f64, y0: f64, y1: f64, c: RGBColor, w: f64) -> Result<()> {
        let ((a, b), (left, right)) = (self.span(y0, y1), self.band(x, w));
        self.solid([(left, a), (right, b)], c)
    }

    /// From the lower of `p0`, `p1` to the higher, in pixels.
    fn span(&self, p0: f64, p1: f64) -> (i32, i32) {
        (self.px(p0.min(p1)), self.px(p0.max(p1)))
    }

    /// A line `width` thick centred on `at`: its first pixel and one past its last.
    fn band(&self, at: f64, width: f64) -> (i32, i32) {
        let start = self.px(at - width / 2.0);
        (start, start + self.width(width) as i32)
    }

    /// The rectangle between two corners in pixels, filled with `colour`.
    fn solid(&self, corners: [(i32, i32); 2], colour: RGBColor) -> Result<()> {
        self.area
            .draw(&Rectangle::new(corners, colour.filled()))
            .map_err(drawing_error)
    }

    /// An error bar from `top` to `bottom` at `x`, with a cap `2 * half_cap` wide at each
    /// end whose flag in `caps` (top, bottom) is set.
    pub(crate) fn error_bar(
        &self,
        (x, top, bottom): (f64, f64, f64),
        half_cap: f64,
        caps: (bool, bool),
        colour: RGBColor,
    ) -> anyhow::Result<()> {
        self.vline(x, top, bottom, colour, ERROR_BAR_WIDTH)?;
        for (y, cap) in [(top, caps.0), (bottom, caps.1)] {
            if cap {
                self.hline(x - half_cap, x + half_cap, y, colour, ERROR_BAR_WIDTH)?;
            }
        }
        Ok(())
    }

    pub(crate) fn fill_rect(
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

    pub(crate) fn stroke_rect(
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

    pub(crate) fn marker(
        &self,
        shape: Marker,
        (x, y): (f64, f64),
        colour: RGBColor,
    ) -> anyhow::Result<()> {
        // A white rim keeps overlapping markers and crossing lines apart.
        self.marker_shape(shape, (x, y), MARKER_RADIUS + 1.2, WHITE)?;
        self.marker_shape(shape, (x, y), MARKER_RADIUS, colour)
    }

    pub(crate) fn marker_shape(
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
    pub(crate) fn text(
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

    /// Draws a legend entry's `name`, left-aligned with its baseline at `at`.
    pub(crate) fn legend_label(&self, name: &str, at: (f64, f64)) -> anyhow::Result<()> {
        self.text(name, at, LEGEND_SIZE, Align::Left, false, &INK, false)
    }
}

/// Width in logical pixels of `text` at `size`.
pub(crate) fn text_width(text: &str, size: f64, bold: bool) -> anyhow::Result<f64> {
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
pub(crate) const CAP_HEIGHT: f64 = 0.62;
pub(crate) const DESCENT: f64 = 0.2;

/// A plotters error as this crate's error.
pub(crate) fn drawing_error(e: impl std::fmt::Display) -> anyhow::Error {
    anyhow!("plotting failed: {e}")
}
