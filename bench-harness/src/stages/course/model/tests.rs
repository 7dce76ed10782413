//! Unit tests of `stages/course/model.rs`.

use super::*;

fn reps(h: &[u64], t: u64) -> Vec<Count> {
    h.iter()
        .enumerate()
        .map(|(i, &hits)| Count {
            seed: i as u64,
            hits,
            trials: t,
        })
        .collect()
}

#[test]
fn verdicts_follow_the_claim_and_the_correction() {
    let m = reps(&[100, 104, 96, 100], 10_000); // 1.00%
    let mut rows = vec![
        Row::new("right", 0.01, m.clone()),
        Row::new("too low", 0.008, m.clone()),
        Row::new("too high", 0.012, m.clone()),
        Row::upper("kept", 0.0101, m.clone()),
        Row::upper("broken", 0.008, m.clone()),
        Row::lower("lower kept", 0.009, m.clone()),
        Row::new("nan", f64::NAN, m.clone()),
        Row::measured("no formula", m.clone()),
    ];
    judge_rows(&mut rows);
    let v: Vec<Option<Verdict>> = rows.iter().map(Row::verdict).collect();
    use Verdict::*;
    assert_eq!(
        v,
        [
            Some(Met),
            Some(NotMet),
            Some(NotMet),
            Some(Met),
            Some(NotMet),
            Some(Met),
            Some(NotMeasured),
            None
        ]
    );
    let words: Vec<&str> = rows.iter().map(Row::verdict_text).collect();
    assert_eq!(
        words,
        [
            "holds",
            "underestimates",
            "overestimates",
            "bound kept",
            "bound broken",
            "bound kept",
            "not computable",
            ""
        ]
    );
    // z ≈ 2.4 (raw p ≈ 0.016): rejected alone, not in a family of ten such rows.
    let edge = reps(&[112, 112, 112, 112], 10_000);
    let mut one = vec![Row::new("alone", 0.01, edge.clone())];
    judge_rows(&mut one);
    assert_eq!(one[0].verdict_text(), "underestimates");
    let mut ten = vec![Row::new("one of ten", 0.01, edge); 10];
    judge_rows(&mut ten);
    assert!(ten.iter().all(|r| r.verdict() == Some(Met)));
}

#[test]
fn non_finite_numbers_survive_json() {
    let mut rows = vec![
        Row::new("nan", f64::NAN, reps(&[1, 2], 10)),
        Row::new("inf z", 0.0, reps(&[1, 1], 10)),
    ];
    judge_rows(&mut rows);
    let json = serde_json::to_string(&rows).unwrap();
    let back: Vec<Row> = serde_json::from_str(&json).unwrap();
    assert!(
        back[0].formula.unwrap().is_nan() && back[1].judged.unwrap().z.is_infinite(),
        "{json}"
    );
    assert_eq!(back[1], rows[1]);
}
