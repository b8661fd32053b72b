"""What many test files share: where the checkout is, reading a run's logs, one-line refusals, random game states and
the browser the web tests drive. Fixtures are in conftest.py; a scripted model server is in fakeserver.py."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.engine.game import Game, deck_for_seed
from harness.schema.log_file import GameLogContents, read_game_log
from harness.schema.moves import MoveKind

ROOT = Path(__file__).resolve().parent.parent  # the checkout
DATA = ROOT / "tests" / "data"


def command(argv: list[str], **popen: Any) -> subprocess.Popen[str]:
    """`hanabi-eval argv` started as a process of its own from the checkout, in text mode, its output to pipes unless
    `popen` says otherwise."""
    options: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **popen}
    return subprocess.Popen([sys.executable, "-m", "harness.cli", *argv], cwd=ROOT, text=True, **options)


def finished(argv: list[str], timeout_s: float = 120) -> subprocess.CompletedProcess[str]:
    """`hanabi-eval argv` run to its end as a process of its own, its output captured; killed if it outlives
    `timeout_s`."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli", *argv], cwd=ROOT, text=True, capture_output=True, timeout=timeout_s
    )


def read_terminal(controller: int) -> bytes:
    """Everything a command writes to the pseudo-terminal whose controlling end is `controller`, until it closes."""
    shown = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the other end closed: the command is over
            break
        if not chunk:
            break
        shown += chunk
    return shown


def one_line(err: str) -> str:
    """The one line a command printed to stderr: no traceback, nothing else."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def refused(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    """The one line with which `hanabi-eval argv` refuses its input, having exited with code 2."""
    assert main(argv) == 2
    return one_line(capsys.readouterr().err)


def only_run(out: Path) -> Path:
    """The one run folder under `out`."""
    (run,) = [p.parent for p in out.glob("*/manifest.json")]
    return run


def logs(out: Path) -> list[GameLogContents]:
    """Every game log of the runs under `out`, in file-name order."""
    return [read_game_log(p) for p in sorted(out.glob("*/games/*.jsonl"))]


def the_log(out: Path) -> GameLogContents:
    """The one game log of the one run under `out`."""
    (path,) = list((only_run(out) / "games").glob("*.jsonl"))
    return read_game_log(path)


def assert_whole_logs(out: Path, torn_tail: bool = False) -> None:
    """Every game log below `out` reads whole: no damaged line, its moves numbered from 1 without a gap, and no torn
    last line unless `torn_tail` (a full disk may cut the line it was writing; resume cuts it off)."""
    for path in out.glob("**/games/*.jsonl"):
        contents = read_game_log(path)  # raises LogCorrupt on a damaged line
        assert torn_tail or not contents.torn, path
        assert [m.turn for m in contents.moves] == list(range(1, len(contents.moves) + 1)), path


def rows_of(path: Path) -> list[dict[str, Any]]:
    """The rows of a JSONL file."""
    return [json.loads(line) for line in path.read_text().splitlines()]


def random_game(players: int, seed: int, moves: int) -> Game:
    """A game after up to `moves` random legal moves, mostly hints and discards so that it lasts."""
    rng = random.Random(seed)
    game = Game(players, deck_for_seed(seed))
    for _ in range(moves):
        if game.is_over:
            break
        legal = game.legal_moves()
        quiet = [m for m in legal if m.kind is not MoveKind.PLAY]
        game.apply(rng.choice(quiet if quiet and rng.random() < 0.85 else legal))
    return game


CHROMIUM = Path(os.environ.get("HANABI_EVAL_CHROMIUM", "/usr/bin/chromium"))
# Chromium as root, headless, on a machine with no network: no sandbox (root), no GPU, and none of the background
# services that would wait on the network. Playwright adds --headless and a fresh --user-data-dir itself.
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def launched_chromium() -> Iterator[Any]:
    """Debian's chromium, launched headless through Playwright for as long as the generator runs (a fixture's)."""
    with chromium_driver()() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        yield chromium
        chromium.close()


def chromium_driver() -> Any:
    """Playwright's sync_playwright, or a skip (a failure in CI) saying what is missing: Playwright or chromium."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "Playwright is not installed: pip install -e '.[browser]' (dev includes it)"
    if missing is None and not CHROMIUM.is_file():
        missing = f"no chromium at {CHROMIUM}: apt-get install -y chromium (as root), or set HANABI_EVAL_CHROMIUM"
    if missing is not None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the browser tests: {missing}")
        pytest.skip(missing)
    return sync_playwright
