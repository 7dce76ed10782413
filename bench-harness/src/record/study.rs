//! The studies: the long experiments that run on demand (`bench-harness study NAME`, `just study
//! NAME`), each into its own JSON and page under reports/, with its own commit, date, machine and
//! wall time. The main job (`just bench`) runs none of them at full size; a `--quick` run runs
//! every one at its quick size, so that CI exercises their code.

use serde::{Deserialize, Serialize};

/// One study.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum Study {
    /// The split-block filter's 64-bit hash against the 128-bit one at 10^9 and 10^10 keys.
    Hashing,
    /// Growing from 1,000 declared keys to 10M at 1%: expandable, scalable, cuckoo, qfilter,
    /// growable-bloom-filter.
    Growth,
    /// Sliding windows: every design through a stream of eleven windows of a million items.
    Window,
    /// Lookup cost against filter size, 10^4 to 10^7 keys.
    Sweep,
    /// The formula course with its independent repetitions.
    Course,
    /// The pure-Python filters and the first article's class at 10M keys (the main job measures
    /// them on a sample), beside the Python package's ClassicBloom.
    PythonPeers,
    /// A saved filter opened in place (mapped) against loaded: opens, lookups, processes.
    Mapped,
    /// Other ecosystems' filter files read by filterlab, and the count a Bloom filter's bits
    /// imply.
    Interop,
}

impl Study {
    /// Every study, in the order `study all` runs them.
    pub const ALL: [Study; 8] = [
        Study::Course,
        Study::Growth,
        Study::Window,
        Study::Sweep,
        Study::Hashing,
        Study::PythonPeers,
        Study::Mapped,
        Study::Interop,
    ];

    /// Its name on the command line and in the JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Study::Hashing => "hashing",
            Study::Growth => "growth",
            Study::Window => "window",
            Study::Sweep => "sweep",
            Study::Course => "course",
            Study::PythonPeers => "python-peers",
            Study::Mapped => "mapped",
            Study::Interop => "interop",
        }
    }

    /// What it measures, in a line.
    #[must_use]
    pub fn what(self) -> &'static str {
        match self {
            Study::Hashing => {
                "what a 64-bit hash costs the split-block filter at 10^9 and 10^10 keys"
            }
            Study::Growth => "growth from 1,000 declared keys to 10M at 1%, every growing filter",
            Study::Window => "sliding windows: every design through a stream of windows",
            Study::Sweep => "lookup cost against filter size, 10^4 to 10^7 keys",
            Study::Course => "the formula course, each measurement in independent repetitions",
            Study::PythonPeers => {
                "the pure-Python filters and the first article's class at 10M keys: FP promise and cost beside ClassicBloom"
            }
            Study::Mapped => {
                "saved filters opened in place against loaded, 13 MB and 1.3 GB: opens, lookups, 8 processes, `filterlab query`"
            }
            Study::Interop => {
                "foreign filter files (Guava, RedisBloom, Parquet) read against filterlab's own, and the count a Bloom filter's bits imply at five fills"
            }
        }
    }

    /// Its page, relative to the reports directory.
    #[must_use]
    pub fn page(self) -> &'static str {
        match self {
            Study::Hashing => "hashing.md",
            Study::Growth => "expansion.md",
            Study::Window => "window.md",
            Study::Sweep => "sweep.md",
            Study::Course => "course/course.md",
            Study::PythonPeers => "python-peers.md",
            Study::Mapped => "mapped.md",
            Study::Interop => "interop.md",
        }
    }

    /// Its JSON, relative to the reports directory.
    #[must_use]
    pub fn json(self) -> String {
        self.page().replace(".md", ".json")
    }

    /// The study with this name.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Study> {
        Study::ALL.into_iter().find(|s| s.name() == name)
    }
}

super::stored::stored_by_name!(Study, name, Study::ALL, "study");

/// A study as the index of reports/README.md lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stamp {
    /// Which.
    pub study: Study,
    /// The commit it was measured at.
    pub commit: String,
    /// When (UTC).
    pub date: String,
    /// Its wall time, seconds.
    pub wall_seconds: f64,
    /// The code files that changed between its commit and the main report's (empty: measured
    /// at the same code).
    pub changed_since: Vec<String>,
}
