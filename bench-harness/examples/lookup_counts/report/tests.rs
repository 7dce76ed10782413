use super::*;

/// The head and totals of a real `callgrind --cache-sim=yes --branch-sim=yes` file.
const GOOD: &str = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 1\n\
cmd:  target/release/examples/lookup_counts run --contender blocked --mix negative --members 10000000 --ops 200000 --wait-for x.go\n\
part: 1\n\ndesc: I1 cache: 65536 B, 64 B, 2-way associative\n\n\
positions: line\nevents: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim\n\
summary: 25600000 6400000 200000 0 210000 0 0 190000 0 3000000 20000 200000 2\n\n\
totals: 25600000 6400000 200000 0 210000 0 0 190000 0 3000000 20000 200000 2\n";

#[test]
fn totals_are_divided_by_the_operations() {
    let c = Counts::parse(GOOD).expect("a good file");
    assert_eq!(
        (
            c.contender.as_str(),
            c.mix.as_str(),
            c.members.as_str(),
            c.ops
        ),
        ("blocked", "negative", "10000000", 200_000)
    );
    assert_eq!(c.per_op("Ir"), Some(128.0));
    assert_eq!(c.per_op("DLmr"), Some(0.95));
    assert_eq!(c.per_op("Bim"), Some(1e-5));
    assert_eq!(c.per_op("Nope"), None);
}

#[test]
fn missing_trailing_totals_are_zero_and_absent_events_show_a_dash() {
    let text = GOOD
        .replace(
            "Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim",
            "Ir Dr D1mr DLmr",
        )
        .replace(
            "totals: 25600000 6400000 200000 0 210000 0 0 190000 0 3000000 20000 200000 2",
            "totals: 400000 200000",
        );
    let c = Counts::parse(&text).expect("trailing zeros may be left out");
    assert_eq!(c.per_op("DLmr"), Some(0.0));
    let t = table(&[c]);
    assert!(t.contains("| blocked | negative | 10000000 | 200000 | 2.00 | 1.00 | – | 0.00 | 0.00 | – | – | – |"), "{t}");
}

#[test]
fn summary_stands_in_for_missing_totals() {
    let text: String = GOOD
        .lines()
        .filter(|l| !l.starts_with("totals:"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        Counts::parse(&text).expect("summary").per_op("Ir"),
        Some(128.0)
    );
}

#[test]
fn bad_files_are_rejected_with_the_reason() {
    let cases: [(String, ParseError); 6] = [
        ("hello\n".to_string(), ParseError::NoEvents),
        (
            GOOD.lines()
                .filter(|l| !l.starts_with("totals:") && !l.starts_with("summary:"))
                .collect::<Vec<_>>()
                .join("\n"),
            ParseError::NoTotals,
        ),
        (
            GOOD.replace("totals: 25600000", "totals: 1 25600000"),
            ParseError::TooManyValues {
                events: 13,
                values: 14,
            },
        ),
        (
            GOOD.replace("totals: 25600000", "totals: 2.5e7"),
            ParseError::BadNumber("2.5e7".into()),
        ),
        (
            GOOD.replace("--ops 200000", "--ops 0"),
            ParseError::BadOps("0".into()),
        ),
        (
            GOOD.replace(" D1mr ", " D1mw2 "),
            ParseError::MissingEvent("D1mr"),
        ),
    ];
    for (text, want) in cases {
        assert_eq!(Counts::parse(&text), Err(want));
    }
    let no_mix = GOOD.replace("--mix negative ", "");
    assert_eq!(
        Counts::parse(&no_mix),
        Err(ParseError::MissingFlag("--mix"))
    );
}

#[test]
fn the_table_has_one_row_per_run_in_order() {
    let a = Counts::parse(GOOD).expect("good");
    let b =
        Counts::parse(&GOOD.replace("--contender blocked", "--contender fastbloom")).expect("good");
    let t = table(&[a, b]);
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines.len(), 4);
    assert!(lines[2].starts_with("| blocked | negative |"));
    assert!(lines[3].starts_with("| fastbloom | negative |"));
    assert!(
        lines[2].ends_with("| 128.00 | 32.00 | 1.00 | 1.05 | 0.95 | 15.00 | 0.10 | 0.00 |"),
        "{}",
        lines[2]
    );
}
