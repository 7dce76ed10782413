use super::*;
use filter_core::select_or_count;
use filter_core::MemoryCap;

#[test]
fn select_finds_the_kth_set_bit() {
    let mut rng = 0x5e1ec7_u64;
    let mut words = vec![
        0b1011_0100_u64 | 1 << 63,
        !0,
        1,
        1 << 63,
        0x8000_0001,
        0xFF00,
    ];
    words.extend((0..2_000).map(|i| match i % 3 {
        0 => xorshift(&mut rng),
        1 => xorshift(&mut rng) & xorshift(&mut rng),
        _ => xorshift(&mut rng) | xorshift(&mut rng),
    }));
    for w in words {
        let ones: Vec<u32> = (0..64).filter(|&i| w >> i & 1 == 1).collect();
        for (k, &at) in ones.iter().enumerate() {
            assert_eq!(select_or_count(w, k as u32), Ok(at), "{w:#x} {k}");
        }
        for k in [ones.len() as u32, 64, u32::MAX] {
            assert_eq!(select_or_count(w, k), Err(w.count_ones()), "{w:#x} {k}");
        }
    }
}

#[test]
fn remainders_round_trip_at_every_width() {
    for r in 1..=64u32 {
        let mut t = Slots::new(64, r, MemoryCap::NONE).unwrap();
        let value = |i: u64| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & mask(r);
        (0..t.slots()).for_each(|i| t.set_rem(i, value(i)));
        assert!((0..t.slots()).all(|i| t.rem(i) == value(i)), "r = {r}");
    }
}

/// The invariant check the model tests rely on can fail: a stale index, a run end moved.
#[test]
fn the_invariant_check_catches_a_stale_index_and_a_lost_run_end() {
    let mut t = Slots::new(256, 4, MemoryCap::NONE).unwrap();
    for q in [60u64, 60, 61, 62, 63, 63, 63, 64, 65] {
        assert!(t.insert(q, q & 15));
    }
    assert_eq!(t.check(), Ok(9));
    assert_eq!(t.spill(1), 3, "runs of 60-63 fill slots 60-66");
    let mut stale = t.clone();
    stale.spoil_spill(1);
    assert!(stale.check().is_err());
    let mut lost = t.clone();
    lost.set_runend(62, false);
    assert!(lost.check().is_err());
}

fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

/// A table holding a cluster across a block boundary and runs in the extra slots, and the
/// (quotient, remainder) pairs it holds.
fn filled() -> (Slots, Vec<(u64, u64)>) {
    let mut t = Slots::new(256, 6, MemoryCap::NONE).unwrap();
    let mut held = Vec::new();
    for q in (50..90).chain(250..256) {
        for r in 0..(q % 4) {
            assert!(t.insert(q, r * 13 % 64));
            held.push((q, r * 13 % 64));
        }
    }
    (t, held)
}

/// `t`'s table handed to [`Slots::in_place`] as an open hands it out (not checked).
fn reopened(t: &Slots) -> std::result::Result<Slots, String> {
    Slots::in_place(t.quotients, t.rbits, bytes_of(t))
}

fn bytes_of(t: &Slots) -> Table<u8> {
    Table::from(t.blocked_bytes().to_vec())
}

/// `t`'s table as the separate arrays of a version 2 file: occupieds, runends, remainders.
fn words(t: &Slots) -> [Table<u64>; 3] {
    let b = 0..t.blocks();
    let rems = b
        .clone()
        .flat_map(|b| t.remainder_words(b))
        .collect::<Vec<_>>();
    [
        Table::from(b.clone().map(|b| t.occupieds(b)).collect::<Vec<_>>()),
        Table::from(b.map(|b| t.runends(b)).collect::<Vec<_>>()),
        Table::from(rems),
    ]
}

/// `t`'s offsets, the end's included.
fn spills(t: &Slots) -> Vec<u32> {
    (0..=t.blocks()).map(|b| t.spill(b)).collect()
}

/// The blocked bytes of the separate arrays `words` and offsets `spill` (unchecked).
fn blocked(quotients: u64, rbits: u32, words: &[Vec<u64>; 3], spill: &[u32]) -> Table<u8> {
    let mut t = Slots::new(quotients, rbits, MemoryCap::NONE).unwrap();
    let r = rbits as usize;
    for b in 0..t.blocks() {
        t.put_block(b, words[0][b], words[1][b], &words[2][b * r..(b + 1) * r]);
        t.set_spill(b, spill[b]);
    }
    t.set_spill(t.blocks(), spill[t.blocks()]);
    bytes_of(&t)
}

#[test]
fn a_valid_table_opened_in_place_answers_as_the_loaded_one() {
    let (t, held) = filled();
    let open = reopened(&t).unwrap();
    assert!(!open.is_checked() && t.is_checked());
    assert_eq!(open, t);
    for q in 0..t.quotients {
        for r in 0..64 {
            assert_eq!(open.count(q, r), t.count(q, r), "({q}, {r})");
            assert_eq!(open.contains(q, r), t.contains(q, r), "({q}, {r})");
        }
    }
    assert!(held.iter().all(|&(q, r)| open.contains(q, r)));
    assert_eq!(open.check(), Ok(held.len() as u64));
}

/// The O(1) checks of an open refuse what they read: offsets other than 0 at the first block
/// and at the end, tables of other lengths.
#[test]
fn an_open_refuses_bad_ends_and_lengths() {
    let (t, _) = filled();
    let spoiled = |b: usize| {
        let mut s = t.clone();
        s.set_spill(b, 1);
        Slots::in_place(t.quotients, t.rbits, bytes_of(&s))
    };
    assert!(spoiled(0).unwrap_err().contains("offsets of 1"));
    assert!(spoiled(t.blocks()).unwrap_err().contains("offsets of 0"));
    let mut tail = bytes_of(&t).to_vec();
    *tail.last_mut().unwrap() = 1;
    let e = Slots::in_place(256, 6, Table::from(tail)).unwrap_err();
    assert!(e.contains("after the table's end"), "{e}");
    let short = bytes_of(&t)[1..].to_vec();
    let e = Slots::in_place(256, 6, Table::from(short)).unwrap_err();
    assert!(e.contains("a table of"), "{e}");
}

/// Every lookup on a table whose words are garbage (an unverified open of a damaged file)
/// stays in bounds and ends: runs that never end, offsets past the table, occupied bits past
/// the last quotient, every density of bits, at several widths. The full check refuses them.
#[test]
fn lookups_on_a_damaged_table_opened_in_place_stay_in_bounds() {
    let mut rng = 0x5eed_u64;
    let mut refused = 0;
    for round in 0..400 {
        let quotients = 64 + xorshift(&mut rng) % 400;
        let rbits = [1, 5, 7, 13, 32, 63, 64][round % 7];
        let fresh = Slots::new(quotients, rbits, MemoryCap::NONE).unwrap();
        let [occ, run, rem] = words(&fresh).map(|w| w.len());
        let mut word = |density: u64| match density {
            0 => 0,
            1 => !0,
            2 => xorshift(&mut rng) & xorshift(&mut rng) & xorshift(&mut rng),
            _ => xorshift(&mut rng),
        };
        let densities = [
            round as u64 % 4,
            round as u64 / 4 % 4,
            round as u64 / 16 % 4,
        ];
        let mut tables = [occ, run, rem].map(|n| vec![0u64; n]);
        for (table, &d) in tables.iter_mut().zip(&densities) {
            table.iter_mut().for_each(|w| *w = word(d));
        }
        let mut spill: Vec<u32> = (0..=occ)
            .map(|_| match xorshift(&mut rng) % 4 {
                0 => 0,
                1 => u32::MAX,
                2 => (xorshift(&mut rng) % 200) as u32,
                _ => xorshift(&mut rng) as u32,
            })
            .collect();
        (spill[0], spill[occ]) = (0, 0);
        let t = Slots::in_place(quotients, rbits, blocked(quotients, rbits, &tables, &spill));
        let t = t.unwrap();
        for q in 0..quotients {
            let r = xorshift(&mut rng) & mask(rbits);
            let n = t.count(q, r);
            assert_eq!(t.contains(q, r), n > 0);
            assert!(n <= t.slots());
        }
        t.for_each(|q, _| assert!(q < t.slots()));
        refused += usize::from(t.check().is_err());
    }
    assert!(refused > 350, "{refused} of 400 damaged tables refused");
}

/// A load refuses a saved index that differs from the one the words give, at any block.
#[test]
fn a_load_refuses_a_saved_index_the_table_does_not_give() {
    let (t, held) = filled();
    let load = |spill: Vec<u32>| {
        Slots::from_words(t.quotients, t.rbits, words(&t), Some(Table::from(spill)))
    };
    let (loaded, used) = load(spills(&t)).unwrap();
    assert_eq!((used, loaded.is_checked()), (held.len() as u64, true));
    assert_eq!(loaded, t, "separate arrays copied into the same blocks");
    let (blocks, used) = Slots::from_blocks(t.quotients, t.rbits, bytes_of(&t)).unwrap();
    assert_eq!((blocks, used), (t.clone(), held.len() as u64));
    for b in 0..=t.blocks() {
        let mut spill = spills(&t);
        spill[b] ^= 4;
        let e = load(spill).unwrap_err();
        assert!(
            e.contains(&format!("block {b}")) || e.contains("offsets of"),
            "{b}: {e}"
        );
    }
}
