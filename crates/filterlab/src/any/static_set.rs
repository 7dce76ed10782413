//! [`Static`]: a filter built once from its whole key set ([`StaticFilter`]: binary fuse,
//! ribbon) held as a [`Filter`], so that the registry lists it beside the variants filled by
//! inserts. Its queries, sizes and files are the inner filter's; an insert is refused with
//! [`Error::Unsupported`] and changes nothing. It is built by
//! [`AnyFilter::build_from_hashes`](super::AnyFilter::build_from_hashes).

use crate::format::Codec;
use crate::{Error, Explain, Filter, Hash128, KeyHasher, Persist, Positions, StaticFilter};

/// A static filter as a [`Filter`] whose inserts are refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Static<T>(T);

impl<T> Static<T> {
    /// Wraps a built filter.
    pub fn new(inner: T) -> Self {
        Static(inner)
    }

    /// The inner filter.
    pub fn get(&self) -> &T {
        &self.0
    }

    /// The inner filter, unwrapped.
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T: StaticFilter + Persist> Filter for Static<T> {
    /// Refused: a static filter is built once from its whole key set.
    fn insert_hash(&mut self, _: Hash128) -> crate::Result<()> {
        Err(Error::Unsupported {
            variant: T::KIND.name(),
            operation: "insert keys (it is built once from its whole key set; rebuild it)",
            supported_by: super::Variant::names_with(|c| !c.static_set),
        })
    }
    #[inline]
    fn contains_hash(&self, hash: Hash128) -> bool {
        self.0.contains_hash(hash)
    }
    /// The inner filter's own `contains` (the same `contains_hash(hasher().hash(key))`),
    /// marked for inlining into [`AnyFilter`](super::AnyFilter)'s dispatch.
    #[inline]
    fn contains(&self, key: &[u8]) -> bool {
        self.0.contains(key)
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        self.0.contains_hash_batch(hashes, out);
    }
    forwarded!(
        hasher -> KeyHasher,
        len -> u64,
        size_in_bytes -> usize,
        huge_page_bytes -> Option<u64>,
        expected_fpr -> f64,
    );
    /// The keys it was built from: it takes no more.
    fn capacity(&self) -> u64 {
        self.0.len()
    }
    /// The variant's name, as its files carry it.
    fn name(&self) -> &'static str {
        T::KIND.name()
    }
}

/// The inner filter's file, unchanged: a `Static` reads and writes the variant's own files.
impl<T: StaticFilter + Codec> Codec for Static<T> {
    wrapped_codec!(T, Static);
}

impl<T: Explain> Explain for Static<T> {
    fn positions_hash(&self, hash: Hash128) -> Positions {
        self.0.positions_hash(hash)
    }
}
