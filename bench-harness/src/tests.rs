//! Unit tests of `main.rs`.

use super::*;

fn cli(args: &[&str]) -> Cli {
    Cli::try_parse_from(std::iter::once("bench-harness").chain(args.iter().copied())).unwrap()
}

#[test]
fn only_the_full_synthetic_run_and_full_studies_write_the_committed_reports() {
    assert_eq!(out_dir(&cli(&[])), Path::new("reports"));
    assert!(plan(&cli(&[])).is_committed_run());
    assert_eq!(
        out_dir(&cli(&["--quick"])),
        Path::new("target/quick-reports")
    );
    assert_eq!(
        out_dir(&cli(&["--keys", "k.txt"])),
        Path::new("target/custom-reports")
    );
    assert_eq!(
        out_dir(&cli(&["--keys", "k.txt", "--quick"])),
        Path::new("target/custom-reports")
    );
    assert_eq!(out_dir(&cli(&["--quick", "--out", "x"])), Path::new("x"));
    for args in [&["--quick"][..], &["--keys", "k"]] {
        assert!(!plan(&cli(args)).is_committed_run(), "{args:?}");
    }
    assert_eq!(default_out(false, false), Path::new("reports"));
    assert_eq!(default_out(true, false), Path::new("target/quick-reports"));
    assert_eq!(default_out(false, true), Path::new("target/large-reports"));
}

#[test]
fn a_study_is_named_or_refused_with_the_names() {
    let c = cli(&[]);
    let err = study(&c, "nope", (true, false), None, "x").unwrap_err();
    let names = Study::ALL.map(Study::name).join(", ");
    assert!(err.to_string().contains(&names), "{err}");
    let err = study(&c, "growth", (true, true), None, "x").unwrap_err();
    assert!(
        err.to_string()
            .contains("--large extends the size sweep only"),
        "{err}"
    );
}

#[test]
fn a_dataset_that_differs_from_the_manifest_stops_the_run() {
    let spec = DatasetSpec {
        members: 500,
        non_members: 500,
        seed: DATA_SEED,
    };
    let ds = dataset::generate(&spec);
    let dir = std::env::temp_dir().join(format!("filterlab-manifest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("manifest.json");
    let mut m = dataset::manifest(&spec, &ds);
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    check_manifest(&spec, &ds, &path).unwrap();
    m.members.sha256 = "0".repeat(64);
    std::fs::write(&path, serde_json::to_string(&m).unwrap()).unwrap();
    let err = format!("{:#}", check_manifest(&spec, &ds, &path).unwrap_err());
    assert!(err.contains("differs from"), "{err}");
    // Another spec is not covered by the manifest: no comparison, no error.
    let other = DatasetSpec {
        members: 100,
        ..spec
    };
    check_manifest(&other, &ds, &path).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failure_prints_its_error_chain_and_no_backtrace() {
    let inner = anyhow::anyhow!("expected value at line 1 column 1");
    let e = inner
        .context("parsing target/quick-reports/results.json")
        .context("check failed");
    assert_eq!(
        error_chain(&e),
        "error: check failed\n  caused by: parsing target/quick-reports/results.json\n  caused by: expected value at line 1 column 1"
    );
    // Whatever RUST_BACKTRACE says, the chain is all: Debug would add the backtrace.
    assert!(!error_chain(&e).contains("acktrace"));
    assert_eq!(
        error_chain(&anyhow::anyhow!("3 problems")),
        "error: 3 problems"
    );
}
