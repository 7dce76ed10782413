//! Issue 16, defect 8: the checksum is not a MAC; authenticated files refuse tampering and
//! wrong keys.

use filterlab::{format, ClassicBloom, Filter, FormatError, Persist};
use std::io::ErrorKind;

const KEY: &[u8; 32] = b"0123456789abcdef0123456789abcdef";

fn filter() -> ClassicBloom {
    let mut f = ClassicBloom::builder().capacity(1000).build().unwrap();
    for i in 0..1000 {
        f.insert(format!("member-{i}").as_bytes()).unwrap();
    }
    f
}

/// `k` sits after `m` (8 bytes) in a classic filter's parameters, which start at byte 24.
const K_AT: usize = 24 + 8;

fn dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("filterlab-auth-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What the MAC is for: a plain file with `k + 1` and a recomputed checksum loads, and then
/// misses inserted keys.
#[test]
fn a_rechecksummed_plain_file_with_another_k_loads_and_gives_false_negatives() {
    let f = filter();
    let mut bytes = f.to_bytes();
    bytes[K_AT] += 1;
    format::reseal(&mut bytes);
    let altered = ClassicBloom::from_bytes(&bytes).unwrap();
    let missed = (0..1000)
        .filter(|i| !altered.contains(format!("member-{i}").as_bytes()))
        .count();
    assert!(missed > 100, "{missed} of 1000 missed");
}

#[test]
fn authenticated_files_load_with_their_key_only_and_refuse_any_change() {
    let d = dir("refuse");
    let path = d.join("f.auth");
    let f = filter();
    f.save_authenticated(&path, KEY).unwrap();
    assert_eq!(
        ClassicBloom::load_authenticated(&path, KEY)
            .unwrap()
            .to_bytes(),
        f.to_bytes()
    );
    // The wrong key.
    let mut other = *KEY;
    other[0] ^= 1;
    let e = ClassicBloom::load_authenticated(&path, &other).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidData);
    assert!(e.to_string().contains("authentication tag"), "{e}");
    // The same change as above, with the inner checksum recomputed: refused.
    let mut bytes = std::fs::read(&path).unwrap();
    let inner = 8..bytes.len() - 32;
    bytes[8 + K_AT] += 1;
    format::reseal(&mut bytes[inner]);
    let tampered = d.join("tampered.auth");
    std::fs::write(&tampered, &bytes).unwrap();
    let e = ClassicBloom::load_authenticated(&tampered, KEY).unwrap_err();
    assert!(e.to_string().contains("authentication tag"), "{e}");
    // Every single flipped bit anywhere (magic, filter, tag) is refused.
    let good = std::fs::read(&path).unwrap();
    for i in (0..good.len() * 8).step_by(61) {
        let mut b = good.clone();
        b[i / 8] ^= 1 << (i % 8);
        assert!(
            filterlab::auth::read_authenticated::<ClassicBloom>(&b, KEY).is_err(),
            "bit {i}"
        );
    }
    // A plain file is not an authenticated one, and an authenticated one is not plain.
    let plain = d.join("f.bin");
    f.save(&plain).unwrap();
    let e = ClassicBloom::load_authenticated(&plain, KEY).unwrap_err();
    assert!(e.to_string().contains("magic"), "{e}");
    assert!(matches!(
        ClassicBloom::from_bytes(&good),
        Err(FormatError::BadMagic)
    ));
    // Short keys are refused before anything is written.
    let e = f
        .save_authenticated(d.join("short.auth"), b"short")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput);
    assert!(!d.join("short.auth").exists());
    std::fs::remove_dir_all(&d).unwrap();
}
