//! The [`Filter`](crate::Filter) accessors every table-backed variant shares, written once.
//!
//! Each variant used to spell out `hasher`, `len`, `capacity`, `size_in_bytes`,
//! `huge_page_bytes`, `expected_fpr` and `name` by hand, and the copies drifted. Like
//! fastbloom, which stamps its filter types from one macro body, [`filter_accessors!`](crate::filter_accessors) writes
//! them from the few expressions that differ: the table (anything that is [`TableMemory`]), the
//! item count and the formula.

use crate::{BloomBits, Table};

/// The memory of a filter's table(s): what [`Filter::size_in_bytes`](crate::Filter::size_in_bytes)
/// and [`Filter::huge_page_bytes`](crate::Filter::huge_page_bytes) report.
pub trait TableMemory {
    /// Bytes of the table(s).
    fn table_bytes(&self) -> usize;

    /// Bytes of the table(s) on transparent huge pages, `None` where not measurable.
    fn table_huge_page_bytes(&self) -> Option<u64>;
}

impl<T> TableMemory for Table<T> {
    fn table_bytes(&self) -> usize {
        std::mem::size_of_val::<[T]>(self)
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.huge_page_bytes()
    }
}

impl TableMemory for BloomBits {
    fn table_bytes(&self) -> usize {
        self.size_in_bytes()
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.huge_page_bytes()
    }
}

/// Several tables (a scalable filter's stages): the sum, `None` if any one is not measurable.
impl<T: TableMemory> TableMemory for [T] {
    fn table_bytes(&self) -> usize {
        self.iter().map(TableMemory::table_bytes).sum()
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.iter().map(TableMemory::table_huge_page_bytes).sum()
    }
}

impl<T: TableMemory> TableMemory for Vec<T> {
    fn table_bytes(&self) -> usize {
        self.as_slice().table_bytes()
    }

    fn table_huge_page_bytes(&self) -> Option<u64> {
        self.as_slice().table_huge_page_bytes()
    }
}

/// Writes the accessors of a [`Filter`](crate::Filter) impl: `hasher`, `len`, `capacity`,
/// `size_in_bytes`, `huge_page_bytes`, `expected_fpr` and `name`.
///
/// The first token is `self` (so the expressions can use it); then the variant's name, its
/// table (a [`TableMemory`]), its item count and its false-positive formula. `hasher` and
/// `capacity` default to the `sizing: Sizing` field; a variant without one names them.
///
/// ```
/// use filter_core::{Filter, Hash128, KeyHasher, Result, Sizing, Table};
/// struct Exact { table: Table<u64>, len: u64, sizing: Sizing }
/// impl Filter for Exact {
///     fn insert_hash(&mut self, _: Hash128) -> Result<()> { self.len += 1; Ok(()) }
///     fn contains_hash(&self, _: Hash128) -> bool { true }
///     filter_core::filter_accessors!(self,
///         name: "exact",
///         table: self.table,
///         len: self.len,
///         expected_fpr: 0.0,
///     );
/// }
/// let f = Exact { table: filter_core::zeroed_table(4), len: 0, sizing: Sizing::default() };
/// assert_eq!((f.size_in_bytes(), f.capacity(), f.name()), (32, 1_000_000, "exact"));
/// ```
#[macro_export]
macro_rules! filter_accessors {
    (
        $this:ident,
        name: $name:expr,
        $(hasher: $hasher:expr,)?
        table: $table:expr,
        len: $len:expr,
        $(capacity: $capacity:expr,)?
        expected_fpr: $fpr:expr $(,)?
    ) => {
        fn hasher(&$this) -> $crate::KeyHasher {
            $crate::__first_of!($($hasher)?, $this.sizing.hasher)
        }

        fn len(&$this) -> u64 {
            $len
        }

        fn capacity(&$this) -> u64 {
            $crate::__first_of!($($capacity)?, $this.sizing.capacity)
        }

        fn size_in_bytes(&$this) -> usize {
            $crate::TableMemory::table_bytes(&$table)
        }

        fn huge_page_bytes(&$this) -> Option<u64> {
            $crate::TableMemory::table_huge_page_bytes(&$table)
        }

        fn expected_fpr(&$this) -> f64 {
            $fpr
        }

        fn name(&$this) -> &'static str {
            $name
        }
    };
}

/// The first expression given, or the default after the comma (for [`filter_accessors!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! __first_of {
    (, $default:expr) => {
        $default
    };
    ($given:expr, $default:expr) => {
        $given
    };
}
