//! The peak memory of one `AnyFilter::load` (issue 39's goal: at most 1.05× the file), in a
//! fresh process, measured as the Python harness measures `filterlab.load`
//! (bench-harness/python/bench.py `load-file`): `VmHWM` after the load, reset through
//! `/proc/self/clear_refs` (5) before it, minus `VmRSS` before it. Linux only.
//!
//! ```text
//! cargo run --release -p filterlab --example load_peak -- make PATH TABLE_BYTES
//! cargo run --release -p filterlab --example load_peak -- load PATH
//! ```
//! `make` saves a classic filter of about `TABLE_BYTES` table bytes (1.2e9: the goal's 1.2 GB
//! file) holding 1000 keys; `load` loads it in this process and prints the figures. Run
//! `load` in a process of its own, on a quiet machine.

use filterlab::any::AnyFilter;
use filterlab::{ClassicBloom, Filter, Persist};
use std::time::Instant;

/// A field of /proc/self/status, in KiB.
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"));
    let kib = line.split_whitespace().nth(1).expect("a value");
    kib.parse().expect("KiB")
}

fn make(path: &str, table_bytes: u64) -> Result<(), Box<dyn std::error::Error>> {
    // 9.585 bits per key at 1% (as bench.py's make-file sizes it).
    let capacity = (table_bytes as f64 * 8.0 / 9.58) as u64;
    let mut f = ClassicBloom::builder()
        .capacity(capacity)
        .fpr(0.01)
        .build()?;
    for i in 0..1000 {
        f.insert(format!("key{i}@example.com").as_bytes())?;
    }
    f.save(path)?;
    println!("{path}: {} bytes", std::fs::metadata(path)?.len());
    Ok(())
}

fn load(path: &str) -> std::io::Result<()> {
    let file = std::fs::metadata(path)?.len();
    let before = status_kib("VmRSS");
    std::fs::write("/proc/self/clear_refs", "5")?;
    let start = Instant::now();
    let f = AnyFilter::load(path)?;
    let seconds = start.elapsed().as_secs_f64();
    let peak = (status_kib("VmHWM").saturating_sub(before)) << 10;
    println!(
        "file {file} bytes; load {seconds:.3} s; peak above the start {:.1} MiB = {:.3}x the \
         file; table {} bytes; VmHWM {} KiB",
        peak as f64 / f64::from(1 << 20),
        peak as f64 / file as f64,
        f.size_in_bytes(),
        status_kib("VmHWM")
    );
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["make", path, bytes] => make(path, bytes.parse()?)?,
        ["load", path] => load(path)?,
        _ => return Err("usage: load_peak make PATH TABLE_BYTES | load PATH".into()),
    }
    Ok(())
}
