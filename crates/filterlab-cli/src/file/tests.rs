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
        let i = info(&Reading::Loaded(back, bytes), false);
        // Version 2, or 3 for the variants whose table changed layout in it.
        let version = if i.table_layout.is_some() { 3 } else { 2 };
        assert_eq!(
            (i.variant, i.format_version, i.checksum_verified),
            (v, version, true)
        );
        assert_eq!(i.writes_version, version);
        let i = info(&read_only(&path).unwrap(), false);
        assert_eq!(i.variant, v);
        // Opened in place exactly where the variant allows it, and then not verified.
        assert_eq!(i.opens_in_place, v.capabilities().in_place, "{v}");
        assert_eq!(i.checksum_verified, !i.opens_in_place, "{v}");
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
