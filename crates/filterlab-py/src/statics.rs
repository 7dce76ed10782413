//! The static filters: one Python class per registry row built once from its whole key set
//! (binary fuse, ribbon). They take their keys in the constructor and then only answer queries.

use crate::filters::filter_class;
use crate::keys;
use crate::{err, load_err, read_file};
use filterlab::format::mapped::FileBytes;
use filterlab::{AnyFilter, Filter, FormatError, Params, Persist, Variant};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::path::PathBuf;

/// A filter of the variant whose files `R` writes, built from the keys of `obj` at `fpr`.
fn built<R: TryFrom<AnyFilter> + Persist>(obj: &Bound<'_, PyAny>, fpr: f64) -> PyResult<R> {
    let variant = Variant::from_id(R::KIND.id()).ok_or_else(|| err("not a registry variant"))?;
    let hasher = filterlab::KeyHasher::default();
    let mut hashes = Vec::new();
    keys::in_chunks_released(obj, |chunk| {
        hashes.extend(chunk.iter().map(|k| hasher.hash(k)));
        Ok(())
    })?;
    let params = Params::new((hashes.len() as u64).max(1), fpr).hasher(hasher);
    let f = AnyFilter::build_from_hashes(variant, &params, &hashes).map_err(err)?;
    R::try_from(f).map_err(|_| err("the registry built another variant"))
}

filter_class!(
    /// The binary fuse filter with 8-bit fingerprints (Graf & Lemire 2022): about 9 bits per
    /// key at a rate of 2^-8, built once from the key set.
    static StaticFuse8, "BinaryFuse8", filterlab::StaticFuse8
);

filter_class!(
    /// The binary fuse filter with 16-bit fingerprints (Graf & Lemire 2022): about 18 bits per
    /// key at a rate of 2^-16, built once from the key set.
    static StaticFuse16, "BinaryFuse16", filterlab::StaticFuse16
);

filter_class!(
    /// The standard ribbon filter (Dillinger & Walzer 2021): any rate down to 2^-16 at a few
    /// percent over the lower bound, built once from the key set.
    static StaticRibbon, "Ribbon", filterlab::StaticRibbon
);
