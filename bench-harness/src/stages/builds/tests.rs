//! Unit tests of `stages/builds.rs`.

use super::*;
use filterlab::Filter as _;

#[test]
fn the_timed_rate_is_built_in_rounds_the_others_once_and_the_last_filters_are_kept() {
    let members: KeySet = (0..4000).map(|i| format!("m{i}@example.com")).collect();
    let probes: KeySet = (0..100).map(|i| format!("p{i}@example.org")).collect();
    let ctx = Ctx {
        members: &members,
        probes: &probes,
        rounds: 1,
        seed: 1,
        queries: 100,
        scenario_probes: 100,
    };
    let (b, record) = interleaved(&ctx, 2000, &[0.01, 0.001], None, Policy::fixed(3)).unwrap();
    assert_eq!((record.rounds, record.stop), (3, rounds::Stop::MaxRounds));
    let grid = grid(2000, &[0.01, 0.001]);
    // Every matrix row (the near cuckoo layout included) at both rates, but the two with 8-bit
    // fingerprints below what those reach (the fuse filter below 2^-8, the vqf below 0.47%).
    assert_eq!(grid.len(), 2 * crate::filters::contenders().len() - 2);
    assert!(grid.contains(&(0.001, crate::filters::CUCKOO_NEAR)));
    assert_eq!(b.ours.len(), grid.len());
    assert!(b.peers.is_empty());
    for (f, &(p, kind)) in b.ours.iter().zip(&grid) {
        assert_eq!(crate::filters::row_name(&f.filter), kind.name());
        // A filter that skips keys it reports present holds fewer: its false positives.
        let held = f.filter.len();
        if kind.capabilities().skips_present {
            assert!((1960..=2000).contains(&held), "{kind}: {held}");
        } else {
            assert_eq!(held, 2000, "{kind}");
        }
        assert_eq!(f.target_fpr, p);
        let is_static = kind.capabilities().static_set;
        let (one, batched) = (f.seconds.as_ref(), f.seconds_batched.as_ref());
        if p == 0.01 {
            // In rounds: one at a time, and batched unless static (it takes no inserts).
            assert!(one.is_some_and(|s| s.rounds == 3 && s.is_sound()), "{kind}");
            assert_eq!(
                batched.is_some_and(|s| s.rounds == 3 && s.is_sound()),
                !is_static
            );
        } else {
            // Once: batched, or from the key set for a static filter.
            let once = if is_static { one } else { batched };
            assert!(
                once.is_some_and(|s| s.rounds == 1 && s.is_sound()),
                "{kind}"
            );
            assert!(if is_static {
                batched.is_none()
            } else {
                one.is_none()
            });
        }
    }
    let (with_peers, _) = interleaved(&ctx, 2000, &[0.01], Some(0.01), Policy::fixed(2)).unwrap();
    let kinds: Vec<PeerKind> = with_peers.peers.iter().map(|p| p.peer.kind()).collect();
    let beside: Vec<PeerKind> = PeerKind::ALL
        .into_iter()
        .filter(|k| !EXACT_SETS.contains(k))
        .collect();
    assert_eq!(kinds, beside);
    for p in &with_peers.peers {
        let rounds = if BUILT_ONCE.contains(&p.peer.kind()) {
            1
        } else {
            2
        };
        assert_eq!(p.seconds.rounds, rounds, "{}", p.peer.kind().name());
    }
}
