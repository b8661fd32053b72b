"""A game stopped while its log waits for an fsync still gets its record synced and its file closed cleanly."""

from __future__ import annotations

import asyncio
import threading
from concurrent import futures
from pathlib import Path

from harness.schema import log_file
from harness.schema.log_file import GameLog, read_game_log
from harness.schema.records import GameHeader


def header() -> GameHeader:
    return GameHeader(
        run_id="r",
        game_id="g",
        seed=1,
        seed_set="standard",
        deck=[],
        players=2,
        seats=[],
        harness_version="test",
        git_commit=None,
        started_at="2026-01-01T00:00:00+00:00",
    )


def test_cancelling_a_game_waiting_for_its_sync_neither_loses_the_sync_nor_breaks_the_close(
    tmp_path: Path,
) -> None:
    release = threading.Event()
    pool = log_file._sync_pool()
    blockers = [pool.submit(release.wait) for _ in range(pool._max_workers)]  # every sync thread busy
    log = GameLog(tmp_path / "g.jsonl")

    async def main() -> None:
        await log.append(header())  # written; its sync is queued behind the blockers
        waiting = asyncio.ensure_future(log.durable())
        await asyncio.sleep(0.05)
        waiting.cancel()  # the game is stopped (Ctrl-C, shutdown) while it waits
        await asyncio.gather(waiting, return_exceptions=True)

    asyncio.run(main())
    release.set()
    log.close()  # waits for the queued sync, which still runs, and raises nothing
    assert not futures.wait(blockers, timeout=30).not_done  # the pool is not left stuck
    assert log._handle.closed
    assert read_game_log(tmp_path / "g.jsonl").header == header()
