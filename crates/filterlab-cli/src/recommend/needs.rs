//! What the user asks `recommend` for: the request, apart from the choice made from it, and the
//! one place that says at how many items a request is judged.

use crate::window::Window;
use filterlab::math::format_real;
use std::fmt::Write;

/// With `--growth` and no `--max-n`: the budget is judged at this multiple of `n`, the largest
/// the growth table shows.
pub const GROWTH_DEFAULT_MAX: u64 = 10;

/// What the user needs.
#[derive(Clone, Copy, Debug, PartialEq)]
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

    /// The items a growing request expects at most: `--max-n`, or [`GROWTH_DEFAULT_MAX`] x `n`
    /// (never below `n`).
    pub fn expected_max(&self) -> u64 {
        self.max_n
            .unwrap_or(self.n.saturating_mul(GROWTH_DEFAULT_MAX))
            .max(self.n)
    }

    /// The items every candidate is ranked at and the budget is judged at: the expected
    /// maximum when growth was asked for, `n` otherwise. One criterion for both, so the
    /// smallest candidate is also the one most likely to fit.
    pub fn judged_items(&self) -> u64 {
        if self.growth {
            self.expected_max()
        } else {
            self.n
        }
    }

    /// Where the request is judged, in words: empty at `n`, else the expected maximum and
    /// where it came from.
    pub fn judged_at(&self) -> String {
        if !self.growth {
            return String::new();
        }
        let max = self.expected_max();
        let source = if self.max_n.is_some() {
            "--max-n".to_string()
        } else {
            format!("{GROWTH_DEFAULT_MAX}x n, the default; set --max-n")
        };
        format!(" at its expected maximum of {max} items ({source})")
    }

    /// The same request with `max_n` scaled from `n` to `n2` items (rounded down, at least
    /// `n2`), so that a smaller count keeps the growth asked for.
    pub fn with_n(&self, n2: u64) -> Needs {
        let max_n = self
            .max_n
            .map(|m| ((u128::from(m) * u128::from(n2) / u128::from(self.n.max(1))) as u64).max(n2));
        Needs {
            n: n2,
            max_n,
            ..*self
        }
    }

    /// The request as the `filterlab recommend` command line that asks it (every flag that
    /// differs from its default, in a form the parser reads back exactly).
    pub fn command_line(&self) -> String {
        let mut line = format!(
            "filterlab recommend --n {} --fpr {}",
            self.n,
            format_real(self.fpr)
        );
        let flag = |on: bool, name: &str, line: &mut String| {
            if on {
                let _ = write!(line, " --{name}");
            }
        };
        flag(self.deletes, "deletes", &mut line);
        flag(self.growth, "growth", &mut line);
        if let (true, Some(m)) = (self.growth, self.max_n) {
            let _ = write!(line, " --max-n {m}");
        }
        flag(self.fixed_set, "fixed-set", &mut line);
        match self.window {
            Some(Window::Items) => line.push_str(" --window items"),
            Some(Window::Seconds(s)) => {
                let _ = write!(line, " --window {s}");
            }
            None => {}
        }
        if let Some(b) = self.max_memory {
            let _ = write!(line, " --max-memory {b}");
        }
        if self.threads > 1 {
            let _ = write!(line, " --threads {}", self.threads);
        }
        line
    }
}
