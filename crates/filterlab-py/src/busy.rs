//! The filter inside a Python object, and how threads share it.
//!
//! A single-threaded class (`ClassicBloom`, ..., `Bloom`, `GuavaBloomFilter`) keeps its Rust
//! filter behind a read-write lock ([`Locked`]): queries share it, a write has it alone. A
//! call first tries the lock with the GIL held (free: no cost beyond two atomic operations);
//! when another thread's batch holds it (a batch runs chunk by chunk with the GIL released),
//! the call releases the GIL and waits for that chunk, then runs. The batches take the lock
//! per chunk of keys, never while the caller's iterable or a `hash_func` runs, so a writer
//! and a batch reader interleave chunk by chunk, and a generator may query the filter it
//! feeds.
//!
//! No Python code ever runs while a filter's lock is held (the closures given to the lock
//! cannot hold Python objects: they must be `Send`), so no wait can be for the waiting thread
//! itself: every call waits, none raises [`FilterBusyError`]. The exception is kept for the
//! programs that catch it. The shared classes (`AtomicClassicBloom`, ...) and the static ones
//! need no lock ([`Free`]).

use pyo3::prelude::*;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, TryLockError};

pyo3::create_exception!(
    filterlab,
    FilterBusyError,
    pyo3::exceptions::PyRuntimeError,
    "Raised by no call of this version: a call that meets another thread's batch waits for its \
     chunk. Kept so that programs that catch it still import it."
);

/// A filter that one thread writes at a time while others wait (see the module's header).
pub(crate) struct Locked<F>(RwLock<F>);

impl<F: Send + Sync> Locked<F> {
    pub(crate) fn new(f: F) -> Self {
        Self(RwLock::new(f))
    }

    /// `f` on the filter, shared with other readers: at once when no writer holds it, else
    /// after the writer's chunk, waited for with the GIL released.
    pub(crate) fn read<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&F) -> R + Send) -> R {
        match self.0.try_read() {
            Ok(g) => f(&g),
            Err(TryLockError::Poisoned(p)) => f(&p.into_inner()),
            Err(TryLockError::WouldBlock) => {
                py.allow_threads(|| f(&self.0.read().unwrap_or_else(PoisonError::into_inner)))
            }
        }
    }

    /// `f` on the filter, alone: at once when nobody holds it, else after the holders' chunks,
    /// waited for with the GIL released.
    pub(crate) fn write<R: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut F) -> R + Send) -> R {
        match self.0.try_write() {
            Ok(mut g) => f(&mut g),
            Err(TryLockError::Poisoned(p)) => f(&mut p.into_inner()),
            Err(TryLockError::WouldBlock) => {
                py.allow_threads(|| f(&mut self.0.write().unwrap_or_else(PoisonError::into_inner)))
            }
        }
    }

    /// [`Self::read`] with the GIL released for `f` itself (a chunk of a batch).
    pub(crate) fn read_released<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&F) -> R + Send,
    ) -> R {
        py.allow_threads(|| f(&self.0.read().unwrap_or_else(PoisonError::into_inner)))
    }

    /// [`Self::write`] with the GIL released for `f` itself (a chunk of a batch).
    pub(crate) fn write_released<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut F) -> R + Send,
    ) -> R {
        py.allow_threads(|| f(&mut self.0.write().unwrap_or_else(PoisonError::into_inner)))
    }

    /// `f` on this filter, alone, and `other`, shared (`a.union(b)`): both locks taken in the
    /// order of their addresses, so that `a.union(b)` and `b.union(a)` in two threads never
    /// hold one each and wait for the other. `a.union(a)` gets a copy of `a` as `other`.
    pub(crate) fn write_with<R: Send>(
        &self,
        other: &Self,
        py: Python<'_>,
        f: impl FnOnce(&mut F, &F) -> R + Send,
    ) -> R
    where
        F: Clone,
    {
        if std::ptr::eq(self, other) {
            let copy = self.read(py, F::clone);
            return self.write(py, |me| f(me, &copy));
        }
        let both = || {
            if (self as *const Self) < (other as *const Self) {
                let me = self.0.write().unwrap_or_else(PoisonError::into_inner);
                (me, other.0.read().unwrap_or_else(PoisonError::into_inner))
            } else {
                let them = other.0.read().unwrap_or_else(PoisonError::into_inner);
                (self.0.write().unwrap_or_else(PoisonError::into_inner), them)
            }
        };
        if let (Ok(mut me), Ok(them)) = (self.0.try_write(), other.0.try_read()) {
            return f(&mut me, &them);
        }
        py.allow_threads(|| {
            let (mut me, them) = both();
            f(&mut me, &them)
        })
    }

    /// `f` on this filter and `other`, both shared (`a <= b`): taken in the order of their
    /// addresses, as [`Self::write_with`]; one lock when they are the same filter.
    pub(crate) fn read_with<R: Send>(
        &self,
        other: &Self,
        py: Python<'_>,
        f: impl FnOnce(&F, &F) -> R + Send,
    ) -> R {
        if std::ptr::eq(self, other) {
            return self.read(py, |me| f(me, me));
        }
        let (first, second) = if (self as *const Self) < (other as *const Self) {
            (self, other)
        } else {
            (other, self)
        };
        let both = || {
            let unpoison = PoisonError::into_inner;
            let a = first.0.read().unwrap_or_else(unpoison);
            (a, second.0.read().unwrap_or_else(unpoison))
        };
        let run = |a: &F, b: &F| {
            if std::ptr::eq(first, self) {
                f(a, b)
            } else {
                f(b, a)
            }
        };
        if let (Ok(a), Ok(b)) = (first.0.try_read(), second.0.try_read()) {
            return run(&a, &b);
        }
        py.allow_threads(|| {
            let (a, b) = both();
            run(&a, &b)
        })
    }

    /// The filter if no writer holds it now (for `repr`, which never waits).
    pub(crate) fn peek(&self) -> Option<RwLockReadGuard<'_, F>> {
        match self.0.try_read() {
            Ok(g) => Some(g),
            Err(TryLockError::Poisoned(p)) => Some(p.into_inner()),
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

/// A filter any number of threads use at once (atomic words, or never changed): the same
/// calls as [`Locked`], with no lock.
pub(crate) struct Free<F>(F);

impl<F: Send + Sync> Free<F> {
    pub(crate) fn new(f: F) -> Self {
        Self(f)
    }

    /// The filter.
    pub(crate) fn get(&self) -> &F {
        &self.0
    }

    pub(crate) fn read<R: Send>(&self, _py: Python<'_>, f: impl FnOnce(&F) -> R + Send) -> R {
        f(&self.0)
    }

    pub(crate) fn read_released<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&F) -> R + Send,
    ) -> R {
        py.allow_threads(|| f(&self.0))
    }

    pub(crate) fn peek(&self) -> Option<&F> {
        Some(&self.0)
    }
}
