//! The PostgreSQL store's scans: the catch-up that reads every row a mark does not cover (see
//! the `postgres` module for why a mark is a snapshot), and the check of a saved mark.

use crate::postgres::{pg_err, PgStore};
use crate::store::{Mark, ScannedRow, StoreError, StoreErrorKind, StoreResult};

/// Rows fetched per round trip while streaming the table.
const SCAN_BATCH: i32 = 10_000;
/// A saved mark older than this many transactions cannot be compared modulo 2^32.
const MAX_MARK_AGE: u64 = 1 << 31;

impl PgStore {
    pub(crate) fn scan(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> StoreResult<Mark> {
        let t = &self.table;
        let select = format!(
            "SELECT {}::text, {}::text FROM {}",
            t.column,
            t.matched_expr(),
            t.name
        );
        let (sql, low) = match since {
            // Rows written by a transaction at or after `from`, modulo 2^32.
            Mark::PgSnapshot { xmin: from, .. } => (
                format!("{select} WHERE ((xmin::text::int8 - $1::int8) & 4294967295) < 2147483648"),
                Some((from & 0xffff_ffff) as i64),
            ),
            _ => (select, None),
        };
        let err = pg_err("scan");
        let mut on_row = |r: &tokio_postgres::Row| {
            let stored: Option<&str> = r.try_get(0).map_err(&err)?;
            let matched: Option<&str> = r.try_get(1).map_err(&err)?;
            if let (Some(stored), Some(matched)) = (stored, matched) {
                each(ScannedRow { stored, matched });
            }
            Ok(())
        };
        // A scan of millions of rows has no deadline (see `PgOptions::tcp_user_timeout`).
        self.conn.run("scan", false, |c| {
            stream_rows(c, "scan", sql, low, &mut on_row)
        })
    }

    pub(crate) fn check(&mut self, mark: Mark) -> StoreResult<Option<String>> {
        let Mark::PgSnapshot { xmin, xmax, stamp } = mark else {
            return Ok(Some(format!("{mark:?} is not a PostgreSQL mark")));
        };
        let row = self.conn.query_one(
            "check mark",
            "SELECT EXISTS (SELECT 1 FROM filter_gate.stamps
                            WHERE token = $1::int8 AND tbl = $2::int8::oid),
                    pg_snapshot_xmax(pg_current_snapshot())::text",
            &[&(stamp as i64), &self.table.oid],
        )?;
        let (known, now): (bool, u64) = (row.get(0), parse_xid(row.get(1), "check mark")?);
        Ok(if !known {
            Some(format!(
                "the saved filter's token {stamp} is not in filter_gate.stamps for this table: the \
                 database was restored from a backup older than the saved filter, or the file \
                 belongs to another table or database"
            ))
        } else if now < xmax {
            Some(format!(
                "transaction ids went back (saved {xmax}, now {now}): a restored database"
            ))
        } else if now - xmin >= MAX_MARK_AGE {
            Some(format!(
                "the saved mark is {} transactions old: too old to catch up from",
                now - xmin
            ))
        } else {
            None
        })
    }
}

/// Streams the rows of `sql` (with `$1 = param` when given) in a REPEATABLE READ transaction
/// without a statement timeout, and returns its snapshot.
pub(crate) async fn stream_rows(
    client: &mut tokio_postgres::Client,
    op: &'static str,
    sql: String,
    param: Option<i64>,
    on_row: &mut dyn FnMut(&tokio_postgres::Row) -> StoreResult<()>,
) -> StoreResult<Mark> {
    let err = pg_err(op);
    let tx = client
        .build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .await
        .map_err(&err)?;
    tx.batch_execute("SET LOCAL statement_timeout = 0")
        .await
        .map_err(&err)?;
    // In REPEATABLE READ every statement shares the transaction's snapshot: the one read here
    // is the one the scan sees.
    let snap = tx
        .query_one(
            "SELECT pg_snapshot_xmin(pg_current_snapshot())::text,
                    pg_snapshot_xmax(pg_current_snapshot())::text",
            &[],
        )
        .await
        .map_err(&err)?;
    let xmin = parse_xid(snap.get(0), op)?;
    let xmax = parse_xid(snap.get(1), op)?;
    let portal = match param {
        Some(p) => tx.bind(sql.as_str(), &[&p]).await,
        None => tx.bind(sql.as_str(), &[]).await,
    }
    .map_err(&err)?;
    loop {
        let rows = tx.query_portal(&portal, SCAN_BATCH).await.map_err(&err)?;
        if rows.is_empty() {
            break;
        }
        for r in &rows {
            on_row(r)?;
        }
    }
    tx.commit().await.map_err(&err)?;
    Ok(Mark::PgSnapshot {
        xmin,
        xmax,
        stamp: 0,
    })
}

pub(crate) fn parse_xid(s: &str, op: &'static str) -> StoreResult<u64> {
    s.parse()
        .map_err(|_| StoreError::new(StoreErrorKind::Query, op, format!("bad xid8 {s:?}")))
}
