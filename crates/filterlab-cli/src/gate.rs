//! `filterlab gate ...`: the sign-up gate's deployment steps (feature `gate`).
//!
//! `filterlab gate migrate --url URL --table auth.users --column email` runs the gate's
//! one-time PostgreSQL migration (`crates/filter-gate/sql/filter_gate.sql`, the schema
//! `filter_gate` and the notify trigger on the table) as the table's owner, in one
//! transaction; running it again changes nothing. It then connects as the service would (catalog
//! reads only) and reports how the table's unique index compares keys, so that a table the
//! gate cannot front is reported here rather than at the service's first start. Last it reads
//! the whole table (once, as a deployment step may) and fails, naming the SQL that fixes them,
//! when rows are stored in a form that the unique index does not find by the gate's key: the
//! gate holds a bounded number of such rows as aliases and answers them correctly, but each
//! costs a query, and they are accounts the index does not protect. It also fails on pairs of
//! rows that the index tells apart although it folds the upper case of one onto the other
//! (`ilse@…` beside `i̇lse@…` under a libc `lower()`): second accounts that a gate folding with
//! Unicode's lower case, not the index's, let in.

use anyhow::{bail, Context, Result};
use clap::Subcommand;
use filterlab::gate::{KeyMatch, Normalizer, PgStore, MAX_UNNORMALISED_ROWS};
use serde::Serialize;

use crate::output::Out;

/// The gate's commands.
#[derive(Subcommand, Debug)]
pub enum GateCommand {
    /// Run the gate's one-time migration on a PostgreSQL table, as the table's owner
    /// (idempotent). The service's role then needs only SELECT (and INSERT if the gate
    /// registers) on the table: connecting runs no DDL.
    Migrate {
        /// Connection string, as libpq takes it: `host=127.0.0.1 port=5432 user=owner
        /// dbname=app` or `postgresql://owner@127.0.0.1/app`.
        #[arg(long)]
        url: String,
        /// The users table, as SQL resolves it: `users`, `auth.users`, `"Users"`.
        #[arg(long)]
        table: String,
        /// The key column (text, varchar or citext, with a unique index on it or on
        /// lower(column)).
        #[arg(long, default_value = "email")]
        column: String,
        /// Check the stored rows with Gmail's rules on (dots and +tags dropped), as a gate
        /// built with `Normalizer::default().gmail_rules(true)` reads them.
        #[arg(long)]
        gmail_rules: bool,
    },
}

/// What `gate migrate` did.
#[derive(Debug, Serialize)]
pub struct Migrated {
    /// The table, as given.
    pub table: String,
    /// The key column.
    pub column: String,
    /// What the table's unique index compares: `column` or `lower(column)`.
    pub unique_on: String,
    /// Rows read, each found by its normalised key.
    pub rows: u64,
}

/// Runs a `gate` command; returns the exit code.
///
/// # Errors
/// The server refusing the migration (for example a role that does not own the table), or a
/// table the gate cannot front.
pub fn run(command: GateCommand, out: Out) -> Result<u8> {
    match command {
        GateCommand::Migrate {
            url,
            table,
            column,
            gmail_rules,
        } => {
            let normalizer = Normalizer::default().gmail_rules(gmail_rules);
            let migrated = migrate(&url, &table, &column, normalizer)?;
            out.emit(&migrated, render)
        }
    }
}

fn migrate(url: &str, table: &str, column: &str, normalizer: Normalizer) -> Result<Migrated> {
    PgStore::migrate(url, table, column)
        .with_context(|| format!("migrating {table} (run it as the table's owner)"))?;
    let opts = filterlab::gate::PgOptions {
        key_column: column.to_owned(),
        feed: false,
        ..Default::default()
    };
    let mut store = PgStore::connect_with(url, table, &opts)
        .with_context(|| format!("migrated, but the gate cannot front {table}"))?;
    let unique_on = match store.key_match() {
        KeyMatch::Exact => column.to_owned(),
        KeyMatch::Lower | KeyMatch::CaseInsensitive => format!("lower({column})"),
    };
    let audit = filterlab::gate::audit(&mut store, normalizer)
        .with_context(|| format!("migrated, but reading {table} failed"))?;
    if let Some(row) = audit.example {
        bail!(
            "migrated, but {n} of the {rows} rows of {table} are stored in a form its unique \
             index does not find by the gate's key (for example {stored:?}: the index compares \
             {matched:?}, the gate looks up {key:?}); the gate holds up to \
             {MAX_UNNORMALISED_ROWS} such rows as aliases (a query each) and refuses \
             unconfirmed checks beyond that; to fix this one: {repair} (the others alike; \
             run this command again to find the next)",
            n = audit.unnormalised,
            rows = audit.rows,
            stored = row.stored,
            matched = row.matched,
            key = row.key,
            repair = row.repair,
        );
    }
    if let Some((second, first)) = audit.pair_example {
        bail!(
            "migrated, but {table} holds {n} pairs of accounts for one address: rows its unique \
             index tells apart although it folds the upper case of one onto the other (for \
             example {second:?} beside {first:?}; the index compares the two as different, yet \
             an address typed as the upper case of the first is the second's). A gate that folded \
             addresses with Unicode's lower case rather than the index's stored such second \
             accounts; this gate folds as the index does and makes no more. Merge each pair into \
             one account and delete the other row (run this command again to check)",
            n = audit.pairs,
        );
    }
    Ok(Migrated {
        table: table.to_owned(),
        column: column.to_owned(),
        unique_on,
        rows: audit.rows,
    })
}

fn render(m: &Migrated) -> String {
    format!(
        "migrated: {table} ({column}): schema filter_gate and the notify trigger are in place; \
         the unique index compares {unique}, and finds each of the {rows} rows by its key\n\
         the service's role needs: USAGE on the table's schema, SELECT on {table} (and INSERT \
         if the gate registers); no DDL",
        table = m.table,
        column = m.column,
        unique = m.unique_on,
        rows = m.rows,
    )
}

#[cfg(test)]
mod tests;
