//! The formulas of the sliding-window filters live in [`filter_core::math::window`], with
//! their sources and tests; they are re-exported here so that `filter_window::math::…` keeps
//! working.

pub use filter_core::math::window::*;

#[cfg(test)]
mod tests;
