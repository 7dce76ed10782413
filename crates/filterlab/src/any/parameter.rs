//! A built filter's parameters, by name, for display: each one's value and whether it is fixed
//! by the filter's design or a running figure that follows what the filter holds.

/// A parameter of a built filter, by name, for display (`filterlab info`).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(untagged))]
pub enum Value {
    /// A count.
    Count(u64),
    /// A ratio such as a load factor.
    Ratio(f64),
    /// A probability.
    Rate(f64),
}

/// Whether a parameter is fixed by the filter's design or follows what the filter holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Fixed when the filter is built: the same before and after any stream of inserts.
    Design,
    /// Follows the filter's contents: what has been inserted, how full it is, how likely a
    /// counter overflows, how often it grew.
    Running,
}

/// A named parameter of a built filter, for display (`filterlab info`, the harness's reports).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Parameter {
    /// The name, as `filterlab info` prints it.
    pub name: &'static str,
    /// The value.
    pub value: Value,
    /// Fixed by the design, or a running figure.
    pub figure: Figure,
}

impl Parameter {
    /// A parameter fixed by the filter's design.
    #[must_use]
    pub const fn design(name: &'static str, value: Value) -> Self {
        Parameter {
            name,
            value,
            figure: Figure::Design,
        }
    }

    /// A running figure: one that follows the filter's contents.
    #[must_use]
    pub const fn running(name: &'static str, value: Value) -> Self {
        Parameter {
            name,
            value,
            figure: Figure::Running,
        }
    }

    /// Whether the parameter follows the filter's contents rather than its design.
    #[must_use]
    pub const fn is_running(&self) -> bool {
        matches!(self.figure, Figure::Running)
    }
}
