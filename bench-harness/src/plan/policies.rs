//! The main job's timing loops: how many rounds each may run and for how long.
//!
//! Every loop's budget leaves room for its most rounds at the slowest round these loops have
//! taken on a quiet 2-core VM, so that a loop runs out of it only when its rounds were slower
//! than that: such a loop, ended wider than its policy, flags the run as disturbed
//! (`measure::rounds::disturbed`). A loop at its round limit flags nothing.

use crate::measure::rounds::Policy;

/// The build loop at 1% (ours one at a time and batched, the peers' fastest configurations:
/// 46 to 66 s a round at 10M keys on the 2-core AMD EPYC VM). At 3 rounds a median's bootstrap
/// interval spans every round and cannot narrow; from 7 it leaves out the quickest and the
/// slowest round, so one slow round no longer decides it. Each build series within ±5% (a ratio
/// of two within about ±10%, narrower paired: the build targets' bounds are 0.35× to 1×) at
/// 5 to 7 rounds: 4 to 8 minutes.
pub const BUILDS: Policy = Policy {
    min: 5,
    max: 7,
    budget_seconds: Some(500.0),
    half_width: 0.05,
};
/// The matrix's lookups (31 filters, 5 mixes, one at a time and batched; 2 to 4 s a round for
/// the 12 filters at 1%, 5 to 9 s for the 20 at the tighter rates).
pub const LOOKUPS: Policy = Policy {
    min: 3,
    max: 5,
    budget_seconds: Some(50.0),
    half_width: 0.025,
};
/// The lookups beside the peers (ours, our twins and the peers; misses and hits: 2 to 3 s a
/// round).
pub const PEER_LOOKUPS: Policy = Policy {
    min: 3,
    max: 5,
    budget_seconds: Some(20.0),
    half_width: 0.025,
};
