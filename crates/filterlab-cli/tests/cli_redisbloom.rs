//! `filterlab info` and `filterlab query` on a RedisBloom file (issue 40): the one-file form of
//! `BF.SCANDUMP`'s chunks, recognised by its magic, described link by link with the rate at the
//! count it records, queried as `BF.EXISTS` answers.

mod common;

use common::{assert_clean_error, assert_queries_answer_as, filterlab, json};
use filterlab::interop::redisbloom::{RedisBloom, Scaling};
use filterlab::Filter;

fn redisbloom_file(dir: &std::path::Path, n: u64) -> (std::path::PathBuf, RedisBloom) {
    let mut f = RedisBloom::reserve(0.01, 1_000, Scaling::Expand(2)).unwrap();
    for i in 0..n {
        f.insert(format!("user-{i}@example.com").as_bytes())
            .unwrap();
    }
    let path = dir.join("chain.rbloom");
    f.save(&path).unwrap();
    (path, f)
}

#[test]
fn info_reads_a_redisbloom_file_link_by_link() {
    let dir = tempfile::tempdir().unwrap();
    let (path, f) = redisbloom_file(dir.path(), 5_000);
    let p = path.to_str().unwrap();
    let v = json(&["info", p]);
    assert_eq!(v["format"], "redisbloom");
    assert_eq!(v["items"], f.len());
    assert_eq!(v["capacity"], f.capacity());
    assert_eq!(v["expansion"], 2);
    assert_eq!(v["expected_fpr"].as_f64().unwrap(), f.expected_fpr());
    assert_eq!(v["file_bytes"], std::fs::metadata(&path).unwrap().len());
    let links = v["links"].as_array().unwrap();
    assert_eq!(links.len(), f.links().len());
    assert!(links.len() >= 3, "the chain grew");
    for (l, ours) in links.iter().zip(f.links()) {
        assert_eq!(l["bits"], ours.bits());
        assert_eq!(l["hashes"], ours.hashes());
        assert_eq!(l["items"], ours.size());
        assert_eq!(l["capacity"], ours.entries());
    }
    let text = filterlab(&["info", p]);
    let shown = String::from_utf8_lossy(&text.stdout);
    println!("{shown}");
    assert!(
        shown.contains("RedisBloom") && shown.contains("link 2"),
        "{shown}"
    );
}

#[test]
fn query_answers_as_bf_exists() {
    let dir = tempfile::tempdir().unwrap();
    let (path, f) = redisbloom_file(dir.path(), 3_000);
    let p = path.to_str().unwrap();
    let member = "user-2999@example.com";
    // Other keys: each answered as the filter answers it, exit 1 when one is absent.
    let others: Vec<String> = (0..300).map(|i| format!("other-{i}")).collect();
    assert_queries_answer_as(p, member, &others, |k| f.contains(k));
    assert_clean_error(&["query", p, "--at", "5", member], None, "RedisBloom");
}

/// A file with RedisBloom's magic but not the size its header declares, or a lying header, is
/// refused with the reason; it is not read as something else.
#[test]
fn a_damaged_redisbloom_file_is_refused_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = redisbloom_file(dir.path(), 10);
    let p = path.to_str().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    assert_clean_error(&["info", p], None, "RedisBloom");
    let mut longer = bytes.clone();
    longer.push(0);
    std::fs::write(&path, &longer).unwrap();
    assert_clean_error(&["query", p, "x"], None, "RedisBloom");
    let mut lying = bytes.clone();
    lying[8 + 20 + 40] ^= 1; // the first link's k
    std::fs::write(&path, &lying).unwrap();
    assert_clean_error(&["info", p], None, "k =");
}
