#!/usr/bin/env bash
# The peers' own test suites against filterlab's Python drop-ins, with only their import lines
# changed: pybloom_live's repository suite (newer than the one its PyPI release ships, which
# crates/filterlab-py/tests/test_peer_suites.py runs in CI) against filterlab.pybloom_compat.
# The suites are cloned at a pinned commit into target/peer-suites and never enter the repository.
#
#   bash scripts/peer-suites.sh                         # clones from GitHub
#   PYBLOOM_GIT=/path/to/python-bloomfilter.git bash scripts/peer-suites.sh   # a local clone
# Either needs the venv of scripts/python.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "peer-suites.sh: $*" >&2; }
VENV=$(realpath -m "${FILTERLAB_VENV:-target/python-venv}")
DIR=target/peer-suites
PYBLOOM_REPO=https://github.com/joseph-fox/python-bloomfilter
PYBLOOM_COMMIT=da1a8b3

[[ -x $VENV/bin/python ]] || { log "no venv at $VENV: run bash scripts/python.sh first"; exit 1; }
mkdir -p "$DIR"
GIT=${PYBLOOM_GIT:-$DIR/pybloom_live.git}
if [[ ! -d $GIT ]]; then
    git clone -q --bare "$PYBLOOM_REPO" "$GIT" || { log "cannot clone $PYBLOOM_REPO (set PYBLOOM_GIT to a clone)"; exit 1; }
fi

run=$DIR/run && rm -rf "$run" && mkdir -p "$run"
git --git-dir "$GIT" show "$PYBLOOM_COMMIT:pybloom_live/test_pybloom.py" \
    | sed 's/^from pybloom_live\.pybloom import /from filterlab.pybloom_compat import /' \
    > "$run/test_pybloom_live_suite.py"
grep -q '^from filterlab.pybloom_compat import' "$run/test_pybloom_live_suite.py" \
    || { log "the suite's import line moved: update this script"; exit 1; }
log "pybloom_live's suite at $PYBLOOM_COMMIT against filterlab.pybloom_compat"
cd "$run" && "$VENV/bin/python" -m pytest -q -p no:cacheprovider .
