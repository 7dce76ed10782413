//! The contenders of issue 21's goals, each built at the full run's size, and their hot loops.

use anyhow::{ensure, Result};
use bench_harness::dataset::{generate, DatasetSpec, KeySet};
use bench_harness::filters::{self, AnyFilter, Variant, BESIDE_PEERS, CUCKOO_NEAR};
use bench_harness::measure::{self, query_mix};
use filterlab::{AtomicBlockedBloom, BlockedBloom, Filter, HashKind, KeyHasher, BATCH};
use filterlab_peers::{fastbloom_atomic_parallel_build, AtomicPeer, Peer, PeerKind};
use std::hint::black_box;

/// Target rate of every table, as in the full run's comparison.
const FPR: f64 = 0.01;
/// u64 words in a 64-byte cache line.
const WORDS: usize = 8;

/// Whose loop runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Contender {
    /// Split-block filter, one key at a time (`measure::time_lookups`).
    Blocked,
    /// Split-block filter, `contains_batch` in batches of `BATCH` (`measure::time_batch_lookups`).
    BlockedBatch,
    /// fastbloom+foldhash, one key at a time (`measure::time_peer_lookups`).
    Fastbloom,
    /// Cuckoo filter, default (spread) layout, one at a time.
    Cuckoo,
    /// Cuckoo filter, spread layout, batched.
    CuckooBatch,
    /// Cuckoo filter, near layout, one at a time.
    CuckooNear,
    /// Cuckoo filter, near layout, batched.
    CuckooNearBatch,
    /// Ribbon filter (static, built from all members), batched (issue 19's lookup goal).
    RibbonBatch,
    /// Ribbon filter build as the builds stage times it (`filters::build_from_keys`: hashing
    /// and the build), from `--ops` other members, so that the counts per operation are per
    /// key (issue 19's build goal); the mix is ignored.
    RibbonBuild,
    /// `AtomicBlockedBloom::contains`, one thread.
    AtomicBlockedLookup,
    /// `AtomicBlockedBloom::insert`, one thread, into a table filled to n - ops.
    AtomicBlockedInsert,
    /// fastbloom's `AtomicBloomFilter`+foldhash `contains`, one thread.
    FastbloomAtomicLookup,
    /// fastbloom's `AtomicBloomFilter`+foldhash `insert`, one thread.
    FastbloomAtomicInsert,
    /// The floor's first part: the xxh3-128 hash of each query key (the filters' hashing path).
    FloorHash,
    /// The same keys hashed with xxh3-64 (the 64-bit hash kind), beside the floor's xxh3-128.
    FloorHash64,
    /// The floor's second part: one independent 64-byte line read per query over a table of the
    /// split-block filter's bytes, at the line the key's xxh3-128 hash picks.
    FloorRead,
    /// Our binary fuse filter, 8-bit fingerprints, one at a time (`measure::time_lookups`).
    Fuse8,
    /// Our binary fuse filter, 16-bit fingerprints, one at a time.
    Fuse16,
    /// Our binary fuse 8 built with the opt-in xxh3-64 hasher (`HashKind::Xxh3_64`, the hash
    /// xorf's peer is given), one at a time: the 128-bit hash's share of the gap.
    Fuse8Hash64,
    /// xorf's `BinaryFuse8` through the `Peer`, one at a time (`measure::time_peer_lookups`).
    XorfFuse8,
    /// xorf's `BinaryFuse16` through the `Peer`, one at a time.
    XorfFuse16,
}

impl Contender {
    /// Every contender.
    pub const ALL: [Contender; 21] = [
        Contender::Blocked,
        Contender::BlockedBatch,
        Contender::Fastbloom,
        Contender::Cuckoo,
        Contender::CuckooBatch,
        Contender::CuckooNear,
        Contender::CuckooNearBatch,
        Contender::RibbonBatch,
        Contender::RibbonBuild,
        Contender::AtomicBlockedLookup,
        Contender::AtomicBlockedInsert,
        Contender::FastbloomAtomicLookup,
        Contender::FastbloomAtomicInsert,
        Contender::FloorHash,
        Contender::FloorHash64,
        Contender::FloorRead,
        Contender::Fuse8,
        Contender::Fuse16,
        Contender::Fuse8Hash64,
        Contender::XorfFuse8,
        Contender::XorfFuse16,
    ];

    /// Its command-line name.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Blocked => "blocked",
            Contender::BlockedBatch => "blocked-batch",
            Contender::Fastbloom => "fastbloom",
            Contender::Cuckoo => "cuckoo",
            Contender::CuckooBatch => "cuckoo-batch",
            Contender::CuckooNear => "cuckoo-near",
            Contender::CuckooNearBatch => "cuckoo-near-batch",
            Contender::RibbonBatch => "ribbon-batch",
            Contender::RibbonBuild => "ribbon-build",
            Contender::AtomicBlockedLookup => "atomic-blocked-lookup",
            Contender::AtomicBlockedInsert => "atomic-blocked-insert",
            Contender::FastbloomAtomicLookup => "fastbloom-atomic-lookup",
            Contender::FastbloomAtomicInsert => "fastbloom-atomic-insert",
            Contender::FloorHash => "floor-hash",
            Contender::FloorHash64 => "floor-hash64",
            Contender::FloorRead => "floor-read",
            Contender::Fuse8 => "fuse8",
            Contender::Fuse16 => "fuse16",
            Contender::Fuse8Hash64 => "fuse8-hash64",
            Contender::XorfFuse8 => "xorf-fuse8",
            Contender::XorfFuse16 => "xorf-fuse16",
        }
    }

    /// The contender called `name`.
    pub fn from_name(name: &str) -> Option<Contender> {
        Contender::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Every name, for error messages.
    pub fn names() -> String {
        Contender::ALL.map(Contender::name).join(", ")
    }

    /// Whether its keys are members not yet in a table (inserts, and the build's own keys).
    fn inserts(self) -> bool {
        matches!(
            self,
            Contender::AtomicBlockedInsert
                | Contender::FastbloomAtomicInsert
                | Contender::RibbonBuild
        )
    }
}

/// Which query keys: all non-members, all members, or half of each (the threads stage's mix).
/// Inserts ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mix {
    Negative,
    Positive,
    Half,
}

impl Mix {
    pub fn from_name(name: &str) -> Option<Mix> {
        [Mix::Negative, Mix::Positive, Mix::Half]
            .into_iter()
            .find(|m| m.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Mix::Negative => "negative",
            Mix::Positive => "positive",
            Mix::Half => "half",
        }
    }

    fn percent(self) -> u32 {
        match self {
            Mix::Negative => 0,
            Mix::Positive => 100,
            Mix::Half => 50,
        }
    }
}

/// What the loop runs over. Held by value, unboxed, as the harness's stages hold theirs: one
/// workload lives per process, and a box would put a pointer between the loop and the table.
#[allow(clippy::large_enum_variant)]
enum Table {
    Filter {
        f: AnyFilter,
        batched: bool,
    },
    Peer(Peer),
    AtomicBlocked(AtomicBlockedBloom),
    AtomicPeer(AtomicPeer),
    Hash(KeyHasher),
    /// A static filter built from each pass's keys (the pass is the build).
    Build(filters::Contender),
    /// The lines and, per pass (warm-up, measured), the line each key's hash picks.
    Lines {
        table: Vec<u64>,
        picks: [Vec<u32>; 2],
    },
}

/// A built table, its warm-up keys and its measured keys (other keys of the same kind).
pub struct Workload {
    contender: Contender,
    table: Table,
    keys: [KeySet; 2],
}

fn slice(keys: &KeySet, range: std::ops::Range<usize>) -> KeySet {
    range.map(|i| keys.get(i)).collect()
}

fn registry(c: Contender) -> (filters::Contender, bool) {
    match c {
        Contender::Cuckoo => (Variant::Cuckoo.into(), false),
        Contender::CuckooBatch => (Variant::Cuckoo.into(), true),
        Contender::CuckooNear => (CUCKOO_NEAR, false),
        Contender::CuckooNearBatch => (CUCKOO_NEAR, true),
        Contender::BlockedBatch => (Variant::Blocked.into(), true),
        Contender::Fuse8 => (Variant::BinaryFuse8.into(), false),
        Contender::Fuse16 => (Variant::BinaryFuse16.into(), false),
        Contender::RibbonBatch => (Variant::Ribbon.into(), true),
        _ => (Variant::Blocked.into(), false),
    }
}

/// The line of `lines` each key's xxh3-128 hash picks (the floor stage's rule).
fn line_picks(keys: &KeySet, lines: usize) -> Result<Vec<u32>> {
    let h = KeyHasher::new(HashKind::Xxh3_128, 0)?;
    Ok(keys
        .iter()
        .map(|k| ((u128::from(h.hash(k).lo) * lines as u128) >> 64) as u32)
        .collect())
}

/// The floor's table: the split-block filter's bytes in whole lines, every word written (a
/// never-written page is the kernel's shared zero page).
fn line_table(n: u64, keys: &[KeySet; 2]) -> Result<Table> {
    let bytes = filters::build(Variant::Blocked, n, FPR, BESIDE_PEERS)?.size_in_bytes();
    let lines = bytes.div_ceil(WORDS * 8);
    ensure!(
        u32::try_from(lines).is_ok(),
        "{lines} lines do not fit a u32 index"
    );
    let table = (0..(lines * WORDS) as u64).collect();
    Ok(Table::Lines {
        table,
        picks: [line_picks(&keys[0], lines)?, line_picks(&keys[1], lines)?],
    })
}

impl Workload {
    /// Generates `members` e-mails (seed 42) and builds `c`'s table from them at 1% on 4 KiB
    /// pages; the measured keys are `ops` queries of `mix` (or, for inserts, the last `ops`
    /// members, the table holding the members before the warm-up's).
    pub fn build(c: Contender, mix: Mix, members: usize, ops: usize) -> Result<Workload> {
        let warm_ops = ops / 4;
        let ds = generate(&DatasetSpec {
            members,
            non_members: 2 * ops,
            seed: 42,
        });
        let all = &ds.members;
        let (keys, filled) = if c.inserts() {
            let first = members - ops - warm_ops;
            let warm = slice(all, first..first + warm_ops);
            ([warm, slice(all, first + warm_ops..members)], first)
        } else {
            let q =
                |count, seed| query_mix(all, members, &ds.non_members, mix.percent(), count, seed);
            ([q(warm_ops, 8), q(ops, 7)], members)
        };
        let n = members as u64;
        let table = match c {
            Contender::Fastbloom => {
                let (peer, refused) =
                    Peer::build(PeerKind::FastbloomFoldhash, members, FPR, all.iter())?;
                ensure!(refused == 0, "fastbloom refused {refused} inserts");
                Table::Peer(peer)
            }
            Contender::XorfFuse8 | Contender::XorfFuse16 => {
                let kind = if c == Contender::XorfFuse8 {
                    PeerKind::BinaryFuse8
                } else {
                    PeerKind::BinaryFuse16
                };
                Table::Peer(Peer::build(kind, members, FPR, all.iter())?.0)
            }
            Contender::AtomicBlockedLookup | Contender::AtomicBlockedInsert => {
                let f = BlockedBloom::builder()
                    .capacity(n)
                    .fpr(FPR)
                    .pages(BESIDE_PEERS)
                    .build_atomic()?;
                all.iter().take(filled).for_each(|k| f.insert(k));
                Table::AtomicBlocked(f)
            }
            Contender::FastbloomAtomicLookup | Contender::FastbloomAtomicInsert => {
                let refs: Vec<&[u8]> = all.iter().take(filled).collect();
                Table::AtomicPeer(fastbloom_atomic_parallel_build(&refs, members, FPR, 1)?.0)
            }
            Contender::FloorHash => Table::Hash(KeyHasher::new(HashKind::Xxh3_128, 0)?),
            Contender::FloorHash64 => Table::Hash(KeyHasher::new(HashKind::Xxh3_64, 0)?),
            Contender::FloorRead => line_table(n, &keys)?,
            Contender::Fuse8Hash64 => {
                let params = filters::params(Variant::BinaryFuse8, n, FPR)?
                    .pages(BESIDE_PEERS)
                    .hasher(KeyHasher::new(HashKind::Xxh3_64, 0)?);
                let hashes: Vec<_> = all.iter().map(|k| params.hasher.hash(k)).collect();
                let f = AnyFilter::build_from_hashes(Variant::BinaryFuse8, &params, &hashes)?;
                Table::Filter { f, batched: false }
            }
            Contender::RibbonBuild => Table::Build(Variant::Ribbon.into()),
            _ => {
                let (kind, batched) = registry(c);
                let f = filters::build_from_keys(kind, all, members, FPR, BESIDE_PEERS)?;
                Table::Filter { f, batched }
            }
        };
        Ok(Workload {
            contender: c,
            table,
            keys,
        })
    }

    /// A pass over the warm-up keys, to fill the simulated caches (not collected).
    pub fn warm_up(&self) {
        black_box(self.pass(0));
    }

    /// The measured pass.
    pub fn measured(&self) -> u64 {
        self.pass(1)
    }

    /// Lookups of the measured keys that answer true (outside the measured pass; 0 for
    /// inserts and the floor).
    pub fn answers(&self) -> u64 {
        let keys = self.keys[1].iter();
        match &self.table {
            _ if self.contender.inserts() => 0,
            Table::Filter { f, .. } => keys.filter(|k| f.contains(k)).count() as u64,
            Table::Peer(p) => keys.filter(|k| p.contains(k)).count() as u64,
            Table::AtomicBlocked(f) => keys.filter(|k| f.contains(k)).count() as u64,
            Table::AtomicPeer(f) => keys.filter(|k| f.contains(k)).count() as u64,
            Table::Hash(_) | Table::Lines { .. } | Table::Build(_) => 0,
        }
    }

    /// The contender's loop over pass `i`'s keys (0 warm-up, 1 measured): the harness's own
    /// timing loop where it has one, else the threads or floor stage's loop body.
    fn pass(&self, i: usize) -> u64 {
        let keys = &self.keys[i];
        let inserts = self.contender.inserts();
        match &self.table {
            Table::Filter { f, batched: false } => measure::time_lookups(f, keys).to_bits(),
            Table::Filter { f, batched: true } => {
                measure::time_batch_lookups(f, keys, BATCH).to_bits()
            }
            Table::Peer(p) => measure::time_peer_lookups(p, keys).to_bits(),
            Table::AtomicBlocked(f) if inserts => {
                keys.iter().for_each(|k| f.insert(black_box(k)));
                0
            }
            Table::AtomicBlocked(f) => count(keys, |k| f.contains(k)),
            Table::AtomicPeer(f) if inserts => count(keys, |k| f.0.insert(k)),
            Table::AtomicPeer(f) => count(keys, |k| f.contains(k)),
            Table::Build(kind) => {
                let f = filters::build_from_keys(*kind, keys, keys.len(), FPR, BESIDE_PEERS);
                black_box(f.map(|f| f.len()).unwrap_or(u64::MAX))
            }
            Table::Hash(h) => {
                let mut acc = 0u64;
                for k in keys.iter() {
                    let x = h.hash(black_box(k));
                    acc ^= x.lo ^ x.hi;
                }
                black_box(acc)
            }
            Table::Lines { table, picks } => {
                let mut sum = 0u64;
                for &l in &picks[i] {
                    sum = sum.wrapping_add(table[l as usize * WORDS]);
                }
                black_box(sum)
            }
        }
    }
}

/// How many of `keys` `op` answers true for, one key at a time.
fn count(keys: &KeySet, op: impl Fn(&[u8]) -> bool) -> u64 {
    keys.iter().filter(|k| op(black_box(k))).count() as u64
}
