//! Issue 39: a load of a version 2 file reads each table from the file straight into the
//! filter's memory, with no copy of the file in memory. It must give what the load by copy
//! gave (the whole file read into memory, then decoded: still the path of version 1 files),
//! for every variant, and refuse every damaged file that one refuses, with the same error.

use filterlab::format;
use filterlab::format::mapped::FileBytes;
use filterlab::{AnyFilter, Filter, FormatError, Persist, Variant};
use std::path::Path;

mod common;

/// What a load gave, comparable across the two paths: the filter's file, or the error (a
/// format error's text; an I/O error's kind, since its message may name the path).
type Outcome = Result<Vec<u8>, String>;

fn io_outcome(e: &std::io::Error) -> String {
    match e.get_ref().and_then(|i| i.downcast_ref::<FormatError>()) {
        Some(f) => f.to_string(),
        None => format!("{:?}", e.kind()),
    }
}

/// The load by copy: the file read whole with the loader's checks, then decoded.
fn by_copy(p: &Path) -> Outcome {
    let file = std::fs::File::open(p).map_err(|e| io_outcome(&e))?;
    let bytes = AnyFilter::read_file(&file).map_err(|e| io_outcome(&e))?;
    AnyFilter::from_bytes(&bytes)
        .map(|f| f.to_bytes())
        .map_err(|e| e.to_string())
}

fn loaded(p: &Path) -> Outcome {
    AnyFilter::load(p)
        .map(|f| f.to_bytes())
        .map_err(|e| io_outcome(&e))
}

/// Whether a load of the file at `p` takes the streamed path (a mapping), not the copy.
fn is_streamed(p: &Path) -> bool {
    let file = std::fs::File::open(p).unwrap();
    matches!(AnyFilter::read_or_map(&file), Ok(FileBytes::Mapped(_)))
}

#[test]
fn a_version_2_file_is_streamed_and_loads_as_by_copy_in_every_variant() {
    let d = common::tempdir("streamed");
    let p = d.path().join("f.bin");
    for &v in Variant::ALL {
        for bytes in common::saved_states(v, 5000) {
            std::fs::write(&p, &bytes).unwrap();
            assert!(is_streamed(&p), "{v}: not streamed");
            assert_eq!(loaded(&p), Ok(bytes.clone()), "{v}");
            let v1 = AnyFilter::from_bytes(&bytes)
                .unwrap()
                .to_bytes_version_1()
                .unwrap();
            std::fs::write(&p, &v1).unwrap();
            assert!(!is_streamed(&p), "{v}: a version 1 file streamed");
            assert_eq!(loaded(&p), by_copy(&p), "{v}: version 1");
            assert_eq!(loaded(&p), Ok(bytes), "{v}: version 1");
        }
    }
}

/// Every byte of the head and a sample of the payload's, each with one bit flipped and the
/// checksums recomputed (so that the flip reaches the decoders' own checks), and a few flips
/// left unsealed and truncations: the streamed load accepts and refuses exactly what the load
/// by copy does. The control: the damage is refused at least once per variant.
#[test]
fn a_damaged_file_is_refused_as_by_copy_in_every_variant() {
    let d = common::tempdir("streamed-damage");
    let p = d.path().join("f.bin");
    for &v in Variant::ALL {
        let mut refused = 0;
        for bytes in common::saved_states(v, 5000) {
            let params = u32::from_le_bytes(bytes[20..24].try_into().unwrap()) as usize;
            let head = 24 + params + 24;
            let step = ((bytes.len() - head) / 400).max(1);
            let positions = (0..head).chain((head..bytes.len()).step_by(step));
            for (n, at) in positions.enumerate() {
                let mut damaged = bytes.clone();
                damaged[at] ^= 1 << (at % 8);
                if n % 50 != 0 {
                    format::reseal(&mut damaged);
                }
                std::fs::write(&p, &damaged).unwrap();
                let want = by_copy(&p);
                refused += usize::from(want.is_err());
                assert_eq!(loaded(&p), want, "{v}: byte {at} of {}", bytes.len());
            }
            for cut in [1, 8, 9, bytes.len() / 2, bytes.len() - head] {
                std::fs::write(&p, &bytes[..bytes.len() - cut]).unwrap();
                assert_eq!(loaded(&p), by_copy(&p), "{v}: cut {cut}");
                assert!(loaded(&p).is_err(), "{v}: cut {cut}");
            }
        }
        assert!(refused > 0, "{v}: no damage refused");
    }
}

/// A variant's own `load` (and a shared form's, which loads its single form's file) streams
/// too, with the same result.
#[test]
fn each_type_loads_its_file_streamed() {
    let d = common::tempdir("streamed-types");
    let p = d.path().join("f.bin");
    let mut f = filterlab::ClassicBloom::builder()
        .capacity(1000)
        .fpr(0.01)
        .build()
        .unwrap();
    (0..500u64).for_each(|i| f.insert(&i.to_le_bytes()).unwrap());
    f.save(&p).unwrap();
    assert!(is_streamed(&p));
    assert_eq!(
        filterlab::ClassicBloom::load(&p).unwrap().to_bytes(),
        f.to_bytes()
    );
    let shared = filterlab::AtomicClassicBloom::load(&p).unwrap();
    assert_eq!(shared.to_bytes(), f.to_bytes());
    let e = filterlab::BlockedBloom::load(&p).unwrap_err();
    assert!(
        matches!(
            e.get_ref().and_then(|i| i.downcast_ref::<FormatError>()),
            Some(FormatError::WrongVariant { .. })
        ),
        "{e}"
    );
}
