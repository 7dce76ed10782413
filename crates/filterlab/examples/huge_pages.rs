//! Transparent huge pages, measured on one filter: build time (table allocation and inserts),
//! the table's huge-page coverage, and negative lookups.
//!
//! `cargo run --release -p filterlab --example huge_pages -- <classic|blocked> <on|off|ab> [n]
//! [--warm-heap]` (n = 10,000,000 random u64 keys by default, at 1%). `on`/`off` is
//! the builders' `.pages(Pages::Huge | Pages::Small)`; `ab` builds both in this process and times them in interleaved rounds. `--warm-heap` first allocates, touches and frees heap memory, as a
//! long-running process (the benchmark harness) has done before it builds a filter: glibc then
//! serves a 12 MB request from that reused memory rather than from a fresh mapping. Run one
//! configuration per process, on a quiet machine when timing (nothing else running).

use filterlab::{BlockedBloom, ClassicBloom, Filter, Pages};
use std::hint::black_box;
use std::time::Instant;

const ROUNDS: usize = 9;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn keys(n: usize, seed: u64) -> Vec<[u8; 8]> {
    let mut s = seed;
    (0..n).map(|_| splitmix(&mut s).to_le_bytes()).collect()
}

/// The process's `AnonHugePages` in bytes, from /proc/self/smaps_rollup.
fn anon_huge_bytes() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/smaps_rollup").ok()?;
    let line = s.lines().find(|l| l.starts_with("AnonHugePages:"))?;
    Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
}

/// Heap memory that is touched and freed, so that the next large `malloc` reuses it.
fn warm_heap() {
    // Freeing a 32 MiB mmapped chunk raises glibc's dynamic mmap threshold to 32 MiB ...
    drop(black_box(vec![1u8; 32 << 20]));
    // ... so these come from the heap, are faulted in by the writes, and stay after the free.
    let chunks: Vec<Vec<u8>> = (0..16).map(|_| black_box(vec![1u8; 1 << 20])).collect();
    drop(black_box(chunks));
}

/// A built filter with its build figures.
struct Built<F> {
    filter: F,
    alloc: f64,
    insert: f64,
    /// Huge-page bytes: of the table itself, and the process's growth around the build.
    table: Option<u64>,
    delta: Option<u64>,
}

fn build<F: Filter>(
    make: impl FnOnce(bool) -> filterlab::Result<F>,
    huge: bool,
    members: &[[u8; 8]],
) -> Result<Built<F>, Box<dyn std::error::Error>> {
    let before = anon_huge_bytes();
    let t = Instant::now();
    let made = make(huge);
    let alloc = t.elapsed().as_secs_f64();
    let mut filter = made?;
    let t = Instant::now();
    for k in members {
        filter.insert(k)?;
    }
    let insert = t.elapsed().as_secs_f64();
    let delta = anon_huge_bytes()
        .zip(before)
        .map(|(a, b)| a.saturating_sub(b));
    let table = filter.huge_page_bytes();
    Ok(Built {
        filter,
        alloc,
        insert,
        table,
        delta,
    })
}

/// ns per negative lookup, one pass over `negatives`.
fn time_negatives<F: Filter>(f: &F, negatives: &[[u8; 8]]) -> (f64, usize) {
    let t = Instant::now();
    let fp = negatives
        .iter()
        .filter(|k| f.contains(black_box(&k[..])))
        .count();
    (t.elapsed().as_nanos() as f64 / negatives.len() as f64, fp)
}

fn median(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

/// Builds the filter with the modes asked for (advised, not advised, or both in this process),
/// then times negative lookups on each in interleaved rounds.
fn run<F: Filter>(
    make: impl Fn(bool) -> filterlab::Result<F>,
    modes: &[bool],
    members: &[[u8; 8]],
    negatives: &[[u8; 8]],
) -> Result<(), Box<dyn std::error::Error>> {
    let built = modes
        .iter()
        .map(|&huge| build(&make, huge, members))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ns = vec![Vec::new(); built.len()];
    let mut fp = vec![0; built.len()];
    for _ in 0..ROUNDS {
        for (i, b) in built.iter().enumerate() {
            let (t, f) = time_negatives(&b.filter, negatives);
            ns[i].push(t);
            fp[i] = f;
        }
    }
    for (i, b) in built.iter().enumerate() {
        let bytes = b.filter.size_in_bytes() as f64;
        let pct = |h: Option<u64>| {
            h.map_or("n/a".into(), |h| {
                format!("{:.1}%", h as f64 * 100.0 / bytes)
            })
        };
        let (med, lo, hi) = median(&mut ns[i].clone());
        println!(
            "{} {}: {} bytes | alloc {:.4} s | inserts {:.3} s | coverage table {} / process \
             delta {} | ns/negative median {med:.2} (min {lo:.2}, max {hi:.2}) over {ROUNDS} rounds \
             | fpr {:.5}",
            b.filter.name(),
            if modes[i] { "advised" } else { "not advised" },
            b.filter.size_in_bytes(),
            b.alloc,
            b.insert,
            pct(b.table),
            pct(b.delta),
            fp[i] as f64 / negatives.len() as f64
        );
    }
    if ns.len() == 2 {
        let mut ratio: Vec<f64> = ns[1].iter().zip(&ns[0]).map(|(off, on)| off / on).collect();
        let (med, lo, hi) = median(&mut ratio);
        println!("not advised / advised, per round: median {med:.3} (min {lo:.3}, max {hi:.3})");
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: huge_pages <classic|blocked> <on|off|ab> [n] [--warm-heap]";
    let (variant, mode) = match (args.first(), args.get(1)) {
        (Some(v), Some(m)) => (v.as_str(), m.as_str()),
        _ => return Err(usage.into()),
    };
    let n: usize = args
        .get(2)
        .filter(|a| !a.starts_with("--"))
        .map_or(Ok(10_000_000), |s| s.parse())?;
    let modes: &[bool] = match mode {
        "on" => &[true],
        "off" => &[false],
        "ab" => &[true, false],
        _ => return Err(usage.into()),
    };
    let members = keys(n, 1);
    let negatives = keys(n, 2);
    if args.iter().any(|a| a == "--warm-heap") {
        warm_heap();
    }
    let n64 = n as u64;
    // Either type, built the same way: n keys at 1%, huge pages as the round asks.
    macro_rules! run_on {
        ($ty:ty) => {
            run(
                |huge| {
                    <$ty>::builder()
                        .capacity(n64)
                        .fpr(0.01)
                        .pages(if huge { Pages::Huge } else { Pages::Small })
                        .build()
                },
                modes,
                &members,
                &negatives,
            )
        };
    }
    match variant {
        "classic" => run_on!(ClassicBloom),
        "blocked" => run_on!(BlockedBloom),
        _ => Err(usage.into()),
    }
}
