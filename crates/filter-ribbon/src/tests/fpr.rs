//! The false-positive rate against [`Ribbon::expected_fpr`], part by part: a query whose start
//! lies below the boundary (a fraction `boundary / starts` of the queries, since starts are
//! uniform over the start range, not over the slots) matches with probability `2^-(r+1)`, any
//! other with `2^-r`. Each check is a binomial tolerance on counts from fixed seeds; the fixtures
//! show that the same counts reject the formulas one could mistake for this one.

use super::*;
use filter_core::testkit::{fpr_within, hash_stream};

/// Tolerance of every check, in binomial standard deviations.
const SIGMAS: f64 = 4.0;

/// Uniform probe hashes from the testkit's stream; the seed is scrambled so that probe streams
/// from small seeds start far from the member streams (kept so the counts stay the same).
fn probes(seed: u64) -> impl Iterator<Item = Hash128> {
    hash_stream(seed.wrapping_mul(0x2545_f491_4f6c_dd1d))
}

/// Queries and false positives, below the boundary and from it on.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    lower: (u64, u64),
    upper: (u64, u64),
}

impl Counts {
    fn probe(f: &Ribbon, probes: impl Iterator<Item = Hash128>) -> Self {
        let mut c = Counts::default();
        for h in probes {
            let part = if f.row(h).start < f.boundary() {
                &mut c.lower
            } else {
                &mut c.upper
            };
            part.0 += 1;
            part.1 += u64::from(f.contains_hash(h));
        }
        c
    }

    fn trials(&self) -> u64 {
        self.lower.0 + self.upper.0
    }

    fn false_positives(&self) -> u64 {
        self.lower.1 + self.upper.1
    }

    /// Every check against the rates `f` should have; the failures, described.
    fn failures(&self, f: &Ribbon) -> Vec<String> {
        let r = f64::from(f.result_bits());
        let share = f.boundary() as f64 / f.starts() as f64;
        let checks = [
            (
                "rate",
                self.false_positives(),
                self.trials(),
                f.expected_fpr(),
            ),
            (
                "share below the boundary",
                self.lower.0,
                self.trials(),
                share,
            ),
            ("rate below", self.lower.1, self.lower.0, (-r - 1.0).exp2()),
            ("rate from it on", self.upper.1, self.upper.0, (-r).exp2()),
        ];
        checks
            .iter()
            .filter(|&&(_, hits, trials, p)| trials > 0 && !fpr_within(hits, trials, p, SIGMAS))
            .map(|(what, hits, trials, p)| format!("{what}: {hits} of {trials}, expected {p:e}"))
            .collect()
    }
}

/// Rates where the fraction of the extra column is far from 0 and 1 (0.46, 0.72, 0.40, 0.57),
/// and 0.1 % (0.976); with their whole columns `r`.
const RATES: [(f64, u32); 6] = [
    (0.001, 9),
    (0.01, 6),
    (0.0015, 9),
    (0.003, 8),
    (0.05, 4),
    (0.0007, 10),
];

/// The rate a filter with the same boundary would have if the fraction were taken over
/// `denominator` slots instead of the start range: a formula one could mistake for the right one.
fn rate_with_fraction_over(f: &Ribbon, denominator: u64) -> f64 {
    let share = (f.boundary() as f64 / denominator as f64).min(1.0);
    let base = (-f64::from(f.result_bits())).exp2();
    share * base / 2.0 + (1.0 - share) * base
}

/// Builds a filter at `target` from `members`, checks its whole columns are `r`, probes it with
/// `budget / target` uniform hashes from `seed` (about `budget` false positives expected) and
/// asserts every part-by-part check passes. Returns the filter and its counts for further checks.
fn build_probe_check(
    members: &[Hash128],
    (target, r): (f64, u32),
    budget: f64,
    seed: u64,
) -> (Ribbon, Counts) {
    let f = build_checked(members, target);
    assert_eq!(f.result_bits(), r, "target {target}");
    let trials = (budget / target) as usize;
    let c = Counts::probe(&f, probes(seed).take(trials));
    assert_eq!(c.failures(&f), Vec::<String>::new(), "target {target}");
    (f, c)
}

/// A small set, where the start range (`slots - 127`, 65 of 192 slots) is a small part of the
/// slots: the fraction over the slots (the share of the table the extra column covers) is far
/// from the one over the starts, which is the share of the queries, and these counts reject it.
#[test]
fn fpr_meets_expected_part_by_part_on_a_small_set() {
    let members = hashes(101, 100);
    for (i, &(target, r)) in RATES.iter().enumerate() {
        // About 2,000 false positives per rate (0.05: 40,000 probes; 0.0007: 2.9 M).
        let (f, c) = build_probe_check(&members, (target, r), 2_000.0, 200 + i as u64);
        assert_eq!(f.starts(), 65);
        let p = rate_with_fraction_over(&f, f.slots());
        assert!(
            !fpr_within(c.false_positives(), c.trials(), p, SIGMAS),
            "target {target}: the fraction over the slots ({p:e}) is not rejected"
        );
        // Counts that do not follow the claimed boundary fail the share and rate checks.
        let moved = Ribbon {
            boundary: f.boundary() / 2,
            ..f.clone()
        };
        assert!(c.failures(&moved).len() >= 2, "target {target}");
    }
}

/// At scale the two fractions nearly agree (127 slots in a million); what must be resolved is
/// a small excess, such as the 2.5 % a 10M run once measured at 0.1 % (0.1025 %, +2.5 sigmas
/// on its 10 M negatives; the same filter measured 0.0996 % on 10^8 uniform hashes). With
/// 64,000 expected false positives per rate (64 M probes at 0.1 %), four sigmas are 1.6 %.
/// Minutes in debug: run with `--release --ignored`.
#[test]
#[ignore = "heavy: run with --release --ignored"]
fn fpr_meets_expected_part_by_part_at_a_million_keys() {
    let members = hashes(111, 1_000_000);
    for (i, &(target, r)) in RATES.iter().enumerate() {
        let (f, c) = build_probe_check(&members, (target, r), 64_000.0, 300 + i as u64);
        let excess = 1.025 * f.expected_fpr();
        assert!(
            !fpr_within(c.false_positives(), c.trials(), excess, SIGMAS),
            "target {target}: a 2.5 % excess is not resolved"
        );
    }
}
