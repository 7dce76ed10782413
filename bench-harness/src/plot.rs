//! The chart layer, re-exported from the `filterlab-charts` crate (bench-harness/charts) so
//! that `bench_harness::plot::{LineChart, BarChart, Series, render_line, render_bar, ...}`
//! keep working.

pub use filterlab_charts::*;
