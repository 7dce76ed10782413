use super::*;

fn h(i: u64) -> Hash128 {
    filter_core::KeyHasher::default().hash(&i.to_le_bytes())
}

#[test]
fn a_generation_clears_alone_at_every_lane_width() {
    for slots in [2u32, 4, 8, 16, 32, 64] {
        let mut lanes = Lanes::new(slots, 1000, 4, filter_core::TableOptions::default()).unwrap();
        let all = u64::MAX;
        for s in 0..slots {
            for i in 0..50 {
                lanes.insert(h(u64::from(s) * 1000 + i), s);
            }
        }
        lanes.clear_slot(1);
        for s in 0..slots {
            for i in 0..50 {
                let key = h(u64::from(s) * 1000 + i);
                if s != 1 {
                    assert!(lanes.contains(key, all), "slots {slots}: lost {s}/{i}");
                    assert!(lanes.contains(key, 1 << s), "slots {slots}: {s}/{i} alone");
                }
            }
        }
        assert_eq!(lanes.items(all), 50 * u64::from(slots - 1));
        // Slot 1 is empty: nothing matches it alone.
        assert!((0..50).all(|i| !lanes.contains(h(1000 + i), 1 << 1)));
    }
}
