"""Renders the viewer's pages through its Jinja templates (templates/), autoescaped: whatever a model wrote reaches
the page as text. The same pages are served by the local server and written as the static site, at the same
relative places:

    index.html                              the runs
    runs/<run key>/index.html               one run: its games
    runs/<run key>/games/<game page>        one game: every move (`#t12` opens turn 12)
    assets/viewer.css, assets/viewer.js     the style sheet and the little script, package files

Each page carries a Content-Security-Policy that lets it load only these two files of its own site: no inline
script, nothing from another origin.
"""

from __future__ import annotations

from pathlib import Path

from harness.report.render import cost, num, pct
from harness.schema.cards import COLOR_NAMES
from harness.schema.paths import template_environment
from harness.web.catalog import RunEntry
from harness.web.game_page import GamePage

TEMPLATES = Path(__file__).with_name("templates")
ASSETS_DIR = Path(__file__).with_name("assets")
ASSETS = ("viewer.css", "viewer.js")
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; base-uri 'none'; "
    "form-action 'none'"
)
PAGE_SIZE = 100  # games per page of a run's table
INDEX = "index.html"


def run_page_path(run: RunEntry) -> str:
    return f"runs/{run.key}/{INDEX}"


def game_page_path(run: RunEntry, page: str) -> str:
    return f"runs/{run.key}/games/{page}"


def asset(name: str) -> bytes:
    """A packaged asset (viewer.css, viewer.js)."""
    if name not in ASSETS:
        raise KeyError(name)
    return (ASSETS_DIR / name).read_bytes()


_ENV = template_environment(TEMPLATES, autoescape=True)
_ENV.filters.update(num=num, pct=pct, cost=cost)
_ENV.globals.update(csp=CSP, color_names=COLOR_NAMES)


def render_index(runs: list[RunEntry], sources: list[str]) -> str:
    return _ENV.get_template("index.html.j2").render(root="", runs=runs, sources=sources)


def render_run(run: RunEntry) -> str:
    return _ENV.get_template("run.html.j2").render(root="../../", run=run, page_size=PAGE_SIZE)


def render_game(run: RunEntry, page: GamePage) -> str:
    pages = [g.page for g in run.games]
    here = pages.index(page.summary.page) if page.summary.page in pages else -1
    previous = pages[here - 1] if here > 0 else None
    following = pages[here + 1] if 0 <= here < len(pages) - 1 else None
    turn = page.summary.worst_regret_turn
    return _ENV.get_template("game.html.j2").render(
        root="../../../",
        run=run,
        page=page,
        prev_game=previous,
        next_game=following,
        worst=f"t{turn}" if turn is not None else None,
    )


def render_template(name: str, **context: object) -> str:
    """Any page template of the viewer's environment (the table page's, harness.web.table)."""
    return _ENV.get_template(name).render(**context)
