//! What the user asks `recommend` for: the request, apart from the choice made from it.

use crate::window::Window;

/// With `--growth` and no `--max-n`: the budget is judged at this multiple of `n`, the largest
/// the growth table shows.
pub const GROWTH_DEFAULT_MAX: u64 = 10;

/// What the user needs.
#[derive(Clone, Copy, Debug)]
pub struct Needs {
    /// Expected items.
    pub n: u64,
    /// Target rate.
    pub fpr: f64,
    /// Items must be removable.
    pub deletes: bool,
    /// The item count is unknown or grows.
    pub growth: bool,
    /// The keys are known and fixed: a static filter, built once from them.
    pub fixed_set: bool,
    /// With `growth`: the most items expected (default [`GROWTH_DEFAULT_MAX`] x `n`).
    pub max_n: Option<u64>,
    /// Memory budget in bytes.
    pub max_memory: Option<u64>,
    /// Threads that will query the filter.
    pub threads: u32,
    /// Only recent keys matter: a sliding window (of `n` items, or holding `n` items per
    /// window of time).
    pub window: Option<Window>,
}

impl Needs {
    /// `n` items at rate `fpr`, queried by one thread, nothing else asked.
    pub fn new(n: u64, fpr: f64) -> Self {
        Needs {
            n,
            fpr,
            deletes: false,
            growth: false,
            fixed_set: false,
            max_n: None,
            max_memory: None,
            threads: 1,
            window: None,
        }
    }
}
