use super::*;

#[test]
fn percent_decoding_and_percentiles() {
    assert_eq!(decode("a%40b.org"), "a@b.org");
    assert_eq!(decode("100%"), "100%");
    assert_eq!(decode("%zz"), "%zz");
    let mut v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
    assert_eq!(percentile(&mut v, 0.5), Duration::from_millis(51));
    assert_eq!(percentile(&mut v, 0.99), Duration::from_millis(99));
    assert_eq!(percentile(&mut [], 0.5), Duration::ZERO);
}
