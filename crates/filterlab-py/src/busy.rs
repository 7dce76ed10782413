//! Borrowing a single-threaded filter object, with an error that says what to do instead of
//! pyo3's "Already borrowed".
//!
//! A single-threaded class (`ClassicBloom`, ...) holds its Rust filter behind pyo3's borrow
//! flag. Two borrows can only collide when one spans a moment in which other Python code runs:
//! a batch that releases the GIL (`add_many`, `contains_many`, `*_buffer`) while another thread
//! calls the filter. Queries share the filter (many threads may run `contains_many` on one
//! filter at once); a writer needs it alone. The batches borrow the filter only while a chunk is
//! probed, never while the caller's iterable runs, so a generator may query the filter it feeds.

use pyo3::prelude::*;
use pyo3::{PyClass, PyRef, PyRefMut};

pyo3::create_exception!(
    filterlab,
    FilterBusyError,
    pyo3::exceptions::PyRuntimeError,
    "A single-threaded filter was called while another thread was writing it (or reading it, \
     for a write). Share AtomicClassicBloom or AtomicBlockedBloom between threads instead."
);

/// The error of a call that found the filter `T` in use.
fn busy<T: PyClass>(wanted: &str) -> PyErr {
    FilterBusyError::new_err(format!(
        "{0} is single-threaded and another thread is {wanted} it (a batch runs with the GIL \
         released): share an AtomicClassicBloom or AtomicBlockedBloom between threads, which \
         take any number at once, or hold a threading.Lock around every call to this {0}",
        T::NAME
    ))
}

/// The filter, shared with other readers; [`FilterBusyError`] while a writer holds it.
pub(crate) fn read<'py, T: PyClass>(slf: &Bound<'py, T>) -> PyResult<PyRef<'py, T>> {
    slf.try_borrow().map_err(|_| busy::<T>("writing"))
}

/// The filter, alone; [`FilterBusyError`] while another caller reads or writes it.
pub(crate) fn write<'py, T: PyClass<Frozen = pyo3::pyclass::boolean_struct::False>>(
    slf: &Bound<'py, T>,
) -> PyResult<PyRefMut<'py, T>> {
    slf.try_borrow_mut().map_err(|_| busy::<T>("using"))
}
