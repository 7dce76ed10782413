//! [`LockFree`]: what the lock-free forms of the classic and split-block filters share, and
//! [`lock_free_form!`](crate::lock_free_form), which writes their common API and file once.

use super::SharedInsert;
use crate::{Filter, Persist, Result};

/// A lock-free form of a single-threaded filter: the same bits, the same file, and conversions
/// both ways. `From<Self::Single>` converts in place; [`LockFree::into_inner`] converts back.
pub trait LockFree: SharedInsert + Persist + From<Self::Single> + Send {
    /// The single-threaded form.
    type Single: Filter + Persist + Clone + PartialEq + std::fmt::Debug;

    /// A single-threaded copy, safe to take while other threads insert: the words are read
    /// first, then the item count, so that the copy holds no bit its count does not cover
    /// (inserts racing with it may be in it whole, in part or not at all). The copy's table is
    /// allocated fallibly, as a built filter's is.
    ///
    /// # Errors
    /// [`crate::Error::OutOfMemory`] when the copy cannot be allocated.
    fn snapshot(&self) -> Result<Self::Single>;

    /// The single-threaded filter with the same bits, once no other thread is inserting
    /// (converted in place: nothing to allocate, nothing that can fail).
    fn into_inner(self) -> Self::Single;
}

/// The file of a lock-free form: its single form's, written from one
/// [`LockFree::snapshot`] (so it may be saved while other threads insert).
///
/// `to_bytes` allocates infallibly, as [`Persist::to_bytes`] documents: a snapshot that cannot
/// be allocated ends the process as a failed `Vec` allocation does, never with a panic message
/// that blames the filter; [`Persist::try_to_bytes`] and [`Persist::save`] report it.
pub fn to_bytes_or_abort<F: LockFree>(f: &F) -> Vec<u8> {
    match f.try_to_bytes() {
        Ok(bytes) => bytes,
        Err(e) => {
            let bytes = match e {
                crate::Error::OutOfMemory { bytes, .. } => bytes,
                _ => 1,
            };
            let layout = std::alloc::Layout::from_size_align(
                usize::try_from(bytes).unwrap_or(usize::MAX >> 1),
                1,
            )
            .unwrap_or(std::alloc::Layout::new::<u8>());
            std::alloc::handle_alloc_error(layout)
        }
    }
}

/// Writes the API the lock-free forms share: the inherent `insert`, `insert_hash_shared`,
/// `contains`, `snapshot` and `into_inner` (forwarding to [`SharedInsert`] and [`LockFree`],
/// so callers need not import them), and the [`Persist`] impl that saves a snapshot in the
/// single form's file.
///
/// `$atomic` must implement [`LockFree`] with `Single = $single`, and have a `sizing` field.
#[macro_export]
macro_rules! lock_free_form {
    ($atomic:ident, $single:ty) => {
        impl $atomic {
            /// Inserts a key; safe to call from many threads at once.
            #[inline]
            pub fn insert(&self, key: &[u8]) {
                self.insert_hash_shared(self.sizing.hasher.hash(key));
            }

            /// [`Self::insert`] of a pre-computed hash.
            #[inline]
            pub fn insert_hash_shared(&self, hash: $crate::Hash128) {
                $crate::concurrent::SharedInsert::insert_hash_shared(self, hash);
            }

            /// Whether the key may be present (`false`: it was never inserted, or its insert
            /// has not happened before this call; see the type's docs).
            #[inline]
            pub fn contains(&self, key: &[u8]) -> bool {
                $crate::Filter::contains_hash(self, self.sizing.hasher.hash(key))
            }

            /// A single-threaded copy, safe to take while other threads insert
            /// ([`LockFree::snapshot`](filter_core::concurrent::LockFree::snapshot)).
            ///
            /// # Errors
            /// [`Error::OutOfMemory`](filter_core::Error::OutOfMemory) when the copy cannot be
            /// allocated.
            pub fn snapshot(&self) -> $crate::Result<$single> {
                <Self as $crate::concurrent::LockFree>::snapshot(self)
            }

            /// The single-threaded filter with the same bits, once no other thread is
            /// inserting (converted in place).
            pub fn into_inner(self) -> $single {
                <Self as $crate::concurrent::LockFree>::into_inner(self)
            }
        }

        /// The single form's file, written from one snapshot: same variant id, parameters and
        /// payload, so either form loads the other's.
        impl $crate::Persist for $atomic {
            const KIND: $crate::FileKind = <$single as $crate::Persist>::KIND;

            fn to_bytes(&self) -> Vec<u8> {
                $crate::concurrent::to_bytes_or_abort(self)
            }

            fn try_to_bytes(&self) -> $crate::Result<Vec<u8>> {
                $crate::Persist::try_to_bytes(&self.snapshot()?)
            }

            /// Streams the file from one snapshot (the one copy of the table a save holds).
            fn write_to<W: std::io::Write>(&self, w: W) -> std::io::Result<()> {
                let copy = self
                    .snapshot()
                    .map_err(|e| std::io::Error::new(std::io::ErrorKind::OutOfMemory, e))?;
                $crate::Persist::write_to(&copy, w)
            }

            fn from_bytes(bytes: &[u8]) -> Result<Self, $crate::FormatError> {
                <$single as $crate::Persist>::from_bytes(bytes).map(Self::from)
            }

            fn from_mapped(map: &$crate::FileMap) -> Result<Self, $crate::FormatError> {
                <$single as $crate::Persist>::from_mapped(map).map(Self::from)
            }
        }
    };
}

/// Writes the `insert_hash` of a lock-free form's [`Filter`] impl: the shared insert
/// ([`SharedInsert::insert_hash_shared`]), which cannot fail (`&mut self` only adds
/// exclusivity). The type must implement [`SharedInsert`].
#[macro_export]
macro_rules! lock_free_insert {
    () => {
        fn insert_hash(&mut self, hash: $crate::Hash128) -> $crate::Result<()> {
            $crate::concurrent::SharedInsert::insert_hash_shared(self, hash);
            Ok(())
        }
    };
}
