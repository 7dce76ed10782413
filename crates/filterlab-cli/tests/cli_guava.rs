//! `filterlab info` and `filterlab query` on a Guava `BloomFilter` file (issue 40): recognised
//! by its bytes, described with the count its set bits imply, queried as Guava answers.

mod common;

use common::{assert_clean_error, assert_queries_answer_as, filterlab, json};
use filterlab::interop::guava::{GuavaBloom, Strategy};
use filterlab::Filter;

fn guava_file(
    dir: &std::path::Path,
    strategy: Strategy,
    n: u64,
) -> (std::path::PathBuf, GuavaBloom) {
    let mut f = GuavaBloom::new(10_000, 0.01, strategy).unwrap();
    for i in 0..n {
        f.insert(format!("user-{i}@example.com").as_bytes())
            .unwrap();
    }
    let path = dir.join(format!("{strategy:?}.guava"));
    f.save(&path).unwrap();
    (path, f)
}

#[test]
fn info_reads_a_guava_file_and_estimates_its_count() {
    let dir = tempfile::tempdir().unwrap();
    for strategy in [Strategy::Murmur128Mitz32, Strategy::Murmur128Mitz64] {
        let (path, f) = guava_file(dir.path(), strategy, 6_000);
        let p = path.to_str().unwrap();
        let v = json(&["info", p]);
        assert_eq!(v["format"], "guava");
        assert_eq!(v["strategy"], strategy.name());
        assert_eq!(v["bits"], f.bits());
        assert_eq!(v["hashes"], f.hashes());
        assert_eq!(v["bits_set"], f.ones());
        let items = v["estimated_items"].as_f64().unwrap();
        let sd = v["estimated_items_sd"].as_f64().unwrap();
        assert!((items - 6_000.0).abs() <= 4.0 * sd + 1.0, "{items} ± {sd}");
        assert_eq!(v["expected_fpr"].as_f64().unwrap(), f.estimated_fpr());
        let text = filterlab(&["info", p]);
        let shown = String::from_utf8_lossy(&text.stdout);
        assert!(
            shown.contains(strategy.name()) && shown.contains("estimated"),
            "{shown}"
        );
    }
}

#[test]
fn query_answers_as_the_guava_filter() {
    let dir = tempfile::tempdir().unwrap();
    let (path, f) = guava_file(dir.path(), Strategy::Murmur128Mitz64, 1_000);
    let p = path.to_str().unwrap();
    let member = "user-7@example.com";
    // Other keys: each answered as the filter answers it, exit 1 when one is absent.
    let others: Vec<String> = (0..200).map(|i| format!("other-{i}")).collect();
    let answers = assert_queries_answer_as(p, member, &others, |k| f.contains(k));
    assert!(answers.iter().any(|a| a["maybe_present"] == false));
    assert_clean_error(&["query", p, "--at", "5", member], None, "--at");
}

/// A file that has a Guava header but not the length it declares is refused as a damaged Guava
/// file, cut or extended, not read as a filterlab file; a file whose first bytes are no Guava
/// header still gets the filterlab loader's message.
#[test]
fn a_cut_or_extended_guava_file_is_refused_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = guava_file(dir.path(), Strategy::Murmur128Mitz64, 10);
    let bytes = std::fs::read(&path).unwrap();
    let p = path.to_str().unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    for verb in [&["info", p][..], &["query", p, "k"]] {
        assert_clean_error(verb, None, "cut short");
    }
    std::fs::write(&path, [&bytes[..], b"xyz"].concat()).unwrap();
    assert_clean_error(&["info", p], None, "bytes after the filter");
    let mut other = bytes.clone();
    other[0] = 9;
    std::fs::write(&path, &other).unwrap();
    assert_clean_error(&["info", p], None, "filterlab");
}
