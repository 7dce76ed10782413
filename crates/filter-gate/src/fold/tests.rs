use super::*;

#[test]
fn ascii_folds_through_the_servers_table_and_other_addresses_go_to_the_server() {
    let mut turkish = standard_ascii();
    turkish[usize::from(b'I')] = Some('ı');
    let f = Folding::Server { ascii: turkish };
    let n = Normalizer::default();
    let asked = std::cell::Cell::new(0);
    let server = |s: &str| {
        asked.set(asked.get() + 1);
        Ok(format!("server:{s}"))
    };
    assert_eq!(f.key(n, " ILSE@X.org ", server).unwrap(), "ılse@x.org");
    assert_eq!(asked.get(), 0);
    assert!(matches!(
        f.key(n, "ann@x.org", |_| unreachable!()).unwrap(),
        Cow::Borrowed("ann@x.org")
    ));
    let server = |s: &str| {
        asked.set(asked.get() + 1);
        Ok(s.replace('İ', "i").to_lowercase())
    };
    assert_eq!(f.key(n, "İLSE@x.org", server).unwrap(), "ilse@x.org");
    assert_eq!(asked.get(), 1);
    // A bad address is refused before any query.
    assert!(matches!(
        f.key(n, "İ", |_| unreachable!()),
        Err(GateError::Invalid(_))
    ));
}

#[test]
fn a_scanned_row_is_keyed_by_what_the_index_compares() {
    let f = Folding::Server {
        ascii: standard_ascii(),
    };
    let n = Normalizer::default();
    let row = ScannedRow {
        stored: " ΑΣ@x.org",
        matched: " ασ@x.org",
    };
    assert_eq!(f.row_key(n, row).unwrap(), "ασ@x.org");
    assert_eq!(Folding::Unicode.row_key(n, row).unwrap(), "ας@x.org");
    let bad = ScannedRow {
        stored: "no-at",
        matched: "no-at",
    };
    assert!(f.row_key(n, bad).is_none());
}
