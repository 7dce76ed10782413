-- filter-gate's one-time migration for PostgreSQL (idempotent: running it again changes nothing).
--
-- Run it as the owner of the users table (and a role allowed to create the schema
-- `filter_gate`), once, then install the trigger on each table the gate fronts:
--
--   psql -v ON_ERROR_STOP=1 -f crates/filter-gate/sql/filter_gate.sql
--   psql -v ON_ERROR_STOP=1 -c "SELECT filter_gate.install('auth.users', 'email')"
--
-- or `filterlab gate migrate --url '<conn>' --table auth.users --column email`, or from Rust
-- `filter_gate::PgStore::migrate(conn, "auth.users", "email")`: both run this file and the
-- install call in one transaction.
--
-- What it creates:
-- * `filter_gate.notify()`, an AFTER INSERT OR UPDATE trigger function that sends the key of every
--   committed row on channel `filter_gate_<table oid>`: other gate instances LISTEN there (the
--   notification is delivered only if the transaction commits);
-- * `filter_gate.stamps` and `filter_gate.stamp(token, table)`: a gate that saves its filter writes a
--   random token here, and on restart looks it up; a database restored from a backup older than
--   the saved filter lacks the token, and the gate rebuilds instead of trusting a stale filter.
--   `stamp` is SECURITY DEFINER, so the gate's role needs no INSERT right on the table.
--
-- The gate's own role then needs only: USAGE on the table's schema, SELECT on the table, INSERT
-- on it if the gate inserts (`register`), and nothing else (LISTEN needs no grant).

CREATE SCHEMA IF NOT EXISTS filter_gate;
GRANT USAGE ON SCHEMA filter_gate TO PUBLIC;

-- `tbl` ties a token to the table whose filter was saved: a file saved for one table is not
-- taken for another's.
CREATE TABLE IF NOT EXISTS filter_gate.stamps (
    token bigint PRIMARY KEY,
    tbl oid NOT NULL,
    at timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT ON filter_gate.stamps TO PUBLIC;

CREATE OR REPLACE FUNCTION filter_gate.stamp(token bigint, tbl oid) RETURNS void
LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
    INSERT INTO filter_gate.stamps (token, tbl) VALUES (token, tbl) ON CONFLICT DO NOTHING
$$;
GRANT EXECUTE ON FUNCTION filter_gate.stamp(bigint, oid) TO PUBLIC;

CREATE OR REPLACE FUNCTION filter_gate.notify() RETURNS trigger
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    PERFORM pg_notify('filter_gate_' || TG_RELID::text, to_jsonb(NEW) ->> TG_ARGV[0]);
    RETURN NULL;
END
$$;

-- Installs the notify trigger on `tbl`, sending column `key_column`. Idempotent: a trigger that
-- is already there is left alone (drop `filter_gate_notify` first to change the column).
CREATE OR REPLACE FUNCTION filter_gate.install(tbl regclass, key_column name) RETURNS void
LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute
                   WHERE attrelid = tbl AND attname = key_column AND NOT attisdropped) THEN
        RAISE EXCEPTION 'filter_gate.install: table % has no column %', tbl, key_column;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_trigger WHERE tgrelid = tbl AND tgname = 'filter_gate_notify') THEN
        RETURN;
    END IF;
    EXECUTE format('CREATE TRIGGER filter_gate_notify AFTER INSERT OR UPDATE OF %I ON %s '
                   'FOR EACH ROW EXECUTE FUNCTION filter_gate.notify(%L)', key_column, tbl, key_column);
END
$$;
