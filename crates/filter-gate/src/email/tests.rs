use super::*;

#[test]
fn trims_and_lower_cases_only_by_default() {
    let n = Normalizer::default();
    assert_eq!(
        n.normalize("\tA.B+c@Example.ORG\n").unwrap(),
        "a.b+c@example.org"
    );
    assert_eq!(n.normalize("a.b+c@gmail.com").unwrap(), "a.b+c@gmail.com");
}

#[test]
fn normal_addresses_are_borrowed_and_others_rewritten() {
    let n = Normalizer::default();
    assert!(matches!(
        n.normalize_cow("a.b@x.org").unwrap(),
        Cow::Borrowed("a.b@x.org")
    ));
    assert!(matches!(
        n.normalize_cow(" a.b@x.org ").unwrap(),
        Cow::Borrowed("a.b@x.org")
    ));
    assert_eq!(n.normalize_cow("Ä@x.org").unwrap(), "ä@x.org");
    // A title-case letter is not upper case, but lower-casing changes it.
    assert_eq!(n.normalize_cow("\u{1C5}@x.org").unwrap(), "\u{1C6}@x.org");
    let g = Normalizer::default().gmail_rules(true);
    assert_eq!(g.normalize_cow("a.b@gmail.com").unwrap(), "ab@gmail.com");
}

#[test]
fn gmail_rules_apply_to_gmail_only() {
    let g = Normalizer::default().gmail_rules(true);
    assert_eq!(g.normalize("A.B+c@gmail.com").unwrap(), "ab@gmail.com");
    assert_eq!(
        g.normalize("a.b+c@example.org").unwrap(),
        "a.b+c@example.org"
    );
    assert_eq!(g.normalize("+tag@gmail.com"), Err(EmailError::EmptyPart));
}

#[test]
fn bad_addresses_are_refused_with_their_reason() {
    let n = Normalizer::default();
    assert_eq!(n.normalize("   "), Err(EmailError::Empty));
    assert_eq!(n.normalize("user.example.org"), Err(EmailError::NoAt));
    assert_eq!(n.normalize("@example.org"), Err(EmailError::EmptyPart));
    assert_eq!(n.normalize("user@"), Err(EmailError::EmptyPart));
    assert_eq!(
        n.normalize("a\u{0}b@example.org"),
        Err(EmailError::ControlCharacter { at: 1 })
    );
    let long = format!("{}@example.org", "a".repeat(250));
    assert_eq!(n.normalize(&long), Err(EmailError::TooLong { len: 262 }));
    let edge = format!("{}@x.org", "a".repeat(MAX_EMAIL_BYTES - 6));
    assert!(
        n.normalize(&edge).is_ok(),
        "exactly {MAX_EMAIL_BYTES} bytes is allowed"
    );
}

#[test]
fn the_length_limit_applies_after_lower_casing() {
    let n = Normalizer::default();
    // 124 × `İ` (2 bytes each) + "@x.org": 254 bytes typed, 378 once lower-cased.
    let raw = format!("{}@x.org", "\u{130}".repeat(124));
    assert_eq!(raw.len(), MAX_EMAIL_BYTES);
    assert_eq!(n.normalize(&raw), Err(EmailError::TooLong { len: 378 }));
    // Kelvin signs (3 bytes) become `k` (1 byte): 300 bytes typed, 106 stored.
    let raw = format!("{}@x.org", "\u{212A}".repeat(98));
    assert!(raw.len() > MAX_EMAIL_BYTES);
    assert_eq!(n.normalize(&raw).unwrap().len(), 104);
}
