use super::*;

#[test]
fn an_unreachable_server_is_a_clear_error() {
    // Port 1 on loopback: nothing listens there, the connection is refused at once.
    let err = PgStore::connect("host=127.0.0.1 port=1 user=x dbname=x", "users").unwrap_err();
    assert_eq!(err.kind, StoreErrorKind::Unavailable, "{err}");
    assert!(err.to_string().contains("unreachable"), "{err}");
}
