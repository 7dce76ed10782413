//! A blocking PostgreSQL connection whose calls end within a deadline, even on a half-open
//! connection.
//!
//! The server's `statement_timeout` cancels a statement that runs too long, but it cannot help
//! when the server's answer never arrives: a server that vanished without closing the socket,
//! a network path that drops packets, a proxy that stops forwarding. The kernel's
//! `TCP_USER_TIMEOUT` and keepalives end such a connection eventually (both are set), but only
//! when the peer's kernel stops acknowledging, and after seconds to minutes. So every call here
//! runs on rust-postgres' async client (`tokio-postgres`, the crate the blocking `postgres`
//! crate wraps, on a single-threaded runtime of this connection, as the blocking crate does)
//! under a client-side deadline: the statement timeout plus a second for the server's
//! cancellation to arrive. A call past it fails as [`StoreErrorKind::Timeout`], and the
//! connection is then dropped (never reused: an answer could still arrive out of turn); the
//! store reconnects at its next call. Connecting (TCP, start-up and login) is bounded by the
//! connect timeout the same way.

use std::future::Future;
use std::time::Duration;

use tokio::runtime::{Builder, Runtime};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls, Row, Statement, ToStatement};

use crate::postgres::pg_err;
use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// Parameters of a statement.
pub(crate) type Params<'p> = &'p [&'p (dyn ToSql + Sync)];

/// One connection and the runtime that drives it.
pub(crate) struct Conn {
    rt: Runtime,
    client: Client,
    /// The most a bounded call waits for its answer (`None`: unbounded).
    deadline: Option<Duration>,
    /// A call ran past its deadline: the connection must not be used again.
    abandoned: bool,
}

fn no_answer(op: &'static str, waited: Duration) -> StoreError {
    StoreError::new(
        StoreErrorKind::Timeout,
        op,
        format!(
            "no answer from the server within {waited:?} (a half-open connection or a server \
             that stopped answering); the connection was dropped"
        ),
    )
}

impl Conn {
    /// Connects within `connect_timeout` (TCP, start-up and login); bounded calls then wait at
    /// most `deadline` each.
    pub(crate) fn connect(
        config: &Config,
        connect_timeout: Duration,
        deadline: Option<Duration>,
        op: &'static str,
    ) -> StoreResult<Self> {
        let rt = Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::new(StoreErrorKind::Unavailable, op, e))?;
        // A timer is made inside the runtime (it needs its clock).
        let connecting = rt
            .block_on(async { tokio::time::timeout(connect_timeout, config.connect(NoTls)).await });
        let (client, connection) = match connecting {
            Err(_) => return Err(no_answer(op, connect_timeout)),
            Ok(connected) => connected.map_err(crate::postgres::conn_err(op))?,
        };
        // Driven whenever a call blocks on the runtime; it ends when the client is dropped.
        rt.spawn(async move {
            let _ = connection.await;
        });
        Ok(Self {
            rt,
            client,
            deadline,
            abandoned: false,
        })
    }

    /// Whether the connection is gone (closed by either side, or abandoned after a deadline).
    pub(crate) fn is_closed(&self) -> bool {
        self.abandoned || self.client.is_closed()
    }

    /// Runs `call` on the client, within the deadline when `bounded`.
    pub(crate) fn run<'a, T, F>(
        &'a mut self,
        op: &'static str,
        bounded: bool,
        call: impl FnOnce(&'a mut Client) -> F,
    ) -> StoreResult<T>
    where
        F: Future<Output = StoreResult<T>> + 'a,
    {
        let Self {
            rt,
            client,
            deadline,
            abandoned,
        } = self;
        let future = call(client);
        match deadline.filter(|_| bounded) {
            None => rt.block_on(future),
            Some(d) => match rt.block_on(async { tokio::time::timeout(d, future).await }) {
                Ok(done) => done,
                Err(_) => {
                    *abandoned = true;
                    Err(no_answer(op, d))
                }
            },
        }
    }
}

/// The driver's calls of a statement with parameters, stamped from one body: each is `run`
/// bounded and fails as the driver says (see [`pg_err`]) or past the deadline. `stmt` is SQL
/// text or a prepared [`Statement`].
macro_rules! bounded_calls {
    ($($name:ident -> $out:ty;)*) => {$(
        #[doc = concat!("The driver's `", stringify!($name), "`, bounded.")]
        pub(crate) fn $name<S: ?Sized + ToStatement>(
            &mut self,
            op: &'static str,
            stmt: &S,
            p: Params<'_>,
        ) -> StoreResult<$out> {
            self.run(op, true, |c| async move {
                c.$name(stmt, p).await.map_err(pg_err(op))
            })
        }
    )*};
}

/// Bounded calls, each failing as the driver says (see [`pg_err`]) or past the deadline.
impl Conn {
    bounded_calls! {
        query -> Vec<Row>;
        query_opt -> Option<Row>;
        query_one -> Row;
        execute -> u64;
    }

    pub(crate) fn prepare(&mut self, op: &'static str, sql: &str) -> StoreResult<Statement> {
        self.run(op, true, |c| async move {
            c.prepare(sql).await.map_err(pg_err(op))
        })
    }
}
