//! Shared by the integration tests: the PostgreSQL server that `scripts/pg.sh` started.
#![allow(dead_code)]

use std::sync::atomic::{AtomicU32, Ordering};

use filter_classic::ClassicBloom;

/// The connection string of the test server, from `FILTERLAB_PG`; `None` (with the reason
/// printed) when there is none, unless `FILTERLAB_REQUIRE_SERVERS=1`, which makes it a failure.
pub fn pg() -> Option<String> {
    match std::env::var("FILTERLAB_PG") {
        Ok(s) if !s.is_empty() => Some(s),
        _ => {
            let why = "FILTERLAB_PG is not set: no PostgreSQL server (start one with \
                       `eval \"$(scripts/pg.sh start)\"`)";
            if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") {
                panic!("{why}, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping");
            }
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

/// A table name unique to this process and call, so tests can share one database.
pub fn table(tag: &str) -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "t_{tag}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// A classic filter for `n` keys at 1%.
pub fn classic(n: u64) -> ClassicBloom {
    ClassicBloom::builder()
        .capacity(n)
        .fpr(0.01)
        .build()
        .unwrap()
}
