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
