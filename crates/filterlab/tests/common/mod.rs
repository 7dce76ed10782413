//! Helpers shared by the tests of saved files and of filters opened in place.
// Each test file that includes this module uses some of it.
#![allow(dead_code)]

use filterlab::{AnyFilter, Filter, Params, Timestamp, Variant};
use std::path::{Path, PathBuf};

/// A directory of its own under the system's temporary one, removed when dropped.
pub struct Dir(PathBuf);

impl Dir {
    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh directory `filterlab-TAG-PID-N` under the system's temporary one.
pub fn tempdir(tag: &str) -> Dir {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("filterlab-{tag}-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&p).unwrap();
    Dir(p)
}

/// The file of one filter of `v` in each state a file can hold: empty (but for the static
/// ones), filled, and for the growing and windowed ones after `grown` inserts, over several
/// stages.
pub fn saved_states(v: Variant, grown: u64) -> Vec<Vec<u8>> {
    let caps = v.capabilities();
    let mut params = Params::new(500, 0.01);
    if caps.timed {
        params = params.window_ticks(700);
    }
    let key = |i: u64| params.hasher.hash(&i.to_le_bytes());
    let keys: Vec<_> = (0..400).map(key).collect();
    if caps.static_set {
        let f = AnyFilter::build_from_hashes(v, &params, &keys).unwrap();
        return vec![f.to_bytes()];
    }
    let mut f = AnyFilter::build(v, &params).unwrap();
    let mut out = vec![f.to_bytes()];
    let count = if caps.grows || caps.windowed {
        grown
    } else {
        400
    };
    for i in 0..count {
        let inserted = if caps.timed {
            f.insert_hash_at(key(i), Timestamp(i / 10))
        } else {
            f.insert_hash(key(i))
        };
        inserted.unwrap();
    }
    out.push(f.to_bytes());
    out
}
