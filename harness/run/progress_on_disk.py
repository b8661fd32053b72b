"""A run's progress read from its files alone (`runs`): games complete, interrupted or still to play.

Reads the run through RunDir.results, so a log damaged for any reader is named here, its game not counted,
and the run's status is "damaged" (whatever its last session recorded) until the log is moved aside or
restored. A manifest or status file that cannot be read makes that run "unreadable", in the one line the
other commands give.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from harness.run.lock import holder_alive
from harness.run.score_table import summarize
from harness.run.store import RunDir, RunFolderDamaged
from harness.schema.log_file import LogCorrupt


class ProgressOnDisk(BaseModel):
    status: str  # running, stopped (writer gone or Ctrl-C), interrupted, complete, failed, damaged, unreadable
    players: str = ""
    total: int = 0
    complete: int = 0
    interrupted: int = 0
    mean_score: float | None = None
    updated_at: str | None = None
    corrupt: list[str] = []  # "games/<id>.jsonl line N: problem" for each damaged log
    problem: str | None = None  # why the run is unreadable
    # prompt caching over every attempt logged: the share of prompt tokens read from the cache (None: no prompt
    # tokens), and what it saved where a price was known (None: nothing recorded)
    cached_share: float | None = None
    cache_saving_usd: float | None = None


def run_progress(path: Path) -> ProgressOnDisk:
    run = RunDir(path)
    try:
        manifest = run.read_manifest()
        status = run.read_status()
    except RunFolderDamaged as exc:
        return ProgressOnDisk(status="unreadable", problem=str(exc))
    games = manifest.games if manifest is not None else []
    results = []
    corrupt = []
    for log, result in run.results():
        if isinstance(result, LogCorrupt):
            corrupt.append(f"{log.relative_to(path)} {result.at}")
        elif result is not None:
            results.append(result)
    summary = summarize([(result, None) for result in results], 0.0)
    state: str = status.status if status else "new"
    if state == "running" and not holder_alive(path):
        state = "stopped"
    if corrupt and state != "running":  # what the last session recorded no longer holds: a log is damaged
        state = "damaged"
    players = sorted({g.players for g in games})
    return ProgressOnDisk(
        status=state,
        players=",".join(str(p) for p in players),
        total=len(games),
        complete=summary.complete,
        interrupted=summary.interrupted,
        mean_score=summary.mean_score,
        updated_at=status.updated_at if status else (manifest.created_at if manifest is not None else None),
        corrupt=corrupt,
        cached_share=summary.cached_share,
        cache_saving_usd=summary.cache_saving_usd,
    )
