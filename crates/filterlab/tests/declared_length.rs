//! Issue 37, item 7: a file's declared payload length is checked against its parameters before
//! a byte of the payload is read. A 48-byte header on a sparse 3 GB file used to cost 3.1 GB in
//! every reader; now it costs the header, and every file a filter saves still passes the check.

use filterlab::format::{self, Head};
use filterlab::{AnyFilter, FormatError, Persist, Variant};

mod common;

fn head(bytes: &[u8]) -> Head<'_> {
    Head::parse(bytes).unwrap().expect("a whole head")
}

/// What the parameters of `bytes` allow, read off the refusal of a declared `u64::MAX`.
fn allowed(bytes: &[u8]) -> u64 {
    let mut h = head(bytes);
    h.payload_len = u64::MAX;
    match AnyFilter::check_head(&h) {
        Err(FormatError::PayloadTooLarge { allowed, .. }) => allowed,
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_saved_file_passes_its_check_and_the_bound_is_tight() {
    for &v in Variant::ALL {
        for bytes in common::saved_states(v, 20_000) {
            let h = head(&bytes);
            AnyFilter::check_head(&h).unwrap_or_else(|e| panic!("{v}: {e}"));
            let allowed = allowed(&bytes);
            // Exact wherever the parameters fix the tables; the expandable filter's payload
            // holds its stages' levels, so its bound is the largest levels the count allows.
            if v == Variant::Expandable {
                assert!(
                    allowed >= h.payload_len,
                    "{v}: {allowed} < {}",
                    h.payload_len
                );
            } else {
                assert_eq!(allowed, h.payload_len, "{v}");
            }
        }
    }
}

/// A valid file of `v` with its payload length set to 3 GiB and the file extended (sparse) to
/// exactly the length it now declares, so that only the parameters can tell.
fn crafted(v: Variant, dir: &std::path::Path) -> std::path::PathBuf {
    let bytes = common::saved_states(v, 20_000).pop().unwrap();
    let h = head(&bytes);
    let at = 24 + h.params.len();
    let mut head_bytes = bytes[..at + 8].to_vec();
    let declared: u64 = 3 << 30;
    head_bytes[at..].copy_from_slice(&declared.to_le_bytes());
    let path = dir.join(format!("{v}.bin"));
    std::fs::write(&path, &head_bytes).unwrap();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(head_bytes.len() as u64 + declared + 8)
        .unwrap();
    path
}

/// The format error inside an `InvalidData` I/O error.
fn format_error(e: &std::io::Error) -> &FormatError {
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData, "{e}");
    e.get_ref()
        .and_then(|i| i.downcast_ref::<FormatError>())
        .unwrap_or_else(|| panic!("not a format error: {e}"))
}

/// The refusal comes from the check made before the payload is read (its kind says so): the
/// old reader read all 3 GiB, then the loader refused them.
#[test]
fn a_crafted_header_on_a_sparse_file_costs_the_header() {
    let dir = std::env::temp_dir().join(format!("filterlab-declared-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for &v in Variant::ALL {
        let path = crafted(v, &dir);
        let e = AnyFilter::load(&path).unwrap_err();
        assert!(
            matches!(format_error(&e), FormatError::PayloadTooLarge { declared, .. } if *declared == 3 << 30),
            "{v}: {e}"
        );
        let file = std::fs::File::open(&path).unwrap();
        let e = AnyFilter::read_file(&file).unwrap_err();
        assert!(
            matches!(format_error(&e), FormatError::PayloadTooLarge { .. }),
            "{v}: {e}"
        );
    }
    // A variant's own loader checks too.
    let e = filterlab::ClassicBloom::load(crafted(Variant::Classic, &dir)).unwrap_err();
    assert!(
        matches!(format_error(&e), FormatError::PayloadTooLarge { .. }),
        "{e}"
    );
    let e = filterlab::CuckooFilter::load(crafted(Variant::Classic, &dir)).unwrap_err();
    assert!(
        matches!(format_error(&e), FormatError::WrongVariant { .. }),
        "{e}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The bytes a crafted file declares beyond its parameters are refused by `from_bytes` too
/// (the decoders' own exact check), so the reader's check only moves the refusal earlier.
#[test]
fn the_check_agrees_with_the_decoders() {
    for &v in Variant::ALL {
        let mut bytes = common::saved_states(v, 20_000).pop().unwrap();
        let at = 24 + head(&bytes).params.len();
        let payload_len = head(&bytes).payload_len;
        // Eight more payload bytes, declared and present.
        bytes[at..at + 8].copy_from_slice(&(payload_len + 8).to_le_bytes());
        let end = bytes.len() - 8;
        bytes.splice(end..end, [0u8; 8]);
        format::reseal(&mut bytes);
        assert!(AnyFilter::from_bytes(&bytes).is_err(), "{v}");
        if v != Variant::Expandable {
            assert!(AnyFilter::check_head(&head(&bytes)).is_err(), "{v}");
        }
    }
}
