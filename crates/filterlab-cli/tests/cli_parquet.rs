//! `filterlab info` and `filterlab query --column` on Parquet files (issue 40): the
//! parquet-testing files written by parquet-mr and by arrow-rs, a file written here by the
//! `parquet` crate, and one written by DuckDB when the project's venv has it. Every answer is
//! checked against the `parquet` crate's own `Sbbf::check` (or DuckDB's `parquet_bloom_probe`)
//! on every value of the column and 100k or more values that are not in it (DuckDB: 10k keys a
//! column, its probes being slower).

mod common;

use common::{assert_clean_error, filterlab, json, s, stderr, write};
use parquet::bloom_filter::Sbbf;
use parquet::file::properties::ReaderProperties;
use parquet::file::reader::FileReader;
use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
use parquet::record::Field;
use serde_json::Value;
use std::path::{Path, PathBuf};

mod parquet_files;
use parquet_files::{lie, written};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/parquet")
        .join(name)
}

fn reader(path: &Path) -> SerializedFileReader<std::fs::File> {
    let options = ReadOptionsBuilder::new()
        .with_reader_properties(
            ReaderProperties::builder()
                .set_read_bloom_filter(true)
                .build(),
        )
        .build();
    SerializedFileReader::new_with_options(std::fs::File::open(path).unwrap(), options).unwrap()
}

/// The `parquet` crate's filter of each row group for column `c`.
fn sbbfs(path: &Path, c: usize) -> Vec<Option<Sbbf>> {
    let r = reader(path);
    (0..r.num_row_groups())
        .map(|g| {
            r.get_row_group(g)
                .unwrap()
                .get_column_bloom_filter(c)
                .cloned()
        })
        .collect()
}

/// Every non-null value of column `c`, as probe text, read by the `parquet` crate.
fn values(path: &Path, c: usize) -> Vec<String> {
    let r = reader(path);
    let mut out = Vec::new();
    for row in r.get_row_iter(None).unwrap() {
        match row.unwrap().get_column_iter().nth(c).unwrap().1 {
            Field::Str(s) => out.push(s.clone()),
            Field::Long(v) => out.push(v.to_string()),
            Field::Null => {}
            other => panic!("{other:?}"),
        }
    }
    out
}

/// Runs `query --column` with `keys`; each key's `row_groups`, checked against `expected`
/// (the row groups whose reference filter may hold it, or that have none). Returns how many
/// keys are in no row group, which the callers require to be some: a reference that says
/// "maybe" to everything would agree with anything.
fn agrees(
    path: &Path,
    column: &str,
    keys: &[String],
    mut expected: impl FnMut(&str) -> Vec<usize>,
) -> usize {
    let dir = tempfile::tempdir().unwrap();
    let keys_file = write(dir.path(), "keys.txt", (keys.join("\n") + "\n").as_bytes());
    let args = [
        "query",
        s(path),
        "--column",
        column,
        "--keys",
        s(&keys_file),
    ];
    let out = filterlab(&[&args[..], &["--json"]].concat());
    assert!(out.status.code().unwrap() < 2, "{}", stderr(&out));
    let answers: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answers.len(), keys.len());
    let mut disagreements = 0;
    for (a, key) in answers.iter().zip(keys) {
        assert_eq!(a["key"], key.as_str());
        let ours: Vec<usize> = serde_json::from_value(a["row_groups"].clone()).unwrap();
        let theirs = expected(key);
        assert_eq!(a["maybe_present"], !theirs.is_empty());
        disagreements += usize::from(ours != theirs);
    }
    assert_eq!(disagreements, 0, "{column}: of {} keys", keys.len());
    answers
        .iter()
        .filter(|a| a["maybe_present"] == false)
        .count()
}

/// What the `parquet` crate's filters say of `key` (its plain encoding given), row group by
/// row group; a row group without a filter may hold anything.
fn by_sbbf(filters: &[Option<Sbbf>], plain: &[u8]) -> Vec<usize> {
    (0..filters.len())
        .filter(|&g| filters[g].as_ref().is_none_or(|f| f.check(plain)))
        .collect()
}

fn probes(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("probe-{i}@example.org")).collect()
}

#[test]
fn the_parquet_testing_files_answer_as_the_parquet_crate() {
    for (name, writer) in [
        ("data_index_bloom_encoding_stats.parquet", "parquet-mr"),
        (
            "data_index_bloom_encoding_with_length.parquet",
            "parquet-rs",
        ),
    ] {
        let path = fixture(name);
        let members = values(&path, 0);
        assert_eq!(members.len(), 14, "{name}");
        let filters = sbbfs(&path, 0);
        assert!(filters[0].is_some());
        let mut keys = members.clone();
        keys.extend(probes(100_000));
        let absent = agrees(&path, "String", &keys, |k| by_sbbf(&filters, k.as_bytes()));
        assert!(absent > 99_000, "{absent}");
        // Every member may be present (no false negatives), and the file says who wrote it.
        let v = json(&["info", s(&path)]);
        assert!(v["created_by"].as_str().unwrap().starts_with(writer), "{v}");
        let chunk = &v["columns"][0]["row_groups"][0];
        assert_eq!(chunk["ndv_source"], "estimated");
        let distinct = {
            let mut m = members.clone();
            m.sort();
            m.dedup();
            m.len() as f64
        };
        let ndv = chunk["ndv"].as_f64().unwrap();
        assert!((ndv - distinct).abs() <= 2.0, "{ndv} vs {distinct}");
        assert!(chunk["fpr_at_ndv"].as_f64().unwrap() < 1e-6);
    }
}

#[test]
fn a_file_written_by_the_parquet_crate_answers_per_row_group() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("users.parquet");
    std::fs::write(&path, written()).unwrap();
    let v = json(&["info", s(&path)]);
    assert_eq!(v["format"], "parquet");
    assert_eq!(v["row_groups"], 3);
    assert_eq!(
        v["columns"][2]["row_groups"][1]["filter_bytes"],
        Value::Null
    );
    // E-mails: members of each row group and 100k others.
    let emails = values(&path, 0);
    let filters = sbbfs(&path, 0);
    let mut keys = emails.clone();
    keys.extend(probes(100_000));
    let absent = agrees(&path, "email", &keys, |k| by_sbbf(&filters, k.as_bytes()));
    assert!(absent > 90_000, "{absent}");
    // INT64 ids, as decimal text, hashed as 8 little-endian bytes.
    let filters = sbbfs(&path, 1);
    let keys: Vec<String> = (-1_000..100_000).map(|i| (i * 7).to_string()).collect();
    let absent = agrees(&path, "id", &keys, |k| {
        by_sbbf(&filters, &k.parse::<i64>().unwrap().to_le_bytes())
    });
    assert!(absent > 80_000, "{absent}");
    // A column without filters: every row group may hold anything.
    let text = filterlab(&["query", s(&path), "--column", "note", "x"]);
    assert_eq!(
        String::from_utf8_lossy(&text.stdout),
        "maybe-present\tx\trow groups 0,1,2 (no filter: 0,1,2)\n"
    );
}

#[test]
fn query_refuses_what_it_cannot_answer() {
    let path = fixture("data_index_bloom_encoding_stats.parquet");
    let p = s(&path);
    assert_clean_error(&["query", p, "Hello"], None, "--column");
    assert_clean_error(
        &["query", p, "--column", "nope", "x"],
        None,
        "no column \"nope\"",
    );
    assert_clean_error(
        &["query", p, "--column", "String", "--at", "1", "x"],
        None,
        "--at",
    );
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.parquet");
    std::fs::write(&users, written()).unwrap();
    assert_clean_error(
        &["query", s(&users), "--column", "id", "seven"],
        None,
        "not an INT64",
    );
    let not_parquet = write(dir.path(), "keys.txt", b"a\nb\n");
    assert_clean_error(
        &["query", s(&not_parquet), "--column", "c", "x"],
        None,
        "--column",
    );
}

#[test]
fn footers_that_lie_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = written();
    let cases = lie(&bytes);
    assert!(cases.len() >= 6);
    for (i, (lie, mentions)) in cases.iter().enumerate() {
        let path = write(dir.path(), &format!("lie{i}.parquet"), lie);
        assert_clean_error(&["info", s(&path)], None, mentions);
        assert_clean_error(
            &["query", s(&path), "--column", "email", "x"],
            None,
            mentions,
        );
    }
}

/// The project's venv (`scripts/python.sh`: `$FILTERLAB_VENV`, else `target/python-venv`) when
/// its Python imports duckdb.
fn duckdb_python() -> Option<PathBuf> {
    let venv = std::env::var_os("FILTERLAB_VENV").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/python-venv"),
        PathBuf::from,
    );
    let python = venv.join("bin/python");
    let ok = std::process::Command::new(&python)
        .args(["-c", "import duckdb"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

#[test]
fn a_file_written_by_duckdb_answers_as_duckdb() {
    let Some(python) = duckdb_python() else {
        eprintln!("skipped: no duckdb in the project's venv (bash scripts/python.sh makes one)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("duck.parquet");
    let columns = ["email", "id", "small", "d"];
    let keys: Vec<Vec<String>> = vec![
        (0..10_000).map(|i| format!("u{i}@x.com")).collect(),
        (0..10_000).map(|i| (i * 3 - 300).to_string()).collect(),
        (0..10_000).map(|i| (i - 100).to_string()).collect(),
        (0..10_000)
            .map(|i| (f64::from(i) / 4.0).to_string())
            .collect(),
    ];
    for (c, keys) in columns.iter().zip(&keys) {
        write(dir.path(), &format!("{c}.txt"), keys.join("\n").as_bytes());
    }
    let out = std::process::Command::new(python)
        .arg("-c")
        .arg(parquet_files::DUCKDB_SCRIPT)
        .arg(&path)
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = json(&["info", s(&path)]);
    assert!(v["created_by"].as_str().unwrap().starts_with("DuckDB"));
    assert_eq!(v["columns"][0]["row_groups"][0]["ndv_source"], "statistics");
    for (c, keys) in columns.iter().zip(&keys) {
        let answers = std::fs::read_to_string(dir.path().join(format!("{c}.duck"))).unwrap();
        let duck: Vec<Vec<usize>> = answers
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(duck.len(), keys.len());
        let mut at = 0;
        let absent = agrees(&path, c, keys, |_| {
            at += 1;
            duck[at - 1].clone()
        });
        assert!(absent > 5_000, "{c}: {absent}");
    }
}

#[test]
fn build_to_parquet_writes_filterlabs_filter_in_a_file_every_reader_takes() {
    use filter_blocked::parquet::ParquetBloom;
    let dir = tempfile::tempdir().unwrap();
    let keys: Vec<String> = (0..5_000).map(|i| format!("user{i}@example.com")).collect();
    let mut lines = keys.join("\n");
    lines.push_str("\nuser7@example.com\n\n");
    let keys_file = write(dir.path(), "keys.txt", lines.as_bytes());
    let path = dir.path().join("users.parquet");
    let args = ["build", "--to", "parquet", "--n", "20000", "--fpr", "1%"];
    let built = json(&[&args[..], &["--keys", s(&keys_file), "-o", s(&path)]].concat());
    assert_eq!(built["format"], "parquet");
    assert_eq!(built["inserted"], 5_000);
    assert_eq!(built["duplicates"], 1);
    // The parquet crate reads the keys back, one row each, in order.
    assert_eq!(values(&path, 0), keys);
    // The filter in the file is filterlab's for the same keys and sizing, bit for bit.
    let mut ours = ParquetBloom::with_ndv_fpp(20_000, 0.01).unwrap();
    keys.iter().for_each(|k| ours.insert(k.as_bytes()));
    ours.fold_to_target_fpp(0.01).unwrap();
    let info = json(&["info", s(&path)]);
    let at = info["columns"][0]["row_groups"][0]["filter_offset"]
        .as_u64()
        .unwrap() as usize;
    let file = std::fs::read(&path).unwrap();
    let ours = ours.to_bytes();
    assert_eq!(file[at..at + ours.len()], ours[..]);
    // Queried by the parquet crate's Sbbf and by filterlab: the same answers.
    let filters = sbbfs(&path, 0);
    let mut probe_keys = keys.clone();
    probe_keys.extend(probes(100_000));
    let absent = agrees(&path, "key", &probe_keys, |k| {
        by_sbbf(&filters, k.as_bytes())
    });
    assert!(absent > 99_000, "{absent}");
    // Refused: what a Parquet file has no place for.
    let refused = |extra: &[&str], mentions: &str| {
        let base = [
            "build",
            "--to",
            "parquet",
            "--fpr",
            "1%",
            "--keys",
            s(&keys_file),
        ];
        let out = dir.path().join("refused.parquet");
        let a = [&base[..], extra, &["-o", s(&out)]].concat();
        assert_clean_error(&a, None, mentions);
        assert!(!out.exists());
    };
    refused(&["--variant", "classic"], "split-block");
    refused(&["--seed", "7"], "xxh64, seed 0");
    refused(&["--guava-strategy", "mitz32"], "--to guava");
    let convert = ["convert", s(&path), s(&keys_file), "--to", "parquet"];
    assert_clean_error(&convert, None, "build --to parquet");
    // DuckDB reads the file and its filter, when the venv has it.
    let Some(python) = duckdb_python() else {
        return;
    };
    let script = "import duckdb, sys\n\
        c = duckdb.connect()\n\
        n = c.execute('select count(distinct key) from read_parquet(?)', [sys.argv[1]]).fetchone()[0]\n\
        probe = \"select bloom_filter_excludes from parquet_bloom_probe(?, 'key', ?)\"\n\
        held = sum(not c.execute(probe, [sys.argv[1], f'user{i}@example.com']).fetchone()[0] for i in range(5000))\n\
        print(n, held)";
    let out = std::process::Command::new(python)
        .args(["-c", script, s(&path)])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "5000 5000");
}

#[test]
fn keys_from_stdin_are_answered_as_query_answers_them() {
    let path = fixture("data_index_bloom_encoding_stats.parquet");
    let args = ["query", s(&path), "--column", "String"];
    let out = common::run_with_stdin(&args, Some(b"Hello\n\nno\tthere\n"));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "maybe-present\tHello\trow groups 0\nabsent\tno\\tthere\n"
    );
    assert!(
        stderr(&out).contains("1 empty lines skipped"),
        "{}",
        stderr(&out)
    );
    let v = common::json_with_stdin(&args, Some(b"Hello\n"));
    assert_eq!(v[0]["row_groups"], serde_json::json!([0]));
    assert_eq!(v[0]["no_filter"], serde_json::json!([]));
}

/// Issue 51: a negative INT64 key needs no `--` (clap took `-7` for a flag), and an empty key
/// argument is an error in text and JSON, with nothing answered.
#[test]
fn a_negative_int64_key_is_taken_and_an_empty_key_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let users = dir.path().join("users.parquet");
    std::fs::write(&users, written()).unwrap();
    let q = filterlab(&["query", s(&users), "--column", "id", "-7", "14"]);
    assert_eq!(q.status.code(), Some(1), "{}", stderr(&q));
    let text = String::from_utf8_lossy(&q.stdout);
    assert!(
        text.starts_with("absent\t-7\nmaybe-present\t14\t"),
        "{text}"
    );
    for extra in [None, Some("--json")] {
        let mut args = vec!["query", s(&users), "--column", "id", "14", ""];
        args.extend(extra);
        let out = filterlab(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            out.stdout.is_empty(),
            "{args:?}: answered before the refusal"
        );
        assert!(
            stderr(&out).contains("key argument 2 is empty"),
            "{}",
            stderr(&out)
        );
    }
}
