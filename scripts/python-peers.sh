#!/usr/bin/env bash
# The first article's Python code needs mmh3 and bitarray. When python3 lacks them, install the
# pinned versions from PyPI into a private directory (no system site-packages touched) and print
# that directory for PYTHONPATH. Prints nothing when python3 already has both.
#
#   PYTHONPATH="$(bash scripts/python-peers.sh)" python3 bench-harness/python/articles_bloom.py ...
set -euo pipefail

log() { echo "python-peers.sh: $*" >&2; }
DIR=${FILTERLAB_PYTHON_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/filterlab/python}
PACKAGES=(mmh3==5.3.1 bitarray==3.12.3)

if python3 -c 'import mmh3, bitarray' 2>/dev/null; then
    exit 0
fi
if ! PYTHONPATH="$DIR" python3 -c 'import mmh3, bitarray' 2>/dev/null; then
    log "installing ${PACKAGES[*]} (pip) into $DIR"
    python3 -m pip install -q --disable-pip-version-check --target "$DIR" "${PACKAGES[@]}" >&2
fi
PYTHONPATH="$DIR" python3 -c 'import mmh3, bitarray' || { log "mmh3/bitarray still missing"; exit 1; }
echo "$DIR"
