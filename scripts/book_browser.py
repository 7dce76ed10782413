"""The course book in a real browser: headless Chromium (Debian's) driven by Playwright.

    python scripts/book_browser.py SITE [--shots DIR]   # every page of a built book
    python scripts/book_browser.py --self-test FIXTURE  # a broken site: every check must fire

SITE is served on a free loopback port. Every HTML page is visited; the run fails when
- a KaTeX error element (.katex-error) appears,
- an image does not load,
- a link to a page of the book, or to an anchor in one, leads nowhere,
- the page asks for anything off this machine (no CDN: scripts, styles and fonts are the book's),
- a page throws a script error,
- the search box finds nothing for "false positive".
It saves full-page screenshots of three chapters (SHOTS), and prints what it checked.
Exit status: 0 when nothing failed, 1 otherwise (2 for bad usage). With --self-test the
roles turn: the fixture must produce every kind of failure, and 0 means it did.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import re
import sys
import threading
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
# Chromium on a machine with a closed network: no background connections, no first-run work.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOT_PAGES = ["classic.html", "cuckoo.html", "measurement.html"]
SEARCH_TERM = "false positive"
KINDS = ("katex", "image", "link", "anchor", "offsite", "script", "search")


@dataclass(frozen=True)
class Problem:
    kind: str  # one of KINDS
    page: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.page}: {self.detail}"


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # noqa: D401 - the server's log is noise here
        pass


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


class Site:
    """The built book's files: which pages exist and which anchors each has."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._ids: dict[Path, set[str]] = {}

    def pages(self) -> list[str]:
        return sorted(
            str(p.relative_to(self.root))
            for p in self.root.rglob("*.html")
            if p.name != "404.html"
        )

    def target(self, url_path: str) -> Path | None:
        rel = urllib.parse.unquote(url_path).lstrip("/")
        path = (self.root / rel).resolve()
        if path.is_dir():
            path = path / "index.html"
        return path if path.is_file() else None

    def ids(self, path: Path) -> set[str]:
        if path not in self._ids:
            text = path.read_text(encoding="utf-8", errors="replace")
            self._ids[path] = set(re.findall(r'\b(?:id|name)="([^"]+)"', text))
        return self._ids[path]


def check_links(site: Site, page: str, base: str, hrefs: list[str]) -> list[Problem]:
    problems = []
    for href in sorted(set(hrefs)):
        if not href.startswith(base):
            continue  # other origins: the offsite check covers what the page loads
        url = urllib.parse.urlsplit(href)
        target = site.target(url.path)
        if target is None:
            problems.append(Problem("link", page, f"{href} leads to no file"))
        elif url.fragment and target.suffix == ".html":
            frag = urllib.parse.unquote(url.fragment)
            if frag not in site.ids(target):
                problems.append(Problem("anchor", page, f"{href}: no element with id {frag!r}"))
    return problems


PAGE_FACTS = """() => ({
  katex: Array.from(document.querySelectorAll('.katex-error')).map(e => e.textContent.slice(0, 80)),
  broken: Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src),
  images: document.images.length,
  math: document.querySelectorAll('math').length,
  hrefs: Array.from(document.querySelectorAll('a[href]')).map(a => a.href),
})"""


def visit(browser_page, site: Site, base: str, page: str, offsite: list[str], errors: list[str]):
    offsite.clear()
    errors.clear()
    browser_page.goto(base + page, wait_until="load")
    facts = browser_page.evaluate(PAGE_FACTS)
    problems = [Problem("katex", page, f"KaTeX error: {t!r}") for t in facts["katex"]]
    problems += [Problem("image", page, f"{src} did not load") for src in facts["broken"]]
    problems += check_links(site, page, base, facts["hrefs"])
    problems += [Problem("offsite", page, f"asked for {u}") for u in offsite]
    problems += [Problem("script", page, e) for e in errors]
    return problems, facts


def search(browser_page, base: str) -> list[Problem]:
    browser_page.goto(base + "index.html", wait_until="load")
    toggle = browser_page.locator("#mdbook-search-toggle, #search-toggle")
    if toggle.count() == 0:
        return [Problem("search", "index.html", "no search button")]
    toggle.first.click()
    bar = browser_page.locator("#mdbook-searchbar, #searchbar").first
    # Typed key by key: mdBook's searcher answers key events, not a pasted value.
    bar.press_sequentially(SEARCH_TERM)
    results = browser_page.locator("#mdbook-searchresults li, #searchresults li")
    try:
        results.first.wait_for(timeout=10_000)
    except Exception:  # noqa: BLE001 - Playwright's timeout: no result appeared
        return [Problem("search", "index.html", f"no result for {SEARCH_TERM!r}")]
    print(f"search: {results.count()} results for {SEARCH_TERM!r}")
    return []


def run(root: Path, shots: Path | None) -> list[Problem]:
    from playwright.sync_api import sync_playwright

    site = Site(root)
    server, base = serve(root)
    offsite: list[str] = []
    errors: list[str] = []
    problems: list[Problem] = []
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})

            def route(r):
                if r.request.url.startswith(base) or r.request.url.startswith("data:"):
                    r.continue_()
                else:
                    offsite.append(r.request.url)
                    r.abort()

            page.route("**/*", route)
            page.on("pageerror", lambda e: errors.append(str(e)))
            totals = {"pages": 0, "images": 0, "math": 0, "links": 0}
            for name in site.pages():
                found, facts = visit(page, site, base, name, offsite, errors)
                problems += found
                totals["pages"] += 1
                totals["images"] += facts["images"]
                totals["math"] += facts["math"]
                totals["links"] += len(facts["hrefs"])
                if shots is not None and name in SHOT_PAGES:
                    shots.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(shots / name.replace(".html", ".png")), full_page=True)
            problems += search(page, base)
            browser.close()
    finally:
        server.shutdown()
    print("visited {pages} pages: {math} formulas, {images} images, {links} links".format(**totals))
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path, nargs="?")
    ap.add_argument("--shots", type=Path)
    ap.add_argument("--self-test", type=Path, metavar="FIXTURE")
    args = ap.parse_args()
    if args.self_test:
        problems = run(args.self_test, None)
        for p in problems:
            print(f"  (expected) {p}")
        missed = [k for k in KINDS if not any(p.kind == k for p in problems)]
        if missed:
            print(f"book_browser self-test: the broken fixture passed these checks: {missed}")
            return 1
        print(f"book_browser self-test: all {len(KINDS)} checks fail on the broken fixture")
        return 0
    if args.site is None or not (args.site / "index.html").is_file():
        print("book_browser: give the built book's folder (target/book); build it with `just book`")
        return 2
    problems = run(args.site, args.shots)
    for p in problems:
        print(f"  {p}")
    if problems:
        print(f"book_browser: {len(problems)} problems")
        return 1
    print("book_browser: no KaTeX error, no missing image, no broken link, search works")
    return 0


if __name__ == "__main__":
    sys.exit(main())
