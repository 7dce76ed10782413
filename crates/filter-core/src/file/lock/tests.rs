use super::*;
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn a_second_writer_waits_for_the_first_and_then_locks_the_file_it_saved() {
    let dir = std::env::temp_dir().join(format!("filter-core-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bin");
    std::fs::write(&path, b"old").unwrap();
    let first = lock_for_writing(&path, |_| panic!("free"))
        .unwrap()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let waiter = {
        let path = path.clone();
        std::thread::spawn(move || {
            let second = lock_for_writing(&path, |f| {
                tx.send(()).unwrap();
                wait_for_lock(f)
            })
            .unwrap()
            .unwrap();
            std::io::read_to_string(second.file()).unwrap()
        })
    };
    rx.recv_timeout(Duration::from_secs(10)).unwrap();
    // The first writer saves by a rename, then lets go of the old file.
    crate::write_atomically(&path, b"new").unwrap();
    drop(first);
    assert_eq!(waiter.join().unwrap(), "new");
    assert!(lock_for_writing(&dir.join("missing"), |_| Ok(()))
        .unwrap()
        .is_none());
    let e = lock_for_writing(&dir, |_| Ok(())).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidInput, "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
