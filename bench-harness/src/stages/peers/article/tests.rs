//! The articles' Python rows on fixtures (no Python run): one round's output parsed strictly,
//! the sample never larger than the run.

use super::*;

fn output(n: u64, build: &str) -> String {
    format!(
        r#"{{"n": {n}, "m": 9585058, "k": 6, "bytes": 1198133, "rounds": 1,
            "build_seconds_rounds": [{build}], "ns_per_negative_lookup_rounds": [950.0],
            "ns_per_positive_lookup_rounds": [1700.0], "false_positives": 2001, "probes": 200000,
            "false_negatives": 0, "python": "3.11.7"}}"#
    )
}

#[test]
fn one_round_of_the_script_parses_and_a_broken_one_does_not() {
    let r = parse_round(output(1_000_000, "1.7").as_bytes(), 1_000_000).unwrap();
    assert_eq!(
        (r.n, r.false_positives, r.probes),
        (1_000_000, 2001, 200_000)
    );
    for (what, text, n) in [
        ("another size", output(10_000_000, "1.7"), 1_000_000),
        ("no build round", output(1_000_000, ""), 1_000_000),
        ("two build rounds", output(1_000_000, "1.7, 1.8"), 1_000_000),
        ("a NaN", output(1_000_000, "NaN"), 1_000_000),
        ("a negative time", output(1_000_000, "-1.0"), 1_000_000),
        (
            "not JSON",
            "Traceback (most recent call last):".into(),
            1_000_000,
        ),
    ] {
        assert!(
            parse_round(text.as_bytes(), n).is_err(),
            "{what} was accepted"
        );
    }
}

#[test]
fn the_sample_is_smaller_than_the_quick_run_and_never_larger_than_a_run() {
    // A quick run has 200k keys: its sample must be smaller, so that CI runs the sampled path.
    const { assert!(ARTICLE_SAMPLE_QUICK.keys < 200_000) };
    const { assert!(ARTICLE_SAMPLE.keys < 10_000_000) };
    let small = ARTICLE_SAMPLE.within(5_000, 1_000);
    assert_eq!((small.keys, small.probes), (5_000, 1_000));
    assert_eq!(
        ARTICLE_SAMPLE.within(10_000_000, 10_000_000),
        ARTICLE_SAMPLE
    );
}
