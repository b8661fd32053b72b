"""A run's status.json kept up to date during a session, counting the games of every session.

The counts start from the game logs on disk and follow the games as they finish; a final write reads the logs
of unfinished games again, so a result line landed just before a stop counts. While the session plays, the
file is rewritten at most every WRITE_EVERY_S seconds.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from harness.run.store import RunDir
from harness.schema.log_file import last_result
from harness.schema.records import GamePlan, GameResult, RunStatus, now_iso

WRITE_EVERY_S = 2.0


class RunStatusFile:
    """The status of one run: each game's state (complete, interrupted, or None: not finished) by game id."""

    def __init__(self, run: RunDir, plans: list[GamePlan]) -> None:
        self.run = run
        self.games: dict[str, GameResult | None] = {
            p.game_id: _on_disk(run.game_path(p.game_id)) for p in plans
        }
        self.written_at = 0.0

    def game_done(self, game_id: str, result: GameResult) -> None:
        self.games[game_id] = result

    def counts(self) -> tuple[int, int]:
        results = [r for r in self.games.values() if r is not None]
        return sum(r.status == "complete" for r in results), sum(r.status == "interrupted" for r in results)

    def write(self, state: str, reason: str | None = None) -> None:
        if state != "running":  # a stop can land after a result line: reread the logs of unfinished games
            for game_id, result in self.games.items():
                if result is None:
                    self.games[game_id] = _on_disk(self.run.game_path(game_id))
        complete, interrupted = self.counts()
        if state == "done":
            stopped = [r for r in self.games.values() if r is not None and r.status == "interrupted"]
            state = "interrupted" if stopped else "complete"
            reason = stopped[0].interrupted_reason if stopped else None
        self.run.write_status(
            RunStatus(
                status=state,
                games_total=len(self.games),
                games_complete=complete,
                games_interrupted=interrupted,
                reason=reason,
                updated_at=now_iso(),
            )
        )
        self.written_at = time.monotonic()

    def maybe_write(self) -> None:
        """Rewrite the running status if the last write is older than WRITE_EVERY_S."""
        if time.monotonic() - self.written_at >= WRITE_EVERY_S:
            self.write("running")

    def try_write(self, state: str, reason: str | None = None) -> None:
        """Write the status if the disk lets us (after a disk fault it may not)."""
        with contextlib.suppress(OSError):
            self.write(state, reason)


def _on_disk(path: Path) -> GameResult | None:
    try:
        return last_result(path) if path.exists() else None
    except OSError:
        return None
