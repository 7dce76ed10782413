//! The one list of variants: every variant's name, file id and type, and [`AnyFilter`], which
//! holds a filter of any of them (a file of unknown variant loads into it).
//!
//! A new variant is a new crate that declares its [`FileKind`] and one line of the table in
//! [`registry!`] below; nothing else in the workspace enumerates variants.

use crate::{FileKind, Filter, FormatError, Hash128, KeyHasher, Persist};

/// Declares [`Variant`] and [`AnyFilter`] from one table: `Name => Type, file kind, "summary"`.
macro_rules! registry {
    ($($name:ident => $ty:ty, $kind:expr, $doc:literal;)+) => {
        /// A filter variant.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Variant {
            $(#[doc = $doc] $name,)+
        }

        impl Variant {
            /// Every variant, in display order.
            pub const ALL: &'static [Variant] = &[$(Variant::$name),+];

            /// The id and name its files carry.
            #[must_use]
            pub const fn kind(self) -> FileKind {
                match self {
                    $(Variant::$name => $kind,)+
                }
            }
        }

        /// A filter of any variant.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum AnyFilter {
            $(#[doc = $doc] $name($ty),)+
        }

        impl AnyFilter {
            /// Its variant.
            #[must_use]
            pub fn variant(&self) -> Variant {
                match self {
                    $(AnyFilter::$name(_) => Variant::$name,)+
                }
            }

            /// Loads a saved filter of any variant (the header says which).
            ///
            /// # Errors
            /// An unknown variant id, and every error of the variant's own loader.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
                match Variant::peek(bytes)? {
                    $(Variant::$name => <$ty as Persist>::from_bytes(bytes).map(AnyFilter::$name),)+
                }
            }
        }

        /// Runs `$body` with `$f` bound to the inner filter of an [`AnyFilter`], whatever its
        /// variant (for methods every variant has).
        macro_rules! each {
            ($any:expr, $f:ident => $body:expr) => {
                match $any {
                    $(AnyFilter::$name($f) => $body,)+
                }
            };
        }
    };
}

registry! {
    Classic => crate::ClassicBloom, filter_classic::FILE_KIND, "Classic Bloom filter (Bloom 1970).";
    Counting => crate::CountingBloom, filter_counting::FILE_KIND, "Counting Bloom filter with 4-bit counters (Fan et al. 2000).";
    Scalable => crate::ScalableBloom, filter_scalable::FILE_KIND, "Scalable Bloom filter (Almeida et al. 2007).";
    Cuckoo => crate::CuckooFilter, filter_cuckoo::FILE_KIND, "Cuckoo filter (Fan et al. 2014).";
    Blocked => crate::BlockedBloom, filter_blocked::FILE_KIND, "Split-block Bloom filter (Putze et al. 2007; Parquet layout).";
}

impl Variant {
    /// The stored id.
    #[must_use]
    pub const fn id(self) -> u8 {
        self.kind().id()
    }

    /// The name used on the command line, in files and in reports.
    #[must_use]
    pub const fn name(self) -> &'static str {
        self.kind().name()
    }

    /// The variant whose files carry `id`.
    #[must_use]
    pub fn from_id(id: u8) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.id() == id)
    }

    /// The variant called `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.name() == name)
    }

    /// The variant a saved filter's header names, after the length, magic and version checks
    /// (not the checksum: the variant's loader checks everything else).
    ///
    /// # Errors
    /// Those of the checks, and [`FormatError::Invalid`] for an id this build does not know.
    pub fn peek(bytes: &[u8]) -> Result<Self, FormatError> {
        let id = crate::format::peek_kind_id(bytes)?;
        Self::from_id(id).ok_or_else(|| {
            crate::format::invalid(format!(
                "unknown variant id {id} (this build knows {})",
                Self::names()
            ))
        })
    }

    /// Every name, comma-separated (for error messages).
    #[must_use]
    pub fn names() -> String {
        Self::ALL
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Every method dispatched to the inner filter, so an `AnyFilter` is used as any filter is.
impl Filter for AnyFilter {
    fn insert_hash(&mut self, hash: Hash128) -> crate::Result<()> {
        each!(self, f => f.insert_hash(hash))
    }
    fn contains_hash(&self, hash: Hash128) -> bool {
        each!(self, f => f.contains_hash(hash))
    }
    fn hasher(&self) -> KeyHasher {
        each!(self, f => f.hasher())
    }
    fn insert_if_absent_hash(&mut self, hash: Hash128) -> crate::Result<bool> {
        each!(self, f => f.insert_if_absent_hash(hash))
    }
    fn len(&self) -> u64 {
        each!(self, f => f.len())
    }
    fn capacity(&self) -> u64 {
        each!(self, f => f.capacity())
    }
    fn size_in_bytes(&self) -> usize {
        each!(self, f => f.size_in_bytes())
    }
    fn huge_page_bytes(&self) -> Option<u64> {
        each!(self, f => f.huge_page_bytes())
    }
    fn expected_fpr(&self) -> f64 {
        each!(self, f => f.expected_fpr())
    }
    fn name(&self) -> &'static str {
        each!(self, f => f.name())
    }
    fn insert_hash_batch(&mut self, hashes: &[Hash128]) -> crate::Result<()> {
        each!(self, f => f.insert_hash_batch(hashes))
    }
    fn contains_hash_batch(&self, hashes: &[Hash128], out: &mut Vec<bool>) {
        each!(self, f => f.contains_hash_batch(hashes, out))
    }
    fn insert_batch(&mut self, keys: &[&[u8]]) -> crate::Result<()> {
        each!(self, f => f.insert_batch(keys))
    }
    fn contains_batch(&self, keys: &[&[u8]], out: &mut Vec<bool>) {
        each!(self, f => f.contains_batch(keys, out))
    }
}

impl std::fmt::Display for Variant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no variant's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownVariant(pub String);

impl std::fmt::Display for UnknownVariant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "no variant is called {:?} (the variants: {})",
            self.0,
            Variant::names()
        )
    }
}

impl std::error::Error for UnknownVariant {}

impl std::str::FromStr for Variant {
    type Err = UnknownVariant;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| UnknownVariant(s.to_owned()))
    }
}

#[cfg(test)]
mod tests;
