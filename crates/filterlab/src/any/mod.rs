//! The one list of variants: every variant's name, file id, type, capabilities, builder and
//! sizing, and [`AnyFilter`], which holds a filter of any of them (a file of unknown variant
//! loads into it) and dispatches every operation, refusing with [`Error::Unsupported`](crate::Error::Unsupported) those its
//! variant lacks.
//!
//! A new variant is a new crate that declares its [`FileKind`] and implements
//! [`Explain`](crate::Explain), one line of the table in `registry!` below, and its builder and
//! formulas (`members.rs`, `sizing.rs`, `formulas.rs`); nothing else in the workspace enumerates variants.

use crate::{Deletable, FileKind, FormatError, Growable, Persist};

/// The body of a [`Codec`](crate::format::Codec) for `$wrap`, a one-field wrapper of `$inner`:
/// the inner filter's file, unchanged.
macro_rules! wrapped_codec {
    ($inner:ty, $wrap:path) => {
        const KIND: crate::FileKind = <$inner as crate::format::Codec>::KIND;
        const WRITE_VERSION: u16 = <$inner as crate::format::Codec>::WRITE_VERSION;

        fn table_layout(version: u16) -> Option<&'static str> {
            <$inner as crate::format::Codec>::table_layout(version)
        }

        fn encode_params(&self, e: &mut crate::format::Encoder<'_>) {
            self.0.encode_params(e);
        }
        fn encode_payload(&self, e: &mut crate::format::Encoder<'_>) {
            self.0.encode_payload(e);
        }
        fn max_payload_len(
            hasher: crate::KeyHasher,
            params: &mut crate::format::Reader<'_>,
        ) -> std::result::Result<u64, crate::FormatError> {
            <$inner as crate::format::Codec>::max_payload_len(hasher, params)
        }
        fn decode(
            parts: crate::format::Parts<'_, '_>,
        ) -> std::result::Result<Self, crate::FormatError> {
            <$inner as crate::format::Codec>::decode(parts).map($wrap)
        }
    };
}

/// `Filter` methods a one-field wrapper (`Static`, `Timed`) answers with its inner filter's
/// method of the same name, unchanged.
macro_rules! forwarded {
    ($($name:ident -> $out:ty),* $(,)?) => {$(
        fn $name(&self) -> $out {
            self.0.$name()
        }
    )*};
}

mod capabilities;
mod formulas;
mod mapped;
mod members;
mod parameter;
mod params;
mod realised;
pub mod sizing;
mod static_set;
mod window;

pub use capabilities::Capabilities;
use capabilities::Capable;
pub use formulas::{formulas, Formula};
pub use mapped::Mapped;
use members::Member;
pub use parameter::{Figure, Parameter, Value};
pub(crate) use params::Knob;
pub use params::{CuckooLayout, Params};
pub use realised::{ExpandableStage, ScalableStage};
pub use sizing::{Detail, Growth, Plan};
pub use static_set::Static;
pub use window::Timed;

/// Declares [`Variant`] and [`AnyFilter`] from one table:
/// `Name => Type, [capabilities], "summary"` (`Type` re-exported at the facade's root; its
/// file kind is its [`Persist::KIND`]). The capabilities are field names of
/// [`Capabilities`]; `deletes` and `grows` also route [`AnyFilter`]'s removal and growth
/// methods to the type's [`Deletable`] and [`Growable`] implementations.
macro_rules! registry {
    ($($name:ident => $ty:ident, [$($cap:ident),*], $doc:literal;)+) => {
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
                    $(Variant::$name => <crate::$ty as Persist>::KIND,)+
                }
            }

            /// What it can do.
            #[must_use]
            pub const fn capabilities(self) -> Capabilities {
                match self {
                    $(Variant::$name => Capabilities { $($cap: true,)* ..Capabilities::NONE },)+
                }
            }

            /// One-line summary with its paper.
            #[must_use]
            pub const fn summary(self) -> &'static str {
                match self {
                    $(Variant::$name => $doc,)+
                }
            }

            /// Sizes the variant for `params` without allocating.
            ///
            /// # Errors
            /// The errors of [`crate::math`] (bad capacity or rate, a size that overflows).
            pub fn plan(self, params: &Params) -> crate::Result<Plan> {
                crate::math::check_capacity(params.capacity)?;
                crate::math::check_fpr(params.fpr)?;
                let sized = match self {
                    $(Variant::$name => <crate::$ty as Member>::size(params)?,)+
                };
                Ok(Plan::new(self, params.capacity, params.fpr, sized))
            }
        }

        /// A filter of any variant.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum AnyFilter {
            $(#[doc = $doc] $name(crate::$ty),)+
        }

        impl AnyFilter {
            /// Its variant.
            #[must_use]
            pub fn variant(&self) -> Variant {
                match self {
                    $(AnyFilter::$name(_) => Variant::$name,)+
                }
            }

            /// An empty filter of `variant` built from `params`.
            ///
            /// # Errors
            /// The builder's errors (bad parameters, a knob the variant does not take, memory
            /// that cannot be allocated).
            pub fn build(variant: Variant, params: &Params) -> crate::Result<Self> {
                Ok(match variant {
                    $(Variant::$name => AnyFilter::$name(<crate::$ty as Member>::build(params)?),)+
                })
            }

            /// A filter of `variant` built from `params` holding the keys whose hashes (by
            /// `params.hasher`) are `hashes`: the one constructor for every variant, those
            /// filled by inserts and those built once from their whole key set.
            ///
            /// # Errors
            /// As [`AnyFilter::build`], and an insert that fails (a full table).
            pub fn build_from_hashes(
                variant: Variant,
                params: &Params,
                hashes: &[crate::Hash128],
            ) -> crate::Result<Self> {
                Ok(match variant {
                    $(Variant::$name => AnyFilter::$name(
                        <crate::$ty as Member>::build_from_hashes(params, hashes)?,
                    ),)+
                })
            }

            /// The check a reader makes with a file's head before it reads the payload: that
            /// of the variant the header names ([`Persist::check_head`]: a payload length
            /// its parameters allow).
            ///
            /// # Errors
            /// An unknown variant id, and the variant's refusal.
            pub fn check_head(head: &crate::format::Head<'_>) -> Result<(), FormatError> {
                match Variant::from_id(head.kind_id).ok_or_else(|| Variant::unknown(head.kind_id))? {
                    $(Variant::$name => <crate::$ty as Persist>::check_head(head),)+
                }
            }

            /// The format version saves of `variant` write, and how a file of format `version`
            /// lays out its table where versions differ ([`Persist::table_layout`]: the
            /// quotient and Aleph filters' blocked tables from version 3).
            pub fn table_layout(variant: Variant, version: u16) -> (u16, Option<&'static str>) {
                match variant {
                    $(Variant::$name => (
                        <crate::$ty as Persist>::write_version(),
                        <crate::$ty as Persist>::table_layout(version),
                    ),)+
                }
            }

            /// The filter of `variant` in the mapped file `map`, its tables in place
            /// ([`crate::format::mapped::decode_in_place`]); the caller has checked that the
            /// variant opens in place (a variant that does not would copy its tables).
            fn decode_in_place(
                variant: Variant,
                map: &crate::FileMap,
            ) -> Result<Self, FormatError> {
                match variant {
                    $(Variant::$name => crate::format::mapped::decode_in_place::<crate::$ty>(map)
                        .map(AnyFilter::$name),)+
                }
            }

            /// The filter of a file of any variant (the header says which) as
            /// [`AnyFilter::read_or_map`] read it: from its bytes, or, for a mapped version 2
            /// file, each table read from the file straight into the filter's memory
            /// ([`Persist::from_mapped`]); every check of [`AnyFilter::from_bytes`] either way.
            ///
            /// # Errors
            /// As [`AnyFilter::from_bytes`].
            pub fn from_file_bytes(
                file: &crate::format::mapped::FileBytes,
            ) -> Result<Self, FormatError> {
                match Variant::peek(file.bytes())? {
                    $(Variant::$name => <crate::$ty as Persist>::from_file_bytes(file)
                        .map(AnyFilter::$name),)+
                }
            }

            /// Loads a saved filter of any variant (the header says which).
            ///
            /// # Errors
            /// An unknown variant id, and every error of the variant's own loader.
            pub fn from_bytes(bytes: &[u8]) -> Result<Self, FormatError> {
                match Variant::peek(bytes)? {
                    $(Variant::$name => <crate::$ty as Persist>::from_bytes(bytes).map(AnyFilter::$name),)+
                }
            }
        }

        $(
            impl From<crate::$ty> for AnyFilter {
                fn from(f: crate::$ty) -> Self {
                    AnyFilter::$name(f)
                }
            }

            /// The inner filter, or the `AnyFilter` back when it holds another variant.
            impl TryFrom<AnyFilter> for crate::$ty {
                type Error = AnyFilter;

                fn try_from(f: AnyFilter) -> Result<Self, AnyFilter> {
                    match f {
                        AnyFilter::$name(inner) => Ok(inner),
                        other => Err(other),
                    }
                }
            }
        )+

        $(impl Capable for crate::$ty {
            $(capable!($cap);)*
        })+

        /// Calls `$callback! { Name => Type [capabilities], ... }` with every row of the
        /// registry (the variant's name in [`Variant`] and [`AnyFilter`], its type's name in
        /// the facade, the capabilities the table gives it), so that code outside the facade that needs one item per variant (the
        /// Python classes) is generated from the one list rather than written out.
        #[macro_export]
        macro_rules! for_each_variant {
            ($callback:ident) => {
                $callback! { $($name => $ty [$($cap),*]),+ }
            };
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

/// The trait methods a capability gives [`Capable`] (see [`registry!`]).
macro_rules! capable {
    (deletes) => {
        fn as_deletable(&self) -> Option<&dyn Deletable> {
            Some(self)
        }
        fn as_deletable_mut(&mut self) -> Option<&mut dyn Deletable> {
            Some(self)
        }
    };
    (grows) => {
        fn as_growable(&self) -> Option<&dyn Growable> {
            Some(self)
        }
    };
    (timed) => {
        fn as_timed(&self) -> Option<&Timed> {
            Some(self)
        }
        fn as_timed_mut(&mut self) -> Option<&mut Timed> {
            Some(self)
        }
    };
    ($other:ident) => {};
}

registry! {
    Classic => ClassicBloom, [concurrent, pages, in_place], "Classic Bloom filter (Bloom 1970).";
    Counting => CountingBloom, [deletes, counts_copies, pages, in_place], "Counting Bloom filter with 4-bit counters (Fan et al. 2000).";
    Scalable => ScalableBloom, [grows, pages, skips_present], "Scalable Bloom filter (Almeida et al. 2007).";
    Cuckoo => CuckooFilter, [deletes, counts_copies, pages, in_place], "Cuckoo filter (Fan et al. 2014).";
    Blocked => BlockedBloom, [concurrent, one_line_lookup, pages, in_place], "Split-block Bloom filter (Putze et al. 2007; Parquet layout).";
    Quotient => QuotientFilter, [deletes, counts_copies, merges, pages, in_place, bulk_build], "Quotient filter, rank-and-select layout (Bender et al. 2012; Pandey et al. 2017).";
    BinaryFuse8 => StaticFuse8, [static_set, pages, in_place], "Binary fuse filter, 8-bit fingerprints (Graf & Lemire 2022): built once from a key set.";
    BinaryFuse16 => StaticFuse16, [static_set, pages, in_place], "Binary fuse filter, 16-bit fingerprints (Graf & Lemire 2022): built once from a key set.";
    Ribbon => StaticRibbon, [static_set, pages, in_place], "Standard ribbon filter (Dillinger & Walzer 2021): built once from a key set.";
    Vqf => VectorQuotient, [deletes, counts_copies, one_line_lookup, pages, in_place], "Vector quotient filter with overflow bits: 64-byte blocks of 8-bit fingerprints, deletes, most lookups read one cache line (Pandey et al. 2021; Breslow & Jayasena 2018).";
    Aleph => AlephFilter, [deletes, counts_copies, grows, pages, bulk_build], "Aleph filter: one quotient table that doubles in place, fingerprints that shorten as it grows and widen for new keys, void entries copied (Dayan, Bercea & Pagh 2024).";
    Expandable => ExpandableCuckoo, [deletes, counts_copies, grows, merges, pages], "Expandable cuckoo filter: nested cuckoo stages that grow and delete (after Fan et al. 2014; deletion rule of Dayan et al. 2023).";
    ItemWindow => ItemWindow, [windowed, pages], "Sliding window of the last n inserts: lane-sliced generations, each sized for its share of the target (filter-window).";
    TimeWindow => TimedWindow, [windowed, timed, pages], "Sliding window of time: time-partitioned slices, each sized for its share of the target; inserts take a timestamp (filter-window).";
    Apbf => Apbf, [windowed, pages], "Age-partitioned Bloom filter over the last n inserts (Shtul, Baquero & Almeida 2020).";
}

mod dispatch;

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
        Self::from_id(id).ok_or_else(|| Self::unknown(id))
    }

    /// The refusal of a variant id this build does not know.
    fn unknown(id: u8) -> FormatError {
        crate::format::invalid(format!(
            "unknown variant id {id} (this build knows {})",
            Self::names()
        ))
    }

    /// The names of the variants with a capability, comma-separated.
    #[must_use]
    pub fn names_with(has: fn(Capabilities) -> bool) -> String {
        let names: Vec<&str> = Self::ALL
            .iter()
            .filter(|v| has(v.capabilities()))
            .map(|v| v.name())
            .collect();
        if names.is_empty() {
            "none".into()
        } else {
            names.join(", ")
        }
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

#[cfg(feature = "serde")]
impl serde::Serialize for Variant {
    /// As its name.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
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
