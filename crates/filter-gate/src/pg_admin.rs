//! The PostgreSQL store's deployment and benchmark helpers: the migration, a fresh table, bulk
//! loads and index sizes. None of them runs on the service's path.

use std::io::Write;

use postgres::{Client, NoTls};

use crate::postgres::{conn_err, pg_err, PgStore};
use crate::store::{StoreError, StoreErrorKind, StoreResult};

impl PgStore {
    /// Runs the one-time migration ([`crate::MIGRATION_SQL`]) and installs the notify trigger on
    /// `table` for `key_column`, in one transaction; idempotent. Run it as the table's owner,
    /// from a deployment step, not from the service.
    ///
    /// # Errors
    /// The server refusing (for example a role that does not own the table).
    pub fn migrate(conn: &str, table: &str, key_column: &str) -> StoreResult<()> {
        let mut client = Client::connect(conn, NoTls).map_err(conn_err("migrate"))?;
        crate::pg_schema::migrate(&mut client, table, key_column)
    }

    /// Creates a table `(id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL UNIQUE)` if missing and
    /// runs [`PgStore::migrate`] on it: a new deployment's (and the tests') set-up.
    ///
    /// # Errors
    /// The server refusing.
    pub fn create_table(conn: &str, table: &str) -> StoreResult<()> {
        let mut client = Client::connect(conn, NoTls).map_err(conn_err("create table"))?;
        client
            .batch_execute(&format!(
                "CREATE TABLE IF NOT EXISTS {table} (
                     id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL UNIQUE)"
            ))
            .map_err(pg_err("create table"))?;
        crate::pg_schema::migrate(&mut client, table, "email")
    }

    /// Drops the table if it exists (test and benchmark clean-up).
    ///
    /// # Errors
    /// A failing database.
    pub fn drop_table(conn: &str, table: &str) -> StoreResult<()> {
        let mut client = Client::connect(conn, NoTls).map_err(conn_err("drop"))?;
        client
            .batch_execute(&format!("DROP TABLE IF EXISTS {table}"))
            .map_err(pg_err("drop"))
    }

    /// Loads many addresses with `COPY ... FROM STDIN` in one transaction, without notifying
    /// listeners (a benchmark table load, not sign-ups; it needs the table owner's rights).
    /// Every address must be new; returns the number of rows copied.
    ///
    /// # Errors
    /// A failing database or a duplicate address; nothing is kept then.
    pub fn bulk_load<'a>(&mut self, emails: impl IntoIterator<Item = &'a str>) -> StoreResult<u64> {
        let mut client = self.admin_client("bulk load")?;
        let (table, column) = (&self.table.name, &self.table.column);
        let trigger = self.table.has_trigger;
        let mut tx = client.transaction().map_err(pg_err("bulk load"))?;
        // A load of millions of rows runs past the checks' statement timeout: none here, as
        // for the scans.
        tx.batch_execute("SET LOCAL statement_timeout = 0")
            .map_err(pg_err("bulk load"))?;
        if trigger {
            tx.batch_execute(&format!(
                "ALTER TABLE {table} DISABLE TRIGGER filter_gate_notify"
            ))
            .map_err(pg_err("bulk load"))?;
        }
        let n = copy_lines(
            &mut tx,
            &format!("COPY {table} ({column}) FROM STDIN"),
            emails,
        )?;
        if trigger {
            tx.batch_execute(&format!(
                "ALTER TABLE {table} ENABLE TRIGGER filter_gate_notify"
            ))
            .map_err(pg_err("bulk load"))?;
        }
        tx.commit().map_err(pg_err("bulk load"))?;
        Ok(n)
    }

    /// Creates `table` as [`PgStore::create_table`] does, holding `emails`, loaded as a first
    /// load of millions of rows is done, in one transaction: the table created without its
    /// unique constraint, the rows through `COPY ... FREEZE` (written frozen, as the table is
    /// new in this transaction: no later pass sets their hint bits), then the constraint added
    /// (`UNIQUE (email)`, one sort instead of an index insertion per row, with 256 MB of
    /// `maintenance_work_mem` for it), `ANALYZE`, and the migration's trigger installed last,
    /// so that the load notifies nobody. Returns the rows loaded.
    ///
    /// # Errors
    /// The table existing already (add rows with [`PgStore::bulk_load`]); a duplicate address
    /// (the constraint refuses it: the table is not created); a failing database.
    pub fn create_loaded<'a>(
        conn: &str,
        table: &str,
        emails: impl IntoIterator<Item = &'a str>,
    ) -> StoreResult<u64> {
        let err = pg_err("bulk load");
        let mut client = Client::connect(conn, NoTls).map_err(conn_err("bulk load"))?;
        let mut tx = client.transaction().map_err(&err)?;
        tx.batch_execute(&format!(
            "SET LOCAL statement_timeout = 0; SET LOCAL maintenance_work_mem = '256MB';
             CREATE TABLE {table} (id BIGSERIAL PRIMARY KEY, email TEXT NOT NULL)"
        ))
        .map_err(&err)?;
        let copy = format!("COPY {table} (email) FROM STDIN WITH (FREEZE)");
        let n = copy_lines(&mut tx, &copy, emails)?;
        tx.batch_execute(&format!(
            "ALTER TABLE {table} ADD UNIQUE (email); ANALYZE {table}"
        ))
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        crate::pg_schema::migrate(&mut client, table, "email")?;
        Ok(n)
    }

    /// Bytes of the table's unique indexes other than the primary key (`pg_relation_size`).
    ///
    /// # Errors
    /// A failing database.
    pub fn index_bytes(&mut self) -> StoreResult<u64> {
        let row = self
            .admin_client("index size")?
            .query_one(
                "SELECT COALESCE(sum(pg_relation_size(indexrelid)), 0)::int8 FROM pg_index
                 WHERE indrelid = $1::int8::oid AND indisunique AND NOT indisprimary",
                &[&self.table.oid],
            )
            .map_err(pg_err("index size"))?;
        Ok(row.get::<_, i64>(0).max(0) as u64)
    }

    /// Runs `ANALYZE` on the table (after a bulk load, so that plans use the index).
    ///
    /// # Errors
    /// A failing database.
    pub fn analyze(&mut self) -> StoreResult<()> {
        // Without the checks' statement timeout, as the bulk load.
        self.admin_client("analyze")?
            .batch_execute(&format!(
                "BEGIN; SET LOCAL statement_timeout = 0; ANALYZE {}; COMMIT",
                self.table.name
            ))
            .map_err(pg_err("analyze"))
    }
}

/// Runs `copy` (a `COPY ... FROM STDIN` in text format) with one line per address; returns
/// the rows copied.
fn copy_lines<'a>(
    tx: &mut postgres::Transaction<'_>,
    copy: &str,
    emails: impl IntoIterator<Item = &'a str>,
) -> StoreResult<u64> {
    let mut writer = tx.copy_in(copy).map_err(pg_err("bulk load"))?;
    let io = |e: std::io::Error| StoreError::new(StoreErrorKind::Unavailable, "bulk load", e);
    let mut line = Vec::with_capacity(64);
    for e in emails {
        line.clear();
        copy_text_escape(e, &mut line);
        writer.write_all(&line).map_err(io)?;
    }
    writer.finish().map_err(pg_err("bulk load"))
}

/// Writes `email` as one line of COPY's text format (backslash escapes).
fn copy_text_escape(email: &str, out: &mut Vec<u8>) {
    for &b in email.as_bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
    out.push(b'\n');
}

#[cfg(test)]
mod tests;
