use super::*;

fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 31)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^ (z >> 29)
}

/// Matches the standard sort and dedup, on sizes either side of the small-set cutoff, with
/// repeats, extreme values and a skewed distribution (everything in a few buckets).
#[test]
fn agrees_with_sort_and_dedup() {
    let mut scratch = vec![7; 3];
    for n in [
        0usize,
        1,
        5,
        SMALL - 1,
        SMALL,
        SMALL + 1,
        5_000,
        70_000,
        300_000,
    ] {
        let uniform: Vec<u64> = (0..n as u64).map(|i| mix(i % 3_000)).collect();
        let skewed: Vec<u64> = (0..n as u64).map(|i| mix(i) >> 40).collect();
        let mut edges: Vec<u64> = (0..n as u64)
            .map(|i| [0, u64::MAX, mix(i)][i as usize % 3])
            .collect();
        edges.reverse();
        for input in [uniform, skewed, edges] {
            let mut want = input.clone();
            want.sort_unstable();
            want.dedup();
            let mut got = input;
            sort_dedup(&mut got, &mut scratch).unwrap();
            assert_eq!(got, want, "n = {n}");
        }
    }
}
