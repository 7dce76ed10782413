//! What both fuzz targets share: a variant of the registry (`filterlab::any`), built small from
//! fuzzer-chosen parameters. A variant added to the registry is fuzzed with no change here.

use arbitrary::Arbitrary;
use filterlab::{AnyFilter, HashKind, KeyHasher, Params, Variant};

/// The variant a run exercises: an index into `Variant::ALL`.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Pick(u8);

impl Pick {
    pub fn variant(self) -> Variant {
        Variant::ALL[usize::from(self.0) % Variant::ALL.len()]
    }
}

/// Small-filter parameters, kept in ranges that build quickly.
#[derive(Arbitrary, Debug, Clone, Copy)]
pub struct Shape {
    pub capacity: u8,
    pub fpr_step: u8,
    pub seed: u32,
    pub murmur: bool,
}

impl Shape {
    pub fn capacity(&self) -> u64 {
        u64::from(self.capacity % 64) + 1
    }

    /// 0.5, 0.25, ... down to 2^-16.
    pub fn fpr(&self) -> f64 {
        0.5f64.powi(i32::from(self.fpr_step % 16) + 1)
    }

    pub fn hasher(&self) -> KeyHasher {
        let kind = if self.murmur {
            HashKind::Murmur3X64_128
        } else {
            HashKind::Xxh3_128
        };
        KeyHasher::new(kind, u64::from(self.seed)).expect("32-bit seed")
    }

    pub fn params(&self) -> Params {
        Params::new(self.capacity(), self.fpr()).hasher(self.hasher())
    }
}

/// A small filter of `v`. A growing variant starts at 1 to 8 items under a memory cap of 32 to
/// 4127 bytes when its first stage fits under it, so that growth is refused mid-run and the
/// refusal is checked too; a cuckoo table gets 1 to 256 kicks, so that inserts fail early.
pub fn build(v: Variant, s: Shape) -> AnyFilter {
    // Half the cuckoo inputs take the near layout.
    if v == Variant::Cuckoo && s.seed & 0x100 != 0 {
        return cuckoo_near(s);
    }
    if v.capabilities().static_set {
        let keys: Vec<[u8; 2]> = (0..s.capacity()).map(|i| [b'k', i as u8]).collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        return build_static(v, s, &refs);
    }
    let mut p = s.params();
    if v.capabilities().windowed {
        return window(v, s, p);
    }
    if v.capabilities().grows {
        p.capacity = s.capacity() % 8 + 1;
        let capped = p.max_bytes(u64::from(s.seed % 4096) + 32);
        if let Ok(f) = AnyFilter::build(v, &capped) {
            return f;
        }
    }
    // The knob only some variants take: refused (and not applied) by the others; a rate the
    // variant's fingerprints cannot reach (the vqf's 8 bits) is refused too, then 1% is used.
    AnyFilter::build(v, &p.max_kicks(u32::from(s.fpr_step) + 1))
        .or_else(|_| AnyFilter::build(v, &p))
        .or_else(|_| AnyFilter::build(v, &Params::new(p.capacity, 0.01).hasher(s.hasher())))
        .expect("a small filter builds")
}

/// A filter of the static variant `v` built from `keys` (repeats allowed) through the
/// registry, at the shape's rate, or at 1% when its fingerprints cannot meet that rate.
pub fn build_static(v: Variant, s: Shape, keys: &[&[u8]]) -> AnyFilter {
    let hashes: Vec<filterlab::Hash128> = keys.iter().map(|k| s.hasher().hash(k)).collect();
    let p = s.params();
    AnyFilter::build_from_hashes(v, &p, &hashes)
        .or_else(|_| {
            AnyFilter::build_from_hashes(
                v,
                &Params::new(p.capacity, 0.01).hasher(p.hasher),
                &hashes,
            )
        })
        .expect("a small static filter builds")
}

/// A small window of `v`: `capacity` (1 to 64) items; the age-partitioned filter with `k` and
/// `l` from 1 to 8, the others with 1 to 63 generations (each falls back to the next choice
/// when it refuses one); for a window counted in time, `generations + capacity` ticks.
fn window(v: Variant, s: Shape, p: Params) -> AnyFilter {
    let n = filterlab::window::GENERATION_CHOICES[usize::from(s.fpr_step) % 6];
    let ticks = |p: Params, n: u32| {
        if v.capabilities().timed {
            p.window_ticks(u64::from(n) + s.capacity())
        } else {
            p
        }
    };
    let (k, l) = (s.seed % 8 + 1, s.seed / 8 % 8 + 1);
    AnyFilter::build(v, &p.hashes(k).generations(l))
        .or_else(|_| AnyFilter::build(v, &ticks(p.generations(n), n)))
        .or_else(|_| AnyFilter::build(v, &ticks(p, filterlab::window::DEFAULT_GENERATIONS)))
        .expect("a small window builds")
}

/// A cuckoo filter of the near layout (layout 2, a builder option the registry's default build
/// does not take): a window of 1,024 to 8,192 buckets (narrowed to the table) and 1 to 256
/// kicks, so that inserts fail early; as an `AnyFilter::Cuckoo`, so it goes through the
/// registry's loader and the same checks as the rows.
fn cuckoo_near(s: Shape) -> AnyFilter {
    let f = filterlab::CuckooFilter::builder()
        .capacity(s.capacity())
        .fpr(s.fpr())
        .hasher(s.hasher())
        .layout(filterlab::cuckoo::Layout::Near {
            window: 1024 << (s.seed % 4),
        })
        .max_kicks(u32::from(s.fpr_step) + 1)
        .build()
        .expect("a small near cuckoo filter builds");
    AnyFilter::Cuckoo(f)
}
