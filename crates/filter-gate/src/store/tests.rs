use super::*;

#[test]
fn table_names_must_be_plain_identifiers() {
    assert!(check_table_name("users_2").is_ok());
    for bad in ["", "Users", "1users", "users; drop table x", "a\"b"] {
        assert!(check_table_name(bad).is_err(), "{bad:?} must be refused");
    }
}
