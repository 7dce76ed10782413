//! Unit tests of `stages/course/probe.rs`.

use super::*;

#[test]
fn seeds_differ_by_name_and_repetition_and_remix_is_injective_here() {
    let a: Vec<u64> = (0..5).map(|r| seed_of("classic", r)).collect();
    let b: Vec<u64> = (0..5).map(|r| seed_of("counting", r)).collect();
    let mut all = [a.clone(), b].concat();
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 10);
    let h = Hash128 { lo: 1, hi: 2 };
    assert_ne!(remix(h, a[0]), remix(h, a[1]));
    assert_ne!(remix(h, a[0]), h);
}
