//! [`Table`]: an owned, fixed-length slice that is either a `Vec`'s buffer, a mapping of its own,
//! or a part of a read-only file mapping (`file.rs`).

use super::{FileMap, Pages, Zeroable};
use std::fmt;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;

/// A filter's table: `len` elements, owned, of fixed length, read and written as a slice.
///
/// Built zeroed by [`try_zeroed_table`](crate::try_zeroed_table), which on Linux maps a large
/// table on its own onto transparent huge pages (see there), or converted from a `Vec` (a
/// loader's decoded words), whose buffer it keeps as is. Equality, `Debug` and hashing of the
/// contents are those of the slice.
pub struct Table<T> {
    /// First element; dangling (as a `Vec`'s) when `len` is 0.
    ptr: NonNull<T>,
    len: usize,
    owner: Owner,
    _owns: PhantomData<T>,
}

/// Who releases the memory at `ptr`.
#[derive(Clone, Debug)]
enum Owner {
    /// A `Vec<T>`'s buffer of this capacity.
    Heap { cap: usize },
    /// An anonymous mapping of this many bytes (a whole number of pages), starting at `ptr`,
    /// advised as `pages` says.
    #[cfg(all(target_os = "linux", not(miri)))]
    Mapped { bytes: usize, pages: Pages },
    /// A part of a read-only file mapping, which this reference keeps alive: never written,
    /// never released element by element (the elements are the file's bytes).
    File(#[allow(dead_code)] FileMap),
}

// SAFETY: a `Table<T>` owns its elements as a `Vec<T>` does (nothing else points into its
// memory), so it may move to or be shared with another thread exactly when `T` may. A table in
// a file mapping shares the mapping only with other read-only tables, and is copied before any
// write (`DerefMut`).
unsafe impl<T: Send> Send for Table<T> {}
// SAFETY: as above; `&Table<T>` hands out only `&[T]`.
unsafe impl<T: Sync> Sync for Table<T> {}

impl<T> Table<T> {
    /// Zeroed elements in a `Vec`, each page written while zeroing; `None` if the allocator
    /// refuses.
    pub(super) fn heap(len: usize) -> Option<Self>
    where
        T: Zeroable,
    {
        let mut v = Vec::new();
        v.try_reserve_exact(len).ok()?;
        // SAFETY: `T: Zeroable` promises that all-zero bytes are a valid `T`.
        v.resize_with(len, || unsafe { std::mem::zeroed::<T>() });
        Some(Table::from(v))
    }

    /// Zeroed elements in an anonymous mapping of their own (see `super::map`); `None` if the
    /// system refuses.
    #[cfg(all(target_os = "linux", not(miri)))]
    pub(super) fn mapped(len: usize, pages: Pages) -> Option<Self>
    where
        T: Zeroable,
    {
        const {
            assert!(
                std::mem::align_of::<T>() <= 4096,
                "mappings are page aligned"
            )
        };
        let (start, bytes) = super::map::zeroed(
            len.checked_mul(std::mem::size_of::<T>())?,
            pages == Pages::Huge,
        )?;
        Some(Table {
            ptr: start.cast(),
            len,
            owner: Owner::Mapped { bytes, pages },
            _owns: PhantomData,
        })
    }

    /// The elements at `ptr`, `len` of them, inside `map`, read in place.
    ///
    /// # Safety
    /// `[ptr, ptr + len)` lies inside `map`, is aligned for `T`, and its bytes are valid `T`s.
    pub(super) unsafe fn from_file(map: FileMap, ptr: *const T, len: usize) -> Self {
        Table {
            // A part of a mapping is never at address 0; a dangling aligned pointer otherwise
            // (a `Vec`'s, for `len` 0).
            ptr: NonNull::new(ptr.cast_mut()).unwrap_or(NonNull::dangling()),
            len,
            owner: Owner::File(map),
            _owns: PhantomData,
        }
    }

    /// Whether the table is a mapping of its own (else a `Vec`'s buffer or a file's part).
    pub fn is_own_mapping(&self) -> bool {
        #[cfg(all(target_os = "linux", not(miri)))]
        return matches!(self.owner, Owner::Mapped { .. });
        #[cfg(not(all(target_os = "linux", not(miri))))]
        false
    }

    /// Whether the table is read in place from a file mapping ([`Table::in_file`]): its
    /// elements are the file's bytes, and it holds no memory of its own.
    pub fn is_in_file(&self) -> bool {
        matches!(self.owner, Owner::File(_))
    }

    /// Makes a table that lies in a file mapping a copy of its own (a `Vec`'s buffer), so that
    /// it can be written: the guard behind `DerefMut`, never the path of a mapped filter (which
    /// offers no mutation). Aborts, as `Vec` does, if the copy cannot be allocated.
    #[cold]
    #[inline(never)]
    fn copy_out_of_file(&mut self) {
        let mut v = Vec::<T>::with_capacity(self.len);
        // SAFETY: `v` has room for `len` elements and does not overlap the mapping; a file's
        // table holds only `Plain` elements (`Table::in_file`), valid for any bits and free of
        // drop glue that matters, so the bitwise copy is a set of valid values, owned by `v`.
        unsafe {
            std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), v.as_mut_ptr(), self.len);
            v.set_len(self.len);
        }
        // The old value's owner is `File`: dropping it releases a reference to the mapping only.
        *self = Table::from(v);
    }

    /// The page advice the table's mapping was given (its builder's
    /// [`TableOptions::pages`](crate::TableOptions::pages)); `None` for a `Vec`'s buffer, which
    /// gets none. What the kernel then gave is [`Table::huge_page_bytes`].
    pub fn pages(&self) -> Option<Pages> {
        match self.owner {
            Owner::Heap { .. } | Owner::File(_) => None,
            #[cfg(all(target_os = "linux", not(miri)))]
            Owner::Mapped { pages, .. } => Some(pages),
        }
    }

    /// The address range the table owns: its elements, and for a mapping the rest of its last
    /// page.
    fn owned_range(&self) -> (usize, usize) {
        let bytes = match self.owner {
            Owner::Heap { .. } | Owner::File(_) => std::mem::size_of_val::<[T]>(self),
            #[cfg(all(target_os = "linux", not(miri)))]
            Owner::Mapped { bytes, .. } => bytes,
        };
        (self.ptr.as_ptr() as usize, bytes)
    }

    /// Bytes of this table that lie on transparent huge pages now, from `/proc/self/smaps`.
    ///
    /// Sums `AnonHugePages` over the memory areas inside the table's range. The kernel may merge
    /// the table's area with an adjacent one of identical flags (another table, heap memory);
    /// such an area counts only when it has no huge page at all (0) or is all huge pages (its
    /// overlap with the table); otherwise the share that is the table's cannot be told and this
    /// returns `None` rather than a guess. For a mapping, the range is its whole pages, so a
    /// figure can include up to one page past the last element; the result never exceeds the
    /// table's bytes.
    ///
    /// `None` also where it cannot be measured: other platforms, Miri, an unreadable or
    /// malformed `smaps`, or an empty table.
    pub fn huge_page_bytes(&self) -> Option<u64> {
        let (start, bytes) = self.owned_range();
        if bytes == 0 {
            return None;
        }
        let table = std::mem::size_of_val::<[T]>(self) as u64;
        super::smaps::huge_page_bytes_of(start as u64, bytes as u64).map(|b| b.min(table))
    }

    /// Keeps the first `len` elements (all of them if there are fewer), as `Vec::truncate`
    /// does; a mapping gives the whole pages past them back to the system.
    pub fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        if self.is_in_file() {
            // The file's bytes: nothing to drop or give back.
            self.len = len;
            return;
        }
        let tail: *mut [T] = &mut self[len..];
        // Shortened first, so that a panicking drop below cannot drop an element twice.
        self.len = len;
        // SAFETY: the elements past `len` are initialised and no longer part of the table, so
        // they are dropped once, here.
        unsafe { std::ptr::drop_in_place(tail) };
        #[cfg(all(target_os = "linux", not(miri)))]
        if let Owner::Mapped { bytes, .. } = &mut self.owner {
            let keep = std::mem::size_of::<T>() * len;
            // SAFETY: the mapping is this table's, `bytes` long from `ptr`; nothing refers to
            // its part past the `len` elements kept.
            *bytes = unsafe { super::map::shrink(self.ptr.cast(), *bytes, keep) };
        }
    }

    /// The same memory with each element converted by `f`, for a type of the same size and
    /// alignment (`u64` to `AtomicU64` and back): no allocation, no copy.
    pub fn convert<U>(self, mut f: impl FnMut(T) -> U) -> Table<U> {
        const {
            assert!(std::mem::size_of::<T>() == std::mem::size_of::<U>());
            assert!(std::mem::align_of::<T>() == std::mem::align_of::<U>());
        };
        // If `f` panics, the memory leaks (it holds some `T`s and some `U`s); nothing is freed
        // twice or read as the wrong type. A file's table is copied first: it is written below.
        let mut this = self;
        if this.is_in_file() {
            this.copy_out_of_file();
        }
        let this = ManuallyDrop::new(this);
        let base = this.ptr.as_ptr();
        for i in 0..this.len {
            // SAFETY: `i < len`, so `base + i` is in bounds and holds an initialised `T`, read
            // (moved out) once; `U` has the size and alignment of `T` (asserted above), so a `U`
            // fits exactly in its place. Elements after `i` are still `T`s, before it `U`s.
            unsafe {
                let slot = base.add(i);
                let value = slot.read();
                slot.cast::<U>().write(f(value));
            }
        }
        Table {
            ptr: this.ptr.cast(),
            len: this.len,
            // A `Vec<T>` buffer of `cap` elements is one of `cap` `U`s: same layout.
            // SAFETY: `this` is never dropped, so its owner is moved out once.
            owner: unsafe { std::ptr::read(&this.owner) },
            _owns: PhantomData,
        }
    }
}

impl<T> Deref for Table<T> {
    type Target = [T];

    #[inline]
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` points at `len` initialised elements that this table owns (or dangles,
        // aligned, with `len` 0), alive for as long as `self` is borrowed.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> DerefMut for Table<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.is_in_file() {
            self.copy_out_of_file();
        }
        // SAFETY: as in `deref`; `&mut self` makes this the only reference to the elements,
        // which are not a file's (copied out above), so they may be written.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T> Drop for Table<T> {
    fn drop(&mut self) {
        match self.owner {
            // The elements are the file's bytes; dropping the owner releases the mapping's
            // reference.
            Owner::File(_) => {}
            // SAFETY: `ptr`, `len` and `cap` are the parts of a `Vec<T>` (taken apart in
            // `From<Vec<T>>`, or of the same layout after `convert`), released once, here.
            Owner::Heap { cap } => {
                drop(unsafe { Vec::from_raw_parts(self.ptr.as_ptr(), self.len, cap) })
            }
            #[cfg(all(target_os = "linux", not(miri)))]
            Owner::Mapped { bytes, .. } => {
                let elements: *mut [T] = &mut **self;
                // SAFETY: the elements are initialised and dropped once, here; then nothing
                // refers to the mapping, whose start and length these are.
                unsafe {
                    std::ptr::drop_in_place(elements);
                    super::map::unmap(self.ptr.cast(), bytes);
                }
            }
        }
    }
}

impl<T> From<Vec<T>> for Table<T> {
    /// Keeps the vector's buffer (no copy).
    fn from(v: Vec<T>) -> Self {
        let mut v = ManuallyDrop::new(v);
        Table {
            ptr: NonNull::from(v.as_mut_slice()).cast(),
            len: v.len(),
            owner: Owner::Heap { cap: v.capacity() },
            _owns: PhantomData,
        }
    }
}

impl<T> From<Table<T>> for Vec<T> {
    /// Gives back a `Vec`'s buffer as it is; a mapping is moved into a new `Vec` (an allocation
    /// as large as the table) and unmapped.
    fn from(t: Table<T>) -> Self {
        let mut t = t;
        if t.is_in_file() {
            t.copy_out_of_file();
        }
        let t = ManuallyDrop::new(t);
        match t.owner {
            Owner::File(_) => unreachable!("copied out of the file above"),
            // SAFETY: the parts of the `Vec<T>` the table was made from, now owned by the result
            // only (`t` is not dropped).
            Owner::Heap { cap } => unsafe { Vec::from_raw_parts(t.ptr.as_ptr(), t.len, cap) },
            #[cfg(all(target_os = "linux", not(miri)))]
            Owner::Mapped { bytes, .. } => {
                let mut v = Vec::with_capacity(t.len);
                // SAFETY: `v` has room for `len` elements and does not overlap the mapping; the
                // elements are moved bit for bit, so they must not be dropped in the mapping,
                // which is released without dropping them.
                unsafe {
                    std::ptr::copy_nonoverlapping(t.ptr.as_ptr(), v.as_mut_ptr(), t.len);
                    v.set_len(t.len);
                    super::map::unmap(t.ptr.cast(), bytes);
                }
                v
            }
        }
    }
}

impl<T: Zeroable + Clone> Clone for Table<T> {
    /// A table allocated as [`try_zeroed_table`](crate::try_zeroed_table) allocates one.
    ///
    /// # Panics
    /// When the memory for the copy cannot be had (as `Vec::clone` aborts).
    fn clone(&self) -> Self {
        let mut t = super::try_zeroed_table(self.len, super::MemoryCap::NONE, "table copy")
            .unwrap_or_else(|e| panic!("{e}"));
        t.clone_from_slice(self);
        t
    }
}

impl<T: fmt::Debug> fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<T: PartialEq> PartialEq for Table<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Eq> Eq for Table<T> {}

impl<T: std::hash::Hash> std::hash::Hash for Table<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl<'a, T> IntoIterator for &'a Table<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut Table<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T> FromIterator<T> for Table<T> {
    /// Collects into a `Vec` and keeps it.
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Table::from(iter.into_iter().collect::<Vec<T>>())
    }
}
