//! The PostgreSQL store's folding (see the `fold` module): what the unique index's `lower()`
//! makes of an address, read from the server, and the pairs of rows a gate that folded
//! otherwise let in.

use tokio_postgres::Statement;

use crate::fold::Folding;
use crate::pg_conn::Conn;
use crate::pg_scan::stream_rows;
use crate::pg_schema::TableInfo;
use crate::postgres::{pg_err, PgStore};
use crate::store::{StoreError, StoreErrorKind, StoreResult};

/// Reads how the table's unique index folds: for a `lower()` index or citext, the server's
/// lower case of each ASCII character, in the index's collation. A character whose lower case
/// is not one character, or does not fold to itself again, is left to the server; and when the
/// whole ASCII string does not fold as its characters do (a context rule), all of them are.
pub(crate) fn probe(conn: &mut Conn, t: &TableInfo) -> StoreResult<Folding> {
    let Some(coll) = t.fold_collate() else {
        return Ok(Folding::Unicode);
    };
    let sql = format!(
        "SELECT c, lower(chr(c){coll}), lower(lower(chr(c){coll})) = lower(chr(c){coll})
         FROM generate_series(1, 127) c ORDER BY c"
    );
    let rows = conn.query("connect", sql.as_str(), &[])?;
    let mut ascii = Box::new([None; 128]);
    let mut folded_each = String::new();
    for r in &rows {
        let (c, lower, stable): (i32, String, bool) = (r.get(0), r.get(1), r.get(2));
        folded_each.push_str(&lower);
        let mut chars = lower.chars();
        if let (Some(l), None, true, Ok(i)) =
            (chars.next(), chars.next(), stable, usize::try_from(c))
        {
            if let Some(slot) = ascii.get_mut(i) {
                *slot = Some(l);
            }
        }
    }
    let whole = format!(
        "SELECT lower(string_agg(chr(c), '' ORDER BY c){coll}) FROM generate_series(1, 127) c"
    );
    let folded_whole: String = conn.query_one("connect", whole.as_str(), &[])?.get(0);
    if folded_whole != folded_each {
        ascii = Box::new([None; 128]);
    }
    Ok(Folding::Server { ascii })
}

/// The statement that folds `$1` as the index does, and folds that again.
pub(crate) fn prepare(conn: &mut Conn, t: &TableInfo) -> StoreResult<Option<Statement>> {
    let Some(coll) = t.fold_collate() else {
        return Ok(None);
    };
    let sql = format!("SELECT lower($1::text{coll}), lower(lower($1::text{coll}))");
    conn.prepare("prepare", &sql).map(Some)
}

impl PgStore {
    /// [`crate::Store::fold`]: one query.
    pub(crate) fn fold_query(&mut self, typed: &str) -> StoreResult<String> {
        self.ensure()?;
        let Some(stmt) = self.fold_stmt.clone() else {
            return Ok(typed.to_lowercase());
        };
        let row = self.conn.query_one("fold", &stmt, &[&typed]);
        let row = row.map_err(|e| self.note(e))?;
        let (once, twice): (String, String) = (row.get(0), row.get(1));
        if once != twice {
            return Err(StoreError::new(
                StoreErrorKind::Query,
                "fold",
                format!(
                    "the unique index's lower() folds {typed:?} to {once:?} and that to \
                     {twice:?}: no key is the one the index compares"
                ),
            ));
        }
        Ok(once)
    }

    /// [`crate::Store::fold_pairs`]: one statement over the table, the upper case taken in
    /// ICU's root collation where the server has it (a Turkish column's own would make `İ` of
    /// `i`), composed (NFC: `I` and a combining dot are `İ`), then folded by the index.
    pub(crate) fn pairs(&mut self, each: &mut dyn FnMut(&str, &str)) -> StoreResult<()> {
        let t = self.table.clone();
        if t.fold_collate().is_none() {
            return Ok(());
        }
        self.ensure()?;
        let icu: bool = self
            .conn
            .query_one(
                "pairs",
                "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'
                                AND collnamespace = 'pg_catalog'::regnamespace)",
                &[],
            )?
            .get(0);
        let root = if icu { " COLLATE \"und-x-icu\"" } else { "" };
        let col = &t.column;
        let upper = format!("normalize(upper(b.{col}::text{root}), NFC)");
        let sql = format!(
            "SELECT b.{col}::text, a.{col}::text FROM {name} b JOIN {name} a ON {folds_onto}
             WHERE NOT ({same})",
            name = t.name,
            folds_onto = t.lookup_of("a", &upper),
            same = t.lookup_of("a", &format!("b.{col}")),
        );
        let err = pg_err("pairs");
        let mut on_row = |r: &tokio_postgres::Row| {
            let second: Option<&str> = r.try_get(0).map_err(&err)?;
            let first: Option<&str> = r.try_get(1).map_err(&err)?;
            if let (Some(s), Some(f)) = (second, first) {
                each(s, f);
            }
            Ok(())
        };
        let read = self.conn.run("pairs", false, |c| {
            stream_rows(c, "pairs", sql, None, &mut on_row)
        });
        read.map(drop).map_err(|e| self.note(e))
    }
}
