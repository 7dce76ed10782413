//! filterlab's benchmark harness: synthetic data, measurements, reports and plots.
//!
//! `cargo run --release -p bench-harness` regenerates `reports/`; see `main.rs` for the options.
#![deny(missing_docs)]

pub mod builds;
pub mod charts;
pub mod check;
pub mod claims;
pub mod course;
pub mod dataset;
pub mod filters;
pub mod judge;
pub mod keyfile;
pub mod measure;
pub mod plan;
pub mod plot;
pub mod python;
pub mod record;
pub mod report;
pub mod scenarios;
pub mod stages;
pub mod systems;
pub mod table;
pub mod targets;
pub mod threads;
pub mod versus;
