//! filterlab's benchmark harness: synthetic data, measurements, reports and plots.
//!
//! `cargo run --release -p bench-harness` regenerates `reports/`; see `main.rs` for the options.
//! The modules follow the data: [`plan`] (from the flags) -> [`dataset`] (keys) -> [`measure`]
//! (timing loops, spread) -> [`stages`] (each measures and records, renders nothing) ->
//! [`record`] (the one results model) -> [`judge`] (targets and claims) -> [`render`] (Markdown,
//! charts) -> [`book`] (the course's chapters) -> [`check`] (reads the JSON only); [`pipeline`] runs them in order. No module imports
//! one further down that list (`tests/layout.rs`), except that every step reads [`record`],
//! [`filters`] (the variants) and [`plan`].
#![deny(missing_docs)]

pub mod book;
pub mod check;
pub mod dataset;
pub mod filters;
pub mod judge;
pub mod measure;
pub mod pipeline;
pub mod plan;
pub mod record;
pub mod render;
pub mod stages;
