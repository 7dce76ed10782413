//! What the PostgreSQL store needs to know about a team's table, read with catalog queries only
//! (no DDL, no lock beyond ACCESS SHARE), and the one-time migration that installs the trigger.

use postgres::Client;

use crate::pg_conn::Conn;

use crate::store::{sql_literal, StoreError, StoreErrorKind, StoreResult};

/// The migration (see the file's header): run once by the table's owner.
pub const MIGRATION_SQL: &str = include_str!("../sql/filter_gate.sql");

/// How the table's unique index compares keys; the gate's `exists` and the scan's
/// `matched` column use the same expression, in the column's collation.
///
/// `lower()` is the server's, not the gate's: under a libc collation (the default of a cluster
/// made by `initdb` with a libc locale, `C.UTF-8` or `en_US.UTF-8`) it maps one character at a
/// time, so `İ` becomes `i` (the gate's Unicode lower case: `i̇`, an `i` and a combining dot) and
/// a final `Σ` becomes `σ` (the gate's: `ς`); under an ICU collation (`COLLATE "und-x-icu"`) it
/// lower-cases as the gate does. A row stored by other code in such a form is not found by the
/// gate's key: the gate holds it as an alias (see [`crate::Gate::unnormalised`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyMatch {
    /// A unique index on the column itself.
    Exact,
    /// A unique index on `lower(column)`: rows stored before normalisation still match.
    Lower,
    /// A unique index on a `citext` column, which compares `lower(column)`: rows stored before
    /// normalisation still match.
    CaseInsensitive,
}

/// The table as the store uses it.
#[derive(Clone, Debug)]
pub(crate) struct TableInfo {
    pub oid: i64,
    /// The schema-qualified, quoted name (`regclass::text`), safe to splice into SQL.
    pub name: String,
    /// The key column, quoted (`quote_ident`).
    pub column: String,
    /// The key column's type without modifiers (`text`, `character varying`, `citext`): a
    /// parameter cast to it compares as the column's own unique index does, without truncating.
    pub base_type: String,
    /// ` COLLATE "schema"."name"` for a column with its own collation, else empty: the
    /// parameter of a lookup is compared in the column's collation, as the unique index does.
    pub collate: String,
    pub key_match: KeyMatch,
    pub has_trigger: bool,
    /// The registration-time column (`timestamptz`), quoted, if the caller named one.
    pub created: Option<String>,
}

impl TableInfo {
    /// The SQL expression the unique index compares. citext lower-cases in the database's
    /// default collation whatever the column's (its own rule: `citext_eq` folds with
    /// `DEFAULT_COLLATION_OID`), a `lower()` index in the column's.
    pub fn matched_expr(&self) -> String {
        match self.key_match {
            KeyMatch::Exact => self.column.clone(),
            KeyMatch::Lower => format!("lower({})", self.column),
            KeyMatch::CaseInsensitive => {
                format!("lower({}::text COLLATE \"default\")", self.column)
            }
        }
    }

    /// The condition that finds a key (`$1`), using the unique index: it holds exactly when
    /// the index would refuse `$1` as a new row (`lower(col) = lower($1)` under a `lower()`
    /// index, citext equality on citext, in the column's collation).
    pub fn lookup(&self) -> String {
        let (col, collate) = (&self.column, &self.collate);
        match self.key_match {
            KeyMatch::Lower => format!("lower({col}) = lower($1::text{collate})"),
            KeyMatch::Exact | KeyMatch::CaseInsensitive => {
                format!("{col} = ($1::text::{}{collate})", self.base_type)
            }
        }
    }

    /// The collation clause the index's `lower()` folds in (citext: the database's default),
    /// `None` for an index on the column itself.
    pub fn fold_collate(&self) -> Option<String> {
        match self.key_match {
            KeyMatch::Exact => None,
            KeyMatch::Lower => Some(self.collate.clone()),
            KeyMatch::CaseInsensitive => Some(" COLLATE \"default\"".into()),
        }
    }

    /// The condition under which the unique index holds a row of table alias `a` equal to the
    /// text `x` (an SQL expression): [`TableInfo::lookup`] on any expression.
    pub fn lookup_of(&self, a: &str, x: &str) -> String {
        let col = &self.column;
        // An expression can carry a collation of its own: the column's is named, always.
        let collate = match self.collate.as_str() {
            "" => " COLLATE \"default\"",
            c => c,
        };
        match self.key_match {
            KeyMatch::Lower => format!("lower({a}.{col}) = lower(({x})::text{collate})"),
            KeyMatch::Exact | KeyMatch::CaseInsensitive => {
                format!("{a}.{col} = (({x})::text::{}{collate})", self.base_type)
            }
        }
    }

    /// A query of what the unique index compares for a value `$1`; `None` for an index on the
    /// column itself (the value).
    pub fn matched_query(&self) -> Option<String> {
        match self.key_match {
            KeyMatch::Exact => None,
            KeyMatch::Lower => Some(format!("SELECT lower($1::text{})", self.collate)),
            KeyMatch::CaseInsensitive => Some("SELECT lower($1::text COLLATE \"default\")".into()),
        }
    }

    /// The statement that stores the row holding `stored` as `key` (see
    /// [`crate::Store::repair_sql`]); on a table whose index compares the column itself, also
    /// the index that makes the rest of such rows found.
    pub fn repair_sql(&self, stored: &str, key: &str) -> String {
        let (t, c) = (&self.name, &self.column);
        let update = format!(
            "UPDATE {t} SET {c} = {} WHERE {c} = {}",
            sql_literal(key),
            sql_literal(stored)
        );
        match self.key_match {
            KeyMatch::Exact => format!(
                "{update}; or, for every such row at once, let the unique index compare lower \
                 case: SELECT lower({c}), array_agg({c}) FROM {t} GROUP BY 1 HAVING count(*) > 1 \
                 (the accounts to merge first), then CREATE UNIQUE INDEX CONCURRENTLY ON {t} \
                 (lower({c}))"
            ),
            KeyMatch::Lower => format!(
                "{update} (the column's libc collation folds this row otherwise than the gate; \
                 an ICU collation, COLLATE \"und-x-icu\", folds as the gate does)"
            ),
            KeyMatch::CaseInsensitive => format!(
                "{update} (citext folds in the database's default collation, which folds this \
                 row otherwise than the gate: a libc one; a database created with \
                 LOCALE_PROVIDER icu folds as the gate does)"
            ),
        }
    }

    /// Age and time condition of the registration-time column (`$n` is the window in ms).
    pub fn recent(&self, n: u32) -> Option<(String, String)> {
        self.created.as_ref().map(|c| {
            (
                format!("(extract(epoch FROM now() - {c}) * 1000)::int8"),
                format!("{c} > now() - ${n}::int8 * interval '1 millisecond'"),
            )
        })
    }

    /// The LISTEN channel of this table's notify trigger.
    pub fn channel(&self) -> String {
        format!("filter_gate_{}", self.oid)
    }
}

fn schema_err(msg: impl std::fmt::Display) -> StoreError {
    StoreError::new(StoreErrorKind::Schema, "connect", msg)
}

/// Refuses a database the filter-gate migration has not been run on, saying how to run it.
fn require_migration(client: &mut Conn) -> StoreResult<()> {
    let migrated: bool = client
        .query_one(
            "connect",
            "SELECT EXISTS (SELECT 1 FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                            WHERE n.nspname = 'filter_gate' AND p.proname = 'stamp'
                              AND p.pronargs = 2)",
            &[],
        )?
        .get(0);
    if !migrated {
        return Err(schema_err(
            "the filter-gate migration has not been run on this database: run \
             `filterlab gate migrate` (or crates/filter-gate/sql/filter_gate.sql) as the \
             table's owner",
        ));
    }
    Ok(())
}

/// Reads the table's description; refuses a table the gate cannot front, saying why.
pub(crate) fn inspect(
    client: &mut Conn,
    table: &str,
    column: &str,
    need_trigger: bool,
    created: Option<&str>,
) -> StoreResult<TableInfo> {
    let row = client
        .query_opt(
            "connect",
            "SELECT c.oid::int8, c.oid::regclass::text FROM pg_class c
             WHERE c.oid = to_regclass($1::text) AND c.relkind IN ('r', 'p')",
            &[&table],
        )?
        .ok_or_else(|| schema_err(format!("no table {table:?} (as seen by this role)")))?;
    let (oid, name): (i64, String) = (row.get(0), row.get(1));
    let col = client
        .query_opt(
            "connect",
            "SELECT quote_ident(a.attname::text), format_type(a.atttypid, a.atttypmod),
                    t.typcategory::text, format_type(a.atttypid, NULL), t.typname::text,
                    CASE WHEN a.attcollation IN (0, 100) THEN ''
                         ELSE ' COLLATE ' || quote_ident(cn.nspname::text) || '.'
                              || quote_ident(co.collname::text) END,
                    CASE WHEN co.collisdeterministic THEN NULL
                         ELSE co.collname::text || ' (' || co.collprovider::text || ', '
                              || COALESCE(to_jsonb(co) ->> 'colliculocale', to_jsonb(co) ->> 'colllocale', co.collcollate, '') || ')' END
             FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
                  LEFT JOIN pg_collation co ON co.oid = a.attcollation
                  LEFT JOIN pg_namespace cn ON cn.oid = co.collnamespace
             WHERE a.attrelid = $1::int8::oid AND a.attname = $2::text
               AND a.attnum > 0 AND NOT a.attisdropped",
            &[&oid, &column],
        )?
        .ok_or_else(|| schema_err(format!("table {name} has no column {column:?}")))?;
    let (quoted, ty, category): (String, String, String) = (col.get(0), col.get(1), col.get(2));
    let (base_type, typname, collate): (String, String, String) =
        (col.get(3), col.get(4), col.get(5));
    if let Some(coll) = col.get::<_, Option<String>>(6) {
        return Err(nondeterministic(&name, &quoted, &coll));
    }
    if category != "S" {
        return Err(StoreError::new(
            StoreErrorKind::Type,
            "connect",
            format!(
                "{name}.{quoted} is of type {ty}: the key column must be text, varchar or citext"
            ),
        ));
    }
    let key_match = match unique_index(client, oid, column, &quoted, &name)? {
        KeyMatch::Exact if typname == "citext" => KeyMatch::CaseInsensitive,
        m => m,
    };
    require_migration(client)?;
    let has_trigger = trigger_enabled(client, (oid, &name, column), need_trigger)?;
    let created = match created {
        Some(c) => Some(time_column(client, oid, &name, c)?),
        None => None,
    };
    Ok(TableInfo {
        oid,
        name,
        column: quoted,
        base_type,
        collate,
        key_match,
        has_trigger,
        created,
    })
}

/// Whether the table (`oid`, `name`) has its `filter_gate_notify` trigger enabled; an error
/// naming the fix when it has not and the feed needs it.
fn trigger_enabled(
    client: &mut Conn,
    (oid, name, column): (i64, &str, &str),
    need_trigger: bool,
) -> StoreResult<bool> {
    let has_trigger: bool = client
        .query_one(
            "connect",
            "SELECT EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = $1::int8::oid
                            AND tgname = 'filter_gate_notify' AND tgenabled <> 'D')",
            &[&oid],
        )?
        .get(0);
    if need_trigger && !has_trigger {
        return Err(schema_err(format!(
            "{name} has no enabled filter_gate_notify trigger, which the feed needs: run \
             SELECT filter_gate.install('{name}', '{column}') as the table's owner (after \
             crates/filter-gate/sql/filter_gate.sql)"
        )));
    }
    Ok(has_trigger)
}

/// Checks that `column` is a `timestamptz` column of the table; returns it quoted.
fn time_column(client: &mut Conn, oid: i64, name: &str, column: &str) -> StoreResult<String> {
    let row = client
        .query_opt(
            "connect",
            "SELECT quote_ident(a.attname::text), format_type(a.atttypid, NULL)
             FROM pg_attribute a
             WHERE a.attrelid = $1::int8::oid AND a.attname = $2::text
               AND a.attnum > 0 AND NOT a.attisdropped",
            &[&oid, &column],
        )?
        .ok_or_else(|| schema_err(format!("table {name} has no column {column:?}")))?;
    let (quoted, ty): (String, String) = (row.get(0), row.get(1));
    if ty != "timestamp with time zone" {
        return Err(StoreError::new(
            StoreErrorKind::Type,
            "connect",
            format!("{name}.{quoted} is of type {ty}: the registration time must be timestamptz"),
        ));
    }
    Ok(quoted)
}

/// The unique index the gate relies on: one on `lower(column)` if there is one, else one on the
/// column itself.
fn unique_index(
    client: &mut Conn,
    oid: i64,
    column: &str,
    quoted: &str,
    name: &str,
) -> StoreResult<KeyMatch> {
    let rows = client.query(
        "connect",
        "SELECT i.indkey[0] = a.attnum, COALESCE(pg_get_expr(i.indexprs, i.indrelid), ''),
                (SELECT co.collname::text || ' (' || co.collprovider::text || ', '
                        || COALESCE(to_jsonb(co) ->> 'colliculocale', to_jsonb(co) ->> 'colllocale', co.collcollate, '') || ')'
                 FROM pg_collation co
                 WHERE co.oid = i.indcollation[0] AND NOT co.collisdeterministic)
             FROM pg_index i JOIN pg_attribute a
               ON a.attrelid = i.indrelid AND a.attname = $2::text
             WHERE i.indrelid = $1::int8::oid AND i.indisunique AND i.indisvalid
               AND i.indpred IS NULL AND i.indnkeyatts = 1",
        &[&oid, &column],
    )?;
    let lower = [
        format!("lower({quoted})"),
        format!("lower(({quoted})::text)"),
    ];
    let mut found = None;
    for r in rows {
        let (on_column, expr): (bool, String) = (r.get(0), r.get(1));
        let covers = on_column || lower.contains(&expr);
        if let (true, Some(coll)) = (covers, r.get::<_, Option<String>>(2)) {
            return Err(nondeterministic(name, quoted, &coll));
        }
        if lower.contains(&expr) {
            return Ok(KeyMatch::Lower);
        }
        if on_column {
            found = Some(KeyMatch::Exact);
        }
    }
    found.ok_or_else(|| {
        schema_err(format!(
            "{name} has no unique index on {quoted} or lower({quoted}): the gate needs the \
             database to refuse duplicates (CREATE UNIQUE INDEX ON {name} (lower({quoted})))"
        ))
    })
}

/// The refusal of a key compared in a non-deterministic collation (issue 51): such a collation
/// holds texts equal that differ (a composed and a decomposed `é`, fullwidth and ASCII letters,
/// an ignorable zero-width space, `σ` and `ς` at level 2), by rules (ICU's, any tailoring of
/// its locale) that the gate cannot compute without the server; a filter keyed by exact text
/// would answer Available for addresses the index refuses.
fn nondeterministic(name: &str, column: &str, collation: &str) -> StoreError {
    schema_err(format!(
        "{name}.{column} is compared in the non-deterministic collation {collation}, which holds \
         texts equal that differ (a composed and a decomposed é, fullwidth and ASCII \
         letters, an ignorable zero-width space, σ and ς): the gate keys its \
         filter by exact text and cannot tell which texts such a collation holds equal, so it \
         would answer Available for addresses the unique index refuses. Use a deterministic \
         column with a unique index on lower(): ALTER TABLE {name} ALTER COLUMN {column} TYPE \
         text COLLATE \"default\"; CREATE UNIQUE INDEX ON {name} (lower({column})) (first \
         merge the accounts that index finds equal: SELECT lower({column}), \
         array_agg({column}) FROM {name} GROUP BY 1 HAVING count(*) > 1)"
    ))
}

/// Runs the migration and installs the trigger on `table`, in one transaction. Idempotent.
pub(crate) fn migrate(client: &mut Client, table: &str, column: &str) -> StoreResult<()> {
    let err = crate::postgres::pg_err("migrate");
    let mut tx = client.transaction().map_err(&err)?;
    // Two migrations at once would race on CREATE ... IF NOT EXISTS.
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('filter_gate.migrate'))",
        &[],
    )
    .map_err(&err)?;
    tx.batch_execute(MIGRATION_SQL).map_err(&err)?;
    tx.execute(
        "SELECT filter_gate.install($1::text::regclass, $2::text::name)",
        &[&table, &column],
    )
    .map_err(&err)?;
    tx.commit().map_err(&err)
}
