#!/usr/bin/env bash
# Release artefacts of the Python package into target/wheels/release:
# - the x86_64 Linux wheel for glibc 2.17 and later (manylinux2014), linked with zig (the ziglang
#   package from PyPI, in a venv of its own: no container, nothing installed globally), then
#   `auditwheel show` on it, its output kept beside the wheel (auditwheel-x86_64.txt);
# - the sdist, and a check that installing it where no Rust toolchain is on PATH fails with the
#   package's one-line message (crates/filterlab-py/build_backend), not a build log.
# aarch64, macOS and Windows wheels come from .github/workflows/wheels.yml (maturin-action on
# hosted runners): the macOS SDK and MSVC are not on these machines.
#
#   bash scripts/wheels.sh          # or: just wheels
set -euo pipefail
cd "$(dirname "$0")/.."
log() { echo "wheels.sh: $*" >&2; }
PYTHON=${PYTHON:-python3}
VENV=$(realpath -m target/wheel-venv)
OUT=$(realpath -m target/wheels/release)
TOOLS=(maturin==1.16.0 ziglang==0.17.0 auditwheel==6.8.2)

rm -rf "$VENV" "$OUT" && mkdir -p "$OUT"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check "${TOOLS[@]}"
export PATH=$VENV/bin:$PATH

log "manylinux2014 x86_64 wheel, linked by zig"
maturin build --release -m crates/filterlab-py/Cargo.toml --zig --compatibility manylinux2014 \
    --target x86_64-unknown-linux-gnu --out "$OUT"
wheel=$(ls "$OUT"/filterlab-*-manylinux*_x86_64*.whl)
auditwheel show "$wheel" | tee "$OUT/auditwheel-x86_64.txt"
grep -q 'manylinux_2_17_x86_64' "$OUT/auditwheel-x86_64.txt" \
    || { log "auditwheel does not place $wheel at manylinux_2_17 (glibc 2.17)"; exit 1; }

log "sdist"
maturin sdist -m crates/filterlab-py/Cargo.toml --out "$OUT"
sdist=$(ls "$OUT"/filterlab-*.tar.gz)

log "the sdist without Rust: a one-line message"
novenv=$(mktemp -d)
trap 'rm -rf "$novenv"' EXIT
"$PYTHON" -m venv "$novenv/venv"
rustless=$(dirname "$(command -v "$PYTHON")")
if PATH="$novenv/venv/bin:$rustless:/usr/bin:/bin" CARGO_HOME=/nonexistent RUSTUP_HOME=/nonexistent \
    "$novenv/venv/bin/python" -m pip install -q --no-cache-dir "$sdist" > "$novenv/log" 2>&1; then
    log "the sdist installed without Rust: the check cannot tell (is cargo in /usr/bin?)"; exit 1
fi
grep -q 'filterlab: building from source needs Rust' "$novenv/log" \
    || { log "no clear message without Rust:"; tail -20 "$novenv/log" >&2; exit 1; }
log "without Rust: $(grep -m1 'filterlab: building from source needs Rust' "$novenv/log")"
log "done: $(ls "$OUT")"
