use super::*;

#[test]
fn a_small_table_spreads_more_than_a_large_one() {
    assert!(bloom_rate_variance(95_851, 10_000, 7) > 0.0);
    assert_eq!(bloom_rate_variance(95_851, 0, 7), 0.0);
    assert_eq!(bloom_rate_variance(0, 10, 7), 0.0);
    let small = split_block_rate_variance(411, 10_000);
    let big = split_block_rate_variance(411_000, 10_000_000);
    assert!(small > 100.0 * big, "{small} vs {big}");
}
