use super::*;
use crate::record::{Machine, Verdict};
use crate::stages::expansion::{Batched, Reference, Settings};

const N: u64 = super::super::GOAL_KEYS;

fn point(who: Contender, n: u64, false_positives: u64, bytes: u64) -> Checkpoint {
    Checkpoint {
        contender: who,
        n,
        false_positives,
        probes: 625_000,
        bytes,
        refused: 0,
        false_negatives: 0,
    }
}

fn spread(v: &[f64]) -> Spread {
    Spread::of(&mut v.to_vec())
}

fn lookups(who: Contender, large: &[f64], bytes: u64) -> Lookups {
    Lookups {
        contender: who,
        small_n: 10_000,
        large_n: N,
        small_bytes: 20_000,
        large_bytes: bytes,
        negative_small: spread(&[30.0, 31.0, 29.0, 30.5, 30.2]),
        negative_large: spread(large),
        positive_small: spread(&[30.0, 31.0, 29.0, 30.5, 30.2]),
        positive_large: spread(large),
        batched: Outcome::Measured(Batched {
            negative_small: spread(&[20.0, 21.0, 19.0, 20.5, 20.2]),
            negative_large: spread(large),
            positive_small: spread(&[20.0, 21.0, 19.0, 20.5, 20.2]),
            positive_large: spread(large),
        }),
    }
}

/// The Aleph filter grown to 10M at 0.8% in `aleph_bytes`, told n at 0.74% in 13.9 MB;
/// lookups at `aleph_ns` against a fixed quotient filter at 100 ns.
fn report(aleph_bytes: u64, aleph_ns: f64) -> ExpansionReport {
    let fixed = Reference {
        kind: ReferenceKind::FixedQuotient,
        lookups: Outcome::Measured(lookups(
            Contender::Ours(Variant::Quotient),
            &[100.0, 101.0, 99.0, 100.5, 100.2],
            12_500_000,
        )),
    };
    let ns = [
        aleph_ns,
        aleph_ns + 1.0,
        aleph_ns - 1.0,
        aleph_ns + 0.5,
        aleph_ns + 0.2,
    ];
    let summary = |who| Summary {
        contender: who,
        first_refusal: None,
        lookups: Outcome::Measured(lookups(who, &ns, aleph_bytes)),
        deletes: Outcome::Unsupported { why: "x".into() },
        merge: Outcome::Unsupported { why: "x".into() },
        references: vec![fixed.clone()],
    };
    ExpansionReport {
        machine: Machine::default(),
        settings: Settings {
            declared: 1000,
            target_fpr: 0.01,
            n: N,
            ..Settings::default()
        },
        checkpoints: vec![
            point(ALEPH, 1000, 3000, 2000),
            point(ALEPH, N, 5000, aleph_bytes),
            point(Contender::AlephEstimate, N, 4625, 13_900_000),
        ],
        summaries: vec![summary(ALEPH), summary(Contender::AlephEstimate)],
        goals: Vec::new(),
    }
}

fn find<'a>(rows: &'a [Ratio], who: &str, what: &str) -> &'a Ratio {
    rows.iter()
        .find(|r| r.what.starts_with(&format!("growth: {who} ")) && r.what.contains(what))
        .unwrap_or_else(|| panic!("no {who} {what} row"))
}

#[test]
fn bits_against_a_quotient_filter_declared_at_the_same_rate_are_judged_both_ways() {
    // 0.8% needs 7 remainder bits: the quotient filter takes about 10 bits per key at 10M.
    let q = quotient_bits(N, 0.008);
    assert!((9.5..10.6).contains(&q), "{q}");
    let small = report((q * 1.4 * N as f64 / 8.0) as u64, 100.0);
    let rows = rows(&small);
    let row = find(&rows, "aleph", "bits per key");
    assert_eq!(row.role, Role::Target);
    assert_eq!(row.verdict, Verdict::Met, "{row:?}");
    // The fixture it must reject: 1.6 times the quotient filter's bits.
    let big = report((q * 1.6 * N as f64 / 8.0) as u64, 100.0);
    let rows = super::rows(&big);
    assert_eq!(
        find(&rows, "aleph", "bits per key").verdict,
        Verdict::NotMet
    );
    // Told n: 13.9 MB at 0.74%, about 1.1 times, under 1.15.
    let told = find(&rows, "aleph, told n", "bits per key");
    assert_eq!(told.bound, Bound::AtMost(GOAL_BITS_ESTIMATE));
    assert_eq!(told.verdict, Verdict::Met, "{told:?}");
}

#[test]
fn lookups_are_judged_against_the_fixed_quotient_filter_of_the_same_rounds() {
    let fast = rows(&report(20_000_000, 105.0));
    let one = find(&fast, "aleph", "ns per non-member lookup");
    assert_eq!(
        (one.role, one.verdict),
        (Role::Target, Verdict::Met),
        "{one:?}"
    );
    let batched = find(&fast, "aleph", "batched ns per member lookup");
    assert_eq!(batched.verdict, Verdict::Met);
    // 1.5 times the quotient filter: not met, every kind.
    let slow = rows(&report(20_000_000, 150.0));
    let lookups: Vec<&Ratio> = slow
        .iter()
        .filter(|r| {
            r.what.starts_with("growth: aleph ns") || r.what.starts_with("growth: aleph batched")
        })
        .collect();
    assert_eq!(lookups.len(), 4);
    assert!(lookups.iter().all(|r| r.verdict == Verdict::NotMet));
    // The estimate's rows are for information.
    assert_eq!(
        find(&slow, "aleph, told n", "ns per member").role,
        Role::Information
    );
}

#[test]
fn the_fp_rows_cover_every_checkpoint_of_both() {
    let r = rows(&report(20_000_000, 100.0));
    let fp: Vec<&Ratio> = r
        .iter()
        .filter(|x| x.what.contains("measured FP / target"))
        .collect();
    assert_eq!(fp.len(), 3);
    assert!(fp.iter().all(|x| x.verdict == Verdict::Met));
}

#[test]
fn theory_rows_put_the_measured_rate_beside_the_formula_and_can_fail() {
    let mut r = report(20_000_000, 100.0);
    let (w, q0) = formula(&r, ALEPH).unwrap();
    let (_, _, fp) = w.after_inserts(q0, 1000).unwrap();
    // The first checkpoint measured at the formula's rate: within the bounds.
    r.checkpoints[0].false_positives = (fp * 625_000.0).round() as u64;
    let rows = rows(&r);
    let row = find(&rows, "aleph", "measured FP / the formula's at 1000 keys");
    assert_eq!(
        (row.role, row.verdict),
        (Role::Information, Verdict::Met),
        "{row:?}"
    );
    // A third above it: refused.
    r.checkpoints[0].false_positives = (fp * 625_000.0 * 1.33).round() as u64;
    let rows = super::rows(&r);
    let row = find(&rows, "aleph", "measured FP / the formula's at 1000 keys");
    assert_eq!(row.verdict, Verdict::NotMet, "{row:?}");
    assert!(rows
        .iter()
        .any(|x| x.what.contains("measured bits per key / the formula's")));
}
