//! Fixtures `check` must reject, one per defect, and one it must accept.

use super::*;
use crate::dataset::{DatasetSpec, KeyFileDigest};
use crate::filters::Contender;
use crate::record::DatasetInfo;
use crate::record::PeerRecord;
use crate::record::Scenario;
use filterlab::any::Detail;
use filterlab::math;
use std::collections::BTreeMap;

const PROBES: u64 = 1_000_000;

fn timing(ns: f64, rounds: usize) -> Spread {
    Spread {
        median: ns,
        min: ns * 0.9,
        max: ns * 1.2,
        rounds,
        samples: Vec::new(),
    }
}

/// A row whose false-positive count is exactly what theory expects.
fn row(scenario: Scenario, kind: impl Into<Contender>, target: f64, step: Option<u64>) -> Record {
    let (kind, n) = (kind.into(), 100_000);
    let m = math::optimal_bits(n, target).unwrap();
    let shape = Detail::Classic {
        m,
        k: math::optimal_hashes(m, n),
    };
    let q = shape.fpr_at(n).unwrap();
    let fp = (q * PROBES as f64).round() as u64;
    let mixes: &[Mix] = match scenario {
        Scenario::Matrix => &Mix::ALL,
        Scenario::SizeSweep => &Mix::SWEEP,
        Scenario::Parallel => &[Mix::Half],
        _ => &[],
    };
    let lookups: BTreeMap<String, Spread> = mixes
        .iter()
        .map(|m| (m.key().to_string(), timing(20.0, 5)))
        .collect();
    let timed = scenario == Scenario::Matrix;
    let is_static = kind.capabilities().static_set;
    let rounds = if target == 0.01 { 5 } else { 1 };
    let (lo, hi) = math::wilson_interval(fp, PROBES, 1.96);
    Record {
        scenario,
        variant: kind.name().into(),
        n,
        capacity: step.map_or(100_000, |s| s * 100_000),
        target_fpr: target,
        shape: Some(shape),
        theoretical_fpr: q,
        false_positives: if scenario == Scenario::Parallel {
            0
        } else {
            fp
        },
        probes: if scenario == Scenario::Parallel {
            0
        } else {
            PROBES
        },
        empirical_fpr: fp as f64 / PROBES as f64,
        fpr_ci_low: lo,
        fpr_ci_high: hi,
        ns_per_lookup: lookups.clone(),
        ns_per_lookup_batched: if scenario == Scenario::Parallel {
            BTreeMap::new()
        } else {
            lookups
        },
        // In rounds at 1% (the peers' rate); once at the other rates: batched, or from the key
        // set for a static filter. A static filter takes no inserts: no batched insert timing.
        ns_per_insert: (timed && (target == 0.01 || is_static)).then(|| timing(50.0, rounds)),
        ns_per_insert_batched: (timed && !is_static).then(|| timing(30.0, rounds)),
        threads: (scenario == Scenario::Parallel).then_some(step.unwrap_or(1) as usize),
        step,
        ..Record::default()
    }
}

fn peer(name: &str) -> PeerRecord {
    PeerRecord {
        name: name.into(),
        build_seconds: timing(1.0, 5),
        ns_negative: timing(20.0, 9),
        ns_positive: timing(25.0, 9),
        empirical_fpr: 0.01,
        target_fpr: 0.01,
        probes: PROBES,
        ..PeerRecord::default()
    }
}

fn good() -> Results {
    let mut records = Vec::new();
    for kind in crate::filters::contenders() {
        for t in [0.01, 0.001] {
            if crate::filters::buildable(kind, 100_000, t) {
                records.push(row(Scenario::Matrix, kind, t, None));
            }
        }
        for th in [1, 2] {
            records.push(row(Scenario::Parallel, kind, 0.01, Some(th)));
        }
    }
    for kind in crate::filters::measured() {
        for s in 1..=4 {
            records.push(row(Scenario::Growth, kind, 0.01, Some(s)));
        }
    }
    for s in [1, 2] {
        let mut u = row(Scenario::Users, Variant::Classic, 0.01, Some(s));
        u.capacity = 100_000;
        u.n = s * 100_000;
        u.theoretical_fpr = u.shape.as_ref().and_then(|x| x.fpr_at(u.n)).unwrap();
        records.push(u);
    }
    for kind in crate::filters::churned() {
        for s in 0..3 {
            records.push(row(Scenario::Churn, kind, 0.01, Some(s)));
        }
    }
    let peers = crate::filters::contenders()
        .into_iter()
        .map(|k| k.name())
        .chain(PeerKind::ALL.iter().map(|k| k.name()))
        .map(peer)
        .collect();
    let mut r = Results {
        dataset: DatasetInfo {
            source: "synthetic e-mails".into(),
            members: 1000,
            non_members: 1000,
            members_sha256: "aa".into(),
            non_members_sha256: "bb".into(),
            ..DatasetInfo::default()
        },
        records,
        peers,
        ..Results::default()
    };
    floor::add_floor(&mut r);
    r
}

fn manifest() -> Manifest {
    let digest = |sha: &str| KeyFileDigest {
        keys: 1000,
        bytes: 20_000,
        sha256: sha.into(),
    };
    Manifest {
        generator: "test".into(),
        spec: DatasetSpec {
            members: 1000,
            non_members: 1000,
            seed: 1,
        },
        members: digest("aa"),
        non_members: digest("bb"),
    }
}

fn problems(r: &Results) -> Vec<String> {
    let m = manifest();
    let readme = crate::render::render_readme(r, &[]);
    let _ = &readme;
    check(
        r,
        Floors::default(),
        &Against {
            manifest: Some(&m),
            ..Against::default()
        },
    )
}

/// `break_it` must make `check` fail with a message containing `expect`.
fn rejects(expect: &str, break_it: impl FnOnce(&mut Results)) {
    let mut r = good();
    break_it(&mut r);
    let p = problems(&r);
    assert!(
        p.iter().any(|m| m.contains(expect)),
        "expected a problem containing {expect:?}, got {p:#?}"
    );
}

fn matrix_row(r: &mut Results, kind: impl Into<Contender>) -> &mut Record {
    let kind = kind.into();
    r.records
        .iter_mut()
        .find(|x| x.scenario == Scenario::Matrix && x.variant == kind.name())
        .unwrap()
}

#[test]
fn a_sound_run_is_accepted() {
    assert_eq!(problems(&good()), Vec::<String>::new());
}

#[test]
fn an_always_present_filter_is_rejected() {
    rejects("sigmas off", |r| {
        let x = matrix_row(r, Variant::Classic);
        x.false_positives = x.probes;
        x.empirical_fpr = 1.0;
    });
}

/// Sets a row's false-positive count and the figures derived from it.
fn set_false_positives(x: &mut Record, fp: u64) {
    x.false_positives = fp;
    x.empirical_fpr = fp as f64 / x.probes as f64;
    (x.fpr_ci_low, x.fpr_ci_high) = math::wilson_interval(fp, x.probes, 1.96);
}

#[test]
fn a_stored_theory_off_tenfold_is_rejected() {
    rejects("but its parameters give", |r| {
        matrix_row(r, Variant::Blocked).theoretical_fpr *= 10.0
    });
}

/// Makes `kind`'s 1% matrix row the row of a real filter: its detail the registry's description
/// of a filter built from 3000 keys, its count what that detail's theory expects.
fn real_row(r: &mut Results, kind: Contender) -> &mut Record {
    let mut keys = crate::dataset::KeySet::new();
    for i in 0..3000 {
        keys.push(format!("k{i}@example.com").as_bytes());
    }
    let f =
        crate::filters::build_from_keys(kind, &keys, 3000, 0.01, filterlab::Pages::Huge).unwrap();
    let x = matrix_row(r, kind);
    x.n = filterlab::Filter::len(&f);
    x.shape = f.detail().ok();
    x.theoretical_fpr = filterlab::Filter::expected_fpr(&f);
    let fp = (x.theoretical_fpr * x.probes as f64).round() as u64;
    set_false_positives(x, fp);
    x
}

#[test]
fn every_rows_theory_is_recomputed_through_the_registry_and_a_tampered_one_rejected() {
    // The near cuckoo layout included: its theory is its own formula, not the spread one's.
    for kind in crate::filters::contenders() {
        let mut r = good();
        real_row(&mut r, kind);
        assert_eq!(problems(&r), Vec::<String>::new(), "{kind}");
        rejects("but its parameters give", |r| {
            real_row(r, kind).theoretical_fpr *= 1.5;
        });
    }
}

#[test]
fn a_static_row_with_an_insert_timing_is_rejected() {
    let stat = crate::filters::in_matrix()
        .into_iter()
        .find(|v| v.capabilities().static_set)
        .unwrap();
    rejects("takes no inserts", |r| {
        matrix_row(r, stat).ns_per_insert_batched = Some(timing(30.0, 5));
    });
    rejects("ns_per_insert_batched: missing", |r| {
        matrix_row(r, Variant::Classic).ns_per_insert_batched = None;
    });
}

#[test]
fn a_count_tenfold_off_the_recomputed_theory_is_rejected() {
    rejects("sigmas off", |r| {
        let x = matrix_row(r, Variant::Blocked);
        let fp = x.false_positives * 10;
        set_false_positives(x, fp);
    });
}

#[test]
fn a_row_without_typed_parameters_is_reported_not_trusted() {
    rejects("theory not recomputable", |r| {
        matrix_row(r, Variant::Cuckoo).shape = None
    });
}

#[test]
fn a_stored_rate_or_interval_that_is_not_the_counts_is_rejected() {
    rejects("stored empirical FP rate", |r| {
        matrix_row(r, Variant::Classic).empirical_fpr *= 0.5
    });
    rejects("stored interval", |r| {
        matrix_row(r, Variant::Classic).fpr_ci_high *= 2.0
    });
}

#[test]
fn too_many_rows_outside_their_interval_are_rejected() {
    // Each 2.5 sigmas off: inside the per-row 4-sigma bound, outside the 95% interval.
    rejects("outside the 95% interval", |r| {
        for x in r
            .records
            .iter_mut()
            .filter(|x| x.scenario == Scenario::Matrix)
        {
            let e = x.theoretical_fpr * x.probes as f64;
            x.false_positives = (e + 2.5 * e.sqrt()).round() as u64;
        }
    });
}

#[test]
fn empty_timings_are_rejected() {
    rejects("ns_per_lookup[25%]: missing", |r| {
        matrix_row(r, Variant::Cuckoo).ns_per_lookup.clear()
    });
    rejects("ns_per_insert: missing", |r| {
        matrix_row(r, Variant::Cuckoo).ns_per_insert = None
    });
    rejects("not a sound timing", |r| {
        matrix_row(r, Variant::Classic).ns_per_lookup.insert(
            "50".into(),
            Spread {
                median: f64::NAN,
                ..timing(1.0, 5)
            },
        );
    });
}

#[test]
fn single_sample_builds_at_the_timed_rate_are_rejected() {
    rejects("fewer than 3", |r| {
        matrix_row(r, Variant::Scalable).ns_per_insert = Some(Spread::single(80.0))
    });
}

#[test]
fn a_build_of_an_untimed_rate_is_timed_once_and_only_once() {
    let at = |r: &mut Results| -> usize {
        r.records
            .iter()
            .position(|x| {
                x.scenario == Scenario::Matrix && x.variant == "classic" && x.target_fpr == 0.001
            })
            .unwrap()
    };
    rejects("another figure is there", |r| {
        let i = at(r);
        r.records[i].ns_per_insert = Some(Spread::single(80.0));
    });
    rejects("ns_per_insert_batched: missing", |r| {
        let i = at(r);
        r.records[i].ns_per_insert_batched = None;
    });
}

#[test]
fn zero_probes_are_rejected() {
    rejects("0 probes", |r| {
        let x = matrix_row(r, Variant::Counting);
        x.probes = 0;
        x.false_positives = 0;
    });
}

#[test]
fn missing_records_are_rejected() {
    rejects("growth: 0 checkpoints for cuckoo", |r| {
        r.records
            .retain(|x| !(x.scenario == Scenario::Growth && x.variant == "cuckoo"))
    });
    rejects("parallel: 1 rows for classic", |r| {
        let i = r
            .records
            .iter()
            .position(|x| x.scenario == Scenario::Parallel)
            .unwrap();
        r.records.remove(i);
    });
    // The sweep is a study of its own: its rows do not belong in results.json.
    rejects("size_sweep rows belong to the sweep study", |r| {
        r.records.extend(sweep_rows());
    });
}

/// The size sweep study's rows: every measured variant at two sizes.
fn sweep_rows() -> Vec<Record> {
    let mut records = Vec::new();
    for kind in crate::filters::measured() {
        for size in [50_000, 100_000] {
            let mut x = row(Scenario::SizeSweep, kind, 0.01, None);
            // The sweep's sizes are the keys each filter holds; the count is theory's.
            x.n = size;
            x.theoretical_fpr = x.shape.as_ref().and_then(|d| d.fpr_at(size)).unwrap();
            let fp = (x.theoretical_fpr * x.probes as f64).round() as u64;
            set_false_positives(&mut x, fp);
            records.push(x);
        }
    }
    records
}

#[test]
fn a_sweep_missing_a_size_is_rejected() {
    let mut rows = sweep_rows();
    assert_eq!(sweep_counts(&rows), Vec::<String>::new());
    assert_eq!(theory(&rows), Vec::<String>::new());
    let i = rows.iter().position(|x| x.variant == "blocked").unwrap();
    rows.remove(i);
    let p = sweep_counts(&rows);
    assert!(
        p.iter()
            .any(|m| m.contains("size_sweep: 1 sizes for blocked")),
        "{p:?}"
    );
    assert!(sweep_counts(&[]).iter().any(|m| m.contains("no records")));
}

#[test]
fn a_run_without_the_second_articles_filter_is_rejected() {
    rejects("users:", |r| {
        r.records.retain(|x| x.scenario != Scenario::Users)
    });
}

#[test]
fn a_missing_peer_is_rejected() {
    rejects("cuckoofilter is missing", |r| {
        r.peers.retain(|p| p.name != "cuckoofilter")
    });
}

#[test]
fn false_negatives_anywhere_are_rejected() {
    rejects("peer xorf BinaryFuse8: 3 false negatives", |r| {
        r.peers
            .iter_mut()
            .find(|p| p.name == "xorf BinaryFuse8")
            .unwrap()
            .false_negatives = 3;
    });
    rejects("peer articles' Python: 1 false negatives", |r| {
        let mut py = peer("articles' Python");
        py.false_negatives = 1;
        r.peers.push(py);
    });
    rejects("churn counting n=100000: 2 false negatives", |r| {
        r.records
            .iter_mut()
            .find(|x| x.scenario == Scenario::Churn)
            .unwrap()
            .false_negatives = 2;
    });
}

#[test]
fn a_dataset_that_is_not_the_manifests_is_rejected() {
    rejects("members hash", |r| r.dataset.members_sha256 = "cc".into());
}

#[test]
fn a_readme_that_is_not_rendered_from_the_results_is_rejected() {
    let r = good();
    let rendered = crate::render::render_readme(&r, &[]);
    let ok = check(
        &r,
        Floors::default(),
        &Against {
            readme: Some(&rendered),
            ..Against::default()
        },
    );
    assert!(ok.is_empty(), "{ok:?}");
    let edited = rendered.replacen("| classic |", "| classic (hand-edited) |", 1);
    assert_ne!(edited, rendered);
    let bad = check(
        &r,
        Floors::default(),
        &Against {
            readme: Some(&edited),
            ..Against::default()
        },
    );
    assert!(
        bad.iter().any(|m| m.contains("README.md differs")),
        "{bad:?}"
    );
    let root = format!("intro\n{}\nrest\n", crate::render::readme_block(&r, &[]));
    assert!(tables(
        &r,
        &Against {
            root_readme: Some(&root),
            ..Against::default()
        }
    )
    .is_empty());
    let stale = root.replace("classic", "klassik");
    assert!(!tables(
        &r,
        &Against {
            root_readme: Some(&stale),
            ..Against::default()
        }
    )
    .is_empty());
}

#[test]
fn growth_past_capacity_is_not_held_to_the_binomial_bound_but_at_capacity_it_is() {
    let mut r = good();
    let g = r
        .records
        .iter_mut()
        .find(|x| x.scenario == Scenario::Growth)
        .unwrap();
    g.n = 4 * g.capacity;
    g.theoretical_fpr = g.shape.as_ref().and_then(|x| x.fpr_at(g.n)).unwrap();
    assert!(theory(&r.records).is_empty());
    rejects("growth classic", |r| {
        let x = r
            .records
            .iter_mut()
            .find(|x| x.scenario == Scenario::Growth)
            .unwrap();
        let fp = x.false_positives * 6 / 5;
        set_false_positives(x, fp);
    });
}

#[test]
fn committed_reports_from_a_dirty_tree_are_rejected() {
    let mut r = good();
    r.machine.commit = "2557489".into();
    assert!(provenance(&r).is_empty());
    for bad in ["2557489-dirty", "unknown", ""] {
        r.machine.commit = bad.into();
        assert_eq!(provenance(&r).len(), 1, "{bad}");
    }
    let root = format!("x\n{}\n", crate::render::readme_block(&r, &[]));
    let p = check(
        &r,
        Floors::default(),
        &Against {
            root_readme: Some(&root),
            ..Against::default()
        },
    );
    assert!(p.iter().any(|m| m.contains("clean checkout")), "{p:?}");
}

#[test]
fn committed_reports_from_code_that_changed_since_are_rejected() {
    use crate::check::provenance::Repo;
    struct Fixed(bool, &'static str);
    impl Repo for Fixed {
        fn is_ancestor(&self, _: &str) -> std::io::Result<bool> {
            Ok(self.0)
        }
        fn changed_between(&self, _: &str, _: &str) -> std::io::Result<Vec<String>> {
            Ok(vec![self.1.to_string()])
        }
    }
    let mut r = good();
    r.machine.commit = "2557489".into();
    assert!(commit_is_current(&r, &Fixed(true, "crates/filter-core/tests/x.rs")).is_empty());
    let p = commit_is_current(&r, &Fixed(false, "README.md"));
    assert!(p[0].contains("not an ancestor of HEAD"), "{p:?}");
    let p = commit_is_current(&r, &Fixed(true, "crates/filter-core/src/math.rs"));
    assert!(p[0].contains("stale"), "{p:?}");
    // A dirty commit is reported by `provenance` alone.
    r.machine.commit = "2557489-dirty".into();
    assert!(commit_is_current(&r, &Fixed(false, "README.md")).is_empty());
}

#[test]
fn a_skipped_dataset_check_says_why() {
    let r = good();
    assert!(dataset_skipped(&r, None).unwrap().contains("no manifest"));
    let m = manifest();
    let reason = dataset_skipped(&r, Some(&m));
    assert_eq!(reason.is_none(), manifest_covers(&r, &m), "{reason:?}");
}

mod floor;
mod targets;

#[test]
fn a_run_without_the_near_cuckoo_rows_is_rejected() {
    rejects("matrix: 0 rows for cuckoo-near", |r| {
        r.records.retain(|x| x.variant != "cuckoo-near");
    });
    rejects("peers: cuckoo-near is missing", |r| {
        r.peers.retain(|x| x.name != "cuckoo-near");
    });
}
