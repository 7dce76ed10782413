//! Unit tests of `stages/course/markdown.rs`.

use super::*;
use crate::judge::course::tests::run_with;
use crate::stages::course::hash64::Hash64Study;
use crate::stages::course::model::{Pair, Settings};
use crate::stages::course::stats::Count;

fn reps(hits: u64, trials: u64) -> Vec<Count> {
    (0..4).map(|seed| Count { seed, hits, trials }).collect()
}

pub(crate) fn fixture() -> CourseDoc {
    let s = Section {
        figures: Vec::new(),
        title: "Classic".into(),
        source: "Bloom 1970".into(),
        example: "m = 95850584".into(),
        rows: vec![
            Row::new("k = 7", 0.01, reps(250, 25_000)),
            Row::new("k = 1", 0.5, reps(250, 25_000)),
            Row::measured("no formula", reps(0, 10)),
        ],
        finding: "Measured at n = 1000.".into(),
        plots: vec!["fp_vs_bits".into()],
    };
    let e = Erratum {
        title: "k truncated".into(),
        mistake: "int(k)".into(),
        run: vec!["n = 1000".into()],
        rows: vec![
            Row::new("k = 7", 0.01, reps(100, 10_000)),
            Row::new("k = 6", 0.0101, reps(101, 10_000)),
        ],
        pairs: vec![Pair::new(1, 0)],
        finding: String::new(),
    };
    let mut doc = CourseDoc {
        settings: Settings {
            n: 1000,
            probes: 100_000,
            reps: 4,
            small_filters: 10,
            hash_bits: 14,
            alpha: ALPHA,
            commit: "abc1234".into(),
            date: "2026-12-03 00:00:00 UTC".into(),
            seconds: 1.0,
        },
        sections: vec![s],
        errata: vec![e],
        hash64: Some(study()),
    };
    judge_course(&mut doc);
    doc
}

/// A study of two sizes: 10^9 keys with equal rates on 10^7 probes per kind, and one with
/// too few probes to tell.
pub(crate) fn study() -> Hash64Study {
    let mut small = run_with(100_000, 1000, 1010);
    small.n = 10_000_000;
    small.blocks = crate::stages::course::hash64::blocks_for(small.n).unwrap();
    small.slice_blocks = small.blocks / 64;
    small.wide.members = small.n / 64;
    small.narrow.members = small.n / 64;
    Hash64Study {
        fpr: 0.01,
        seed: 0x2a,
        key_bytes: 26,
        slice: 64,
        margin: 0.0,
        runs: vec![small, run_with(10_000_000, 100_500, 100_400)],
    }
}

#[test]
fn sections_show_formula_measurement_interval_z_and_verdict() {
    let md = course(&fixture());
    assert!(md.contains("## 1. Classic"), "{md}");
    assert!(
        md.contains("| k = 7 | 1% | 1% |")
            && md.contains("| 1000 / 100000 | 4 | 0.00 | 1.0000 | holds |"),
        "{md}"
    );
    // 50% against a measured 1%: the formula overestimates, and the tally names it.
    assert!(md.contains("| k = 1 | 50% | 1% |"), "{md}");
    assert!(
        md.contains("1 of 2 rejected: k = 1 (overestimates)"),
        "{md}"
    );
    assert!(md.contains("| no formula | – | 0 |"), "{md}");
    assert!(md.contains("![Classic](fp_vs_bits.svg)"), "{md}");
    assert!(md.contains("at commit abc1234"), "{md}");
    assert!(
        md.contains("### k truncated")
            && md.contains("- n = 1000")
            && md.contains("k = 6 against k = 7: 1.010x")
            && md.contains("no significant difference"),
        "{md}"
    );
}

#[test]
fn rates_are_readable_at_every_scale() {
    assert_eq!(pct(0.01), "1%");
    assert_eq!(pct(0.5), "50%");
    assert_eq!(pct(0.001), "0.1%");
    assert_eq!(pct(0.000_977), "0.0977%");
    assert_eq!(pct(0.009_961), "0.9961%");
    assert_eq!(pct(0.010_1), "1.01%");
    // Rounded to 4 decimals first: 0.999996% is 1%, not 0.99999%.
    assert_eq!(pct(0.009_999_96), "1%");
    assert_eq!(pct(1e-5), "0.001%");
    assert_eq!(pct(1.0), "100%");
    assert_eq!(pct(f64::NAN), "–");
    assert_eq!(pct(f64::INFINITY), "inf");
    assert_eq!(pct(2e-7), "0.00002%");
    assert_eq!(pct(0.0), "0");
    // Below 0.1%: 3 significant digits, whatever the scale; a zero at the end is kept where
    // the figure was rounded to it, left out where the value is exactly the shorter number.
    assert_eq!(pct(0.000_463_14), "0.0463%");
    assert_eq!(pct(0.000_996_2), "0.0996%");
    assert_eq!(pct(0.000_015), "0.0015%");
    assert_eq!(pct(0.000_015_000_4), "0.00150%");
    assert_eq!(pct(0.000_012_121), "0.00121%");
    assert_eq!(pct(3.604e-6), "0.000360%");
    assert_eq!(pct(4.5451e-6), "0.000455%");
    assert_eq!(pct(0.0001), "0.01%");
    assert_eq!(pct(3.6e-12), "3.60e-10%");
    for p in [0.000_463_14, 0.000_012_121, 3.604e-6, 7.5e-6, 0.000_099_87] {
        let shown = pct(p);
        let digits: String = shown
            .trim_end_matches('%')
            .trim_start_matches(['0', '.'])
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        assert!(digits.len() >= 3 || p == 7.5e-6, "{p}: {shown}");
    }
    assert_eq!(num(f64::INFINITY, 2), "+∞");
}

#[test]
fn the_64_bit_hash_section_shows_counts_intervals_verdicts_floors_and_the_default() {
    let md = course(&fixture());
    // After the one section of the fixture, before the errata.
    let at = md
        .find("## 2. A 64-bit hash at 10^7 and 10^9 keys:")
        .expect(&md);
    assert!(at < md.find("## Errata").unwrap(), "{md}");
    let section = &md[at..md.find("## Errata").unwrap()];
    for text in [
        "| 10^9 | ",
        "| xxh3-64 | 15625000 | 100400 / 10000000 | 1.004% |",
        "| xxh3-128 | 15625000 | 100500 / 10000000 | 1.005% |",
        "| -0.0010 pp |",
        "| ± 0.0200 pp | met |",
        "| 10^7 | +0.0100 pp |",
        "| undecided |",
        "equal within",
        "| within ±2% of it |",
        "5.66e-9",
        "5.42e-11",
        "at 1 of 2 sizes (10^9); undecided at 10^7",
        "first 1/64 of the blocks",
        "26-byte e-mail-like keys with seed 0x2a",
        "the default: **xxh3-128**",
        "n = 10^9 keys at 1%",
        "![A 64-bit hash](hash64.svg)",
    ] {
        assert!(section.contains(text), "{text:?} missing from\n{section}");
    }
}

#[test]
fn the_64_bit_hash_plot_has_both_kinds_the_formula_and_both_floors() {
    let chart = hash64::chart(&fixture().hash64.unwrap());
    let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names.len(), 5, "{names:?}");
    assert!(
        names.contains(&"xxh3-64") && names.contains(&"xxh3-128"),
        "{names:?}"
    );
    assert!(chart.series.iter().all(|s| s.points.len() == 2));
    assert!(chart.series[3].spread.len() == 2 && chart.x_log && chart.y_log);
}
