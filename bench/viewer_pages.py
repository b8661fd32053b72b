"""How fast the game viewer's pages load in a real browser: a game page of about 60 moves, and the run page of a run
of 1,000 games, from the local server and from the static site.

Plays one offline game (`local/smart`, Watson, 3 players, seed 1: 62 moves), then makes a run of --games games by
copying its log under new game ids (the run page reads every log, so this is a run of that many real logs). Debian's
chromium, driven by Playwright, loads each page --repeat times; a load is timed from the navigation's start to its
load event (the Navigation Timing entry), so a served page's time includes the server reading the logs, replaying the
game and rendering. A served game page is timed on first visits (each to another copy, so nothing is cached) and on
repeat visits (the server keeps its last 16 game pages). The floor is an empty page from the same server and from
disk in the same session: what the browser alone costs. Also printed: the time the server takes to read every log of
the run before it prints its address (once per `hanabi-eval view`), the page sizes, and the CPU time (not wall time,
so it does not grow when other jobs share the machine) that the server spends making a game page (reading its log,
replaying it, rendering) and the run page, median of --repeat.
Run: python bench/viewer_pages.py [--games 1000] [--repeat 5]; --quick: 20 games, 1 load each.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.options import BenchParser, positive_int
from harness.cli.main import main as cli
from harness.run.store import RunDir
from harness.web.catalog import Catalog
from harness.web.game_page import build_game_page
from harness.web.pages import render_game, render_run
from harness.web.server import ViewerServer
from harness.web.site import write_site

CHROMIUM = Path(os.environ.get("HANABI_EVAL_CHROMIUM", "/usr/bin/chromium"))
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
LOAD_MS = "() => { const n = performance.getEntriesByType('navigation')[0]; return n.loadEventEnd - n.startTime; }"


def copies_of(source: Path, run: Path, games: int) -> list[str]:
    """A run folder `run` holding `games` copies of the game log `source`, each under its own game id (the header
    names it, as the file does), with the source run's manifest. Returns the game ids."""
    (run / "games").mkdir(parents=True)
    (run / "manifest.json").write_bytes((source.parent.parent / "manifest.json").read_bytes())
    lines = source.read_bytes().split(b"\n", 1)
    header = json.loads(lines[0])
    ids = []
    for number in range(games):
        game_id = f"{header['game_id']}-copy{number:04d}"
        first = json.dumps({**header, "game_id": game_id}).encode()
        (run / "games" / f"{game_id}.jsonl").write_bytes(first + b"\n" + lines[1])
        ids.append(game_id)
    return ids


def load_ms(page: Any, url: str) -> float:
    page.goto(url, wait_until="load")
    return float(page.evaluate(LOAD_MS))


def cpu_ms(work: Any, repeat: int) -> str:
    """The median CPU time of `work()` in this process, in ms."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        work()
        times.append((time.process_time() - started) * 1000)
    return median(times)


def median(values: list[float]) -> str:
    return f"{statistics.median(values):,.0f}"


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--games", type=positive_int, default=1000, help="games in the run page's run (default 1000)")
    parser.add_argument("--repeat", type=positive_int, default=5, help="loads of each page (default 5)")
    args = parser.parse_args()
    if args.quick:
        args.games, args.repeat = 20, 1
    if not CHROMIUM.is_file():
        parser.error(f"no chromium at {CHROMIUM}: run scripts/chromium.sh, or set HANABI_EVAL_CHROMIUM")
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        argv = ["run", "--players", "3", "--seeds", "1", "--run-name", "one", "--out", str(root / "played")]
        assert cli([*argv, "--no-progress"]) == 0
        source = root / "played" / "one" / "games" / "3p-custom-seed1.jsonl"
        moves = source.read_bytes().count(b'{"type":"move"')
        ids = copies_of(source, root / "results" / "many", args.games)
        catalog = Catalog([root / "results"])
        started = time.perf_counter()
        (run,) = catalog.runs()
        read_s = time.perf_counter() - started
        game = run.games[0]
        run_cpu = cpu_ms(lambda: render_run(run), args.repeat)
        game_cpu = cpu_ms(lambda: render_game(run, build_game_page(RunDir(Path(run.path)), game)), args.repeat)
        started = time.perf_counter()
        site = root / "site"
        write_site(Catalog([root / "results"]), site, [str(root / "results")], jobs=os.cpu_count() or 1)
        site_s = time.perf_counter() - started
        (site / "empty.html").write_text("<!DOCTYPE html><title>empty</title>")
        run_page = site / "runs" / "many" / "index.html"
        game_page = site / "runs" / "many" / "games" / f"{ids[0]}.html"
        rows: list[tuple[str, str, str, str]] = []
        with ViewerServer(catalog, [str(root / "results")]) as server, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
            page = browser.new_page()
            url = server.url
            load_ms(page, url + "assets/viewer.css")  # the browser's first page costs extra: not counted
            floor = [load_ms(page, url + "assets/viewer.css") for _ in range(args.repeat)]
            rows.append(("served", "floor: a style sheet", median(floor), "-"))
            times = [load_ms(page, url + "runs/many/index.html") for _ in range(args.repeat)]
            rows.append(("served", f"run page, {args.games:,} games", median(times), f"{run_page.stat().st_size:,}"))
            first = [load_ms(page, f"{url}runs/many/games/{ids[i + 1]}.html") for i in range(args.repeat)]
            rows.append(("served", f"game page, {moves} moves, first visit", median(first), "-"))
            again = [load_ms(page, f"{url}runs/many/games/{ids[1]}.html") for _ in range(args.repeat)]
            rows.append(("served", f"game page, {moves} moves, visited again", median(again), "-"))
            floor = [load_ms(page, (site / "empty.html").as_uri()) for _ in range(args.repeat)]
            rows.append(("static", "floor: an empty page", median(floor), "-"))
            times = [load_ms(page, run_page.as_uri()) for _ in range(args.repeat)]
            rows.append(("static", f"run page, {args.games:,} games", median(times), f"{run_page.stat().st_size:,}"))
            times = [load_ms(page, game_page.as_uri()) for _ in range(args.repeat)]
            rows.append(("static", f"game page, {moves} moves", median(times), f"{game_page.stat().st_size:,}"))
            browser.close()
    print(f"Viewer page loads in chromium {CHROMIUM} (median of {args.repeat} loads, navigation start to load event)")
    print()
    print("| site | page | load ms | bytes |")
    print("| --- | --- | ---: | ---: |")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    print(f"Server CPU per page (median ms): {moves}-move game page {game_cpu}, {args.games:,}-game run page {run_cpu}")
    print(f"Reading the {args.games:,} logs before serving (once per `hanabi-eval view`): {read_s:.1f} s")
    print(f"Writing the static site of {args.games:,} game pages on {os.cpu_count()} cores: {site_s:.1f} s")
    print(f"Load average (1, 5, 15 min) at the end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
