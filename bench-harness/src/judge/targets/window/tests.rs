use super::*;
use crate::judge::targets::Verdict;

#[test]
fn goals_are_judged_on_their_interval_at_a_measured_one_percent() {
    let r = crate::render::window::tests::report();
    let rows = rows(&r);
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_eq!(row.role, Role::Target);
        assert!(row.same_conditions, "{}: {}", row.what, row.differences);
        assert_eq!(row.verdict, Verdict::Met, "{}", row.what);
        assert_eq!(&row.recomputed(), row);
    }
    assert!((rows[0].ratio - 15.8976).abs() < 1e-9);
    assert_eq!(rows[1].ratio, 30.0);
}

#[test]
fn a_goal_missed_is_not_met_and_a_rate_above_one_percent_is_unlike() {
    let mut r = crate::render::window::tests::report();
    r.designs[0].lookup_ns = Spread::of(&mut [90.0, 95.0, 92.0]);
    for c in &mut r.designs[0].checkpoints {
        c.false_positives = 300;
    }
    let rows = rows(&r);
    assert_eq!(rows[2].verdict, Verdict::NotMet);
    assert!(rows.iter().all(|row| !row.same_conditions));
    assert!(
        rows[0].differences.contains("achieved FP"),
        "{}",
        rows[0].differences
    );
}
