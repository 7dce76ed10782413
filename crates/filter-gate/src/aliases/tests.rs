use super::*;

fn row<'a>(stored: &'a str, matched: &'a str) -> ScannedRow<'a> {
    ScannedRow { stored, matched }
}

#[test]
fn a_row_found_by_its_key_is_no_alias_and_one_that_is_not_is_held_once() {
    let n = Normalizer::default();
    let mut a = Aliases::default();
    let mut added = Vec::new();
    a.learn(n, "ann@x.org", row("Ann@X.org", "ann@x.org"), &mut |k| {
        added.push(k.to_owned())
    });
    assert!(a.is_empty());
    // A libc lower(): `İ` folds to `i`, the gate's key keeps a combining dot.
    for _ in 0..2 {
        a.learn(
            n,
            "i\u{307}@x.org",
            row("\u{130}@x.org", "i@x.org"),
            &mut |k| added.push(k.to_owned()),
        );
    }
    assert_eq!(a.len(), 1, "a re-read row is held once");
    assert_eq!(a.stored_forms("i\u{307}@x.org"), ["\u{130}@x.org"]);
    assert!(a.stored_forms("i@x.org").is_empty());
    // The filter gets the key and what the index compares (itself a key).
    assert!(added.iter().any(|k| k == "i@x.org"), "{added:?}");
    // An index on the column compares the stored text: not a key, not added.
    a.learn(n, "zed@x.org", row("Zed@X.org", "Zed@X.org"), &mut |k| {
        added.push(k.to_owned())
    });
    assert!(!added.iter().any(|k| k == "Zed@X.org"));
    a.forget("zed@x.org", "Zed@X.org");
    assert_eq!(a.len(), 1);
    assert!(a.stored_forms("zed@x.org").is_empty());
    assert!(a.refusal(|_, _| String::new()).is_none());
}

#[test]
fn rows_beyond_the_cap_are_not_held_and_make_a_refusal() {
    let n = Normalizer::default();
    let mut a = Aliases::default();
    for i in 0..=MAX_UNNORMALISED_ROWS {
        let (stored, key) = (format!("U{i}@x.org"), format!("u{i}@x.org"));
        a.learn(n, &key, row(&stored, &stored), &mut |_| {});
    }
    assert_eq!(a.len(), MAX_UNNORMALISED_ROWS);
    assert!(a.overflowed());
    let last = format!("u{MAX_UNNORMALISED_ROWS}@x.org");
    assert!(a.stored_forms(&last).is_empty());
    match a.refusal(|s, k| format!("UPDATE t SET e = {k:?} WHERE e = {s:?}")) {
        Some(GateError::Unnormalised { rows, key, fix, .. }) => {
            assert_eq!(rows, MAX_UNNORMALISED_ROWS as u64 + 1);
            assert_eq!(key, last);
            assert!(fix.starts_with("UPDATE t"), "{fix}");
        }
        other => panic!("{other:?}"),
    }
}
