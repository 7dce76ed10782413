use super::*;
use filterlab::{format, Params as Build};

#[test]
fn the_variant_is_read_from_the_header_and_an_unknown_one_refused() {
    let dir = tempfile::tempdir().unwrap();
    for &v in Variant::ALL {
        let path = dir.path().join(format!("{v}.bin"));
        save(
            &AnyFilter::build(v, &Build::new(100, 0.01)).unwrap(),
            &path,
            Role::Output,
        )
        .unwrap();
        let (back, bytes) = load(&path).unwrap();
        assert_eq!(back.variant(), v);
        assert_eq!(info(&back, &bytes).variant, v);
    }
    let mut bytes = AnyFilter::build(Variant::Classic, &Build::new(100, 0.01))
        .unwrap()
        .to_bytes();
    bytes[10] = 99;
    format::reseal(&mut bytes);
    let path = dir.path().join("unknown.bin");
    std::fs::write(&path, &bytes).unwrap();
    let e = load(&path).unwrap_err();
    assert!(e.to_string().contains("unknown variant id 99"), "{e}");
}
