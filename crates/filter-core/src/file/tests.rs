//! Tests of saving and reading files.
use super::*;

#[test]
fn replaces_whole_files_and_leaves_no_temporary_behind() {
    let dir = std::env::temp_dir().join(format!("filterlab-file-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bin");
    write_atomically(&path, b"first version, longer").unwrap();
    write_atomically(&path, b"second").unwrap();
    assert_eq!(fs::read(&path).unwrap(), b"second");
    let missing = dir.join("no-such-dir").join("f.bin");
    assert!(write_atomically(&missing, b"x").is_err());
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["f.bin"]);
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn endless_readers_stop_at_the_limit() {
    let e = read_limited(io::repeat(0), 0, 1 << 20).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    // Exactly the limit is fine; one byte more is not.
    assert_eq!(read_limited(&[7u8; 1000][..], 0, 1000).unwrap(), [7; 1000]);
    let e = read_limited(&[7u8; 1001][..], 1001, 1000).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
}

fn sample() -> Vec<u8> {
    let mut e = crate::format::Encoder::new(
        crate::FileKind::new(1, "classic"),
        crate::KeyHasher::default(),
        16,
    );
    e.u64(7).begin_payload().u64s(&[1, 2, 3]);
    e.finish()
}

/// Issue 16, defect 7: an endless reader of zeros (`/dev/zero`) or of a file's bytes
/// repeated costs the header, not the read limit.
#[test]
fn endless_readers_stop_at_the_header() {
    let stream = |max| Limit::Stream(max);
    let zeros = read_declared(io::repeat(0), stream(DEFAULT_READ_LIMIT), &no_check).unwrap();
    assert_eq!(zeros.len(), 24);
    let file = sample();
    let endless = file.iter().copied().cycle();
    let reader = io::Cursor::new(endless.take(10 << 20).collect::<Vec<u8>>());
    let e = read_declared(reader, stream(DEFAULT_READ_LIMIT), &no_check).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    assert_eq!(
        read_declared(&file[..], stream(1 << 20), &no_check).unwrap(),
        file
    );
    let e = read_declared(&file[..], stream(file.len() as u64 - 1), &no_check).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
    // Truncated input comes back as read, for the loader to report.
    assert_eq!(
        read_declared(&file[..30], stream(1 << 20), &no_check).unwrap(),
        &file[..30]
    );
}

/// A reader that counts the bytes it hands out.
struct Counted<'a>(&'a [u8], usize);

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.0.read(buf)?;
        self.1 += n;
        Ok(n)
    }
}

/// The format error an `InvalidData` read error holds.
fn format_error(e: &io::Error) -> FormatError {
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    e.get_ref()
        .and_then(|i| i.downcast_ref::<FormatError>())
        .cloned()
        .unwrap_or_else(|| panic!("not a format error: {e}"))
}

/// Issue 37, item 7: a header that declares more than the file holds, or than its parameters
/// describe, is refused having read the header and parameters only (the sample's head is 40
/// bytes), so a sparse file of any size costs no more memory than that.
#[test]
fn a_declared_length_is_checked_before_the_payload_is_read() {
    // Version 2's head is read whole (to its checksum, 24 bytes after the parameters);
    // version 1's to the payload length.
    let v2 = sample();
    let v1 = crate::format::layout::to_version_1(&v2).unwrap();
    declared_length_checked_before_payload(v2, 24 + 8 + 24);
    declared_length_checked_before_payload(v1, 24 + 8 + 8);
}

fn declared_length_checked_before_payload(file: Vec<u8>, head_len: usize) {
    let declare = |len: u64| {
        let mut b = file.clone();
        b[32..40].copy_from_slice(&len.to_le_bytes());
        b
    };
    // Longer than the file: truncated, and the payload never read.
    let huge = declare(1 << 60);
    let mut r = Counted(&huge, 0);
    let e = read_declared(&mut r, Limit::FileSize(3 << 30), &no_check).unwrap_err();
    assert!(
        matches!(format_error(&e), FormatError::Truncated { .. }),
        "{e}"
    );
    assert_eq!(r.1, head_len);
    // Shorter than the file: trailing bytes, the payload never read.
    let mut r = Counted(&file, 0);
    let size = Limit::FileSize(file.len() as u64 + 5);
    let e = read_declared(&mut r, size, &no_check).unwrap_err();
    assert_eq!(format_error(&e), FormatError::TrailingBytes(5));
    assert_eq!(r.1, head_len);
    // The file's own size, but more than the parameters allow: the check refuses it first.
    let allow_16 = |h: &Head<'_>| match h.payload_len {
        0..=16 => Ok(()),
        declared => Err(FormatError::PayloadTooLarge {
            declared,
            allowed: 16,
        }),
    };
    let mut r = Counted(&file, 0);
    let e = read_declared(&mut r, Limit::FileSize(file.len() as u64), &allow_16).unwrap_err();
    assert!(matches!(
        format_error(&e),
        FormatError::PayloadTooLarge { declared: 24, .. }
    ));
    assert_eq!(r.1, head_len);
    let mut r = Counted(&file, 0);
    let e = read_declared(&mut r, Limit::Stream(DEFAULT_READ_LIMIT), &allow_16).unwrap_err();
    assert!(matches!(
        format_error(&e),
        FormatError::PayloadTooLarge { .. }
    ));
    assert_eq!(r.1, head_len);
    // A parameter section past the limit is refused before it is read.
    let mut long_params = file.clone();
    long_params[20..24].copy_from_slice(&(crate::format::MAX_PARAMS_LEN + 1).to_le_bytes());
    let mut r = Counted(&long_params, 0);
    let e = read_declared(&mut r, Limit::Stream(DEFAULT_READ_LIMIT), &no_check).unwrap_err();
    assert!(matches!(format_error(&e), FormatError::Invalid(_)), "{e}");
    assert_eq!(r.1, 24);
}

#[cfg(all(target_os = "linux", not(miri)))] // Miri isolates the file system.
#[test]
fn devices_are_read_as_far_as_their_header() {
    let bytes = read_path(Path::new("/dev/zero"), DEFAULT_READ_LIMIT, &no_check).unwrap();
    assert_eq!(bytes.len(), 24, "read past the magic of /dev/zero");
    let dir = std::env::temp_dir().join(format!("filterlab-read-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bin");
    fs::write(&path, sample()).unwrap();
    assert_eq!(read_fallibly(&path).unwrap(), sample());
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16, defect 7: the temporary files of killed saves are removed by the next save
/// to the same target, and nothing else is.
#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn the_next_save_removes_stale_temporaries_of_its_target_only() {
    let dir = std::env::temp_dir().join(format!("filterlab-stale-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("f.bin");
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    let plant = |name: &str, age: std::time::SystemTime| {
        let p = dir.join(name);
        File::create(&p).unwrap().set_modified(age).unwrap();
    };
    // pid 2^22 + 1 is above Linux's pid_max limit: no process has it.
    let dead = (1u32 << 22) + 1;
    plant(&format!(".f.bin.tmp-{dead}-0"), old); // killed save: removed
    plant(
        &format!(".f.bin.tmp-{dead}-1"),
        std::time::SystemTime::now(),
    ); // still written
    plant(&format!(".f.bin.tmp-{}-0", std::process::id()), old); // this process's
    plant(".f.bin.tmp-1-0", old); // writer runs (init)
    plant(&format!(".g.bin.tmp-{dead}-0"), old); // another target
    plant(&format!(".f.bin.tmp-{dead}-0x"), old); // not our pattern
    plant("f.bin.tmp-5-0", old);
    write_atomically(&path, b"new").unwrap();
    let mut names: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut expected = vec![
        format!(".f.bin.tmp-{dead}-0x"),
        format!(".f.bin.tmp-{dead}-1"),
        format!(".f.bin.tmp-{}-0", std::process::id()),
        ".f.bin.tmp-1-0".to_string(),
        format!(".g.bin.tmp-{dead}-0"),
        "f.bin".to_string(),
        "f.bin.tmp-5-0".to_string(),
    ];
    expected.sort();
    assert_eq!(names, expected);
    fs::remove_dir_all(&dir).unwrap();
}

/// Issue 16, defect 1's library half: `-o /dev/null` replaced /dev/null when run as root.
#[cfg(unix)]
#[test]
fn only_regular_files_are_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = std::env::temp_dir().join(format!("filterlab-nodes-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let target = dir.join("target");
    fs::write(&target, b"keep").unwrap();
    let link = dir.join("link");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let sub = dir.join("sub");
    fs::create_dir(&sub).unwrap();
    for (path, what) in [
        (Path::new("/dev/null"), "a device"),
        (link.as_path(), "a symbolic link"),
        (sub.as_path(), "a directory"),
    ] {
        let e = write_atomically(path, b"filter").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        assert!(e.to_string().contains(what), "{e}");
    }
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read(&target).unwrap(), b"keep");
    assert!(fs::metadata("/dev/null")
        .unwrap()
        .file_type()
        .is_char_device());
    write_atomically(&target, b"new").unwrap();
    assert_eq!(fs::read(&target).unwrap(), b"new");
    fs::remove_dir_all(&dir).unwrap();
}

#[cfg(unix)]
#[test]
fn a_planted_symlink_at_a_temporary_name_is_never_followed() {
    // create_new (O_EXCL) refuses an existing name, a symlink included: the save tries
    // the next names, then gives up, and the symlink's target is untouched.
    let dir = std::env::temp_dir().join(format!("filterlab-link-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let victim = dir.join("victim");
    fs::write(&victim, b"keep").unwrap();
    let path = dir.join("f.bin");
    let next = COUNTER.load(Ordering::Relaxed);
    for c in next..next + 64 {
        let name = format!(".f.bin.tmp-{}-{c}", std::process::id());
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
    }
    let e = write_atomically(&path, b"filter").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
    assert_eq!(fs::read(&victim).unwrap(), b"keep");
    assert!(!path.exists());
    fs::remove_dir_all(&dir).unwrap();
}
