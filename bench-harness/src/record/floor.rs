//! The limit, measured: what one random cache-line read over a table of a filter's size costs on
//! this machine (dependent, as a pointer chase, and independent, as a batch of reads whose
//! addresses are known up front), what hashing the same keys costs, and every lookup figure of
//! the split-block and cuckoo filters as a multiple of that floor (as RocksDB's filter bench
//! reports "X against the best possible Y").

use crate::measure::Spread;
use serde::{Deserialize, Serialize};

/// Whose table size a floor is measured at.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FloorTable {
    /// The split-block filter at the comparison's n and rate.
    Blocked,
    /// The cuckoo filter at the comparison's n and rate.
    Cuckoo,
}

impl FloorTable {
    /// Every table, in table order.
    pub const ALL: [FloorTable; 2] = [FloorTable::Blocked, FloorTable::Cuckoo];

    /// The variant's name, as in the comparison's rows.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            FloorTable::Blocked => "blocked",
            FloorTable::Cuckoo => "cuckoo",
        }
    }
}

/// One table's memory floor: ns per random line read over a table of its bytes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LineReads {
    /// Whose size.
    pub table: FloorTable,
    /// The filter's table bytes (the read table is this, rounded up to whole 64-byte lines).
    pub bytes: u64,
    /// 64-byte lines of the read table.
    pub lines: u64,
    /// ns per read when each address comes from the line read before (a pointer chase over a
    /// random cycle through every line): a miss's full latency, nothing overlapped.
    pub dependent: Spread,
    /// ns per read when the addresses are known up front (a scan of precomputed random line
    /// indices, the lines summed): as many misses in flight as the core allows.
    pub independent: Spread,
}

pub use super::conditions::OurHash;

/// ns per key of hashing the comparison's negative query keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hashing {
    /// Which hash.
    pub hash: OurHash,
    /// ns per key over the rounds.
    pub ns: Spread,
}

/// A lookup figure of the comparison's rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lookup {
    /// ns per negative lookup, one at a time.
    Negative,
    /// ns per positive lookup, one at a time.
    Positive,
    /// ns per negative lookup, batched.
    NegativeBatched,
    /// ns per positive lookup, batched.
    PositiveBatched,
}

impl Lookup {
    /// Every figure, in table order.
    pub const ALL: [Lookup; 4] = [
        Lookup::Negative,
        Lookup::Positive,
        Lookup::NegativeBatched,
        Lookup::PositiveBatched,
    ];

    /// Its words in the tables.
    #[must_use]
    pub fn label(self) -> &'static str {
        match self {
            Lookup::Negative => "negative, one at a time",
            Lookup::Positive => "positive, one at a time",
            Lookup::NegativeBatched => "negative, batched",
            Lookup::PositiveBatched => "positive, batched",
        }
    }
}

/// One lookup figure against the floor of its table (judged by `judge::floor`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Multiple {
    /// Whose lookup.
    pub table: FloorTable,
    /// Which figure.
    pub lookup: Lookup,
    /// The figure's median, ns.
    pub ns: f64,
    /// The floor: the median xxh3-128 hash plus the median independent line read, ns.
    pub floor_ns: f64,
    /// `ns / floor_ns`.
    pub times_floor: f64,
    /// The median dependent line read, ns.
    pub dependent_ns: f64,
    /// `ns / dependent_ns`.
    pub times_dependent: f64,
}

/// Everything the floor stage measured, and the multiples judged from it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FloorReport {
    /// Keys hashed and lines read per timed pass.
    pub queries: usize,
    /// Rounds behind every figure.
    pub rounds: usize,
    /// One floor per table size.
    pub reads: Vec<LineReads>,
    /// One figure per hash.
    pub hashing: Vec<Hashing>,
    /// Every lookup figure of the split-block and cuckoo rows as a multiple of its floor
    /// (`check` recomputes them from the rows and the figures above).
    pub multiples: Vec<Multiple>,
}

impl FloorReport {
    /// The line reads at `table`'s size.
    #[must_use]
    pub fn reads(&self, table: FloorTable) -> Option<&LineReads> {
        self.reads.iter().find(|r| r.table == table)
    }

    /// The cost of `hash`.
    #[must_use]
    pub fn hashing(&self, hash: OurHash) -> Option<&Spread> {
        self.hashing.iter().find(|h| h.hash == hash).map(|h| &h.ns)
    }
}
