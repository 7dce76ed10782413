//! Sizes, colours and marker shapes shared by every chart.

use std::collections::BTreeSet;

use plotters::prelude::*;

/// Width in pixels of the PNG, and in user units of the SVG.
pub const WIDTH: u32 = 1000;
/// Height in pixels of the PNG, and in user units of the SVG.
pub const HEIGHT: u32 = 640;

/// The PNG is drawn this many times larger, then averaged down (see [`halve`](crate::output::halve)).
pub(crate) const SUPERSAMPLE: u32 = 2;
const _: () = assert!(SUPERSAMPLE == 2, "halve() averages 2 x 2 blocks");
/// Registered under this name so that the SVG's `font-family` attribute is a valid CSS
/// list with a generic fallback.
pub(crate) const FONT_FAMILY: &str = "DejaVu Sans, sans-serif";

// Sizes in logical pixels (a PNG pixel, an SVG user unit). Font sizes are plotters' sizes,
// which are about 1.2 em.
pub(crate) const MARGIN: f64 = 14.0;
pub(crate) const TITLE_SIZE: f64 = 23.0;
pub(crate) const LABEL_SIZE: f64 = 19.0;
pub(crate) const TICK_SIZE: f64 = 16.5;
pub(crate) const LEGEND_SIZE: f64 = 16.5;
pub(crate) const TICK_LEN: f64 = 5.0;
pub(crate) const MINOR_TICK_LEN: f64 = 3.0;
pub(crate) const LINE_WIDTH: f64 = 2.0;
pub(crate) const MARKER_RADIUS: f64 = 4.5;
pub(crate) const DASH: f64 = 9.0;
pub(crate) const DASH_GAP: f64 = 5.0;

pub(crate) const INK: RGBColor = RGBColor(34, 34, 34);
pub(crate) const SOFT_INK: RGBColor = RGBColor(110, 110, 110);
pub(crate) const GRID: RGBColor = RGBColor(221, 221, 221);
pub(crate) const MINOR_GRID: RGBColor = RGBColor(240, 240, 240);
pub(crate) const LEGEND_EDGE: RGBColor = RGBColor(190, 190, 190);

/// matplotlib's "tab10": distinct on white, and still told apart by most colour-blind readers
/// thanks to the marker shapes paired with them.
pub(crate) const PALETTE: [RGBColor; 10] = [
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
// ---------------------------------------------------------------------------------------
// Colours and markers

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Square,
    TriangleUp,
    Diamond,
    TriangleDown,
}

pub(crate) const MARKERS: [Marker; 5] = [
    Marker::Circle,
    Marker::Square,
    Marker::TriangleUp,
    Marker::Diamond,
    Marker::TriangleDown,
];

pub(crate) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Palette slot of each distinct name (see the module docs), as a sorted list.
pub(crate) fn palette_slots<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<(&'a str, usize)> {
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

pub(crate) fn slot_of(slots: &[(&str, usize)], name: &str) -> usize {
    slots
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .map(|i| slots[i].1)
        .unwrap_or(0)
}
pub(crate) const LEGEND_ROW: f64 = LEGEND_SIZE * 1.4;
pub(crate) const LEGEND_SAMPLE: f64 = 34.0;
pub(crate) const LEGEND_PAD: f64 = 9.0;
/// Stroke of error bars and whiskers, and the width of their caps.
pub(crate) const ERROR_BAR_WIDTH: f64 = 1.5;
pub(crate) const ERROR_BAR_CAP: f64 = 9.0;
