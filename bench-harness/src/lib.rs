//! filterlab's benchmark harness: synthetic data, measurements, reports and plots.
//!
//! `cargo run --release -p bench-harness` regenerates `reports/`; see `main.rs` for the options.
#![deny(missing_docs)]

pub mod dataset;
pub mod filters;
pub mod measure;
pub mod plot;
pub mod record;
pub mod report;
pub mod scenarios;
pub mod systems;
pub mod versus;
