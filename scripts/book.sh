#!/usr/bin/env bash
# The course as a book (book/, mdBook): its tools, its build, its browser test.
#
#   bash scripts/book.sh build   # into target/book (`just book`)
#   bash scripts/book.sh test    # build, then every page in headless Chromium (`just book-test`)
#
# build: mdBook and the KaTeX preprocessor, pinned, are installed from crates.io with
# `cargo install --locked` into target/book-tools when missing (about 5 minutes once; nothing
# goes into ~/.cargo). The book's own preprocessor (bench-harness's mdbook-filterlab) and the
# filterlab CLI that answers the exercises are built with cargo, each by its own command (one
# `cargo build -p A --bin X -p B` builds only the binary X), and the preprocessor is pointed at
# the CLI just built (FILTERLAB_CLI), never at one an earlier step left behind. Once installed,
# no network is needed: KaTeX renders the formulas to MathML at build time, and the pages load no
# script, style or font from elsewhere (the browser test fails if one tries).
#
# BOOK_TOOLS and BOOK_VENV (default: target/book-tools and target/book-venv here) let a fresh
# clone reuse the pinned tools and the venv of another checkout (CI's fresh-clone step).
#
# test: Debian's chromium is installed with apt when missing (as root; otherwise say so and
# fail), Playwright (pinned, from PyPI) into the venv target/book-venv, and
# scripts/book_browser.py first proves on a broken fixture (book/tests/broken-site) that each of
# its checks fails, then visits every page of target/book: no KaTeX error, no missing image, no
# broken link or anchor, no request off this machine, no script error, and the search finds
# "false positive". Screenshots of three chapters go to target/book-shots/.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { echo "book.sh: $*" >&2; }
MDBOOK_VERSION=0.5.4
KATEX_VERSION=0.10.0
PLAYWRIGHT_VERSION=1.65.2
TOOLS=${BOOK_TOOLS:-$PWD/target/book-tools}
VENV=${BOOK_VENV:-$PWD/target/book-venv}
# Where cargo puts the binaries (CARGO_TARGET_DIR, relative to here when relative).
TARGET=${CARGO_TARGET_DIR:-target}
[[ $TARGET == /* ]] || TARGET=$PWD/$TARGET

tool() { # NAME VERSION: installs NAME at VERSION into $TOOLS unless it is there
    local name=$1 version=$2
    if [[ -x $TOOLS/bin/$name ]] && "$TOOLS/bin/$name" --version 2>/dev/null | grep -qF "$version"; then
        return 0
    fi
    log "installing $name $version into $TOOLS (cargo install --locked)"
    cargo install --locked --quiet --root "$TOOLS" "$name" --version "$version"
}

build() {
    tool mdbook "$MDBOOK_VERSION"
    tool mdbook-katex "$KATEX_VERSION"
    log "the preprocessor and the CLI (cargo build --release)"
    cargo build --release --quiet -p bench-harness --bin mdbook-filterlab
    cargo build --release --quiet -p filterlab-cli --bin filterlab
    local cli=$TARGET/release/filterlab
    [[ -x $cli ]] || { log "cargo built no $cli: the exercises cannot be answered"; exit 1; }
    rm -rf target/book
    local out warnings
    out=$(FILTERLAB_CLI=$cli PATH="$TOOLS/bin:$PATH" mdbook build book 2>&1) \
        || { echo "$out" >&2; log "mdbook failed"; exit 1; }
    # A warning is a page that renders wrong (unbalanced HTML, a tag Markdown swallowed): fail.
    # mdbook-katex's note that it was built against mdbook 0.5.3 (the preprocessor protocol of
    # 0.5.x is one) is the only one let through.
    warnings=$(grep WARN <<<"$out" | grep -v 'was built against mdbook' || true)
    if [[ -n $warnings ]]; then
        echo "$out" >&2
        log "mdbook warned: fix the page (above)"
        exit 1
    fi
    log "built: target/book/index.html"
}

chromium_ready() {
    [[ -x /usr/bin/chromium ]] && return 0
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        log "installing Debian's chromium package (apt)"
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >&2 || true
    fi
    [[ -x /usr/bin/chromium ]] || { log "no /usr/bin/chromium: install Debian's chromium package"; return 1; }
}

venv_ready() {
    if [[ -x $VENV/bin/python ]] && "$VENV/bin/python" -c "import playwright" 2>/dev/null \
        && [[ $("$VENV/bin/python" -m pip show playwright 2>/dev/null | sed -n 's/^Version: //p') == "$PLAYWRIGHT_VERSION" ]]; then
        return 0
    fi
    log "Playwright $PLAYWRIGHT_VERSION into $VENV (the system Chromium drives; no browser download)"
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "playwright==$PLAYWRIGHT_VERSION"
}

browser_test() {
    chromium_ready
    venv_ready
    log "the checks fail on a broken page (book/tests/broken-site)"
    "$VENV/bin/python" scripts/book_browser.py --self-test book/tests/broken-site
    log "every page of target/book"
    rm -rf target/book-shots
    "$VENV/bin/python" scripts/book_browser.py target/book --shots target/book-shots
}

case ${1:-} in
    build) build ;;
    test) build && browser_test ;;
    *) echo "usage: $0 build|test" >&2; exit 2 ;;
esac
