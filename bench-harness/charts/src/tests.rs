//! Rendering tests: files, determinism, degenerate input, axes, colours, error bars.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use crate::axis::*;
use crate::bar::BarFigure;
use crate::line::LineFigure;
use crate::output::*;
use crate::style::{fnv1a, palette_slots, PALETTE};
use crate::*;

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
    let dir = std::env::temp_dir().join(format!("filterlab-plot-{}-{name}", std::process::id()));
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
    let be = |i: usize| u32::from_be_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
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
        ..Default::default()
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
    let names = ["north", "south", "east", "west", "up", "down"];
    let slots = palette_slots(names);
    let distinct: BTreeSet<usize> = slots.iter().map(|&(_, s)| s).collect();
    assert_eq!(distinct.len(), names.len());
    let reversed = palette_slots(names.iter().rev().copied());
    assert_eq!(slots, reversed, "series order does not matter");
    let alone = palette_slots(["classic"])[0].1;
    assert_eq!(alone as u64, fnv1a("classic") % PALETTE.len() as u64);
}

fn timing_chart(spread_high: f64) -> LineChart {
    let xs: [f64; 4] = [1e4, 1e5, 1e6, 1e7];
    let median: Vec<(f64, f64)> = xs.iter().map(|&x| (x, 40.0 + x.log10())).collect();
    let spread = median
        .iter()
        .map(|&(_, y)| (y - 3.0, y + spread_high))
        .collect();
    LineChart {
        title: "insert time".into(),
        x_log: true,
        series: vec![Series::new("classic", median, SeriesStyle::LinePoints).with_spread(spread)],
        ..Default::default()
    }
}

#[test]
fn error_bars_are_drawn_and_widen_the_axis() {
    register_fonts().unwrap();
    let plain = {
        let mut c = timing_chart(3.0);
        c.series[0].spread.clear();
        c
    };
    let without = draw_both(&LineFigure::new(&plain).unwrap()).unwrap().0;
    let chart = timing_chart(3.0);
    let with = LineFigure::new(&chart).unwrap();
    assert_eq!(with.series[0].bars.len(), 4);
    let (svg, _) = draw_both(&with).unwrap();
    assert!(
        svg.len() > without.len(),
        "error bars add elements to the SVG"
    );
    // A high end far above every median must still fit on the axis.
    let chart = timing_chart(500.0);
    let tall = LineFigure::new(&chart).unwrap();
    assert!(tall.decor.y.hi >= 547.0, "axis top {}", tall.decor.y.hi);
}

#[test]
fn error_bars_on_a_log_axis_with_a_zero_low_run_to_the_bottom() {
    register_fonts().unwrap();
    let mut chart = fpr_chart();
    let n = chart.series[0].points.len();
    let spread = chart.series[0]
        .points
        .iter()
        .map(|&(_, y)| (0.0, y * 2.0))
        .collect();
    chart.series[0] = chart.series[0].clone().with_spread(spread);
    let figure = LineFigure::new(&chart).unwrap();
    assert_eq!(figure.series[0].bars.len(), n);
    assert!(figure.series[0].bars.iter().all(|b| b.low.is_none()));
    let (_, bottom) = figure.bar_ends(&figure.series[0].bars[0]);
    assert_eq!(bottom.1, figure.frame.bottom);
    draw_both(&figure).unwrap();
}

#[test]
fn spread_of_the_wrong_length_is_an_error() {
    let dir = temp_dir("spread");
    let mut line = timing_chart(1.0);
    line.series[0].spread.pop();
    let err = render_line(&line, &dir.join("l")).unwrap_err().to_string();
    assert!(err.contains("one (low, high) per point"), "{err}");

    let mut bar = mix_chart();
    bar.spread = vec![vec![(1.0, 2.0); 5]];
    let err = render_bar(&bar, &dir.join("b")).unwrap_err().to_string();
    assert!(err.contains("one per group"), "{err}");
    bar.spread = vec![vec![(1.0, 2.0); 4]; 4];
    let err = render_bar(&bar, &dir.join("b")).unwrap_err().to_string();
    assert!(err.contains("one (low, high) per category"), "{err}");
    assert!(!dir.join("b.svg").exists() && !dir.join("l.svg").exists());
}

#[test]
fn bar_whiskers_are_drawn_and_widen_the_axis() {
    register_fonts().unwrap();
    let plain = mix_chart();
    let mut whiskered = mix_chart();
    whiskered.spread = plain
        .groups
        .iter()
        .map(|(_, v)| v.iter().map(|&m| (m * 0.9, m * 2.0)).collect())
        .collect();
    whiskered.spread[1].clear(); // one group without whiskers
    let before = BarFigure::new(&plain).unwrap();
    let after = BarFigure::new(&whiskered).unwrap();
    assert!(after.decor.y.hi >= 180.0, "axis top {}", after.decor.y.hi);
    assert!(after.decor.y.hi > before.decor.y.hi);
    assert!(after.groups[1].whiskers.is_empty());
    assert_eq!(after.groups[0].whiskers.iter().flatten().count(), 5);
    let (with, _) = draw_both(&after).unwrap();
    let (without, _) = draw_both(&before).unwrap();
    assert!(with.len() > without.len());
}

#[test]
fn a_formula_and_its_measurement_share_one_legend_entry() {
    let dir = temp_dir("legend-merge");
    let points = vec![(4.0, 0.1), (8.0, 0.02)];
    let chart = LineChart {
        series: vec![
            Series::new("cuckoo", points.clone(), SeriesStyle::Dashed),
            Series::new("cuckoo", points.clone(), SeriesStyle::Points),
            Series::new("classic", points, SeriesStyle::Points),
        ],
        ..fpr_chart()
    };
    let paths = render_line(&chart, &dir.join("merged")).unwrap();
    let svg = fs::read_to_string(&paths[0]).unwrap();
    let count = |name: &str| {
        svg.split("<text")
            .skip(1)
            .filter_map(|e| e.split_once('>').and_then(|(_, r)| r.split_once("</text>")))
            .filter(|(content, _)| content.trim() == name)
            .count()
    };
    assert_eq!((count("cuckoo"), count("classic")), (1, 1), "{svg}");
}
