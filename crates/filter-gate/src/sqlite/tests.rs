//! Unit tests of `sqlite.rs`: what a first load leaves behind on the connection.

use super::*;

#[test]
fn a_first_load_restores_the_durability_settings_of_the_store() {
    let dir = std::env::temp_dir().join(format!("gate-sqlite-sync-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let rows: Vec<String> = (0..1000).map(|i| format!("u{i}@x.org")).collect();
    let (store, _) =
        SqliteStore::create_loaded(dir.join("u.db"), "users", rows.iter().map(String::as_str))
            .unwrap();
    let pragma = |name: &str| -> String {
        store
            .conn
            .pragma_query_value(None, name, |r| r.get::<_, rusqlite::types::Value>(0))
            .map(|v| format!("{v:?}"))
            .unwrap()
    };
    // synchronous = NORMAL (1) as `open` sets it, not the load's OFF (0); WAL kept.
    assert_eq!(pragma("synchronous"), "Integer(1)");
    assert_eq!(pragma("journal_mode"), "Text(\"wal\")");
    // The checkpoint emptied the log into the file.
    let wal = std::fs::metadata(dir.join("u.db-wal")).map_or(0, |m| m.len());
    assert_eq!(wal, 0);
    drop(store);
    let _ = std::fs::remove_dir_all(&dir);
}
