//! Every variant's positions are the memory an insert really changes: a key is inserted into an
//! empty filter and the saved payload's changed bits are compared with what `Explain` reports.

use filterlab::any::{AnyFilter, Params, Variant};
use filterlab::{Explain, Filter, Positions};

/// The payload of a saved filter (where its head places it).
fn payload(bytes: &[u8]) -> Vec<u8> {
    let l = filterlab::format::layout::parse(bytes, bytes.len() as u64).unwrap();
    bytes[l.payload_offset as usize..][..l.payload_len as usize].to_vec()
}

/// Bit indexes of the payload that differ between two saves.
fn changed_bits(before: &[u8], after: &[u8]) -> Vec<u64> {
    let mut out = Vec::new();
    for (i, (a, b)) in before.iter().zip(after).enumerate() {
        for bit in 0..8 {
            if (a ^ b) >> bit & 1 == 1 {
                out.push(i as u64 * 8 + bit);
            }
        }
    }
    out
}

fn sorted(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v.dedup();
    v
}

/// What an insert of `key` changed, and the positions reported for it.
fn inserted(v: Variant, key: &[u8]) -> (Positions, Vec<u64>, Vec<u8>, AnyFilter) {
    let mut f = AnyFilter::build(v, &Params::new(3000, 0.01)).unwrap();
    // A time window's payload starts with its slices' counts; its table is the rest.
    let timed = v.capabilities().timed;
    let table = |f: &AnyFilter| {
        let p = payload(&f.to_bytes());
        let counts = if timed {
            p.len() - f.size_in_bytes()
        } else {
            0
        };
        p[counts..].to_vec()
    };
    let before = table(&f);
    let positions = f.positions(key);
    if timed {
        f.insert_at(key, filterlab::Timestamp(0)).unwrap();
    } else {
        f.insert(key).unwrap();
    }
    let after = table(&f);
    (positions, changed_bits(&before, &after), after, f)
}

#[test]
fn positions_are_what_an_insert_changes_in_every_variant() {
    // The static variants take no insert: `static_positions_give_every_member_s_fingerprint`.
    for &v in Variant::ALL.iter().filter(|v| !v.capabilities().static_set) {
        for key in [&b"alice@example.com"[..], b"bob", b""] {
            let (positions, changed, after, f) = inserted(v, key);
            check(&positions, &changed, &after, &f);
            assert_eq!(f.positions(key), positions, "{v}: positions move on insert");
        }
    }
}

fn check(positions: &Positions, changed: &[u64], after: &[u8], f: &AnyFilter) {
    let v = f.variant();
    match positions {
        Positions::Bits { bits, .. } => assert_eq!(sorted(bits.clone()), changed, "{v}"),
        Positions::Counters {
            counters,
            counter_bits,
            ..
        } => {
            let raised = sorted(
                changed
                    .iter()
                    .map(|b| b / u64::from(*counter_bits))
                    .collect(),
            );
            assert_eq!(sorted(counters.clone()), raised, "{v}");
        }
        Positions::Stages { stages } => check_stages(stages, changed, f),
        Positions::Lanes { block, lane_bits } => {
            let want: Vec<u64> = (0..8)
                .map(|j| (block * 8 + j) * 32 + u64::from(lane_bits[j as usize]))
                .collect();
            assert_eq!(sorted(want), changed, "{v}");
        }
        Positions::Buckets {
            fingerprint,
            primary,
            alternate,
        } => check_buckets(*fingerprint, (*primary, *alternate), changed, after, f),
        Positions::Run {
            quotient,
            remainder,
            remainder_bits,
        } => check_run((*quotient, *remainder, *remainder_bits), changed, f),
        other => panic!("{v}: positions of a kind this test does not know: {other:?}"),
    }
}

/// A growing filter's one stage: the expandable filter's buckets, or a scalable stage's bits.
fn check_stages(stages: &[Positions], changed: &[u64], f: &AnyFilter) {
    let v = f.variant();
    if let AnyFilter::Expandable(e) = f {
        let [Positions::Buckets {
            fingerprint,
            primary,
            alternate,
        }] = stages
        else {
            panic!("{v}: one stage of buckets expected, got {stages:?}")
        };
        // The stage payload starts with its level (u32) and entry count (u64, which the
        // insert raises from 0 to 1: bit 32); an empty stage takes the fingerprint in the
        // first slot of one of its buckets.
        let bits = u64::from(e.initial_fingerprint_bits());
        let written = |bucket: u64| {
            let at = 96 + bucket * 4 * bits;
            let mut w: Vec<u64> = (0..bits)
                .filter(|i| fingerprint >> i & 1 == 1)
                .map(|i| at + i)
                .collect();
            w.insert(0, 32);
            w
        };
        assert!(
            written(*primary) == changed || written(*alternate) == changed,
            "{v}: {changed:?}"
        );
        assert!(*fingerprint >= 1 && *fingerprint < 1 << bits, "{v}");
        return;
    }
    let [Positions::Bits { bits, .. }] = stages else {
        panic!("{v}: one stage of bits expected, got {stages:?}")
    };
    // The stage payload starts with its item count, m and k (8 + 8 + 4 bytes), and
    // the item count changes too.
    let in_stage: Vec<u64> = changed
        .iter()
        .filter(|&&b| b >= 160)
        .map(|b| b - 160)
        .collect();
    assert_eq!(sorted(bits.clone()), in_stage, "{v}");
}

/// The cuckoo filter: the fingerprint written into a slot of its primary or alternate bucket.
fn check_buckets(
    fingerprint: u64,
    (primary, alternate): (u64, u64),
    changed: &[u64],
    after: &[u8],
    f: &AnyFilter,
) {
    let v = f.variant();
    if let AnyFilter::Vqf(_) = f {
        return check_vqf(fingerprint, (primary, alternate), changed);
    }
    let AnyFilter::Cuckoo(c) = f else {
        panic!("{v} reports buckets")
    };
    let bits = u64::from(c.fingerprint_bits());
    let at = primary * u64::from(filterlab::cuckoo::SLOTS) * bits;
    let slot = (0..bits).fold(0u64, |acc, i| {
        let b = at + i;
        acc | u64::from(after[(b / 8) as usize] >> (b % 8) & 1) << i
    });
    // An empty table: the fingerprint goes to the first slot of one of its buckets.
    let alt_at = alternate * u64::from(filterlab::cuckoo::SLOTS) * bits;
    let in_primary = sorted((at..at + bits).collect());
    let in_alternate = sorted((alt_at..alt_at + bits).collect());
    let written: Vec<u64> = (0..bits)
        .filter(|i| fingerprint >> i & 1 == 1)
        .map(|i| {
            if slot == fingerprint {
                at + i
            } else {
                alt_at + i
            }
        })
        .collect();
    assert_eq!(written, changed, "{v}");
    assert!(changed
        .iter()
        .all(|b| in_primary.contains(b) || in_alternate.contains(b)));
    assert!(fingerprint >= 1 && fingerprint < 1 << bits, "{v}");
}

/// The vector quotient filter: bucket `q` of block `b` is the table's bucket `72b + q`. In an
/// empty table the key goes to its first block: the bucket code gains a 1 bit at position `q`
/// (the bucket's run, ahead of its end), and the fingerprint fills slot 0 (bytes 16.. of the
/// 64-byte block).
fn check_vqf(fingerprint: u64, (primary, alternate): (u64, u64), changed: &[u64]) {
    let buckets = u64::from(filterlab::vqf::block::BUCKETS);
    let (block, q) = (primary / buckets, primary % buckets);
    assert_eq!(
        alternate % buckets,
        q,
        "vqf: the same bucket in both blocks"
    );
    let at = block * 512;
    let mut want = vec![at + q];
    want.extend(
        (0..8)
            .filter(|i| fingerprint >> i & 1 == 1)
            .map(|i| at + 128 + i),
    );
    assert_eq!(sorted(want), changed, "vqf");
    assert!((1..256).contains(&fingerprint), "vqf");
}

/// The quotient filter: the home slot's occupied and run-end bits, and the remainder. The
/// Aleph filter, on the same table: the fingerprint bits followed by the length marker (in
/// an empty table, of the full slot width).
fn check_run(
    (quotient, remainder, remainder_bits): (u64, u64, u32),
    changed: &[u64],
    f: &AnyFilter,
) {
    let v = f.variant();
    let (remainder, remainder_bits) = match f {
        AnyFilter::Quotient(_) => (remainder, remainder_bits),
        AnyFilter::Aleph(_) => (remainder << 1 | 1, remainder_bits + 1),
        _ => panic!("{v} reports a run"),
    };
    // An empty table: the remainder goes to its home slot, whose occupied and run-end
    // bits are set. The payload (format 3) is one block per 64 slots: a 32-bit offset, the
    // occupieds and run-ends words, then the 64 packed remainders.
    let block = (quotient / 64) * (20 + 8 * u64::from(remainder_bits)) * 8;
    let slot = quotient % 64;
    let rem_at = block + 160 + slot * u64::from(remainder_bits);
    let mut want = vec![block + 32 + slot, block + 96 + slot];
    want.extend(
        (0..u64::from(remainder_bits))
            .filter(|i| remainder >> i & 1 == 1)
            .map(|i| rem_at + i),
    );
    assert_eq!(sorted(want), changed, "{v}");
}

#[test]
fn the_check_fails_on_wrong_positions() {
    let (positions, changed, after, f) = inserted(Variant::Classic, b"alice@example.com");
    let Positions::Bits { m, bits } = positions else {
        panic!()
    };
    let moved = Positions::Bits {
        m,
        bits: bits.iter().map(|b| (b + 1) % m).collect(),
    };
    let caught = std::panic::catch_unwind(|| check(&moved, &changed, &after, &f));
    assert!(caught.is_err(), "shifted positions passed the check");
}

/// A static filter built from `n` keys, and its keys.
fn static_set(v: Variant, n: usize) -> (AnyFilter, Vec<String>) {
    let keys: Vec<String> = (0..n).map(|i| format!("member{i}")).collect();
    let params = Params::new(n as u64, 0.01);
    let hashes: Vec<_> = keys
        .iter()
        .map(|k| params.hasher.hash(k.as_bytes()))
        .collect();
    (
        AnyFilter::build_from_hashes(v, &params, &hashes).unwrap(),
        keys,
    )
}

/// What the saved payload of static filter `f` gives at `slots`: the XOR of the fingerprints
/// there (binary fuse), or the parity of the rows in every result column (ribbon).
fn xor_of(f: &AnyFilter, slots: &[u64]) -> u64 {
    let bytes = payload(&f.to_bytes());
    let bit = |words_at: usize, word: u64, b: u64| {
        let at = words_at + word as usize * 8;
        u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap()) >> b & 1
    };
    match f {
        AnyFilter::BinaryFuse8(_) | AnyFilter::BinaryFuse16(_) => {
            let width = if matches!(f, AnyFilter::BinaryFuse8(_)) {
                1
            } else {
                2
            };
            slots.iter().fold(0, |acc, &s| {
                let at = s as usize * width;
                let mut v = [0u8; 8];
                v[..width].copy_from_slice(&bytes[at..at + width]);
                acc ^ u64::from_le_bytes(v)
            })
        }
        AnyFilter::Ribbon(r) => {
            let (cols, rows) = (u64::from(r.get().result_bits()), r.get().slots());
            let parity = |j: u64| {
                slots
                    .iter()
                    .fold(0, |acc, &s| acc ^ bit(0, s / 64 * cols + j, s % 64))
            };
            let mut v = (0..cols).fold(0, |acc, j| acc | parity(j) << j);
            if slots[0] < r.get().boundary() {
                let extra_at = (rows / 64 * cols) as usize * 8;
                let p = slots
                    .iter()
                    .fold(0, |acc, &s| acc ^ bit(extra_at, s / 64, s % 64));
                v |= p << cols;
            }
            v
        }
        other => panic!("{}: not a static filter", other.variant()),
    }
}

fn check_static(f: &AnyFilter, positions: &Positions) {
    let v = f.variant();
    let Positions::Xor { slots, fingerprint } = positions else {
        panic!("{v}: a static filter reports {positions:?}")
    };
    assert_eq!(xor_of(f, slots), *fingerprint, "{v}: {slots:?}");
}

#[test]
fn static_positions_give_every_member_s_fingerprint() {
    for &v in Variant::ALL.iter().filter(|v| v.capabilities().static_set) {
        let (f, keys) = static_set(v, 500);
        for k in &keys {
            check_static(&f, &f.positions(k.as_bytes()));
        }
    }
}

#[test]
fn the_static_check_fails_on_wrong_positions() {
    for &v in Variant::ALL.iter().filter(|v| v.capabilities().static_set) {
        let (f, keys) = static_set(v, 500);
        // The slots of the next key, with this key's fingerprint: fails for almost every key.
        let wrong = keys
            .windows(2)
            .filter(|w| {
                let (Positions::Xor { fingerprint, .. }, Positions::Xor { slots, .. }) =
                    (f.positions(w[0].as_bytes()), f.positions(w[1].as_bytes()))
                else {
                    panic!("{v}")
                };
                let moved = Positions::Xor { slots, fingerprint };
                std::panic::catch_unwind(|| check_static(&f, &moved)).is_err()
            })
            .count();
        assert!(
            wrong > 400,
            "{v}: only {wrong} of 499 moved positions caught"
        );
    }
}

/// `Plan::positions_hash` (what `explain --variant` shows without building the filter) is the
/// built filter's own answer, wherever a plan gives one; the Bloom variants always do.
#[test]
fn a_plan_places_a_key_where_its_filter_does() {
    let mut placed = Vec::new();
    for &v in Variant::ALL {
        for (n, p) in [(1u64, 0.5), (1000, 0.01), (3000, 1e-4), (123_457, 0.003)] {
            let params = Params::new(n, p);
            let Ok(plan) = v.plan(&params) else { continue };
            let Ok(f) = AnyFilter::build(v, &params) else {
                continue;
            };
            for i in 0..50u32 {
                let key = format!("key-{i}@example.com");
                let h = f.hasher().hash(key.as_bytes());
                if let Some(from_plan) = plan.positions_hash(h) {
                    assert_eq!(
                        from_plan,
                        f.positions(key.as_bytes()),
                        "{v} n = {n} p = {p}"
                    );
                    placed.push(v);
                }
            }
        }
    }
    // The Bloom variants (`m` bits or counters and `k` probes, or blocks of lanes).
    placed.sort_unstable_by_key(|v| v.name());
    placed.dedup();
    assert!(placed.len() >= 3, "{placed:?}");
}

/// Issue 51: `explain` printed `ceil(n / (b · 0.95))` beside 269 buckets at n = 1000, where the
/// formula gives 264: the 5 more are the slack small tables get. Each step is shown, and the
/// buckets the line ends with are the table's.
#[test]
fn the_cuckoo_buckets_formula_shows_the_small_table_slack() {
    use filterlab::any::{formulas, Detail};
    for n in [3u64, 1000, 100_000] {
        let plan = Variant::Cuckoo.plan(&Params::new(n, 0.01)).unwrap();
        let Detail::Cuckoo { buckets, .. } = plan.detail else {
            panic!("{:?}", plan.detail)
        };
        let f = formulas(&plan);
        let line = &f.iter().find(|f| f.name == "buckets").unwrap().substituted;
        assert!(
            line.contains(&format!("; {buckets} buckets of 4 slots")),
            "{line}"
        );
        if n == 1000 {
            assert_eq!(buckets, 269);
            assert!(
                line.starts_with("ceil(1000 / (4 · 0.95)) = 264 + 5 of small-table slack = 269"),
                "{line}"
            );
        }
        if n == 100_000 {
            assert!(!line.contains("slack"), "{line}");
        }
    }
}
