"""How long a person waits at the table page for a built-in partner's answer: from pressing a move in the browser to
the page showing the partner's move and asking for the next one.

Plays 2-player games of a human seat and `local/smart` (Watson) in this process, with the table page served as
`hanabi-eval play` serves it (plan_run, serving_table, play_run). Debian's chromium, driven by Playwright, is the
person: on each of its turns it presses a move (mostly hints and discards, so that games last) and the time is taken
from the press to the page asking again (the move posted, the redirect, the partner's move, the page's poll and
reload). Prints the median, the 90th percentile and the largest, over --moves moves. The goal is under 200 ms.
Run: python bench/table_latency.py [--moves 60]; --quick: 8 moves.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent.parent))  # after an installed harness (see options.py)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from bench.options import BenchParser, positive_int
from harness.session.launch import play_run
from harness.session.request import RunRequest, plan_run
from harness.web.table import serving_table

CHROMIUM = Path(os.environ.get("HANABI_EVAL_CHROMIUM", "/usr/bin/chromium"))
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip
GOAL_MS = 200
# the page now shown: from its navigation's start (the press, or the poll's reload) to the server's whole answer
SERVED_MS = "() => { const n = performance.getEntriesByType('navigation')[0]; return n.responseEnd - n.startTime; }"
served: list[float] = []  # per timed move: the last navigation's time to its answer


class Table:
    """A run of one human seat and local/smart over `seeds`, played in a thread with its table page served."""

    def __init__(self, out: Path, seeds: str) -> None:
        self.path, self.config, self.options = plan_run(
            RunRequest(seat=["human", "local/smart"], seeds=seeds, out=out, given={"show_progress": False})
        )
        self.url = ""
        self.ready = threading.Event()
        self.done = threading.Event()
        self.close = threading.Event()
        threading.Thread(target=self._play, daemon=True).start()

    def _said(self, line: str) -> None:
        self.url = line.rsplit(" ", 1)[-1]

    def _play(self) -> None:
        with serving_table(["human"], None, None, False, self._said):
            self.ready.set()
            play_run(self.path, self.config, self.options, ["bench"], lambda line: None, lambda games, calls: None)
            self.done.set()
            self.close.wait(30)


def measure(moves: int) -> list[float]:
    """Milliseconds from each move pressed to the page asking for the next, over `moves` moves."""
    from playwright.sync_api import sync_playwright

    rng = random.Random(1)
    times: list[float] = []
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        page = browser.new_page()
        seed = 0
        while len(times) < moves:
            seed += 1
            table = Table(Path(scratch) / str(seed), str(seed))
            table.ready.wait(30)
            page.goto(table.url)
            page.wait_for_selector("body.status-yours", timeout=60_000)  # the first: LiteLLM's warm-up included
            while len(times) < moves:
                buttons = page.locator("form.moves button")
                labels = [buttons.nth(i).inner_text() for i in range(buttons.count())]
                quiet = [i for i, label in enumerate(labels) if not label.startswith("play")]
                choice = rng.choice(quiet if quiet and rng.random() < 0.8 else range(len(labels)))
                turn = int(page.locator("input[name=turn]").get_attribute("value") or 0)
                started = time.perf_counter()
                buttons.nth(choice).click()
                # between two pages there may be no body yet: the `?.` reads that as "not yet"
                page.wait_for_function(
                    f"() => document.body?.classList.contains('status-over') || (document.body?.classList.contains("
                    f"'status-yours') && Number(document.querySelector('input[name=turn]')?.value) > {turn})",
                    polling=5,
                )
                served.append(page.evaluate(SERVED_MS))
                if page.locator("body.status-over").count():
                    break
                times.append((time.perf_counter() - started) * 1000)
            table.close.set()
        browser.close()
    return times


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--moves", type=positive_int, default=60, help="moves to time (default 60)")
    args = parser.parse_args()
    moves = 8 if args.quick else args.moves
    if not CHROMIUM.is_file():
        parser.error(f"no chromium at {CHROMIUM}: apt-get install -y chromium, or set HANABI_EVAL_CHROMIUM")
    times = sorted(measure(moves))
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))]
    print(f"table page, human + local/smart, {len(times)} moves: from a move pressed to the page asking again")
    print(f"  median {statistics.median(times):.0f} ms · 90th percentile {p90:.0f} ms · largest {times[-1]:.0f} ms"
          f" (goal: under {GOAL_MS} ms)")
    print(f"  of which the last page's navigation until the server's answer: median {statistics.median(served):.0f} ms"
          f" (the rest: the browser drawing pages, and any poll before it)")


if __name__ == "__main__":
    main()
