//! The Java peer of the Guava tests: `java/GuavaPeer.java`, compiled once per test process
//! with `javac` against the Guava jar that `scripts/java.sh` finds (installing Debian's
//! default-jdk-headless and libguava-java when they are missing).
#![allow(dead_code)]

use filter_core::testkit::SplitMix64;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// A compiled peer: the class directory and Guava's class path.
pub struct Peer {
    classes: PathBuf,
    guava: String,
}

/// A scratch directory of this test process under cargo's temporary folder.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("guava-peer-{}", std::process::id()))
        .join(name);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// The peer, or `None` (the reason printed) when Java or Guava cannot be had, unless
/// `FILTERLAB_REQUIRE_SERVERS=1`, which makes that a failure.
pub fn peer() -> Option<&'static Peer> {
    static PEER: OnceLock<Result<Peer, String>> = OnceLock::new();
    match PEER.get_or_init(compile) {
        Ok(p) => Some(p),
        Err(why) => {
            if std::env::var("FILTERLAB_REQUIRE_SERVERS").as_deref() == Ok("1") {
                panic!("{why}, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping");
            }
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

/// Guava's class path: `FILTERLAB_GUAVA_CLASSPATH` when set (as `.ci/run` exports), otherwise
/// what `scripts/java.sh` prints.
fn guava_classpath() -> Result<String, String> {
    if let Ok(cp) = std::env::var("FILTERLAB_GUAVA_CLASSPATH") {
        if !cp.is_empty() {
            return Ok(cp);
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/java.sh");
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .map_err(|e| format!("no Guava: running {}: {e}", script.display()))?;
    let err = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        return Err(format!("no Guava: {}", err.trim()));
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .find_map(|l| l.strip_prefix("export FILTERLAB_GUAVA_CLASSPATH="))
        .map(|v| v.trim_matches('\'').to_owned())
        .ok_or_else(|| format!("no Guava: {}", err.trim()))
}

fn compile() -> Result<Peer, String> {
    let guava = guava_classpath()?;
    let classes = scratch("classes");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/java/GuavaPeer.java");
    let out = Command::new("javac")
        .args(["-encoding", "UTF-8", "-cp", &guava, "-d"])
        .arg(&classes)
        .arg(&source)
        .output()
        .map_err(|e| format!("no Java compiler (javac): {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "javac failed on {}: {}",
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(Peer { classes, guava })
}

impl Peer {
    /// Runs `GuavaPeer` with `args`; returns its standard output. Panics, with its standard
    /// error, when it fails: the peer is known to be there, so a failure is a finding.
    pub fn run(&self, args: &[&str]) -> String {
        let cp = format!("{}:{}", self.classes.display(), self.guava);
        let out = Command::new("java")
            .args(["-Xmx2g", "-cp", &cp, "GuavaPeer"])
            .args(args)
            .output()
            .expect("java runs");
        assert!(
            out.status.success(),
            "GuavaPeer {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// Guava's answers (`mightContain`) for `probes` on the filter in `file`, and what it
    /// prints of the filter: its `approximateElementCount()` and `expectedFpp()`.
    pub fn query(&self, file: &Path, probes: &[Vec<u8>], funnel: &str) -> (Vec<bool>, i64, f64) {
        let dir = file.parent().expect("a file in a directory");
        let (probe_file, answers) = (dir.join("probes.bin"), dir.join("answers.txt"));
        write_keys(&probe_file, probes);
        let printed = self.run(&[
            "query",
            &file.display().to_string(),
            &probe_file.display().to_string(),
            &answers.display().to_string(),
            funnel,
        ]);
        let answers: Vec<bool> = std::fs::read(&answers)
            .expect("the peer's answers")
            .iter()
            .map(|&b| b == b'1')
            .collect();
        assert_eq!(answers.len(), probes.len(), "one answer per probe");
        let words: Vec<&str> = printed.split_whitespace().collect();
        let count = words[1].parse().expect("approximateElementCount");
        let fpp = words[3].parse().expect("expectedFpp");
        (answers, count, fpp)
    }
}

/// Writes keys as the peer reads them: a big-endian `int` length, then the bytes.
pub fn write_keys(path: &Path, keys: &[Vec<u8>]) {
    let mut out = Vec::new();
    for k in keys {
        out.extend_from_slice(&(k.len() as u32).to_be_bytes());
        out.extend_from_slice(k);
    }
    std::fs::write(path, out).expect("a key file");
}

/// `n` pseudo-random keys of 0 to 40 bytes (every MurmurHash3 tail length, several blocks),
/// from `seed`.
pub fn random_keys(seed: u64, n: usize) -> Vec<Vec<u8>> {
    let mut rng = SplitMix64(seed);
    (0..n)
        .map(|_| {
            let len = rng.below(41) as usize;
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect()
}
