//! Issue 39: one committed version 2 file per variant (`tests/data/v2/<variant>.bin`: 100 keys,
//! built for 200 at 1%, seed 0), read byte for byte: it loads, saves back unchanged, is what
//! the same build writes today (the layout and every variant's encoding stay put), and opens in
//! place, answering as the load does, where its variant opens in place.
//!
//! `FILTERLAB_BLESS=1 cargo test -p filterlab --test v2_fixtures` writes the files anew: only
//! for a deliberate change of the format, which needs a new version. (Once without one, before
//! any release of version 2: the quotient filter's payload gained its offsets table, so that it
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
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/v2")
        .join(format!("{v}.bin"))
}

#[test]
fn every_variant_s_version_2_file_reads_byte_for_byte() {
    if std::env::var_os("FILTERLAB_BLESS").is_some() {
        for &v in Variant::ALL {
            let p = fixture(v);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, built(v).to_bytes()).unwrap();
        }
    }
    for &v in Variant::ALL {
        let p = fixture(v);
        let committed = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(filterlab::format::peek_version(&committed), Ok(2), "{v}");
        let loaded = AnyFilter::load(&p).unwrap();
        assert_eq!(loaded.to_bytes(), committed, "{v}: saved back differently");
        assert_eq!(
            built(v).to_bytes(),
            committed,
            "{v}: today's build writes other bytes"
        );
        let probes: Vec<Vec<u8>> = (0..400).map(key).collect();
        let answers = |f: &AnyFilter| -> Vec<bool> {
            if v.capabilities().timed {
                probes
                    .iter()
                    .map(|k| f.contains_at(k, Timestamp(100)).unwrap())
                    .collect()
            } else {
                probes.iter().map(|k| f.contains(k)).collect()
            }
        };
        let want = answers(&loaded);
        assert!(want[..100].iter().all(|&x| x), "{v}: a false negative");
        match AnyFilter::open(&p) {
            Ok(m) => {
                assert!(v.capabilities().in_place, "{v}");
                assert_eq!(answers(&m), want, "{v}: in place answers differently");
                m.verify().unwrap();
            }
            Err(e) => assert!(!v.capabilities().in_place, "{v}: {e}"),
        }
    }
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
