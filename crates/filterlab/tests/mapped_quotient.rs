//! The quotient filter opened in place (issue 39): it answers every key as its load does, after
//! resizes too; and a file whose tables hold garbage (the occupied and run-end bits, the saved
//! offsets, the remainders, in the blocks of format 3) still opens, in O(1), and answers every lookup without panicking,
//! while `Mapped::verify` (for a file whose checksum was not recomputed) or the load (for one
//! whose checksums were) refuses it.

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::format::{self, layout};
use filterlab::{Explain, Filter, FormatError, Persist, QuotientFilter};

mod common;
use common::tempdir;

fn key(i: u64) -> Vec<u8> {
    format!("q{i}@example.com").into_bytes()
}

/// A quotient filter for `capacity` holding keys `0..n`, resized `resizes` times on the way.
fn quotient(capacity: u64, n: u64, resizes: u32) -> QuotientFilter {
    let params = Params::new(capacity, 0.001);
    let AnyFilter::Quotient(mut f) = AnyFilter::build(Variant::Quotient, &params).unwrap() else {
        unreachable!("the registry builds a quotient filter")
    };
    let per_step = n / (u64::from(resizes) + 1);
    for i in 0..n {
        if i > 0 && i % per_step == 0 && f.resizes() < resizes {
            f.resize().unwrap();
        }
        f.insert(&key(i)).unwrap();
    }
    assert_eq!(f.resizes(), resizes);
    f
}

#[test]
fn an_open_quotient_filter_answers_every_key_as_the_loaded_one() {
    let d = tempdir("mapped-quotient");
    for (capacity, n, resizes) in [(5_000, 4_700, 0), (2_000, 5_500, 2), (64, 10, 1)] {
        let p = d.path().join(format!("q{resizes}.bin"));
        AnyFilter::from(quotient(capacity, n, resizes))
            .save(&p)
            .unwrap();
        let (m, loaded) = (AnyFilter::open(&p).unwrap(), AnyFilter::load(&p).unwrap());
        assert_eq!(m.parameters(), loaded.parameters());
        let keys: Vec<Vec<u8>> = (0..n + 30_000).map(key).collect();
        for k in &keys {
            let h = m.hasher().hash(k);
            assert_eq!(m.contains(k), loaded.contains(k), "{k:?}");
            assert_eq!(m.count_hash(h).unwrap(), loaded.count_hash(h).unwrap());
        }
        assert!(keys[..n as usize].iter().all(|k| m.contains(k)));
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        m.contains_batch(&refs, &mut a);
        loaded.contains_batch(&refs, &mut b);
        assert_eq!(a, b);
        m.verify().unwrap();
    }
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// Where the four kinds of field lie in a file: the payload's start, the bytes per block, the
/// number of blocks, and per kind (occupieds, runends, remainders, offsets) its (start, length)
/// in a block (format 3: a block is a 32-bit offset, the two metadata words, then the packed
/// remainders; the end's offset leads the 16-byte tail after the last block).
struct Fields {
    at: usize,
    stride: usize,
    blocks: usize,
    kinds: [(usize, usize); 4],
}

fn fields(f: &QuotientFilter, bytes: &[u8]) -> Fields {
    let l = layout::parse(bytes, bytes.len() as u64).unwrap();
    let rems = 8 * f.remainder_bits() as usize;
    let (stride, blocks) = (20 + rems, (f.slots() / 64) as usize);
    assert_eq!(stride * blocks + 16, l.payload_len as usize);
    Fields {
        at: l.payload_offset as usize,
        stride,
        blocks,
        kinds: [(4, 8), (12, 8), (20, rems), (0, 4)],
    }
}

/// Garbage in one kind of field of `bytes` over a run of blocks (all of them from a random
/// one on, or a few): random bytes, all ones, all zeros, or random 32-bit values (large ones
/// included) in each.
fn damage(bytes: &mut [u8], fields: &Fields, kind: usize, rng: &mut u64) {
    let from = (xorshift(rng) % fields.blocks as u64) as usize / 2;
    let to = if xorshift(rng) % 2 == 0 {
        fields.blocks
    } else {
        (from + 1 + (xorshift(rng) % 3) as usize).min(fields.blocks)
    };
    let value = xorshift(rng) % 4;
    let (start, len) = fields.kinds[kind];
    for b in from..to {
        let at = fields.at + b * fields.stride + start;
        for chunk in bytes[at..at + len].chunks_mut(4) {
            let v = match value {
                0 => xorshift(rng) as u32,
                1 => u32::MAX,
                2 => 0,
                _ => [1, 63, 64, 4096, u32::MAX / 2][(xorshift(rng) % 5) as usize],
            };
            let n = chunk.len();
            chunk.copy_from_slice(&v.to_le_bytes()[..n]);
        }
    }
}

/// Seeded corruptions of every table of a resized filter's file. Each file is written twice:
/// as damaged (its checksum stale: `verify` and the load refuse it), and with its checksums
/// recomputed (the load's checks of the table refuse it, or it loads as the very bytes, a
/// change of remainders alone being undetectable). Whatever opens answers every lookup.
#[test]
fn garbage_tables_open_and_answer_without_panicking() {
    let d = tempdir("mapped-quotient-garbage");
    let f = quotient(600, 1_500, 2);
    let good = f.to_bytes();
    let fields = fields(&f, &good);
    let probes: Vec<Vec<u8>> = (0..1_500)
        .step_by(7)
        .chain(10_000..10_200)
        .map(key)
        .collect();
    let refs: Vec<&[u8]> = probes.iter().map(Vec::as_slice).collect();
    let (mut rng, mut opened, mut refused_loads) = (0x9e37_79b9_u64, 0, 0);
    for round in 0..240 {
        let table = round % 4;
        let mut bytes = good.clone();
        damage(&mut bytes, &fields, table, &mut rng);
        if bytes == good {
            continue;
        }
        let mut sealed = bytes.clone();
        format::reseal(&mut sealed);
        for (resealed, file) in [(false, &bytes), (true, &sealed)] {
            let p = d.path().join("garbage.bin");
            std::fs::write(&p, file).unwrap();
            let loaded = AnyFilter::load(&p);
            if let Ok(m) = AnyFilter::open(&p) {
                opened += 1;
                let mut batch = Vec::new();
                m.contains_batch(&refs, &mut batch);
                for (k, &b) in refs.iter().zip(&batch) {
                    assert_eq!(m.contains(k), b, "round {round}");
                    let n = m.count_hash(m.hasher().hash(k)).unwrap();
                    assert_eq!(n > 0, b, "round {round}");
                    let _ = m.positions(k);
                }
                match (resealed, m.verify()) {
                    (false, Err(FormatError::ChecksumMismatch { .. })) | (true, Ok(())) => {}
                    (_, v) => panic!("round {round}, resealed {resealed}: verify {v:?}"),
                }
            }
            match loaded {
                Err(_) => refused_loads += usize::from(resealed),
                Ok(g) => {
                    assert!(
                        resealed && table == 2,
                        "round {round}: table {table} loaded"
                    );
                    assert_eq!(g.to_bytes(), sealed, "round {round}");
                }
            }
        }
    }
    assert!(opened > 300, "{opened} opens");
    assert!(refused_loads > 150, "{refused_loads} refused loads");
}
