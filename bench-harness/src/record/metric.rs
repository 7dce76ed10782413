//! One name for the figures a timed row carries, shared by the peers' records and the Python
//! package's rows (each side reads its own rows through its own `impl`).

/// A figure of a timed row: lookups, builds and (for [`super::PeerRecord`]) the table's bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    /// ns per negative lookup, one at a time (Python: `in` on non-members).
    Negative,
    /// ns per positive lookup, one at a time (Python: `in` on members).
    Positive,
    /// ns per negative lookup, batched (Python: `contains_many`).
    NegativeBatched,
    /// ns per positive lookup, batched (Python: `contains_many`).
    PositiveBatched,
    /// Build seconds, one insert at a time (Python: `add`).
    Build,
    /// Build seconds through `insert_batch` (Python: `add_many`, rbloom's `update`).
    BuildBatched,
    /// Table bytes.
    Bytes,
}

impl Metric {
    /// Whether the figure is timed through a batched call.
    #[must_use]
    pub fn batched(self) -> bool {
        matches!(
            self,
            Metric::NegativeBatched | Metric::PositiveBatched | Metric::BuildBatched
        )
    }
}
