//! The SQLite store: the embedded default (rusqlite, SQLite compiled in).

use std::path::Path;

use rusqlite::{params, Connection, ErrorCode, OptionalExtension};

use crate::store::{
    check_table_name, sql_literal, Insert, Mark, ScannedRow, Store, StoreError, StoreErrorKind,
    StoreResult,
};

/// A users table `(id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL UNIQUE)` in a SQLite
/// database.
///
/// The database runs in WAL mode with `synchronous = NORMAL`: a committed row survives the
/// process being killed (the case the gate's crash-safety test exercises); after a power loss
/// the last commits may be lost, which leaves the filter with extra keys (false positives the
/// database corrects), never a missing one.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Connection,
    table: String,
}

fn query_err(op: &'static str) -> impl Fn(rusqlite::Error) -> StoreError {
    move |e| {
        let kind = match e.sqlite_error_code() {
            Some(ErrorCode::CannotOpen | ErrorCode::NotADatabase | ErrorCode::DatabaseBusy) => {
                StoreErrorKind::Unavailable
            }
            _ => StoreErrorKind::Query,
        };
        StoreError::new(kind, op, e)
    }
}

impl SqliteStore {
    /// Opens (or creates) the database file and the table.
    ///
    /// # Errors
    /// A file that cannot be opened or is not a database; a bad table name.
    pub fn open(path: impl AsRef<Path>, table: &str) -> StoreResult<Self> {
        check_table_name(table)?;
        let conn = Connection::open(path).map_err(query_err("open"))?;
        Self::init(conn, table)
    }

    /// A private in-memory database (for tests and examples).
    ///
    /// # Errors
    /// As [`SqliteStore::open`].
    pub fn open_in_memory(table: &str) -> StoreResult<Self> {
        check_table_name(table)?;
        let conn = Connection::open_in_memory().map_err(query_err("open"))?;
        Self::init(conn, table)
    }

    fn init(conn: Connection, table: &str) -> StoreResult<Self> {
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(query_err("open"))?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(query_err("open"))?;
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(query_err("open"))?;
        conn.execute_batch(&format!(
            "CREATE TABLE IF NOT EXISTS {table} (
                 id INTEGER PRIMARY KEY AUTOINCREMENT,
                 email TEXT NOT NULL,
                 CONSTRAINT {table}_email_key UNIQUE (email))"
        ))
        .map_err(query_err("create table"))?;
        Ok(Self {
            conn,
            table: table.to_owned(),
        })
    }

    /// Inserts many addresses in one transaction, skipping ones already present; returns how
    /// many rows were added. For loading benchmark tables, not for the sign-up path.
    ///
    /// # Errors
    /// A failing database; nothing of the batch is kept then.
    pub fn bulk_load<'a>(&mut self, emails: impl IntoIterator<Item = &'a str>) -> StoreResult<u64> {
        let tx = self.conn.transaction().map_err(query_err("bulk load"))?;
        let mut added = 0;
        {
            let mut stmt = tx
                .prepare_cached(&format!(
                    "INSERT OR IGNORE INTO {} (email) VALUES (?1)",
                    self.table
                ))
                .map_err(query_err("bulk load"))?;
            for e in emails {
                added += stmt.execute(params![e]).map_err(query_err("bulk load"))? as u64;
            }
        }
        tx.commit().map_err(query_err("bulk load"))?;
        Ok(added)
    }

    /// Creates the table in the database at `path` holding `emails`, loaded as a first load of
    /// millions of rows is done: the rows in one transaction through one prepared statement,
    /// with `synchronous = OFF` for the load alone, then the unique index built once from them
    /// (`CREATE UNIQUE INDEX <table>_email_key`: one sort instead of an index insertion per row,
    /// which at millions of rows in random order costs several times the load), then
    /// `synchronous` restored and the write-ahead log checkpointed to the file. The table then
    /// differs from [`SqliteStore::open`]'s only in that its unique index is a named index
    /// rather than the column's constraint: both refuse a duplicate alike. Returns the store and
    /// the rows loaded.
    ///
    /// # Errors
    /// [`StoreErrorKind::Schema`] when the table exists already (add to it with
    /// [`SqliteStore::bulk_load`]); a duplicate address (the index refuses it: the table is not
    /// created, nothing is kept); a bad table name; a failing database.
    pub fn create_loaded<'a>(
        path: impl AsRef<Path>,
        table: &str,
        emails: impl IntoIterator<Item = &'a str>,
    ) -> StoreResult<(Self, u64)> {
        check_table_name(table)?;
        let mut conn = Connection::open(path).map_err(query_err("open"))?;
        let load = query_err("bulk load");
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(&load)?;
        let exists: bool = conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
                params![table],
                |r| r.get(0),
            )
            .map_err(&load)?;
        if exists {
            return Err(StoreError::new(
                StoreErrorKind::Schema,
                "bulk load",
                format!("table {table} exists already: add rows to it with bulk_load"),
            ));
        }
        // No sync per page during the load; `init` restores NORMAL and the checkpoint below
        // writes the rows to the file before this returns.
        conn.pragma_update(None, "synchronous", "OFF")
            .map_err(&load)?;
        let tx = conn.transaction().map_err(&load)?;
        tx.execute_batch(&format!(
            "CREATE TABLE {table} (id INTEGER PRIMARY KEY AUTOINCREMENT, email TEXT NOT NULL)"
        ))
        .map_err(&load)?;
        let mut added = 0;
        {
            let sql = format!("INSERT INTO {table} (email) VALUES (?1)");
            let mut stmt = tx.prepare(&sql).map_err(&load)?;
            for e in emails {
                added += stmt.execute(params![e]).map_err(&load)? as u64;
            }
        }
        tx.execute_batch(&format!(
            "CREATE UNIQUE INDEX {table}_email_key ON {table} (email)"
        ))
        .map_err(&load)?;
        tx.commit().map_err(&load)?;
        let store = Self::init(conn, table)?;
        store
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(&load)?;
        Ok((store, added))
    }

    /// Bytes of the table's unique indexes (the constraint's automatic index, or the one
    /// [`SqliteStore::create_loaded`] builds), from the `dbstat` table (pages times page size).
    ///
    /// # Errors
    /// A failing database.
    pub fn index_bytes(&self) -> StoreResult<u64> {
        self.conn
            .query_row(
                "SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN
                     (SELECT name FROM pragma_index_list(?1) WHERE \"unique\" = 1)",
                params![self.table],
                |r| r.get::<_, i64>(0),
            )
            .map(|b| b.max(0) as u64)
            .map_err(query_err("index size"))
    }

    /// Rows in the table.
    ///
    /// # Errors
    /// A failing database.
    pub fn count(&self) -> StoreResult<u64> {
        self.conn
            .query_row(&format!("SELECT COUNT(*) FROM {}", self.table), [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n.max(0) as u64)
            .map_err(query_err("count"))
    }
}

impl Store for SqliteStore {
    fn exists(&mut self, email: &str) -> StoreResult<bool> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT 1 FROM {} WHERE email = ?1", self.table))
            .map_err(query_err("select"))?;
        stmt.query_row(params![email], |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
            .map_err(query_err("select"))
    }

    fn insert(&mut self, email: &str) -> StoreResult<Insert> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("INSERT INTO {} (email) VALUES (?1)", self.table))
            .map_err(query_err("insert"))?;
        match stmt.execute(params![email]) {
            Ok(_) => Ok(Insert::Inserted),
            Err(e) if e.sqlite_error_code() == Some(ErrorCode::ConstraintViolation) => {
                Ok(Insert::Duplicate)
            }
            Err(e) => Err(query_err("insert")(e)),
        }
    }

    fn scan_since(
        &mut self,
        since: Mark,
        each: &mut dyn FnMut(ScannedRow<'_>),
    ) -> StoreResult<Mark> {
        // One writer at a time: ids are handed out and committed in the same order, so the
        // highest id read covers every row below it.
        let after = match since {
            Mark::RowId(id) => id,
            _ => 0,
        };
        // rusqlite steps the statement row by row: memory stays bounded whatever the table size.
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT id, email FROM {} WHERE id > ?1 ORDER BY id",
                self.table
            ))
            .map_err(query_err("scan"))?;
        let mut rows = stmt.query(params![after]).map_err(query_err("scan"))?;
        let mut high = after;
        while let Some(row) = rows.next().map_err(query_err("scan"))? {
            let id: i64 = row.get(0).map_err(query_err("scan"))?;
            let email = row.get_ref(1).map_err(query_err("scan"))?;
            let email = email.as_str().map_err(|e| query_err("scan")(e.into()))?;
            each(ScannedRow {
                stored: email,
                matched: email,
            });
            high = high.max(id);
        }
        Ok(Mark::RowId(high))
    }

    fn repair_sql(&self, stored: &str, key: &str) -> String {
        format!(
            "UPDATE {t} SET email = {key} WHERE email = {stored}",
            t = self.table,
            key = sql_literal(key),
            stored = sql_literal(stored),
        )
    }

    fn check_mark(&mut self, mark: Mark) -> StoreResult<Option<String>> {
        let Mark::RowId(id) = mark else {
            return Ok(Some(format!("{mark:?} is not a SQLite mark")));
        };
        // AUTOINCREMENT never reuses an id, so a mark above the highest id ever handed out
        // means the file was restored from an older copy.
        let top: i64 = self
            .conn
            .query_row(
                "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?1), 0)",
                params![self.table],
                |r| r.get(0),
            )
            .map_err(query_err("check mark"))?;
        Ok((id > top).then(|| {
            format!("the saved mark (id {id}) lies above every id ever used ({top}): restored from an older copy?")
        }))
    }
}

#[cfg(test)]
mod tests;
