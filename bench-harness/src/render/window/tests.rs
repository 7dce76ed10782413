use super::*;
use crate::measure::Spread;
use crate::record::Machine;
use crate::stages::window::{Checkpoint, Design, Settings};

pub(crate) fn report() -> WindowReport {
    let c = Checkpoint {
        inserted: 20_000,
        false_positives: 90,
        probes: 12_500,
        model: Some(0.0072),
        in_window: 2_500,
        false_negatives: 0,
        aged: 2_500,
        aged_maybe: 20,
        bytes: 39_744,
    };
    let d = DesignResult {
        design: Design::Ours(filterlab::Variant::ItemWindow),
        params: "N = 7".into(),
        horizon: 22_864,
        checkpoints: vec![
            c.clone(),
            Checkpoint {
                inserted: 22_500,
                ..c
            },
        ],
        insert_ns: Spread::of(&mut [30.0, 31.0, 29.0]),
        lookup_ns: Spread::of(&mut [40.0, 42.0, 41.0]),
        judged: Vec::new(),
    };
    let mut r = WindowReport {
        machine: Machine {
            commit: "abc1234".into(),
            ..Machine::default()
        },
        settings: Settings::quick(),
        fpr: 0.01,
        designs: vec![d],
    };
    crate::judge::window::judge(&mut r);
    r
}

#[test]
fn the_page_shows_every_design_and_guarantee_with_its_verdict() {
    let md = render(&report());
    assert!(
        md.contains("| item-window | N = 7 | 1.143 | 15.90 | 0.72% (180 / 25000)"),
        "{md}"
    );
    assert!(
        md.contains(
            "| item-window | in-window items answered \"no\" = 0 | 0 | (a count) | ≤ 0 | met |"
        ),
        "{md}"
    );
    assert!(
        md.contains("| item-window | FP rate, worst checkpoint ≤ target | 0.72% |"),
        "{md}"
    );
    assert_eq!(md.matches("| item-window |").count(), 6);
}
