# What pg.sh and redis.sh share (sourced by both, not run): each defines `log`, `start` and
# `halt DIR` (stops the server whose files are in DIR), sets DIR_PREFIX (the prefix of the
# temporary directories it makes) and DIR_VAR (the variable its `start` exports them in), then
# calls `server_main "$@"`.

# A free TCP port on the loopback interface.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Stops the server and removes its directory: $1, or else the one named by $DIR_VAR. Refuses a
# directory that is not one of ours.
stop() {
    local dir=${1:-${!DIR_VAR:-}}
    [[ -n "$dir" && -d "$dir" ]] || { log "nothing to stop"; return 0; }
    case "$dir" in "$DIR_PREFIX".*) ;; *) log "refusing to remove $dir"; return 1 ;; esac
    halt "$dir"
    rm -rf "$dir"
    log "stopped and removed $dir"
}

server_main() {
    case "${1:-}" in
        start) start ;;
        stop) stop "${2:-}" ;;
        *) echo "usage: $0 start | stop [DIR]" >&2; exit 2 ;;
    esac
}
