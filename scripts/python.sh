#!/usr/bin/env bash
# The Python package (crates/filterlab-py): builds its abi3 wheel from this checkout with maturin,
# installs it into a fresh virtual environment, and runs its pytest suite there.
#
#   bash scripts/python.sh            # venv in target/python-venv (nothing installed globally)
#   bash scripts/python.sh --no-tests # the venv and the wheel only (the harness's full run)
#
# maturin, pytest, numpy and mypy (its stubtest checks the .pyi against the built module) come
# from PyPI into the venv, with the peers the harness's Python section measures the package
# against (rbloom, pybloom-live with its xxhash and bitarray, bloom-filter2, and mmh3 for the
# first article's class): bench-harness/src/python runs in this venv. The tests read and write filter files
# with the CLI (target/debug/filterlab, built here) to check that both sides share the format.
# Exit status: 0 when every test passes and the stubs match; pytest's "no tests collected" (5)
# is a failure too.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "python.sh: $*" >&2; }
PYTHON=${PYTHON:-python3}
VENV=$(realpath -m "${FILTERLAB_VENV:-target/python-venv}")
WHEELS=target/wheels
# Pinned for repeatable runs on this machine's python3 (3.11); numpy 2.4 needs 3.11 or later.
PACKAGES=(maturin==1.16.0 pytest==8.3.5 numpy==2.4.6 mypy==2.4.1)
PEERS=(rbloom==1.5.4 pybloom-live==4.0.0 xxhash==4.1.0 bitarray==3.12.3 bloom-filter2==2.0.0 mmh3==5.3.1)
# Not measured: DuckDB writes the Parquet file whose bloom filters, and its parquet_bloom_probe
# answers, crates/filterlab-cli/tests/cli_parquet.rs checks filterlab against (skipped there
# when this venv lacks it).
INTEROP=(duckdb==2.0.1)

# The commit the wheel is built from, stamped into the venv once it is ready: the harness's
# committed run reuses a venv whose wheel was built from the code it measures
# (bench-harness/src/stages/python/venv.rs). "dirty" when the wheel's sources differ from HEAD.
if git diff --quiet HEAD -- crates Cargo.toml Cargo.lock scripts/python.sh 2>/dev/null; then
    STAMP=$(git rev-parse HEAD 2>/dev/null || echo dirty)
else
    STAMP=dirty
fi

log "fresh virtual environment in $VENV ($("$PYTHON" --version))"
rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PACKAGES[@]}" "${PEERS[@]}" \
    "${INTEROP[@]}"

log "wheel (maturin build --release)"
rm -f "$WHEELS"/filterlab-*.whl
"$VENV/bin/maturin" build --release -m crates/filterlab-py/Cargo.toml --out "$WHEELS" \
    --interpreter "$VENV/bin/python"
wheels=("$WHEELS"/filterlab-*-abi3-*.whl)
[[ -f ${wheels[0]} ]] || { log "no abi3 wheel in $WHEELS"; exit 1; }
"$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps "${wheels[0]}"
echo "$STAMP" > "$VENV/filterlab-wheel-commit"

if [[ ${1:-} == --no-tests ]]; then
    log "venv ready in $VENV (tests not run: --no-tests)"
    exit 0
fi

log "CLI for the cross-format tests"
cargo build -q -p filterlab-cli
export FILTERLAB_CLI=$PWD/target/debug/filterlab

log "pytest"
# From the tests' folder, so that `import filterlab` is the installed wheel, not the source tree.
cd crates/filterlab-py/tests
rc=0
"$VENV/bin/python" -m pytest -q -p no:cacheprovider . || rc=$?
if [[ $rc == 5 ]]; then
    log "pytest collected no tests: that is a failure"
    exit 1
fi
[[ $rc == 0 ]] || exit "$rc"

log "type stubs against the built module (mypy stubtest)"
"$VENV/bin/python" -m mypy.stubtest filterlab
