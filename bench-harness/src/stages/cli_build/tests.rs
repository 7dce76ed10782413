use super::*;
use crate::record::Verdict;

fn samples(cli: f64, library: f64) -> Samples {
    Samples {
        cli: (0..ROUNDS).map(|i| cli + 0.01 * i as f64).collect(),
        library: (0..ROUNDS).map(|i| library + 0.01 * i as f64).collect(),
    }
}

/// 1.2x the library's read and build meets the goal; 1.6x, the fixture it must reject, does
/// not; the row says what each side timed.
#[test]
fn the_row_judges_the_cli_against_the_library_both_ways() {
    let ok = row(Variant::Classic, 1000, &samples(1.2, 1.0));
    assert_eq!(
        (ok.role, ok.verdict),
        (Role::Target, Verdict::Met),
        "{ok:?}"
    );
    assert!(ok.what.contains("classic, 1000 e-mails"), "{}", ok.what);
    assert!(
        ok.differences.contains("a whole process"),
        "{}",
        ok.differences
    );
    let slow = row(Variant::Cuckoo, 1000, &samples(1.6, 1.0));
    assert_eq!(slow.verdict, Verdict::NotMet, "{slow:?}");
}

/// The library side reads the file and builds a filter holding every key, and refuses a file
/// whose line count is not the run's.
#[test]
fn the_library_side_reads_and_builds_every_key() {
    let dir = std::env::temp_dir().join(format!("cli-build-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("keys.txt");
    let keys: String = (0..500).map(|i| format!("user{i}@example.com\n")).collect();
    std::fs::write(&path, keys).unwrap();
    let (read, build) = library_seconds(&path, Variant::Classic, 500).unwrap();
    assert!(read > 0.0 && build > 0.0);
    assert!(library_seconds(&path, Variant::Classic, 501).is_err());
    std::fs::remove_dir_all(&dir).unwrap();
}
