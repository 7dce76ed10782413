#!/usr/bin/env bash
# The peers' own test suites against filterlab's Python drop-ins, with only their import lines
# changed: pybloom_live's repository suite (newer than the one its PyPI release ships, which
# crates/filterlab-py/tests/test_peer_suites.py runs in CI) against filterlab.pybloom_compat,
# and rbloom's tests/api_test.py (not in its wheel) against filterlab.Bloom.
# The suites are cloned at a pinned commit into target/peer-suites and never enter the repository.
#
#   bash scripts/peer-suites.sh                         # clones from GitHub
#   PYBLOOM_GIT=/path/to/python-bloomfilter.git RBLOOM_GIT=/path/to/rbloom.git \
#       bash scripts/peer-suites.sh                     # local clones (bare or not)
# Either needs the venv of scripts/python.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "peer-suites.sh: $*" >&2; }
VENV=$(realpath -m "${FILTERLAB_VENV:-target/python-venv}")
DIR=target/peer-suites
PYBLOOM_REPO=https://github.com/joseph-fox/python-bloomfilter
PYBLOOM_COMMIT=da1a8b3
RBLOOM_REPO=https://github.com/KenanHanke/rbloom
RBLOOM_COMMIT=b4e39fa

[[ -x $VENV/bin/python ]] || { log "no venv at $VENV: run bash scripts/python.sh first"; exit 1; }
mkdir -p "$DIR"
# git_dir NAME REPO OVERRIDE: a git directory holding REPO (OVERRIDE, or a bare clone made here).
git_dir() {
    local dir=${3:-$DIR/$1.git}
    if [[ ! -d $dir ]]; then
        git clone -q --bare "$2" "$dir" || { log "cannot clone $2 (set ${1^^}_GIT to a clone)"; exit 1; }
    fi
    [[ -d $dir/.git ]] && dir=$dir/.git
    echo "$dir"
}
# suite GIT COMMIT PATH OLD NEW OUT: the file at COMMIT:PATH with its import line OLD made NEW.
suite() {
    git --git-dir "$1" show "$2:$3" | sed "s/^$4/$5/" > "$6"
    grep -q "^$5" "$6" || { log "$3's import line moved: update this script"; exit 1; }
}

run=$(realpath -m "$DIR/run") && rm -rf "$run" && mkdir -p "$run"
suite "$(git_dir pybloom "$PYBLOOM_REPO" "${PYBLOOM_GIT:-}")" "$PYBLOOM_COMMIT" \
    pybloom_live/test_pybloom.py "from pybloom_live\.pybloom import " \
    "from filterlab.pybloom_compat import " "$run/test_pybloom_live_suite.py"
suite "$(git_dir rbloom "$RBLOOM_REPO" "${RBLOOM_GIT:-}")" "$RBLOOM_COMMIT" \
    tests/api_test.py "from rbloom import Bloom" "from filterlab import Bloom" "$run/rbloom_api_test.py"

log "pybloom_live's suite at $PYBLOOM_COMMIT against filterlab.pybloom_compat"
# Two of its tests check behaviour newer than the 4.0.0 release (a copy keeps the count; the
# capacity check stops one add sooner); filterlab.pybloom_compat answers as 4.0.0 does, the
# release a team has installed (issue 51), so they are left out here.
(cd "$run" && "$VENV/bin/python" -m pytest -q -p no:cacheprovider test_pybloom_live_suite.py \
    -k "not test_capacity_exceeded_raises_error and not test_copy_preserves_count")
log "rbloom's api_test.py at $RBLOOM_COMMIT against filterlab.Bloom (a script: it ends in its verdict)"
(cd "$run" && "$VENV/bin/python" rbloom_api_test.py)
