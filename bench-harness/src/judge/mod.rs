//! The verdicts computed from the records: the speed and memory targets (ratios between two
//! figures of the same run) and the articles' claims.

pub mod claims;
pub mod course;
pub mod floor;
pub mod systems;
pub mod targets;
pub mod threads;
pub mod window;
