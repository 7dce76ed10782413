//! Helpers shared by the tests of filters opened in place.

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
