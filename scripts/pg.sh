#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests and the harness: loopback only, a free port, a
# temporary directory, trust authentication (nothing but this machine can connect).
#
#   eval "$(scripts/pg.sh start)"   # exports FILTERLAB_PG (connection string) and FILTERLAB_PG_DIR
#   scripts/pg.sh stop              # stops the server and removes FILTERLAB_PG_DIR
#
# Bulk-load settings from PostgreSQL's "Populating a Database" (WAL kept minimal, so a COPY into
# a table created in the same transaction and the index built after it skip the WAL; checkpoints
# spaced by a larger max_wal_size); fsync stays on.
# The server refuses to run as root, so as root it runs as the `postgres` system user (Debian's
# postgresql package creates it). Messages go to stderr; only the exports go to stdout.
set -euo pipefail

log() { echo "pg.sh: $*" >&2; }
# shellcheck source=scripts/server.sh
source "$(dirname "${BASH_SOURCE[0]}")/server.sh"
DIR_PREFIX=/tmp/filterlab-pg
DIR_VAR=FILTERLAB_PG_DIR

find_bin() {
    local d
    for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        if [[ -x "$d/initdb" && -x "$d/pg_ctl" ]]; then echo "$d"; return 0; fi
    done
    command -v initdb >/dev/null 2>&1 && dirname "$(command -v initdb)" && return 0
    return 1
}

as_owner() {
    if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
    local bin dir port
    if ! bin=$(find_bin) && [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        log "installing Debian's postgresql package (apt)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; } >&2 || true
    fi
    if ! bin=$(find_bin); then
        log "no PostgreSQL server programs (initdb, pg_ctl) found; install Debian's postgresql package"
        exit 1
    fi
    dir=$(mktemp -d /tmp/filterlab-pg.XXXXXX)
    if [[ $(id -u) -eq 0 ]]; then chown postgres: "$dir"; fi
    chmod 700 "$dir"
    port=$(free_port)
    # The default collation is libc's C.UTF-8, named rather than inherited from the caller's
    # environment (a machine without LANG would give the C locale, whose lower() folds ASCII
    # only): the gate's tests need a libc lower() that folds every letter (İ to i, a final Σ to
    # σ), and the ICU collations (und-x-icu, tr-x-icu) that Debian's build provides.
    local locale_opt=()
    if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
        locale_opt=(--locale=C.UTF-8)
    else
        log "no C.UTF-8 locale on this machine: the cluster takes the environment's locale"
    fi
    as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 "${locale_opt[@]}" --no-sync >"$dir/initdb.log" 2>&1 \
        || { log "initdb failed:"; cat "$dir/initdb.log" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c shared_buffers=512MB -c max_connections=100 -c wal_level=minimal -c max_wal_senders=0 -c max_wal_size=4GB" \
        start >&2 || { log "the server did not start:"; cat "$dir/server.log" >&2; exit 1; }
    log "PostgreSQL ($bin) on 127.0.0.1:$port, data in $dir"
    echo "export FILTERLAB_PG='host=127.0.0.1 port=$port user=postgres dbname=postgres'"
    echo "export FILTERLAB_PG_DIR='$dir'"
}

halt() {
    local bin
    if bin=$(find_bin); then
        as_owner "$bin/pg_ctl" -D "$1/data" -m fast -w stop >&2 || true
    fi
}

server_main "$@"
