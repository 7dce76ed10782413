use super::*;

#[cfg(unix)]
#[test]
fn a_file_larger_than_the_free_space_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f.bin");
    assert!(free_space(&out).is_some_and(|f| f > 0));
    check_space(&out, 1).unwrap();
    let e = check_space(&out, u64::MAX).unwrap_err();
    assert!(e.to_string().contains("free some space"), "{e}");
}

#[test]
fn a_directory_that_takes_no_new_files_is_refused_up_front() {
    let dir = tempfile::tempdir().unwrap();
    check_directory(&dir.path().join("f.bin")).unwrap();
    let e = check_directory(&dir.path().join("missing").join("f.bin")).unwrap_err();
    assert!(e.to_string().contains("does not take new files"), "{e}");
    // The probe is gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
