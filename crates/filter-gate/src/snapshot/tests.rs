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

/// A version 2 file as that version wrote it: the 56-byte header, then the filter.
fn version_2(f: &ClassicBloom, mark: Mark) -> Vec<u8> {
    let body = f.to_bytes();
    let mut head = [0u8; HEADER_V2];
    head[..8].copy_from_slice(MAGIC_V2);
    for (i, w) in mark_words(mark).iter().enumerate() {
        head[8 + 8 * i..16 + 8 * i].copy_from_slice(&w.to_le_bytes());
    }
    head[40..48].copy_from_slice(&(body.len() as u64).to_le_bytes());
    let sum = fnv1a(&head[..SUMMED]);
    head[SUMMED..HEAD].copy_from_slice(&sum.to_le_bytes());
    [&head[..], &body].concat()
}

#[test]
fn version_2_files_still_load_and_say_their_filter_is_not_on_a_page() {
    let mut f = ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"old@file.org").unwrap();
    let bytes = version_2(&f, Mark::RowId(3));
    let (g, mark) = parse::<ClassicBloom>(&bytes).unwrap();
    assert_eq!((g.to_bytes(), mark), (f.to_bytes(), Mark::RowId(3)));
    let head = parse_head(&bytes, bytes.len() as u64).unwrap();
    assert_eq!(head.filter_offset, HEADER_V2 as u64);
    // A version 3 file's filter starts on the page after its header.
    let dir = tmpdir("v3-head");
    let path = dir.join("f.bin");
    save(&f, Mark::RowId(3), &path).unwrap();
    let head = read_head(&path).unwrap();
    assert_eq!((head.filter_offset, head.mark), (4096, Mark::RowId(3)));
    assert_eq!(head.filter_len, f.to_bytes().len() as u64);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_byte_in_the_padding_or_a_length_that_lies_is_refused_by_the_head() {
    let mut f = ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"pad@file.org").unwrap();
    let dir = tmpdir("v3-pad");
    let path = dir.join("f.bin");
    save(&f, Mark::RowId(1), &path).unwrap();
    let good = fs::read(&path).unwrap();
    assert!(parse_head(&good, good.len() as u64).is_ok());
    let mut padded = good.clone();
    padded[1000] = 1;
    assert!(matches!(
        parse_head(&padded, padded.len() as u64),
        Err(SnapshotError::BadHeader(_))
    ));
    assert!(parse::<ClassicBloom>(&padded).is_err());
    assert!(parse_head(&good, good.len() as u64 + 1).is_err());
    assert!(parse_head(&good[..100], good.len() as u64).is_err());
    fs::remove_dir_all(dir).unwrap();
}
