use super::*;
use crate::measure::Spread;
use crate::record::Machine;
use crate::stages::window::{Checkpoint, Design, Settings};

fn cp(fp: u64, lost: u64, aged_maybe: u64, bytes: u64) -> Checkpoint {
    Checkpoint {
        inserted: 1000,
        false_positives: fp,
        probes: 100_000,
        model: None,
        in_window: 1000,
        false_negatives: lost,
        aged: 100_000,
        aged_maybe,
        bytes,
    }
}

fn design(checkpoints: Vec<Checkpoint>) -> DesignResult {
    DesignResult {
        design: Design::Ours(filterlab::Variant::ItemWindow),
        params: String::new(),
        horizon: 1,
        checkpoints,
        insert_ns: Spread::single(1.0),
        lookup_ns: Spread::single(1.0),
        judged: Vec::new(),
    }
}

fn verdicts(d: &DesignResult) -> Vec<Verdict> {
    guarantees(d, 0.01).iter().map(|j| j.verdict).collect()
}

#[test]
fn a_sound_design_meets_every_guarantee() {
    let d = design(vec![cp(800, 0, 700, 64), cp(850, 0, 820, 64)]);
    assert!(
        verdicts(&d).iter().all(|&v| v == Verdict::Met),
        "{:?}",
        verdicts(&d)
    );
}

#[test]
fn each_broken_guarantee_is_not_met() {
    // One checkpoint far above the target: the worst checkpoint fails, the pool too.
    let d = design(vec![cp(800, 0, 700, 64), cp(1500, 0, 700, 64)]);
    assert_eq!(verdicts(&d)[..2], [Verdict::NotMet, Verdict::NotMet]);
    let d = design(vec![cp(800, 1, 700, 64)]);
    assert_eq!(verdicts(&d)[2], Verdict::NotMet);
    let d = design(vec![cp(800, 0, 7000, 64)]);
    assert_eq!(verdicts(&d)[3], Verdict::NotMet);
    let d = design(vec![cp(800, 0, 700, 64), cp(800, 0, 700, 72)]);
    assert_eq!(verdicts(&d)[4], Verdict::NotMet);
}

#[test]
fn a_rate_straddling_the_target_is_undecided() {
    let d = design(vec![cp(1000, 0, 700, 64)]);
    assert_eq!(verdicts(&d)[0], Verdict::Undecided);
}

#[test]
fn check_rejects_a_stored_verdict_its_checkpoints_do_not_give() {
    let mut r = WindowReport {
        machine: Machine::default(),
        settings: Settings::quick(),
        fpr: 0.01,
        designs: vec![design(vec![cp(800, 0, 700, 64)])],
    };
    judge(&mut r);
    assert!(check(&r).is_empty());
    r.designs[0].checkpoints[0].false_negatives = 3;
    assert_eq!(check(&r).len(), 1, "{:?}", check(&r));
}
