//! Issue 16, defect 6: the loader accepts exactly what the builder builds.

use filter_core::{format, FormatError, Persist};
use filter_scalable::ScalableBloom;

/// Growth and tightening sit after capacity and rate in the parameters (which start at byte 24).
const GROWTH_AT: usize = 24 + 16;
const TIGHTENING_AT: usize = GROWTH_AT + 8;

/// A file of a valid filter with `growth` and `tightening` written over its own, resealed.
fn crafted(growth: f64, tightening: f64) -> Vec<u8> {
    let f = ScalableBloom::builder().capacity(100).build().unwrap();
    let mut bytes = f.to_bytes();
    assert_eq!(bytes[GROWTH_AT..GROWTH_AT + 8], 2f64.to_le_bytes());
    assert_eq!(
        bytes[TIGHTENING_AT..TIGHTENING_AT + 8],
        0.9f64.to_le_bytes()
    );
    bytes[GROWTH_AT..GROWTH_AT + 8].copy_from_slice(&growth.to_le_bytes());
    bytes[TIGHTENING_AT..TIGHTENING_AT + 8].copy_from_slice(&tightening.to_le_bytes());
    format::reseal(&mut bytes);
    bytes
}

/// Every pair the builder refuses, the loader refuses with the builder's own message (the one
/// validator), including the two the loader used to accept: growth 1 and tightening 1e-300.
#[test]
fn the_loader_refuses_what_the_builder_refuses_with_its_message() {
    let growths = [0.5, 1.0, 1.000_001, 1.05, f64::NAN, 2000.0, 2.0];
    let tightenings = [0.0, 1e-300, 1e-30, 1.0, f64::NAN, 0.9];
    for g in growths {
        for r in tightenings {
            let built = ScalableBloom::builder()
                .capacity(100)
                .growth(g)
                .tightening(r)
                .build();
            let loaded = ScalableBloom::from_bytes(&crafted(g, r));
            match (built, loaded) {
                (Err(b), Err(FormatError::Invalid(l))) => {
                    assert_eq!(l, b.to_string(), "growth {g}, tightening {r}")
                }
                (Ok(_), Ok(_)) => assert_eq!((g, r), (2.0, 0.9)),
                (b, l) => panic!("growth {g}, tightening {r}: built {b:?}, loaded {l:?}"),
            }
        }
    }
}
