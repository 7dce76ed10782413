//! Prints the table at each doubling while growing from 1,000 keys: quotients, slot width,
//! entries, void entries and bytes (a look at what growth costs).
use filter_aleph::AlephFilter;
use filter_core::Filter;

fn main() -> filter_core::Result<()> {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let mut f = AlephFilter::builder().capacity(1000).fpr(0.01).build()?;
    let mut k = 0;
    for i in 0..n {
        let before = (f.entries(), f.max_entries());
        f.insert(format!("member-{i}").as_bytes())?;
        if f.expansions() != k {
            k = f.expansions();
            println!(
                "key {i}: doubling {k}, before {} of {} entries; now Q {} width {} voids {} bytes {}",
                before.0, before.1, f.quotients(), f.slot_width(), f.void_entries(), f.size_in_bytes()
            );
        }
    }
    Ok(())
}
