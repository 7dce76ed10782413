use super::*;
use crate::Filter;

/// Checks a list of kinds the way the registry's must hold: ids and names unique, ids nonzero.
fn check_kinds(kinds: &[FileKind]) -> Result<(), String> {
    for (i, a) in kinds.iter().enumerate() {
        if a.id() == 0 {
            return Err(format!("{} has id 0", a.name()));
        }
        for b in &kinds[i + 1..] {
            if a.id() == b.id() || a.name() == b.name() {
                return Err(format!("{} and {} collide", a.name(), b.name()));
            }
        }
    }
    Ok(())
}

#[test]
fn ids_and_names_are_unique_and_round_trip() {
    let kinds: Vec<FileKind> = Variant::ALL.iter().map(|v| v.kind()).collect();
    check_kinds(&kinds).unwrap();
    for &v in Variant::ALL {
        assert_eq!(Variant::from_id(v.id()), Some(v));
        assert_eq!(v.name().parse::<Variant>(), Ok(v));
    }
    assert_eq!(Variant::from_id(0), None);
    let e = "bloomier".parse::<Variant>().unwrap_err();
    assert!(e.to_string().contains("classic"), "{e}");
}

#[test]
fn the_uniqueness_check_can_fail() {
    let twice = [FileKind::new(1, "a"), FileKind::new(1, "b")];
    assert!(check_kinds(&twice).is_err());
    assert!(check_kinds(&[FileKind::new(0, "zero")]).is_err());
    assert!(check_kinds(&[FileKind::new(1, "a"), FileKind::new(2, "a")]).is_err());
}

#[test]
fn any_file_loads_into_its_variant() {
    let mut f = crate::ClassicBloom::builder()
        .capacity(100)
        .fpr(0.01)
        .build()
        .unwrap();
    f.insert(b"x").unwrap();
    let any = AnyFilter::from_bytes(&f.to_bytes()).unwrap();
    assert_eq!(any.variant(), Variant::Classic);
    assert!(any.contains(b"x"));
    assert_eq!(any.len(), 1);
    let mut bytes = f.to_bytes();
    bytes[10] = 200;
    let e = AnyFilter::from_bytes(&bytes).unwrap_err();
    assert!(e.to_string().contains("200"), "{e}");
}
