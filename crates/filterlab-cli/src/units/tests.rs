use super::*;

#[test]
fn sizes_show_decimal_and_binary_units() {
    assert_eq!(size(11_981_328), "11.98 MB (11.43 MiB)");
    assert_eq!(size(999), "999 B");
    assert_eq!(size(1_500), "1.50 kB (1.46 KiB)");
}

#[test]
fn rates_keep_their_digits() {
    assert_eq!(pct(0.01), "1.0000%");
    assert_eq!(pct(2e-6), "2.000e-6");
}
