//! Issue 39: one committed version 2 file per variant (`tests/data/v2/<variant>.bin`: 100 keys,
//! built for 200 at 1%, seed 0), read byte for byte: it loads, saves back unchanged, is what
//! the same build writes today (the layout and every variant's encoding stay put), and opens in
//! place, answering as the load does, where its variant opens in place.
//!
//! Issue 52: the quotient and Aleph filters now write version 3 (their tables in blocks), so
//! their committed version 2 files are kept as they were and must still load and open (by a
//! copy into blocks), answering as before; `tests/data/v3/<variant>.bin` holds the version 3
//! file of the same build, read byte for byte as the version 2 files of the other variants are.
//!
//! `FILTERLAB_BLESS=1 cargo test -p filterlab --test v2_fixtures` writes the files of today's
//! version anew (a variant's version 2 file only while it writes version 2): only for a
//! deliberate change of the format, which needs a new version. (Once without one, before any
//! release of version 2: the quotient filter's payload gained its offsets table, so that it
//! opens in place.)

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::{Filter, Timestamp};
use std::path::PathBuf;

fn key(i: u64) -> Vec<u8> {
    format!("fixture{i}@example.com").into_bytes()
}

/// The fixture's filter of `v`, built as the committed one was.
fn built(v: Variant) -> AnyFilter {
    let params = Params::new(200, 0.01);
    if v.capabilities().timed {
        let mut f = AnyFilter::build(v, &params).unwrap();
        for i in 0..100 {
            f.insert_at(&key(i), Timestamp(i)).unwrap();
        }
        return f;
    }
    let hashes: Vec<_> = (0..100).map(|i| params.hasher.hash(&key(i))).collect();
    AnyFilter::build_from_hashes(v, &params, &hashes).unwrap()
}

fn fixture(v: Variant) -> PathBuf {
    fixture_of(v, 2)
}

/// The committed file of `v` in format `version`.
fn fixture_of(v: Variant, version: u16) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/v{version}"))
        .join(format!("{v}.bin"))
}

/// The format version saves of `v` write today.
fn writes(v: Variant) -> u16 {
    AnyFilter::table_layout(v, 2).0
}

/// The answers of `f` (of variant `v`) to the fixture's probes: its 100 keys, then 300 others.
fn answers(v: Variant, f: &AnyFilter) -> Vec<bool> {
    let probes = (0..400).map(key);
    if v.capabilities().timed {
        probes
            .map(|k| f.contains_at(&k, Timestamp(100)).unwrap())
            .collect()
    } else {
        probes.map(|k| f.contains(&k)).collect()
    }
}

#[test]
fn every_variant_s_version_2_file_reads_byte_for_byte() {
    if std::env::var_os("FILTERLAB_BLESS").is_some() {
        for &v in Variant::ALL {
            let p = fixture_of(v, writes(v));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, built(v).to_bytes()).unwrap();
        }
    }
    for &v in Variant::ALL {
        let p = fixture_of(v, writes(v));
        let committed = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(
            filterlab::format::peek_version(&committed),
            Ok(writes(v)),
            "{v}"
        );
        let loaded = AnyFilter::load(&p).unwrap();
        assert_eq!(loaded.to_bytes(), committed, "{v}: saved back differently");
        assert_eq!(
            built(v).to_bytes(),
            committed,
            "{v}: today's build writes other bytes"
        );
        let want = answers(v, &loaded);
        assert!(want[..100].iter().all(|&x| x), "{v}: a false negative");
        match AnyFilter::open(&p) {
            Ok(m) => {
                assert!(v.capabilities().in_place, "{v}");
                assert_eq!(answers(v, &m), want, "{v}: in place answers differently");
                m.verify().unwrap();
            }
            Err(e) => assert!(!v.capabilities().in_place, "{v}: {e}"),
        }
    }
}

/// Issue 52: the version 2 files of the variants that now write version 3 (the quotient and
/// Aleph filters: separate arrays then, blocks now) load, and open where the variant opens in
/// place (the quotient filter), converted into blocks: the
/// same filter as the version 3 fixture (saved, it is that file byte for byte), the same
/// answers.
#[test]
fn version_2_files_of_the_blocked_variants_load_as_their_version_3_files() {
    let mut converted = 0;
    for &v in Variant::ALL.iter().filter(|&&v| writes(v) == 3) {
        let old = fixture_of(v, 2);
        let bytes = std::fs::read(&old).unwrap();
        assert_eq!(filterlab::format::peek_version(&bytes), Ok(2), "{v}");
        let v3 = std::fs::read(fixture_of(v, 3)).unwrap();
        assert_ne!(bytes, v3, "{v}");
        let loaded = AnyFilter::load(&old).unwrap();
        assert_eq!(loaded.to_bytes(), v3, "{v}: converted to another table");
        let want = answers(v, &AnyFilter::load(fixture_of(v, 3)).unwrap());
        assert_eq!(answers(v, &loaded), want, "{v}");
        if v.capabilities().in_place {
            let open = AnyFilter::open(&old).unwrap();
            assert_eq!(answers(v, &open), want, "{v}: opened");
            assert_eq!(
                open.to_bytes(),
                v3,
                "{v}: opened, converted to another table"
            );
            open.verify().unwrap();
        }
        converted += 1;
    }
    assert_eq!(converted, 2, "the quotient and Aleph filters");
}

/// Issue 51: the scalable filter's stages are now sized like the classic filter (exact rate);
/// `scalable-textbook.bin` is the version 2 file the textbook stage sizing wrote before (the
/// committed `scalable.bin` until then). It still loads, saves back byte for byte, holds its
/// 100 keys, and keeps growing by its own rule.
#[test]
fn a_scalable_file_with_textbook_stages_still_loads() {
    use filterlab::{ScalableBloom, StageSizing};
    let p = fixture(Variant::Scalable).with_file_name("scalable-textbook.bin");
    let committed = std::fs::read(&p).unwrap();
    let f: ScalableBloom = filterlab::Persist::from_bytes(&committed).unwrap();
    assert_eq!(f.stage_sizing(), StageSizing::Textbook);
    assert_eq!(filterlab::Persist::to_bytes(&f), committed);
    assert!((0..100).all(|i| f.contains(&key(i))));
    let today = std::fs::read(fixture(Variant::Scalable)).unwrap();
    assert_ne!(today, committed, "the exact rule sizes stage 0 otherwise");
}
