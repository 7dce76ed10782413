use super::*;
use crate::recommend::{recommend, Needs};
use filterlab::any::Detail;

/// A request for `n` items at 1%, one thread, nothing else.
fn needs(n: u64) -> Needs {
    Needs::new(n, 0.01)
}

#[test]
fn a_window_question_gets_a_window() {
    let items = recommend(&Needs {
        window: Some(Window::Items),
        ..needs(1_000_000)
    })
    .unwrap();
    // Lane-sliced generations take less memory than the age-partitioned filter.
    assert_eq!(items.plan.variant, Variant::ItemWindow);
    let apbf = Variant::Apbf
        .plan(&filterlab::Params::new(1_000_000, 0.01))
        .unwrap();
    assert!(items.plan.bytes < apbf.bytes);
    assert!(
        items.plan.bits_per_key < 16.5,
        "{}",
        items.plan.bits_per_key
    );
    assert!(
        items.why[0].contains("last 1000000 inserts"),
        "{:?}",
        items.why
    );
    assert!(items.what_if.is_empty());
    assert!(items.notes.iter().any(|n| n.contains("never fills")));
    let day = recommend(&Needs {
        window: Some(Window::Seconds(86_400)),
        ..needs(70_000)
    })
    .unwrap();
    assert_eq!(day.plan.variant, Variant::TimeWindow);
    assert!(matches!(
        day.plan.detail,
        Detail::TimeSliced {
            window_ticks: 86_400,
            ..
        }
    ));
    // More items per window than planned: the rate rises.
    let at2 = day.what_if.iter().find(|w| w.multiple == 2).unwrap();
    assert!(at2.fpr.unwrap() > day.plan.expected_fpr);
    // Without --window, no window is recommended.
    assert!(
        !recommend(&needs(1_000_000))
            .unwrap()
            .plan
            .variant
            .capabilities()
            .windowed
    );
}

#[test]
fn windows_parse_as_items_or_seconds() {
    assert_eq!(parse("items"), Ok(Window::Items));
    assert_eq!(parse("3600"), Ok(Window::Seconds(3_600)));
    assert_eq!(parse("10m"), Ok(Window::Seconds(600)));
    assert_eq!(parse("24h"), Ok(Window::Seconds(86_400)));
    assert_eq!(parse("7d"), Ok(Window::Seconds(604_800)));
    for bad in ["", "0", "h", "24x", "-5", "99999999999999999999d"] {
        assert!(parse(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_time_is_required_by_time_windows_and_refused_by_the_others() {
    assert_eq!(
        time(Variant::TimeWindow, Some(7), true).unwrap(),
        Some(Timestamp(7))
    );
    assert!(time(Variant::TimeWindow, None, true).is_err());
    assert_eq!(time(Variant::TimeWindow, None, false).unwrap(), None);
    let e = time(Variant::Classic, Some(7), false).unwrap_err();
    assert!(e.to_string().contains("time-window"), "{e}");
    assert_eq!(time(Variant::ItemWindow, None, true).unwrap(), None);
}
