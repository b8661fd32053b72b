"""The summary a run prints at its end: games, mean score, tokens, cost, wall time, and every rejected attempt by
error kind, over every move of every game, interrupted ones included; never nan."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from harness.schema.records import PROVIDER_ERROR_KINDS
from tests.fakeserver import FakeModelServer, Reply, careful_player


def kinds_in_logs(folder: Path) -> Counter[str]:
    kinds: Counter[str] = Counter()
    for path in folder.glob("**/games/*.jsonl"):
        contents = read_game_log(path)
        calls = [c for m in contents.moves for c in m.calls] + contents.failed_calls
        kinds.update(a.error_kind for c in calls for a in c.attempts if a.error_kind)
    return kinds


def summary_rows(out: str) -> dict[str, str]:
    rows = {}
    for line in out.splitlines():
        cells = [cell.strip() for cell in line.split("│")]
        if len(cells) == 4 and cells[1]:
            rows[cells[1]] = cells[2]
    return rows


def test_the_summary_counts_every_rejected_attempt_by_kind_including_an_interrupted_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    counter = itertools.count()

    def every_third_reply_is_a_ramble(request: dict[str, Any]) -> Reply:
        number = next(counter)
        if number % 3 == 2:  # each ramble differs: the same one twice would end the re-asks as repeated_reply
            return Reply(content=f"Hmm, let me think about all of this for a while ({number}).")
        return careful_player(request)

    with FakeModelServer(every_third_reply_is_a_ramble) as server:
        argv = ["run", "--model", "openai/m", "--api-base", server.base_url, "--seeds", "1,2"]
        assert main([*argv, "--out", str(tmp_path / "a"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    rows = summary_rows(out)
    assert "┃ struck out ┃ interrupted ┃" in out  # written to a pipe, the score table is whole, not cut at 80 columns
    kinds = kinds_in_logs(tmp_path / "a")
    invalid = {k: n for k, n in kinds.items() if k not in PROVIDER_ERROR_KINDS}
    assert sum(invalid.values()) > 10
    assert rows["invalid replies"].startswith(f"{sum(invalid.values())}: ")
    for kind, count in invalid.items():
        assert f"{kind} {count}" in rows["invalid replies"]
    assert rows["games"] == "2: 2 complete, 0 interrupted"
    assert rows["tokens"].split()[0] != "0"
    assert rows["cost"].startswith("unpriced")  # openai/m has no price: unknown, never $0
    assert rows["wall time"].endswith("this session")

    tries = itertools.count()

    def rambles(request: dict[str, Any]) -> Reply:
        return Reply(content=f"I cannot decide (try {next(tries)}).")

    with FakeModelServer(rambles) as server:
        argv = [
            "run", "--model", "openai/m", "--api-base", server.base_url, "--seeds", "1", "--max-retries", "2",
        ]
        assert main([*argv, "--out", str(tmp_path / "b"), "--no-progress"]) == 1
    out = capsys.readouterr().out
    rows = summary_rows(out)
    assert rows["games"] == "1: 0 complete, 1 interrupted"
    assert rows["mean score"] == "- over complete games"
    (kind,) = kinds_in_logs(tmp_path / "b")
    assert rows["invalid replies"] == f"3: {kind} 3"  # the failed move's three attempts
    assert "nan" not in out
