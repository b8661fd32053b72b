"""What the table tests share: a run with human seats played in a thread of the test's process with its table page
served (the same plan_run, serving_table and play_run the command line uses), a person's clicks in chromium, and
the final score the log replays to."""

from __future__ import annotations

import random
import re
import threading
import time
from pathlib import Path
from typing import Any

from harness.engine.replay import replay
from harness.play.desk import TABLE
from harness.schema.log_file import read_game_log
from harness.session.launch import RunOutcome, play_run
from harness.session.request import RunRequest, plan_run
from harness.web.table import serving_table

URL = re.compile(r"Table of (\S+): (http://\S+)")


class TableSession:
    """A run of `seats` (with human seats) played in a thread, its table served until `close`; `urls` by seat."""

    def __init__(self, out: Path, seats: list[str], seeds: str = "1", repeats: int = 1) -> None:
        self.run_path, self.config, self.options = plan_run(
            RunRequest(seat=seats, seeds=seeds, repeats=repeats, out=out, given={"show_progress": False})
        )
        self.urls: dict[str, str] = {}
        self.outcome: RunOutcome | None = None
        self.error: BaseException | None = None
        self._ready = threading.Event()
        self._close = threading.Event()
        self._thread = threading.Thread(target=self._play, daemon=True)

    def _play(self) -> None:
        names = [s.model for s in self.config.seats if s.human]
        try:
            with serving_table(names, None, None, False, self._said):
                self._ready.set()
                self.outcome = play_run(
                    self.run_path, self.config, self.options, ["hanabi-eval", "test"], lambda line: None,
                    lambda games, calls: None,
                )
                self._close.wait(60)
        except BaseException as exc:  # handed to the test
            self.error = exc
            self._ready.set()

    def _said(self, line: str) -> None:
        found = URL.match(line)
        if found:
            self.urls[found.group(1)] = found.group(2)

    def __enter__(self) -> TableSession:
        self._thread.start()
        self._ready.wait(30)
        if self.error is not None:
            raise self.error
        return self

    def __exit__(self, *exc: object) -> None:
        self._close.set()
        for name in self.urls:
            desk = TABLE.desk(name)
            if desk is not None:
                desk.cancel()  # a game the test left unfinished stops where it is
        self._thread.join(10)

    def finished(self, timeout_s: float = 30) -> RunOutcome:
        """The outcome, once every game ended."""
        deadline = time.monotonic() + timeout_s
        while self.outcome is None and self.error is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if self.error is not None:
            raise self.error
        assert self.outcome is not None, "the run did not end"
        return self.outcome


def replayed_score(run_path: Path) -> int:
    """The fireworks of the run's one game, as the engine's replay of its log ends."""
    (path,) = (run_path / "games").glob("*.jsonl")
    contents = read_game_log(path)
    assert contents.header is not None and contents.result is not None
    steps = list(replay(contents.header.players, list(contents.header.deck), contents.moves))
    last = steps[-1]
    assert last.game.fireworks_sum == contents.result.fireworks_score
    return last.game.fireworks_sum


def your_turn_or_over(page: Any, timeout_ms: float = 20_000) -> bool:
    """Wait until the page asks for a move (True) or shows the game over (False)."""
    page.wait_for_selector("body.status-yours, body.status-over", timeout=timeout_ms)
    return page.locator("body.status-yours").count() > 0


def make_move(page: Any, rng: random.Random, choose: Any = None, keys: bool = True) -> None:
    """Press one of the page's move buttons (`choose(labels)` picks its index, else mostly a play at random), by its
    key or a click, and wait for the page the move leads to."""
    buttons = page.locator("form.moves button")
    labels = [buttons.nth(i).inner_text() for i in range(buttons.count())]
    plays = [i for i, label in enumerate(labels) if label.startswith("play")]
    if choose is not None:
        index = choose(labels)
    else:  # blind plays more often than not: strikes end the game in a few moves
        index = rng.choice(plays) if plays and rng.random() < 0.6 else rng.randrange(len(labels))
    button = buttons.nth(index)
    key = button.get_attribute("data-key")
    with page.expect_navigation():
        if keys and key and rng.random() < 0.5:
            page.keyboard.press(key)
        else:
            button.click()


def play_to_the_end(page: Any, url: str, seed: int = 0, choose: Any = None) -> int:
    """Play a whole game from a table page; the score the page shows at the end."""
    rng = random.Random(seed)
    page.goto(url)
    while your_turn_or_over(page):
        make_move(page, rng, choose)
    return int(page.locator(".final-score").last.inner_text())
