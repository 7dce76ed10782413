#!/usr/bin/env bash
# A JDK and Guava for the Guava interop tests (crates/filter-interop/tests/guava_peer.rs, which
# compile their Java peer with javac). Installs Debian's default-jdk-headless and libguava-java
# when javac or the Guava jar is missing, then prints the export of Guava's class path.
#
#   eval "$(bash scripts/java.sh)"   # exports FILTERLAB_GUAVA_CLASSPATH (Guava's jar)
#
# When they cannot be had (not root, no apt-get, no package index reachable) it says why on
# stderr, prints nothing on stdout and exits 0, so the tests skip with that reason; with
# FILTERLAB_REQUIRE_SERVERS=1 (as .ci/run sets) it exits 1 instead, as pg.sh and redis.sh fail.
# Messages go to stderr; only the export goes to stdout.
set -euo pipefail

log() { echo "java.sh: $*" >&2; }

# Guava's jar as Debian installs it: the unversioned link in /usr/share/java if present.
guava_jar() {
    local jars
    jars=$(dpkg -L libguava-java 2>/dev/null | grep -E '^/usr/share/java/guava[^/]*\.jar$' || true)
    grep -m1 -x /usr/share/java/guava.jar <<<"$jars" || head -1 <<<"$jars"
}

have_all() {
    command -v javac >/dev/null 2>&1 && command -v java >/dev/null 2>&1 && [[ -n "$(guava_jar)" ]]
}

give_up() {
    if [[ "${FILTERLAB_REQUIRE_SERVERS:-}" == 1 ]]; then
        log "$1, and FILTERLAB_REQUIRE_SERVERS=1 forbids skipping"
        exit 1
    fi
    log "$1; the Guava interop tests will skip"
    exit 0
}

if ! have_all; then
    if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null 2>&1; then
        give_up "no javac or no Guava jar, and apt-get cannot install them here (needs root and apt-get): install default-jdk-headless and libguava-java"
    fi
    log "installing Debian's default-jdk-headless and libguava-java (apt)"
    if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
        default-jdk-headless libguava-java; } >&2; then
        give_up "apt-get could not install default-jdk-headless and libguava-java"
    fi
    have_all || give_up "default-jdk-headless and libguava-java installed, but javac or the Guava jar is still missing"
fi

jar=$(guava_jar)
log "javac $(javac -version 2>&1 | awk '{print $2}'), Guava $(dpkg-query -W -f='${Version}' libguava-java) at $jar"
echo "export FILTERLAB_GUAVA_CLASSPATH='$jar'"
