//! Unit tests of `stages/builds.rs`.

use super::*;
use filterlab::Filter as _;

#[test]
fn every_build_is_timed_in_every_round_and_the_last_filters_are_kept() {
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
    let b = interleaved(&ctx, 2000, &[0.01, 0.001], None, 3).unwrap();
    let grid = grid(2000, &[0.01, 0.001]);
    // Every matrix row (the near cuckoo layout included) at both rates, but the 8-bit fuse
    // filter below 2^-8.
    assert_eq!(grid.len(), 2 * crate::filters::contenders().len() - 1);
    assert!(grid.contains(&(0.001, crate::filters::CUCKOO_NEAR)));
    assert_eq!(b.ours.len(), grid.len());
    assert!(b.peers.is_empty());
    for (f, &(p, kind)) in b.ours.iter().zip(&grid) {
        assert_eq!(crate::filters::row_name(&f.filter), kind.name());
        assert_eq!(f.filter.len(), 2000);
        assert_eq!(f.target_fpr, p);
        assert_eq!(f.seconds.rounds, 3);
        assert!(f.seconds.is_sound());
        // A static filter takes no inserts: no batched insert build.
        match &f.seconds_batched {
            Some(s) => assert!(s.rounds == 3 && s.is_sound()),
            None => assert!(kind.capabilities().static_set, "{kind}"),
        }
    }
    let with_peers = interleaved(&ctx, 2000, &[0.01], Some(0.01), 2).unwrap();
    assert_eq!(with_peers.peers.len(), PeerKind::ALL.len());
    assert!(with_peers.peers.iter().all(|p| p.seconds.rounds == 2));
}
