//! Unit tests of `stages/systems/servers.rs`.

use super::*;

#[test]
fn exports_are_read_by_name() {
    let text = "export FILTERLAB_PG='host=127.0.0.1 port=5'\nexport FILTERLAB_PG_DIR='/tmp/x'\n";
    assert_eq!(
        export_value(text, "FILTERLAB_PG").unwrap(),
        "host=127.0.0.1 port=5"
    );
    assert_eq!(export_value(text, "FILTERLAB_PG_DIR").unwrap(), "/tmp/x");
    assert_eq!(export_value(text, "FILTERLAB_REDIS"), None);
}
