//! How a [`crate::SharedGate`] reaches the database: the control store and a pool (r2d2) of
//! stores, made from one description of the table.

use std::time::Duration;

use crate::{PgOptions, PgStore, Store, StoreError, StoreResult};

/// The pool size of [`Stores::new`] and [`Stores::postgres`].
pub const DEFAULT_POOL_SIZE: u32 = 8;
/// How long a call waits for a free pooled store, by default.
const DEFAULT_CHECKOUT_TIMEOUT: Duration = Duration::from_secs(10);

/// Makes the pool's stores (r2d2's connection manager).
pub(crate) struct Maker<S> {
    pub(crate) make: Box<dyn Fn() -> StoreResult<S> + Send + Sync>,
}

impl<S: Store + Send + 'static> r2d2::ManageConnection for Maker<S> {
    type Connection = S;
    type Error = StoreError;

    fn connect(&self) -> StoreResult<S> {
        (self.make)()
    }
    // A store reconnects by itself after a lost connection, so a pooled one stays usable.
    fn is_valid(&self, _store: &mut S) -> StoreResult<()> {
        Ok(())
    }
    fn has_broken(&self, _store: &mut S) -> bool {
        false
    }
}

/// How a [`crate::SharedGate`] reaches the database: [`Stores::postgres`] (the table named once), or
/// [`Stores::new`] with a function that makes a store.
pub struct Stores<S> {
    /// The store that listens (for PostgreSQL, `PgStore::connect_with_feed`) and scans.
    pub control: S,
    /// Makes a store for the pool (for PostgreSQL, `PgStore::connect`, without the feed).
    pub make: Box<dyn Fn() -> StoreResult<S> + Send + Sync>,
    /// Stores in the pool: the most checks and registrations that reach the database at once.
    pub pool_size: u32,
    /// How long a call waits for a free store before it fails as unavailable.
    pub checkout_timeout: Duration,
}

impl<S: Store + Send + 'static> Stores<S> {
    /// Stores that `make` makes: the control store first, then the pool's, with
    /// [`DEFAULT_POOL_SIZE`] stores and a 10 s checkout timeout (see the `with_` methods).
    ///
    /// # Errors
    /// As `make`.
    pub fn new(make: impl Fn() -> StoreResult<S> + Send + Sync + 'static) -> StoreResult<Self> {
        Ok(Self {
            control: make()?,
            make: Box::new(make),
            pool_size: DEFAULT_POOL_SIZE,
            checkout_timeout: DEFAULT_CHECKOUT_TIMEOUT,
        })
    }

    /// At most `n` pooled stores: the most checks and registrations that reach the database
    /// at once.
    #[must_use]
    pub fn with_pool_size(mut self, n: u32) -> Self {
        self.pool_size = n;
        self
    }

    /// How long a call waits for a free pooled store before it fails as unavailable.
    #[must_use]
    pub fn with_checkout_timeout(mut self, d: Duration) -> Self {
        self.checkout_timeout = d;
        self
    }
}

impl Stores<PgStore> {
    /// The table `table` on `conn`, named once: the control store connects with `opts` and the
    /// feed (it listens, scans and saves), the pool's stores with `opts` and without it.
    /// [`DEFAULT_POOL_SIZE`] stores and a 10 s checkout timeout, as [`Stores::new`].
    ///
    /// # Errors
    /// As [`PgStore::connect_with`].
    pub fn postgres(conn: &str, table: &str, opts: &PgOptions) -> StoreResult<Self> {
        let listen = PgOptions {
            feed: true,
            ..opts.clone()
        };
        let pooled = PgOptions {
            feed: false,
            ..opts.clone()
        };
        let (conn, table) = (conn.to_owned(), table.to_owned());
        Ok(Self {
            control: PgStore::connect_with(&conn, &table, &listen)?,
            make: Box::new(move || PgStore::connect_with(&conn, &table, &pooled)),
            pool_size: DEFAULT_POOL_SIZE,
            checkout_timeout: DEFAULT_CHECKOUT_TIMEOUT,
        })
    }
}
