//! Scripts and advice: errors and warnings under `--json`, `--strict`, memory sizes, and what
//! `recommend` says (issue 16).

mod common;

use common::*;
use serde_json::Value;

#[test]
fn under_json_every_error_is_one_json_object_on_stderr() {
    let (dir, keys) = keys_file(b"a\nb\n");
    let classic = dir.path().join("c.bin");
    json(&build_args("classic", "10", s(&keys), s(&classic)));
    let missing = dir.path().join("missing.bin");
    let damaged = write(dir.path(), "d.bin", b"FLTRLAB garbage");
    assert_json_error(
        &["calc", "--n", "ten", "--fpr", "1%"],
        None,
        "positive whole count",
    );
    assert_json_error(&["frobnicate"], None, "unrecognized subcommand");
    assert_json_error(&["info", s(&missing)], None, "cannot read");
    assert_json_error(&["query", s(&damaged), "x"], None, "not a usable");
    assert_json_error(&["remove", s(&classic), "a"], None, "cannot remove keys");
    // A static filter is built once from its set: an add is refused before any key is read.
    let ribbon = dir.path().join("r.bin");
    json(&build_args("ribbon", "10", s(&keys), s(&ribbon)));
    let before = std::fs::read(&ribbon).unwrap();
    assert_json_error(
        &["add", s(&ribbon), "c"],
        None,
        "rebuild it with `filterlab build`",
    );
    assert_eq!(std::fs::read(&ribbon).unwrap(), before);
    let many: String = (0..1000).map(|i| format!("k{i}\n")).collect();
    let full = build_args("cuckoo", "10", "-", s(&classic));
    assert_json_error(&full, Some(many.as_bytes()), "larger --n");
    let r = assert_json_error(&recommend_10m(&["--max-memory", "4MiB"]), None, "budget");
    assert!(r["nearest"][0].as_str().unwrap().contains("--fpr"), "{r}");
}

#[test]
fn over_capacity_warns_under_json_and_strict_makes_it_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.bin");
    let keys: String = (0..20).map(|i| format!("k{i}\n")).collect();
    let mut args = build_args("classic", "10", "-", s(&out));
    args.push("--json");
    let b = run_with_stdin(&args, Some(keys.as_bytes()));
    assert_eq!(b.status.code(), Some(0), "{}", stderr(&b));
    let result: Value = serde_json::from_slice(&b.stdout).unwrap();
    assert!(result["warnings"][0]
        .as_str()
        .unwrap()
        .contains("20 keys exceed the capacity 10"));
    let warning: Value = serde_json::from_str(stderr(&b).trim()).expect("a JSON warning");
    assert!(warning["warning"].as_str().unwrap().contains("exceed"));

    // --strict: exit 2, and the file is left as it was.
    let before = std::fs::read(&out).unwrap();
    let mut strict = build_args("classic", "10", "-", s(&out));
    strict.push("--strict");
    assert_clean_error(&strict, Some(keys.as_bytes()), "not saved (--strict)");
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let fresh = dir.path().join("g.bin");
    json(&build_args("classic", "10", "-", s(&fresh)));
    let many: Vec<String> = (0..15).map(|i| format!("m{i}")).collect();
    let mut add = vec!["add", s(&fresh), "--strict"];
    add.extend(many.iter().map(String::as_str));
    let before = std::fs::read(&fresh).unwrap();
    assert_json_error(&add, None, "exceed the capacity");
    assert_eq!(std::fs::read(&fresh).unwrap(), before);
}

#[test]
fn memory_sizes_take_bare_suffixes_as_counts_do() {
    let r = json(&[
        "recommend",
        "--n",
        "10K",
        "--fpr",
        "1%",
        "--max-memory",
        "64K",
    ]);
    assert_eq!(r["plan"]["variant"], "classic");
    let r = json(&[
        "recommend",
        "--n",
        "10M",
        "--fpr",
        "1%",
        "--max-memory",
        "64M",
    ]);
    assert!(r["plan"]["bytes"].as_u64().unwrap() <= 64 << 20);
}

#[test]
fn a_growing_filter_is_judged_at_its_expected_maximum() {
    // Both growing filters fit 20 MB at n, neither when grown to 2x n: refused, with requests
    // that fit, each a command line that runs.
    let args = ["--growth", "--max-n", "20M", "--max-memory", "20000000"];
    let r = assert_json_error(&recommend_10m(&args), None, "when grown to 20000000 items");
    let nearest = suggestions_run(&r);
    // The smaller count keeps the growth asked for (--max-n twice --n).
    let count = nearest.iter().find(|l| l.contains("--fpr 0.01 ")).unwrap();
    let words: Vec<&str> = count.split_whitespace().collect();
    let after = |flag: &str| {
        let i = words.iter().position(|w| *w == flag).unwrap();
        words[i + 1].parse::<u64>().unwrap()
    };
    assert_eq!(after("--max-n"), 2 * after("--n"), "{count}");
    // Without --max-n, ten times n; the budget and the ranking are judged there.
    let g = json(&recommend_10m(&["--growth"]));
    let why = g["why"].to_string();
    assert!(why.contains("maximum of 100000000 items (10x n"), "{why}");
    assert_eq!(g["judged_items"], 100_000_000, "{g}");
    // Grown only to 2x n, and told so, the Aleph filter sizes its table for it: the smallest,
    // and the answer says what the estimate saves.
    let s = json(&recommend_10m(&["--growth", "--max-n", "20M"]));
    assert_eq!(s["plan"]["variant"], "aleph", "{s}");
    assert!(
        s["why"]
            .to_string()
            .contains("the growth estimate --max-n 20000000 sizes its table"),
        "{s}"
    );
    // At 10% with no estimate, the scalable filter is the smallest at ten times n; its first
    // stage states its cost.
    let s = json(&["recommend", "--n", "10M", "--fpr", "10%", "--growth"]);
    assert_eq!(s["plan"]["variant"], "scalable", "{s}");
    assert!(
        s["notes"]
            .to_string()
            .contains("the first stage is sized for P0"),
        "{s}"
    );
}

#[test]
fn an_impossible_count_suggests_a_request_that_works() {
    let r = assert_json_error(
        &[
            "recommend",
            "--n",
            "18446744073709551615",
            "--fpr",
            "0.5",
            "--deletes",
        ],
        None,
        "can be sized",
    );
    let nearest = suggestions_run(&r);
    assert!(
        nearest.iter().all(|l| l.contains("--fpr 0.5 ")),
        "{nearest:?}"
    );
}

#[test]
fn recommend_notes_small_sets_and_deletion_hazards_and_reads_well() {
    let tiny = json(&["recommend", "--n", "100", "--fpr", "1%"]);
    assert!(tiny["notes"].to_string().contains("exact set"), "{tiny}");
    let huge = json(&["recommend", "--n", "10G", "--fpr", "1%"]);
    assert!(huge["notes"].to_string().contains("shard"), "{huge}");
    for (n, p) in [("1M", "1%"), ("1M", "1e-12")] {
        let d = json(&["recommend", "--n", n, "--fpr", p, "--deletes"]);
        assert!(d["notes"].to_string().contains("never inserted"), "{d}");
    }
    // A small set at a low rate gets the cuckoo filter (at 1M the quotient filter is smaller).
    let c = json(&["recommend", "--n", "1000", "--fpr", "1e-4", "--deletes"]);
    assert_eq!(c["plan"]["variant"], "cuckoo");
    assert!(c["notes"].to_string().contains("2b = 8 copies"), "{c}");
    for args in [
        vec!["--n", "1000", "--fpr", "0.0001"],
        vec!["--n", "10M", "--fpr", "1%"],
    ] {
        let mut a = vec!["recommend"];
        a.extend(args);
        let text = String::from_utf8(filterlab(&a).stdout).unwrap();
        assert!(!text.contains("because and"), "{text}");
    }
}

/// Issue 37: one cuckoo file showed three rates (`build` and `info` the filter's exact one,
/// `explain` the large-table form). Full to its capacity, every command reports the rate of
/// the one function the filter uses, in both layouts, and `explain`'s rate formula gives it.
#[test]
fn one_cuckoo_file_has_one_rate_in_build_info_and_explain() {
    let keys: Vec<u8> = (0..2000)
        .flat_map(|i| format!("k{i}\n").into_bytes())
        .collect();
    let (dir, key_file) = keys_file(&keys);
    for layout in ["spread", "near"] {
        let out = dir.path().join(format!("{layout}.bin"));
        let mut args = build_args("cuckoo", "2000", s(&key_file), s(&out));
        args.extend(["--cuckoo-layout", layout]);
        let built = json(&args);
        assert_eq!(built["inserted"], 2000, "{built}");
        let rate = built["expected_fpr"].as_f64().unwrap();
        let info = json(&["info", s(&out)]);
        let explained = json(&["explain", s(&out)]);
        same(&info["expected_fpr"], rate);
        same(&explained["plan"]["expected_fpr"], rate);
        let shown = explained["formulas"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| {
                f["name"]
                    .as_str()
                    .unwrap()
                    .starts_with("false-positive rate")
            })
            .map(|f| f["substituted"].as_str().unwrap().to_string())
            .unwrap();
        assert!(
            shown.contains(&format!("p = {rate:.6}")) || shown.contains(&format!("= {rate:.6}")),
            "{layout}: {shown} vs {rate}"
        );
    }
}

/// Issue 37: `query --json` that failed part-way left an unterminated array on stdout. The
/// answers already written stay, the array ends with the error, and stdout parses.
#[test]
fn query_json_that_fails_part_way_leaves_valid_json() {
    let (dir, key_file) = keys_file(b"a\nb\n");
    let out = dir.path().join("f.bin");
    json(&build_args("classic", "10", s(&key_file), s(&out)));
    let mut input = b"a\nb\n".to_vec();
    input.extend(vec![b'x'; 70_000]);
    input.push(b'\n');
    let run = run_with_stdin(&["query", s(&out), "--json"], Some(&input));
    assert_eq!(run.status.code(), Some(2), "{}", stderr(&run));
    let v: serde_json::Value = serde_json::from_slice(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&run.stdout)));
    let answers = v.as_array().unwrap();
    assert_eq!(answers.len(), 3, "{v}");
    assert_eq!(answers[0]["maybe_present"], true);
    let error = answers[2]["error"].as_str().unwrap();
    assert!(
        error.contains("line 3: a key longer than 65536 bytes"),
        "{error}"
    );
    let err: serde_json::Value = serde_json::from_str(stderr(&run).trim()).unwrap();
    assert!(err["error"].as_str().unwrap().contains("line 3"), "{err}");
}
