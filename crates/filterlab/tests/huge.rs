//! Filters above 2^32 bits or slots, end to end: insert, query, save, load, query again.
//! Heavy (about 3 GiB at peak, a minute or two in release), so ignored by default:
//! `just huge`, i.e. `cargo test --release -p filterlab --test huge -- --ignored --test-threads 1`.

use filterlab::{format, reduce, ClassicBloom, CuckooFilter, Filter, Persist, Variant};

const KEYS: u64 = 200_000;

fn key(i: u64) -> [u8; 8] {
    i.to_le_bytes()
}

fn temp_path(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("filterlab-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Saves `f`, drops it, loads the file and checks every key is still there.
fn save_load_query<F: Filter + Persist>(f: F, name: &str) -> F {
    let path = temp_path(name);
    f.save(&path).unwrap();
    let len = f.len();
    drop(f);
    let back = F::load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(back.len(), len);
    assert!(
        (0..KEYS).all(|i| back.contains(&key(i))),
        "false negative after load"
    );
    back
}

#[test]
#[ignore]
fn classic_above_2_pow_32_bits_end_to_end() {
    let m = 3u64 << 31; // 1.5 x 2^32 bits, 768 MiB: a third of the positions lie above 2^32
    let mut f = ClassicBloom::builder()
        .capacity(KEYS)
        .bits(m)
        .hashes(7)
        .build()
        .unwrap();
    for i in 0..KEYS {
        f.insert(&key(i)).unwrap();
    }
    assert!((0..KEYS).all(|i| f.contains(&key(i))));
    // Bits above 2^32 are used: the payload's words past 2^26 (bytes past 2^29) are not all
    // zero. The format's own decoder finds the payload.
    let bytes = f.to_bytes();
    let mut saved = format::decode(&bytes, Variant::Classic.kind()).unwrap();
    let payload = saved.payload.take(saved.payload.remaining()).unwrap();
    let high = &payload[1usize << 29..];
    let set: u32 = high.iter().map(|b| b.count_ones()).sum();
    // About a third of the 1.4M probes land there.
    assert!(set > 300_000, "{set} bits set above 2^32");
    drop(bytes);
    let back = save_load_query(f, "classic.bin");
    assert_eq!(back.bits(), m);
}

#[test]
#[ignore]
fn cuckoo_above_2_pow_32_slots_end_to_end() {
    // 1.5 x 2^30 buckets of four 2-bit slots: 1.5 x 2^32 slots in 1.5 GiB.
    let buckets = 3u64 << 29;
    let capacity = (buckets as f64 * 4.0 * filterlab::cuckoo::DESIGN_LOAD).floor() as u64;
    let mut f = CuckooFilter::builder()
        .capacity(capacity)
        .fingerprint_bits(2)
        .build()
        .unwrap();
    assert_eq!(f.buckets(), buckets);
    for i in 0..KEYS {
        f.insert(&key(i)).unwrap();
    }
    assert!((0..KEYS).all(|i| f.contains(&key(i))));
    let hasher = f.hasher();
    let above = (0..KEYS)
        .filter(|&i| reduce(hasher.hash(&key(i)).lo, buckets) * 4 >= 1 << 32)
        .count();
    // A third of the keys, within 4 sigma.
    let third = KEYS as f64 / 3.0;
    let sigma = (KEYS as f64 * (1.0 / 3.0) * (2.0 / 3.0)).sqrt();
    assert!(
        (above as f64 - third).abs() < 4.0 * sigma,
        "{above} keys above slot 2^32"
    );
    let mut back = save_load_query(f, "cuckoo.bin");
    for i in 0..1000 {
        filterlab::Deletable::remove(&mut back, &key(i)).unwrap();
    }
    assert_eq!(back.len(), KEYS - 1000);
}
