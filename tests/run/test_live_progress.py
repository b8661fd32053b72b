"""The live display, as seen in a terminal: while a provider answers 429, it says how many retries there were and
counts down to the next one, with an estimate of the time left."""

from __future__ import annotations

import itertools
import os
import pty
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.fakeserver import FakeModelServer, Reply, careful_player
from tests.helpers import ROOT, read_terminal


def test_the_display_counts_down_provider_back_offs_and_shows_an_eta(tmp_path: Path) -> None:
    counter = itertools.count()

    def busy_at_first(request: dict[str, Any]) -> Reply:
        # two 429s in a row: the first asks for a wait of 2 s, which the display counts down; the second for none,
        # so that it adds a retry to the count but no idle time to the test
        count = next(counter)
        if count == 10:
            return Reply(status=429, headers={"Retry-After": "2"})
        if count == 11:
            return Reply(status=429, headers={"Retry-After": "0"})
        return careful_player(request)

    controller, terminal = pty.openpty()
    with FakeModelServer(busy_at_first) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "harness.cli", "run", "--model", "openai/m", "--api-base", server.base_url,
                "--seeds", "1", "--out", str(tmp_path),
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=terminal,  # the display goes to stderr: a terminal here
            env={**os.environ, "COLUMNS": "250", "TERM": "xterm"},
        )
        os.close(terminal)
        shown = read_terminal(controller)
        process.wait(timeout=120)
    os.close(controller)
    assert process.returncode == 0
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", shown.decode(errors="replace"))
    assert "provider retries 1 (rate_limited 1)" in text and "provider retries 2 (rate_limited 2)" in text
    countdown = {int(s) for s in re.findall(r"1 waiting, next retry in (\d+)s", text)}
    assert {2, 1} & countdown and len(countdown) >= 2  # it ticks
    assert re.search(r"ETA \d+m\d\ds", text)
