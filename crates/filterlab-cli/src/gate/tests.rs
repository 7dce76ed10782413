use super::*;

#[test]
fn the_text_names_the_table_the_index_and_the_rights() {
    let text = render(&Migrated {
        table: "auth.users".into(),
        column: "email".into(),
        unique_on: "lower(email)".into(),
        rows: 3,
    });
    assert!(text.starts_with("migrated: auth.users (email)"), "{text}");
    assert!(text.contains("compares lower(email)"), "{text}");
    assert!(text.contains("each of the 3 rows"), "{text}");
    assert!(text.contains("SELECT on auth.users"), "{text}");
}
