//! Writing a laid-out figure as SVG and as a supersampled PNG.

use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context as _};
use plotters::prelude::*;

use crate::canvas::{drawing_error, Canvas, RASTER_TEXT_DROP, SVG_TEXT_DROP};
use crate::style::SUPERSAMPLE;
use crate::{HEIGHT, WIDTH};

/// Something laid out in logical pixels that can draw itself on any backend.
pub(crate) trait Figure {
    fn draw<DB: DrawingBackend>(&self, canvas: &Canvas<'_, DB>) -> anyhow::Result<()>;
}

pub(crate) fn with_suffix(stem: &Path, extension: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

pub(crate) fn write_figure<F: Figure>(figure: &F, stem: &Path) -> anyhow::Result<Vec<PathBuf>> {
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

pub(crate) fn draw_svg<F: Figure>(figure: &F) -> anyhow::Result<String> {
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
pub(crate) fn draw_rgb<F: Figure>(figure: &F) -> anyhow::Result<Vec<u8>> {
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
pub(crate) fn halve(src: &[u8], width: usize) -> Vec<u8> {
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
