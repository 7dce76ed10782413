//! The layout both chart kinds share: plot frame, title, grid, axes.

use plotters::prelude::*;

use crate::axis::{Axis, Frame};
use crate::canvas::{text_width, Align, Canvas, CAP_HEIGHT, DESCENT};
use crate::style::*;
use crate::{HEIGHT, WIDTH};

/// Texts and y axis common to both chart kinds.
#[derive(Debug, Clone)]
pub(crate) struct Decor {
    pub(crate) title: String,
    pub(crate) x_label: String,
    pub(crate) y_label: String,
    pub(crate) y: Axis,
}

impl Decor {
    /// Top of the space below the title.
    pub(crate) fn below_title(&self) -> f64 {
        if self.title.is_empty() {
            MARGIN
        } else {
            MARGIN + TITLE_SIZE * 1.25 + 6.0
        }
    }

    /// Left edge of the plot: room for the y label and the widest y tick label.
    pub(crate) fn plot_left(&self) -> anyhow::Result<f64> {
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
    pub(crate) fn plot_bottom(&self) -> f64 {
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

    pub(crate) fn draw_title<DB: DrawingBackend>(
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
    pub(crate) fn draw_grid<DB: DrawingBackend>(
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
    pub(crate) fn draw_axes<DB: DrawingBackend>(
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

    pub(crate) fn draw_no_data<DB: DrawingBackend>(
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
pub(crate) fn x_tick_baseline(frame: &Frame) -> f64 {
    frame.bottom + TICK_LEN + 5.0 + TICK_SIZE * CAP_HEIGHT
}
