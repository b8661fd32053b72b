"""A run's progress read from its files alone: how many games are complete, interrupted or still to play.

Reads the last line of each game log for its result, and checks every other line's shape (a whole JSON record per
line) without parsing it, so listing many large runs stays fast and a damaged log is still named. A manifest or
status file that cannot be read makes that run "unreadable", never the listing fail.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ValidationError

from harness.run.lock import holder_alive
from harness.run.store import RunDir
from harness.schema.log_file import last_result


class ProgressOnDisk(BaseModel):
    status: str  # running, stopped (writer gone or Ctrl-C), interrupted, complete, failed, unreadable
    players: str
    total: int
    complete: int
    interrupted: int
    mean_score: float | None
    updated_at: str | None
    corrupt: list[str] = []  # "games/<id>.jsonl line N" for each log with a damaged line


def damaged_line(path: Path) -> int | None:
    """The number of the first complete line of a game log that is not one whole JSON record, if any (a torn last
    line, cut by a crash, is not damage: resume cuts it off)."""
    lines = path.read_bytes().split(b"\n")[:-1]
    for number, line in enumerate(lines, start=1):
        if not (line.startswith(b'{"type":"') and line.endswith(b"}")):
            return number
    return None


def run_progress(path: Path) -> ProgressOnDisk:
    run = RunDir(path)
    try:
        manifest = run.read_manifest()
        status = run.read_status()
    except (OSError, ValueError, ValidationError):
        return ProgressOnDisk(
            status="unreadable",
            players="",
            total=0,
            complete=0,
            interrupted=0,
            mean_score=None,
            updated_at=None,
        )
    games = manifest.games if manifest is not None else []
    results = []
    corrupt = []
    for log in run.game_paths():
        try:
            line = damaged_line(log)
            result = last_result(log)
        except OSError:
            corrupt.append(f"{log.relative_to(path)} (unreadable)")
            continue
        if line is not None:
            corrupt.append(f"{log.relative_to(path)} line {line}")
        if result is not None:
            results.append(result)
    complete = [r for r in results if r.status == "complete"]
    interrupted = sum(1 for r in results if r.status == "interrupted")
    state = status.status if status else "new"
    if state == "running" and not holder_alive(path):
        state = "stopped"
    players = sorted({g.players for g in games})
    return ProgressOnDisk(
        status=state,
        players=",".join(str(p) for p in players),
        total=len(games),
        complete=len(complete),
        interrupted=interrupted,
        mean_score=sum(r.fireworks_score for r in complete) / len(complete) if complete else None,
        updated_at=status.updated_at if status else (manifest.created_at if manifest is not None else None),
        corrupt=corrupt,
    )
