"""Mycroft memory belongs to one seat of one game: never shared across seats or concurrent games, and restored from
the log when an interrupted game continues."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path
from typing import Any

from harness.cli.main import main
from harness.schema.log_file import read_game_log
from tests.fakeserver import FakeModelServer, Reply, careful_player

_counter = itertools.count()
_lock = threading.Lock()


def noting_player(request: dict[str, Any]) -> Reply:
    """A legal player whose every reason carries a unique marker, with a small delay so games interleave."""
    reply = careful_player(request)
    with _lock:
        marker = f"marker-{next(_counter):05d}"
    assert reply.content is not None
    reply.content = reply.content.replace('"reason": "', f'"reason": "{marker} ', 1)
    reply.delay_s = 0.005
    return reply


def records_by_game(out: Path) -> dict[str, list]:
    (run_dir,) = list(out.iterdir())
    return {p.stem: read_game_log(p).moves for p in sorted((run_dir / "games").glob("*.jsonl"))}


def memory_section(record) -> str:
    prompt = record.calls[0].attempts[0].messages[1].content
    return prompt.split("Current game state:")[0]


def test_concurrent_games_and_seats_keep_separate_memories(tmp_path: Path) -> None:
    with FakeModelServer(noting_player) as server:
        code = main(
            [
                "run",
                "--model",
                "openai/m",
                "--api-base",
                server.base_url,
                "--scaffold",
                "mycroft-plus",
                "--players",
                "3",
                "--seeds",
                "1,2",
                "--concurrency",
                "2",
                "--out",
                str(tmp_path),
                "--no-progress",
            ]
        )
    assert code == 0
    games = records_by_game(tmp_path)
    assert len(games) == 2
    all_markers = {r.reason.split()[0]: (game, r.seat) for game, rs in games.items() for r in rs}
    assert len(all_markers) == sum(len(rs) for rs in games.values())
    for records in games.values():
        previous: dict[int, Any] = {}
        for record in records:
            section = memory_section(record)
            shown = {m for m in all_markers if m in section}
            if record.seat in previous:
                assert shown == {previous[record.seat].reason.split()[0]}
                assert previous[record.seat].memory["state"] in section
            else:
                assert shown == set() and "first turn" in section
            previous[record.seat] = record


def test_an_interrupted_mycroft_game_continues_with_each_seats_memory(tmp_path: Path) -> None:
    budget = {"left": 7}

    def failing_after_seven(request: dict[str, Any]) -> Reply:
        with _lock:
            budget["left"] -= 1
            if budget["left"] < 0:
                return Reply(status=401)
        return noting_player(request)

    argv = [
        "run",
        "--model",
        "openai/m",
        "--scaffold",
        "mycroft-plus",
        "--players",
        "3",
        "--seeds",
        "4",
        "--out",
        str(tmp_path),
        "--no-progress",
    ]
    with FakeModelServer(failing_after_seven) as server:
        assert main([*argv, "--api-base", server.base_url]) == 1
    before = records_by_game(tmp_path)["3p-custom-seed4"]
    assert len(before) == 7
    with FakeModelServer(noting_player) as server:
        # the cause is fixed (a new server on another port): the same command continues the same run
        assert main([*argv, "--api-base", server.base_url, "--max-retries", "5"]) == 0
    (after,) = records_by_game(tmp_path).values()
    assert [r.model_dump() for r in after[:7]] == [r.model_dump() for r in before]
    last_before = {r.seat: r for r in before}
    for record in after[7:10]:  # each seat's first move after the restart
        assert last_before[record.seat].reason in memory_section(record)
        assert last_before[record.seat].memory["state"] in memory_section(record)
