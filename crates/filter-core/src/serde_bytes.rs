//! Optional `serde` support (feature `serde`): a filter serializes as one byte string holding its
//! [`Persist`] encoding, so serde users get the same stable, checksummed format and
//! the same validation on load.
//!
//! # Size limits
//!
//! [`deserialize`] validates the bytes the format hands it, but the format reads them first: a
//! binary format with length prefixes (bincode, postcard, MessagePack) takes the prefix as the
//! input's claim and may allocate that much before a byte of the filter is checked, so a forged
//! prefix costs that memory, or aborts the process. When the input is not trusted, set the
//! format's own limit to the largest filter you accept (its file size: `filterlab calc` prints
//! the bytes), for instance bincode 1's `DefaultOptions::new().with_limit(n)` or bincode 2's
//! `config::standard().with_limit::<N>()`. Files read with [`Persist::load`] need no such
//! setting: the loader checks the declared length against the filter's parameters and the
//! file's size before reading the payload.

use crate::Persist;
use serde::de::{Error as _, SeqAccess, Visitor};
use serde::{Deserializer, Serializer};
use std::fmt;
use std::marker::PhantomData;

/// The most bytes [`deserialize`] reserves before the elements of a sequence arrive.
pub const MAX_PRESIZE: usize = 64 << 10;

/// Serializes `filter` as its [`Persist::to_bytes`] encoding.
///
/// # Errors
/// Those of the serializer.
pub fn serialize<F: Persist, S: Serializer>(filter: &F, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_bytes(&filter.to_bytes())
}

/// Deserializes a filter written by [`serialize`], validating it like [`Persist::from_bytes`].
///
/// # Errors
/// Those of the deserializer, or the format error as a custom error.
pub fn deserialize<'de, F: Persist, D: Deserializer<'de>>(d: D) -> Result<F, D::Error> {
    struct BytesVisitor<F>(PhantomData<F>);
    impl<'de, F: Persist> Visitor<'de> for BytesVisitor<F> {
        type Value = F;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a filterlab filter as a byte string")
        }
        fn visit_bytes<E: serde::de::Error>(self, v: &[u8]) -> Result<F, E> {
            F::from_bytes(v).map_err(E::custom)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<F, A::Error> {
            // Formats without a byte type (JSON) write bytes as a sequence of numbers.
            // The declared length is the input's claim, not a fact: pre-size by at most 64 KiB
            // and let the vector grow with the elements that actually arrive.
            let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(MAX_PRESIZE));
            while let Some(b) = seq.next_element::<u8>()? {
                bytes.push(b);
            }
            F::from_bytes(&bytes).map_err(A::Error::custom)
        }
    }
    d.deserialize_bytes(BytesVisitor(PhantomData))
}

/// Implements `serde::Serialize` and `serde::Deserialize` for a [`Persist`] type through
/// [`serialize`] and [`deserialize`].
#[macro_export]
macro_rules! impl_serde_via_persist {
    ($ty:ty) => {
        impl $crate::serde_bytes::serde::Serialize for $ty {
            fn serialize<S: $crate::serde_bytes::serde::Serializer>(
                &self,
                s: S,
            ) -> Result<S::Ok, S::Error> {
                $crate::serde_bytes::serialize(self, s)
            }
        }
        impl<'de> $crate::serde_bytes::serde::Deserialize<'de> for $ty {
            fn deserialize<D: $crate::serde_bytes::serde::Deserializer<'de>>(
                d: D,
            ) -> Result<Self, D::Error> {
                $crate::serde_bytes::deserialize(d)
            }
        }
    };
}

#[doc(hidden)]
pub use serde;
