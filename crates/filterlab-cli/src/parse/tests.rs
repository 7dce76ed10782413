use super::*;

#[test]
fn every_spelling_of_ten_million_is_the_same_count() {
    for s in [
        "10M",
        "1e7",
        "10_000_000",
        "10,000,000",
        "10000000",
        "0.01G",
        "10000k",
    ] {
        assert_eq!(count(s), Ok(10_000_000), "{s}");
    }
    assert_eq!(count("2.5k"), Ok(2500));
}

#[test]
fn bad_counts_are_refused() {
    for s in [
        "", "0", "-5", "ten", "1.5", "1e30", "10X", "NaN", "inf", "1e-9M",
    ] {
        assert!(count(s).is_err(), "{s}");
    }
}

#[test]
fn every_spelling_of_one_percent_is_the_same_rate() {
    for s in ["1%", "0.01", "1/100", "1e-2", " 1 % "] {
        assert!((rate(s).unwrap() - 0.01).abs() < 1e-15, "{s}");
    }
}

#[test]
fn bad_rates_are_refused() {
    for s in [
        "0", "1", "100%", "0%", "1.5", "-0.1", "1/0", "abc", "NaN", "%", "2/1",
    ] {
        assert!(rate(s).is_err(), "{s}");
    }
}

#[test]
fn byte_sizes_use_binary_and_decimal_prefixes() {
    assert_eq!(bytes("64MiB"), Ok(64 << 20));
    assert_eq!(bytes("64MB"), Ok(64_000_000));
    assert_eq!(bytes("1048576"), Ok(1 << 20));
    assert_eq!(bytes("1.5KiB"), Ok(1536));
    // Bare suffixes are accepted as --n accepts them, in binary units.
    assert_eq!(bytes("64K"), Ok(64 << 10));
    assert_eq!(bytes("64k"), Ok(64 << 10));
    assert_eq!(bytes("20M"), Ok(20 << 20));
    assert_eq!(bytes("2G"), Ok(2 << 30));
    for s in ["0", "-1MiB", "lots", "1e30TiB", "0.5B"] {
        assert!(bytes(s).is_err(), "{s}");
    }
}

#[test]
fn threads_are_positive() {
    assert_eq!(threads("4"), Ok(4));
    assert!(threads("0").is_err());
    assert!(threads("x").is_err());
}
