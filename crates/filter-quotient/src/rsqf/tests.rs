use super::*;

#[test]
fn select_finds_the_kth_set_bit() {
    let w = 0b1011_0100_u64 | 1 << 63;
    let ones: Vec<u32> = (0..64).filter(|&i| w >> i & 1 == 1).collect();
    for (k, &at) in ones.iter().enumerate() {
        assert_eq!(select_in_word(w, k as u32), at);
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
    assert_eq!(t.spill[1], 3, "runs of 60-63 fill slots 60-66");
    let mut stale = t.clone();
    stale.spoil_spill(1);
    assert!(stale.check().is_err());
    let mut lost = t.clone();
    set_bit(&mut lost.runends, 62, false);
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

/// `t`'s tables handed to [`Slots::in_place`] as an open hands them out (not checked).
fn reopened(t: &Slots) -> std::result::Result<Slots, String> {
    let words = t.words().map(|w| Table::from(w.to_vec()));
    Slots::in_place(t.quotients, t.rbits, words, Table::from(t.spill().to_vec()))
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
    let spoiled = |at: usize| {
        let mut spill = t.spill().to_vec();
        spill[at] = 1;
        let words = t.words().map(|w| Table::from(w.to_vec()));
        Slots::in_place(t.quotients, t.rbits, words, Table::from(spill))
    };
    assert!(spoiled(0).unwrap_err().contains("offsets of 1"));
    assert!(spoiled(t.spill().len() - 1)
        .unwrap_err()
        .contains("offsets of 0"));
    let mut words = t.words().map(|w| Table::from(w.to_vec()));
    words[1] = Table::from(vec![0; 1]);
    let e = Slots::in_place(256, 6, words, Table::from(t.spill().to_vec())).unwrap_err();
    assert!(e.contains("tables of"), "{e}");
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
        let [occ, run, rem] = fresh.words().map(<[u64]>::len);
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
        let t = Slots::in_place(
            quotients,
            rbits,
            tables.map(Table::from),
            Table::from(spill),
        )
        .unwrap();
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
        let words = t.words().map(|w| Table::from(w.to_vec()));
        Slots::from_words(t.quotients, t.rbits, words, Some(Table::from(spill)))
    };
    let (loaded, used) = load(t.spill().to_vec()).unwrap();
    assert_eq!((used, loaded.is_checked()), (held.len() as u64, true));
    for b in 0..t.spill().len() {
        let mut spill = t.spill().to_vec();
        spill[b] ^= 4;
        let e = load(spill).unwrap_err();
        assert!(
            e.contains(&format!("block {b}")) || e.contains("offsets of"),
            "{b}: {e}"
        );
    }
}
