use super::*;
use crate::dataset::KeySet;
use crate::plan::Ctx;

#[test]
fn checkpoints_double_from_the_declared_capacity_and_end_at_n() {
    assert_eq!(checkpoints(1000, 5000), vec![1000, 2000, 4000, 5000]);
    assert_eq!(checkpoints(1000, 4000), vec![1000, 2000, 4000]);
    assert_eq!(checkpoints(1000, 500), vec![500]);
}

/// A small run: 100 declared, grown to 3200, 2000 fresh probes per checkpoint.
pub(crate) fn settings() -> Settings {
    Settings {
        declared: 100,
        target_fpr: 0.01,
        n: 3200,
        checkpoints: checkpoints(100, 3200),
        probes: 2000,
        small_n: 1000,
        queries: 2000,
        rounds: 2,
        merge_keys: 2000,
    }
}

/// `f` on the small run's context: synthetic keys (members and probes disjoint by prefix),
/// probe windows for every checkpoint and for the cycle's points.
fn with_ctx<R>(f: impl FnOnce(&Ctx<'_>, &Settings) -> R) -> R {
    let s = settings();
    let members: KeySet = (0..s.n)
        .map(|i| format!("member-{i}@example.org"))
        .collect();
    let windows = (s.checkpoints.len() as u64 + 1).max(POINTS as u64 + 1);
    let probes: KeySet = (0..windows * s.probes)
        .map(|i| format!("probe-{i}@example.net"))
        .collect();
    let ctx = Ctx {
        members: &members,
        probes: &probes,
        rounds: s.rounds,
        seed: 7,
        queries: s.queries as usize,
        scenario_probes: s.probes as usize,
    };
    f(&ctx, &s)
}

/// The small run measured.
pub(crate) fn measured() -> (Vec<Checkpoint>, Vec<Summary>) {
    with_ctx(|ctx, s| measure(ctx, s).expect("the small run measures"))
}

/// The Aleph filter's last doubling cycle in the small run.
pub(crate) fn measured_cycle() -> Option<Cycle> {
    with_ctx(|ctx, s| measure_cycle(ctx, s).expect("the cycle measures"))
}

/// The cycle is one: a filter holding one key fewer than its start is smaller, one holding its
/// end is larger, and every point between has the same table; its points are log-midpoints,
/// the last one before the end, every key found.
#[test]
fn the_cycle_lies_between_two_doublings() {
    let c = measured_cycle().expect("the small run doubles more than twice");
    let s = settings();
    assert_eq!(c.points.len(), POINTS);
    assert!(c.from < c.points[0].n && c.points[POINTS - 1].n < c.before.n);
    assert_eq!(c.before.n, c.to - 1);
    assert!(c.to <= s.n && c.to >= 2 * c.from - 2, "{c:?}");
    let bytes = c.before.bytes;
    assert!(c
        .points
        .iter()
        .all(|p| p.bytes == bytes && p.false_negatives == 0));
    let size = |n: u64| {
        with_ctx(|ctx, s| {
            let mut f = Grown::new(ALEPH, s.declared, s.target_fpr, s.n).unwrap();
            assert_eq!(run::fill(ctx, &mut f, 0, n).unwrap(), None);
            f.bytes()
        })
    };
    assert!(size(c.from - 1) < bytes && size(c.from) == bytes && size(c.to) > bytes);
    let mid = cycle_points(c.from, c.to);
    assert_eq!(mid, c.points.iter().map(|p| p.n).collect::<Vec<_>>());
}

fn summary(s: &[Summary], c: Contender) -> &Summary {
    s.iter()
        .find(|x| x.contender == c)
        .expect("every contender")
}

#[test]
fn every_contender_grows_without_false_negatives_and_the_cuckoo_table_refuses() {
    let (rows, sums) = measured();
    assert!(rows.iter().all(|r| r.false_negatives == 0), "{rows:?}");
    for c in [
        EXPANDABLE,
        Contender::Ours(Variant::Scalable),
        Contender::Qfilter,
        Contender::GrowableBloom,
    ] {
        let last = rows.iter().rfind(|r| r.contender == c).unwrap();
        assert_eq!((last.n, last.refused), (3200, 0), "{c:?}");
        assert!(summary(&sums, c).first_refusal.is_none());
        let lookups = summary(&sums, c).lookups.measured().expect("timed");
        let ours = matches!(c, Contender::Ours(_));
        assert_eq!(lookups.batched.measured().is_some(), ours, "{c:?}");
    }
    let cuckoo = summary(&sums, Contender::Ours(Variant::Cuckoo));
    let at = cuckoo
        .first_refusal
        .expect("a table declared for 100 fills");
    assert!((90..400).contains(&at), "refused at {at}");
    assert!(cuckoo.lookups.measured().is_none());
    let last = rows
        .iter()
        .rfind(|r| r.contender == Contender::Ours(Variant::Cuckoo));
    assert_eq!(last.map(|r| (r.n, r.refused)), Some((at, 1)));
}

#[test]
fn the_expandable_rate_stays_within_four_sigmas_of_its_target_at_every_doubling() {
    let (rows, _) = measured();
    let s = settings();
    let sigma = (s.target_fpr * (1.0 - s.target_fpr) * s.probes as f64).sqrt();
    let most = (s.target_fpr * s.probes as f64 + 4.0 * sigma) as u64;
    let ours: Vec<_> = rows.iter().filter(|r| r.contender == EXPANDABLE).collect();
    assert_eq!(ours.len(), s.checkpoints.len());
    for r in ours {
        assert!(r.false_positives <= most, "{r:?} above {most}");
    }
}

#[test]
fn deletes_and_merges_lose_no_key_where_supported_and_say_why_not_elsewhere() {
    let (_, sums) = measured();
    for c in [
        EXPANDABLE,
        Contender::Qfilter,
        Contender::Ours(Variant::Cuckoo),
    ] {
        let d = summary(&sums, c).deletes.measured().expect("deletes");
        assert_eq!((d.false_negatives, d.refused), (0, 0), "{c:?}: {d:?}");
        assert_eq!(d.asked, d.held.div_ceil(10));
        assert_eq!(d.remaining, d.held - d.asked);
        assert!(d.deleted_still_present < d.asked / 2, "{c:?}: {d:?}");
    }
    for c in [EXPANDABLE, Contender::Qfilter] {
        let m = summary(&sums, c).merge.measured().expect("merges");
        assert_eq!((m.false_negatives, m.halves), (0, (1000, 1000)), "{c:?}");
    }
    for c in [Contender::Ours(Variant::Scalable), Contender::GrowableBloom] {
        assert!(summary(&sums, c).deletes.measured().is_none());
        assert!(summary(&sums, c).merge.measured().is_none());
    }
    assert!(summary(&sums, Contender::Ours(Variant::Cuckoo))
        .merge
        .measured()
        .is_none());
}

#[test]
fn a_contender_is_stored_by_name_and_an_unknown_name_is_refused() {
    for c in Contender::all() {
        let json = serde_json::to_string(&c).unwrap();
        assert_eq!(json, format!("{:?}", c.name()));
        assert_eq!(serde_json::from_str::<Contender>(&json).unwrap(), c);
    }
    let err = serde_json::from_str::<Contender>("\"cuckoo-ish\"").unwrap_err();
    assert!(
        err.to_string()
            .contains("no growth contender is called \"cuckoo-ish\""),
        "{err}"
    );
}

#[test]
fn a_missing_capability_names_the_operation_and_the_variants_that_have_it() {
    use super::grown::{deletes, merges};
    use filterlab::Variant;
    let classic = Contender::Ours(Variant::Classic);
    let why = deletes(classic).unwrap_err();
    assert!(
        why.starts_with("the classic filter has no remove (deletes: "),
        "{why}"
    );
    assert!(
        why.contains("counting") && !why.contains("classic,"),
        "{why}"
    );
    assert!(merges(classic).is_ok() == Variant::Classic.capabilities().merges);
    assert_eq!(deletes(Contender::Ours(Variant::Counting)), Ok(()));
    assert_eq!(deletes(Contender::Qfilter), Ok(()));
    assert_eq!(merges(Contender::Qfilter), Ok(()));
    assert_eq!(
        merges(Contender::GrowableBloom),
        Err("growable-bloom-filter has no merge".into())
    );
    assert_eq!(
        deletes(Contender::GrowableBloom),
        Err("growable-bloom-filter has no remove".into())
    );
}

/// The expandable filter's lookups come with both cuckoo references timed in its rounds, and
/// both Aleph filters' with the fixed quotient filter, at their two sizes, batched too; a
/// reference never grew (its bytes are those of an empty filter declared for as many keys); no
/// other contender has references.
#[test]
fn the_references_are_timed_beside_the_expandable_pair_at_its_sizes() {
    let (_, sums) = measured();
    let s = settings();
    let ours = summary(&sums, EXPANDABLE);
    let kinds: Vec<ReferenceKind> = ours.references.iter().map(|r| r.kind).collect();
    assert_eq!(kinds, ReferenceKind::of(EXPANDABLE));
    for who in [ALEPH, Contender::AlephEstimate] {
        let kinds: Vec<ReferenceKind> = summary(&sums, who)
            .references
            .iter()
            .map(|r| r.kind)
            .collect();
        assert_eq!(kinds, ReferenceKind::of(who), "{}", who.name());
        assert_eq!(kinds[0], ReferenceKind::FixedQuotient);
    }
    // The grown peers are timed in the Aleph filter's rounds only.
    assert_eq!(ReferenceKind::of(ALEPH).len(), 3);
    let all = sums.iter().flat_map(|x| x.references.iter());
    for r in all {
        let l = r.lookups.measured().expect("timed");
        assert_eq!(l.contender, r.kind.contender());
        assert_eq!((l.small_n, l.large_n), (s.small_n, s.n));
        assert_eq!(l.negative_large.rounds, s.rounds);
        if r.kind.grows() {
            // A peer grown as the Aleph filter was: larger at n, and no batch lookup.
            assert!(l.large_bytes > l.small_bytes, "{r:?}");
            assert!(l.batched.measured().is_none(), "{r:?}");
            continue;
        }
        assert!(l.batched.measured().is_some(), "{r:?}");
        for (keys, bytes) in [(s.small_n, l.small_bytes), (s.n, l.large_bytes)] {
            let empty = Grown::new(r.kind.contender(), keys, s.target_fpr, keys).unwrap();
            assert_eq!(bytes, empty.bytes(), "{:?} at {keys} keys grew", r.kind);
        }
    }
    let grown = ours.lookups.measured().expect("timed");
    assert!(grown.large_bytes > ours.references[1].lookups.measured().unwrap().large_bytes);
    assert!(sums
        .iter()
        .filter(|x| ![EXPANDABLE, ALEPH, Contender::AlephEstimate].contains(&x.contender))
        .all(|x| x.references.is_empty()));
}
