//! The filters that many Python threads share: every method takes `&self`, and the batches
//! run with the GIL released, so threads add and query at once. Their classes come from the
//! same macro body as the single-threaded ones ([`filter_class!`]).

use crate::filters::filter_class;
use crate::keys;
use crate::{err, load_err, read_file};
use filterlab::format::mapped::FileBytes;
use filterlab::{Filter, FormatError, Persist};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

filter_class!(
    /// The classic Bloom filter with atomic words: shared by threads.
    shared AtomicClassicBloom,
    filterlab::AtomicClassicBloom,
    filterlab::ClassicBloom
);

filter_class!(
    /// The split-block Bloom filter with atomic words: shared by threads.
    shared AtomicBlockedBloom,
    filterlab::AtomicBlockedBloom,
    filterlab::BlockedBloom
);
