"""The docs site: `mkdocs build --strict` passes (a broken link or anchor, a page left out of the navigation, a
missing included file fails), every page is built, nothing is fetched from elsewhere, and the built site opens in
chromium without a console error, its search finding what a newcomer looks for. (tests/project/test_docs.py checks the
pages' content against the code.)"""

from __future__ import annotations

import functools
import http.server
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

DOCS = ROOT / "docs"


# ---- the site -----------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, env=env,
    )
    problems = [line for line in done.stderr.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert done.returncode == 0 and problems == [], "\n".join(problems) or done.stderr
    return out


def test_the_site_builds_strictly_with_every_page(site: Path) -> None:
    for page in DOCS.rglob("*.md"):
        relative = page.relative_to(DOCS).with_suffix("")
        built = site / ("index.html" if relative.name == "index" else relative / "index.html")
        if relative.name == "index" and relative.parent != Path("."):
            built = site / relative.parent / "index.html"
        assert built.is_file(), page
    home = (site / "index.html").read_text(encoding="utf-8")
    assert "The few ideas you need" in home and "fonts.googleapis" not in home  # README's sections; nothing fetched


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_the_built_site_opens_in_chromium_without_a_console_error_and_search_finds(served: str, site: Path) -> None:
    from tests.helpers import CHROMIUM, CHROMIUM_FLAGS, chromium_driver

    sync_playwright = chromium_driver()
    from playwright.sync_api import expect

    # the home page and the README's pictures, the pages with the report's plots, wide tables, the largest generated
    # page, and the included files: every kind of page the site has (each load costs the search index a rebuild)
    urls = ["/", "/report/", "/exports/", "/running/", "/scaffolds/", "/scaffolds/moa-sherlock/", "/design/"]
    assert all((site / url.strip("/") / "index.html").is_file() for url in urls)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(20_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error}"))
        page.on("console", lambda m: errors.append(f"{page.url}: {m.text}") if m.type == "error" else None)
        for url in urls:
            page.goto(served + url, wait_until="load")
        page.goto(served + "/")
        page.keyboard.press("/")  # Material's key for the search box
        # once the search worker has indexed the site
        ready = "() => !document.querySelector('.md-search-result__meta').textContent.includes('Initializing')"
        page.wait_for_function(ready, timeout=90_000)
        # the word's last letter typed as a key press (the search answers key presses): no results of its first
        # letters alone are shown before the ones of the whole word
        box = page.locator("input.md-search__input")
        box.fill("candidate_rate")
        box.press("d")
        first = page.locator(".md-search-result__item a").first
        expect(first).to_have_attribute("href", re.compile(r"/exports/"), timeout=20_000)
        browser.close()
    assert errors == []
