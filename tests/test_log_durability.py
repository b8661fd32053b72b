"""A game's log is durable line by line (schema/log_file.py GameLog): no line is written before the one before it is
on disk, a stopped game still gets its record synced and its file closed, a failed sync is reported once with the
log's path, and many games' syncs run at once in the process's sync threads."""

from __future__ import annotations

import asyncio
import errno
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harness.schema import log_file
from harness.schema.log_file import GameLog, read_game_log
from harness.schema.records import GameHeader, GameResult, Usage


def header(game_id: str = "g") -> GameHeader:
    return GameHeader(
        run_id="r",
        game_id=game_id,
        seed=1,
        seed_set="standard",
        deck=[],
        players=2,
        seats=[],
        harness_version="test",
        git_commit=None,
        started_at="2026-01-01T00:00:00+00:00",
    )


def result() -> GameResult:
    """A stop's line: a game may hold any number of them (each session a user stopped)."""
    return GameResult(status="stopped", fireworks_score=0, engine_score=0, turns=0, lives_lost=0, hints_given=0,
                      calls=0, retries=0, invalid_replies=0, provider_errors=0, usage=Usage(), cost_usd=None,
                      finished_at="2026-01-01T00:00:01+00:00")  # fmt: skip


def disk_that(monkeypatch: pytest.MonkeyPatch, before: Callable[[int], object]) -> None:
    """The disk as the sync threads see it: `before(fd)` runs ahead of each real fdatasync (it may wait or raise)."""
    real = log_file._DATA_SYNC

    def sync(fd: int) -> None:
        before(fd)
        real(fd)

    monkeypatch.setattr(log_file, "_DATA_SYNC", sync)


@pytest.fixture
def disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The descriptors the sync threads sync, in order (the real fdatasync still runs)."""
    synced: list[int] = []
    disk_that(monkeypatch, synced.append)
    yield synced


def slow_disk(monkeypatch: pytest.MonkeyPatch, fail: OSError | None = None) -> threading.Event:
    """A disk whose next sync does not return until the event is set (then fails with `fail`, if given)."""
    release = threading.Event()

    def held(fd: int) -> None:
        release.wait(30)
        if fail is not None:
            raise fail

    disk_that(monkeypatch, held)
    return release


def test_a_game_stopped_while_waiting_for_its_sync_keeps_the_record_and_closes_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = slow_disk(monkeypatch)
    log = GameLog(tmp_path / "g.jsonl")

    async def main() -> None:
        await log.append(header())  # written; its sync is held by the disk
        waiting = asyncio.ensure_future(log.durable())
        await asyncio.sleep(0.05)
        assert not waiting.done()  # the game really waits for the disk
        waiting.cancel()  # the game is stopped (Ctrl-C, shutdown) while it waits
        await asyncio.gather(waiting, return_exceptions=True)

    asyncio.run(main())  # its event loop is closed before the sync returns
    release.set()
    log.close()  # waits for the held sync, which still runs, and raises nothing
    assert log._handle.closed
    assert read_game_log(tmp_path / "g.jsonl").header == header()


def test_no_line_is_written_before_the_one_before_it_is_on_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = slow_disk(monkeypatch)
    path = tmp_path / "g.jsonl"
    log = GameLog(path)

    async def main() -> None:
        await log.append(header())
        second = asyncio.ensure_future(log.append(result()))
        await asyncio.sleep(0.1)
        assert not second.done() and path.read_bytes().count(b"\n") == 1  # held back behind the first line's sync
        release.set()
        await second
        await log.durable()

    asyncio.run(main())
    log.close()
    assert path.read_bytes().count(b"\n") == 2


def test_a_failed_sync_is_reported_with_the_logs_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    release = slow_disk(monkeypatch, fail=OSError(errno.EIO, "Input/output error"))
    release.set()
    log = GameLog(tmp_path / "g.jsonl")

    async def main() -> None:
        await log.append(header())
        with pytest.raises(OSError, match=r"g\.jsonl") as raised:
            await log.durable()
        assert raised.value.errno == errno.EIO

    asyncio.run(main())
    log.close()  # reported once: closing afterwards raises nothing more


def test_a_failed_sync_that_nobody_waited_for_is_raised_by_close(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = slow_disk(monkeypatch, fail=OSError(errno.EIO, "Input/output error"))
    release.set()
    log = GameLog(tmp_path / "g.jsonl")
    asyncio.run(log.append(header()))
    with pytest.raises(OSError, match=r"g\.jsonl"):
        log.close()


def run_games(tmp_path: Path, games: int, lines: int, pause: Callable[[], float]) -> list[GameLog]:
    """`games` logs of `lines` lines each, written at once on one event loop, `pause()` seconds between a game's
    lines (a model's answer); every log durable and closed at the end."""

    async def one(log: GameLog) -> None:
        await log.append(header(log.path.stem))
        for _ in range(lines - 1):
            await asyncio.sleep(pause())
            await log.append(result())
        await log.durable()

    logs = [GameLog(tmp_path / f"g{i}.jsonl") for i in range(games)]

    async def main() -> None:
        await asyncio.gather(*(one(log) for log in logs))

    asyncio.run(main())
    for log in logs:
        log.close()
    return logs


def test_the_games_of_an_instant_model_sync_every_line_once(tmp_path: Path, disk: list[int]) -> None:
    """With a model that answers at once (the offline bots), each line still waits for the one before it to be on
    disk, and is synced once."""
    run_games(tmp_path, games=3, lines=30, pause=lambda: 0.0)
    assert len(disk) == 90
    assert all((tmp_path / f"g{i}.jsonl").read_bytes().count(b"\n") == 30 for i in range(3))


def test_many_games_syncs_run_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A slow disk's syncs overlap: the sync threads hold several games' syncs at the same time."""
    together = threading.Barrier(log_file.SYNC_THREADS, timeout=30)
    disk_that(monkeypatch, lambda fd: together.wait())  # each sync returns only once SYNC_THREADS are in flight
    run_games(tmp_path, games=log_file.SYNC_THREADS, lines=2, pause=lambda: 0.0)
    assert all((tmp_path / f"g{i}.jsonl").read_bytes().count(b"\n") == 2 for i in range(log_file.SYNC_THREADS))
