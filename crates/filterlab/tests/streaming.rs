//! Issue 16, defect 3: saves stream the table into the file (no second copy) and every
//! allocation on the save paths is fallible.

use filterlab::{
    BlockedBloom, ClassicBloom, CountingBloom, CuckooFilter, Filter, Persist, ScalableBloom,
};
use std::io::{self, Write};

/// A writer that takes `left` bytes, then fails.
struct Failing {
    left: usize,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.len() > self.left {
            return Err(io::Error::other("disk full"));
        }
        self.left -= buf.len();
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

fn check<F: Persist + Filter>(f: &F) {
    let bytes = f.to_bytes();
    let mut streamed = Vec::new();
    f.write_to(&mut streamed).unwrap();
    assert_eq!(streamed, bytes, "{}", f.name());
    assert_eq!(f.try_to_bytes().unwrap(), bytes, "{}", f.name());
    for left in [0, 10, 30, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            f.write_to(Failing { left }).is_err(),
            "{}: a failing writer after {left} bytes",
            f.name()
        );
    }
    f.write_to(Failing { left: bytes.len() }).unwrap();
    let dir = std::env::temp_dir().join(format!("filterlab-stream-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(f.name());
    f.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "{}", f.name());
    assert_eq!(F::load(&path).unwrap().to_bytes(), bytes);
    std::fs::remove_file(&path).unwrap();
    // The last test out removes the shared directory (the others find it not empty).
    let _ = std::fs::remove_dir(&dir);
}

fn filled<F: Filter>(mut f: F, n: usize) -> F {
    for i in 0..n {
        let _ = f.insert(format!("key-{i}").as_bytes());
    }
    f
}

/// Large enough that the payload spans several 64 KiB stages of the stream.
#[test]
fn streamed_files_are_the_bytes_of_to_bytes_in_every_variant() {
    let n = 100_000;
    check(&filled(
        ClassicBloom::builder().capacity(n).build().unwrap(),
        1000,
    ));
    check(&filled(
        CountingBloom::builder().capacity(n).build().unwrap(),
        1000,
    ));
    check(&filled(
        ScalableBloom::builder().capacity(100).build().unwrap(),
        1000,
    ));
    check(&filled(
        CuckooFilter::builder().capacity(n).build().unwrap(),
        1000,
    ));
    check(&filled(
        BlockedBloom::builder().capacity(n).build().unwrap(),
        1000,
    ));
    check(&filled(
        ClassicBloom::builder().capacity(n).build_atomic().unwrap(),
        1000,
    ));
    check(&filled(
        BlockedBloom::builder().capacity(n).build_atomic().unwrap(),
        1000,
    ));
}

/// The child's marker: set, the test is the child that runs under the limit.
#[cfg(target_os = "linux")]
const CHILD: &str = "FILTERLAB_ADDRESS_LIMIT_CHILD";

/// A 64 MiB classic filter saved under an address-space limit (`setrlimit(RLIMIT_AS)`) that
/// leaves room for half a second copy of its table: the save streams and succeeds, and the
/// fallible in-memory forms refuse with an error. The old save made a full copy with an
/// infallible allocation and aborted ("memory allocation of ... failed", SIGABRT). The limit is
/// set in a child process (this test binary, run again for this test alone), so the rest of
/// the suite is untouched.
#[cfg(target_os = "linux")]
#[test]
fn saving_under_an_address_space_limit_streams_or_errors_cleanly() {
    if std::env::var_os(CHILD).is_some() {
        return under_the_limit();
    }
    let name = "saving_under_an_address_space_limit_streams_or_errors_cleanly";
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(
        out.status.success(),
        "child: {:?}\n{stdout}\n{stderr}",
        out.status
    );
    for line in [
        "saved under the limit",
        "try_to_bytes refused",
        "load refused",
    ] {
        assert!(stdout.contains(line), "no {line:?} in\n{stdout}\n{stderr}");
    }
}

#[cfg(target_os = "linux")]
fn under_the_limit() {
    const TABLE: u64 = 64 << 20;
    let f = ClassicBloom::builder()
        .capacity(1000)
        .bits(TABLE * 8)
        .build()
        .unwrap();
    let dir = std::env::temp_dir().join(format!("filterlab-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("big.bin");
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let vm_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmSize:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    let limit = vm_kib * 1024 + TABLE / 2;
    let rlim = libc::rlimit {
        rlim_cur: limit,
        rlim_max: limit,
    };
    // SAFETY: setrlimit reads the struct passed by reference; it changes only this process.
    #[allow(unsafe_code)]
    let rc = unsafe { libc::setrlimit(libc::RLIMIT_AS, &rlim) };
    assert_eq!(rc, 0);
    f.save(&path).unwrap();
    println!("saved under the limit");
    match f.try_to_bytes() {
        Err(e @ filterlab::Error::OutOfMemory { .. }) => println!("try_to_bytes refused: {e}"),
        other => panic!("try_to_bytes under the limit: {:?}", other.map(|b| b.len())),
    }
    match ClassicBloom::load(&path) {
        Err(e) => println!("load refused: {e}"),
        Ok(_) => panic!("loaded a second 64 MiB table under the limit"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
