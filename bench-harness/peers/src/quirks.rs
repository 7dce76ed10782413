//! What a reader must know to compare each peer fairly.

use crate::PeerKind;

impl PeerKind {
    /// What a reader of the report must know to compare this peer fairly, in one sentence.
    pub fn quirks(self) -> &'static str {
        match self {
            PeerKind::FastbloomDefault => {
                "Seeded here with `.seed(&SEED)` (SipHash-1-3); left unseeded, fastbloom draws a \
                 random seed for every filter, and it derives all k probes from one 64-bit hash \
                 and rounds the bit array up to whole 64-bit words."
            }
            PeerKind::FastbloomFoldhash => {
                "Same filter as fastbloom but hashed with foldhash's fast, non-DoS-resistant \
                 `FixedState::with_seed(SEED)`, which is deterministic across runs."
            }
            PeerKind::FastbloomXxh3 => {
                "Same filter as fastbloom but hashed as filterlab's xxh3-64 hashes \
                 (`xxh3_64_with_seed(key, SEED)`, one call a key through a `BuildHasher` \
                 written here): the split-block goal's like-for-like denominator."
            }
            PeerKind::Bloomfilter => {
                "Seeded with a fixed 32-byte seed whose two 16-byte halves are distinct (each \
                 half keys one of its two SipHash-1-3 passes, and equal halves make the first \
                 two probes coincide, which measured about 4x the FP rate at p = 0.01), and it hashes \
                 every key twice."
            }
            PeerKind::Cuckoofilter => {
                "Ignores p (fixed 8-bit fingerprints, 4 per bucket, FP about 8·load/255), rounds \
                 the table up to a power of two, picks eviction victims with `thread_rng` so its \
                 contents after evictions are not reproducible, and on a full table `add` \
                 returns NotEnoughSpace after dropping a random *other* key (counted here as a \
                 refused insert)."
            }
            PeerKind::CuckoofilterXxh3 => {
                "The cuckoofilter above with `xxhash_rust::xxh3::Xxh3` (default seed) as its \
                 `Hasher + Default` instead of SipHash; same table, fingerprints and eviction \
                 quirks."
            }
            PeerKind::GrowableBloom => {
                "Not seedable but deterministic (xxh3 with the default seed); a partitioned \
                 Bloom filter with k = ceil(log2(1/p)) slices that adds a 2x larger, 0.85x \
                 tighter sub-filter once n inserts are exceeded, and skips an insert that \
                 already tests positive."
            }
            PeerKind::ProbabilisticCollections => {
                "Seeded here through `with_hashers` with two distinct SipHash-2-4 keys (its \
                 `new` seeds from `thread_rng`); hashes every key twice, rounds k up rather \
                 than to nearest, and reduces probes with `%`."
            }
            PeerKind::BinaryFuse8 => {
                "Static: built once from all keys' xxh3_64 hashes and never updated; ignores p \
                 (FP is fixed near 2^-8 = 0.39%), and its construction retries use a fixed \
                 splitmix64 sequence, so it is deterministic."
            }
            PeerKind::BinaryFuse16 => {
                "Static like BinaryFuse8 but 16-bit fingerprints (FP fixed near 2^-16 = \
                 0.0015%, about 18 bits/key), so it is compared with our binary-fuse16, not with \
                 filters at 1%."
            }
            PeerKind::Qfilter => {
                "Built with `Filter::new(n, p)`: a fixed size (its resizable mode doubles the \
                 rate at each resize), 2^q slots for the smallest q that holds n at 95% load and \
                 r = ceil(log2(1/p)) remainder bits (7 at 1%) plus 2.125 metadata bits a slot, \
                 so its rate and bits/key depend on how full n leaves 2^q slots; keys inserted \
                 with `insert_duplicated` (no presence check: a copy per insert, as ours), \
                 hashed by its default `StableBuildHasher` (foldhash quality, seed 0: \
                 deterministic); a full table's refusal is counted as a refused insert."
            }
            PeerKind::HashSet => {
                "Exact (no false positives); std's `RandomState` is seeded randomly per process, \
                 so bucket layout and timings, but not answers, vary between runs, and lookups \
                 first check that the key is UTF-8."
            }
            PeerKind::HashSetBytes => {
                "Exact; keys stored as `Box<[u8]>` (no UTF-8 check, one allocation per key) and \
                 hashed with foldhash's fixed-seed fast hasher, so it is deterministic."
            }
        }
    }
}
