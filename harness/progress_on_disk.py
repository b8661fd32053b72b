"""A run's progress read from its files alone: how many games are complete, interrupted or still to play.

Reads only the last line of each game log, so listing many large runs stays fast.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.lock import holder_alive
from harness.store import RunDir, last_result


class RunProgress(BaseModel):
    status: str  # running, stopped (writer gone), interrupted, complete
    players: str
    total: int
    complete: int
    interrupted: int
    mean_score: float | None
    updated_at: str | None


def run_progress(path: Path) -> RunProgress:
    run = RunDir(path)
    manifest = run.read_manifest() or {}
    games = manifest.get("games", [])
    status = run.read_status()
    results = [r for r in (last_result(p) for p in run.game_paths()) if r is not None]
    complete = [r for r in results if r.status == "complete"]
    interrupted = sum(1 for r in results if r.status == "interrupted")
    state = status.status if status else "new"
    if state == "running" and not holder_alive(path):
        state = "stopped"
    players = sorted({g["players"] for g in games})
    return RunProgress(
        status=state,
        players=",".join(str(p) for p in players),
        total=len(games),
        complete=len(complete),
        interrupted=interrupted,
        mean_score=sum(r.fireworks_score for r in complete) / len(complete) if complete else None,
        updated_at=status.updated_at if status else manifest.get("created_at"),
    )
