//! A fixed workload for instruction and miss counts under valgrind (never for timing): builds a
//! ribbon filter at 1 % from `n` pre-computed key hashes, then answers `probes` batched lookups
//! of members and `probes` of non-members.
//!
//! ```text
//! cargo build --release -p filter-ribbon --example ribbon_counts
//! valgrind --tool=callgrind target/release/examples/ribbon_counts setup 1000000 1000000
//! valgrind --tool=callgrind target/release/examples/ribbon_counts build 1000000 1000000
//! valgrind --tool=callgrind target/release/examples/ribbon_counts lookup 1000000 1000000
//! ```
//!
//! `build` minus `setup`, divided by `n`, is the build's cost per key; `lookup` minus `build`,
//! divided by `2 probes`, is a batched lookup's. Without valgrind, `build` prints the slots and
//! seed the construction settled on (how many retries and bumps it took).

use filter_core::testkit::hashes;
use filter_core::{Persist, StaticFilter};
use filter_ribbon::Ribbon;
use std::hint::black_box;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let usage = "usage: ribbon_counts setup|build|lookup|bytes <keys> <probes>";
    let mode = args.get(1).ok_or(usage)?.as_str();
    let n: usize = args.get(2).ok_or(usage)?.parse()?;
    let probes: usize = args.get(3).ok_or(usage)?.parse()?;
    let members = hashes(1, n);
    let outsiders = hashes(2, probes);
    black_box((&members, &outsiders));
    if mode == "setup" {
        return Ok(());
    }
    let f = Ribbon::builder().fpr(0.01).build_from_hashes(&members)?;
    println!(
        "n {} slots {} seed {:#x} bits/key {:.4}",
        f.len(),
        f.slots(),
        f.seed(),
        f.bits_per_key()
    );
    if mode == "bytes" {
        // FNV-1a of the saved filter, to compare the bytes two versions of the build produce.
        let sum = f.to_bytes().iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        println!("saved bytes fnv1a {sum:#018x}");
    }
    if mode == "lookup" {
        let mut out = Vec::new();
        let chunk = 256;
        let mut hits = 0;
        for set in [&members[..probes.min(n)], &outsiders[..]] {
            for part in set.chunks(chunk) {
                f.contains_hash_batch(black_box(part), &mut out);
                hits += out.iter().filter(|&&b| b).count();
            }
        }
        println!("hits {hits}");
    }
    Ok(())
}
