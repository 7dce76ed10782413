use super::*;
use filter_classic::ClassicBloom;
use filter_core::Filter;
use std::fs;

fn tmpdir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("filter-gate-{tag}-{}", std::process::id()));
    fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn save_then_load_is_identical() {
    let dir = tmpdir("snap");
    let path = dir.join("f.bin");
    let mut f = ClassicBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"a@b.c").unwrap();
    let mark = Mark::PgSnapshot {
        xmin: 42,
        xmax: 50,
        stamp: 7,
    };
    save(&f, mark, &path).unwrap();
    let (g, m): (ClassicBloom, _) = load(&path).unwrap();
    assert_eq!((g.to_bytes(), m), (f.to_bytes(), mark));
    // The streamed body is the filter's file, after the header.
    assert_eq!(fs::read(&path).unwrap()[HEADER..], f.to_bytes());
    // No temporary file left behind.
    assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn damaged_files_are_refused() {
    let mut f = ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"x@y.z").unwrap();
    let dir = tmpdir("bad");
    let path = dir.join("f.bin");
    save(&f, Mark::RowId(7), &path).unwrap();
    let good = fs::read(&path).unwrap();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (good[..10].to_vec(), "truncated header"),
        (good[..good.len() - 1].to_vec(), "truncated body"),
        (
            {
                let mut b = good.clone();
                b[0] = b'X';
                b
            },
            "magic",
        ),
        (
            {
                let mut b = good.clone();
                b[9] ^= 1;
                b
            },
            "mark",
        ),
        (
            {
                let mut b = good.clone();
                let n = b.len();
                b[n - 3] ^= 0x10;
                b
            },
            "filter bytes",
        ),
    ];
    for (bytes, what) in cases {
        assert!(
            parse::<ClassicBloom>(&bytes).is_err(),
            "{what} damage must be refused"
        );
    }
    assert!(parse::<ClassicBloom>(&good).is_ok());
    fs::remove_dir_all(dir).unwrap();
}
